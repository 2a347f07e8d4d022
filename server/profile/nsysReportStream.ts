// The summary of an export read in streaming passes, so that the reader's JavaScript holds what the
// summary has (per kernel name, per operation, per GPU, per NVTX range instance) and not the rows:
// the 3,000,000-launch export the in-memory trace (nsysReport.ts) turned into 4 GB of objects. SQLite
// sorts the operations by start (in its own heap, which PRAGMA hard_heap_limit caps) and this reads
// them one row at a time. Every figure equals summarizeTrace's on the same export (the tests hold
// both to it): medians and standard deviations come from per-name duration histograms
// (DurationHistogram), first-seen orders from the operations' order by start then table then rowid,
// as the trace's stable sort has them. The panel's timeline gets the operations too, merged past
// TIMELINE_ENTRIES (TimelineMerger), so that what is sent is bounded as well.
import type { SqlValue } from "sql.js";
import { mergeSorted, withCursors, type NsysCursor, type NsysDb } from "./nsysReportDb";
import {
  copyLabels,
  KERNEL,
  kernelOp,
  MEMCPY,
  memcpyOp,
  MEMSET,
  memsetOp,
  OP_COLUMNS,
  readGpus,
  readRanges,
  type NsysGpuOp,
  type NsysTimelineTrace,
} from "./nsysReport";
import { summarizeRangesStreaming } from "./nsysRangeStream";
import type { NsysGpuIdle, NsysKernelSummary, NsysMemorySummary, NsysSummary } from "./nsysReportSummary";
import { DurationHistogram, round1, RunningUnion } from "./nsysReportStats";

/** The most entries the panel's timeline is sent; past it, operations are merged (TimelineMerger). */
export const TIMELINE_ENTRIES = 200_000;

interface KernelAcc {
  first: NsysGpuOp;
  durations: DurationHistogram;
  shapes: Map<string, NsysKernelSummary["shapes"][number]>;
}

interface MemoryAcc {
  name: string;
  durations: DurationHistogram;
  bytes: number;
}

/**
 * The timeline's operations in start order, merged once there are more than LIMIT entries: an
 * operation shorter than the resolution that starts less than it after the lane's last entry, which
 * is itself narrower than twice it, joins that entry (visibleBoxes's rule, at a resolution coarse
 * enough that the whole trace fits). The resolution starts from the trace's span and doubles until
 * it does; each change re-merges the entries so far.
 */
export class TimelineMerger {
  private entries: NsysGpuOp[] = [];
  private last = new Map<string, NsysGpuOp>();
  private resolutionNs = 0;
  private operations = 0;

  constructor(private readonly limit = TIMELINE_ENTRIES) {}

  add(op: NsysGpuOp): void {
    this.operations++;
    this.place(op, this.entries);
    if (this.entries.length > this.limit) this.coarsen();
  }

  private place(op: NsysGpuOp, into: NsysGpuOp[]): void {
    const lane = `${op.deviceId}:${op.streamId}`;
    const r = this.resolutionNs;
    const cur = this.last.get(lane);
    if (
      r > 0 &&
      cur &&
      op.endNs - op.startNs < r &&
      op.startNs - cur.endNs < r &&
      cur.endNs - cur.startNs < 2 * r
    ) {
      cur.endNs = Math.max(cur.endNs, op.endNs);
      cur.merged = (cur.merged ?? 1) + (op.merged ?? 1);
      return;
    }
    into.push(op);
    this.last.set(lane, op);
  }

  private coarsen(): void {
    const lanes = new Set(this.entries.map((o) => `${o.deviceId}:${o.streamId}`)).size;
    const span = this.entries.at(-1)!.startNs - this.entries[0]!.startNs;
    // about two entries per resolution per lane at most: aim at half the limit
    this.resolutionNs = Math.max(2 * this.resolutionNs, Math.ceil((4 * lanes * span) / this.limit), 1);
    const old = this.entries;
    this.entries = [];
    this.last.clear();
    for (const o of old) this.place(o, this.entries);
    if (this.entries.length > this.limit) this.coarsen();
  }

  trace(ranges: NsysTimelineTrace["ranges"], gpus: NsysTimelineTrace["gpus"]): NsysTimelineTrace {
    const t: NsysTimelineTrace = { ops: this.entries, ranges, gpus };
    if (this.resolutionNs > 0)
      t.merged = {
        operations: this.operations,
        entries: this.entries.length,
        resolutionNs: this.resolutionNs,
      };
    return t;
  }
}

const duration = (o: NsysGpuOp): number => o.endNs - o.startNs;
const byTotal = (a: { totalNs: number }, b: { totalNs: number }): number => b.totalNs - a.totalNs;

/** The per-kernel, per-operation and per-GPU figures of one pass over the operations in start order. */
class OpFigures {
  readonly kernels = new Map<string, KernelAcc>();
  readonly memory = new Map<string, MemoryAcc>();
  readonly devices = new Map<
    number,
    { deviceId: number; startNs: number; endNs: number; busy: RunningUnion }
  >();
  kernelNs = 0;
  memoryNs = 0;

  add(o: NsysGpuOp): void {
    const d = duration(o);
    let dev = this.devices.get(o.deviceId);
    if (!dev)
      this.devices.set(
        o.deviceId,
        (dev = { deviceId: o.deviceId, startNs: o.startNs, endNs: o.startNs, busy: new RunningUnion() }),
      );
    dev.endNs = Math.max(dev.endNs, o.endNs);
    dev.busy.add(o.startNs, o.endNs);
    if (o.kind === "kernel") {
      this.kernelNs += d;
      let k = this.kernels.get(o.name);
      if (!k)
        this.kernels.set(o.name, (k = { first: o, durations: new DurationHistogram(), shapes: new Map() }));
      k.durations.add(d);
      const key = `${o.grid?.join(",")};${o.block?.join(",")}`;
      const shape = k.shapes.get(key);
      if (shape) shape.count++;
      else k.shapes.set(key, { grid: o.grid ?? [0, 0, 0], block: o.block ?? [0, 0, 0], count: 1 });
    } else {
      this.memoryNs += d;
      let m = this.memory.get(o.name);
      if (!m) this.memory.set(o.name, (m = { name: o.name, durations: new DurationHistogram(), bytes: 0 }));
      m.durations.add(d);
      m.bytes += o.bytes ?? 0;
    }
  }

  kernelTable(): NsysKernelSummary[] {
    return [...this.kernels.values()]
      .map((k) => {
        const stats = k.durations.stats();
        return {
          name: k.first.name,
          shortName: k.first.shortName,
          ...stats,
          timePct: this.kernelNs > 0 ? round1((100 * stats.totalNs) / this.kernelNs) : 0,
          shapes: [...k.shapes.values()].sort((a, b) => b.count - a.count).slice(0, 5),
          registersPerThread: k.first.registersPerThread ?? null,
        };
      })
      .sort(byTotal);
  }

  memoryTable(): NsysMemorySummary[] {
    return [...this.memory.values()]
      .map((m) => {
        const stats = m.durations.stats();
        return {
          operation: m.name,
          ...stats,
          timePct: this.memoryNs > 0 ? round1((100 * stats.totalNs) / this.memoryNs) : 0,
          bytes: m.bytes,
        };
      })
      .sort(byTotal);
  }

  gpuIdle(): NsysGpuIdle[] {
    return [...this.devices.values()].map(({ deviceId, startNs, endNs, busy }) => {
      const busyNs = busy.totalNs;
      const span = endNs - startNs;
      return { deviceId, startNs, endNs, busyNs, idlePct: span > 0 ? round1(100 * (1 - busyNs / span)) : 0 };
    });
  }
}

/** The operations of DB in start order (ties: kernels, copies, memsets, each in its table's order). */
function opsByStart(db: NsysDb, str: Map<number, string>, each: (o: NsysGpuOp) => void): void {
  const labels = db.has(MEMCPY) ? copyLabels(db) : {};
  const sources: { cursor: NsysCursor; row: (v: SqlValue[]) => NsysGpuOp }[] = [];
  const cursors: NsysCursor[] = [];
  const add = (table: string, row: (v: SqlValue[]) => NsysGpuOp): void => {
    if (!db.has(table)) return;
    const cursor = db.sorted(table, OP_COLUMNS[table as keyof typeof OP_COLUMNS], "start");
    cursors.push(cursor);
    sources.push({ cursor, row });
  };
  withCursors(cursors, () => {
    add(KERNEL, (r) => kernelOp(r, str));
    add(MEMCPY, (r) => memcpyOp(r, labels));
    add(MEMSET, (r) => memsetOp(r));
    for (const o of mergeSorted(sources, (x) => x.startNs)) each(o);
  });
}

/** DB's summary, and with `timeline` the panel's (bounded) trace. */
export function summarizeDb(
  db: NsysDb,
  report: string,
  o: { timeline?: boolean; timelineEntries?: number } = {},
): { summary: NsysSummary; timeline?: NsysTimelineTrace } {
  const str = db.strings();
  const figures = new OpFigures();
  const merger = o.timeline ? new TimelineMerger(o.timelineEntries) : undefined;
  opsByStart(db, str, (op) => {
    figures.add(op);
    merger?.add({ ...op }); // a copy: merging changes its end
  });
  const kernels = figures.kernelTable();
  const ranges = readRanges(db, str);
  const gpus = readGpus(db);
  const summary: NsysSummary = {
    report,
    gpus,
    launches: db.has(KERNEL) ? db.countDistinct(KERNEL, ["globalPid", "correlationId"]) : 0,
    kernelCount: kernels.reduce((s, k) => s + k.instances, 0),
    kernels,
    memory: figures.memoryTable(),
    gpuIdle: figures.gpuIdle(),
    nvtx: summarizeRangesStreaming(db, str, ranges),
  };
  return merger ? { summary, timeline: merger.trace(ranges, gpus) } : { summary };
}
