// Correctness of one output buffer: against the baseline's matching output when there is one, and
// always for elements the kernel never wrote (still poisoned) or that are not finite. The GPU sums the
// same figures in gpuData.cu's ckd_compare; toOutputCheck turns either's sums into the verdict.
import type { CompareSummary } from "../addon";
import type { OutputCheck, Tolerance } from "./protocol";

export interface CheckedOutput {
  arg: string;
  values: Float64Array;
  /** Elements still holding the poison pattern. */
  unwritten: number;
}

/** The verdict from the element sums (host or device); `compared`: there was a baseline output. */
export function toOutputCheck(arg: string, s: CompareSummary, compared: boolean): OutputCheck {
  if (!compared) {
    const unwrittenNonFinite = Math.min(s.nonFinite, s.unwritten);
    return {
      arg,
      maxAbsError: null,
      maxRelError: null,
      cosine: null,
      mismatched: 0,
      unwritten: s.unwritten,
      // Poisoned float elements are NaN too; count them once, as unwritten.
      nonFinite: s.nonFinite - unwrittenNonFinite,
      pass: s.unwritten === 0 && s.nonFinite === 0,
    };
  }
  const cosine =
    s.normGot > 0 && s.normWant > 0
      ? s.dot / Math.sqrt(s.normGot * s.normWant)
      : s.normGot === s.normWant
        ? 1
        : 0;
  return {
    arg,
    maxAbsError: s.maxAbsError,
    maxRelError: s.maxRelError,
    cosine,
    mismatched: s.mismatched,
    unwritten: s.unwritten,
    nonFinite: Math.max(0, s.nonFinite - s.unwritten),
    pass: s.mismatched === 0 && s.unwritten === 0,
  };
}

/** The host's element sums, element for element what ckd_compare decides. */
function sums(got: CheckedOutput, tolerance: Tolerance, want?: Float64Array): CompareSummary {
  const s: CompareSummary = {
    maxAbsError: 0,
    maxRelError: 0,
    mismatched: 0,
    unwritten: got.unwritten,
    nonFinite: 0,
    dot: 0,
    normGot: 0,
    normWant: 0,
  };
  const v = got.values;
  for (let i = 0; i < v.length; i++) {
    const g = v[i]!;
    if (want === undefined) {
      if (!Number.isFinite(g)) s.nonFinite++;
      continue;
    }
    const w = want[i]!;
    if (!Number.isFinite(w)) {
      // The baseline itself produced NaN/Inf: equal only if the kernel produced the same.
      if (!Object.is(g, w) && !(Number.isNaN(g) && Number.isNaN(w))) s.mismatched++;
      continue;
    }
    if (!Number.isFinite(g)) {
      s.nonFinite++;
      s.mismatched++;
      continue;
    }
    const abs = Math.abs(g - w);
    if (abs > s.maxAbsError) s.maxAbsError = abs;
    if (w !== 0) s.maxRelError = Math.max(s.maxRelError, abs / Math.abs(w));
    if (!(abs <= tolerance.atol + tolerance.rtol * Math.abs(w))) s.mismatched++;
    s.dot += g * w;
    s.normGot += g * g;
    s.normWant += w * w;
  }
  return s;
}

export function checkOutput(got: CheckedOutput, tolerance: Tolerance, want?: Float64Array): OutputCheck {
  if (want !== undefined && want.length !== got.values.length) {
    throw new Error(`output ${got.arg}: kernel has ${got.values.length} elements, baseline ${want.length}`);
  }
  return toOutputCheck(got.arg, sums(got, tolerance, want), want !== undefined);
}
