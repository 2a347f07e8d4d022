// access/halfPointers.ts and access/vectorizes.ts: the 16-bit pointers a function declares, their
// accesses, and whether the function already vectorizes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseSource } from "../../../server/lint/lintDocument";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { declEnv } from "../../../server/analysis/types/declEnv";
import { halfAccesses, halfPointerReader } from "../../../server/analysis/access/halfPointers";
import { vectorizesIn } from "../../../server/analysis/access/vectorizes";

const FILE = [
  "__global__ void plain(const __half* __restrict__ x, float* y, int n) {",
  "  for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = __half2float(x[i]);",
  "}",
  "template <typename T> __global__ void tmpl(T* out, const T* in, int n) {",
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
  "  if (i < n) out[i] = in[i]; // __half in a comment declares nothing",
  "}",
  "void launch(__half* o, const __half* i, int n) { tmpl<__half><<<n / 256, 256>>>(o, i, n); }",
  "__global__ void floats(float* a) { a[threadIdx.x] = 0.f; }",
].join("\n");

describe("halfPointerReader", () => {
  it("finds pointers through the half types and a template parameter instantiated with __half", async () => {
    const idx = FileIndex.of({ tree: await parseSource(FILE), text: FILE });
    const env = declEnv({
      tree: idx.tree,
      text: FILE,
      fileName: "/nowhere/x.cu",
      options: { launchCheckMacros: [] },
    });
    const read = halfPointerReader(idx, env);
    const seen: string[] = [];
    for (const f of idx.deviceFunctions()) {
      const found = read(f);
      if (!found) continue;
      for (const [name, p] of found.pointers) {
        const i = p.instantiation;
        seen.push(`${name}:${p.kind}${i ? `:${i.param}=${i.type} in ${i.writtenIn}` : ""}`);
      }
      const accesses = halfAccesses(idx, f, found.pointers, env.defines).map((a) => a.name);
      seen.push(`accesses ${accesses.join(",")}`);
    }
    assert.deepEqual(seen, [
      "x:half",
      "accesses x",
      "out:half:T=__half in launch",
      "in:half:T=__half in launch",
      "accesses out,in",
    ]);
  });
});

describe("vectorizesIn", () => {
  it("built-in vector types, 128-bit helpers and the project's aligned structs vectorize; a number ending in 128 does not", () => {
    assert.equal(vectorizesIn("auto v = reinterpret_cast<const float4*>(x);", new Set()), true);
    assert.equal(vectorizesIn("x128 packed = load128(p);", new Set()), true);
    assert.equal(vectorizesIn("Vec8 v = *reinterpret_cast<const Vec8*>(x);", new Set(["Vec8"])), true);
    assert.equal(vectorizesIn("int k = 128; y[i] = x[i];", new Set(["Vec8"])), false);
  });
});
