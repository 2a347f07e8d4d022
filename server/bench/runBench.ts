// One benchmark, from a file and a kernel name to results, in stages: prepare (the kernel and its
// spec, checked without a GPU) -> environment (driver, GPU, nvcc) -> compile (cached) -> run the
// points (one runner request per size) -> results. Used by the CLI, the extension and profiling
// alike; the caller owns the runner client and the history.
import {
  BenchError,
  type BenchJob,
  type BenchProgress,
  type BenchRunner,
  rethrowCancelled,
} from "./benchJob";
import { buildKernels } from "./build";
import { appliedOf, appliedThisRun, calibrationNote, loadCalibration } from "./calibration";
import { timeEmptyKernel } from "./emptyKernel";
import { type BenchEnvironment, checkEnvironment } from "./environment";
import { timingOf } from "./plan";
import { findKernel, planSizes, prepareBench } from "./prepare";
import type { BenchRunResults } from "./results";
import type { SizePoint } from "./plan";
import type { TimingOptions } from "../../native/runner/protocol";
import { errorMessage } from "../util/errorMessage";
import { type FinishedStages, snapshots, type TimingCalibrationUse } from "./snapshot";
import { runSweep } from "./sweep";
import { torchBaseline } from "./torch/torchBaseline";

// The benchmark's public face for its callers, wherever the stages keep them.
export { BenchError, type BenchJob, type BenchProgress, type BenchRunner, findKernel };

export async function runBenchmark(job: BenchJob): Promise<BenchRunResults> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  job.onProgress?.({ stage: "checking" });
  const prepared = await prepareBench(job);
  const env = await checkEnvironment(job);
  const points = planSizes(prepared, env.device);
  const timing = timingOf(prepared.spec);
  // Its sidecar starts now, so that torch loads while the kernel compiles and runs.
  const torch = torchBaseline(job, prepared.spec, prepared.shownFile, env.device, timing);
  try {
    return await compileAndRun(job, { started, startedAt, prepared, env, points, timing, torch });
  } finally {
    await torch?.close();
  }
}

async function compileAndRun(
  job: BenchJob,
  stages: Omit<FinishedStages, "build" | "calibration"> & { points: SizePoint[] },
): Promise<BenchRunResults> {
  const { started, startedAt, prepared, env, points, timing, torch } = stages;
  const build = await buildKernels(job, prepared, env);
  const calibration = await calibrationFor(job, env, timing);
  const snapshot = snapshots({ started, startedAt, prepared, env, build, timing, torch, calibration });
  const offsetNs = calibration.applied?.offsetNs;
  const sweep = {
    points,
    build,
    device: env.device,
    timing,
    torch,
    ...(offsetNs !== undefined ? { offsetNs } : {}),
  };
  const results = await runSweep(job, sweep, snapshot);
  return snapshot(results, 0);
}

/** This GPU's event-overhead calibration, if any, with this run's empty kernel, and the results' note on it. */
async function calibrationFor(
  job: BenchJob,
  env: BenchEnvironment,
  timing: TimingOptions,
): Promise<TimingCalibrationUse> {
  const { calibration, note } = await loadCalibration(
    env.device.name,
    env.driverVersion,
    job.calibrationPath,
  );
  const notes = note ? [note] : [];
  let applied = calibration && appliedOf(calibration);
  if (applied && job.eventOverheadPerRun !== false)
    try {
      applied = appliedThisRun(applied, await timeEmptyKernel(job, env.nvcc, env.device, timing));
    } catch (e) {
      rethrowCancelled(e);
      notes.push(
        `the empty kernel could not be timed in this run (${errorMessage(e)}): the cached offset applies`,
      );
    }
  const line = calibrationNote(applied);
  return { ...(applied ? { applied } : {}), note: [...notes, line].join("; ") };
}
