// The file's text with comments and string/character literals blanked out (same length, line breaks
// kept), so that declarations and macros are read from code only: a parameter comment `// {n, m}` or a
// type name in a string declares nothing.
import type { FileIndex } from "./fileIndex";

const NOT_CODE =
  /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"|'(?:[^'\\\n]|\\[\s\S]){1,8}'/g;

/** `text` with every comment and literal replaced by spaces (line breaks kept, so offsets and lines hold). */
export function codeOnly(text: string): string {
  return text.replace(NOT_CODE, (m) =>
    m.includes("\n") ? m.replace(/[^\n\r]/g, " ") : " ".repeat(m.length),
  );
}

/**
 * The index's text as code only, made once per run. A windowed run reads declarations only in its window
 * (which starts at a top-level item, never inside a comment): only the window and a little after it are
 * blanked there, the rest is left as it is.
 */
export function codeText(idx: FileIndex): string {
  return idx.shared("codeText", () => {
    const { start, end } = idx.window;
    if (start === 0 && end >= idx.text.length) return codeOnly(idx.text);
    const to = Math.min(idx.text.length, end + 400);
    return idx.text.slice(0, start) + codeOnly(idx.text.slice(start, to)) + idx.text.slice(to);
  });
}
