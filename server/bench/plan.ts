// Turns a spec (checked against the kernel's signature first: signature.ts) into one launch per size
// of the sweep: grid, block, dynamic shared memory, arguments, bytes and FLOPs, all evaluated.
import type { DeviceAttributes, DType, KernelArg, TimingOptions } from "../../native/runner/protocol";
import { type Env, evaluate, evaluateInt, type Expr, type Value } from "./expressions";
import type { KernelInfo } from "./kernelScan";
import type { PointShape } from "./results";
import { paramNames } from "./signature";
import { SpecError } from "./specLexer";
import type { ArgSpec, BenchSpec, Dim3Spec } from "./specTypes";

export interface SizePoint extends PointShape {
  /** The baseline's launch shape: its own where the spec gives one, else the kernel's. */
  baselineLaunch: Pick<PointShape, "grid" | "block" | "dynamicSmemBytes">;
  /** In the kernel's parameter order. */
  args: KernelArg[];
}

/** nvbench's defaults: 0.5% RSD, at least 10 samples; the budget bounds a noisy size. */
export const DEFAULT_TIMING: TimingOptions = {
  warmupRuns: 3,
  minSamples: 10,
  maxSamples: 2000,
  targetRsdPct: 0.5,
  budgetMs: 3000,
  flushL2: true,
};

/** Sweeps larger than this are almost certainly a typo, and each size costs seconds. */
export const MAX_POINTS = 256;

function dim3(
  d: Dim3Spec | undefined,
  env: Env,
  what: string,
  maxes: [number, number, number],
): [number, number, number] {
  const out: [number, number, number] = [1, 1, 1];
  d?.dims.forEach((e, i) => {
    out[i] = evaluateInt(e, env, `${what}.${"xyz"[i]}`, 1, maxes[i]);
  });
  return out;
}

const INT_RANGE: Partial<Record<DType, [number, number]>> = {
  i32: [-(2 ** 31), 2 ** 31 - 1],
  i64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  u32: [0, 2 ** 32 - 1],
  u64: [0, Number.MAX_SAFE_INTEGER],
  u8: [0, 255],
  i8: [-128, 127],
};

function toKernelArg(a: ArgSpec, env: Env): KernelArg {
  if (a.kind === "scalar") {
    const v = evaluate(a.value!, env).value;
    const range = INT_RANGE[a.dtype];
    if (range && (!Number.isInteger(v) || v < range[0] || v > range[1]))
      throw new SpecError(`'${a.name}' is ${a.dtype} but the value is ${v}`, a.value!.span);
    return { kind: "scalar", name: a.name, dtype: a.dtype, value: v };
  }
  const count = evaluateInt(a.count!, env, `the element count of '${a.name}'`, 1);
  return {
    kind: "buffer",
    name: a.name,
    dtype: a.dtype,
    count,
    init: a.init?.init ?? { kind: "zeros" },
    ...(a.output ? { output: { atol: a.output.atol, rtol: a.output.rtol } } : {}),
  };
}

export const DTYPE_BYTES: Record<DType, number> = {
  f32: 4,
  f16: 2,
  bf16: 2,
  f64: 8,
  i32: 4,
  i64: 8,
  u32: 4,
  u64: 8,
  u8: 1,
  i8: 1,
};

function sweepEnvs(spec: BenchSpec): { env: Map<string, Value>; sizes: Record<string, number> }[] {
  let envs = [{ env: new Map<string, Value>(), sizes: {} as Record<string, number> }];
  for (const v of spec.vars) {
    if (v.values) {
      const next: typeof envs = [];
      for (const { env, sizes } of envs)
        for (const e of v.values) {
          const val = evaluate(e, env);
          next.push({ env: new Map(env).set(v.name, val), sizes: { ...sizes, [v.name]: val.value } });
        }
      envs = next;
      if (envs.length > MAX_POINTS)
        throw new SpecError(`the sweep has more than ${MAX_POINTS} sizes; each one takes seconds`, v.span);
    } else {
      for (const { env } of envs) env.set(v.name, evaluate(v.expr!, env));
    }
  }
  return envs;
}

/**
 * Evaluates every size of the sweep. Throws the first SpecError (with its span); call checkSignature
 * first for the static problems. `device` adds the GPU's own limits.
 */
export function planPoints(spec: BenchSpec, kernel: KernelInfo, device?: DeviceAttributes): SizePoint[] {
  const maxThreads = device?.maxThreadsPerBlock ?? 1024;
  const maxSmem = device?.sharedMemPerBlockOptinBytes ?? 227 * 1024;
  const args = paramNames(kernel)
    .map((n) => spec.args.find((a) => a.name === n))
    .filter((a): a is ArgSpec => a !== undefined);
  const shape = (env: Env, g: Dim3Spec | undefined, b: Dim3Spec | undefined, smem: Expr | undefined) => {
    const grid = dim3(g, env, "grid", [2 ** 31 - 1, 65535, 65535]);
    const block = dim3(b, env, "block", [1024, 1024, 64]);
    const threads = block[0] * block[1] * block[2];
    if (threads > maxThreads)
      throw new SpecError(`block has ${threads} threads; the limit is ${maxThreads}`, b!.span);
    const dynamicSmemBytes = smem ? evaluateInt(smem, env, "smem", 0, maxSmem) : 0;
    return { grid, block, dynamicSmemBytes };
  };
  return sweepEnvs(spec).map(({ env, sizes }) => {
    const { grid, block, dynamicSmemBytes } = shape(env, spec.grid, spec.block, spec.smem);
    const bl = spec.baseline;
    const baselineLaunch = shape(
      env,
      bl?.grid ?? spec.grid,
      bl?.block ?? spec.block,
      bl?.smem ?? (bl?.grid || bl?.block ? undefined : spec.smem),
    );
    const kargs = args.map((a) => toKernelArg(a, env));
    const deviceBytes = kargs.reduce(
      (s, a) => s + (a.kind === "buffer" ? a.count * DTYPE_BYTES[a.dtype] : 0),
      0,
    );
    if (device && deviceBytes > device.totalMemoryBytes * 0.9)
      throw new SpecError(
        `the buffers need ${(deviceBytes / 2 ** 30).toFixed(1)} GiB at ${labelOf(sizes)}; the GPU has ${(device.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB`,
        spec.anchor,
      );
    const num = (e: Expr | undefined, what: string) => {
      if (!e) return undefined;
      const v = evaluate(e, env).value;
      if (v < 0) throw new SpecError(`${what} is negative (${v})`, e.span);
      return v;
    };
    const bytes = num(spec.bytes, "bytes");
    const flops = num(spec.flops, "flops");
    return {
      label: labelOf(sizes),
      sizes,
      grid,
      block,
      dynamicSmemBytes,
      baselineLaunch,
      args: kargs,
      ...(bytes !== undefined ? { bytes } : {}),
      ...(flops !== undefined ? { flops } : {}),
    };
  });
}

function labelOf(sizes: Record<string, number>): string {
  const parts = Object.entries(sizes).map(([k, v]) => `${k}=${v}`);
  return parts.length > 0 ? parts.join(" ") : "default";
}

export function timingOf(spec: BenchSpec): TimingOptions {
  return { ...DEFAULT_TIMING, ...spec.timing };
}
