// Everything the profile panel shows for one launch, built from the details page (and the raw page
// when there is one). Plain JSON so it can cross into the webview.
import type { NcuDetailsLaunch, NcuRawLaunch } from "./ncuCsv";
import { rawDevice, roofline, stallReasons, type RooflinePoint, type Stalls } from "./ncuRaw";
import { M, metricNumber, summarizeLaunch, type Finding } from "./ncuSummary";

export interface OccupancyLimit {
  /** "registers", "shared memory", "warps", "SM", "barriers". */
  limit: string;
  blocks: number;
}

export interface ProfileView {
  id: number;
  kernel: string;
  header: {
    grid: [number, number, number] | null;
    block: [number, number, number] | null;
    registersPerThread: number | null;
    staticSharedBytes: number | null;
    dynamicSharedBytes: number | null;
    driverSharedBytes: number | null;
    device: string | null;
    cc: string | null;
    smFrequencyHz: number | null;
    dramFrequencyHz: number | null;
    smCount: number | null;
    wavesPerSm: number | null;
  };
  durationNs: number | null;
  speedOfLight: {
    computePct: number | null;
    memoryPct: number | null;
    dramPct: number | null;
    l1Pct: number | null;
    l2Pct: number | null;
  };
  memory: {
    dramBytesPerS: number | null;
    l1HitRatePct: number | null;
    l2HitRatePct: number | null;
    memBusyPct: number | null;
    maxBandwidthPct: number | null;
  };
  occupancy: {
    theoreticalPct: number | null;
    achievedPct: number | null;
    theoreticalWarps: number | null;
    achievedWarps: number | null;
    limits: OccupancyLimit[];
    /** The limit(s) with the fewest blocks per SM: what caps theoretical occupancy. */
    limiters: string[];
  };
  roofline: RooflinePoint[] | null;
  stalls: Stalls | null;
  /** Sorted by estimated speedup, largest first; findings without an estimate last. */
  findings: Finding[];
  /** Every metric, for the table and for comparisons: "Section / Name" -> value in base unit. */
  metrics: { section: string; name: string; unit: string; value: number | string | null }[];
}

export function occupancyLimits(launch: NcuDetailsLaunch): { limits: OccupancyLimit[]; limiters: string[] } {
  const specs: [string, typeof M.limitRegisters][] = [
    ["registers", M.limitRegisters],
    ["shared memory", M.limitSmem],
    ["warps", M.limitWarps],
    ["SM", M.limitSm],
    ["barriers", M.limitBarriers],
  ];
  const limits: OccupancyLimit[] = [];
  for (const [limit, spec] of specs) {
    const blocks = metricNumber(launch, spec);
    if (blocks !== null) limits.push({ limit, blocks });
  }
  const min = Math.min(...limits.map((l) => l.blocks));
  return { limits, limiters: limits.filter((l) => l.blocks === min).map((l) => l.limit) };
}

export function sortFindings(f: Finding[]): Finding[] {
  return [...f].sort((a, b) => (b.estimatedSpeedupPct ?? -1) - (a.estimatedSpeedupPct ?? -1));
}

export function profileView(launch: NcuDetailsLaunch, raw?: NcuRawLaunch): ProfileView {
  const s = summarizeLaunch(launch);
  const n = (spec: Parameters<typeof metricNumber>[1]): number | null => metricNumber(launch, spec);
  const dev = raw ? rawDevice(raw) : {};
  const { limits, limiters } = occupancyLimits(launch);
  return {
    id: launch.id,
    kernel: launch.kernel,
    header: {
      grid: launch.gridSize,
      block: launch.blockSize,
      registersPerThread: s.registersPerThread,
      staticSharedBytes: n(M.staticSmem),
      dynamicSharedBytes: n(M.dynamicSmem),
      driverSharedBytes: n(M.driverSmem),
      device: dev.name ?? (launch.device !== undefined ? `device ${launch.device}` : null),
      cc: launch.cc ?? null,
      smFrequencyHz: n(M.smFreq),
      dramFrequencyHz: n(M.dramFreq),
      smCount: n(M.smCount) ?? dev.smCount ?? null,
      wavesPerSm: n(M.waves),
    },
    durationNs: s.durationNs,
    speedOfLight: {
      computePct: s.computeThroughputPct,
      memoryPct: s.memoryThroughputPct,
      dramPct: n(M.dramPct),
      l1Pct: n(M.l1Pct),
      l2Pct: n(M.l2Pct),
    },
    memory: {
      dramBytesPerS: n(M.memBandwidth),
      l1HitRatePct: n(M.l1Hit),
      l2HitRatePct: n(M.l2Hit),
      memBusyPct: n(M.memBusy),
      maxBandwidthPct: n(M.maxBandwidth),
    },
    occupancy: {
      theoreticalPct: s.theoreticalOccupancyPct,
      achievedPct: s.achievedOccupancyPct,
      theoreticalWarps: n(M.theoreticalWarps),
      achievedWarps: n(M.achievedWarps),
      limits,
      limiters,
    },
    roofline: raw ? roofline(raw) : null,
    stalls: raw ? stallReasons(raw) : null,
    findings: sortFindings(s.findings),
    metrics: [...launch.metrics.values()].map((m) => ({
      section: m.section,
      name: m.name,
      unit: m.unit,
      value: m.value,
    })),
  };
}

export interface MetricDelta {
  section: string;
  name: string;
  unit: string;
  a: number;
  b: number;
  delta: number;
  /** (b - a) / a in percent; null when a is 0. */
  deltaPct: number | null;
}

/** Per-metric deltas between two launches (b relative to a), for metrics both have as numbers in the same unit. */
export function compareViews(a: ProfileView, b: ProfileView): MetricDelta[] {
  const bByKey = new Map(b.metrics.map((m) => [`${m.section}\u0000${m.name}`, m]));
  const out: MetricDelta[] = [];
  for (const ma of a.metrics) {
    const mb = bByKey.get(`${ma.section}\u0000${ma.name}`);
    if (!mb || typeof ma.value !== "number" || typeof mb.value !== "number" || ma.unit !== mb.unit) continue;
    out.push({
      section: ma.section,
      name: ma.name,
      unit: ma.unit,
      a: ma.value,
      b: mb.value,
      delta: mb.value - ma.value,
      deltaPct: ma.value === 0 ? null : ((mb.value - ma.value) / Math.abs(ma.value)) * 100,
    });
  }
  return out;
}
