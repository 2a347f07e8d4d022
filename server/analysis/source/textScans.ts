// Text searches by character code that a FileIndex runs once per run and shares: preprocessor lines, and a
// fixed word's whole-word offsets (a regex scan makes a match array per match).
import { isWordCode } from "./charCodes";

/**
 * Offsets in [from, to) where the identifier `word` is written as a whole word (what `\\bword\\b` matches).
 * indexOf looks for a probe of 6 characters from its first letter past any leading `_`: V8 searches a
 * longer pattern by Boyer-Moore, building its tables at every call, and a leading `_` is common in CUDA.
 */
export function wordOffsets(text: string, word: string, from: number, to: number): number[] {
  let k = 0;
  while (k < word.length - 1 && word.charCodeAt(k) === 0x5f) k++;
  const probe = word.slice(k, k + 6);
  const out: number[] = [];
  for (let p = text.indexOf(probe, from + k); p >= 0 && p - k < to; p = text.indexOf(probe, p + 1)) {
    const at = p - k;
    if (
      text.startsWith(word, at) &&
      !isWordCode(text.charCodeAt(at - 1)) &&
      !isWordCode(text.charCodeAt(at + word.length))
    )
      out.push(at);
  }
  return out;
}

/** A preprocessor line: where it starts, where its `#` is and the directive's word (empty if none). */
export interface Directive {
  lineStart: number;
  hash: number;
  word: string;
  /** The end of the word. */
  end: number;
}

/** Character codes of the line terminators JavaScript's multiline `^` sees, and of the space and tab. */
const LINE_END_CODES: ReadonlySet<number> = new Set([0x0a, 0x0d, 0x2028, 0x2029]);
const SPACE = 0x20;
const TAB = 0x09;

/** The preprocessor lines whose line starts in [from, to) (character codes: this runs on every edit). */
export function findDirectives(text: string, from: number, to: number): Directive[] {
  const out: Directive[] = [];
  for (let hash = text.indexOf("#", from); hash >= 0; hash = text.indexOf("#", hash + 1)) {
    let lineStart = hash;
    for (let c = text.charCodeAt(lineStart - 1); c === SPACE || c === TAB; c = text.charCodeAt(lineStart - 1))
      lineStart--;
    if (lineStart >= to) break;
    if (lineStart < from || (lineStart > 0 && !LINE_END_CODES.has(text.charCodeAt(lineStart - 1)))) continue;
    let start = hash + 1;
    for (let c = text.charCodeAt(start); c === SPACE || c === TAB; c = text.charCodeAt(start)) start++;
    let end = start;
    while (isWordCode(text.charCodeAt(end))) end++;
    out.push({ lineStart, hash, word: text.slice(start, end), end });
  }
  return out;
}

/**
 * `text` split at the commas outside any brackets; `brackets` are the opening and closing characters
 * that nest (`"([{"`/`")]}"` for call arguments; template argument lists add `<`/`>`).
 */
export function splitTopLevel(text: string, open = "([{", close = ")]}"): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (open.includes(c)) depth++;
    else if (close.includes(c)) depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}
