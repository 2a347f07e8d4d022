// Host side of the runner boundary, used by the extension, the CLI and profiling: starts
// `node dist/runner.js` (or `<wrapper> node dist/runner.js`, e.g. under ncu), sends typed requests one
// at a time, and keeps the process healthy. A request that shows no sign of life (no answer, no
// progress) for the timeout is failed and its runner killed, SIGTERM then SIGKILL; a sticky CUDA error
// or a cancel retires the runner too; the next request starts a fresh one. A runner that keeps dying
// on its own is restarted a bounded number of times, then left stopped.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { LaunchError } from "../../server/process/launch";
import type { ProgressMessage, RunnerError, RunnerMethod, RunnerRequests } from "./protocol";
import { RunnerProcess, type ProcessExit, type RunnerMessage, type RunnerWrapper } from "./runnerProcess";

export interface RunnerClientOptions {
  /** The runner script; default: dist/runner.js next to this bundle (or of the source tree). */
  runnerPath?: string;
  /** Node to run it with; default process.execPath (VS Code's Electron, run as Node). */
  execPath?: string;
  /** Extra node arguments; a .ts runner gets `--import tsx` by default. */
  execArgv?: string[];
  env?: Record<string, string>;
  /** Fail a request (and kill its runner) after this long without an answer or progress; Infinity: never. */
  timeoutSeconds?: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Unexpected exits tolerated within restartWindowMs before the runner is left stopped. */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** The runner's stderr and the stdout lines that are not protocol messages (a wrapper's), line by line. */
  log?: (line: string) => void;
  /** Start the runner under this program (profiling: ncu). */
  wrapper?: RunnerWrapper;
  /**
   * One request per runner: after the answer its stdin is closed, so it exits, and the request
   * settles once the process has exited (a wrapper such as ncu writes its report then).
   */
  oneShot?: boolean;
}

export interface RequestOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ProgressMessage["progress"]) => void;
  /** Overrides the client's timeout for this request. */
  timeoutSeconds?: number;
}

export interface RunnerStatus {
  state: "not-started" | "idle" | "busy" | "stopped";
  pid?: number;
  message?: string;
}

/**
 * A failed request, the one error type of the runner boundary: the runner's error fields (the CUDA
 * error name or a runner code, the failing driver call, the kernel, sticky) or the client's own
 * (TIMEOUT, CRASHED, ...). A runner that could not start has the LaunchError as its `cause`.
 */
export class RunnerRequestError extends Error implements RunnerError {
  readonly code: string;
  readonly call?: string;
  readonly kernel?: string;
  readonly sticky?: boolean;
  /** CRASHED: the process's exit code; null when a signal ended it. */
  readonly exitCode?: number | null;

  constructor(e: RunnerError, more: ProcessExit = {}) {
    super(e.message, more.cause ? { cause: more.cause } : undefined);
    this.name = "RunnerRequestError";
    this.code = e.code;
    if (e.call !== undefined) this.call = e.call;
    if (e.kernel !== undefined) this.kernel = e.kernel;
    if (e.sticky !== undefined) this.sticky = e.sticky;
    if (more.exitCode !== undefined) this.exitCode = more.exitCode;
  }

  toJSON(): RunnerError {
    return {
      code: this.code,
      message: this.message,
      call: this.call,
      kernel: this.kernel,
      sticky: this.sticky,
    };
  }
}

/** Overrides where the runner script is (tests run the TypeScript source with it). */
export const RUNNER_ENV = "CUDA_KERNEL_DEV_RUNNER";

export function defaultRunnerPath(dir: string = __dirname): string {
  const fromEnv = process.env[RUNNER_ENV];
  if (fromEnv) return fromEnv;
  // dist/cli.js and dist/extension.js sit next to dist/runner.js; from source (native/runner/ or
  // server/cli/) the built runner is two levels up in dist/.
  const candidates = [join(dir, "runner.js"), join(dir, "..", "..", "dist", "runner.js")];
  return candidates.find((p) => existsSync(p)) ?? candidates[0]!;
}

type Outcome = RunnerRequestError | { result: unknown };

interface Job {
  id: number;
  method: RunnerMethod;
  params: unknown;
  options: RequestOptions;
  resolve: (result: unknown) => void;
  reject: (err: RunnerRequestError) => void;
  proc?: RunnerProcess;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
  /** One-shot: the answer, held until the process has exited. */
  answer?: Outcome;
}

export class RunnerClient {
  private readonly opts: Required<Omit<RunnerClientOptions, "log" | "env" | "wrapper">> &
    Pick<RunnerClientOptions, "log" | "env" | "wrapper">;
  private proc: RunnerProcess | undefined;
  private readonly queue: Job[] = [];
  private active: Job | undefined;
  private crashes: number[] = [];
  private stoppedMessage: string | undefined;
  private nextId = 1;
  private disposed = false;

  constructor(options: RunnerClientOptions = {}) {
    const runnerPath = options.runnerPath ?? defaultRunnerPath();
    this.opts = {
      runnerPath,
      execPath: options.execPath ?? process.execPath,
      execArgv: options.execArgv ?? (runnerPath.endsWith(".ts") ? ["--import", "tsx"] : []),
      timeoutSeconds: options.timeoutSeconds ?? 20,
      killGraceMs: options.killGraceMs ?? 3000,
      maxRestarts: options.maxRestarts ?? 3,
      restartWindowMs: options.restartWindowMs ?? 60_000,
      log: options.log,
      env: options.env,
      wrapper: options.wrapper,
      oneShot: options.oneShot ?? false,
    };
  }

  request<M extends RunnerMethod>(
    method: M,
    params: RunnerRequests[M]["params"],
    options: RequestOptions = {},
  ): Promise<RunnerRequests[M]["result"]> {
    return new Promise<RunnerRequests[M]["result"]>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        method,
        params,
        options,
        resolve: resolve as (r: unknown) => void,
        reject,
      };
      if (this.disposed)
        return reject(
          new RunnerRequestError({ code: "CANCELLED", message: "the runner client was disposed" }),
        );
      if (options.signal?.aborted) return reject(cancelled());
      if (options.signal) {
        job.onAbort = () => this.cancel(job);
        options.signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  status(): RunnerStatus {
    if (this.stoppedMessage !== undefined) return { state: "stopped", message: this.stoppedMessage };
    if (!this.proc) return { state: "not-started" };
    const pid = this.proc.pid;
    const state = this.active ? "busy" : "idle";
    return pid === undefined ? { state } : { state, pid };
  }

  /** Leaves the stopped state (the user asked to try again); the next request starts a runner. */
  reset(): void {
    this.crashes = [];
    this.stoppedMessage = undefined;
  }

  /** Fails every request and ends the runner; resolves once it has exited. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const gone = new RunnerRequestError({ code: "CANCELLED", message: "the runner client was disposed" });
    for (const job of this.queue.splice(0)) this.settle(job, gone);
    // A one-shot runner that has answered is no longer this.proc but still the active job's.
    const proc = this.active?.proc ?? this.proc;
    const busy = this.active !== undefined;
    if (this.active) this.settle(this.active, gone);
    this.active = undefined;
    if (!proc) return;
    // An idle runner is let go (stdin closed) and given the grace period to exit by itself: an exit
    // runs the process's exit handlers, where a tracer such as Nsight Systems' CUPTI injection writes
    // what it collected; a SIGTERM would lose it. A busy one is stopped at once.
    if (!busy) {
      proc.release();
      await Promise.race([proc.exited, delay(this.opts.killGraceMs)]);
    }
    this.retire(proc);
    await proc.exited;
  }

  private pump(): void {
    if (this.active || this.disposed) return;
    const job = this.queue.shift();
    if (!job) return;
    if (this.stoppedMessage !== undefined) {
      this.settle(job, new RunnerRequestError({ code: "STOPPED", message: this.stoppedMessage }));
      return this.pump();
    }
    let proc: RunnerProcess;
    try {
      proc = this.ensureProcess();
    } catch (err) {
      this.settle(job, err as RunnerRequestError);
      return this.pump();
    }
    this.active = job;
    job.proc = proc;
    this.armTimer(job);
    proc.send({ id: job.id, method: job.method, params: job.params });
  }

  private armTimer(job: Job): void {
    if (job.timer) clearTimeout(job.timer);
    const seconds = job.options.timeoutSeconds ?? this.opts.timeoutSeconds;
    if (!Number.isFinite(seconds)) return;
    job.timer = setTimeout(() => {
      const what = job.method === "benchmark" ? "the kernel" : `the ${job.method} request`;
      this.fail(
        job,
        new RunnerRequestError({
          code: "TIMEOUT",
          message: `${what} made no progress for ${seconds} s (cudaKernelDev.runner.timeoutSeconds); the runner was killed`,
          ...kernelOf(job),
        }),
      );
    }, seconds * 1000);
  }

  private cancel(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(job, cancelled());
    } else if (this.active === job) {
      this.fail(job, cancelled());
    }
  }

  /** Fails the active job and retires its runner: whatever it was doing cannot be trusted to end. */
  private fail(job: Job, err: RunnerRequestError): void {
    if (this.active !== job) return;
    this.active = undefined;
    this.settle(job, err);
    if (job.proc) this.retire(job.proc);
    this.pump();
  }

  private settle(job: Job, outcome: Outcome): void {
    if (job.timer) clearTimeout(job.timer);
    if (job.onAbort) job.options.signal?.removeEventListener("abort", job.onAbort);
    if (outcome instanceof RunnerRequestError) job.reject(outcome);
    else job.resolve(outcome.result);
  }

  private ensureProcess(): RunnerProcess {
    if (this.proc && !this.proc.gone && !this.proc.retiring) return this.proc;
    if (!existsSync(this.opts.runnerPath)) {
      throw new RunnerRequestError({
        code: "NO_RUNNER",
        message: `the GPU runner script is missing at ${this.opts.runnerPath} (build it with npm run build)`,
      });
    }
    try {
      // The events come later (the spawn reports even its failure asynchronously): `proc` is set by then.
      const proc: RunnerProcess = new RunnerProcess(this.opts, {
        message: (m) => this.onMessage(proc, m),
        output: (line) => this.opts.log?.(line),
        gone: (why, exit) => this.onGone(proc, why, exit),
      });
      this.proc = proc;
      return proc;
    } catch (e) {
      // "DENIED" in an untrusted workspace; the message says so.
      if (e instanceof LaunchError)
        throw new RunnerRequestError({
          code: e.code === "DENIED" ? "DENIED" : "NO_RUNNER",
          message: e.message,
        });
      throw e;
    }
  }

  private onMessage(proc: RunnerProcess, m: RunnerMessage): void {
    const job = this.active;
    if (!job || job.proc !== proc || job.id !== m.id) return;
    if (m.progress !== undefined) {
      this.armTimer(job);
      job.options.onProgress?.(m.progress);
      return;
    }
    const outcome: Outcome =
      m.error !== undefined && typeof m.error === "object"
        ? new RunnerRequestError(m.error)
        : { result: m.result };
    if (this.opts.oneShot) {
      // Settled when the process has exited; waiting for that counts as the request.
      job.answer = outcome;
      this.armTimer(job);
      this.release(proc);
      return;
    }
    this.active = undefined;
    this.settle(job, outcome);
    // The context is unusable; the runner exits by itself, make sure and start fresh next time.
    if (m.error?.sticky) this.retire(proc);
    this.pump();
  }

  private onGone(proc: RunnerProcess, why: string, exit: ProcessExit): void {
    if (this.proc === proc) this.proc = undefined;
    const job = this.active?.proc === proc ? this.active : undefined;
    if (job?.answer) {
      this.active = undefined;
      this.settle(job, job.answer);
      return this.pump();
    }
    if (proc.retiring) return;
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < this.opts.restartWindowMs), now];
    const tail = proc.lastErrorLines();
    const detail = `${proc.tool} ${why}${tail ? `: ${tail}` : ""}`;
    if (this.crashes.length > this.opts.maxRestarts) {
      this.stoppedMessage =
        `the GPU runner failed ${this.crashes.length} times in ${this.opts.restartWindowMs / 1000} s and was stopped ` +
        `(last: ${detail}); restart it to try again`;
    }
    if (job) {
      this.active = undefined;
      this.settle(job, new RunnerRequestError({ code: "CRASHED", message: detail, ...kernelOf(job) }, exit));
    }
    this.pump();
  }

  /** No more requests for this runner; it ends by itself (stdin closed). */
  private release(proc: RunnerProcess): void {
    if (this.proc === proc) this.proc = undefined;
    proc.release();
  }

  private retire(proc: RunnerProcess): void {
    if (this.proc === proc) this.proc = undefined;
    proc.kill(this.opts.killGraceMs);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function cancelled(): RunnerRequestError {
  return new RunnerRequestError({ code: "CANCELLED", message: "cancelled" });
}

function kernelOf(job: Job): { kernel?: string } {
  if (job.method !== "benchmark") return {};
  const p = job.params as RunnerRequests["benchmark"]["params"];
  return { kernel: p.kernel.displayName };
}
