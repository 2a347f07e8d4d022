// The extension/CLI <-> runner boundary: newline-delimited JSON over the runner's stdio.
// Owned by the runner (native/runner/); the extension and CLI import it type-only.
// One JSON object per line on stdin (RequestMessage) and on stdout (ResponseMessage | ProgressMessage).
// The runner answers requests in order, one at a time; stderr is free-form log text.

export type CudaErrorCode = string; // e.g. "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_NO_DEVICE"

/** Errors cross every boundary as data, never as a process abort. */
export interface RunnerError {
  /**
   * CUDA error name, or a runner code: "NO_DRIVER" (libcuda.so.1 missing or cuInit failed),
   * "TIMEOUT", "CRASHED", "STOPPED" (crash loop; not restarted), "BAD_REQUEST", "CANCELLED",
   * "NOT_FOUND" (kernel symbol not in the module), "INTERNAL".
   */
  code: CudaErrorCode;
  /** The driver call that failed, e.g. "cuCtxSynchronize". */
  call?: string;
  kernel?: string;
  message: string;
  /** True when the CUDA context is unusable (sticky error): the runner process is replaced. */
  sticky?: boolean;
}

export interface DeviceAttributes {
  ordinal: number;
  name: string;
  computeCapability: string; // "9.0"
  smCount: number;
  /** 0 where the driver no longer reports it. */
  memoryClockKHz: number;
  memoryBusWidthBits: number;
  /** 2 * memory clock * bus width / 8, in GB/s. */
  peakDramBandwidthGBs: number;
  l2CacheBytes: number;
  totalMemoryBytes: number;
  sharedMemPerBlockBytes: number;
  sharedMemPerBlockOptinBytes: number;
  sharedMemPerSMBytes: number;
  reservedSharedMemPerBlockBytes: number;
  regsPerBlock: number;
  regsPerSM: number;
  maxThreadsPerBlock: number;
  maxThreadsPerSM: number;
  maxBlocksPerSM: number;
  warpSize: number;
  /** 0 where the driver no longer reports it. */
  clockRateKHz: number;
}

export type DType = "f32" | "f16" | "bf16" | "f64" | "i32" | "i64" | "u32" | "u64" | "u8" | "i8";
export type Init =
  | { kind: "randn"; seed?: number }
  | { kind: "uniform"; low: number; high: number; seed?: number }
  | { kind: "zeros" }
  | { kind: "ones" }
  | { kind: "arange" }
  | { kind: "constant"; value: number };

/** Tolerance of an output: |got - want| <= atol + rtol * |want| for every element. */
export interface Tolerance {
  atol: number;
  rtol: number;
}

export type KernelArg =
  | { kind: "buffer"; name: string; dtype: DType; count: number; init: Init; output?: Tolerance }
  | { kind: "scalar"; name: string; dtype: DType; value: number };

export interface LaunchSpec {
  /** The symbol in the cubin (mangled for C++ kernels). */
  symbol: string;
  /** The name the user knows, for messages. */
  displayName: string;
  grid: [number, number, number];
  block: [number, number, number];
  dynamicSmemBytes: number;
  /** In the kernel's parameter order. Inits are seeded (native/GENERATOR.md), so equal specs give equal data. */
  args: KernelArg[];
}

export interface TimingOptions {
  warmupRuns: number;
  minSamples: number;
  maxSamples: number;
  /** Stop once the relative standard deviation is at or below this, in percent (nvbench: 0.5), or once it has settled above it. */
  targetRsdPct: number;
  /** Stop sampling after this much GPU+host time, in ms. */
  budgetMs: number;
  /** Flush L2 before each sample (cold); the flush is not timed. */
  flushL2: boolean;
}

export interface BenchmarkRequest {
  /** A cubin or fatbin for this device; the baseline's symbol is looked up in it too. */
  cubinPath: string;
  device: number;
  kernel: LaunchSpec;
  /**
   * Compared against the kernel: outputs are matched by argument name, else by their order among
   * the outputs. The baseline's own inputs are generated from its own arg specs.
   */
  baseline?: LaunchSpec;
  timing: TimingOptions;
  /** Per-size bytes moved and FLOPs, for GB/s and TFLOP/s. */
  bytes?: number;
  flops?: number;
  /**
   * Write the kernel's outputs of the check launch here, raw, as `<arg>.bin` each (the PyTorch
   * baseline compares them with its own: server/bench/torch/). The folder must exist.
   */
  outputsDir?: string;
}

export interface SampleStats {
  samples: number;
  medianNs: number;
  minNs: number;
  maxNs: number;
  meanNs: number;
  /**
   * The mean of the middle half of the samples (interquartile mean). Events tick in 32 ns on an H100,
   * so a ~3 µs kernel's median snaps to a tick while this follows the level between ticks. Absent in
   * results from before it existed.
   */
  midMeanNs?: number;
  stdevNs: number;
  rsdPct: number;
  /**
   * Why sampling stopped: the RSD target was met; the noise settled above it (nvbench's convergence
   * test, see StoppingRule); the time budget ran out; or maxSamples was hit.
   */
  stoppedBy: "rsd" | "converged" | "budget" | "maxSamples";
  /**
   * True: every sample started behind the blocking kernel, so the launch latency is not in the times.
   * False: it could not hold the stream (timed out: CUDA_LAUNCH_BLOCKING=1, a debugger or profiler
   * serializing launches; or its PTX did not load) and the samples include the launch latency.
   * Absent in results from before it existed.
   */
  blocked?: boolean;
  /**
   * How many copies of the kernel's buffers the samples took in turn (1 for large buffers), so that
   * no one allocation's placement in memory decides a small kernel's time. Absent in results from
   * before it existed.
   */
  bufferSets?: number;
  /** Derived from the request's bytes/flops and the median; absent when those were not given. */
  gbPerSec?: number;
  /** gbPerSec as a percentage of the device's peak DRAM bandwidth. */
  pctPeakBandwidth?: number;
  tflops?: number;
}

export interface OutputCheck {
  arg: string;
  /** Error against the baseline's matching output; null when there is no baseline. */
  maxAbsError: number | null;
  maxRelError: number | null;
  cosine: number | null;
  /** Elements that differ beyond the tolerance (0 without a baseline). */
  mismatched: number;
  /** Elements the kernel never wrote (still the poison value). */
  unwritten: number;
  /** Elements that are NaN or infinite though the baseline's are finite (or, with no baseline, at all). */
  nonFinite: number;
  pass: boolean;
}

export interface BenchmarkResult {
  device: string;
  kernel: SampleStats;
  baseline?: SampleStats;
  /** baseline median / kernel median; > 1 means the kernel is faster. */
  speedup?: number;
  checks: OutputCheck[];
  /**
   * Where the inputs were generated and the outputs checked: "gpu", or "host" where the data kernels'
   * PTX did not load (the same values, native/GENERATOR.md). Absent in results from before.
   */
  dataOn?: "gpu" | "host";
}

export interface FunctionInfo {
  /** Mangled symbol. */
  name: string;
  numRegs: number;
  sharedSizeBytes: number;
  constSizeBytes: number;
  localSizeBytes: number;
  maxThreadsPerBlock: number;
  maxDynamicSharedSizeBytes: number;
}

export interface OccupancyQuery {
  blockSize: number;
  dynamicSmemBytes: number;
}

// Requests: {id, method, params} -> {id, result} | {id, error: RunnerError}
export interface RunnerRequests {
  hello: {
    params: Record<string, never>;
    result: { pid: number; driverVersion: number | null; error?: RunnerError };
  };
  /** Fails with NO_DRIVER when libcuda.so.1 is missing or cuInit fails. */
  devices: { params: Record<string, never>; result: DeviceAttributes[] };
  benchmark: { params: BenchmarkRequest; result: BenchmarkResult };
  /**
   * Kernels in a cubin with their attributes; with `occupancy`, the driver's active blocks per SM
   * for each (block size, dynamic smem) of `symbol` (or of every kernel when symbol is absent).
   */
  kernelInfo: {
    params: { cubinPath: string; device: number; symbol?: string; occupancy?: OccupancyQuery[] };
    result: {
      functions: (FunctionInfo & { occupancy?: (OccupancyQuery & { activeBlocksPerSM: number })[] })[];
    };
  };
  /** Resident memory and the driver's free device memory, for leak checks. */
  memory: {
    params: { device: number };
    result: { rssBytes: number; deviceFreeBytes: number; deviceTotalBytes: number };
  };
}

export type RunnerMethod = keyof RunnerRequests;

export interface RequestMessage<M extends RunnerMethod = RunnerMethod> {
  id: number;
  method: M;
  params: RunnerRequests[M]["params"];
}

export type ResponseMessage<M extends RunnerMethod = RunnerMethod> =
  { id: number; result: RunnerRequests[M]["result"] } | { id: number; error: RunnerError };

/** Runner -> host progress for request `id`; any message also tells the host the runner is alive. */
export interface ProgressMessage {
  id: number;
  progress: {
    phase: "loading" | "warmup" | "checking" | "sampling" | "baseline";
    samples: number;
    rsdPct?: number;
  };
}
