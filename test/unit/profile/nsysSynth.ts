// Synthetic Nsight Systems exports with the real schema: the H100 fixture (step.sqlite) with its
// events deleted and ours inserted. For cases no small real report has (start/end ranges across
// threads, CUDA graphs, domains) and for the 100,000+-launch bench.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs, { type Database, type SqlValue } from "sql.js";
import { sqlWasmPath } from "../../../server/profile/nsysReportDb";

const FIXTURE = join(__dirname, "../../fixtures/nsys/step.sqlite");
const EVENTS = [
  "CUPTI_ACTIVITY_KIND_KERNEL",
  "CUPTI_ACTIVITY_KIND_MEMCPY",
  "CUPTI_ACTIVITY_KIND_MEMSET",
  "CUPTI_ACTIVITY_KIND_RUNTIME",
  "NVTX_EVENTS",
];
export const PID = 1234 * 0x1000000;
export const TID = PID + 1234;

type Row = Record<string, SqlValue>;

export class SynthExport {
  private readonly ids = new Map<string, number>();
  private readonly stmts = new Map<
    string,
    { cols: string[]; notNull: Set<string>; run: (v: SqlValue[]) => void }
  >();
  private corr = 1;

  private constructor(readonly db: Database) {
    for (const t of EVENTS) db.run(`DELETE FROM ${t}`);
    db.run("DELETE FROM StringIds");
  }

  static async create(): Promise<SynthExport> {
    const SQL = await initSqlJs({ locateFile: () => sqlWasmPath() });
    return new SynthExport(new SQL.Database(readFileSync(FIXTURE)));
  }

  nextCorrelation(): number {
    return this.corr++;
  }

  string(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(s, id);
      this.db.run("INSERT INTO StringIds (id, value) VALUES (?, ?)", [id, s]);
    }
    return id;
  }

  /** Inserts a row; NOT NULL columns not given get 0. */
  insert(table: string, row: Row): void {
    let s = this.stmts.get(table);
    if (!s) {
      const info = this.db.exec(`PRAGMA table_info("${table}")`)[0]!.values;
      const cols = info.map((r) => String(r[1]));
      const stmt = this.db.prepare(
        `INSERT INTO ${table} (${cols.join(",")}) VALUES (${cols.map(() => "?").join(",")})`,
      );
      s = {
        cols,
        notNull: new Set(info.filter((r) => r[3] === 1).map((r) => String(r[1]))),
        run: (v) => stmt.run(v),
      };
      this.stmts.set(table, s);
    }
    const t = s;
    t.run(t.cols.map((c) => (c in row ? row[c]! : t.notNull.has(c) ? 0 : null)));
  }

  kernel(k: { start: number; end: number; corr: number; name: string; stream?: number; pid?: number }): void {
    const id = this.string(k.name);
    this.insert("CUPTI_ACTIVITY_KIND_KERNEL", {
      start: k.start,
      end: k.end,
      streamId: k.stream ?? 7,
      correlationId: k.corr,
      globalPid: k.pid ?? PID,
      demangledName: id,
      shortName: this.string(k.name.replace(/[<(].*$/, "")),
      gridX: 1,
      gridY: 1,
      gridZ: 1,
      blockX: 128,
      blockY: 1,
      blockZ: 1,
      registersPerThread: 16,
    });
  }

  call(c: { start: number; end: number; corr: number; tid?: number; name?: string }): void {
    this.insert("CUPTI_ACTIVITY_KIND_RUNTIME", {
      start: c.start,
      end: c.end,
      globalTid: c.tid ?? TID,
      correlationId: c.corr,
      nameId: this.string(c.name ?? "cudaLaunchKernel_v7000"),
    });
  }

  range(r: {
    start: number;
    end: number | null;
    name: string;
    tid?: number;
    startEnd?: boolean;
    domainId?: number;
  }): void {
    this.insert("NVTX_EVENTS", {
      start: r.start,
      end: r.end,
      eventType: r.startEnd ? 60 : 59,
      text: r.name,
      globalTid: r.tid ?? TID,
      domainId: r.domainId ?? 0,
    });
  }

  domain(id: number, name: string): void {
    this.insert("NVTX_EVENTS", { start: 0, eventType: 75, text: name, globalTid: TID, domainId: id });
  }

  bytes(): Uint8Array {
    return this.db.export();
  }
}

/**
 * STEPS "step" ranges of LAUNCHES kernel launches each (names cycling through KERNELS), one thread:
 * a launch call every 5 us, each kernel 2 us on the GPU once the call returned.
 */
export function addSteps(
  x: SynthExport,
  steps: number,
  launches: number,
  kernels = ["k_add", "k_mul", "k_relu"],
): void {
  let t = 1_000_000;
  let gpuFree = 0;
  x.db.run("BEGIN"); // one transaction: row by row, each insert would be its own
  for (let s = 0; s < steps; s++) {
    const start = t;
    for (let i = 0; i < launches; i++) {
      const corr = x.nextCorrelation();
      x.call({ start: t, end: t + 3000, corr });
      const k0 = Math.max(gpuFree, t + 4000);
      x.kernel({ start: k0, end: k0 + 2000, corr, name: `void ${kernels[i % kernels.length]!}(float*)` });
      gpuFree = k0 + 2000;
      t += 5000;
    }
    x.range({ start, end: t, name: "step" });
    t += 10_000;
  }
  x.db.run("COMMIT");
}
