// Whether a kernel runs as one block (server/analysis/launches/launchSites.ts): every use of its name in
// the file is its declaration or a launch with a grid of one block.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cudaParser } from "../../../server/lint/parser";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { launchedAsOneBlock } from "../../../server/analysis/launches/launchSites";

async function oneBlock(text: string, name = "k"): Promise<boolean> {
  const tree = (await cudaParser()).parse(text)!;
  try {
    return launchedAsOneBlock(FileIndex.of({ tree, text }), name);
  } finally {
    tree.delete();
  }
}

const KERNEL =
  "template <typename T> __global__ void k(T* x);\ntemplate <typename T> __global__ void k(T* x) {}\n";

describe("launchedAsOneBlock", () => {
  it("is true where every launch has a grid of one block", async () => {
    assert.equal(await oneBlock(`${KERNEL}void f(float* x) { k<float><<<1, 256>>>(x); }`), true);
    assert.equal(
      await oneBlock(`${KERNEL}constexpr int G = 1;\nvoid f(float* x) { k<float>\n  <<<G, 256, 0>>>(x); }`),
      true,
    );
    assert.equal(
      await oneBlock(`${KERNEL}void f(float* x) { k<float><<<dim3(1, 1), 128>>>(x); } // k<<<8, 1>>>`),
      true,
    );
  });
  it("is false for a larger or unknown grid, another use of the name, or no launch", async () => {
    assert.equal(await oneBlock(`${KERNEL}void f(float* x) { k<<<1, 256>>>(x); k<<<4, 256>>>(x); }`), false);
    assert.equal(await oneBlock(`${KERNEL}void f(float* x, int g) { k<<<g, 256>>>(x); }`), false);
    assert.equal(
      await oneBlock(`${KERNEL}void f(float* x) { cudaFuncSetAttribute(k<float>, a, 0); k<<<1, 256>>>(x); }`),
      false,
    );
    assert.equal(await oneBlock(KERNEL), false);
  });
});
