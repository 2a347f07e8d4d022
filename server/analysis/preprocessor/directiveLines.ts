// The preprocessor lines of a file's code (comments and literals already blanked, codeText.ts), as the
// preprocessor reads them: the directive's word and the rest of its logical line (backslash
// continuations joined). A `#` inside a comment or a string is not a directive here.
import { findDirectives } from "../source/textScans";

export interface DirectiveLine {
  /** `if`, `ifdef`, `define`, `include`, … */
  word: string;
  /** Offset of the `#`. */
  hash: number;
  /** Offset where the logical line ends (its last line break, or the end of the text). */
  end: number;
  /** The text after the word, continuations joined. */
  rest: string;
}

/** Where the logical line holding `at` ends, following backslash continuations. */
export function logicalLineEnd(text: string, at: number): number {
  let end = text.indexOf("\n", at);
  while (end > 0 && /\\\r?$/.test(text.slice(Math.max(0, end - 2), end))) end = text.indexOf("\n", end + 1);
  return end < 0 ? text.length : end;
}

/**
 * Every directive line of `code` (`text` with comments and literals blanked), in order; an include's
 * name, a string literal, is read from `text`.
 */
export function directiveLines(text: string, code: string): DirectiveLine[] {
  return findDirectives(code, 0, code.length).map((d) => {
    const end = logicalLineEnd(code, d.end);
    const from = d.word === "include" ? text : code;
    return { word: d.word, hash: d.hash, end, rest: from.slice(d.end, end).replace(/\\\r?\n/g, " ") };
  });
}
