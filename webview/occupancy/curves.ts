// The Occupancy panel's charts: occupancy as one input varies (threads per block, registers per
// thread, shared memory per block), computed with the calculator, the kernel's point marked.
import type { ChartDataset } from "chart.js";
import { archLimits } from "../../server/occupancy/archLimits";
import { occupancy } from "../../server/occupancy/occupancy";
import { addChart } from "../shared/charts";
import { el, themeColor } from "../shared/dom";
import type { OccupancyPoint } from "./protocol";

type XY = { x: number; y: number };

export function occupancyPct(p: OccupancyPoint): number {
  return occupancy(
    p.arch,
    { regsPerThread: p.regs, staticSmemBytes: p.staticSmem, barriers: p.barriers },
    { blockSize: p.block, dynamicSmemBytes: p.dynamicSmem },
  ).occupancyPct;
}

const curve = (xs: number[], at: (x: number) => OccupancyPoint): XY[] =>
  xs.map((x) => ({ x, y: occupancyPct(at(x)) }));

function chart(
  parent: HTMLElement,
  id: string,
  title: string,
  xLabel: string,
  line: XY[],
  current: XY,
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
  const fg = themeColor("--vscode-editor-foreground", "#ccc");
  const accent = themeColor("--vscode-charts-blue", "#3794ff");
  const mark = themeColor("--vscode-charts-red", "#f14c4c");
  const grid = themeColor("--vscode-editorWidget-border", "#444");
  const datasets: ChartDataset<"line" | "scatter", XY[]>[] = [
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
  addChart(id, canvas, {
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
  });
}

/** One chart's input: `xs` its values, `at` the kernel with the input at x, `x` the kernel's own value. */
interface Axis {
  id: string;
  what: string;
  unit: string;
  xs: number[];
  at: (x: number) => OccupancyPoint;
  x: number;
}

/** The three charts for `p`, whose own occupancy is `pct`. */
export function curves(parent: HTMLElement, p: OccupancyPoint, pct: number): void {
  const maxSmem = archLimits(p.arch).sharedMemPerBlockOptin;
  const axes: Axis[] = [
    {
      id: "threads-per-block",
      what: "threads per block",
      unit: "",
      xs: Array.from({ length: 32 }, (_, i) => (i + 1) * 32),
      at: (x) => ({ ...p, block: x }),
      x: p.block,
    },
    {
      id: "registers-per-thread",
      what: "registers per thread",
      unit: "",
      xs: Array.from({ length: 256 }, (_, i) => i),
      at: (x) => ({ ...p, regs: x }),
      x: p.regs,
    },
    {
      id: "shared-memory-per-block",
      what: "shared memory per block",
      unit: " (B)",
      xs: Array.from({ length: Math.floor(maxSmem / 512) + 1 }, (_, i) => i * 512),
      at: (x) => ({ ...p, staticSmem: 0, dynamicSmem: x }),
      x: p.staticSmem + p.dynamicSmem,
    },
  ];
  for (const a of axes)
    chart(parent, a.id, `Occupancy against ${a.what}`, `${a.what}${a.unit}`, curve(a.xs, a.at), {
      x: a.x,
      y: pct,
    });
}
