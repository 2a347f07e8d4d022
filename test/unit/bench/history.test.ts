import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { appendHistory, historyOf, historyPath, readHistory } from "../../../server/bench/history";
import { recordRun } from "../../../server/bench/recordRun";
import type { HistoryEntry } from "../../../server/bench/results";
import { tempDir } from "../../support/tempDir";

const entry = (kernel: string, medianNs: number): HistoryEntry => ({
  schema: 1,
  time: "2026-11-22T04:00:00.000Z",
  file: "rmsnorm.cu",
  kernel,
  instance: kernel,
  gitCommit: "0123abc",
  gpu: "NVIDIA H200",
  computeCapability: "9.0",
  driverVersion: 13000,
  smClockKHz: 1980000,
  memClockKHz: 3201000,
  points: [{ label: "rows=1024", medianNs, pass: true }],
});

function run(args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(__dirname, "historyWriter.ts"), ...args], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", resolve);
  });
}

test("appends and reads back, per kernel, oldest first", async () => {
  const ws = tempDir("ckd-hist-");
  assert.deepEqual((await readHistory(ws)).entries, []);
  await appendHistory(ws, entry("a", 10));
  await appendHistory(ws, entry("b", 20));
  await appendHistory(ws, entry("a", 30));
  const { entries } = await readHistory(ws);
  assert.deepEqual(
    historyOf(entries, "rmsnorm.cu", "a").map((e) => e.points[0]!.medianNs),
    [10, 30],
  );
  assert.equal(historyPath(ws), join(ws, ".cuda-kernel-dev", "bench-history.jsonl"));
});

test("concurrent runs from several processes never corrupt the file", async () => {
  const ws = tempDir("ckd-hist-");
  const writers = 6;
  const each = 25;
  const codes = await Promise.all(
    Array.from({ length: writers }, (_, i) => run([ws, String(each), String(i)])),
  );
  assert.deepEqual(codes, Array(writers).fill(0));
  const text = readFileSync(historyPath(ws), "utf8");
  const lines = text.split("\n").filter(Boolean);
  assert.equal(lines.length, writers * each);
  for (const l of lines) JSON.parse(l); // every line whole
  const { entries, setAside } = await readHistory(ws);
  assert.equal(setAside, undefined);
  for (let i = 0; i < writers; i++) {
    const mine = entries.filter((e) => e.kernel === `writer${i}`);
    assert.equal(mine.length, each);
    // One process's runs stay in the order it wrote them.
    assert.deepEqual(
      mine.map((e) => e.points[0]!.label),
      Array.from({ length: each }, (_, r) => `n=0 writer=${i} run=${r}`),
    );
  }
});

test("a corrupt file is kept aside, its good lines carried over, and a fresh one started", async () => {
  const ws = tempDir("ckd-hist-");
  mkdirSync(join(ws, ".cuda-kernel-dev"));
  const good = JSON.stringify(entry("a", 10));
  const damaged = `${good}\n<<<<<<< HEAD\n{"schema":1,"time":\n${JSON.stringify(entry("a", 20))}\n`;
  writeFileSync(historyPath(ws), damaged);
  const r = await readHistory(ws);
  assert.deepEqual(
    r.entries.map((e) => e.points[0]!.medianNs),
    [10, 20],
  );
  assert.ok(r.setAside, "set aside");
  assert.equal(readFileSync(r.setAside, "utf8"), damaged, "the damaged file is kept byte for byte");
  assert.match(r.setAside, /bench-history\.corrupt-.*\.jsonl$/);
  const fresh = readFileSync(historyPath(ws), "utf8").split("\n").filter(Boolean);
  assert.equal(fresh.length, 2);
  assert.deepEqual((await readHistory(ws)).setAside, undefined, "the fresh file is clean");
});

test("a torn last line (a writer died mid-write) is repaired before the next append", async () => {
  const ws = tempDir("ckd-hist-");
  mkdirSync(join(ws, ".cuda-kernel-dev"));
  const good = JSON.stringify(entry("a", 10));
  writeFileSync(historyPath(ws), `${good}\n${good.slice(0, 40)}`);
  const res = await appendHistory(ws, entry("a", 30));
  assert.ok(res.setAside);
  const { entries, setAside } = await readHistory(ws);
  assert.equal(setAside, undefined);
  assert.deepEqual(
    entries.map((e) => e.points[0]!.medianNs),
    [10, 30],
  );
  assert.equal(readdirSync(join(ws, ".cuda-kernel-dev")).filter((f) => f.includes("corrupt")).length, 1);
});

test("recording a run: this kernel's history back; an unwritable history is a warning, not a lost run", async () => {
  const ws = tempDir("ckd-hist-");
  await recordRun(ws, entry("other", 5));
  await recordRun(ws, entry("a", 10));
  const r = await recordRun(ws, entry("a", 20));
  assert.equal(r.warning, undefined);
  assert.deepEqual(
    r.history.map((e) => e.points[0]!.medianNs),
    [10, 20],
  );

  // A file where the history folder should be: appending fails (as on a read-only workspace).
  const blocked = tempDir("ckd-hist-");
  writeFileSync(join(blocked, ".cuda-kernel-dev"), "not a folder");
  const b = await recordRun(blocked, entry("a", 30));
  assert.deepEqual(
    b.history.map((e) => e.points[0]!.medianNs),
    [30],
    "the run itself is kept",
  );
  assert.match(
    b.warning ?? "",
    /^this run was not added to the benchmark history \(.*bench-history\.jsonl\): /,
  );

  // A damaged file: set aside, and said so.
  const damaged = tempDir("ckd-hist-");
  mkdirSync(join(damaged, ".cuda-kernel-dev"));
  writeFileSync(historyPath(damaged), `${JSON.stringify(entry("a", 1))}\n{"torn`);
  const d = await recordRun(damaged, entry("a", 2));
  assert.match(
    d.warning ?? "",
    /the benchmark history was damaged; it was kept as .*corrupt.* and a fresh one started/,
  );
  assert.deepEqual(
    d.history.map((e) => e.points[0]!.medianNs),
    [1, 2],
  );
});
