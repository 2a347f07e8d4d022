// Function definitions found in text, for files that are not parsed (project headers) or where a
// whole-file tree walk would cost too much: a name, its `(…)` and qualifiers, then a `{…}` body, in text
// whose comments and literals are blanked (codeText.ts codeOnly). Lambdas and control statements
// (`if (…) {`) are looked into, not taken. Cannot see: functions a macro defines, a `{` or `}` that only
// the preprocessor balances (`#if` arms opening one brace each), parameters (overloads share a name).

/** Longer bodies are not kept (what they are read for, a check helper, is short). */
export const MAX_BODY = 4000;

/** Words before a `(…) {` that do not name a function (keywords and attributes followed by parentheses). */
export const NOT_FUNCTIONS: ReadonlySet<string> = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "return",
  "sizeof",
  "decltype",
  "alignas",
  "__attribute__",
  "__launch_bounds__",
]);

/** The `)` of a parameter list, the qualifiers after it, and the body's `{`. */
const BODY_OPEN = /\)\s*(?:(?:const|noexcept|override|final|mutable|volatile)\b\s*)*\{/g;

/** How far back a parameter list's `(` is looked for. */
const MAX_PARAMS = 2000;

/** The offset of the `}` closing the `{` at `open`, or -1. */
function closeBrace(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return i;
  }
  return -1;
}

/** The offset of the `(` opening the `)` at `close` (within MAX_PARAMS), or -1. */
function openParen(code: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0 && i > close - MAX_PARAMS; i--) {
    const c = code.charCodeAt(i);
    if (c === 0x29) depth++;
    else if (c === 0x28 && --depth === 0) return i;
  }
  return -1;
}

const isWord = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;

/** The identifier ending just before `at` (spaces skipped), if any. */
function nameBefore(code: string, at: number): string | undefined {
  let end = at;
  while (end > 0 && /\s/.test(code[end - 1]!)) end--;
  let start = end;
  while (start > 0 && isWord(code.charCodeAt(start - 1))) start--;
  const name = code.slice(start, end);
  return /^[A-Za-z_]/.test(name) ? name : undefined;
}

/**
 * Every function body in `code` (comments and literals blanked) of at most MAX_BODY characters, by
 * the function's name (bodies of one name joined). Lambdas and control statements are looked into, not taken.
 */
export function functionBodies(code: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = new RegExp(BODY_OPEN.source, "g");
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const open = m.index + m[0].length - 1;
    const paren = openParen(code, m.index);
    const name = paren < 0 ? undefined : nameBefore(code, paren);
    if (!name || NOT_FUNCTIONS.has(name)) continue;
    const close = closeBrace(code, open);
    // Unbalanced (an `#if` arm's brace): look inside instead.
    if (close < 0) continue;
    const body = code.slice(open + 1, close);
    if (body.length <= MAX_BODY) out.set(name, (out.get(name) ?? "") + "\n" + body);
    re.lastIndex = close + 1;
  }
  return out;
}
