import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkOutput } from "../../../native/runner/outputCheck";

const tol = { atol: 1e-3, rtol: 1e-3 };

describe("output check", () => {
  it("passes equal outputs and reports zero error and cosine 1", () => {
    const v = Float64Array.of(1, -2, 3);
    const c = checkOutput({ arg: "y", values: v, unwritten: 0 }, tol, Float64Array.from(v));
    assert.deepEqual(c, {
      arg: "y",
      maxAbsError: 0,
      maxRelError: 0,
      cosine: 1,
      mismatched: 0,
      unwritten: 0,
      nonFinite: 0,
      pass: true,
    });
  });

  it("catches a wrong element beyond atol + rtol * |want|", () => {
    const c = checkOutput(
      { arg: "y", values: Float64Array.of(1, 2.5, 3.0001), unwritten: 0 },
      tol,
      Float64Array.of(1, 2, 3),
    );
    assert.equal(c.mismatched, 1);
    assert.equal(c.maxAbsError, 0.5);
    assert.equal(c.maxRelError, 0.25);
    assert.ok(c.cosine! < 1);
    assert.equal(c.pass, false);
  });

  it("fails unwritten (poisoned) elements once, not also as non-finite", () => {
    const c = checkOutput(
      { arg: "y", values: Float64Array.of(1, NaN), unwritten: 1 },
      tol,
      Float64Array.of(1, 2),
    );
    assert.equal(c.unwritten, 1);
    assert.equal(c.nonFinite, 0);
    assert.equal(c.pass, false);
    const alone = checkOutput({ arg: "y", values: Float64Array.of(1, NaN, Infinity), unwritten: 1 }, tol);
    assert.deepEqual([alone.unwritten, alone.nonFinite, alone.maxAbsError, alone.pass], [1, 1, null, false]);
  });

  it("accepts NaN where the baseline also produced NaN", () => {
    const c = checkOutput(
      { arg: "y", values: Float64Array.of(NaN, 1), unwritten: 0 },
      tol,
      Float64Array.of(NaN, 1),
    );
    assert.equal(c.pass, true);
  });

  it("refuses outputs of different lengths", () => {
    assert.throws(
      () => checkOutput({ arg: "y", values: new Float64Array(2), unwritten: 0 }, tol, new Float64Array(3)),
      /2 elements, baseline 3/,
    );
  });
});
