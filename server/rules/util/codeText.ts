// The file's text with comments and string/character literals blanked out (same length, line breaks
// kept), so that declarations and macros are read from code only: a parameter comment `// {n, m}` or a
// type name in a string declares nothing.
import type { FileIndex } from "./fileIndex";

const NOT_CODE = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\\n]|\\[\s\S])*"|'(?:[^'\\\n]|\\[\s\S]){1,8}'/g;

/** `text` with every comment and literal replaced by spaces (line breaks kept, so offsets and lines hold). */
export function codeOnly(text: string): string {
  let out = "";
  let last = 0;
  NOT_CODE.lastIndex = 0;
  for (let m = NOT_CODE.exec(text); m; m = NOT_CODE.exec(text)) {
    const blank = /[\n\r]/.test(m[0]) ? m[0].replace(/[^\n\r]/g, " ") : " ".repeat(m[0].length);
    out += text.slice(last, m.index) + blank;
    last = m.index + m[0].length;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** The index's text as code only, made once per run. */
export function codeText(idx: FileIndex): string {
  return idx.shared("codeText", () => codeOnly(idx.text));
}
