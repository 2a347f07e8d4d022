// The summary of an Nsight Systems report: kernels and memory operations as `nsys stats`
// (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum) would list them, NVTX ranges with the launches inside
// each instance, and how much of the time the GPU had work. This is the JSON of
// `cuda-kernel-dev nsys summarize --json` (documented in the README).
import { openNsysDb, sqliteError, type NsysDbLimits } from "./nsysReportDb";
import type { NsysGpuOp, NsysTimelineTrace, NsysTrace } from "./nsysReport";
import { summarizeRanges, type NsysRangeSummary } from "./nsysReportRanges";
import { summarizeDb } from "./nsysReportStream";
import { durationStats, groupBy, round1, unionNs, type DurationStats } from "./nsysReportStats";

export interface NsysKernelSummary extends DurationStats {
  name: string;
  shortName: string;
  /** Share of all kernels' time, as cuda_gpu_kern_sum's "Time (%)". */
  timePct: number;
  /** Launch shapes seen, most frequent first: "grid(1024,1,1) block(128,1,1)". */
  shapes: { grid: [number, number, number]; block: [number, number, number]; count: number }[];
  registersPerThread: number | null;
}

export interface NsysMemorySummary extends DurationStats {
  /** "[CUDA memcpy Host-to-Device]", "[CUDA memset]", ... as cuda_gpu_mem_time_sum names them. */
  operation: string;
  timePct: number;
  bytes: number;
}

export interface NsysGpuIdle {
  deviceId: number;
  /** From the first GPU operation's start to the last one's end. */
  startNs: number;
  endNs: number;
  busyNs: number;
  /** Share of [startNs, endNs] with no kernel, copy or memset running on this GPU. */
  idlePct: number;
}

export interface NsysSummary {
  report: string;
  gpus: { id: number; name: string }[];
  /** Kernel launches (distinct correlationIds of kernels: one per launch call, one for a whole CUDA graph) and kernel executions. */
  launches: number;
  kernelCount: number;
  kernels: NsysKernelSummary[];
  memory: NsysMemorySummary[];
  gpuIdle: NsysGpuIdle[];
  nvtx: NsysRangeSummary[];
}

const duration = (o: NsysGpuOp): number => o.endNs - o.startNs;
const byTotal = (a: { totalNs: number }, b: { totalNs: number }): number => b.totalNs - a.totalNs;

function shapesOf(ks: NsysGpuOp[]): NsysKernelSummary["shapes"] {
  const groups = groupBy(ks, (k) => `${k.grid?.join(",")};${k.block?.join(",")}`);
  return [...groups.values()]
    .map((g) => ({ grid: g[0]!.grid ?? [0, 0, 0], block: g[0]!.block ?? [0, 0, 0], count: g.length }))
    .sort((a, b) => b.count - a.count)
    .slice(0, 5);
}

function kernelTable(ops: NsysGpuOp[]): NsysKernelSummary[] {
  const kernels = ops.filter((o) => o.kind === "kernel");
  const all = kernels.reduce((s, k) => s + duration(k), 0);
  return [...groupBy(kernels, (k) => k.name).values()]
    .map((ks) => {
      const stats = durationStats(ks.map(duration));
      return {
        name: ks[0]!.name,
        shortName: ks[0]!.shortName,
        ...stats,
        timePct: all > 0 ? round1((100 * stats.totalNs) / all) : 0,
        shapes: shapesOf(ks),
        registersPerThread: ks[0]!.registersPerThread ?? null,
      };
    })
    .sort(byTotal);
}

function memoryTable(ops: NsysGpuOp[]): NsysMemorySummary[] {
  const mem = ops.filter((o) => o.kind !== "kernel");
  const all = mem.reduce((s, m) => s + duration(m), 0);
  return [...groupBy(mem, (m) => m.name).values()]
    .map((ms) => {
      const stats = durationStats(ms.map(duration));
      return {
        operation: ms[0]!.name,
        ...stats,
        timePct: all > 0 ? round1((100 * stats.totalNs) / all) : 0,
        bytes: ms.reduce((s, m) => s + (m.bytes ?? 0), 0),
      };
    })
    .sort(byTotal);
}

function gpuIdle(ops: NsysGpuOp[]): NsysGpuIdle[] {
  return [...groupBy(ops, (o) => String(o.deviceId)).values()].map((dev) => {
    // ops are sorted by start, and so is each device's share of them
    const startNs = dev[0]!.startNs;
    const endNs = dev.reduce((m, o) => Math.max(m, o.endNs), startNs);
    const busyNs = unionNs(dev);
    const span = endNs - startNs;
    return {
      deviceId: dev[0]!.deviceId,
      startNs,
      endNs,
      busyNs,
      idlePct: span > 0 ? round1(100 * (1 - busyNs / span)) : 0,
    };
  });
}

/**
 * The summary of a trace held in memory. Exports are summarized in streaming passes instead
 * (summarizeDb, nsysReportStream.ts), which give the same figures: this is what the tests hold them to.
 */
export function summarizeTrace(report: string, t: NsysTrace): NsysSummary {
  const kernels = kernelTable(t.ops);
  return {
    report,
    gpus: t.gpus,
    launches: new Set(
      t.ops.filter((o) => o.kind === "kernel").map((o) => `${o.globalPid}:${o.correlationId}`),
    ).size,
    kernelCount: kernels.reduce((s, k) => s + k.instances, 0),
    kernels,
    memory: memoryTable(t.ops),
    gpuIdle: gpuIdle(t.ops),
    nvtx: summarizeRanges(t),
  };
}

/** Reads an SQLite export and summarizes it, in this process (the CLI and the panel read it in a reader process: nsysReportLoad). */
export async function summarizeSqlite(
  file: string,
  report = file,
  limits: NsysDbLimits = {},
): Promise<NsysSummary> {
  return (await readSqlite(file, report, limits, false)).summary;
}

/** The summary and, with `timeline`, the trace the panel's timeline draws (bounded: see nsysReportStream.ts). */
export async function readSqlite(
  file: string,
  report = file,
  limits: NsysDbLimits = {},
  timeline = true,
): Promise<{ summary: NsysSummary; trace: NsysTimelineTrace }> {
  const db = await openNsysDb(file, limits);
  try {
    const r = summarizeDb(db, report, { timeline });
    return { summary: r.summary, trace: r.timeline ?? { ops: [], ranges: [], gpus: r.summary.gpus } };
  } catch (e) {
    // sql.js reads pages as queries need them: a file cut short fails here, not when opened
    throw sqliteError(file, e, limits);
  } finally {
    db.close();
  }
}
