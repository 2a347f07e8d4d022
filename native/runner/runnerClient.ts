// Host side of the runner boundary, used by the extension and the CLI: starts `node dist/runner.js`,
// sends typed requests one at a time, and keeps the process healthy. A request that shows no sign of
// life (no answer, no progress) for the timeout is failed and its runner killed, SIGTERM then SIGKILL;
// a sticky CUDA error or a cancel retires the runner too; the next request starts a fresh one. A
// runner that keeps dying on its own is restarted a bounded number of times, then left stopped.
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { LaunchError, spawnChecked } from "../../server/process/launch";
import type { ProgressMessage, RunnerError, RunnerMethod, RunnerRequests } from "./protocol";

export interface RunnerClientOptions {
  /** The runner script; default: dist/runner.js next to this bundle (or of the source tree). */
  runnerPath?: string;
  /** Node to run it with; default process.execPath (VS Code's Electron, run as Node). */
  execPath?: string;
  /** Extra node arguments; a .ts runner gets `--import tsx` by default. */
  execArgv?: string[];
  env?: Record<string, string>;
  /** Fail a request (and kill its runner) after this long without an answer or progress. */
  timeoutSeconds?: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Unexpected exits tolerated within restartWindowMs before the runner is left stopped. */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** The runner's stderr, line by line. */
  log?: (line: string) => void;
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

/** A failed request; carries the runner's error fields (code, call, kernel, sticky). */
export class RunnerRequestError extends Error implements RunnerError {
  readonly code: string;
  readonly call?: string;
  readonly kernel?: string;
  readonly sticky?: boolean;

  constructor(e: RunnerError) {
    super(e.message);
    this.name = "RunnerRequestError";
    this.code = e.code;
    if (e.call !== undefined) this.call = e.call;
    if (e.kernel !== undefined) this.kernel = e.kernel;
    if (e.sticky !== undefined) this.sticky = e.sticky;
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

interface Proc {
  child: ChildProcess;
  stderrTail: string;
  /** Set when this side decided to end it (timeout, cancel, sticky error, dispose): not a crash. */
  retiring: boolean;
  gone: boolean;
  exited: Promise<void>;
}

interface Job {
  id: number;
  method: RunnerMethod;
  params: unknown;
  options: RequestOptions;
  resolve: (result: unknown) => void;
  reject: (err: RunnerRequestError) => void;
  proc?: Proc;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
}

const STDERR_TAIL_CHARS = 2000;

export class RunnerClient {
  private readonly opts: Required<Omit<RunnerClientOptions, "log" | "env">> &
    Pick<RunnerClientOptions, "log" | "env">;
  private proc: Proc | undefined;
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
    const pid = this.proc.child.pid;
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
    if (this.active) this.settle(this.active, gone);
    this.active = undefined;
    const proc = this.proc;
    if (proc) {
      this.retire(proc);
      await proc.exited;
    }
  }

  private pump(): void {
    if (this.active || this.disposed) return;
    const job = this.queue.shift();
    if (!job) return;
    if (this.stoppedMessage !== undefined) {
      this.settle(job, new RunnerRequestError({ code: "STOPPED", message: this.stoppedMessage }));
      return this.pump();
    }
    let proc: Proc;
    try {
      proc = this.ensureProcess();
    } catch (err) {
      this.settle(job, err as RunnerRequestError);
      return this.pump();
    }
    this.active = job;
    job.proc = proc;
    this.armTimer(job);
    proc.child.stdin?.write(`${JSON.stringify({ id: job.id, method: job.method, params: job.params })}\n`);
  }

  private armTimer(job: Job): void {
    if (job.timer) clearTimeout(job.timer);
    const seconds = job.options.timeoutSeconds ?? this.opts.timeoutSeconds;
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

  private settle(job: Job, outcome: RunnerRequestError | { result: unknown }): void {
    if (job.timer) clearTimeout(job.timer);
    if (job.onAbort) job.options.signal?.removeEventListener("abort", job.onAbort);
    if (outcome instanceof RunnerRequestError) job.reject(outcome);
    else job.resolve(outcome.result);
  }

  private ensureProcess(): Proc {
    if (this.proc && !this.proc.gone && !this.proc.retiring) return this.proc;
    if (!existsSync(this.opts.runnerPath)) {
      throw new RunnerRequestError({
        code: "NO_RUNNER",
        message: `the GPU runner script is missing at ${this.opts.runnerPath} (build it with npm run build)`,
      });
    }
    let child: ChildProcess;
    try {
      // Through the process launcher: the workspace-trust policy applies and tests can see it.
      child = spawnChecked(this.opts.execPath, [...this.opts.execArgv, this.opts.runnerPath], {
        tool: "the GPU runner",
        stdio: ["pipe", "pipe", "pipe"],
        // In VS Code's extension host process.execPath is Electron; this makes it behave as Node.
        env: { ...process.env, ELECTRON_RUN_AS_NODE: "1", ...this.opts.env },
      });
    } catch (e) {
      // "DENIED" in an untrusted workspace; the message says so.
      if (e instanceof LaunchError)
        throw new RunnerRequestError({
          code: e.code === "DENIED" ? "DENIED" : "NO_RUNNER",
          message: e.message,
        });
      throw e;
    }
    let markExited: () => void = () => undefined;
    const proc: Proc = {
      child,
      stderrTail: "",
      retiring: false,
      gone: false,
      exited: new Promise<void>((r) => (markExited = r)),
    };
    this.proc = proc;
    // A runner that died leaves a broken pipe; the exit handler reports it, not an EPIPE throw.
    child.stdin?.on("error", () => undefined);
    // stdio is ["pipe", "pipe", "pipe"]: the streams exist.
    createInterface({ input: child.stdout! }).on("line", (line) => this.onLine(proc, line));
    createInterface({ input: child.stderr! }).on("line", (line) => {
      proc.stderrTail = (proc.stderrTail + line + "\n").slice(-STDERR_TAIL_CHARS);
      this.opts.log?.(line);
    });
    const onGone = (why: string) => {
      if (proc.gone) return;
      proc.gone = true;
      markExited();
      this.onGone(proc, why);
    };
    // "close", not "exit": it comes after stdout is drained, so a last answer (a sticky error) is read first.
    child.on("close", (code, signal) =>
      onGone(signal ? `killed by ${signal}` : `exited with code ${String(code)}`),
    );
    child.on("error", (err) => onGone(`could not run ${this.opts.execPath}: ${err.message}`));
    return proc;
  }

  private onLine(proc: Proc, line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.opts.log?.(`runner stdout (not JSON): ${line}`);
      return;
    }
    if (typeof msg !== "object" || msg === null || typeof (msg as { id?: unknown }).id !== "number") return;
    const m = msg as {
      id: number;
      result?: unknown;
      error?: RunnerError;
      progress?: ProgressMessage["progress"];
    };
    const job = this.active;
    if (!job || job.proc !== proc || job.id !== m.id) return;
    if (m.progress !== undefined) {
      this.armTimer(job);
      job.options.onProgress?.(m.progress);
      return;
    }
    this.active = undefined;
    if (m.error !== undefined && typeof m.error === "object") {
      this.settle(job, new RunnerRequestError(m.error));
      // The context is unusable; the runner exits by itself, make sure and start fresh next time.
      if (m.error.sticky) this.retire(proc);
    } else {
      this.settle(job, { result: m.result });
    }
    this.pump();
  }

  private onGone(proc: Proc, why: string): void {
    if (this.proc === proc) this.proc = undefined;
    if (proc.retiring) return;
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < this.opts.restartWindowMs), now];
    const tail = proc.stderrTail.trim().split("\n").slice(-3).join(" | ");
    const detail = `the GPU runner ${why}${tail ? `: ${tail}` : ""}`;
    if (this.crashes.length > this.opts.maxRestarts) {
      this.stoppedMessage =
        `the GPU runner failed ${this.crashes.length} times in ${this.opts.restartWindowMs / 1000} s and was stopped ` +
        `(last: ${detail}); restart it to try again`;
    }
    const job = this.active;
    if (job && job.proc === proc) {
      this.active = undefined;
      this.settle(job, new RunnerRequestError({ code: "CRASHED", message: detail, ...kernelOf(job) }));
    }
    this.pump();
  }

  private retire(proc: Proc): void {
    if (this.proc === proc) this.proc = undefined;
    if (proc.retiring || proc.gone) return;
    proc.retiring = true;
    proc.child.stdin?.end();
    proc.child.kill("SIGTERM");
    const force = setTimeout(() => {
      if (!proc.gone) proc.child.kill("SIGKILL");
    }, this.opts.killGraceMs);
    force.unref();
    void proc.exited.then(() => clearTimeout(force));
  }
}

function cancelled(): RunnerRequestError {
  return new RunnerRequestError({ code: "CANCELLED", message: "cancelled" });
}

function kernelOf(job: Job): { kernel?: string } {
  if (job.method !== "benchmark") return {};
  const p = job.params as RunnerRequests["benchmark"]["params"];
  return { kernel: p.kernel.displayName };
}
