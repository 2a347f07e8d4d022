// Is a kernel's 64-bit parameter a 32-bit value wherever the file launches the kernel? A `size_t n` that
// every launch passes `rows * cols` (int rows, cols) holds an int: below 2^31, so an `int` index stops
// at it before it wraps. (A larger product overflows in the caller, before the kernel runs: widening the
// kernel's index would fix nothing there.) A 32-bit value here is arithmetic (`+ - * / %`) on names the
// launching function declares 32-bit and on plain literals: signed `int` ones for a signed index (an
// unsigned 32-bit product may lie in [2^31, 2^32)); a cast, a call, `sizeof`, a member, a 64-bit name or
// literal makes it unknown, and so does any use of the kernel's name other than a declaration or a launch
// (launches/launchSites.ts).
// Cannot see: launches from other files (a kernel the file does not launch keeps its 64-bit bound),
// types behind aliases, templates or `auto`, the return type of a call (`div_up(n, 128)`).
import type { Node } from "web-tree-sitter";
import { definedName } from "../callgraph/callGraph";
import { launchSites } from "../launches/launchSites";
import type { FileIndex } from "../source/fileIndex";
import { operator } from "./comparisons";
import { DeclaredTypes, NARROW_32, WIDE_TYPE, WIDE_VALUE } from "./declaredTypes";

/** Signed 32-bit integer types as written. */
const SIGNED_32 = /^(?:const\s+)?(?:signed|int|signed\s+int|int32_t|i32)$/;
/** The operators that keep a value in its operands' 32-bit type. */
const ARITHMETIC: ReadonlySet<string> = new Set(["+", "-", "*", "/", "%"]);

/** The parameter position of `decl` in its function's parameter list, or -1. */
function position(decl: Node): number {
  const list = decl.parent;
  if (list?.type !== "parameter_list") return -1;
  return list.namedChildren
    .filter((p) => p?.type === "parameter_declaration")
    .findIndex((p) => p?.id === decl.id);
}

/** Is `value` computed in 32 bits from 32-bit names (`signed`: signed ones) and plain literals? */
function narrowValue(value: Node, declared: DeclaredTypes, signed: boolean, idx: FileIndex): boolean {
  const t = value.type;
  if (t === "parenthesized_expression") {
    const inner = value.namedChild(0);
    return !!inner && narrowValue(inner, declared, signed, idx);
  }
  if (t === "number_literal")
    return /^\d+$/.test(idx.textOf(value)) || (!signed && /^\d+[uU]$/.test(idx.textOf(value)));
  if (t === "identifier") {
    const type = declared.of(idx.textOf(value)) ?? "";
    return !WIDE_TYPE.test(type) && (signed ? SIGNED_32 : NARROW_32).test(type);
  }
  if (t !== "binary_expression" || !ARITHMETIC.has(operator(value, idx))) return false;
  const left = value.childForFieldName("left");
  const right = value.childForFieldName("right");
  return (
    !!left && !!right && narrowValue(left, declared, signed, idx) && narrowValue(right, declared, signed, idx)
  );
}

/**
 * Is `name`, a 64-bit parameter of the kernel whose names `declared` holds, a 32-bit value at every
 * launch of the kernel in the file, with one launch at least (see the top)? `signed`: the index is signed.
 */
export function narrowAtLaunches(
  name: string,
  declared: DeclaredTypes,
  signed: boolean,
  idx: FileIndex,
): boolean {
  const decl = declared.declarationOf(name);
  const fn = declared.scope;
  if (decl?.type !== "parameter_declaration" || fn.type !== "function_definition") return false;
  const body = fn.childForFieldName("body");
  if (!body || !idx.text.slice(fn.startIndex, body.startIndex).includes("__global__")) return false;
  const at = position(decl);
  const kernel = definedName(idx, fn);
  const sites = kernel === undefined || at < 0 ? undefined : launchSites(idx, kernel);
  if (!sites || sites.length === 0) return false;
  return sites.every(({ call }) => {
    const args = call.childForFieldName("arguments")?.namedChildren.filter((a) => a?.type !== "comment");
    const arg = args?.[at];
    const launcher = idx.enclosingFunction(call);
    if (!arg || !launcher) return false;
    const text = idx.textOf(arg);
    if (WIDE_TYPE.test(text) || WIDE_VALUE.test(text) || /\bsizeof\b/.test(text)) return false;
    return narrowValue(arg, new DeclaredTypes(launcher, idx), signed, idx);
  });
}
