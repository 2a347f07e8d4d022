// Summary statistics of timing samples, as nvbench reports them (RSD = sample stdev / mean).
import type { SampleStats, TimingOptions } from "./protocol";

export type Summary = Omit<SampleStats, "stoppedBy" | "gbPerSec" | "pctPeakBandwidth" | "tflops">;

/**
 * The mean of the middle half of the samples (the interquartile mean): events and ncu's durations tick
 * in 32 ns on an H100, and a median of samples on two or three ticks snaps to one of them (ncu's median
 * of 20 empty-kernel launches read 2.048-2.144 µs over six processes, this 2.084-2.108); the outer
 * quarters still drop a stray sample.
 */
export function midMean(xs: readonly number[]): number {
  return midMeanOfSorted([...xs].sort((a, b) => a - b));
}

function midMeanOfSorted(sorted: readonly number[]): number {
  const middle = sorted.slice(Math.floor(sorted.length / 4), Math.ceil((sorted.length * 3) / 4));
  return middle.reduce((s, x) => s + x, 0) / middle.length;
}

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
    midMeanNs: midMeanOfSorted(sorted),
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

/** How many running-RSD values the convergence test looks back over, and how often it looks (nvbench). */
export const NOISE_WINDOW = 512;
export const NOISE_CHECK_EVERY = 50;
/** The noise has settled when those values vary by less than this fraction of the current one. */
export const NOISE_SETTLED = 0.05;

/**
 * When to stop sampling, as nvbench's `stdrel` criterion decides it: the RSD target met with at least
 * minSamples; or, for a kernel whose noise sits above the target for good (small kernels), the noise
 * settled: the last NOISE_WINDOW running-RSD values have a standard deviation under 5% of the current
 * RSD, checked every NOISE_CHECK_EVERY samples. Else the sample cap or the time budget ends it.
 */
export class StoppingRule {
  private readonly stats = new RunningStats();
  private readonly noise: number[] = [];
  private next = 0;

  constructor(
    private readonly t: Pick<TimingOptions, "minSamples" | "maxSamples" | "targetRsdPct" | "budgetMs">,
  ) {}

  /** Adds one sample; returns why to stop now, or undefined to go on. */
  add(sampleNs: number, elapsedMs: number): SampleStats["stoppedBy"] | undefined {
    this.stats.add(sampleNs);
    const rsd = this.stats.rsdPct;
    const n = this.stats.count;
    if (Number.isFinite(rsd)) {
      if (this.noise.length < NOISE_WINDOW) this.noise.push(rsd);
      else this.noise[this.next] = rsd;
      this.next = (this.next + 1) % NOISE_WINDOW;
    }
    if (n >= this.t.minSamples && rsd <= this.t.targetRsdPct) return "rsd";
    if (n >= this.t.minSamples && n % NOISE_CHECK_EVERY === 0 && this.settled(rsd)) return "converged";
    if (n >= this.t.maxSamples) return "maxSamples";
    if (elapsedMs >= this.t.budgetMs) return "budget";
    return undefined;
  }

  get rsdPct(): number {
    return this.stats.rsdPct;
  }

  private settled(current: number): boolean {
    if (this.noise.length < NOISE_WINDOW || !(current > 0)) return false;
    // Spread of the recent noise values around the current one, relative to it.
    const spread = Math.sqrt(
      this.noise.reduce((s, x) => s + (x - current) ** 2, 0) / (this.noise.length - 1),
    );
    return spread / current < NOISE_SETTLED;
  }
}
