// Duration statistics the way `nsys stats` prints them (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum,
// nvtx_sum): total, instances, mean, median, min, max, sample standard deviation; means and the
// rest rounded to 0.1 ns, as nsys prints them. And the union of intervals, for busy/idle time.

export interface DurationStats {
  instances: number;
  totalNs: number;
  avgNs: number;
  medNs: number;
  minNs: number;
  maxNs: number;
  /** Sample standard deviation (n - 1); 0 for one instance. */
  stdDevNs: number;
}

export const round1 = (v: number): number => Math.round(v * 10) / 10;

/** Statistics of `durations` (sorted in place). */
export function durationStats(durations: number[]): DurationStats {
  const n = durations.length;
  if (n === 0) return { instances: 0, totalNs: 0, avgNs: 0, medNs: 0, minNs: 0, maxNs: 0, stdDevNs: 0 };
  durations.sort((a, b) => a - b);
  let total = 0;
  for (const d of durations) total += d;
  const mean = total / n;
  let sq = 0;
  for (const d of durations) sq += (d - mean) * (d - mean);
  const mid = n >> 1;
  const med = n % 2 === 1 ? durations[mid]! : (durations[mid - 1]! + durations[mid]!) / 2;
  return {
    instances: n,
    totalNs: total,
    avgNs: round1(mean),
    medNs: round1(med),
    minNs: durations[0]!,
    maxNs: durations[n - 1]!,
    stdDevNs: n > 1 ? round1(Math.sqrt(sq / (n - 1))) : 0,
  };
}

/** Groups items by key, keeping first-seen order. */
export function groupBy<T>(items: Iterable<T>, key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

/** Time covered by at least one of the intervals, which must be sorted by start. */
export function unionNs(intervals: readonly { startNs: number; endNs: number }[]): number {
  const u = new RunningUnion();
  for (const iv of intervals) u.add(iv.startNs, iv.endNs);
  return u.totalNs;
}

/** Index of the first element of `sorted` whose key is >= v. */
export function lowerBound<T>(
  sorted: readonly T[],
  v: number,
  key: (t: T) => number,
  from = 0,
  to = sorted.length,
): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(sorted[mid]!) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Durations counted by value: durationStats of the same values, to the bit (the sums run over the
 * values in ascending order, as durationStats adds its sorted array), in memory that grows with the
 * distinct durations, not with the instances (a kernel's durations in ns repeat: its millions of
 * launches take a few thousand distinct values).
 */
export class DurationHistogram {
  private readonly counts = new Map<number, number>();
  private n = 0;

  add(d: number): void {
    this.counts.set(d, (this.counts.get(d) ?? 0) + 1);
    this.n++;
  }

  get instances(): number {
    return this.n;
  }

  stats(): DurationStats {
    const n = this.n;
    if (n === 0) return durationStats([]);
    const values = [...this.counts.keys()].sort((a, b) => a - b);
    let total = 0;
    for (const d of values) for (let c = this.counts.get(d)!; c > 0; c--) total += d;
    const mean = total / n;
    let sq = 0;
    for (const d of values) for (let c = this.counts.get(d)!; c > 0; c--) sq += (d - mean) * (d - mean);
    const mid = n >> 1;
    const med = n % 2 === 1 ? this.at(values, mid) : (this.at(values, mid - 1) + this.at(values, mid)) / 2;
    return {
      instances: n,
      totalNs: total,
      avgNs: round1(mean),
      medNs: round1(med),
      minNs: values[0]!,
      maxNs: values.at(-1)!,
      stdDevNs: n > 1 ? round1(Math.sqrt(sq / (n - 1))) : 0,
    };
  }

  /** The value at index I of the sorted durations. */
  private at(values: number[], i: number): number {
    let seen = 0;
    for (const d of values) {
      seen += this.counts.get(d)!;
      if (i < seen) return d;
    }
    throw new Error(`index ${i} past ${this.n} durations`);
  }
}

/** The running union of intervals fed in order of start (unionNs of an array). */
export class RunningUnion {
  private busy = 0;
  private curStart = -Infinity;
  private curEnd = -Infinity;

  add(startNs: number, endNs: number): void {
    if (startNs > this.curEnd) {
      if (this.curEnd > this.curStart) this.busy += this.curEnd - this.curStart;
      this.curStart = startNs;
      this.curEnd = endNs;
    } else if (endNs > this.curEnd) this.curEnd = endNs;
  }

  get totalNs(): number {
    return this.busy + (this.curEnd > this.curStart ? this.curEnd - this.curStart : 0);
  }
}
