// Opens an Nsight Systems SQLite export (`nsys export --type sqlite`) with sql.js: SQLite compiled to
// WebAssembly, so the CLI, the language server and the extension host read it alike with no native
// build. The whole file is read into memory (a 100,000-launch export is ~16 MB).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import initSqlJs, { type Database, type SqlJsStatic, type SqlValue } from "sql.js";

const WASM = "sql-wasm.wasm";

export class NsysReportError extends Error {
  constructor(
    message: string,
    readonly code:
      | "NOT_FOUND"
      | "DAMAGED"
      | "NOT_NSYS"
      | "EXPORT_FAILED"
      | "NO_NSYS"
      | "IMPORTER"
      | "PROFILE_FAILED"
      | "CANCELLED"
      | "USAGE",
  ) {
    super(message);
    this.name = "NsysReportError";
  }
}

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

/** Opens FILE; throws NsysReportError when it is missing, not SQLite, or not an nsys export. */
export async function openNsysDb(file: string): Promise<NsysDb> {
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
    const db2 = new NsysDb(db);
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
    throw new NsysReportError(
      `${file} is damaged or not an SQLite file: ${e instanceof Error ? e.message : String(e)}`,
      "DAMAGED",
    );
  }
}

/** A read-only view of one export: table lookups and row iteration. */
export class NsysDb {
  private readonly tables: Set<string>;
  private readonly columnsOf = new Map<string, Set<string>>();

  constructor(private readonly db: Database) {
    // Reading sqlite_master is the first read: a damaged file fails here, not later.
    this.tables = new Set(
      (db.exec("SELECT name FROM sqlite_master WHERE type IN ('table','view')")[0]?.values ?? []).map((r) =>
        String(r[0]),
      ),
    );
  }

  has(table: string): boolean {
    return this.tables.has(table);
  }

  columns(table: string): Set<string> {
    let c = this.columnsOf.get(table);
    if (!c) {
      c = new Set((this.db.exec(`PRAGMA table_info("${table}")`)[0]?.values ?? []).map((r) => String(r[1])));
      this.columnsOf.set(table, c);
    }
    return c;
  }

  /** Calls `row` for each result row, as an array of values in the SELECT's order. */
  each(sql: string, row: (values: SqlValue[]) => void): void {
    const stmt = this.db.prepare(sql);
    try {
      while (stmt.step()) row(stmt.get());
    } finally {
      stmt.free();
    }
  }

  /** StringIds as an id -> text map (names of kernels, API calls, NVTX ranges). */
  strings(): Map<number, string> {
    const m = new Map<number, string>();
    this.each("SELECT id, value FROM StringIds", (r) => m.set(Number(r[0]), String(r[1])));
    return m;
  }

  close(): void {
    this.db.close();
  }
}
