// `cuda-kernel-dev lint` end to end: a real process on a throwaway project.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { project as tempProject } from "./project";

const REPO = join(__dirname, "..", "..", "..");
const MAIN = join(REPO, "server", "cli", "main.ts");
// The projects live in a temp folder, where the bare specifier "tsx" would not resolve.
const TSX = pathToFileURL(join(REPO, "node_modules", "tsx", "dist", "loader.mjs")).href;

const project = (files: Record<string, string>): string => tempProject(files, "ckd-cli-");

type Run = { code: number | null; stdout: string; stderr: string };

function lintWith(env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): Run {
  const r = spawnSync(process.execPath, ["--import", TSX, MAIN, "lint", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, TORCH_CUDA_ARCH_LIST: "", ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const lint = (cwd: string, ...args: string[]): Run => lintWith({}, cwd, ...args);

const BAD = `__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);
  return v;
}
`;
const CLEAN = `__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
`;

test("folders are walked for .cu/.cuh; json has 1-based positions, paths relative to the cwd; errors exit 1", () => {
  const root = project({
    "csrc/reduce.cuh": BAD,
    "csrc/ok.cu": CLEAN,
    "csrc/notes.txt": BAD,
    "node_modules/dep/x.cu": BAD,
  });
  const r = lint(root, "csrc", "--format", "json");
  assert.equal(r.code, 1, r.stderr);
  const findings = JSON.parse(r.stdout) as Record<string, unknown>[];
  const shuffle = findings.filter((f) => f.rule === "deprecated-shuffle");
  assert.deepEqual(shuffle, [
    {
      file: "csrc/reduce.cuh",
      line: 2,
      column: 41,
      endLine: 2,
      endColumn: 51,
      rule: "deprecated-shuffle",
      severity: "error",
      message: shuffle[0]!.message,
    },
  ]);
  // Besides one note per file that no targets are declared (the project has no build file).
  const notes = findings.filter((f) => f.rule === "targets");
  assert.deepEqual(notes.map((f) => [f.file, f.severity]).sort(), [
    ["csrc/ok.cu", "information"],
    ["csrc/reduce.cuh", "information"],
  ]);
  assert.ok(findings.every((f) => f.file === "csrc/reduce.cuh" || f.rule === "targets"));
});

test("clean code exits 0; the text format is compiler-style with a summary", () => {
  const root = project({ "ok.cu": CLEAN });
  const r = lint(root);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^1 file: 0 error\(s\)/m);
  const bad = lint(project({ "k.cu": BAD }), "k.cu");
  assert.match(bad.stdout, /^k\.cu:2:41: error: .* \[deprecated-shuffle\]$/m);
});

test(".cuda-kernel-dev.toml severities apply to the CLI too", () => {
  const root = project({ "k.cu": BAD, ".cuda-kernel-dev.toml": '[rules]\ndeprecated-shuffle = "warning"\n' });
  const r = lint(root, "--format", "json");
  assert.equal(r.code, 0, r.stderr);
  const f = (JSON.parse(r.stdout) as { rule: string; severity: string }[]).find(
    (x) => x.rule === "deprecated-shuffle",
  );
  assert.equal(f?.severity, "warning");
});

test("--arch overrides build files (bf16 on sm_75 is an error only when sm_75 is targeted)", () => {
  const src = `#include <mma.h>\n__global__ void k(const __nv_bfloat16* a) { nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> f; nvcuda::wmma::load_matrix_sync(f, a, 16); }\n`;
  const root = project({ "k.cu": src, "build.toml": '[kernel.k]\ncuda-capabilities = ["8.0", "9.0"]\n' });
  const rules = (args: string[]): string[] =>
    (JSON.parse(lint(root, "--format", "json", ...args).stdout) as { rule: string }[]).map((f) => f.rule);
  assert.ok(!rules([]).includes("bf16-unsupported-arch"));
  assert.ok(rules(["--arch", "sm_75,sm_90"]).includes("bf16-unsupported-arch"));
});

test("SARIF 2.1.0: rules in the driver, results with regions relative to SRCROOT", () => {
  const root = project({ "src/k.cu": BAD });
  const r = lint(root, "--format", "sarif");
  assert.equal(r.code, 1);
  const sarif = JSON.parse(r.stdout) as {
    version: string;
    runs: {
      tool: {
        driver: { name: string; rules: { id: string; helpUri?: string; help?: { markdown: string } }[] };
      };
      results: {
        ruleId: string;
        ruleIndex: number;
        level: string;
        locations: {
          physicalLocation: {
            artifactLocation: { uri: string; uriBaseId: string };
            region: { startLine: number; startColumn: number };
          };
        }[];
      }[];
    }[];
  };
  assert.equal(sarif.version, "2.1.0");
  const run = sarif.runs[0]!;
  assert.equal(run.tool.driver.name, "cuda-kernel-dev");
  // The rule's doc travels in the log: no file:// path of the machine that made it.
  const shuffle = run.tool.driver.rules.find((x) => x.id === "deprecated-shuffle")!;
  assert.equal(shuffle.helpUri, undefined);
  assert.match(shuffle.help?.markdown ?? "", /^# deprecated-shuffle/m);
  assert.doesNotMatch(r.stdout, /file:\/\/.*\.md/);
  const result = run.results.find((x) => x.ruleId === "deprecated-shuffle")!;
  assert.equal(run.tool.driver.rules[result.ruleIndex]!.id, "deprecated-shuffle");
  assert.equal(result.level, "error");
  assert.deepEqual(result.locations[0]!.physicalLocation.artifactLocation, {
    uri: "src/k.cu",
    uriBaseId: "SRCROOT",
  });
  assert.deepEqual(result.locations[0]!.physicalLocation.region, {
    startLine: 2,
    startColumn: 41,
    endLine: 2,
    endColumn: 51,
  });
});

test("bad input gives one clear line and exit 2", () => {
  const root = project({});
  const missing = lint(root, "nope");
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cuda-kernel-dev: no such file or folder: nope/);
  const arch = lint(root, "--arch", "sm_75,volta");
  assert.equal(arch.code, 2);
  assert.match(arch.stderr, /--arch: unknown architecture "volta"/);
  assert.equal(lint(root, "--format", "xml").code, 2, "commander rejects the choice: bad usage");
});

test("a build file's notes are said once, not once per source; ROCm sources get one summary line", () => {
  const root = project({
    "CMakeLists.txt": 'set(CMAKE_CUDA_ARCHITECTURES "native")\nlist(APPEND CMAKE_CUDA_ARCHITECTURES 80)\n',
    "a.cu": CLEAN,
    "b.cu": CLEAN,
    "rocm/build.toml": '[kernel.k]\nbackend = "rocm"\nsrc = ["k.cu", "k2.cu"]\n',
    "rocm/k.cu": BAD,
    "rocm/k2.cu": BAD,
  });
  const r = lint(root, "--format", "json");
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.filter((l) => l.includes('"native"')).length, 1, r.stderr);
  // Paths relative to the working folder, as the findings' are.
  assert.ok(!r.stderr.includes(root), r.stderr);
  assert.ok(
    lines.some((l) => l.startsWith('cuda-kernel-dev lint: warning: CMakeLists.txt: "native"')),
    r.stderr,
  );
  assert.deepEqual(
    lines.filter((l) => !l.includes('"native"')),
    [
      "cuda-kernel-dev lint: 2 file(s) not linted: their build compiles them for rocm, not CUDA (see --explain-context FILE)",
    ],
  );
  assert.deepEqual(JSON.parse(r.stdout), []);
});

test("--explain-context prints the file's build, backend, targets and macros", () => {
  const root = project({
    "build.toml":
      '[kernel.k]\nbackend = "cuda"\ndepends = ["torch"]\ncuda-flags = ["-DFOO=2"]\nsrc = ["k/k.cu"]\n',
  });
  const r = lint(root, "--explain-context", "k/k.cu");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Build: build\.toml \[kernel\.k\]$/m);
  assert.match(r.stdout, /^Backend: cuda, PyTorch extension$/m);
  assert.match(
    r.stdout,
    /^Targets: sm_70, sm_72, sm_75, .*sm_120 from build\.toml.*kernel-builder's default/m,
  );
  assert.match(r.stdout, /^Macros: -DENABLE_FP8 -DFOO=2 -D__CUDACC__$/m);
  const broken = project({ "CMakeLists.txt": "set(CMAKE_CUDA_ARCHITECTURES native)\n" });
  const notes = lint(broken, "--explain-context", "k.cu").stdout;
  assert.match(notes, /^Note: CMakeLists\.txt: "native" is not a fixed architecture; ignored$/m);
});

test("with no targets declared, this machine's GPU (nvidia-smi) is assumed, unless --no-gpu", () => {
  const bin = tempProject({ "nvidia-smi": "#!/bin/sh\necho 8.6\necho 9.0\n" }, "ckd-gpu-");
  chmodSync(join(bin, "nvidia-smi"), 0o755);
  const root = project({ "k.cu": BAD });
  const env = { PATH: `${bin}:${process.env.PATH ?? ""}` };
  const notes = (args: string[]): string[] =>
    (
      JSON.parse(lintWith(env, root, "--format", "json", ...args).stdout) as {
        rule: string;
        message: string;
      }[]
    )
      .filter((f) => f.rule === "targets")
      .map((f) => f.message);
  assert.match(notes([]).join(), /assuming this machine's GPU \(sm_86\)/);
  assert.match(notes(["--no-gpu"]).join(), /are off/);
});

test("the help and the empty-folder message name the headers a folder walk takes", () => {
  const root = project({ "host.h": "int f();\n" });
  const empty = lint(root);
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(
    empty.stderr,
    /no \.cu\/\.cuh files or \.h\/\.hpp\/\.hxx\/\.inl headers with __global__\/__device__ code in \./,
  );
  assert.match(
    lint(root, "--help").stdout,
    /\.h\/\.hpp\/\.hxx\/\.inl headers with\s+__global__\/__device__ code/,
  );
});
