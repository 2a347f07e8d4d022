// One benchmark, from a file and a kernel name to results: spec -> environment check (driver, GPU,
// nvcc) -> compile (cached) -> symbols -> one runner request per size. Used by the CLI and the
// extension alike; the caller owns the runner client and the history.
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, relative, resolve } from "node:path";
import type {
  BenchmarkRequest,
  BenchmarkResult,
  DeviceAttributes,
  LaunchSpec,
  ProgressMessage,
  RunnerError,
  RunnerMethod,
  RunnerRequests,
} from "../../native/runner/protocol";
import { projectFlags } from "../compiler/compileFile";
import { resolveNvcc } from "../compiler/nvcc";
import { runProcess } from "../process/launch";
import { parseSpec } from "./benchSpec";
import { CompileError, compileCubin, nvccVersion } from "./compile";
import { cppName, generateHarness, type KernelInstance, resolveInstance } from "./harness";
import { type KernelInfo, scanKernels } from "./kernelScan";
import { checkSignature, planPoints, type SizePoint, timingOf } from "./plan";
import { derive, pointPassed, speedup } from "./report";
import { type BenchRunResults, type PointResult, RESULTS_SCHEMA } from "./results";
import { SpecError } from "./specLexer";
import { findSymbol } from "./symbols";

/** What the benchmark needs of a runner client (native/runner/runnerClient.ts's RunnerClient). */
export interface BenchRunner {
  request<M extends RunnerMethod>(
    method: M,
    params: RunnerRequests[M]["params"],
    options?: {
      signal?: AbortSignal;
      onProgress?: (p: ProgressMessage["progress"]) => void;
      timeoutSeconds?: number;
    },
  ): Promise<RunnerRequests[M]["result"]>;
}

/**
 * A failure the user should read as one line. `code`: "NO_KERNEL", "NO_SPEC", "BAD_SPEC",
 * "MISSING" (driver/GPU/nvcc), "COMPILE", "SYMBOL", "CANCELLED", or a runner code.
 */
export class BenchError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = "BenchError";
  }
}

export interface BenchJob {
  file: string;
  /** `name` or `ns::name`. */
  kernel: string;
  runner: BenchRunner;
  device?: number;
  /** cudaKernelDev.nvcc.path */
  nvccPath?: string;
  /** cudaKernelDev.nvcc.includePaths / extraArgs, added to the file's compile_commands.json flags. */
  includePaths?: string[];
  extraArgs?: string[];
  workspace?: string;
  /** Overrides the device's architecture (e.g. "sm_90a"). */
  arch?: string;
  cacheDir: string;
  signal?: AbortSignal;
  onProgress?: (p: BenchProgress) => void;
  /** `scanKernels` of the file's text, when the caller has scanned it already: not scanned again. */
  scan?: KernelInfo[];
}

export type BenchProgress =
  | { stage: "checking" }
  | { stage: "compiling" }
  | { stage: "running"; point: number; points: number; label: string; phase?: string; samples?: number }
  /** A size finished: the results so far, to show before the rest of the sweep is done. */
  | { stage: "result"; point: number; points: number; label: string; results: BenchRunResults };

/** git's stdout, or undefined when git is missing, refused, fails or takes over 5 s. */
async function git(dir: string, args: string[]): Promise<string | undefined> {
  try {
    const r = await runProcess("git", ["-C", dir, ...args], { tool: "git", timeoutMs: 5000 });
    return r.exitCode === 0 ? r.stdout.trim() : undefined;
  } catch {
    return undefined;
  }
}

async function gitCommit(dir: string): Promise<string | undefined> {
  const head = await git(dir, ["rev-parse", "HEAD"]);
  const dirty = head && (await git(dir, ["status", "--porcelain", "--untracked-files=no"]));
  return head && dirty !== undefined ? head + (dirty ? "+dirty" : "") : undefined;
}

export function findKernel(kernels: KernelInfo[], name: string): KernelInfo | undefined {
  const defs = kernels.filter((k) => k.hasBody);
  return defs.find((k) => [...k.namespaces, k.name].join("::") === name) ?? defs.find((k) => k.name === name);
}

function specError(file: string, e: SpecError): BenchError {
  return new BenchError(
    "BAD_SPEC",
    `${file}:${e.span.startLine + 1}:${e.span.startColumn + 1}: ${e.message}`,
  );
}

function isRunnerError(e: unknown): e is RunnerError & Error {
  return e instanceof Error && typeof (e as unknown as RunnerError).code === "string";
}

/** What is missing to benchmark on this machine, as phrases; empty when everything is there. */
async function checkEnvironment(
  job: BenchJob,
): Promise<{ device?: DeviceAttributes; driverVersion: number | null; nvcc?: string; missing: string[] }> {
  const missing: string[] = [];
  let device: DeviceAttributes | undefined;
  let driverVersion: number | null = null;
  try {
    const hello = await job.runner.request("hello", {}, job.signal ? { signal: job.signal } : {});
    driverVersion = hello.driverVersion;
    if (hello.error)
      missing.push(
        hello.error.code === "NO_DRIVER" ? `no NVIDIA driver (${hello.error.message})` : hello.error.message,
      );
    else {
      const devices = await job.runner.request("devices", {}, job.signal ? { signal: job.signal } : {});
      const ordinal = job.device ?? 0;
      device = devices.find((d) => d.ordinal === ordinal);
      if (devices.length === 0) missing.push("no CUDA GPU (the driver found none)");
      else if (!device) missing.push(`no GPU ${ordinal} (found ${devices.length})`);
    }
  } catch (e) {
    if (isRunnerError(e) && e.code === "CANCELLED") throw new BenchError("CANCELLED", "cancelled");
    if (isRunnerError(e) && e.code === "NO_DRIVER") missing.push(`no NVIDIA driver (${e.message})`);
    else if (isRunnerError(e) && e.code === "CUDA_ERROR_NO_DEVICE")
      missing.push(`no CUDA GPU (${e.message})`);
    else missing.push(`the GPU runner failed (${e instanceof Error ? e.message : String(e)})`);
  }
  let nvcc: string | undefined;
  try {
    nvcc = await resolveNvcc(job.nvccPath);
  } catch (e) {
    missing.push(e instanceof Error ? e.message : String(e));
  }
  return { ...(device ? { device } : {}), driverVersion, ...(nvcc ? { nvcc } : {}), missing };
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

export async function runBenchmark(job: BenchJob): Promise<BenchRunResults> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const file = resolve(job.file);
  const shownFile =
    job.workspace && !relative(job.workspace, file).startsWith("..") ? relative(job.workspace, file) : file;
  job.onProgress?.({ stage: "checking" });
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new BenchError(
      "NO_KERNEL",
      `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    );
  }
  const kernels = job.scan ?? scanKernels(text);
  const kernel = findKernel(kernels, job.kernel);
  if (!kernel) {
    const names = kernels.filter((k) => k.hasBody).map((k) => k.name);
    throw new BenchError(
      "NO_KERNEL",
      `no __global__ kernel '${job.kernel}' in ${shownFile} (kernels: ${names.join(", ") || "none"})`,
    );
  }
  const parsed = parseSpec(kernel);
  if (!parsed)
    throw new BenchError(
      "NO_SPEC",
      `${kernel.name} has no '// @bench' spec above it (the quick fix "Write a benchmark spec" drafts one)`,
    );
  if (parsed.errors.length > 0) throw specError(shownFile, parsed.errors[0]!);
  const spec = parsed.spec;
  const issue = checkSignature(spec, kernel, kernels).find((i) => i.severity === "error");
  if (issue) throw specError(shownFile, issue);
  // Static checks first: a bad spec is reported even where there is no GPU.
  try {
    planPoints(spec, kernel);
  } catch (e) {
    if (e instanceof SpecError) throw specError(shownFile, e);
    throw e;
  }

  const env = await checkEnvironment(job);
  if (env.missing.length > 0 || !env.device || !env.nvcc)
    throw new BenchError("MISSING", `cannot benchmark here: ${env.missing.join("; ")}`);
  const device = env.device;
  let points: SizePoint[];
  try {
    points = planPoints(spec, kernel, device);
  } catch (e) {
    if (e instanceof SpecError) throw specError(shownFile, e);
    throw e;
  }

  const inst = resolveInstance(kernel, spec.template);
  const baselineKernel = spec.baseline ? findKernel(kernels, spec.baseline.name) : undefined;
  const baseInst = baselineKernel
    ? resolveInstance(baselineKernel, spec.template, spec.baseline?.templateArgs)
    : undefined;

  job.onProgress?.({ stage: "compiling" });
  const arch = job.arch ?? `sm_${device.computeCapability.replace(".", "")}`;
  const project = projectFlags(
    file,
    { includePaths: job.includePaths ?? [], extraArgs: job.extraArgs ?? [] },
    job.workspace,
  );
  let compiled;
  try {
    compiled = await compileCubin({
      harness: generateHarness(file, baseInst ? [inst, baseInst] : [inst]),
      nvcc: env.nvcc,
      arch,
      flags: project.args,
      cwd: project.cwd,
      cacheDir: job.cacheDir,
      ...(job.signal ? { signal: job.signal } : {}),
    });
  } catch (e) {
    if (e instanceof CompileError)
      throw new BenchError(e.code === "CANCELLED" ? "CANCELLED" : "COMPILE", e.message, e.log);
    throw e;
  }
  const symbols = compiled.kernels.map((k) => k.symbol);
  let symbol: string;
  let baselineSymbol: string | undefined;
  try {
    symbol = findSymbol(inst, symbols);
    baselineSymbol = baseInst ? findSymbol(baseInst, symbols) : undefined;
  } catch (e) {
    throw new BenchError("SYMBOL", e instanceof Error ? e.message : String(e));
  }
  const res = compiled.kernels.find((k) => k.symbol === symbol);

  const timing = timingOf(spec);
  const results: PointResult[] = [];
  // Looked up while the first size runs; every snapshot of the results shares them.
  const envInfo = Promise.all([nvccVersion(env.nvcc), gitCommit(dirname(file))]);
  envInfo.catch(() => undefined); // awaited by snapshot(); a run cancelled before that must not leave it unhandled
  const snapshot = async (pending: number): Promise<BenchRunResults> => {
    const [nvccV, commit] = await envInfo;
    return {
      schema: RESULTS_SCHEMA,
      startedAt,
      file: shownFile,
      kernel: kernel.name,
      instance: cppName(inst),
      ...(baseInst ? { baseline: cppName(baseInst) } : {}),
      env: {
        device,
        driverVersion: env.driverVersion,
        nvccVersion: nvccV,
        ...(commit ? { gitCommit: commit } : {}),
        host: hostname(),
      },
      compile: {
        arch,
        cached: compiled.cached,
        ms: compiled.ms,
        symbol,
        ...(baselineSymbol ? { baselineSymbol } : {}),
        ...(res
          ? {
              registers: res.registers,
              sharedBytes: res.sharedBytes,
              spillBytes: res.spillStoreBytes + res.spillLoadBytes,
            }
          : {}),
        flagsFrom: project.from,
      },
      timing,
      points: [...results],
      ok: results.every(pointPassed),
      totalMs: performance.now() - started,
      ...(pending > 0 ? { pendingSizes: pending } : {}),
    };
  };
  let stopped: RunnerError | undefined;
  for (const [i, p] of points.entries()) {
    const base: PointResult = {
      label: p.label,
      sizes: p.sizes,
      grid: p.grid,
      block: p.block,
      dynamicSmemBytes: p.dynamicSmemBytes,
      ...(p.bytes !== undefined ? { bytes: p.bytes } : {}),
      ...(p.flops !== undefined ? { flops: p.flops } : {}),
      checks: [],
    };
    if (stopped) {
      results.push({ ...base, skipped: true });
      continue;
    }
    job.onProgress?.({ stage: "running", point: i, points: points.length, label: p.label });
    const req: BenchmarkRequest = {
      cubinPath: compiled.cubinPath,
      device: device.ordinal,
      kernel: launch(inst, symbol, p),
      ...(baseInst && baselineSymbol
        ? { baseline: launch(baseInst, baselineSymbol, p, p.baselineLaunch) }
        : {}),
      timing,
      ...(p.bytes !== undefined ? { bytes: p.bytes } : {}),
      ...(p.flops !== undefined ? { flops: p.flops } : {}),
    };
    let r: BenchmarkResult;
    try {
      r = await job.runner.request("benchmark", req, {
        ...(job.signal ? { signal: job.signal } : {}),
        onProgress: (pr) =>
          job.onProgress?.({
            stage: "running",
            point: i,
            points: points.length,
            label: p.label,
            phase: pr.phase,
            samples: pr.samples,
          }),
      });
    } catch (e) {
      if (isRunnerError(e) && e.code === "CANCELLED") throw new BenchError("CANCELLED", "cancelled");
      const err: RunnerError = isRunnerError(e)
        ? {
            code: e.code,
            message: e.message,
            ...(e.call ? { call: e.call } : {}),
            ...(e.kernel ? { kernel: e.kernel } : {}),
            ...(e.sticky ? { sticky: e.sticky } : {}),
          }
        : { code: "INTERNAL", message: e instanceof Error ? e.message : String(e) };
      results.push({ ...base, error: err });
      // A fault or a hang will happen again at the next size; a bad request might not.
      if (err.sticky || err.code === "TIMEOUT" || err.code === "CRASHED" || err.code === "STOPPED")
        stopped = err;
      continue;
    }
    const k = { ...r.kernel, ...derive(r.kernel, p.bytes, p.flops, device.peakDramBandwidthGBs) };
    const b = r.baseline
      ? { ...r.baseline, ...derive(r.baseline, p.bytes, p.flops, device.peakDramBandwidthGBs) }
      : undefined;
    const sp = r.speedup ?? speedup(r.kernel, r.baseline);
    results.push({
      ...base,
      kernel: k,
      ...(b ? { baseline: b } : {}),
      ...(k.gbPerSec !== undefined ? { gbPerSec: k.gbPerSec } : {}),
      ...(k.pctPeakBandwidth !== undefined ? { pctPeakBandwidth: k.pctPeakBandwidth } : {}),
      ...(k.tflops !== undefined ? { tflops: k.tflops } : {}),
      ...(b?.gbPerSec !== undefined ? { baselineGbPerSec: b.gbPerSec } : {}),
      ...(sp !== undefined ? { speedup: sp } : {}),
      checks: r.checks,
    });
    if (job.onProgress) {
      const sofar = await snapshot(points.length - i - 1);
      job.onProgress({ stage: "result", point: i, points: points.length, label: p.label, results: sofar });
    }
  }

  return snapshot(0);
}
