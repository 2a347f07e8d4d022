// Rows and columns (0-based, UTF-16 columns: the spans' convention) and moving spans past an edit.
import type { Span } from "../rules/rule";

export interface Point {
  row: number;
  column: number;
}
export const before = (a: Point, b: Point): boolean =>
  a.row < b.row || (a.row === b.row && a.column < b.column);
export const atOrBefore = (a: Point, b: Point): boolean => !before(b, a);

/** The point reached by reading `s` from `p` (columns in UTF-16 code units, as the spans count them). */
export function advance(p: Point, s: string): Point {
  const last = s.lastIndexOf("\n");
  if (last < 0) return { row: p.row, column: p.column + s.length };
  let rows = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) rows++;
  return { row: p.row + rows, column: s.length - last - 1 };
}

/**
 * A span moved by an edit that replaced [start, oldEnd) with text now ending at newEnd, or "inside"
 * when it overlaps the replaced text.
 */
export function moveSpan(span: Span, start: Point, oldEnd: Point, newEnd: Point): Span | "inside" {
  const s = { row: span.startLine, column: span.startColumn };
  const e = { row: span.endLine, column: span.endColumn };
  if (atOrBefore(e, start) && before(s, start)) return span;
  if (!atOrBefore(oldEnd, s)) return "inside";
  // On a later line of an edit that adds or removes no line, nothing moves: the span itself.
  if (newEnd.row === oldEnd.row && s.row > oldEnd.row) return span;
  const move = (p: Point): Point =>
    p.row === oldEnd.row
      ? { row: newEnd.row, column: newEnd.column + p.column - oldEnd.column }
      : { row: p.row + newEnd.row - oldEnd.row, column: p.column };
  const ms = move(s);
  const me = move(e);
  return { startLine: ms.row, startColumn: ms.column, endLine: me.row, endColumn: me.column };
}
