// Faults in the workspace's own files: a read-only workspace (the benchmark history and the
// profile export folders cannot be written) and a corrupt history. Each ends in a message, never
// in a lost run or a lost file.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { historyPath, readHistory } from "../../../server/bench/history";
import { recordRun } from "../../../server/bench/recordRun";
import type { HistoryEntry } from "../../../server/bench/results";
import { exportPage, NcuError, profile } from "../../../server/profile/ncuCli";
import { makeReadOnly } from "../../support/readOnly";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const root = tempDir("ckd-faults-ws-");
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => {
  const d = join(root, `ws${n++}`);
  mkdirSync(d);
  return d;
};

function entry(kernel: string, median: number): HistoryEntry {
  return {
    schema: 1,
    time: new Date(Date.UTC(2026, 10, 22, 4, n)).toISOString(),
    file: "rms.cu",
    kernel,
    instance: kernel,
    gpu: "NVIDIA H200",
    computeCapability: "9.0",
    driverVersion: 13000,
    smClockKHz: 1980000,
    memClockKHz: 3201000,
    points: [{ label: "n=1024", medianNs: median, pass: true }],
  };
}

describe("a read-only workspace", () => {
  it("a finished benchmark is still shown; the history says why it was not saved", async () => {
    const ws = fresh();
    const undo = await makeReadOnly(ws);
    try {
      const run = entry("rmsnorm", 76000);
      const r = await recordRun(ws, run);
      assert.deepEqual(r.history, [run]);
      assert.match(
        r.warning ?? "",
        /was not added to the benchmark history \(.*bench-history\.jsonl\): (the file system is read-only|permission denied|the operation is not permitted)/,
      );
    } finally {
      await undo();
    }
  });

  it("a damaged history in it is read (good lines) and left exactly as it was", async () => {
    const ws = fresh();
    const good = JSON.stringify(entry("rmsnorm", 76000));
    mkdirSync(join(ws, ".cuda-kernel-dev"));
    const text = `${good}\n{"torn": \n${good}\n`;
    writeFileSync(historyPath(ws), text);
    const undo = await makeReadOnly(ws);
    try {
      const r = await readHistory(ws);
      assert.equal(r.entries.length, 2);
      assert.equal(readFileSync(historyPath(ws), "utf8"), text);
    } finally {
      await undo();
    }
  });

  it("an ncu export into a read-only folder is a clear error and leaves no partial file", async () => {
    const ws = fresh();
    const fakeNcu = join(root, "fake-ncu-export.sh");
    writeFileSync(fakeNcu, '#!/bin/sh\necho \'"ID","Kernel Name"\'\n');
    chmodSync(fakeNcu, 0o755);
    const undo = await makeReadOnly(ws);
    try {
      await assert.rejects(
        exportPage(fakeNcu, join(ws, "r.ncu-rep"), "details", join(ws, "r.details.csv")),
        /could not be written to .*r\.details\.csv/,
      );
      assert.deepEqual(readdirSync(ws), []);
    } finally {
      await undo();
    }
  });
  it("profiling into a read-only workspace says the report folder cannot be created; ncu never starts", async () => {
    const ws = fresh();
    const marker = join(root, "ncu-started");
    const fakeNcu = join(root, "fake-ncu-profile.sh");
    writeFileSync(fakeNcu, `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(fakeNcu, 0o755);
    const undo = await makeReadOnly(ws);
    try {
      await assert.rejects(
        profile({
          ncuPath: fakeNcu,
          command: ["./app"],
          report: join(ws, ".cuda-kernel-dev", "profiles", "r"),
          set: "basic",
          clockControl: "base",
        }),
        (e) =>
          e instanceof NcuError &&
          /cannot create the report folder .*profiles: (the file system is read-only|permission denied)/.test(
            e.message,
          ),
      );
      assert.equal(existsSync(marker), false);
    } finally {
      await undo();
    }
  });
});

describe("a corrupt history file", () => {
  it("is kept aside byte for byte, a fresh one starts with its good lines and the new run", async () => {
    const ws = fresh();
    mkdirSync(join(ws, ".cuda-kernel-dev"));
    const old = entry("rmsnorm", 76000);
    const text = `${JSON.stringify(old)}\n<<<<<<< HEAD\nnot json\n`;
    writeFileSync(historyPath(ws), text);
    const run = entry("rmsnorm", 75000);
    const r = await recordRun(ws, run);
    assert.match(
      r.warning ?? "",
      /damaged; it was kept as .*bench-history\.corrupt-.*\.jsonl and a fresh one started/,
    );
    const aside = readdirSync(join(ws, ".cuda-kernel-dev")).filter((f) => f.includes("corrupt"));
    assert.equal(aside.length, 1);
    // The damaged file as it was (the new run was appended before the damage was noticed).
    assert.ok(readFileSync(join(ws, ".cuda-kernel-dev", aside[0]!), "utf8").startsWith(text));
    assert.deepEqual(
      r.history.map((h) => h.points[0]!.medianNs),
      [76000, 75000],
    );
    assert.ok(existsSync(historyPath(ws)));
  });
});
