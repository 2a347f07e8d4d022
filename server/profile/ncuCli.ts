// Running the Nsight Compute CLI: profiling a command into a .ncu-rep, and exporting a report's
// pages as CSV. Argument arrays only, never a shell. ncu's own messages (==ERROR== lines) are
// what the user sees when it fails.
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { runTool, ToolCancelledError, ToolMissingError, type ToolResult } from "./spawnTool";

export type NcuSet = "basic" | "detailed" | "full";
export type ClockControl = "base" | "none";
export type NcuPage = "details" | "raw" | "source";

export class NcuError extends Error {
  constructor(
    message: string,
    /** "NOT_FOUND" (ncu missing), "FAILED" (non-zero exit), "NO_KERNELS" (nothing matched), "CANCELLED". */
    readonly code: "NOT_FOUND" | "FAILED" | "NO_KERNELS" | "CANCELLED",
  ) {
    super(message);
    this.name = "NcuError";
  }
}

export interface ProfileOptions {
  ncuPath: string;
  /** The program to profile and its arguments. */
  command: string[];
  /** Output report path, with or without the .ncu-rep extension. */
  report: string;
  /** Kernel name (a regex, matched against the function name); all kernels when absent. */
  kernel?: string;
  /** Launches to profile (ncu -c). */
  count?: number;
  /** Launches of the matching kernel to skip first (ncu -s), e.g. warm-up launches. */
  skip?: number;
  set: NcuSet;
  clockControl: ClockControl;
  cwd?: string;
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Each line ncu or the program prints, as it arrives. */
  onLine?: (line: string) => void;
}

/** The ncu argument list for profiling (exported for tests and for showing the user the command). */
export function profileArgs(o: Omit<ProfileOptions, "ncuPath">): string[] {
  const args = [
    "--set",
    o.set,
    "--clock-control",
    o.clockControl,
    "--import-source",
    "yes",
    "-f",
    "-o",
    o.report,
  ];
  if (o.kernel) args.push("-k", `regex:${o.kernel}`);
  if (o.skip !== undefined) args.push("-s", String(o.skip));
  if (o.count !== undefined) args.push("-c", String(o.count));
  return [...args, ...o.command];
}

export function exportArgs(report: string, page: NcuPage): string[] {
  const args = ["--import", report, "--csv", "--page", page, "--print-units", "base"];
  // The source page needs a view; "cuda,sass" correlates SASS rows with CUDA lines.
  if (page === "source") args.push("--print-source", "cuda,sass");
  return args;
}

function notFound(ncuPath: string): NcuError {
  return new NcuError(
    `Nsight Compute CLI not found: "${ncuPath}" is not on PATH or not executable. Install Nsight Compute or set cudaKernelDev.ncu.path (CLI: --ncu).`,
    "NOT_FOUND",
  );
}

/** The last ==ERROR== line ncu printed, or the tail of its output. */
export function ncuFailureMessage(output: string): string {
  const lines = output.split(/\r?\n/).filter((l) => l.trim() !== "");
  const errors = lines.filter((l) => l.startsWith("==ERROR=="));
  if (errors.length > 0) return errors.map((l) => l.replace(/^==ERROR==\s*/, "")).join("; ");
  return lines.slice(-5).join("\n") || "no output";
}

async function run(
  ncuPath: string,
  args: string[],
  what: string,
  opts: Parameters<typeof runTool>[2],
): Promise<ToolResult> {
  try {
    return await runTool(ncuPath, args, opts);
  } catch (e) {
    if (e instanceof ToolMissingError) throw notFound(ncuPath);
    if (e instanceof ToolCancelledError) throw new NcuError(`${what} cancelled`, "CANCELLED");
    throw e;
  }
}

function failure(r: ToolResult, what: string): NcuError {
  const why = r.signal ? `killed by ${r.signal}` : `exit code ${r.exitCode}`;
  return new NcuError(`${what} failed (${why}): ${ncuFailureMessage(r.output)}`, "FAILED");
}

/** "ncu profiled no kernels matching X; the program launched: a, b" from ncu's own list. */
export function noKernelsMessage(output: string, kernel?: string): string {
  const which = kernel ? ` matching "${kernel}"` : "";
  const list = /^Available Kernels:\s*\n((?:\s*\d+\.\s*.+\n?)+)/m.exec(output)?.[1];
  const names = list
    ?.split("\n")
    .map((l) => l.replace(/^\s*\d+\.\s*/, "").trim())
    .filter(Boolean);
  if (names && names.length > 0)
    return `ncu profiled no kernels${which}; the program launched: ${names.join(", ")}`;
  return `ncu profiled no kernels${which}: ${ncuFailureMessage(output)}`;
}

/** Creates the folder reports go to; a read-only or blocked one is a clear NcuError before ncu runs. */
async function reportFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    const why =
      code === "EROFS"
        ? "the file system is read-only"
        : code === "EACCES" || code === "EPERM"
          ? "permission denied"
          : code === "ENOTDIR" || code === "EEXIST"
            ? "a file is in the way"
            : e instanceof Error
              ? e.message
              : String(e);
    throw new NcuError(`cannot create the report folder ${dir}: ${why}`, "FAILED");
  }
}

/** Profiles a command; resolves with the report path (ncu appends .ncu-rep). */
export async function profile(o: ProfileOptions): Promise<string> {
  await reportFolder(dirname(o.report));
  const r = await run(o.ncuPath, profileArgs(o), "ncu", {
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    ...(o.env !== undefined ? { env: o.env } : {}),
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
    ...(o.onLine !== undefined ? { onLine: o.onLine } : {}),
  });
  if (r.exitCode !== 0) throw failure(r, "ncu");
  if (/==WARNING== No kernels were profiled/.test(r.output) || !/==PROF== Report:/.test(r.output)) {
    throw new NcuError(noKernelsMessage(r.output, o.kernel), "NO_KERNELS");
  }
  const report = /==PROF== Report: (.+?)\s*$/m.exec(r.output)?.[1];
  return report ?? (o.report.endsWith(".ncu-rep") ? o.report : `${o.report}.ncu-rep`);
}

/** Writes one page of a report as CSV to `outFile`. */
export async function exportPage(
  ncuPath: string,
  report: string,
  page: NcuPage,
  outFile: string,
  signal?: AbortSignal,
): Promise<void> {
  await mkdir(dirname(outFile), { recursive: true });
  const what = `ncu --import ${report} --page ${page}`;
  // Into a side file, renamed over outFile only when ncu succeeded: a failed or cancelled export
  // never replaces a good CSV with half of one.
  const partial = `${outFile}.partial`;
  try {
    const r = await run(ncuPath, exportArgs(report, page), what, {
      stdoutFile: partial,
      ...(signal ? { signal } : {}),
    });
    if (r.exitCode !== 0) throw failure(r, what);
    await rename(partial, outFile);
  } finally {
    await rm(partial, { force: true });
  }
}

/** ncu's version line, e.g. "Version 2025.3.1.0 (build ...)", or a NOT_FOUND error. */
export async function ncuVersion(ncuPath: string): Promise<string> {
  const r = await run(ncuPath, ["--version"], "ncu --version", {});
  if (r.exitCode !== 0) throw failure(r, "ncu --version");
  return (
    r.stdout
      .split("\n")
      .find((l) => /version/i.test(l))
      ?.trim() ?? r.stdout.trim()
  );
}
