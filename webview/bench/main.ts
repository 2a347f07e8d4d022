// The benchmark results panel: a summary, a table per size and chart.js charts (time, speedup, % of
// peak bandwidth, TFLOP/s, history). Every string from the results goes in as text (textContent),
// never as markup.
import type { ChartConfiguration, ChartDataset } from "chart.js";
import type { BenchRunResults, PointResult } from "../../server/bench/results";
import { formatNs } from "../../server/util/formatNs";
import { addChart } from "../shared/charts";
import { dl, el, themeColor } from "../shared/dom";
import { listen, redraw } from "../shared/host";
import { chartsFor, type ChartSpec } from "./chartData";
import { type HostMessage, isHostMessage } from "./protocol";

const time = (ns: number | undefined): string => (ns === undefined ? "–" : formatNs(ns));

const fixed = (v: number | undefined, digits: number, suffix = ""): string =>
  v === undefined ? "–" : `${v.toFixed(digits)}${suffix}`;

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
  box.append(dl(facts));
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
      time(k?.medianNs),
      time(k?.minNs),
      time(k?.maxNs),
      fixed(k?.rsdPct, 2, "%"),
      // blocked: false, the blocking kernel could not hold the stream: launch latency is in the times.
      k ? `${k.samples} (${k.stoppedBy}${k.blocked === false ? ", launch latency included" : ""})` : "–",
      fixed(p.gbPerSec, 0),
      fixed(p.pctPeakBandwidth, 1, "%"),
      fixed(p.tflops, 2),
    ];
    if (r.baseline) cells.push(time(p.baseline?.medianNs), fixed(p.speedup, 2, "×"));
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

function render(root: HTMLElement, msg: HostMessage): void {
  if (msg.type === "error") {
    root.append(el("p", msg.message, "bad"));
    return;
  }
  root.append(summary(msg.results), table(msg.results));
  const grid = el("div", undefined, "charts");
  root.append(grid);
  for (const spec of chartsFor(msg.results, msg.history)) {
    const section = el("section", undefined, "chart");
    section.dataset.chart = spec.id;
    section.append(el("h2", spec.title));
    const holder = el("div", undefined, "canvas");
    const canvas = el("canvas");
    canvas.setAttribute("aria-label", spec.title);
    holder.append(canvas);
    section.append(holder);
    grid.append(section);
    addChart(spec.id, canvas, chartConfig(spec));
  }
}

listen(isHostMessage, (msg) => redraw((root) => render(root, msg)));
