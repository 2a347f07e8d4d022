// The measurement loop, after nvbench: inputs generated on the GPU, a check launch on poisoned outputs
// checked on the GPU, warm-up, then cold samples (L2 flushed before each by reading a buffer twice its
// size) timed by CUDA events around each launch while a blocking kernel holds the stream until all is
// enqueued (neither the flush nor the launch latency is timed), until the RSD target is met with
// enough samples or the noise has settled above it (StoppingRule), the sample cap is hit, or the time
// budget runs out. A small kernel's samples take several copies of its buffers in turn (bufferSets.ts).
import { performance } from "node:perf_hooks";
import type { CudaAddon, DevicePtr, FunctionHandle, ModuleHandle, RawDeviceAttributes } from "../addon";
import { bufferSetCount, moreBufferSets } from "./bufferSets";
import { BenchData, type DeviceBuffer } from "./deviceData";
import { DTYPE_BYTES, POISON_BYTE, packPointer, packScalar } from "./hostData";
import type {
  BenchmarkRequest,
  BenchmarkResult,
  LaunchSpec,
  OutputCheck,
  ProgressMessage,
  SampleStats,
  TimingOptions,
  Tolerance,
} from "./protocol";
import { saveOutputs } from "./saveOutputs";
import { StoppingRule, summarize } from "./stats";

export type ProgressFn = (progress: ProgressMessage["progress"]) => void;

/** Per-process state kept across requests: device attributes and the L2 flush buffer per device. */
export interface RunnerState {
  devices: Map<number, RawDeviceAttributes>;
  flush: Map<number, { ptr: DevicePtr; bytes: number }>;
}

export class RunnerCodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly call?: string,
    readonly kernel?: string,
  ) {
    super(message);
  }
}

/** Static shared memory and dynamic shared memory share a 48 KB default; more needs an opt-in. */
const DEFAULT_DYNAMIC_SMEM_LIMIT = 48 * 1024;
const PROGRESS_INTERVAL_MS = 200;

interface Output extends DeviceBuffer {
  tolerance: Tolerance;
}

interface Prepared {
  spec: LaunchSpec;
  fn: FunctionHandle;
  args: Uint8Array[];
  outputs: Output[];
}

/** Adds the kernel's name to a driver error that surfaced away from the launch (e.g. at synchronize). */
function withKernel<T>(kernel: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof Error && (err as { kernel?: string }).kernel === undefined) {
      (err as { kernel?: string }).kernel = kernel;
      err.message += ` (kernel ${kernel})`;
    }
    throw err;
  }
}

/** The map's value for key, made on first use and kept. */
function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

export function deviceAttributes(cuda: CudaAddon, state: RunnerState, device: number): RawDeviceAttributes {
  return cached(state.devices, device, () => cuda.deviceAttributes(device));
}

function getFunction(
  cuda: CudaAddon,
  mod: ModuleHandle,
  spec: LaunchSpec,
  cubinPath: string,
): FunctionHandle {
  try {
    return cuda.getFunction(mod, spec.symbol);
  } catch (err) {
    if ((err as { code?: string }).code !== "CUDA_ERROR_NOT_FOUND") throw err;
    let known = "";
    try {
      known = `; it has: ${cuda.listFunctions(mod).join(", ") || "no kernels"}`;
    } catch {
      // Listing needs driver 12.4; the message is still clear without it.
    }
    throw new RunnerCodedError(
      "NOT_FOUND",
      `kernel ${spec.displayName} (symbol ${spec.symbol}) is not in ${cubinPath}${known}`,
      "cuModuleGetFunction",
      spec.displayName,
    );
  }
}

function prepare(
  cuda: CudaAddon,
  mod: ModuleHandle,
  spec: LaunchSpec,
  cubinPath: string,
  allocations: DevicePtr[],
  data: BenchData,
): Prepared {
  const fn = getFunction(cuda, mod, spec, cubinPath);
  if (spec.dynamicSmemBytes > DEFAULT_DYNAMIC_SMEM_LIMIT) {
    withKernel(spec.displayName, () => cuda.setMaxDynamicSharedMemory(fn, spec.dynamicSmemBytes));
  }
  const args: Uint8Array[] = [];
  const outputs: Output[] = [];
  spec.args.forEach((a, position) => {
    if (a.kind === "scalar") {
      args.push(packScalar(a.dtype, a.value));
      return;
    }
    const bytes = a.count * DTYPE_BYTES[a.dtype];
    const ptr = cuda.memAlloc(bytes);
    allocations.push(ptr);
    if (a.output) {
      outputs.push({ arg: a.name, dtype: a.dtype, count: a.count, ptr, tolerance: a.output });
    } else {
      data.fill(ptr, a, position + 1);
    }
    args.push(packPointer(ptr));
  });
  return { spec, fn, args, outputs };
}

/** A prepared kernel and the argument sets its samples take in turn (the first: the checked one's). */
interface Timed extends Prepared {
  sets: Uint8Array[][];
}

function launchOptions(p: Prepared, args = p.args) {
  return {
    fn: p.fn,
    grid: p.spec.grid,
    block: p.spec.block,
    sharedMemBytes: p.spec.dynamicSmemBytes,
    args,
  };
}

/** After the check: the kernel with more sets of its buffers when they are small (bufferSets.ts). */
function withBufferSets(cuda: CudaAddon, p: Prepared, allocations: DevicePtr[], data: BenchData): Timed {
  const count = bufferSetCount(p.spec);
  return { ...p, sets: moreBufferSets(cuda, p.spec, p.args, count, allocations, data) };
}

/** One launch on poisoned outputs, so unwritten elements show. */
function runForOutputs(cuda: CudaAddon, p: Prepared): void {
  for (const o of p.outputs) cuda.memsetD8(o.ptr, POISON_BYTE, o.count * DTYPE_BYTES[o.dtype]);
  withKernel(p.spec.displayName, () => {
    cuda.launch(launchOptions(p));
    cuda.synchronize();
  });
}

function compare(data: BenchData, kernel: Prepared, baseline?: Prepared): OutputCheck[] {
  return kernel.outputs.map((o, i) => {
    if (!baseline) return data.check(o, o.tolerance);
    let j = baseline.outputs.findIndex((b) => b.arg === o.arg);
    if (j < 0) j = i;
    const match = baseline.outputs[j];
    if (!match) {
      throw new RunnerCodedError(
        "BAD_REQUEST",
        `baseline ${baseline.spec.displayName} has no output matching ${o.arg} (outputs match by name, else by order)`,
      );
    }
    return data.check(o, o.tolerance, match);
  });
}

function flushBuffer(cuda: CudaAddon, state: RunnerState, device: number, l2Bytes: number) {
  return cached(state.flush, device, () => {
    // At least twice the L2 so nothing of the previous sample survives; 32 MiB if L2 is unknown.
    const bytes = Math.max(2 * l2Bytes, 32 * 1024 * 1024);
    return { ptr: cuda.memAlloc(bytes), bytes };
  });
}

function measure(
  cuda: CudaAddon,
  p: Timed,
  timing: TimingOptions,
  flush: { ptr: DevicePtr; bytes: number } | undefined,
  phase: "sampling" | "baseline",
  progress: ProgressFn,
): Omit<SampleStats, "gbPerSec" | "pctPeakBandwidth" | "tflops"> {
  const launches = p.sets.map((args) =>
    flush ? { ...launchOptions(p, args), flush } : launchOptions(p, args),
  );
  let taken = 0;
  // Behind the blocking kernel until it fails to hold once (then every sample would wait for its
  // timeout): from there on unblocked, the samples so far dropped, and the stats say blocked: false.
  let blocked = true;
  const sampleNs = (): number | undefined => {
    const launch = launches[taken++ % launches.length]!;
    const s = cuda.timedLaunch({ ...launch, blocking: blocked });
    if (blocked && !s.blocked) {
      blocked = false;
      return undefined;
    }
    return s.ms * 1e6;
  };
  return withKernel(p.spec.displayName, () => {
    progress({ phase: "warmup", samples: 0 });
    // Each set's first timed launch is a warm-up too.
    for (let i = 0; i < Math.max(timing.warmupRuns, launches.length); i++) sampleNs();
    let samples: number[] = [];
    let rule = new StoppingRule(timing);
    const start = performance.now();
    let lastProgress = start;
    let stoppedBy: SampleStats["stoppedBy"] | undefined;
    while (!stoppedBy) {
      const ns = sampleNs();
      if (ns === undefined) {
        samples = [];
        rule = new StoppingRule(timing);
        continue;
      }
      samples.push(ns);
      const now = performance.now();
      stoppedBy = rule.add(ns, now - start);
      if (!stoppedBy && now - lastProgress >= PROGRESS_INTERVAL_MS) {
        progress({ phase, samples: samples.length, rsdPct: rule.rsdPct });
        lastProgress = now;
      }
    }
    return { ...summarize(samples), stoppedBy, blocked, bufferSets: launches.length };
  });
}

function derive(
  s: Omit<SampleStats, "gbPerSec" | "pctPeakBandwidth" | "tflops">,
  req: BenchmarkRequest,
  peakGBs: number,
): SampleStats {
  const out: SampleStats = { ...s };
  if (req.bytes !== undefined && s.medianNs > 0) {
    out.gbPerSec = req.bytes / s.medianNs; // bytes per ns = GB/s
    if (peakGBs > 0) out.pctPeakBandwidth = (out.gbPerSec / peakGBs) * 100;
  }
  if (req.flops !== undefined && s.medianNs > 0) out.tflops = req.flops / s.medianNs / 1e3;
  return out;
}

export function peakDramGBs(a: Pick<RawDeviceAttributes, "memoryClockKHz" | "memoryBusWidthBits">): number {
  // Double data rate: two transfers per memory clock, bus width in bits.
  return (2 * a.memoryClockKHz * 1e3 * (a.memoryBusWidthBits / 8)) / 1e9;
}

export function runBenchmark(
  cuda: CudaAddon,
  state: RunnerState,
  req: BenchmarkRequest,
  progress: ProgressFn,
): BenchmarkResult {
  progress({ phase: "loading", samples: 0 });
  cuda.useDevice(req.device);
  const dev = deviceAttributes(cuda, state, req.device);
  const allocations: DevicePtr[] = [];
  const mod = cuda.loadModule(req.cubinPath);
  try {
    const data = new BenchData(cuda);
    const kernel = prepare(cuda, mod, req.kernel, req.cubinPath, allocations, data);
    const baseline = req.baseline
      ? prepare(cuda, mod, req.baseline, req.cubinPath, allocations, data)
      : undefined;
    progress({ phase: "checking", samples: 0 });
    runForOutputs(cuda, kernel);
    if (baseline) runForOutputs(cuda, baseline);
    const checks = compare(data, kernel, baseline);
    if (req.outputsDir) saveOutputs(cuda, kernel.outputs, req.outputsDir);
    const flush = req.timing.flushL2 ? flushBuffer(cuda, state, req.device, dev.l2CacheBytes) : undefined;
    const peak = peakDramGBs(dev);
    const timed = withBufferSets(cuda, kernel, allocations, data);
    const kernelStats = derive(measure(cuda, timed, req.timing, flush, "sampling", progress), req, peak);
    const result: BenchmarkResult = { device: dev.name, kernel: kernelStats, checks, dataOn: data.where };
    if (baseline) {
      const base = withBufferSets(cuda, baseline, allocations, data);
      result.baseline = derive(measure(cuda, base, req.timing, flush, "baseline", progress), req, peak);
      result.speedup = result.baseline.medianNs / kernelStats.medianNs;
    }
    return result;
  } finally {
    // After a sticky error these fail too; the process is about to be replaced, so ignore them.
    for (const ptr of allocations) {
      try {
        cuda.memFree(ptr);
      } catch {
        /* context unusable */
      }
    }
    try {
      cuda.unloadModule(mod);
    } catch {
      /* context unusable */
    }
  }
}
