// The event-overhead calibration (server/bench/calibration.ts): the correction's arithmetic, where the
// calibration is kept and for which GPU and driver it holds, a malformed file ignored with a note,
// and what a benchmark run reports with and without one (a fake runner; the real nvcc compiles).
import { test } from "node:test";
import type { BenchmarkResult } from "../../../native/runner/protocol";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  calibrationNote,
  calibrationPath,
  correctStats,
  loadCalibration,
  saveCalibration,
  UNCALIBRATED_NOTE,
} from "../../../server/bench/calibration";
import { EMPTY_SYMBOL, eventFigure } from "../../../server/bench/emptyKernel";
import { formatTable } from "../../../server/bench/report";
import { runBenchmark } from "../../../server/bench/runBench";
import { midMean } from "../../../native/runner/stats";
import { median, ncuArgs } from "../../../server/profile/calibrate";
import { FakeRunner, H200_CALIBRATION, ok, stats } from "./fakeRunner";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const fixture = join(__dirname, "../../fixtures/bench/scale.cu");
const cacheDir = tempDir("ckd-cubin-");
const fresh = () => join(tempDir("ckd-cal-"), "timing-calibration.json");

/** scale.cu benchmarked against a fake runner answering `answer`, with the calibration file at `path`. */
const run = (answer: BenchmarkResult, calibrationPath: string, runner = new FakeRunner(() => answer)) =>
  runBenchmark({
    file: fixture,
    kernel: "scale_f32",
    runner,
    cacheDir,
    calibrationPath,
  });

const h200cal = H200_CALIBRATION;

test("the correction takes the offset off every time, never below 0, and keeps the raw median and the spread", () => {
  const s = { ...stats(4000), minNs: 3000, maxNs: 5000, meanNs: 4100 };
  const c = correctStats(s, 900);
  assert.deepEqual([c.medianNs, c.minNs, c.maxNs, c.meanNs, c.eventMedianNs], [3100, 2100, 4100, 3200, 4000]);
  assert.deepEqual(
    [c.stdevNs, c.rsdPct, c.samples, c.stoppedBy],
    [s.stdevNs, s.rsdPct, s.samples, s.stoppedBy],
  );
  const tiny = correctStats({ ...stats(500), minNs: 400 }, 900);
  assert.deepEqual([tiny.medianNs, tiny.minNs, tiny.eventMedianNs], [0, 0, 500]);
});

test("the notes: the offset and the date when calibrated, how to calibrate when not", () => {
  assert.equal(
    calibrationNote({ offsetNs: 890, eventNs: 3100, ncuNs: 2210, calibratedAt: "2026-11-24T11:00:00Z" }),
    "event overhead −0.89 µs, calibrated with ncu on 2026-11-24",
  );
  assert.equal(calibrationNote(undefined), UNCALIBRATED_NOTE);
  assert.match(UNCALIBRATED_NOTE, /~1 µs high: run `cuda-kernel-dev bench --calibrate`/);
});

test("kept in the user's cache folder, never the workspace", () => {
  assert.equal(calibrationPath({ XDG_CACHE_HOME: "/c" }), "/c/cuda-kernel-dev/timing-calibration.json");
  assert.match(calibrationPath({ HOME: "/h" }), /\/\.cache\/cuda-kernel-dev\/timing-calibration\.json$/);
});

test("a calibration holds for its GPU and driver only; saving replaces that one and keeps the others", async () => {
  const path = fresh();
  assert.deepEqual(await loadCalibration("NVIDIA H200", 13000, path), {}, "no file: nothing, no note");
  await saveCalibration(h200cal, path);
  await saveCalibration({ ...h200cal, gpu: "NVIDIA H100 80GB HBM3", offsetNs: 800 }, path);
  await saveCalibration({ ...h200cal, offsetNs: 950 }, path);
  assert.equal((await loadCalibration("NVIDIA H200", 13000, path)).calibration?.offsetNs, 950);
  assert.equal((await loadCalibration("NVIDIA H100 80GB HBM3", 13000, path)).calibration?.offsetNs, 800);
  assert.deepEqual(await loadCalibration("NVIDIA H200", 12080, path), {}, "another driver");
  assert.deepEqual(await loadCalibration("NVIDIA A100", 13000, path), {}, "another GPU");
  assert.deepEqual(await loadCalibration("NVIDIA H200", null, path), {}, "an unknown driver");
  const file = JSON.parse(readFileSync(path, "utf8")) as { calibrations: unknown[] };
  assert.equal(file.calibrations.length, 2);
});

test("a malformed calibration file is ignored, with a note saying so", async () => {
  for (const text of [
    "{not json",
    '{"schema": 2, "calibrations": []}',
    '{"schema": 1, "calibrations": [{"gpu": "NVIDIA H200"}]}',
  ]) {
    const path = fresh();
    writeFileSync(path, text);
    const r = await loadCalibration("NVIDIA H200", 13000, path);
    assert.equal(r.calibration, undefined, text);
    assert.match(
      r.note ?? "",
      /^timing calibration .*timing-calibration\.json is malformed \(.+\), ignored$/,
      text,
    );
  }
});

test("a run on a calibrated GPU reports times less the offset, the raw medians, the offset and its note", async () => {
  const path = fresh();
  await saveCalibration(h200cal, path);
  const r = await run(ok(4000, 6000), path);
  const p = r.points[0]!;
  assert.deepEqual([p.kernel?.medianNs, p.kernel?.eventMedianNs], [3100, 4000]);
  assert.deepEqual([p.baseline?.medianNs, p.baseline?.eventMedianNs], [5100, 6000]);
  assert.equal(p.speedup, 5100 / 3100, "worked out again from the corrected medians");
  assert.equal(p.gbPerSec, (8 * (1 << 20)) / 3100);
  // The fake runner's empty kernel reads the calibration's eventNs: this run's offset is the cached one.
  assert.deepEqual(r.calibration, {
    offsetNs: 900,
    eventNs: 3100,
    ncuNs: 2200,
    calibratedAt: h200cal.calibratedAt,
    runEventNs: 3100,
  });
  const note =
    "event overhead −0.90 µs (this run's empty kernel less ncu's), calibrated with ncu on 2026-11-24";
  assert.equal(r.timingNote, note);
  assert.ok(formatTable(r).split("\n").includes(note));
  // Timed without the blocking kernel, the launch latency is in the times: not corrected.
  const unblocked = { ...ok(40_000, 60_000), kernel: { ...stats(40_000), blocked: false } };
  const u = await run(unblocked, path);
  assert.deepEqual([u.points[0]!.kernel?.medianNs, u.points[0]!.kernel?.eventMedianNs], [40_000, undefined]);
  assert.equal(u.points[0]!.baseline?.medianNs, 59_100);
});

test("a calibrated run times the empty kernel in its own runner process: offset = its event time − ncu's", async () => {
  const path = fresh();
  await saveCalibration(h200cal, path);
  const runner = new FakeRunner(() => ok(4000, 6000));
  runner.emptyNs = 3300; // this process's overhead, 200 ns above the calibration's process
  const r = await run(ok(4000, 6000), path, runner);
  assert.equal(runner.empties.length, 1, "once per run, before the sizes");
  const e = runner.empties[0]!;
  assert.deepEqual([e.kernel.symbol, e.kernel.grid, e.kernel.block], [EMPTY_SYMBOL, [1, 1, 1], [1, 1, 1]]);
  assert.equal(e.timing.maxSamples, 200, "a short timing: its median is steady within a process");
  assert.ok(existsSync(e.cubinPath) && e.cubinPath.startsWith(cacheDir), "compiled once into the cache");
  assert.deepEqual([r.calibration?.offsetNs, r.calibration?.runEventNs], [1100, 3300]);
  assert.deepEqual([r.points[0]!.kernel?.medianNs, r.points[0]!.baseline?.medianNs], [2900, 4900]);
  assert.match(r.timingNote ?? "", /^event overhead −1\.10 µs \(this run's empty kernel less ncu's\)/);

  runner.emptyNs = 2000; // below ncu's 2200: no negative offset, the cached one stands
  const below = await run(ok(4000, 6000), path, runner);
  assert.deepEqual([below.calibration?.offsetNs, below.calibration?.runEventNs], [900, undefined]);
  assert.equal(below.timingNote, "event overhead −0.90 µs, calibrated with ncu on 2026-11-24");

  const cached = await runBenchmark({
    file: fixture,
    kernel: "scale_f32",
    runner,
    cacheDir,
    calibrationPath: path,
    eventOverheadPerRun: false,
  });
  assert.equal(runner.empties.length, 2, "not timed when the caller asks for the cached offset");
  assert.equal(cached.calibration?.offsetNs, 900);

  const none = new FakeRunner(() => ok(4000, 6000));
  await run(ok(4000, 6000), fresh(), none);
  assert.equal(none.empties.length, 0, "uncalibrated: nothing to time");
});

test("this run's empty kernel counts by its mid-mean: its median snaps to the events' 32 ns ticks", async () => {
  const path = fresh();
  await saveCalibration(h200cal, path);
  const runner = new FakeRunner((req) =>
    req.kernel.symbol === EMPTY_SYMBOL
      ? { ...ok(0, 0), kernel: { ...stats(3232), midMeanNs: 3172, blocked: true } }
      : ok(4000, 6000),
  );
  runner.emptyNs = undefined;
  const r = await run(ok(4000, 6000), path, runner);
  assert.deepEqual([r.calibration?.offsetNs, r.calibration?.runEventNs], [972, 3172]);
  assert.equal(r.points[0]!.kernel?.medianNs, 4000 - 972);
  assert.equal(eventFigure(stats(3232)), 3232, "a runner from before mid-means: the median");
});

test("an empty kernel the runner cannot hold behind the blocking kernel: the cached offset, with a note", async () => {
  const path = fresh();
  await saveCalibration(h200cal, path);
  const runner = new FakeRunner((req) =>
    req.kernel.symbol === EMPTY_SYMBOL
      ? { ...ok(0, 0), kernel: { ...stats(9000), blocked: false } }
      : ok(4000, 6000),
  );
  runner.emptyNs = undefined;
  const r = await run(ok(4000, 6000), path, runner);
  assert.equal(r.calibration?.offsetNs, 900);
  assert.match(
    r.timingNote ?? "",
    /^the empty kernel could not be timed in this run \(.*blocking kernel.*\): the cached offset applies; event overhead −0\.90 µs/,
  );
});

test("without a calibration (or with a broken file) the figures are the events' and the note says how to calibrate", async () => {
  const r = await run(ok(4000, 6000), fresh());
  assert.equal(r.points[0]!.kernel?.medianNs, 4000);
  assert.equal(r.points[0]!.kernel?.eventMedianNs, undefined);
  assert.equal(r.points[0]!.speedup, 1.5);
  assert.equal(r.calibration, undefined);
  assert.equal(r.timingNote, UNCALIBRATED_NOTE);
  assert.ok(formatTable(r).endsWith(UNCALIBRATED_NOTE));
  const broken = fresh();
  writeFileSync(broken, "[]");
  const b = await run(ok(4000, 6000), broken);
  assert.match(b.timingNote ?? "", /is malformed \(.+\), ignored; small kernels read ~1 µs high/);
});

test("ncu measures like bench:gpu's comparison: clocks free, caches flushed, the duration only, the empty kernel's launches", () => {
  const args = ncuArgs("/tmp/r");
  for (const [flag, value] of [
    ["--clock-control", "none"],
    ["--cache-control", "all"],
    ["--metrics", "gpu__time_duration.sum"],
    ["-k", "ckd_calibration_empty"],
    ["-c", "20"],
  ])
    assert.equal(args[args.indexOf(flag!) + 1], value, flag);
  assert.deepEqual([median([3, 1, 2]), median([4, 1, 3, 2])], [2, 2.5]);
});

test("ncu's figure of the empty kernel is the mean of its middle launches: 32 ns ticks average out, strays drop", () => {
  // 20 launches of 2.080 / 2.112 µs ticks: the median is one tick, the mid-mean between them.
  const launches = [...Array<number>(9).fill(2080), ...Array<number>(9).fill(2112), 1900, 9000];
  assert.equal(median(launches), 2096);
  assert.equal(midMean(launches), (5 * 2080 + 5 * 2112) / 10);
  assert.equal(midMean([2080, 2080, 2112, 2112, 2112, 2112, 2112, 50_000]), 2112);
  assert.equal(midMean([3000]), 3000);
});
