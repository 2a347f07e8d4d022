// Summarizes a report given as a .nsys-rep (exported to SQLite with `nsys export --type sqlite`
// through the one launcher, so the trust policy applies) or as such an SQLite export (read with no
// tool at all). The export is written under a temporary name and renamed once nsys succeeded, so a
// failed or stopped export never leaves an .sqlite that looks whole; a fresh export beside the
// report is reused, as `nsys stats` does. The export is read in a reader process with a time and
// memory budget (nsysReaderClient.ts): a report is untrusted input.
import { rename, rm, stat } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { nsysFailureMessage } from "./nsysMessages";
import { NSYS_SEARCHED } from "./nsysFind";
import { NsysReportError } from "./nsysReportDb";
import type { NsysTimelineTrace } from "./nsysReport";
import { readInReader, type NsysReaderOptions } from "./nsysReaderClient";
import type { NsysSummary } from "./nsysReportSummary";
import { runTool, ToolCancelledError, ToolMissingError } from "./spawnTool";

export interface NsysToolOptions extends NsysReaderOptions {
  /** The nsys to run (see findNsys); undefined when none was found. */
  nsysPath: string | undefined;
  /** Cancels the export and the read. */
  signal?: AbortSignal;
  onLine?: (line: string) => void;
}

const mtime = async (p: string): Promise<number | undefined> => {
  try {
    return (await stat(p)).mtimeMs;
  } catch {
    return undefined;
  }
};

export function noNsys(what: string): NsysReportError {
  return new NsysReportError(
    `${what} needs the Nsight Systems CLI (nsys), which was not found (looked on ${NSYS_SEARCHED}): install ` +
      `Nsight Systems or set cudaKernelDev.nsys.path (CLI: --nsys). An SQLite export (nsys export --type sqlite) opens without it.`,
    "NO_NSYS",
  );
}

/** The SQLite export of REP: the existing one when it is not older than REP, else a new one. */
export async function exportSqlite(rep: string, o: NsysToolOptions): Promise<string> {
  const out = join(dirname(rep), `${basename(rep, extname(rep))}.sqlite`);
  const repTime = await mtime(rep);
  if (repTime === undefined) throw new NsysReportError(`${rep} does not exist`, "NOT_FOUND");
  const outTime = await mtime(out);
  if (outTime !== undefined && outTime >= repTime) return out;
  if (!o.nsysPath) throw noNsys(`Reading ${basename(rep)}`);
  // Ends in .sqlite: nsys adds the extension to an output name without it.
  const partial = join(
    dirname(rep),
    `.${basename(out, ".sqlite")}.partial-${process.pid}-${Date.now()}.sqlite`,
  );
  const args = ["export", "--type", "sqlite", "--force-overwrite", "true", "--output", partial, rep];
  try {
    const r = await runTool(o.nsysPath, args, {
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onLine ? { onLine: o.onLine } : {}),
    });
    if (r.exitCode !== 0 || (await mtime(partial)) === undefined)
      throw new NsysReportError(
        `nsys export could not read ${rep} (${r.signal ? `stopped by ${r.signal}` : `exit code ${r.exitCode}`}): ` +
          `${nsysFailureMessage(r.output).replace(/\.$/, "")}. The report may be damaged or from a newer Nsight Systems.`,
        "EXPORT_FAILED",
      );
    await rename(partial, out);
    return out;
  } catch (e) {
    await rm(partial, { force: true });
    if (e instanceof ToolMissingError) throw noNsys(`Reading ${basename(rep)}`);
    if (e instanceof ToolCancelledError) throw new NsysReportError("nsys export cancelled", "CANCELLED");
    throw e;
  }
}

/** Summarizes FILE: a .nsys-rep (exported first) or its .sqlite export. */
export async function loadNsysSummary(file: string, o: NsysToolOptions): Promise<NsysSummary> {
  return (await readInReader(await sqliteOf(file, o), file, "summary", o)).summary;
}

/** FILE's summary and trace (for the panel's timeline), as loadNsysSummary reads them. */
export async function loadNsysReport(
  file: string,
  o: NsysToolOptions,
): Promise<{ summary: NsysSummary; trace: NsysTimelineTrace }> {
  const r = await readInReader(await sqliteOf(file, o), file, "report", o);
  if (!r.trace) throw new Error("the reader process answered without the trace");
  return { summary: r.summary, trace: r.trace };
}

/** The SQLite export to read for FILE. */
async function sqliteOf(file: string, o: NsysToolOptions): Promise<string> {
  const ext = extname(file).toLowerCase();
  if (ext === ".nsys-rep" || ext === ".qdrep") return exportSqlite(file, o);
  if (ext === ".sqlite" || ext === ".db") return file;
  throw new NsysReportError(
    `${file}: expected a .nsys-rep report or its SQLite export (.sqlite); for nsys stats CSV output use the Nsight Systems panel`,
    "NOT_NSYS",
  );
}
