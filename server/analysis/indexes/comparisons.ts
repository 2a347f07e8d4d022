// The comparisons and operators of index expressions: what a name is compared with (`i < n`,
// `2 * i >= a * b`). Cannot see: a bound through a function call or a branch elsewhere (`min(i, n)`).
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";

const COMPARISONS: ReadonlySet<string> = new Set(["<", "<=", ">", ">=", "!=", "=="]);
const ARITHMETIC: ReadonlySet<string> = new Set(["+", "-", "*", "/", "<<", ">>"]);

/** A binary expression's operator (`+`, `<`…), "" when it has none. */
export function operator(n: Node, idx: FileIndex): string {
  const op = n.childForFieldName("operator");
  return op ? idx.textOf(op) : "";
}

/** What `id` is compared with (`i < n`, `2 * i >= a * b`): the other side, or undefined. */
export function boundOf(id: Node, idx: FileIndex): Node | undefined {
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
