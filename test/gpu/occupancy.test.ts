// The occupancy calculator against the driver, live (npm run test:gpu): the sweep kernels
// (occupancySweep.cu) compiled here for this GPU at a few register caps, every block size and dynamic
// shared memory size asked of cuOccupancyMaxActiveBlocksPerMultiprocessor, as loaded and opted in.
// test/gpu/occupancySweep.mjs records the same comparison as a fixture for the unit suite.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import type { CudaAddon } from "../../native/addon";
import { parsePtxasResources } from "../../server/compiler/ptxasResources";
import { archLimits } from "../../server/occupancy/archLimits";
import { maxThreadsPerBlockForRegs, occupancy } from "../../server/occupancy/occupancy";
import { openGpu0 } from "./device";
import { sweepCubinArgs } from "./occupancySweepArgs";
import { nvcc, repoRoot } from "./paths";

const REG_CAPS = [24, 64, 128, 255];
const BLOCKS = [1, 32, 33, 96, 128, 256, 384, 512, 640, 1024];
const DYNAMIC = [0, 1000, 30000, 50000, 100000, 200000];

describe("occupancy calculator = driver on this GPU", () => {
  let cuda: CudaAddon;
  let arch: string;
  let optin: number;

  before(() => {
    const gpu = openGpu0();
    ({ cuda, arch } = gpu);
    optin = gpu.attrs.sharedMemPerBlockOptinBytes;
  });

  it("assumes this device's limits for its architecture", () => {
    const dev = cuda.deviceAttributes(0);
    const l = archLimits(arch);
    assert.deepEqual(
      [
        l.maxThreadsPerSM,
        l.maxBlocksPerSM,
        l.regsPerSM,
        l.sharedMemPerBlockOptin,
        l.sharedMemPerSM,
        l.reservedSharedMemPerBlock,
      ],
      [
        dev.maxThreadsPerSM,
        dev.maxBlocksPerSM,
        dev.regsPerSM,
        dev.sharedMemPerBlockOptinBytes,
        dev.sharedMemPerSMBytes,
        dev.reservedSharedMemPerBlockBytes,
      ],
    );
  });

  it("gives the driver's active blocks per SM for every kernel, block size and dynamic shared memory size", () => {
    const dir = mkdtempSync(join(tmpdir(), "ckd-occ-"));
    const mismatches: string[] = [];
    let rows = 0;
    for (const cap of REG_CAPS) {
      const cubin = join(dir, `regs${cap}.cubin`);
      const args = sweepCubinArgs(arch, cap, cubin, join(repoRoot, "test/gpu/occupancySweep.cu"));
      const run = spawnSync(nvcc, args, { encoding: "utf8" });
      assert.equal(run.status, 0, run.stderr);
      const report = parsePtxasResources(run.stdout + run.stderr); // ptxas reports on stderr
      const mod = cuda.loadModule(cubin);
      for (const k of report) {
        const fn = cuda.getFunction(mod, k.symbol);
        const attrs = cuda.functionAttributes(fn);
        assert.equal(attrs.numRegs, k.registers, `${k.name}: ptxas and the driver agree on registers`);
        assert.equal(
          attrs.maxThreadsPerBlock,
          maxThreadsPerBlockForRegs(arch, attrs.numRegs),
          `${k.name}: maxThreadsPerBlock`,
        );
        for (const [maxDynamic, optIn] of [
          [attrs.maxDynamicSharedSizeBytes, false],
          [optin - attrs.sharedSizeBytes, true],
        ] as const) {
          if (optIn) cuda.setMaxDynamicSharedMemory(fn, maxDynamic);
          for (const block of BLOCKS)
            for (const dyn of DYNAMIC) {
              const driver = cuda.occupancyMaxActiveBlocksPerMultiprocessor(fn, block, dyn);
              const ours = occupancy(
                arch,
                {
                  regsPerThread: attrs.numRegs,
                  staticSmemBytes: attrs.sharedSizeBytes,
                  barriers: k.barriers,
                  maxDynamicSmemBytes: maxDynamic,
                },
                { blockSize: block, dynamicSmemBytes: dyn },
              );
              rows++;
              if (ours.activeBlocksPerSM !== driver)
                mismatches.push(
                  `${k.name} regs=${attrs.numRegs} block=${block} dyn=${dyn} optIn=${optIn}: driver ${driver}, ours ${ours.activeBlocksPerSM}`,
                );
            }
        }
      }
      cuda.unloadModule(mod);
    }
    assert.ok(rows > 1000, `${rows} rows`);
    assert.deepEqual(mismatches.slice(0, 20), [], `${mismatches.length} of ${rows} differ`);
  });
});
