// `nsys profile` of any command (a Python script, a built binary, our benchmark harness) into a
// .nsys-rep, through the one launcher. nsys writes under a temporary name that is renamed only once
// a whole report exists, so a killed or failed profile never leaves a file that looks like a report.
// When nsys's importer fails (seen on our GPU machine: "Importer error status: An unknown error
// occurred", only a .qdstrm left), the importer is started alone to learn which library it misses.
import { readdirSync, realpathSync } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { nsysFailureMessage } from "./nsysMessages";
import { NsysReportError } from "./nsysReportDb";
import { noNsys, type NsysToolOptions } from "./nsysReportLoad";
import { runTool, ToolCancelledError, ToolMissingError, type ToolResult } from "./spawnTool";

export interface NsysProfileOptions extends NsysToolOptions {
  command: string[];
  /** The report to write, ending in .nsys-rep. */
  report: string;
  cwd?: string;
  /** nsys --trace (default cuda,nvtx). */
  trace?: string;
  /** More nsys profile options, before the command. */
  extraArgs?: string[];
}

export interface NsysProfileResult {
  report: string;
  /** The profiled program's exit code when nsys passed on a non-zero one (the report is still whole). */
  programExitCode: number | null;
  output: string;
}

export function nsysProfileReportArgs(
  o: Pick<NsysProfileOptions, "trace" | "extraArgs" | "command">,
  out: string,
): string[] {
  // No CPU sampling or context switches: the report stays small and fast to write; the GPU trace,
  // the CUDA API and NVTX are what the summaries read.
  return [
    "profile",
    "--trace",
    o.trace ?? "cuda,nvtx",
    "--sample",
    "none",
    "--cpuctxsw",
    "none",
    "--force-overwrite",
    "true",
    ...(o.extraArgs ?? []),
    "--output",
    out,
    ...o.command,
  ];
}

const exists = async (p: string): Promise<boolean> => {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
};

/** The QdstrmImporter beside an nsys binary (nsys/../<host folder>/QdstrmImporter), if any. */
export function importerOf(nsysPath: string): string | undefined {
  let bin: string;
  try {
    bin = realpathSync(nsysPath);
  } catch {
    return undefined;
  }
  const root = dirname(dirname(bin));
  let dirs: string[] = [];
  try {
    dirs = readdirSync(root);
  } catch {
    return undefined;
  }
  for (const d of dirs.sort()) {
    const p = join(root, d, "QdstrmImporter");
    try {
      if (realpathSync(p)) return p;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** "libdw.so.1" from the loader's "error while loading shared libraries: libdw.so.1: cannot open ...". */
export function missingLibrary(output: string): string | undefined {
  return /error while loading shared libraries: ([^\s:]+)/.exec(output)?.[1];
}

/** Why the importer failed: the library it misses when it says so, else nsys's words. */
async function importerFailure(nsysPath: string, output: string): Promise<NsysReportError> {
  const importer = importerOf(nsysPath);
  let lib: string | undefined;
  if (importer) {
    try {
      lib = missingLibrary((await runTool(importer, ["--version"])).output);
    } catch {
      // could not even start it: nsys's own words below are all there is
    }
  }
  const said = nsysFailureMessage(output);
  return new NsysReportError(
    lib
      ? `nsys collected the trace but its importer (${importer}) cannot load ${lib}, so no report was written. ` +
          `Install the library (Debian/Ubuntu: ${lib.startsWith("libdw") ? "libdw1" : "the package that ships it"}) ` +
          `or put its folder on LD_LIBRARY_PATH. nsys said: ${said}`
      : `nsys collected the trace but its importer failed, so no report was written. nsys said: ${said}`,
    "IMPORTER",
  );
}

async function removePartial(partial: string): Promise<void> {
  await Promise.all([".nsys-rep", ".qdstrm", ".sqlite"].map((ext) => rm(partial + ext, { force: true })));
}

async function runProfile(o: NsysProfileOptions, nsysPath: string, partial: string): Promise<ToolResult> {
  try {
    return await runTool(nsysPath, nsysProfileReportArgs(o, partial), {
      ...(o.cwd ? { cwd: o.cwd } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onLine ? { onLine: o.onLine } : {}),
    });
  } catch (e) {
    await removePartial(partial);
    if (e instanceof ToolMissingError) throw noNsys("Profiling with Nsight Systems");
    if (e instanceof ToolCancelledError)
      throw new NsysReportError("nsys profile cancelled; no report was kept", "CANCELLED");
    throw e;
  }
}

/** Profiles o.command into o.report; throws NsysReportError with nsys's words when no report came. */
export async function nsysProfileReport(o: NsysProfileOptions): Promise<NsysProfileResult> {
  if (!o.nsysPath) throw noNsys("Profiling with Nsight Systems");
  if (o.command.length === 0)
    throw new NsysReportError("nothing to profile: give a command after --", "USAGE");
  await mkdir(dirname(o.report), { recursive: true });
  const partial = join(
    dirname(o.report),
    `.${basename(o.report, ".nsys-rep")}.partial-${process.pid}-${Date.now()}`,
  );
  const r = await runProfile(o, o.nsysPath, partial);
  const made = await exists(`${partial}.nsys-rep`);
  if (r.signal || !made || /Importer error status/i.test(r.output)) {
    await removePartial(partial);
    if (/Importer error status/i.test(r.output)) throw await importerFailure(o.nsysPath, r.output);
    throw new NsysReportError(
      `nsys profile ${r.signal ? `was stopped by ${r.signal}` : `exited with code ${r.exitCode}`} before writing a report; ` +
        `nothing was kept. nsys said: ${nsysFailureMessage(r.output)}`,
      "PROFILE_FAILED",
    );
  }
  await rename(`${partial}.nsys-rep`, o.report);
  return { report: o.report, programExitCode: r.exitCode === 0 ? null : r.exitCode, output: r.output };
}
