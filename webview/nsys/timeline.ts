// The Nsight Systems panel's timeline: a canvas with a time ruler, NVTX ranges above one lane per
// GPU stream (kernels and copies). Zoom with the wheel or +/-, pan by dragging or with the arrow
// keys, 0 resets; hovering a box shows its name, duration and launch shape; clicking a kernel asks
// the host to open its source. Only the visible window is drawn, from what the host sends for it
// (sub-pixel operations already merged); while a request is out the last window is redrawn at the
// new scale, and only the newest view is asked for next. Names are drawn with fillText: text only.
import { formatNs } from "../../server/util/formatNs";
import { el, themeColor } from "../shared/dom";
import type { LaneInfo, NsysHostMessage, WireBox, WireRange } from "./protocol";

type Report = Extract<NsysHostMessage, { type: "report" }>;
type Window = Extract<NsysHostMessage, { type: "window" }>;

const LABEL_W = 120;
const RULER_H = 20;
const ROW_H = 16;
const LANE_H = 26;
const KIND_COLOR = { kernel: "#4e8fd8", memcpy: "#d8964e", memset: "#b46ed8" };

export interface TimelineHost {
  requestWindow(id: number, t0: number, t1: number, nsPerPixel: number): void;
  openKernel(name: string): void;
}

export class Timeline {
  readonly canvas = el("canvas", undefined, "timeline");
  private readonly tip = el("div", undefined, "tip");
  private t0: number;
  private t1: number;
  private win: Window | undefined;
  private nextId = 1;
  private inFlight = false;
  private stale = true;
  private drag: { x: number; t0: number; t1: number; moved: boolean } | undefined;

  constructor(
    parent: HTMLElement,
    private readonly report: Report,
    private readonly host: TimelineHost,
  ) {
    this.t0 = report.startNs;
    this.t1 = report.endNs;
    const box = el("div", undefined, "timeline-box");
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute(
      "aria-label",
      "Timeline: wheel or +/- to zoom, drag or arrows to pan, 0 to reset",
    );
    box.append(this.canvas, this.tip);
    parent.append(box);
    this.listen();
    new ResizeObserver(() => this.changed()).observe(box);
  }

  private get plotW(): number {
    return Math.max(1, this.canvas.clientWidth - LABEL_W);
  }

  private get nsPerPixel(): number {
    return (this.t1 - this.t0) / this.plotW;
  }

  private get lanesTop(): number {
    return RULER_H + this.report.rangeRows * ROW_H + (this.report.rangeRows > 0 ? 4 : 0);
  }

  /** The page answers a window reply: drawn if it is the newest, and the newest view asked for next. */
  receive(w: Window): void {
    this.inFlight = false;
    this.win = w;
    this.canvas.dataset.window = String(w.id);
    this.canvas.dataset.boxes = String(w.boxes.reduce((s, b) => s + b.length, 0));
    this.draw();
    if (this.stale) this.request();
  }

  /** The view moved: draw what we have now, ask for the new window (one request at a time). */
  private changed(): void {
    this.stale = true;
    this.draw();
    if (!this.inFlight) this.request();
  }

  private request(): void {
    this.stale = false;
    this.inFlight = true;
    // A little either side, so a small pan draws from what is there.
    const pad = (this.t1 - this.t0) * 0.25;
    this.host.requestWindow(this.nextId++, this.t0 - pad, this.t1 + pad, this.nsPerPixel);
  }

  private setView(t0: number, t1: number): void {
    const full = this.report.endNs - this.report.startNs;
    const span = Math.min(full * 1.2, Math.max(100, t1 - t0));
    const lo = this.report.startNs - full * 0.1;
    const hi = this.report.endNs + full * 0.1;
    this.t0 = Math.min(Math.max(t0, lo), hi - span);
    this.t1 = this.t0 + span;
    this.changed();
  }

  private zoom(factor: number, atX = LABEL_W + this.plotW / 2): void {
    const at = this.t0 + (atX - LABEL_W) * this.nsPerPixel;
    this.setView(at - (at - this.t0) * factor, at + (this.t1 - at) * factor);
  }

  private pan(fraction: number): void {
    const d = (this.t1 - this.t0) * fraction;
    this.setView(this.t0 + d, this.t1 + d);
  }

  private listen(): void {
    const c = this.canvas;
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      if (e.shiftKey) this.pan(e.deltaY > 0 ? 0.1 : -0.1);
      else this.zoom(e.deltaY > 0 ? 1.25 : 0.8, e.offsetX);
    });
    c.addEventListener("keydown", (e) => {
      const keys: Record<string, () => void> = {
        "+": () => this.zoom(0.8),
        "=": () => this.zoom(0.8),
        "-": () => this.zoom(1.25),
        ArrowLeft: () => this.pan(-0.1),
        ArrowRight: () => this.pan(0.1),
        "0": () => this.setView(this.report.startNs, this.report.endNs),
      };
      const act = keys[e.key];
      if (!act) return;
      e.preventDefault();
      act();
    });
    c.addEventListener("mousedown", (e) => {
      this.drag = { x: e.offsetX, t0: this.t0, t1: this.t1, moved: false };
    });
    window.addEventListener("mouseup", () => (this.drag = undefined));
    c.addEventListener("mousemove", (e) => this.mouseMove(e));
    c.addEventListener("mouseleave", () => this.tip.classList.remove("shown"));
    c.addEventListener("click", (e) => {
      const hit = this.hit(e.offsetX, e.offsetY);
      if (hit && "box" in hit && hit.box.kind === "kernel" && hit.box.k !== undefined)
        this.host.openKernel(this.report.names[hit.box.k]!);
    });
  }

  private mouseMove(e: MouseEvent): void {
    const d = this.drag;
    if (d && e.buttons === 1 && Math.abs(e.offsetX - d.x) > 2) {
      const dt = (e.offsetX - d.x) * ((d.t1 - d.t0) / this.plotW);
      this.setView(d.t0 - dt, d.t1 - dt);
      return;
    }
    const hit = this.hit(e.offsetX, e.offsetY);
    if (!hit) {
      this.tip.classList.remove("shown");
      return;
    }
    this.tip.replaceChildren(...this.tipLines(hit).map((l, i) => el("div", l, i === 0 ? "tip-name" : "")));
    this.tip.style.left = `${Math.min(e.offsetX + 12, this.canvas.clientWidth - 320)}px`;
    this.tip.style.top = `${e.offsetY + 14}px`;
    this.tip.classList.add("shown");
  }

  private tipLines(hit: { box: WireBox } | { range: WireRange }): string[] {
    if ("range" in hit) return [hit.range.name, `NVTX range, ${formatNs(hit.range.e - hit.range.s)}`];
    const b = hit.box;
    if (b.k === undefined)
      return [`${b.n} operations`, `over ${formatNs(b.e - b.s)}: zoom in to tell them apart`];
    const lines = [this.report.names[b.k]!, `${b.kind ?? "operation"}, ${formatNs(b.e - b.s)}`];
    if (b.grid && b.block) lines.push(`grid (${b.grid.join(", ")}) block (${b.block.join(", ")})`);
    if (b.bytes !== undefined) lines.push(`${b.bytes.toLocaleString("en-US")} bytes`);
    if (b.kind === "kernel") lines.push("click: open its source");
    return lines;
  }

  /** The box or range under (x, y), in CSS pixels. */
  private hit(x: number, y: number): { box: WireBox } | { range: WireRange } | undefined {
    if (!this.win || x < LABEL_W) return undefined;
    const t = this.t0 + (x - LABEL_W) * this.nsPerPixel;
    const slack = 2 * this.nsPerPixel;
    if (y >= RULER_H && y < RULER_H + this.report.rangeRows * ROW_H) {
      const depth = Math.floor((y - RULER_H) / ROW_H);
      const range = this.win.ranges.find((r) => r.depth === depth && r.s - slack <= t && t <= r.e + slack);
      return range ? { range } : undefined;
    }
    const lane = Math.floor((y - this.lanesTop) / LANE_H);
    const box = this.win.boxes[lane]?.find((b) => b.s - slack <= t && t <= b.e + slack);
    return box ? { box } : undefined;
  }

  private draw(): void {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth;
    const h = this.lanesTop + this.report.lanes.length * LANE_H + 4;
    c.style.height = `${h}px`;
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
    const g = c.getContext("2d");
    if (!g) return;
    g.scale(dpr, dpr);
    const fg = themeColor("--vscode-foreground", "#ccc");
    g.font = `11px ${themeColor("--vscode-font-family", "sans-serif")}`;
    g.textBaseline = "middle";
    this.drawRuler(g, fg, w);
    if (this.win) {
      this.drawRanges(g, this.win.ranges);
      this.win.boxes.forEach((boxes, i) => this.drawLane(g, boxes, this.lanesTop + i * LANE_H));
    }
    g.fillStyle = fg;
    this.report.lanes.forEach((l: LaneInfo, i) =>
      g.fillText(`GPU ${l.deviceId} stream ${l.streamId}`, 4, this.lanesTop + i * LANE_H + LANE_H / 2),
    );
    if (this.report.rangeRows > 0) g.fillText("NVTX", 4, RULER_H + ROW_H / 2);
  }

  private x(t: number): number {
    return LABEL_W + (t - this.t0) / this.nsPerPixel;
  }

  private drawRuler(g: CanvasRenderingContext2D, fg: string, w: number): void {
    const span = this.t1 - this.t0;
    const step = 10 ** Math.floor(Math.log10(span / 5));
    const tick = [1, 2, 5].map((m) => m * step).find((s) => span / s <= 10) ?? step * 10;
    g.fillStyle = fg;
    g.strokeStyle = themeColor("--vscode-editorWidget-border", "#555");
    // Ticks at round times since the trace's start, which is what they read.
    const origin = this.report.startNs;
    for (let t = origin + Math.ceil((this.t0 - origin) / tick) * tick; t <= this.t1; t += tick) {
      const x = this.x(t);
      g.fillRect(x, RULER_H - 5, 1, 5);
      g.fillText(formatNs(t - this.report.startNs), x + 3, RULER_H / 2);
    }
    g.fillRect(LABEL_W, RULER_H - 1, w - LABEL_W, 1);
  }

  private drawRanges(g: CanvasRenderingContext2D, ranges: WireRange[]): void {
    for (const r of ranges) {
      const x0 = Math.max(LABEL_W, this.x(r.s));
      const x1 = Math.min(this.canvas.clientWidth, this.x(r.e));
      if (x1 < LABEL_W || x1 - x0 < 0.5) continue;
      const y = RULER_H + r.depth * ROW_H;
      g.fillStyle = "#6aa84f";
      g.fillRect(x0, y + 1, Math.max(1, x1 - x0 - 1), ROW_H - 2);
      if (x1 - x0 > 30) this.label(g, r.name, x0 + 3, y + ROW_H / 2, x1 - x0 - 6);
    }
  }

  private drawLane(g: CanvasRenderingContext2D, boxes: WireBox[], y: number): void {
    for (const b of boxes) {
      const x0 = Math.max(LABEL_W, this.x(b.s));
      const x1 = this.x(b.e);
      if (x1 < LABEL_W) continue;
      g.fillStyle = b.k === undefined ? "#7f8c99" : KIND_COLOR[b.kind ?? "kernel"];
      g.fillRect(x0, y + 3, Math.max(1, x1 - x0), LANE_H - 6);
      if (b.k !== undefined && x1 - x0 > 40)
        this.label(g, this.report.names[b.k]!, x0 + 3, y + LANE_H / 2, x1 - x0 - 6);
    }
  }

  private label(g: CanvasRenderingContext2D, text: string, x: number, y: number, max: number): void {
    g.save();
    g.fillStyle = "#fff";
    g.beginPath();
    g.rect(x, y - 8, max, 16);
    g.clip();
    g.fillText(text, x, y);
    g.restore();
  }
}
