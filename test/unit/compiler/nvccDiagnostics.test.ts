import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { nvccArgs, resolveNvcc, runNvcc } from "../../../server/compiler/nvcc";
import { parseNvccOutput } from "../../../server/compiler/nvccDiagnostics";
import {
  findKernelLine,
  placeDiagnostics,
  type PlacedDiagnostic,
} from "../../../server/compiler/nvccPlacement";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const broken = join(__dirname, "../../fixtures/compiler/broken");
const read = (name: string): string => readFileSync(join(broken, name), "utf8");
const readText = (f: string): string | undefined => (existsSync(f) ? readFileSync(f, "utf8") : undefined);

/** Compiles a broken fixture with the real nvcc (device code only, sm_90) and places its diagnostics. */
async function compile(
  file: string,
  extra: string[] = [],
): Promise<{ output: string; placed: PlacedDiagnostic[]; exitCode: number | undefined }> {
  const nvcc = await resolveNvcc(undefined);
  const main = join(broken, file);
  const run = await runNvcc(nvcc, nvccArgs("check", main, "sm_90", ["-Iinclude", ...extra]), {
    cwd: broken,
    timeoutMs: 120_000,
  });
  const placed = placeDiagnostics(parseNvccOutput(run.output), {
    cwd: broken,
    mainFile: main,
    readText,
    arch: "sm_90",
  });
  return { output: run.output, placed, exitCode: run.exitCode };
}

const at = (p: PlacedDiagnostic): string =>
  `${p.file.slice(broken.length + 1)}:${p.range.startLine + 1}:${p.range.startColumn}`;

void test("real nvcc: a syntax error and an undefined identifier land on their lines and tokens", async () => {
  const { placed, exitCode } = await compile("syntax_error.cu");
  assert.notEqual(exitCode, 0);
  const errors = placed.filter((p) => p.severity === "error");
  assert.deepEqual(errors.map(at), ["syntax_error.cu:4:2", "syntax_error.cu:9:21"]);
  assert.match(errors[0]!.message, /expected a ";"/);
  assert.match(errors[1]!.message, /identifier "dd" is undefined/);
  assert.equal(errors[1]!.range.endColumn - errors[1]!.range.startColumn, 2, "the range covers `dd`");
});

void test("real nvcc: a type error inside an included header goes on the header and on the instantiating line", async () => {
  const { placed } = await compile("header_type_error.cu");
  const errors = placed.filter((p) => p.severity === "error");
  assert.deepEqual(errors.map(at), ["include/vec_math.cuh:8:17", "header_type_error.cu:6:2"]);
  assert.match(errors[1]!.message, /^vec_math\.cuh\(8\): a value of type "float" cannot be used/);
  assert.equal(errors[0]!.related[0]!.file, join(broken, "header_type_error.cu"));
  assert.equal(errors[0]!.related[0]!.range.startLine, 5);
});

void test("real nvcc: ptxas's too-large static __shared__ goes on the kernel's definition, in bytes", async () => {
  const { placed, exitCode } = await compile("too_much_shared.cu");
  assert.notEqual(exitCode, 0);
  const errors = placed.filter((p) => p.severity === "error");
  assert.equal(errors.length, 1);
  assert.equal(at(errors[0]!), "too_much_shared.cu:2:0");
  assert.equal(errors[0]!.source, "ptxas");
  assert.match(
    errors[0]!.message,
    /^sm_90: Entry function 'stage' uses too much shared data .*65536 B, at most 49152 B/,
  );
});

void test("real nvcc: a missing header two includes deep: the host preprocessor's error with its include chain", async () => {
  const { placed } = await compile("missing_include.cu");
  const errors = placed.filter((p) => p.severity === "error");
  assert.deepEqual(errors.map(at), ["include/needs_missing.cuh:3:9", "missing_include.cu:2:0"]);
  assert.match(errors[0]!.message, /not_there\.cuh: No such file or directory/);
  assert.equal(errors[0]!.source, "host");
  assert.deepEqual(
    errors[0]!.related.map((r) => r.range.startLine + 1),
    [2],
  );
});

void test("real nvcc: warnings keep their code; the suppression remark is not a diagnostic", async () => {
  const { placed, exitCode } = await compile("warnings.cu");
  assert.equal(exitCode, 0);
  assert.deepEqual(
    placed.map((p) => [at(p), p.severity, p.code]),
    [["warnings.cu:3:6", "warning", "177-D"]],
  );
});

void test("multi-line messages keep their detail; a macro-expanded snippet still finds the token in the source", () => {
  const diags = parseNvccOutput(read("overload_error.sm_90.txt"));
  assert.equal(diags.length, 1);
  const d = diags[0]!;
  assert.match(d.message, /more than one instance of overloaded function "twice"/);
  assert.match(d.message, /\nargument types are: \(unsigned int\)$/m);
  assert.deepEqual(
    d.related.map((r) => [r.file, r.line]),
    [["overload_error.cu", 8]],
  );
  const main = join(broken, "overload_error.cu");
  const [p] = placeDiagnostics(diags, { cwd: broken, mainFile: main, readText });
  // The printed line reads `__attribute__((device)) T apply...`; the source line has `__device__`.
  assert.equal(p!.range.startLine, 5);
  assert.equal(
    read("overload_error.cu").split("\n")[5]!.slice(p!.range.startColumn, p!.range.endColumn),
    "twice",
  );
});

void test("ptxas spill warnings name the kernel; nvcc fatal errors have no location", () => {
  const diags = parseNvccOutput(read("warnings.sm_90.txt"));
  const spill = diags.find((d) => d.source === "ptxas" && /spilled/.test(d.message))!;
  assert.equal(spill.severity, "warning");
  assert.equal(spill.symbol, "_Z5noisyPfPKfi");
  assert.match(spill.message, /in function 'noisy', 432 bytes spill stores/);
  const fatal = parseNvccOutput(read("bad_arch.txt"));
  assert.deepEqual(
    fatal.map((d) => [d.severity, d.source, d.file]),
    [["error", "driver", undefined]],
  );
  assert.match(fatal[0]!.message, /Unsupported gpu architecture 'sm_99'/);
});

void test("the stored outputs parse to the same diagnostics the live compiler gives", () => {
  assert.deepEqual(
    parseNvccOutput(read("syntax_error.sm_90.txt")).map((d) => [d.file, d.line, d.severity]),
    [
      ["syntax_error.cu", 4, "error"],
      ["syntax_error.cu", 9, "error"],
    ],
  );
  assert.deepEqual(
    parseNvccOutput(read("too_much_shared.sm_75.txt")).map((d) => [d.source, d.symbol]),
    [["ptxas", "_Z5stagePfPKf"]],
  );
});

void test("findKernelLine: templates, namespaces, launch bounds across lines; undefined when absent", () => {
  const text = [
    "namespace ops {",
    "template <typename T, int BLOCK>",
    "__global__ void __launch_bounds__(BLOCK)",
    "    rmsnorm_kernel(T* out, const T* in) {}",
    "}",
    "__device__ float rmsnorm_kernel_helper(float x) { return x; }",
    'extern "C" __global__ void c_linkage_scale(float* x) {}',
  ].join("\n");
  assert.equal(findKernelLine(text, "_ZN3ops14rmsnorm_kernelIfLi256EEEvPT_PKS1_"), 3);
  assert.equal(findKernelLine(text, "c_linkage_scale"), 6);
  assert.equal(findKernelLine(text, "_Z7missingv"), undefined);
});
