// The pointers into global FP16/BF16 memory a device function declares (through the half types, the
// file's aliases, block-scoped aliases and template parameters the file instantiates with a 16-bit type:
// types/functionTypes.ts), and their subscript accesses, minus those a function-like macro moves wide
// (access/accessShape.ts). The file is searched once per type name, not once per function.
// Cannot see: pointers reached through `auto`, struct members, or a template parameter instantiated only
// in another file; accesses through pointer arithmetic (`*(p + i)`).
import type { Node } from "web-tree-sitter";
import type { FileIndex, FunctionInfo } from "../source/fileIndex";
import { movedWide } from "./accessShape";
import { functionTypeNames, typeNameAt } from "../types/functionTypes";
import { codeSlice } from "../source/codeText";
import type { DeclEnv, HalfAlias } from "../types/declEnv";
import { globalRegex } from "../source/sharedRegex";
import { isWordCode } from "../source/charCodes";
import { isIdentifier } from "../types/halfTypes";
import { functionName } from "../types/instantiations";

const SCALAR_TYPES = ["__half", "half", "__nv_bfloat16", "nv_bfloat16"];

/**
 * `const __half* __restrict__ x` (or `__restrict`): a pointer into FP16/BF16 memory (group 1: the type, group 2: its name),
 * through the scalar half types and their aliases (`floatX`, also where `#if` may make it float: the loop
 * moves 2-byte elements in the 16-bit builds).
 */
function halfPointer(aliases: ReadonlyMap<string, HalfAlias>): {
  re: RegExp;
  kind: Map<string, "half" | "bf16">;
} {
  const kind = new Map<string, "half" | "bf16">(
    SCALAR_TYPES.map((t) => [t, t.includes("bfloat") ? "bf16" : "half"]),
  );
  for (const [name, a] of aliases) if (a.kind === "half" || a.kind === "bf16") kind.set(name, a.kind);
  return { re: halfPointerRegex([...kind.keys()]), kind };
}

/** HALF_POINTER's regex over the type names `names`. */
function halfPointerRegex(names: readonly string[]): RegExp {
  return globalRegex(
    `(${names.filter(isIdentifier).join("|")})\\s*(?:const\\s*)?\\*\\s*(?:const\\s+)?(?:(?:__restrict__|__restrict|restrict)\\s+)?([A-Za-z_]\\w*)`,
  );
}

const DOT = 46;
const GREATER = 62;

/**
 * The matches of `re` in `src` not preceded by a word character, `.` or `>` (`x.half`, `A<__half>`):
 * a lookbehind in the regex would be tried at every offset; checked after a match instead, looking on
 * from the next offset when it fails (the same matches).
 */
function* pointerMatches(src: string, re: RegExp): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    const before = m.index > 0 ? src.charCodeAt(m.index - 1) : -1;
    // By character code: a regex literal here would be a new RegExp object per match.
    if (before === DOT || before === GREATER || isWordCode(before)) re.lastIndex = m.index + 1;
    else yield m;
  }
}

/**
 * The names to look for in place of `names`: a name holding another (`__half` holds `half`) is found
 * through that one.
 */
function shortestNames(names: readonly string[]): NameFinder[] {
  return names.filter((n) => !names.some((o) => o !== n && n.includes(o))).map(nameFinder);
}

/** `indexOf(name, from)` for one name, through a probe of at most 6 of its characters. */
type NameFinder = (text: string, from: number) => number;

/**
 * V8 searches a pattern of 7 characters or more with Boyer-Moore-Horspool, building its tables again at
 * each call, and a shorter one by its first character: the probe is 6 characters of the name from its
 * first that is not `_` or `n` (common in code, rare in the names: `nv_bfloat16` is looked for as `v_bflo`),
 * each hit checked for the whole name.
 */
function nameFinder(name: string): NameFinder {
  if (name.length <= 6) return (text, from) => text.indexOf(name, from);
  const off = Math.max(0, Math.min(name.length - 6, name.search(/[^_n]/)));
  const probe = name.slice(off, off + 6);
  return (text, from) => {
    for (let at = text.indexOf(probe, from + off); at >= 0; at = text.indexOf(probe, at + 1))
      if (text.startsWith(name, at - off)) return at - off;
    return -1;
  };
}

/**
 * A test for each function in turn, in document order: does one of `names` start in [start, end)? A
 * function with none in its range has none in its code either. Each name's next occurrence is kept, so
 * the file is searched once per name, not once per function.
 */
function namesIn(text: string, names: readonly NameFinder[]): (start: number, end: number) => boolean {
  const next = names.map(() => -1);
  let last = 0;
  return (start, end) => {
    let found = false;
    for (let k = 0; k < names.length; k++) {
      // Found before this function, or for a later one (a function nested in one already asked about);
      // Infinity: none after it.
      if (next[k]! < start || start < last) {
        const at = names[k]!(text, start);
        next[k] = at < 0 ? Infinity : at;
      }
      if (next[k]! < end) found = true;
    }
    last = start;
    return found;
  };
}

/**
 * The subscript_expression whose argument is the identifier `name` at `start`, its `[` at `bracket`: the
 * smallest named node holding both, in one call (asking for the identifier and then its parent costs
 * more: Node.parent searches down from the root). Undefined where the name is not such an argument (a
 * field, an array declarator, a comment).
 */
function subscriptOf(idx: FileIndex, start: number, name: string, bracket: number): Node | undefined {
  const sub = idx.root.namedDescendantForIndex(start, bracket + 1);
  if (sub?.type !== "subscript_expression") return undefined;
  const arg = sub.childForFieldName("argument");
  return arg && arg.startIndex === start && arg.endIndex === start + name.length && arg.type === "identifier"
    ? sub
    : undefined;
}

/** Is the code just before `start` the end of a template header (`template <…>`)? */
function afterTemplateHeader(text: string, start: number): boolean {
  let i = start;
  while (i > 0 && /\s/.test(text[i - 1]!)) i--;
  return text[i - 1] === ">";
}

type Kind = "half" | "bf16";
export interface HalfPointer {
  kind: Kind;
  /**
   * Why its element type is 16-bit in a template: the parameter, the instantiation that makes it so, and
   * the function that instantiation is written in (undefined: at file scope).
   */
  instantiation?: { param: string; type: string; via?: string; writtenIn?: string };
}

/**
 * The function an instantiation is written in, by name. Not a line: a relint keeps a finding while
 * edits elsewhere move lines (the instantiation's own definition, where the name is written, is what
 * makes it run again).
 */
function writtenIn(idx: FileIndex, at: number): string | undefined {
  const fn = idx.functionSpanAt(at);
  return fn && functionName(fn.node);
}

/**
 * The pointers into 16-bit memory a function declares, by name: through the half types and the
 * file-level aliases (`base`), and through what functionTypeNames adds for this function.
 */
function pointersOf(
  idx: FileIndex,
  env: DeclEnv,
  f: FunctionInfo,
  src: string,
  base: { re: RegExp; kind: Map<string, Kind> },
): Map<string, HalfPointer> {
  const pointers = new Map<string, HalfPointer>();
  const local = afterTemplateHeader(idx.text, f.start) || src.includes("using") || src.includes("typedef");
  const types = local ? functionTypeNames(idx, env, f, src) : undefined;
  if (!types || (types.hidden.size === 0 && types.names.size === 0)) {
    for (const m of pointerMatches(src, base.re)) pointers.set(m[2]!, { kind: base.kind.get(m[1]!)! });
    return pointers;
  }
  const kind = new Map([...base.kind].filter(([n]) => !types.hidden.has(n)));
  const re = halfPointerRegex([...kind.keys(), ...types.names.keys()]);
  for (const m of pointerMatches(src, re)) {
    const t = typeNameAt(types.names.get(m[1]!), f.start + m.index);
    const k = t?.kind ?? kind.get(m[1]!);
    if (!k) continue;
    const i = t?.instantiation;
    const instantiation = i && { param: m[1]!, type: i.type, via: i.via, writtenIn: writtenIn(idx, i.at) };
    pointers.set(m[2]!, { kind: k, instantiation });
  }
  return pointers;
}

/** The subscript accesses of `pointers` in the function body, in document order. */
export function halfAccesses(
  idx: FileIndex,
  f: FunctionInfo,
  pointers: Map<string, HalfPointer>,
  defines: ReadonlyMap<string, string>,
): HalfAccess[] {
  const hits: HalfAccess[] = [];
  const names = globalRegex(`\\b(${[...pointers.keys()].join("|")})\\s*\\[`);
  for (const m of idx.scan(names, f.body.startIndex, f.body.endIndex)) {
    const sub = subscriptOf(idx, m.index, m[1]!, m.index + m[0].length - 1);
    if (sub && !movedWide(sub, defines)) hits.push({ sub, name: m[1]!, pointer: pointers.get(m[1]!)! });
  }
  return hits.sort((a, b) => a.sub.startIndex - b.sub.startIndex);
}

/**
 * Reads of a 16-bit pointer through pointer arithmetic, `__ldg(src + offset + row)` or `*(src + i)`: the
 * sum, whose terms are the offset (asked of accessShape's FunctionLocals: does it load?). Subscripts are
 * halfAccesses'.
 */
export function offsetReads(idx: FileIndex, f: FunctionInfo, pointers: Map<string, HalfPointer>): Node[] {
  const out: Node[] = [];
  const names = globalRegex(`\\b(${[...pointers.keys()].join("|")})\\s*\\+`);
  for (const m of idx.scan(names, f.body.startIndex, f.body.endIndex)) {
    const name = idx.root.namedDescendantForIndex(m.index, m.index + m[1]!.length);
    let sum = name?.type === "identifier" ? name.parent : null;
    if (sum?.type !== "binary_expression" || sum.childForFieldName("left")?.id !== name!.id) continue;
    while (sum.parent?.type === "binary_expression" || sum.parent?.type === "parenthesized_expression")
      sum = sum.parent;
    const holder = sum.parent;
    const read =
      (holder?.type === "pointer_expression" && holder.childForFieldName("operator")?.text === "*") ||
      (holder?.type === "argument_list" &&
        /^__ld\w*$/.test(holder.parent?.childForFieldName("function")?.text ?? ""));
    if (read) out.push(sum);
  }
  return out;
}

/** One subscript access of a 16-bit pointer. */
export interface HalfAccess {
  sub: Node;
  name: string;
  pointer: HalfPointer;
}

/**
 * A reader of the file's device functions, asked in document order (it keeps each type name's next
 * occurrence): a function's code and the 16-bit pointers it declares, or undefined when it names no half
 * type (nor a template's or alias's).
 */
export function halfPointerReader(
  idx: FileIndex,
  env: DeclEnv,
): (f: FunctionInfo) => { src: string; pointers: Map<string, HalfPointer> } | undefined {
  const base = halfPointer(env.halfAliases);
  const typeNames = shortestNames([...base.kind.keys()]);
  const named = namesIn(idx.text, typeNames);
  return (f) => {
    const maybeLocal = afterTemplateHeader(idx.text, f.start);
    if (!named(f.start, f.end) && !maybeLocal) return undefined;
    // Code only: a type named in a comment declares nothing.
    const src = codeSlice(idx, f.start, f.end);
    // The regex is tried at every offset: first, is any of its type names there at all?
    if (!maybeLocal && !typeNames.some((find) => find(src, 0) >= 0)) return undefined;
    return { src, pointers: pointersOf(idx, env, f, src, base) };
  };
}
