// The profile panel's own messages: host -> panel (a report, a comparison, an error, and the hot lines
// read late), and the panel's one request (read the source page). What the panel says back besides
// (ready, rendered with the view's type, failed) is the shared half, webview/shared/protocol.ts.
// Owned by the panel; the host imports it.
import type { MetricDelta, ProfileView } from "../../server/profile/profileView";
import { isRecord } from "../shared/protocol";

/** Hot lines marked in the editor for one local file of the report's source page. */
export interface MarkedFile {
  file: string;
  lines: number;
  samples: number;
}

/** Host -> panel. */
export type HostMessage =
  /**
   * One report: every launch; the panel shows `selected` and offers the others. `hotLines` is null
   * while the source page is unread (it is read when the panel asks: ReadHotLines).
   */
  | {
      type: "profile";
      title: string;
      file: string;
      launches: ProfileView[];
      selected: number;
      hotLines: MarkedFile[] | null;
    }
  /** Two launches side by side, with per-metric deltas (b relative to a). */
  | {
      type: "compare";
      a: { title: string; view: ProfileView };
      b: { title: string; view: ProfileView };
      deltas: MetricDelta[];
    }
  | { type: "error"; title: string; message: string }
  /** The answer to ReadHotLines: what was marked (empty: no source page, or no lines here), or why not. */
  | { type: "hotLines"; hotLines: MarkedFile[]; error?: string };

/** Panel -> host, the panel's own request: read the report's source page and mark its hot lines. */
export interface ReadHotLines {
  type: "readHotLines";
}

export function isHostMessage(x: unknown): x is HostMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "profile":
      return (
        typeof x.title === "string" &&
        Array.isArray(x.launches) &&
        typeof x.selected === "number" &&
        (x.hotLines === null || Array.isArray(x.hotLines))
      );
    case "compare":
      return isRecord(x.a) && isRecord(x.b) && Array.isArray(x.deltas);
    case "error":
      return typeof x.title === "string" && typeof x.message === "string";
    case "hotLines":
      return Array.isArray(x.hotLines) && (x.error === undefined || typeof x.error === "string");
    default:
      return false;
  }
}

export function isReadHotLines(x: unknown): x is ReadHotLines {
  return isRecord(x) && x.type === "readHotLines";
}
