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
 * blanked there, the rest is left as it is. Made whole, it copies the whole file: a windowed run reads
 * what it can through codeSpan.
 */
export function codeText(idx: FileIndex): string {
  return idx.shared("codeText", () => {
    const { start, end } = idx.window;
    if (start === 0 && end >= idx.text.length) return codeOnly(idx.text);
    const span = codeSpan(idx);
    const to = span.base + span.code.length;
    return idx.text.slice(0, span.base) + span.code + idx.text.slice(to);
  });
}

/** [base, base + code.length) of what codeText gives. */
export interface CodeSpan {
  code: string;
  base: number;
}

/**
 * The part of codeText a windowed run reads: from a little before its window (readers look back at most
 * that far) to where the blanking ends. The whole of it in a whole-file run.
 */
export function codeSpan(idx: FileIndex): CodeSpan {
  return idx.shared("codeSpan", () => {
    const { start, end } = idx.window;
    if (start === 0 && end >= idx.text.length) return { code: codeText(idx), base: 0 };
    const base = Math.max(0, start - LOOK_BEFORE);
    const to = Math.min(idx.text.length, end + 400);
    return { code: idx.text.slice(base, start) + codeOnly(idx.text.slice(start, to)), base };
  });
}

/** How far before the window a windowed run's readers may look (halfText.ts HALF_LOOK_BACK, and more). */
const LOOK_BEFORE = 256;

/** codeText's [from, to): from the span when it holds it (no copy of the whole file). */
export function codeSlice(idx: FileIndex, from: number, to: number): string {
  const span = codeSpan(idx);
  if (from >= span.base && to <= span.base + span.code.length)
    return span.code.slice(from - span.base, to - span.base);
  return codeText(idx).slice(from, to);
}

/** A span of codeText holding [from, to): codeSpan when it does, else the whole of codeText. */
export function codeAround(idx: FileIndex, from: number, to: number): CodeSpan {
  const span = codeSpan(idx);
  return from >= span.base && to <= span.base + span.code.length ? span : { code: codeText(idx), base: 0 };
}
