// The results of one benchmark run: what `cuda-kernel-dev bench --json` prints, what the results
// panel renders, and what a history line summarises. Versioned, since files of it are kept.
import type { DeviceAttributes, OutputCheck, RunnerError, SampleStats } from "../../native/runner/protocol";

export const RESULTS_SCHEMA = 1;

export interface PointResult {
  /** "rows=1024 cols=2048" */
  label: string;
  sizes: Record<string, number>;
  grid: [number, number, number];
  block: [number, number, number];
  dynamicSmemBytes: number;
  bytes?: number;
  flops?: number;
  kernel?: SampleStats;
  baseline?: SampleStats;
  /** Derived from the median (see report.ts); absent without bytes/flops. */
  gbPerSec?: number;
  pctPeakBandwidth?: number;
  tflops?: number;
  baselineGbPerSec?: number;
  /** baseline median / kernel median: > 1 means the kernel is faster. */
  speedup?: number;
  checks: OutputCheck[];
  /** This size failed (the sweep stops at a sticky error; later sizes are `skipped`). */
  error?: RunnerError;
  skipped?: boolean;
}

export interface CompileInfo {
  arch: string;
  cached: boolean;
  ms: number;
  symbol: string;
  baselineSymbol?: string;
  /** ptxas -v figures for the kernel, when reported. */
  registers?: number;
  sharedBytes?: number;
  spillBytes?: number;
  flagsFrom: string;
}

export interface EnvironmentInfo {
  device: DeviceAttributes;
  driverVersion: number | null;
  nvccVersion: string;
  /** `git rev-parse HEAD` of the file's repository; "+dirty" appended with uncommitted changes. */
  gitCommit?: string;
  host: string;
}

export interface BenchRunResults {
  schema: typeof RESULTS_SCHEMA;
  /** ISO time the run started. */
  startedAt: string;
  /** The source file, relative to the workspace when inside it. */
  file: string;
  kernel: string;
  /** e.g. "copy_vec<__nv_bfloat16, 8, true>" */
  instance: string;
  baseline?: string;
  env: EnvironmentInfo;
  compile: CompileInfo;
  timing: {
    warmupRuns: number;
    minSamples: number;
    maxSamples: number;
    targetRsdPct: number;
    budgetMs: number;
    flushL2: boolean;
  };
  points: PointResult[];
  /** False when any size failed or an output check did not pass. */
  ok: boolean;
  /** Click to the last result, ms (compile included); to this snapshot's last result while sizes are pending. */
  totalMs: number;
  /** Sizes still to run: present only in the snapshots shown while a sweep is in progress. */
  pendingSizes?: number;
}

/** One line of the history file: a run summarised per size. */
export interface HistoryEntry {
  schema: typeof RESULTS_SCHEMA;
  time: string;
  file: string;
  kernel: string;
  instance: string;
  baseline?: string;
  gitCommit?: string;
  gpu: string;
  computeCapability: string;
  driverVersion: number | null;
  /** The device's max SM and memory clocks, kHz: context for comparing runs across machines. */
  smClockKHz: number;
  memClockKHz: number;
  points: {
    label: string;
    medianNs?: number;
    baselineMedianNs?: number;
    gbPerSec?: number;
    pctPeakBandwidth?: number;
    tflops?: number;
    speedup?: number;
    pass: boolean;
    error?: string;
  }[];
}

/** A structural check of results read from a file (the panel opens user-chosen files). */
export function isBenchRunResults(x: unknown): x is BenchRunResults {
  if (typeof x !== "object" || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    o.schema === RESULTS_SCHEMA &&
    typeof o.kernel === "string" &&
    typeof o.file === "string" &&
    typeof o.env === "object" &&
    o.env !== null &&
    typeof (o.env as Record<string, unknown>).device === "object" &&
    Array.isArray(o.points) &&
    o.points.every(
      (p: unknown) =>
        typeof p === "object" &&
        p !== null &&
        typeof (p as Record<string, unknown>).label === "string" &&
        Array.isArray((p as Record<string, unknown>).checks),
    )
  );
}

export function isHistoryEntry(x: unknown): x is HistoryEntry {
  if (typeof x !== "object" || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    o.schema === RESULTS_SCHEMA &&
    typeof o.time === "string" &&
    typeof o.kernel === "string" &&
    typeof o.file === "string" &&
    Array.isArray(o.points)
  );
}
