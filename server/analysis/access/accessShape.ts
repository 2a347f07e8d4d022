// How a thread's subscript access `p[index]` walks memory, as far as vectorizing it is concerned:
// - "gather": the index is loaded from memory (`x[perm[i]]`, `emb[tok * h + j]` with `tok = ids[b]`):
//   the addresses come from data, no wider load covers them;
// - "broadcast": neighbouring threads read the same element (`scale[i / group]`, `scale[blockIdx.y]`
//   with no thread- or loop-varying name in the index): one value per group, not a stream;
// - "contiguous": consecutive threads touch consecutive elements (`x[i]`, `row[d + half]` with
//   `i = blockIdx.x * blockDim.x + threadIdx.x`, `d = threadIdx.x`): the one-element-per-thread layout;
// - "other": anything else (strided, loop-indexed, unknown).
// Locals are followed through their first initialiser in the function (a later assignment is not
// seen), a few levels deep; parameters and globals are taken as the same for every thread.
import type { Node } from "web-tree-sitter";
import { unparen } from "../source/nodes";

export type AccessShape = "gather" | "broadcast" | "contiguous" | "other";

/** A function's locals: each name's first initialiser, and the names a `for` declares. */
export class FunctionLocals {
  private readonly values = new Map<string, Node | null>();
  private readonly loopNames = new Set<string>();

  constructor(body: Node) {
    for (const d of body.descendantsOfType("init_declarator")) {
      const name = d?.childForFieldName("declarator");
      if (!d || name?.type !== "identifier" || this.values.has(name.text)) continue;
      this.values.set(name.text, d.childForFieldName("value"));
      if (d.parent?.parent?.type === "for_statement") this.loopNames.add(name.text);
    }
  }

  /** Does the expression read memory (a subscript or `*p`), directly or through a local's initialiser? */
  loads(n: Node | null, depth = 0): boolean {
    if (!n || depth > 4) return false;
    if (n.type === "subscript_expression") return true;
    if (n.type === "pointer_expression" && n.childForFieldName("operator")?.text === "*") return true;
    if (n.type === "identifier") return this.loads(this.values.get(n.text) ?? null, depth + 1);
    if (n.type === "call_expression") return false; // __ldg(p + i) and friends: rare as an index
    return n.namedChildren.some((c) => this.loads(c, depth));
  }

  /** Does the expression differ between threads or iterations (threadIdx, a loop variable, or a local of them)? */
  varies(n: Node | null, depth = 0): boolean {
    if (!n || depth > 4) return false;
    if (n.type === "identifier") {
      if (n.text === "threadIdx" || this.loopNames.has(n.text)) return true;
      return this.varies(this.values.get(n.text) ?? null, depth + 1);
    }
    return n.namedChildren.some((c) => this.varies(c, depth));
  }

  /** Is the expression the thread's own consecutive position (threadIdx.x plus thread-invariant terms)? */
  contiguous(node: Node | null, depth = 0): boolean {
    if (!node || depth > 4) return false;
    const n = stripCasts(node);
    if (n.type === "field_expression") return n.text.replace(/\s/g, "") === "threadIdx.x";
    if (n.type === "identifier") return this.contiguous(this.values.get(n.text) ?? null, depth + 1);
    if (n.type !== "binary_expression") return false;
    const op = n.childForFieldName("operator")?.text;
    if (op !== "+" && op !== "-") return false;
    const l = n.childForFieldName("left");
    const r = n.childForFieldName("right");
    // One side is the thread's position, the other the same for every thread (`base + i`, `i - off`).
    if (this.contiguous(l, depth) && !this.varies(r)) return true;
    return op === "+" && this.contiguous(r, depth) && !this.varies(l);
  }

  /** The shape of a subscript access (see the module comment). */
  shape(sub: Node): AccessShape {
    const index = sub.childForFieldName("indices")?.namedChild(0) ?? sub.childForFieldName("index");
    if (!index) return "other";
    if (this.loads(index)) return "gather";
    const top = stripCasts(index);
    const op = top.type === "binary_expression" ? top.childForFieldName("operator")?.text : undefined;
    if (op === "/" || op === ">>") return "broadcast";
    if (!this.varies(index) && !this.varies(sub.childForFieldName("argument"))) return "broadcast";
    return this.contiguous(index) ? "contiguous" : "other";
  }
}

/** The expression under parentheses and casts (`(int64_t)i`, `static_cast<int>(i)`). */
function stripCasts(node: Node): Node {
  let n = unparen(node);
  for (let i = 0; i < 4; i++) {
    if (n.type === "cast_expression") n = unparen(n.childForFieldName("value") ?? n);
    else if (n.type === "call_expression" && n.childForFieldName("function")?.text.includes("_cast<"))
      n = unparen(n.childForFieldName("arguments")?.namedChild(0) ?? n);
    else break;
  }
  return n;
}
