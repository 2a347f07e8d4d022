// The Nsight Systems panel's data, kept on the host (no vscode here, so tests time and check it):
// the parsed trace's lanes and NVTX ranges, and the answer to each window the page asks for. The
// host windows rather than the page because a 100,000-launch trace is tens of MB as JSON objects,
// while a window is at most about two boxes per pixel per lane (nsysTimeline.ts merges sub-pixel
// operations): the page stays small and each zoom or pan costs one short message round trip.
import type { NsysTimelineTrace } from "../server/profile/nsysReport";
import type { NsysSummary } from "../server/profile/nsysReportSummary";
import {
  timelineLanes,
  timelineRanges,
  visibleBoxes,
  visibleRanges,
  type TimelineLane,
  type TimelineRange,
} from "../server/profile/nsysTimeline";
import type { NsysHostMessage, NsysRequest, WireBox } from "../webview/nsys/protocol";

type ReportMessage = Extract<NsysHostMessage, { type: "report" }>;
type WindowMessage = Extract<NsysHostMessage, { type: "window" }>;

/** More ranges than this in one window: those narrower than a pixel are left out. */
const RANGE_LIMIT = 2000;

/** What the timeline leaves out of a report with more operations than the reader sends. */
export function mergedNote(m: NonNullable<NsysTimelineTrace["merged"]>): string {
  const n = (x: number): string => x.toLocaleString("en-US");
  const us =
    m.resolutionNs >= 1000 ? `${n(Math.round(m.resolutionNs / 1000))} µs` : `${n(m.resolutionNs)} ns`;
  return (
    `This report has ${n(m.operations)} GPU operations: the timeline shows them as ${n(m.entries)} boxes, ` +
    `operations shorter than ${us} and less than ${us} apart merged (no name on hover; zoom shows no more detail). The tables count every operation.`
  );
}

export class NsysTimelineData {
  private readonly lanes: TimelineLane[];
  private readonly ranges: TimelineRange[];
  private readonly nameIndex = new Map<string, number>();
  readonly names: string[] = [];
  private readonly merged: NsysTimelineTrace["merged"];

  constructor(trace: NsysTimelineTrace) {
    this.merged = trace.merged;
    this.lanes = timelineLanes(trace);
    this.ranges = timelineRanges(trace);
    for (const op of trace.ops) {
      if (!this.nameIndex.has(op.name)) {
        this.nameIndex.set(op.name, this.names.length);
        this.names.push(op.name);
      }
    }
  }

  /** The report message: summary tables, lanes, names and the trace's extent. */
  report(summary: NsysSummary, title: string, file: string, command: string | null): ReportMessage {
    let startNs = Infinity;
    let endNs = -Infinity;
    for (const l of this.lanes) {
      startNs = Math.min(startNs, l.ops[0]!.startNs);
      for (const o of l.ops) endNs = Math.max(endNs, o.endNs);
    }
    for (const r of this.ranges) {
      startNs = Math.min(startNs, r.startNs);
      endNs = Math.max(endNs, r.endNs);
    }
    if (!Number.isFinite(startNs)) [startNs, endNs] = [0, 1];
    return {
      type: "report",
      title,
      file,
      command,
      summary,
      lanes: this.lanes.map((l) => ({
        deviceId: l.deviceId,
        streamId: l.streamId,
        ops: l.ops.reduce((n, o) => n + (o.merged ?? 1), 0),
      })),
      names: this.names,
      startNs,
      endNs: Math.max(endNs, startNs + 1),
      rangeRows: this.ranges.reduce((m, r) => Math.max(m, r.depth + 1), 0),
      timelineNote: this.merged ? mergedNote(this.merged) : null,
    };
  }

  /** What is visible in the requested window, per lane, with the NVTX ranges over it. */
  window(req: Extract<NsysRequest, { type: "window" }>): WindowMessage {
    const { t0, t1, nsPerPixel } = req;
    const boxes = this.lanes.map((lane) =>
      visibleBoxes(lane, t0, t1, nsPerPixel).map((b): WireBox => {
        const w: WireBox = { s: b.startNs, e: b.endNs, n: b.count };
        const op = b.op;
        if (!op) return w;
        w.k = this.nameIndex.get(op.name)!;
        w.kind = op.kind;
        if (op.grid) w.grid = op.grid;
        if (op.block) w.block = op.block;
        if (op.bytes !== undefined) w.bytes = op.bytes;
        return w;
      }),
    );
    let ranges = visibleRanges(this.ranges, t0, t1);
    if (ranges.length > RANGE_LIMIT) ranges = ranges.filter((r) => r.endNs - r.startNs >= nsPerPixel);
    return {
      type: "window",
      id: req.id,
      boxes,
      ranges: ranges.map((r) => ({ name: r.name, s: r.startNs, e: r.endNs, depth: r.depth })),
    };
  }
}
