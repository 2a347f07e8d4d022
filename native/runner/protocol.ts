// The extension/CLI <-> runner boundary: newline-delimited JSON over the runner's stdio.
// Owned by the runner (native/runner/); the extension and CLI import it type-only.

export type CudaErrorCode = string; // e.g. "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_NO_DEVICE"

/** Errors cross every boundary as data, never as a process abort. */
export interface RunnerError {
  /** CUDA error name, or a runner code: "NO_DRIVER", "TIMEOUT", "CRASHED", "BAD_REQUEST", "CANCELLED". */
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
  memoryClockKHz: number;
  memoryBusWidthBits: number;
  /** 2 * memory clock * bus width / 8, in GB/s. */
  peakDramBandwidthGBs: number;
  l2CacheBytes: number;
  totalMemoryBytes: number;
  sharedMemPerBlockBytes: number;
  sharedMemPerBlockOptinBytes: number;
  sharedMemPerSMBytes: number;
  regsPerBlock: number;
  regsPerSM: number;
  maxThreadsPerBlock: number;
  maxThreadsPerSM: number;
  maxBlocksPerSM: number;
  clockRateKHz: number;
}

export type DType = "f32" | "f16" | "bf16" | "f64" | "i32" | "i64" | "u8" | "i8";
export type Init =
  | { kind: "randn"; seed?: number }
  | { kind: "uniform"; low: number; high: number; seed?: number }
  | { kind: "zeros" }
  | { kind: "ones" }
  | { kind: "arange" }
  | { kind: "constant"; value: number };

export type KernelArg =
  | { kind: "buffer"; name: string; dtype: DType; count: number; init: Init; output?: { atol: number; rtol: number } }
  | { kind: "scalar"; name: string; dtype: DType; value: number };

export interface LaunchSpec {
  /** The symbol in the cubin (mangled for C++ kernels). */
  symbol: string;
  /** The name the user knows, for messages. */
  displayName: string;
  grid: [number, number, number];
  block: [number, number, number];
  dynamicSmemBytes: number;
  args: KernelArg[];
}

export interface TimingOptions {
  warmupRuns: number;
  minSamples: number;
  maxSamples: number;
  /** Stop once the relative standard deviation is at or below this, in percent (nvbench: 0.5). */
  targetRsdPct: number;
  /** Stop sampling after this much GPU+host time, in ms. */
  budgetMs: number;
  /** Flush L2 before each sample (cold); the flush is not timed. */
  flushL2: boolean;
}

export interface BenchmarkRequest {
  cubinPath: string;
  device: number;
  kernel: LaunchSpec;
  baseline?: LaunchSpec;
  timing: TimingOptions;
  /** Per-size bytes moved and FLOPs, for GB/s and TFLOP/s. */
  bytes?: number;
  flops?: number;
}

export interface SampleStats {
  samples: number;
  medianNs: number;
  minNs: number;
  maxNs: number;
  meanNs: number;
  stdevNs: number;
  rsdPct: number;
}

export interface OutputCheck {
  arg: string;
  maxAbsError: number;
  maxRelError: number;
  cosine: number;
  /** Elements the kernel never wrote (still the poison value). */
  unwritten: number;
  pass: boolean;
}

export interface BenchmarkResult {
  kernel: SampleStats;
  baseline?: SampleStats;
  checks: OutputCheck[];
}

// Requests: {id, method, params} -> {id, result} | {id, error: RunnerError}
export interface RunnerRequests {
  hello: { params: Record<string, never>; result: { pid: number; driverVersion: number | null; error?: RunnerError } };
  devices: { params: Record<string, never>; result: DeviceAttributes[] };
  benchmark: { params: BenchmarkRequest; result: BenchmarkResult };
  /** Resident memory and the driver's free device memory, for leak checks. */
  memory: { params: { device: number }; result: { rssBytes: number; deviceFreeBytes: number; deviceTotalBytes: number } };
}

export type RunnerMethod = keyof RunnerRequests;

export interface RequestMessage<M extends RunnerMethod = RunnerMethod> {
  id: number;
  method: M;
  params: RunnerRequests[M]["params"];
}

export type ResponseMessage<M extends RunnerMethod = RunnerMethod> =
  | { id: number; result: RunnerRequests[M]["result"] }
  | { id: number; error: RunnerError };

/** Runner -> host progress, not tied to a request's completion. */
export interface ProgressMessage {
  id: number;
  progress: { phase: "warmup" | "sampling" | "checking"; samples: number; rsdPct?: number };
}
