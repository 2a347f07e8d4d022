// The one way this project starts an external program (nvcc, ptxas, ncu, nsys, nvidia-smi,
// cuobjdump/nvdisasm, git, the GPU runner). Always an argument array with `shell: false`, so a file
// name like `a $(touch x) b.cu` is one argument and runs nothing; a timeout that sends SIGTERM and
// then SIGKILL; AbortSignal cancellation; clear errors for a missing or non-executable program.
// Two process-wide hooks: a policy that can refuse every launch (the extension denies all of them in
// an untrusted workspace) and observers that see every attempt (tests spy on launches with it).
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { createWriteStream } from "node:fs";

export interface LaunchRequest {
  /** What the user would call it, for messages: "nvcc", "ncu", "the GPU runner". */
  tool: string;
  command: string;
  args: readonly string[];
  cwd?: string;
}

export interface LaunchEvent extends LaunchRequest {
  /** "started": spawn was called (it may still fail, e.g. not found); "denied": the policy refused it, nothing was spawned. */
  outcome: "started" | "denied";
  reason?: string;
}

/** true to allow; a sentence saying why not to refuse. */
export type LaunchPolicy = (request: LaunchRequest) => true | string;
export type LaunchObserver = (event: LaunchEvent) => void;

let policy: LaunchPolicy | undefined;
const observers = new Set<LaunchObserver>();

/** Sets (or with undefined, clears) the process-wide policy consulted before every launch. */
export function setLaunchPolicy(p: LaunchPolicy | undefined): void {
  policy = p;
}

/** Calls `fn` for every launch attempt, allowed or denied; returns a function that removes it. */
export function addLaunchObserver(fn: LaunchObserver): () => void {
  observers.add(fn);
  return () => observers.delete(fn);
}

export type LaunchErrorCode =
  "DENIED" | "NOT_FOUND" | "NOT_EXECUTABLE" | "FAILED_TO_START" | "OUTPUT_NOT_WRITTEN";

export class LaunchError extends Error {
  override name = "LaunchError";
  constructor(
    message: string,
    readonly code: LaunchErrorCode,
    readonly tool: string,
  ) {
    super(message);
  }
}

export interface SpawnOptions {
  tool?: string;
  /** The setting that names this program, for the "not found" message: "cudaKernelDev.nvcc.path". */
  setting?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdio?: StdioOptions;
  /** For spawnChecked only: node kills the child with SIGTERM on abort and emits an AbortError. */
  signal?: AbortSignal;
}

/**
 * Checks the policy, tells the observers and spawns. Throws LaunchError("DENIED") when the policy
 * refuses. A program that cannot start reports it through the child's "error" event; pass that
 * error to startError() for the message. For long-lived children (the runner); runProcess() below
 * is the one to use for a tool that runs to completion.
 */
export function spawnChecked(command: string, args: readonly string[], o: SpawnOptions = {}): ChildProcess {
  const request: LaunchRequest = {
    tool: o.tool ?? command,
    command,
    args: [...args],
    ...(o.cwd ? { cwd: o.cwd } : {}),
  };
  const verdict = policy ? policy(request) : true;
  if (verdict !== true) {
    notify({ ...request, outcome: "denied", reason: verdict });
    throw new LaunchError(verdict, "DENIED", request.tool);
  }
  notify({ ...request, outcome: "started" });
  return spawn(command, [...args], {
    shell: false,
    windowsHide: true,
    cwd: o.cwd,
    env: o.env ?? process.env,
    stdio: o.stdio ?? ["ignore", "pipe", "pipe"],
    ...(o.signal ? { signal: o.signal } : {}),
  });
}

function notify(e: LaunchEvent): void {
  for (const fn of observers) {
    try {
      fn(e);
    } catch {
      // An observer's bug must not change what happens to the launch.
    }
  }
}

/** The LaunchError for a spawn "error" event (ENOENT, EACCES), or the error itself otherwise. */
export function startError(err: NodeJS.ErrnoException, command: string, o: SpawnOptions = {}): Error {
  const tool = o.tool ?? command;
  const where = o.setting ? `set ${o.setting} or put it on PATH` : "put it on PATH";
  if (err.code === "ENOENT")
    return new LaunchError(
      command === tool
        ? `${tool} was not found: ${where}`
        : `${tool} was not found at "${command}": ${where}`,
      "NOT_FOUND",
      tool,
    );
  if (err.code === "EACCES")
    return new LaunchError(
      `${tool} at "${command}" is not executable (check its permissions, or ${where})`,
      "NOT_EXECUTABLE",
      tool,
    );
  return new LaunchError(`${tool} could not be started: ${err.message}`, "FAILED_TO_START", tool);
}

export interface RunOptions extends SpawnOptions {
  /** SIGTERM after this long, SIGKILL `killGraceMs` later. No limit when absent. */
  timeoutMs?: number;
  killGraceMs?: number;
  signal?: AbortSignal;
  /** Write stdout to this file instead of keeping it (large exports). */
  stdoutFile?: string;
  /** Called with each complete line of stdout and stderr as it arrives. */
  onLine?: (line: string) => void;
  /** Characters of output kept (stdout, stderr and output each); the rest is dropped. Default 32 Mi. */
  maxOutputChars?: number;
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they arrived (stdout left out when it went to a file). */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** True when output went past maxOutputChars and its end was dropped (onLine still saw all of it). */
  truncated: boolean;
}

/**
 * Runs a program to completion. A non-zero exit, a timeout or a cancellation is data in the result;
 * a launch that did not happen (denied, not found, not executable), or whose `stdoutFile` could not
 * be written, rejects with a LaunchError.
 */
export function runProcess(command: string, args: readonly string[], o: RunOptions = {}): Promise<RunResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const result = (exitCode: number | null, signal: NodeJS.Signals | null): RunResult => ({
      exitCode,
      signal,
      stdout,
      stderr,
      output,
      timedOut,
      cancelled,
      durationMs: performance.now() - started,
      truncated,
    });
    let stdout = "";
    let stderr = "";
    let output = "";
    let timedOut = false;
    let cancelled = false;
    let truncated = false;
    // A program printing without end must not take the extension host's memory with it.
    const max = o.maxOutputChars ?? 32 * 1024 * 1024;
    const keep = (kept: string, more: string): string => {
      if (kept.length + more.length <= max) return kept + more;
      truncated = true;
      return kept.length >= max ? kept : kept + more.slice(0, max - kept.length);
    };
    if (o.signal?.aborted) {
      cancelled = true;
      resolve(result(null, null));
      return;
    }
    let child: ChildProcess;
    try {
      // runProcess handles the signal itself (timeout-style stop, `cancelled` in the result).
      const { signal: _handledHere, ...spawnOptions } = o;
      child = spawnChecked(command, args, spawnOptions);
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const partial = { out: "", err: "" };
    const lines = (which: "out" | "err", text: string): void => {
      if (!o.onLine) return;
      const parts = (partial[which] + text).split(/\r?\n/);
      partial[which] = parts.pop() ?? "";
      for (const l of parts) o.onLine(l);
    };
    let fileDone: Promise<void> = Promise.resolve();
    let fileError: Error | undefined;
    if (o.stdoutFile && child.stdout) {
      const file = createWriteStream(o.stdoutFile);
      const path = o.stdoutFile;
      fileDone = new Promise((res) => {
        file.on("close", () => res());
        file.on("error", (e: NodeJS.ErrnoException) => {
          // No point running on with nowhere to put the output (a read-only folder, a full disk).
          fileError = new LaunchError(
            `${o.tool ?? command}'s output could not be written to ${path}: ${e.code ?? e.message}`,
            "OUTPUT_NOT_WRITTEN",
            o.tool ?? command,
          );
          stop();
          res();
        });
      });
      child.stdout.pipe(file);
    } else {
      child.stdout?.setEncoding("utf8").on("data", (t: string) => {
        stdout = keep(stdout, t);
        output = keep(output, t);
        lines("out", t);
      });
    }
    child.stderr?.setEncoding("utf8").on("data", (t: string) => {
      stderr = keep(stderr, t);
      output = keep(output, t);
      lines("err", t);
    });

    let killTimer: NodeJS.Timeout | undefined;
    const stop = (): void => {
      if (killTimer) return;
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), o.killGraceMs ?? 2000);
    };
    const timer =
      o.timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), stop()), o.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    o.signal?.addEventListener("abort", onAbort, { once: true });

    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (code: number | null, sig: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      o.signal?.removeEventListener("abort", onAbort);
      if (o.onLine) {
        if (partial.out) o.onLine(partial.out);
        if (partial.err) o.onLine(partial.err);
      }
      void fileDone.then(() => (fileError ? reject(fileError) : resolve(result(code, sig))));
    };
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      o.signal?.removeEventListener("abort", onAbort);
      reject(startError(err, command, o));
    });
    child.on("close", (code, sig) => finish(code, sig));
    // A grandchild (the program ncu profiles, cicc under nvcc) can keep the pipes open after the
    // program itself died; do not wait on it forever.
    child.on("exit", (code, sig) => {
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(code, sig);
      }, 1000);
    });
  });
}
