// Two Nsight Compute launches side by side in the profile panel: their key metrics in one chart and
// every metric's delta, largest change first.
import type { MetricDelta, ProfileView } from "../../server/profile/profileView";
import { el } from "../shared/dom";
import { chartBox, color, hbar } from "./chartBox";
import { formatValue, time } from "./format";
import type { HostMessage } from "./protocol";

const keyMetrics = (v: ProfileView): (number | null)[] => [
  v.speedOfLight.computePct,
  v.speedOfLight.memoryPct,
  v.occupancy.achievedPct,
  v.memory.l1HitRatePct,
  v.memory.l2HitRatePct,
];

function deltasTable(deltas: MetricDelta[]): HTMLElement {
  const t = el("table", undefined, "deltas");
  const head = el("tr");
  for (const h of ["Section", "Metric", "A", "B", "Δ", "Δ %"]) head.append(el("th", h));
  t.append(head);
  const sorted = [...deltas].sort((x, y) => Math.abs(y.deltaPct ?? 0) - Math.abs(x.deltaPct ?? 0));
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
  return t;
}

export function renderCompare(root: HTMLElement, msg: Extract<HostMessage, { type: "compare" }>): void {
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
      el("p", `Duration ${time(side.view.durationNs)}`),
    );
    heads.append(box);
  }
  root.append(heads);
  const grid = el("div", undefined, "charts");
  root.append(grid);
  chartBox(
    grid,
    "compare-key-metrics",
    "Key metrics (%)",
    hbar(
      ["Compute (SM)", "Memory", "Achieved occupancy", "L1 hit", "L2 hit"],
      [
        { label: "A", data: keyMetrics(msg.a.view), color: color.blue() },
        { label: "B", data: keyMetrics(msg.b.view), color: color.orange() },
      ],
      100,
    ),
  );
  root.append(
    el("h2", `Per-metric deltas (${msg.deltas.length}, largest change first)`),
    deltasTable(msg.deltas),
  );
}
