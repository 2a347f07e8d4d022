// The shared-memory analyses (server/analysis/sharedMemory/): file-scope extern shared arrays, the opt-in.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cudaParser } from "../../../server/lint/parser";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { fileScopeShared } from "../../../server/analysis/sharedMemory/fileScope";
import { optedIn } from "../../../server/analysis/sharedMemory/optIn";

async function withIndex<T>(text: string, ask: (idx: FileIndex) => T): Promise<T> {
  const tree = (await cudaParser()).parse(text)!;
  try {
    return ask(FileIndex.of({ tree, text }));
  } finally {
    tree.delete();
  }
}

describe("fileScopeShared", () => {
  it("lists extern __shared__ arrays outside functions, not those a kernel declares", async () => {
    const text = [
      "extern __shared__ float smem[];",
      "extern  __shared__ __align__(16) char raw [ ] ;",
      "__global__ void k(float* x) {",
      "  extern __shared__ float local[];",
      "  local[threadIdx.x] = smem[threadIdx.x];",
      "}",
      "// extern __shared__ float commented[];",
    ].join("\n");
    assert.deepEqual([...(await withIndex(text, fileScopeShared))].sort(), ["raw", "smem"]);
  });
});

describe("optedIn", () => {
  it("is true only where the file names the opt-in attribute", async () => {
    const set = "void f() { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536); }";
    assert.equal(await withIndex(set, optedIn), true);
    assert.equal(
      await withIndex(
        "void f() { cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 50); }",
        optedIn,
      ),
      false,
    );
  });
});
