// Profiles a kernel through the benchmark harness: a BenchRunner that answers "hello"/"devices" from
// the ordinary runner client and runs the first "benchmark" request in a runner client of its own,
// started under ncu and one-shot (the answer comes back among ncu's ==PROF== lines, then the runner's
// stdin closes, it exits and ncu writes the report). ncu profiles only the kernel's own symbol
// (-k with --kernel-name-base mangled), -c launches of it.
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type {
  BenchmarkRequest,
  BenchmarkResult,
  RunnerMethod,
  RunnerRequests,
} from "../../native/runner/protocol";
import {
  defaultRunnerPath,
  RunnerClient,
  RunnerRequestError,
  type RequestOptions,
} from "../../native/runner/runnerClient";
import { defaultCacheDir } from "../bench/compile";
import { LaunchError } from "../process/launch";
import type { KernelInfo } from "../bench/kernelScan";
import { runBenchmark, type BenchProgress, type BenchRunner } from "../bench/runBench";
import {
  NcuError,
  ncuFailureMessage,
  noKernelsMessage,
  profileArgs,
  type ClockControl,
  type NcuSet,
} from "./ncuCli";

export interface BenchProfileOptions {
  /** Answers everything but the profiled benchmark. */
  inner: BenchRunner;
  ncuPath: string;
  /** dist/runner.js, and the node that runs it. */
  runnerPath: string;
  execPath: string;
  report: string;
  set: NcuSet;
  clockControl: ClockControl;
  count: number;
  onLine?: (line: string) => void;
}

export class BenchProfiler implements BenchRunner {
  /** The .ncu-rep written, once the profiled benchmark finished. */
  report: string | undefined;

  constructor(private readonly o: BenchProfileOptions) {}

  request<M extends RunnerMethod>(
    method: M,
    params: RunnerRequests[M]["params"],
    options: RequestOptions = {},
  ): Promise<RunnerRequests[M]["result"]> {
    // Only the first size is profiled; later ones run normally.
    if (method !== "benchmark" || this.report !== undefined)
      return this.o.inner.request(method, params, options);
    return this.profiled(params as BenchmarkRequest, options);
  }

  private async profiled(params: BenchmarkRequest, options: RequestOptions): Promise<BenchmarkResult> {
    await mkdir(dirname(this.o.report), { recursive: true });
    let output = "";
    const underNcu = new RunnerClient({
      runnerPath: this.o.runnerPath,
      execPath: this.o.execPath,
      wrapper: {
        command: this.o.ncuPath,
        args: this.ncuArgs(params.kernel.symbol),
        tool: "ncu",
        setting: "cudaKernelDev.ncu.path",
      },
      oneShot: true,
      // ncu replays the launch pass after pass: silence says nothing about a hang here.
      timeoutSeconds: Infinity,
      log: (line) => {
        output += `${line}\n`;
        this.o.onLine?.(line);
      },
    });
    let result: BenchmarkResult;
    try {
      result = await underNcu.request("benchmark", params, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      });
    } catch (e) {
      throw this.failure(e, output);
    } finally {
      await underNcu.dispose();
    }
    if (/==WARNING== No kernels were profiled/.test(output) || !/==PROF== Report:/.test(output))
      throw new NcuError(noKernelsMessage(output, params.kernel.symbol), "NO_KERNELS");
    this.report = /==PROF== Report: (.+?)\s*$/m.exec(output)?.[1] ?? `${this.o.report}.ncu-rep`;
    return result;
  }

  private ncuArgs(symbol: string): string[] {
    const args = profileArgs({
      command: [],
      report: this.o.report,
      kernel: symbol,
      count: this.o.count,
      set: this.o.set,
      clockControl: this.o.clockControl,
    });
    // -k matches the mangled symbol exactly: no regex, no other instantiation of a template.
    const k = args.indexOf("-k");
    args.splice(k, 2, "--kernel-name-base", "mangled", "-k", symbol);
    return args;
  }

  /** ncu's failures as NcuError; the runner's own answer (a CUDA error, say) as it came. */
  private failure(e: unknown, output: string): unknown {
    if (!(e instanceof RunnerRequestError)) return e;
    if (e.code === "CANCELLED") return new NcuError("ncu cancelled", "CANCELLED");
    if (e.cause instanceof LaunchError) {
      if (e.cause.code !== "NOT_FOUND" && e.cause.code !== "NOT_EXECUTABLE") return e.cause;
      return new NcuError(
        `Nsight Compute CLI not found: "${this.o.ncuPath}" is not on PATH or not executable. Install Nsight Compute or set cudaKernelDev.ncu.path.`,
        "NOT_FOUND",
      );
    }
    if (e.code === "CRASHED")
      return new NcuError(
        `the runner under ncu gave no answer (ncu exit ${String(e.exitCode ?? null)}): ${ncuFailureMessage(output)}`,
        "FAILED",
      );
    return e;
  }
}

export interface BenchHarnessProfile {
  file: string;
  kernel: string;
  /** scanKernels() of the file's text when the caller has it: the file is then not scanned again. */
  scan?: KernelInfo[];
  nvcc: string;
  ncu: string;
  arch?: string;
  set: NcuSet;
  clockControl: ClockControl;
  count: number;
  report: string;
  signal?: AbortSignal;
  onLine?: (line: string) => void;
  onProgress?: (p: BenchProgress) => void;
}

/**
 * Profiles a kernel-only file's kernel through its @bench spec: compiled by the benchmark harness
 * (with -lineinfo, so the source page maps to lines), launched by the runner under ncu. Resolves with
 * the .ncu-rep path. Bench failures (no spec, no GPU, compile errors) come back as BenchError.
 */
export async function profileWithBenchHarness(o: BenchHarnessProfile): Promise<string> {
  const inner = new RunnerClient();
  const profiler = new BenchProfiler({
    inner,
    ncuPath: o.ncu,
    runnerPath: defaultRunnerPath(),
    execPath: process.execPath,
    report: o.report,
    set: o.set,
    clockControl: o.clockControl,
    count: o.count,
    ...(o.onLine ? { onLine: o.onLine } : {}),
  });
  try {
    const results = await runBenchmark({
      file: o.file,
      kernel: o.kernel,
      ...(o.scan ? { scan: o.scan } : {}),
      runner: profiler,
      nvccPath: o.nvcc,
      extraArgs: ["-lineinfo"],
      cacheDir: defaultCacheDir(),
      eventOverheadPerRun: false, // the profiler takes the first benchmark request: the kernel's, not the empty one
      ...(o.arch ? { arch: o.arch } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
    if (!profiler.report) {
      const err = results.points.find((p) => p.error)?.error;
      throw new NcuError(
        `the benchmark did not reach the profiled launch${err ? `: ${err.code} ${err.message}` : ""}`,
        "FAILED",
      );
    }
    return profiler.report;
  } finally {
    await inner.dispose();
  }
}
