// Streaming parser for Nsight Compute CSV exports (`ncu --csv --page details|raw`). Columns are
// found by name, never by position, because ncu versions add, drop and reorder them; numbers are
// normalised to base units (units.ts); damaged input (truncated, headers that do not match their
// data, unknown units) is an error, never a silently wrong number.
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { parse, CsvError } from "csv-parse";
import { CsvLineFilter } from "./csvLines";
import { NcuCsvError } from "./ncuCsvError";
import { normalise, parseNcuNumber, type MetricValue } from "./units";

export { NcuCsvError };

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

/** Input accepted by the parsers: a file path, the text itself, or a stream of it. */
export type CsvInput = { path: string } | { text: string } | { stream: Readable };

function toStream(input: CsvInput): Readable {
  if ("path" in input) return createReadStream(input.path);
  if ("text" in input) return Readable.from([input.text]);
  return input.stream;
}

// The header names "ID" and "Kernel Name" somewhere (columns may come in any order).
const isNcuHeader = (line: string): boolean =>
  line.startsWith('"') && line.includes('"ID"') && line.includes('"Kernel Name"');

/**
 * Streams CSV records through the noise filter and csv-parse, calling `onRecord` with the record
 * and its line number. CSV syntax errors become NcuCsvErrors naming the line.
 */
export async function streamRecords(
  input: CsvInput,
  isHeader: (line: string) => boolean,
  onRecord: (record: string[], line: number) => void,
): Promise<CsvLineFilter["stats"]> {
  const filter = new CsvLineFilter(isHeader);
  const parser = parse({ relax_column_count: true, skip_empty_lines: true, info: true });
  const source = toStream(input);
  source.on("error", (e) => parser.destroy(e));
  filter.on("error", (e) => parser.destroy(e));
  source.pipe(filter).pipe(parser);
  try {
    for await (const chunk of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      onRecord(chunk.record, chunk.info.lines);
    }
  } catch (e) {
    if (e instanceof CsvError) {
      const why =
        e.code === "CSV_QUOTE_NOT_CLOSED"
          ? "a quoted field never closes (the export looks truncated)"
          : e.message;
      throw new NcuCsvError(`damaged CSV: ${why}`, (e as CsvError & { lines?: number }).lines);
    }
    throw e;
  }
  return filter.stats;
}

/** Column index by name; one map per header. */
class Columns {
  private readonly index = new Map<string, number>();
  constructor(readonly header: string[]) {
    header.forEach((h, i) => {
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
  const parts = text
    .replace(/[()]/g, "")
    .split(/\s*,\s*/)
    .map((p) => parseNcuNumber(p));
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => p === undefined || !Number.isInteger(p)))
    return null;
  const [x = 1, y = 1, z = 1] = parts as number[];
  return [x, y, z];
}

function launchInfo(cols: Columns, rec: string[], line: number): NcuLaunchInfo {
  const field = (name: string): string | undefined => {
    const i = cols.get(name);
    return i === undefined ? undefined : rec[i];
  };
  const idText = field("ID") ?? "";
  const id = parseNcuNumber(idText);
  if (id === undefined || !Number.isInteger(id))
    throw new NcuCsvError(`launch ID "${idText}" is not an integer`, line);
  const blockText = field("Block Size");
  const gridText = field("Grid Size");
  const blockSize = parseDim3(blockText);
  const gridSize = parseDim3(gridText);
  if (blockText && !blockSize) throw new NcuCsvError(`Block Size "${blockText}" is not a dim3`, line);
  if (gridText && !gridSize) throw new NcuCsvError(`Grid Size "${gridText}" is not a dim3`, line);
  const info: NcuLaunchInfo = { id, kernel: field("Kernel Name") ?? "", blockSize, gridSize };
  for (const [key, col] of OPTIONAL_INFO) {
    const v = field(col);
    if (v !== undefined) info[key] = v;
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

/** Parses a details or raw page export, deciding which by its header. */
export async function parseNcuCsv(input: CsvInput): Promise<NcuExport> {
  let header: Columns | undefined;
  let page: "details" | "raw" | undefined;
  const details = new DetailsBuilder();
  const raw = new RawBuilder();
  const stats = await streamRecords(input, isNcuHeader, (rec, line) => {
    if (!header) {
      header = new Columns(rec);
      page = header.get("Metric Name") !== undefined ? "details" : "raw";
      if (page === "details") details.start(header);
      else raw.start(header);
      return;
    }
    if (page === "details") details.add(rec, line);
    else raw.add(rec, line);
  });
  if (!header) {
    const seen = stats.firstDropped ? ` (first line: "${stats.firstDropped}")` : "";
    throw new NcuCsvError(
      `not an Nsight Compute CSV export: no header line starting with "ID" and naming "Kernel Name"${seen}`,
    );
  }
  return page === "details" ? { page, launches: details.finish() } : { page: "raw", launches: raw.finish() };
}

class DetailsBuilder {
  private cols!: Columns;
  private c!: {
    section: number;
    name: number;
    unit: number;
    value: number;
    rule?: number;
    ruleType?: number;
    ruleDesc?: number;
    speedupType?: number;
    speedup?: number;
  };
  private metricMin = 0;
  private readonly launches = new Map<number, NcuDetailsLaunch>();

  start(cols: Columns): void {
    this.cols = cols;
    this.c = {
      section: cols.require("Section Name", "details"),
      name: cols.require("Metric Name", "details"),
      unit: cols.require("Metric Unit", "details"),
      value: cols.require("Metric Value", "details"),
    };
    for (const [k, n] of [
      ["rule", "Rule Name"],
      ["ruleType", "Rule Type"],
      ["ruleDesc", "Rule Description"],
      ["speedupType", "Estimated Speedup Type"],
      ["speedup", "Estimated Speedup"],
    ] as const) {
      const i = cols.get(n);
      if (i !== undefined) this.c[k] = i;
    }
    cols.require("ID", "details");
    cols.require("Kernel Name", "details");
    const fixed = ["ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value"];
    this.metricMin = Math.max(...fixed.map((n) => cols.get(n)!)) + 1;
  }

  add(rec: string[], line: number): void {
    if (rec.length < this.metricMin)
      throw new NcuCsvError(
        `row has ${rec.length} fields but the header needs ${this.metricMin}; the export looks truncated or damaged`,
        line,
      );
    const info = launchInfo(this.cols, rec, line);
    let launch = this.launches.get(info.id);
    if (!launch) {
      launch = { ...info, metrics: new Map(), rules: [] };
      this.launches.set(info.id, launch);
    } else if (launch.kernel !== info.kernel) {
      throw new NcuCsvError(`launch ${info.id} is named both "${launch.kernel}" and "${info.kernel}"`, line);
    }
    const section = rec[this.c.section]!;
    const name = rec[this.c.name]!;
    const ruleName = this.c.rule === undefined ? "" : (rec[this.c.rule] ?? "");
    if (name !== "") {
      const where = (): string => `line ${line}: ${section} / ${name}`;
      const { unit, value } = normalise(rec[this.c.value]!, rec[this.c.unit]!, where);
      const key = metricKey(section, name);
      const prev = launch.metrics.get(key);
      if (prev && prev.value !== value)
        throw new NcuCsvError(
          `launch ${info.id}: "${name}" appears twice in section "${section}" with different values`,
          line,
        );
      launch.metrics.set(key, { section, name, unit, value });
    } else if (ruleName !== "") {
      const need = Math.max(this.c.ruleType ?? 0, this.c.ruleDesc ?? 0) + 1;
      if (rec.length < need)
        throw new NcuCsvError(
          `rule row has ${rec.length} fields, expected ${need}; the export looks truncated`,
          line,
        );
      const speedupText = this.c.speedup === undefined ? "" : (rec[this.c.speedup] ?? "");
      const speedup = speedupText.trim() === "" ? null : parseNcuNumber(speedupText);
      if (speedup === undefined)
        throw new NcuCsvError(`rule ${ruleName}: estimated speedup "${speedupText}" is not a number`, line);
      launch.rules.push({
        section,
        rule: ruleName,
        type: this.c.ruleType === undefined ? "" : (rec[this.c.ruleType] ?? ""),
        description: this.c.ruleDesc === undefined ? "" : (rec[this.c.ruleDesc] ?? ""),
        speedupType: this.c.speedupType === undefined ? "" : (rec[this.c.speedupType] ?? ""),
        estimatedSpeedupPct: speedup,
      });
    }
  }

  finish(): NcuDetailsLaunch[] {
    const launches = [...this.launches.values()];
    checkNotTruncated(launches);
    return launches;
  }
}

/**
 * A file cut at a row boundary parses cleanly but loses the last launch's tail. Every launch of
 * one kernel in one report carries the same metrics, and every launch of one section set the same
 * sections; a last launch with fewer metrics than its kernel's other launches, or without a
 * section all earlier launches have, is truncated.
 */
function checkNotTruncated(launches: NcuDetailsLaunch[]): void {
  const last = launches.at(-1);
  if (!last || launches.length < 2) return;
  const earlier = launches.slice(0, -1);
  const peers = earlier.filter((l) => l.kernel === last.kernel);
  const expected = peers.length > 0 ? Math.min(...peers.map((p) => p.metrics.size)) : 0;
  const sectionsOf = (l: NcuDetailsLaunch): Set<string> =>
    new Set([...l.metrics.values()].map((m) => m.section));
  const lastSections = sectionsOf(last);
  const common = [...sectionsOf(earlier[0]!)].filter((s) => earlier.every((l) => sectionsOf(l).has(s)));
  const missing = common.filter((s) => !lastSections.has(s));
  if (last.metrics.size < expected || missing.length > 0) {
    const why =
      missing.length > 0
        ? `has no "${missing[0]}" section, which every earlier launch has`
        : `has ${last.metrics.size} metrics, earlier launches of the same kernel have ${expected}`;
    throw new NcuCsvError(`the export looks truncated: the last launch (ID ${last.id}) ${why}`);
  }
}

class RawBuilder {
  private cols!: Columns;
  private units: string[] | undefined;
  private metricCols: number[] = [];
  private readonly launches: NcuRawLaunch[] = [];

  start(cols: Columns): void {
    this.cols = cols;
    cols.require("ID", "raw");
    cols.require("Kernel Name", "raw");
    // Metric columns are ncu metric names: "unit__counter.rollup", sometimes with a section prefix.
    this.metricCols = cols.header.flatMap((h, i) => (h.includes("__") ? [i] : []));
    if (this.metricCols.length === 0)
      throw new NcuCsvError("the raw export has no metric columns (names like gpu__time_duration.sum)");
  }

  add(rec: string[], line: number): void {
    if (rec.length !== this.cols.header.length)
      throw new NcuCsvError(
        `row has ${rec.length} fields, the header has ${this.cols.header.length}; the export looks truncated or damaged`,
        line,
      );
    const idText = rec[this.cols.get("ID")!]!;
    if (idText === "" && !this.units) {
      this.units = rec; // the second row of a raw export holds the units
      return;
    }
    const info = launchInfo(this.cols, rec, line);
    const metrics = new Map<string, { unit: string; value: MetricValue }>();
    for (const i of this.metricCols) {
      const name = this.cols.header[i]!;
      const text = rec[i]!;
      if (text === "") continue; // metric not collected for this launch
      const unitText = this.units?.[i] ?? "";
      try {
        metrics.set(
          name,
          normalise(text, unitText, () => `line ${line}: ${name}`),
        );
      } catch {
        // The raw page has thousands of counters in units a future ncu may add; one we cannot
        // convert is kept as "no number" rather than failing the whole export.
        metrics.set(name, { unit: `unconverted:${unitText}`, value: null });
      }
    }
    this.launches.push({ ...info, metrics });
  }

  finish(): NcuRawLaunch[] {
    return this.launches;
  }
}
