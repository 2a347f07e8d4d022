// __syncthreads() that only some threads of the block reach: the block deadlocks or, worse, silently
// synchronizes with the wrong barrier. Conditions on blockIdx or kernel arguments are uniform and fine.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { ancestors, declaredName, descendants, isDeviceCode, unparen } from "./util/nodes";

const BARRIERS: ReadonlySet<string> = new Set([
  "__syncthreads",
  "__syncthreads_count",
  "__syncthreads_and",
  "__syncthreads_or",
]);
/** Built-ins that differ between threads of one block. */
const PER_THREAD: ReadonlySet<string> = new Set(["threadIdx", "laneid", "__lane_id"]);

/** Names in a function whose value depends on the thread index, found to a fixed point. */
function threadDependentNames(fn: Node): Set<string> {
  const tainted = new Set<string>();
  const pairs: { name: string; value: Node }[] = [];
  for (const d of descendants(fn, "init_declarator")) {
    const name = declaredName(d.childForFieldName("declarator"));
    const value = d.childForFieldName("value");
    if (name && value) pairs.push({ name: name.text, value });
  }
  for (const a of descendants(fn, "assignment_expression")) {
    const left = unparen(a.childForFieldName("left") ?? a);
    const right = a.childForFieldName("right");
    if (left.type === "identifier" && right) pairs.push({ name: left.text, value: right });
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const { name, value } of pairs) {
      if (tainted.has(name)) continue;
      if (dependsOnThread(value, tainted)) {
        tainted.add(name);
        changed = true;
      }
    }
  }
  return tainted;
}

function dependsOnThread(n: Node, tainted: ReadonlySet<string>): boolean {
  for (const id of descendants(n, "identifier")) {
    if (PER_THREAD.has(id.text) || tainted.has(id.text)) return true;
  }
  if (n.type === "identifier") return PER_THREAD.has(n.text) || tainted.has(n.text);
  return false;
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
    for (const fn of descendants(ctx.tree.rootNode, "function_definition")) {
      if (!isDeviceCode(fn)) continue;
      const calls = descendants(fn, "call_expression").filter((c) => {
        const f = c.childForFieldName("function");
        return f?.type === "identifier" && BARRIERS.has(f.text);
      });
      if (calls.length === 0) continue;
      const tainted = threadDependentNames(fn);
      for (const call of calls) {
        let child: Node = call;
        for (const a of ancestors(call, fn)) {
          const cond = controllingCondition(a, child);
          child = a;
          if (!cond || !dependsOnThread(cond, tainted)) continue;
          const line = cond.startPosition.row + 1;
          ctx.report({
            node: call,
            message: `${call.childForFieldName("function")!.text}() is reached only by the threads for which \`${cond.text.replace(/^\((.*)\)$/s, "$1")}\` (line ${line}) holds, which depends on the thread index: the other threads never arrive at the barrier. Move the barrier out of the branch.`,
          });
          break;
        }
      }
    }
  },
};
