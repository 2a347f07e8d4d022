// Benchmark data on the GPU (native/src/gpuData.cu through the addon) against references: generated
// values bit for bit against native/GENERATOR.md written out independently, the device check against
// the host's, and the blocking kernel holding (and, under CUDA_LAUNCH_BLOCKING=1, visibly not holding)
// the stream.
// (Not named gpu*: run.sh bench runs every dist/gpu-tests/gpu*.js as a benchmark.)
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { CudaAddon, DevicePtr, ModuleHandle } from "../../native/addon";
import {
  DTYPE_BYTES,
  POISON_BYTE,
  countPoisoned,
  decode,
  packPointer,
  packScalar,
  toHalfBits,
} from "../../native/runner/hostData";
import { checkOutput } from "../../native/runner/outputCheck";
import type { DType, KernelArg, LaunchSpec } from "../../native/runner/protocol";
import { RunnerClient } from "../../native/runner/runnerClient";
import { bf16BitsRef, valueRef, type RefInit } from "../support/generatorFormula";
import { compileCubin, openGpu0 } from "./device";
import { repoRoot } from "./paths";
import { allowLaunches } from "../support/launches";

allowLaunches();

let cuda: CudaAddon;
let mod: ModuleHandle;
let arch: string;
const live: DevicePtr[] = [];
const source = join(repoRoot, "test", "gpu", "kernels", "runnerKernels.cu");

before(() => {
  const gpu = openGpu0();
  cuda = gpu.cuda;
  arch = gpu.arch;
  mod = cuda.loadModule(compileCubin(source, arch));
});

after(() => {
  for (const p of live.splice(0)) cuda.memFree(p);
});

function filled(dtype: DType, count: number, init: RefInit, seed: number): DevicePtr {
  const ptr = cuda.memAlloc(count * DTYPE_BYTES[dtype]);
  live.push(ptr);
  const a = init.kind === "uniform" ? init.low : init.kind === "constant" ? init.value : 0;
  const b = init.kind === "uniform" ? init.high : 0;
  cuda.fillBuffer({ ptr, dtype, count, kind: init.kind, seed, a, b });
  return ptr;
}

describe("GPU data: seeded generation (native/GENERATOR.md)", () => {
  // An odd count, past one grid-stride round (4096 blocks of 256), and seeds that wrap the golden step.
  const count = 4096 * 256 + 4099;
  const inits: [RefInit, number][] = [
    [{ kind: "randn" }, 1],
    [{ kind: "randn" }, 0xfffffff0],
    [{ kind: "uniform", low: -2, high: 3 }, 7],
    [{ kind: "uniform", low: 0.5, high: 1.5 }, 2],
    [{ kind: "arange" }, 1],
    [{ kind: "constant", value: 0.1 }, 1],
    [{ kind: "ones" }, 1],
  ];

  it("writes float32 values equal bit for bit to the reference formula", () => {
    for (const [init, seed] of inits) {
      const got = new Float32Array(
        cuda.memcpyDtoH(filled("f32", count, init, seed), count * 4).buffer.slice(0),
      );
      // Every element of the first and last 4099, and a stride through the middle: BigInt is slow.
      for (let i = 0; i < count; i += i < 4099 || i > count - 4099 ? 1 : 997) {
        assert.equal(got[i], valueRef(init, seed, i), `${init.kind} seed ${seed} element ${i}`);
      }
    }
  });

  it("rounds to bf16 and f16 to nearest even and truncates and wraps integers", () => {
    const n = 8192;
    const init: RefInit = { kind: "uniform", low: -300, high: 300 };
    const ref = Array.from({ length: n }, (_, i) => valueRef(init, 3, i));
    const bytes = (dtype: DType) => cuda.memcpyDtoH(filled(dtype, n, init, 3), n * DTYPE_BYTES[dtype]);
    const bf = new Uint16Array(bytes("bf16").buffer.slice(0));
    const h = new Uint16Array(bytes("f16").buffer.slice(0));
    const [i32, u8, i8, f64] = (["i32", "u8", "i8", "f64"] as const).map((d) => decode(d, bytes(d)));
    for (let i = 0; i < n; i++) {
      const t = Math.trunc(ref[i]!) || 0; // -0 reads back as 0
      assert.equal(bf[i], bf16BitsRef(ref[i]!), `bf16 ${i}`);
      assert.equal(h[i], toHalfBits(ref[i]!), `f16 ${i}`);
      assert.equal(i32![i], t, `i32 ${i}`);
      assert.equal(u8![i], ((t % 256) + 256) % 256, `u8 ${i}`);
      assert.equal(i8![i], ((((t + 128) % 256) + 256) % 256) - 128, `i8 ${i}`);
      assert.equal(f64![i], ref[i], `f64 ${i}`);
    }
  });
});

describe("GPU data: output checks on the device", () => {
  it("sums what the host check sums: errors, mismatches, unwritten, non-finite, cosine", () => {
    const n = 100003;
    const got = filled("f32", n, { kind: "randn" }, 5);
    const want = filled("bf16", n, { kind: "randn" }, 5);
    cuda.memsetD8(got, POISON_BYTE, 40); // 10 unwritten elements (NaN)
    cuda.synchronize();
    const tol = { atol: 1e-3, rtol: 1e-3 };
    const gotBytes = cuda.memcpyDtoH(got, n * 4);
    const host = checkOutput(
      { arg: "y", values: decode("f32", gotBytes), unwritten: countPoisoned("f32", gotBytes) },
      tol,
      decode("bf16", cuda.memcpyDtoH(want, n * 2)),
    );
    const s = cuda.compareBuffers({
      got: { ptr: got, dtype: "f32" },
      want: { ptr: want, dtype: "bf16" },
      count: n,
      ...tol,
    });
    console.log(JSON.stringify({ host, device: s }));
    assert.equal(s.unwritten, 10);
    assert.equal(s.unwritten, host.unwritten);
    assert.equal(s.mismatched, host.mismatched);
    assert.ok(host.mismatched > 10 && host.mismatched < n, "some bf16 roundings beyond the tolerance");
    assert.equal(s.maxAbsError, host.maxAbsError);
    assert.equal(s.maxRelError, host.maxRelError);
    assert.ok(Math.abs(s.dot / Math.sqrt(s.normGot * s.normWant) - host.cosine!) < 1e-12);
    const alone = cuda.compareBuffers({ got: { ptr: got, dtype: "f32" }, count: n, atol: 0, rtol: 0 });
    assert.equal(alone.unwritten, 10);
    assert.equal(alone.nonFinite, 10, "poisoned f32 elements are NaN");
  });
});

function launchArgs(n: number) {
  const x = filled("f32", n, { kind: "randn" }, 1);
  const y = filled("f32", n, { kind: "zeros" }, 1);
  return [packPointer(x), packPointer(y), packScalar("i32", n)];
}

describe("GPU timing: the blocking kernel", () => {
  it("holds the stream, so the launch latency is not timed", () => {
    const fn = cuda.getFunction(mod, "_Z4copyPKfPfi");
    const launch = {
      fn,
      grid: [1, 1, 1] as [number, number, number],
      block: [256, 1, 1] as [number, number, number],
      args: launchArgs(256),
    };
    const median = (blocking: boolean) => {
      const t: number[] = [];
      for (let i = 0; i < 200; i++) {
        const s = cuda.timedLaunch({ ...launch, blocking });
        assert.equal(s.blocked, blocking);
        t.push(s.ms * 1e3);
      }
      return t.sort((a, b) => a - b)[100]!;
    };
    median(true);
    const blocked = median(true);
    const unblocked = median(false);
    console.log(
      `tiny copy: ${blocked.toFixed(2)} µs behind the blocking kernel, ${unblocked.toFixed(2)} µs without`,
    );
    assert.ok(blocked < unblocked, "the launch latency is out of the blocked time");
  });
});

describe("GPU timing: when the blocking kernel cannot hold", () => {
  it("falls back visibly when it cannot hold (CUDA_LAUNCH_BLOCKING=1)", async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const client = new RunnerClient({
      runnerPath: join(repoRoot, "dist", "runner.js"),
      timeoutSeconds: 10,
      env: { ...env, CUDA_LAUNCH_BLOCKING: "1" },
    });
    try {
      const n = 1 << 16;
      const buffer = (name: string, output: boolean): KernelArg => ({
        kind: "buffer",
        name,
        dtype: "f32",
        count: n,
        init: { kind: "randn" },
        ...(output ? { output: { atol: 0, rtol: 0 } } : {}),
      });
      const kernel: LaunchSpec = {
        symbol: "_Z4copyPKfPfi",
        displayName: "copy",
        grid: [n / 256, 1, 1],
        block: [256, 1, 1],
        dynamicSmemBytes: 0,
        args: [buffer("x", false), buffer("y", true), { kind: "scalar", name: "n", dtype: "i32", value: n }],
      };
      const t0 = performance.now();
      const r = await client.request("benchmark", {
        cubinPath: compileCubin(source, arch),
        device: 0,
        kernel,
        timing: {
          warmupRuns: 2,
          minSamples: 10,
          maxSamples: 200,
          targetRsdPct: 0.5,
          budgetMs: 500,
          flushL2: true,
        },
      });
      const ms = performance.now() - t0;
      console.log(
        `CUDA_LAUNCH_BLOCKING=1: blocked ${String(r.kernel.blocked)}, ${ms.toFixed(0)} ms, dataOn ${String(r.dataOn)}`,
      );
      assert.equal(r.kernel.blocked, false);
      assert.equal(r.dataOn, "gpu");
      assert.equal(r.checks[0]!.pass, true);
      assert.ok(ms < 5000, "one timeout, not one per sample");
    } finally {
      await client.dispose();
    }
  });
});
