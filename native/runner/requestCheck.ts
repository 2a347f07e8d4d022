// Checks untyped request params from the pipe before any of it reaches the driver: a bad request gets a
// BAD_REQUEST error naming the field, never a wrong launch or a crash.
import { DTYPE_BYTES, isDType } from "./hostData";
import type {
  BenchmarkRequest,
  Init,
  KernelArg,
  LaunchSpec,
  OccupancyQuery,
  TimingOptions,
} from "./protocol";

export class BadRequest extends Error {
  readonly code = "BAD_REQUEST";
}

/** Largest single buffer we generate on the host (typed arrays and host memory set the limit). */
export const MAX_BUFFER_BYTES = 4 * 1024 ** 3;

type Obj = Record<string, unknown>;

function obj(v: unknown, path: string): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new BadRequest(`${path} must be an object`);
  return v as Obj;
}

function num(v: unknown, path: string, opts: { int?: boolean; min?: number; max?: number } = {}): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new BadRequest(`${path} must be a finite number`);
  if (opts.int && !Number.isInteger(v)) throw new BadRequest(`${path} must be an integer, got ${v}`);
  if (opts.min !== undefined && v < opts.min)
    throw new BadRequest(`${path} must be >= ${opts.min}, got ${v}`);
  if (opts.max !== undefined && v > opts.max)
    throw new BadRequest(`${path} must be <= ${opts.max}, got ${v}`);
  return v;
}

function str(v: unknown, path: string): string {
  if (typeof v !== "string" || v.length === 0) throw new BadRequest(`${path} must be a non-empty string`);
  return v;
}

function dim3(v: unknown, path: string): [number, number, number] {
  if (!Array.isArray(v) || v.length !== 3) throw new BadRequest(`${path} must be [x, y, z]`);
  return [0, 1, 2].map((i) => num(v[i], `${path}[${i}]`, { int: true, min: 1, max: 2 ** 31 - 1 })) as [
    number,
    number,
    number,
  ];
}

function init(v: unknown, path: string): Init {
  const o = obj(v, path);
  const seed = o.seed === undefined ? undefined : num(o.seed, `${path}.seed`, { int: true });
  switch (o.kind) {
    case "zeros":
    case "ones":
    case "arange":
      return { kind: o.kind };
    case "constant":
      return { kind: "constant", value: num(o.value, `${path}.value`) };
    case "randn":
      return seed === undefined ? { kind: "randn" } : { kind: "randn", seed };
    case "uniform": {
      const low = num(o.low, `${path}.low`);
      const high = num(o.high, `${path}.high`);
      if (!(high > low)) throw new BadRequest(`${path}: uniform needs low < high`);
      return seed === undefined ? { kind: "uniform", low, high } : { kind: "uniform", low, high, seed };
    }
    default:
      throw new BadRequest(`${path}.kind must be randn, uniform, zeros, ones, arange or constant`);
  }
}

function arg(v: unknown, path: string): KernelArg {
  const o = obj(v, path);
  const name = str(o.name, `${path}.name`);
  if (!isDType(o.dtype))
    throw new BadRequest(`${path}.dtype must be one of ${Object.keys(DTYPE_BYTES).join(", ")}`);
  const dtype = o.dtype;
  if (o.kind === "scalar") return { kind: "scalar", name, dtype, value: num(o.value, `${path}.value`) };
  if (o.kind !== "buffer") throw new BadRequest(`${path}.kind must be buffer or scalar`);
  const count = num(o.count, `${path}.count`, { int: true, min: 1 });
  if (count * DTYPE_BYTES[dtype] > MAX_BUFFER_BYTES)
    throw new BadRequest(`${path}: ${count} elements of ${dtype} exceed the ${MAX_BUFFER_BYTES} byte limit`);
  const buffer: KernelArg = { kind: "buffer", name, dtype, count, init: init(o.init, `${path}.init`) };
  if (o.output !== undefined) {
    const t = obj(o.output, `${path}.output`);
    buffer.output = {
      atol: num(t.atol, `${path}.output.atol`, { min: 0 }),
      rtol: num(t.rtol, `${path}.output.rtol`, { min: 0 }),
    };
  }
  return buffer;
}

function launchSpec(v: unknown, path: string): LaunchSpec {
  const o = obj(v, path);
  if (!Array.isArray(o.args)) throw new BadRequest(`${path}.args must be an array`);
  const spec: LaunchSpec = {
    symbol: str(o.symbol, `${path}.symbol`),
    displayName:
      typeof o.displayName === "string" && o.displayName ? o.displayName : str(o.symbol, `${path}.symbol`),
    grid: dim3(o.grid, `${path}.grid`),
    block: dim3(o.block, `${path}.block`),
    dynamicSmemBytes: num(o.dynamicSmemBytes ?? 0, `${path}.dynamicSmemBytes`, {
      int: true,
      min: 0,
      max: 2 ** 31 - 1,
    }),
    args: o.args.map((a, i) => arg(a, `${path}.args[${i}]`)),
  };
  const threads = spec.block[0] * spec.block[1] * spec.block[2];
  if (threads > 1024) throw new BadRequest(`${path}.block has ${threads} threads; the limit is 1024`);
  return spec;
}

function timing(v: unknown, path: string): TimingOptions {
  const o = obj(v, path);
  const t: TimingOptions = {
    warmupRuns: num(o.warmupRuns, `${path}.warmupRuns`, { int: true, min: 0 }),
    minSamples: num(o.minSamples, `${path}.minSamples`, { int: true, min: 1 }),
    maxSamples: num(o.maxSamples, `${path}.maxSamples`, { int: true, min: 1 }),
    targetRsdPct: num(o.targetRsdPct, `${path}.targetRsdPct`, { min: 0 }),
    budgetMs: num(o.budgetMs, `${path}.budgetMs`, { min: 0 }),
    flushL2: o.flushL2 === true,
  };
  if (t.maxSamples < t.minSamples) throw new BadRequest(`${path}.maxSamples must be >= minSamples`);
  return t;
}

export function checkBenchmarkRequest(v: unknown): BenchmarkRequest {
  const o = obj(v, "params");
  const req: BenchmarkRequest = {
    cubinPath: str(o.cubinPath, "params.cubinPath"),
    device: num(o.device ?? 0, "params.device", { int: true, min: 0 }),
    kernel: launchSpec(o.kernel, "params.kernel"),
    timing: timing(o.timing, "params.timing"),
  };
  if (o.baseline !== undefined) req.baseline = launchSpec(o.baseline, "params.baseline");
  if (o.bytes !== undefined) req.bytes = num(o.bytes, "params.bytes", { min: 0 });
  if (o.flops !== undefined) req.flops = num(o.flops, "params.flops", { min: 0 });
  if (o.outputsDir !== undefined) req.outputsDir = str(o.outputsDir, "params.outputsDir");
  return req;
}

export function checkKernelInfoRequest(v: unknown): {
  cubinPath: string;
  device: number;
  symbol?: string;
  occupancy?: OccupancyQuery[];
} {
  const o = obj(v, "params");
  const out: { cubinPath: string; device: number; symbol?: string; occupancy?: OccupancyQuery[] } = {
    cubinPath: str(o.cubinPath, "params.cubinPath"),
    device: num(o.device ?? 0, "params.device", { int: true, min: 0 }),
  };
  if (o.symbol !== undefined) out.symbol = str(o.symbol, "params.symbol");
  if (o.occupancy !== undefined) {
    if (!Array.isArray(o.occupancy)) throw new BadRequest("params.occupancy must be an array");
    out.occupancy = o.occupancy.map((q, i) => {
      const e = obj(q, `params.occupancy[${i}]`);
      return {
        blockSize: num(e.blockSize, `params.occupancy[${i}].blockSize`, { int: true, min: 1, max: 1024 }),
        dynamicSmemBytes: num(e.dynamicSmemBytes ?? 0, `params.occupancy[${i}].dynamicSmemBytes`, {
          int: true,
          min: 0,
        }),
      };
    });
  }
  return out;
}

export function checkDeviceParam(v: unknown): number {
  const o = v === undefined ? {} : obj(v, "params");
  return num(o.device ?? 0, "params.device", { int: true, min: 0 });
}
