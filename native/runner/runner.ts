// The GPU runner process (bundled to dist/runner.js): the only process that loads the CUDA addon.
// Reads one JSON request per line on stdin, answers one JSON line per request on stdout (plus progress
// lines), in order. After a sticky CUDA error the context is unusable, so it answers and then exits;
// the client starts a fresh runner for the next request. Logs go to stderr.
import { createInterface } from "node:readline";
import type { CudaAddon } from "../addon";
import { loadAddon } from "./addon";
import { deviceAttributes, peakDramGBs, runBenchmark, type RunnerState } from "./benchmark";
import type {
  DeviceAttributes,
  FunctionInfo,
  ProgressMessage,
  ResponseMessage,
  RunnerError,
  RunnerMethod,
  RunnerRequests,
} from "./protocol";
import { BadRequest, checkBenchmarkRequest, checkDeviceParam, checkKernelInfoRequest } from "./requestCheck";

/** Errors after which the CUDA context cannot be used again (the driver's "sticky" errors). */
const STICKY_CODES = new Set([
  "CUDA_ERROR_ILLEGAL_ADDRESS",
  "CUDA_ERROR_LAUNCH_FAILED",
  "CUDA_ERROR_MISALIGNED_ADDRESS",
  "CUDA_ERROR_ILLEGAL_INSTRUCTION",
  "CUDA_ERROR_INVALID_ADDRESS_SPACE",
  "CUDA_ERROR_INVALID_PC",
  "CUDA_ERROR_HARDWARE_STACK_ERROR",
  "CUDA_ERROR_ASSERT",
  "CUDA_ERROR_LAUNCH_TIMEOUT",
  "CUDA_ERROR_ECC_UNCORRECTABLE",
  "CUDA_ERROR_CONTEXT_IS_DESTROYED",
  "CUDA_ERROR_UNKNOWN",
]);

const state: RunnerState = { devices: new Map(), flush: new Map() };

function send(msg: ResponseMessage | ProgressMessage): void {
  // Pipes are synchronous on Linux, so progress gets out even while the loop below blocks.
  process.stdout.write(`${JSON.stringify(msg)}\n`);
}

function toRunnerError(err: unknown): RunnerError {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; call?: unknown; kernel?: unknown };
    const code = typeof e.code === "string" ? e.code : "INTERNAL";
    const out: RunnerError = { code, message: e.message };
    if (typeof e.call === "string") out.call = e.call;
    if (typeof e.kernel === "string") out.kernel = e.kernel;
    if (STICKY_CODES.has(code)) out.sticky = true;
    return out;
  }
  return { code: "INTERNAL", message: String(err) };
}

/** Loads the addon and checks the driver; throws NO_ADDON or NO_DRIVER with what is missing. */
function cuda(): CudaAddon {
  const addon = loadAddon();
  addon.init();
  return addon;
}

function toDeviceAttributes(ordinal: number, cu: CudaAddon): DeviceAttributes {
  const a = deviceAttributes(cu, state, ordinal);
  return {
    ordinal,
    name: a.name,
    computeCapability: `${a.ccMajor}.${a.ccMinor}`,
    smCount: a.smCount,
    memoryClockKHz: a.memoryClockKHz,
    memoryBusWidthBits: a.memoryBusWidthBits,
    peakDramBandwidthGBs: peakDramGBs(a),
    l2CacheBytes: a.l2CacheBytes,
    totalMemoryBytes: a.totalMemoryBytes,
    sharedMemPerBlockBytes: a.sharedMemPerBlockBytes,
    sharedMemPerBlockOptinBytes: a.sharedMemPerBlockOptinBytes,
    sharedMemPerSMBytes: a.sharedMemPerSMBytes,
    reservedSharedMemPerBlockBytes: a.reservedSharedMemPerBlockBytes,
    regsPerBlock: a.regsPerBlock,
    regsPerSM: a.regsPerSM,
    maxThreadsPerBlock: a.maxThreadsPerBlock,
    maxThreadsPerSM: a.maxThreadsPerSM,
    maxBlocksPerSM: a.maxBlocksPerSM,
    warpSize: a.warpSize,
    clockRateKHz: a.clockRateKHz,
  };
}

type Handlers = { [M in RunnerMethod]: (params: unknown, id: number) => RunnerRequests[M]["result"] };

const handlers: Handlers = {
  hello: () => {
    try {
      const status = loadAddon().driverStatus();
      if (status.available) return { pid: process.pid, driverVersion: status.driverVersion ?? null };
      return {
        pid: process.pid,
        driverVersion: null,
        error: { code: "NO_DRIVER", message: status.reason ?? "" },
      };
    } catch (err) {
      return { pid: process.pid, driverVersion: null, error: toRunnerError(err) };
    }
  },
  devices: () => {
    const cu = cuda();
    const count = cu.deviceCount();
    return Array.from({ length: count }, (_, i) => toDeviceAttributes(i, cu));
  },
  benchmark: (params, id) => {
    const req = checkBenchmarkRequest(params);
    return runBenchmark(cuda(), state, req, (progress) => send({ id, progress }));
  },
  kernelInfo: (params) => {
    const req = checkKernelInfoRequest(params);
    const cu = cuda();
    cu.useDevice(req.device);
    const mod = cu.loadModule(req.cubinPath);
    try {
      const names = req.symbol !== undefined ? [req.symbol] : cu.listFunctions(mod);
      return {
        functions: names.map((name) => {
          const fn = cu.getFunction(mod, name);
          const info: FunctionInfo & {
            occupancy?: { blockSize: number; dynamicSmemBytes: number; activeBlocksPerSM: number }[];
          } = {
            name,
            ...cu.functionAttributes(fn),
          };
          if (req.occupancy) {
            info.occupancy = req.occupancy.map((q) => {
              if (q.dynamicSmemBytes > 48 * 1024) cu.setMaxDynamicSharedMemory(fn, q.dynamicSmemBytes);
              return {
                ...q,
                activeBlocksPerSM: cu.occupancyMaxActiveBlocksPerMultiprocessor(
                  fn,
                  q.blockSize,
                  q.dynamicSmemBytes,
                ),
              };
            });
          }
          return info;
        }),
      };
    } finally {
      cu.unloadModule(mod);
    }
  },
  memory: (params) => {
    const device = checkDeviceParam(params);
    // With --expose-gc (leak tests), collect first so RSS reflects live memory, not garbage.
    (globalThis as { gc?: () => void }).gc?.();
    const cu = cuda();
    cu.useDevice(device);
    const info = cu.memGetInfo();
    return {
      rssBytes: process.memoryUsage.rss(),
      deviceFreeBytes: info.freeBytes,
      deviceTotalBytes: info.totalBytes,
    };
  },
};

function handle(line: string): void {
  let id = -1;
  let method: unknown;
  let params: unknown;
  try {
    const msg = JSON.parse(line) as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof msg.id !== "number" || !Number.isInteger(msg.id))
      throw new BadRequest("request has no integer id");
    id = msg.id;
    method = msg.method;
    params = msg.params;
  } catch (err) {
    const message = err instanceof SyntaxError ? `not JSON: ${err.message}` : String((err as Error).message);
    send({ id, error: { code: "BAD_REQUEST", message } });
    return;
  }
  if (typeof method !== "string" || !Object.hasOwn(handlers, method)) {
    send({ id, error: { code: "BAD_REQUEST", message: `unknown method ${String(method)}` } });
    return;
  }
  try {
    send({ id, result: handlers[method as RunnerMethod](params, id) });
  } catch (err) {
    const error = toRunnerError(err);
    send({ id, error });
    if (error.sticky) {
      process.stderr.write(
        `runner: sticky CUDA error ${error.code}; exiting so a fresh process replaces this one\n`,
      );
      process.exit(3);
    }
  }
}

function main(): void {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on("line", (line) => {
    if (line.trim()) handle(line);
  });
  // The host went away: nothing left to answer.
  rl.on("close", () => process.exit(0));
}

main();
