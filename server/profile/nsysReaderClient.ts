// Reads an Nsight Systems SQLite export in a reader process of its own (nsysReader.ts, bundled as
// dist/nsysReader.js), with a time and a memory budget and cancellation (server/process/isolated.ts):
// an export is untrusted input, and this runs in the CLI and in the extension host, in Restricted
// Mode too. The budgets grow with the file, since an honest export costs in proportion to its size
// (the 9.4 MB, 101,000-launch bench export: 4-6 s and 225-270 MB of reader RSS on this loaded 2-core
// machine, against a budget of 39 s and 632 MB); a hostile one costs what its queries make of it,
// which the schema check (nsysSchema.ts) refuses before any query for views and generated columns.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { IsolatedError, runIsolated, type Budget, type IsolatedStats } from "../process/isolated";
import { MAX_ROWS } from "./nsysReportDb";
import { NsysReportError, type NsysErrorCode } from "./nsysReportError";
import type { NsysTimelineTrace } from "./nsysReport";
import type { NsysSummary } from "./nsysReportSummary";
import { fromWire, type WireTrace } from "./nsysTraceWire";

/** Budgets of one read; each unset one defaults from the file's size (readerBudget). */
export interface NsysReadLimits {
  seconds?: number;
  memoryMb?: number;
  /** The most rows read from one table (default MAX_ROWS). */
  maxRows?: number;
}

export interface NsysReaderOptions {
  limits?: NsysReadLimits;
  signal?: AbortSignal;
  /** Told the reader process's pid when it starts, and what the read cost when it has exited. */
  onReader?: { start?: (pid: number) => void; end?: (stats: IsolatedStats) => void };
}

/** The request the reader process gets (nsysReader.ts). */
export interface NsysReadRequest {
  file: string;
  report: string;
  want: "summary" | "report";
  sqliteHeapMb: number;
  maxRows: number;
}

export type NsysReadReply =
  { summary: NsysSummary; trace?: WireTrace } | { error: { message: string; code: NsysErrorCode } };

const BASE_SECONDS = 20;
const SECONDS_PER_MB = 2;
const BASE_MB = 256;
const MB_PER_MB = 40;

/** The default budget for an export of BYTES, with LIMITS' own values where given. */
export function readerBudget(bytes: number, limits: NsysReadLimits = {}): Budget {
  const mb = bytes / (1024 * 1024);
  return {
    seconds: limits.seconds ?? Math.round(BASE_SECONDS + SECONDS_PER_MB * mb),
    memoryMb: limits.memoryMb ?? Math.round(BASE_MB + MB_PER_MB * mb),
  };
}

/** The reader's script: beside this bundle (dist/), else this source folder's (under tsx). */
function readerScript(): string {
  const bundled = join(__dirname, "nsysReader.js");
  return existsSync(bundled) ? bundled : join(__dirname, "nsysReader.ts");
}

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0; // the reader says it is missing
  }
};

const BUDGET_CODE = { time: "TIME_BUDGET", memory: "MEMORY_BUDGET", cancelled: "CANCELLED" } as const;

/** An IsolatedError as NsysReportError, in words that name the file and the budget. */
function readerError(file: string, e: IsolatedError): NsysReportError {
  if (e.reason === "crashed") return new NsysReportError(`reading ${file} failed: ${e.message}`, "DAMAGED");
  if (e.reason === "cancelled") return new NsysReportError(`reading ${file} cancelled`, "CANCELLED");
  return new NsysReportError(`reading ${file} ${e.message}: not read`, BUDGET_CODE[e.reason]);
}

/** Reads FILE (an SQLite export) in the reader process: its summary, and with want "report" its trace. */
export async function readInReader(
  file: string,
  report: string,
  want: "summary" | "report",
  o: NsysReaderOptions = {},
): Promise<{ summary: NsysSummary; trace?: NsysTimelineTrace }> {
  const budget = readerBudget(sizeOf(file), o.limits);
  const request: NsysReadRequest = {
    file,
    report,
    want,
    // SQLite's share: its page cache and the values of a row; the rest is the JS heap's.
    sqliteHeapMb: Math.max(32, Math.round(budget.memoryMb / 4)),
    maxRows: o.limits?.maxRows ?? MAX_ROWS,
  };
  let reply: NsysReadReply;
  try {
    reply = await runIsolated<NsysReadRequest, NsysReadReply>(readerScript(), request, {
      tool: "the Nsight Systems reader",
      budget,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onReader?.start ? { onStart: o.onReader.start } : {}),
      ...(o.onReader?.end ? { onEnd: o.onReader.end } : {}),
    });
  } catch (e) {
    throw e instanceof IsolatedError ? readerError(file, e) : e;
  }
  if ("error" in reply) throw new NsysReportError(reply.error.message, reply.error.code);
  return reply.trace ? { summary: reply.summary, trace: fromWire(reply.trace) } : { summary: reply.summary };
}
