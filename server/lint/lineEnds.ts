// Line ends as the compiler and the editor read them: "\n", "\r\n" and a lone "\r" (old Mac files) each
// end a line. tree-sitter ends a row at "\n" only, so a file with lone "\r"s would be one line to it: a
// `//` comment would run to the end of the file, and every position would be on row 0. The lint engine
// is given the text with each lone "\r" read as "\n": one character for one, so offsets do not move,
// and rows and columns are the editor's (LSP: "\r", "\n" and "\r\n" all end a line).

const LONE_CR = /\r(?!\n)/g;

/** `text` with each lone "\r" replaced by "\n" (same length, same offsets). */
export function normalizeLineEnds(text: string): string {
  return text.includes("\r") ? text.replace(LONE_CR, "\n") : text;
}
