// Which parameters a class's constructors read, from the text of a file or a project header (comments and
// literals blanked: codeText.ts codeOnly). The uniformity analysis asks it: an object built as
// `Block_info binfo(params, blockIdx.y, tidx)` differs between threads only if a constructor that takes
// those arguments reads `tidx`; FlashAttention-style block-info structs take the thread index and ignore
// it, so every member read from them was thread-dependent before (`if (binfo.stop_early()) return;`).
//
// Answers: per class name (`struct`/`class NAME`, specializations `NAME<1>` included), each constructor
// defined in the text, in the class (`NAME(…) : inits {…}`) or out of it (`NAME::NAME(…) {…}`): how many
// parameters it takes, how many of them must be given, and whether its initializers and body name each.
// Cannot see: constructors a macro defines, inherited constructors (`using Base::Base;`), a parameter read
// only through a member function the constructor calls with no arguments. A parameter read anywhere counts
// as read (`tidx_(tidx)` stores it), which keeps the object varying: only a parameter never named drops.
import { splitTopLevel } from "../source/textScans";

export interface Constructor {
  /** Parameters declared; Infinity with a variadic pack or `...`. */
  params: number;
  /** Parameters without a default value. */
  required: number;
  /** Per parameter: is it named in the initializers or the body (false for an unnamed one). */
  reads: boolean[];
}

const CLASS_NAME =
  /\b(?:struct|class)\s+(?:(?:__align__|alignas)\s*\(\s*\w+\s*\)\s*|__attribute__\s*\(\([^)]*\)\)\s*)*([A-Za-z_]\w*)/g;
/** Longer constructors are not read (what they are read for, a block-info struct, is short). */
const MAX_CHARS = 8000;

/** Every constructor defined in `code`, by class name. */
export function constructors(code: string): Map<string, Constructor[]> {
  const out = new Map<string, Constructor[]>();
  const names = new Set([...code.matchAll(CLASS_NAME)].map((m) => m[1]!));
  if (names.size === 0) return out;
  const at = new RegExp(`\\b(${[...names].join("|")})\\s*\\(`, "g");
  for (const m of code.matchAll(at)) {
    const name = m[1]!;
    if (!startsDefinition(code, m.index, name)) continue;
    const open = m.index + m[0].length - 1;
    const c = constructorAt(code, open);
    if (!c) continue;
    const list = out.get(name);
    if (list) list.push(c);
    else out.set(name, [c]);
  }
  return out;
}

/**
 * May `NAME(` at `at` begin a constructor's definition: not a member access, a call after an operator or
 * a destructor; `NAME::NAME(` (out of the class) is one.
 */
function startsDefinition(code: string, at: number, name: string): boolean {
  let i = at - 1;
  while (i >= 0 && /\s/.test(code[i]!)) i--;
  if (code[i] === ":" && code[i - 1] === ":") {
    let j = i - 2;
    while (j >= 0 && /\s/.test(code[j]!)) j--;
    return code.slice(Math.max(0, j - name.length + 1), j + 1) === name;
  }
  return i < 0 || /[;{}\n]/.test(code[i]!) || /\w/.test(code[i]!) || code[i] === ">";
}

/** The constructor whose parameter list opens at `open`, when a body (after initializers) follows. */
function constructorAt(code: string, open: number): Constructor | undefined {
  const close = matching(code, open, "(", ")");
  if (close < 0) return undefined;
  let i = skipSpaces(code, close + 1);
  if (code.startsWith("noexcept", i)) i = skipSpaces(code, i + "noexcept".length);
  const bodyStart = code[i] === ":" && code[i + 1] !== ":" ? initializersEnd(code, i + 1) : i;
  if (bodyStart < 0 || code[bodyStart] !== "{") return undefined;
  const end = matching(code, bodyStart, "{", "}");
  if (end < 0 || end - open > MAX_CHARS) return undefined;
  const reads = code.slice(close + 1, end + 1);
  const params = splitTopLevel(code.slice(open + 1, close), "([{<", ")]}>")
    .map((p) => p.trim())
    .filter((p) => p !== "" && p !== "void");
  if (params.some((p) => p.includes("..."))) return { params: Infinity, required: 0, reads: [] };
  const names = params.map(paramName);
  return {
    params: params.length,
    required: params.filter((p) => !/=/.test(p)).length,
    reads: names.map((n) => n !== undefined && new RegExp(`\\b${n}\\b`).test(reads)),
  };
}

/** A parameter's name: the last identifier before a default or array bound, unless it is the type's only word. */
function paramName(param: string): string | undefined {
  const decl = param
    .replace(/=[\s\S]*$/, "")
    .replace(/\[[^\]]*\]/g, "")
    .trim();
  const words = decl.match(/[A-Za-z_]\w*/g) ?? [];
  const last = words[words.length - 1];
  if (!last || words.length < 2 || !new RegExp(`\\b${last}\\s*$`).test(decl)) return undefined;
  return /^(const|volatile|int|unsigned|signed|long|short|char|float|double|bool|__restrict__)$/.test(last)
    ? undefined
    : last;
}

/** The offset after a member-initializer list starting at `from` (`a(x), Base<T>{y}`): its body's `{`, or -1. */
function initializersEnd(code: string, from: number): number {
  let i = skipSpaces(code, from);
  for (;;) {
    const name = /^[A-Za-z_][\w:]*\s*(?:<[^;{}()]*>)?\s*/.exec(code.slice(i, i + 400));
    if (!name) return -1;
    i += name[0].length;
    if (code[i] !== "(" && code[i] !== "{") return -1;
    const end = matching(code, i, code[i]!, code[i] === "(" ? ")" : "}");
    if (end < 0) return -1;
    i = skipSpaces(code, end + 1);
    if (code[i] !== ",") return i;
    i = skipSpaces(code, i + 1);
  }
}

function skipSpaces(code: string, i: number): number {
  while (i < code.length && /\s/.test(code[i]!)) i++;
  return i;
}

/** The offset of the `close` matching the `open` at `at` (within MAX_CHARS), or -1. */
function matching(code: string, at: number, open: string, close: string): number {
  let depth = 0;
  for (let i = at; i < code.length && i < at + MAX_CHARS; i++) {
    if (code[i] === open) depth++;
    else if (code[i] === close && --depth === 0) return i;
  }
  return -1;
}

/**
 * Which of `args` arguments can reach the object built with them: a position is dropped only when some
 * constructor takes that many arguments and none of those reads it. Undefined when no constructor is known.
 */
export function argumentsRead(
  ctors: readonly Constructor[] | undefined,
  args: number,
): boolean[] | undefined {
  const fits = ctors?.filter((c) => c.required <= args && args <= c.params);
  if (!fits?.length) return undefined;
  return Array.from({ length: args }, (_, k) =>
    fits.some((c) => c.params === Infinity || c.reads[k] !== false),
  );
}
