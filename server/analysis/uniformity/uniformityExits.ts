// Which barriers an exit keeps its thread from (uniformity.ts Uniformity.skips): the places of the
// function a thread could still have reached had it not taken the exit.
//
// Not skipped: a barrier in the other arm of an `if` the exit is in (no loop around that if brings the
// thread back), and a barrier outside a block that the exit is in when that block ends in a `return`
// and nothing else leaves it (no break or continue to a loop outside it, no goto): a thread that did not
// take the exit would have returned at the block's end, so the barrier was never on its way. (Should the
// block's own condition differ between threads, that final return is an exit of its own, checked too.)
//
// Cannot see: a block whose end cannot be reached for other reasons (a loop without exit, a call that
// never returns), `#if` arms around the final return.
import type { Node } from "web-tree-sitter";
import { ancestors, descendants } from "../source/nodes";
import { BREAKABLE, LOOPS } from "./uniformityBase";

export function inside(n: Node, outer: Node): boolean {
  return n.startIndex >= outer.startIndex && n.endIndex <= outer.endIndex;
}

/**
 * Is `b` in the other arm of an `if` that `e` is in, with no loop between that `if` and `stop` (the exit's
 * target: the function for a return, the loop for a continue) to come back to it?
 */
export function otherArm(e: Node, b: Node, stop: Node): boolean {
  const up = [...ancestors(e, stop)];
  const i = up.findIndex((a) => a.type === "if_statement" && inside(b, a));
  const branch = up[i];
  if (!branch || up.slice(i + 1).some((a) => LOOPS.has(a.type))) return false;
  const then = branch.childForFieldName("consequence");
  const otherwise = branch.childForFieldName("alternative");
  if (!then || !otherwise) return false;
  return inside(e, then) ? inside(b, otherwise) : inside(b, then);
}

/**
 * Is exit `e` inside a block (below `owner`) that does not hold `b`, ends in a `return` other than `e`
 * and is left by nothing else: a thread that does not take `e` returns there and never reaches `b`.
 */
export function insideReturningBlock(e: Node, b: Node, owner: Node): boolean {
  for (const a of ancestors(e, owner)) {
    if (a.type !== "compound_statement" || inside(b, a)) continue;
    const last = lastStatement(a);
    if (last?.type === "return_statement" && last.id !== e.id && onlyReturns(a)) return true;
  }
  return false;
}

/** The last statement of a block, comments aside. */
function lastStatement(block: Node): Node | undefined {
  for (let i = block.namedChildCount - 1; i >= 0; i--) {
    const k = block.namedChild(i);
    if (k && k.type !== "comment") return k;
  }
  return undefined;
}

/**
 * Does control leave `block` only by its end or a return: each break and continue in it jumps to a loop
 * (or switch, for a break) inside it, and it holds no goto?
 */
function onlyReturns(block: Node): boolean {
  const jumps = descendants(block, "break_statement", "continue_statement", "goto_statement");
  return jumps.every((j) => {
    if (j.type === "goto_statement") return false;
    const targets = j.type === "break_statement" ? BREAKABLE : LOOPS;
    return [...ancestors(j, block)].some((a) => targets.has(a.type));
  });
}
