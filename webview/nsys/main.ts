// The Nsight Systems panel: a report's summary tables (tables.ts) and its timeline (timeline.ts),
// whose windows the host computes on request. Every string from a report goes in as text.
import { el } from "../shared/dom";
import { listen, postRequest, postToHost } from "../shared/host";
import { isNsysHostMessage, type NsysHostMessage, type NsysRequest } from "./protocol";
import { renderTables } from "./tables";
import { Timeline } from "./timeline";

const request = (m: NsysRequest): void => postRequest(m);

let timeline: Timeline | undefined;

function renderReport(root: HTMLElement, msg: Extract<NsysHostMessage, { type: "report" }>): void {
  root.append(el("h1", msg.title), el("p", msg.file, "file"));
  if (msg.command !== null) root.append(el("p", `Command: ${msg.command}`, "file"));
  const section = el("section");
  section.append(
    el("h2", "Timeline"),
    el(
      "p",
      "Wheel or +/- zoom, drag or arrow keys pan, 0 resets; hover for details, click a kernel for its source.",
      "hint",
    ),
  );
  if (msg.timelineNote) section.append(el("p", msg.timelineNote, "hint"));
  root.append(section);
  timeline = new Timeline(section, msg, {
    requestWindow: (id, t0, t1, nsPerPixel) => request({ type: "window", id, t0, t1, nsPerPixel }),
    openKernel: (name) => request({ type: "openKernel", name }),
  });
  renderTables(root, msg.summary, {
    open: (name) => request({ type: "openKernel", name }),
    profile: (name) => request({ type: "profileKernel", name }),
  });
}

function draw(msg: NsysHostMessage): void {
  if (msg.type === "window") {
    timeline?.receive(msg);
    return;
  }
  const root = document.getElementById("root")!;
  root.replaceChildren();
  timeline = undefined;
  try {
    if (msg.type === "report") renderReport(root, msg);
    else root.append(el("h1", msg.title), el("p", msg.message, msg.type === "error" ? "error" : "loading"));
    postToHost({ type: "rendered", charts: msg.type === "report" ? ["timeline"] : [], view: msg.type });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    root.append(el("p", `The panel failed to render: ${message}`, "error"));
    postToHost({ type: "failed", message });
  }
}

listen(isNsysHostMessage, draw);
