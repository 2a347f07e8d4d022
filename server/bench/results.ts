// The results of one benchmark run: what `cuda-kernel-dev bench --json` prints, what the results
// panel renders, and what a history line summarises. Versioned, since files of it are kept.
import { isRecord } from "../util/isRecord";
import type {
  DeviceAttributes,
  OutputCheck,
  RunnerError,
  SampleStats,
  TimingOptions,
} from "../../native/runner/protocol";
import type { AppliedCalibration, CorrectedStats } from "./calibration";
import type { TorchCheck } from "./torch/torchProtocol";

export const RESULTS_SCHEMA = 1;

/** One size of the sweep as launched: what the plan works out and what its result repeats. */
export interface PointShape {
  /** "rows=1024 cols=2048"; "default" when nothing is swept. */
  label: string;
  sizes: Record<string, number>;
  grid: [number, number, number];
  block: [number, number, number];
  dynamicSmemBytes: number;
  bytes?: number;
  flops?: number;
}

export interface PointResult extends PointShape {
  /** With a calibration, times less the event overhead and `eventMedianNs` the raw median (calibration.ts). */
  kernel?: CorrectedStats;
  baseline?: CorrectedStats;
  /** Derived from the median (see report.ts); absent without bytes/flops. */
  gbPerSec?: number;
  pctPeakBandwidth?: number;
  tflops?: number;
  baselineGbPerSec?: number;
  /** baseline median / kernel median: > 1 means the kernel is faster. */
  speedup?: number;
  checks: OutputCheck[];
  /** The PyTorch baseline at this size (`@bench torch`), when it ran. */
  torch?: TorchPointResult;
  /** This size failed (the sweep stops at a sticky error; later sizes are `skipped`). */
  error?: RunnerError;
  skipped?: boolean;
}

/** The PyTorch baseline of one size: the expression's times, and the kernel's outputs against its. */
export interface TorchPointResult {
  eager?: SampleStats;
  /** `torch.compile` of the expression, with `@bench torch.compile`. */
  compiled?: SampleStats;
  /** torch's median / the kernel's: > 1 means the kernel is faster. */
  speedup?: number;
  compiledSpeedup?: number;
  checks: TorchCheck[];
  /** torch.compile failed, in one line (the eager figures stand). */
  compileError?: string;
  /** The expression raised (with the spec line), or the sidecar failed: one line. */
  error?: string;
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
  /** The timing options every size ran with (the spec's over the defaults). */
  timing: TimingOptions;
  points: PointResult[];
  /** False when any size failed or an output check did not pass. */
  ok: boolean;
  /** Click to the last result, ms (compile included); to this snapshot's last result while sizes are pending. */
  totalMs: number;
  /** The PyTorch baseline asked for; `unavailable` says in one line why it did not run (no Python, torch, CUDA). */
  torch?: { expr: string; compile: boolean; torchVersion?: string; unavailable?: string };
  /** The event-overhead correction taken off every kernel and baseline time (calibration.ts). */
  calibration?: AppliedCalibration;
  /** One line on that correction: applied (when), or why not and how to get one. Absent in older results. */
  timingNote?: string;
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
    torchMedianNs?: number;
    torchCompiledMedianNs?: number;
    pass: boolean;
    error?: string;
  }[];
}

/** What results and history lines share: this schema, a kernel, its file and a list of points. */
function isVersionedRecord(x: unknown): x is Record<string, unknown> & { points: unknown[] } {
  return (
    isRecord(x) &&
    x.schema === RESULTS_SCHEMA &&
    typeof x.kernel === "string" &&
    typeof x.file === "string" &&
    Array.isArray(x.points)
  );
}

/** A structural check of results read from a file (the panel opens user-chosen files). */
export function isBenchRunResults(x: unknown): x is BenchRunResults {
  return (
    isVersionedRecord(x) &&
    isRecord(x.env) &&
    typeof x.env.device === "object" &&
    x.points.every((p) => isRecord(p) && typeof p.label === "string" && Array.isArray(p.checks))
  );
}

export function isHistoryEntry(x: unknown): x is HistoryEntry {
  return isVersionedRecord(x) && typeof x.time === "string";
}
