// blockIdx.x * blockDim.x is computed in 32 bits: past 2^31 elements (a 8192 x 262144 activation, a long
// video sequence) the index wraps and the kernel reads or writes the wrong memory.
import type { Node } from "web-tree-sitter";
import type { Fix, Rule } from "./rule";
import { enclosingFunctionOf, FileIndex } from "./util/fileIndex";
import { builtinVector, declaredName, replaceNode } from "./util/nodes";

const NARROW_TYPES: ReadonlySet<string> = new Set([
  "int",
  "unsigned",
  "unsigned int",
  "int32_t",
  "uint32_t",
  "auto",
]);

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
    const idx = FileIndex.of(ctx);
    const IDENTS = new Set(["identifier"]);
    const PRODUCT =
      /\b(blockIdx\s*\.\s*[xyz]\s*\*\s*blockDim\s*\.\s*[xyz]|blockDim\s*\.\s*[xyz]\s*\*\s*blockIdx\s*\.\s*[xyz])\b/g;
    for (const m of idx.scan(PRODUCT)) {
      const product = idx.nodeAt(m.index, m.index + m[0].length);
      if (product.type !== "binary_expression" || product.childForFieldName("operator")?.text !== "*")
        continue;
      const left = product.childForFieldName("left");
      const right = product.childForFieldName("right");
      // `(int64_t)blockIdx.x * blockDim.x` is a larger node with a cast operand: already widened.
      if (!left || !right || !builtinVector(left) || !builtinVector(right)) continue;
      if (left.type !== "field_expression" || right.type !== "field_expression") continue;

      // Walk up through the arithmetic to what uses the value: a declaration or a subscript.
      let top: Node = product;
      while (
        top.parent &&
        (top.parent.type === "binary_expression" || top.parent.type === "parenthesized_expression")
      )
        top = top.parent;
      const holder = top.parent;
      if (holder?.type === "subscript_argument_list" || holder?.type === "subscript_expression") {
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
        continue;
      }
      if (holder?.type !== "init_declarator" || holder.childForFieldName("value")?.id !== top.id) continue;
      const decl = holder.parent;
      const type = decl?.childForFieldName("type");
      const name = declaredName(holder.childForFieldName("declarator"));
      if (!decl || !type || !name || !NARROW_TYPES.has(type.text)) continue;
      const fn = enclosingFunctionOf(decl);
      if (!fn) idx.readsWholeFile();
      const end = fn?.endIndex ?? idx.text.length;
      const used = idx
        .tokens(new RegExp(`\\b${name.text}\\b`, "g"), IDENTS, holder.endIndex, end)
        .some(isIndexUse);
      if (!used) continue;
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
        node: holder,
        message: `\`${name.text}\` is computed in 32 bits (${product.text}) and used as an index: it wraps past 2^31 elements. Widen before multiplying: \`int64_t ${name.text} = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x\`.`,
        fixes,
      });
    }
  },
};
