// The profile panel <-> extension host boundary: every message, both directions, in one file.
// Owned by the panel (webview/profile/); the host imports it (types and the guard).
import type { NsysStats } from "../../server/profile/nsysCsv";
import type { MetricDelta, ProfileView } from "../../server/profile/profileView";

/** Host -> panel. */
export type HostMessage =
  /** One report: every launch; the panel shows `selected` and offers the others. */
  | {
      type: "profile";
      title: string;
      file: string;
      launches: ProfileView[];
      selected: number;
      hotLines: { file: string; lines: number; samples: number }[];
    }
  /** Two launches side by side, with per-metric deltas (b relative to a). */
  | {
      type: "compare";
      a: { title: string; view: ProfileView };
      b: { title: string; view: ProfileView };
      deltas: MetricDelta[];
    }
  /** Nsight Systems summaries of a command line. */
  | { type: "nsys"; title: string; command: string; stats: NsysStats }
  | { type: "error"; title: string; message: string };

/** Panel -> host. */
export type PanelMessage =
  /** The script loaded: send the state (again, after the panel was hidden and reloaded). */
  | { type: "ready" }
  /** What was drawn, for the log and UI tests. */
  | { type: "rendered"; view: HostMessage["type"]; charts: string[] }
  /** A rendering failure inside the panel. */
  | { type: "failed"; message: string };

export function isPanelMessage(x: unknown): x is PanelMessage {
  if (typeof x !== "object" || x === null) return false;
  const m = x as Record<string, unknown>;
  switch (m.type) {
    case "ready":
      return true;
    case "rendered":
      return (
        typeof m.view === "string" && Array.isArray(m.charts) && m.charts.every((c) => typeof c === "string")
      );
    case "failed":
      return typeof m.message === "string";
    default:
      return false;
  }
}

export function isHostMessage(x: unknown): x is HostMessage {
  if (typeof x !== "object" || x === null) return false;
  const m = x as Record<string, unknown>;
  switch (m.type) {
    case "profile":
      return (
        typeof m.title === "string" &&
        Array.isArray(m.launches) &&
        typeof m.selected === "number" &&
        Array.isArray(m.hotLines)
      );
    case "compare":
      return (
        typeof m.a === "object" &&
        m.a !== null &&
        typeof m.b === "object" &&
        m.b !== null &&
        Array.isArray(m.deltas)
      );
    case "nsys":
      return typeof m.title === "string" && typeof m.stats === "object" && m.stats !== null;
    case "error":
      return typeof m.title === "string" && typeof m.message === "string";
    default:
      return false;
  }
}
