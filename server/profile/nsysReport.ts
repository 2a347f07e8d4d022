// The events of an Nsight Systems SQLite export that the summaries need: GPU operations (kernels,
// memory copies, memsets), the CUDA API calls that launched them (joined through correlationId) and
// NVTX ranges. Table and column names are those of nsys 2025.3 (see test/fixtures/nsys/schema.sql);
// tables that nothing filled are absent from an export, so each is optional. What is read here is
// declared in nsysSchema.ts and checked when the export is opened, before any query (openNsysDb).
import type { NsysDb } from "./nsysReportDb";

export type NsysOpKind = "kernel" | "memcpy" | "memset";

export interface NsysGpuOp {
  kind: NsysOpKind;
  startNs: number;
  endNs: number;
  deviceId: number;
  streamId: number;
  correlationId: number;
  globalPid: number;
  /** Kernel: demangled name (what `nsys stats` prints); memory: "[CUDA memcpy Host-to-Device]", "[CUDA memset]". */
  name: string;
  /** Kernel: the short name ("vectorized_elementwise_kernel"); memory: the same as name. */
  shortName: string;
  grid?: [number, number, number];
  block?: [number, number, number];
  registersPerThread?: number;
  bytes?: number;
  /**
   * Only in a timeline that merges (NsysTimelineTrace.merged): this entry stands for this many
   * operations (more than one) of its lane, from its start to its end; the other fields are the first's.
   */
  merged?: number;
}

/** A CUDA runtime or driver API call that has a GPU operation (a launch, a copy, a memset). */
export interface NsysApiCall {
  startNs: number;
  endNs: number;
  globalTid: number;
  correlationId: number;
}

export interface NsysRange {
  name: string;
  /** The NVTX domain's name; null for the default domain. */
  domain: string | null;
  style: "PushPop" | "StartEnd";
  startNs: number;
  endNs: number;
  globalTid: number;
}

/** What the panel's timeline draws: GPU operations per stream under the NVTX ranges. */
export interface NsysTimelineTrace {
  /** Sorted by start time. */
  ops: NsysGpuOp[];
  /** Complete ranges (both ends recorded), sorted by start time. */
  ranges: NsysRange[];
  gpus: { id: number; name: string }[];
  /**
   * Present when the report has more operations than the reader sends (nsysReportStream.ts):
   * operations shorter than resolutionNs and less than that apart on a lane are merged into one
   * entry (NsysGpuOp.merged), so `ops` holds `entries` entries for `operations` operations.
   */
  merged?: { operations: number; entries: number; resolutionNs: number };
}

/** The whole trace, in memory (readNsysTrace): what summarizeTrace summarizes. */
export interface NsysTrace extends NsysTimelineTrace {
  /** Only the calls that have a GPU operation; sorted by thread, then start time. */
  calls: NsysApiCall[];
}

const NVTX_PUSH_POP = 59;
const NVTX_START_END = 60;
const NVTX_DOMAIN_CREATE = 75;

// ENUM_CUDA_MEMCPY_OPER's labels, for exports that leave the enum tables out.
const COPY_KIND: Record<number, string> = {
  0: "Unknown",
  1: "Host-to-Device",
  2: "Device-to-Host",
  3: "Host-to-Array",
  4: "Array-to-Host",
  5: "Array-to-Array",
  6: "Array-to-Device",
  7: "Device-to-Array",
  8: "Device-to-Device",
  9: "Host-to-Host",
  10: "Peer-to-Peer",
  11: "Unified Host-to-Device",
  12: "Unified Device-to-Host",
  13: "Unified Device-to-Device",
};

const num = (v: unknown): number => Number(v ?? 0);

const OP_COLS = ["start", "end", "deviceId", "streamId", "correlationId", "globalPid"];

export const KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL";
export const MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY";
export const MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET";
/** The tables of CUDA API calls that launch GPU operations. */
export const CALL_TABLES = ["CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"] as const;

/** The columns each kind of operation is read with (kernelOp, memcpyOp, memsetOp read rows of them). */
export const OP_COLUMNS = {
  [KERNEL]: [
    ...OP_COLS,
    "demangledName",
    "shortName",
    "gridX",
    "gridY",
    "gridZ",
    "blockX",
    "blockY",
    "blockZ",
    "registersPerThread",
  ],
  [MEMCPY]: [...OP_COLS, "bytes", "copyKind"],
  [MEMSET]: [...OP_COLS, "bytes"],
} as const;

/** A kernel from a row of OP_COLUMNS[KERNEL]. */
export function kernelOp(r: unknown[], str: Map<number, string>): NsysGpuOp {
  const name = str.get(num(r[6])) ?? `<string ${num(r[6])}>`;
  return {
    ...baseOp("kernel", name, str.get(num(r[7])) ?? name, r),
    grid: [num(r[8]), num(r[9]), num(r[10])],
    block: [num(r[11]), num(r[12]), num(r[13])],
    registersPerThread: num(r[14]),
  };
}

/** A copy from a row of OP_COLUMNS[MEMCPY], its kind named by LABELS (copyLabels). */
export function memcpyOp(r: unknown[], labels: Record<number, string>): NsysGpuOp {
  const name = `[CUDA memcpy ${labels[num(r[7])] ?? "Unknown"}]`;
  return { ...baseOp("memcpy", name, name, r), bytes: num(r[6]) };
}

/** A memset from a row of OP_COLUMNS[MEMSET]. */
export function memsetOp(r: unknown[]): NsysGpuOp {
  return { ...baseOp("memset", "[CUDA memset]", "[CUDA memset]", r), bytes: num(r[6]) };
}

/** The fields every GPU operation has, from a row that starts with OP_COLS. */
const baseOp = (kind: NsysOpKind, name: string, shortName: string, r: unknown[]): NsysGpuOp => ({
  kind,
  startNs: num(r[0]),
  endNs: num(r[1]),
  deviceId: num(r[2]),
  streamId: num(r[3]),
  correlationId: num(r[4]),
  globalPid: num(r[5]),
  name,
  shortName,
});

function readKernels(db: NsysDb, str: Map<number, string>, out: NsysGpuOp[]): void {
  if (db.has(KERNEL)) db.select(KERNEL, OP_COLUMNS[KERNEL], (r) => out.push(kernelOp(r, str)));
}

/** ENUM_CUDA_MEMCPY_OPER's labels by id (the built-in ones where the export has no such table). */
export function copyLabels(db: NsysDb): Record<number, string> {
  if (!db.has("ENUM_CUDA_MEMCPY_OPER")) return COPY_KIND;
  const m: Record<number, string> = { ...COPY_KIND };
  db.select("ENUM_CUDA_MEMCPY_OPER", ["id", "label"], (r) => (m[num(r[0])] = String(r[1])));
  return m;
}

function readMemoryOps(db: NsysDb, out: NsysGpuOp[]): void {
  if (db.has(MEMCPY)) {
    const labels = copyLabels(db);
    db.select(MEMCPY, OP_COLUMNS[MEMCPY], (r) => out.push(memcpyOp(r, labels)));
  }
  if (db.has(MEMSET)) db.select(MEMSET, OP_COLUMNS[MEMSET], (r) => out.push(memsetOp(r)));
}

/** Runtime and driver API calls whose correlationId has a GPU operation. */
function readCalls(db: NsysDb, ops: NsysGpuOp[]): NsysApiCall[] {
  const withOps = new Set(ops.map((o) => o.correlationId));
  const calls: NsysApiCall[] = [];
  for (const t of CALL_TABLES) {
    if (!db.has(t)) continue;
    db.select(t, ["start", "end", "globalTid", "correlationId"], (r) => {
      const correlationId = num(r[3]);
      if (withOps.has(correlationId))
        calls.push({ startNs: num(r[0]), endNs: num(r[1]), globalTid: num(r[2]), correlationId });
    });
  }
  return calls.sort((a, b) => a.globalTid - b.globalTid || a.startNs - b.startNs);
}

/** The NVTX ranges both of whose ends were recorded, sorted by start. */
export function readRanges(db: NsysDb, str: Map<number, string>): NsysRange[] {
  const t = "NVTX_EVENTS";
  if (!db.has(t)) return [];
  const domains = new Map<number, string>();
  const raw: (Omit<NsysRange, "domain"> & { domainId: number })[] = [];
  db.select(
    t,
    ["start", "end", "eventType", "text", "textId", "globalTid", "domainId"],
    (r) => {
      const text = r[3] !== null ? String(r[3]) : r[4] !== null ? (str.get(num(r[4])) ?? "") : "";
      if (num(r[2]) === NVTX_DOMAIN_CREATE) {
        domains.set(num(r[6]), text);
        return;
      }
      if (r[1] === null) return; // never closed: the program ended (or was stopped) inside it
      raw.push({
        name: text,
        domainId: num(r[6]),
        style: num(r[2]) === NVTX_PUSH_POP ? "PushPop" : "StartEnd",
        startNs: num(r[0]),
        endNs: num(r[1]),
        globalTid: num(r[5]),
      });
    },
    `eventType IN (${NVTX_PUSH_POP}, ${NVTX_START_END}, ${NVTX_DOMAIN_CREATE})`,
  );
  const ranges = raw.map(({ domainId, ...r }) => ({
    ...r,
    domain: domainId === 0 ? null : (domains.get(domainId) ?? `domain ${domainId}`),
  }));
  return ranges.sort((a, b) => a.startNs - b.startNs);
}

export function readGpus(db: NsysDb): { id: number; name: string }[] {
  if (!db.has("TARGET_INFO_GPU")) return [];
  const gpus: { id: number; name: string }[] = [];
  db.select("TARGET_INFO_GPU", ["id", "name"], (r) => gpus.push({ id: num(r[0]), name: String(r[1]) }));
  return gpus;
}

/** Reads the trace out of an opened export. */
export function readNsysTrace(db: NsysDb): NsysTrace {
  const str = db.strings();
  const ops: NsysGpuOp[] = [];
  readKernels(db, str, ops);
  readMemoryOps(db, ops);
  ops.sort((a, b) => a.startNs - b.startNs);
  return { ops, calls: readCalls(db, ops), ranges: readRanges(db, str), gpus: readGpus(db) };
}
