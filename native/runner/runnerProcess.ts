// One runner process of the client (runnerClient.ts): `node dist/runner.js`, or the same under a
// wrapper (`ncu <args> node dist/runner.js`), started through the process launcher; its stdout split
// into protocol messages and other output; its end reported once; the two ways this side ends it.
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { spawnChecked, startError, type SpawnOptions } from "../../server/process/launch";
import type { ProgressMessage, RunnerError, RunnerMethod } from "./protocol";

/** A program the runner runs under: the command becomes `command ...args node dist/runner.js`. */
export interface RunnerWrapper {
  command: string;
  args: readonly string[];
  /** What the user calls it, for messages and the launch policy: "ncu". */
  tool: string;
  /** The setting that names the command, for the "not found" message: "cudaKernelDev.ncu.path". */
  setting?: string;
}

export interface RunnerCommand {
  execPath: string;
  execArgv: readonly string[];
  runnerPath: string;
  wrapper?: RunnerWrapper | undefined;
  env?: Record<string, string> | undefined;
}

/** A line of the runner's stdout that is one of its messages: an answer or progress for request `id`. */
export interface RunnerMessage {
  id: number;
  result?: unknown;
  error?: RunnerError;
  progress?: ProgressMessage["progress"];
}

/** How a process ended: its exit code, or the launcher's error when it could not start. */
export interface ProcessExit {
  exitCode?: number | null;
  cause?: Error;
}

export interface RunnerProcessEvents {
  message(msg: RunnerMessage): void;
  /** stderr, and stdout lines that are not messages (a wrapper's own output). */
  output(line: string): void;
  /** Once, after stdout is drained: a last answer (a sticky error) has been delivered first. */
  gone(why: string, exit: ProcessExit): void;
}

const STDERR_TAIL_CHARS = 2000;

export class RunnerProcess {
  /** Its name in messages: "the GPU runner", or the wrapper's ("ncu"). */
  readonly tool: string;
  /** Set when this side decided to end it (timeout, cancel, sticky error, dispose, one-shot): not a crash. */
  retiring = false;
  gone = false;
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;
  private stderrTail = "";
  private killed = false;

  /** Spawns it; throws the launcher's LaunchError when the policy refuses (DENIED). */
  constructor(cmd: RunnerCommand, events: RunnerProcessEvents) {
    const node = [cmd.execPath, ...cmd.execArgv, cmd.runnerPath];
    const w = cmd.wrapper;
    const command = w ? w.command : cmd.execPath;
    const how: SpawnOptions = w
      ? { tool: w.tool, ...(w.setting ? { setting: w.setting } : {}) }
      : { tool: "the GPU runner" };
    this.tool = how.tool!;
    // Through the process launcher: the workspace-trust policy applies and tests can see it.
    this.child = spawnChecked(command, w ? [...w.args, ...node] : node.slice(1), {
      ...how,
      stdio: ["pipe", "pipe", "pipe"],
      // In VS Code's extension host process.execPath is Electron; this makes it behave as Node.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: "1", ...cmd.env },
    });
    let markExited: () => void = () => undefined;
    this.exited = new Promise<void>((r) => (markExited = r));
    const gone = (why: string, exit: ProcessExit): void => {
      if (this.gone) return;
      this.gone = true;
      markExited();
      events.gone(why, exit);
    };
    const child = this.child;
    // A runner that died leaves a broken pipe; the exit handler reports it, not an EPIPE throw.
    child.stdin?.on("error", () => undefined);
    // stdio is ["pipe", "pipe", "pipe"]: the streams exist.
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const msg = runnerMessage(line);
      if (msg) events.message(msg);
      else events.output(line);
    });
    createInterface({ input: child.stderr! }).on("line", (line) => {
      this.stderrTail = (this.stderrTail + line + "\n").slice(-STDERR_TAIL_CHARS);
      events.output(line);
    });
    // "close", not "exit": it comes after stdout is drained.
    child.on("close", (code, signal) =>
      gone(signal ? `killed by ${signal}` : `exited with code ${String(code)}`, { exitCode: code }),
    );
    child.on("error", (err: NodeJS.ErrnoException) =>
      gone(`could not run ${command}: ${err.message}`, { cause: startError(err, command, how) }),
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** One request line (a RequestMessage; the client has checked the params' type). */
  send(msg: { id: number; method: RunnerMethod; params: unknown }): void {
    this.child.stdin?.write(`${JSON.stringify(msg)}\n`);
  }

  /** The last lines of its stderr, joined, for a crash message. */
  lastErrorLines(count = 3): string {
    return this.stderrTail.trim().split("\n").slice(-count).join(" | ");
  }

  /** Lets it end by itself: stdin closed (the runner exits at its end), the exit not a crash. */
  release(): void {
    this.retiring = true;
    this.child.stdin?.end();
  }

  /** Ends it: released, SIGTERM, then SIGKILL after graceMs. */
  kill(graceMs: number): void {
    this.release();
    if (this.killed || this.gone) return;
    this.killed = true;
    this.child.kill("SIGTERM");
    const force = setTimeout(() => {
      if (!this.gone) this.child.kill("SIGKILL");
    }, graceMs);
    force.unref();
    void this.exited.then(() => clearTimeout(force));
  }
}

/** The line as a runner message (an object with a numeric id), or undefined for any other output. */
function runnerMessage(line: string): RunnerMessage | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const msg: unknown = JSON.parse(line);
    if (typeof msg === "object" && msg !== null && typeof (msg as { id?: unknown }).id === "number")
      return msg as RunnerMessage;
  } catch {
    // not JSON: output of the runner or its wrapper
  }
  return undefined;
}
