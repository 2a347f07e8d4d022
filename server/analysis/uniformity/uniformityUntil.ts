// A uniformity walk for a rule that asks about barriers only (uniformity.ts): it may stop once every
// barrier's answer is known, however the rest of the function goes.
import type { Assign, Barrier, Control, Deps, Exit, Sym } from "./uniformityBase";

/** What the walk has found so far, for a rule to tell whether a barrier's answer is known. */
export interface SoFar {
  /** All the function's barriers (the walk is past the last). */
  readonly barriers: readonly Barrier[];
  readonly exits: readonly Exit[];
  /**
   * Between two statements of the function's body: every statement holding a barrier is done, so an exit
   * still to come is in none of the loops around a barrier, and comes after every barrier.
   */
  readonly between: boolean;
  /** Does `d` vary already (it can only go on varying)? */
  varies(d: Deps): boolean;
  /** Is `d` uniform for good: its variables' scopes are closed, and all they were assigned from is too? */
  uniform(d: Deps): boolean;
}

/** Where a walk may stop. */
export interface Until {
  /** No barrier starts after this offset (a barrier's name holds `sync`: the last one in the function's text). */
  after: number;
  /** Is `b`'s answer known now, whatever the rest of the function holds? */
  settled(b: Barrier, w: SoFar): boolean;
}

/**
 * Tells the walk when to stop. Meanwhile it marks the variables that vary for sure (an assignment from a
 * varying value or under a varying condition): the fixed point after the walk would mark them too, and
 * starts from these.
 */
export class Stopper implements SoFar {
  /** The barriers known settled, from the first. */
  private settledCount = 0;
  between = false;

  constructor(
    private readonly until: Until,
    private readonly syms: readonly Sym[],
    private readonly assigns: readonly Assign[],
    readonly barriers: readonly Barrier[],
    readonly exits: readonly Exit[],
    private readonly isClosed: (s: number) => boolean,
  ) {}

  readonly varies = (d: Deps): boolean => d.direct || d.syms.some((s) => this.syms[s]!.varying);

  uniform(d: Deps): boolean {
    return this.uniformFrom(d, new Set());
  }

  /** `uniform`, taking the symbols in `seen` (being looked at) as uniform: a cycle adds no source. */
  private uniformFrom(d: Deps, seen: Set<number>): boolean {
    if (d.direct) return false;
    for (const s of d.syms) {
      if (seen.has(s)) continue;
      seen.add(s);
      const sym = this.syms[s]!;
      // shared memory is never assigned (see Walk.assignTo): one value per block
      if (sym.kind === "shared") continue;
      if (sym.varying || !this.isClosed(s)) return false;
      for (const a of this.assigns)
        if (
          a.target === s &&
          (!this.uniformFrom(a.deps, seen) || a.controls.some((k) => !this.uniformFrom(k.deps, seen)))
        )
          return false;
    }
    return true;
  }

  /** An assignment to `sym` of `deps` under `controls` (those whose deps are not worked out yet wait). */
  assigned(sym: Sym, deps: Deps, controls: readonly Control[]): void {
    if (!sym.varying && (this.varies(deps) || controls.some((k) => k.known !== false && this.varies(k.deps))))
      sym.varying = true;
  }

  /**
   * May the walk stop before the statement at `offset` (every barrier is before it, and settled)?
   * `between`: that statement is one of the function body's own.
   */
  reached(offset: number, between: boolean): boolean {
    if (offset <= this.until.after) return false;
    this.between = between;
    const { barriers } = this;
    while (this.settledCount < barriers.length && this.until.settled(barriers[this.settledCount]!, this))
      this.settledCount++;
    return this.settledCount === barriers.length;
  }
}
