// Kernels (`__global__`) and device functions (`__device__`) of a file, for the outline and Go to Symbol.
import type { Node, Tree } from "web-tree-sitter";
import type { Span } from "../rules/rule";
import { spanOf } from "../analysis/source/nodes";

export interface CudaSymbol {
  name: string;
  kind: "kernel" | "device-function";
  /** e.g. "__global__ __launch_bounds__(256)", "__host__ __device__". */
  detail: string;
  /** The whole definition or declaration. */
  span: Span;
  /** The name only. */
  nameSpan: Span;
}

const QUALIFIERS = new Set(["__global__", "__device__", "__host__"]);

/** The function name inside a declarator, through pointers, references and templates. */
function functionName(declarator: Node | null): Node | undefined {
  for (let d = declarator; d;) {
    if (d.type === "function_declarator") {
      const inner = d.childForFieldName("declarator");
      if (!inner) return undefined;
      if (inner.type === "template_function") return inner.childForFieldName("name") ?? inner;
      return inner;
    }
    d = d.childForFieldName("declarator");
  }
  return undefined;
}

export function cudaSymbols(tree: Tree): CudaSymbol[] {
  const out: CudaSymbol[] = [];
  const visit = (node: Node): void => {
    if (node.type === "function_definition" || node.type === "declaration") {
      const quals = node.children
        .filter((c): c is Node => c !== null && QUALIFIERS.has(c.type))
        .map((c) => c.type);
      const name = quals.length > 0 ? functionName(node.childForFieldName("declarator")) : undefined;
      if (name) {
        const bounds = node.children.find((c) => c?.type === "launch_bounds");
        const detail = [...quals, ...(bounds ? [bounds.text.replace(/\s+/g, " ")] : [])].join(" ");
        out.push({
          name: name.text,
          kind: quals.includes("__global__") ? "kernel" : "device-function",
          detail: node.type === "declaration" ? `${detail} (declaration)` : detail,
          span: spanOf(node.parent?.type === "template_declaration" ? node.parent : node),
          nameSpan: spanOf(name),
        });
        return;
      }
    }
    // Function bodies hold no further definitions worth listing; skip them for speed.
    if (node.type === "compound_statement") return;
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(tree.rootNode);
  return out;
}
