// Small tree helpers shared by the rules: walking, function kinds, spans and edits.
import type { Node } from "web-tree-sitter";
import type { Span, TextEdit } from "../rule";

export function spanOf(node: Node): Span {
  return {
    startLine: node.startPosition.row,
    startColumn: node.startPosition.column,
    endLine: node.endPosition.row,
    endColumn: node.endPosition.column,
  };
}

export function replaceNode(node: Node, newText: string): TextEdit {
  return { span: spanOf(node), newText };
}

export function insertBefore(node: Node, newText: string): TextEdit {
  const p = node.startPosition;
  return { span: { startLine: p.row, startColumn: p.column, endLine: p.row, endColumn: p.column }, newText };
}

export function insertAfter(node: Node, newText: string): TextEdit {
  const p = node.endPosition;
  return { span: { startLine: p.row, startColumn: p.column, endLine: p.row, endColumn: p.column }, newText };
}

/** All descendants of the given types, in document order (tree-sitter's own walk, fast). */
export function descendants(root: Node, ...types: string[]): Node[] {
  return root.descendantsOfType(types).filter((n): n is Node => n !== null);
}

export function namedChildren(node: Node): Node[] {
  return node.namedChildren.filter((n): n is Node => n !== null);
}

export function children(node: Node): Node[] {
  return node.children.filter((n): n is Node => n !== null);
}

/** Ancestors from the parent outwards, stopping before `stop` (exclusive) when given. */
export function* ancestors(node: Node, stop?: Node): Generator<Node> {
  for (let p = node.parent; p && (!stop || p.id !== stop.id); p = p.parent) yield p;
}

export function enclosingFunction(node: Node): Node | undefined {
  for (const a of ancestors(node)) {
    if (a.type === "function_definition" || a.type === "lambda_expression") return a;
  }
  return undefined;
}

export type FunctionSpace = "global" | "device" | "host";

/** Where a function runs, from its CUDA execution-space qualifiers (`__host__ __device__` counts as device). */
export function functionSpace(fn: Node): FunctionSpace {
  let space: FunctionSpace = "host";
  for (const c of children(fn)) {
    if (c.type === "__global__") return "global";
    if (c.type === "__device__") space = "device";
    if (c.type === "body" || c.type === "compound_statement") break;
  }
  return space;
}

export function isDeviceCode(fn: Node): boolean {
  return functionSpace(fn) !== "host";
}

/** The function's declared name (without template arguments or scope). */
export function functionName(fn: Node): string | undefined {
  let d = fn.childForFieldName("declarator");
  while (d && d.type !== "function_declarator") d = d.childForFieldName("declarator");
  const name = d?.childForFieldName("declarator");
  return name?.text;
}

/** The identifier a declarator declares, through pointers, arrays, references and initialisers. */
export function declaredName(declarator: Node | null): Node | undefined {
  let d = declarator;
  for (let i = 0; d && i < 16; i++) {
    if (d.type === "identifier" || d.type === "field_identifier") return d;
    const inner = d.childForFieldName("declarator");
    if (inner) {
      d = inner;
      continue;
    }
    // reference_declarator has no field name for its inner declarator
    d = namedChildren(d).find((c) => c.type.endsWith("declarator") || c.type === "identifier") ?? null;
  }
  return undefined;
}

/** The called function's plain name: `f(...)`, `f<T>(...)`, `ns::f(...)`; undefined for member calls. */
export function calleeName(call: Node): string | undefined {
  let f = call.childForFieldName("function");
  if (f?.type === "template_function") f = f.childForFieldName("name");
  if (f?.type === "qualified_identifier") f = f.childForFieldName("name");
  return f?.type === "identifier" ? f.text : undefined;
}

/** The arguments of a call as nodes (empty when unparsable). */
export function callArguments(call: Node): Node[] {
  const args = call.childForFieldName("arguments");
  return args ? namedChildren(args).filter((a) => a.type !== "comment") : [];
}

/** The <<<grid, block, smem, stream>>> configuration of a kernel launch, or undefined for other calls. */
export function launchConfig(call: Node): Node[] | undefined {
  const k = namedChildren(call).find((c) => c.type === "kernel_call_syntax");
  return k ? namedChildren(k).filter((a) => a.type !== "comment") : undefined;
}

/** Does `node` contain an identifier named one of `names` (a cheap text pre-check first)? */
export function mentions(node: Node, names: ReadonlySet<string>): boolean {
  for (const id of descendants(node, "identifier")) if (names.has(id.text)) return true;
  return false;
}

/** Strips parentheses around an expression. */
export function unparen(node: Node): Node {
  let n = node;
  while (n.type === "parenthesized_expression" && n.namedChildCount === 1) n = n.namedChild(0)!;
  return n;
}

/** Reads `threadIdx.x` etc. as the built-in's name ("threadIdx"), else undefined. */
export function builtinVector(node: Node): string | undefined {
  const n = unparen(node);
  if (n.type !== "field_expression") return undefined;
  const arg = n.childForFieldName("argument");
  return arg?.type === "identifier" ? arg.text : undefined;
}
