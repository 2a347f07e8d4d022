import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../support/tempDir";

const root = join(__dirname, "../../..");
const cli = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", join(root, "server/cli/main.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 << 20, // --batch over the sweep prints ~8 MB
  });

void test("occupancy --json gives the calculator's result", () => {
  const r = cli("occupancy", "--arch", "sm_90", "--regs", "64", "--block", "256", "--json");
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { activeBlocksPerSM: number; occupancyPct: number; limitedBy: string };
  assert.equal(out.activeBlocksPerSM, 4);
  assert.equal(out.occupancyPct, 50);
  assert.equal(out.limitedBy, "registers");
});

void test("occupancy --batch prints one JSON object per row in order; a bad row is reported in place", () => {
  const dir = tempDir("occ-");
  const csv = join(dir, "rows.csv");
  writeFileSync(
    csv,
    "arch,regs,staticSmem,block,dynamicSmem\nsm_90,20,40000,256,0\nsm_75,32,0,1024,0\nsm_42,32,0,128,0\nsm_80,32,0,128,abc\n",
  );
  const r = cli("occupancy", "--batch", csv);
  assert.equal(r.status, 1);
  const lines = r.stdout
    .trim()
    .split("\n")
    .map(
      (x) =>
        JSON.parse(x) as {
          row: number;
          activeBlocksPerSM?: number;
          occupancyPct?: number;
          limitedBy?: string;
          error?: string;
        },
    );
  assert.deepEqual(
    lines.map((x) => x.row),
    [1, 2, 3, 4],
  );
  assert.equal(lines[0]!.activeBlocksPerSM, 5);
  assert.equal(lines[0]!.limitedBy, "sharedMemory");
  assert.equal(lines[1]!.occupancyPct, 100);
  assert.match(lines[2]!.error ?? "", /unknown architecture "sm_42"/);
  assert.match(lines[3]!.error ?? "", /dynamicSmem must be an integer/);
});

void test("occupancy: missing options and unreadable batch files are one-line errors", () => {
  const noArch = cli("occupancy", "--regs", "32", "--block", "128");
  assert.equal(noArch.status, 2);
  assert.match(noArch.stderr, /--arch is required/);
  const noRegs = cli("occupancy", "--arch", "sm_90", "--block", "128");
  assert.match(noRegs.stderr, /--regs is missing/);
  const missing = cli("occupancy", "--batch", "/nonexistent.csv");
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--batch \/nonexistent\.csv: ENOENT/);
  const dir = tempDir("occ-");
  writeFileSync(join(dir, "bad.csv"), "arch,regs\nsm_90,32\n");
  assert.match(
    cli("occupancy", "--batch", join(dir, "bad.csv")).stderr,
    /missing column\(s\) staticSmem, block, dynamicSmem/,
  );
});

void test("resources: real nvcc, per kernel and architecture, as JSON", () => {
  const r = cli("resources", "test/fixtures/compiler/rmsnorm.cu", "--arch", "sm_80,sm_90", "--json");
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as {
    results: { arch: string; ok: boolean; kernels: { name: string; sharedBytes: number }[] }[];
  };
  assert.deepEqual(
    out.results.map((x) => [x.arch, x.ok]),
    [
      ["sm_80", true],
      ["sm_90", true],
    ],
  );
  for (const x of out.results)
    assert.deepEqual(x.kernels.map((kk) => kk.name).sort(), ["rmsnorm_scalar", "rmsnorm_vec"]);
});

void test("resources: a file that does not compile exits 4 with file:line errors", () => {
  const r = cli("resources", "test/fixtures/compiler/broken/too_much_shared.cu", "--arch", "sm_90");
  assert.equal(r.status, 4);
  assert.match(
    r.stderr,
    /too_much_shared\.cu:2:\d+: error: sm_90: Entry function 'stage' uses too much shared data/,
  );
});

void test("occupancy --batch over the whole H100 sweep fixture gives the driver's answer on every row", () => {
  const r = cli("occupancy", "--batch", "test/fixtures/occupancy/sweep-sm_90.csv");
  assert.equal(r.status, 0, r.stderr);
  const got = r.stdout
    .trim()
    .split("\n")
    .map((x) => (JSON.parse(x) as { activeBlocksPerSM: number }).activeBlocksPerSM);
  const want = readFileSync(join(root, "test/fixtures/occupancy/sweep-sm_90.csv"), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => Number(line.split(",")[5]));
  assert.equal(got.length, want.length);
  assert.deepEqual(got, want);
});

void test("resources: a missing nvcc is a one-line error naming --nvcc with exit 3; a missing file exits 2", () => {
  const noNvcc = cli(
    "resources",
    "test/fixtures/compiler/rmsnorm.cu",
    "--arch",
    "sm_90",
    "--nvcc",
    "/nonexistent/nvcc",
  );
  assert.equal(noNvcc.status, 3);
  assert.match(noNvcc.stderr, /^cuda-kernel-dev: --nvcc: nvcc not found at "\/nonexistent\/nvcc"\n$/);
  assert.doesNotMatch(noNvcc.stderr, /cudaKernelDev/);
  const noFile = cli("resources", "nope.cu", "--arch", "sm_90");
  assert.equal(noFile.status, 2);
  assert.match(noFile.stderr, /nope\.cu: no such file/);
  const badArch = cli("resources", "test/fixtures/compiler/rmsnorm.cu", "--arch", "sm_9x");
  assert.equal(badArch.status, 2);
  assert.match(badArch.stderr, /--arch: unknown architecture "sm_9x"/);
});
