// __syncthreads() that only some threads of the block reach: the block deadlocks or, worse, silently
// synchronizes with the wrong barrier. Conditions on blockIdx or kernel arguments are uniform and fine.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { FileIndex } from "./util/fileIndex";
import { ancestors, declaredName, descendants, unparen } from "./util/nodes";

const IDENTS: ReadonlySet<string> = new Set(["identifier"]);

/** Built-ins that differ between threads of one block. */
const PER_THREAD: ReadonlySet<string> = new Set(["threadIdx", "laneid", "__lane_id"]);

/** A binding in a function: `int x = …` or `x = …`, its target and value read only when needed. */
interface Binding {
  node: Node;
  /** The whole binding's text: a value can only mention a name its binding's text mentions. */
  text: string;
  pair?: { name: string; value: string } | null;
}

function pairOf(b: Binding): { name: string; value: string } | null {
  if (b.pair !== undefined) return b.pair;
  const d = b.node;
  const target =
    d.type === "init_declarator"
      ? declaredName(d.childForFieldName("declarator"))
      : unparen(d.childForFieldName("left") ?? d);
  const value = d.childForFieldName(d.type === "init_declarator" ? "value" : "right");
  b.pair = target?.type === "identifier" && value ? { name: target.text, value: value.text } : null;
  return b.pair;
}

/** Names in a function whose value depends on the thread index, found to a fixed point. */
function threadDependentNames(fn: Node): Set<string> {
  const tainted = new Set<string>();
  const bindings: Binding[] = descendants(fn, "init_declarator", "assignment_expression").map((node) => ({
    node,
    text: node.text,
  }));
  for (let changed = true; changed;) {
    changed = false;
    const re = taintRegex(tainted);
    for (const b of bindings) {
      if (!re.test(b.text)) continue;
      const pair = pairOf(b);
      if (pair && !tainted.has(pair.name) && re.test(pair.value)) {
        tainted.add(pair.name);
        changed = true;
      }
    }
  }
  return tainted;
}

function taintRegex(tainted: ReadonlySet<string>): RegExp {
  return new RegExp(`\\b(${[...PER_THREAD, ...tainted].join("|")})\\b`);
}

/** Thread-index built-ins by name: a condition naming one depends on the thread without further analysis. */
const DIRECT = taintRegex(new Set());

/** The condition that decides whether `child` of `branch` runs, if `branch` is a control statement. */
function controllingCondition(branch: Node, child: Node): Node | undefined {
  switch (branch.type) {
    case "if_statement":
    case "while_statement":
    case "do_statement":
    case "switch_statement": {
      const c = branch.childForFieldName("condition");
      return c && c.id !== child.id ? c : undefined;
    }
    case "for_statement": {
      const c = branch.childForFieldName("condition");
      return c && c.id !== child.id && branch.childForFieldName("body")?.id === child.id ? c : undefined;
    }
    case "conditional_expression": {
      const c = branch.childForFieldName("condition");
      return c && c.id !== child.id ? c : undefined;
    }
    case "binary_expression": {
      // `a && __syncthreads_or(x)`: short-circuit makes the right side conditional
      const op = branch.childForFieldName("operator")?.text;
      const left = branch.childForFieldName("left");
      return (op === "&&" || op === "||") && left && left.id !== child.id ? left : undefined;
    }
    default:
      return undefined;
  }
}

export const syncthreadsInDivergentBranch: Rule = {
  id: "syncthreads-in-divergent-branch",
  defaultSeverity: "error",
  summary:
    "__syncthreads() under a condition that depends on the thread index: not every thread reaches the barrier.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const byFunction = new Map<number, { fn: Node; calls: Node[] }>();
    for (const id of idx.tokens(/\b(__syncthreads(?:_count|_and|_or)?)\s*\(/g, IDENTS)) {
      const call = id.parent;
      const f = idx.deviceFunctionAt(id.startIndex);
      if (call?.type !== "call_expression" || !f) continue;
      const entry = byFunction.get(f.node.id) ?? { fn: f.node, calls: [] };
      entry.calls.push(call);
      byFunction.set(f.node.id, entry);
    }
    for (const { fn, calls } of byFunction.values()) {
      // The function's data flow only when a barrier sits under a condition (walking it costs).
      let tainted: Set<string> | undefined;
      for (const call of calls) {
        let child: Node = call;
        for (const a of ancestors(call, fn)) {
          const cond = controllingCondition(a, child);
          child = a;
          if (!cond) continue;
          const text = cond.text;
          if (!DIRECT.test(text)) {
            tainted ??= threadDependentNames(fn);
            if (!taintRegex(tainted).test(text)) continue;
          }
          // Relative, so the message still holds when edits above move the function.
          const above = call.startPosition.row - cond.startPosition.row;
          const where = above === 0 ? "on this line" : above === 1 ? "1 line above" : `${above} lines above`;
          ctx.report({
            node: call,
            message: `${call.childForFieldName("function")!.text}() is reached only by the threads for which \`${cond.text.replace(/^\((.*)\)$/s, "$1")}\` (${where}) holds, which depends on the thread index: the other threads never arrive at the barrier. Move the barrier out of the branch.`,
          });
          break;
        }
      }
    }
  },
};
