// What the reader reads of an Nsight Systems export, with the declared type of each column (nsys
// 2025.3, test/fixtures/nsys/schema.sql), and the check an export passes before any query runs on
// it. A SELECT from a plain table only reads what the file stores, so its cost is bounded by the
// file's size; a view runs a query of the file's choosing (a recursive view never ends, a view of
// zeroblob(1e8) rows fills any heap), a generated column runs an expression on every row read, a
// virtual table runs a module. So each table the reader needs must be a plain table, with no view
// or trigger of that name or on it, and each column it reads stored (not generated) with the
// declared type an export has: anything else is NOT_NSYS. Real exports hold tables only.
import { NsysReportError } from "./nsysReportError";

type Declared = "INTEGER" | "TEXT";

const I = "INTEGER";
const T = "TEXT";
const OP = { start: I, end: I, deviceId: I, streamId: I, correlationId: I, globalPid: I } as const;
const DIMS = { gridX: I, gridY: I, gridZ: I, blockX: I, blockY: I, blockZ: I } as const;

/** Table -> column -> declared type: every column the reader selects (nsysReport.ts). */
export const NSYS_READS: Readonly<Record<string, Readonly<Record<string, Declared>>>> = {
  StringIds: { id: I, value: T },
  CUPTI_ACTIVITY_KIND_KERNEL: { ...OP, demangledName: I, shortName: I, ...DIMS, registersPerThread: I },
  ENUM_CUDA_MEMCPY_OPER: { id: I, label: T },
  CUPTI_ACTIVITY_KIND_MEMCPY: { ...OP, bytes: I, copyKind: I },
  CUPTI_ACTIVITY_KIND_MEMSET: { ...OP, bytes: I },
  CUPTI_ACTIVITY_KIND_RUNTIME: { start: I, end: I, globalTid: I, correlationId: I },
  CUPTI_ACTIVITY_KIND_DRIVER: { start: I, end: I, globalTid: I, correlationId: I },
  NVTX_EVENTS: { start: I, end: I, eventType: I, text: T, textId: I, globalTid: I, domainId: I },
  TARGET_INFO_GPU: { id: I, name: T },
};

/** The reader's table of NAME as SQLite matches it (case-insensitively), or undefined. */
const READ_BY_KEY = new Map(Object.keys(NSYS_READS).map((t) => [t.toLowerCase(), t]));

/** A declared type's affinity, by SQLite's rules (https://sqlite.org/datatype3.html, 3.1). */
export function affinity(declared: string): "INTEGER" | "TEXT" | "BLOB" | "REAL" | "NUMERIC" {
  const t = declared.toUpperCase();
  if (t.includes("INT")) return "INTEGER";
  if (t.includes("CHAR") || t.includes("CLOB") || t.includes("TEXT")) return "TEXT";
  if (t.includes("BLOB") || t.trim() === "") return "BLOB";
  if (t.includes("REAL") || t.includes("FLOA") || t.includes("DOUB")) return "REAL";
  return "NUMERIC";
}

const notNsys = (file: string, why: string): NsysReportError =>
  new NsysReportError(`${file} is not an Nsight Systems export: ${why}`, "NOT_NSYS");

/** One row of sqlite_master. */
export interface SchemaEntry {
  type: string;
  name: string;
  tblName: string;
  sql: string | null;
}

/**
 * The reader's tables FILE has (by their names in NSYS_READS), after checking that each is a plain
 * table with nothing but indexes attached; throws NOT_NSYS otherwise.
 */
export function plainTables(file: string, entries: SchemaEntry[]): Set<string> {
  const found = new Set<string>();
  for (const e of entries) {
    const named = READ_BY_KEY.get(e.name.toLowerCase());
    const on = READ_BY_KEY.get(e.tblName.toLowerCase());
    if (e.type === "trigger" && (named ?? on))
      throw notNsys(file, `it has a trigger ${e.name} on ${e.tblName}`);
    if (!named) continue;
    if (e.type !== "table") throw notNsys(file, `${e.name} is a ${e.type}, not a table`);
    if (/^\s*create\s+virtual\b/i.test(e.sql ?? "")) throw notNsys(file, `${e.name} is a virtual table`);
    found.add(named);
  }
  return found;
}

/** One row of PRAGMA table_xinfo: hidden is 0 for a stored column, 2 or 3 for a generated one. */
export interface ColumnInfo {
  name: string;
  type: string;
  hidden: number;
}

/** Checks the columns the reader reads of TABLE; throws NOT_NSYS for a missing, generated or mistyped one. */
export function checkColumns(file: string, table: string, columns: ColumnInfo[]): void {
  const byName = new Map(columns.map((c) => [c.name.toLowerCase(), c]));
  const want = NSYS_READS[table] ?? {};
  const missing = Object.keys(want).filter((c) => !byName.has(c.toLowerCase()));
  if (missing.length > 0)
    throw new NsysReportError(
      `${table} has no ${missing.join(", ")} column: not an export this version of the extension reads`,
      "NOT_NSYS",
    );
  for (const [name, type] of Object.entries(want)) {
    const c = byName.get(name.toLowerCase())!;
    if (c.hidden !== 0) throw notNsys(file, `${table}.${name} is a generated column`);
    if (affinity(c.type) !== type)
      throw notNsys(
        file,
        `${table}.${name} is declared ${JSON.stringify(c.type)} where an export has ${type}`,
      );
  }
}

/** Throws (a bug, not bad input) when the reader selects a column NSYS_READS does not list. */
export function assertDeclared(table: string, columns: readonly string[]): void {
  const want = NSYS_READS[table];
  const undeclared = columns.filter((c) => !want || !(c in want));
  if (undeclared.length > 0)
    throw new Error(
      `the reader selects ${table}.${undeclared.join(", ")}, which nsysSchema.ts does not check`,
    );
}
