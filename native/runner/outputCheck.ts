// Correctness of one output buffer: against the baseline's matching output when there is one, and
// always for elements the kernel never wrote (still poisoned) or that are not finite.
import type { OutputCheck, Tolerance } from "./protocol";

export interface CheckedOutput {
  arg: string;
  values: Float64Array;
  /** Elements still holding the poison pattern. */
  unwritten: number;
}

export function checkOutput(got: CheckedOutput, tolerance: Tolerance, want?: Float64Array): OutputCheck {
  const v = got.values;
  if (want === undefined) {
    let nonFinite = 0;
    for (const x of v) if (!Number.isFinite(x)) nonFinite++;
    const unwrittenNonFinite = Math.min(nonFinite, got.unwritten);
    return {
      arg: got.arg,
      maxAbsError: null,
      maxRelError: null,
      cosine: null,
      mismatched: 0,
      unwritten: got.unwritten,
      // Poisoned float elements are NaN too; count them once, as unwritten.
      nonFinite: nonFinite - unwrittenNonFinite,
      pass: got.unwritten === 0 && nonFinite === 0,
    };
  }
  if (want.length !== v.length) {
    throw new Error(`output ${got.arg}: kernel has ${v.length} elements, baseline ${want.length}`);
  }
  let maxAbs = 0;
  let maxRel = 0;
  let mismatched = 0;
  let nonFinite = 0;
  let dot = 0;
  let normGot = 0;
  let normWant = 0;
  for (let i = 0; i < v.length; i++) {
    const g = v[i]!;
    const w = want[i]!;
    if (!Number.isFinite(w)) {
      // The baseline itself produced NaN/Inf: equal only if the kernel produced the same.
      if (!Object.is(g, w) && !(Number.isNaN(g) && Number.isNaN(w))) mismatched++;
      continue;
    }
    if (!Number.isFinite(g)) {
      nonFinite++;
      mismatched++;
      continue;
    }
    const abs = Math.abs(g - w);
    if (abs > maxAbs) maxAbs = abs;
    if (w !== 0) maxRel = Math.max(maxRel, abs / Math.abs(w));
    if (!(abs <= tolerance.atol + tolerance.rtol * Math.abs(w))) mismatched++;
    dot += g * w;
    normGot += g * g;
    normWant += w * w;
  }
  const cosine =
    normGot > 0 && normWant > 0 ? dot / Math.sqrt(normGot * normWant) : normGot === normWant ? 1 : 0;
  return {
    arg: got.arg,
    maxAbsError: maxAbs,
    maxRelError: maxRel,
    cosine,
    mismatched,
    unwritten: got.unwritten,
    nonFinite: Math.max(0, nonFinite - got.unwritten),
    pass: mismatched === 0 && got.unwritten === 0,
  };
}
