// Rules read the file's build context: which macros its build defines, and whether targets are declared.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PYTORCH_NVCC_DEFINES } from "../../../server/lint/buildFiles";
import { STANDALONE_BUILD } from "../../../server/lint/engine";
import { lintSource } from "../../../server/lint/lintDocument";
import { rules } from "../../../server/rules/index";
import type { BuildFacts } from "../../../server/rules/rule";

const build = (defines: readonly string[], over: Partial<BuildFacts> = {}): BuildFacts => ({
  targets: "declared",
  defines: new Map(defines.map((d) => [d, "1"])),
  undefines: new Set(["USE_ROCM"]),
  definesKnown: true,
  ...over,
});

const OPERATORS = `__device__ void f(__half* y, const __half* x, __nv_bfloat16* b, const __nv_bfloat16* c, int i) {
  y[i] = x[i] * x[i];
  b[i] = c[i] * c[i];
}
`;

async function ruleLines(text: string, rule: string, b?: BuildFacts, targets = [75, 90]): Promise<number[]> {
  const found = await lintSource(text, { rules, targets, ...(b ? { build: b } : {}) });
  return found.filter((f) => f.rule === rule).map((f) => f.span.startLine + 1);
}

describe("half-operator goes by the build's switches", () => {
  it("PyTorch's flags remove the __half operators, not the BF16 ones", async () => {
    assert.deepEqual(await ruleLines(OPERATORS, "half-operator", build(PYTORCH_NVCC_DEFINES)), [2]);
  });

  it("a build without the switches (CMake, kernel-builder) reports nothing", async () => {
    assert.deepEqual(await ruleLines(OPERATORS, "half-operator", build(["ENABLE_FP8"])), []);
  });

  it("-D__CUDA_NO_BFLOAT16_OPERATORS__ removes the BF16 ones", async () => {
    assert.deepEqual(
      await ruleLines(OPERATORS, "half-operator", build(["__CUDA_NO_BFLOAT16_OPERATORS__"])),
      [3],
    );
  });

  it("no build file: only a file that includes PyTorch's headers is taken for an extension", async () => {
    const unknown = build([], { definesKnown: false });
    assert.deepEqual(await ruleLines(OPERATORS, "half-operator", unknown), []);
    const torch = `#include <torch/extension.h>\n${OPERATORS}`;
    assert.deepEqual(await ruleLines(torch, "half-operator", unknown), [3]);
  });

  it("without a build context (tests) every switch is assumed", async () => {
    assert.deepEqual(await ruleLines(OPERATORS, "half-operator"), [2, 3]);
    assert.ok(STANDALONE_BUILD.defines.has("__CUDA_NO_BFLOAT16_OPERATORS__"));
  });
});

const BF16 = `#include <mma.h>\n__global__ void k(const __nv_bfloat16* a) { nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> f; nvcuda::wmma::load_matrix_sync(f, a, 16); }\n`;

describe("no declared targets", () => {
  it("arch-dependent rules do not run; one note per file says which and how to declare targets", async () => {
    const found = await lintSource(BF16, { rules, targets: [75], build: build([], { targets: "none" }) });
    assert.ok(!found.some((f) => f.rule === "bf16-unsupported-arch"));
    const notes = found.filter((f) => f.rule === "targets");
    assert.equal(notes.length, 1);
    assert.equal(notes[0]!.severity, "information");
    assert.match(
      notes[0]!.message,
      /bf16-unsupported-arch, bf16-emulated-arch and shared-memory-limit's per-target limits are off/,
    );
    assert.match(notes[0]!.message, /cudaKernelDev\.targets.*build\.toml.*CMAKE_CUDA_ARCHITECTURES/);
  });

  it("with this machine's GPU assumed, the rules run and the note names it", async () => {
    const found = await lintSource(BF16, { rules, targets: [75], build: build([], { targets: "gpu" }) });
    assert.ok(found.some((f) => f.rule === "bf16-unsupported-arch"));
    const note = found.find((f) => f.rule === "targets");
    assert.match(note?.message ?? "", /assuming this machine's GPU \(sm_75\)/);
  });
});

describe("code no compilation sees is not linted", () => {
  const SHUFFLE = `__device__ float s(float v) {
#if 0
  v += __shfl_down(v, 1);
#endif
#ifdef USE_ROCM
  v += __shfl_xor(v, 1);
#elif __CUDA_ARCH__ >= 800
  v += __shfl_up(v, 1);
#endif
  return v;
}
`;
  it("#if 0, HIP's branch in a CUDA build, an arch arm above every target", async () => {
    assert.deepEqual(await ruleLines(SHUFFLE, "deprecated-shuffle", build([]), [75]), []);
    assert.deepEqual(await ruleLines(SHUFFLE, "deprecated-shuffle", build([]), [75, 90]), [8]);
    // A ROCm build (USE_ROCM defined) compiles that branch.
    const rocm = build(["USE_ROCM"], { undefines: new Set() });
    assert.deepEqual(await ruleLines(SHUFFLE, "deprecated-shuffle", rocm, [75]), [6]);
  });
});

describe("missing-launch-check in a library file that checks none of its launches", () => {
  const LIBRARY = `__global__ void k(float* y);
void run(float* y, cudaStream_t s) {
  k<<<1, 32, 0, s>>>(y);
}
`;
  it("is taken to check at a higher level, unless its build makes it a PyTorch extension", async () => {
    assert.deepEqual(await ruleLines(LIBRARY, "missing-launch-check", build([])), []);
    assert.deepEqual(await ruleLines(LIBRARY, "missing-launch-check", build([], { pytorch: true })), [3]);
  });
});

describe("half-implicit-conversion goes by the build's switches", () => {
  const CONVERSIONS = `__device__ void f(__half* y, __nv_bfloat16* b, float v) {
  y[0] = v * 0.5f;
  b[0] = v * 0.5f;
}
`;
  it("reports each type only where its build removes the implicit conversions", async () => {
    assert.deepEqual(await ruleLines(CONVERSIONS, "half-implicit-conversion", build([])), []);
    const half = build(["__CUDA_NO_HALF_CONVERSIONS__"]);
    assert.deepEqual(await ruleLines(CONVERSIONS, "half-implicit-conversion", half), [2]);
    assert.deepEqual(
      await ruleLines(CONVERSIONS, "half-implicit-conversion", build([...PYTORCH_NVCC_DEFINES])),
      [2, 3],
    );
  });
  it("with no build file, a file with PyTorch includes gets PyTorch's switches", async () => {
    const torch = `#include <torch/extension.h>\n${CONVERSIONS}`;
    const unknown = build([], { definesKnown: false });
    assert.deepEqual(await ruleLines(torch, "half-implicit-conversion", unknown), [3, 4]);
    assert.deepEqual(await ruleLines(CONVERSIONS, "half-implicit-conversion", unknown), []);
  });
});
