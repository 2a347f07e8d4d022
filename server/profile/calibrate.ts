// `cuda-kernel-dev bench --calibrate` and the extension's calibration command: an empty <<<1,1>>>
// kernel timed by the runner exactly as a user kernel is (L2 flush, blocking kernel, events, the
// stdrel stopping rule), then by Nsight Compute (the runner under ncu, as profiling runs it:
// --clock-control none --cache-control all, gpu__time_duration.sum, NCU_LAUNCHES launches, their
// interquartile mean); the difference is the events' own overhead on this GPU, kept per GPU and driver in the
// user's cache folder (server/bench/calibration.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchmarkRequest, TimingOptions } from "../../native/runner/protocol";
import { RunnerClient, RunnerRequestError } from "../../native/runner/runnerClient";
import { midMean } from "../../native/runner/stats";
import { BenchError, type BenchRunner } from "../bench/benchJob";
import { calibrationPath, saveCalibration, type TimingCalibration } from "../bench/calibration";
import { compileEmptyKernel, EMPTY_KERNEL, EMPTY_SYMBOL, eventFigure } from "../bench/emptyKernel";
import { DEFAULT_TIMING } from "../bench/plan";
import { resolveNvcc } from "../compiler/nvcc";
import { errorMessage } from "../util/errorMessage";
import { exportPage, ncuFailureMessage } from "./ncuCli";
import { parseNcuCsv } from "./ncuCsv";

/** Launches ncu measures (each after its own cache flush); the median of them is ncu's figure. */
export const NCU_LAUNCHES = 20;
const METRIC = "gpu__time_duration.sum";
/** The event time's median over this many runs of the default timing: one run's median moves by ~50 ns. */
const EVENT_RUNS = 3;

export interface CalibrateJob {
  /** Answers hello, devices and the event-timed benchmark. */
  runner: BenchRunner;
  ncuPath: string;
  /** dist/runner.js and the node that runs it, for the runner started under ncu. */
  runnerPath: string;
  execPath: string;
  device?: number;
  nvccPath?: string;
  /** Where the calibration is kept; default: the user's cache folder. */
  path?: string;
  signal?: AbortSignal;
  /** A line for each step, for a progress notification or stderr. */
  onStep?: (message: string) => void;
  /** ncu's lines (==PROF== ...), for the log. */
  onLine?: (line: string) => void;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Under ncu: no warm-up and a fixed count, more launches than ncu profiles. */
const NCU_TIMING: TimingOptions = {
  warmupRuns: 0,
  minSamples: NCU_LAUNCHES + 5,
  maxSamples: NCU_LAUNCHES + 5,
  targetRsdPct: 0,
  budgetMs: 60_000,
  flushL2: true,
};

export function ncuArgs(report: string): string[] {
  return [
    ...["--clock-control", "none", "--cache-control", "all", "--metrics", METRIC],
    ...["--kernel-name-base", "mangled", "-k", EMPTY_SYMBOL, "-c", String(NCU_LAUNCHES), "-f", "-o", report],
  ];
}

/**
 * The runner's figure of the empty kernel between its events, as a user kernel is timed: the median of
 * EVENT_RUNS runs' mid-means (eventFigure).
 */
async function eventNs(job: CalibrateJob, req: BenchmarkRequest): Promise<number> {
  const figures: number[] = [];
  for (let i = 0; i < EVENT_RUNS; i++) {
    const r = await job.runner.request("benchmark", req, job.signal ? { signal: job.signal } : {});
    if (r.kernel.blocked === false)
      throw new BenchError(
        "CALIBRATION",
        "the blocking kernel could not hold the stream, so the events include the launch latency; calibrate without a profiler or CUDA_LAUNCH_BLOCKING",
      );
    figures.push(eventFigure(r.kernel));
  }
  return median(figures);
}

/** ncu's gpu__time_duration of the empty kernel (midMean of its launches), from the runner run under ncu. */
async function ncuNs(job: CalibrateJob, req: BenchmarkRequest, dir: string): Promise<number> {
  const report = join(dir, "calibration");
  let output = "";
  const underNcu = new RunnerClient({
    runnerPath: job.runnerPath,
    execPath: job.execPath,
    wrapper: { command: job.ncuPath, args: ncuArgs(report), tool: "ncu", setting: "cudaKernelDev.ncu.path" },
    oneShot: true,
    timeoutSeconds: Infinity, // ncu replays; silence says nothing about a hang
    log: (line) => {
      output += `${line}\n`;
      job.onLine?.(line);
    },
  });
  try {
    await underNcu.request(
      "benchmark",
      { ...req, timing: NCU_TIMING },
      job.signal ? { signal: job.signal } : {},
    );
  } catch (e) {
    if (e instanceof RunnerRequestError && e.code === "CANCELLED")
      throw new BenchError("CANCELLED", "cancelled");
    throw new BenchError("CALIBRATION", `ncu failed: ${errorMessage(e)}; ${ncuFailureMessage(output)}`);
  } finally {
    await underNcu.dispose();
  }
  const csv = join(dir, "raw.csv");
  await exportPage(job.ncuPath, `${report}.ncu-rep`, "raw", csv, job.signal);
  const page = await parseNcuCsv({ path: csv });
  const times = (page.page === "raw" ? page.launches : [])
    .map((l) => l.metrics.get(METRIC)?.value)
    .filter((v): v is number => typeof v === "number" && v > 0);
  if (times.length < 15)
    throw new BenchError(
      "CALIBRATION",
      `ncu measured ${times.length} launches of the empty kernel, fewer than 15`,
    );
  return midMean(times);
}

/** The GPU's name and driver, from the runner; MISSING without either. */
async function gpu(job: CalibrateJob): Promise<{ name: string; cc: string; driverVersion: number }> {
  const hello = await job.runner.request("hello", {});
  if (hello.error || hello.driverVersion === null)
    throw new BenchError("MISSING", `cannot calibrate here: ${hello.error?.message ?? "no NVIDIA driver"}`);
  const devices = await job.runner.request("devices", {});
  const d = devices.find((x) => x.ordinal === (job.device ?? 0));
  if (!d) throw new BenchError("MISSING", `cannot calibrate here: no GPU ${job.device ?? 0}`);
  return { name: d.name, cc: d.computeCapability, driverVersion: hello.driverVersion };
}

/** Measures this GPU's event overhead against ncu and keeps it; resolves with what was kept. */
export async function calibrate(job: CalibrateJob): Promise<TimingCalibration> {
  const dev = await gpu(job);
  const nvcc = await resolveNvcc(job.nvccPath);
  const dir = await mkdtemp(join(tmpdir(), "cuda-kernel-dev-calibrate-"));
  try {
    job.onStep?.("compiling an empty kernel…");
    const arch = `sm_${dev.cc.replace(".", "")}`;
    const cubinPath = await compileEmptyKernel(nvcc, arch, join(dir, "empty.cubin"), job.signal);
    const req: BenchmarkRequest = {
      cubinPath,
      device: job.device ?? 0,
      kernel: EMPTY_KERNEL,
      timing: DEFAULT_TIMING,
    };
    job.onStep?.("timing it with CUDA events…");
    const events = await eventNs(job, req);
    job.onStep?.(`timing it with Nsight Compute (${NCU_LAUNCHES} launches)…`);
    const ncu = await ncuNs(job, req, dir);
    if (events < ncu)
      throw new BenchError(
        "CALIBRATION",
        `the events read ${events.toFixed(0)} ns, below ncu's ${ncu.toFixed(0)} ns: nothing to correct, nothing kept`,
      );
    const c: TimingCalibration = {
      gpu: dev.name,
      driverVersion: dev.driverVersion,
      offsetNs: events - ncu,
      eventNs: events,
      ncuNs: ncu,
      ncuLaunches: NCU_LAUNCHES,
      calibratedAt: new Date().toISOString(),
    };
    await saveCalibration(c, job.path ?? calibrationPath());
    return c;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
