// Finding and running nvcc: the executable (setting, PATH, /usr/local/cuda/bin), the project's flags
// (settings or compile_commands.json), and one run with an argument array, a timeout and cancellation.
import { constants, existsSync } from "node:fs";
import { access } from "node:fs/promises";
import { devNull } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { LaunchError, runProcess } from "../process/launch";
import { commandArgs, forEachCompileCommand } from "../util/compileCommands";
import { errorMessage } from "../util/errorMessage";

export class NvccNotFoundError extends Error {
  override name = "NvccNotFoundError";
  readonly code = "NVCC_NOT_FOUND";
}

async function isExecutable(p: string): Promise<boolean> {
  try {
    await access(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The nvcc to run: the configured path (cudaKernelDev.nvcc.path; a bare name is looked up on PATH),
 * else `nvcc` on PATH, else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc.
 */
export async function resolveNvcc(
  configured: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const onPath = async (name: string): Promise<string | undefined> => {
    for (const dir of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
      const p = join(dir, name);
      if (await isExecutable(p)) return p;
    }
    return undefined;
  };
  const wanted = configured?.trim();
  if (wanted) {
    const found =
      wanted.includes("/") || isAbsolute(wanted)
        ? (await isExecutable(wanted))
          ? wanted
          : undefined
        : await onPath(wanted);
    if (found) return found;
    throw new NvccNotFoundError(`nvcc not found at "${wanted}" (setting cudaKernelDev.nvcc.path)`);
  }
  const candidates = [
    env.CUDA_HOME && join(env.CUDA_HOME, "bin", "nvcc"),
    env.CUDA_PATH && join(env.CUDA_PATH, "bin", "nvcc"),
    "/usr/local/cuda/bin/nvcc",
  ];
  const fromPath = await onPath("nvcc");
  if (fromPath) return fromPath;
  for (const c of candidates) if (c && (await isExecutable(c))) return c;
  throw new NvccNotFoundError(
    "nvcc not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin; set cudaKernelDev.nvcc.path",
  );
}

/** Flags from the project that change what the device compiler sees. */
export interface ProjectFlags {
  args: string[];
  /** Where relative include paths in `args` are relative to. */
  cwd: string;
  from: "settings" | "compile_commands.json";
}

// Flags kept from a compile command: they change parsing, code generation or resource use.
const KEEP_WITH_VALUE = new Set([
  "-I",
  "-isystem",
  "-D",
  "-U",
  "-include",
  "--include-path",
  "--define-macro",
  "--undefine-macro",
  "--pre-include",
  "-maxrregcount",
  "--maxrregcount",
  "-std",
  "--std",
]);
const KEEP_PREFIX = [
  "-I",
  "-isystem",
  "-D",
  "-U",
  "-std=",
  "--std=",
  "-maxrregcount=",
  "--maxrregcount=",
  "--include-path=",
  "--define-macro=",
  "--pre-include=",
  "-rdc=",
  "--relocatable-device-code=",
];
const KEEP_EXACT = new Set([
  "--expt-relaxed-constexpr",
  "--expt-extended-lambda",
  "--extended-lambda",
  "--use_fast_math",
  "-use_fast_math",
  "-rdc",
  "--restrict",
  "-ftz=true",
  "-ftz=false",
  "--ftz=true",
  "--ftz=false",
]);

/** The project flags for `file` from a compile_commands.json, or undefined when it has no entry. */
export function flagsFromCompileCommands(
  compileCommandsPath: string,
  file: string,
): ProjectFlags | undefined {
  const target = resolve(file);
  let found: ProjectFlags | undefined;
  try {
    forEachCompileCommand(compileCommandsPath, (e) => {
      if (typeof e.file !== "string") return false;
      const dir = typeof e.directory === "string" ? e.directory : dirname(compileCommandsPath);
      if (resolve(dir, e.file) !== target) return false;
      found = { args: deviceFlags(commandArgs(e)), cwd: dir, from: "compile_commands.json" };
      return true;
    });
  } catch (err) {
    throw new Error(`cannot read ${compileCommandsPath}: ${errorMessage(err)}`);
  }
  return found;
}

/** The flags of a compile command (its compiler first) that change what the device compiler sees. */
function deviceFlags(argv: string[]): string[] {
  const kept: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (KEEP_WITH_VALUE.has(a) && i + 1 < argv.length) kept.push(a, argv[++i]!);
    else if (KEEP_EXACT.has(a) || KEEP_PREFIX.some((p) => a.startsWith(p) && a.length > p.length))
      kept.push(a);
  }
  return kept;
}

/** compile_commands.json in the folder or its build/ subfolder, first found. */
export function findCompileCommands(folder: string): string | undefined {
  for (const p of [join(folder, "compile_commands.json"), join(folder, "build", "compile_commands.json")])
    if (existsSync(p)) return p;
  return undefined;
}

export type CompileMode = "check" | "ptx";

/**
 * The argument array for one architecture. "check" compiles device code only (-cubin, to the null
 * device) with ptxas's resource report: front-end errors, ptxas errors and per-kernel resources in one
 * run. "ptx" writes PTX with line info to `output`.
 */
export function nvccArgs(
  mode: CompileMode,
  file: string,
  arch: string,
  project: string[],
  output?: string,
): string[] {
  const archFlag = `-arch=${arch}`;
  if (mode === "ptx")
    return ["-ptx", "-lineinfo", "-src-in-ptx", archFlag, ...project, "-o", output ?? devNull, file];
  return ["-cubin", archFlag, "-Xptxas", "-v", ...project, "-o", output ?? devNull, file];
}

export interface NvccRun {
  exitCode: number | undefined;
  /** stdout and stderr interleaved as printed. */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Runs nvcc; a failed compile is data, not an exception. Only a missing executable throws (or the
 * launch policy refusing it: a LaunchError "DENIED" in an untrusted workspace). Through the process
 * launcher: argument array, no shell; SIGTERM to nvcc's process group (cicc, ptxas) on timeout or
 * cancel, SIGKILL 2 s later if it lingers; its temporary files in a private TMPDIR removed after.
 */
export async function runNvcc(nvcc: string, args: string[], opts: RunOptions): Promise<NvccRun> {
  if (opts.signal?.aborted)
    return { exitCode: undefined, output: "", timedOut: false, cancelled: true, durationMs: 0 };
  try {
    const r = await runProcess(nvcc, args, {
      tool: "nvcc",
      setting: "cudaKernelDev.nvcc.path",
      cwd: opts.cwd,
      env: { ...process.env, LC_ALL: "C" },
      privateTmpDir: true,
      timeoutMs: opts.timeoutMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    return {
      exitCode: r.exitCode ?? undefined,
      output: r.output,
      timedOut: r.timedOut,
      cancelled: r.cancelled,
      durationMs: r.durationMs,
    };
  } catch (e) {
    if (e instanceof LaunchError && (e.code === "NOT_FOUND" || e.code === "NOT_EXECUTABLE"))
      throw new NvccNotFoundError(e.message);
    throw e;
  }
}

/** A toolkit tool (nvdisasm, cuobjdump) next to nvcc or on PATH; undefined when not installed. */
export async function findToolNextTo(
  nvcc: string,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const dirs = [dirname(nvcc), ...(env.PATH ?? "").split(delimiter).filter(Boolean)];
  for (const dir of dirs) {
    const p = join(dir, name);
    if (await isExecutable(p)) return p;
  }
  return undefined;
}
