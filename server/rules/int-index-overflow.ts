// blockIdx.x * blockDim.x is computed in 32 bits: past 2^31 elements (a 8192 x 262144 activation, a long
// video sequence) the index wraps and the kernel reads or writes the wrong memory.
import type { Node } from "web-tree-sitter";
import type { Fix, Rule } from "./rule";
import {
  builtinVector,
  declaredName,
  descendants,
  enclosingFunction,
  namedChildren,
  replaceNode,
  unparen,
} from "./util/nodes";

const NARROW_TYPES: ReadonlySet<string> = new Set([
  "int",
  "unsigned",
  "unsigned int",
  "int32_t",
  "uint32_t",
  "auto",
]);

/** A `blockIdx.* * blockDim.*` product (either order) whose operands are not widened first. */
function narrowProduct(n: Node): Node | undefined {
  for (const b of [n, ...descendants(n, "binary_expression")]) {
    if (b.type !== "binary_expression" || b.childForFieldName("operator")?.text !== "*") continue;
    const l = b.childForFieldName("left");
    const r = b.childForFieldName("right");
    if (!l || !r) continue;
    const names = [builtinVector(l), builtinVector(r)];
    if (names.includes("blockIdx") && names.includes("blockDim")) return b;
  }
  return undefined;
}

function isIndexUse(id: Node): boolean {
  for (let p: Node | null = id.parent; p; p = p.parent) {
    if (p.type === "subscript_argument_list" || p.type === "subscript_expression") {
      // used inside the [...] of a subscript, not as the array itself
      if (p.type === "subscript_expression" && p.childForFieldName("argument")?.id === id.id) return false;
      return true;
    }
    if (p.type === "binary_expression" && p.childForFieldName("operator")?.text === "+") {
      // pointer + idx
      continue;
    }
    if (
      [
        "expression_statement",
        "declaration",
        "condition_clause",
        "compound_statement",
        "argument_list",
      ].includes(p.type)
    )
      return false;
  }
  return false;
}

export const intIndexOverflow: Rule = {
  id: "int-index-overflow",
  defaultSeverity: "information",
  summary: "A flat index computed in 32-bit int from blockIdx * blockDim is used to address memory.",
  check(ctx) {
    const root = ctx.tree.rootNode;
    const seen = new Set<number>();
    // 1. int idx = blockIdx.x * blockDim.x + threadIdx.x;  ...  p[idx]
    for (const decl of descendants(root, "declaration")) {
      const type = decl.childForFieldName("type");
      if (!type || !NARROW_TYPES.has(type.text)) continue;
      for (const d of namedChildren(decl)) {
        if (d.type !== "init_declarator") continue;
        const name = declaredName(d.childForFieldName("declarator"));
        const value = d.childForFieldName("value");
        const product = value ? narrowProduct(value) : undefined;
        if (!name || !product) continue;
        const fn = enclosingFunction(decl);
        const scope = fn?.childForFieldName("body") ?? decl.parent ?? root;
        const used = descendants(scope, "identifier").some(
          (u) => u.text === name.text && u.startIndex > d.endIndex && isIndexUse(u),
        );
        if (!used) continue;
        seen.add(product.id);
        const left = product.childForFieldName("left")!;
        const fixes: Fix[] =
          type.text === "auto" ||
          type.text === "int" ||
          type.text === "unsigned" ||
          type.text === "unsigned int"
            ? [
                {
                  title: "Compute the index in 64 bits (int64_t)",
                  isPreferred: true,
                  edits: [
                    replaceNode(type, "int64_t"),
                    replaceNode(left, `static_cast<int64_t>(${left.text})`),
                  ],
                },
              ]
            : [];
        ctx.report({
          node: d,
          message: `\`${name.text}\` is computed in 32 bits (${product.text}) and used as an index: it wraps past 2^31 elements. Widen before multiplying: \`int64_t ${name.text} = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x\`.`,
          fixes,
        });
      }
    }
    // 2. p[blockIdx.x * blockDim.x + threadIdx.x] directly
    for (const sub of descendants(root, "subscript_expression")) {
      const idx = sub.childForFieldName("indices") ?? sub.childForFieldName("index");
      if (!idx) continue;
      const product = narrowProduct(idx);
      if (!product || seen.has(product.id)) continue;
      if (unparen(product).parent?.type === "cast_expression") continue;
      seen.add(product.id);
      const left = product.childForFieldName("left")!;
      ctx.report({
        node: product,
        message: `The index ${product.text} is computed in 32 bits and wraps past 2^31 elements; widen one operand first: static_cast<int64_t>(${left.text}).`,
        fixes: [
          {
            title: "Widen to int64_t before multiplying",
            isPreferred: true,
            edits: [replaceNode(left, `static_cast<int64_t>(${left.text})`)],
          },
        ],
      });
    }
  },
};
