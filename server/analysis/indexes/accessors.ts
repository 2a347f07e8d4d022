// What 32-bit tensor accessors (`at::PackedTensorAccessor32`, `pta::PackedTensorAccessor32`,
// `TensorAccessor<T, N, Traits, int32_t>`) tell about an index. Such an accessor is built only for a
// tensor of fewer than 2^31 elements (PyTorch checks it on the host), its sizes are `int32_t` and its
// `operator[]` takes an `int32_t`. So a bound read from its size (`acc.size(0)`, a local set only to
// one) is a 32-bit value, whatever 64-bit type it is cast to in the comparison; and an index that only
// addresses such accessors (and is compared) cannot reach past 2^31: widening it would change nothing.
// A 64-bit accessor (`PackedTensorAccessor64`) has 64-bit sizes: neither holds for it.
//
// Cannot see: an accessor behind an alias, a template parameter or `auto`, or held in a struct member
// (`p.acc`); a size read another way (`sizes()[0]`, `stride(0)`) or through a helper function; a local
// that holds a size and is then passed on.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { unparen } from "../source/nodes";
import { boundOf } from "./comparisons";
import type { DeclaredTypes } from "./declaredTypes";
import { assignedValues } from "./localCounts";

/** A 32-bit tensor accessor's type as written. */
const ACCESSOR_32 =
  /\b(?:\w*TensorAccessor32\b|(?:Generic)?(?:Packed)?TensorAccessor\s*<.*,\s*(?:int32_t|int)\s*>)/;

/** The expression under casts and parentheses: `static_cast<uint64_t>(n)`, `(int64_t)(n)` → `n`. */
function uncast(node: Node, idx: FileIndex): Node {
  let n = unparen(node);
  for (;;) {
    if (n.type === "cast_expression") {
      const value = n.childForFieldName("value");
      if (!value) return n;
      n = unparen(value);
      continue;
    }
    const f = n.type === "call_expression" ? n.childForFieldName("function") : null;
    const args = n.childForFieldName("arguments")?.namedChildren.filter((a) => a?.type !== "comment");
    if (f?.type !== "template_function" || !/_cast$/.test(idx.textOf(f.childForFieldName("name") ?? f)))
      return n;
    if (args?.length !== 1 || !args[0]) return n;
    n = unparen(args[0]);
  }
}

/** Is `object` (`acc`, `acc[r]`) a 32-bit accessor, or an element of one, declared in the scope? */
function isAccessor32(object: Node, declared: DeclaredTypes, idx: FileIndex): boolean {
  let n = unparen(object);
  while (n.type === "subscript_expression") {
    const inner = n.childForFieldName("argument");
    if (!inner) return false;
    n = unparen(inner);
  }
  return n.type === "identifier" && ACCESSOR_32.test(declared.of(idx.textOf(n)) ?? "");
}

/** Is `n` a 32-bit accessor's `size(d)` call? */
function sizeCall(n: Node, declared: DeclaredTypes, idx: FileIndex): boolean {
  const f = n.type === "call_expression" ? n.childForFieldName("function") : null;
  if (f?.type !== "field_expression") return false;
  const field = f.childForFieldName("field");
  const object = f.childForFieldName("argument");
  return !!field && !!object && idx.textOf(field) === "size" && isAccessor32(object, declared, idx);
}

/**
 * Is `bound`, under its casts, a 32-bit accessor's size: `acc.size(0)`, or a local every value assigned
 * to which is one (`const auto n = acc.size(0)`)?
 */
export function accessor32Size(bound: Node, declared: DeclaredTypes, idx: FileIndex): boolean {
  const n = uncast(bound, idx);
  if (sizeCall(n, declared, idx)) return true;
  if (n.type !== "identifier") return false;
  const name = idx.textOf(n);
  const decl = declared.declarationOf(name);
  if (decl?.type !== "declaration") return false;
  const values = assignedValues(name, decl, declared.scope, idx);
  return values.length > 0 && values.every((v) => sizeCall(uncast(v, idx), declared, idx));
}

/** The object of the subscript whose index holds `use` through arithmetic only (`acc` in `acc[o + i]`). */
function subscriptedBy(use: Node): Node | undefined {
  let side: Node = use;
  for (let p = use.parent; p; side = p, p = p.parent) {
    const t = p.type;
    if (t === "subscript_argument_list") return p.parent?.childForFieldName("argument") ?? undefined;
    if (t === "subscript_expression") {
      const object = p.childForFieldName("argument");
      return object?.id === side.id ? undefined : (object ?? undefined);
    }
    if (t !== "binary_expression" && t !== "parenthesized_expression" && t !== "cast_expression")
      return undefined;
  }
  return undefined;
}

/**
 * Does the index with `uses` only address 32-bit accessors (one at least) and otherwise only get
 * compared? Any other use (a raw pointer, a call's argument, an assignment) keeps it in question.
 */
export function addressesOnly32BitAccessors(
  uses: readonly Node[],
  declared: DeclaredTypes,
  idx: FileIndex,
): boolean {
  let addressed = false;
  for (const use of uses) {
    const object = subscriptedBy(use);
    if (object && isAccessor32(object, declared, idx)) addressed = true;
    else if (object || !boundOf(use, idx)) return false;
  }
  return addressed;
}
