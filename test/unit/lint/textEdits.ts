// Text edits as an editor sends them (offsets, rows and UTF-16 columns), with no file reads at import:
// bench:lint bundles these with the engine (test/bench/lintBundle.ts).
import type { TextChange } from "../../../server/lint/parser";

/** The row and UTF-16 column of `offset` in `text`. */
export function pointAt(text: string, offset: number): { row: number; column: number } {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: offset - lineStart };
}

/** The change replacing [start, end) of `text` with `newText`, as an editor sends it. */
export function change(text: string, start: number, end: number, newText: string): TextChange {
  return {
    startOffset: start,
    oldEndOffset: end,
    start: pointAt(text, start),
    oldEnd: pointAt(text, end),
    newText,
  };
}

/** The text after replacing [start, end) with `newText`, and the change that says so. */
export function edited(
  text: string,
  start: number,
  end: number,
  newText: string,
): { text: string; change: TextChange } {
  return {
    text: text.slice(0, start) + newText + text.slice(end),
    change: change(text, start, end, newText),
  };
}
