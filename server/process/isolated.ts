// Runs one request in a child node process running a script of this project (a reader of untrusted
// report files: server/profile/nsysReader.ts), with a time budget, a memory budget and cancellation,
// so that a hostile file costs the caller neither its event loop nor its memory. On any of them the
// child is killed (SIGKILL) and the promise rejects once it has exited.
//
// A child process and not a worker thread: a worker's resourceLimits bound only its V8 heap, not the
// WebAssembly memory SQLite (sql.js) allocates in, and an allocation that overshoots them aborts the
// whole process. Measured on Node 20.20: a worker limited to 256 MB reading a view of zeroblob(1e8)
// rows ended its host with "FATAL ERROR: Reached heap limit" (exit 134; nodejs/node#47224), which in
// the extension host would take every extension down. A child's heap is its own: its fatal
// out-of-memory ends only it.
// The memory budget is the child's resident set (read from /proc on Linux, every 25 ms), and
// --max-old-space-size bounds its JS heap on every platform; the script bounds what it allocates
// outside (SQLite's own heap limit).
// Started by the launcher's forkOwnScript, which does not ask the trust policy: this runs no program
// of the workspace or of the user, only the node that runs this code with a script of this bundle,
// as the language client starts the language server; a report opens in Restricted Mode too.
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { forkOwnScript } from "./launch";

export interface Budget {
  seconds: number;
  memoryMb: number;
}

export type IsolatedFailure = "time" | "memory" | "cancelled" | "crashed";

export class IsolatedError extends Error {
  override name = "IsolatedError";
  constructor(
    message: string,
    readonly reason: IsolatedFailure,
  ) {
    super(message);
  }
}

/** What one run cost, for benchmarks and logs. */
export interface IsolatedStats {
  wallMs: number;
  /** The child's peak resident set (Linux; undefined elsewhere, or when it ended before a reading). */
  peakRssMb: number | undefined;
}

export interface IsolatedOptions {
  /** What the user would call it, for the launcher's observers: "the Nsight Systems reader". */
  tool: string;
  budget: Budget;
  signal?: AbortSignal;
  /** Told the child's pid as soon as it is started. */
  onStart?: (pid: number) => void;
  /** Told what the run cost once the child has exited, however it ended. */
  onEnd?: (stats: IsolatedStats) => void;
}

/** A message from the child: its answer, or the error it could not turn into one. */
type ChildMessage<T> = { value: T } | { failed: string };

const POLL_MS = 25;
const STDERR_TAIL = 2000;

/** node's arguments for SCRIPT: the heap bound, and tsx for a TypeScript source (tests, benchmarks). */
function execArgvFor(script: string, memoryMb: number): string[] {
  const heap = [`--max-old-space-size=${Math.max(16, Math.floor(memoryMb))}`];
  if (!script.endsWith(".ts")) return heap;
  for (let dir = dirname(script); ; dir = dirname(dir)) {
    const tsx = join(dir, "node_modules", "tsx", "dist", "loader.mjs");
    if (existsSync(tsx)) return [...heap, "--import", pathToFileURL(tsx).href];
    if (dirname(dir) === dir) throw new Error(`cannot run ${script}: tsx is not installed above it`);
  }
}

/** VmRSS and VmHWM of PID in MB, from /proc (Linux); undefined where there is none. */
function residentMb(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s*(\\d+)`, "m").exec(status)?.[1] ?? 0);
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/** Runs SCRIPT (which calls serveOne) on REQUEST; resolves with its answer. */
export function runIsolated<Req, Res>(script: string, request: Req, o: IsolatedOptions): Promise<Res> {
  if (o.signal?.aborted) return Promise.reject(new IsolatedError("cancelled", "cancelled"));
  const t0 = performance.now();
  const child = forkOwnScript(script, { tool: o.tool, execArgv: execArgvFor(script, o.budget.memoryMb) });
  return new Promise<Res>((resolve, reject) => {
    const run = new Run<Res>(child, o, t0, resolve, reject);
    if (child.pid !== undefined) o.onStart?.(child.pid);
    child.send(request as object, (err) => {
      if (err) run.stop("crashed", `could not send the request: ${err.message}`);
    });
  });
}

/** One child's run: its watchers, how it ended, and the one settlement of the promise. */
class Run<Res> {
  private answer: ChildMessage<Res> | undefined;
  private ended: { reason: IsolatedFailure; message: string } | undefined;
  private stderr = "";
  private peakMb: number | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly poll: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.stop("cancelled", "cancelled");

  constructor(
    private readonly child: ChildProcess,
    private readonly o: IsolatedOptions,
    private readonly t0: number,
    private readonly resolve: (v: Res) => void,
    private readonly reject: (e: IsolatedError) => void,
  ) {
    const { seconds, memoryMb } = o.budget;
    this.timer = setTimeout(() => this.stop("time", `took longer than ${seconds} s`), seconds * 1000);
    if (process.platform === "linux") this.poll = setInterval(() => this.measure(memoryMb), POLL_MS);
    o.signal?.addEventListener("abort", this.onAbort, { once: true });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (s: string) => (this.stderr = (this.stderr + s).slice(-STDERR_TAIL)));
    child.on("message", (m: ChildMessage<Res>) => (this.answer ??= m));
    child.on("error", (e) => this.stop("crashed", `could not be started: ${e.message}`));
    child.on("exit", (code, signal) => this.exited(code, signal));
  }

  private measure(memoryMb: number): void {
    const r = this.child.pid === undefined ? undefined : residentMb(this.child.pid);
    if (!r) return;
    this.peakMb = Math.max(this.peakMb ?? 0, r.peak, r.rss);
    if (r.rss > memoryMb) this.stop("memory", `needed more than ${memoryMb} MB`);
  }

  /** Ends the child for REASON (the first reason given wins); the promise settles on its exit. */
  stop(reason: IsolatedFailure, message: string): void {
    this.ended ??= { reason, message };
    this.child.kill("SIGKILL");
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(this.timer);
    if (this.poll) clearInterval(this.poll);
    this.o.signal?.removeEventListener("abort", this.onAbort);
    this.o.onEnd?.({ wallMs: performance.now() - this.t0, peakRssMb: this.peakMb });
    const a = this.answer;
    // An answer that came in before a budget ran out (or a cancel) is still the answer.
    if (a && "value" in a) return this.resolve(a.value);
    if (this.ended) return this.reject(new IsolatedError(this.ended.message, this.ended.reason));
    if (a && "failed" in a) return this.reject(new IsolatedError(a.failed, "crashed"));
    // Ctrl+C in a terminal reaches the whole process group, the reader too.
    if (signal === "SIGINT") return this.reject(new IsolatedError("cancelled", "cancelled"));
    // V8 ran out of its heap (--max-old-space-size): it aborts with this on stderr.
    if (/heap out of memory|Reached heap limit/.test(this.stderr))
      return this.reject(new IsolatedError(`needed more than ${this.o.budget.memoryMb} MB`, "memory"));
    const how = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
    const said = this.stderr.trim().split("\n").slice(-3).join(" / ");
    this.reject(
      new IsolatedError(`the reader process ${how} without an answer${said ? `: ${said}` : ""}`, "crashed"),
    );
  }
}

/**
 * The child's side: answers the one request it is sent with `handle`, then exits. An error `handle`
 * throws is sent as `failed`; answers the caller should see as errors are values of Res.
 */
export function serveOne<Req, Res>(handle: (request: Req) => Promise<Res>): void {
  // The caller is gone (killed, or it exited): nobody waits for the answer.
  process.once("disconnect", () => process.exit(1));
  process.once("message", (request: Req) => {
    const reply = (m: ChildMessage<Res>): void => {
      process.send?.(m, undefined, {}, () => process.exit(0));
    };
    handle(request).then(
      (value) => reply({ value }),
      (e: unknown) => reply({ failed: e instanceof Error ? e.message : String(e) }),
    );
  });
}
