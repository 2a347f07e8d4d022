// The benchmark panel <-> extension host boundary: every message, both directions, in one file.
// Owned by the panel (webview/bench/); the host imports it (types and the guard).
import type { BenchRunResults, HistoryEntry } from "../../server/bench/results";

/** Host -> panel. */
export type HostMessage =
  /** Render these results; `history` is this kernel's earlier runs, oldest first (may include this one). */
  { type: "show"; results: BenchRunResults; history: HistoryEntry[] } | { type: "error"; message: string };

/** Panel -> host. */
export type PanelMessage =
  /** The script loaded: send the state (again, after the panel was hidden and reloaded). */
  | { type: "ready" }
  /** What was drawn, for the log and UI tests. */
  | { type: "rendered"; charts: string[] }
  /** A rendering failure inside the panel. */
  | { type: "failed"; message: string };

export function isPanelMessage(x: unknown): x is PanelMessage {
  if (typeof x !== "object" || x === null) return false;
  const m = x as Record<string, unknown>;
  switch (m.type) {
    case "ready":
      return true;
    case "rendered":
      return Array.isArray(m.charts) && m.charts.every((c) => typeof c === "string");
    case "failed":
      return typeof m.message === "string";
    default:
      return false;
  }
}

export function isHostMessage(x: unknown): x is HostMessage {
  if (typeof x !== "object" || x === null) return false;
  const m = x as Record<string, unknown>;
  if (m.type === "error") return typeof m.message === "string";
  return m.type === "show" && typeof m.results === "object" && m.results !== null && Array.isArray(m.history);
}
