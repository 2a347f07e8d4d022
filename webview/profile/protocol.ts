// The profile panel's own messages (host -> panel); what the panel says back (ready, rendered with
// the view's type, failed) is the shared half, webview/shared/protocol.ts. Owned by the panel; the
// host imports it.
import type { MetricDelta, ProfileView } from "../../server/profile/profileView";
import { isRecord } from "../shared/protocol";

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
  | { type: "error"; title: string; message: string };

export function isHostMessage(x: unknown): x is HostMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "profile":
      return (
        typeof x.title === "string" &&
        Array.isArray(x.launches) &&
        typeof x.selected === "number" &&
        Array.isArray(x.hotLines)
      );
    case "compare":
      return isRecord(x.a) && isRecord(x.b) && Array.isArray(x.deltas);
    case "error":
      return typeof x.title === "string" && typeof x.message === "string";
    default:
      return false;
  }
}
