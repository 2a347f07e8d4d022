// The child of isolated.test.ts: does what the request names, as a reader of a hostile file would
// (the two SQLite queries are those of the hostile exports' views, run here without the schema
// check that refuses them in the real reader).
import initSqlJs from "sql.js";
import { serveOne } from "../../../server/process/isolated";
import { sqlWasmPath } from "../../../server/profile/nsysReportDb";

export type ChildRequest = { do: "echo" | "throw" | "exit" | "spin-sql" | "zeroblob-sql" | "heap" };

/** The recursive view's query: a recursion that never ends and returns no row. */
export const SPIN_SQL =
  "WITH RECURSIVE r(x) AS (SELECT -1 UNION ALL SELECT x - 1 FROM r WHERE x < 0) SELECT x FROM r WHERE x > 0";
/** The zeroblob view's query: 1,000 rows of 100 MB each. */
export const ZEROBLOB_SQL =
  "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 1000) SELECT zeroblob(1e8) FROM r";

async function sql(query: string): Promise<unknown[]> {
  const SQL = await initSqlJs({ locateFile: () => sqlWasmPath() });
  const stmt = new SQL.Database().prepare(query);
  const rows: unknown[] = [];
  while (stmt.step()) rows.push(stmt.get()[0]);
  return rows;
}

serveOne<ChildRequest, unknown>(async (req) => {
  switch (req.do) {
    case "echo":
      return req;
    case "throw":
      throw new Error("the child's own error");
    case "exit":
      return process.exit(3);
    case "spin-sql":
      return sql(SPIN_SQL);
    case "zeroblob-sql":
      return sql(ZEROBLOB_SQL);
    case "heap": {
      const kept: string[] = [];
      for (;;) kept.push(`${"x".repeat(1 << 16)}${kept.length}`);
    }
  }
});
