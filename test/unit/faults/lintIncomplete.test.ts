// A lint run that could not lint everything it was asked to says so: in the summary, as `not-linted`
// entries in JSON, in SARIF's invocation (executionSuccessful: false, one notification per path), and
// with exit code 5 (README, "Exit codes"). An unreadable folder is reported and the walk goes on.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { lintFiles } from "../../../server/lint/lintFiles";
import { notLinted, toSarif } from "../../../server/lint/report";
import { rules } from "../../../server/rules/index";
import type { Rule } from "../../../server/rules/rule";
import { runCli } from "../../support/cliRun";
import { tempDir } from "../../support/tempDir";

const root = tempDir("ckd-incomplete-");
after(() => {
  chmodAll(root);
  rmSync(root, { recursive: true, force: true });
});
// Every folder readable again, so the temp folder can be removed.
function chmodAll(dir: string): void {
  try {
    chmodSync(dir, 0o755);
  } catch {
    // gone already
  }
}

let n = 0;
/** A project under `root` (readable by all: the CLI may run as nobody); returns its folder. */
function project(files: Record<string, string>): string {
  const dir = join(root, `p${n++}`);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}
chmodSync(root, 0o755);

const KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 0.f; }\n";

describe("a lint run that could not lint everything", () => {
  it("an unreadable subfolder is reported and the walk goes on: exit 5, not exit 2", () => {
    const dir = project({ "a.cu": KERNEL, "locked/b.cu": KERNEL, "z/c.cu": KERNEL });
    chmodSync(join(dir, "locked"), 0o000);
    try {
      const r = runCli({ cwd: dir, asNobody: true }, "lint", "--no-gpu", ".");
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, /locked: not linted: cannot read the folder: EACCES/);
      assert.match(r.stdout, /^2 files: 0 error\(s\).*INCOMPLETE: 1 /m);
    } finally {
      chmodSync(join(dir, "locked"), 0o755);
    }
  });

  it("an unreadable file: a not-linted entry in JSON, an unsuccessful SARIF invocation, exit 5", () => {
    const dir = project({ "a.cu": KERNEL, "secret.cu": KERNEL });
    chmodSync(join(dir, "secret.cu"), 0o000);
    try {
      const json = runCli({ cwd: dir, asNobody: true }, "lint", "--no-gpu", "--format", "json", ".");
      assert.equal(json.code, 5, json.stderr);
      const entries = JSON.parse(json.stdout) as {
        file: string;
        rule: string;
        severity: string;
        message: string;
      }[];
      const missed = entries.filter((e) => e.rule === "not-linted");
      assert.equal(missed.length, 1);
      assert.equal(missed[0]!.file, "secret.cu");
      assert.equal(missed[0]!.severity, "error");
      assert.match(missed[0]!.message, /not linted: cannot read: EACCES/);
      const sarif = runCli({ cwd: dir, asNobody: true }, "lint", "--no-gpu", "--format", "sarif", ".");
      assert.equal(sarif.code, 5);
      const inv = (
        JSON.parse(sarif.stdout) as {
          runs: { invocations: { executionSuccessful: boolean; toolExecutionNotifications: unknown[] }[] }[];
        }
      ).runs[0]!.invocations[0]!;
      assert.equal(inv.executionSuccessful, false);
      assert.equal(inv.toolExecutionNotifications.length, 1);
    } finally {
      chmodSync(join(dir, "secret.cu"), 0o644);
    }
  });

  it("a file deleted before it is read, a parse past the time limit and a rule that threw are each not-linted", async () => {
    // A file so deep in nested brackets that no parse finishes within 0 ms.
    const dir = project({
      "ok.cu": KERNEL,
      "deep.cu": `int x = ${"(".repeat(20000)}1${")".repeat(20000)};\n`,
    });
    const gone = join(dir, "gone.cu");
    const thrower: Rule = {
      id: "throws",
      defaultSeverity: "warning",
      basis: "heuristic",
      summary: "always throws",
      check() {
        throw new RangeError("Maximum call stack size exceeded");
      },
    };
    const reports = await lintFiles([join(dir, "ok.cu"), gone], { rules: [thrower], archs: [90] });
    const timed = await lintFiles([join(dir, "deep.cu")], {
      rules,
      archs: [90],
      limits: { maxChars: Infinity, parseTimeoutMs: 0 },
    });
    const missed = notLinted([...reports, ...timed]);
    assert.deepEqual(
      missed.map((m) => [m.path, m.reason.replace(/:.*/s, "")]),
      [
        [join(dir, "ok.cu"), "rule throws failed"],
        [gone, "cannot read"],
        [join(dir, "deep.cu"), "not linted"],
      ],
    );
    assert.match(missed[2]!.reason, /parsing took longer than 0 ms/);
    const sarif = toSarif(reports, [thrower], dir, "0", missed) as {
      runs: { invocations: { toolExecutionNotifications: { associatedRule?: { id: string } }[] }[] }[];
    };
    assert.deepEqual(sarif.runs[0]!.invocations[0]!.toolExecutionNotifications[0]!.associatedRule, {
      id: "throws",
    });
  });

  it("a 130,000-name launch-check-macros list is cut to 1,000 with a warning; no rule fails", () => {
    const names = Array.from({ length: 130_000 }, (_, i) => `CHECK_${i}`);
    const dir = project({
      ".cuda-kernel-dev.toml": `[lint]\nlaunch-check-macros = ${JSON.stringify(names)}\n`,
      "k.cu": `${KERNEL}void run(float* x) { k<<<1, 32>>>(x); CHECK_7(); }\n`,
    });
    const r = runCli({ cwd: dir }, "lint", "--no-gpu", "--arch", "sm_90", "k.cu");
    assert.doesNotMatch(r.stderr, /failed|not linted/, r.stderr);
    assert.match(r.stderr, /launch-check-macros has 130000 names; only the first 1000 are used/);
    assert.equal(r.code, 0, r.stderr);
  });
});
