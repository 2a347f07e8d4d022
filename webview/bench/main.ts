// The benchmark results panel: a summary, a table per size and chart.js charts (time, speedup, % of
// peak bandwidth, TFLOP/s, history). Every string from the results goes in as text (textContent),
// never as markup.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  type ChartDataset,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from "chart.js";
import type { BenchRunResults, PointResult } from "../../server/bench/results";
import { chartsFor, type ChartSpec } from "./chartData";
import { type HostMessage, isHostMessage, type PanelMessage } from "./protocol";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Legend,
  Tooltip,
);

declare function acquireVsCodeApi(): { postMessage(msg: PanelMessage): void };
const vscode = acquireVsCodeApi();

let charts: Chart[] = [];

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function formatNs(ns: number | undefined): string {
  if (ns === undefined) return "–";
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

const fixed = (v: number | undefined, digits: number, suffix = ""): string =>
  v === undefined ? "–" : `${v.toFixed(digits)}${suffix}`;

function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

const PALETTE = [
  ["--vscode-charts-blue", "#3794ff"],
  ["--vscode-charts-orange", "#d18616"],
  ["--vscode-charts-green", "#89d185"],
  ["--vscode-charts-purple", "#b180d7"],
  ["--vscode-charts-red", "#f14c4c"],
  ["--vscode-charts-yellow", "#cca700"],
] as const;

function summary(r: BenchRunResults): HTMLElement {
  const box = el("section", undefined, "summary");
  box.append(el("h1", r.instance));
  const d = r.env.device;
  const facts: [string, string][] = [
    ["file", r.file],
    [
      "GPU",
      `${d.name} (sm_${d.computeCapability.replace(".", "")}, ${d.smCount} SMs, peak ${d.peakDramBandwidthGBs.toFixed(0)} GB/s)`,
    ],
    ["driver", r.env.driverVersion === null ? "unknown" : String(r.env.driverVersion)],
    ["nvcc", r.env.nvccVersion],
    ["commit", r.env.gitCommit ?? "not in git"],
    [
      "compile",
      `${r.compile.arch}, ${r.compile.cached ? "cached" : `${(r.compile.ms / 1000).toFixed(1)} s`}${r.compile.registers !== undefined ? `, ${r.compile.registers} registers` : ""}${r.compile.spillBytes ? `, ${r.compile.spillBytes} B spills` : ""}`,
    ],
    [
      "timing",
      `${r.timing.flushL2 ? "cold L2" : "warm L2"}, RSD target ${r.timing.targetRsdPct}%, ≥${r.timing.minSamples} samples, budget ${r.timing.budgetMs} ms`,
    ],
    ["started", r.startedAt],
  ];
  if (r.baseline) facts.splice(1, 0, ["baseline", r.baseline]);
  const dl = el("dl");
  for (const [k, v] of facts) dl.append(el("dt", k), el("dd", v));
  box.append(dl);
  if (r.pendingSizes) {
    const n = r.points.length;
    box.append(
      el(
        "p",
        `running: ${n} of ${n + r.pendingSizes} sizes done, the rest fill in as they finish`,
        "pending",
      ),
    );
    return box;
  }
  const verdict = r.ok
    ? "all sizes ran; outputs match"
    : "some sizes failed or outputs differ (see the table)";
  box.append(el("p", verdict, r.ok ? "ok" : "bad"));
  return box;
}

function checkText(p: PointResult): string {
  if (p.error) return `${p.error.code}${p.error.call ? ` in ${p.error.call}` : ""}`;
  if (p.skipped) return "skipped";
  if (p.checks.length === 0) return "–";
  const bad = p.checks.filter((c) => !c.pass);
  if (bad.length === 0) return "ok";
  return bad
    .map((c) => `${c.arg}: ${c.mismatched} differ, ${c.unwritten} unwritten, max abs ${c.maxAbsError ?? "–"}`)
    .join("; ");
}

function table(r: BenchRunResults): HTMLElement {
  const t = el("table");
  const head = ["size", "median", "min", "max", "RSD", "samples", "GB/s", "% peak", "TFLOP/s"];
  if (r.baseline) head.push("baseline", "speedup");
  head.push("check");
  const tr = el("tr");
  for (const h of head) tr.append(el("th", h));
  t.append(el("thead"));
  t.tHead!.append(tr);
  const body = el("tbody");
  for (const p of r.points) {
    const row = el("tr");
    const k = p.kernel;
    const cells = [
      p.label,
      formatNs(k?.medianNs),
      formatNs(k?.minNs),
      formatNs(k?.maxNs),
      fixed(k?.rsdPct, 2, "%"),
      k ? `${k.samples} (${k.stoppedBy})` : "–",
      fixed(p.gbPerSec, 0),
      fixed(p.pctPeakBandwidth, 1, "%"),
      fixed(p.tflops, 2),
    ];
    if (r.baseline) cells.push(formatNs(p.baseline?.medianNs), fixed(p.speedup, 2, "×"));
    cells.push(checkText(p));
    cells.forEach((c, i) =>
      row.append(
        el("td", c, i === cells.length - 1 && (p.error || p.checks.some((x) => !x.pass)) ? "bad" : undefined),
      ),
    );
    body.append(row);
    if (p.error) {
      const er = el("tr");
      const td = el("td", p.error.message, "bad");
      td.colSpan = head.length;
      er.append(td);
      body.append(er);
    }
  }
  t.append(body);
  return t;
}

function chartConfig(spec: ChartSpec): ChartConfiguration {
  const fg = themeColor("--vscode-foreground", "#cccccc");
  const grid = themeColor("--vscode-editorWidget-border", "#454545");
  const datasets: ChartDataset[] = spec.series.map((s, i) => {
    const [name, fallback] = PALETTE[i % PALETTE.length]!;
    const color = themeColor(name, fallback);
    return spec.kind === "line"
      ? {
          type: "line",
          label: s.label,
          data: s.values,
          borderColor: color,
          backgroundColor: color,
          spanGaps: true,
          tension: 0,
        }
      : { type: "bar", label: s.label, data: s.values, backgroundColor: color };
  });
  if (spec.reference !== undefined)
    datasets.push({
      type: "line",
      label: `${spec.reference}${spec.unit === "%" ? "%" : spec.unit}`,
      data: spec.labels.map(() => spec.reference!),
      borderColor: fg,
      borderDash: [4, 4],
      pointRadius: 0,
      borderWidth: 1,
    });
  return {
    type: spec.kind,
    data: { labels: spec.labels, datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      color: fg,
      scales: {
        x: { ticks: { color: fg }, grid: { color: grid } },
        y: {
          beginAtZero: true,
          ticks: { color: fg },
          grid: { color: grid },
          title: { display: true, text: spec.unit, color: fg },
        },
      },
      plugins: { legend: { labels: { color: fg } } },
    },
  };
}

function render(msg: HostMessage): void {
  for (const c of charts) c.destroy();
  charts = [];
  const root = document.getElementById("root")!;
  root.replaceChildren();
  if (msg.type === "error") {
    root.append(el("p", msg.message, "bad"));
    return;
  }
  const specs = chartsFor(msg.results, msg.history);
  root.append(summary(msg.results), table(msg.results));
  const grid = el("div", undefined, "charts");
  root.append(grid);
  for (const spec of specs) {
    const section = el("section", undefined, "chart");
    section.dataset.chart = spec.id;
    section.append(el("h2", spec.title));
    const holder = el("div", undefined, "canvas");
    const canvas = el("canvas");
    canvas.setAttribute("aria-label", spec.title);
    holder.append(canvas);
    section.append(holder);
    grid.append(section);
    charts.push(new Chart(canvas, chartConfig(spec)));
  }
  vscode.postMessage({ type: "rendered", charts: specs.map((s) => s.id) });
}

window.addEventListener("message", (e: MessageEvent<unknown>) => {
  // Only the host posts here; anything else (or malformed) is ignored.
  if (!isHostMessage(e.data)) return;
  try {
    render(e.data);
  } catch (err) {
    vscode.postMessage({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  }
});

vscode.postMessage({ type: "ready" });
