// Where device code computes on BF16 values: arithmetic and comparison operators with an
// __nv_bfloat16/__nv_bfloat162 operand, and the __h* arithmetic and math intrinsics called on one. Below
// sm_80 each of these runs through float in software (cuda_bf16.hpp's fallbacks), so the
// bf16-emulated-arch rule asks for them. Conversions (`__float2bfloat16`, `__bfloat162float`) are not
// arithmetic and are not sites.
//
// The shapes are a tree-sitter query, run only over the device functions in which some name has a BF16
// type; operand types come from the file's FP16/BF16 declarations (halfDecls.ts).
// Cannot see: element types that are template parameters, values typed through `auto` or a function
// whose return type is not a BF16 type, and code that a macro generates.
import { Query, type Node } from "web-tree-sitter";
import type { FileIndex, FunctionInfo } from "../source/fileIndex";
import type { HalfDecls } from "./halfDecls";
import type { HalfKind, HalfScope } from "./halfTypes";

/** A BF16 operation in a device function. */
export interface Bf16Site {
  fn: FunctionInfo;
  /** The operator expression or the intrinsic call. */
  node: Node;
  kind: Extract<HalfKind, "bf16" | "bf162">;
  /** How it reads in a message: the operator (`*`, `+=`) or the intrinsic's name. */
  what: string;
}

/** The __h* intrinsics that compute (not convert, load or store) on 16-bit values, cuda_bf16.h's names. */
const INTRINSICS =
  "^(__h(add|sub|mul|div|fma|neg|abs|max|min|eq|ne|lt|le|gt|ge)(2|_rn|_sat|_relu|_nan|2_rn|2_sat|2_relu|2_nan)?|__h2div|__hcmadd|h2?(exp|exp2|exp10|log|log2|log10|sqrt|rsqrt|rcp|sin|cos|tanh|floor|ceil|trunc|rint))$";

// Separate patterns, not one alternation: a predicate inside an alternation holds for all its branches.
const SOURCE = `
(binary_expression operator: ["+" "-" "*" "/" "<" ">" "<=" ">=" "==" "!="]) @op
(assignment_expression operator: ["+=" "-=" "*=" "/="]) @op
(unary_expression operator: "-") @op
(update_expression) @op
((call_expression function: (identifier) @fn) @call (#match? @fn "${INTRINSICS}"))
`;

const queries = new WeakMap<object, Query>();

function query(node: Node): Query {
  const language = node.tree.language;
  let q = queries.get(language);
  if (!q) queries.set(language, (q = new Query(language, SOURCE)));
  return q;
}

const isBf16 = (k: HalfKind | undefined): k is "bf16" | "bf162" => k === "bf16" || k === "bf162";

/** The BF16 kind an operator or call works on, and how to name it; undefined when it is not BF16 work. */
function bf16Work(n: Node, scope: HalfScope): { kind: "bf16" | "bf162"; what: string } | undefined {
  if (n.type === "call_expression") {
    const first = n.childForFieldName("arguments")?.namedChild(0) ?? null;
    const kind = scope.valueKind(first);
    return isBf16(kind) ? { kind, what: `${n.childForFieldName("function")!.text}()` } : undefined;
  }
  const what = n.childForFieldName("operator")?.text ?? (n.type === "update_expression" ? "++/--" : "");
  const operands =
    n.type === "binary_expression" || n.type === "assignment_expression"
      ? [n.childForFieldName("left"), n.childForFieldName("right")]
      : [n.childForFieldName("argument")];
  for (const o of operands) {
    const kind = scope.valueKind(o);
    if (isBf16(kind)) return { kind, what: `\`${what}\`` };
  }
  return undefined;
}

/** Does any name visible in `scope` (the function's own or the file's) have a BF16 type? */
function namesBf16(scope: HalfScope): boolean {
  return scope.halfNames().some((name) => isBf16(scope.lookup(name)?.kind));
}

/** The BF16 operations of each device function, in document order. */
export function bf16Arithmetic(idx: FileIndex, decls: HalfDecls): Bf16Site[] {
  const sites: Bf16Site[] = [];
  for (const fn of idx.deviceFunctions()) {
    const scope = decls.scopeAt(fn.start);
    if (!namesBf16(scope) && !namesBf16(decls.file)) continue;
    // Captures under the body node only (the query's index range options count bytes, not characters).
    for (const { name, node } of query(idx.root).captures(fn.body)) {
      if (name === "fn") continue;
      const work = bf16Work(node, scope);
      if (work) sites.push({ fn, node, ...work });
    }
  }
  return sites;
}
