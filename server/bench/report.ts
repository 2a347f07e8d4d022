// Figures derived from a median (GB/s, % of peak DRAM bandwidth, TFLOP/s, speedup), the history
// summary of a run, and the CLI's text table.
import type { SampleStats } from "../../native/runner/protocol";
import { formatNs } from "../util/formatNs";
import type { BenchRunResults, HistoryEntry, PointResult } from "./results";

export interface Derived {
  gbPerSec?: number;
  pctPeakBandwidth?: number;
  tflops?: number;
}

/** bytes / ns is GB/s; flops / ns is GFLOP/s. Nothing is derived from a missing or zero median. */
export function derive(
  stats: SampleStats | undefined,
  bytes: number | undefined,
  flops: number | undefined,
  peakGBs: number,
): Derived {
  if (!stats || !(stats.medianNs > 0)) return {};
  const out: Derived = {};
  if (bytes !== undefined) {
    out.gbPerSec = bytes / stats.medianNs;
    if (peakGBs > 0) out.pctPeakBandwidth = (out.gbPerSec / peakGBs) * 100;
  }
  if (flops !== undefined) out.tflops = flops / stats.medianNs / 1e3;
  return out;
}

export function speedup(
  kernel: SampleStats | undefined,
  baseline: SampleStats | undefined,
): number | undefined {
  if (!kernel || !baseline || !(kernel.medianNs > 0) || !(baseline.medianNs > 0)) return undefined;
  return baseline.medianNs / kernel.medianNs;
}

/** A size passes when it ran, its outputs match the baseline's, and torch's when torch ran (without error). */
export function pointPassed(p: PointResult): boolean {
  const torchOk = !p.torch || (!p.torch.error && p.torch.checks.every((c) => c.pass));
  return !p.error && !p.skipped && p.checks.every((c) => c.pass) && torchOk;
}

export function historyEntry(r: BenchRunResults): HistoryEntry {
  return {
    schema: r.schema,
    time: r.startedAt,
    file: r.file,
    kernel: r.kernel,
    instance: r.instance,
    ...(r.baseline ? { baseline: r.baseline } : {}),
    ...(r.env.gitCommit ? { gitCommit: r.env.gitCommit } : {}),
    gpu: r.env.device.name,
    computeCapability: r.env.device.computeCapability,
    driverVersion: r.env.driverVersion,
    smClockKHz: r.env.device.clockRateKHz,
    memClockKHz: r.env.device.memoryClockKHz,
    points: r.points.map((p) => ({
      label: p.label,
      ...(p.kernel ? { medianNs: p.kernel.medianNs } : {}),
      ...(p.baseline ? { baselineMedianNs: p.baseline.medianNs } : {}),
      ...(p.gbPerSec !== undefined ? { gbPerSec: p.gbPerSec } : {}),
      ...(p.pctPeakBandwidth !== undefined ? { pctPeakBandwidth: p.pctPeakBandwidth } : {}),
      ...(p.tflops !== undefined ? { tflops: p.tflops } : {}),
      ...(p.speedup !== undefined ? { speedup: p.speedup } : {}),
      ...(p.torch?.eager ? { torchMedianNs: p.torch.eager.medianNs } : {}),
      ...(p.torch?.compiled ? { torchCompiledMedianNs: p.torch.compiled.medianNs } : {}),
      pass: pointPassed(p),
      ...(p.error ? { error: `${p.error.code}: ${p.error.message}` } : p.skipped ? { error: "skipped" } : {}),
    })),
  };
}

/** Timed without the blocking kernel (it could not hold the stream), so launch latency is in the times. */
const unblocked = (p: PointResult): boolean => p.kernel?.blocked === false || p.baseline?.blocked === false;

/** One size's result in a line, as the CLI prints it while a sweep runs. */
export function pointLine(p: PointResult | undefined): string {
  if (!p) return "-";
  if (p.error) return p.error.code;
  if (!p.kernel) return "skipped";
  const parts = [formatNs(p.kernel.medianNs)];
  if (p.pctPeakBandwidth !== undefined) parts.push(`${p.pctPeakBandwidth.toFixed(1)}% of peak`);
  if (p.speedup !== undefined) parts.push(`${p.speedup.toFixed(2)}x the baseline`);
  if (p.torch?.speedup !== undefined) parts.push(`${p.torch.speedup.toFixed(2)}x torch`);
  if (p.checks.some((c) => !c.pass) || p.torch?.checks.some((c) => !c.pass)) parts.push("outputs differ");
  if (p.torch?.error) parts.push("torch failed");
  if (unblocked(p)) parts.push("launch latency included");
  return parts.join(", ");
}

/** A size's torch figures, as the CLI prints them when they arrive (after the kernel's sizes). */
export function torchPointLine(p: PointResult | undefined): string {
  const t = p?.torch;
  if (!t) return "-";
  if (t.error) return `torch failed: ${t.error}`;
  const parts = t.eager ? [`torch ${formatNs(t.eager.medianNs)}`] : [];
  if (t.speedup !== undefined) parts.push(`${t.speedup.toFixed(2)}x torch`);
  if (t.compiled) parts.push(`compiled ${formatNs(t.compiled.medianNs)}`);
  if (t.compileError) parts.push("torch.compile failed");
  if (t.checks.some((c) => !c.pass)) parts.push("outputs differ");
  return parts.join(", ");
}

/** The CLI's table: one row per size. */
export function formatTable(r: BenchRunResults): string {
  const head = ["size", "median", "min", "RSD", "samples", "GB/s", "% peak", "TFLOP/s"];
  if (r.baseline) head.push("baseline", "speedup");
  const torch = r.torch && !r.torch.unavailable ? r.torch : undefined;
  if (torch)
    head.push("torch", "vs torch", ...(torch.compile ? ["compiled", "vs compiled"] : []), "torch err");
  head.push("check");
  const rows = r.points.map((p) => {
    const k = p.kernel;
    const cells = [
      p.label,
      k ? formatNs(k.medianNs) : "-",
      k ? formatNs(k.minNs) : "-",
      k ? `${k.rsdPct.toFixed(2)}%` : "-",
      k ? String(k.samples) : "-",
      p.gbPerSec !== undefined ? p.gbPerSec.toFixed(0) : "-",
      p.pctPeakBandwidth !== undefined ? `${p.pctPeakBandwidth.toFixed(1)}%` : "-",
      p.tflops !== undefined ? p.tflops.toFixed(2) : "-",
    ];
    if (r.baseline)
      cells.push(
        p.baseline ? formatNs(p.baseline.medianNs) : "-",
        p.speedup !== undefined ? `${p.speedup.toFixed(2)}x` : "-",
      );
    if (torch) cells.push(...torchCells(p, torch.compile));
    const failed = [
      ...p.checks.filter((c) => !c.pass).map((c) => c.arg),
      ...(p.torch?.checks ?? []).filter((c) => !c.pass).map((c) => `${c.arg} vs torch`),
    ];
    cells.push(
      p.error
        ? p.error.code
        : p.skipped
          ? "skipped"
          : failed.length > 0
            ? `FAIL ${failed.join(",")}`
            : p.checks.length + (p.torch?.checks.length ?? 0) > 0
              ? "ok"
              : "-",
    );
    return cells;
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  const title = `${r.instance} on ${r.env.device.name} (sm_${r.env.device.computeCapability.replace(".", "")}, peak ${r.env.device.peakDramBandwidthGBs.toFixed(0)} GB/s)${r.compile.cached ? ", cached cubin" : ""}`;
  const errors = r.points
    .filter((p) => p.error)
    .map(
      (p) =>
        `${p.label}: ${p.error!.code}${p.error!.call ? ` in ${p.error!.call}` : ""}: ${p.error!.message}`,
    );
  const notes = r.points
    .filter(unblocked)
    .map(
      (p) =>
        `${p.label}: timed without the blocking kernel (it timed out or could not load), launch latency included`,
    );
  const timing = r.timingNote ? [r.timingNote] : [];
  return [title, line(head), ...rows.map(line), ...errors, ...notes, ...timing, ...torchNotes(r)].join("\n");
}

const times = (x: number | undefined): string => (x !== undefined ? `${x.toFixed(2)}x` : "-");

/** torch's median and the kernel's speedup over it (and over torch.compile), and the largest error. */
function torchCells(p: PointResult, compile: boolean): string[] {
  const t = p.torch;
  const cells = [t?.eager ? formatNs(t.eager.medianNs) : t?.error ? "error" : "-", times(t?.speedup)];
  if (compile) cells.push(t?.compiled ? formatNs(t.compiled.medianNs) : "-", times(t?.compiledSpeedup));
  const errs = (t?.checks ?? []).map((c) => c.maxAbsErr);
  cells.push(
    errs.length === 0
      ? "-"
      : errs.some((e) => e == null)
        ? "NaN"
        : Math.max(...(errs as number[])).toPrecision(2),
  );
  return cells;
}

/** One line each: why torch did not run, an expression that raised, a torch.compile that failed. */
function torchNotes(r: BenchRunResults): string[] {
  if (!r.torch) return [];
  if (r.torch.unavailable) return [`PyTorch baseline not run: ${r.torch.unavailable}`];
  const notes = new Set<string>();
  for (const p of r.points) {
    if (p.torch?.error) notes.add(p.torch.error);
    if (p.torch?.compileError) notes.add(`torch.compile failed: ${p.torch.compileError}`);
    for (const c of p.torch?.checks ?? []) if (c.message) notes.add(`${p.label}: ${c.message}`);
  }
  return [...notes];
}
