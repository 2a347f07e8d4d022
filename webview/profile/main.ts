// The profile panel: an Nsight Compute launch (header, duration, speed of light, memory, occupancy,
// roofline, warp stalls, rule findings), two launches compared, or Nsight Systems summaries. Every
// string from a report goes in as text (textContent), never as markup: kernel names such as
// `k<float, 4>` or `<img src=x onerror=...>` are shown as typed.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
} from "chart.js";
import type { NsysStats } from "../../server/profile/nsysCsv";
import type { MetricDelta, ProfileView } from "../../server/profile/profileView";
import { type HostMessage, isHostMessage, type PanelMessage } from "./protocol";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LogarithmicScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Legend,
  Tooltip,
);

declare function acquireVsCodeApi(): { postMessage(msg: PanelMessage): void };
const vscode = acquireVsCodeApi();

let charts: Chart[] = [];
let drawn: string[] = [];

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

export function formatNs(ns: number | null): string {
  if (ns === null) return "n/a";
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

const pct = (v: number | null): string => (v === null ? "n/a" : `${v.toFixed(1)} %`);
const dim = (d: [number, number, number] | null): string => (d ? `(${d.join(", ")})` : "n/a");

function si(v: number | null, unit: string): string {
  if (v === null) return "n/a";
  const prefixes: [number, string][] = [
    [1e12, "T"],
    [1e9, "G"],
    [1e6, "M"],
    [1e3, "K"],
  ];
  for (const [f, p] of prefixes) if (Math.abs(v) >= f) return `${(v / f).toFixed(2)} ${p}${unit}`;
  return `${v.toFixed(2)} ${unit}`;
}

function formatValue(value: number | string | null, unit: string): string {
  if (value === null) return "n/a";
  if (typeof value === "string") return value;
  if (unit === "ns") return formatNs(value);
  if (unit === "%") return `${value.toFixed(2)} %`;
  if (unit === "byte" || unit === "byte/s" || unit === "Hz")
    return si(value, unit === "Hz" ? "Hz" : unit === "byte" ? "B" : "B/s");
  return `${Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(2)}${unit ? ` ${unit}` : ""}`;
}

function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

const color = {
  blue: (): string => themeColor("--vscode-charts-blue", "#3794ff"),
  orange: (): string => themeColor("--vscode-charts-orange", "#d18616"),
  green: (): string => themeColor("--vscode-charts-green", "#89d185"),
  purple: (): string => themeColor("--vscode-charts-purple", "#b180d7"),
  red: (): string => themeColor("--vscode-charts-red", "#f14c4c"),
  fg: (): string => themeColor("--vscode-foreground", "#ccc"),
};

function chartBox(
  parent: HTMLElement,
  id: string,
  title: string,
  config: ChartConfiguration,
  height = 220,
): void {
  const box = el("div", undefined, "chart");
  box.dataset["chart"] = id;
  box.append(el("h3", title));
  const holder = el("div", undefined, "canvas");
  holder.style.height = `${height}px`;
  const canvas = el("canvas");
  holder.append(canvas);
  box.append(holder);
  parent.append(box);
  Chart.defaults.color = color.fg();
  charts.push(new Chart(canvas, config));
  drawn.push(id);
}

function hbar(
  labels: string[],
  datasets: { label: string; data: (number | null)[]; color: string }[],
  max?: number,
): ChartConfiguration {
  return {
    type: "bar",
    data: {
      labels,
      datasets: datasets.map((d) => ({ label: d.label, data: d.data, backgroundColor: d.color })),
    },
    options: {
      indexAxis: "y",
      animation: false,
      maintainAspectRatio: false,
      scales: { x: { beginAtZero: true, ...(max !== undefined ? { max } : {}) } },
      plugins: { legend: { display: datasets.length > 1 } },
    },
  };
}

function dl(rows: [string, string][]): HTMLElement {
  const list = el("dl");
  for (const [k, v] of rows) list.append(el("dt", k), el("dd", v));
  return list;
}

function section(root: HTMLElement, title: string, id: string): HTMLElement {
  const s = el("section");
  s.id = id;
  s.append(el("h2", title));
  root.append(s);
  return s;
}

function header(v: ProfileView): HTMLElement {
  const h = v.header;
  const smem = [h.staticSharedBytes, h.dynamicSharedBytes, h.driverSharedBytes].map((b) =>
    b === null ? "?" : `${b}`,
  );
  return dl([
    ["Grid", dim(h.grid)],
    ["Block", dim(h.block)],
    ["Registers / thread", h.registersPerThread === null ? "n/a" : String(h.registersPerThread)],
    ["Shared memory / block", `${smem[0]} B static, ${smem[1]} B dynamic, ${smem[2]} B driver`],
    [
      "Device",
      `${h.device ?? "n/a"}${h.cc ? ` (CC ${h.cc})` : ""}${h.smCount !== null ? `, ${h.smCount} SMs` : ""}`,
    ],
    ["Clocks", `SM ${si(h.smFrequencyHz, "Hz")}, DRAM ${si(h.dramFrequencyHz, "Hz")}`],
    ["Waves / SM", h.wavesPerSm === null ? "n/a" : h.wavesPerSm.toFixed(2)],
  ]);
}

function roofline(parent: HTMLElement, v: ProfileView): void {
  if (!v.roofline) return;
  const datasets: ChartConfiguration<"scatter">["data"]["datasets"] = [];
  const colors = [color.blue(), color.orange(), color.purple()];
  v.roofline.forEach((p, i) => {
    const ridge = p.peakFlops / p.peakDramBytesPerS;
    const lo = Math.min(p.arithmeticIntensity || 0.01, ridge) / 10;
    const hi = Math.max(p.arithmeticIntensity, ridge) * 10;
    datasets.push({
      label: `${p.precision} roof`,
      data: [
        { x: lo, y: lo * p.peakDramBytesPerS },
        { x: ridge, y: p.peakFlops },
        { x: hi, y: p.peakFlops },
      ],
      showLine: true,
      pointRadius: 0,
      borderColor: colors[i % colors.length],
      borderWidth: 1,
    });
    if (p.achievedFlops > 0)
      datasets.push({
        label: `${p.precision} achieved`,
        data: [{ x: p.arithmeticIntensity, y: p.achievedFlops }],
        pointRadius: 6,
        backgroundColor: colors[i % colors.length],
      });
  });
  chartBox(parent, "roofline", "Roofline (FLOP/s vs FLOP per DRAM byte)", {
    type: "scatter",
    data: { datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: {
        x: { type: "logarithmic", title: { display: true, text: "FLOP / byte" } },
        y: {
          type: "logarithmic",
          title: { display: true, text: "FLOP/s" },
          ticks: { callback: (v) => si(Number(v), "FLOP/s") },
        },
      },
    },
  });
}

function findings(parent: HTMLElement, v: ProfileView): void {
  const s = section(parent, `Findings (${v.findings.length})`, "findings");
  const list = el("ol", undefined, "findings");
  for (const f of v.findings) {
    const item = el("li", undefined, `finding ${f.type.toLowerCase()}`);
    const head = el("div", undefined, "finding-head");
    head.append(el("span", f.type, "badge"), el("strong", f.rule));
    head.append(
      el(
        "span",
        f.estimatedSpeedupPct === null ? "" : `est. speedup ${f.estimatedSpeedupPct.toFixed(1)} %`,
        "speedup",
      ),
    );
    item.append(head, el("p", f.description));
    list.append(item);
  }
  s.append(list);
}

function metricsTable(parent: HTMLElement, v: ProfileView): void {
  const d = el("details");
  d.append(el("summary", `All metrics (${v.metrics.length})`));
  const t = el("table");
  const tr = el("tr");
  tr.append(el("th", "Section"), el("th", "Metric"), el("th", "Value"));
  t.append(tr);
  for (const m of v.metrics) {
    const row = el("tr");
    row.append(el("td", m.section), el("td", m.name), el("td", formatValue(m.value, m.unit)));
    t.append(row);
  }
  d.append(t);
  parent.append(d);
}

function renderLaunch(root: HTMLElement, v: ProfileView): void {
  root.append(el("h1", v.kernel, "kernel"));
  root.append(header(v));
  const dur = el("p", undefined, "duration");
  dur.append(el("span", "Duration "), el("strong", formatNs(v.durationNs)));
  dur.id = "duration";
  root.append(dur);
  const grid = el("div", undefined, "charts");
  root.append(grid);
  const sol = v.speedOfLight;
  chartBox(
    grid,
    "speed-of-light",
    "Speed of light (% of peak)",
    hbar(
      ["Compute (SM)", "Memory", "DRAM", "L1/TEX", "L2"],
      [
        {
          label: "% of peak",
          data: [sol.computePct, sol.memoryPct, sol.dramPct, sol.l1Pct, sol.l2Pct],
          color: color.blue(),
        },
      ],
      100,
    ),
  );
  const m = v.memory;
  chartBox(
    grid,
    "cache-hit-rates",
    `Memory: DRAM ${si(m.dramBytesPerS, "B/s")}, busy ${pct(m.memBusyPct)}`,
    hbar(
      ["L1/TEX hit rate", "L2 hit rate", "Mem busy", "Max bandwidth"],
      [
        {
          label: "%",
          data: [m.l1HitRatePct, m.l2HitRatePct, m.memBusyPct, m.maxBandwidthPct],
          color: color.green(),
        },
      ],
      100,
    ),
  );
  const o = v.occupancy;
  const limiter = o.limiters.length > 0 ? `limited by ${o.limiters.join(" and ")}` : "";
  chartBox(
    grid,
    "occupancy",
    `Occupancy: achieved ${pct(o.achievedPct)} of theoretical ${pct(o.theoreticalPct)} ${limiter}`,
    hbar(
      ["Theoretical", "Achieved"],
      [{ label: "% of max warps", data: [o.theoreticalPct, o.achievedPct], color: color.purple() }],
      100,
    ),
    140,
  );
  if (o.limits.length > 0) {
    const t = el("table", undefined, "limits");
    const head = el("tr");
    head.append(el("th", "Block limit"), el("th", "Blocks / SM"));
    t.append(head);
    for (const l of o.limits) {
      const row = el("tr", undefined, o.limiters.includes(l.limit) ? "limiter" : undefined);
      row.append(el("td", l.limit), el("td", String(l.blocks)));
      t.append(row);
    }
    grid.append(t);
  }
  roofline(grid, v);
  if (v.stalls) {
    const top = v.stalls.reasons.filter((r) => r.value > 0).slice(0, 12);
    chartBox(
      grid,
      "warp-stalls",
      `Warp stall reasons (${v.stalls.kind})`,
      hbar(
        top.map((r) => r.reason),
        [{ label: v.stalls.kind, data: top.map((r) => r.value), color: color.orange() }],
      ),
      40 + 22 * top.length,
    );
  }
  findings(root, v);
  metricsTable(root, v);
}

function renderProfile(root: HTMLElement, msg: Extract<HostMessage, { type: "profile" }>): void {
  const bar = el("div", undefined, "toolbar");
  bar.append(el("span", msg.file, "file"));
  if (msg.launches.length > 1) {
    const select = el("select");
    select.id = "launch";
    msg.launches.forEach((l, i) => {
      const o = el(
        "option",
        `[${l.id}] ${l.kernel.length > 80 ? `${l.kernel.slice(0, 80)}…` : l.kernel} — ${formatNs(l.durationNs)}`,
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

function renderCompare(root: HTMLElement, msg: Extract<HostMessage, { type: "compare" }>): void {
  root.append(el("h1", "Profile comparison"));
  const heads = el("div", undefined, "compare-heads");
  for (const [label, side] of [
    ["A", msg.a],
    ["B", msg.b],
  ] as const) {
    const box = el("div");
    box.append(
      el("h2", `${label}: ${side.title}`),
      el("p", side.view.kernel, "kernel"),
      el("p", `Duration ${formatNs(side.view.durationNs)}`),
    );
    heads.append(box);
  }
  root.append(heads);
  const a = msg.a.view;
  const b = msg.b.view;
  const grid = el("div", undefined, "charts");
  root.append(grid);
  chartBox(
    grid,
    "compare-key-metrics",
    "Key metrics (%)",
    hbar(
      ["Compute (SM)", "Memory", "Achieved occupancy", "L1 hit", "L2 hit"],
      [
        {
          label: "A",
          data: [
            a.speedOfLight.computePct,
            a.speedOfLight.memoryPct,
            a.occupancy.achievedPct,
            a.memory.l1HitRatePct,
            a.memory.l2HitRatePct,
          ],
          color: color.blue(),
        },
        {
          label: "B",
          data: [
            b.speedOfLight.computePct,
            b.speedOfLight.memoryPct,
            b.occupancy.achievedPct,
            b.memory.l1HitRatePct,
            b.memory.l2HitRatePct,
          ],
          color: color.orange(),
        },
      ],
      100,
    ),
  );
  const t = el("table", undefined, "deltas");
  const head = el("tr");
  head.append(
    el("th", "Section"),
    el("th", "Metric"),
    el("th", "A"),
    el("th", "B"),
    el("th", "Δ"),
    el("th", "Δ %"),
  );
  t.append(head);
  const sorted: MetricDelta[] = [...msg.deltas].sort(
    (x, y) => Math.abs(y.deltaPct ?? 0) - Math.abs(x.deltaPct ?? 0),
  );
  for (const d of sorted) {
    const row = el("tr", undefined, d.delta === 0 ? "same" : undefined);
    row.append(
      el("td", d.section),
      el("td", d.name),
      el("td", formatValue(d.a, d.unit)),
      el("td", formatValue(d.b, d.unit)),
      el("td", formatValue(d.delta, d.unit)),
      el("td", d.deltaPct === null ? "n/a" : `${d.deltaPct > 0 ? "+" : ""}${d.deltaPct.toFixed(1)} %`),
    );
    t.append(row);
  }
  root.append(el("h2", `Per-metric deltas (${msg.deltas.length}, largest change first)`), t);
}

function nsysTable(
  title: string,
  rows: {
    name: string;
    timePct: number;
    totalNs: number;
    n: number;
    avgNs: number;
    minNs: number;
    maxNs: number;
  }[],
): HTMLElement {
  const s = el("section");
  s.append(el("h2", title));
  const t = el("table");
  const head = el("tr");
  for (const h of ["Name", "Time %", "Total", "Count", "Avg", "Min", "Max"]) head.append(el("th", h));
  t.append(head);
  for (const r of rows) {
    const row = el("tr");
    row.append(
      el("td", r.name),
      el("td", r.timePct.toFixed(1)),
      el("td", formatNs(r.totalNs)),
      el("td", String(r.n)),
      el("td", formatNs(r.avgNs)),
      el("td", formatNs(r.minNs)),
      el("td", formatNs(r.maxNs)),
    );
    t.append(row);
  }
  s.append(t);
  return s;
}

function renderNsys(root: HTMLElement, msg: { title: string; command: string; stats: NsysStats }): void {
  root.append(el("h1", msg.title), el("p", msg.command, "file"));
  for (const n of msg.stats.notes) root.append(el("p", n, "note"));
  const k = msg.stats.kernels ?? [];
  if (k.length > 0) {
    const grid = el("div", undefined, "charts");
    root.append(grid);
    const top = k.slice(0, 15);
    chartBox(
      grid,
      "nsys-kernels",
      "GPU time by kernel",
      hbar(
        top.map((r) => (r.name.length > 50 ? `${r.name.slice(0, 50)}…` : r.name)),
        [{ label: "total time (ns)", data: top.map((r) => r.totalNs), color: color.blue() }],
      ),
      40 + 24 * top.length,
    );
    root.append(
      nsysTable(
        "cuda_gpu_kern_sum",
        k.map((r) => ({ ...r, n: r.instances })),
      ),
    );
  }
  if (msg.stats.memory)
    root.append(
      nsysTable(
        "cuda_gpu_mem_time_sum",
        msg.stats.memory.map((r) => ({ ...r, name: r.operation, n: r.count })),
      ),
    );
}

function draw(msg: HostMessage): void {
  for (const c of charts) c.destroy();
  charts = [];
  drawn = [];
  const root = document.getElementById("root")!;
  root.replaceChildren();
  try {
    if (msg.type === "profile") renderProfile(root, msg);
    else if (msg.type === "compare") renderCompare(root, msg);
    else if (msg.type === "nsys") renderNsys(root, msg);
    else root.append(el("h1", msg.title), el("p", msg.message, "error"));
    vscode.postMessage({ type: "rendered", view: msg.type, charts: drawn });
  } catch (e) {
    root.append(
      el("p", `The panel failed to render: ${e instanceof Error ? e.message : String(e)}`, "error"),
    );
    vscode.postMessage({ type: "failed", message: e instanceof Error ? e.message : String(e) });
  }
}

window.addEventListener("message", (event: MessageEvent<unknown>) => {
  // Only well-formed host messages are drawn; anything else is dropped.
  if (isHostMessage(event.data)) draw(event.data);
});
vscode.postMessage({ type: "ready" });
