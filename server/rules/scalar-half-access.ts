// A loop moving global FP16/BF16 data two bytes at a time: memory-bound kernels reach a fraction of peak
// bandwidth that way; __half2/__nv_bfloat162 (4 B) or 16-byte vectors move the same data in fewer transactions.
import type { Node } from "web-tree-sitter";
import type { LintContext, Rule } from "./rule";
import type { FunctionInfo } from "../analysis/source/fileIndex";
import { FunctionLocals, movedWideByMacro } from "../analysis/access/accessShape";
import { functionTypeNames, typeNameAt } from "../analysis/types/functionTypes";
import { codeSlice } from "../analysis/source/codeText";
import { declEnv, type HalfAlias } from "../analysis/types/declEnv";
import { FileIndex } from "../analysis/source/fileIndex";
import { globalRegex } from "../analysis/source/sharedRegex";
import { isWordCode } from "../analysis/source/charCodes";
import { isIdentifier } from "../analysis/types/halfTypes";
import { functionName } from "../analysis/types/instantiations";

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

/** Vector types: the function vectorizes. */
const VECTOR_TYPES =
  /\b(?:__half2|half2|__nv_bfloat162|nv_bfloat162|float2|float4|int2|int4|uint2|uint4|ulonglong2|longlong2)\b/;

/**
 * Does `src` name a vector type, or a 128-bit helper (llm.c's x128/Packed128, load128/store128: a word
 * ending in `128` that starts with a letter or `_`)? The helpers are found from indexOf("128"): as a regex
 * alternative, `[A-Za-z_]\w*128` is tried at every word.
 */
function vectorizes(src: string): boolean {
  if (VECTOR_TYPES.test(src)) return true;
  for (let at = src.indexOf("128"); at >= 0; at = src.indexOf("128", at + 1)) {
    if (isWordCode(src.charCodeAt(at + 3))) continue;
    let start = at;
    while (start > 0 && isWordCode(src.charCodeAt(start - 1))) start--;
    // The regex starts at a word's start (`\b`), with a letter or `_`.
    if (start < at && !isDigitCode(src.charCodeAt(start))) return true;
  }
  return false;
}

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;

/** `name` as a word of `src`. */
const namesWord = (src: string, name: string): boolean => new RegExp(`\\b${name}\\b`).test(src);

/** Does the function move data through a vector type: a built-in one, a `*128` helper or the project's own aligned struct? */
function vectorizesIn(src: string, projectVectors: ReadonlySet<string>): boolean {
  if (vectorizes(src)) return true;
  for (const v of projectVectors) if (src.includes(v) && namesWord(src, v)) return true;
  return false;
}

/** Is the code just before `start` the end of a template header (`template <…>`)? */
function afterTemplateHeader(text: string, start: number): boolean {
  let i = start;
  while (i > 0 && /\s/.test(text[i - 1]!)) i--;
  return text[i - 1] === ">";
}

type Kind = "half" | "bf16";
interface Pointer {
  kind: Kind;
  /** Why its element type is 16-bit in a template: the instantiation, for the message. */
  note?: string;
}

/**
 * Where an instantiation is written, for the message: the function it is in, by name. Not a line number:
 * a relint keeps this finding while edits elsewhere move lines (the instantiation's own definition,
 * where the name is written, is what makes it run again).
 */
function whereWritten(idx: FileIndex, at: number): string {
  const fn = idx.functionSpanAt(at);
  const name = fn && functionName(fn.node);
  return name ? `in ${name}` : "at file scope";
}

/**
 * The pointers into 16-bit memory a function declares, by name: through the half types and the
 * file-level aliases (`base`), and through what functionTypeNames adds for this function.
 */
function pointersOf(
  ctx: LintContext,
  idx: FileIndex,
  f: FunctionInfo,
  src: string,
  base: { re: RegExp; kind: Map<string, Kind> },
): Map<string, Pointer> {
  const pointers = new Map<string, Pointer>();
  const local = afterTemplateHeader(idx.text, f.start) || src.includes("using") || src.includes("typedef");
  const types = local ? functionTypeNames(idx, declEnv(ctx), f, src) : undefined;
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
    const note = i
      ? `${m[1]} is instantiated with ${i.type}${i.via ? ` through ${i.via}` : ""} ${whereWritten(idx, i.at)}`
      : undefined;
    pointers.set(m[2]!, { kind: k, note });
  }
  return pointers;
}

/** The subscript accesses of `pointers` in the function body, in document order. */
function accessesOf(
  idx: FileIndex,
  f: FunctionInfo,
  pointers: Map<string, Pointer>,
  defines: ReadonlyMap<string, string>,
) {
  const hits: { sub: Node; name: string; pointer: Pointer }[] = [];
  const names = globalRegex(`\\b(${[...pointers.keys()].join("|")})\\s*\\[`);
  for (const m of idx.scan(names, f.body.startIndex, f.body.endIndex)) {
    const sub = subscriptOf(idx, m.index, m[1]!, m.index + m[0].length - 1);
    if (sub && !movedWideByMacro(sub, defines))
      hits.push({ sub, name: m[1]!, pointer: pointers.get(m[1]!)! });
  }
  return hits.sort((a, b) => a.sub.startIndex - b.sub.startIndex);
}

const typeName = (k: Kind): string => (k === "half" ? "__half" : "__nv_bfloat16");
const pairName = (k: Kind): string => (k === "half" ? "__half2" : "__nv_bfloat162");

function loopMessage(name: string, p: Pointer): string {
  const pair = pairName(p.kind);
  return `\`${name}\` is read or written one ${typeName(p.kind)} (2 bytes) per iteration${p.note ? ` (${p.note})` : ""}. Load ${pair} pairs (reinterpret_cast<const ${pair}*>) or 16-byte vectors (float4/uint4, 8 elements) to use the memory bandwidth.`;
}

function threadMessage(name: string, p: Pointer): string {
  return `\`${name}\` is read or written one ${typeName(p.kind)} (2 bytes) per thread${p.note ? ` (${p.note})` : ""}: the warp's accesses coalesce, but each thread issues its own 2-byte load or store (64 bytes per warp instruction). Let each thread handle a ${pairName(p.kind)} pair or 8 elements (one 16-byte uint4/float4 access): fewer memory instructions, and full 16-byte accesses per thread.`;
}

export const scalarHalfAccess: Rule = {
  id: "scalar-half-access",
  defaultSeverity: "warning",
  basis: "heuristic",
  summary:
    "A loop, or each thread of an elementwise kernel, reads or writes global __half/__nv_bfloat16 elements one at a time; use 2-wide or 16-byte vector access.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const fns = idx.deviceFunctions();
    if (fns.length === 0) return;
    const env = declEnv(ctx);
    const base = halfPointer(env.halfAliases);
    const typeNames = shortestNames([...base.kind.keys()]);
    const named = namesIn(idx.text, typeNames);
    for (const f of fns) {
      // A function naming no half type (nor a template's or alias's) has no half pointer.
      const maybeLocal = afterTemplateHeader(idx.text, f.start);
      if (!named(f.start, f.end) && !maybeLocal) continue;
      // Code only: a type named in a comment declares nothing.
      const src = codeSlice(idx, f.start, f.end);
      // The regex is tried at every offset: first, is any of its type names there at all?
      if (!maybeLocal && !typeNames.some((find) => find(src, 0) >= 0)) continue;
      const pointers = pointersOf(ctx, idx, f, src, base);
      // A function that already vectorizes has its scalar loop as the odd-length tail.
      if (pointers.size === 0 || vectorizesIn(src, env.vectorTypes)) continue;
      reportAccesses(ctx, idx, f, accessesOf(idx, f, pointers, env.defines));
    }
  },
};

/** The first streaming access of each loop, and the first one-element-per-thread access outside loops. */
function reportAccesses(
  ctx: LintContext,
  idx: FileIndex,
  f: FunctionInfo,
  hits: { sub: Node; name: string; pointer: Pointer }[],
): void {
  if (hits.length === 0) return;
  const locals = new FunctionLocals(idx.root, codeSlice(idx, f.start, f.end), f.start);
  // Each loop's range read once (endIndex crosses into wasm), not once per access.
  const loops = idx.loops(f.body.startIndex, f.body.endIndex).map((l) => ({
    node: l,
    start: l.startIndex,
    end: l.endIndex,
  }));
  // Each access's innermost loop (the last-starting loop holding it; -1: none) and shape.
  const placed = hits.map((h) => {
    let loop: Node | undefined;
    for (const l of loops) if (l.start <= h.sub.startIndex && h.sub.endIndex <= l.end) loop = l.node;
    return { ...h, loop, key: loop ? loop.id : -1, shape: locals.shape(h.sub) };
  });
  // A loop (or the code outside loops) that gathers moves its data through the index: storing the
  // gathered values two at a time gains little. Those are skipped whole.
  const reported = new Set(placed.filter((p) => p.shape === "gather").map((p) => p.key));
  // A function streaming its data in loops: its accesses outside loops are per-row values (a mean, a
  // norm), a small part of its traffic.
  const streams = placed.some((p) => p.loop && p.shape !== "broadcast" && !reported.has(p.key));
  if (streams) reported.add(-1);
  for (const { sub, name, pointer, loop, key, shape } of placed) {
    if (reported.has(key)) continue;
    // A value shared by a group of threads is no stream; outside loops only the thread's own element counts.
    if (shape === "broadcast" || (!loop && !locals.contiguousAt(sub))) continue;
    reported.add(key);
    ctx.report({ node: sub, message: loop ? loopMessage(name, pointer) : threadMessage(name, pointer) });
  }
}
