// scalar-half-access with the project's headers: a reduction helper defined in a header (`blockReduceMax`
// in common.h) makes a kernel's one-element-per-thread reads the lanes' items of an exchange
// (analysis/access/warpExchange.ts), as the same helper in the file does.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { lintFiles } from "../../../server/lint/lintFiles";
import { rules } from "../../../server/rules/index";
import { clearHeaderCache } from "../../../server/analysis/preprocessor/projectHeaders";
import { project } from "../lint/project";

const HEADER = `#pragma once
template <typename T> __device__ T blockReduceMax(T v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  return v;
}
__device__ float scale_of(float v) { return v * 0.5f; }
`;

const kernel = (helper: string): string => `#include <cuda_fp16.h>
#include "common.h"
__global__ void router(const __half* logits, float* best, int experts) {
  float v = threadIdx.x < experts ? __half2float(logits[blockIdx.x * experts + threadIdx.x]) : -1e30f;
  v = ${helper}(v);
  if (threadIdx.x == 0) best[blockIdx.x] = v;
}
`;

describe("scalar-half-access reads the project's headers for warp exchanges", () => {
  it("a header's shuffle reduction: not reported; a header function that exchanges nothing: reported", async () => {
    const root = project(
      {
        "kernels/common.h": HEADER,
        "kernels/a.cu": kernel("blockReduceMax"),
        "kernels/b.cu": kernel("scale_of"),
      },
      "ckd-half-headers-",
    );
    clearHeaderCache();
    const files = ["a.cu", "b.cu"].map((f) => join(root, "kernels", f));
    const reports = await lintFiles(files, { rules, env: {}, headerRoots: [root] });
    const lines = reports.map((r) =>
      r.findings.filter((f) => f.rule === "scalar-half-access").map((f) => f.span.startLine + 1),
    );
    assert.deepEqual(lines, [[], [4]]);
  });
});
