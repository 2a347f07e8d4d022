// Tests' sources (named `*_test.cu`, `test_*.cu`…) skip the rules about speed and shipped sizes
// (`Rule.shippedCodeOnly`), and keep the rules about correctness: a scalar half kernel in a test reports
// its unchecked launch, not its scalar loads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { lintSource } from "../../../server/lint/lintDocument";
import { isTestSource } from "../../../server/lint/testSources";
import { rules } from "../../../server/rules/index";

void test("test sources are told by their names", () => {
  for (const name of [
    "a/rounding_test.cu",
    "test_rounding.cu",
    "rounding.test.cu",
    "x/y_tests.cuh",
    "k_unittest.cu",
  ])
    assert.ok(isTestSource(name), name);
  for (const name of [
    "test.cu",
    "latest.cu",
    "attest_kernel.cu",
    "tests/helpers.cu",
    "bench_test_data.h",
    "contest.cu",
  ])
    assert.ok(!isTestSource(name), name);
});

const SCALAR_HALF = `
#include <cuda_fp16.h>
#include <torch/extension.h>
__global__ void round_all(__half* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2half_rn(x[i]);
}
void run(__half* y, const float* x, int n) { round_all<<<(n + 255) / 256, 256>>>(y, x, n); }
`;

void test("a test's scalar half kernel reports its launch, not its scalar access", async () => {
  const found = async (fileName: string): Promise<string[]> =>
    [...new Set((await lintSource(SCALAR_HALF, { rules, fileName })).map((f) => f.rule))].sort();
  assert.deepEqual(await found("round.cu"), ["missing-launch-check", "scalar-half-access"]);
  assert.deepEqual(await found("round_test.cu"), ["missing-launch-check"]);
});
