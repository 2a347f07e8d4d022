// The panel's side of the handshake with its host: say `ready`, draw what the host sends, report
// what was drawn (`rendered`) or why not (`failed`).
import { errorMessage } from "../../server/util/errorMessage";
import { clearCharts, drawnCharts } from "./charts";
import { el } from "./dom";
import type { PanelMessage } from "./protocol";

declare function acquireVsCodeApi(): { postMessage(msg: unknown): void };
// VS Code allows one acquireVsCodeApi() per page load.
const vscode = acquireVsCodeApi();

export function postToHost(msg: PanelMessage): void {
  vscode.postMessage(msg);
}

/** A panel's own request (its protocol types it; the host passes it through that panel's guard). */
export function postRequest(msg: { type: string }): void {
  vscode.postMessage(msg);
}

/** Hands every message that passes `guard` to `onMessage`, then tells the host the page is ready. */
export function listen<M>(guard: (x: unknown) => x is M, onMessage: (msg: M) => void): void {
  window.addEventListener("message", (e: MessageEvent<unknown>) => {
    // Only the host posts here; anything else (or malformed) is dropped.
    if (guard(e.data)) onMessage(e.data);
  });
  postToHost({ type: "ready" });
}

/**
 * Draws the page afresh into #root: the old charts destroyed, then `draw`; reports the charts it
 * drew, or shows and reports what it threw. `view` names the kind of page for the host's log.
 */
export function redraw(draw: (root: HTMLElement) => void, view?: string): void {
  clearCharts();
  const root = document.getElementById("root")!;
  root.replaceChildren();
  try {
    draw(root);
    postToHost({ type: "rendered", charts: drawnCharts(), ...(view === undefined ? {} : { view }) });
  } catch (e) {
    root.append(el("p", `The panel failed to render: ${errorMessage(e)}`, "error"));
    postToHost({ type: "failed", message: errorMessage(e) });
  }
}
