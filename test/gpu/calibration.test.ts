// `cuda-kernel-dev bench --calibrate` on a GPU machine with Nsight Compute: the empty kernel timed by
// events and by ncu, the offset kept in the (temporary) user cache folder, and a benchmark run there
// afterwards timing the empty kernel again in its own runner process and reporting times less that
// time less ncu's, with the raw event median beside them. Skips, saying so, where ncu is missing
// (a failure under CKD_REQUIRE=ncu, which test/gpu/run.sh sets). Runs the built CLI (dist/cli.js)
// from the bundle (test/gpu/run.sh).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { TimingCalibration } from "../../server/bench/calibration";
import type { BenchRunResults } from "../../server/bench/results";
import { programMissing, skipWithout } from "../support/needs";
import { nvcc, repoRoot } from "./paths";

const ncu = process.env["NCU"] ?? "ncu";
const cache = mkdtempSync(join(tmpdir(), "ckd-gpu-xdg-"));
const env = { ...process.env, XDG_CACHE_HOME: cache };
const cli = (args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot, "dist", "cli.js"), ...args], {
    encoding: "utf8",
    env,
    timeout: 300_000,
  });

describe("bench --calibrate", { skip: skipWithout("ncu", programMissing(ncu, "set NCU")) }, () => {
  it("keeps an event overhead of a few hundred ns to a few µs, and later runs take it off", () => {
    const r = cli(["bench", "--calibrate", "--json", "--ncu", ncu, "--nvcc", nvcc]);
    assert.equal(r.status, 0, r.stderr);
    const c = JSON.parse(r.stdout) as TimingCalibration & { path: string };
    console.log(`calibration: events ${c.eventNs} ns, ncu ${c.ncuNs} ns, offset ${c.offsetNs} ns`);
    assert.ok(c.offsetNs > 0 && c.offsetNs < 5000, `offset ${c.offsetNs} ns`);
    assert.ok(c.ncuNs > 500 && c.ncuNs < 10_000, `ncu ${c.ncuNs} ns`);
    assert.equal(c.ncuLaunches, 20);
    assert.equal(c.path, join(cache, "cuda-kernel-dev", "timing-calibration.json"));
    const kept = JSON.parse(readFileSync(c.path, "utf8")) as { calibrations: TimingCalibration[] };
    assert.equal(kept.calibrations.length, 1);
    assert.equal(kept.calibrations[0]!.offsetNs, c.offsetNs);

    const work = mkdtempSync(join(tmpdir(), "ckd-gpu-ws-"));
    const file = join(repoRoot, "test/fixtures/bench/scale.cu");
    const b = cli(["bench", file, "--kernel", "scale_f32", "--json", "--nvcc", nvcc, "--workspace", work]);
    assert.ok(b.status === 0 || b.status === 1, b.stderr);
    const res = JSON.parse(b.stdout) as BenchRunResults;
    // This run timed the empty kernel in its own runner process: its offset is that less ncu's figure.
    const applied = res.calibration!;
    assert.equal(applied.ncuNs, c.ncuNs);
    assert.ok(applied.runEventNs !== undefined && applied.runEventNs > c.ncuNs, JSON.stringify(applied));
    assert.equal(applied.offsetNs, applied.runEventNs - c.ncuNs);
    console.log(`# this run: empty kernel ${applied.runEventNs} ns by events, offset ${applied.offsetNs} ns`);
    assert.ok(Math.abs(applied.runEventNs - c.eventNs) < 500, "the same overhead within a few ticks");
    assert.match(
      res.timingNote ?? "",
      /^event overhead −\d+\.\d\d µs \(this run's empty kernel less ncu's\), calibrated with ncu on \d{4}-\d\d-\d\d$/,
    );
    const k = res.points[0]!.kernel!;
    assert.equal(k.medianNs, Math.max(0, k.eventMedianNs! - applied.offsetNs));
  });
});
