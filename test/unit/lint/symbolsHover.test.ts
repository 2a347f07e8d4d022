import assert from "node:assert/strict";
import { test } from "node:test";
import { CUDA_DOCS } from "../../../server/hover/cudaDocs";
import { hoverAt } from "../../../server/hover/hover";
import { parseSource } from "../../../server/lint/lintDocument";
import { cudaSymbols } from "../../../server/lint/symbols";

const SRC = `#include <cuda_fp16.h>
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) rmsnorm(const T* x, T* y, int n) {
  // __syncthreads in a comment: no hover
  __syncthreads();
  const char* s = "__half";
}
static __device__ __forceinline__ float warp_sum(float v) { return v; }
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
__device__ float declared_only(float);
namespace ops { struct Op { __device__ float apply(float v) const { return v; } }; }
int host_only() { return 0; }
`;

test("document symbols list kernels and device functions with their qualifiers", async () => {
  const tree = await parseSource(SRC);
  const symbols = cudaSymbols(tree);
  tree.delete();
  assert.deepEqual(
    symbols.map((s) => [s.name, s.kind, s.detail]),
    [
      ["rmsnorm", "kernel", "__global__ __launch_bounds__(BLOCK)"],
      ["warp_sum", "device-function", "__device__"],
      ["ceil_div", "device-function", "__host__ __device__"],
      ["declared_only", "device-function", "__device__ (declaration)"],
      ["apply", "device-function", "__device__"],
    ],
  );
  assert.equal(symbols[0]!.span.startLine, 1, "a template kernel's range starts at `template`");
  assert.deepEqual(symbols[0]!.nameSpan, { startLine: 2, startColumn: 41, endLine: 2, endColumn: 48 });
});

test("hover docs cover at least 60 CUDA names, each with every part filled in", () => {
  const entries = Object.entries(CUDA_DOCS);
  assert.ok(entries.length >= 60, `${entries.length} entries`);
  for (const [name, doc] of entries)
    for (const field of ["signature", "meaning", "availability", "pitfall"] as const)
      assert.ok(doc[field].length > 10, `${name}.${field}`);
});

test("hover shows the doc for the word under the cursor, not inside comments or strings", async () => {
  const tree = await parseSource(SRC);
  const onCall = hoverAt(tree, SRC, 4, 5);
  assert.ok(onCall);
  assert.match(onCall.markdown, /void __syncthreads\(\)/);
  assert.match(onCall.markdown, /\*\*Pitfall:\*\*/);
  assert.deepEqual(onCall.span, { startLine: 4, startColumn: 2, endLine: 4, endColumn: 15 });
  assert.equal(hoverAt(tree, SRC, 3, 8), undefined, "comment");
  assert.equal(hoverAt(tree, SRC, 5, 21), undefined, "string");
  assert.match(hoverAt(tree, SRC, 2, 5)?.markdown ?? "", /A kernel/);
  assert.equal(hoverAt(tree, SRC, 11, 5), undefined, "not a CUDA name");
  assert.equal(hoverAt(tree, SRC, 99, 0), undefined, "past the end");
  tree.delete();
  // Without a tree (file too large to parse) hover still works on the text.
  assert.match(hoverAt(undefined, "half2 h;", 0, 2)?.markdown ?? "", /see `__half2`/);
});
