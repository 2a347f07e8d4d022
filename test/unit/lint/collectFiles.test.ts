// The folder walk of `cuda-kernel-dev lint`: .cu/.cuh always, headers only when they define device code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { collectCudaFiles } from "../../../server/lint/lintFiles";
import { tempDir } from "../../support/tempDir";

test("folders are walked for .cu/.cuh and for .h/.hpp/.hxx/.inl headers that define __global__ or __device__ code", () => {
  const root = tempDir("ckd-walk-");
  const files: Record<string, string> = {
    "k.cu": "__global__ void k() {}",
    "k.cuh": "#pragma once",
    "softmax.h": "template <int N> __global__ void softmax(float* x) {}",
    "util.hpp": "__device__ __forceinline__ float sq(float x) { return x * x; }",
    "impl.inl": "__global__ void impl() {}",
    "tile.hxx": "__device__ int lane() { return threadIdx.x & 31; }",
    "host_only.h": "int add(int a, int b); // calls a __global_ helper",
    "notes.txt": "__global__ void k() {}",
    "build/gen.h": "__global__ void gen() {}",
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, ".."), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  const found = collectCudaFiles([root]).map((f) => relative(root, f));
  assert.deepEqual(found, ["impl.inl", "k.cu", "k.cuh", "softmax.h", "tile.hxx", "util.hpp"]);
  // a file named on the command line is linted whatever its extension
  assert.deepEqual(
    collectCudaFiles([join(root, "host_only.h")]).map((f) => relative(root, f)),
    ["host_only.h"],
  );
});
