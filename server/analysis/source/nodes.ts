// Small tree helpers shared by the rules: walking, function kinds, spans and edits.
import type { Node } from "web-tree-sitter";
import type { Span, TextEdit } from "../../rules/rule";

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

/**
 * A node's text from the file's text `src` (what Node.text gives, without reading the node's start
 * position across wasm into a new object and slicing twice).
 */
export function textIn(src: string, n: Node): string {
  return src.slice(n.startIndex, n.endIndex);
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

/** The arguments of a call as nodes (empty when unparsable). */
export function callArguments(call: Node): Node[] {
  const args = call.childForFieldName("arguments");
  return args ? namedChildren(args).filter((a) => a.type !== "comment") : [];
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
