// The PyTorch baseline's flow without a GPU or torch: a fake runner at the protocol boundary and, for
// the sidecar, this machine's real python3 (which has no torch) or a fake "python" (a shell script
// standing in for what cannot run here: torch on a GPU). The real sidecar on a GPU is
// test/gpu/torchBaseline.test.ts.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { BenchmarkRequest } from "../../../native/runner/protocol";
import { saveCalibration } from "../../../server/bench/calibration";
import { formatTable, historyEntry } from "../../../server/bench/report";
import { BenchError, runBenchmark } from "../../../server/bench/runBench";
import type { TorchRequest } from "../../../server/bench/torch/torchProtocol";
import { addLaunchObserver, setLaunchPolicy } from "../../../server/process/launch";
import { trustPolicy } from "../../../server/process/trust";
import { raisingLine, torchFixture } from "../../support/torchFixture";
import { H200_CALIBRATION } from "./fakeRunner";
import { cacheDir, dir, fakePython, fakeRunner, h200, okAnswer } from "./torchFakes";
import { programMissing, skipWithout } from "../../support/needs";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const fixture = torchFixture;

const bench = (kernel: string, pythonPath: string, signal?: AbortSignal) =>
  runBenchmark({
    file: fixture,
    kernel,
    runner: fakeRunner(),
    cacheDir,
    pythonPath,
    ...(signal ? { signal } : {}),
  });

test("the sidecar gets the kernel's arguments with the runner's seeds, the sizes, and the kernel's outputs folder", async () => {
  const benchmarks: BenchmarkRequest[] = [];
  const runner = fakeRunner(benchmarks);
  const python = fakePython("ok", `echo '${okAnswer(true)}'`);
  const r = await runBenchmark({
    file: fixture,
    kernel: "copy_inputs",
    runner,
    cacheDir,
    pythonPath: python,
  });
  const req = JSON.parse(readFileSync(`${python}.request.json`, "utf8")) as TorchRequest;
  assert.equal(req.expr, "(x, y, z, w, v)");
  assert.deepEqual(req.vars, { n: 4099 });
  const seeds = Object.fromEntries(req.args.map((a) => [a.name, a.kind === "buffer" ? a.seed : a.value]));
  // An init's own seed, else the argument's 1-based position: what the runner generates from.
  assert.deepEqual(seeds, { a: 1, b: 2, c: 3, d: 4, e: 5, x: 7, y: 9, z: 8, w: 9, v: 10, n: 4099 });
  assert.equal(req.l2Bytes, h200.l2CacheBytes);
  assert.ok(
    req.outputsDir && benchmarks[0]!.outputsDir === req.outputsDir,
    "the runner writes where torch reads",
  );
  assert.ok(!existsSync(req.outputsDir), "the folder is removed after the size");
  const t = r.points[0]!.torch!;
  assert.equal(t.speedup, 2.5);
  assert.equal(t.eager!.pctPeakBandwidth !== undefined || r.points[0]!.bytes === undefined, true);
  assert.ok(r.ok);
  assert.equal(r.torch?.torchVersion, "2.11.0");
  const table = formatTable(r);
  assert.match(table.split("\n")[1]!, /torch\s+vs torch\s+torch err\s+check/);
  assert.match(table.split("\n")[2]!, /25\.00 µs\s+2\.50x\s+0\.0\s+ok/);
  assert.equal(historyEntry(r).points[0]!.torchMedianNs, 25_000);
});

test("a mismatch against torch fails the check, and the run", async () => {
  const r = await bench("twice", fakePython("mismatch", `echo '${okAnswer(false)}'`));
  assert.equal(r.points[0]!.torch!.checks[0]!.pass, false);
  assert.equal(r.ok, false);
  assert.match(formatTable(r), /FAIL out vs torch/);
});

test("an expression that raises: its Python error in one line, with the spec line", async () => {
  const answer = JSON.stringify({
    error: { kind: "expr", message: "AttributeError: Tensor object has no attribute no_such_method" },
  });
  const r = await bench("twice_raises", fakePython("raises", `echo '${answer}'`));
  const err = r.points[0]!.torch!.error!;
  const line = raisingLine();
  assert.equal(
    err,
    `${fixture}:${line}:17: torch expression failed: AttributeError: Tensor object has no attribute no_such_method`,
  );
  assert.equal(r.ok, false);
  assert.ok(formatTable(r).split("\n").includes(err));
});

test("no torch (this machine's python3): one clear line, the kernel's results still shown, the run ok", async (t) => {
  const skip = skipWithout("python3", programMissing("python3"));
  if (skip) return t.skip(skip);
  const r = await bench("twice", "python3");
  assert.match(
    r.torch!.unavailable!,
    /^torch is not importable by \S+ \(ModuleNotFoundError: No module named 'torch'\)$/,
  );
  assert.ok(r.points[0]!.kernel && r.ok);
  assert.equal(r.points[0]!.torch, undefined);
  assert.match(formatTable(r), /\nPyTorch baseline not run: torch is not importable/);
});

test("no python: the setting to change, in one line", async () => {
  const r = await bench("twice", join(dir, "no-such-python"));
  assert.match(
    r.torch!.unavailable!,
    /not found at ".*no-such-python": set cudaKernelDev\.python\.path or put it on PATH/,
  );
});

test("a sidecar that crashes: its last stderr line, for that size", async () => {
  const r = await bench(
    "twice",
    fakePython("crash", "", "echo 'Traceback...' >&2; echo 'Segfault-ish: boom' >&2; exit 3"),
  );
  assert.equal(r.points[0]!.torch!.error, "the torch sidecar exited with code 3: Segfault-ish: boom");
});

test("untrusted workspace: the sidecar is not started", async () => {
  setLaunchPolicy(trustPolicy(() => false));
  try {
    const r = await bench("twice", fakePython("denied", `echo '${okAnswer(true)}'`));
    assert.match(r.torch!.unavailable!, /was not run: this workspace is in Restricted Mode/);
    assert.ok(!existsSync(join(dir, "denied.request.json")));
  } finally {
    allowLaunches();
  }
});

test("cancel stops the sidecar", async () => {
  const pidFile = join(dir, "slow.pid");
  const python = fakePython("slow", `exec sleep 60`, `echo $$ > "${pidFile}"`);
  const controller = new AbortController();
  const stop = addLaunchObserver((e) => {
    if (e.command === python) setTimeout(() => controller.abort(), 300);
  });
  try {
    await assert.rejects(
      bench("twice", python, controller.signal),
      (e: BenchError) => e.code === "CANCELLED",
    );
  } finally {
    stop();
  }
  const pid = Number(readFileSync(pidFile, "utf8"));
  assert.throws(() => process.kill(pid, 0), /ESRCH/, "the sidecar is gone");
});

test("no sidecar is left running after 100 runs", async () => {
  const python = fakePython("many", `echo '${okAnswer(true)}'`, `echo $$ >> "${dir}/many.pids"`);
  for (let i = 0; i < 100; i++) assert.ok((await bench("twice", python)).ok);
  const pids = readFileSync(join(dir, "many.pids"), "utf8").trim().split("\n").map(Number);
  assert.equal(pids.length, 100);
  for (const pid of pids) assert.throws(() => process.kill(pid, 0), /ESRCH/);
});

const sweepFile = join(dir, "sweep.cu");
writeFileSync(
  sweepFile,
  [
    "// @bench n=[1024, 2048, 4096]",
    "// @bench grid=(cdiv(n, 256)) block=(256)",
    "// @bench arg out: f32[n] output",
    "// @bench arg x: f32[n] randn(seed=3)",
    "// @bench arg n: i32 = n",
    "// @bench torch x * 2",
    "__global__ void twice(float* out, const float* x, int n) {",
    "  const int i = blockIdx.x * blockDim.x + threadIdx.x;",
    "  if (i < n) out[i] = 2.0f * x[i];",
    "}",
    "",
  ].join("\n"),
);

test("one sidecar per run: started before the kernel's first size, asked once per size after all of them", async () => {
  const python = fakePython("sweep", `echo '${okAnswer(true)}'`, `echo $$ >> "${dir}/sweep.pids"`);
  const events: string[] = [];
  const benchmarks: BenchmarkRequest[] = [];
  const runner = fakeRunner(benchmarks);
  const stop = addLaunchObserver((e) => {
    if (e.command === python) events.push(`launch ${e.args.slice(2).join(" ")}`);
  });
  try {
    const r = await runBenchmark({
      file: sweepFile,
      kernel: "twice",
      runner: {
        request: (method, params, o) => {
          if (method === "benchmark") events.push("kernel");
          return runner.request(method, params, o);
        },
      },
      cacheDir,
      pythonPath: python,
      onProgress: (p) => {
        if (p.stage === "result" || p.stage === "torch") events.push(`${p.stage} ${p.point}`);
      },
    });
    assert.ok(r.ok);
    assert.deepEqual(
      r.points.map((p) => p.torch?.speedup),
      [2.5, 2.5, 2.5],
    );
  } finally {
    stop();
  }
  assert.deepEqual(events, [
    "launch --device 0",
    ...["kernel", "result 0", "kernel", "result 1", "kernel", "result 2"],
    ...["torch 0", "torch 1", "torch 2"],
  ]);
  const requests = readFileSync(join(dir, "sweep.requests"), "utf8").trim().split("\n");
  assert.deepEqual(
    requests.map((l) => (JSON.parse(l) as TorchRequest).vars),
    [{ n: 1024 }, { n: 2048 }, { n: 4096 }],
  );
  assert.ok(
    requests.every((l, i) => (JSON.parse(l) as TorchRequest).outputsDir === benchmarks[i]!.outputsDir),
  );
  const pids = readFileSync(join(dir, "sweep.pids"), "utf8").trim().split("\n").map(Number);
  assert.equal(pids.length, 1, "one process for the three sizes");
  assert.throws(() => process.kill(pids[0]!, 0), /ESRCH/, "it has exited after the run");
});

test("a sidecar that ignores the end of its input is killed after a short grace", async () => {
  // Answers, then never reads stdin again (sleep): only the kill ends it.
  const python = fakePython("deaf", `echo '${okAnswer(true)}'; exec sleep 60`, `echo $$ > "${dir}/deaf.pid"`);
  const t0 = performance.now();
  assert.ok((await bench("twice", python)).ok);
  assert.ok(performance.now() - t0 < 5000);
  const pid = Number(readFileSync(join(dir, "deaf.pid"), "utf8"));
  assert.throws(() => process.kill(pid, 0), /ESRCH/);
});

test("cancel during the kernel's sizes also stops the sidecar", async () => {
  const pidFile = join(dir, "early.pid");
  const python = fakePython("early", `echo '${okAnswer(true)}'`, `echo $$ > "${pidFile}"`);
  const controller = new AbortController();
  const runner = fakeRunner();
  await assert.rejects(
    runBenchmark({
      file: sweepFile,
      kernel: "twice",
      runner: {
        request: async (method, params, o) => {
          if (method !== "benchmark") return runner.request(method, params, o);
          await new Promise((r) => setTimeout(r, 300)); // the sidecar writes its pid meanwhile
          controller.abort();
          throw new BenchError("CANCELLED", "cancelled");
        },
      },
      cacheDir,
      pythonPath: python,
      signal: controller.signal,
    }),
    (e: BenchError) => e.code === "CANCELLED",
  );
  const pid = Number(readFileSync(pidFile, "utf8"));
  assert.throws(() => process.kill(pid, 0), /ESRCH/, "the sidecar is gone");
});

test("on a calibrated GPU torch's times lose the same event overhead as the kernel's", async () => {
  const calibrationPath = join(tempDir("ckd-cal-"), "timing-calibration.json");
  await saveCalibration(H200_CALIBRATION, calibrationPath);
  const r = await runBenchmark({
    file: fixture,
    kernel: "copy_inputs",
    runner: fakeRunner(),
    cacheDir,
    calibrationPath,
    pythonPath: fakePython("calibrated", `echo '${okAnswer(true)}'`),
  });
  const p = r.points[0]!;
  assert.deepEqual([p.kernel?.medianNs, p.torch?.eager?.medianNs], [9100, 24_100]);
  assert.equal(p.torch?.compiled?.medianNs, 11_600);
  assert.equal(p.torch?.speedup, 24_100 / 9100, "the speedup is of the corrected medians");
});
