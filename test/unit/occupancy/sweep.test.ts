// The calculator against the driver: every row of the GPU sweep (test/gpu/occupancySweep.mjs), where
// cuOccupancyMaxActiveBlocksPerMultiprocessor answered for real kernels on a real device.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { archLimits } from "../../../server/occupancy/archLimits";
import { maxThreadsPerBlockForRegs, occupancy } from "../../../server/occupancy/occupancy";

const dir = join(__dirname, "../../fixtures/occupancy");
const sweeps = readdirSync(dir).filter((f) => /^sweep-.*\.csv$/.test(f));

void test("there is at least one sweep from a GPU", () => {
  assert.ok(sweeps.length > 0);
});

for (const file of sweeps) {
  void test(`${file}: the calculator gives the driver's active blocks per SM on every row`, () => {
    const rows = parse<Record<string, string>>(readFileSync(join(dir, file), "utf8"), { columns: true });
    assert.ok(rows.length > 1000, `${rows.length} rows`);
    const mismatches: string[] = [];
    for (const [i, row] of rows.entries()) {
      assert.equal(row.error, "", `row ${i + 2}: the driver failed: ${row.error}`);
      const r = occupancy(
        row.arch!,
        {
          regsPerThread: Number(row.regs),
          staticSmemBytes: Number(row.staticSmem),
          barriers: Number(row.barriers),
          maxDynamicSmemBytes: Number(row.maxDynamicSmem),
        },
        { blockSize: Number(row.block), dynamicSmemBytes: Number(row.dynamicSmem) },
      );
      if (r.activeBlocksPerSM !== Number(row.activeBlocksPerSM))
        mismatches.push(
          `row ${i + 2} (${row.kernel} regs=${row.regs} smem=${row.staticSmem} block=${row.block} dyn=${row.dynamicSmem}): driver ${row.activeBlocksPerSM}, calculator ${r.activeBlocksPerSM}`,
        );
    }
    assert.deepEqual(mismatches.slice(0, 20), [], `${mismatches.length} of ${rows.length} rows differ`);
  });

  void test(`${file}: the device's limits are the ones the calculator assumes for its architecture`, () => {
    const dev = JSON.parse(readFileSync(join(dir, file.replace(/\.csv$/, ".device.json")), "utf8")) as Record<
      string,
      number | string
    >;
    const l = archLimits(String(dev.arch));
    assert.deepEqual(
      [
        l.maxThreadsPerSM,
        l.maxBlocksPerSM,
        l.regsPerSM,
        l.regsPerBlock,
        l.sharedMemPerBlock,
        l.sharedMemPerBlockOptin,
        l.sharedMemPerSM,
        l.reservedSharedMemPerBlock,
      ],
      [
        dev.maxThreadsPerSM,
        dev.maxBlocksPerSM,
        dev.regsPerSM,
        dev.regsPerBlock,
        dev.sharedMemPerBlockBytes,
        dev.sharedMemPerBlockOptinBytes,
        dev.sharedMemPerSMBytes,
        dev.reservedSharedMemPerBlockBytes,
      ],
    );
  });

  void test(`${file}: the driver's maxThreadsPerBlock is the calculator's limit from registers`, () => {
    const rows = parse<Record<string, string>>(readFileSync(join(dir, file), "utf8"), { columns: true });
    for (const row of rows)
      assert.equal(
        maxThreadsPerBlockForRegs(row.arch!, Number(row.regs)),
        Number(row.maxThreadsPerBlock),
        `${row.kernel} with ${row.regs} regs`,
      );
  });
}
