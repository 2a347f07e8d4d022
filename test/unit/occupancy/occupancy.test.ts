import { test } from "node:test";
import assert from "node:assert/strict";
import { archLimits, canonicalArch, knownArchs } from "../../../server/occupancy/archLimits";
import {
  maxThreadsPerBlockForRegs,
  occupancy,
  OccupancyInputError,
} from "../../../server/occupancy/occupancy";

const k = (regsPerThread: number, staticSmemBytes = 0, barriers?: number) =>
  barriers === undefined ? { regsPerThread, staticSmemBytes } : { regsPerThread, staticSmemBytes, barriers };
const l = (blockSize: number, dynamicSmemBytes = 0) => ({ blockSize, dynamicSmemBytes });

void test("registers bind: 64 regs x 256 threads uses a quarter of sm_90's 64K registers", () => {
  const r = occupancy("sm_90", k(64), l(256));
  assert.equal(r.activeBlocksPerSM, 4);
  assert.equal(r.activeWarpsPerSM, 32);
  assert.equal(r.occupancyPct, 50);
  assert.equal(r.limitedBy, "registers");
  assert.equal(r.allocatedRegistersPerBlock, 64 * 256);
});

void test("registers are allocated per warp in units of 256: 33 regs cost as much as 40", () => {
  const a = occupancy("sm_80", k(33), l(128));
  const b = occupancy("sm_80", k(40), l(128));
  assert.equal(a.allocatedRegistersPerBlock, b.allocatedRegistersPerBlock);
  assert.equal(a.activeBlocksPerSM, b.activeBlocksPerSM);
  assert.ok(occupancy("sm_80", k(32), l(128)).activeBlocksPerSM > a.activeBlocksPerSM);
});

void test("static shared memory: 40,000 B plus the 1 KB reserved per block fits 5 times into sm_90's 228 KB (seen on an H200)", () => {
  const r = occupancy("sm_90", k(20, 40000), l(256));
  assert.equal(r.activeBlocksPerSM, 5);
  assert.equal(r.limitedBy, "sharedMemory");
  assert.equal(r.allocatedSmemPerBlock % 128, 0);
});

void test("sm_75 has no reserved shared memory and 256-byte granularity", () => {
  assert.equal(archLimits("sm_75").reservedSharedMemPerBlock, 0);
  assert.equal(occupancy("sm_75", k(16, 100), l(32)).allocatedSmemPerBlock, 256);
  assert.equal(occupancy("sm_80", k(16, 100), l(32)).allocatedSmemPerBlock, 1152);
});

void test("warps bind for big blocks; blocks per SM bind for tiny ones", () => {
  const big = occupancy("sm_86", k(16), l(1024));
  assert.equal(big.activeBlocksPerSM, 1); // 48 warps per SM, 32 per block
  assert.equal(big.limitedBy, "warps");
  const tiny = occupancy("sm_89", k(16), l(32));
  assert.equal(tiny.activeBlocksPerSM, archLimits("sm_89").maxBlocksPerSM);
  assert.equal(tiny.limitedBy, "blocks");
});

void test("a block that can never launch gives 0 and says why", () => {
  const regs = occupancy("sm_90", k(255), l(512));
  assert.equal(regs.activeBlocksPerSM, 0);
  assert.match(regs.reason ?? "", /registers/);
  const threads = occupancy("sm_90", k(16), l(1025));
  assert.equal(threads.activeBlocksPerSM, 0);
  assert.match(threads.reason ?? "", /1024-thread maximum/);
  const smem = occupancy("sm_89", k(16, 0), l(64, 200 * 1024));
  assert.equal(smem.activeBlocksPerSM, 0);
  assert.match(smem.reason ?? "", /shared memory/);
});

void test("dynamic shared memory above the kernel's opted-in limit cannot launch", () => {
  const r = occupancy(
    "sm_90",
    { regsPerThread: 32, staticSmemBytes: 0, maxDynamicSmemBytes: 48 * 1024 },
    l(128, 64 * 1024),
  );
  assert.equal(r.activeBlocksPerSM, 0);
  assert.ok(occupancy("sm_90", k(32), l(128, 64 * 1024)).activeBlocksPerSM > 0);
});

void test("from sm_90 on, 16 named barriers limit a block to a quarter of the barrier slots", () => {
  const r = occupancy("sm_90", k(12, 128, 16), l(32));
  assert.equal(r.activeBlocksPerSM, 4);
  assert.deepEqual(r.limiters, ["barriers"]);
  // Before Hopper the calculator (like the driver) does not count barriers.
  assert.equal(occupancy("sm_80", k(12, 128, 16), l(32)).limitedBy, "blocks");
});

void test("maxThreadsPerBlock falls with registers, in whole groups of four warps", () => {
  assert.equal(maxThreadsPerBlockForRegs("sm_90", 64), 1024);
  assert.equal(maxThreadsPerBlockForRegs("sm_90", 128), 512);
  assert.equal(maxThreadsPerBlockForRegs("sm_90", 255), 256);
  for (const regs of [40, 96, 168, 200, 232, 255]) {
    const max = maxThreadsPerBlockForRegs("sm_90", regs);
    assert.ok(
      occupancy("sm_90", k(regs), l(max)).activeBlocksPerSM > 0,
      `${regs} regs, ${max} threads launches`,
    );
    assert.equal(
      occupancy("sm_90", k(regs), l(max + 32)).activeBlocksPerSM,
      0,
      `${regs} regs, ${max + 32} threads does not`,
    );
  }
});

void test("architecture names: sm_/compute_/dotted/bare, and a clear error for unknown ones", () => {
  assert.equal(canonicalArch("compute_86"), "sm_86");
  assert.equal(canonicalArch("9.0"), "sm_90");
  assert.equal(canonicalArch("sm_90a"), "sm_90");
  assert.equal(canonicalArch("100"), "sm_100");
  assert.equal(canonicalArch("native"), undefined);
  assert.throws(
    () => occupancy("sm_70", k(32), l(128)),
    (e: unknown) =>
      e instanceof OccupancyInputError && /unknown architecture "sm_70"; known: sm_75/.test(e.message),
  );
  for (const a of ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]) assert.ok(knownArchs.includes(a));
});

void test("bad numbers are errors, not results", () => {
  assert.throws(() => occupancy("sm_90", k(32), l(0)), OccupancyInputError);
  assert.throws(() => occupancy("sm_90", k(-1), l(128)), OccupancyInputError);
  assert.throws(() => occupancy("sm_90", k(32.5), l(128)), OccupancyInputError);
  assert.throws(() => occupancy("sm_90", k(32), l(128, Number.NaN)), OccupancyInputError);
});
