// Launches per NVTX range (summarizeRanges's figures, nsysReportRanges.ts) without the trace in
// memory: SQLite joins each GPU operation to the API call that launched it, ordered by the
// operation's start, and each joined row is added to the range instances that contain its call
// (RangeIndex). An instance keeps counters, its span and a running union (its operations arrive in
// start order), so the state is one entry per range instance and per kernel name in it, however many
// launches there are. A second query counts the calls that launched a kernel, per instance.
import type { SqlValue } from "sql.js";
import { mergeSorted, withCursors, type NsysCursor, type NsysDb } from "./nsysReportDb";
import { CALL_TABLES, KERNEL, MEMCPY, MEMSET, type NsysRange } from "./nsysReport";
import { launchStats, sum, type NsysRangeInstance, type NsysRangeSummary } from "./nsysReportRanges";
import { durationStats, groupBy, lowerBound, round1, RunningUnion } from "./nsysReportStats";

const TID_SPAN = 0x1000000; // globalTid = globalPid + tid, with tid in the low 24 bits
const NONE: readonly number[] = [];

/**
 * The ranges (by id) that contain a time, per key (a thread for push/pop ranges, a process for
 * start/end ones), ends included: the keys' range ends cut time into points and the spans between
 * them, and each of those lists the ranges over it. Its size is the ranges times their nesting depth.
 */
class RangeIndex {
  private readonly byKey = new Map<number, { points: number[]; slots: (number[] | undefined)[] }>();

  constructor(items: { key: number; startNs: number; endNs: number; id: number }[]) {
    for (const [key, group] of groupBy(items, (i) => String(i.key))) {
      const points = [...new Set(group.flatMap((i) => [i.startNs, i.endNs]))].sort((a, b) => a - b);
      const slots: (number[] | undefined)[] = new Array<number[] | undefined>(2 * points.length - 1);
      const slotOf = (t: number): number => 2 * lowerBound(points, t, (p) => p);
      for (const i of group)
        for (let s = slotOf(i.startNs); s <= slotOf(i.endNs); s++) (slots[s] ??= []).push(i.id);
      this.byKey.set(Number(key), { points, slots });
    }
  }

  at(key: number, t: number): readonly number[] {
    const e = this.byKey.get(key);
    if (!e) return NONE;
    const i = lowerBound(e.points, t, (p) => p);
    if (i < e.points.length && e.points[i] === t) return e.slots[2 * i] ?? NONE;
    if (i === 0 || i === e.points.length) return NONE;
    return e.slots[2 * i - 1] ?? NONE;
  }
}

interface InstanceAcc {
  launches: number;
  kernels: number;
  gpuOps: number;
  kernelTimeNs: number;
  names: Set<string>;
  firstNs: number;
  endNs: number;
  busy: RunningUnion;
}

/**
 * A kernel name's count in a range group and the place summarizeRanges first meets it (instance,
 * thread, call start, call table, call row, operation start, operation table, operation row): ties
 * in topKernels go by it, as they do there.
 */
interface TopAcc {
  name: string;
  shortName: string;
  count: number;
  totalNs: number;
  first: number[];
}

/** One joined row: an operation and the call that launched it. */
interface Launched {
  kernel: boolean;
  startNs: number;
  endNs: number;
  name: string;
  shortName: string;
  callNs: number;
  tid: number;
  /** summarizeRanges's order of the call's operations after the instance and the thread. */
  order: number[];
}

const num = (v: unknown): number => Number(v ?? 0);
const pidOf = (tid: number): number => tid - (tid % TID_SPAN);

function before(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** The operations of DB joined with their calls, in order of the operations' start. */
function launchedByStart(db: NsysDb, str: Map<number, string>, each: (l: Launched) => void): void {
  const sources: { cursor: NsysCursor; row: (v: SqlValue[]) => Launched }[] = [];
  const cursors: NsysCursor[] = [];
  withCursors(cursors, () => {
    [KERNEL, MEMCPY, MEMSET].forEach((ops, opTable) => {
      if (!db.has(ops)) return;
      const kernel = ops === KERNEL;
      const cols = kernel ? ["start", "end", "demangledName", "shortName"] : ["start", "end"];
      CALL_TABLES.forEach((calls, callTable) => {
        if (!db.has(calls)) return;
        const cursor = db.launchedBy(ops, cols, calls, ["start", "globalTid"]);
        cursors.push(cursor);
        const c = cols.length;
        sources.push({
          cursor,
          row: (v) => {
            const name = kernel ? (str.get(num(v[2])) ?? `<string ${num(v[2])}>`) : "";
            const startNs = num(v[0]);
            const callNs = num(v[c]);
            return {
              kernel,
              startNs,
              endNs: num(v[1]),
              name,
              shortName: kernel ? (str.get(num(v[3])) ?? name) : "",
              callNs,
              tid: num(v[c + 1]),
              order: [callNs, callTable, num(v[c + 3]), startNs, opTable, num(v[c + 2])],
            };
          },
        });
      });
    });
    for (const l of mergeSorted(sources, (x) => x.startNs)) each(l);
  });
}

function instanceOf(r: NsysRange, a: InstanceAcc): NsysRangeInstance {
  const span = a.gpuOps > 0 ? a.endNs - a.firstNs : 0;
  return {
    startNs: r.startNs,
    durationNs: r.endNs - r.startNs,
    launches: a.launches,
    kernels: a.kernels,
    distinctKernels: a.names.size,
    gpuOps: a.gpuOps,
    kernelTimeNs: a.kernelTimeNs,
    gpuSpanNs: span,
    gapNs: span - a.busy.totalNs,
  };
}

/** The summary of one range name's instances G, from their accumulators. */
function groupSummary(
  g: { r: NsysRange; id: number }[],
  accs: InstanceAcc[],
  names: Set<string>,
  tops: Map<string, TopAcc>,
  topN: number,
): NsysRangeSummary {
  const instances = g.map(({ r, id }) => instanceOf(r, accs[id]!));
  const first = g[0]!.r;
  return {
    name: first.name,
    domain: first.domain,
    style: first.style,
    time: durationStats(g.map(({ r }) => r.endNs - r.startNs)),
    timePct: 0,
    launches: launchStats(instances),
    kernels: sum(instances, (i) => i.kernels),
    gpuOps: sum(instances, (i) => i.gpuOps),
    distinctKernels: names.size,
    kernelTimeNs: sum(instances, (i) => i.kernelTimeNs),
    gpuSpanNs: sum(instances, (i) => i.gpuSpanNs),
    gapNs: sum(instances, (i) => i.gapNs),
    topKernels: [...tops.values()]
      .sort((a, b) => b.count - a.count || b.totalNs - a.totalNs || (before(a.first, b.first) ? -1 : 1))
      .slice(0, topN)
      .map(({ name, shortName, count, totalNs }) => ({ name, shortName, count, totalNs })),
    instances,
  };
}

/** summarizeRanges's summaries of RANGES (readRanges) in DB, from streaming passes. */
export function summarizeRangesStreaming(
  db: NsysDb,
  str: Map<number, string>,
  ranges: NsysRange[],
  topN = 10,
): NsysRangeSummary[] {
  if (ranges.length === 0) return [];
  const withIds = ranges.map((r, id) => ({ r, id }));
  const pushPop = new RangeIndex(
    withIds
      .filter((x) => x.r.style === "PushPop")
      .map(({ r, id }) => ({ key: r.globalTid, startNs: r.startNs, endNs: r.endNs, id })),
  );
  const startEnd = new RangeIndex(
    withIds
      .filter((x) => x.r.style === "StartEnd")
      .map(({ r, id }) => ({ key: pidOf(r.globalTid), startNs: r.startNs, endNs: r.endNs, id })),
  );
  const containing = (tid: number, t: number): number[] => [
    ...pushPop.at(tid, t),
    ...startEnd.at(pidOf(tid), t),
  ];
  const groups = groupBy(withIds, (x) => `${x.r.domain ?? ""}\u0000${x.r.name}\u0000${x.r.style}`);
  const groupOf: number[] = new Array<number>(ranges.length);
  const tops: Map<string, TopAcc>[] = [];
  const groupNames: Set<string>[] = [];
  [...groups.values()].forEach((g, gi) => {
    for (const x of g) groupOf[x.id] = gi;
    tops.push(new Map());
    groupNames.push(new Set());
  });
  const accs: InstanceAcc[] = ranges.map(() => ({
    launches: 0,
    kernels: 0,
    gpuOps: 0,
    kernelTimeNs: 0,
    names: new Set(),
    firstNs: Infinity,
    endNs: -Infinity,
    busy: new RunningUnion(),
  }));
  launchedByStart(db, str, (l) => {
    for (const id of containing(l.tid, l.callNs)) {
      const a = accs[id]!;
      a.gpuOps++;
      a.firstNs = Math.min(a.firstNs, l.startNs);
      a.endNs = Math.max(a.endNs, l.endNs);
      a.busy.add(l.startNs, l.endNs);
      if (!l.kernel) continue;
      const d = l.endNs - l.startNs;
      a.kernels++;
      a.kernelTimeNs += d;
      a.names.add(l.name);
      const g = groupOf[id]!;
      groupNames[g]!.add(l.name);
      const first = [id, l.tid, ...l.order];
      const top = tops[g]!.get(l.name);
      if (!top) tops[g]!.set(l.name, { name: l.name, shortName: l.shortName, count: 1, totalNs: d, first });
      else {
        top.count++;
        top.totalNs += d;
        if (before(first, top.first)) [top.first, top.shortName] = [first, l.shortName];
      }
    }
  });
  for (const calls of CALL_TABLES)
    if (db.has(calls) && db.has(KERNEL))
      db.kernelLaunches(calls, (v) => {
        for (const id of containing(num(v[1]), num(v[0]))) accs[id]!.launches++;
      });
  const out = [...groups.values()].map((g, gi) => groupSummary(g, accs, groupNames[gi]!, tops[gi]!, topN));
  const allRangeNs = out.reduce((t, r) => t + r.time.totalNs, 0);
  for (const s of out) s.timePct = allRangeNs > 0 ? round1((100 * s.time.totalNs) / allRangeNs) : 0;
  return out.sort((a, b) => b.time.totalNs - a.time.totalNs);
}
