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
  const torch = r.torch && !r.torch.unavailable;
  if (torch) time.push({ label: "PyTorch", values: r.points.map((p) => us(p.torch?.eager?.medianNs)) });
  if (torch && r.torch!.compile)
    time.push({ label: "torch.compile", values: r.points.map((p) => us(p.torch?.compiled?.medianNs)) });
  charts.push({ id: "time", title: "Median time per size", kind: "bar", unit: "µs", labels, series: time });

  const speedups: Series[] = [];
  if (r.baseline && r.points.some((p) => p.speedup !== undefined))
    speedups.push({ label: `over ${r.baseline}`, values: r.points.map((p) => p.speedup ?? null) });
  if (r.points.some((p) => p.torch?.speedup !== undefined))
    speedups.push({ label: "over PyTorch", values: r.points.map((p) => p.torch?.speedup ?? null) });
  if (r.points.some((p) => p.torch?.compiledSpeedup !== undefined))
    speedups.push({
      label: "over torch.compile",
      values: r.points.map((p) => p.torch?.compiledSpeedup ?? null),
    });
  if (speedups.length > 0)
    charts.push({
      id: "speedup",
      title: r.baseline ? `Speedup over ${r.baseline}${torch ? " and PyTorch" : ""}` : "Speedup over PyTorch",
      kind: "bar",
      unit: "×",
      labels,
      series: speedups,
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
      series: sizes.flatMap((s) => {
        const at = (h: HistoryEntry) => h.points.find((p) => p.label === s);
        const own = { label: s, values: runs.map((h) => us(at(h)?.medianNs)) };
        // PyTorch's time beside the kernel's, where runs recorded it.
        if (!runs.some((h) => at(h)?.torchMedianNs !== undefined)) return [own];
        return [own, { label: `${s} (PyTorch)`, values: runs.map((h) => us(at(h)?.torchMedianNs)) }];
      }),
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
