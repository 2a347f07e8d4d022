// The per-file build context, read from real build files (test/fixtures/build/SOURCES.md says whose).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildFacts, describeContext, resolveBuildContext } from "../../../server/lint/buildContext";
import { cmakeCommands, pythonTokens } from "../../../server/lint/buildSyntax";
import { KERNEL_BUILDER_CAPABILITIES, PYTORCH_NVCC_DEFINES } from "../../../server/lint/buildFiles";
import { fixtureContext, project as tempProject } from "./project";

const contextOf = fixtureContext;

test("build.toml: a CUDA kernel without cuda-capabilities gets kernel-builder's defaults and -DENABLE_FP8", () => {
  const c = contextOf("paged-attention", "paged-attention/attention/paged_attention_v1.cu");
  assert.equal(c.backend, "cuda");
  assert.deepEqual(c.build?.unit, "paged_attention");
  assert.deepEqual(c.targets.archs, KERNEL_BUILDER_CAPABILITIES);
  assert.equal(c.targets.source, "build.toml");
  assert.match(c.targetsFrom ?? "", /kernel-builder's default/);
  // kernel-builder drops PyTorch's __CUDA_NO_HALF* switches: the operators stay.
  assert.deepEqual([...c.defines.keys()].sort(), ["ENABLE_FP8", "__CUDACC__"]);
  assert.ok(c.undefines.has("USE_ROCM") && c.undefines.has("__HIP_PLATFORM_AMD__"));
  assert.equal(buildFacts(c).targets, "declared");
});

test("build.toml: a source a CUDA kernel and its ROCm twin list is CUDA; a ROCm or Metal kernel's is not", () => {
  const twin = contextOf("paged-attention", "cuda-utils/cuda_utils_kernels.cu");
  assert.deepEqual([twin.backend, twin.build?.unit], ["cuda", "cuda_utils"]);
  const metal = contextOf("paged-attention", "paged-attention-metal/paged_attention.mm");
  assert.equal(metal.backend, "metal");
  assert.match(describeContext(metal).join("\n"), /Backend: metal \(not linted as CUDA\)/);
  // aiter-flash-attn-ck's shape: a ROCm-only kernel listing .cuh headers.
  const root = tempProject(
    {
      "build.toml":
        '[general]\nname = "aiter"\nbackends = ["rocm"]\n[kernel.fmha]\nbackend = "rocm"\nsrc = ["aiter/include/quant_utils.cuh"]\n',
    },
    "ckd-ctx-",
  );
  const rocm = resolveBuildContext({
    file: join(root, "aiter/include/quant_utils.cuh"),
    stopAt: root,
    env: {},
  });
  assert.equal(rocm.backend, "rocm");
  const neighbour = resolveBuildContext({
    file: join(root, "aiter/include/other.cuh"),
    stopAt: root,
    env: {},
  });
  assert.equal(neighbour.backend, "rocm", "an unlisted header next to a listed one");
});

test("build.toml: cuda-flags -D switches are the kernel's macros", () => {
  const c = contextOf("cv-utils", "cv_utils/generic_nms.cu");
  for (const m of ["__CUDA_NO_HALF_OPERATORS__", "__CUDA_NO_HALF2_OPERATORS__", "CUDA_HAS_FP16"])
    assert.ok(c.defines.has(m), m);
  assert.ok(!c.defines.has("__CUDA_NO_BFLOAT16_OPERATORS__"));
});

test("CMake is parsed: if() conditions are not architectures, and native is noted once", () => {
  const c = contextOf("ggml-cuda", "mmvf.cu");
  assert.equal(c.targets.source, "CMakeLists.txt");
  assert.ok(c.targets.archs.includes(75) && c.targets.archs.includes(120));
  // Before: `if (CMAKE_CUDA_ARCHITECTURES STREQUAL "native" AND …)` gave STREQUAL, AND, … as notes.
  assert.equal(c.targets.notes.length, 1, c.targets.notes.join("\n"));
  assert.match(c.targets.notes[0]!, /"native".*not fixed architectures/);
  assert.doesNotMatch(c.targets.notes[0]!, /STREQUAL|AND/);
  assert.ok(!c.defines.has("__CUDA_NO_HALF_OPERATORS__"), "not a PyTorch build");
});

test("setup.py is parsed: help strings are not architectures; CUDAExtension brings PyTorch's flags", () => {
  const c = contextOf("apex", "csrc/layer_norm_cuda_kernel.cu");
  assert.equal(c.targets.source, "setup.py");
  assert.deepEqual(c.targets.notes, [], "`compute capability` in a help string is not a target");
  assert.ok(c.targets.archs.includes(75) && c.targets.archs.includes(80));
  assert.ok(c.pytorch);
  for (const d of PYTORCH_NVCC_DEFINES) assert.ok(c.defines.has(d) || c.undefines.has(d), d);
  assert.ok(!c.defines.has("__CUDA_NO_BFLOAT16_OPERATORS__"));
});

test("tokenizers: CMake commands and Python strings, comments skipped", () => {
  const cmds = cmakeCommands(
    '# set(X 1)\nif (A STREQUAL "n" AND (B))\n  set(Y "a;b" CACHE STRING "doc")\nendif()\n',
  );
  assert.deepEqual(
    cmds.map((c) => [c.name, c.args.map((a) => a.text).join(" ")]),
    [
      ["if", "A STREQUAL n AND ( B )"],
      ["set", "Y a;b CACHE STRING doc"],
      ["endif", ""],
    ],
  );
  const py = pythonTokens('x = "a" \'b\'  # "c"\ny = r"""d\\n"""\n');
  assert.deepEqual(
    py.filter((t) => t.kind === "string").map((t) => t.text),
    ["ab", "d\\n"],
  );
});

test("compile_commands.json: the file's own -D/-U; no targets at all: none, or this machine's GPU", () => {
  const root = tempProject({}, "ckd-ctx-");
  writeFileSync(
    join(root, "compile_commands.json"),
    JSON.stringify([
      { directory: root, file: "k.cu", command: "nvcc -DUSE_FAST=2 -UNDEBUG -arch=sm_86 -c k.cu" },
    ]),
  );
  const c = resolveBuildContext({ file: join(root, "k.cu"), stopAt: root, env: {} });
  assert.equal(c.defines.get("USE_FAST"), "2");
  assert.ok(c.undefines.has("NDEBUG"));
  assert.deepEqual(c.targets.archs, [86]);
  const none = resolveBuildContext({ file: join(root, "sub", "x.cu"), stopAt: join(root, "sub"), env: {} });
  assert.equal(buildFacts(none).targets, "none");
  assert.equal(none.build, undefined);
  const gpu = resolveBuildContext({
    file: join(root, "sub", "x.cu"),
    stopAt: join(root, "sub"),
    env: {},
    gpuArch: 90,
  });
  assert.deepEqual([gpu.targets.source, ...gpu.targets.archs, buildFacts(gpu).targets], ["gpu", 90, "gpu"]);
});
