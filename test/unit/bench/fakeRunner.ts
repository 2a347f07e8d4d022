// A fake runner at the protocol boundary, and its answers, for the benchmark flow's tests.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type {
  BenchmarkRequest,
  BenchmarkResult,
  DeviceAttributes,
  OutputCheck,
  RunnerMethod,
  RunnerRequests,
} from "../../../native/runner/protocol";
import type { TimingCalibration } from "../../../server/bench/calibration";
import { EMPTY_SYMBOL } from "../../../server/bench/emptyKernel";
import type { BenchRunner } from "../../../server/bench/runBench";

export const h200 = JSON.parse(
  readFileSync(join(__dirname, "../../fixtures/bench/device-h200.json"), "utf8"),
) as DeviceAttributes;

/** The empty kernel's event median a fake runner answers a calibrated run with: the test calibrations' eventNs. */
export const EMPTY_EVENT_NS = 3100;

/** A calibration of the fake H200 whose event time is the fake runner's empty kernel (offset 900 ns). */
export const H200_CALIBRATION: TimingCalibration = {
  gpu: h200.name,
  driverVersion: 13000,
  offsetNs: 900,
  eventNs: EMPTY_EVENT_NS,
  ncuNs: 2200,
  ncuLaunches: 20,
  calibratedAt: "2026-11-24T11:00:00.000Z",
};

/** A calibrated run's request for the empty kernel (emptyKernel.ts), answered at `emptyNs`; else undefined. */
export function emptyAnswer(req: BenchmarkRequest, emptyNs = EMPTY_EVENT_NS): BenchmarkResult | undefined {
  if (req.kernel.symbol !== EMPTY_SYMBOL) return undefined;
  return { device: "NVIDIA H200", kernel: { ...stats(emptyNs), blocked: true }, checks: [] };
}

export class FakeRunner implements BenchRunner {
  readonly benchmarks: BenchmarkRequest[] = [];
  /** The empty-kernel requests of calibrated runs (not in `benchmarks`). */
  readonly empties: BenchmarkRequest[] = [];
  /** undefined: the empty kernel's request goes to `answer` like any other. */
  emptyNs: number | undefined = EMPTY_EVENT_NS;
  constructor(
    private readonly answer: (req: BenchmarkRequest, i: number) => BenchmarkResult | Error,
    private readonly devices: DeviceAttributes[] = [h200],
    private readonly noDriver = false,
  ) {}
  request<M extends RunnerMethod>(
    method: M,
    params: RunnerRequests[M]["params"],
  ): Promise<RunnerRequests[M]["result"]> {
    const reply = (x: unknown) => Promise.resolve(x as RunnerRequests[M]["result"]);
    if (method === "hello")
      return reply(
        this.noDriver
          ? {
              pid: 1,
              driverVersion: null,
              error: { code: "NO_DRIVER", message: "libcuda.so.1 could not be loaded" },
            }
          : { pid: 1, driverVersion: 13000 },
      );
    if (method === "devices") return reply(this.devices);
    if (method === "benchmark") {
      const req = params as BenchmarkRequest;
      const empty = this.emptyNs === undefined ? undefined : emptyAnswer(req, this.emptyNs);
      if (empty) {
        this.empties.push(req);
        return reply(empty);
      }
      this.benchmarks.push(req);
      const a = this.answer(req, this.benchmarks.length - 1);
      return a instanceof Error ? Promise.reject(a) : reply(a);
    }
    return Promise.reject(new Error(`unexpected ${method}`));
  }
}

export const stats = (medianNs: number) => ({
  samples: 12,
  medianNs,
  minNs: medianNs * 0.99,
  maxNs: medianNs * 1.02,
  meanNs: medianNs,
  stdevNs: medianNs * 0.003,
  rsdPct: 0.3,
  stoppedBy: "rsd" as const,
});
const equal = { maxAbsError: 0, maxRelError: 0, cosine: 1, mismatched: 0, unwritten: 0, nonFinite: 0 };
/** The output check of `out`: equal to the baseline's, or off by the errors given. */
export const outCheck = (pass: boolean, errors: Partial<OutputCheck> = {}): OutputCheck => ({
  arg: "out",
  ...equal,
  ...errors,
  pass,
});
export const ok = (kernelNs: number, baselineNs: number): BenchmarkResult => ({
  device: "NVIDIA H200",
  kernel: stats(kernelNs),
  baseline: stats(baselineNs),
  checks: [outCheck(true)],
});
