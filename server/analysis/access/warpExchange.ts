// Whether a function exchanges values between the threads of a warp: shuffles, votes, match and
// reduce intrinsics, their PTX (`shfl.sync`, `redux.sync`, `vote.sync`), CUB's WarpReduce/WarpScan and
// cooperative groups' reduce, in its own code or in a function of the file it calls (warpReduceMax(v)).
// scalar-half-access asks it for accesses outside loops: in such a function, one element per thread is
// the item each lane owns in the exchange (an expert's score in a top-k, a candidate in an arg-max), and
// packing two per thread changes the algorithm, not the load; in an elementwise kernel (RoPE, GEGLU) no
// value crosses threads and the one-element layout is a stream.
// Cannot see: exchanges in functions of headers outside the project, or through shared memory alone.

const EXCHANGE =
  /\b(?:__shfl\w*|__ballot_sync|__any_sync|__all_sync|__match_\w+_sync|__reduce_\w+_sync|WarpReduce|WarpScan|cg::reduce|reduce_\w+_sync)\b|\b(?:shfl|redux|vote)\.sync\b/;

/** Called names of a text: `name(` not after `.` or `->`. */
const CALL = /(?<![\w.>])([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*\(/g;

/**
 * Does `code` (a function's code) exchange values across the warp, itself or through a function of
 * `functions` (bodies by name, functionBodies.ts: the file's, then its project headers') it calls, one
 * level deep? `read` is told each function whose body was looked at (the answer depends on it).
 */
export function exchangesAcrossWarp(
  code: string,
  functions: readonly ReadonlyMap<string, string>[],
  read: (name: string) => void = () => {},
): boolean {
  if (EXCHANGE.test(code)) return true;
  for (const m of code.matchAll(CALL)) {
    const body = functions.map((f) => f.get(m[1]!)).find((b) => b !== undefined);
    if (body === undefined) continue;
    read(m[1]!);
    if (EXCHANGE.test(body)) return true;
  }
  return false;
}
