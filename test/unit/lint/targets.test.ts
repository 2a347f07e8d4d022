import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseArch, parseArchList } from "../../../server/lint/arch";
import { archsFromFlags, resolveTargets } from "../../../server/lint/targets";
import { project as tempProject } from "./project";

const project = (files: Record<string, string>): string => tempProject(files, "ckd-targets-");
const noEnv = {};

test("architecture spellings of every build system normalise to SM numbers", () => {
  assert.deepEqual(
    [
      "sm_90a",
      "compute_80",
      "8.6",
      "8.6+PTX",
      "90",
      "90-real",
      "9.0a",
      "sm_100f",
      "native",
      "all-major",
      "7",
    ].map(parseArch),
    [90, 80, 86, 86, 90, 90, 90, 100, undefined, undefined, undefined],
  );
  assert.deepEqual(parseArchList("sm_90, 7.5;sm_75"), [75, 90]);
  assert.throws(() => parseArchList("sm_75,turing"), /unknown architecture "turing"/);
});

test("build.toml (kernel-builder): the cuda-capabilities of the kernel listing the file, else of every kernel", () => {
  const root = project({
    "build.toml": `[general]\nname = "rmsnorm"\n[kernel.rmsnorm]\nbackend = "cuda"\ncuda-capabilities = ["9.0", "7.5"]\nsrc = ["rmsnorm/rmsnorm.cu"]\n[kernel.other]\ncuda-capabilities = ["8.0"]\n`,
    "CMakeLists.txt": "set(CMAKE_CUDA_ARCHITECTURES 86)",
  });
  const t = resolveTargets({ file: join(root, "rmsnorm/rmsnorm.cu"), stopAt: root, env: noEnv });
  assert.deepEqual(t, {
    archs: [75, 90],
    source: "build.toml",
    file: join(root, "build.toml"),
    notes: [],
    declared: true,
  });
  // A source no kernel lists (a test, a benchmark) is built for any of them.
  const other = resolveTargets({ file: join(root, "tests/bench.cu"), stopAt: root, env: noEnv });
  assert.deepEqual(other.archs, [75, 80, 90]);
});

test("the setting wins over build files; the nearest file of a kind wins over farther ones", () => {
  const root = project({
    "CMakeLists.txt": "set(CMAKE_CUDA_ARCHITECTURES 70)",
    "sub/CMakeLists.txt": "set(CMAKE_CUDA_ARCHITECTURES 80)",
  });
  const file = join(root, "sub/k.cu");
  assert.deepEqual(resolveTargets({ file, stopAt: root, env: noEnv }).archs, [80]);
  const fromSetting = resolveTargets({
    file,
    stopAt: root,
    explicit: { archs: [75], source: "setting" },
    env: noEnv,
  });
  assert.equal(fromSetting.source, "setting");
  assert.deepEqual(fromSetting.archs, [75]);
});

test("CMake: quoted lists, target properties, -real/-virtual; native is noted and skipped", () => {
  const root = project({
    "CMakeLists.txt": [
      "# set(CMAKE_CUDA_ARCHITECTURES 52)  commented out",
      "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)",
      '  set(CMAKE_CUDA_ARCHITECTURES "75;80-real" CACHE STRING "archs")',
      "endif()",
      'set_target_properties(k PROPERTIES CUDA_ARCHITECTURES "90a-virtual;native")',
    ].join("\n"),
  });
  const t = resolveTargets({ file: join(root, "k.cu"), stopAt: root, env: noEnv });
  assert.deepEqual(t.archs, [75, 80, 90]);
  assert.equal(t.source, "CMakeLists.txt");
  assert.equal(t.notes.length, 1);
  assert.match(t.notes[0]!, /"native" is not a fixed architecture/);
});

test("setup.py: TORCH_CUDA_ARCH_LIST it sets, or the -gencode flags it passes", () => {
  const a = project({ "setup.py": 'import os\nos.environ["TORCH_CUDA_ARCH_LIST"] = "7.5;8.0;9.0+PTX"\n' });
  assert.deepEqual(resolveTargets({ file: join(a, "csrc/k.cu"), stopAt: a, env: noEnv }).archs, [75, 80, 90]);
  const b = project({
    "setup.py": `CUDAExtension("k", ["k.cu"], extra_compile_args={"nvcc": ["-O3", "-gencode=arch=compute_80,code=sm_80", "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]"]})`,
  });
  const t = resolveTargets({ file: join(b, "k.cu"), stopAt: b, env: noEnv });
  assert.deepEqual([t.source, ...t.archs], ["setup.py", 80, 90]);
});

test("$TORCH_CUDA_ARCH_LIST is used when no build file names targets", () => {
  const root = project({ "setup.py": "from setuptools import setup\nsetup()\n" });
  const t = resolveTargets({
    file: join(root, "k.cu"),
    stopAt: root,
    env: { TORCH_CUDA_ARCH_LIST: "8.0 8.6" },
  });
  assert.deepEqual([t.source, ...t.archs], ["TORCH_CUDA_ARCH_LIST", 80, 86]);
});

test("compile_commands.json: the file's own entry, with -arch or -gencode, also under build/", () => {
  const root = project({
    "build/compile_commands.json": JSON.stringify([
      { directory: "/x", file: "/elsewhere/other.cu", command: "nvcc -arch=sm_70 -c other.cu" },
      {
        directory: "ROOT",
        file: "src/k.cu",
        arguments: ["nvcc", "--generate-code=arch=compute_86,code=[compute_86,sm_86]", "-c", "src/k.cu"],
      },
    ]).replace("ROOT", ""),
  });
  // Fill in the real directory now that we know the temp root.
  writeFileSync(
    join(root, "build/compile_commands.json"),
    JSON.stringify([
      { directory: "/x", file: "/elsewhere/other.cu", command: "nvcc -arch=sm_70 -c other.cu" },
      {
        directory: root,
        file: "src/k.cu",
        arguments: ["nvcc", "--generate-code=arch=compute_86,code=[compute_86,sm_86]", "-c", "src/k.cu"],
      },
    ]),
  );
  const t = resolveTargets({ file: join(root, "src/k.cu"), stopAt: root, env: noEnv });
  assert.deepEqual([t.source, ...t.archs], ["compile_commands.json", 86]);
  assert.deepEqual(
    archsFromFlags("nvcc -arch sm_75 --gpu-architecture=compute_89 clang --cuda-gpu-arch=sm_80"),
    [75, 80, 89],
  );
});

test("broken build files are noted and skipped; with nothing found the default is nvcc's sm_75", () => {
  const root = project({ "build.toml": "cuda-capabilities = [", "compile_commands.json": "{ not json" });
  const t = resolveTargets({ file: join(root, "k.cu"), stopAt: root, env: noEnv });
  assert.deepEqual([t.source, ...t.archs], ["default", 75]);
  assert.equal(t.notes.length, 2);
  assert.ok(t.notes.some((n) => n.includes("build.toml")));
  assert.ok(t.notes.some((n) => n.includes("compile_commands.json")));
});

test("the search stops at the workspace root", () => {
  const outer = project({ "CMakeLists.txt": "set(CMAKE_CUDA_ARCHITECTURES 70)" });
  const t = resolveTargets({ file: join(outer, "ws/k.cu"), stopAt: join(outer, "ws"), env: noEnv });
  assert.equal(t.source, "default");
});
