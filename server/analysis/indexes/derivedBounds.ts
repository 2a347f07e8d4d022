// Bounds an index gets through the coordinates it is split into: with `r = (i * 4) / width` and
// `if (r < rows)`, `i` stays below rows * width / 4 although `i` itself is compared with nothing. A
// quotient coordinate of `i` (`i` divided, possibly after scaling up, and declared as a local) that is
// compared with `b` bounds `i` by b times the divisor. A remainder (`i % width`) bounds nothing of `i`.
//
// Cannot see: coordinates assigned after their declaration, or computed through a helper function;
// whether the comparison guards the uses of `i` (any comparison of the coordinate counts).
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { declaredName } from "../source/nodes";
import { boundOf, operator } from "./comparisons";
import type { DeclaredTypes } from "./declaredTypes";

const IDENTS: ReadonlySet<string> = new Set(["identifier"]);

/** A bound of an index through a quotient coordinate: the index is below bound * divisor. */
export interface DerivedBound {
  /** What the coordinate is compared with (`rows` in `r < rows`). */
  bound: Node;
  /** What the index was divided by (`width` in `r = i / width`). */
  divisor: Node;
}

/**
 * The local a use of an index is divided into (`r` for `int r = (i * 4) / width`), with the divisors,
 * or undefined when the use is no quotient declared as a local.
 */
function quotientOf(use: Node, idx: FileIndex): { name: Node; holder: Node; divisors: Node[] } | undefined {
  const divisors: Node[] = [];
  let side: Node = use;
  let p: Node | null = use.parent;
  for (; p; side = p, p = p.parent) {
    if (p.type === "parenthesized_expression" || p.type === "cast_expression") continue;
    if (p.type !== "binary_expression") break;
    const op = operator(p, idx);
    // scaling up (`i * 4`) keeps a bound on the product a bound on `i`
    if (op === "*") continue;
    const right = p.childForFieldName("right");
    if (op !== "/" || !right || p.childForFieldName("left")?.id !== side.id) return undefined;
    divisors.push(right);
  }
  if (divisors.length === 0 || p?.type !== "init_declarator") return undefined;
  if (p.childForFieldName("value")?.id !== side.id) return undefined;
  const name = declaredName(p.childForFieldName("declarator"));
  return name ? { name, holder: p, divisors } : undefined;
}

/** The bounds the index with `uses` gets through its quotient coordinates (see the top). */
export function derivedBounds(
  uses: readonly Node[],
  declared: DeclaredTypes,
  idx: FileIndex,
): DerivedBound[] {
  const out: DerivedBound[] = [];
  for (const use of uses) {
    const q = quotientOf(use, idx);
    if (!q) continue;
    const re = new RegExp(`\\b${idx.textOf(q.name)}\\b`, "g");
    for (const u of idx.tokens(re, IDENTS, q.holder.endIndex, declared.scope.endIndex)) {
      const bound = boundOf(u, idx);
      if (bound) for (const divisor of q.divisors) out.push({ bound, divisor });
    }
  }
  return out;
}
