// Can a 32-bit index pass 2^31 (int-index-overflow)? `i = blockIdx.x * blockDim.x + threadIdx.x` reaches
// what the grid is sized to; whether that can pass 2^31 is read from how `i` is bounded and used:
// - a 64-bit bound (`i < size_t n`, `.numel()`, a `long` name) lets it pass, unless the bound counts a
//   small domain (a dimension: `num_rows`, `batch_size`, `vocab_size`, `num_experts`: one name, or one read
//   through a pointer, `*batch_size`; no product)
//   or is a local built from two (or an unwritten number of) 32-bit dimensions (localCounts), or a kernel
//   parameter that every launch in the file passes a 32-bit value (launchedBounds);
// - a quotient coordinate compared with a bound (`r = i / w; r < rows`) bounds `i` by rows * w: 32-bit
//   unless the bound or the divisor is 64-bit (derivedBounds);
// - a signed `i` below a product of unsigned 32-bit names (`i < a * b`, uint32 a, b) passes INT_MAX before
//   the bound, which may lie in [2^31, 2^32);
// - a 32-bit bound (`i < int n`, `i < uint32 n` for an unsigned `i`) keeps it in range, and so does a
//   32-bit tensor accessor's size, cast to 64 bits or not (`i < (uint64_t)acc.size(0)`, accessors);
// - an index that only addresses 32-bit tensor accessors (and is compared) stays below 2^31 whatever
//   bounds it: such a tensor holds fewer elements, and its `operator[]` takes an int32 (accessors);
// - with no bound, a flat element index (a subscript through additions only) may pass 2^31;
// - a column is no flat index: `i` added to a row's offset (`r * width + i`) with a 32-bit or dimension
//   width is below that width, and so is `i < n` for `r * n + i`; the product is where a wrap would be,
//   another expression's concern. (`i + stride * batch` with a 64-bit stride is no such column.)
// The y and z axes need no look: gridDim.y and gridDim.z are at most 65,535, so
// `blockIdx.y * blockDim.y + threadIdx.y` < 65,535 * 1,024 < 2^31 (see yzAxis). Nor does a kernel that
// every launch in the file runs as one block (`<<<1, G>>>`): blockIdx is 0 there (see oneBlockKernel).
//
// Cannot see: the launch's grid beyond one block (a grid sized to a dimension while the bound is an
// element count), launches from other files, what a name means beyond its words, casts inside the
// bound's names' declarations.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { descendants } from "../source/nodes";
import { accessor32Size, addressesOnly32BitAccessors } from "./accessors";
import { boundOf, operator } from "./comparisons";
import { DeclaredTypes, NARROW_32, UNSIGNED_32, WIDE_TYPE, WIDE_VALUE } from "./declaredTypes";
import { derivedBounds } from "./derivedBounds";
import { narrowBuiltCount } from "./localCounts";
import { narrowAtLaunches } from "./launchedBounds";
import { definedName } from "../callgraph/callGraph";
import { launchedAsOneBlock } from "../launches/launchSites";

export { DeclaredTypes, operator };

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

/**
 * A bound that can pass 2^31: a 64-bit type, count or literal in it, or a name declared 64-bit (unless a
 * local built from two 32-bit dimensions, see localCounts, or a kernel parameter every launch in the file
 * passes a 32-bit value, see launchedBounds; `signed`: the index is signed). A 32-bit accessor's size,
 * under any cast, is none (accessors).
 */
function isWide(bound: Node, declared: DeclaredTypes, signed: boolean, idx: FileIndex): boolean {
  if (accessor32Size(bound, declared, idx)) return false;
  const text = idx.textOf(bound);
  if (WIDE_TYPE.test(text) || WIDE_VALUE.test(text)) return true;
  const names = bound.type === "identifier" ? [bound] : descendants(bound, "identifier");
  return names.some((n) => {
    const name = idx.textOf(n);
    if (!WIDE_TYPE.test(declared.of(name) ?? "")) return false;
    return !narrowBuiltCount(name, declared, idx) && !narrowAtLaunches(name, declared, signed, idx);
  });
}

/** Words of a name that count a small domain: rows, columns, batch entries, beams, experts, words... */
const DIMENSION_WORD =
  /^(?:rows?|cols?|columns?|batch(?:es)?|bsz|beams?|experts?|vocab|words?|tokens?|heads?|channels?|dims?|hidden|width|height|depth|features?|classes|labels?|groups?|layers?|seq|seqlen|blocks?|tiles?)$/i;

/** The words of a name: `num_rows` → num, rows; `vocabSize` → vocab, Size. */
function words(name: string): string[] {
  return name.split(/_|(?<=[a-z0-9])(?=[A-Z])/).filter((w) => w !== "");
}

/**
 * Does `bound` count a small domain: one name (or member, `p.num_experts`, or one read through a
 * pointer, `*batch_size`), no product, with a dimension word in it? Such a count stays far below 2^31
 * whatever its type.
 */
function dimensionCount(bound: Node, idx: FileIndex): boolean {
  const deref = bound.type === "pointer_expression" && idx.textOf(bound).trimStart().startsWith("*");
  const text = idx.textOf((deref && bound.childForFieldName("argument")) || bound).trim();
  const last = /^[A-Za-z_][\w.>-]*$/.test(text) ? /(\w+)$/.exec(text)?.[1] : undefined;
  return !!last && words(last).some((w) => DIMENSION_WORD.test(w));
}

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
  if (addressesOnly32BitAccessors(uses, declared, idx)) return undefined;
  // a bound that is the width of the row `id` is a column of (`col < n`, `r * n + col`) counts columns
  const widthTexts = new Set(widths.map((w) => idx.textOf(w)));
  const small = (b: Node): boolean => dimensionCount(b, idx) || widthTexts.has(idx.textOf(b).trim());
  const bounds = uses.flatMap((u) => boundOf(u, idx) ?? []);
  const wide = (b: Node): boolean => isWide(b, declared, signed, idx);
  if (bounds.some((b) => wide(b) && !small(b))) return "wide-bound";
  // through a quotient coordinate: `r = i / w; r < b` puts `i` below b * w
  const derived = derivedBounds(uses, declared, idx);
  if (derived.some((d) => (wide(d.bound) && !small(d.bound)) || wide(d.divisor))) return "wide-bound";
  if (signed && bounds.some((b) => unsignedProduct(b, declared, idx))) return "unsigned-product";
  if (bounds.length > 0 || derived.length > 0) return undefined;
  return uses.some((u) => isFlatIndexUse(u, idx)) ? "unbounded" : undefined;
}

/** Is a builtin's axis y or z (`blockIdx.y`): gridDim.y and .z are at most 65,535. */
export function yzAxis(builtin: Node, idx: FileIndex): boolean {
  return /\.\s*[yz]$/.test(idx.textOf(builtin));
}

/**
 * Is the kernel around `builtin` launched as one block wherever the file launches it (with one launch at
 * least; launches/launchSites.ts)? Then blockIdx is 0 and the index stays below blockDim (<= 1,024).
 */
export function oneBlockKernel(builtin: Node, idx: FileIndex): boolean {
  const fn = idx.enclosingFunction(builtin);
  const name = fn ? definedName(idx, fn) : undefined;
  return name !== undefined && launchedAsOneBlock(idx, name);
}
