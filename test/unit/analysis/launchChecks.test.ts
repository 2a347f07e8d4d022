// Which calls count as launch checks (server/analysis/launches/launchChecks.ts), judged from their
// definitions, and the function bodies read from text for them (source/functionBodies.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { tempDir } from "../../support/tempDir";
import { join } from "node:path";
import { BUILTIN_CHECKS, launchChecks } from "../../../server/analysis/launches/launchChecks";
import { functionBodies } from "../../../server/analysis/source/functionBodies";
import { codeOnly } from "../../../server/analysis/source/codeText";
import { clearHeaderCache } from "../../../server/analysis/preprocessor/projectHeaders";
import { lintSource } from "../../../server/lint/lintDocument";
import { rules } from "../../../server/rules/index";

describe("function bodies in text", () => {
  it("takes definitions, looks into lambdas and control statements, skips comments", () => {
    const code = codeOnly(`// void fake() { cudaGetLastError(); }
inline void check(const char* f) noexcept { if (x) { auto l = [&](int a) { g(a); }; } }
struct S { int get() const { return 1; } };
`);
    const bodies = functionBodies(code);
    assert.deepEqual([...bodies.keys()], ["check", "get"]);
    assert.match(bodies.get("check")!, /auto l =/);
  });
});

describe("launch checks from definitions", () => {
  const closure = (defs: [string, string][]): string[] =>
    [...launchChecks(defs, BUILTIN_CHECKS)].filter((c) => !BUILTIN_CHECKS.includes(c));
  it("a macro or function whose body reads the last error, directly or through another", () => {
    assert.deepEqual(
      closure([
        ["sync_check", "() syncAndCheck(__FILE__, __LINE__)"],
        ["syncAndCheck", " cudaDeviceSynchronize(); cudaError_t e = cudaGetLastError(); if (e) throw 1; "],
        ["CUDA_CHECK", "(x) do { if ((x) != cudaSuccess) abort(); } while (0)"],
      ]),
      ["syncAndCheck", "sync_check"],
    );
  });
  it("not a function that only synchronizes, nor one that launches a kernel", () => {
    assert.deepEqual(
      closure([
        ["sync_or_die", " if (cudaStreamSynchronize(s) != cudaSuccess) abort(); "],
        ["launcher", " k<<<1, 32>>>(y); cudaGetLastError(); "],
      ]),
      [],
    );
  });
  it("not a body whose only last-error calls discard the result (a reset), nor a macro calling one", () => {
    assert.deepEqual(
      closure([
        ["reset", " if (err != cudaSuccess) { cudaGetLastError(); } "],
        ["reset_all", " (void)cudaPeekAtLastError(); else ::cudaGetLastError(); "],
        ["RESET_ERRORS", "() do { cudaGetLastError(); reset(); } while (0)"],
        ["reads", " cudaGetLastError(); return cudaGetLastError(); "],
      ]),
      ["reads"],
    );
  });
  it("not a function that launches through the functions or macros it calls, at any depth", () => {
    assert.deepEqual(
      closure([
        ["LayerNormQuant", " dispatch_type(x); return cudaGetLastError(); "],
        ["dispatch_type", " if (a) dispatch_square<true>(x); else dispatch_square<false>(x); "],
        ["dispatch_square", " k<<<1, 32>>>(x); "],
        ["viaMacro", " LAUNCH_ALL(x); return cudaGetLastError(); "],
        ["LAUNCH_ALL", "(x) k<<<1, 32>>>(x)"],
        ["check_only", " report(cudaGetLastError()); "],
        ["report", " if (e) abort(); "],
      ]),
      ["check_only"],
    );
  });
  it("never suggests a launching function as the project's check", async () => {
    // The launch is checked after one of its callers' calls only: reported, and the message names no
    // launcher (LayerNormQuant launches through dispatch_type and returns cudaGetLastError()).
    const text = `__global__ void k(float* y);
void dispatch_type(float* y) { k<<<1, 32>>>(y); }
cudaError_t LayerNorm(float* y) { dispatch_type(y); return cudaSuccess; }
cudaError_t LayerNormQuant(float* y) { dispatch_type(y); return cudaGetLastError(); }
int main() { return 0; }
`;
    const found = await lintSource(text, { rules });
    const mlc = found.filter((x) => x.rule === "missing-launch-check");
    assert.deepEqual(
      mlc.map((x) => x.span.startLine),
      [1],
    );
    assert.doesNotMatch(mlc[0]!.message, /LayerNormQuant/);
    assert.match(mlc[0]!.message, /Check cudaGetLastError\(\) after it\.$/);
  });
  it("a project header's check function counts in the file that includes it", async () => {
    const root = tempDir("ckd-checks-");
    writeFileSync(
      join(root, "cuda_utils.h"),
      "inline void check_cuda_error(const char* f, int l) {\n  cudaError_t e = cudaGetLastError();\n  if (e != cudaSuccess) abort();\n}\n",
    );
    clearHeaderCache();
    const text = `#include "cuda_utils.h"
__global__ void k(float* y);
void f(float* y) { k<<<1, 32>>>(y); check_cuda_error(__FILE__, __LINE__); }
void g(float* y) { k<<<1, 32>>>(y); }
int main() { return 0; }
`;
    const found = await lintSource(text, {
      rules,
      fileName: join(root, "k.cu"),
      ruleOptions: { launchCheckMacros: [], headerRoot: root },
    });
    const mlc = found.filter((x) => x.rule === "missing-launch-check");
    assert.deepEqual(
      mlc.map((x) => x.span.startLine),
      [3],
    );
    // The message suggests the project's check, not the PyTorch macro.
    assert.match(mlc[0]!.message, /project's `check_cuda_error`/);
    assert.doesNotMatch(mlc[0]!.message, /C10_CUDA_KERNEL_LAUNCH_CHECK/);
  });
});
