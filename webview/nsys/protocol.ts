// The Nsight Systems panel's messages. Host -> panel: the report (summary tables, the timeline's
// lanes and extent) once, then the timeline windows it asks for. Panel -> host, besides the shared
// ready/rendered/failed: a window request (its id comes back in the reply, so late replies to an
// older view are dropped), and the kernel actions (open its source, profile it with Nsight Compute).
// Owned by the panel; the host (extension/nsysPanel.ts) imports it.
import type { NsysSummary } from "../../server/profile/nsysReportSummary";
import { isRecord } from "../shared/protocol";

export interface LaneInfo {
  deviceId: number;
  streamId: number;
  /** Operations on the stream. */
  ops: number;
}

/** A box to draw: one operation, or `n` neighbours narrower than a pixel merged into one. */
export interface WireBox {
  s: number;
  e: number;
  n: number;
  /** One operation: its name's index in the report message's `names`, and its kind. */
  k?: number;
  kind?: "kernel" | "memcpy" | "memset";
  grid?: [number, number, number];
  block?: [number, number, number];
  bytes?: number;
}

export interface WireRange {
  name: string;
  s: number;
  e: number;
  depth: number;
}

/** Host -> panel. */
export type NsysHostMessage =
  | { type: "loading"; title: string; message: string }
  | { type: "error"; title: string; message: string }
  | {
      type: "report";
      title: string;
      /** The report's path, relative to the workspace where it is inside. */
      file: string;
      /** The command line profiled, when this report came from the Nsight Systems command. */
      command: string | null;
      summary: NsysSummary;
      lanes: LaneInfo[];
      /** Names of the operations, indexed by WireBox.k. */
      names: string[];
      startNs: number;
      endNs: number;
      /** NVTX rows above the lanes (deepest nesting + 1; 0 when there are no ranges). */
      rangeRows: number;
      /** Set when the timeline merged operations to stay bounded (a report of millions): what it left out. */
      timelineNote: string | null;
    }
  | { type: "window"; id: number; boxes: WireBox[][]; ranges: WireRange[] };

/** Panel -> host, the panel's own requests. */
export type NsysRequest =
  | { type: "window"; id: number; t0: number; t1: number; nsPerPixel: number }
  | { type: "openKernel"; name: string }
  | { type: "profileKernel"; name: string };

const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

export function isNsysHostMessage(x: unknown): x is NsysHostMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "loading":
    case "error":
      return typeof x.title === "string" && typeof x.message === "string";
    case "report":
      return (
        typeof x.title === "string" &&
        isRecord(x.summary) &&
        Array.isArray(x.lanes) &&
        Array.isArray(x.names) &&
        finite(x.startNs) &&
        finite(x.endNs)
      );
    case "window":
      return finite(x.id) && Array.isArray(x.boxes) && Array.isArray(x.ranges);
    default:
      return false;
  }
}

export function isNsysRequest(x: unknown): x is NsysRequest {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "window":
      return finite(x.id) && finite(x.t0) && finite(x.t1) && finite(x.nsPerPixel) && x.nsPerPixel > 0;
    case "openKernel":
    case "profileKernel":
      return typeof x.name === "string" && x.name.length > 0 && x.name.length < 10_000;
    default:
      return false;
  }
}
