// One benchmark, from a file and a kernel name to results, in stages: prepare (the kernel and its
// spec, checked without a GPU) -> environment (driver, GPU, nvcc) -> compile (cached) -> run the
// points (one runner request per size) -> results. Used by the CLI, the extension and profiling
// alike; the caller owns the runner client and the history.
import { BenchError, type BenchJob, type BenchProgress, type BenchRunner } from "./benchJob";
import { buildKernels } from "./build";
import { checkEnvironment } from "./environment";
import { timingOf } from "./plan";
import { findKernel, planSizes, prepareBench } from "./prepare";
import type { BenchRunResults } from "./results";
import { snapshots } from "./snapshot";
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
  const build = await buildKernels(job, prepared, env);
  const timing = timingOf(prepared.spec);
  const torch = torchBaseline(job, prepared.spec, prepared.shownFile, env.device, timing);
  const snapshot = snapshots({ started, startedAt, prepared, env, build, timing, torch });
  const results = await runSweep(job, { points, build, device: env.device, timing, torch }, snapshot);
  return snapshot(results, 0);
}
