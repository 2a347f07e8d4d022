// Opens an Nsight Systems SQLite export (`nsys export --type sqlite`) with sql.js: SQLite compiled to
// WebAssembly, so the CLI, the language server and the extension host read it alike with no native
// build. The whole file is read into memory (a 100,000-launch export is ~16 MB).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import initSqlJs, { type Database, type SqlJsStatic, type SqlValue } from "sql.js";
import { NsysReportError } from "./nsysReportError";
import {
  assertDeclared,
  checkColumns,
  NSYS_READS,
  plainTables,
  type ColumnInfo,
  type SchemaEntry,
} from "./nsysSchema";

const WASM = "sql-wasm.wasm";

export { NsysReportError, type NsysErrorCode } from "./nsysReportError";

/** `wasm/` next to the bundle (dist/cli.js, dist/server.js), else sql.js in the nearest node_modules. */
export function sqlWasmPath(): string {
  const bundled = join(__dirname, "wasm", WASM);
  if (existsSync(bundled)) return bundled;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const p = join(dir, "node_modules", "sql.js", "dist", WASM);
    if (existsSync(p)) return p;
    if (dirname(dir) === dir) break;
  }
  throw new Error(
    `cannot find ${WASM}: looked in ${dirname(bundled)} and in node_modules above ${__dirname}`,
  );
}

let sqlJs: Promise<SqlJsStatic> | undefined;

function loadSqlJs(): Promise<SqlJsStatic> {
  const path = sqlWasmPath();
  sqlJs ??= initSqlJs({ locateFile: () => path });
  return sqlJs;
}

/** Tables an export of a CUDA trace has; the rest are optional (absent when nothing of the kind ran). */
const REQUIRED = ["StringIds"];

/** The most rows one query reads: more is ROW_BUDGET, so no query's result grows without end. */
export const MAX_ROWS = 50_000_000;

export interface NsysDbLimits {
  /** SQLite's hard heap limit (PRAGMA hard_heap_limit), in MB: past it a query fails with MEMORY_BUDGET. */
  sqliteHeapMb?: number;
  /** The most rows one query reads (default MAX_ROWS). */
  maxRows?: number;
}

const OUT_OF_MEMORY = /out of memory/i;

/** An error of SQLite's as NsysReportError: past the heap limit, MEMORY_BUDGET; else damage. */
export function sqliteError(file: string, e: unknown, limits: NsysDbLimits): NsysReportError {
  if (e instanceof NsysReportError) return e;
  const said = e instanceof Error ? e.message : String(e);
  if (OUT_OF_MEMORY.test(said) && limits.sqliteHeapMb !== undefined)
    return new NsysReportError(
      `SQLite needed more than ${limits.sqliteHeapMb} MB reading ${file}`,
      "MEMORY_BUDGET",
    );
  return new NsysReportError(`${file} is damaged: ${said}`, "DAMAGED");
}

/**
 * Opens FILE; throws NsysReportError when it is missing, not SQLite, or not an nsys export (see
 * nsysSchema.ts: checked before any query runs on a table of it).
 */
export async function openNsysDb(file: string, limits: NsysDbLimits = {}): Promise<NsysDb> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new NsysReportError(
      `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      "NOT_FOUND",
    );
  }
  const SQL = await loadSqlJs();
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    if (limits.sqliteHeapMb !== undefined)
      db.exec(`PRAGMA hard_heap_limit=${Math.floor(limits.sqliteHeapMb * 1024 * 1024)}`);
    const db2 = new NsysDb(db, file, limits.maxRows ?? MAX_ROWS);
    const missing = REQUIRED.filter((t) => !db2.has(t));
    if (missing.length > 0)
      throw new NsysReportError(
        `${file} is SQLite but not an Nsight Systems export (no ${missing.join(", ")} table)`,
        "NOT_NSYS",
      );
    return db2;
  } catch (e) {
    db?.close();
    if (e instanceof NsysReportError) throw e;
    const said = e instanceof Error ? e.message : String(e);
    if (OUT_OF_MEMORY.test(said)) throw sqliteError(file, e, limits);
    throw new NsysReportError(`${file} is damaged or not an SQLite file: ${said}`, "DAMAGED");
  }
}

/** Rows one at a time (NsysDb.sorted, launchedBy); `next` is undefined past the last. */
export interface NsysCursor {
  next(): SqlValue[] | undefined;
  close(): void;
}

/** Sorted cursors merged into one order: by the key, ties to the earlier cursor (the trace's stable sort). */
export function* mergeSorted<T>(
  sources: { cursor: NsysCursor; row: (v: SqlValue[]) => T }[],
  key: (t: T) => number,
): Generator<T> {
  const heads = sources.map((s) => {
    const v = s.cursor.next();
    return v === undefined ? undefined : s.row(v);
  });
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h !== undefined && (best < 0 || key(h) < key(heads[best]!))) best = i;
    }
    if (best < 0) return;
    yield heads[best]!;
    const v = sources[best]!.cursor.next();
    heads[best] = v === undefined ? undefined : sources[best]!.row(v);
  }
}

/** Runs BODY with the cursors, closing them however it ends. */
export function withCursors<T>(cursors: NsysCursor[], body: () => T): T {
  try {
    return body();
  } finally {
    for (const c of cursors) c.close();
  }
}

// An operation's globalPid is its launching call's globalTid with the thread's id (low 24 bits) cleared.
const SAME_PROCESS = "o.globalPid = c.globalTid - c.globalTid % 16777216";

/** A read-only view of one export: its checked tables and bounded row iteration. */
export class NsysDb {
  private readonly tables: Set<string>;

  constructor(
    private readonly db: Database,
    private readonly file: string,
    private readonly maxRows: number,
  ) {
    // Reading sqlite_master is the first read: a damaged file fails here, not later. The schema is
    // stored in the file, so reading it is bounded by the file's size (its views are not run).
    const entries: SchemaEntry[] = [];
    this.rows("SELECT type, name, tbl_name, sql FROM sqlite_master", (r) =>
      entries.push({
        type: String(r[0]),
        name: String(r[1]),
        tblName: String(r[2]),
        sql: r[3] === null ? null : String(r[3]),
      }),
    );
    this.tables = plainTables(file, entries);
    for (const t of this.tables) checkColumns(file, t, this.columnsOf(t));
  }

  has(table: string): boolean {
    return this.tables.has(table);
  }

  private columnsOf(table: string): ColumnInfo[] {
    const cols: ColumnInfo[] = [];
    this.rows(`PRAGMA table_xinfo("${table}")`, (r) =>
      cols.push({ name: String(r[1]), type: String(r[2] ?? ""), hidden: Number(r[6] ?? 0) }),
    );
    return cols;
  }

  /**
   * Calls `row` for each row of `SELECT columns FROM table [WHERE where]`, as an array of values
   * in the columns' order. TABLE must be one has() admits; its columns must be in NSYS_READS.
   */
  select(table: string, columns: readonly string[], row: (values: SqlValue[]) => void, where = ""): void {
    const cols = this.checkedColumns(table, columns);
    const sql = `SELECT ${columns.join(", ")} FROM ${table}${where ? ` WHERE ${where}` : ""}`;
    const n = this.rows(`${sql} LIMIT ${this.maxRows + 1}`, (v) => row(cols.check(v)), this.maxRows);
    if (n > this.maxRows) throw this.tooMany(table);
  }

  /**
   * The rows of `SELECT columns, rowid FROM table ORDER BY orderBy, rowid` one at a time (a streaming
   * pass that needs them in time order: SQLite sorts, in its own heap). Each row ends with its rowid,
   * which breaks ties as the table's own order does. Close it when done.
   */
  sorted(table: string, columns: readonly string[], orderBy: string): NsysCursor {
    const cols = this.checkedColumns(table, [...columns, orderBy]);
    const sql = `SELECT ${columns.join(", ")}, rowid FROM ${table} ORDER BY ${orderBy}, rowid`;
    return this.cursor(sql, table, (v) => cols.check(v, columns.length));
  }

  /**
   * GPU operations of OPS joined with the CUDA API calls of CALLS that launched them (same
   * correlationId, the operation's process being the call's thread's), ordered by the operation's
   * start: each row is opColumns, callColumns, the operation's rowid, the call's rowid.
   */
  launchedBy(
    ops: string,
    opColumns: readonly string[],
    calls: string,
    callColumns: readonly string[],
  ): NsysCursor {
    const oc = this.checkedColumns(ops, [...opColumns, "start", "correlationId", "globalPid"]);
    const cc = this.checkedColumns(calls, [...callColumns, "globalTid", "correlationId"]);
    const sql =
      `SELECT ${[...opColumns.map((c) => `o.${c}`), ...callColumns.map((c) => `c.${c}`)].join(", ")}, o.rowid, c.rowid ` +
      `FROM ${ops} o JOIN ${calls} c ON o.correlationId = c.correlationId AND ${SAME_PROCESS} ORDER BY o.start`;
    return this.cursor(sql, ops, (v) => {
      oc.check(v.slice(0, opColumns.length));
      cc.check(v.slice(opColumns.length, opColumns.length + callColumns.length));
      return v;
    });
  }

  /** The start and globalTid of each call of CALLS that launched at least one kernel (of its own process). */
  kernelLaunches(calls: string, row: (values: SqlValue[]) => void): void {
    const kernels = "CUPTI_ACTIVITY_KIND_KERNEL";
    const cc = this.checkedColumns(calls, ["start", "globalTid", "correlationId"]);
    if (!this.has(kernels)) return;
    this.checkedColumns(kernels, ["correlationId", "globalPid"]);
    const sql =
      `SELECT c.start, c.globalTid FROM ${calls} c WHERE EXISTS (SELECT 1 FROM ${kernels} o ` +
      `WHERE o.correlationId = c.correlationId AND ${SAME_PROCESS})`;
    const n = this.rows(`${sql} LIMIT ${this.maxRows + 1}`, (v) => row(cc.check(v)), this.maxRows);
    if (n > this.maxRows) throw this.tooMany(calls);
  }

  /** How many distinct combinations of COLUMNS (NULL counting as 0) TABLE has. */
  countDistinct(table: string, columns: readonly string[]): number {
    this.checkedColumns(table, columns);
    let n = 0;
    const cols = columns.map((c) => `IFNULL(${c}, 0)`).join(", ");
    this.rows(`SELECT COUNT(*) FROM (SELECT DISTINCT ${cols} FROM ${table})`, (r) => (n = Number(r[0])));
    return n;
  }

  /** COLUMNS of TABLE, checked as select() checks them, and the check of a row's values. */
  private checkedColumns(
    table: string,
    columns: readonly string[],
  ): { check: (values: SqlValue[], upTo?: number) => SqlValue[] } {
    if (!this.tables.has(table)) throw new Error(`${table} is not a checked table of ${this.file}`);
    assertDeclared(table, columns);
    // A column declared INTEGER still stores what a row puts there (SQLite's types are per value): text
    // in a time column would read as NaN ns. nsys writes integers (or NULL) there: anything else is damage.
    const ints = columns.flatMap((c, k) => (NSYS_READS[table]![c] === "INTEGER" ? [k] : []));
    return {
      check: (values, upTo = Infinity) => {
        for (const k of ints) {
          if (k >= upTo) break;
          const v = values[k];
          if (v !== null && v !== undefined && typeof v !== "number" && typeof v !== "bigint")
            throw new NsysReportError(
              `${this.file} is damaged: ${table}.${columns[k]} holds ${typeof v === "string" ? "text" : "a blob"} where nsys writes an integer`,
              "DAMAGED",
            );
        }
        return values;
      },
    };
  }

  private tooMany(table: string): NsysReportError {
    return new NsysReportError(
      `${this.file}: ${table} has more than ${this.maxRows.toLocaleString("en-US")} rows: not read`,
      "ROW_BUDGET",
    );
  }

  /** A statement stepped by the caller, at most maxRows rows, each through CHECK. */
  private cursor(sql: string, table: string, check: (values: SqlValue[]) => SqlValue[]): NsysCursor {
    const stmt = this.db.prepare(sql);
    let n = 0;
    let done = false;
    return {
      next: () => {
        if (done) return undefined;
        if (!stmt.step()) {
          done = true;
          return undefined;
        }
        if (++n > this.maxRows) throw this.tooMany(table);
        return check(stmt.get());
      },
      close: () => {
        done = true;
        stmt.free();
      },
    };
  }

  /** Runs SQL, calling `row` for at most `max` rows; returns the rows stepped (max + 1 when there were more). */
  private rows(sql: string, row: (values: SqlValue[]) => void, max = Infinity): number {
    const stmt = this.db.prepare(sql);
    let n = 0;
    try {
      while (stmt.step()) {
        if (++n > max) break;
        row(stmt.get());
      }
    } finally {
      stmt.free();
    }
    return n;
  }

  /** StringIds as an id -> text map (names of kernels, API calls, NVTX ranges). */
  strings(): Map<number, string> {
    const m = new Map<number, string>();
    this.select("StringIds", ["id", "value"], (r) => m.set(Number(r[0]), String(r[1])));
    return m;
  }

  close(): void {
    this.db.close();
  }
}
