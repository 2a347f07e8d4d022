// The build readers on the patterns real projects write (test/fixtures/build/, written for these tests):
// CMake variables feeding the targets, exclusive branches, setup.py flag lists and run-time values, a
// project built by both build.toml and setup.py, and whether the targets were declared.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import {
  buildFacts,
  describeContext,
  relativePaths,
  resolveBuildContext,
} from "../../../server/lint/buildContext";
import { switchBackend } from "../../../server/lint/buildFlags";
import { PYTORCH_NVCC_DEFINES } from "../../../server/lint/buildFiles";
import { BUILD_FIXTURES, fixtureContext, project as tempProject } from "./project";

const FIX = BUILD_FIXTURES;
const contextOf = fixtureContext;
/** Whether the build defines `name` (its value), undefines it (-U) or says nothing (unknown). */
const macro = (c: { defines: ReadonlyMap<string, string>; undefines: ReadonlySet<string> }, name: string) =>
  c.defines.has(name) ? c.defines.get(name) : c.undefines.has(name) ? "undefined" : "unknown";

test("CMake: variables that feed CMAKE_CUDA_ARCHITECTURES and CUDA_ARCHITECTURES are expanded", () => {
  const c = contextOf("cmake-arch-vars", "k.cu");
  assert.equal(c.targets.source, "CMakeLists.txt");
  assert.deepEqual(c.targets.archs, [80, 86, 89, 90]);
  assert.deepEqual(c.targets.notes, []);
  assert.equal(c.targets.declared, true);
  // Where they came from: the variables, by name.
  assert.match(c.targetsFrom ?? "", /\$\{KERNEL_ARCHS\}/);
  assert.match(c.targetsFrom ?? "", /\$\{EXTRA_ARCHS\}/);
});

test("CMake: -gencode flags spelled from a variable, and from a foreach over a list", () => {
  const c = contextOf("cmake-gencode-var", "k.cu");
  assert.equal(c.targets.source, "CMakeLists.txt");
  assert.deepEqual(c.targets.archs, [75, 80, 86]);
  assert.match(c.targetsFrom ?? "", /CUDA_COMPUTE_CAPABILITY/);
});

test("CMake: a HIP branch is not taken in a CUDA build; exclusive branches' macros are not merged", () => {
  const c = contextOf("cmake-backend-branches", "kernels.cu");
  assert.deepEqual(c.targets.archs, [80, 90]);
  assert.equal(macro(c, "KERNELS_CUDA"), "1");
  assert.equal(macro(c, "KERNELS_HIP"), "unknown", "the HIP branch is not taken");
  assert.equal(macro(c, "__HIP_PLATFORM_AMD__"), "undefined");
  // if(FAST_MATH)/else(): either value, so neither; a macro of one branch only is unknown.
  assert.equal(macro(c, "KERNELS_FAST"), "unknown");
  assert.equal(macro(c, "KERNELS_ACCURATE"), "unknown");
  assert.equal(macro(c, "KERNELS_DEBUG"), "unknown");
  assert.equal(macro(c, "NDEBUG"), "unknown");
  assert.equal(macro(c, "KERNELS_API"), "2");
});

test("setup.py: -gencode flags appended to a list win over a cleared TORCH_CUDA_ARCH_LIST; ROCm branch skipped", () => {
  const c = contextOf("setup-gencode-list", "csrc/kernels.cu");
  assert.equal(c.targets.source, "setup.py");
  assert.deepEqual(c.targets.archs, [80, 90]);
  assert.equal(c.targets.declared, true);
  assert.equal(macro(c, "KERNELS_ROCM"), "unknown", "set only when building for ROCm");
  assert.equal(macro(c, "__CUDA_NO_HALF_OPERATORS__"), "undefined");
  assert.equal(macro(c, "__CUDA_NO_HALF_CONVERSIONS__"), "1", "PyTorch's flag, not undone");
});

test("setup.py: run-time values, exclusive branches and CMake's -D are not compiler macros", () => {
  const c = contextOf("setup-runtime-flags", "csrc/kernels.cu");
  assert.deepEqual(c.targets.archs, [89]);
  assert.equal(macro(c, "KERNEL_FP8"), "1");
  for (const m of [
    "KERNEL_BLOCK",
    "Py_LIMITED_API",
    "KERNEL_VERSION",
    "KERNEL_DEBUG",
    "NDEBUG",
    "CMAKE_BUILD_TYPE",
    "Python_EXECUTABLE",
    "BUILD_TESTS",
  ])
    assert.equal(macro(c, m), "unknown", m);
  for (const [k, v] of c.defines) assert.doesNotMatch(v, /[{}']/, `-D${k}=${v}`);
});

test("build.toml and setup.py both build the file: PyTorch's flags apply, targets are both builds'", () => {
  const c = contextOf("toml-and-setup", "csrc/rmsnorm.cu");
  assert.equal(c.build?.kind, "build.toml");
  assert.deepEqual(c.targets.archs, [80, 90]);
  assert.ok(c.pytorch);
  for (const d of PYTORCH_NVCC_DEFINES) assert.equal(macro(c, d), "1", d);
  const text = describeContext(c, FIX).join("\n");
  assert.match(text, /Build: toml-and-setup\/build\.toml \[kernel\.rmsnorm\] and toml-and-setup\/setup\.py/);
});

test("targets declared by the project, or implicit (kernel-builder's defaults, this machine's GPU)", () => {
  const implicit = contextOf("paged-attention", "paged-attention/attention/paged_attention_v1.cu");
  assert.equal(implicit.targets.declared, false);
  assert.equal(buildFacts(implicit).targetsDeclared, false);
  const root = tempProject(
    { "build.toml": '[kernel.k]\nbackend = "cuda"\ncuda-capabilities = ["7.5"]\nsrc = ["k.cu"]\n' },
    "ckd-declared-",
  );
  const listed = resolveBuildContext({ file: join(root, "k.cu"), stopAt: root, env: {} });
  assert.deepEqual([listed.targets.archs, listed.targets.declared], [[75], true]);
  assert.equal(buildFacts(listed).targetsDeclared, true);
  const gpu = contextOf("cmake-backend-branches", "sub/none/x.cu", 90);
  assert.equal(gpu.targets.declared, true, "the CMakeLists.txt above declares them");
  const none = resolveBuildContext({
    file: join(FIX, "nowhere.cu"),
    stopAt: join(FIX, "nowhere"),
    env: {},
    gpuArch: 90,
  });
  assert.deepEqual([none.targets.source, none.targets.declared], ["gpu", false]);
  const env = resolveBuildContext({
    file: join(FIX, "nowhere.cu"),
    stopAt: FIX,
    env: { TORCH_CUDA_ARCH_LIST: "8.0" },
  });
  assert.deepEqual([env.targets.source, env.targets.declared], ["TORCH_CUDA_ARCH_LIST", true]);
});

test("backend switches: which names select CUDA or HIP, and which are options", () => {
  const names = [
    "BUILD_CUDA",
    "GGML_HIP",
    "USE_ROCM",
    "torch.version.hip",
    "IS_HIP_EXTENSION",
    "CMAKE_CUDA_COMPILER",
  ];
  assert.deepEqual(names.map(switchBackend), ["cuda", "rocm", "rocm", "rocm", "rocm", "cuda"]);
  const options = ["USE_CUDA_GRAPHS", "SKIP_CUDA_BUILD", "torch.cuda.is_available", "FAST_MATH"];
  assert.deepEqual(options.map(switchBackend), [undefined, undefined, undefined, undefined]);
});

test("notes show paths relative to the working folder", () => {
  assert.equal(
    relativePaths(
      '/w/p/CMakeLists.txt: "native" is not a fixed architecture; /w/p/a/build.toml [kernel.k]: x',
      "/w/p",
    ),
    'CMakeLists.txt: "native" is not a fixed architecture; a/build.toml [kernel.k]: x',
  );
});

test("CMake: a flags variable that appends to itself, unknown at first, does not grow on every set", () => {
  // FasterTransformer's shape: CMAKE_CUDA_FLAGS comes from the cache (unknown here), then a foreach appends
  // a -gencode per architecture; expanding the kept `${CMAKE_CUDA_FLAGS}` again on each pass doubled it.
  const appends = Array.from(
    { length: 30 },
    (_, i) => `set(CMAKE_CUDA_FLAGS "\${CMAKE_CUDA_FLAGS} -DSTEP${i}")`,
  );
  const dir = tempProject(
    {
      "CMakeLists.txt": [
        "project(p LANGUAGES CXX CUDA)",
        "set(SM_SETS 75 80 90)",
        "foreach(SM IN LISTS SM_SETS)",
        '  set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -gencode=arch=compute_${SM},code=sm_${SM}")',
        "endforeach()",
        ...appends,
        "add_library(k k.cu)",
      ].join("\n"),
      "k.cu": "__global__ void k() {}\n",
    },
    "ckd-selfappend-",
  );
  const c = resolveBuildContext({ file: join(dir, "k.cu"), stopAt: dir, env: {} });
  assert.deepEqual(c.targets.notes, []);
  assert.deepEqual(c.targets.archs, [75, 80, 90]);
  assert.equal(macro(c, "STEP29"), "1");
});
