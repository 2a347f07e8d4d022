// Whether a function exchanges values between the threads of a warp: shuffles, votes, match and
// reduce intrinsics, their PTX (`shfl.sync`, `redux.sync`, `vote.sync`), CUB's WarpReduce/WarpScan and
// cooperative groups' reduce, in its own code or in a function of the file it calls (warpReduceMax(v)).
// scalar-half-access asks it for accesses outside loops: in such a function, one element per thread is
// the item each lane owns in the exchange (an expert's score in a top-k, a candidate in an arg-max), and
// packing two per thread changes the algorithm, not the load; in an elementwise kernel (RoPE, GEGLU) no
// value crosses threads and the one-element layout is a stream.
// Cannot see: exchanges in functions of headers outside the project, or through shared memory alone.

import type { FileIndex, FunctionInfo } from "../source/fileIndex";
import { codeSlice } from "../source/codeText";
import { declaredName } from "../types/fp16Versions";

const EXCHANGE =
  /\b(?:__shfl\w*|__ballot_sync|__any_sync|__all_sync|__match_\w+_sync|__reduce_\w+_sync|WarpReduce|WarpScan|cg::reduce|reduce_\w+_sync)\b|\b(?:shfl|redux|vote)\.sync\b/;

/** Called names of a text: `name(` not after `.` or `->`. */
const CALL = /(?<![\w.>])([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*\(/g;

/**
 * Does `code` (a function's code) exchange values across the warp, itself or through a function it
 * calls, one level deep? `bodyOf` gives a called name's code (the file's device functions, then its
 * project headers' bodies) and is asked only for names called, so the answer depends on those names.
 */
export function exchangesAcrossWarp(code: string, bodyOf: (name: string) => string | undefined): boolean {
  if (EXCHANGE.test(code)) return true;
  for (const m of code.matchAll(CALL)) {
    const body = bodyOf(m[1]!);
    if (body !== undefined && EXCHANGE.test(body)) return true;
  }
  return false;
}

/**
 * The code of the file's device function NAME (comments and literals blanked), else a project header's
 * body of that name (`headers`: declEnv's headerFunctions). Each name asked is recorded by `read`.
 */
export function deviceBodies(
  idx: FileIndex,
  headers: ReadonlyMap<string, string>,
  read: (name: string) => void,
): (name: string) => string | undefined {
  const byName = idx.shared("deviceFunctionsByName", () => {
    const out = new Map<string, FunctionInfo>();
    for (const fn of idx.deviceFunctions()) {
      const name = declaredName(fn);
      if (name && !out.has(name)) out.set(name, fn);
    }
    return out;
  });
  return (name) => {
    read(name);
    const fn = byName.get(name);
    return fn ? codeSlice(idx, fn.start, fn.end) : headers.get(name);
  };
}
