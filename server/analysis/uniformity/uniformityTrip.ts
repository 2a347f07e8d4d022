// Trip counts of strided loops over a bound rounded up to their stride, for the uniformity analysis
// (uniformity.ts): `for (i = threadIdx.x; i < BS * ((n + BS - 1) / BS); i += BS)`. A thread starting at
// t in [0, stride) runs ceil((bound - t) / stride) iterations, which is bound / stride for every t when the
// bound is a multiple of the stride: the trip count depends on the bound and the stride only.
//
// What is read as a multiple of the stride S: `S * x`, `x * S`, `(n + S - 1) & ~(S - 1)`, a call
// `round_up(n, S)` / `ROUND_UP(n, S)` / `align_up(n, S)`, and a local holding one of these that is assigned
// nowhere else. A start below the stride: `threadIdx.x` with the stride `blockDim.x` (the same axis), or
// `threadIdx.x`, `threadIdx.x % S`, `threadIdx.x & (S - 1)` with a compile-time stride S, taken to be the
// block's size, as the constant-bound loops of uniformityConst.ts are taken to divide evenly (a block
// larger than S would index past the tile such kernels size by S). Names are followed through locals
// assigned once (`const int tid = threadIdx.x;`).
//
// Cannot see: what a helper function computes (only its name says round up), a bound rounded up in the
// host code and passed in, a stride that is a multiple of another.
import type { Node } from "web-tree-sitter";
import { declaredName, textIn, unparen } from "../source/nodes";
import { union, type Deps, type Resolve, type Sym } from "./uniformityBase";
import type { Constants } from "./uniformityConst";
import { pureDeps, type LoopShape } from "./uniformityText";

/** Calls that round their first argument up to a multiple of their second. */
const ROUND_UP_CALL = /^(?:round_?up|align_?up|roundUp|alignUp|RoundUp|AlignUp|ROUND_UP|ALIGN_UP)$/;

/** How deep names are followed through their locals' values. */
const DEPTH = 3;

/** Reads the strided loops of one function (`fn`, in the file text `src`). */
export class Strides {
  constructor(
    private readonly src: string,
    private readonly fn: Node,
    private readonly syms: readonly Sym[],
    private readonly consts: Constants,
  ) {}

  /**
   * The trip count's deps of `for (i = start; i < bound; i += stride)` with the bound a multiple of the
   * stride and the start in [0, stride): the bound's and the stride's; else undefined.
   */
  tripCount(shape: LoopShape, resolve: Resolve): Deps | undefined {
    const { step } = shape;
    if (shape.cmp !== "<" || shape.op !== "+=" || !step) return undefined;
    const stride = this.canonical(step, resolve);
    if (!this.belowStride(shape.start, step, stride, resolve)) return undefined;
    if (!this.multipleOf(shape.bound, stride, resolve, DEPTH)) return undefined;
    return union(pureDeps(shape.bound, resolve), pureDeps(step, resolve));
  }

  /** Is `start` in [0, stride) for every thread of the block? */
  private belowStride(start: Node, step: Node, stride: string, resolve: Resolve): boolean {
    const s = this.canonical(start, resolve);
    const axis = /^threadIdx\.([xyz])$/.exec(s);
    if (axis && stride === `blockDim.${axis[1]}`) return true;
    if (!this.consts.compileTime(step, resolve)) return false;
    return s === "threadIdx.x" || s === `threadIdx.x%${stride}` || s === `threadIdx.x&(${stride}-1)`;
  }

  /** Is `n` a multiple of `stride` (canonical text), following locals `depth` levels deep? */
  private multipleOf(node: Node, stride: string, resolve: Resolve, depth: number): boolean {
    let n = unparen(node);
    while (n.type === "cast_expression") n = unparen(n.childForFieldName("value") ?? n);
    if (this.canonical(n, resolve) === stride) return true;
    switch (n.type) {
      case "binary_expression": {
        const op = textIn(this.src, n.childForFieldName("operator")!);
        const l = n.childForFieldName("left");
        const r = n.childForFieldName("right");
        if (!l || !r) return false;
        if (op === "*")
          return this.multipleOf(l, stride, resolve, depth) || this.multipleOf(r, stride, resolve, depth);
        // `(n + S - 1) & ~(S - 1)`: S a power of two (the mask is no round-up otherwise)
        const mask = `~(${stride}-1)`;
        return op === "&" && (this.canonical(r, resolve) === mask || this.canonical(l, resolve) === mask);
      }
      case "call_expression": {
        const f = n.childForFieldName("function");
        const args = n.childForFieldName("arguments")?.namedChildren ?? [];
        return (
          f?.type === "identifier" &&
          ROUND_UP_CALL.test(textIn(this.src, f)) &&
          args.length === 2 &&
          this.canonical(args[1]!, resolve) === stride
        );
      }
      case "identifier": {
        const value = depth > 0 ? this.valueOf(n, resolve) : undefined;
        return !!value && this.multipleOf(value, stride, resolve, depth - 1);
      }
      default:
        return false;
    }
  }

  /** An expression's text without spaces and outer parentheses, a local assigned once read as its value. */
  private canonical(node: Node, resolve: Resolve, depth = DEPTH): string {
    const n = unparen(node);
    if (n.type === "identifier" && depth > 0) {
      const value = this.valueOf(n, resolve);
      if (value) return this.canonical(value, resolve, depth - 1);
    }
    return textIn(this.src, n).replace(/\s+/g, "");
  }

  /** The value of a local declared with one and assigned nowhere else in the function, if `id` names one. */
  private valueOf(id: Node, resolve: Resolve): Node | undefined {
    const name = textIn(this.src, id);
    const s = resolve(name);
    const at = s === undefined ? -1 : this.syms[s]!.at;
    if (at < 0) return undefined;
    let decl: Node | null = this.fn.descendantForIndex(at, at);
    while (decl && decl.type !== "declaration") decl = decl.parent;
    if (!decl) return undefined;
    const d = decl
      .childrenForFieldName("declarator")
      .find(
        (x) =>
          x?.type === "init_declarator" && declaredName(x.childForFieldName("declarator"))?.text === name,
      );
    const value = d?.childForFieldName("value");
    return value && this.writes(name) === 1 ? value : undefined;
  }

  /** How many places of the function may write `name`: assignments, increments, `&name`. */
  private writes(name: string): number {
    const text = textIn(this.src, this.fn);
    const w = new RegExp(
      `(?:\\+\\+|--)\\s*${name}\\b|(?<=[(,=]\\s*)&\\s*${name}\\b|\\b${name}\\s*(?:\\+\\+|--|(?:[-+*/%&|^]|<<|>>)?=(?!=))`,
      "g",
    );
    return [...text.matchAll(w)].length;
  }
}
