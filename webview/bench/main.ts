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
      `${r.timing.flushL2 ? "cold L2" : "warm L2"}, RSD target ${r.timing.targetRsdPct}%, ≥${r.timing.minSamples} samples, budget ${r.timing.budgetMs} ms${r.timingNote ? `; ${r.timingNote}` : ""}`,
    ],
    ["started", r.startedAt],
  ];
  if (r.baseline) facts.splice(1, 0, ["baseline", r.baseline]);
  if (r.torch)
    facts.splice(r.baseline ? 2 : 1, 0, [
      "PyTorch",
      r.torch.unavailable
        ? `not run: ${r.torch.unavailable}`
        : `${r.torch.expr}${r.torch.compile ? " (and torch.compile)" : ""}${r.torch.torchVersion ? `, torch ${r.torch.torchVersion}` : ""}`,
    ]);
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
  const bad = p.checks
    .filter((c) => !c.pass)
    .map(
      (c) => `${c.arg}: ${c.mismatched} differ, ${c.unwritten} unwritten, max abs ${c.maxAbsError ?? "–"}`,
    );
  for (const c of p.torch?.checks ?? [])
    if (!c.pass) bad.push(`${c.arg} vs torch: ${c.mismatches} differ, max abs ${c.maxAbsErr ?? "NaN"}`);
  if (p.torch?.error) bad.push("torch failed");
  return bad.length === 0 ? "ok" : bad.join("; ");
}

/** torch's median, the kernel's speedup over it (and torch.compile's), the worst error and cosine. */
function torchCells(p: PointResult, compile: boolean): string[] {
  const t = p.torch;
  const cells = [time(t?.eager?.medianNs), fixed(t?.speedup, 2, "×")];
  if (compile) cells.push(time(t?.compiled?.medianNs), fixed(t?.compiledSpeedup, 2, "×"));
  const worst = (t?.checks ?? []).reduce<number | undefined>(
    (m, c) => (c.maxAbsErr == null ? m : Math.max(m ?? 0, c.maxAbsErr)),
    undefined,
  );
  const cos = (t?.checks ?? []).reduce<number | undefined>(
    (m, c) => (c.cosine == null ? m : Math.min(m ?? 1, c.cosine)),
    undefined,
  );
  cells.push(worst === undefined ? "–" : worst.toPrecision(2), fixed(cos, 6));
  return cells;
}

function pointFailed(p: PointResult): boolean {
  return !!p.error || !!p.torch?.error || [...p.checks, ...(p.torch?.checks ?? [])].some((x) => !x.pass);
}

function table(r: BenchRunResults): HTMLElement {
  const t = el("table");
  const head = ["size", "median", "min", "max", "RSD", "samples", "GB/s", "% peak", "TFLOP/s"];
  if (r.baseline) head.push("baseline", "speedup");
  const torch = r.torch && !r.torch.unavailable ? r.torch : undefined;
  if (torch)
    head.push(
      "PyTorch",
      "vs PyTorch",
      ...(torch.compile ? ["compiled", "vs compiled"] : []),
      "max abs err",
      "cosine",
    );
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
      // eventMedianNs: a calibrated run's raw median between the events (the median shown is less the offset).
      k
        ? `${k.samples} (${k.stoppedBy}${k.blocked === false ? ", launch latency included" : ""}${k.eventMedianNs !== undefined ? `, events ${time(k.eventMedianNs)}` : ""})`
        : "–",
      fixed(p.gbPerSec, 0),
      fixed(p.pctPeakBandwidth, 1, "%"),
      fixed(p.tflops, 2),
    ];
    if (r.baseline) cells.push(time(p.baseline?.medianNs), fixed(p.speedup, 2, "×"));
    if (torch) cells.push(...torchCells(p, torch.compile));
    cells.push(checkText(p));
    cells.forEach((c, i) =>
      row.append(el("td", c, i === cells.length - 1 && pointFailed(p) ? "bad" : undefined)),
    );
    body.append(row);
    for (const message of [
      p.error?.message,
      p.torch?.error,
      p.torch?.compileError && `torch.compile failed: ${p.torch.compileError}`,
    ]) {
      if (!message) continue;
      const er = el("tr");
      const td = el("td", message, "bad");
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
