// The build's include directories (setup.py include_dirs and -I flags, cpp_extension.load's
// extra_include_paths, CMake's include_directories, compile_commands.json's -I), and the project headers
// found through them (projectHeaders.ts): a launch-check macro defined in a header that only an include
// directory reaches (test/fixtures/build/include-dirs/, written from the pattern).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { describeContext, resolveBuildContext } from "../../../server/lint/buildContext";
import { lintFiles } from "../../../server/lint/lintFiles";
import { rules } from "../../../server/rules/index";
import { clearHeaderCache, projectHeaders } from "../../../server/analysis/preprocessor/projectHeaders";
import { BUILD_FIXTURES, fixtureContext, project } from "./project";

const dirsOf = (root: string, file: string): string[] =>
  resolveBuildContext({ file: join(root, file), stopAt: root, env: {} }).includeDirs.map((d) =>
    d.slice(root.length + 1),
  );

describe("include directories the build readers see", () => {
  it('setup.py: Path(…) / "…", os.path.join, literals, a list by name, -I flags', () => {
    const root = project(
      {
        "setup.py": [
          "import os",
          "from pathlib import Path",
          "from torch.utils.cpp_extension import CUDAExtension",
          "here = Path(__file__).resolve().parent",
          "this_dir = os.path.dirname(os.path.abspath(__file__))",
          'extra = [os.path.join(this_dir, "third_party", "include")]',
          'extra.append("vendored")',
          "ext = CUDAExtension(",
          '    name="x", sources=["k.cu"],',
          '    include_dirs=[here / "csrc", os.path.join(this_dir, "csrc", "common"), "inc", os.environ["X"]],',
          '    extra_compile_args={"nvcc": ["-Iflags/a", "-I" + os.path.join(this_dir, "flags", "b"), f"-I{this_dir}/flags/c", "-I" + unknown]},',
          ")",
          'ext2 = CUDAExtension(name="y", sources=["k2.cu"], include_dirs=extra)',
        ].join("\n"),
        "k.cu": "",
      },
      "ckd-incdirs-setup-",
    );
    assert.deepEqual(dirsOf(root, "k.cu"), [
      "csrc",
      "csrc/common",
      "inc",
      "third_party/include",
      "vendored",
      "flags/a",
      "flags/b",
      "flags/c",
    ]);
  });
  it("cpp_extension.load: extra_include_paths", () => {
    const root = project(
      {
        "kernels/run.py": [
          "import os",
          "from torch.utils.cpp_extension import load",
          "HERE = os.path.dirname(__file__)",
          'load(name="k", sources=["k.cu"], extra_include_paths=[os.path.join(HERE, "..", "utils")])',
        ].join("\n"),
        "kernels/k.cu": "",
      },
      "ckd-incdirs-load-",
    );
    assert.deepEqual(dirsOf(root, "kernels/k.cu"), ["utils"]);
  });
  it("CMake: relative, ${CMAKE_CURRENT_SOURCE_DIR}, $<BUILD_INTERFACE:…>, a variable; not unknown ones", () => {
    const root = project(
      {
        "CMakeLists.txt": [
          "project(p LANGUAGES CXX CUDA)",
          "set(COMMON ${CMAKE_CURRENT_SOURCE_DIR}/common)",
          "include_directories(include ${COMMON})",
          "add_library(k k.cu)",
          "target_include_directories(k PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/api> PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src ${CUDA_INCLUDE_DIRS})",
        ].join("\n"),
        "k.cu": "",
      },
      "ckd-incdirs-cmake-",
    );
    assert.deepEqual(dirsOf(root, "k.cu"), ["include", "common", "api", "src"]);
  });
  it("compile_commands.json: -Idir and -I dir, relative to the entry's directory", () => {
    const root = project({ "k.cu": "" }, "ckd-incdirs-cc-");
    const entry = {
      directory: join(root, "build"),
      file: join(root, "k.cu"),
      command: "nvcc -I../inc -I /opt/x -c k.cu",
    };
    writeFileSync(join(root, "compile_commands.json"), JSON.stringify([entry]));
    const c = resolveBuildContext({ file: join(root, "k.cu"), stopAt: root, env: {} });
    assert.deepEqual(c.includeDirs, [join(root, "inc"), "/opt/x"]);
  });
  it("are shown by --explain-context", () => {
    const c = fixtureContext("include-dirs", "csrc/ops/norm.cu");
    const lines = describeContext(c, join(BUILD_FIXTURES, "include-dirs")).join("\n");
    assert.match(lines, /Include paths: -Icsrc -Icsrc\/devutils\/include -Icsrc\/ops/);
  });
});

describe("project headers through the build's include directories", () => {
  it("a check macro there is known, for `<…>` and quoted includes; an unchecked launch still fires", async () => {
    clearHeaderCache();
    const dir = join(BUILD_FIXTURES, "include-dirs", "csrc", "ops");
    const files = [join(dir, "norm.cu"), join(dir, "scale.cu")];
    const reports = await lintFiles(files, {
      rules,
      env: {},
      headerRoots: [join(BUILD_FIXTURES, "include-dirs")],
    });
    const mlc = reports.map((r) =>
      r.findings.filter((f) => f.rule === "missing-launch-check").map((f) => f.span.startLine + 1),
    );
    assert.deepEqual(mlc, [[], [14]]);
  });
  it("quoted: the file's folders first, then the include directories; `<…>`: those first, then the folders; never above the root", () => {
    const root = project(
      {
        "src/a.h": "#define FROM_NEAR 1\n",
        "inc/a.h": "#define FROM_INC 1\n",
        "inc/b.h": "#define B_INC 1\n",
        "outside.h": "#define OUTSIDE 1\n",
      },
      "ckd-incdirs-resolve-",
    );
    clearHeaderCache();
    const file = join(root, "src", "k.cu");
    const names = (includes: string[], dirs: string[], top = root): string[] =>
      projectHeaders(file, includes, top, dirs).flatMap((f) => [...f.defines.keys()]);
    assert.deepEqual(names(["a.h", "b.h"], [join(root, "inc")]), ["FROM_NEAR", "B_INC"]);
    assert.deepEqual(names(["<a.h>", "<b.h>"], [join(root, "inc")]), ["FROM_INC", "B_INC"]);
    // With no include directory read, a project header of that name beside (or above) the file is the one
    // some -I reaches; a system header is not in the project.
    assert.deepEqual(names(["<a.h>"], []), ["FROM_NEAR"]);
    assert.deepEqual(names(["<cuda_runtime.h>"], []), []);
    // An include directory above the root is not read.
    assert.deepEqual(names(["<outside.h>"], [root], join(root, "src")), []);
  });
});
