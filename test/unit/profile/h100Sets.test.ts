// The H100 reports of each ncu set (test/fixtures/profile/h100/*.ncu-rep), their pages exported
// there by test/gpu/profile-export.sh on a machine with ncu and committed: each details page (base
// units) must agree with that report's --print-summary, and the sets must hold what they promise.
// A missing export fails (it is committed; rerun the script to make it again), it is not skipped.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadProfile } from "../../../server/profile/loadProfile";
import { metricKey } from "../../../server/profile/ncuCsv";
import { summarize } from "../../../server/profile/ncuSummary";
import { profileView } from "../../../server/profile/profileView";
import { unitFactor } from "../../../server/profile/units";
import { compareWithPrintSummary, readPrintSummary } from "./printSummary";

const DIR = join(__dirname, "../../fixtures/profile/h100");

for (const name of ["rms-vec-basic", "rms-vec-detailed", "rms-vec-full", "rms-vec-full-base"]) {
  const details = join(DIR, `${name}.details.csv`);
  const summaryTxt = join(DIR, `${name}.print-summary.txt`);
  describe(`H100 ${name} (one rmsnorm_vec launch)`, () => {
    it("agrees with ncu --print-summary for every metric", async () => {
      const p = await loadProfile(details, "ncu");
      assert.equal(p.details.length, 1);
      const { compared, mismatches } = compareWithPrintSummary(
        p.details,
        readPrintSummary(summaryTxt),
        metricKey,
        unitFactor,
      );
      assert.deepEqual(mismatches, []);
      assert.ok(compared > 20, `compared ${compared}`);
      const [k] = summarize(p.details).kernels;
      assert.match(k!.kernel, /^rmsnorm_vec\(/);
      assert.ok(k!.durationNs !== null && k!.achievedOccupancyPct !== null && k!.registersPerThread !== null);
    });

    it("holds what its set promises (roofline and warp stalls need detailed / full)", async () => {
      const p = await loadProfile(details, "ncu");
      const v = profileView(p.details[0]!, p.raw?.[0]);
      if (name.includes("basic")) assert.equal(v.memory.l2HitRatePct, null);
      else assert.ok(v.roofline && v.roofline.length > 0, "roofline");
      if (name.includes("full")) assert.ok(v.stalls && v.stalls.reasons.length > 0, "warp stalls");
      // basic has no source counters: its source page has lines but no samples, so no hot lines.
      if (name.includes("basic")) assert.deepEqual(p.source?.files, []);
      else assert.ok(p.source?.files.some((f) => f.path.endsWith("rms.cu") && f.totalSamples > 0));
    });
  });
}
