// runBenchmark against a fake addon (no GPU): the GPU data path when the addon has it, the host
// fallback when its kernels do not load, the visible fall-back to unblocked timing when the
// blocking kernel cannot hold the stream, and a small kernel's samples over several buffer sets.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CudaAddon, DevicePtr, FillOptions, TimedLaunchOptions } from "../../../native/addon";
import { runBenchmark, type RunnerState } from "../../../native/runner/benchmark";
import { BUFFER_SETS_BYTES, MAX_BUFFER_SETS, bufferSetCount } from "../../../native/runner/bufferSets";
import type { BenchmarkRequest } from "../../../native/runner/protocol";
import { copyRequest } from "./requests";

interface Fake {
  cuda: CudaAddon;
  calls: string[];
  timed: TimedLaunchOptions[];
}

/** A fake addon whose memory is host arrays; the kernel copies x to y, as the "copy" test kernel does. */
function fakeAddon(opts: { gpuData: boolean; holds: boolean; allocations?: number }): Fake {
  const mem = new Map<DevicePtr, Uint8Array>();
  let next = 0x1000n;
  const calls: string[] = [];
  const timed: TimedLaunchOptions[] = [];
  const notSupported = () => Object.assign(new Error("no PTX"), { code: "NOT_SUPPORTED" });
  const fake: Partial<CudaAddon> = {
    useDevice: () => undefined,
    deviceAttributes: () =>
      ({ name: "Fake GPU", l2CacheBytes: 1 << 20, memoryClockKHz: 1, memoryBusWidthBits: 8 }) as never,
    loadModule: () => 1 as never,
    unloadModule: () => undefined,
    getFunction: () => 2 as never,
    memAlloc: (bytes: number) => {
      if (opts.allocations !== undefined && opts.allocations-- === 0)
        throw Object.assign(new Error("out of memory"), { code: "CUDA_ERROR_OUT_OF_MEMORY" });
      next += 0x1000n + BigInt(bytes);
      mem.set(next, new Uint8Array(bytes));
      return next;
    },
    memFree: () => undefined,
    memsetD8: (ptr, value) => {
      calls.push(`memset ${value}`);
      mem.get(ptr)!.fill(value);
    },
    memcpyHtoD: (ptr, data) => void mem.get(ptr)!.set(data),
    memcpyDtoH: (ptr) => Buffer.from(mem.get(ptr)!),
    fillBuffer: (o: FillOptions) => {
      calls.push(`fill ${o.kind} seed=${o.seed}`);
      if (!opts.gpuData) throw notSupported();
      mem.get(o.ptr)!.fill(0); // zeros stand in for the values
    },
    compareBuffers: () => {
      calls.push("compare");
      if (!opts.gpuData) throw notSupported();
      return {
        maxAbsError: 0,
        maxRelError: 0,
        mismatched: 0,
        unwritten: 0,
        nonFinite: 0,
        dot: 1,
        normGot: 1,
        normWant: 1,
      };
    },
    launch: (o) => {
      const x = mem.get(new DataView(o.args[0]!.buffer, o.args[0]!.byteOffset).getBigUint64(0, true))!;
      mem.get(new DataView(o.args[1]!.buffer, o.args[1]!.byteOffset).getBigUint64(0, true))!.set(x);
    },
    synchronize: () => undefined,
    timedLaunch: (o) => {
      timed.push(o);
      return { ms: 0.01, blocked: o.blocking !== false && opts.holds };
    },
  };
  return { cuda: fake as CudaAddon, calls, timed };
}

const request: BenchmarkRequest = {
  ...copyRequest,
  timing: { ...copyRequest.timing, warmupRuns: 2, minSamples: 10, maxSamples: 20 },
};

const state = (): RunnerState => ({ devices: new Map(), flush: new Map() });

/** The buffer pointers each timed launch passed (x and y of the copy kernel), as "x,y". */
const pointers = (timed: TimedLaunchOptions[]): string[] =>
  timed.map((o) =>
    o.args
      .slice(0, 2)
      .map((a) => new DataView(a.buffer, a.byteOffset).getBigUint64(0, true).toString(16))
      .join(","),
  );

describe("runBenchmark's data and timing paths", () => {
  it("generates inputs and checks outputs on the GPU, and times behind the blocking kernel", () => {
    const f = fakeAddon({ gpuData: true, holds: true });
    const r = runBenchmark(f.cuda, state(), request, () => undefined);
    assert.equal(r.dataOn, "gpu");
    const more = Array.from({ length: MAX_BUFFER_SETS - 1 }, () => ["fill randn seed=1", "memset 255"]);
    assert.deepEqual(f.calls, ["fill randn seed=1", "memset 255", "compare", ...more.flat()]);
    assert.equal(r.kernel.blocked, true);
    assert.ok(f.timed.every((o) => o.blocking === true && o.flush !== undefined));
    assert.equal(r.checks[0]!.pass, true);
  });

  it("falls back to the host's generator and check when the data kernels do not load", () => {
    const f = fakeAddon({ gpuData: false, holds: true });
    const r = runBenchmark(f.cuda, state(), request, () => undefined);
    assert.equal(r.dataOn, "host");
    assert.deepEqual(
      f.calls.filter((c) => c.startsWith("fill") || c === "compare"),
      ["fill randn seed=1"],
      "the GPU path is not tried again in the request",
    );
    assert.equal(r.checks[0]!.pass, true);
    assert.equal(r.checks[0]!.unwritten, 0);
  });

  it("times unblocked, and says so, once the blocking kernel fails to hold", () => {
    const f = fakeAddon({ gpuData: true, holds: false });
    const r = runBenchmark(f.cuda, state(), request, () => undefined);
    assert.equal(r.kernel.blocked, false);
    assert.equal(f.timed[0]!.blocking, true);
    assert.ok(
      f.timed.slice(1).every((o) => o.blocking === false),
      "one timeout, not one per sample",
    );
    assert.equal(r.kernel.samples, 10, "samples from the unblocked timing only");
  });

  it("takes a small kernel's buffer sets in turn, the checked set first, and says how many", () => {
    const f = fakeAddon({ gpuData: true, holds: true });
    const r = runBenchmark(f.cuda, state(), request, () => undefined);
    const used = pointers(f.timed);
    const sets = used.slice(0, MAX_BUFFER_SETS);
    assert.equal(new Set(sets).size, MAX_BUFFER_SETS, "a different x and y in each set");
    assert.equal(new Set(sets.flatMap((s) => s.split(","))).size, 2 * MAX_BUFFER_SETS);
    used.forEach((p, i) => assert.equal(p, sets[i % MAX_BUFFER_SETS], `sample ${i} in turn`));
    assert.equal(r.kernel.bufferSets, MAX_BUFFER_SETS);
    assert.ok(used.length >= MAX_BUFFER_SETS + 10, "a warm-up launch on each set, then the samples");
    assert.equal(f.calls.filter((c) => c === "compare").length, 1, "only the first set is checked");
  });

  it("times over the sets that fit when the GPU runs out of memory for more", () => {
    // 2 allocations of the checked set, 2 of one more, then out of memory mid-set.
    const f = fakeAddon({ gpuData: true, holds: true, allocations: 5 });
    const r = runBenchmark(f.cuda, state(), request, () => undefined);
    assert.equal(r.kernel.bufferSets, 2);
    assert.equal(new Set(pointers(f.timed)).size, 2);
  });

  it("gives large buffers, and kernels without buffers, one set", () => {
    const sized = (count: number) => ({
      ...request.kernel,
      args: request.kernel.args.map((a) => (a.kind === "buffer" ? { ...a, count } : a)),
    });
    assert.equal(bufferSetCount(sized(1024)), MAX_BUFFER_SETS);
    // Two f32 buffers of a quarter of the sets' bytes each: two sets fit.
    assert.equal(bufferSetCount(sized(BUFFER_SETS_BYTES / 16)), 2);
    assert.equal(bufferSetCount(sized(BUFFER_SETS_BYTES / 4)), 1);
    assert.equal(bufferSetCount({ ...request.kernel, args: [] }), 1);
  });
});
