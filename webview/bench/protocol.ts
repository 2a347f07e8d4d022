// The benchmark panel's own messages (host -> panel); what the panel says back (ready, rendered,
// failed) is the shared half, webview/shared/protocol.ts. Owned by the panel; the host imports it.
import type { BenchRunResults, HistoryEntry } from "../../server/bench/results";
import { isRecord } from "../shared/protocol";

/** Host -> panel. */
export type HostMessage =
  /** Render these results; `history` is this kernel's earlier runs, oldest first (may include this one). */
  { type: "show"; results: BenchRunResults; history: HistoryEntry[] } | { type: "error"; message: string };

export function isHostMessage(x: unknown): x is HostMessage {
  if (!isRecord(x)) return false;
  if (x.type === "error") return typeof x.message === "string";
  return x.type === "show" && typeof x.results === "object" && x.results !== null && Array.isArray(x.history);
}
