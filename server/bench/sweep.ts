// Stage 4 of a benchmark: one runner request per size, in order, with the figures derived from each
// answer. A size that fails is recorded and the sweep goes on, unless the failure would only happen
// again (a sticky fault, a hang, a crash): then the sizes left are marked skipped. With a PyTorch
// baseline, its sizes follow all the kernel's, one at a time: the kernel's figures show as soon as
// they exist, torch's import overlaps with them, and the two never time on the GPU at once.
import type {
  BenchmarkRequest,
  BenchmarkResult,
  DeviceAttributes,
  LaunchSpec,
  RunnerError,
  SampleStats,
  TimingOptions,
} from "../../native/runner/protocol";
import { errorMessage } from "../util/errorMessage";
import { type BenchJob, isRunnerError, rethrowCancelled, signalOf } from "./benchJob";
import type { BuiltKernels } from "./build";
import { correctStats } from "./calibration";
import { cppName, type KernelInstance } from "./harness";
import type { SizePoint } from "./plan";
import { derive, speedup } from "./report";
import type { BenchRunResults, PointResult, PointShape } from "./results";
import type { Snapshot } from "./snapshot";
import type { TorchBaseline } from "./torch/torchBaseline";

export interface Sweep {
  points: SizePoint[];
  build: BuiltKernels;
  device: DeviceAttributes;
  timing: TimingOptions;
  /** The PyTorch baseline, run after the kernel's sizes, size by size. */
  torch?: TorchBaseline;
  /** The calibrated event overhead to take off the kernel's and baseline's times (calibration.ts). */
  offsetNs?: number;
}

function launch(
  inst: KernelInstance,
  symbol: string,
  p: SizePoint,
  shape: Pick<SizePoint, "grid" | "block" | "dynamicSmemBytes"> = p,
): LaunchSpec {
  return {
    symbol,
    displayName: cppName(inst),
    grid: shape.grid,
    block: shape.block,
    dynamicSmemBytes: shape.dynamicSmemBytes,
    args: p.args,
  };
}

function requestFor(sweep: Sweep, p: SizePoint, outputsDir: string | undefined): BenchmarkRequest {
  const { inst, baseInst, cubinPath, info } = sweep.build;
  return {
    cubinPath,
    device: sweep.device.ordinal,
    kernel: launch(inst, info.symbol, p),
    ...(baseInst && info.baselineSymbol
      ? { baseline: launch(baseInst, info.baselineSymbol, p, p.baselineLaunch) }
      : {}),
    timing: sweep.timing,
    ...(p.bytes !== undefined ? { bytes: p.bytes } : {}),
    ...(p.flops !== undefined ? { flops: p.flops } : {}),
    ...(outputsDir ? { outputsDir } : {}),
  };
}

/** A failed request as a size's error; a cancelled run is thrown instead. */
function failure(e: unknown): RunnerError {
  rethrowCancelled(e);
  return isRunnerError(e)
    ? {
        code: e.code,
        message: e.message,
        ...(e.call ? { call: e.call } : {}),
        ...(e.kernel ? { kernel: e.kernel } : {}),
        ...(e.sticky ? { sticky: e.sticky } : {}),
      }
    : { code: "INTERNAL", message: errorMessage(e) };
}

/** A fault or a hang will happen again at the next size; a bad request might not. */
function stopsTheSweep(err: RunnerError): boolean {
  return !!err.sticky || err.code === "TIMEOUT" || err.code === "CRASHED" || err.code === "STOPPED";
}

/** Size `i` measured, or the runner's error for it. */
async function measure(
  job: BenchJob,
  sweep: Sweep,
  i: number,
  outputsDir: string | undefined,
): Promise<{ result: BenchmarkResult } | { error: RunnerError }> {
  const p = sweep.points[i]!;
  const where = { point: i, points: sweep.points.length, label: p.label };
  job.onProgress?.({ stage: "running", ...where });
  try {
    const result = await job.runner.request("benchmark", requestFor(sweep, p, outputsDir), {
      ...signalOf(job),
      onProgress: (pr) =>
        job.onProgress?.({ stage: "running", ...where, phase: pr.phase, samples: pr.samples }),
    });
    return { result };
  } catch (e) {
    return { error: failure(e) };
  }
}

/**
 * A size's result: the runner's figures (less the calibrated event overhead, when there is one) and
 * those derived from the median and the GPU's peak.
 */
function measured(
  shape: PointResult,
  p: SizePoint,
  r: BenchmarkResult,
  peakGBs: number,
  offsetNs: number | undefined,
): PointResult {
  // Not behind the blocking kernel, the launch latency is in the times and dwarfs the offset: left as is.
  const fix = (s: SampleStats) =>
    offsetNs === undefined || s.blocked === false ? s : correctStats(s, offsetNs);
  const rk = fix(r.kernel);
  const rb = r.baseline && fix(r.baseline);
  const k = { ...rk, ...derive(rk, p.bytes, p.flops, peakGBs) };
  const b = rb ? { ...rb, ...derive(rb, p.bytes, p.flops, peakGBs) } : undefined;
  // The runner's speedup is of the raw medians; with a correction it is worked out again.
  const sp = (offsetNs === undefined ? r.speedup : undefined) ?? speedup(rk, rb);
  return {
    ...shape,
    kernel: k,
    ...(b ? { baseline: b } : {}),
    ...(k.gbPerSec !== undefined ? { gbPerSec: k.gbPerSec } : {}),
    ...(k.pctPeakBandwidth !== undefined ? { pctPeakBandwidth: k.pctPeakBandwidth } : {}),
    ...(k.tflops !== undefined ? { tflops: k.tflops } : {}),
    ...(b?.gbPerSec !== undefined ? { baselineGbPerSec: b.gbPerSec } : {}),
    ...(sp !== undefined ? { speedup: sp } : {}),
    checks: r.checks,
  };
}

/** What a size's result repeats of its plan, before anything is measured. */
function shapeOf(p: SizePoint): PointResult {
  const shape: PointShape = {
    label: p.label,
    sizes: p.sizes,
    grid: p.grid,
    block: p.block,
    dynamicSmemBytes: p.dynamicSmemBytes,
    ...(p.bytes !== undefined ? { bytes: p.bytes } : {}),
    ...(p.flops !== undefined ? { flops: p.flops } : {}),
  };
  return { ...shape, checks: [] };
}

/** Runs every size; after each one measured, the results so far go to the job's progress. */
export async function runSweep(job: BenchJob, sweep: Sweep, snapshot: Snapshot): Promise<PointResult[]> {
  const results: PointResult[] = [];
  // Size i's kernel outputs, kept for torch's check until its turn.
  const dirs: (string | undefined)[] = [];
  try {
    let stopped = false;
    for (const [i, p] of sweep.points.entries()) {
      const shape = shapeOf(p);
      if (stopped) {
        results.push({ ...shape, skipped: true });
        continue;
      }
      // Held in `dirs` from the start: a measure that throws (a cancel) must not leave the folder behind.
      const dir = (dirs[i] = await sweep.torch?.outputsDir());
      const m = await measure(job, sweep, i, dir);
      if ("error" in m) {
        results.push({ ...shape, error: m.error });
        dirs[i] = undefined;
        await sweep.torch?.discard(dir);
        if (stopsTheSweep(m.error)) stopped = true;
        continue;
      }
      results.push(measured(shape, p, m.result, sweep.device.peakDramBandwidthGBs, sweep.offsetNs));
      await report(job, "result", i, sweep, () => snapshot(results, sweep.points.length - i - 1));
    }
    if (sweep.torch) await torchSizes(job, { ...sweep, torch: sweep.torch }, results, dirs, snapshot);
  } finally {
    const torch = sweep.torch;
    if (torch) await Promise.all(dirs.map((d) => torch.discard(d)));
  }
  return results;
}

/** torch at each size the kernel has figures for; each answer goes to the job's progress. */
async function torchSizes(
  job: BenchJob,
  sweep: Sweep & { torch: TorchBaseline },
  results: PointResult[],
  dirs: (string | undefined)[],
  snapshot: Snapshot,
): Promise<void> {
  for (const [i, dir] of dirs.entries()) {
    if (!dir) continue;
    dirs[i] = undefined; // run() removes it
    const torch = await sweep.torch.run(sweep.points[i]!, dir, results[i]!, sweep.offsetNs);
    if (!torch) continue;
    results[i] = { ...results[i]!, torch };
    await report(job, "torch", i, sweep, () => snapshot(results, 0));
  }
}

async function report(
  job: BenchJob,
  stage: "result" | "torch",
  i: number,
  sweep: Sweep,
  sofar: () => Promise<BenchRunResults>,
): Promise<void> {
  if (!job.onProgress) return;
  const where = { point: i, points: sweep.points.length, label: sweep.points[i]!.label };
  job.onProgress({ stage, ...where, results: await sofar() });
}
