// The shared-memory analyses (server/analysis/sharedMemory/): file-scope extern shared arrays, the opt-in,
// and whether a stride loop's body is a tree reduction's step.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cudaParser } from "../../../server/lint/parser";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { fileScopeShared } from "../../../server/analysis/sharedMemory/fileScope";
import { optedIn } from "../../../server/analysis/sharedMemory/optIn";
import { reductionStep, type Stride } from "../../../server/analysis/sharedMemory/treeStep";
import { Constants } from "../../../server/analysis/constants/constEval";
import { descendants, textIn } from "../../../server/analysis/source/nodes";

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

describe("reductionStep", () => {
  /** Whether the first for loop's body in `body` (in a kernel over `__shared__ float s[256]`) is a step. */
  async function step(loop: string, stride: Stride): Promise<boolean> {
    const text = `__global__ void k(float* x) {\n  __shared__ float s[256];\n  const int tid = threadIdx.x;\n  ${loop}\n}\n`;
    return withIndex(text, (idx) => {
      const node = descendants(idx.root, "for_statement")[0]!.childForFieldName("body")!;
      const calls = descendants(node, "call_expression");
      const writes = descendants(node, "init_declarator", "assignment_expression");
      const body = { node, text: textIn(text, node), src: text, calls, writes };
      return reductionStep(body, new Set(["s"]), stride, Constants.of(idx));
    });
  }
  const down: Stride = { name: "d", dir: "down" };
  const up: Stride = { name: "d", dir: "up" };
  it("takes a combine that fewer threads make each step", async () => {
    const halving =
      "for (int d = 128; d > 0; d >>= 1) { if (tid < d) s[tid] += s[tid + d]; __syncthreads(); }";
    assert.equal(await step(halving, down), true);
    const reversed =
      "for (int d = 128; d > 0; d >>= 1) { if (d > tid && d > 1) s[tid] = fmaxf(s[tid], s[tid + d]); }";
    assert.equal(await step(reversed, down), true);
    const modulo = "for (int d = 1; d < 256; d *= 2) { if (tid % (2 * d) == 0) s[tid] += s[tid + d]; }";
    assert.equal(await step(modulo, up), true);
    const mask = "for (int d = 1; d < 256; d *= 2) { if (!(tid & (2 * d - 1))) s[tid] += s[tid + d]; }";
    assert.equal(await step(mask, up), true);
  });
  it("does not take steps where every thread keeps its own element", async () => {
    const suffix =
      "for (int d = 1; d < 256; d <<= 1) { float v = s[tid]; if (tid + d < 256) v += s[tid + d]; __syncthreads(); s[tid] = v; }";
    assert.equal(await step(suffix, up), false);
    const exchange =
      "for (int d = 128; d > 0; d >>= 1) { float o; if (d >= 32) { s[tid] = v; __syncthreads(); o = s[tid ^ d]; } v = fmaxf(v, o); }";
    assert.equal(await step(exchange, down), false);
    // the guard lets more threads through as the stride halves: no tree
    const widening = "for (int d = 128; d > 0; d >>= 1) { if (tid % (2 * d) == 0) s[tid] += s[tid + d]; }";
    assert.equal(await step(widening, down), false);
    const unguarded = "for (int d = 128; d > 0; d >>= 1) { s[tid] += s[tid + d]; }";
    assert.equal(await step(unguarded, down), false);
  });
});
