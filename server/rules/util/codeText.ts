// The file's text with comments and string/character literals blanked out (same length, line breaks
// kept), so that declarations and macros are read from code only: a parameter comment `// {n, m}` or a
// type name in a string declares nothing.
import type { FileIndex } from "./fileIndex";

/** A comment or literal, tried where one can start (sticky). */
const NOT_CODE =
  /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"|'(?:[^'\\\n]|\\[\s\S]){1,8}'/y;
/** The characters a NOT_CODE match starts with. */
const STARTS = ["/", '"', "'"];
let spaces = " ".repeat(1024);

/** `m` blanked: spaces, line breaks kept. */
function blank(m: string): string {
  if (m.includes("\n")) return m.replace(/[^\n\r]/g, " ");
  while (spaces.length < m.length) spaces += spaces;
  return spaces.slice(0, m.length);
}

/** The last few texts blanked whole, newest last: the same text is asked for by several readers and runs. */
const recent: { text: string; code: string }[] = [];

/** `text` with every comment and literal replaced by spaces (line breaks kept, so offsets and lines hold). */
export function codeOnly(text: string): string {
  const hit = recent.find((r) => r.text === text);
  if (hit) return hit.code;
  const code = blankNotCode(text);
  if (text.length > 4096) {
    recent.push({ text, code });
    if (recent.length > 2) recent.shift();
  }
  return code;
}

/**
 * What a global NOT_CODE replace gives, tried only where a comment or literal can start: irregexp tries
 * the regex at every offset, indexOf finds the few places much faster (the leftmost match from an offset
 * starts at the first of them that matches).
 */
function blankNotCode(text: string): string {
  const out: string[] = [];
  const next = STARTS.map((w) => text.indexOf(w));
  let last = 0;
  for (let from = 0; ;) {
    let at = -1;
    for (let k = 0; k < next.length; k++) {
      if (next[k]! >= 0 && next[k]! < from) next[k] = text.indexOf(STARTS[k]!, from);
      if (next[k]! >= 0 && (at < 0 || next[k]! < at)) at = next[k]!;
    }
    if (at < 0) break;
    NOT_CODE.lastIndex = at;
    const m = NOT_CODE.exec(text);
    // NOT_CODE never matches empty.
    from = m ? at + m[0].length : at + 1;
    if (!m) continue;
    out.push(text.slice(last, at), blank(m[0]));
    last = from;
  }
  out.push(text.slice(last));
  return out.join("");
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
