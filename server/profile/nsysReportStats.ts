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
  let busy = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const iv of intervals) {
    if (iv.startNs > curEnd) {
      if (curEnd > curStart) busy += curEnd - curStart;
      curStart = iv.startNs;
      curEnd = iv.endNs;
    } else if (iv.endNs > curEnd) curEnd = iv.endNs;
  }
  if (curEnd > curStart) busy += curEnd - curStart;
  return busy;
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
