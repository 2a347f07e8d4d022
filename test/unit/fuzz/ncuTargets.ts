// Fuzz targets for the Nsight Compute CSV pages: details, raw and source. Provenance follows from
// the format: the record's lines, the header and, for the raw page, the units row.
import { parse as parseCsv } from "csv-parse/sync";
import {
  NcuCsvError,
  parseNcuCsv,
  type NcuDetailsLaunch,
  type NcuRawLaunch,
} from "../../../server/profile/ncuCsv";
import { parseNcuSource } from "../../../server/profile/ncuSource";
import { summarize } from "../../../server/profile/ncuSummary";
import { csvLine, csvRecords, range, read, type CsvRecord } from "./fixtureText";
import { mutateLines, randomNumberText, type Rng } from "./mutate";
import type { FactValue, Facts, StructuredMutation, Target } from "./target";

function withUnit(value: FactValue, unit: string): FactValue {
  return typeof value === "number" ? value : value === null ? null : `${value} [${unit}]`;
}

// ---- Nsight Compute details page -------------------------------------------------------------

function detailsFacts(launches: NcuDetailsLaunch[]): Facts {
  const f: Facts = new Map();
  for (const l of launches) {
    f.set(`block|${l.id}`, l.blockSize?.join("x") ?? null);
    f.set(`grid|${l.id}`, l.gridSize?.join("x") ?? null);
    for (const m of l.metrics.values()) {
      f.set(`m|${l.id}|${m.section}|${m.name}`, m.value);
      f.set(`unit|${l.id}|${m.section}|${m.name}`, m.unit);
    }
    const seen = new Map<string, number>();
    for (const r of l.rules) {
      const k = `${l.id}|${r.section}|${r.rule}`;
      const n = seen.get(k) ?? 0;
      seen.set(k, n + 1);
      f.set(`rule|${k}|${n}`, r.estimatedSpeedupPct);
    }
  }
  return f;
}

// My own unit table, written apart from server/profile/units.ts so the check is independent.
const UNITS: Record<string, [number, string]> = {
  ns: [1, "ns"],
  nsecond: [1, "ns"],
  us: [1e3, "ns"],
  usecond: [1e3, "ns"],
  ms: [1e6, "ns"],
  msecond: [1e6, "ns"],
  s: [1e9, "ns"],
  second: [1e9, "ns"],
  byte: [1, "byte"],
  Kbyte: [1e3, "byte"],
  Mbyte: [1e6, "byte"],
  Gbyte: [1e9, "byte"],
  Tbyte: [1e12, "byte"],
  "byte/s": [1, "byte/s"],
  "Kbyte/s": [1e3, "byte/s"],
  "Mbyte/s": [1e6, "byte/s"],
  "Gbyte/s": [1e9, "byte/s"],
  "Tbyte/s": [1e12, "byte/s"],
  "Gbyte/second": [1e9, "byte/s"],
  "Mbyte/usecond": [1e12, "byte/s"],
  hz: [1, "Hz"],
  Khz: [1e3, "Hz"],
  Mhz: [1e6, "Hz"],
  Ghz: [1e9, "Hz"],
  "%": [1, "%"],
  cycle: [1, "cycle"],
  inst: [1, "inst"],
  warp: [1, "warp"],
  block: [1, "block"],
  thread: [1, "thread"],
  sector: [1, "sector"],
  SM: [1, "SM"],
  "inst/cycle": [1, "inst/cycle"],
  "Kbyte/block": [1e3, "byte/block"],
  "byte/block": [1, "byte/block"],
};
const BOGUS_UNITS = ["furlong", "Qbyte", "byte/furlong", "us/us", "Ghz/s"];

/** Column-level damage shared by the CSV targets: consistent swaps and deletions change no value. */
function columnMutation(
  records: CsvRecord[],
  lines: string[],
  rng: Rng,
  skipFirstLines = 0,
): StructuredMutation {
  const header = records[0]!.fields;
  const a = rng.int(header.length);
  const b = rng.int(header.length);
  const kind = rng.int(3);
  const out = [...lines.slice(0, skipFirstLines)];
  for (const [ri, r] of records.entries()) {
    const f = [...r.fields];
    while (f.length < header.length) f.push(""); // rule rows end early
    if (kind === 0 || (kind === 1 && ri === 0)) [f[a], f[b]] = [f[b]!, f[a]!];
    else if (kind === 2) f.splice(a, 1);
    out.push(csvLine(f));
  }
  out.push("");
  const what = ["swap columns", "swap header names only", "delete column"][kind]!;
  // Header-only swap relabels data: nothing read through those two names is comparable.
  return { text: out.join("\n"), what: `${what} ${a}/${b}`, touched: kind === 1 ? "all" : new Set() };
}

async function parseDetails(text: string): Promise<Facts> {
  const r = await parseNcuCsv({ text });
  if (r.page !== "details") throw new NcuCsvError("expected a details page");
  summarize(r.launches); // may throw a clear error; must not crash
  return detailsFacts(r.launches);
}

export async function ncuDetailsTarget(): Promise<Target> {
  const text = read("test/fixtures/profile/small.details.csv");
  const lines = text.split("\n");
  const records = csvRecords(text);
  const h = records[0]!.fields;
  const col = (n: string): number => h.indexOf(n);
  const [cId, cSec, cName, cUnit, cVal, cRule] = [
    col("ID"),
    col("Section Name"),
    col("Metric Name"),
    col("Metric Unit"),
    col("Metric Value"),
    col("Rule Name"),
  ] as const;
  const provenance = new Map<string, Set<number>>();
  const add = (k: string, ls: number[]): void => {
    const s = provenance.get(k) ?? new Set([0]);
    for (const l of ls) s.add(l);
    provenance.set(k, s);
  };
  for (const r of records.slice(1)) {
    const f = r.fields;
    const ls = range(r.first, r.last);
    const id = f[cId]!;
    add(`block|${id}`, ls);
    add(`grid|${id}`, ls);
    if (f[cName] !== "") {
      add(`m|${id}|${f[cSec]}|${f[cName]}`, ls);
      add(`unit|${id}|${f[cSec]}|${f[cName]}`, ls);
    } else {
      // Every occurrence of a rule shares the lines of all of them (their order numbers them).
      for (let n = 0; n < 8; n++) add(`rule|${id}|${f[cSec]}|${f[cRule]}|${n}`, ls);
    }
  }
  const metricRows = records.filter((r, i) => i > 0 && r.fields[cName] !== "" && r.first === r.last);
  return {
    name: "ncu details CSV",
    lines,
    base: await parseDetails(text),
    provenance,
    parse: parseDetails,
    isClearError: (e) => e instanceof NcuCsvError,
    mutate(rng) {
      const pick = rng.int(10);
      if (pick === 0) return columnMutation(records, lines, rng);
      if (pick <= 3) {
        // Change a metric's value and/or unit to something we know the answer for.
        const r = rng.pick(metricRows);
        const f = [...r.fields];
        const key = `${f[cId]}|${f[cSec]}|${f[cName]}`;
        const expect = new Map<string, number | "nan">();
        let value: number | undefined | "na" = Number.NaN;
        if (rng.int(2) === 0) {
          const n = randomNumberText(rng);
          f[cVal] = n.text;
          value = n.text === "n/a" ? "na" : n.value;
        } else {
          value = /^-?[\d,]+(\.\d+)?$/.test(f[cVal]!) ? Number(f[cVal]!.replace(/,/g, "")) : Number.NaN;
        }
        if (rng.int(2) === 0)
          f[cUnit] = rng.int(5) === 0 ? rng.pick(BOGUS_UNITS) : rng.pick(Object.keys(UNITS));
        const bogus = BOGUS_UNITS.includes(f[cUnit]!);
        const unit = UNITS[f[cUnit]!] ?? (f[cUnit] === "" ? ([1, ""] as [number, string]) : undefined);
        if (value === undefined || (bogus && value !== "na")) expect.set(`m|${key}`, "nan");
        else if (typeof value === "number" && !Number.isNaN(value) && unit)
          expect.set(`m|${key}`, value * unit[0]);
        const out = [...lines];
        out[r.first] = csvLine(f);
        return {
          text: out.join("\n"),
          what: `set ${key} to "${f[cVal]}" "${f[cUnit]}"`,
          touched: new Set([r.first]),
          expect,
        };
      }
      return mutateLines(lines, rng);
    },
  };
}

// ---- Nsight Compute raw page (cut to its first columns and launches: the full one is 2 MB) ------

function rawFacts(launches: NcuRawLaunch[]): Facts {
  const f: Facts = new Map();
  for (const l of launches) {
    f.set(`block|${l.id}`, l.blockSize?.join("x") ?? null);
    for (const [name, m] of l.metrics) f.set(`m|${l.id}|${name}`, withUnit(m.value, m.unit));
  }
  return f;
}

async function parseRaw(text: string): Promise<Facts> {
  const r = await parseNcuCsv({ text });
  if (r.page !== "raw") throw new NcuCsvError("expected a raw page");
  return rawFacts(r.launches);
}

export async function ncuRawTarget(): Promise<Target> {
  const full = read("test/fixtures/profile/h200-rmsnorm-full.raw.csv");
  // Real header, units row and five launches; the first 80 columns (launch info + 69 metrics).
  const cut = csvRecords(full.split("\n").slice(0, 7).join("\n")).map((r) => r.fields.slice(0, 80));
  const text = cut.map(csvLine).join("\n") + "\n";
  const lines = text.split("\n");
  const records = csvRecords(text);
  const provenance = new Map<string, Set<number>>();
  const header = records[0]!.fields;
  for (const r of records.slice(2)) {
    const id = r.fields[0]!;
    provenance.set(`block|${id}`, new Set([0, r.first]));
    for (const name of header) provenance.set(`m|${id}|${name}`, new Set([0, 1, r.first]));
  }
  return {
    name: "ncu raw CSV",
    lines,
    base: await parseRaw(text),
    provenance,
    parse: parseRaw,
    isClearError: (e) => e instanceof NcuCsvError,
    mutate: (rng) => (rng.int(5) === 0 ? columnMutation(records, lines, rng) : mutateLines(lines, rng)),
  };
}

// ---- Nsight Compute source page ------------------------------------------------------------------

async function parseSource(text: string): Promise<Facts> {
  const r = await parseNcuSource({ text });
  const f: Facts = new Map();
  for (const file of r.files) {
    f.set(`${file.path}|total`, file.totalSamples);
    for (const l of file.lines) {
      f.set(`${file.path}|${l.line}|samples`, l.samples);
      f.set(`${file.path}|${l.line}|notIssued`, l.notIssuedSamples);
      f.set(`${file.path}|${l.line}|executed`, l.instructionsExecuted);
    }
  }
  return f;
}

/** The real H100 source page (--set detailed), cut to its first 8 columns: lines, SASS, samples, executions. */
export async function ncuSourceTarget(): Promise<Target> {
  const full = read("test/fixtures/profile/h100/rms-vec-detailed.source.csv");
  const rows: string[][] = parseCsv(full, { relax_column_count: true });
  const text = rows.map((r) => csvLine(r.slice(0, 8))).join("\n") + "\n";
  const lines = text.split("\n");
  // Provenance by the layout: a block is "File Path", "Function Name", a header, then rows; a row
  // with an empty "Line No" is a SASS instruction of the line above it.
  const provenance = new Map<string, Set<number>>();
  const add = (k: string, ls: number[]): void => {
    const set = provenance.get(k) ?? new Set<number>();
    for (const l of ls) set.add(l);
    provenance.set(k, set);
  };
  let path = "";
  let preamble: number[] = [];
  let line = "";
  rows.forEach((r, i) => {
    if (r[0] === "File Path") {
      path = r[1] ?? "";
      preamble = [i];
    } else if (r[0] === "Function Name" || r[0] === "Line No") preamble.push(i);
    else {
      if (r[0] !== "") line = r[0]!;
      for (const f of ["samples", "notIssued", "executed"]) add(`${path}|${line}|${f}`, [...preamble, i]);
      add(`${path}|total`, [...preamble, i]);
    }
  });
  return {
    name: "ncu source CSV (H100)",
    lines,
    base: await parseSource(text),
    provenance,
    parse: parseSource,
    isClearError: (e) => e instanceof NcuCsvError,
    mutate: (rng) => mutateLines(lines, rng),
  };
}
