// __syncthreads() that only some threads of the block reach: the block deadlocks or, worse, silently
// synchronizes with the wrong barrier. Conditions on blockIdx or kernel arguments are uniform and fine.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { FileIndex } from "./util/fileIndex";
import { ancestors, declaredName, descendants, unparen } from "./util/nodes";

const IDENTS: ReadonlySet<string> = new Set(["identifier"]);

/** Built-ins that differ between threads of one block. */
const PER_THREAD: ReadonlySet<string> = new Set(["threadIdx", "laneid", "__lane_id"]);

/** Names in a function whose value depends on the thread index, found to a fixed point. */
function threadDependentNames(fn: Node): Set<string> {
  const tainted = new Set<string>();
  const pairs: { name: string; value: string }[] = [];
  for (const d of descendants(fn, "init_declarator", "assignment_expression")) {
    const target =
      d.type === "init_declarator"
        ? declaredName(d.childForFieldName("declarator"))
        : unparen(d.childForFieldName("left") ?? d);
    const value = d.childForFieldName(d.type === "init_declarator" ? "value" : "right");
    if (target?.type === "identifier" && value) pairs.push({ name: target.text, value: value.text });
  }
  for (let changed = true; changed;) {
    changed = false;
    const re = taintRegex(tainted);
    for (const { name, value } of pairs) {
      if (!tainted.has(name) && re.test(value)) {
        tainted.add(name);
        changed = true;
      }
    }
  }
  return tainted;
}

function taintRegex(tainted: ReadonlySet<string>): RegExp {
  return new RegExp(`\\b(${[...PER_THREAD, ...tainted].join("|")})\\b`);
}

function dependsOnThread(n: Node, tainted: ReadonlySet<string>): boolean {
  return taintRegex(tainted).test(n.text);
}

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
          tainted ??= threadDependentNames(fn);
          if (!dependsOnThread(cond, tainted)) continue;
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
