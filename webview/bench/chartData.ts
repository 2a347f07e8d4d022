// What each chart of the benchmark panel shows, computed from the results without the DOM (tested
// under node): labels, series and units. main.ts turns these into chart.js charts.
import type { BenchRunResults, HistoryEntry } from "../../server/bench/results";

export interface Series {
  label: string;
  /** null where the size has no value (failed, skipped, no baseline). */
  values: (number | null)[];
}

export interface ChartSpec {
  id: "time" | "speedup" | "bandwidth" | "tflops" | "history";
  title: string;
  kind: "bar" | "line";
  unit: string;
  labels: string[];
  series: Series[];
  /** A horizontal reference line (1x speedup, 100% of peak). */
  reference?: number;
}

/** Microseconds: the unit kernel developers read times in. */
const us = (ns: number | undefined): number | null => (ns === undefined ? null : ns / 1e3);

export function chartsFor(r: BenchRunResults, history: HistoryEntry[]): ChartSpec[] {
  const labels = r.points.map((p) => p.label);
  const charts: ChartSpec[] = [];
  const time: Series[] = [{ label: r.instance, values: r.points.map((p) => us(p.kernel?.medianNs)) }];
  if (r.baseline)
    time.push({ label: `${r.baseline} (baseline)`, values: r.points.map((p) => us(p.baseline?.medianNs)) });
  charts.push({ id: "time", title: "Median time per size", kind: "bar", unit: "µs", labels, series: time });

  if (r.baseline && r.points.some((p) => p.speedup !== undefined))
    charts.push({
      id: "speedup",
      title: `Speedup over ${r.baseline}`,
      kind: "bar",
      unit: "×",
      labels,
      series: [{ label: "speedup", values: r.points.map((p) => p.speedup ?? null) }],
      reference: 1,
    });

  if (r.points.some((p) => p.pctPeakBandwidth !== undefined)) {
    const bw: Series[] = [{ label: r.instance, values: r.points.map((p) => p.pctPeakBandwidth ?? null) }];
    const peak = r.env.device.peakDramBandwidthGBs;
    if (r.baseline && r.points.some((p) => p.baselineGbPerSec !== undefined))
      bw.push({
        label: `${r.baseline} (baseline)`,
        values: r.points.map((p) =>
          p.baselineGbPerSec !== undefined && peak > 0 ? (p.baselineGbPerSec / peak) * 100 : null,
        ),
      });
    charts.push({
      id: "bandwidth",
      title: `% of peak DRAM bandwidth (${peak.toFixed(0)} GB/s)`,
      kind: "bar",
      unit: "%",
      labels,
      series: bw,
      reference: 100,
    });
  }

  if (r.points.some((p) => p.tflops !== undefined))
    charts.push({
      id: "tflops",
      title: "TFLOP/s",
      kind: "bar",
      unit: "TFLOP/s",
      labels,
      series: [{ label: r.instance, values: r.points.map((p) => p.tflops ?? null) }],
    });

  const runs = history.filter((h) => h.file === r.file && h.kernel === r.kernel);
  if (runs.length > 0) {
    // One line per size across runs; sizes a run did not have are gaps.
    const sizes = [...new Set(runs.flatMap((h) => h.points.map((p) => p.label)))];
    charts.push({
      id: "history",
      title: `History of ${r.kernel} (${runs.length} run${runs.length === 1 ? "" : "s"})`,
      kind: "line",
      unit: "µs",
      labels: runs.map((h) => runLabel(h)),
      series: sizes.map((s) => ({
        label: s,
        values: runs.map((h) => us(h.points.find((p) => p.label === s)?.medianNs)),
      })),
    });
  }
  return charts;
}

/** "11-22 04:01 3f2a1c9" : when, and which commit (with + for uncommitted changes). */
export function runLabel(h: HistoryEntry): string {
  const t = h.time.slice(5, 16).replace("T", " ");
  const commit = h.gitCommit ? ` ${h.gitCommit.slice(0, 7)}${h.gitCommit.endsWith("+dirty") ? "+" : ""}` : "";
  return `${t}${commit}`;
}
