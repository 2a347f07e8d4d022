// Profiles a kernel through the benchmark harness: a BenchRunner that answers "hello"/"devices" from
// the ordinary runner client and runs the first "benchmark" request in a runner process started under
// ncu (one-shot: the request goes in on stdin, the answer comes back on stdout among ncu's ==PROF==
// lines, then stdin closes, the runner exits and ncu writes the report). ncu profiles only the
// kernel's own symbol (-k with --kernel-name-base mangled), -c launches of it.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type {
  ProgressMessage,
  RunnerError,
  RunnerMethod,
  RunnerRequests,
} from "../../native/runner/protocol";
import { defaultRunnerPath, RunnerClient } from "../../native/runner/runnerClient";
import { defaultCacheDir } from "../bench/compile";
import { spawnChecked } from "../process/launch";
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

/** A runner error as an Error with its fields, like the runner client's. */
class ProfiledRunnerError extends Error implements RunnerError {
  readonly code: string;
  constructor(e: RunnerError) {
    super(e.message);
    this.name = "RunnerRequestError";
    this.code = e.code;
    Object.assign(this, e);
  }
}

export class BenchProfiler implements BenchRunner {
  /** The .ncu-rep written, once the profiled benchmark finished. */
  report: string | undefined;

  constructor(private readonly o: BenchProfileOptions) {}

  request<M extends RunnerMethod>(
    method: M,
    params: RunnerRequests[M]["params"],
    options: {
      signal?: AbortSignal;
      onProgress?: (p: ProgressMessage["progress"]) => void;
      timeoutSeconds?: number;
    } = {},
  ): Promise<RunnerRequests[M]["result"]> {
    // Only the first size is profiled; later ones run normally.
    if (method !== "benchmark" || this.report !== undefined)
      return this.o.inner.request(method, params, options);
    return this.profiled(params as RunnerRequests["benchmark"]["params"], options);
  }

  private async profiled(
    params: RunnerRequests["benchmark"]["params"],
    options: { signal?: AbortSignal; onProgress?: (p: ProgressMessage["progress"]) => void },
  ): Promise<RunnerRequests["benchmark"]["result"]> {
    await mkdir(dirname(this.o.report), { recursive: true });
    const args = profileArgs({
      command: [this.o.execPath, this.o.runnerPath],
      report: this.o.report,
      kernel: params.kernel.symbol,
      count: this.o.count,
      set: this.o.set,
      clockControl: this.o.clockControl,
    });
    // -k matches the mangled symbol exactly: no regex, no other instantiation of a template.
    const k = args.indexOf("-k");
    args.splice(k, 2, "--kernel-name-base", "mangled", "-k", params.kernel.symbol);
    // Through the process launcher (trust policy, observers); stdio is all pipes.
    const child = spawnChecked(this.o.ncuPath, args, {
      tool: "ncu",
      setting: "cudaKernelDev.ncu.path",
      stdio: ["pipe", "pipe", "pipe"],
      ...(options.signal ? { signal: options.signal } : {}),
    }) as ChildProcessWithoutNullStreams;
    let output = "";
    let answer: { result?: RunnerRequests["benchmark"]["result"]; error?: RunnerError } | undefined;
    const onLine = (line: string): void => {
      output += `${line}\n`;
      if (line.startsWith("{")) {
        try {
          const msg = JSON.parse(line) as {
            id?: number;
            progress?: ProgressMessage["progress"];
            result?: RunnerRequests["benchmark"]["result"];
            error?: RunnerError;
          };
          if (msg.id === 1 && msg.progress) options.onProgress?.(msg.progress);
          else if (msg.id === 1 && (msg.result || msg.error)) {
            answer = msg;
            child.stdin.end(); // one request: the runner exits, ncu writes the report
          }
          return;
        } catch {
          // not one of the runner's lines
        }
      }
      this.o.onLine?.(line);
    };
    for (const stream of [child.stdout, child.stderr]) {
      let partial = "";
      stream.setEncoding("utf8").on("data", (t: string) => {
        const lines = (partial + t).split(/\r?\n/);
        partial = lines.pop() ?? "";
        lines.forEach(onLine);
      });
      stream.on("end", () => partial && onLine(partial));
    }
    child.stdin.on("error", () => undefined); // the runner may be gone before we close its stdin
    child.stdin.write(`${JSON.stringify({ id: 1, method: "benchmark", params })}\n`);
    const exit = await new Promise<number | null>((resolve, reject) => {
      child.on("error", (e: NodeJS.ErrnoException) => {
        if (e.name === "AbortError") reject(new NcuError("ncu cancelled", "CANCELLED"));
        else if (e.code === "ENOENT" || e.code === "EACCES")
          reject(
            new NcuError(
              `Nsight Compute CLI not found: "${this.o.ncuPath}" is not on PATH or not executable. Install Nsight Compute or set cudaKernelDev.ncu.path.`,
              "NOT_FOUND",
            ),
          );
        else reject(e);
      });
      child.on("close", (code) => resolve(code));
    });
    const got = answer;
    if (!got)
      throw new NcuError(
        `the runner under ncu gave no answer (ncu exit ${exit}): ${ncuFailureMessage(output)}`,
        "FAILED",
      );
    if (got.error) throw new ProfiledRunnerError(got.error);
    if (/==WARNING== No kernels were profiled/.test(output) || !/==PROF== Report:/.test(output))
      throw new NcuError(noKernelsMessage(output, params.kernel.symbol), "NO_KERNELS");
    this.report = /==PROF== Report: (.+?)\s*$/m.exec(output)?.[1] ?? `${this.o.report}.ncu-rep`;
    return got.result!;
  }
}

export interface BenchHarnessProfile {
  file: string;
  kernel: string;
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
      runner: profiler,
      nvccPath: o.nvcc,
      extraArgs: ["-lineinfo"],
      cacheDir: defaultCacheDir(),
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
