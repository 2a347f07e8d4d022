// The details page (`ncu --csv --page details`): one row per metric or rule result, the rows of a
// launch together. Each launch is handed on once its last row is read, so a caller that keeps only
// a summary per launch reads a report of any size in bounded memory.
import { StringTable } from "./csvRecords";
import { NcuCsvError } from "./ncuCsvError";
import { metricKey, launchInfo, type Columns, type NcuDetailsLaunch } from "./ncuLaunch";
import { cachedUnitFactor, normalise, parseNcuNumber } from "./units";

interface DetailsColumns {
  section: number;
  name: number;
  unit: number;
  value: number;
  id: number;
  kernel: number;
  block: number | undefined;
  grid: number | undefined;
  rule: number | undefined;
  ruleType: number | undefined;
  ruleDesc: number | undefined;
  speedupType: number | undefined;
  speedup: number | undefined;
}

/** The launch being read, with the texts its rows repeat (a row that repeats them needs no parsing). */
interface OpenLaunch {
  launch: NcuDetailsLaunch;
  idText: string;
  blockText: string | undefined;
  gridText: string | undefined;
}

export class DetailsBuilder {
  private readonly c: DetailsColumns;
  private readonly metricMin: number;
  private open: OpenLaunch | undefined;
  private readonly finished = new Set<number>();
  private readonly truncation = new TruncationCheck();
  private readonly strings = new StringTable();
  /** section -> metric name -> metricKey(section, name), one string per key for every launch. */
  private readonly keys = new Map<string, Map<string, string>>();
  private readonly factorOf = cachedUnitFactor();
  /** The metric row being read, for error messages (one closure, not one per row). */
  private readonly row = { line: 0, section: "", name: "" };
  private readonly where = (): string => `line ${this.row.line}: ${this.row.section} / ${this.row.name}`;

  constructor(
    private readonly cols: Columns,
    private readonly emit: (launch: NcuDetailsLaunch) => void,
  ) {
    this.c = {
      section: cols.require("Section Name", "details"),
      name: cols.require("Metric Name", "details"),
      unit: cols.require("Metric Unit", "details"),
      value: cols.require("Metric Value", "details"),
      id: cols.require("ID", "details"),
      kernel: cols.require("Kernel Name", "details"),
      block: cols.get("Block Size"),
      grid: cols.get("Grid Size"),
      rule: cols.get("Rule Name"),
      ruleType: cols.get("Rule Type"),
      ruleDesc: cols.get("Rule Description"),
      speedupType: cols.get("Estimated Speedup Type"),
      speedup: cols.get("Estimated Speedup"),
    };
    const c = this.c;
    this.metricMin = Math.max(c.id, c.kernel, c.section, c.name, c.unit, c.value) + 1;
  }

  add(rec: string[], line: number): void {
    if (rec.length < this.metricMin)
      throw new NcuCsvError(
        `row has ${rec.length} fields but the header needs ${this.metricMin}; the export looks truncated or damaged`,
        line,
      );
    const launch = this.launchOf(rec, line);
    const name = rec[this.c.name]!;
    if (name !== "") this.addMetric(launch, rec, name, line);
    else if (this.field(rec, this.c.rule) !== "") this.addRule(launch, rec, line);
  }

  /** Hands on the last launch, once it is checked against the others for truncation. */
  finish(): void {
    if (!this.open) return;
    this.truncation.check(this.open.launch);
    this.emit(this.open.launch);
    this.open = undefined;
  }

  private field(rec: string[], col: number | undefined): string {
    return col === undefined ? "" : (rec[col] ?? "");
  }

  private launchOf(rec: string[], line: number): NcuDetailsLaunch {
    const o = this.open;
    const blockText = this.c.block === undefined ? undefined : rec[this.c.block];
    const gridText = this.c.grid === undefined ? undefined : rec[this.c.grid];
    if (
      o &&
      rec[this.c.id] === o.idText &&
      rec[this.c.kernel] === o.launch.kernel &&
      blockText === o.blockText &&
      gridText === o.gridText
    )
      return o.launch;
    const info = launchInfo(this.cols, rec, line, this.strings);
    if (o && info.id === o.launch.id) {
      if (o.launch.kernel !== info.kernel)
        throw new NcuCsvError(
          `launch ${info.id} is named both "${o.launch.kernel}" and "${info.kernel}"`,
          line,
        );
      return o.launch; // same launch, its sizes written differently: the first row's stand
    }
    // ncu writes each launch's rows together; a launch that comes back would be read as two.
    if (this.finished.has(info.id))
      throw new NcuCsvError(
        `launch ${info.id} appears again after launch ${o?.launch.id}; the export looks damaged`,
        line,
      );
    if (o) {
      this.finished.add(o.launch.id);
      this.truncation.add(o.launch);
      this.emit(o.launch);
    }
    const launch: NcuDetailsLaunch = { ...info, metrics: new Map(), rules: [] };
    this.open = { launch, idText: rec[this.c.id]!, blockText, gridText };
    return launch;
  }

  private keyOf(section: string, name: string): string {
    let byName = this.keys.get(section);
    if (!byName) {
      byName = new Map();
      this.keys.set(this.strings.get(section), byName);
    }
    let key = byName.get(name);
    if (key === undefined) {
      key = metricKey(this.strings.get(section), this.strings.get(name));
      byName.set(this.strings.get(name), key);
    }
    return key;
  }

  private addMetric(launch: NcuDetailsLaunch, rec: string[], nameText: string, line: number): void {
    const sectionText = rec[this.c.section]!;
    const key = this.keyOf(sectionText, nameText);
    this.row.line = line;
    this.row.section = sectionText;
    this.row.name = nameText;
    const m = normalise(rec[this.c.value]!, this.strings.get(rec[this.c.unit]!), this.where, this.factorOf);
    const value = typeof m.value === "string" ? this.strings.get(m.value) : m.value;
    const prev = launch.metrics.get(key);
    if (prev && prev.value !== value)
      throw new NcuCsvError(
        `launch ${launch.id}: "${nameText}" appears twice in section "${sectionText}" with different values`,
        line,
      );
    const section = this.strings.get(sectionText);
    const name = this.strings.get(nameText);
    launch.metrics.set(key, { section, name, unit: m.unit, value });
  }

  private addRule(launch: NcuDetailsLaunch, rec: string[], line: number): void {
    const c = this.c;
    const rule = this.strings.get(this.field(rec, c.rule));
    const need = Math.max(c.ruleType ?? 0, c.ruleDesc ?? 0) + 1;
    if (rec.length < need)
      throw new NcuCsvError(
        `rule row has ${rec.length} fields, expected ${need}; the export looks truncated`,
        line,
      );
    const speedupText = this.field(rec, c.speedup);
    const speedup = speedupText.trim() === "" ? null : parseNcuNumber(speedupText);
    if (speedup === undefined)
      throw new NcuCsvError(`rule ${rule}: estimated speedup "${speedupText}" is not a number`, line);
    launch.rules.push({
      section: this.strings.get(rec[c.section]!),
      rule,
      type: this.strings.get(this.field(rec, c.ruleType)),
      description: this.strings.get(this.field(rec, c.ruleDesc)),
      speedupType: this.strings.get(this.field(rec, c.speedupType)),
      estimatedSpeedupPct: speedup,
    });
  }
}

const sectionsOf = (l: NcuDetailsLaunch): Set<string> =>
  new Set([...l.metrics.values()].map((m) => m.section));

/**
 * A file cut at a row boundary parses cleanly but loses the last launch's tail. Every launch of
 * one kernel in one report carries the same metrics, and every launch of one section set the same
 * sections; a last launch with fewer metrics than its kernel's other launches, or without a
 * section all earlier launches have, is truncated. Kept as running figures over the earlier
 * launches, so the launches themselves need not be.
 */
class TruncationCheck {
  private count = 0;
  /** Kernel name -> the fewest metrics one of its launches had. */
  private readonly fewest = new Map<string, number>();
  /** The sections every launch so far had, in the first launch's order. */
  private common: Set<string> | undefined;

  add(l: NcuDetailsLaunch): void {
    this.count++;
    this.fewest.set(l.kernel, Math.min(this.fewest.get(l.kernel) ?? Infinity, l.metrics.size));
    const sections = sectionsOf(l);
    if (!this.common) this.common = sections;
    else for (const s of this.common) if (!sections.has(s)) this.common.delete(s);
  }

  check(last: NcuDetailsLaunch): void {
    if (this.count === 0) return;
    const expected = this.fewest.get(last.kernel) ?? 0;
    const lastSections = sectionsOf(last);
    const missing = [...(this.common ?? [])].filter((s) => !lastSections.has(s));
    if (last.metrics.size < expected || missing.length > 0) {
      const why =
        missing.length > 0
          ? `has no "${missing[0]}" section, which every earlier launch has`
          : `has ${last.metrics.size} metrics, earlier launches of the same kernel have ${expected}`;
      throw new NcuCsvError(`the export looks truncated: the last launch (ID ${last.id}) ${why}`);
    }
  }
}
