// Can a 32-bit index pass 2^31 (int-index-overflow)? `i = blockIdx.x * blockDim.x + threadIdx.x` reaches
// what the grid is sized to; whether that can pass 2^31 is read from how `i` is bounded and used:
// - a 64-bit bound (`i < size_t n`, `.numel()`, a `long` name) lets it pass, unless the bound counts a
//   small domain (a dimension: `num_rows`, `batch_size`, `vocab_size`, `num_experts`: one name, no product);
// - a signed `i` below a product of unsigned 32-bit names (`i < a * b`, uint32 a, b) passes INT_MAX before
//   the bound, which may lie in [2^31, 2^32);
// - a 32-bit bound (`i < int n`, `i < uint32 n` for an unsigned `i`) keeps it in range;
// - with no bound, a flat element index (a subscript through additions only) may pass 2^31;
// - a column is no flat index: `i` added to a row's offset (`r * width + i`) with a 32-bit or dimension
//   width is below that width, and so is `i < n` for `r * n + i`; the product is where a wrap would be,
//   another expression's concern. (`i + stride * batch` with a 64-bit stride is no such column.)
// The y and z axes need no look: gridDim.y and gridDim.z are at most 65,535, so
// `blockIdx.y * blockDim.y + threadIdx.y` < 65,535 * 1,024 < 2^31 (see yzAxis).
//
// Cannot see: the launch (a grid sized to a dimension while the bound is an element count), what a name
// means beyond its words, casts inside the bound's names' declarations.
import type { Node } from "web-tree-sitter";
import { isWordCode } from "../source/charCodes";
import type { FileIndex } from "../source/fileIndex";
import { declaredName, descendants } from "../source/nodes";

/** Arithmetic that keeps a value an element offset: `base + i`, `i - 1`, `(i)`, a cast. */
const OFFSET_OPS: ReadonlySet<string> = new Set(["+", "-"]);

/** `id` reaches a subscript (or `ptr + id`) through additions only: it is a flat element index there. */
function isFlatIndexUse(id: Node, idx: FileIndex): boolean {
  for (let p: Node | null = id.parent; p; p = p.parent) {
    if (p.type === "subscript_argument_list") return true;
    if (p.type === "subscript_expression") return p.childForFieldName("argument")?.id !== id.id;
    if (p.type === "parenthesized_expression" || p.type === "cast_expression") continue;
    // `row * ncols + col` scales a row index: the wrap, if any, is in that product, not in `row`.
    if (p.type === "binary_expression" && OFFSET_OPS.has(operator(p, idx))) continue;
    return false;
  }
  return false;
}

const COMPARISONS: ReadonlySet<string> = new Set(["<", "<=", ">", ">=", "!=", "=="]);
const ARITHMETIC: ReadonlySet<string> = new Set(["+", "-", "*", "/", "<<", ">>"]);

/** A binary expression's operator (`+`, `<`…), "" when it has none. */
export function operator(n: Node, idx: FileIndex): string {
  const op = n.childForFieldName("operator");
  return op ? idx.textOf(op) : "";
}

/** What `id` is compared with (`i < n`, `2 * i >= a * b`): the other side, or undefined. */
function boundOf(id: Node, idx: FileIndex): Node | undefined {
  let side: Node = id;
  for (let p: Node | null = id.parent; p; side = p, p = p.parent) {
    if (p.type === "parenthesized_expression") continue;
    if (p.type !== "binary_expression") return undefined;
    const op = operator(p, idx);
    if (ARITHMETIC.has(op)) continue;
    if (!COMPARISONS.has(op)) return undefined;
    const left = p.childForFieldName("left");
    return left?.id === side.id ? (p.childForFieldName("right") ?? undefined) : (left ?? undefined);
  }
  return undefined;
}

/** 64-bit integer types as written (a cast, a declaration): a bound of such a type passes 2^32. */
const WIDE_TYPE = /\b(size_t|ssize_t|ptrdiff_t|u?int64_t|u?intptr_t|int64|uint64|long|__int64|u64|i64)\b/;
/** `numel()` / `.size()` return 64-bit counts; `100000000000LL` is a 64-bit literal. */
const WIDE_VALUE = /\b(numel|size)\s*\(|\b\d+[uU]?[lL]{1,2}\b/;

/** Where an upward walk from a name stops: no declarator holds one of these around its declared name. */
const NOT_DECLARATOR =
  /_statement$|_expression$|argument_list$|^(?:function_definition|translation_unit|initializer_list|condition_clause)$/;

/**
 * The types written where names are declared in one scope (parameters and locals). A name's is that of
 * the first declaration of the scope that declares it, found from the places its text is (the first
 * whose node is in a declaration declaring it): a search of the scope for every declaration costs more
 * than the scope's few bound names need.
 */
export class DeclaredTypes {
  /** Each name's type at its first declaration (undefined: none, or that declaration has no type). */
  private readonly types = new Map<string, string | undefined>();

  constructor(
    private readonly scope: Node,
    private readonly idx: FileIndex,
  ) {}

  /** The type written where `name` is first declared in the scope, if it is there. */
  of(name: string): string | undefined {
    if (!this.types.has(name)) this.types.set(name, this.find(name));
    return this.types.get(name);
  }

  private find(name: string): string | undefined {
    const { scope, idx } = this;
    const { text } = idx;
    const end = scope.endIndex - name.length;
    for (
      let at = text.indexOf(name, scope.startIndex);
      at >= 0 && at <= end;
      at = text.indexOf(name, at + 1)
    ) {
      const to = at + name.length;
      if (isWordCode(text.charCodeAt(at - 1)) || isWordCode(text.charCodeAt(to))) continue;
      const n = scope.descendantForIndex(at, to);
      if (n?.startIndex !== at || n.endIndex !== to) continue;
      const d = declarationAround(n);
      if (!d) continue;
      // a parameter has one declarator at most (asking for all of them costs more)
      const declarators =
        d.type === "parameter_declaration"
          ? [d.childForFieldName("declarator")]
          : d.childrenForFieldName("declarator");
      if (declarators.some((x) => declaredText(x, idx) === name)) {
        const type = d.childForFieldName("type");
        return type ? idx.textOf(type) : undefined;
      }
    }
    return undefined;
  }
}

/** The name a declarator declares, as text. */
function declaredText(declarator: Node | null, idx: FileIndex): string | undefined {
  const name = declaredName(declarator);
  return name && idx.textOf(name);
}

/** The declaration or parameter whose declarator holds `n`, or undefined when `n` is not in one. */
function declarationAround(n: Node): Node | undefined {
  for (let p = n.parent; p; p = p.parent) {
    const t = p.type;
    if (t === "declaration" || t === "parameter_declaration") return p;
    if (NOT_DECLARATOR.test(t)) return undefined;
  }
  return undefined;
}

/** A bound that can pass 2^31: a 64-bit type, count or literal in it, or a name declared 64-bit. */
function isWide(bound: Node, declared: DeclaredTypes, idx: FileIndex): boolean {
  const text = idx.textOf(bound);
  if (WIDE_TYPE.test(text) || WIDE_VALUE.test(text)) return true;
  const names = bound.type === "identifier" ? [bound] : descendants(bound, "identifier");
  return names.some((n) => WIDE_TYPE.test(declared.of(idx.textOf(n)) ?? ""));
}

/** Words of a name that count a small domain: rows, columns, batch entries, beams, experts, words... */
const DIMENSION_WORD =
  /^(?:rows?|cols?|columns?|batch(?:es)?|bsz|beams?|experts?|vocab|words?|tokens?|heads?|channels?|dims?|hidden|width|height|depth|features?|classes|labels?|groups?|layers?|seq|seqlen|blocks?|tiles?)$/i;

/** The words of a name: `num_rows` → num, rows; `vocabSize` → vocab, Size. */
function words(name: string): string[] {
  return name.split(/_|(?<=[a-z0-9])(?=[A-Z])/).filter((w) => w !== "");
}

/**
 * Does `bound` count a small domain: one name (or member, `p.num_experts`), no product, with a dimension
 * word in it? Such a count stays far below 2^31 whatever its type.
 */
function dimensionCount(bound: Node, idx: FileIndex): boolean {
  const text = idx.textOf(bound).trim();
  const last = /^[A-Za-z_][\w.>-]*$/.test(text) ? /(\w+)$/.exec(text)?.[1] : undefined;
  return !!last && words(last).some((w) => DIMENSION_WORD.test(w));
}

/** 32-bit unsigned types as written. */
const UNSIGNED_32 = /^(?:(?:const\s+)?(?:unsigned(?:\s+int)?|uint32_t|uint|u32))$/;

/** A product with a name declared unsigned 32-bit among its factors (`a * b`, uint32_t a): it may pass 2^31. */
function unsignedProduct(bound: Node, declared: DeclaredTypes, idx: FileIndex): boolean {
  let n = bound;
  while (n.type === "parenthesized_expression" && n.namedChild(0)) n = n.namedChild(0)!;
  if (n.type !== "binary_expression" || operator(n, idx) !== "*") return false;
  return descendants(n, "identifier").some((id) => UNSIGNED_32.test(declared.of(idx.textOf(id)) ?? ""));
}

/**
 * The named factors of the products `id` is added to (`r * width + id` → width): `id` is then a column
 * of a row that wide.
 */
function rowWidths(id: Node, idx: FileIndex): Node[] {
  const out: Node[] = [];
  let side: Node = id;
  for (let p = id.parent; p; side = p, p = p.parent) {
    if (p.type === "parenthesized_expression" || p.type === "cast_expression") continue;
    if (p.type !== "binary_expression" || operator(p, idx) !== "+") break;
    const left = p.childForFieldName("left");
    let o = left?.id === side.id ? p.childForFieldName("right") : left;
    while (o && o.type === "parenthesized_expression") o = o.namedChild(0);
    if (o?.type !== "binary_expression" || operator(o, idx) !== "*") continue;
    for (const f of [o.childForFieldName("left"), o.childForFieldName("right")])
      if (f && (f.type === "identifier" || f.type === "field_expression")) out.push(f);
  }
  return out;
}

/** 32-bit integer types as written. */
const NARROW_32 = /^(?:const\s+)?(?:unsigned|signed|int|unsigned\s+int|u?int32_t|uint|u32|i32)$/;

/** Is a row width 32-bit (declared so) or a dimension (by its words): its columns stay below 2^31. */
function narrowWidth(width: Node, declared: DeclaredTypes, idx: FileIndex): boolean {
  const text = idx.textOf(width);
  if (width.type === "identifier" && NARROW_32.test(declared.of(text) ?? "")) return true;
  return dimensionCount(width, idx);
}

/** Why an index can pass 2^31 (see the top): a wide bound, a signed index below an unsigned product, no bound. */
export type OverflowReason = "wide-bound" | "unsigned-product" | "unbounded";

/**
 * Whether a 32-bit index with `uses` (the names after its declaration; `signed`: declared int) can
 * really pass 2^31 in its function, and why; undefined when it cannot (see the top).
 */
export function overflowReason(
  uses: readonly Node[],
  signed: boolean,
  declared: DeclaredTypes,
  idx: FileIndex,
): OverflowReason | undefined {
  const widths = uses.flatMap((u) => rowWidths(u, idx));
  if (widths.some((w) => narrowWidth(w, declared, idx))) return undefined;
  // a bound that is the width of the row `id` is a column of (`col < n`, `r * n + col`) counts columns
  const widthTexts = new Set(widths.map((w) => idx.textOf(w)));
  const small = (b: Node): boolean => dimensionCount(b, idx) || widthTexts.has(idx.textOf(b).trim());
  const bounds = uses.flatMap((u) => boundOf(u, idx) ?? []);
  if (bounds.some((b) => isWide(b, declared, idx) && !small(b))) return "wide-bound";
  if (signed && bounds.some((b) => unsignedProduct(b, declared, idx))) return "unsigned-product";
  return bounds.length === 0 && uses.some((u) => isFlatIndexUse(u, idx)) ? "unbounded" : undefined;
}

/** Is a builtin's axis y or z (`blockIdx.y`): gridDim.y and .z are at most 65,535. */
export function yzAxis(builtin: Node, idx: FileIndex): boolean {
  return /\.\s*[yz]$/.test(idx.textOf(builtin));
}
