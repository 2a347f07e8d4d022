// A PyTorch sidecar process, alive from the start of a benchmark run to its end (or, in a
// SidecarPool, over several runs): started (through the launcher, so the trust gate applies) while
// the kernel compiles and runs, so torch's import and CUDA init are done by the time the first size
// asks; then one JSON line in per size and one JSON line out (torchProtocol.ts). On cancel or a
// stuck size it is killed, SIGTERM then SIGKILL; at the end its stdin is closed and it is killed if
// it has not exited after a short grace.
import type { ChildProcess } from "node:child_process";
import { LaunchError, spawnChecked, startError, type SpawnOptions } from "../../process/launch";

/** A request's answer line, or why there is none. */
export type SidecarReply =
  | { line: string }
  | { launch: LaunchError }
  | { failed: "exited" | "timeout" | "cancelled"; message: string };

const KILL_GRACE_MS = 2000;

export class SidecarProcess {
  private readonly child: ChildProcess | undefined;
  private launchError: LaunchError | undefined;
  private readonly lines: string[] = [];
  private wake: (() => void) | undefined;
  private done = false;
  private readonly closed: Promise<void>;
  private exit = "";
  private stderrTail = "";
  private wasAsked = false;

  constructor(command: string, args: readonly string[], o: SpawnOptions) {
    let closed = (): void => undefined;
    this.closed = new Promise((r) => (closed = r));
    try {
      this.child = spawnChecked(command, args, { ...o, stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      if (!(e instanceof LaunchError)) throw e;
      this.launchError = e;
      this.finish(closed);
      return;
    }
    const child = this.child;
    child.stdin!.on("error", () => undefined); // EPIPE from a sidecar that died: its exit says why
    let partial = "";
    child.stdout!.setEncoding("utf8").on("data", (t: string) => {
      const parts = (partial + t).split(/\r?\n/);
      partial = parts.pop() ?? "";
      this.lines.push(...parts.filter((l) => l.trim()));
      this.wake?.();
    });
    child.stderr!.setEncoding("utf8").on("data", (t: string) => {
      this.stderrTail = (this.stderrTail + t).slice(-8192);
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (!err.syscall?.startsWith("spawn")) return;
      this.launchError = startError(err, command, o) as LaunchError;
      this.finish(closed);
    });
    child.on("exit", (code, signal) => {
      this.exit = `exited with code ${code ?? signal}`;
      // A grandchild (torch.compile's workers) may hold the pipes open: do not wait on it for long.
      setTimeout(() => this.finish(closed), 1000).unref();
    });
    child.on("close", () => this.finish(closed));
  }

  /** Started and not exited (a launch that failed never was). */
  get alive(): boolean {
    return !this.done && !this.launchError && this.child !== undefined;
  }

  /** Whether a request was ever sent to it. */
  get asked(): boolean {
    return this.wasAsked;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private finish(closed: () => void): void {
    this.done = true;
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
    closed();
    this.wake?.();
  }

  /** Sends one request line and waits for its answer line. */
  async ask(request: string, timeoutMs: number, signal?: AbortSignal): Promise<SidecarReply> {
    if (this.launchError) return { launch: this.launchError };
    this.wasAsked = true;
    let stopped: "timeout" | "cancelled" | undefined;
    const stop = (why: "timeout" | "cancelled") => {
      stopped ??= why;
      void this.kill(); // its exit ends the wait below
    };
    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    const onAbort = () => stop("cancelled");
    signal?.addEventListener("abort", onAbort);
    try {
      if (signal?.aborted) stop("cancelled");
      if (!this.done) this.child!.stdin!.write(`${request}\n`);
      for (;;) {
        const line = this.lines.shift();
        if (line !== undefined && !stopped) return { line };
        if (this.done) break;
        await new Promise<void>((r) => (this.wake = r));
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    if (this.launchError) return { launch: this.launchError };
    if (stopped === "cancelled") return { failed: "cancelled", message: "cancelled" };
    const last = lastLine(this.stderrTail);
    if (stopped === "timeout") return { failed: "timeout", message: last };
    return { failed: "exited", message: `${this.exit || "exited"}: ${last}` };
  }

  /** SIGTERM, then SIGKILL if it is still there after the grace; resolves once it has exited. */
  kill(): Promise<void> {
    if (!this.done && this.child) {
      this.child.kill("SIGTERM");
      const force = setTimeout(() => this.child?.kill("SIGKILL"), KILL_GRACE_MS);
      void this.closed.then(() => clearTimeout(force));
    }
    return this.closed;
  }

  /** The end of the run: stdin closed, so it exits; killed if not gone after `graceMs` (at once if never asked). */
  async close(graceMs = 1000): Promise<void> {
    if (this.done || !this.child) return this.closed;
    if (!this.wasAsked) return this.kill();
    this.child.stdin!.end();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), graceMs)));
    const how = await Promise.race([this.closed, late]);
    clearTimeout(timer);
    if (how === "late") await this.kill();
  }
}

/** The last non-empty line of a program's stderr: where Python puts the exception. */
export function lastLine(text: string): string {
  return (
    text
      .trim()
      .split(/\r?\n/)
      .filter((l) => l.trim())
      .at(-1) ?? ""
  );
}
