// The one way this project starts an external program (nvcc, ptxas, ncu, nsys, nvidia-smi,
// cuobjdump/nvdisasm, git, the GPU runner). Always an argument array with no shell, so a file name
// like `a $(touch x) b.cu` is one argument and runs nothing; a timeout that sends SIGTERM and then
// SIGKILL; AbortSignal cancellation; clear errors for a missing or non-executable program. On POSIX a
// program runs in its own process group and a stop (timeout, cancel, this process exiting) signals
// the whole group, so nothing it started (cicc and ptxas under nvcc) lives on; `privateTmpDir` gives
// it a TMPDIR of its own, removed after the run.
// Programs that run to completion go through execa (runProcess: timeout, forced kill, cancellation,
// spawn errors); the two long-lived stdio conversations (the GPU runner, ncu around it) need the
// child at once, synchronously, so spawnChecked gives them node's spawn. execa is ESM-only, so it is
// loaded with import(), which works in the bundles and under tsx alike.
// Two process-wide hooks (launchPolicy.ts): a policy that can refuse every launch, and refuses every
// one while none is installed (the CLI allows all; the extension denies all in an untrusted
// workspace), and observers that see every attempt (tests spy on launches with it).
// forkOwnScript starts this project's own node scripts (the report reader): not a program the
// workspace or the user names, so the policy is not asked; observers see it.
import { fork, spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchVerdict, notifyLaunchObservers, type LaunchRequest } from "./launchPolicy";

export {
  addLaunchObserver,
  allowEveryLaunch,
  setLaunchPolicy,
  type LaunchEvent,
  type LaunchObserver,
  type LaunchPolicy,
  type LaunchRequest,
} from "./launchPolicy";

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
  /** Cancels: spawnChecked's child gets SIGTERM and an AbortError; runProcess's gets stopped like a timeout. */
  signal?: AbortSignal;
}

/**
 * Checks the policy, tells the observers and spawns. Throws LaunchError("DENIED") when the policy
 * refuses. A program that cannot start reports it through the child's "error" event; pass that
 * error to startError() for the message. For long-lived children (the runner); runProcess() below
 * is the one to use for a tool that runs to completion.
 */
export function spawnChecked(command: string, args: readonly string[], o: SpawnOptions = {}): ChildProcess {
  admit(command, args, o);
  return spawn(command, [...args], {
    shell: false,
    windowsHide: true,
    cwd: o.cwd,
    env: o.env ?? process.env,
    stdio: o.stdio ?? ["ignore", "pipe", "pipe"],
    ...(o.signal ? { signal: o.signal } : {}),
  });
}

export interface ForkOptions {
  /** What the user would call it, for messages and observers: "the Nsight Systems reader". */
  tool: string;
  /** node's own arguments (heap limit, loaders). */
  execArgv: string[];
}

/**
 * Starts SCRIPT, a script of this project (a bundle beside this one, or its source under tsx), with
 * the node that runs this code, an IPC channel, stdin and stdout ignored and stderr piped. For work
 * that must not run in this process (reading an untrusted report: isolated.ts). The policy is not
 * asked: it keeps a workspace from running programs and arguments of its choosing, and this runs
 * neither (the language client starts the language server the same way), so a report opens in
 * Restricted Mode too.
 */
export function forkOwnScript(script: string, o: ForkOptions): ChildProcess {
  notifyLaunchObservers({
    tool: o.tool,
    command: process.execPath,
    args: [...o.execArgv, script],
    outcome: "started",
  });
  return fork(script, [], {
    execArgv: o.execArgv,
    // Inside Electron (the VS Code extension host) process.execPath is Electron: run it as node.
    env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" },
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    serialization: "advanced",
  });
}

/** Asks the policy and tells the observers; throws LaunchError("DENIED") when the policy (or its absence) refuses. */
function admit(command: string, args: readonly string[], o: SpawnOptions): void {
  const request: LaunchRequest = {
    tool: o.tool ?? command,
    command,
    args: [...args],
    ...(o.cwd ? { cwd: o.cwd } : {}),
  };
  const verdict = launchVerdict(request);
  if (verdict !== true) {
    notifyLaunchObservers({ ...request, outcome: "denied", reason: verdict });
    throw new LaunchError(verdict, "DENIED", request.tool);
  }
  notifyLaunchObservers({ ...request, outcome: "started" });
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
  /** Write stdout to this file instead of keeping it (large exports). */
  stdoutFile?: string;
  /** Called with each complete line of stdout and stderr as it arrives. */
  onLine?: (line: string) => void;
  /** Characters of output kept (stdout, stderr and output each); the rest is dropped. Default 32 Mi. */
  maxOutputChars?: number;
  /**
   * Run with TMPDIR (and TMP, TEMP) set to a new private folder, removed with whatever is in it once the
   * program and its group are gone: nvcc's tmpxft_* files do not outlive a killed compile.
   */
  privateTmpDir?: boolean;
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
 * Runs a program to completion, through execa. A non-zero exit, a timeout or a cancellation is data
 * in the result; a launch that did not happen (denied, not found, not executable), or whose
 * `stdoutFile` could not be opened, rejects with a LaunchError.
 */
export async function runProcess(
  command: string,
  args: readonly string[],
  o: RunOptions = {},
): Promise<RunResult> {
  if (!o.privateTmpDir || o.signal?.aborted) return runOnce(command, args, o);
  const tmp = await mkdtemp(join(tmpdir(), "ckd-tool-"));
  try {
    const env = { ...(o.env ?? process.env), TMPDIR: tmp, TMP: tmp, TEMP: tmp };
    return await runOnce(command, args, { ...o, env });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function runOnce(command: string, args: readonly string[], o: RunOptions): Promise<RunResult> {
  const started = performance.now();
  let stdout = "";
  let stderr = "";
  let output = "";
  let truncated = false;
  const result = (
    r: { exitCode?: number; signal?: NodeJS.Signals; timedOut?: boolean; isCanceled?: boolean } = {},
  ): RunResult => ({
    exitCode: r.exitCode ?? null,
    signal: r.signal ?? null,
    stdout,
    stderr,
    output,
    timedOut: r.timedOut ?? false,
    cancelled: r.isCanceled ?? o.signal?.aborted ?? false,
    durationMs: performance.now() - started,
    truncated,
  });
  if (o.signal?.aborted) return result({ isCanceled: true });
  admit(command, args, o);

  // A program printing without end must not take the extension host's memory with it, so output is
  // gathered here (capped) rather than by execa's maxBuffer, which would end the program.
  const max = o.maxOutputChars ?? 32 * 1024 * 1024;
  const keep = (kept: string, more: string): string => {
    if (kept.length + more.length <= max) return kept + more;
    truncated = true;
    return kept.length >= max ? kept : kept + more.slice(0, max - kept.length);
  };
  if (o.stdoutFile) await checkOutput(o.stdoutFile, command, o);
  const [{ execa }, { onExit }] = await Promise.all([import("execa"), import("signal-exit")]);
  if (GROUPS && !exitHook) {
    exitHook = true;
    onExit(() => {
      for (const g of liveGroups) signalGroup(g, "SIGKILL");
    });
  }
  const child = execa(command, [...args], {
    cwd: o.cwd,
    env: o.env ?? process.env,
    extendEnv: false,
    stdin: "ignore",
    stdout: o.stdoutFile ? { file: o.stdoutFile } : "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    windowsHide: true,
    // Its own process group, so a stop reaches what it started (cicc and ptxas under nvcc): see stopper.
    ...(GROUPS
      ? { detached: true, cleanup: false }
      : {
          forceKillAfterDelay: o.killGraceMs ?? 2000,
          ...(o.timeoutMs === undefined ? {} : { timeout: Math.max(1, o.timeoutMs) }),
          ...(o.signal ? { cancelSignal: o.signal } : {}),
        }),
  });
  const stop = GROUPS ? stopper(child.pid, o) : undefined;
  const partial = { out: "", err: "" };
  const gather = (which: "out" | "err", t: string): void => {
    if (which === "out") stdout = keep(stdout, t);
    else stderr = keep(stderr, t);
    output = keep(output, t);
    if (!o.onLine) return;
    const parts = (partial[which] + t).split(/\r?\n/);
    partial[which] = parts.pop() ?? "";
    for (const l of parts) o.onLine(l);
  };
  child.stdout?.setEncoding("utf8").on("data", (t: string) => gather("out", t));
  child.stderr?.setEncoding("utf8").on("data", (t: string) => gather("err", t));
  // A grandchild (the program ncu profiles, cicc under nvcc) can keep the pipes open after the
  // program itself died; do not wait on it forever.
  let drain: NodeJS.Timeout | undefined;
  child.on("exit", () => {
    drain = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, 1000);
  });
  const r = await child;
  clearTimeout(drain);
  stop?.done();
  if (o.onLine) {
    if (partial.out) o.onLine(partial.out);
    if (partial.err) o.onLine(partial.err);
  }
  const cause = r.cause as NodeJS.ErrnoException | undefined;
  if (r.failed && cause?.syscall?.startsWith("spawn")) throw startError(cause, command, o);
  return result(stop ? { ...r, timedOut: stop.why === "timeout", isCanceled: stop.why === "cancel" } : r);
}

/** Process groups (POSIX): a program runs as the leader of its own, and a stop signals the whole group. */
// Marked pure so that a bundle importing only the policy hooks (the extension entry) leaves them out.
const GROUPS = /* @__PURE__ */ (() => process.platform !== "win32")();

/** The process groups of programs still running: killed if this process exits first (Ctrl+C, a crash). */
const liveGroups = /* @__PURE__ */ new Set<number>();
let exitHook = false;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * Stops the process group led by `pid` on a timeout or a cancel: SIGTERM to the group, SIGKILL to
 * whatever of it is left `killGraceMs` later, and SIGKILL to the group's stragglers once the leader has
 * exited (nvcc gone, cicc still running). `done()` is called when the leader has exited.
 */
function stopper(
  pid: number | undefined,
  o: RunOptions,
): { why: "timeout" | "cancel" | undefined; done: () => void } | undefined {
  if (pid === undefined) return undefined;
  liveGroups.add(pid);
  const state: { why: "timeout" | "cancel" | undefined; done: () => void } = { why: undefined, done };
  let force: NodeJS.Timeout | undefined;
  const stop = (why: "timeout" | "cancel"): void => {
    if (state.why) return;
    state.why = why;
    signalGroup(pid, "SIGTERM");
    force = setTimeout(() => signalGroup(pid, "SIGKILL"), o.killGraceMs ?? 2000);
  };
  const timer =
    o.timeoutMs === undefined ? undefined : setTimeout(() => stop("timeout"), Math.max(1, o.timeoutMs));
  const onAbort = (): void => stop("cancel");
  o.signal?.addEventListener("abort", onAbort, { once: true });
  if (o.signal?.aborted) onAbort();
  function done(): void {
    clearTimeout(timer);
    clearTimeout(force);
    o.signal?.removeEventListener("abort", onAbort);
    liveGroups.delete(pid!);
    if (state.why) signalGroup(pid!, "SIGKILL");
  }
  return state;
}

/** Opens the file a program's stdout goes to, before the program starts: no point running without it. */
async function checkOutput(path: string, command: string, o: RunOptions): Promise<void> {
  try {
    await (await open(path, "w")).close();
  } catch (e) {
    const tool = o.tool ?? command;
    throw new LaunchError(
      `${tool}'s output could not be written to ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      "OUTPUT_NOT_WRITTEN",
      tool,
    );
  }
}
