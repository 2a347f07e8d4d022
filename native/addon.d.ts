// The raw surface of native/src/addon.cc (cuda_addon.node), typed once. Only native/runner/ loads it,
// through native/runner/addon.ts, which checks arguments before they get here.
// Every function throws an Error carrying `code` ("CUDA_ERROR_*" or one of AddonErrorCode), `call`
// (the driver entry point) and, for launches and function queries, `kernel`.
import type { DType, DeviceAttributes, FunctionInfo, Init } from "./runner/protocol";

declare const moduleBrand: unique symbol;
declare const functionBrand: unique symbol;
/** An id into the addon's module table; dead after unloadModule. */
export type ModuleHandle = number & { readonly [moduleBrand]: true };
/** An id into the addon's function table; dead once its module is unloaded. */
export type FunctionHandle = number & { readonly [functionBrand]: true };
/** A device address (CUdeviceptr). */
export type DevicePtr = bigint;

export type AddonErrorCode = "NO_DRIVER" | "BAD_ARGUMENT" | "BAD_HANDLE" | "IO_ERROR" | "NOT_SUPPORTED";

export interface AddonError extends Error {
  code: string;
  call?: string;
  kernel?: string;
  /** The raw CUresult, for CUDA errors. */
  result?: number;
}

export interface DriverStatus {
  available: boolean;
  /** What is missing: libcuda.so.1, an entry point, or cuInit's error. */
  reason?: string;
  /** e.g. 13000 for CUDA 13.0. */
  driverVersion?: number;
}

/**
 * What deviceAttributes() reads from the driver: the protocol's DeviceAttributes as the driver gives
 * them, the compute capability as two numbers, before the runner adds the ordinal and the peak bandwidth.
 */
export type RawDeviceAttributes = Omit<
  DeviceAttributes,
  "ordinal" | "computeCapability" | "peakDramBandwidthGBs"
> & {
  ccMajor: number;
  ccMinor: number;
};

/** The kernel's attributes from cuFuncGetAttribute: the protocol's FunctionInfo without its name. */
export type FunctionAttributes = Omit<FunctionInfo, "name">;

export interface LaunchOptions {
  fn: FunctionHandle;
  grid: [number, number, number];
  block: [number, number, number];
  sharedMemBytes?: number;
  /** Each kernel parameter's bytes, in order (a pointer is its 8 little-endian bytes). */
  args: Uint8Array[];
}

export interface TimedLaunchOptions extends LaunchOptions {
  /**
   * Read this buffer (size ≥ 2× L2) before the start event, to start cold with L2 holding only clean
   * lines of it; a memset if the flush kernel's PTX cannot be JIT-compiled. Not timed.
   */
  flush?: { ptr: DevicePtr; bytes: number };
  /** Start behind the blocking kernel (default true), so the launch latency is not timed. */
  blocking?: boolean;
}

export interface TimedSample {
  /** GPU milliseconds between the events around the launch. */
  ms: number;
  /**
   * The blocking kernel held the stream until the start event, the launch and the stop event were all
   * enqueued, so the launch latency is outside `ms`. False when it timed out (the host could not
   * enqueue behind it: CUDA_LAUNCH_BLOCKING=1, a debugger or profiler serializing launches), when its
   * PTX or the host-mapped flag is unavailable, or when `blocking` was false: then `ms` includes it.
   */
  blocked: boolean;
}

/** A buffer's values from GENERATOR.md's formula; `a`, `b`: uniform's low and high, constant's value. */
export interface FillOptions {
  ptr: DevicePtr;
  dtype: DType;
  count: number;
  kind: Init["kind"];
  seed: number;
  a: number;
  b: number;
}

/** What compareBuffers sums over the elements (counts as numbers). */
export interface CompareSummary {
  maxAbsError: number;
  maxRelError: number;
  mismatched: number;
  unwritten: number;
  nonFinite: number;
  /** Σ got·want, Σ got², Σ want² over the finite pairs, for the cosine. */
  dot: number;
  normGot: number;
  normWant: number;
}

export interface CudaAddon {
  readonly abiVersion: number;
  /** Never throws: says whether libcuda.so.1 loaded and cuInit succeeded, and if not, why. */
  driverStatus(): DriverStatus;
  /** Throws NO_DRIVER with the reason when the driver is unusable. */
  init(): void;
  deviceCount(): number;
  deviceAttributes(ordinal: number): RawDeviceAttributes;
  /** Makes the device's primary context current (retained once per process). */
  useDevice(ordinal: number): void;
  /** cuCtxSynchronize: where a faulting kernel's error surfaces. */
  synchronize(): void;
  memGetInfo(): { freeBytes: number; totalBytes: number };
  memAlloc(bytes: number): DevicePtr;
  memFree(ptr: DevicePtr): void;
  memcpyHtoD(ptr: DevicePtr, data: Uint8Array): void;
  memcpyDtoH(ptr: DevicePtr, bytes: number): Buffer;
  memsetD8(ptr: DevicePtr, value: number, bytes: number): void;
  /** cubin, fatbin or PTX file. */
  loadModule(path: string): ModuleHandle;
  unloadModule(mod: ModuleHandle): void;
  getFunction(mod: ModuleHandle, name: string): FunctionHandle;
  /** Mangled names of the module's kernels; NOT_SUPPORTED before driver 12.4. */
  listFunctions(mod: ModuleHandle): string[];
  functionAttributes(fn: FunctionHandle): FunctionAttributes;
  setMaxDynamicSharedMemory(fn: FunctionHandle, bytes: number): void;
  occupancyMaxActiveBlocksPerMultiprocessor(
    fn: FunctionHandle,
    blockSize: number,
    dynamicSmemBytes: number,
  ): number;
  /** Enqueues on the default stream; errors of the kernel itself surface at the next synchronize. */
  launch(options: LaunchOptions): void;
  /** One timed sample behind the blocking kernel (unless options.blocking is false). */
  timedLaunch(options: TimedLaunchOptions): TimedSample;
  /** Enqueues GENERATOR.md's generation on the device; NOT_SUPPORTED when the data kernels' PTX did not load. */
  fillBuffer(options: FillOptions): void;
  /**
   * Checks an output on the device (poisoned elements, non-finite values, and against `want` with
   * |got - want| <= atol + rtol·|want|), waits, and returns the sums; NOT_SUPPORTED as fillBuffer.
   */
  compareBuffers(options: {
    got: { ptr: DevicePtr; dtype: DType };
    want?: { ptr: DevicePtr; dtype: DType };
    count: number;
    atol: number;
    rtol: number;
  }): CompareSummary;
}
