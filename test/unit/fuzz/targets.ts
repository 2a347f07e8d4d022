// The parsers under fuzz, each with a real input, a flat "facts" view of its result (every number
// it returns, under a key that names what the number is) and, for each fact, the lines of the
// input it was read from. For CSV formats the provenance follows from the format (the record's
// line, its header, the units row); for the others it is measured by ablation: a line a fact
// depends on is one whose digits, changed, change that fact.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import {
  NcuCsvError,
  parseNcuCsv,
  type NcuDetailsLaunch,
  type NcuRawLaunch,
} from "../../../server/profile/ncuCsv";
import { parseNcuSource } from "../../../server/profile/ncuSource";
import { summarize } from "../../../server/profile/ncuSummary";
import { NsysCsvError, parseNsysStats } from "../../../server/profile/nsysCsv";
import { NvidiaSmiError, parseNvidiaSmiXml } from "../../../server/profile/nvidiaSmi";
import { kernelDisplayName } from "../../../server/compiler/demangle";
import { parsePtxasResources } from "../../../server/compiler/ptxasResources";
import { parseNvccOutput } from "../../../server/compiler/nvccDiagnostics";
import { mutateLines, randomNumberText, type Mutated, type Rng } from "./mutate";

export type FactValue = number | string | null;
export type Facts = Map<string, FactValue>;

export interface StructuredMutation extends Mutated {
  /** Exact expectations for facts the mutation changed on purpose: a number, or "not a number". */
  expect?: Map<string, number | "nan">;
}

export interface Target {
  name: string;
  lines: string[];
  base: Facts;
  provenance: Map<string, Set<number>>;
  parse(text: string): Promise<Facts>;
  /** Errors the parser is allowed to throw (a clear message); anything else is a crash. */
  isClearError(e: unknown): boolean;
  mutate(rng: Rng): StructuredMutation;
}

const REPO = join(__dirname, "..", "..", "..");
const read = (p: string): string => readFileSync(join(REPO, p), "utf8");
const quote = (f: string): string => `"${f.replace(/"/g, '""')}"`;
const csvLine = (fields: string[]): string => fields.map(quote).join(",");

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

interface CsvRecord {
  fields: string[];
  first: number;
  last: number;
}

/** Records of a well-formed CSV with the 0-based lines each spans. */
function csvRecords(text: string): CsvRecord[] {
  const parsed = parseCsv(text, {
    relax_column_count: true,
    info: true,
    skip_empty_lines: true,
  }) as unknown as {
    record: string[];
    info: { lines: number };
  }[];
  let prev = 0;
  return parsed.map((p) => {
    const r = { fields: p.record, first: prev, last: p.info.lines - 1 };
    prev = p.info.lines;
    return r;
  });
}

function firstRecord(line: string): string[] {
  const rows: string[][] = parseCsv(line);
  return rows[0] ?? [];
}

const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, k) => a + k);

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

// ---- nsys stats CSV ---------------------------------------------------------------------------

async function parseNsys(text: string): Promise<Facts> {
  await Promise.resolve();
  const s = parseNsysStats(text);
  const f: Facts = new Map();
  for (const [table, rows] of [
    ["kern", s.kernels],
    ["mem", s.memory],
  ] as const)
    for (const r of rows ?? []) {
      const name = "name" in r ? r.name : r.operation;
      for (const [k, v] of Object.entries(r) as [string, unknown][])
        if (typeof v === "number" || v === null) f.set(`${table}|${name}|${k}`, v);
    }
  return f;
}

export async function nsysTarget(file: string): Promise<Target> {
  const text = read(`test/fixtures/profile/${file}`);
  const lines = text.split("\n");
  // Provenance by the layout: a "Processing" line names the report, then a header and rows.
  const provenance = new Map<string, Set<number>>();
  let processing = -1;
  let header: { line: number; names: string[] } | undefined;
  lines.forEach((l, i) => {
    if (l.startsWith("Processing")) processing = i;
    else if (l.trim() === "") header = undefined;
    else if (/Total Time/.test(l)) header = { line: i, names: firstRecord(l) };
    else if (header) {
      const rec = firstRecord(l);
      const name = rec[header.names.findIndex((n) => n === "Name" || n === "Operation")]!;
      const table = header.names.includes("Operation") ? "mem" : "kern";
      for (const k of [
        "timePct",
        "totalNs",
        "instances",
        "count",
        "avgNs",
        "medNs",
        "minNs",
        "maxNs",
        "stdDevNs",
      ])
        provenance.set(`${table}|${name}|${k}`, new Set([processing, header.line, i]));
    }
  });
  return {
    name: `nsys stats (${file})`,
    lines,
    base: await parseNsys(text),
    provenance,
    parse: parseNsys,
    isClearError: (e) => e instanceof NsysCsvError,
    mutate: (rng) => mutateLines(lines, rng),
  };
}

// ---- ablation provenance for the line-oriented text formats ---------------------------------

async function ablate(
  lines: string[],
  parse: (t: string) => Promise<Facts>,
  base: Facts,
): Promise<Map<string, Set<number>>> {
  const prov = new Map<string, Set<number>>([...base.keys()].map((k) => [k, new Set<number>()]));
  for (let i = 0; i < lines.length; i++) {
    // Its digits changed, and one space in front (nvcc's caret lines carry a column in their indent).
    for (const changed of [lines[i]!.replace(/\d/g, (d) => String((Number(d) + 1) % 10)), ` ${lines[i]!}`]) {
      const variant = [...lines];
      variant[i] = changed;
      let facts: Facts | undefined;
      try {
        facts = await parse(variant.join("\n"));
      } catch {
        facts = undefined; // a structural line: every fact depends on it
      }
      for (const [k, v] of base) if (!facts || facts.get(k) !== v) prov.get(k)!.add(i);
    }
  }
  return prov;
}

async function ablatedTarget(
  name: string,
  text: string,
  parse: (t: string) => Promise<Facts>,
  isClearError: (e: unknown) => boolean,
  group?: (key: string) => string,
): Promise<Target> {
  const lines = text.split("\n");
  const base = await parse(text);
  const provenance = await ablate(lines, parse, base);
  if (group) {
    // Fields of one record share their lines: a default (ptxas prints no "smem" for 0) has no digits to ablate.
    const byGroup = new Map<string, Set<number>>();
    for (const [k, ls] of provenance)
      byGroup.set(group(k), new Set([...(byGroup.get(group(k)) ?? []), ...ls]));
    for (const k of provenance.keys()) provenance.set(k, byGroup.get(group(k))!);
  }
  return { name, lines, base, provenance, parse, isClearError, mutate: (rng) => mutateLines(lines, rng) };
}

async function parseSmi(text: string): Promise<Facts> {
  await Promise.resolve();
  const log = parseNvidiaSmiXml(text);
  const f: Facts = new Map();
  for (const d of log.devices)
    for (const [k, v] of Object.entries(d) as [string, unknown][])
      if (typeof v === "number" || v === null) f.set(`${d.pciBusId}|${k}`, v);
  return f;
}

export const smiTarget = (): Promise<Target> =>
  ablatedTarget(
    "nvidia-smi XML",
    read("test/fixtures/profile/h200-nvidia-smi-q.xml"),
    parseSmi,
    (e) => e instanceof NvidiaSmiError,
  );

async function parsePtxas(text: string): Promise<Facts> {
  await Promise.resolve();
  const f: Facts = new Map();
  for (const k of parsePtxasResources(text))
    for (const [field, v] of Object.entries(k)) {
      if (typeof v === "number") f.set(`${k.arch}|${k.symbol}|${field}`, v);
      else if (field === "constantBytes")
        for (const [bank, n] of Object.entries(v as Record<number, number>))
          f.set(`${k.arch}|${k.symbol}|cmem${bank}`, n);
    }
  return f;
}

export const ptxasTarget = (file: string): Promise<Target> =>
  ablatedTarget(
    `ptxas -v (${file})`,
    read(file),
    parsePtxas,
    () => false,
    (k) => k.split("|").slice(0, 2).join("|"),
  );

async function parseNvcc(text: string): Promise<Facts> {
  await Promise.resolve();
  const f: Facts = new Map();
  const seen = new Map<string, number>();
  for (const d of parseNvccOutput(text)) {
    const k = `${d.file}|${d.severity}|${d.message}|${d.symbol}`;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    f.set(`${k}#${n}|line`, d.line ?? null);
    f.set(`${k}#${n}|column`, d.column ?? null);
    d.related.forEach((r, j) => f.set(`${k}#${n}|related${j}|${r.file}`, r.line));
  }
  return f;
}

export const nvccTarget = (file: string): Promise<Target> =>
  ablatedTarget(`nvcc output (${file})`, read(file), parseNvcc, () => false);

async function parseSymbols(text: string): Promise<Facts> {
  await Promise.resolve();
  const f: Facts = new Map();
  for (const sym of text.split("\n")) if (sym) f.set(`sym|${sym}`, kernelDisplayName(sym));
  return f;
}

/** The demangler on every mangled name in the compiler fixtures, one per line (crashes and hangs). */
export async function demangleTarget(): Promise<Target> {
  const syms = new Set<string>();
  for (const f of readdirSync(join(REPO, "test/fixtures/compiler"), { recursive: true, encoding: "utf8" }))
    if (/\.(txt|ptx)$/.test(f))
      for (const m of read(join("test/fixtures/compiler", f)).matchAll(/_Z[0-9A-Za-z_]+/g)) syms.add(m[0]);
  const lines = [...syms].sort();
  const provenance = new Map(lines.map((l, i) => [`sym|${l}`, new Set([i])]));
  return {
    name: "demangler (fixture symbols)",
    lines,
    base: await parseSymbols(lines.join("\n")),
    provenance,
    parse: parseSymbols,
    isClearError: () => false,
    mutate: (rng) => mutateLines(lines, rng),
  };
}

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

/** Every target, built from the real fixtures. */
export async function allTargets(): Promise<Target[]> {
  const nvccFiles = [
    "header_type_error.sm_90.txt",
    "missing_include.sm_90.txt",
    "overload_error.sm_90.txt",
    "syntax_error.sm_90.txt",
    "too_much_shared.sm_90.txt",
    "warnings.sm_90.txt",
  ];
  return [
    await ncuDetailsTarget(),
    await ncuRawTarget(),
    await ncuSourceTarget(),
    await nsysTarget("nsys-stats-cuda_gpu_sum.txt"),
    await nsysTarget("nsys-stats-old-gpukernsum.txt"),
    await smiTarget(),
    await ptxasTarget("test/fixtures/compiler/ptxas-v-kernels-multi.txt"),
    await ptxasTarget("test/fixtures/compiler/ptxas-v-kernels-sm_75.txt"),
    await ptxasTarget("test/fixtures/compiler/ptxas-v-rmsnorm-sm_90.txt"),
    await demangleTarget(),
    ...(await Promise.all(nvccFiles.map((f) => nvccTarget(`test/fixtures/compiler/broken/${f}`)))),
  ];
}
