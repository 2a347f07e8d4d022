// Stage 5 of a benchmark: its results as one document, made from the sizes measured so far: after
// each size while the sweep runs (with the count still pending), and once more when it is done.
import { dirname } from "node:path";
import type { TimingOptions } from "../../native/runner/protocol";
import type { BuiltKernels } from "./build";
import type { AppliedCalibration } from "./calibration";
import { type BenchEnvironment, environmentInfo } from "./environment";
import { cppName } from "./harness";
import type { PreparedBench } from "./prepare";
import { pointPassed } from "./report";
import { type BenchRunResults, type PointResult, RESULTS_SCHEMA } from "./results";
import type { TorchBaseline } from "./torch/torchBaseline";

/** The results so far as a whole run, `pending` sizes still to come. */
export type Snapshot = (points: PointResult[], pending: number) => Promise<BenchRunResults>;

export interface FinishedStages {
  /** performance.now() and the ISO time when the run started. */
  started: number;
  startedAt: string;
  prepared: PreparedBench;
  env: BenchEnvironment;
  build: BuiltKernels;
  timing: TimingOptions;
  torch?: TorchBaseline | undefined;
  calibration: TimingCalibrationUse;
}

/** The event-overhead correction a run applies, if any, and its note (calibration.ts). */
export interface TimingCalibrationUse {
  applied?: AppliedCalibration;
  note: string;
}

/** Snapshots of this run; what they record of the environment is looked up once, from now on. */
export function snapshots(run: FinishedStages): Snapshot {
  const { prepared, build } = run;
  // Looked up while the first size runs; every snapshot shares it.
  const env = environmentInfo(run.env, dirname(prepared.file));
  env.catch(() => undefined); // awaited by each snapshot; a run cancelled before the first must not leave it unhandled
  return async (points, pending) => ({
    schema: RESULTS_SCHEMA,
    startedAt: run.startedAt,
    file: prepared.shownFile,
    kernel: prepared.kernel.name,
    instance: cppName(build.inst),
    ...(build.baseInst ? { baseline: cppName(build.baseInst) } : {}),
    env: await env,
    compile: build.info,
    timing: run.timing,
    points: [...points],
    ok: points.every(pointPassed),
    ...(run.torch ? { torch: run.torch.info } : {}),
    ...(run.calibration.applied ? { calibration: run.calibration.applied } : {}),
    timingNote: run.calibration.note,
    totalMs: performance.now() - run.started,
    ...(pending > 0 ? { pendingSizes: pending } : {}),
  });
}
