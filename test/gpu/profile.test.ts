// End to end on a GPU machine with Nsight Compute: `cuda-kernel-dev profile` compiles rms.cu with
// -lineinfo, profiles one rmsnorm_vec launch with ncu, exports the pages and prints the summary; the
// summary and the exported details must agree with `ncu --import R --print-summary per-kernel`, and
// the source page must put the samples on rms.cu's lines. Run from the bundle (test/gpu/run.sh).
// Skips, saying so, where ncu is missing (a failure under CKD_REQUIRE=ncu, which run.sh sets).
import assert from "node:assert/strict";
import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseNcuCsv, metricKey, type NcuDetailsLaunch } from "../../server/profile/ncuCsv";
import { parseNcuSource } from "../../server/profile/ncuSource";
import type { KernelSummary } from "../../server/profile/ncuSummary";
import { unitFactor } from "../../server/profile/units";
import { programMissing, skipWithout } from "../support/needs";
import { compareWithPrintSummary, readPrintSummary } from "../unit/profile/printSummary";
import { nvcc, repoRoot } from "./paths";

const ncu = process.env["NCU"] ?? "ncu";
const skip = skipWithout("ncu", programMissing(ncu, "set NCU"));

/** Runs `cuda-kernel-dev profile <file> --kernel <kernel> ... --json` from the built CLI. */
function profileCli(file: string, kernel: string, out: string, args: string[]): SpawnSyncReturns<string> {
  const cli = join(repoRoot, "dist", "cli.js");
  const all = ["profile", join(repoRoot, file), "--kernel", kernel, ...args, "--out", out];
  return spawnSync(process.execPath, [cli, ...all, "--ncu", ncu, "--nvcc", nvcc, "--json"], {
    encoding: "utf8",
    timeout: 300_000,
  });
}

/** The one kernel's summary and the report the CLI names on stderr. */
function onlyKernel(r: SpawnSyncReturns<string>): { k: KernelSummary; rep: string } {
  assert.equal(r.status, 0, r.stderr);
  const { kernels } = JSON.parse(r.stdout) as { kernels: KernelSummary[] };
  assert.equal(kernels.length, 1);
  const rep = /^report: (.+)$/m.exec(r.stderr)?.[1];
  assert.ok(rep && existsSync(rep), `report path in: ${r.stderr}`);
  return { k: kernels[0]!, rep };
}

/** The summary's speed-of-light figures against ncu's own --print-summary, within its rounding. */
function agreesWithPrintSummary(k: KernelSummary, rep: string): ReturnType<typeof readPrintSummary> {
  const summaryText = execFileSync(ncu, ["--import", rep, "--print-summary", "per-kernel"], {
    encoding: "utf8",
  });
  const summaryPath = rep.replace(/\.ncu-rep$/, ".print-summary.txt");
  writeFileSync(summaryPath, summaryText);
  const ref = readPrintSummary(summaryPath);
  assert.equal(ref.length, 1);
  const sol = ref[0]!.sections.get("GPU Speed Of Light Throughput")!;
  const us = sol.get("Duration")!;
  const factor = unitFactor(us.unit)!.factor;
  assert.ok(k.durationNs !== null);
  assert.ok(
    Math.abs(k.durationNs - us.avg * factor) <= 0.0101 * factor,
    `${k.durationNs} vs ${us.avg} ${us.unit}`,
  );
  assert.ok(Math.abs(k.memoryThroughputPct! - sol.get("Memory Throughput")!.avg) <= 0.0101);
  assert.ok(Math.abs(k.computeThroughputPct! - sol.get("Compute (SM) Throughput")!.avg) <= 0.0101);
  return ref;
}

describe("cuda-kernel-dev profile (real ncu): a program with main", { skip }, () => {
  it("profiles rmsnorm_vec end to end and agrees with ncu --print-summary", async () => {
    const out = process.env["PROFILE_OUT"] ?? mkdtempSync(join(tmpdir(), "ckd-profile-"));
    const args = ["--set", "full", "--skip", "3", "--count", "1"];
    const r = profileCli("test/fixtures/profile/rms.cu", "rmsnorm_vec", out, args);
    writeFileSync(join(out, "cli.stdout.json"), r.stdout);
    writeFileSync(join(out, "cli.stderr.txt"), r.stderr);
    const { k, rep } = onlyKernel(r);
    assert.match(k.kernel, /^rmsnorm_vec\(/);
    assert.deepEqual(k.blockSize, [256, 1, 1]);
    assert.deepEqual(k.gridSize, [8192, 1, 1]);
    assert.ok(k.durationNs !== null && k.durationNs > 1_000, `duration ${k.durationNs}`);
    const ref = agreesWithPrintSummary(k, rep);

    const details = (await parseNcuCsv({ path: rep.replace(/\.ncu-rep$/, ".details.csv") }))
      .launches as NcuDetailsLaunch[];
    const cmp = compareWithPrintSummary(details, ref, metricKey, unitFactor);
    assert.deepEqual(cmp.mismatches, []);
    assert.ok(cmp.compared > 50, `compared ${cmp.compared}`);

    const src = await parseNcuSource({ path: rep.replace(/\.ncu-rep$/, ".source.csv") });
    const file = src.files.find((f) => f.path.endsWith("rms.cu"));
    assert.ok(file, `files: ${src.files.map((f) => f.path).join(", ")}`);
    assert.ok(file.totalSamples > 0);
  });
});

describe("cuda-kernel-dev profile (real ncu): an @bench kernel through the runner", { skip }, () => {
  it("profiles an @bench kernel of a kernel-only file through the runner (examples/rmsnorm.cu)", async () => {
    const out = mkdtempSync(join(tmpdir(), "ckd-profile-bench-"));
    const r = profileCli("examples/rmsnorm.cu", "rmsnorm_kernel", out, ["--set", "detailed"]);
    const { k, rep } = onlyKernel(r);
    assert.match(k.kernel, /rmsnorm_kernel/);
    assert.ok(k.durationNs !== null && k.durationNs > 0);
    const src = await parseNcuSource({ path: rep.replace(/\.ncu-rep$/, ".source.csv") });
    assert.ok(
      src.files.some((f) => f.path.endsWith("rmsnorm.cu") && f.totalSamples > 0),
      src.files.map((f) => f.path).join(", "),
    );
  });
});
