// What only the raw page holds: warp-stall reasons, roofline inputs and device attributes. The
// details page summarises these as charts the CSV export does not contain.
import type { NcuRawLaunch } from "./ncuCsv";

export interface StallReason {
  /** ncu's reason name, e.g. "long_scoreboard". */
  reason: string;
  /** Average warp cycles per issued instruction spent in this state (or PC samples, see `kind`). */
  value: number;
}

export interface Stalls {
  kind: "cycles per issued instruction" | "samples";
  reasons: StallReason[];
}

export interface RooflinePoint {
  precision: "fp32" | "fp64" | "fp16";
  achievedFlops: number;
  peakFlops: number;
  dramBytesPerS: number;
  peakDramBytesPerS: number;
  /** FLOP per DRAM byte. */
  arithmeticIntensity: number;
}

function num(l: NcuRawLaunch, name: string): number | undefined {
  const v = l.metrics.get(name)?.value;
  return typeof v === "number" ? v : undefined;
}

export function stallReasons(l: NcuRawLaunch): Stalls | null {
  const collect = (re: RegExp, skip?: RegExp): StallReason[] => {
    const out: StallReason[] = [];
    for (const [name, m] of l.metrics) {
      const match = re.exec(name);
      if (match && !(skip && skip.test(name)) && typeof m.value === "number")
        out.push({ reason: match[1]!, value: m.value });
    }
    return out.sort((a, b) => b.value - a.value);
  };
  const ratio = collect(/^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$/);
  if (ratio.length > 0) return { kind: "cycles per issued instruction", reasons: ratio };
  const samples = collect(/^smsp__pcsamp_warps_issue_stalled_(\w+)$/, /_not_issued$/);
  if (samples.length > 0) return { kind: "samples", reasons: samples };
  return null;
}

/**
 * FLOPs per thread instruction, as ncu's roofline counts them (its derived__*_x2 / _x4 metrics): an
 * FMA is two operations; a half-precision instruction works on a pair, so its add and mul count two
 * and its FMA four.
 */
const FLOP_OPS: Record<RooflinePoint["precision"], { ops: [string, number][]; peak: [string, number] }> = {
  fp32: {
    ops: [
      ["fadd", 1],
      ["fmul", 1],
      ["ffma", 2],
    ],
    peak: ["ffma", 2],
  },
  fp64: {
    ops: [
      ["dadd", 1],
      ["dmul", 1],
      ["dfma", 2],
    ],
    peak: ["dfma", 2],
  },
  fp16: {
    ops: [
      ["hadd", 2],
      ["hmul", 2],
      ["hfma", 4],
    ],
    peak: ["hfma", 4],
  },
};

/**
 * The roofline the way ncu's SpeedOfLight_RooflineChart computes it: achieved FLOP/s from the SASS
 * add/mul/fma thread-instruction rates per elapsed cycle times the SMSP clock, peak from the FMA
 * peak rate times the SM clock; DRAM bytes per second against the DRAM peak. Null when the report
 * was collected without the roofline metrics (e.g. --set basic).
 */
export function roofline(l: NcuRawLaunch): RooflinePoint[] | null {
  const smspHz = num(l, "smsp__cycles_elapsed.avg.per_second");
  const smHz = num(l, "sm__cycles_elapsed.avg.per_second");
  const dramBps = num(l, "dram__bytes.sum.per_second");
  const dramPeakPerCycle = num(l, "dram__bytes.sum.peak_sustained");
  const dramHz = num(l, "dram__cycles_elapsed.avg.per_second");
  if (
    smspHz === undefined ||
    smHz === undefined ||
    dramBps === undefined ||
    dramPeakPerCycle === undefined ||
    dramHz === undefined
  )
    return null;
  const points: RooflinePoint[] = [];
  for (const [precision, spec] of Object.entries(FLOP_OPS) as [
    RooflinePoint["precision"],
    (typeof FLOP_OPS)["fp32"],
  ][]) {
    const rates = spec.ops.map(([op, f]) => {
      const r = num(l, `smsp__sass_thread_inst_executed_op_${op}_pred_on.sum.per_cycle_elapsed`);
      return r === undefined ? undefined : r * f;
    });
    const peak = num(l, `sm__sass_thread_inst_executed_op_${spec.peak[0]}_pred_on.sum.peak_sustained`);
    if (rates.some((r) => r === undefined) || peak === undefined) continue;
    const achievedFlops = (rates as number[]).reduce((a, b) => a + b, 0) * smspHz;
    points.push({
      precision,
      achievedFlops,
      peakFlops: spec.peak[1] * peak * smHz,
      dramBytesPerS: dramBps,
      peakDramBytesPerS: dramPeakPerCycle * dramHz,
      arithmeticIntensity: dramBps > 0 ? achievedFlops / dramBps : 0,
    });
  }
  return points.length > 0 ? points : null;
}

export interface RawDeviceInfo {
  name?: string;
  maxSmClockHz?: number;
  maxMemClockHz?: number;
  smCount?: number;
}

export function rawDevice(l: NcuRawLaunch): RawDeviceInfo {
  const name = l.metrics.get("device__attribute_display_name")?.value;
  const khz = (n: string): number | undefined => {
    const v = num(l, n);
    return v === undefined ? undefined : v * 1e3;
  };
  const out: RawDeviceInfo = {};
  if (typeof name === "string") out.name = name;
  const sm = khz("device__attribute_max_gpu_frequency_khz") ?? khz("device__attribute_clock_rate");
  if (sm !== undefined) out.maxSmClockHz = sm;
  const mem = khz("device__attribute_max_mem_frequency_khz") ?? khz("device__attribute_memory_clock_rate");
  if (mem !== undefined) out.maxMemClockHz = mem;
  const sms = num(l, "device__attribute_multiprocessor_count");
  if (sms !== undefined) out.smCount = sms;
  return out;
}
