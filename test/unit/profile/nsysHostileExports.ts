// Hostile Nsight Systems exports, built with sql.js when a test or the bench needs them (no binary
// file in git): the two of issue 26, a 4 KB export whose StringIds is a recursive view that never
// ends and an 8 KB one whose StringIds is a view of zeroblob(1e8) rows, and the real H100 export
// (test/fixtures/nsys/step.sqlite) with one table the reader needs replaced by something a SELECT
// would run or that is not what nsys writes.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs, { type Database } from "sql.js";
import { sqlWasmPath } from "../../../server/profile/nsysReportDb";

const STEP = join(__dirname, "../../fixtures/nsys/step.sqlite");

/** What each hostile export does, by its file name (without .sqlite). */
export const HOSTILE = {
  "recursive-view": "StringIds is a recursive view that never ends (4 KB)",
  "zeroblob-view": "StringIds is a view of 1,000 rows of zeroblob(1e8) (8 KB)",
  "view-exact": "StringIds is a view of the real strings",
  "view-lowercase": "stringids (SQLite's names ignore case) is a view of the real strings",
  "view-optional": "CUPTI_ACTIVITY_KIND_KERNEL is a view of the real kernels",
  "trigger-on": "a trigger on StringIds",
  "trigger-named": "a trigger named NVTX_EVENTS",
  "blob-column": "StringIds.value is declared BLOB",
  "generated-column": "StringIds.value is a generated column",
  "virtual-table": "StringIds is a virtual (FTS3) table",
} as const;

export type HostileName = keyof typeof HOSTILE;

/** The statements that make each from an empty database ("new") or from step.sqlite ("step"). */
const BUILD: Record<HostileName, { from: "new" | "step"; sql: string[] }> = {
  "recursive-view": {
    from: "new",
    sql: [
      "CREATE VIEW StringIds AS WITH RECURSIVE r(x) AS (SELECT -1 UNION ALL SELECT x - 1 FROM r WHERE x < 0) " +
        "SELECT x AS id, 'k' AS value FROM r WHERE x > 0",
    ],
  },
  "zeroblob-view": {
    from: "new",
    sql: [
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL)",
      "CREATE VIEW StringIds AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 1000) " +
        "SELECT x AS id, zeroblob(1e8) AS value FROM r",
    ],
  },
  "view-exact": {
    from: "step",
    sql: ["ALTER TABLE StringIds RENAME TO S", "CREATE VIEW StringIds AS SELECT id, value FROM S"],
  },
  "view-lowercase": {
    from: "step",
    sql: ["ALTER TABLE StringIds RENAME TO S", "CREATE VIEW stringids AS SELECT id, value FROM S"],
  },
  "view-optional": {
    from: "step",
    sql: [
      "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO K",
      "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM K",
    ],
  },
  "trigger-on": {
    from: "step",
    sql: ["CREATE TRIGGER strings_added AFTER INSERT ON StringIds BEGIN SELECT 1; END"],
  },
  "trigger-named": {
    from: "step",
    sql: ["CREATE TRIGGER NVTX_EVENTS AFTER INSERT ON ANALYSIS_DETAILS BEGIN SELECT 1; END"],
  },
  "blob-column": {
    from: "step",
    sql: replaceStrings("value BLOB NOT NULL", "INSERT INTO StringIds SELECT * FROM S"),
  },
  "generated-column": {
    from: "step",
    sql: replaceStrings(
      "value TEXT GENERATED ALWAYS AS (printf('k%d', id)) VIRTUAL",
      "INSERT INTO StringIds (id) SELECT id FROM S",
    ),
  },
  "virtual-table": {
    from: "step",
    sql: [
      "ALTER TABLE StringIds RENAME TO S",
      "CREATE VIRTUAL TABLE StringIds USING fts3(id, value)",
      "INSERT INTO StringIds SELECT * FROM S",
    ],
  },
};

/** StringIds made again with VALUE as its second column, the strings copied back by COPY. */
function replaceStrings(value: string, copy: string): string[] {
  return [
    "ALTER TABLE StringIds RENAME TO S",
    `CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, ${value})`,
    copy,
    "DROP TABLE S",
  ];
}

/** Writes the hostile export NAME into DIR; returns its path. */
export async function writeHostile(dir: string, name: HostileName): Promise<string> {
  const b = BUILD[name];
  return writeExport(dir, name, b.from, b.sql);
}

/** Writes NAME.sqlite into DIR: an empty database ("new") or step.sqlite, after the statements SQL. */
export async function writeExport(
  dir: string,
  name: string,
  from: "new" | "step",
  sql: string[],
): Promise<string> {
  const SQL = await initSqlJs({ locateFile: () => sqlWasmPath() });
  const db: Database = from === "new" ? new SQL.Database() : new SQL.Database(readFileSync(STEP));
  try {
    for (const s of sql) db.run(s);
    const file = join(dir, `${name}.sqlite`);
    writeFileSync(file, db.export());
    return file;
  } finally {
    db.close();
  }
}
