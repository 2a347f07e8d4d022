// An empty <<<1,1>>> kernel: its event time is the events' own overhead. `--calibrate` times it by
// events and by ncu (server/profile/calibrate.ts); a calibrated run times it again, by events, in its
// own runner process, just before its first size, and takes off this run's figure less ncu's cached
// one. The overhead moves between runner processes (the H100: 2.98-3.17 µs, sd 69 ns, over 20
// processes) and a small kernel's event time moves with it (vector add n=65,536 less this process's
// empty kernel: sd 41 ns; less another process's, as a cached offset is: sd 99 ns; issue 13).
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { LaunchSpec, SampleStats, TimingOptions } from "../../native/runner/protocol";
import { runProcess } from "../process/launch";
import { BenchError, type BenchRunner, signalOf, type BenchJob } from "./benchJob";

export const EMPTY_SYMBOL = "ckd_calibration_empty";

export const EMPTY_KERNEL: LaunchSpec = {
  symbol: EMPTY_SYMBOL,
  displayName: "empty <<<1, 1>>> (timing calibration)",
  grid: [1, 1, 1],
  block: [1, 1, 1],
  dynamicSmemBytes: 0,
  args: [],
};

/**
 * A run's timing of it: 200 samples (the default rule, never reaching 0.5% RSD at 3 µs, runs to its
 * noise check, 600-2000 samples). Its request costs ~130 ms in a fresh runner process on the H100,
 * most of it the process's first-request setup that the first size would otherwise pay; in a warm
 * runner (the extension's) the first size showed no measurable delay.
 */
export function emptyTiming(timing: TimingOptions): TimingOptions {
  return { ...timing, warmupRuns: 3, minSamples: 10, maxSamples: 200, budgetMs: 500 };
}

/** Compiles the empty kernel for `arch` to `path` (whole or not at all: runs may share the folder). */
export async function compileEmptyKernel(
  nvcc: string,
  arch: string,
  path: string,
  signal?: AbortSignal,
): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const dir = await mkdtemp(`${path}.`);
  try {
    const src = join(dir, "empty.cu");
    const cubin = join(dir, "empty.cubin");
    await writeFile(src, `extern "C" __global__ void ${EMPTY_SYMBOL}() {}\n`);
    const r = await runProcess(nvcc, ["-cubin", `-arch=${arch}`, "-o", cubin, src], {
      tool: "nvcc",
      privateTmpDir: true,
      ...(signal ? { signal } : {}),
    });
    if (r.exitCode !== 0)
      throw new BenchError("COMPILE", `nvcc failed on the empty kernel: ${r.stderr.trim()}`);
    await rename(cubin, path);
    return path;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The empty kernel's cubin for this GPU in the job's cache folder, compiled on first use. */
async function cachedEmptyKernel(job: BenchJob, nvcc: string, arch: string): Promise<string> {
  const path = join(job.cacheDir, `ckd-empty-${arch}.cubin`);
  const there = await stat(path).then(
    (s) => s.size > 0,
    () => false,
  );
  return there ? path : compileEmptyKernel(nvcc, arch, path, job.signal);
}

/**
 * The empty kernel's event time, for an offset: the mid-mean of its samples (a runner from before it
 * existed: the median). Events tick in 32 ns on an H100, and the empty kernel's samples sit on two or
 * three ticks, so its median snaps to one of them and moved by up to 64 ns against the mid-mean from
 * process to process; the mid-mean follows the level between ticks (H100, 5 processes: vector add
 * n=65,536's mid-mean less the empty kernel's, sd 30 ns across processes; medians, 67 ns).
 */
export function eventFigure(s: Pick<SampleStats, "medianNs" | "midMeanNs">): number {
  return s.midMeanNs ?? s.medianNs;
}

/** This run's event figure of the empty kernel (eventFigure), in the job's runner process. */
export async function timeEmptyKernel(
  job: BenchJob & { runner: BenchRunner },
  nvcc: string,
  device: { ordinal: number; computeCapability: string },
  timing: TimingOptions,
): Promise<number> {
  const cubinPath = await cachedEmptyKernel(job, nvcc, `sm_${device.computeCapability.replace(".", "")}`);
  const r = await job.runner.request(
    "benchmark",
    { cubinPath, device: device.ordinal, kernel: EMPTY_KERNEL, timing: emptyTiming(timing) },
    signalOf(job),
  );
  if (r.kernel.blocked === false) throw new Error("the blocking kernel could not hold the stream");
  return eventFigure(r.kernel);
}
