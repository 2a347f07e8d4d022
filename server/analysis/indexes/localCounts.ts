// Is a 64-bit local count evidence of a large tensor, or only caution? `size_t n = (size_t)B * T * C`
// or `size_t n = x.numel()` can pass 2^31; `size_t count = 1; for (...) count *= dims[d];` over `int`
// dims, or `size_t n = rows * cols`, counts what two (or an unwritten number of) 32-bit dimensions
// count: its type is wider than the file's evidence. The test: every value assigned to the local (its
// initializer, `n = v`, `n *= v`) is made of literals and names declared 32-bit (or arrays of 32-bit
// elements), and they multiply fewer than three such names in all.
//
// Cannot see: values assigned through a pointer or reference, loops' trip counts (a `*=` in a loop is one
// written factor), the host's values of the 32-bit dimensions.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { declaredName, descendants } from "../source/nodes";
import { NARROW_32, WIDE_TYPE, WIDE_VALUE, type DeclaredTypes } from "./declaredTypes";
import { operator } from "./comparisons";

const IDENTS: ReadonlySet<string> = new Set(["identifier"]);
/** `=` and the compound assignments that build a count: `n *= d`, `n += d`. */
const BUILDS = /^[*+]?=$/;

/** The values assigned to the local `name` declared by `decl`: its initializer, then `name = v`, `name *= v`. */
export function assignedValues(name: string, decl: Node, scope: Node, idx: FileIndex): Node[] {
  const out: Node[] = [];
  for (const d of decl.childrenForFieldName("declarator")) {
    if (d?.type !== "init_declarator") continue;
    const value = d.childForFieldName("value");
    const declared = declaredName(d.childForFieldName("declarator"));
    if (value && declared && idx.textOf(declared) === name) out.push(value);
  }
  for (const use of idx.tokens(new RegExp(`\\b${name}\\b`, "g"), IDENTS, decl.endIndex, scope.endIndex)) {
    const p = use.parent;
    if (p?.type !== "assignment_expression" || p.childForFieldName("left")?.id !== use.id) continue;
    const op = p.childForFieldName("operator");
    const right = p.childForFieldName("right");
    if (!op || !right || !BUILDS.test(idx.textOf(op))) return [];
    out.push(right);
  }
  return out;
}

/** The element type of a declared type: `int`, or `Array<int, N>`'s first argument. */
function elementType(type: string): string {
  return /^(?:const\s+)?[\w:]+\s*<\s*([^,<>]+?)\s*[,>]/.exec(type)?.[1] ?? type;
}

/** Is `value` made of literals and 32-bit names (and `self`), with no call, cast or 64-bit text? */
function builtFromNarrow(value: Node, self: string, declared: DeclaredTypes, idx: FileIndex): boolean {
  const text = idx.textOf(value);
  if (WIDE_TYPE.test(text) || WIDE_VALUE.test(text) || /\bsizeof\b/.test(text)) return false;
  if (value.type === "call_expression" || descendants(value, "call_expression").length > 0) return false;
  const names = value.type === "identifier" ? [value] : descendants(value, "identifier");
  return names.every((n) => {
    const name = idx.textOf(n);
    return name === self || NARROW_32.test(elementType(declared.of(name) ?? ""));
  });
}

/** The names (not literals, not `self`) multiplied in `value`: `n * T * C` → 2 for self n, `1` → 0. */
function factors(value: Node, self: string, idx: FileIndex): number {
  let n = value;
  while (n.type === "parenthesized_expression" && n.namedChild(0)) n = n.namedChild(0)!;
  if (n.type === "binary_expression" && operator(n, idx) === "*") {
    const left = n.childForFieldName("left");
    const right = n.childForFieldName("right");
    return (left ? factors(left, self, idx) : 0) + (right ? factors(right, self, idx) : 0);
  }
  if (n.type === "number_literal" || (n.type === "identifier" && idx.textOf(n) === self)) return 0;
  return 1;
}

/**
 * Is `name`, declared 64-bit, a local whose value is built from 32-bit dimensions, fewer than three of
 * them (see the top)? Then it is no evidence of a count past 2^31. A parameter is: the caller chose it.
 */
export function narrowBuiltCount(name: string, declared: DeclaredTypes, idx: FileIndex): boolean {
  const decl = declared.declarationOf(name);
  if (decl?.type !== "declaration") return false;
  const values = assignedValues(name, decl, declared.scope, idx);
  if (values.length === 0 || !values.every((v) => builtFromNarrow(v, name, declared, idx))) return false;
  return values.reduce((sum, v) => sum + factors(v, name, idx), 0) < 3;
}
