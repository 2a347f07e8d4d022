// Summary statistics of timing samples, as nvbench reports them (RSD = sample stdev / mean).
import type { SampleStats } from "./protocol";

export type Summary = Omit<SampleStats, "stoppedBy" | "gbPerSec" | "pctPeakBandwidth" | "tflops">;

export function summarize(samplesNs: readonly number[]): Summary {
  const n = samplesNs.length;
  if (n === 0) throw new Error("no samples to summarize");
  const sorted = [...samplesNs].sort((a, b) => a - b);
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const mean = sorted.reduce((s, x) => s + x, 0) / n;
  const variance = n > 1 ? sorted.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1) : 0;
  const stdev = Math.sqrt(variance);
  return {
    samples: n,
    medianNs: median,
    minNs: sorted[0]!,
    maxNs: sorted[n - 1]!,
    meanNs: mean,
    stdevNs: stdev,
    rsdPct: mean > 0 ? (stdev / mean) * 100 : 0,
  };
}

/** Running mean and variance (Welford), so the stop test costs O(1) per sample. */
export class RunningStats {
  private n = 0;
  private mean = 0;
  private m2 = 0;

  add(x: number): void {
    this.n++;
    const d = x - this.mean;
    this.mean += d / this.n;
    this.m2 += d * (x - this.mean);
  }

  get count(): number {
    return this.n;
  }

  /** Relative standard deviation in percent; Infinity until there are two samples. */
  get rsdPct(): number {
    if (this.n < 2 || this.mean <= 0) return Infinity;
    return (Math.sqrt(this.m2 / (this.n - 1)) / this.mean) * 100;
  }
}
