// Hostile SQLite exports (issue 26, item 1): each is refused as "not an nsys export" before any
// query runs on the table it replaces, by the reader process, which is gone afterwards; the budgets
// of that process (time, memory, rows) and a cancel end a read with their own error; the CLI exits
// 1 on the two hostile files and 130 on Ctrl+C. Figures (time, peak memory) are the bench's:
// `npm run bench:nsys`.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, statSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { NsysReportError, sqliteError } from "../../../server/profile/nsysReportDb";
import {
  loadNsysReport,
  loadNsysSummary,
  type NsysToolOptions,
} from "../../../server/profile/nsysReportLoad";
import { readSqlite, summarizeSqlite } from "../../../server/profile/nsysReportSummary";
import { runCli } from "../../support/cliRun";
import { tempDir } from "../../support/tempDir";
import { HOSTILE, writeExport, writeHostile, type HostileName } from "./nsysHostileExports";

const FIX = join(__dirname, "../../fixtures/nsys");
const STEP = join(FIX, "step.sqlite");
const dir = tempDir("ckd-nsys-hostile-");

const code = (c: NsysReportError["code"], re: RegExp) => (e: unknown) =>
  e instanceof NsysReportError && e.code === c && re.test(e.message);

/** loadNsysSummary with O, and the reader process's pid once it started. */
function summarize(file: string, o: Partial<NsysToolOptions> = {}) {
  let pid: number | undefined;
  const done = loadNsysSummary(file, { nsysPath: undefined, ...o, onReader: { start: (p) => (pid = p) } });
  return { done, pid: () => pid };
}

/** The reader process has exited and been reaped: signalling its pid finds no process. */
function assertGone(pid: number | undefined): void {
  assert.ok(pid !== undefined, "a reader process was started");
  assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
}

/** The message each hostile export is refused with. */
const WHY: Record<HostileName, RegExp> = {
  "recursive-view": /StringIds is a view, not a table/,
  "zeroblob-view": /StringIds is a view, not a table/,
  "view-exact": /StringIds is a view, not a table/,
  "view-lowercase": /stringids is a view, not a table/,
  "view-optional": /CUPTI_ACTIVITY_KIND_KERNEL is a view, not a table/,
  "trigger-on": /a trigger strings_added on StringIds/,
  "trigger-named": /a trigger NVTX_EVENTS on ANALYSIS_DETAILS/,
  "blob-column": /StringIds\.value is declared "BLOB" where an export has TEXT/,
  "generated-column": /StringIds\.value is a generated column/,
  "virtual-table": /StringIds is a virtual table/,
};

describe("nsys hostile exports: not an nsys export, refused before any query", () => {
  it("the 4 KB recursive view and the 8 KB zeroblob view (issue 26): NOT_NSYS, the reader gone", async () => {
    for (const [name, size] of [
      ["recursive-view", 4096],
      ["zeroblob-view", 8192],
    ] as const) {
      const file = await writeHostile(dir, name);
      assert.equal(statSync(file).size, size, name);
      const r = summarize(file);
      await assert.rejects(r.done, code("NOT_NSYS", WHY[name]), name);
      assertGone(r.pid());
      await assert.rejects(loadNsysReport(file, { nsysPath: undefined }), code("NOT_NSYS", WHY[name]));
    }
  });

  for (const name of Object.keys(HOSTILE).slice(2) as HostileName[])
    it(`${HOSTILE[name]}: NOT_NSYS`, async () => {
      const file = await writeHostile(dir, name);
      await assert.rejects(summarize(file).done, code("NOT_NSYS", WHY[name]));
      // The reader's check is the in-process reader's too.
      await assert.rejects(summarizeSqlite(file), code("NOT_NSYS", WHY[name]));
    });
});

describe("nsys reader process: the real export, budgets, cancel", () => {
  it("reads a real export as the in-process reader does, summary and trace", async () => {
    const here = await readSqlite(STEP);
    assert.deepEqual(await summarize(STEP).done, here.summary);
    assert.deepEqual(await loadNsysReport(STEP, { nsysPath: undefined }), here);
  });

  it("past the time budget: TIME_BUDGET, the reader gone", async () => {
    const r = summarize(STEP, { limits: { seconds: 0.001 } });
    await assert.rejects(r.done, code("TIME_BUDGET", /took longer than 0\.001 s: not read/));
    assertGone(r.pid());
  });

  it("past the memory budget: MEMORY_BUDGET, the reader gone", async () => {
    const r = summarize(STEP, { limits: { memoryMb: 20 } });
    await assert.rejects(r.done, code("MEMORY_BUDGET", /needed more than 20 MB: not read/));
    assertGone(r.pid());
  });

  it("SQLite past its heap limit reads as MEMORY_BUDGET, not as damage", () => {
    assert.ok(
      code(
        "MEMORY_BUDGET",
        /more than 64 MB/,
      )(sqliteError("f", new Error("out of memory"), { sqliteHeapMb: 64 })),
    );
    assert.ok(
      code("DAMAGED", /malformed/)(sqliteError("f", new Error("database disk image is malformed"), {})),
    );
  });

  it("more rows than the row budget: ROW_BUDGET", async () => {
    const r = summarize(STEP, { limits: { maxRows: 10 } });
    await assert.rejects(r.done, code("ROW_BUDGET", /StringIds has more than 10 rows: not read/));
    assertGone(r.pid());
  });

  it("cancelled: CANCELLED, the reader gone", async () => {
    const ac = new AbortController();
    let pid: number | undefined;
    const done = loadNsysSummary(STEP, {
      nsysPath: undefined,
      signal: ac.signal,
      onReader: { start: (p) => ((pid = p), ac.abort()) },
    });
    await assert.rejects(done, code("CANCELLED", /cancelled/));
    assertGone(pid);
  });
});

describe("nsys exports holding values nsys does not write: damaged", () => {
  it("text in an integer column (a kernel's start time): DAMAGED, and the CLI exits 1 (issue 26, item 7)", async () => {
    const file = await writeExport(dir, "text-in-time", "step", [
      "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1)",
    ]);
    const why = /CUPTI_ACTIVITY_KIND_KERNEL\.start holds text where nsys writes an integer/;
    await assert.rejects(summarize(file).done, code("DAMAGED", why));
    const r = runCli({ cwd: dir }, "nsys", "summarize", file);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, why);
    assert.doesNotMatch(r.stdout, /NaN/);
  });
});

describe("cuda-kernel-dev nsys summarize: hostile exports, Ctrl+C", () => {
  it("exits 1 on the two hostile files, saying why", async () => {
    for (const name of ["recursive-view", "zeroblob-view"] as const) {
      const r = runCli({ cwd: dir }, "nsys", "summarize", await writeHostile(dir, name));
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /is not an Nsight Systems export: StringIds is a view, not a table/);
    }
  });

  it("a bad budget is bad usage (exit 2)", () => {
    const r = runCli({ cwd: dir }, "nsys", "summarize", STEP, "--max-seconds", "0");
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--max-seconds must be a positive number/);
  });

  it("Ctrl+C while reading: exit 130", { timeout: 60_000 }, async () => {
    // An nsys that says it started and then waits: the CLI is inside the export when Ctrl+C comes.
    const started = join(dir, "started");
    const nsys = join(dir, "nsys");
    writeFileSync(nsys, `#!/bin/sh\n: > "${started}"\nsleep 30\n`);
    chmodSync(nsys, 0o755);
    copyFileSync(join(FIX, "step.nsys-rep"), join(dir, "r.nsys-rep"));
    const root = join(__dirname, "../../..");
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(root, "server/cli/main.ts"),
        "nsys",
        "summarize",
        join(dir, "r.nsys-rep"),
        "--nsys",
        nsys,
      ],
      { cwd: root, stdio: "ignore" },
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    while (!existsSync(started)) await sleep(50);
    child.kill("SIGINT");
    assert.equal(await exited, 130);
  });
});
