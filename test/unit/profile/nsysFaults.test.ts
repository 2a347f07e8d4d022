// Faults, each a clear message and nothing half-written left as if it were a report: nsys missing,
// its importer failing (the library named, from the loader's words seen on the H100 machine), a
// profile killed mid-run, a damaged report or export. Fake nsys scripts replay nsys's real output
// (test/fixtures/nsys/*.log).
import assert from "node:assert/strict";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { nsysProfileReport, missingLibrary } from "../../../server/profile/nsysProfile";
import { NsysReportError } from "../../../server/profile/nsysReportDb";
import { loadNsysSummary } from "../../../server/profile/nsysReportLoad";
import { summarizeSqlite } from "../../../server/profile/nsysReportSummary";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const FIX = join(__dirname, "../../fixtures/nsys");
const fresh = (): string => tempDir("ckd-nsys-fault-");

/** An executable shell script; its body sees "$@" as nsys would. */
function script(path: string, body: string): string {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The value after --output in "$@". */
const OUT = 'out=""; prev=""; for a in "$@"; do [ "$prev" = "--output" ] && out=$a; prev=$a; done';

const code = (c: NsysReportError["code"], re: RegExp) => (e: unknown) =>
  e instanceof NsysReportError && e.code === c && re.test(e.message);

describe("nsys faults: reading reports", () => {
  it("a missing file, a text file, an SQLite file that is no nsys export, a cut export", async () => {
    const d = fresh();
    await assert.rejects(summarizeSqlite(join(d, "none.sqlite")), code("NOT_FOUND", /cannot read .*ENOENT/));
    writeFileSync(join(d, "text.sqlite"), "hello, not a database\n".repeat(100));
    await assert.rejects(
      summarizeSqlite(join(d, "text.sqlite")),
      code("DAMAGED", /damaged or not an SQLite/),
    );
    const bytes = readFileSync(join(FIX, "step.sqlite"));
    writeFileSync(join(d, "cut.sqlite"), bytes.subarray(0, 100_000));
    await assert.rejects(summarizeSqlite(join(d, "cut.sqlite")), code("DAMAGED", /malformed/));
    await assert.rejects(
      loadNsysSummary(join(d, "r.csv"), { nsysPath: undefined }),
      code("NOT_NSYS", /expected a \.nsys-rep/),
    );
  });

  it("a .nsys-rep without nsys: says an SQLite export opens without it", async () => {
    const d = fresh();
    copyFileSync(join(FIX, "step.nsys-rep"), join(d, "r.nsys-rep"));
    await assert.rejects(
      loadNsysSummary(join(d, "r.nsys-rep"), { nsysPath: undefined }),
      code("NO_NSYS", /SQLite export/),
    );
    await assert.rejects(
      loadNsysSummary(join(d, "r.nsys-rep"), { nsysPath: join(d, "no-nsys") }),
      code("NO_NSYS", /not found/),
    );
  });

  it("a damaged .nsys-rep: nsys export's own words (real H100 output), no .sqlite left", async () => {
    const d = fresh();
    writeFileSync(join(d, "r.nsys-rep"), readFileSync(join(FIX, "step.nsys-rep")).subarray(0, 30_000));
    const said = readFileSync(join(FIX, "damaged.export.log"), "utf8").split("\n")[0]!;
    const nsys = script(join(d, "nsys"), `${OUT}\n: > "$out"\necho "${said}" >&2\nexit 1`);
    await assert.rejects(
      loadNsysSummary(join(d, "r.nsys-rep"), { nsysPath: nsys }),
      code(
        "EXPORT_FAILED",
        /exit code 1\): Exportation error: Section Table Reference magic number mismatch\. The report may be damaged/,
      ),
    );
    assert.deepEqual(readdirSync(d).sort(), ["nsys", "r.nsys-rep"]);
  });

  it("exports once, under a temporary name, then reuses the fresh export", async () => {
    const d = fresh();
    copyFileSync(join(FIX, "step.nsys-rep"), join(d, "r.nsys-rep"));
    const calls = join(d, "calls");
    const nsys = script(
      join(d, "nsys"),
      `${OUT}\necho "$@" >> "${calls}"\ncase "$out" in *.partial-*.sqlite) ;; *) exit 9;; esac\ncp "${join(FIX, "step.sqlite")}" "$out"`,
    );
    const s = await loadNsysSummary(join(d, "r.nsys-rep"), { nsysPath: nsys });
    assert.equal(s.kernelCount, 72);
    assert.equal(s.report, join(d, "r.nsys-rep"));
    await loadNsysSummary(join(d, "r.nsys-rep"), { nsysPath: nsys });
    assert.equal(readFileSync(calls, "utf8").trim().split("\n").length, 1, "the second read reused r.sqlite");
    assert.match(
      readFileSync(calls, "utf8"),
      /^export --type sqlite --force-overwrite true --output .*partial.*\.sqlite .*r\.nsys-rep$/m,
    );
    assert.deepEqual(readdirSync(d).sort(), ["calls", "nsys", "r.nsys-rep", "r.sqlite"]);
  });
});

describe("nsys faults: profiling", () => {
  it("the importer fails (real output of nsys 2025.3.1 without libdw): names the missing library, keeps nothing", async () => {
    const d = fresh();
    const bin = join(d, "nc", "host", "target-linux-x64");
    const host = join(d, "nc", "host", "linux-desktop-glibc_2_11_3-x64");
    mkdirSync(bin, { recursive: true });
    mkdirSync(host, { recursive: true });
    const said = readFileSync(join(FIX, "importer-failure.log"), "utf8").split("exit code")[0]!;
    writeFileSync(join(d, "said.txt"), said);
    const nsys = script(join(bin, "nsys"), `${OUT}\n: > "$out.qdstrm"\ncat "${join(d, "said.txt")}"\nexit 0`);
    const loader = readFileSync(join(FIX, "importer-ldd.log"), "utf8")
      .split("\n")
      .find((l) => l.includes("error while loading"))!;
    script(join(host, "QdstrmImporter"), `echo '${loader}' >&2\nexit 127`);
    const out = join(d, "out");
    await assert.rejects(
      nsysProfileReport({ nsysPath: nsys, command: ["python3", "step.py"], report: join(out, "r.nsys-rep") }),
      code(
        "IMPORTER",
        /importer \(.*QdstrmImporter\) cannot load libdw\.so\.1.*libdw1.*LD_LIBRARY_PATH.*Importer error status: An unknown error occurred/,
      ),
    );
    assert.deepEqual(readdirSync(out), [], "the .qdstrm was removed, no report appeared");
  });

  it("missingLibrary reads the loader's message", () => {
    assert.equal(missingLibrary(readFileSync(join(FIX, "importer-ldd.log"), "utf8")), "libdw.so.1");
    assert.equal(missingLibrary("Importer error status: An unknown error occurred."), undefined);
  });

  it("nsys killed mid-profile: says so, leaves no partial report", async () => {
    const d = fresh();
    const nsys = script(
      join(d, "nsys"),
      `${OUT}\nhead -c 5000 "${join(FIX, "step.nsys-rep")}" > "$out.nsys-rep"\nkill -KILL $$`,
    );
    await assert.rejects(
      nsysProfileReport({ nsysPath: nsys, command: ["./app"], report: join(d, "out", "r.nsys-rep") }),
      code("PROFILE_FAILED", /stopped by SIGKILL before writing a report; nothing was kept/),
    );
    assert.deepEqual(readdirSync(join(d, "out")), []);
  });

  it("a whole report is renamed into place; the program's own exit code is passed on", async () => {
    const d = fresh();
    const nsys = script(
      join(d, "nsys"),
      `${OUT}\ncp "${join(FIX, "step.nsys-rep")}" "$out.nsys-rep"\nexit 3`,
    );
    const r = await nsysProfileReport({
      nsysPath: nsys,
      command: ["./app"],
      report: join(d, "out", "r.nsys-rep"),
    });
    assert.equal(r.programExitCode, 3);
    assert.deepEqual(readdirSync(join(d, "out")), ["r.nsys-rep"]);
  });

  it("nsys missing, nothing to run", async () => {
    const report = join(fresh(), "r.nsys-rep");
    await assert.rejects(
      nsysProfileReport({ nsysPath: undefined, command: ["x"], report }),
      code("NO_NSYS", /not found/),
    );
    await assert.rejects(
      nsysProfileReport({ nsysPath: "/nonexistent/nsys", command: ["x"], report }),
      code("NO_NSYS", /not found/),
    );
    await assert.rejects(
      nsysProfileReport({ nsysPath: "nsys", command: [], report }),
      code("USAGE", /after --/),
    );
  });
});
