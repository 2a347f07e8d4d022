// Where a function writes a variable, read from its text for the trip-count readers (uniformityTrip.ts):
// which places may write a name, whether one of them only declares another variable of that name, and
// whether a thread that writes a loop's counter leaves the loop right after (so no later iteration or
// later test of that loop sees the value).
//
// Cannot see: writes through a pointer or a reference to the variable, macros that assign.
import type { Node } from "web-tree-sitter";
import { ancestors, declaredName } from "../source/nodes";
import { BREAKABLE } from "./uniformityBase";

/**
 * The places in `node` (of the file text `src`) that may write `name`: assignments, increments,
 * `&name`; each is where the name starts. Declarations of a variable of that name are among them.
 */
export function writeSites(src: string, node: Node, name: string): number[] {
  const text = src.slice(node.startIndex, node.endIndex);
  const w = new RegExp(
    `(?:\\+\\+|--)\\s*${name}\\b|(?<=[(,=]\\s*)&\\s*${name}\\b|\\b${name}\\s*(?:\\+\\+|--|(?:[-+*/%&|^]|<<|>>)?=(?!=))`,
    "g",
  );
  // the match holds the name once, after operators and spaces only
  return [...text.matchAll(w)].map((m) => node.startIndex + m.index + m[0].indexOf(name));
}

/** Is the name at `at` the one an init declarator (`int name = e`) declares: a new variable, no write? */
export function declaresAt(fn: Node, at: number, name: string): boolean {
  const id = fn.descendantForIndex(at, at + name.length);
  let d: Node | null = id?.parent ?? null;
  while (d && d.type !== "init_declarator" && /declarator$/.test(d.type)) d = d.parent;
  return d?.type === "init_declarator" && declaredName(d.childForFieldName("declarator"))?.startIndex === at;
}

/**
 * Does every write of `name` in `loop`'s body (see writeSites) leave the loop right after: a later
 * statement of a block around it is a `return`, or a `break` of this loop, with no continue or goto
 * before it?
 */
export function writesLeave(src: string, loop: Node, name: string): boolean {
  const body = loop.childForFieldName("body");
  if (!body) return true;
  return writeSites(src, body, name).every((at) => {
    const n = body.descendantForIndex(at, at);
    return n !== null && leavesAfter(src, n, loop);
  });
}

function leavesAfter(src: string, at: Node, loop: Node): boolean {
  for (let n: Node = at; n.parent && n.parent.id !== loop.id; n = n.parent) {
    const block = n.parent;
    if (block.type !== "compound_statement") continue;
    const ownBreak = ![...ancestors(block, loop)].some((a) => BREAKABLE.has(a.type));
    for (let s = n.nextNamedSibling; s; s = s.nextNamedSibling) {
      if (s.type === "return_statement" || (s.type === "break_statement" && ownBreak)) return true;
      if (/\b(?:continue|goto)\b/.test(src.slice(s.startIndex, s.endIndex))) return false;
    }
  }
  return false;
}
