// The per-launch summary of an ncu details export (`cuda-kernel-dev ncu summarize --json`), and
// the lookups it is built from. Metric names changed across ncu versions ("Memory [%]" became
// "Memory Throughput"), so each field lists the names it accepts, and each checks its unit: a
// duration in "%" means the export is damaged, and that is an error, not a number.
import {
  metricKey,
  NcuCsvError,
  streamNcuCsv,
  type CsvInput,
  type NcuDetailsLaunch,
  type NcuRuleResult,
} from "./ncuCsv";

export interface Finding {
  rule: string;
  type: string;
  estimatedSpeedupPct: number | null;
  description: string;
}

export interface KernelSummary {
  kernel: string;
  id: number;
  blockSize: [number, number, number] | null;
  gridSize: [number, number, number] | null;
  durationNs: number | null;
  memoryThroughputPct: number | null;
  computeThroughputPct: number | null;
  achievedOccupancyPct: number | null;
  theoreticalOccupancyPct: number | null;
  registersPerThread: number | null;
  findings: Finding[];
}

export interface MetricSpec {
  label: string;
  sections: readonly string[];
  names: readonly string[];
  /** Accepted base units ("" for unitless). */
  units: readonly string[];
}

const SOL = ["GPU Speed Of Light Throughput", "GPU Speed Of Light"];
const MWA = ["Memory Workload Analysis"];
const OCC = ["Occupancy"];
const LAUNCH = ["Launch Statistics"];

export const M = {
  duration: { label: "duration", sections: SOL, names: ["Duration"], units: ["ns"] },
  memoryPct: {
    label: "memory throughput",
    sections: SOL,
    names: ["Memory Throughput", "Memory [%]", "SOL Memory"],
    units: ["%"],
  },
  computePct: {
    label: "compute throughput",
    sections: SOL,
    names: ["Compute (SM) Throughput", "Compute (SM) [%]", "SM [%]", "SOL SM"],
    units: ["%"],
  },
  dramPct: { label: "DRAM throughput", sections: SOL, names: ["DRAM Throughput", "SOL DRAM"], units: ["%"] },
  l1Pct: {
    label: "L1/TEX throughput",
    sections: SOL,
    names: ["L1/TEX Cache Throughput", "SOL L1/TEX Cache"],
    units: ["%"],
  },
  l2Pct: {
    label: "L2 throughput",
    sections: SOL,
    names: ["L2 Cache Throughput", "SOL L2 Cache", "SOL L2"],
    units: ["%"],
  },
  smFreq: { label: "SM frequency", sections: SOL, names: ["SM Frequency"], units: ["Hz"] },
  dramFreq: { label: "DRAM frequency", sections: SOL, names: ["DRAM Frequency"], units: ["Hz"] },
  elapsedCycles: { label: "elapsed cycles", sections: SOL, names: ["Elapsed Cycles"], units: ["cycle"] },
  memBandwidth: { label: "memory bandwidth", sections: MWA, names: ["Memory Throughput"], units: ["byte/s"] },
  l1Hit: { label: "L1 hit rate", sections: MWA, names: ["L1/TEX Hit Rate"], units: ["%"] },
  l2Hit: { label: "L2 hit rate", sections: MWA, names: ["L2 Hit Rate"], units: ["%"] },
  memBusy: { label: "memory busy", sections: MWA, names: ["Mem Busy"], units: ["%"] },
  maxBandwidth: { label: "max bandwidth", sections: MWA, names: ["Max Bandwidth"], units: ["%"] },
  achievedOcc: { label: "achieved occupancy", sections: OCC, names: ["Achieved Occupancy"], units: ["%"] },
  theoreticalOcc: {
    label: "theoretical occupancy",
    sections: OCC,
    names: ["Theoretical Occupancy"],
    units: ["%"],
  },
  achievedWarps: {
    label: "achieved warps",
    sections: OCC,
    names: ["Achieved Active Warps Per SM"],
    units: ["warp"],
  },
  theoreticalWarps: {
    label: "theoretical warps",
    sections: OCC,
    names: ["Theoretical Active Warps per SM"],
    units: ["warp"],
  },
  limitRegisters: {
    label: "block limit registers",
    sections: OCC,
    names: ["Block Limit Registers"],
    units: ["block", ""],
  },
  limitSmem: {
    label: "block limit shared memory",
    sections: OCC,
    names: ["Block Limit Shared Mem"],
    units: ["block", ""],
  },
  limitWarps: {
    label: "block limit warps",
    sections: OCC,
    names: ["Block Limit Warps"],
    units: ["block", ""],
  },
  limitSm: { label: "block limit SM", sections: OCC, names: ["Block Limit SM"], units: ["block", ""] },
  limitBarriers: {
    label: "block limit barriers",
    sections: OCC,
    names: ["Block Limit Barriers"],
    units: ["block", ""],
  },
  registers: {
    label: "registers per thread",
    sections: LAUNCH,
    names: ["Registers Per Thread"],
    units: ["register/thread", ""],
  },
  blockSize: { label: "block size", sections: LAUNCH, names: ["Block Size"], units: [""] },
  gridSize: { label: "grid size", sections: LAUNCH, names: ["Grid Size"], units: [""] },
  staticSmem: {
    label: "static shared memory",
    sections: LAUNCH,
    names: ["Static Shared Memory Per Block"],
    units: ["byte/block"],
  },
  dynamicSmem: {
    label: "dynamic shared memory",
    sections: LAUNCH,
    names: ["Dynamic Shared Memory Per Block"],
    units: ["byte/block"],
  },
  driverSmem: {
    label: "driver shared memory",
    sections: LAUNCH,
    names: ["Driver Shared Memory Per Block"],
    units: ["byte/block"],
  },
  smCount: { label: "SM count", sections: LAUNCH, names: ["# SMs"], units: ["SM", ""] },
  waves: { label: "waves per SM", sections: LAUNCH, names: ["Waves Per SM"], units: [""] },
} satisfies Record<string, MetricSpec>;

/** A metric's number in its base unit; null when absent or "n/a"; throws when its unit or type is wrong. */
export function metricNumber(launch: NcuDetailsLaunch, spec: MetricSpec): number | null {
  for (const section of spec.sections) {
    for (const name of spec.names) {
      const m = launch.metrics.get(metricKey(section, name));
      if (!m) continue;
      if (m.value === null) return null;
      if (!spec.units.includes(m.unit))
        throw new NcuCsvError(
          `launch ${launch.id}: ${spec.label} ("${section}" / "${name}") has unit "${m.unit || "(none)"}", expected ${spec.units.map((u) => `"${u}"`).join(" or ")}; the export looks damaged`,
        );
      if (typeof m.value !== "number")
        throw new NcuCsvError(`launch ${launch.id}: ${spec.label} is "${m.value}", not a number`);
      return m.value;
    }
  }
  return null;
}

export function findings(rules: NcuRuleResult[]): Finding[] {
  return rules.map((r) => ({
    rule: r.rule,
    type: r.type,
    estimatedSpeedupPct: r.estimatedSpeedupPct,
    description: r.description,
  }));
}

/** Checks the launch columns against the Launch Statistics section, catching headers swapped over their data. */
function checkLaunchConsistency(launch: NcuDetailsLaunch): void {
  const pairs: [string, [number, number, number] | null, MetricSpec][] = [
    ["Block Size", launch.blockSize, M.blockSize],
    ["Grid Size", launch.gridSize, M.gridSize],
  ];
  for (const [col, dims, spec] of pairs) {
    const total = metricNumber(launch, spec);
    if (dims && total !== null && dims[0] * dims[1] * dims[2] !== total)
      throw new NcuCsvError(
        `launch ${launch.id}: the "${col}" column (${dims.join("x")}) disagrees with Launch Statistics (${total}); the export looks damaged`,
      );
  }
}

export function summarizeLaunch(launch: NcuDetailsLaunch): KernelSummary {
  checkLaunchConsistency(launch);
  return {
    kernel: launch.kernel,
    id: launch.id,
    blockSize: launch.blockSize,
    gridSize: launch.gridSize,
    durationNs: metricNumber(launch, M.duration),
    memoryThroughputPct: metricNumber(launch, M.memoryPct),
    computeThroughputPct: metricNumber(launch, M.computePct),
    achievedOccupancyPct: metricNumber(launch, M.achievedOcc),
    theoreticalOccupancyPct: metricNumber(launch, M.theoreticalOcc),
    registersPerThread: metricNumber(launch, M.registers),
    findings: findings(launch.rules),
  };
}

/** `{kernels: [...]}`: one entry per profiled launch, in report order. */
export function summarize(launches: NcuDetailsLaunch[]): { kernels: KernelSummary[] } {
  return { kernels: launches.map(summarizeLaunch) };
}

/**
 * summarize(parseNcuCsv(input)) without holding the launches: each is summarised as soon as it is
 * read and then dropped, so memory stays bounded by the summaries, not the export. Errors come in
 * the same order: the whole export's syntax and truncation first, then the first launch that
 * cannot be summarised. `onPage` may throw to stop at a page that is not the details page.
 */
export async function summarizeNcuCsv(
  input: CsvInput,
  onPage?: (page: "details" | "raw") => void,
): Promise<{ kernels: KernelSummary[] }> {
  const kernels: KernelSummary[] = [];
  let failed: { error: unknown } | undefined;
  await streamNcuCsv(input, {
    page: onPage,
    details(launch) {
      if (failed) return;
      try {
        kernels.push(summarizeLaunch(launch));
      } catch (error) {
        failed = { error };
      }
    },
  });
  if (failed) throw failed.error;
  return { kernels };
}
