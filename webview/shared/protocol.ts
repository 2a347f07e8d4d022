// The half of every panel's message protocol that all panels share: the page says it is `ready`,
// then what it `rendered` or that it `failed`. Owned by the panels (webview/); the one host
// (extension/webviewHost.ts) imports it. Each panel's protocol.ts adds its own host messages.

/** Panel -> host. */
export type PanelMessage =
  /** The script loaded: send the state (again, after the panel was hidden and reloaded). */
  | { type: "ready" }
  /** What was drawn (chart ids; `view`: which kind of page, where a panel has several), for the log and UI tests. */
  | { type: "rendered"; charts: string[]; view?: string }
  /** A failure inside the panel, shown there and logged by the host. */
  | { type: "failed"; message: string };

/** A plain object (not null, not an array): the first check of every guard on a message. */
export const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

export function isPanelMessage(x: unknown): x is PanelMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "ready":
      return true;
    case "rendered":
      return (
        (x.view === undefined || typeof x.view === "string") &&
        Array.isArray(x.charts) &&
        x.charts.every((c) => typeof c === "string")
      );
    case "failed":
      return typeof x.message === "string";
    default:
      return false;
  }
}
