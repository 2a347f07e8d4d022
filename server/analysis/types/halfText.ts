// Reading FP16/BF16 declarations from the text alone (asking the tree for each declarator costs more
// than reading it): every half type name in a range, with what it declares.
import {
  appended,
  halfKindOfType,
  parseDeclarators,
  WordList,
  type HalfEntry,
  type HalfKind,
} from "./halfTypes";
import { isSpaceCode, isWordCode } from "../source/charCodes";

const HALF_TYPE = /\b(__half2?|half2?|__nv_bfloat162?|nv_bfloat162?)\b/g;

/** What one half type name at `at` declares: nothing, a declaration's names, or an `auto` from a cast. */
export interface HalfRead {
  at: number;
  kind: HalfKind;
  entries: HalfEntry[];
  /** [start, end) of each `= value` initialiser, for the conversion rule. */
  inits: { name: string; start: number; end: number }[];
}

/**
 * A half type name in the text and what reading it looked at: a relint (server/lint/incremental.ts)
 * reads names next to its window again, or runs the half rules again, when the window may change them.
 */
export interface HalfToken {
  at: number;
  /** How far after the name the reading may have looked (exclusive). */
  reach: number;
  /** Where the declarators read after the name end (exclusive), when it starts a declaration. */
  declEnd?: number;
  read?: HalfRead;
}

/** What a relint keeps of a half type name: where, how far its reading looked, and what it declared. */
export interface HalfName {
  at: number;
  reach: number;
  declEnd?: number;
  /** What it declares (offsets as first read: `halfNameKey` makes them relative). */
  read?: HalfRead;
}

export function halfName(t: HalfToken): HalfName {
  return { at: t.at, reach: t.reach, declEnd: t.declEnd, read: t.read };
}

/** What a name declares, with offsets relative to it: equal keys, equal declarations. */
export function halfNameKey(t: HalfName): string {
  const r = t.read;
  return r
    ? JSON.stringify([r.kind, r.entries, r.inits.map((i) => [i.name, i.start - r.at, i.end - r.at])])
    : "";
}

/** How far before a half type name its reading may look (qualifiers, `auto x = reinterpret_cast<`). */
export const HALF_LOOK_BACK = 120;

/** `auto* x = reinterpret_cast<const` just before a type name: the cast names the declared type (group 1: x). */
const AUTO_CAST_DECL =
  /\bauto\b[\s*&]*(?:(?:const|__restrict__|volatile)\b[\s*&]*)*([A-Za-z_]\w*)\s*=\s*(?:reinterpret_cast|static_cast)\s*<\s*(?:(?:const|volatile)\s+)*$/;

/** Qualifiers that may stand between the start of a declaration and its type. */
const QUALIFIER_WORDS = new WordList([
  "const",
  "volatile",
  "static",
  "extern",
  "constexpr",
  "__shared__",
  "__constant__",
  "__device__",
  "__restrict__",
  "register",
  "inline",
  "__forceinline__",
]);

const [OPEN_PAREN, OPEN_BRACKET, OPEN_BRACE, CLOSE_PAREN, CLOSE_BRACKET, CLOSE_BRACE, COMMA, SEMICOLON] = [
  ..."([{)]},;",
].map((c) => c.charCodeAt(0));

/** `/\s/` for the character at `i`. */
export function isSpace(s: string, i: number): boolean {
  return isSpaceCode(s.charCodeAt(i));
}

/** `/\w/` for the character at `i`. */
export function isWord(s: string, i: number): boolean {
  return isWordCode(s.charCodeAt(i));
}

/**
 * What stands before a type name at `start`, read backwards down to `lo` (the 80 characters a reading
 * looks back): the run of qualifier words and spaces right before it (where it begins: `start` when
 * none; whether `__shared__` is among them), the last other character before that run, if any (spaces
 * skipped), and whether only spaces and tabs lie between that run and the line's start (or `lo`).
 */
function before(
  text: string,
  lo: number,
  start: number,
): { shared: boolean; prev: number | undefined; lineStart: boolean } {
  let i = start;
  let shared = false;
  for (;;) {
    let j = i;
    while (j > lo && isSpace(text, j - 1)) j--;
    let k = j;
    while (k > lo && isWord(text, k - 1)) k--;
    if (!QUALIFIER_WORDS.has(text, k, j)) break;
    if (j - k === 10 && text.startsWith("__shared__", k)) shared = true;
    i = k;
  }
  let b = i;
  while (b > lo && isSpace(text, b - 1)) b--;
  let lineStart = true;
  for (let m = i - 1; m >= lo; m--) {
    const c = text.charCodeAt(m);
    if (c === 10) break;
    if (c !== 32 && c !== 9) {
      lineStart = false;
      break;
    }
  }
  return { shared, prev: b > lo ? text.charCodeAt(b - 1) : undefined, lineStart };
}

/** Characters after which a statement (a declaration) starts: `;`, `{`, `}`, `:` (a label), `>` (a template header). */
const STATEMENT_ENDS: ReadonlySet<number> = new Set([...";{}:>"].map((c) => c.charCodeAt(0)));

/** FUNCTION_NAME tried where a type name ends (sticky), on the 200 characters from `end`. */
const FUNCTION_NAME = /\s*[A-Za-z_]\w*\s*(?:<[^;{}()<>]*>\s*)?\(/y;

/**
 * `/^\s*[A-Za-z_]\w*\s*(?:<[^;{}()<>]*>\s*)?\(/` on the 200 characters from `end`: a function's name
 * follows. Tried in place (sticky); a match running past those characters is tried again on them.
 */
function namesFunction(text: string, end: number): boolean {
  FUNCTION_NAME.lastIndex = end;
  if (!FUNCTION_NAME.test(text)) return false;
  if (FUNCTION_NAME.lastIndex <= end + 200) return true;
  FUNCTION_NAME.lastIndex = 0;
  return FUNCTION_NAME.test(text.slice(end, end + 200));
}

/** An initialiser's name and `=` (not `==`), searched from a declarator list's start. */
const INIT_NAME = /([A-Za-z_]\w*)\s*=(?!=)/g;

/**
 * Reads `const __half* __restrict__ x` (a parameter) or `__half a = b, *p;` (a declaration) after a half
 * type name at [start, end) into `token`: how far the reading looked and, for a declaration's type, what
 * it declares. Nothing is declared where the type is not a declaration's (casts, template arguments,
 * return types).
 */
function readDeclaration(text: string, kind: HalfKind, start: number, end: number, token: HalfToken): void {
  const { shared, prev, lineStart } = before(text, Math.max(0, start - 80), start);
  const isParam = prev === OPEN_PAREN || prev === COMMA;
  // A statement starts after `;`, `{`, `}`, a label or template header, or at the start of a line (a type
  // cannot continue an expression on a new line; `__half(x)` casts were excluded by the caller).
  const isDecl = !isParam && (prev === undefined || STATEMENT_ENDS.has(prev) || lineStart);
  if (!isParam && !isDecl) return;
  // `__half f(...)` and `__half f<T>(...)` are functions returning __half, not variables (checked before
  // looking for the end of the statement, which for a definition lies past its body).
  if (!isParam && namesFunction(text, end)) {
    token.reach = Math.max(token.reach, end + 200);
    return;
  }
  // The declarators run to the end of the parameter (`,` or `)` at depth 0) or of the statement (`;`).
  let depth = 0;
  let i = end;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_PAREN || c === OPEN_BRACKET || c === OPEN_BRACE) depth++;
    else if (c === CLOSE_PAREN || c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && (c === SEMICOLON || (isParam && c === COMMA))) break;
  }
  const ds = parseDeclarators(text, end, i);
  // Made at their size: a list grown by push takes room for 16 (see appended).
  const entries = new Array<HalfEntry>(ds.length);
  for (let k = 0; k < ds.length; k++) {
    const d = ds[k]!;
    entries[k] = { name: d.name, type: { kind, indirection: d.indirection, shared, array: d.array } };
  }
  let inits: HalfRead["inits"] | undefined;
  const eq = isParam ? -1 : text.indexOf("=", end);
  if (eq >= 0 && eq < i) {
    // initialisers: `name = value` up to the next top-level comma. Searched in the text: no match can run
    // past the list's end (the character there is no word's, space or `=`).
    INIT_NAME.lastIndex = end;
    for (let m = INIT_NAME.exec(text); m && m.index < i; m = INIT_NAME.exec(text)) {
      let d = 0;
      let j = m.index + m[0].length;
      for (; j < i; j++) {
        const c = text.charCodeAt(j);
        if (c === OPEN_PAREN || c === OPEN_BRACKET || c === OPEN_BRACE) d++;
        else if (c === CLOSE_PAREN || c === CLOSE_BRACKET || c === CLOSE_BRACE) d--;
        else if (c === COMMA && d === 0) break;
      }
      inits = appended(inits, { name: m[1]!, start: m.index + m[0].length, end: j });
      INIT_NAME.lastIndex = j;
    }
  }
  token.reach = Math.max(token.reach, end + 200, i + 1);
  token.declEnd = i + 1;
  token.read = { at: start, kind, entries, inits: inits ?? [] };
}

/** The half type names and `aliases` of them, as one global regex. */
function typeNames(aliases: ReadonlyMap<string, HalfKind> | undefined): RegExp {
  const names = [...(aliases?.keys() ?? [])].filter((n) => /^[A-Za-z_]\w*$/.test(n));
  return names.length === 0
    ? new RegExp(HALF_TYPE.source, "g")
    : new RegExp(`\\b(${names.join("|")})\\b|${HALF_TYPE.source}`, "g");
}

const [DOT, COLON, MINUS, GREATER] = [...".:->"].map((c) => c.charCodeAt(0));

/**
 * `A::floatX`, `x.floatX`, `floatX::y`: a member's name, not the alias. `/(::|\.|->)\s*$/` on the 4
 * characters before the name and `/^\s*::/` on the 4 after it, read by character code.
 */
function qualifiedName(text: string, start: number, end: number): boolean {
  const lo = Math.max(0, start - 4);
  let i = start;
  while (i > lo && isSpace(text, i - 1)) i--;
  if (i > lo && text.charCodeAt(i - 1) === DOT) return true;
  if (i - 2 >= lo) {
    const a = text.charCodeAt(i - 2);
    const b = text.charCodeAt(i - 1);
    if ((a === COLON && b === COLON) || (a === MINUS && b === GREATER)) return true;
  }
  const stop = Math.min(text.length, end + 4);
  let j = end;
  while (j < stop && isSpace(text, j)) j++;
  return j + 2 <= stop && text.charCodeAt(j) === COLON && text.charCodeAt(j + 1) === COLON;
}

/** `/^\s*[*&A-Za-z_]/` on the 40 characters from `end`, without the slice and regex. */
function startsDeclarator(text: string, end: number): boolean {
  const stop = Math.min(text.length, end + 40);
  let i = end;
  while (i < stop && isSpace(text, i)) i++;
  if (i >= stop) return false;
  const c = text.charCodeAt(i);
  return c === 42 || c === 38 || c === 95 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * Every half type name (or alias of one, from `aliases`) in [from, to) of `text` and what it declares, in
 * document order. `text` should be code only (codeText.ts): a comment after a parameter would be read
 * as more declarators.
 */
export function readHalfTypes(
  text: string,
  from: number,
  to: number,
  aliases?: ReadonlyMap<string, HalfKind>,
): HalfToken[] {
  const tokens: HalfToken[] = [];
  const re = typeNames(aliases);
  re.lastIndex = from;
  // test, not exec: no match array per name. A match is a whole word: it starts where the word ending at
  // lastIndex does.
  while (re.test(text)) {
    const end = re.lastIndex;
    let at = end;
    while (at > 0 && isWord(text, at - 1)) at--;
    if (at >= to) break;
    const name = text.slice(at, end);
    const typeKind = halfKindOfType(name);
    if (!typeKind && qualifiedName(text, at, end)) continue;
    // Every field set at once: one object shape for all tokens, which are also the run's HalfNames.
    const token: HalfToken = { at, reach: end + 40, declEnd: undefined, read: undefined };
    tokens.push(token);
    // A declared type is followed by `*`, `&` or a name; `<__half, 256>` and `__half(x)` are not.
    if (!startsDeclarator(text, end)) continue;
    const kind = typeKind ?? aliases?.get(name);
    if (!kind) continue;
    readDeclaration(text, kind, at, end, token);
    if (token.read) continue;
    // `auto* p = reinterpret_cast<const __half2*>(…)`: the cast names the type; read name and `*`s from the text.
    // The regex is tried at every offset of the slice: first, is `auto` there at all?
    const back = text.slice(Math.max(0, at - HALF_LOOK_BACK), at);
    const autoDecl = back.includes("auto") ? AUTO_CAST_DECL.exec(back) : null;
    const stars = autoDecl ? /^\s*((?:\*\s*(?:const\s*)?)*)>/.exec(text.slice(end, end + 40)) : null;
    if (autoDecl && stars) {
      const indirection = (stars[1]!.match(/\*/g) ?? []).length;
      const entry = { name: autoDecl[1]!, type: { kind, indirection, shared: false, array: false } };
      token.read = { at, kind, entries: [entry], inits: [] };
    }
  }
  return tokens;
}

/**
 * Each whole-word occurrence of `words` (identifiers, none twice) that starts in [from, to) of `text`, in
 * document order: what a global `\b(?:w1|w2|…)\b` regex finds there. Searched with indexOf per word (it
 * skips ahead, where the regex tries every offset, and makes no match arrays) in a slice ending with the
 * longest word after `to`: a search of the whole text would run on through the rest of the file.
 */
export function eachWholeWord(
  text: string,
  words: readonly string[],
  from: number,
  to: number,
  visit: (index: number, word: string) => void,
): void {
  let longest = 0;
  for (const w of words) longest = Math.max(longest, w.length);
  const part = text.slice(from, Math.min(text.length, to + longest));
  const stop = to - from;
  const next = words.map((w) => nextWholeWord(text, part, from, w, 0, stop));
  for (;;) {
    let k = -1;
    for (let i = 0; i < next.length; i++) if (next[i]! >= 0 && (k < 0 || next[i]! < next[k]!)) k = i;
    if (k < 0) return;
    const at = next[k]!;
    const word = words[k]!;
    visit(from + at, word);
    next[k] = nextWholeWord(text, part, from, word, at + word.length, stop);
  }
}

/** Where `word` next occurs as a whole word of `text` in `part` (`text` from `base`), at or after `pos` and before `stop`; -1 if nowhere. */
function nextWholeWord(
  text: string,
  part: string,
  base: number,
  word: string,
  pos: number,
  stop: number,
): number {
  for (let at = part.indexOf(word, pos); at >= 0 && at < stop; at = part.indexOf(word, at + 1)) {
    const start = base + at;
    const end = start + word.length;
    if ((start === 0 || !isWordCode(text.charCodeAt(start - 1))) && !isWordCode(text.charCodeAt(end)))
      return at;
  }
  return -1;
}
