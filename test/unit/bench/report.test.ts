import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { derive, formatTable, historyEntry, pointLine, speedup } from "../../../server/bench/report";
import { isBenchRunResults, isHistoryEntry } from "../../../server/bench/results";
import { formatNs } from "../../../server/util/formatNs";
import { chartsFor } from "../../../webview/bench/chartData";

const results: unknown = JSON.parse(
  readFileSync(join(__dirname, "../../fixtures/bench/results-rmsnorm-synthetic.json"), "utf8"),
);
const stats = (medianNs: number) => ({
  samples: 10,
  medianNs,
  minNs: medianNs,
  maxNs: medianNs,
  meanNs: medianNs,
  stdevNs: 0,
  rsdPct: 0,
  stoppedBy: "rsd" as const,
});

test("GB/s, % of peak, TFLOP/s and speedup from the median", () => {
  // 1 GiB in 1 ms is 1073.74 GB/s; against a 4000 GB/s peak that is 26.8%.
  const d = derive(stats(1e6), 2 ** 30, 2e12, 4000);
  assert.ok(Math.abs(d.gbPerSec! - 1073.741824) < 1e-9);
  assert.ok(Math.abs(d.pctPeakBandwidth! - 26.8435456) < 1e-9);
  assert.equal(d.tflops, 2000);
  assert.deepEqual(derive(stats(0), 100, 100, 4000), {}, "no figures from a zero median");
  assert.deepEqual(derive(undefined, 100, 100, 4000), {});
  assert.deepEqual(derive(stats(10), undefined, undefined, 4000), {});
  assert.equal(speedup(stats(50), stats(100)), 2);
  assert.equal(speedup(stats(50), undefined), undefined);
  assert.equal(formatNs(950), "950 ns");
  assert.equal(formatNs(18370), "18.37 µs");
  assert.equal(formatNs(2_500_000), "2.500 ms");
});

test("the recorded results: shape, table, history line, charts", () => {
  assert.ok(isBenchRunResults(results));
  assert.ok(!isBenchRunResults({ ...results, points: [{}] }));
  assert.ok(!isBenchRunResults({ ...results, schema: 2 }));
  const table = formatTable(results).split("\n");
  assert.match(table[0]!, /^rmsnorm_bf16x2_kernel on NVIDIA H200 \(sm_90, peak 4917 GB\/s\)$/);
  assert.match(
    table[1]!,
    /^size\s+median\s+min\s+RSD\s+samples\s+GB\/s\s+% peak\s+TFLOP\/s\s+baseline\s+speedup\s+check$/,
  );
  assert.equal(table.length, 2 + results.points.length);
  assert.match(table[5]!, /^rows=8192 cols=4096\s+34\.24 µs .* 1\.52x\s+ok$/);
  const h = historyEntry(results);
  assert.ok(isHistoryEntry(h));
  assert.equal(h.points.length, 4);
  assert.equal(h.gpu, "NVIDIA H200");
  assert.equal(h.memClockKHz, 3201000);
  assert.deepEqual(
    chartsFor(results, [h]).map((c) => [c.id, c.series.length, c.labels.length]),
    [
      ["time", 2, 4],
      ["speedup", 1, 4],
      ["bandwidth", 2, 4],
      ["history", 4, 1],
    ],
  );
  // Without a baseline or bytes there is nothing to compare or to relate to the peak.
  const bare = {
    ...results,
    baseline: undefined,
    points: results.points.map((p) => ({
      ...p,
      speedup: undefined,
      pctPeakBandwidth: undefined,
      baseline: undefined,
    })),
  };
  assert.deepEqual(
    chartsFor(bare, []).map((c) => c.id),
    ["time"],
  );
});

test("a size timed without the blocking kernel says so in its line and under the table", () => {
  assert.ok(isBenchRunResults(results));
  const [first, ...rest] = results.points;
  const unblocked = { ...first!, kernel: { ...first!.kernel!, blocked: false } };
  assert.match(pointLine(unblocked), /launch latency included$/);
  assert.doesNotMatch(pointLine(first), /launch latency/);
  const table = formatTable({ ...results, points: [unblocked, ...rest] }).split("\n");
  assert.equal(table.length, 3 + results.points.length);
  assert.match(
    table.at(-1)!,
    new RegExp(`^${unblocked.label}: timed without the blocking kernel.*launch latency included$`),
  );
});
