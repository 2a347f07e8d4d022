// Is a node compiled only for sm_80+? Evaluates the `#if`/`#elif`/`#else` conditions around it with
// __CUDA_ARCH__ set to each low target, in three-valued logic (other macros are unknown).
import type { Node } from "web-tree-sitter";
import { ancestors, namedChildren, unparen } from "./nodes";
import { parseIntLiteral } from "./constEval";

type Tri = boolean | undefined;
/** Values are numbers; `undefined` means unknown. `arch` undefined means the host pass. */
function evalCond(node: Node, arch: number | undefined): number | undefined {
  const n = unparen(node);
  switch (n.type) {
    case "number_literal":
      return parseIntLiteral(n.text);
    case "identifier":
      if (n.text === "__CUDA_ARCH__") return arch ?? 0;
      return undefined;
    case "preproc_defined": {
      const name = namedChildren(n).find((c) => c.type === "identifier")?.text;
      if (name === "__CUDA_ARCH__") return arch === undefined ? 0 : 1;
      return undefined;
    }
    case "unary_expression": {
      const v = evalCond(n.childForFieldName("argument") ?? n, arch);
      const op = n.childForFieldName("operator")?.text;
      if (v === undefined) return undefined;
      return op === "!" ? (v ? 0 : 1) : op === "-" ? -v : undefined;
    }
    case "binary_expression": {
      const op = n.childForFieldName("operator")?.text;
      const a = evalCond(n.childForFieldName("left") ?? n, arch);
      const b = evalCond(n.childForFieldName("right") ?? n, arch);
      if (op === "&&") return a === 0 || b === 0 ? 0 : a === undefined || b === undefined ? undefined : 1;
      if (op === "||")
        return (a !== undefined && a !== 0) || (b !== undefined && b !== 0)
          ? 1
          : a === undefined || b === undefined
            ? undefined
            : 0;
      if (a === undefined || b === undefined) return undefined;
      switch (op) {
        case ">=":
          return a >= b ? 1 : 0;
        case ">":
          return a > b ? 1 : 0;
        case "<=":
          return a <= b ? 1 : 0;
        case "<":
          return a < b ? 1 : 0;
        case "==":
          return a === b ? 1 : 0;
        case "!=":
          return a !== b ? 1 : 0;
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

function truth(cond: Node | null, arch: number): Tri {
  if (!cond) return undefined;
  const v = evalCond(cond, arch);
  return v === undefined ? undefined : v !== 0;
}

/** The condition under which a preprocessor branch is compiled, for one device arch (e.g. 750). */
function branchActive(branch: Node, arch: number): Tri {
  // branch is preproc_if / preproc_ifdef / preproc_elif / preproc_else; walk back through earlier arms.
  const head = (b: Node): Tri => {
    if (b.type === "preproc_if" || b.type === "preproc_elif")
      return truth(b.childForFieldName("condition"), arch);
    if (b.type === "preproc_ifdef") {
      const name = b.childForFieldName("name")?.text;
      const isNot = b.child(0)?.type === "#ifndef";
      if (name !== "__CUDA_ARCH__") return undefined;
      return !isNot;
    }
    return true;
  };
  let active: Tri = head(branch);
  for (
    let prev = branch.parent;
    prev && branch.type !== "preproc_if" && branch.type !== "preproc_ifdef";
    prev = prev.parent
  ) {
    if (!["preproc_if", "preproc_ifdef", "preproc_elif"].includes(prev.type)) break;
    const p = head(prev);
    // this arm runs only when every earlier arm was false
    active = p === true ? false : p === undefined ? (active === false ? false : undefined) : active;
    if (prev.type === "preproc_if" || prev.type === "preproc_ifdef") break;
  }
  return active;
}

/**
 * True when every enclosing preprocessor branch that mentions __CUDA_ARCH__ keeps `node` out of the device
 * passes for all `lowArchs` (SM numbers such as 75). Unknown conditions do not count as a guard.
 */
export function guardedFrom(node: Node, lowArchs: readonly number[]): boolean {
  if (lowArchs.length === 0) return true;
  const arms: Node[] = [];
  let from = node;
  for (const a of ancestors(node)) {
    if (["preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else"].includes(a.type)) {
      // Only the arm that holds the node counts: not when it sits in the condition or in a later arm.
      const alt = a.childForFieldName("alternative");
      const cond = a.childForFieldName("condition") ?? a.childForFieldName("name");
      if ((!alt || alt.id !== from.id) && (!cond || cond.id !== from.id)) arms.push(a);
    }
    from = a;
  }
  return lowArchs.every((sm) => arms.some((a) => branchActive(a, sm * 10) === false));
}

/** Does the file guard anything on __CUDA_ARCH__ >= 800 at all (for the `cuda_bf16.h` include check)? */
export function hasBf16Guard(root: Node): boolean {
  for (const n of root.descendantsOfType(["preproc_if", "preproc_elif"])) {
    const c = n?.childForFieldName("condition");
    if (c && truth(c, 750) === false && truth(c, 800) === true) return true;
    if (c && truth(c, 750) === true && truth(c, 800) === false) return true;
  }
  return false;
}
