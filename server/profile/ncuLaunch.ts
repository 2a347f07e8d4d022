// What every page of an ncu CSV export shares: the launch columns (found by name, never by
// position: ncu versions add, drop and reorder them) and the types the page parsers produce.
import { own, type StringTable } from "./csvRecords";
import { clip, NcuCsvError } from "./ncuCsvError";
import { parseNcuNumber, type MetricValue } from "./units";

/** The columns that say which launch a row belongs to (same in every page). */
export interface NcuLaunchInfo {
  /** ncu's launch ID within the report. */
  id: number;
  /** The kernel name exactly as ncu prints it (demangled, with parameter types). */
  kernel: string;
  processId?: string;
  processName?: string;
  device?: string;
  /** Compute capability, e.g. "9.0". */
  cc?: string;
  context?: string;
  stream?: string;
  blockSize: [number, number, number] | null;
  gridSize: [number, number, number] | null;
}

export interface NcuMetric {
  section: string;
  name: string;
  /** The base unit after normalisation ("ns", "byte", "byte/s", "Hz", "%", ...). */
  unit: string;
  value: MetricValue;
}

export interface NcuRuleResult {
  section: string;
  rule: string;
  /** "OPT", "WRN", "INF", "ERR". */
  type: string;
  description: string;
  /** "global" or "local" (ncu's estimate kind), "" when absent. */
  speedupType: string;
  estimatedSpeedupPct: number | null;
}

export interface NcuDetailsLaunch extends NcuLaunchInfo {
  /** Keyed by metricKey(section, name): the same name appears in several sections. */
  metrics: Map<string, NcuMetric>;
  rules: NcuRuleResult[];
}

export interface NcuRawLaunch extends NcuLaunchInfo {
  /** Keyed by the raw metric name (e.g. "gpu__time_duration.sum"). */
  metrics: Map<string, { unit: string; value: MetricValue }>;
}

export type NcuExport =
  { page: "details"; launches: NcuDetailsLaunch[] } | { page: "raw"; launches: NcuRawLaunch[] };

export function metricKey(section: string, name: string): string {
  return `${section}\u0000${name}`;
}

/** Column index by name; one map per header. */
export class Columns {
  private readonly index = new Map<string, number>();
  readonly header: string[];
  constructor(header: string[]) {
    this.header = header.map(own); // kept for the whole parse: not the first chunk with it
    this.header.forEach((h, i) => {
      if (!this.index.has(h)) this.index.set(h, i);
    });
  }
  get(name: string): number | undefined {
    return this.index.get(name);
  }
  require(name: string, page: string): number {
    const i = this.index.get(name);
    if (i === undefined)
      throw new NcuCsvError(
        `the ${page} export has no "${name}" column (columns: ${this.header.slice(0, 20).join(", ")})`,
      );
    return i;
  }
}

/** Parses "(256, 1, 1)" (or a bare "256") into a 3-tuple; null when absent or not a size. */
export function parseDim3(text: string | undefined): [number, number, number] | null {
  if (!text) return null;
  // split(",") and not split(/\s*,\s*/): a long run of spaces and no comma made that regex
  // backtrack quadratically (100,000 spaces: 23 s); parseNcuNumber trims each part.
  const parts = text
    .replace(/[()]/g, "")
    .split(",")
    .map((p) => parseNcuNumber(p));
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => p === undefined || !Number.isInteger(p)))
    return null;
  const [x = 1, y = 1, z = 1] = parts as number[];
  return [x, y, z];
}

/** The launch columns of a row; its strings come from `strings`, so they share no chunk. */
export function launchInfo(cols: Columns, rec: string[], line: number, strings: StringTable): NcuLaunchInfo {
  const field = (name: string): string | undefined => {
    const i = cols.get(name);
    return i === undefined ? undefined : rec[i];
  };
  const idText = field("ID") ?? "";
  const id = parseNcuNumber(idText);
  if (id === undefined || !Number.isInteger(id))
    throw new NcuCsvError(`launch ID "${clip(idText)}" is not an integer`, line);
  const blockText = field("Block Size");
  const gridText = field("Grid Size");
  const blockSize = parseDim3(blockText);
  const gridSize = parseDim3(gridText);
  if (blockText && !blockSize) throw new NcuCsvError(`Block Size "${clip(blockText)}" is not a dim3`, line);
  if (gridText && !gridSize) throw new NcuCsvError(`Grid Size "${clip(gridText)}" is not a dim3`, line);
  const info: NcuLaunchInfo = { id, kernel: strings.get(field("Kernel Name") ?? ""), blockSize, gridSize };
  for (const [key, col] of OPTIONAL_INFO) {
    const v = field(col);
    if (v !== undefined) info[key] = strings.get(v);
  }
  return info;
}

const OPTIONAL_INFO = [
  ["processId", "Process ID"],
  ["processName", "Process Name"],
  ["device", "Device"],
  ["cc", "CC"],
  ["context", "Context"],
  ["stream", "Stream"],
] as const;
