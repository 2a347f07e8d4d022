// blockIdx.x * blockDim.x is computed in 32 bits: past 2^31 elements (a 8192 x 262144 activation, a long
// video sequence) the index wraps and the kernel reads or writes the wrong memory. Whether an index can
// get there is the index-range analysis' answer (analysis/indexes/indexRange.ts).
import type { Node } from "web-tree-sitter";
import type { Fix, Rule } from "./rule";
import { FileIndex } from "../analysis/source/fileIndex";
import { builtinVector, declaredName, replaceNode } from "../analysis/source/nodes";
import {
  DeclaredTypes,
  oneBlockKernel,
  operator,
  overflowReason,
  yzAxis,
  type OverflowReason,
} from "../analysis/indexes/indexRange";

const NARROW_TYPES: ReadonlySet<string> = new Set([
  "int",
  "unsigned",
  "unsigned int",
  "int32_t",
  "uint32_t",
  "auto",
]);

const WHY: Record<OverflowReason, string> = {
  "wide-bound": "it wraps past 2^31 elements before reaching its 64-bit bound",
  "unsigned-product":
    "it is a signed int bounded by an unsigned 32-bit product, which can lie between 2^31 and 2^32: it passes INT_MAX and goes negative before reaching it",
  unbounded: "it wraps past 2^31 elements",
};

export const intIndexOverflow: Rule = {
  id: "int-index-overflow",
  defaultSeverity: "information",
  basis: "needs-context",
  shippedCodeOnly: true,
  summary: "A flat index computed in 32-bit int from blockIdx * blockDim is used to address memory.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const IDENTS = new Set(["identifier"]);
    const declaredIn = new Map<number, DeclaredTypes>();
    const PRODUCT =
      /\b(blockIdx\s*\.\s*[xyz]\s*\*\s*blockDim\s*\.\s*[xyz]|blockDim\s*\.\s*[xyz]\s*\*\s*blockIdx\s*\.\s*[xyz])\b/g;
    for (const m of idx.scan(PRODUCT)) {
      const product = idx.nodeAt(m.index, m.index + m[0].length);
      if (product.type !== "binary_expression" || operator(product, idx) !== "*") continue;
      const left = product.childForFieldName("left");
      const right = product.childForFieldName("right");
      // `(int64_t)blockIdx.x * blockDim.x` is a larger node with a cast operand: already widened.
      if (!left || !right || !builtinVector(left) || !builtinVector(right)) continue;
      if (left.type !== "field_expression" || right.type !== "field_expression") continue;
      // blockIdx.y/z < 65,535: times a block dimension (<= 1,024) it stays below 2^31
      const block = idx.textOf(left).startsWith("blockIdx") ? left : right;
      if (yzAxis(block, idx)) continue;
      // a kernel launched as one block has blockIdx 0 (asked last: it reads the file's launches)
      const oneBlock = (): boolean => oneBlockKernel(block, idx);

      // Walk up through the arithmetic to what uses the value: a declaration or a subscript.
      let top: Node = product;
      while (
        top.parent &&
        (top.parent.type === "binary_expression" || top.parent.type === "parenthesized_expression")
      )
        top = top.parent;
      const holder = top.parent;
      if (holder?.type === "subscript_argument_list" || holder?.type === "subscript_expression") {
        if (oneBlock()) continue;
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
      const typeText = type ? idx.textOf(type) : "";
      if (!decl || !type || !name || !NARROW_TYPES.has(typeText)) continue;
      const fn = idx.enclosingFunction(decl);
      if (!fn) idx.readsWholeFile();
      const end = fn?.endIndex ?? idx.text.length;
      // A `for` header's condition comes after the declaration: the uses start there.
      const nameText = idx.textOf(name);
      const uses = idx.tokens(new RegExp(`\\b${nameText}\\b`, "g"), IDENTS, holder.endIndex, end);
      const scope = fn ?? idx.tree.rootNode;
      let declared = declaredIn.get(scope.id);
      if (!declared) declaredIn.set(scope.id, (declared = new DeclaredTypes(scope, idx)));
      const signed = typeText === "int" || typeText === "int32_t";
      const why = overflowReason(uses, signed, declared, idx);
      if (!why || oneBlock()) continue;
      const fixes: Fix[] =
        typeText === "auto" || typeText === "int" || typeText === "unsigned" || typeText === "unsigned int"
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
      // the value as written, with the block index widened (its own axis, its own terms)
      const widened =
        idx.text.slice(top.startIndex, left.startIndex) +
        `static_cast<int64_t>(${idx.textOf(left)})` +
        idx.text.slice(left.endIndex, top.endIndex);
      ctx.report({
        node: holder,
        message: `\`${nameText}\` is computed in 32 bits (${product.text}) and used as an index: ${WHY[why]}. Widen before multiplying: \`int64_t ${nameText} = ${widened.replace(/\s+/g, " ")}\`.`,
        fixes,
      });
    }
  },
};
