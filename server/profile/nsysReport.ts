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

export interface NsysTrace {
  /** Sorted by start time. */
  ops: NsysGpuOp[];
  /** Only the calls that have a GPU operation; sorted by thread, then start time. */
  calls: NsysApiCall[];
  /** Complete ranges (both ends recorded), sorted by start time. */
  ranges: NsysRange[];
  gpus: { id: number; name: string }[];
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
  const t = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!db.has(t)) return;
  const dims = ["gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread"];
  db.select(t, [...OP_COLS, "demangledName", "shortName", ...dims], (r) => {
    const name = str.get(num(r[6])) ?? `<string ${num(r[6])}>`;
    out.push({
      ...baseOp("kernel", name, str.get(num(r[7])) ?? name, r),
      grid: [num(r[8]), num(r[9]), num(r[10])],
      block: [num(r[11]), num(r[12]), num(r[13])],
      registersPerThread: num(r[14]),
    });
  });
}

function copyLabels(db: NsysDb): Record<number, string> {
  if (!db.has("ENUM_CUDA_MEMCPY_OPER")) return COPY_KIND;
  const m: Record<number, string> = { ...COPY_KIND };
  db.select("ENUM_CUDA_MEMCPY_OPER", ["id", "label"], (r) => (m[num(r[0])] = String(r[1])));
  return m;
}

function readMemoryOps(db: NsysDb, out: NsysGpuOp[]): void {
  const memcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
  const memset = "CUPTI_ACTIVITY_KIND_MEMSET";
  const op = (kind: NsysOpKind, name: string, r: unknown[]): NsysGpuOp => ({
    ...baseOp(kind, name, name, r),
    bytes: num(r[6]),
  });
  if (db.has(memcpy)) {
    const labels = copyLabels(db);
    db.select(memcpy, [...OP_COLS, "bytes", "copyKind"], (r) =>
      out.push(op("memcpy", `[CUDA memcpy ${labels[num(r[7])] ?? "Unknown"}]`, r)),
    );
  }
  if (db.has(memset)) {
    db.select(memset, [...OP_COLS, "bytes"], (r) => out.push(op("memset", "[CUDA memset]", r)));
  }
}

/** Runtime and driver API calls whose correlationId has a GPU operation. */
function readCalls(db: NsysDb, ops: NsysGpuOp[]): NsysApiCall[] {
  const withOps = new Set(ops.map((o) => o.correlationId));
  const calls: NsysApiCall[] = [];
  for (const t of ["CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"]) {
    if (!db.has(t)) continue;
    db.select(t, ["start", "end", "globalTid", "correlationId"], (r) => {
      const correlationId = num(r[3]);
      if (withOps.has(correlationId))
        calls.push({ startNs: num(r[0]), endNs: num(r[1]), globalTid: num(r[2]), correlationId });
    });
  }
  return calls.sort((a, b) => a.globalTid - b.globalTid || a.startNs - b.startNs);
}

function readRanges(db: NsysDb, str: Map<number, string>): NsysRange[] {
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

function readGpus(db: NsysDb): { id: number; name: string }[] {
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
