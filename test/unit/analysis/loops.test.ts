// The loops analyses (server/analysis/loops/): thread-strided loops and small counts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cudaParser } from "../../../server/lint/parser";
import { threadIndexNames, threadStrideLoops } from "../../../server/analysis/loops/threadStrideLoops";
import { isSmallCount } from "../../../server/analysis/loops/smallCounts";

async function loops(body: string): Promise<string[]> {
  const text = `__global__ void k(float* x, int n) {\n${body}\n}`;
  const tree = (await cudaParser()).parse(text)!;
  const out = threadStrideLoops(tree.rootNode, threadIndexNames(text)).map(
    (l) => `${l.variable} < ${l.bound?.text ?? "?"}`,
  );
  tree.delete();
  return out;
}

describe("threadStrideLoops", () => {
  it("block-stride, grid-stride and a named thread id start a loop; the stride must not vary", async () => {
    assert.deepEqual(
      await loops(
        [
          "for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = 0;",
          "for (long j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) x[j] = 0;",
          "const int tid = threadIdx.x;",
          "for (int c = tid; c < cols; c += 256) x[c] = 0;",
          "for (int r = 0; r < n; ++r) x[r] = 0;",
          "for (int q = threadIdx.x; q < n; q += threadIdx.x + 1) x[q] = 0;",
          "for (int w = threadIdx.y; w < n; w += blockDim.y) x[w] = 0;",
        ].join("\n"),
      ),
      ["i < n", "j < n", "c < cols"],
    );
  });
});

describe("isSmallCount", () => {
  it("names of few things, members included; sizes of rows and tensors are not", () => {
    for (const n of [
      "num_experts",
      "experts",
      "topk",
      "k",
      "params.num_heads",
      "batch_size",
      "p->beam_width",
      "max_chunks_per_tensor",
      "num_partitions",
    ])
      assert.ok(isSmallCount(n), n);
    for (const n of ["n", "cols", "hidden_size", "numel", "num_tokens", "d", "kernel"])
      assert.ok(!isSmallCount(n), n);
  });
});
