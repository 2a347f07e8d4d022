// Where device code computes on BF16 values: arithmetic and comparison operators with an
// __nv_bfloat16/__nv_bfloat162 operand, and the __h* arithmetic and math intrinsics called on one. Below
// sm_80 each of these runs through float in software (cuda_bf16.hpp's fallbacks), so the
// bf16-emulated-arch rule asks for them. Conversions (`__float2bfloat16`, `__bfloat162float`) are not
// arithmetic and are not sites.
//
// Operators come from the 16-bit operator candidates (halfOperators.ts: the parents of the uses of
// FP16/BF16-typed names); intrinsic calls from a text search for their names, confirmed in the tree.
// Cannot see: element types that are template parameters, values typed through `auto` or a function
// whose return type is not a BF16 type, and code that a macro generates.
import type { Node } from "web-tree-sitter";
import type { FileIndex, FunctionInfo } from "../source/fileIndex";
import type { HalfDecls } from "./halfDecls";
import { halfOperators } from "./halfOperators";
import type { HalfKind } from "./halfTypes";

/** A BF16 operation in a device function. */
export interface Bf16Site {
  fn: FunctionInfo;
  /** The operator expression or the intrinsic call. */
  node: Node;
  kind: "bf16" | "bf162";
  /** How it reads in a message: the operator (`*`, `+=`) or the intrinsic's name. */
  what: string;
}

/** The __h* intrinsics that compute (not convert, load or store) on 16-bit values: cuda_bf16.h's names. */
const INTRINSIC =
  /\b(?:__h(?:add|sub|mul|div|fma|neg|abs|max|min|eq|ne|lt|le|gt|ge)(?:2|_rn|_sat|_relu|_nan|2_rn|2_sat|2_relu|2_nan)?|__h2div|__hcmadd|h2?(?:exp|exp2|exp10|log|log2|log10|sqrt|rsqrt|rcp|sin|cos|tanh|floor|ceil|trunc|rint))\s*\(/g;

const ARITHMETIC_OPERATORS: ReadonlySet<string> = new Set([
  "+",
  "-",
  "*",
  "/",
  "<",
  ">",
  "<=",
  ">=",
  "==",
  "!=",
]);
const COMPOUND_OPERATORS: ReadonlySet<string> = new Set(["+=", "-=", "*=", "/="]);

const isBf16 = (k: HalfKind | undefined): k is "bf16" | "bf162" => k === "bf16" || k === "bf162";

/** The operands of an operator node that does arithmetic, and its operator; none for `=` and the like. */
function arithmetic(n: Node): { operands: (Node | null)[]; what: string } | undefined {
  const op = n.childForFieldName("operator")?.text ?? "";
  switch (n.type) {
    case "binary_expression":
      return ARITHMETIC_OPERATORS.has(op)
        ? { operands: [n.childForFieldName("left"), n.childForFieldName("right")], what: op }
        : undefined;
    case "assignment_expression":
      return COMPOUND_OPERATORS.has(op) ? { operands: [n.childForFieldName("left")], what: op } : undefined;
    case "unary_expression":
      return op === "-" ? { operands: [n.childForFieldName("argument")], what: op } : undefined;
    case "update_expression":
      return { operands: [n.childForFieldName("argument")], what: op || "++/--" };
    default:
      return undefined;
  }
}

/** The BF16 operations of the device functions, in document order. */
export function bf16Arithmetic(idx: FileIndex, decls: HalfDecls): Bf16Site[] {
  const sites: Bf16Site[] = [];
  const add = (node: Node, kind: HalfKind | undefined, what: string): void => {
    const fn = idx.deviceFunctionAt(node.startIndex);
    if (fn && isBf16(kind)) sites.push({ fn, node, kind, what });
  };
  for (const n of halfOperators(idx, decls)) {
    const a = arithmetic(n);
    if (!a) continue;
    const scope = decls.scopeAt(n.startIndex);
    const kind = a.operands.map((o) => scope.valueKind(o)).find(isBf16);
    add(n, kind, `\`${a.what}\``);
  }
  for (const m of idx.scan(INTRINSIC)) {
    const name = idx.nodeAt(m.index, m.index + m[0].replace(/\s*\($/, "").length);
    const call = name.parent;
    if (name.type !== "identifier" || call?.type !== "call_expression") continue;
    const first = call.childForFieldName("arguments")?.namedChild(0) ?? null;
    add(call, decls.scopeAt(call.startIndex).valueKind(first), `${name.text}()`);
  }
  return sites.sort((a, b) => a.node.startIndex - b.node.startIndex);
}
