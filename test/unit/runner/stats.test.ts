import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RunningStats, summarize } from "../../../native/runner/stats";

describe("sample statistics", () => {
  it("summarizes like nvbench: median, extremes, sample stdev and RSD", () => {
    const s = summarize([4, 1, 3, 2]);
    assert.equal(s.samples, 4);
    assert.equal(s.medianNs, 2.5);
    assert.equal(s.minNs, 1);
    assert.equal(s.maxNs, 4);
    assert.equal(s.meanNs, 2.5);
    assert.ok(Math.abs(s.stdevNs - Math.sqrt(5 / 3)) < 1e-12);
    assert.ok(Math.abs(s.rsdPct - (Math.sqrt(5 / 3) / 2.5) * 100) < 1e-9);
    assert.equal(summarize([7]).rsdPct, 0);
    assert.throws(() => summarize([]), /no samples/);
  });

  it("keeps a running RSD equal to the batch one", () => {
    const xs = Array.from({ length: 500 }, (_, i) => 1000 + ((i * 7919) % 101));
    const r = new RunningStats();
    assert.equal(r.rsdPct, Infinity);
    for (const x of xs) r.add(x);
    assert.equal(r.count, 500);
    assert.ok(Math.abs(r.rsdPct - summarize(xs).rsdPct) < 1e-9);
  });
});
