// Bounds guards the file's launches settle for every thread (server/analysis/launches/launchedGuards.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Node } from "web-tree-sitter";
import { cudaParser } from "../../../server/lint/parser";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { launchGuards } from "../../../server/analysis/launches/launchedGuards";

/** Each comparison of the file's first kernel, `text: true|false|?` (its value in every thread). */
async function guards(text: string): Promise<string[]> {
  const tree = (await cudaParser()).parse(text)!;
  try {
    const idx = FileIndex.of({ tree, text });
    const f = idx.deviceFunctions().find((d) => d.space === "global")!;
    const g = launchGuards(idx, f);
    const out: string[] = [];
    const walk = (n: Node): void => {
      if (n.type === "binary_expression" && /^[<>]=?$/.test(n.childForFieldName("operator")!.text)) {
        const v = g?.mentioned(n.text) ? g.value(n) : undefined;
        out.push(`${n.text}: ${v === undefined ? "?" : String(v)}`);
      }
      for (const k of n.namedChildren) if (k) walk(k);
    };
    walk(f.body);
    return out;
  } finally {
    tree.delete();
  }
}

const KERNEL = `__global__ void k(int n, float* x) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int t = (int)threadIdx.x;
  if (i < n) x[i] = 0;
  if (n > t) x[t] = 1;
  if (threadIdx.x >= n) return;
  if (i + 1 < n) x[i] = 2;
}
`;

describe("launchGuards", () => {
  it("settles guards on the block's x-extent of one block", async () => {
    assert.deepEqual(await guards(`${KERNEL}void f(int n, float* x) { k<<<1, n>>>(n, x); }`), [
      "i < n: true",
      "n > t: true",
      "threadIdx.x >= n: false",
      "i + 1 < n: ?",
    ]);
    assert.deepEqual(
      await guards(`${KERNEL}void f(float* x) { k<<<dim3(1), dim3(128, 2)>>>(128, x); }`).then((g) => g[0]),
      "i < n: true",
    );
  });
  it("settles only threadIdx.x alone when the grid may be more than one block", async () => {
    assert.deepEqual(await guards(`${KERNEL}void f(int b, int n, float* x) { k<<<b, n>>>(n, x); }`), [
      "i < n: ?",
      "n > t: true",
      "threadIdx.x >= n: false",
      "i + 1 < n: ?",
    ]);
  });
  it("settles none when a launch's block is not the bound, or the index or bound is assigned", async () => {
    const none = ["i < n: ?", "n > t: ?", "threadIdx.x >= n: ?", "i + 1 < n: ?"];
    assert.deepEqual(await guards(`${KERNEL}void f(int n, float* x) { k<<<1, 256>>>(n, x); }`), none);
    assert.deepEqual(
      await guards(`${KERNEL}void f(int n, float* x) { k<<<1, n>>>(n, x); k<<<1, 2 * n>>>(n, x); }`),
      none,
    );
    assert.deepEqual(
      await guards(`${KERNEL}void f(int n, float* x) { auto p = k; k<<<1, n>>>(n, x); }`),
      none,
    );
    assert.deepEqual(
      await guards(
        `${KERNEL.replace("int t", "n -= 1;\n  int t")}void f(int n, float* x) { k<<<1, n>>>(n, x); }`,
      ),
      none,
    );
    const late = KERNEL.replace(
      "unsigned i = blockIdx.x * blockDim.x + threadIdx.x;",
      "int i;\n  if (n > 4) {} else i = threadIdx.x;",
    );
    assert.equal((await guards(`${late}void f(int n, float* x) { k<<<1, n>>>(n, x); }`))[1], "i < n: ?");
    const moved = KERNEL.replace("if (i < n)", "i += 32;\n  if (i < n)");
    assert.equal((await guards(`${moved}void f(int n, float* x) { k<<<1, n>>>(n, x); }`))[0], "i < n: ?");
  });
});
