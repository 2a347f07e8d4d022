// A well-formed benchmark request of the test kernel "copy" (y = x over 1024 floats), shared by the
// request check's tests and runBenchmark's.
import type { BenchmarkRequest } from "../../../native/runner/protocol";

export const copyRequest: BenchmarkRequest = {
  cubinPath: "/tmp/k.cubin",
  device: 0,
  kernel: {
    symbol: "_Z4copyPKfPfi",
    displayName: "copy",
    grid: [4, 1, 1],
    block: [256, 1, 1],
    dynamicSmemBytes: 0,
    args: [
      { kind: "buffer", name: "x", dtype: "f32", count: 1024, init: { kind: "randn" } },
      {
        kind: "buffer",
        name: "y",
        dtype: "f32",
        count: 1024,
        init: { kind: "zeros" },
        output: { atol: 0, rtol: 0 },
      },
      { kind: "scalar", name: "n", dtype: "i32", value: 1024 },
    ],
  },
  timing: {
    warmupRuns: 2,
    minSamples: 10,
    maxSamples: 1000,
    targetRsdPct: 0.5,
    budgetMs: 1000,
    flushL2: true,
  },
};
