// Is a node compiled only for sm_80+? Evaluates the `#if`/`#elif`/`#else` conditions around it with
// __CUDA_ARCH__ set to each low target, in three-valued logic (other macros are unknown).
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "./fileIndex";
import { namedChildren, unparen } from "./nodes";
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
 * Text ranges [start, end) of the preprocessor arms that are compiled for none of `lowArchs` (SM numbers
 * such as 75): `#if __CUDA_ARCH__ >= 800` bodies, `#else` arms of `< 800` tests, and so on. Unknown
 * conditions (other macros) are not guards.
 */
export function archOffRanges(idx: FileIndex, lowArchs: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  if (lowArchs.length === 0) return out;
  for (const d of idx.windowDirectives()) {
    if (!ARM_WORDS.has(d.word)) continue;
    const arm = idx.ownerOf(d.hash, d.end, ARMS) ?? armOf(idx.nodeAt(d.hash, d.end));
    if (!arm || !ARMS.has(arm.type)) continue;
    if (!lowArchs.every((sm) => branchActive(arm, sm * 10) === false)) continue;
    const head = arm.childForFieldName("condition") ?? arm.childForFieldName("name") ?? arm.child(0);
    const alt = arm.childForFieldName("alternative");
    out.push([head?.endIndex ?? arm.startIndex, alt?.startIndex ?? arm.endIndex]);
  }
  return out;
}

const ARMS: ReadonlySet<string> = new Set(["preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else"]);
const ARM_WORDS: ReadonlySet<string> = new Set(["if", "ifdef", "ifndef", "elif", "else"]);
const IF_ARMS: ReadonlySet<string> = new Set(["preproc_if", "preproc_elif"]);

/** The arm a directive's token belongs to: the token itself or its parent. */
function armOf(tok: Node): Node | null {
  return ARMS.has(tok.type) ? tok : tok.parent;
}

export function inRanges(offset: number, ranges: readonly [number, number][]): boolean {
  return ranges.some(([a, b]) => offset >= a && offset < b);
}

/** Does the file guard anything on __CUDA_ARCH__ >= 800 at all (for the `cuda_bf16.h` include check)? */
export function hasBf16Guard(idx: FileIndex): boolean {
  idx.reads("context:guard");
  return idx.shared("hasBf16Guard", () => findBf16Guard(idx));
}

function findBf16Guard(idx: FileIndex): boolean {
  for (const d of idx.directives()) {
    if (d.word !== "if" && d.word !== "elif") continue;
    let n = idx.ownerOf(d.hash, d.end, IF_ARMS) ?? null;
    if (!n) {
      const tok = idx.nodeAt(d.hash, d.end);
      n = IF_ARMS.has(tok.type) ? tok : tok.parent;
    }
    const c = n?.childForFieldName("condition");
    if (!c) continue;
    const lo = truth(c, 750);
    const hi = truth(c, 800);
    if (lo !== undefined && hi !== undefined && lo !== hi) return true;
  }
  return false;
}
