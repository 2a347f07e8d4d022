// One Nsight Compute launch in the profile panel: header, duration, speed of light, memory,
// occupancy and its block limits, roofline, warp stalls, rule findings and every metric.
import type { ChartConfiguration } from "chart.js";
import type { ProfileView } from "../../server/profile/profileView";
import { dl, el } from "../shared/dom";
import { chartBox, color, hbar } from "./chartBox";
import { dim, formatValue, pct, si, time } from "./format";

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

function speedOfLight(grid: HTMLElement, v: ProfileView): void {
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
}

function occupancy(grid: HTMLElement, v: ProfileView): void {
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
  if (o.limits.length === 0) return;
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

function warpStalls(grid: HTMLElement, v: ProfileView): void {
  if (!v.stalls) return;
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

function findings(parent: HTMLElement, v: ProfileView): void {
  const s = el("section");
  s.id = "findings";
  s.append(el("h2", `Findings (${v.findings.length})`));
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
  parent.append(s);
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

export function renderLaunch(root: HTMLElement, v: ProfileView): void {
  root.append(el("h1", v.kernel, "kernel"));
  root.append(header(v));
  const dur = el("p", undefined, "duration");
  dur.append(el("span", "Duration "), el("strong", time(v.durationNs)));
  dur.id = "duration";
  root.append(dur);
  const grid = el("div", undefined, "charts");
  root.append(grid);
  speedOfLight(grid, v);
  occupancy(grid, v);
  roofline(grid, v);
  warpStalls(grid, v);
  findings(root, v);
  metricsTable(root, v);
}
