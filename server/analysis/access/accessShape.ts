// How a thread's subscript access `p[index]` walks memory, as far as vectorizing it is concerned:
// - "gather": the index is loaded from memory (`x[perm[i]]`, `emb[tok * h + j]` with `tok = ids[b]`):
//   the addresses come from data, no wider load covers them;
// - "broadcast": neighbouring threads read the same element (`scale[i / group]`, `scale[blockIdx.y]`
//   with no thread- or loop-varying name in the index): one value per group, not a stream;
// - "fixed": the index is a constant (`row_scale_bias[0]`, `[1]`): a few elements at a fixed place of a
//   row (its scale and bias), not a stream;
// - "strided": the index is a varying name times a stride that is no literal (`alpha[b * rows * cols]`):
//   neither neighbouring threads nor iterations touch neighbouring elements, so no pair to load;
// - contiguous (asked apart, contiguousAt): consecutive threads touch consecutive elements (`x[i]`,
//   `row[d + half]` with `i = blockIdx.x * blockDim.x + threadIdx.x`, `d = threadIdx.x`): the
//   one-element-per-thread layout;
// - "other": anything else (contiguous, loop-indexed, scaled by a literal such as `x[2 * i]`, unknown).
// Locals are followed through their first initialiser in the function (a later assignment is not
// seen), a few levels deep, reading their text; parameters and globals are taken as the same for every
// thread.
import type { Node } from "web-tree-sitter";
import { unparen } from "../source/nodes";

export type AccessShape = "gather" | "broadcast" | "fixed" | "strided" | "other";

/** Shapes whose accesses are no stream of the thread's data: a wider access has nothing to pair. */
export const notAStream = (shape: AccessShape): boolean =>
  shape === "broadcast" || shape === "fixed" || shape === "strided";

/** A local's first initialiser (node and text) and whether a `for` declares it. */
interface Local {
  value: Node | null;
  text: string;
  loop: boolean;
}

/** A name not after `.` or `->` (group 1). */
const NAME = /(?<![\w.>])([A-Za-z_]\w*)/g;
/** A `*` after an operator or at the start, before an operand: a dereference, not a product. */
const DEREF = /(?:^|[-+*/%(,=<>&|!?:])\s*\*\s*[A-Za-z_(]/;
/** The built-in index variables and keywords an index may name: nothing to look up. */
const BUILTINS: ReadonlySet<string> = new Set([
  "threadIdx",
  "blockIdx",
  "blockDim",
  "gridDim",
  "int",
  "int64_t",
  "size_t",
  "long",
  "unsigned",
  "static_cast",
  "const",
]);

/**
 * A function's locals, looked up by name as the shapes need them: each name's first initialiser
 * (`NAME = value` in a declaration), and whether a `for` declares it. Found from the code text, then
 * one tree lookup at the `=`: walking every declaration of every function costs more.
 */
export class FunctionLocals {
  private readonly values = new Map<string, Local>();

  /** `code`: the function's code (comments and literals blanked), starting at offset `base` of the file. */
  constructor(
    private readonly root: Node,
    private readonly code: string,
    private readonly base: number,
  ) {}

  private local(name: string): Local {
    let v = this.values.get(name);
    if (v) return v;
    v = { value: null, text: "", loop: false };
    const re = new RegExp(`\\b${name}\\s*=(?!=)`, "g");
    for (const m of this.code.matchAll(re)) {
      const eq = this.base + m.index + m[0].length - 1;
      const init = this.root.namedDescendantForIndex(eq, eq + 1);
      if (init?.type !== "init_declarator") continue;
      const value = init.childForFieldName("value");
      v = { value, text: value?.text ?? "", loop: init.parent?.parent?.type === "for_statement" };
      break;
    }
    this.values.set(name, v);
    return v;
  }

  /** The names an expression's text reads (not members after `.`/`->`, not the built-in index variables). */
  private names(text: string): string[] {
    const out: string[] = [];
    for (const m of text.matchAll(NAME)) if (!BUILTINS.has(m[1]!)) out.push(m[1]!);
    return out;
  }

  /**
   * Does the expression read memory (a subscript or a `*p` dereference), directly or through a local's
   * initialiser? Read from the text: a `[`, or a `*` where no operand ends before it.
   */
  loads(text: string, depth = 0): boolean {
    if (depth > 4) return false;
    if (text.includes("[") || DEREF.test(text)) return true;
    return this.names(text).some((n) => this.loads(this.local(n).text, depth + 1));
  }

  /** Does the expression differ between threads or iterations (threadIdx, a loop variable, or a local of them)? */
  varies(text: string, depth = 0): boolean {
    if (depth > 4) return false;
    if (text.includes("threadIdx")) return true;
    return this.names(text).some((n) => {
      const { text: value, loop } = this.local(n);
      return loop || this.varies(value, depth + 1);
    });
  }

  /** Is the expression the thread's own consecutive position (threadIdx.x plus thread-invariant terms)? */
  contiguous(node: Node | null, depth = 0): boolean {
    if (!node || depth > 4) return false;
    const n = stripCasts(node);
    if (n.type === "field_expression") return n.text.replace(/\s/g, "") === "threadIdx.x";
    if (n.type === "identifier") return this.contiguous(this.local(n.text).value, depth + 1);
    if (n.type !== "binary_expression") return false;
    const op = n.childForFieldName("operator")?.text;
    if (op !== "+" && op !== "-") return false;
    const l = n.childForFieldName("left");
    const r = n.childForFieldName("right");
    // One side is the thread's position, the other the same for every thread (`base + i`, `i - off`).
    if (this.contiguous(l, depth) && !this.varies(r?.text ?? "")) return true;
    return op === "+" && this.contiguous(r, depth) && !this.varies(l?.text ?? "");
  }

  /**
   * The shape of a subscript access (see the module comment); a contiguous access is "other" here:
   * telling it apart walks the index again (contiguousAt), which only accesses outside loops need.
   */
  shape(sub: Node): AccessShape {
    const index = indexOf(sub);
    if (!index) return "other";
    const text = index.text;
    if (this.loads(text)) return "gather";
    const top = stripCasts(index);
    if (top.type === "number_literal") return "fixed";
    const op = top.type === "binary_expression" ? top.childForFieldName("operator")?.text : undefined;
    if (op === "/" || op === ">>") return "broadcast";
    if (op === "*" && this.stridedProduct(top)) return "strided";
    if (!this.varies(text) && !this.varies(sub.childForFieldName("argument")?.text ?? "")) return "broadcast";
    return "other";
  }

  /** `v * s` or `s * v`: one side varies, the other does not and is no literal (a row's stride). */
  private stridedProduct(product: Node): boolean {
    const l = product.childForFieldName("left");
    const r = product.childForFieldName("right");
    if (!l || !r) return false;
    const stride = (v: Node, s: Node): boolean =>
      this.varies(v.text) && !this.varies(s.text) && !/^[\d(\s)]+[uUlL]*$/.test(s.text);
    return stride(l, r) || stride(r, l);
  }

  /** Does the access (shaped "other") touch the thread's own consecutive element? */
  contiguousAt(sub: Node): boolean {
    return this.contiguous(indexOf(sub));
  }
}

/** A subscript's index expression. */
function indexOf(sub: Node): Node | null {
  return sub.childForFieldName("indices")?.namedChild(0) ?? sub.childForFieldName("index");
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

/** CUDA's one-element loads and stores through an address, and atomics: `__ldg(&x[i])` moves one element. */
const SCALAR_INTRINSICS = /^(?:__ld(?:g|cs|cg|ca|lu|cv)|__st(?:cs|cg|wb|wt)|atomic\w+|__h?atomic\w*)$/;

/** CUB's tile loads and stores by name: `cub::LoadDirectBlocked(tid, &x[i], items)`, `StoreDirectStriped…`. */
const TILE_FUNCTIONS = /^(?:cub::)?(?:Load|Store)Direct\w*$/;

/**
 * Is the element's address the base of something that moves it wider than one element:
 * - a function-like macro whose body reinterprets its argument's address or is inline asm
 *   (`CP_ASYNC_CG(dst, &x[i], 16)`, `#define LDST128BITS(v) (reinterpret_cast<float4*>(&(v))[0])`),
 *   the file's or a project header's (`defines`: declEnv.ts);
 * - a block- or warp-wide tile load or store: the `Load`/`Store` member of a CUB BlockLoad/BlockStore
 *   (WarpLoad/WarpStore) object (`BlockStoreT(tmp).Store(&out[i], vals, n)`), or CUB's LoadDirect… and StoreDirect…
 *   functions, which move the whole tile (vectorized by the algorithm the type names).
 * - the element's address handed to a function other than CUDA's one-element load/store intrinsics and
 *   atomics (`copy<VPT>(&x[i], regs)`): its width is the function's, unknown here.
 * Then the access is as wide as the macro, the tile or the function makes it, not 2 bytes. An address
 * passed to `__ldg`, `__ldcs`… or an atomic is still one element.
 */
export function movedWide(sub: Node, defines: ReadonlyMap<string, string>): boolean {
  let n = sub;
  while (n.parent?.type === "parenthesized_expression") n = n.parent;
  if (n.parent?.type === "pointer_expression" && n.parent.childForFieldName("operator")?.text === "&")
    n = n.parent;
  const address = n !== sub && n.type === "pointer_expression";
  while (n.parent?.type === "parenthesized_expression") n = n.parent;
  const args = n.parent;
  if (args?.type !== "argument_list") return false;
  const callee = args.parent?.childForFieldName("function");
  // The address handed to a function: only CUDA's scalar load/store intrinsics are known to move one
  // element (`__ldg(&x[i])`); a project helper (`copy<VPT>(&x[i], regs)`) may move a vector from it.
  const fnName = callee?.type === "template_function" ? callee.childForFieldName("name")?.text : callee?.text;
  if (address && fnName && !SCALAR_INTRINSICS.test(fnName) && !defines.has(fnName)) return true;
  if (callee?.type === "field_expression")
    return /^(?:Load|Store)$/.test(callee.childForFieldName("field")?.text ?? "");
  if (callee?.type === "qualified_identifier" || callee?.type === "identifier")
    if (TILE_FUNCTIONS.test(callee.text)) return true;
  if (callee?.type !== "identifier") return false;
  // The macro's body as the file and its project headers define it (declEnv.ts; continuations joined).
  const body = defines.get(callee.text);
  return body !== undefined && /\breinterpret_cast\b|\basm\b/.test(body);
}
