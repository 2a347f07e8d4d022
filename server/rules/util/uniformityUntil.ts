// A uniformity walk for a rule that asks about barriers only (uniformity.ts): it may stop once every
// barrier's answer is known, however the rest of the function goes.
import type { Barrier, Control, Deps, Sym } from "./uniformityBase";

/** Where a walk may stop. */
export interface Until {
  /** No barrier starts after this offset (a barrier's name holds `sync`: the last one in the function's text). */
  after: number;
  /**
   * Is `b`'s answer known now, whatever the rest of the function holds (`varies`: what already varies for
   * sure; `barriers`: all the function's)?
   */
  settled(b: Barrier, varies: (d: Deps) => boolean, barriers: readonly Barrier[]): boolean;
}

/**
 * Tells the walk when to stop. Meanwhile it marks the variables that vary for sure (an assignment from a
 * varying value or under a varying condition): the fixed point after the walk would mark them too, and
 * starts from these.
 */
export class Stopper {
  /** The barriers known settled, from the first. */
  private settledCount = 0;

  constructor(
    private readonly until: Until,
    private readonly syms: readonly Sym[],
    private readonly barriers: readonly Barrier[],
  ) {}

  readonly varies = (d: Deps): boolean => d.direct || d.syms.some((s) => this.syms[s]!.varying);

  /** An assignment to `sym` of `deps` under `controls` (those whose deps are not worked out yet wait). */
  assigned(sym: Sym, deps: Deps, controls: readonly Control[]): void {
    if (!sym.varying && (this.varies(deps) || controls.some((k) => k.known !== false && this.varies(k.deps))))
      sym.varying = true;
  }

  /** May the walk stop before the statement at `offset` (every barrier is before it, and settled)? */
  reached(offset: number): boolean {
    if (offset <= this.until.after) return false;
    const { barriers } = this;
    while (
      this.settledCount < barriers.length &&
      this.until.settled(barriers[this.settledCount]!, this.varies, barriers)
    )
      this.settledCount++;
    return this.settledCount === barriers.length;
  }
}
