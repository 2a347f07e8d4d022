// The profile panel: an Nsight Compute launch (launch.ts) or two launches compared (compare.ts);
// Nsight Systems reports have their own panel (webview/nsys/). Every string from a report goes in as
// text (textContent), never as markup: kernel names such as `k<float, 4>` or `<img src=x onerror=...>` are shown as typed.
import { el } from "../shared/dom";
import { listen, postRequest, postToHost, redraw } from "../shared/host";
import { renderCompare } from "./compare";
import { time } from "./format";
import { renderLaunch } from "./launch";
import { type HostMessage, type MarkedFile, type ReadHotLines, isHostMessage } from "./protocol";

type ProfileMessage = Extract<HostMessage, { type: "profile" }>;

/** The report shown, so that hot lines read late land in it. */
let shown: ProfileMessage | undefined;

/**
 * Where the report's hot lines are: marked (in which files), none, or not read yet, with a button
 * that asks the host to read the source page (it answers with a `hotLines` message).
 */
function hotLinesItem(hotLines: MarkedFile[] | null, error?: string): HTMLElement {
  const item = error !== undefined ? el("span", `Hot lines: ${error}`, "hot error") : hotLinesState(hotLines);
  item.id = "hot-lines";
  return item;
}

function hotLinesState(hotLines: MarkedFile[] | null): HTMLElement {
  if (hotLines === null) {
    const button = el("button", "Mark hot lines");
    button.title = "Read the report's source page and mark its hot lines in the editor";
    button.addEventListener("click", () => {
      button.disabled = true;
      button.textContent = "Reading the source page…";
      postRequest({ type: "readHotLines" } satisfies ReadHotLines);
    });
    return button;
  }
  return el(
    "span",
    hotLines.length > 0
      ? `Hot lines marked in ${hotLines.map((h) => `${h.file} (${h.lines})`).join(", ")}`
      : "No hot lines: the report has no source page, or none of its files is here",
    "hot",
  );
}

/** A report: its file, a launch picker when it has several, its hot lines, the launch. */
function renderProfile(root: HTMLElement, msg: ProfileMessage): void {
  const bar = el("div", undefined, "toolbar");
  bar.append(el("span", msg.file, "file"));
  if (msg.launches.length > 1) {
    const select = el("select");
    select.id = "launch";
    msg.launches.forEach((l, i) => {
      const o = el(
        "option",
        `[${l.id}] ${l.kernel.length > 80 ? `${l.kernel.slice(0, 80)}…` : l.kernel} — ${time(l.durationNs)}`,
      );
      o.value = String(i);
      select.append(o);
    });
    select.value = String(msg.selected);
    // `shown`, not `msg`: hot lines may have come in since.
    select.addEventListener("change", () => draw({ ...(shown ?? msg), selected: Number(select.value) }));
    bar.append(select);
  }
  bar.append(hotLinesItem(msg.hotLines));
  root.append(bar);
  const v = msg.launches[msg.selected];
  if (v) renderLaunch(root, v);
  else root.append(el("p", "This report has no profiled launches."));
}

/** Hot lines read after the report was drawn: only the toolbar's item changes (the charts stay). */
function lateHotLines(msg: Extract<HostMessage, { type: "hotLines" }>): void {
  if (!shown) return;
  // After a failure the button comes back with the next drawing: the user may try again.
  shown = { ...shown, hotLines: msg.error === undefined ? msg.hotLines : null };
  document.getElementById("hot-lines")?.replaceWith(hotLinesItem(msg.hotLines, msg.error));
  postToHost({ type: "rendered", charts: [], view: "hotLines" });
}

function draw(msg: HostMessage): void {
  if (msg.type === "hotLines") return lateHotLines(msg);
  shown = msg.type === "profile" ? msg : undefined;
  redraw((root) => {
    if (msg.type === "profile") renderProfile(root, msg);
    else if (msg.type === "compare") renderCompare(root, msg);
    else root.append(el("h1", msg.title), el("p", msg.message, "error"));
  }, msg.type);
}

listen(isHostMessage, draw);
