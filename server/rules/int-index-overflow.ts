// blockIdx.x * blockDim.x is computed in 32 bits: past 2^31 elements (a 8192 x 262144 activation, a long
// video sequence) the index wraps and the kernel reads or writes the wrong memory.
import type { Node } from "web-tree-sitter";
import type { Fix, Rule } from "./rule";
import { isWordCode } from "../analysis/source/charCodes";
import { FileIndex } from "../analysis/source/fileIndex";
import { builtinVector, declaredName, descendants, replaceNode } from "../analysis/source/nodes";

const NARROW_TYPES: ReadonlySet<string> = new Set([
  "int",
  "unsigned",
  "unsigned int",
  "int32_t",
  "uint32_t",
  "auto",
]);

/** Arithmetic that keeps a value an element offset: `base + i`, `i - 1`, `(i)`, a cast. */
const OFFSET_OPS: ReadonlySet<string> = new Set(["+", "-"]);

/** `id` reaches a subscript (or `ptr + id`) through additions only: it is a flat element index there. */
function isFlatIndexUse(id: Node, idx: FileIndex): boolean {
  for (let p: Node | null = id.parent; p; p = p.parent) {
    if (p.type === "subscript_argument_list") return true;
    if (p.type === "subscript_expression") return p.childForFieldName("argument")?.id !== id.id;
    if (p.type === "parenthesized_expression" || p.type === "cast_expression") continue;
    // `row * ncols + col` scales a row index: the wrap, if any, is in that product, not in `row`.
    if (p.type === "binary_expression" && OFFSET_OPS.has(operator(p, idx))) continue;
    return false;
  }
  return false;
}

const COMPARISONS: ReadonlySet<string> = new Set(["<", "<=", ">", ">=", "!=", "=="]);
const ARITHMETIC: ReadonlySet<string> = new Set(["+", "-", "*", "/", "<<", ">>"]);

/** A binary expression's operator (`+`, `<`…), "" when it has none. */
function operator(n: Node, idx: FileIndex): string {
  const op = n.childForFieldName("operator");
  return op ? idx.textOf(op) : "";
}

/** What `id` is compared with (`i < n`, `2 * i >= a * b`): the other side, or undefined. */
function boundOf(id: Node, idx: FileIndex): Node | undefined {
  let side: Node = id;
  for (let p: Node | null = id.parent; p; side = p, p = p.parent) {
    if (p.type === "parenthesized_expression") continue;
    if (p.type !== "binary_expression") return undefined;
    const op = operator(p, idx);
    if (ARITHMETIC.has(op)) continue;
    if (!COMPARISONS.has(op)) return undefined;
    const left = p.childForFieldName("left");
    return left?.id === side.id ? (p.childForFieldName("right") ?? undefined) : (left ?? undefined);
  }
  return undefined;
}

/** 64-bit integer types as written (a cast, a declaration): a bound of such a type passes 2^32. */
const WIDE_TYPE = /\b(size_t|ssize_t|ptrdiff_t|u?int64_t|u?intptr_t|int64|uint64|long|__int64|u64|i64)\b/;
/** `numel()` / `.size()` return 64-bit counts; `100000000000LL` is a 64-bit literal. */
const WIDE_VALUE = /\b(numel|size)\s*\(|\b\d+[uU]?[lL]{1,2}\b/;

/** Where an upward walk from a name stops: no declarator holds one of these around its declared name. */
const NOT_DECLARATOR =
  /_statement$|_expression$|argument_list$|^(?:function_definition|translation_unit|initializer_list|condition_clause)$/;

/**
 * The types written where names are declared in one scope (parameters and locals). A name's is that of
 * the first declaration of the scope that declares it, found from the places its text is (the first
 * whose node is in a declaration declaring it): a search of the scope for every declaration costs more
 * than the scope's few bound names need.
 */
class DeclaredTypes {
  /** Each name's type at its first declaration (undefined: none, or that declaration has no type). */
  private readonly types = new Map<string, string | undefined>();

  constructor(
    private readonly scope: Node,
    private readonly idx: FileIndex,
  ) {}

  /** The type written where `name` is first declared in the scope, if it is there. */
  of(name: string): string | undefined {
    if (!this.types.has(name)) this.types.set(name, this.find(name));
    return this.types.get(name);
  }

  private find(name: string): string | undefined {
    const { scope, idx } = this;
    const { text } = idx;
    const end = scope.endIndex - name.length;
    for (
      let at = text.indexOf(name, scope.startIndex);
      at >= 0 && at <= end;
      at = text.indexOf(name, at + 1)
    ) {
      const to = at + name.length;
      if (isWordCode(text.charCodeAt(at - 1)) || isWordCode(text.charCodeAt(to))) continue;
      const n = scope.descendantForIndex(at, to);
      if (n?.startIndex !== at || n.endIndex !== to) continue;
      const d = declarationAround(n);
      if (!d) continue;
      // a parameter has one declarator at most (asking for all of them costs more)
      const declarators =
        d.type === "parameter_declaration"
          ? [d.childForFieldName("declarator")]
          : d.childrenForFieldName("declarator");
      if (declarators.some((x) => declaredText(x, idx) === name)) {
        const type = d.childForFieldName("type");
        return type ? idx.textOf(type) : undefined;
      }
    }
    return undefined;
  }
}

/** The name a declarator declares, as text. */
function declaredText(declarator: Node | null, idx: FileIndex): string | undefined {
  const name = declaredName(declarator);
  return name && idx.textOf(name);
}

/** The declaration or parameter whose declarator holds `n`, or undefined when `n` is not in one. */
function declarationAround(n: Node): Node | undefined {
  for (let p = n.parent; p; p = p.parent) {
    const t = p.type;
    if (t === "declaration" || t === "parameter_declaration") return p;
    if (NOT_DECLARATOR.test(t)) return undefined;
  }
  return undefined;
}

/** A bound that can pass 2^31: a 64-bit type, count or literal in it, or a name declared 64-bit. */
function isWide(bound: Node, declared: DeclaredTypes, idx: FileIndex): boolean {
  const text = idx.textOf(bound);
  if (WIDE_TYPE.test(text) || WIDE_VALUE.test(text)) return true;
  const names = bound.type === "identifier" ? [bound] : descendants(bound, "identifier");
  return names.some((n) => WIDE_TYPE.test(declared.of(idx.textOf(n)) ?? ""));
}

/**
 * Whether a 32-bit index `name` can really pass 2^31 in `scope`: it is compared with a 64-bit bound, or it
 * addresses memory as a flat element index with no bound at all. A 32-bit bound (`i < int n`) keeps it
 * in range, and so does an index only ever scaled (`row * ncols`): rows and tokens stay far below 2^31.
 */
function canOverflow(uses: readonly Node[], declared: DeclaredTypes, idx: FileIndex): boolean {
  const bounds = uses.flatMap((u) => boundOf(u, idx) ?? []);
  if (bounds.some((b) => isWide(b, declared, idx))) return true;
  return bounds.length === 0 && uses.some((u) => isFlatIndexUse(u, idx));
}

export const intIndexOverflow: Rule = {
  id: "int-index-overflow",
  defaultSeverity: "information",
  basis: "needs-context",
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
      if (!canOverflow(uses, declared, idx)) continue;
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
      ctx.report({
        node: holder,
        message: `\`${nameText}\` is computed in 32 bits (${product.text}) and used as an index: it wraps past 2^31 elements. Widen before multiplying: \`int64_t ${nameText} = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x\`.`,
        fixes,
      });
    }
  },
};
