// Launches per NVTX range ("launches per step"): for each instance of a range, the CUDA API calls
// made inside it (on the same thread for push/pop ranges, in the same process for start/end ones)
// and, through their correlationId, the GPU operations they caused. Nested ranges count for every
// enclosing range, as nsys's nvtx_gpu_proj_sum does.
import type { NsysApiCall, NsysGpuOp, NsysRange, NsysTrace } from "./nsysReport";
import { durationStats, groupBy, lowerBound, round1, unionNs, type DurationStats } from "./nsysReportStats";

export interface NsysRangeInstance {
  startNs: number;
  durationNs: number;
  /** API calls inside the range that launched at least one kernel. */
  launches: number;
  /** Kernel executions those calls caused (more than launches for CUDA graphs). */
  kernels: number;
  distinctKernels: number;
  /** Kernels plus memory copies and memsets: nsys's "GPU Ops". */
  gpuOps: number;
  /** Sum of the kernels' durations. */
  kernelTimeNs: number;
  /** From the first GPU operation's start to the last one's end: nsys's "projected" time. */
  gpuSpanNs: number;
  /** Time in gpuSpanNs when none of the range's GPU operations ran: launch gaps. */
  gapNs: number;
}

export interface NsysRangeSummary {
  name: string;
  domain: string | null;
  style: "PushPop" | "StartEnd";
  /** The range's own (CPU) duration, over its instances. */
  time: DurationStats;
  /** Share of all ranges' time, as nvtx_sum's "Time (%)". */
  timePct: number;
  launches: { total: number; avg: number; min: number; max: number };
  kernels: number;
  gpuOps: number;
  distinctKernels: number;
  kernelTimeNs: number;
  gpuSpanNs: number;
  gapNs: number;
  /** The kernels launched most often inside this range, over all its instances. */
  topKernels: { name: string; shortName: string; count: number; totalNs: number }[];
  instances: NsysRangeInstance[];
}

const TID_SPAN = 0x1000000; // globalTid = globalPid + tid, with tid in the low 24 bits

interface Index {
  callsByTid: Map<number, NsysApiCall[]>;
  tidsByPid: Map<number, number[]>;
  /** globalPid -> correlationId -> the operations it caused. */
  opsByCorr: Map<number, Map<number, NsysGpuOp[]>>;
}

function buildIndex(t: NsysTrace): Index {
  const callsByTid = groupBy(t.calls, (c) => String(c.globalTid));
  const byTid = new Map([...callsByTid].map(([k, v]) => [Number(k), v]));
  const tidsByPid = new Map<number, number[]>();
  for (const tid of byTid.keys()) {
    const pid = tid - (tid % TID_SPAN);
    tidsByPid.set(pid, [...(tidsByPid.get(pid) ?? []), tid]);
  }
  const opsByCorr = new Map<number, Map<number, NsysGpuOp[]>>();
  for (const op of t.ops) {
    let m = opsByCorr.get(op.globalPid);
    if (!m) opsByCorr.set(op.globalPid, (m = new Map<number, NsysGpuOp[]>()));
    const list = m.get(op.correlationId);
    if (list) list.push(op);
    else m.set(op.correlationId, [op]);
  }
  return { callsByTid: byTid, tidsByPid, opsByCorr };
}

/** The GPU operations of the calls made inside `r`. */
function opsInRange(ix: Index, r: NsysRange): { ops: NsysGpuOp[]; launches: number } {
  const pid = r.globalTid - (r.globalTid % TID_SPAN);
  const tids = r.style === "PushPop" ? [r.globalTid] : (ix.tidsByPid.get(pid) ?? []);
  const byCorr = ix.opsByCorr.get(pid);
  const ops: NsysGpuOp[] = [];
  let launches = 0;
  if (!byCorr) return { ops, launches };
  for (const tid of tids) {
    const calls = ix.callsByTid.get(tid) ?? [];
    for (let i = lowerBound(calls, r.startNs, (c) => c.startNs); i < calls.length; i++) {
      const c = calls[i]!;
      if (c.startNs > r.endNs) break;
      const caused = byCorr.get(c.correlationId) ?? [];
      if (caused.some((o) => o.kind === "kernel")) launches++;
      ops.push(...caused);
    }
  }
  return { ops, launches };
}

function instanceOf(r: NsysRange, ops: NsysGpuOp[], launches: number): NsysRangeInstance {
  ops.sort((a, b) => a.startNs - b.startNs);
  const kernels = ops.filter((o) => o.kind === "kernel");
  let end = -Infinity;
  for (const o of ops) end = Math.max(end, o.endNs);
  const span = ops.length > 0 ? end - ops[0]!.startNs : 0;
  return {
    startNs: r.startNs,
    durationNs: r.endNs - r.startNs,
    launches,
    kernels: kernels.length,
    distinctKernels: new Set(kernels.map((k) => k.name)).size,
    gpuOps: ops.length,
    kernelTimeNs: kernels.reduce((s, k) => s + (k.endNs - k.startNs), 0),
    gpuSpanNs: span,
    gapNs: span - unionNs(ops),
  };
}

function topKernels(kernels: NsysGpuOp[], n: number): NsysRangeSummary["topKernels"] {
  return [...groupBy(kernels, (k) => k.name).values()]
    .map((ks) => ({
      name: ks[0]!.name,
      shortName: ks[0]!.shortName,
      count: ks.length,
      totalNs: ks.reduce((s, k) => s + (k.endNs - k.startNs), 0),
    }))
    .sort((a, b) => b.count - a.count || b.totalNs - a.totalNs)
    .slice(0, n);
}

export const sum = (xs: NsysRangeInstance[], f: (i: NsysRangeInstance) => number): number =>
  xs.reduce((s, x) => s + f(x), 0);

/** The launches per instance of one range name (both summaries, in memory and streamed, give these). */
export function launchStats(instances: NsysRangeInstance[]): NsysRangeSummary["launches"] {
  const launches = instances.map((i) => i.launches);
  return {
    total: sum(instances, (i) => i.launches),
    avg: round1(sum(instances, (i) => i.launches) / instances.length),
    min: launches.reduce((m, v) => Math.min(m, v), Infinity),
    max: launches.reduce((m, v) => Math.max(m, v), 0),
  };
}

/** One summary per NVTX range name (and domain), by total range time, longest first. */
export function summarizeRanges(t: NsysTrace, topN = 10): NsysRangeSummary[] {
  const ix = buildIndex(t);
  const groups = groupBy(t.ranges, (r) => `${r.domain ?? ""}\u0000${r.name}\u0000${r.style}`);
  const out: NsysRangeSummary[] = [];
  let allRangeNs = 0;
  for (const ranges of groups.values()) {
    const instances: NsysRangeInstance[] = [];
    const kernels: NsysGpuOp[] = [];
    for (const r of ranges) {
      const { ops, launches } = opsInRange(ix, r);
      instances.push(instanceOf(r, ops, launches));
      for (const o of ops) if (o.kind === "kernel") kernels.push(o);
    }
    const time = durationStats(ranges.map((r) => r.endNs - r.startNs));
    allRangeNs += time.totalNs;
    out.push({
      name: ranges[0]!.name,
      domain: ranges[0]!.domain,
      style: ranges[0]!.style,
      time,
      timePct: 0,
      launches: launchStats(instances),
      kernels: kernels.length,
      gpuOps: sum(instances, (i) => i.gpuOps),
      distinctKernels: new Set(kernels.map((k) => k.name)).size,
      kernelTimeNs: sum(instances, (i) => i.kernelTimeNs),
      gpuSpanNs: sum(instances, (i) => i.gpuSpanNs),
      gapNs: sum(instances, (i) => i.gapNs),
      topKernels: topKernels(kernels, topN),
      instances,
    });
  }
  for (const s of out) s.timePct = allRangeNs > 0 ? round1((100 * s.time.totalNs) / allRangeNs) : 0;
  return out.sort((a, b) => b.time.totalNs - a.time.totalNs);
}
