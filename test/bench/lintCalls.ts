// `npm run bench:lint-calls`: how many web-tree-sitter Node calls (getters and methods) one warm
// whole-file lint of the 5,000-line workload makes, per rule and per member. Each call crosses into
// wasm and most hand JS a new Node; unlike times, the counts do not move with the machine's load, so a
// change to a rule's reading shows here exactly. A reader several rules share is charged to the first
// rule that asks for it.
import { Node } from "web-tree-sitter";
import { lintTree } from "../../server/lint/engine";
import { cudaParser } from "../../server/lint/parser";
import type { Rule } from "../../server/rules/rule";
import { errorMessage } from "../../server/util/errorMessage";
import { OPTS } from "./lintEngine";
import { workload } from "./lintWorkload";

const counts = new Map<string, number>();
let running = "(engine)";

/** Wraps every getter and method of Node.prototype to count its calls under the running rule. */
function countNodeCalls(): void {
  const proto = Node.prototype as unknown as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === "constructor") continue;
    // Its getter as a function property, not PropertyDescriptor's method signature.
    const d = Object.getOwnPropertyDescriptor(proto, key) as {
      get?: (this: unknown) => unknown;
      value?: unknown;
    };
    const bump = (): void => {
      const k = `${running}\t${key}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    };
    const getter = d.get;
    if (getter) {
      Object.defineProperty(proto, key, {
        ...d,
        get(this: unknown): unknown {
          bump();
          return getter.call(this);
        },
      });
    } else if (typeof d.value === "function") {
      const fn = d.value as (...args: unknown[]) => unknown;
      proto[key] = function (this: unknown, ...args: unknown[]) {
        bump();
        return fn.apply(this, args);
      };
    }
  }
}

async function main(): Promise<void> {
  const text = workload(5000);
  const parser = await cudaParser();
  const tree = parser.parse(text)!;
  const rules: Rule[] = OPTS.rules.map((r) => ({
    ...r,
    check(ctx) {
      running = r.id;
      try {
        r.check(ctx);
      } finally {
        running = "(engine)";
      }
    },
  }));
  countNodeCalls();
  lintTree(tree, text, { ...OPTS, rules });
  tree.delete();
  const byRule = new Map<string, number>();
  for (const [k, n] of counts) {
    const rule = k.split("\t")[0]!;
    byRule.set(rule, (byRule.get(rule) ?? 0) + n);
  }
  const total = [...byRule.values()].reduce((a, b) => a + b, 0);
  // A getter such as `type` calls another (`typeId`): both are counted, as both run.
  console.log(`Node calls in one warm whole-file lint: ${total}`);
  for (const [rule, n] of [...byRule].sort((a, b) => b[1] - a[1])) console.log(`  ${rule} ${n}`);
  console.log("most called (rule, member):");
  for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 20))
    console.log(`  ${k.replace("\t", " ")} ${n}`);
}

main().catch((err: unknown) => {
  console.error(errorMessage(err));
  process.exitCode = 1;
});
