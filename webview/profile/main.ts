// The profile panel: an Nsight Compute launch (launch.ts) or two launches compared (compare.ts);
// Nsight Systems reports have their own panel (webview/nsys/). Every string from a report goes in as
// text (textContent), never as markup: kernel names such as `k<float, 4>` or `<img src=x onerror=...>` are shown as typed.
import { el } from "../shared/dom";
import { listen, redraw } from "../shared/host";
import { renderCompare } from "./compare";
import { time } from "./format";
import { renderLaunch } from "./launch";
import { type HostMessage, isHostMessage } from "./protocol";

/** A report: its file, a launch picker when it has several, where hot lines were marked, the launch. */
function renderProfile(root: HTMLElement, msg: Extract<HostMessage, { type: "profile" }>): void {
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
    select.addEventListener("change", () => draw({ ...msg, selected: Number(select.value) }));
    bar.append(select);
  }
  if (msg.hotLines.length > 0)
    bar.append(
      el(
        "span",
        `Hot lines marked in ${msg.hotLines.map((h) => `${h.file} (${h.lines})`).join(", ")}`,
        "hot",
      ),
    );
  root.append(bar);
  const v = msg.launches[msg.selected];
  if (v) renderLaunch(root, v);
  else root.append(el("p", "This report has no profiled launches."));
}

function draw(msg: HostMessage): void {
  redraw((root) => {
    if (msg.type === "profile") renderProfile(root, msg);
    else if (msg.type === "compare") renderCompare(root, msg);
    else root.append(el("h1", msg.title), el("p", msg.message, "error"));
  }, msg.type);
}

listen(isHostMessage, draw);
