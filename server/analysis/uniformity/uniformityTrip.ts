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
import { declaredName, descendants, textIn, unparen } from "../source/nodes";
import { union, type Deps, type Resolve, type Sym } from "./uniformityBase";
import type { Constants } from "./uniformityConst";
import { loopShape, pureDeps, textDeps, type LoopHeader, type LoopShape } from "./uniformityText";
import { declaresAt, writesLeave, writeSites } from "./uniformityWrites";

/** Calls that round their first argument up to a multiple of their second. */
const ROUND_UP_CALL = /^(?:round_?up|align_?up|roundUp|alignUp|RoundUp|AlignUp|ROUND_UP|ALIGN_UP)$/;

/** A comparison with its sides swapped: `a < b` is `b > a`. */
const MIRROR: Readonly<Record<string, string>> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=" };

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
   * The trip count's deps of `for (i = start; i < bound; i += stride)` with the start `base + t`, t in
   * [0, stride), and the bound `base + m`, m a multiple of the stride (the same base on both sides, or
   * none), when no write of the counter in the body stays in the loop: the bound's and the stride's;
   * else undefined.
   */
  tripCount(shape: LoopShape, resolve: Resolve): Deps | undefined {
    const { step } = shape;
    if (shape.cmp !== "<" || shape.op !== "+=" || !step) return undefined;
    const stride = this.canonical(step, resolve);
    const start = this.terms(shape.start, resolve);
    const bound = this.terms(shape.bound, resolve);
    for (let i = start.length - 1; i >= 0; i--) {
      const j = bound.findIndex((b) => b.text === start[i]!.text);
      if (j >= 0 && start.length > 1) {
        start.splice(i, 1);
        bound.splice(j, 1);
      }
    }
    if (start.length !== 1 || bound.length === 0) return undefined;
    if (!this.belowStride(start[0]!.node, step, stride, resolve)) return undefined;
    if (!bound.every((b) => this.multipleOf(b.node, stride, resolve, DEPTH))) return undefined;
    if (!writesLeave(this.src, shape.loop, shape.name)) return undefined;
    return union(pureDeps(shape.bound, resolve), pureDeps(step, resolve));
  }

  /** The addends of a sum (`a + b`, through parentheses and locals assigned once), each with its text. */
  private terms(node: Node, resolve: Resolve, depth = DEPTH): { node: Node; text: string }[] {
    const n = unparen(node);
    if (n.type === "binary_expression" && textIn(this.src, n.childForFieldName("operator")!) === "+") {
      const l = n.childForFieldName("left");
      const r = n.childForFieldName("right");
      if (l && r) return [...this.terms(l, resolve, depth), ...this.terms(r, resolve, depth)];
    }
    const value = n.type === "identifier" && depth > 0 ? this.valueOf(n, resolve) : undefined;
    if (value) return this.terms(value, resolve, depth - 1);
    return [{ node: n, text: this.canonical(n, resolve) }];
  }

  /**
   * The trip count's deps when comparison `cmp`, in the body of `shape`'s loop, tests its last tile (see
   * OpenLoops): the counter plus multiples of the stride against the bound, by `<` or `>=`; else
   * undefined. `resolve`: names at the loop; `here`: at `cmp`, which must mean the same.
   */
  lastTile(cmp: Node, shape: LoopShape, resolve: Resolve, here: Resolve): Deps | undefined {
    const l = cmp.childForFieldName("left");
    const r = cmp.childForFieldName("right");
    let op = textIn(this.src, cmp.childForFieldName("operator")!);
    if (!l || !r || !MIRROR[op] || !shape.step) return undefined;
    for (const id of descendants(cmp, "identifier"))
      if (here(textIn(this.src, id)) !== resolve(textIn(this.src, id))) return undefined;
    const terms = [...this.signed(l, 1, resolve), ...this.signed(r, -1, resolve)];
    const counter = terms.filter((t) => t.text === shape.name);
    if (counter.length !== 1) return undefined;
    // the counter on the left: `B <= i + S` is `i + S >= B`
    const sign = counter[0]!.sign;
    if (sign < 0) op = MIRROR[op]!;
    if (op !== "<" && op !== ">=") return undefined;
    const rest = terms.filter((t) => t !== counter[0]).map((t) => ({ text: t.text, sign: t.sign * sign }));
    const trip = this.tripCount(shape, resolve);
    if (!trip) return undefined;
    for (const b of this.terms(shape.bound, resolve)) {
      const i = rest.findIndex((t) => t.sign < 0 && t.text === b.text);
      if (i < 0) return undefined;
      rest.splice(i, 1);
    }
    const stride = this.canonical(shape.step, resolve);
    return rest.every((t) => t.text === stride) ? trip : undefined;
  }

  /** The addends of a sum or difference (see terms), each with its sign. */
  private signed(node: Node, sign: number, resolve: Resolve): { text: string; sign: number }[] {
    const n = unparen(node);
    const op = n.type === "binary_expression" ? textIn(this.src, n.childForFieldName("operator")!) : "";
    const l = n.childForFieldName("left");
    const r = n.childForFieldName("right");
    if ((op === "+" || op === "-") && l && r)
      return [...this.signed(l, sign, resolve), ...this.signed(r, op === "-" ? -sign : sign, resolve)];
    return this.terms(n, resolve).map((t) => ({ text: t.text, sign }));
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
    // assigned nowhere else: its other write sites declare other variables of that name
    const others = writeSites(this.src, this.fn, name).filter((w) => !declaresAt(this.fn, w, name));
    return value && others.length === 0 ? value : undefined;
  }
}

/** A loop the walk is in, and what is read of it when first needed. */
interface OpenLoop {
  header: LoopHeader;
  /** Names at the loop (after its initializer). */
  resolve: Resolve;
  shape?: LoopShape | null;
  counter?: RegExp;
}

/**
 * The for loops with a thread-dependent condition the walk is in, for the comparisons in their bodies
 * that test the last tile of a strided loop: `for (i = base + t; i < B; i += S)` with B rounded up to S
 * (see Strides.tripCount) gives i = base + t + k * S at iteration k, so `i + S >= B` (any multiple of S
 * added to either side, `<` or `>=`) holds for every thread or for none: t < S and B - base is a multiple
 * of S. `i + S > B` is not uniform (t = 0 and t > 0 differ).
 */
export class OpenLoops {
  private readonly open: OpenLoop[] = [];

  constructor(
    private readonly src: string,
    private readonly strides: Strides,
  ) {}

  enter(header: LoopHeader, resolve: Resolve): void {
    this.open.push({ header, resolve });
  }

  leave(): void {
    this.open.pop();
  }

  /** Does `text` name the counter of a loop the walk is in? */
  mentions(text: string): boolean {
    return this.open.some((l) => {
      if (l.shape === undefined) {
        l.shape = loopShape(l.header) ?? null;
        if (l.shape) l.counter = new RegExp(`\\b${l.shape.name}\\b`);
      }
      return l.counter?.test(text) === true;
    });
  }

  /** The deps of comparison `cmp` when it tests the last tile of a loop the walk is in (`here`: names at cmp). */
  compare(cmp: Node, here: Resolve): Deps | undefined {
    if (!textDeps(textIn(this.src, cmp), here)) return undefined; // nothing the walk must record in it
    for (const l of this.open) {
      if (!l.shape || !l.counter?.test(textIn(this.src, cmp))) continue;
      const trip = this.strides.lastTile(cmp, l.shape, l.resolve, here);
      if (trip) return trip;
    }
    return undefined;
  }
}
