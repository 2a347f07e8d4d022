// Which values of a kernel or __device__ function may differ between the threads of one block.
//
// Thread-varying: threadIdx, lane and warp ids, cooperative-groups ranks, warp shuffles and votes (one
// value per warp at best, so still different across the block), atomics' results, `%laneid`-style asm,
// and what flows from them, by assignment or by being assigned under a varying condition. Block-uniform:
// kernel parameters, constants, template parameters, macros, blockIdx/blockDim/gridDim, sizeof, loop
// counters whose start, bound and step are uniform, `__syncthreads_or/and/count` results, and memory read
// at a uniform address (a `__shared__` value written by one thread is one value per block: reading it
// after the barrier gives every thread the same), and, given the kernel's launches (`guards`), a bounds
// guard they make the same for every thread (`threadIdx.x < n` in blocks of n threads: launchedGuards.ts). Names are resolved through the function's scopes, so
// two loops' `i` are two variables.
//
// Simplifications, on purpose: a __device__ function's parameters are uniform unless named like a thread
// id (`tid`, `lane`, `warp_id`...), since its callers are not looked at; class members and globals are
// uniform; a call's result varies only with its arguments (or its object), and an object built by a
// constructor only with the arguments its constructors read (given `classes`); the walk is one pass over the
// function plus a fixed point over the assignments it recorded.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { ancestors } from "../source/nodes";
import { LOOPS, type Barrier, type Control, type Deps, type Exit } from "./uniformityBase";
import type { Until } from "./uniformityUntil";
import { inside, insideReturningBlock, otherArm } from "./uniformityExits";
import { Walk } from "./uniformityWalk";
import type { ClassConstructors } from "./uniformityCalls";
import type { LaunchGuards } from "../launches/launchedGuards";

export { calleeName, LOOPS } from "./uniformityBase";
export type { Barrier, BarrierLevel, Control, Deps, Exit } from "./uniformityBase";
export type { SoFar, Until } from "./uniformityUntil";

/** The uniformity of one function's values, its barriers and its exits. */
export class Uniformity {
  private constructor(private readonly w: Walk) {
    const { syms, assigns } = w;
    for (let changed = true; changed;) {
      changed = false;
      for (const a of assigns) {
        const s = syms[a.target]!;
        if (s.varying) continue;
        if (this.varies(a.deps) || this.anyVaries(a.controls)) {
          s.varying = true;
          changed = true;
        }
      }
    }
  }

  /**
   * The analysis of a device function, made once per lint run. With `until`, only as far as its barriers
   * need (see uniformityUntil.ts): the barriers' answers are the whole analysis', the rest may be partial.
   */
  static of(
    idx: FileIndex,
    fn: { node: Node; body: Node; space: "global" | "device" },
    until?: Until,
    classes?: ClassConstructors,
    guards?: LaunchGuards,
  ): Uniformity {
    return idx.shared(`uniformity${until ? "-barriers" : ""}:${fn.node.id}`, () => {
      const kernel = fn.space === "global";
      return new Uniformity(new Walk(idx.text, fn.node, fn.body, kernel, until, classes, guards));
    });
  }

  varies(d: Deps): boolean {
    return d.direct || d.syms.some((s) => this.w.syms[s]!.varying);
  }

  get barriers(): readonly Barrier[] {
    return this.w.barriers;
  }

  get exits(): readonly Exit[] {
    return this.w.exits;
  }

  /** Does any of `controls` vary? Those whose deps are known first (the answer is the same). */
  private anyVaries(controls: readonly Control[]): boolean {
    return (
      controls.some((k) => k.known !== false && this.varies(k.deps)) ||
      controls.some((k) => k.known === false && this.varies(k.deps))
    );
  }

  /**
   * Does taking exit `e` keep its thread from reaching barrier `b`, which it would reach otherwise? Only
   * where `b` can run after `e`'s place: later in the function, or in a later iteration of a loop around
   * both, and not in the other arm of an `if` whose arm `e` is in (a thread in one arm never runs the
   * other; a `break` still skips the other arm's later iterations), nor outside a block around `e` that
   * ends in a return (see uniformityExits.ts).
   */
  skips(e: Exit, b: Barrier): boolean {
    if (e.owner.id !== b.owner.id || !e.target) return false;
    if (e.kind === "break") return inside(b.call, e.target);
    if (otherArm(e.stmt, b.call, e.target) || insideReturningBlock(e.stmt, b.call, e.owner)) return false;
    const after = b.call.startIndex >= e.stmt.endIndex;
    if (e.kind === "continue") return after && inside(b.call, e.target);
    // a return: the barrier comes later, or in a later iteration of a loop around both
    return after || [...ancestors(e.stmt, e.owner)].some((a) => LOOPS.has(a.type) && inside(b.call, a));
  }

  /** The innermost thread-varying condition of `controls`. */
  firstVarying(controls: readonly Control[]): Control | undefined {
    return controls.find((k) => this.varies(k.deps));
  }
}
