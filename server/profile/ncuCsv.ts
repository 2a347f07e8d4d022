// Streaming parser for Nsight Compute CSV exports (`ncu --csv --page details|raw`). Columns are
// found by name, never by position, because ncu versions add, drop and reorder them; numbers are
// normalised to base units (units.ts); damaged input (truncated, headers that do not match their
// data, unknown units) is an error, never a silently wrong number.
import { streamRecords, StringTable, type CsvInput } from "./csvRecords";
import { NcuCsvError } from "./ncuCsvError";
import { DetailsBuilder } from "./ncuDetails";
import { Columns, launchInfo, type NcuDetailsLaunch, type NcuExport, type NcuRawLaunch } from "./ncuLaunch";
import { cachedUnitFactor, normalise, parseNcuNumber, type MetricValue } from "./units";

export { NcuCsvError };
export type { CsvInput };
export { metricKey, parseDim3 } from "./ncuLaunch";
export type {
  NcuDetailsLaunch,
  NcuExport,
  NcuLaunchInfo,
  NcuMetric,
  NcuRawLaunch,
  NcuRuleResult,
} from "./ncuLaunch";

// The header names "ID" and "Kernel Name" somewhere (columns may come in any order).
const isNcuHeader = (line: string): boolean =>
  line.startsWith('"') && line.includes('"ID"') && line.includes('"Kernel Name"');

/** Where a streamed export's launches go, each once all its rows are read. */
export interface NcuCsvSink {
  /** Called once the header says which page this is; may throw to stop reading early. */
  page?(page: NcuExport["page"]): void;
  details?(launch: NcuDetailsLaunch): void;
  raw?(launch: NcuRawLaunch): void;
}

/**
 * Streams a details or raw page export (deciding which by its header) launch by launch into
 * `sink`, holding only the launch being read. Resolves with the page once the whole export checked out.
 */
export async function streamNcuCsv(input: CsvInput, sink: NcuCsvSink): Promise<NcuExport["page"]> {
  let builder: DetailsBuilder | RawBuilder | undefined;
  const stats = await streamRecords(input, isNcuHeader, (rec, line) => {
    if (builder) return builder.add(rec, line);
    const header = new Columns(rec);
    if (header.get("Metric Name") !== undefined) {
      sink.page?.("details");
      builder = new DetailsBuilder(header, (l) => sink.details?.(l));
    } else {
      sink.page?.("raw");
      builder = new RawBuilder(header, (l) => sink.raw?.(l));
    }
  });
  if (!builder) {
    const seen = stats.firstDropped ? ` (first line: "${stats.firstDropped}")` : "";
    throw new NcuCsvError(
      `not an Nsight Compute CSV export: no header line starting with "ID" and naming "Kernel Name"${seen}`,
    );
  }
  builder.finish();
  return builder instanceof DetailsBuilder ? "details" : "raw";
}

/** Parses a details or raw page export, deciding which by its header. */
export async function parseNcuCsv(input: CsvInput): Promise<NcuExport> {
  const details: NcuDetailsLaunch[] = [];
  const raw: NcuRawLaunch[] = [];
  const page = await streamNcuCsv(input, { details: (l) => details.push(l), raw: (l) => raw.push(l) });
  return page === "details" ? { page, launches: details } : { page, launches: raw };
}

// Raw-page conversion errors are caught below, never shown: no message to build for each value.
const NOWHERE = (): string => "";

class RawBuilder {
  private units: string[] | undefined;
  /** Each metric column's unit conversion, looked up once from the units row. */
  private factors: ({ factor: number; base: string } | undefined)[] = [];
  private readonly metricCols: number[] = [];
  private readonly idCol: number;
  private readonly strings = new StringTable();
  private readonly factorOf = cachedUnitFactor();

  constructor(
    private readonly cols: Columns,
    private readonly emit: (launch: NcuRawLaunch) => void,
  ) {
    this.idCol = cols.require("ID", "raw");
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
    if (rec[this.idCol] === "" && !this.units) {
      this.units = rec.map((u) => this.strings.get(u)); // the second row of a raw export holds the units
      this.factors = this.units.map(this.factorOf);
      return;
    }
    const info = launchInfo(this.cols, rec, line, this.strings);
    const metrics = new Map<string, { unit: string; value: MetricValue }>();
    for (const i of this.metricCols) {
      const text = rec[i]!;
      if (text !== "") metrics.set(this.cols.header[i]!, this.metric(i, text)); // "": not collected
    }
    this.emit({ ...info, metrics });
  }

  private metric(col: number, text: string): { unit: string; value: MetricValue } {
    // A number in a unit we know: what normalise() would give, without looking the unit up again.
    const f = this.factors[col];
    const n = f && parseNcuNumber(text);
    if (f && n !== undefined) return { unit: f.base, value: n * f.factor };
    const unitText = this.units?.[col] ?? "";
    try {
      const m = normalise(text, unitText, NOWHERE, this.factorOf);
      if (typeof m.value === "string") m.value = this.strings.get(m.value);
      return m;
    } catch {
      // The raw page has thousands of counters in units a future ncu may add; one we cannot
      // convert is kept as "no number" rather than failing the whole export.
      return { unit: `unconverted:${unitText}`, value: null };
    }
  }

  finish(): void {
    // Nothing is held back: each raw row is a whole launch.
  }
}
