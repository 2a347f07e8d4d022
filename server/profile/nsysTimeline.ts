// The timeline's data, for the Nsight Systems panel: one lane per GPU stream (kernels and copies),
// NVTX ranges above them with their nesting depth, and the query a renderer makes on every zoom or
// pan: what is visible in [t0, t1] at a given ns-per-pixel. Operations narrower than a pixel are
// merged into one box, so a window returns at most about two boxes per pixel per lane however many
// events it spans (a 100,000-launch report stays responsive).
import type { NsysGpuOp, NsysRange, NsysTimelineTrace } from "./nsysReport";
import { lowerBound } from "./nsysReportStats";

export interface TimelineLane {
  deviceId: number;
  streamId: number;
  /** Sorted by start. */
  ops: NsysGpuOp[];
  /** The longest operation: how far before t0 one can start and still be visible. */
  maxDurationNs: number;
}

export interface TimelineBox {
  startNs: number;
  endNs: number;
  /** Operations merged into this box; 1 when it is one operation (then `op` is it; a merged entry of the trace counts for its own). */
  count: number;
  op?: NsysGpuOp;
}

export interface TimelineRange extends NsysRange {
  /** 0 for an outermost range on its thread; nested push/pop ranges go deeper. */
  depth: number;
}

export function timelineLanes(t: NsysTimelineTrace): TimelineLane[] {
  const lanes = new Map<string, TimelineLane>();
  for (const op of t.ops) {
    const key = `${op.deviceId}:${op.streamId}`;
    let lane = lanes.get(key);
    if (!lane)
      lanes.set(key, (lane = { deviceId: op.deviceId, streamId: op.streamId, ops: [], maxDurationNs: 0 }));
    lane.ops.push(op); // t.ops is sorted by start, so each lane is too
    lane.maxDurationNs = Math.max(lane.maxDurationNs, op.endNs - op.startNs);
  }
  return [...lanes.values()].sort((a, b) => a.deviceId - b.deviceId || a.streamId - b.streamId);
}

/** What to draw of `lane` in [t0, t1] at `nsPerPixel`: operations, sub-pixel neighbours merged. */
export function visibleBoxes(lane: TimelineLane, t0: number, t1: number, nsPerPixel: number): TimelineBox[] {
  const out: TimelineBox[] = [];
  const ops = lane.ops;
  let cur: TimelineBox | undefined;
  for (let i = lowerBound(ops, t0 - lane.maxDurationNs, (o) => o.startNs); i < ops.length; i++) {
    const op = ops[i]!;
    if (op.startNs > t1) break;
    if (op.endNs < t0) continue;
    const small = op.endNs - op.startNs < nsPerPixel;
    const count = op.merged ?? 1;
    if (cur && small && op.startNs - cur.endNs < nsPerPixel && cur.endNs - cur.startNs < 2 * nsPerPixel) {
      cur.endNs = Math.max(cur.endNs, op.endNs);
      cur.count += count;
      delete cur.op;
      continue;
    }
    cur =
      count === 1
        ? { startNs: op.startNs, endNs: op.endNs, count, op }
        : { startNs: op.startNs, endNs: op.endNs, count };
    out.push(cur);
  }
  return out;
}

/** NVTX ranges with their depth on their thread (push/pop nesting), sorted by start. */
export function timelineRanges(t: NsysTimelineTrace): TimelineRange[] {
  const open = new Map<number, number[]>(); // thread -> end times of its open ranges
  return t.ranges.map((r) => {
    const stack = open.get(r.globalTid) ?? [];
    while (stack.length > 0 && stack.at(-1)! <= r.startNs) stack.pop();
    const depth = stack.length;
    stack.push(r.endNs);
    open.set(r.globalTid, stack);
    return { ...r, depth };
  });
}

/** The ranges that overlap [t0, t1] (ranges are few next to kernels: a linear scan is enough). */
export function visibleRanges(ranges: readonly TimelineRange[], t0: number, t1: number): TimelineRange[] {
  return ranges.filter((r) => r.endNs >= t0 && r.startNs <= t1);
}
