// Python scripts that build a source (torch.utils.cpp_extension.load / load_inline), nvcc flags shared by
// a project's helper module, HIP-only flags chosen by conditional expressions, and DeepSpeed-style
// op_builder classes (test/fixtures/build/, written for these tests from the general patterns).
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { buildFacts, describeContext, resolveBuildContext } from "../../../server/lint/buildContext";
import { PYTORCH_NVCC_DEFINES } from "../../../server/lint/buildFiles";

const FIX = join(__dirname, "..", "..", "fixtures", "build");
const contextOf = (folder: string, rel: string) =>
  resolveBuildContext({ file: join(FIX, folder, rel), stopAt: join(FIX, folder), env: {} });
const macro = (c: { defines: ReadonlyMap<string, string>; undefines: ReadonlySet<string> }, name: string) =>
  c.defines.has(name) ? c.defines.get(name) : c.undefines.has(name) ? "undefined" : "unknown";

test("load(): the script beside the source builds it; its -U flags, built in a variable, undo PyTorch's", () => {
  const c = contextOf("torch-load", "kernels/act/act.cu");
  assert.equal(c.build?.kind, "cpp_extension.load");
  assert.equal(c.build?.file, join(FIX, "torch-load/kernels/act/act.py"));
  assert.ok(c.pytorch);
  assert.equal(macro(c, "__CUDA_NO_HALF_OPERATORS__"), "undefined");
  assert.equal(macro(c, "__CUDA_NO_HALF_CONVERSIONS__"), "undefined");
  assert.equal(macro(c, "__CUDA_NO_HALF2_OPERATORS__"), "1", "PyTorch's, not undone");
  assert.deepEqual(c.targets.archs, [80]);
  assert.equal(buildFacts(c).definesKnown, true);
  assert.match(describeContext(c, FIX).join("\n"), /Build: torch-load\/kernels\/act\/act\.py/);
});

test("load(): sources found by glob, positional arguments, load_inline reading a file", () => {
  const g = contextOf("torch-load", "kernels/globbed/src/g.cu");
  assert.equal(g.build?.kind, "cpp_extension.load");
  assert.equal(macro(g, "GLOBBED"), "2");
  assert.equal(macro(g, "__CUDA_NO_HALF_OPERATORS__"), "1");
  assert.deepEqual(g.targets.archs, [90]);
  for (const f of ["plain.cu", "inline.cu"]) {
    const p = contextOf("torch-load", `kernels/plain/${f}`);
    assert.equal(p.build?.kind, "cpp_extension.load", f);
    for (const d of PYTORCH_NVCC_DEFINES) assert.equal(macro(p, d), "1", `${f} ${d}`);
  }
});

test("load(): flags and sources from the project's helper module are followed", () => {
  const c = contextOf("torch-load", "kernels/helper/helper.cu");
  assert.equal(c.build?.kind, "cpp_extension.load");
  assert.equal(macro(c, "__CUDA_NO_HALF_OPERATORS__"), "undefined");
  assert.equal(macro(c, "__CUDA_NO_HALF2_OPERATORS__"), "undefined");
  assert.equal(macro(c, "__CUDA_NO_HALF_CONVERSIONS__"), "1");
  assert.equal(buildFacts(c).definesKnown, true);
});

test("load(): flags from a module outside the project are unknown, so PyTorch's switches are not assumed", () => {
  const c = contextOf("torch-load", "kernels/unread/unread.cu");
  assert.equal(c.build?.kind, "cpp_extension.load");
  assert.ok(c.pytorch);
  for (const d of PYTORCH_NVCC_DEFINES) assert.equal(macro(c, d), "unknown", d);
  assert.equal(buildFacts(c).definesKnown, false);
  assert.match(describeContext(c, FIX).join("\n"), /nvcc_flags/);
});

test("setup.py: nvcc flags returned by the project's helper module apply after PyTorch's", () => {
  const c = contextOf("setup-helper-flags", "csrc/k.cu");
  assert.equal(c.build?.kind, "setup.py");
  assert.equal(macro(c, "__CUDA_NO_HALF_OPERATORS__"), "undefined");
  assert.equal(macro(c, "__CUDA_NO_HALF_CONVERSIONS__"), "undefined");
  assert.equal(macro(c, "__CUDA_NO_HALF2_OPERATORS__"), "1");
  assert.equal(buildFacts(c).definesKnown, true);
});

test("setup.py: a conditional expression's HIP arm does not reach a CUDA build", () => {
  const c = contextOf("setup-hip-ternary", "k.cu");
  assert.equal(macro(c, "USE_ROCM"), "undefined");
  assert.equal(macro(c, "__HIP_PLATFORM_AMD__"), "undefined");
  assert.equal(macro(c, "KERNELS_CUDA"), "1");
  assert.equal(macro(c, "KERNELS_NVCC_TUNED"), "1");
  assert.equal(macro(c, "KERNELS_ROCM_TUNED"), "unknown");
  assert.equal(macro(c, "KERNELS_FAST"), "unknown", "a condition that cannot be told");
});

test("op_builder: a class whose sources() lists the file builds it with its nvcc_args(), after PyTorch's", () => {
  const fused = contextOf("op-builder", "csrc/fused/fused_kernel.cu");
  assert.equal(fused.build?.kind, "op_builder");
  assert.equal(fused.build?.file, join(FIX, "op-builder/op_builder/fused.py"));
  assert.ok(fused.pytorch);
  assert.equal(macro(fused, "__CUDA_NO_HALF_OPERATORS__"), "undefined");
  assert.equal(macro(fused, "__CUDA_NO_HALF_CONVERSIONS__"), "undefined");
  assert.equal(macro(fused, "__CUDA_NO_HALF2_OPERATORS__"), "1");
  assert.equal(macro(fused, "FUSED_VEC"), "4");
  assert.equal(macro(fused, "OPS_ROCM"), "unknown", "the ROCm branch is not taken");
  assert.deepEqual(fused.targets.archs, [80]);
  const plain = contextOf("op-builder", "csrc/plain/plain.cu");
  assert.equal(plain.build?.kind, "op_builder");
  assert.equal(macro(plain, "__CUDA_NO_HALF_OPERATORS__"), "undefined", "the base class's nvcc_args()");
  assert.equal(macro(plain, "FUSED_VEC"), "unknown");
  // sources() computed at run time: not this reader's; setup.py (no CUDAExtension of its own) owns it.
  assert.equal(contextOf("op-builder", "csrc/computed/c.cu").build?.kind, "setup.py");
});

test("setup.py: PyTorch's half switches the script removes from COMMON_NVCC_FLAGS are not defined", () => {
  const c = contextOf("setup-removes-flags", "csrc/rope.cu");
  assert.equal(c.build?.kind, "setup.py");
  assert.ok(c.pytorch);
  for (const d of [
    "__CUDA_NO_HALF_OPERATORS__",
    "__CUDA_NO_HALF_CONVERSIONS__",
    "__CUDA_NO_BFLOAT16_CONVERSIONS__",
  ])
    assert.equal(macro(c, d), "undefined", d);
  assert.equal(macro(c, "__CUDA_NO_HALF2_OPERATORS__"), "1", "not removed");
  assert.deepEqual(c.targets.archs, [80]);
});
