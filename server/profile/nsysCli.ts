// Nsight Systems: `nsys profile` a command line of the user's, then `nsys stats` for the kernel and
// memory-operation summaries. When nsys fails, its own words reach the user: on some installs the
// collection works but the importer fails ("Importer error status: ...") and no .nsys-rep appears.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { parseNsysStats, type NsysStats } from "./nsysCsv";
import { runTool, ToolCancelledError, ToolMissingError, type ToolResult } from "./spawnTool";

export class NsysError extends Error {
  constructor(
    message: string,
    readonly code: "NOT_FOUND" | "FAILED" | "NO_REPORT" | "CANCELLED",
    /** nsys's own output, for the log. */
    readonly output = "",
  ) {
    super(message);
    this.name = "NsysError";
  }
}

export interface NsysOptions {
  nsysPath: string;
  command: string[];
  /** Report path without extension; nsys adds .nsys-rep. */
  report: string;
  cwd?: string;
  signal?: AbortSignal;
  onLine?: (line: string) => void;
}

export function nsysProfileArgs(report: string, command: string[]): string[] {
  return [
    "profile",
    "--trace",
    "cuda,nvtx",
    "--force-overwrite",
    "true",
    "--stats",
    "false",
    "-o",
    report,
    ...command,
  ];
}

export function nsysStatsArgs(rep: string): string[] {
  return [
    "stats",
    "--report",
    "cuda_gpu_kern_sum",
    "--report",
    "cuda_gpu_mem_time_sum",
    "--format",
    "csv",
    "--output",
    "-",
    "--force-export",
    "true",
    rep,
  ];
}

/**
 * The message for a failed `nsys profile`: nsys's error lines ("Importer error status: ...",
 * "... Error ...") when it printed any, else the tail of its output.
 */
export function nsysFailureMessage(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.filter((l) => /error|failed|fatal/i.test(l) && !/^\s*$/.test(l));
  const picked = errors.length > 0 ? errors.slice(-3) : lines.slice(-3);
  return picked.join(" | ") || "no output";
}

async function run(o: NsysOptions, args: string[], what: string): Promise<ToolResult> {
  try {
    return await runTool(o.nsysPath, args, {
      ...(o.cwd ? { cwd: o.cwd } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onLine ? { onLine: o.onLine } : {}),
    });
  } catch (e) {
    if (e instanceof ToolMissingError)
      throw new NsysError(
        `Nsight Systems CLI not found: "${o.nsysPath}". Install Nsight Systems or set cudaKernelDev.nsys.path.`,
        "NOT_FOUND",
      );
    if (e instanceof ToolCancelledError) throw new NsysError(`${what} cancelled`, "CANCELLED");
    throw e;
  }
}

/**
 * Decides whether `nsys profile` produced a report; throws NsysError with nsys's words if not. Seen
 * on our H100 machine: exit code 0, "Generated: .../R.qdstrm" and no .nsys-rep (the importer that
 * turns the raw stream into a report failed).
 */
export function checkProfileResult(
  r: Pick<ToolResult, "exitCode" | "output">,
  rep: string,
  reportExists: boolean,
): void {
  if (r.exitCode === 0 && reportExists && !/Importer error status/i.test(r.output)) return;
  const qdstrm = /^\s*(\S+\.qdstrm)\s*$/m.exec(r.output.split(/Generated:/)[1] ?? "")?.[1];
  let why: string;
  if (r.exitCode !== 0) why = `exit code ${r.exitCode}`;
  else if (!reportExists && qdstrm)
    why = `it collected ${qdstrm} but did not turn it into ${rep} (its importer failed)`;
  else if (!reportExists) why = `no report written (${rep})`;
  else why = "importer error";
  throw new NsysError(
    `nsys profile failed: ${why}. nsys said: ${nsysFailureMessage(r.output)}`,
    reportExists ? "FAILED" : "NO_REPORT",
    r.output,
  );
}

export async function nsysProfileAndStats(o: NsysOptions): Promise<{ report: string; stats: NsysStats }> {
  await mkdir(dirname(o.report), { recursive: true });
  const rep = `${o.report}.nsys-rep`;
  const p = await run(o, nsysProfileArgs(o.report, o.command), "nsys profile");
  checkProfileResult(p, rep, existsSync(rep));
  const s = await run(o, nsysStatsArgs(rep), "nsys stats");
  if (s.exitCode !== 0)
    throw new NsysError(
      `nsys stats failed (exit code ${s.exitCode}): ${nsysFailureMessage(s.output)}`,
      "FAILED",
      s.output,
    );
  return { report: rep, stats: parseNsysStats(s.stdout) };
}
