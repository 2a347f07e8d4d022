// `nsys stats --report cuda_gpu_kern_sum --report cuda_gpu_mem_time_sum --format csv` output: the tests'
// reader of nsys's own numbers, which the SQLite summaries (server/profile/nsysReport*.ts) must equal.
// stdout interleaves "Generating SQLite file…" / "Processing [R.sqlite] with [.../NAME.py]..."
// lines with one CSV table per report; older nsys named the reports gpukernsum / gpumemtimesum and
// the columns "Average", "Minimum", ... Columns are found by name.
import { parse } from "csv-parse/sync";
import { parseNcuNumber } from "../../server/profile/units";

export interface NsysKernelRow {
  name: string;
  timePct: number;
  totalNs: number;
  instances: number;
  avgNs: number;
  medNs: number | null;
  minNs: number;
  maxNs: number;
  stdDevNs: number | null;
}

export interface NsysMemRow {
  operation: string;
  timePct: number;
  totalNs: number;
  count: number;
  avgNs: number;
  medNs: number | null;
  minNs: number;
  maxNs: number;
  stdDevNs: number | null;
}

export interface NsysStats {
  kernels: NsysKernelRow[] | null;
  memory: NsysMemRow[] | null;
  /** Lines nsys printed instead of a table, e.g. "SKIPPED: R.sqlite does not contain CUDA kernel data." */
  notes: string[];
}

export class NsysCsvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NsysCsvError";
  }
}

const KERN_REPORTS = new Set(["cuda_gpu_kern_sum", "gpukernsum"]);
const MEM_REPORTS = new Set(["cuda_gpu_mem_time_sum", "gpumemtimesum"]);

const COLS = {
  timePct: ["Time (%)", "Time(%)"],
  totalNs: ["Total Time (ns)", "Total Time"],
  instances: ["Instances", "Count", "Operations", "Calls"],
  avgNs: ["Avg (ns)", "Average (ns)", "Average"],
  medNs: ["Med (ns)", "Median (ns)", "Median"],
  minNs: ["Min (ns)", "Minimum (ns)", "Minimum"],
  maxNs: ["Max (ns)", "Maximum (ns)", "Maximum"],
  stdDevNs: ["StdDev (ns)", "StdDev"],
};

interface Table {
  report: string | undefined;
  firstLine: number;
  lines: string[];
}

function splitTables(text: string): { tables: Table[]; notes: string[] } {
  const tables: Table[] = [];
  const notes: string[] = [];
  let report: string | undefined;
  let current: Table | undefined;
  text.split(/\r?\n/).forEach((line, i) => {
    const processing = /^Processing \[.*?\] with \[(?:.*[/\\])?([\w-]+?)(?:\.py)?\]/.exec(line);
    if (processing) {
      report = processing[1];
      current = undefined;
      return;
    }
    if (line.trim() === "") {
      current = undefined;
      return;
    }
    if (
      /^(SKIPPED|ERROR|WARNING):?\s/i.test(line) ||
      /^Generating SQLite/i.test(line) ||
      /^\*\* /.test(line)
    ) {
      if (!/^Generating SQLite/i.test(line)) notes.push(line.trim());
      current = undefined;
      return;
    }
    if (!current) {
      if (!/Total Time/.test(line)) return; // not a table header: other stdout
      current = { report, firstLine: i + 1, lines: [] };
      tables.push(current);
    }
    current.lines.push(line);
  });
  return { tables, notes };
}

function rowsOf(t: Table): { header: string[]; rows: string[][] } {
  let records: string[][];
  try {
    records = parse(t.lines.join("\n"), { relax_column_count: true, trim: true });
  } catch (e) {
    throw new NsysCsvError(
      `nsys CSV table at line ${t.firstLine} is damaged: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const [header = [], ...rows] = records;
  return { header, rows };
}

function colIndex(header: string[], names: string[]): number | undefined {
  for (const n of names) {
    const i = header.indexOf(n);
    if (i >= 0) return i;
  }
  return undefined;
}

function readRows(
  t: Table,
  nameCols: string[],
): Record<keyof typeof COLS | "name", string | number | null>[] {
  const { header, rows } = rowsOf(t);
  const nameCol = colIndex(header, nameCols);
  if (nameCol === undefined)
    throw new NsysCsvError(
      `nsys table at line ${t.firstLine} has no ${nameCols.join("/")} column (columns: ${header.join(", ")})`,
    );
  const idx = Object.fromEntries(
    Object.entries(COLS).map(([k, names]) => [k, colIndex(header, names)]),
  ) as Record<keyof typeof COLS, number | undefined>;
  for (const required of ["timePct", "totalNs", "instances", "avgNs", "minNs", "maxNs"] as const)
    if (idx[required] === undefined)
      throw new NsysCsvError(`nsys table at line ${t.firstLine} has no "${COLS[required][0]}" column`);
  return rows.map((r, i) => {
    if (r.length !== header.length)
      throw new NsysCsvError(
        `nsys table row ${t.firstLine + i + 1} has ${r.length} fields, the header ${header.length}; the output looks truncated`,
      );
    const out: Record<string, string | number | null> = { name: r[nameCol]! };
    for (const k of Object.keys(COLS) as (keyof typeof COLS)[]) {
      const c = idx[k];
      if (c === undefined) {
        out[k] = null;
        continue;
      }
      const v = parseNcuNumber(r[c]!);
      if (v === undefined)
        throw new NsysCsvError(
          `nsys table row ${t.firstLine + i + 1}: ${header[c]} "${r[c]}" is not a number`,
        );
      out[k] = v;
    }
    return out;
  });
}

export function parseNsysStats(text: string): NsysStats {
  const { tables, notes } = splitTables(text);
  const out: NsysStats = { kernels: null, memory: null, notes };
  for (const t of tables) {
    const header = rowsOf(t).header;
    const kind =
      t.report && KERN_REPORTS.has(t.report)
        ? "kern"
        : t.report && MEM_REPORTS.has(t.report)
          ? "mem"
          : header.includes("Name")
            ? "kern"
            : header.includes("Operation")
              ? "mem"
              : undefined;
    if (kind === "kern") {
      out.kernels = readRows(t, ["Name"]).map((r) => ({
        name: r.name as string,
        timePct: r.timePct as number,
        totalNs: r.totalNs as number,
        instances: r.instances as number,
        avgNs: r.avgNs as number,
        medNs: r.medNs as number | null,
        minNs: r.minNs as number,
        maxNs: r.maxNs as number,
        stdDevNs: r.stdDevNs as number | null,
      }));
    } else if (kind === "mem") {
      out.memory = readRows(t, ["Operation", "Name"]).map((r) => ({
        operation: r.name as string,
        timePct: r.timePct as number,
        totalNs: r.totalNs as number,
        count: r.instances as number,
        avgNs: r.avgNs as number,
        medNs: r.medNs as number | null,
        minNs: r.minNs as number,
        maxNs: r.maxNs as number,
        stdDevNs: r.stdDevNs as number | null,
      }));
    }
  }
  if (!out.kernels && !out.memory && notes.length === 0)
    throw new NsysCsvError("no cuda_gpu_kern_sum or cuda_gpu_mem_time_sum table in the nsys stats output");
  return out;
}
