import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkBenchmarkRequest, checkKernelInfoRequest } from "../../../native/runner/requestCheck";
import { copyRequest as good } from "./requests";

function withKernel(patch: Record<string, unknown>) {
  return { ...good, kernel: { ...good.kernel, ...patch } };
}

describe("benchmark request check", () => {
  it("accepts a well-formed request unchanged", () => {
    assert.deepEqual(checkBenchmarkRequest(good), good);
  });

  it("names the field that is wrong", () => {
    assert.throws(
      () => checkBenchmarkRequest({ ...good, kernel: undefined }),
      /params.kernel must be an object/,
    );
    assert.throws(
      () => checkBenchmarkRequest(withKernel({ grid: [0, 1, 1] })),
      /params.kernel.grid\[0\] must be >= 1/,
    );
    assert.throws(
      () => checkBenchmarkRequest(withKernel({ block: [64, 32, 1] })),
      /2048 threads; the limit is 1024/,
    );
    assert.throws(
      () =>
        checkBenchmarkRequest(
          withKernel({
            args: [{ kind: "buffer", name: "x", dtype: "f8", count: 1, init: { kind: "zeros" } }],
          }),
        ),
      /params.kernel.args\[0\].dtype must be one of/,
    );
    assert.throws(
      () =>
        checkBenchmarkRequest(
          withKernel({
            args: [{ kind: "buffer", name: "x", dtype: "f32", count: 1.5, init: { kind: "zeros" } }],
          }),
        ),
      /params.kernel.args\[0\].count must be an integer/,
    );
    assert.throws(
      () =>
        checkBenchmarkRequest(
          withKernel({
            args: [{ kind: "buffer", name: "x", dtype: "f64", count: 2 ** 30, init: { kind: "zeros" } }],
          }),
        ),
      /exceed the 4294967296 byte limit/,
    );
    assert.throws(
      () =>
        checkBenchmarkRequest(
          withKernel({
            args: [
              {
                kind: "buffer",
                name: "x",
                dtype: "f32",
                count: 4,
                init: { kind: "uniform", low: 1, high: 1 },
              },
            ],
          }),
        ),
      /uniform needs low < high/,
    );
    assert.throws(
      () => checkBenchmarkRequest({ ...good, timing: { ...good.timing, maxSamples: 5 } }),
      /maxSamples must be >= minSamples/,
    );
    assert.throws(() => checkBenchmarkRequest("nope"), /params must be an object/);
  });

  it("checks kernelInfo occupancy queries", () => {
    assert.deepEqual(checkKernelInfoRequest({ cubinPath: "a", occupancy: [{ blockSize: 128 }] }), {
      cubinPath: "a",
      device: 0,
      occupancy: [{ blockSize: 128, dynamicSmemBytes: 0 }],
    });
    assert.throws(
      () => checkKernelInfoRequest({ cubinPath: "a", occupancy: [{ blockSize: 2048 }] }),
      /blockSize must be <= 1024/,
    );
  });
});
