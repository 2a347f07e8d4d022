// The benchmark flow against a fake runner at the protocol boundary (the real nvcc compiles): the
// requests it sends per size, what it derives from the answers, how it stops, and its errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunnerMethod } from "../../../native/runner/protocol";
import { BenchError, runBenchmark } from "../../../server/bench/runBench";
import { scanKernels } from "../../../server/bench/kernelScan";
import { isBenchRunResults } from "../../../server/bench/results";
import { FakeRunner, h200, ok, outCheck } from "./fakeRunner";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const fixture = join(__dirname, "../../fixtures/bench/scale.cu");
const cacheDir = tempDir("ckd-cubin-");

test("one request per size, with the kernel's and the baseline's symbols; figures derived", async () => {
  const runner = new FakeRunner((req) => ok(req.kernel.grid[0] * 1.0, req.kernel.grid[0] * 1.5));
  const r = await runBenchmark({
    file: fixture,
    kernel: "scale_f32",
    runner,
    cacheDir,
    workspace: join(__dirname, "../../.."),
  });
  assert.ok(isBenchRunResults(r));
  assert.equal(r.file, "test/fixtures/bench/scale.cu");
  assert.equal(runner.benchmarks.length, 2);
  const [a, b] = runner.benchmarks;
  assert.equal(a!.kernel.symbol, "_Z9scale_f32PfPKffi");
  assert.equal(a!.baseline?.symbol, "_Z11scale_naivePfPKffi");
  assert.deepEqual(a!.kernel.grid, [4096, 1, 1]);
  assert.deepEqual(b!.kernel.grid, [65536, 1, 1]);
  // The baseline runs with its own launch shape from the spec (a grid-stride loop needs fewer blocks).
  assert.deepEqual(
    [a!.baseline?.grid, a!.baseline?.block],
    [
      [528, 1, 1],
      [128, 1, 1],
    ],
  );
  assert.deepEqual(a!.baseline?.args, a!.kernel.args);
  assert.deepEqual(
    a!.kernel.args.map((x) => x.name),
    ["out", "in", "alpha", "count"],
  );
  assert.deepEqual(a!.kernel.args[3], { kind: "scalar", name: "count", dtype: "i32", value: 1 << 20 });
  assert.equal(a!.bytes, 8 * (1 << 20));
  assert.equal(a!.timing.targetRsdPct, 0.5);
  assert.equal(a!.timing.minSamples, 10);
  assert.equal(r.compile.arch, "sm_90");
  const p = r.points[0]!;
  assert.equal(p.gbPerSec, (8 * (1 << 20)) / 4096, "bytes / ns = GB/s");
  assert.equal(p.pctPeakBandwidth, ((8 * (1 << 20)) / 4096 / h200.peakDramBandwidthGBs) * 100);
  assert.equal(p.tflops, (1 << 20) / 4096 / 1e3);
  assert.equal(p.speedup, 1.5);
  assert.equal(r.ok, true);
  assert.equal(r.env.device.name, "NVIDIA H200");
  assert.match(r.env.nvccVersion, /^release \d+\.\d+/);
});

test("a caller's scan of the file is what runs: the file is not read or scanned again", async () => {
  // The file's text with one size in the sweep: the sizes measured show which text the run used.
  const text = readFileSync(fixture, "utf8").replace("n=[1 << 20, 1 << 24]", "n=[1 << 20]");
  const runner = new FakeRunner(() => ok(1000, 1500));
  const r = await runBenchmark({
    file: fixture,
    kernel: "scale_f32",
    runner,
    cacheDir,
    scan: scanKernels(text),
  });
  assert.equal(runner.benchmarks.length, 1);
  assert.deepEqual(
    r.points.map((p) => p.label),
    ["n=1048576"],
  );
  // A kernel the scan does not hold is not looked for in the file.
  await assert.rejects(
    runBenchmark({ file: fixture, kernel: "scale_f32", runner, cacheDir, scan: [] }),
    /no __global__ kernel 'scale_f32' in .*scale.cu \(kernels: none\)/,
  );
});

test("each finished size is shown at once: snapshots with the results so far and the sizes pending", async () => {
  const runner = new FakeRunner((req) => ok(req.kernel.grid[0], req.kernel.grid[0] * 2));
  const shown: { points: string[]; pending: number | undefined; benchmarksSent: number }[] = [];
  const r = await runBenchmark({
    file: fixture,
    kernel: "scale_f32",
    runner,
    cacheDir,
    onProgress: (p) => {
      if (p.stage !== "result") return;
      assert.ok(isBenchRunResults(p.results));
      shown.push({
        points: p.results.points.map((x) => x.label),
        pending: p.results.pendingSizes,
        benchmarksSent: runner.benchmarks.length,
      });
    },
  });
  const labels = r.points.map((x) => x.label);
  assert.equal(labels.length, 2);
  // The first size is shown before the second is even sent to the runner.
  assert.deepEqual(shown, [
    { points: labels.slice(0, 1), pending: 1, benchmarksSent: 1 },
    { points: labels, pending: undefined, benchmarksSent: 2 },
  ]);
  assert.equal(r.pendingSizes, undefined);
});

test("a sticky fault stops the sweep: later sizes are skipped, the run is not ok", async () => {
  const fault = Object.assign(new Error("an illegal memory access was encountered"), {
    code: "CUDA_ERROR_ILLEGAL_ADDRESS",
    call: "cuCtxSynchronize",
    kernel: "scale_f32",
    sticky: true,
  });
  const runner = new FakeRunner((_, i) => (i === 0 ? fault : ok(1000, 1000)));
  const r = await runBenchmark({ file: fixture, kernel: "scale_f32", runner, cacheDir });
  assert.equal(runner.benchmarks.length, 1);
  assert.deepEqual(r.points[0]!.error, {
    code: "CUDA_ERROR_ILLEGAL_ADDRESS",
    message: "an illegal memory access was encountered",
    call: "cuCtxSynchronize",
    kernel: "scale_f32",
    sticky: true,
  });
  assert.equal(r.points[1]!.skipped, true);
  assert.equal(r.ok, false);
});

test("a failed output check makes the run not ok", async () => {
  const runner = new FakeRunner(() => ({
    ...ok(1000, 900),
    checks: [outCheck(false, { maxAbsError: 3, maxRelError: 1, cosine: 0.2, mismatched: 100 })],
  }));
  const r = await runBenchmark({ file: fixture, kernel: "scale_f32", runner, cacheDir });
  assert.equal(r.ok, false);
  assert.ok(r.points[0]!.speedup! < 1);
});

test("no driver, no GPU, no nvcc: one message naming what is missing", async () => {
  await assert.rejects(
    runBenchmark({
      file: fixture,
      kernel: "scale_f32",
      runner: new FakeRunner(() => ok(1, 1), [], true),
      cacheDir,
      nvccPath: "/nonexistent/nvcc",
    }),
    (e: unknown) => {
      assert.ok(e instanceof BenchError);
      assert.equal(e.code, "MISSING");
      assert.match(
        e.message,
        /^cannot benchmark here: no NVIDIA driver \(libcuda.so.1 could not be loaded\); nvcc not found at "\/nonexistent\/nvcc"/,
      );
      assert.ok(!e.message.includes("\n"));
      return true;
    },
  );
  await assert.rejects(
    runBenchmark({
      file: fixture,
      kernel: "scale_f32",
      runner: new FakeRunner(() => ok(1, 1), []),
      cacheDir,
    }),
    /cannot benchmark here: no CUDA GPU \(the driver found none\)$/,
  );
  const noDevice = new FakeRunner(() => ok(1, 1));
  noDevice.request = <M extends RunnerMethod>(method: M) =>
    method === "hello"
      ? Promise.resolve({ pid: 1, driverVersion: 13000 })
      : Promise.reject(
          Object.assign(new Error("cuInit: no CUDA-capable device is detected"), {
            code: "CUDA_ERROR_NO_DEVICE",
          }),
        );
  await assert.rejects(
    runBenchmark({ file: fixture, kernel: "scale_f32", runner: noDevice, cacheDir }),
    /^BenchError: cannot benchmark here: no CUDA GPU \(cuInit: no CUDA-capable device is detected\)$/,
  );
});

test("spec problems are reported before anything runs, with file:line:col", async () => {
  const runner = new FakeRunner(() => ok(1, 1));
  await assert.rejects(
    runBenchmark({ file: fixture, kernel: "fill_ones", runner, cacheDir }),
    (e: BenchError) => e.code === "NO_SPEC",
  );
  await assert.rejects(
    runBenchmark({ file: fixture, kernel: "nope", runner, cacheDir }),
    /no __global__ kernel 'nope' in .*scale.cu \(kernels: scale_f32, scale_naive, copy_vec, square_inplace, fill_ones\)/,
  );
  assert.equal(runner.benchmarks.length, 0);
});

test("cancelling stops the run", async () => {
  const controller = new AbortController();
  const runner = new FakeRunner(() => {
    controller.abort();
    return Object.assign(new Error("cancelled"), { code: "CANCELLED" });
  });
  await assert.rejects(
    runBenchmark({
      file: fixture,
      kernel: "kernels::square_inplace",
      runner,
      cacheDir,
      signal: controller.signal,
    }),
    (e: BenchError) => e.code === "CANCELLED",
  );
  assert.equal(runner.benchmarks.length, 1);
});

test("the examples' specs compile and resolve, template baselines included", async () => {
  const examples = join(__dirname, "../../../examples");
  const cases: [string, string, RegExp, RegExp][] = [
    [
      "rmsnorm.cu",
      "rmsnorm_bf16x2_kernel",
      /^_Z21rmsnorm_bf16x2_kernel/,
      /^_Z14rmsnorm_kernelI13__nv_bfloat16Li256EEv/,
    ],
    ["rmsnorm.cu", "rmsnorm_kernel", /^_Z14rmsnorm_kernelIfLi256EEv/, /^$/],
    ["geglu.cu", "geglu_half2_kernel", /^_Z18geglu_half2_kernel/, /^_Z12geglu_kernelI6__halfEv/],
    ["../test/fixtures/bench/wrong.cu", "negate_wrong", /^_Z12negate_wrongPfPKfi$/, /^_Z9negate_okPfPKfi$/],
  ];
  for (const [file, kernel, symbol, baseline] of cases) {
    const runner = new FakeRunner(() => ok(1000, 2000));
    const r = await runBenchmark({ file: join(examples, file), kernel, runner, cacheDir });
    const req = runner.benchmarks[0]!;
    assert.match(req.kernel.symbol, symbol, kernel);
    assert.match(req.baseline?.symbol ?? "", baseline, kernel);
    assert.equal(r.points.length, runner.benchmarks.length);
    assert.ok(r.ok);
  }
});

test("flags and include paths come from the file's compile_commands.json", async () => {
  const dir = tempDir("ckd-cc-");
  mkdirSync(join(dir, "include"));
  writeFileSync(join(dir, "include", "factor.cuh"), "#pragma once\nconstexpr float kFactor = FACTOR;\n");
  const src = [
    '#include "factor.cuh"',
    "// @bench n=[1024] grid=(n/256) block=(256)",
    "// @bench arg x: f32[n] ones output",
    "__global__ void times_factor(float* x) { x[blockIdx.x * blockDim.x + threadIdx.x] *= kFactor; }",
  ].join("\n");
  writeFileSync(join(dir, "k.cu"), src);
  const runner = new FakeRunner(() => ok(1000, 1000));
  // Without the project's flags the header is not found and FACTOR is undefined: a compile error.
  await assert.rejects(
    runBenchmark({ file: join(dir, "k.cu"), kernel: "times_factor", runner, cacheDir }),
    (e: BenchError) => e.code === "COMPILE" && /factor\.cuh/.test(e.message),
  );
  writeFileSync(
    join(dir, "compile_commands.json"),
    JSON.stringify([
      { directory: dir, file: "k.cu", command: "nvcc -Iinclude -DFACTOR=3.0f -c k.cu -o k.o" },
    ]),
  );
  const r = await runBenchmark({ file: join(dir, "k.cu"), kernel: "times_factor", runner, cacheDir });
  assert.equal(r.compile.flagsFrom, "compile_commands.json");
  assert.equal(runner.benchmarks[0]!.kernel.symbol, "_Z12times_factorPf");
});
