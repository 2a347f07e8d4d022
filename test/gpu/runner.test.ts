// GPU tests of the runner, end to end through the real client, runner process and addon: run on the
// GPU machine by test/gpu/run.sh from a built tree (bundled to dist/gpu-tests/ first; see run.sh).
// The kernels come from test/gpu/kernels/runnerKernels.cu, compiled here with nvcc for the local GPU.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type {
  BenchmarkRequest,
  DType,
  KernelArg,
  LaunchSpec,
  TimingOptions,
} from "../../native/runner/protocol";
import { RunnerClient } from "../../native/runner/runnerClient";
import { rejection, waitGone } from "../unit/runner/clientHelpers";
import { compileCubin } from "./device";
import { repoRoot } from "./paths";
import { allowLaunches } from "../support/launches";

allowLaunches();

const runnerPath = join(repoRoot, "dist", "runner.js");
const kernelSource = join(repoRoot, "test", "gpu", "kernels", "runnerKernels.cu");
const TIMEOUT_S = 5;

const timing: TimingOptions = {
  warmupRuns: 2,
  minSamples: 10,
  maxSamples: 2000,
  targetRsdPct: 0.5,
  budgetMs: 500,
  flushL2: true,
};

function buf(name: string, dtype: DType, count: number, output?: boolean): KernelArg {
  return output
    ? { kind: "buffer", name, dtype, count, init: { kind: "zeros" }, output: { atol: 1e-2, rtol: 1e-2 } }
    : { kind: "buffer", name, dtype, count, init: { kind: "randn" } };
}

function copyLike(symbol: string, displayName: string, n: number, written = n): LaunchSpec {
  return {
    symbol,
    displayName,
    grid: [Math.ceil(n / 256), 1, 1],
    block: [256, 1, 1],
    dynamicSmemBytes: 0,
    args: [
      buf("x", "f32", n),
      buf("y", "f32", n, true),
      { kind: "scalar", name: "n", dtype: "i32", value: written },
    ],
  };
}

// One runner client and one cubin for the whole file; the tests run in order on them.
let client: RunnerClient;
let cubin: string;

function request(kernel: LaunchSpec, extra: Partial<BenchmarkRequest> = {}): BenchmarkRequest {
  return { cubinPath: cubin, device: 0, kernel, timing, ...extra };
}

before(async () => {
  client = new RunnerClient({
    runnerPath,
    timeoutSeconds: TIMEOUT_S,
    log: (l) => process.stderr.write(`[runner] ${l}\n`),
  });
  const devices = await client.request("devices", {});
  assert.ok(devices.length > 0, "no CUDA device");
  cubin = compileCubin(kernelSource, `sm_${devices[0]!.computeCapability.replace(".", "")}`);
});

after(async () => {
  await client.dispose();
});

describe("GPU runner: devices and output checks", () => {
  it("lists the device with its limits", async () => {
    const [d] = await client.request("devices", {});
    console.log(JSON.stringify(d));
    assert.ok(d!.name.length > 0);
    assert.ok(d!.smCount > 0 && d!.l2CacheBytes > 0 && d!.totalMemoryBytes > 0);
    assert.ok(d!.peakDramBandwidthGBs > 0);
  });

  it("benchmarks a correct kernel end to end", async () => {
    const n = 1 << 24;
    const progress: string[] = [];
    const r = await client.request(
      "benchmark",
      request(copyLike("_Z4copyPKfPfi", "copy", n), { bytes: 8 * n }),
      {
        onProgress: (p) => progress.push(p.phase),
      },
    );
    console.log(JSON.stringify(r));
    assert.equal(r.checks.length, 1);
    assert.equal(r.checks[0]!.pass, true);
    assert.equal(r.checks[0]!.unwritten, 0);
    assert.ok(r.kernel.samples >= timing.minSamples || r.kernel.stoppedBy === "budget");
    assert.ok(
      r.kernel.minNs > 0 && r.kernel.minNs <= r.kernel.medianNs && r.kernel.medianNs <= r.kernel.maxNs,
    );
    assert.ok(r.kernel.gbPerSec! > 0 && r.kernel.pctPeakBandwidth! > 0);
    assert.ok(progress.includes("checking") && progress.includes("warmup"));
  });

  it("flags elements the kernel never wrote (outputs are poisoned first)", async () => {
    const n = 1 << 16;
    const r = await client.request("benchmark", request(copyLike("_Z4copyPKfPfi", "copy", n, n / 2)));
    assert.equal(r.checks[0]!.unwritten, n / 2);
    assert.equal(r.checks[0]!.pass, false);
  });

  it("catches a wrong result against the baseline", async () => {
    const n = 1 << 20;
    const r = await client.request(
      "benchmark",
      request(copyLike("_Z10copy_wrongPKfPfi", "copy_wrong", n), {
        baseline: copyLike("_Z4copyPKfPfi", "copy", n),
      }),
    );
    console.log(JSON.stringify(r));
    const c = r.checks[0]!;
    assert.equal(c.pass, false);
    assert.equal(c.mismatched, 1);
    assert.ok(Math.abs(c.maxAbsError! - 1) < 1e-6);
    assert.ok(r.baseline && r.speedup! > 0);
  });

  it("passes a kernel that matches its baseline", async () => {
    const n = 1 << 20;
    const r = await client.request(
      "benchmark",
      request(copyLike("_Z4copyPKfPfi", "copy", n), { baseline: copyLike("_Z4copyPKfPfi", "copy", n) }),
    );
    assert.equal(r.checks[0]!.pass, true);
    assert.equal(r.checks[0]!.maxAbsError, 0);
    assert.equal(r.checks[0]!.cosine, 1);
  });
});

describe("GPU runner: faults and hangs", () => {
  it("reports an out-of-bounds write as CUDA_ERROR_ILLEGAL_ADDRESS with the kernel, then runs the next in a fresh runner", async () => {
    const before = (await client.request("hello", {})).pid;
    const err = await rejection(
      client.request("benchmark", request(copyLike("_Z3oobPKfPfi", "oob", 1 << 16))),
    );
    console.log(JSON.stringify(err));
    assert.equal(err.code, "CUDA_ERROR_ILLEGAL_ADDRESS");
    assert.equal(err.kernel, "oob");
    assert.equal(err.sticky, true);
    assert.ok(err.call);
    const r = await client.request("benchmark", request(copyLike("_Z4copyPKfPfi", "copy", 1 << 20)));
    assert.equal(r.checks[0]!.pass, true);
    const afterPid = (await client.request("hello", {})).pid;
    assert.notEqual(afterPid, before);
  });

  it(`kills a kernel that never returns within the timeout (${TIMEOUT_S} s) plus 5 s`, async () => {
    const pid = (await client.request("hello", {})).pid;
    const start = Date.now();
    const err = await rejection(client.request("benchmark", request(copyLike("_Z4spinPKfPfi", "spin", 256))));
    assert.equal(err.code, "TIMEOUT");
    assert.equal(err.kernel, "spin");
    await waitGone(pid, (TIMEOUT_S + 10) * 1000 - (Date.now() - start));
    const elapsed = (Date.now() - start) / 1000;
    console.log(`spin: timeout error and runner gone after ${elapsed.toFixed(2)} s`);
    assert.ok(elapsed <= TIMEOUT_S + 5, `took ${elapsed} s`);
    const r = await client.request("benchmark", request(copyLike("_Z4copyPKfPfi", "copy", 1 << 20)));
    assert.equal(r.checks[0]!.pass, true);
  });
});

describe("GPU runner: what a spec can ask for", () => {
  it("finds template kernels by their mangled names and benchmarks bf16 against f32", async () => {
    const info = await client.request("kernelInfo", {
      cubinPath: cubin,
      device: 0,
      occupancy: [{ blockSize: 256, dynamicSmemBytes: 0 }],
    });
    const names = info.functions.map((f) => f.name);
    console.log(JSON.stringify(info.functions));
    const f32 = names.find((s) => s.startsWith("_Z5scaleIfLi4E"));
    const bf16 = names.find((s) => s.startsWith("_Z5scaleI13__nv_bfloat16Li2E"));
    assert.ok(f32 && bf16, `scale instantiations not in ${names.join(", ")}`);
    for (const f of info.functions) {
      assert.ok(f.numRegs > 0 && f.maxThreadsPerBlock > 0);
      assert.ok(f.occupancy![0]!.activeBlocksPerSM > 0);
    }
    const n = 1 << 20;
    const spec = (symbol: string, dtype: DType, unroll: number): LaunchSpec => ({
      symbol,
      displayName: `scale<${dtype}>`,
      grid: [Math.ceil(n / 256 / unroll), 1, 1],
      block: [256, 1, 1],
      dynamicSmemBytes: 0,
      args: [
        buf("x", dtype, n),
        buf("y", dtype, n, true),
        { kind: "scalar", name: "n", dtype: "i32", value: n },
        { kind: "scalar", name: "a", dtype: "f32", value: 0.5 },
      ],
    });
    const r = await client.request(
      "benchmark",
      request(spec(bf16, "bf16", 2), { baseline: spec(f32, "f32", 4), bytes: 4 * n }),
    );
    console.log(JSON.stringify(r));
    assert.equal(r.checks[0]!.pass, true, JSON.stringify(r.checks));
    assert.ok(r.checks[0]!.cosine! > 0.9999);
  });

  it("opts in to more than 48 KB of dynamic shared memory when the spec asks for it", async () => {
    const n = 1 << 20;
    const kernel = { ...copyLike("_Z12smem_reversePKfPfi", "smem_reverse", n), dynamicSmemBytes: 100 * 1024 };
    const r = await client.request(
      "benchmark",
      request(kernel, { baseline: copyLike("_Z14reverse_globalPKfPfi", "reverse_global", n) }),
    );
    assert.equal(r.checks[0]!.pass, true, JSON.stringify(r.checks));
    assert.equal(r.checks[0]!.maxAbsError, 0);
  });
});

describe("GPU runner: leaks", () => {
  it("leaves device memory and runner RSS where they started after 100 runs", async () => {
    // Its own runner with --expose-gc, so the memory request can collect garbage before reading RSS.
    const own = new RunnerClient({ runnerPath, timeoutSeconds: TIMEOUT_S, execArgv: ["--expose-gc"] });
    try {
      const n = 1 << 18;
      const req = request(copyLike("_Z4copyPKfPfi", "copy", n), {
        baseline: copyLike("_Z4copyPKfPfi", "copy", n),
        timing: { ...timing, minSamples: 10, maxSamples: 10 },
      });
      // The first runs allocate the L2 flush buffer and let the JS heap reach its working size.
      for (let i = 0; i < 10; i++) await own.request("benchmark", req);
      const start = await own.request("memory", { device: 0 });
      for (let i = 0; i < 100; i++) await own.request("benchmark", req);
      const end = await own.request("memory", { device: 0 });
      const MiB = 1024 * 1024;
      console.log(
        `100 runs: device free ${(start.deviceFreeBytes / MiB).toFixed(1)} -> ${(end.deviceFreeBytes / MiB).toFixed(1)} MiB, ` +
          `runner RSS ${(start.rssBytes / MiB).toFixed(1)} -> ${(end.rssBytes / MiB).toFixed(1)} MiB`,
      );
      // Each run allocates four 1 MiB buffers (device) and as much host data: leaking even one of
      // them per run would add 100 MiB, far past these margins.
      assert.ok(end.deviceFreeBytes >= start.deviceFreeBytes - 16 * MiB, "device memory leaked");
      assert.ok(end.rssBytes <= start.rssBytes + 32 * MiB, "runner RSS grew");
    } finally {
      await own.dispose();
    }
  });
});
