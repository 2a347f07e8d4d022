// The Occupancy panel, like NVIDIA's CUDA Occupancy Calculator: for the kernel's registers, static
// shared memory and launch, occupancy against block size, registers per thread and shared memory per
// block, the current point marked, one tab per target architecture, and the limit that binds.
// Computed here with the same calculator the CLI uses (server/occupancy), so the inputs can change
// without a round trip. Every string goes into the DOM through textContent.
import {
  CategoryScale,
  Chart,
  Filler,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartDataset,
} from "chart.js";
import { archLimits } from "../../server/occupancy/archLimits";
import { occupancy, OccupancyInputError, type OccupancyResult } from "../../server/occupancy/occupancy";
import { isShowMessage, type FromPanel, type OccupancyPoint, type ShowMessage } from "./protocol";

Chart.register(
  LineController,
  ScatterController,
  LineElement,
  PointElement,
  LinearScale,
  CategoryScale,
  Tooltip,
  Filler,
);

interface VsCodeApi {
  postMessage(message: FromPanel): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

const LIMIT_NAMES: Record<OccupancyResult["limitedBy"], string> = {
  warps: "warps per SM (block size)",
  registers: "registers per SM",
  sharedMemory: "shared memory per SM",
  blocks: "blocks per SM",
  barriers: "barriers per SM",
};

let state: ShowMessage | undefined;
let active = 0;
const edits = new Map<number, OccupancyPoint>();
const charts: Chart[] = [];

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  cls?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function curve(
  p: OccupancyPoint,
  xs: number[],
  at: (x: number) => OccupancyPoint,
): { x: number; y: number }[] {
  return xs.map((x) => {
    const q = at(x);
    const r = occupancy(
      p.arch,
      { regsPerThread: q.regs, staticSmemBytes: q.staticSmem, barriers: q.barriers },
      { blockSize: q.block, dynamicSmemBytes: q.dynamicSmem },
    );
    return { x, y: r.occupancyPct };
  });
}

function chart(
  parent: HTMLElement,
  title: string,
  xLabel: string,
  line: { x: number; y: number }[],
  current: { x: number; y: number },
): void {
  const box = el("div", undefined, "chart");
  box.append(el("h3", title));
  const canvas = el("canvas");
  canvas.setAttribute("role", "img");
  canvas.setAttribute(
    "aria-label",
    `${title}: the current kernel is at ${current.x}, ${current.y}% occupancy`,
  );
  box.append(canvas);
  parent.append(box);
  const fg = cssVar("--vscode-editor-foreground", "#ccc");
  const accent = cssVar("--vscode-charts-blue", "#3794ff");
  const mark = cssVar("--vscode-charts-red", "#f14c4c");
  const grid = cssVar("--vscode-editorWidget-border", "#444");
  const datasets: ChartDataset<"line" | "scatter", { x: number; y: number }[]>[] = [
    {
      type: "line",
      label: "occupancy %",
      data: line,
      borderColor: accent,
      backgroundColor: accent,
      stepped: true,
      pointRadius: 0,
      borderWidth: 2,
    },
    {
      type: "scatter",
      label: "this kernel",
      data: [current],
      borderColor: mark,
      backgroundColor: mark,
      pointRadius: 6,
      pointStyle: "triangle",
    },
  ];
  charts.push(
    new Chart(canvas, {
      type: "line",
      data: { datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        plugins: { legend: { display: false }, tooltip: { intersect: false, mode: "nearest" } },
        scales: {
          x: {
            type: "linear",
            title: { display: true, text: xLabel, color: fg },
            ticks: { color: fg },
            grid: { color: grid },
          },
          y: {
            min: 0,
            max: 100,
            title: { display: true, text: "occupancy %", color: fg },
            ticks: { color: fg },
            grid: { color: grid },
          },
        },
      },
    }),
  );
}

function numberInput(label: string, value: number, max: number, onChange: (v: number) => void): HTMLElement {
  const wrap = el("label", undefined, "field");
  wrap.append(el("span", label));
  const input = el("input");
  input.type = "number";
  input.min = "0";
  input.max = String(max);
  input.value = String(value);
  input.addEventListener("change", () => {
    const v = Number(input.value);
    if (Number.isInteger(v) && v >= 0 && v <= max) onChange(v);
    else input.value = String(value);
  });
  wrap.append(input);
  return wrap;
}

function render(): void {
  for (const c of charts.splice(0)) c.destroy();
  const root = document.getElementById("root")!;
  root.replaceChildren();
  if (!state) {
    root.append(el("p", "Waiting for a kernel…", "muted"));
    return;
  }
  const header = el("header");
  header.append(el("h2", state.kernel), el("span", state.file, "muted"));
  root.append(header);

  const tabs = el("nav", undefined, "tabs");
  tabs.setAttribute("role", "tablist");
  state.points.forEach((p, i) => {
    const b = el("button", p.arch, i === active ? "tab active" : "tab");
    b.setAttribute("role", "tab");
    b.setAttribute("aria-selected", String(i === active));
    b.addEventListener("click", () => {
      active = i;
      render();
    });
    tabs.append(b);
  });
  root.append(tabs);

  const p = edits.get(active) ?? state.points[active]!;
  const update = (q: Partial<OccupancyPoint>): void => {
    edits.set(active, { ...p, ...q });
    render();
  };
  const inputs = el("section", undefined, "inputs");
  inputs.append(
    numberInput("threads per block", p.block, 1024, (v) => update({ block: Math.max(1, v) })),
    numberInput("registers per thread", p.regs, 255, (v) => update({ regs: v })),
    numberInput("static shared memory (B)", p.staticSmem, 1 << 20, (v) => update({ staticSmem: v })),
    numberInput("dynamic shared memory (B)", p.dynamicSmem, 1 << 20, (v) => update({ dynamicSmem: v })),
  );
  root.append(inputs);

  let r: OccupancyResult;
  try {
    r = occupancy(
      p.arch,
      { regsPerThread: p.regs, staticSmemBytes: p.staticSmem, barriers: p.barriers },
      { blockSize: p.block, dynamicSmemBytes: p.dynamicSmem },
    );
  } catch (err) {
    const message = err instanceof OccupancyInputError ? err.message : String(err);
    root.append(el("p", message, "error"));
    vscode.postMessage({ type: "error", message });
    return;
  }
  const summary = el("section", undefined, "summary");
  summary.append(
    el("div", `${r.occupancyPct}%`, "big"),
    el("div", `${r.activeBlocksPerSM} blocks/SM · ${r.activeWarpsPerSM} of ${r.maxWarpsPerSM} warps`),
    el(
      "div",
      r.activeBlocksPerSM === 0
        ? `Cannot launch: ${r.reason ?? "no block fits"}`
        : `Limited by ${r.limiters.map((x) => LIMIT_NAMES[x]).join(" and ")}`,
      r.activeBlocksPerSM === 0 ? "error" : "limit",
    ),
  );
  const table = el("table");
  const head = el("tr");
  head.append(el("th", "limit"), el("th", "blocks/SM it allows"));
  table.append(head);
  const rows: [string, number | null][] = [
    ["warps", r.blockLimits.warps],
    ["registers", r.blockLimits.registers],
    ["shared memory", r.blockLimits.sharedMemory],
    ["blocks per SM", r.blockLimits.blocks],
    ["barriers", r.blockLimits.barriers],
  ];
  for (const [name, n] of rows) {
    const tr = el("tr");
    tr.append(el("td", name), el("td", n === null ? "no limit" : String(n)));
    table.append(tr);
  }
  summary.append(table);
  root.append(summary);

  const l = archLimits(p.arch);
  const grid = el("section", undefined, "charts");
  root.append(grid);
  const blocks = Array.from({ length: 32 }, (_, i) => (i + 1) * 32);
  chart(
    grid,
    "Occupancy against threads per block",
    "threads per block",
    curve(p, blocks, (x) => ({ ...p, block: x })),
    { x: p.block, y: r.occupancyPct },
  );
  const regs = Array.from({ length: 256 }, (_, i) => i);
  chart(
    grid,
    "Occupancy against registers per thread",
    "registers per thread",
    curve(p, regs, (x) => ({ ...p, regs: x })),
    { x: p.regs, y: r.occupancyPct },
  );
  const maxSmem = l.sharedMemPerBlockOptin;
  const smem = Array.from({ length: Math.floor(maxSmem / 512) + 1 }, (_, i) => i * 512);
  chart(
    grid,
    "Occupancy against shared memory per block",
    "shared memory per block (B)",
    curve(p, smem, (x) => ({ ...p, staticSmem: 0, dynamicSmem: x })),
    { x: p.staticSmem + p.dynamicSmem, y: r.occupancyPct },
  );
}

window.addEventListener("message", (e: MessageEvent<unknown>) => {
  if (!isShowMessage(e.data)) return; // anything else is not ours
  state = e.data;
  edits.clear();
  active = Math.min(active, state.points.length - 1);
  render();
});

render();
vscode.postMessage({ type: "ready" });
