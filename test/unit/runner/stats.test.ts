import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  NOISE_CHECK_EVERY,
  NOISE_WINDOW,
  RunningStats,
  StoppingRule,
  summarize,
} from "../../../native/runner/stats";

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

  it("gives the mean of the middle half, which follows a level between ticks where the median snaps to one", () => {
    // 32 ns event ticks: 40% of samples on 3008, 60% on 3040, one stray.
    const ticks = [...Array<number>(8).fill(3008), ...Array<number>(11).fill(3040), 50_000];
    const s = summarize(ticks);
    assert.equal(s.medianNs, 3040);
    // The middle half: samples 5..14 of 20 sorted, 3 on 3008 and 7 on 3040; the stray is out.
    assert.equal(s.midMeanNs, (3 * 3008 + 7 * 3040) / 10);
    assert.equal(summarize([7]).midMeanNs, 7);
  });

  it("keeps a running RSD equal to the batch one", () => {
    const xs = Array.from({ length: 500 }, (_, i) => 1000 + ((i * 7919) % 101));
    const r = new RunningStats();
    assert.equal(r.rsdPct, Infinity);
    for (const x of xs) r.add(x);
    assert.equal(r.count, 500);
    assert.ok(Math.abs(r.rsdPct - summarize(xs).rsdPct) < 1e-9);
  });

  const timing = { minSamples: 10, maxSamples: 5000, targetRsdPct: 0.5, budgetMs: 60_000 };
  /** Feeds samples until the rule stops; returns why and after how many. */
  const runUntilStop = (t: typeof timing, sample: (i: number) => number, ms = () => 0) => {
    const rule = new StoppingRule(t);
    for (let i = 0; ; i++) {
      const why = rule.add(sample(i), ms());
      if (why) return { why, n: i + 1 };
    }
  };
  // A fixed pseudo-random sequence: a kernel's time with noise of about `pct` percent.
  const noisy = (pct: number) => (i: number) => 5000 * (1 + (pct / 100) * Math.sin(i * 12.9898) * 1.7);

  it("stops on the RSD target once minSamples are in", () => {
    assert.deepEqual(
      runUntilStop(timing, () => 20_000),
      { why: "rsd", n: 10 },
    );
    assert.deepEqual(
      runUntilStop({ ...timing, minSamples: 25 }, () => 20_000),
      { why: "rsd", n: 25 },
    );
  });

  it("stops a kernel whose noise settles above the target (nvbench's convergence test)", () => {
    const r = runUntilStop(timing, noisy(3));
    assert.equal(r.why, "converged");
    // Not before the window is full, and only on a check boundary.
    assert.ok(r.n > NOISE_WINDOW, `stopped after ${r.n}`);
    assert.equal(r.n % NOISE_CHECK_EVERY, 0);
    assert.ok(r.n < 2000, `stopped after ${r.n}`);
  });

  it("does not call a drifting noise settled", () => {
    // The noise keeps growing (a throttling GPU): the RSD never settles, the cap ends it.
    const r = runUntilStop(
      { ...timing, maxSamples: 3000 },
      (i) => 5000 * (1 + (i % 2 ? 1 : -1) * (0.02 + 0.0002 * i)),
    );
    assert.equal(r.why, "maxSamples");
    assert.equal(r.n, 3000);
  });

  it("the sample cap and the time budget still bound a run", () => {
    assert.deepEqual(runUntilStop({ ...timing, maxSamples: 300 }, noisy(3)), { why: "maxSamples", n: 300 });
    let t = 0;
    const r = runUntilStop({ ...timing, budgetMs: 1000 }, noisy(3), () => (t += 10));
    assert.deepEqual(r, { why: "budget", n: 100 });
  });
});
