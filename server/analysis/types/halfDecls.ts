// The FP16/BF16-typed names of a file, read from the declarations in its code (halfText.ts; comments and
// strings declare nothing): one HalfScope per function that declares any, inside the scope of the
// struct it is a member of (if any), inside the file scope. Struct members type names only in their
// struct's member functions, never in other functions.
import type { Node } from "web-tree-sitter";
import { codeAround, codeSpan, codeText } from "../source/codeText";
import type { DeclEnv } from "./declEnv";
import type { FileIndex, FunctionSpan, PlacedHalfEntry } from "../source/fileIndex";
import { eachWholeWord, readHalfTypes, type HalfName, type HalfToken } from "./halfText";
import { appended, HalfScope, isIdentifier, WordList, type HalfEntry, type HalfKind } from "./halfTypes";
import { isSpaceCode, isWordCode } from "../source/charCodes";

export interface FunctionHalfScope {
  /** The function definition, or a struct's member list. */
  node: Node;
  start: number;
  end: number;
  scope: HalfScope;
  /**
   * Where the names a function declares occur in its code (comments and literals left out), in document
   * order: read once here, for the rules that look at the names' uses. Undefined for a struct.
   */
  uses?: NameUses;
}

/**
 * Occurrences of names as whole words: `words[i]` at offset `at[i]` of the file, for i in [first, end).
 * The lists are the file's, shared by its functions (one pair, not two small lists per function).
 */
export interface NameUses {
  at: number[];
  words: string[];
  first: number;
  end: number;
}

export interface HalfDecls {
  file: HalfScope;
  /** Initialisers of half-typed variables (`__half h = 0.0f`): name, kind and the value's text range. */
  initializers: { name: string; kind: HalfKind; start: number; end: number }[];
  /** Functions and struct bodies that declare half-typed names, in document order (a struct's range holds its member functions'). */
  functions: FunctionHalfScope[];
  /** The scope for an offset: its function's (or struct's) when that declares half names, else the file's. */
  scopeAt(offset: number): HalfScope;
}

/**
 * `env` gives the aliases of the half types (declEnv.ts); only aliases every definition of which names
 * the same type are used: a name's operators are judged by its type in every build.
 */
export function halfDecls(idx: FileIndex, env?: DeclEnv): HalfDecls {
  // The file-scope declarations type names in every function: a whole-file fact.
  idx.reads("halfDecls");
  return idx.shared("halfDecls", () => findHalfDecls(idx, certainAliases(env)));
}

function certainAliases(env: DeclEnv | undefined): Map<string, HalfKind> | undefined {
  if (!env || env.halfAliases.size === 0) return undefined;
  const out = new Map<string, HalfKind>();
  for (const [name, a] of env.halfAliases) if (a.certain) out.set(name, a.kind);
  return out.size > 0 ? out : undefined;
}

/**
 * Where a declaration outside any function found by functionAt is: in a struct/class/union's member
 * list, in a block (a function the index could not find, e.g. split by `#if`: its locals are not file
 * scope) or a declaration's parameter list (neither declares a file-scope name), or at file scope.
 */
function placeOf(idx: FileIndex, at: number): Node | "block" | "file" {
  // Top-down, one child per level (Node.parent walks down from the root at every step).
  let n: Node = idx.root;
  for (let depth = 0; depth < 24; depth++) {
    const k = n.firstNamedChildForIndex(at);
    if (!k || k.startIndex > at) return "file";
    if (k.type === "field_declaration_list") return k;
    if (k.type === "compound_statement") return "block";
    // A declaration's parameters (`template void f<__half>(__half* x, int n);`) declare no file-scope name.
    if (k.type === "parameter_list") return "block";
    n = k;
  }
  return "file";
}

/** Non-half scalar and vector types: `const float d = …` next to `const half d = …` makes `d` unknown. */
const OTHER_TYPES = new WordList(
  "float|double|int|unsigned|long|short|char|bool|size_t|int8_t|uint8_t|int16_t|uint16_t|int32_t|uint32_t|int64_t|uint64_t|float2|float3|float4|int2|int4|uint2|uint4".split(
    "|",
  ),
);
const QUALIFIERS = new WordList(["const", "__restrict__", "volatile"]);

/** `\s`, `*` or `&`. */
const isPointerGap = (c: number): boolean =>
  c === 32 || c === 42 || c === 38 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(String.fromCharCode(c)));

/**
 * Does `code[lo, at)` end in a non-half type (`float `, `const float2* `, `int const* __restrict__ `) just
 * before a declared name? Read backwards, word by word: the regex
 * `\b(?:TYPES)\b[\s*&]*(?:(?:const|__restrict__|volatile)\b[\s*&]*)*$` tried on that slice, without
 * trying it at every offset.
 */
function otherTypeBefore(code: string, lo: number, at: number): boolean {
  let i = at;
  for (;;) {
    while (i > lo && isPointerGap(code.charCodeAt(i - 1))) i--;
    const end = i;
    while (i > lo && isWordCode(code.charCodeAt(i - 1))) i--;
    if (OTHER_TYPES.has(code, i, end)) return true;
    // A qualifier follows its type after `\s`, `*` or `&`: one must come before it.
    if (!QUALIFIERS.has(code, i, end) || i === lo || !isPointerGap(code.charCodeAt(i - 1))) return false;
  }
}

/**
 * Where the names `decls` declare (identifiers, each once) occur in [from, to) of the code; the names also
 * declared there with a non-half type (`float d =`, `float2 q[`) are shadowed in `scope`. Looks only at
 * the names' occurrences (as whole words followed by `=`, `;`, `,`, `[` or `)` within 8 characters):
 * cheaper than reading every declaration.
 */
function declaredOtherwise(
  idx: FileIndex,
  decls: readonly HalfEntry[],
  from: number,
  to: number,
  scope: HalfScope,
  all: { at: number[]; words: string[] },
): NameUses {
  const uses: NameUses = { at: all.at, words: all.words, first: all.at.length, end: all.at.length };
  const words: string[] = [];
  for (const { name } of decls) if (isIdentifier(name) && !words.includes(name)) words.push(name);
  if (words.length === 0) return uses;
  let longest = 0;
  for (const w of words) longest = Math.max(longest, w.length);
  // What the search reads: from the character before the function to the longest name and 8 more after it.
  const { code, base } = codeAround(idx, Math.max(0, from - 1), Math.min(idx.text.length, to + longest + 9));
  const lo = from - base;
  let shadowed: string[] | undefined;
  eachWholeWord(code, words, lo, to - base, (index, word) => {
    uses.at.push(base + index);
    uses.words.push(word);
    if (
      !shadowed?.includes(word) &&
      declaratorEnd(code, index + word.length) &&
      otherTypeBefore(code, Math.max(lo, index - 48), index)
    )
      shadowed = appended(shadowed, word);
  });
  if (shadowed) for (const name of shadowed) scope.shadow(name);
  uses.end = all.at.length;
  return uses;
}

/** `(?=\s{0,7}[=;,[)])` at `end`: a declarator's name ends there. */
function declaratorEnd(code: string, end: number): boolean {
  let i = end;
  while (i < end + 7 && isSpaceCode(code.charCodeAt(i))) i++;
  const c = code.charCodeAt(i);
  return c === 61 || c === 59 || c === 44 || c === 91 || c === 41;
}

/**
 * The half type names in the run's window and what they declare. A windowed run reads them from
 * codeSpan, unless a reading looked past its end (a declaration running on): then from codeText.
 */
function windowTokens(idx: FileIndex, aliases: Map<string, HalfKind> | undefined): HalfToken[] {
  const { start, end } = idx.window;
  const { code, base } = codeSpan(idx);
  if (base === 0 && code.length === idx.text.length) return readHalfTypes(code, start, end, aliases);
  const tokens = readHalfTypes(code, start - base, end - base, aliases);
  if (tokens.some((t) => t.reach > code.length) && base + code.length < idx.text.length)
    return readHalfTypes(codeText(idx), start, end, aliases);
  return tokens.map((t) => movedToken(t, base));
}

/** A token read at offsets `by` characters before its place in the file, moved there. */
function movedToken(t: HalfToken, by: number): HalfToken {
  const out: HalfToken = {
    at: t.at + by,
    reach: t.reach + by,
    declEnd: t.declEnd === undefined ? undefined : t.declEnd + by,
    read: undefined,
  };
  const r = t.read;
  if (r) {
    const inits = r.inits.map((i) => ({ name: i.name, start: i.start + by, end: i.end + by }));
    out.read = { at: r.at + by, kind: r.kind, entries: r.entries, inits };
  }
  return out;
}

/** [start, end) of each `#define` (with its continuation lines): declarations in macro bodies are not the file's. */
function defineRanges(idx: FileIndex): [number, number][] {
  const out: [number, number][] = [];
  for (const d of idx.directives()) {
    if (d.word !== "define") continue;
    let end = idx.text.indexOf("\n", d.end);
    while (end > 0 && /\\\r?$/.test(idx.text.slice(Math.max(0, end - 2), end)))
      end = idx.text.indexOf("\n", end + 1);
    out.push([d.lineStart, end < 0 ? idx.text.length : end]);
  }
  return out;
}

interface Region {
  node: Node;
  decls: HalfEntry[];
}

interface FunctionRegion {
  span: FunctionSpan;
  decls: HalfEntry[];
}

function findHalfDecls(idx: FileIndex, aliases: Map<string, HalfKind> | undefined): HalfDecls {
  const fileEntries: PlacedHalfEntry[] = [];
  // By the function's start: functionSpanAt's functions are outermost definitions, which do not overlap.
  const perFn = new Map<number, FunctionRegion>();
  const perStruct = new Map<number, Region>();
  const inits: HalfDecls["initializers"] = [];
  const tokens = windowTokens(idx, aliases);
  // A windowed run read only its window: the names elsewhere come from earlier runs. The tokens have
  // HalfName's fields, and nothing changes them: kept as they are.
  const names: HalfName[] = tokens;
  // Tokens come in document order: only names carried from earlier runs need sorting in.
  idx.facts.halfNames = idx.carried?.halfNames.length
    ? [...idx.carried.halfNames, ...names].sort((a, b) => a.at - b.at)
    : names;
  const addToStruct = (node: Node, entry: HalfEntry): void => {
    const r = perStruct.get(node.id) ?? { node, decls: [] };
    r.decls.push(entry);
    perStruct.set(node.id, r);
  };
  const defines = tokens.length > 0 ? defineRanges(idx) : [];
  let d = 0;
  for (const { read: h } of tokens) {
    if (!h) continue;
    while (d < defines.length && defines[d]![1] <= h.at) d++;
    if (d < defines.length && defines[d]![0] <= h.at) continue;
    const fn = idx.functionSpanAt(h.at);
    const place = fn || h.entries.length === 0 ? "file" : placeOf(idx, h.at);
    if (place === "block") continue;
    if (fn && h.entries.length > 0) {
      const r = perFn.get(fn.start);
      if (r) r.decls.push(...h.entries);
      else perFn.set(fn.start, { span: fn, decls: [...h.entries] });
    } else
      for (const entry of h.entries) {
        if (place !== "file") addToStruct(place, entry);
        else fileEntries.push({ offset: h.at, entry });
      }
    for (const init of h.inits)
      inits.push({ name: init.name, start: init.start, end: init.end, kind: h.kind });
  }

  // A windowed run scanned only its window: file-scope declarations elsewhere come from earlier runs.
  const placed = [...(idx.carried?.fileHalfEntries ?? []), ...fileEntries].sort(
    (a, b) => a.offset - b.offset,
  );
  idx.facts.fileHalfEntries = placed;
  const file = new HalfScope(placed.map((p) => p.entry));
  const structs = [...perStruct.values()].map(({ node, decls }) => ({
    node,
    start: node.startIndex,
    end: node.endIndex,
    scope: new HalfScope(decls, file),
  }));
  // A member function sees its struct's members: its scope lies inside the struct's (the innermost one).
  const structAt = (at: number): FunctionHalfScope | undefined =>
    structs.filter((r) => r.start <= at && at < r.end).sort((a, b) => b.start - a.start)[0];
  const functions: FunctionHalfScope[] = [];
  const allUses: { at: number[]; words: string[] } = { at: [], words: [] };
  for (const { span, decls } of perFn.values()) {
    const { node, start, end } = span;
    const scope = new HalfScope(decls, structs.length > 0 ? (structAt(start)?.scope ?? file) : file);
    // The same name also declared with a non-half type in the function: its type depends on the branch.
    const uses = declaredOtherwise(idx, decls, start, end, scope, allUses);
    functions.push({ node, start, end, scope, uses });
  }
  functions.sort((a, b) => a.start - b.start);
  return {
    file,
    initializers: inits,
    functions: [...functions, ...structs].sort((a, b) => a.start - b.start),
    scopeAt(offset) {
      // Functions come from functionAt (outermost definitions), so they do not overlap: binary search.
      let lo = 0;
      let hi = functions.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const f = functions[mid]!;
        if (offset < f.start) hi = mid - 1;
        else if (offset >= f.end) lo = mid + 1;
        else return f.scope;
      }
      return structs.length > 0 ? (structAt(offset)?.scope ?? file) : file;
    },
  };
}
