// Which expressions hold FP16/BF16 values: a per-function symbol table plus the return types of the
// conversion intrinsics. Unknown (template `T`, unresolved names) is never treated as half.
import type { Node } from "web-tree-sitter";
import { declaredName, namedChildren, unparen } from "../source/nodes";
import { isSpaceCode, isWordCode } from "../source/charCodes";

export type HalfKind = "half" | "bf16" | "half2" | "bf162";

const TYPE_KIND: Readonly<Record<string, HalfKind>> = {
  __half: "half",
  half: "half",
  __nv_bfloat16: "bf16",
  nv_bfloat16: "bf16",
  __half2: "half2",
  half2: "half2",
  __nv_bfloat162: "bf162",
  nv_bfloat162: "bf162",
};

export function halfKindOfType(typeText: string): HalfKind | undefined {
  // Mostly asked for a bare type name: that lookup first (the same answer, without the regex).
  return TYPE_KIND[typeText] ?? TYPE_KIND[typeText.replace(/\b(const|volatile)\b/g, "").trim()];
}

export function isPairKind(k: HalfKind): boolean {
  return k === "half2" || k === "bf162";
}

/** A value's type as far as the rules care: its half kind and how many `*`/`[]` lie above it. */
export interface HalfType {
  kind: HalfKind;
  /** 0 for a value; 1 for `__half*` or `__half x[8]`; and so on. */
  indirection: number;
  shared: boolean;
  /** Declared as an array (local or __shared__ storage), not a pointer into global memory. */
  array?: boolean;
}

/** A half-typed name read from a declaration's text. */
export interface HalfEntry {
  name: string;
  type: HalfType;
}

/** Intrinsics whose result is a half value (the usual way to produce one without an implicit cast). */
const RETURNS: Readonly<Record<string, HalfKind>> = {
  __float2half: "half",
  __float2half_rn: "half",
  __float2half_rz: "half",
  __int2half_rn: "half",
  __ushort_as_half: "half",
  __hadd: "half",
  __hsub: "half",
  __hmul: "half",
  __hdiv: "half",
  __hfma: "half",
  __hneg: "half",
  __habs: "half",
  __low2half: "half",
  __high2half: "half",
  __float2bfloat16: "bf16",
  __float2bfloat16_rn: "bf16",
  __float2bfloat16_rz: "bf16",
  __ushort_as_bfloat16: "bf16",
  __low2bfloat16: "bf16",
  __high2bfloat16: "bf16",
  __floats2half2_rn: "half2",
  __float22half2_rn: "half2",
  __float2half2_rn: "half2",
  __halves2half2: "half2",
  __hadd2: "half2",
  __hmul2: "half2",
  __hsub2: "half2",
  __hfma2: "half2",
  __floats2bfloat162_rn: "bf162",
  __float22bfloat162_rn: "bf162",
  __bfloat162bfloat162: "bf162",
  __halves2bfloat162: "bf162",
};

const [OPEN_PAREN, OPEN_BRACKET, OPEN_BRACE, CLOSE_PAREN, CLOSE_BRACKET, CLOSE_BRACE, COMMA, EQUALS] = [
  ..."([{)]},=",
].map((c) => c.charCodeAt(0));

/**
 * `/^[A-Za-z_]\w*$/.test(s)` by character code: a regex literal in a callback is a new RegExp object at
 * every call.
 */
export function isIdentifier(s: string): boolean {
  if (s.length === 0) return false;
  const c = s.charCodeAt(0);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return false;
  for (let i = 1; i < s.length; i++) if (!isWordCode(s.charCodeAt(i))) return false;
  return true;
}

/**
 * A set of words asked about in place: is text[i, j) one of them? Compared by length, then with
 * startsWith: no slice per word asked about (a short slice is a new string).
 */
export class WordList {
  /** The words of each length, at that index. */
  private readonly byLength: (string[] | undefined)[] = [];

  constructor(words: Iterable<string>) {
    for (const w of words) {
      const list = this.byLength[w.length] ?? [];
      list.push(w);
      this.byLength[w.length] = list;
    }
  }

  has(text: string, i: number, j: number): boolean {
    const list = j > i ? this.byLength[j - i] : undefined;
    if (!list) return false;
    for (const w of list) if (text.startsWith(w, i)) return true;
    return false;
  }
}

/** Does text[from, to) end with a word character and then only spaces (`/\w\s*$/`)? */
function endsWithWord(text: string, from: number, to: number): boolean {
  let j = to;
  while (j > from && isSpaceCode(text.charCodeAt(j - 1))) j--;
  return j > from && isWordCode(text.charCodeAt(j - 1));
}

/**
 * The declarators after the type in a declaration's text (`text[from, to)`, all of it by default):
 * `* __restrict__ x`, `*y = in + n, z[8];`. Each gives its name, its `*`/`[]` count, and whether it is an
 * array. Read in place: no slice per declarator or word.
 */
export function parseDeclarators(text: string, from = 0, to = text.length): Declarator[] {
  // Each top-level comma-separated part, up to its initialiser (`= …`, `(args)` after a name, `{…}`).
  let out: Declarator[] | undefined;
  let depth = 0;
  let start = from;
  let initAt = -1;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_PAREN || c === OPEN_BRACKET || c === OPEN_BRACE) depth++;
    else if (c === CLOSE_PAREN || c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
    if (depth === 0 && c === COMMA) {
      out = appended(out, readDeclarator(text, start, initAt < 0 ? i : initAt));
      start = i + 1;
      initAt = -1;
      continue;
    }
    if (initAt >= 0) continue;
    if (
      (depth === 0 && c === EQUALS) ||
      (depth === 1 && c === OPEN_PAREN && endsWithWord(text, start, i)) || // `T x(args)`
      (depth === 1 && c === OPEN_BRACE)
    )
      initAt = i;
  }
  return appended(out, readDeclarator(text, start, initAt < 0 ? to : initAt)) ?? [];
}

/**
 * `list` with `x` added (unless undefined); a list of one made as `[x]`: an array that grows by push
 * takes room for 16 at its first, and most lists here hold one.
 */
export function appended<T>(list: T[] | undefined, x: T | undefined): T[] | undefined {
  if (x === undefined) return list;
  if (!list) return [x];
  list.push(x);
  return list;
}

const STAR = 42;
const BRACKET = 91;

/** A declarator's name, its `*`/`[]` count, and whether it is an array. */
export interface Declarator {
  name: string;
  indirection: number;
  array: boolean;
}

const NOT_NAMES = new WordList(["const", "volatile", "__restrict__", "__restrict", "restrict"]);

/**
 * One declarator, text[from, to) (`* __restrict__ x`, `z[8]`), if it names something: its
 * name is the last word before the first `[` that is not a qualifier, its indirection the `*`s before
 * that `[` and the `[`s from it on. Read by character code: the words a global `[A-Za-z_]\w*` regex finds
 * (a digit starts no word, the letters after it do).
 */
function readDeclarator(text: string, from: number, to: number): Declarator | undefined {
  const bracket = text.indexOf("[", from);
  const headEnd = bracket < 0 || bracket >= to ? to : bracket;
  let nameStart = -1;
  let nameEnd = -1;
  let stars = 0;
  for (let i = from; i < headEnd;) {
    const c = text.charCodeAt(i);
    if (isWordCode(c) && !(c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < headEnd && isWordCode(text.charCodeAt(j))) j++;
      if (!NOT_NAMES.has(text, i, j)) {
        nameStart = i;
        nameEnd = j;
      }
      i = j;
    } else {
      if (c === STAR) stars++;
      i++;
    }
  }
  if (nameStart < 0) return undefined;
  let arrays = 0;
  for (let i = headEnd; i < to; i++) if (text.charCodeAt(i) === BRACKET) arrays++;
  return { name: text.slice(nameStart, nameEnd), indirection: stars + arrays, array: arrays > 0 };
}

/** Declarations of half-typed names in a scope (a function, or the file for file-scope names). */
export class HalfScope {
  private readonly names = new Map<string, HalfType | null>();

  /**
   * `decls`: declaration / parameter_declaration / field_declaration nodes, or names already read from
   * the text; `outer`: the enclosing scope.
   */
  constructor(
    decls: Iterable<Node | HalfEntry>,
    private readonly outer?: HalfScope,
  ) {
    for (const decl of decls) {
      if (!("id" in decl)) {
        this.set(decl.name, decl.type);
        continue;
      }
      const typeNode = decl.childForFieldName("type");
      if (!typeNode) continue;
      const kind = halfKindOfType(typeNode.text);
      if (!kind) {
        // `auto* p = reinterpret_cast<const __half2*>(...)`: the cast names the type (rare: use the tree)
        if (typeNode.type === "placeholder_type_specifier") this.addAuto(decl);
        continue;
      }
      // Plain declarations are read from their text: asking the tree for each declarator costs more.
      const declText = decl.text;
      const shared = /\b__shared__\b/.test(declText.slice(0, typeNode.startIndex - decl.startIndex));
      for (const d of parseDeclarators(declText, typeNode.endIndex - decl.startIndex))
        this.set(d.name, { kind, indirection: d.indirection, shared, array: d.array });
    }
  }

  private addAuto(decl: Node): void {
    for (const d of namedChildren(decl)) {
      if (d.type !== "init_declarator") continue;
      const name = declaredName(d);
      const t = this.typeOf(d.childForFieldName("value"));
      if (name && t) this.set(name.text, { ...t, shared: false, array: false });
    }
  }

  private set(name: string, t: HalfType | null): void {
    this.words = undefined;
    // The same name declared twice with different types (shadowing) is treated as unknown.
    if (this.names.has(name)) {
      const old = this.names.get(name);
      if (!old || !t || old.kind !== t.kind || old.indirection !== t.indirection) this.names.set(name, null);
    } else this.names.set(name, t);
  }

  /** `name` is also declared here with another type (a block or `#if` branch): its type is unknown. */
  shadow(name: string): void {
    this.names.set(name, null);
    this.words = undefined;
  }

  lookup(name: string): HalfType | undefined {
    if (this.names.has(name)) return this.names.get(name) ?? undefined;
    return this.outer?.lookup(name);
  }

  /** Names declared in this scope with a half type. */
  halfNames(): string[] {
    const out: string[] = [];
    for (const [n, t] of this.names) if (t) out.push(n);
    return out;
  }

  /** Whether any name here has a half type (halfNames() is not empty). */
  hasHalfNames(): boolean {
    for (const t of this.names.values()) if (t) return true;
    return false;
  }

  private words: string[] | undefined;

  /** halfNames that are identifiers (regex-safe), made once: each rule of a run asks for them. */
  halfWords(): readonly string[] {
    if (this.words) return this.words;
    const out: string[] = [];
    for (const [n, t] of this.names) if (t && isIdentifier(n)) out.push(n);
    this.words = out;
    return out;
  }

  /** The half type of an expression when it is known. */
  typeOf(node: Node | null): HalfType | undefined {
    if (!node) return undefined;
    const n = unparen(node);
    switch (n.type) {
      case "identifier":
        return this.lookup(n.text);
      case "subscript_expression":
      case "pointer_expression": {
        if (n.type === "pointer_expression" && n.childForFieldName("operator")?.text !== "*")
          return undefined;
        const t = this.typeOf(n.childForFieldName("argument"));
        return t && t.indirection > 0 ? { ...t, indirection: t.indirection - 1 } : undefined;
      }
      case "field_expression": {
        // v.x of a __half2 is a __half; p->x likewise
        const t = this.typeOf(n.childForFieldName("argument"));
        const field = n.childForFieldName("field")?.text;
        const op = n.childForFieldName("operator")?.text;
        const ind = op === "->" ? 1 : 0;
        if (t && t.indirection === ind && isPairKind(t.kind) && (field === "x" || field === "y"))
          return { kind: t.kind === "half2" ? "half" : "bf16", indirection: 0, shared: false };
        return undefined;
      }
      case "call_expression": {
        const f = n.childForFieldName("function");
        if (f?.type === "identifier") {
          const k = RETURNS[f.text];
          return k ? { kind: k, indirection: 0, shared: false } : undefined;
        }
        if (f?.type === "template_function") {
          // reinterpret_cast<const __half2*>(p), static_cast<__half>(x)
          const name = f.childForFieldName("name")?.text;
          const arg = f.childForFieldName("arguments")?.namedChild(0);
          if (!arg || !name?.endsWith("_cast")) return undefined;
          const k = halfKindOfType(arg.childForFieldName("type")?.text ?? "");
          if (!k) return undefined;
          const ind = (arg.text.match(/\*/g) ?? []).length;
          return { kind: k, indirection: ind, shared: false };
        }
        return undefined;
      }
      case "cast_expression": {
        const t = n.childForFieldName("type");
        const k = halfKindOfType(t?.childForFieldName("type")?.text ?? "");
        return k ? { kind: k, indirection: (t!.text.match(/\*/g) ?? []).length, shared: false } : undefined;
      }
      case "binary_expression": {
        // a * b of two halves is a half (through the operators, where they exist)
        const op = n.childForFieldName("operator")?.text ?? "";
        if (!["+", "-", "*", "/"].includes(op)) return undefined;
        const a = this.typeOf(n.childForFieldName("left"));
        const b = this.typeOf(n.childForFieldName("right"));
        return a && b && a.indirection === 0 && b.indirection === 0 && a.kind === b.kind ? a : undefined;
      }
      case "conditional_expression": {
        const a = this.typeOf(n.childForFieldName("consequence"));
        const b = this.typeOf(n.childForFieldName("alternative"));
        return a && b && a.kind === b.kind && a.indirection === b.indirection ? a : undefined;
      }
      default:
        return undefined;
    }
  }

  /** Is the expression a half/bf16 value (not a pointer to one)? */
  valueKind(node: Node | null): HalfKind | undefined {
    const t = this.typeOf(node);
    return t && t.indirection === 0 ? t.kind : undefined;
  }
}
