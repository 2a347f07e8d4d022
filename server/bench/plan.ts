// Checks a parsed spec against the kernel's signature and turns it into one launch per size of the
// sweep: grid, block, dynamic shared memory, arguments, bytes and FLOPs, all evaluated.
import type { DeviceAttributes, DType, KernelArg, TimingOptions } from "../../native/runner/protocol";
import type { ArgSpec, BenchSpec, Dim3Spec, TemplateArgSpec } from "./specTypes";
import { type Env, evaluate, evaluateInt, type Expr, type Value, variablesOf } from "./expressions";
import type { KernelInfo } from "./kernelScan";
import type { PointShape } from "./results";
import { SpecError } from "./specLexer";

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

const SCALAR_TYPES: Record<string, DType> = {
  float: "f32",
  double: "f64",
  __half: "f16",
  half: "f16",
  __nv_bfloat16: "bf16",
  nv_bfloat16: "bf16",
  int: "i32",
  "signed int": "i32",
  signed: "i32",
  int32_t: "i32",
  unsigned: "u32",
  "unsigned int": "u32",
  uint32_t: "u32",
  long: "i64",
  "long long": "i64",
  "long int": "i64",
  "unsigned long": "u64",
  "unsigned long long": "u64",
  int64_t: "i64",
  uint64_t: "u64",
  size_t: "u64",
  ptrdiff_t: "i64",
  char: "i8",
  "signed char": "i8",
  int8_t: "i8",
  "unsigned char": "u8",
  uint8_t: "u8",
};

/** Vector types a buffer may be declared as; the spec counts scalar elements. */
const VECTOR_TYPES: Record<string, DType> = {
  float2: "f32",
  float4: "f32",
  double2: "f64",
  __half2: "f16",
  half2: "f16",
  __nv_bfloat162: "bf16",
  nv_bfloat162: "bf16",
  int2: "i32",
};

/** The dtype a C++ type stands for, or undefined where we cannot tell (structs, `int4` used as raw bytes). */
export function dtypeOfCType(cType: string, template: TemplateArgSpec[] = []): DType | undefined {
  const t = cType.replace(/\s+/g, " ").trim();
  const bound = template.find((a) => a.name === t);
  if (bound) return dtypeOfCType(bound.value);
  return SCALAR_TYPES[t] ?? VECTOR_TYPES[t];
}

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

/** Signedness aside (an `unsigned` described as i32 is fine), do the two agree? */
function sameWidth(a: DType, b: DType): boolean {
  const norm = (d: DType) => (d === "u32" ? "i32" : d === "u64" ? "i64" : d);
  return norm(a) === norm(b);
}

/** Checks the spec against the kernel (arguments, template, baseline, variables); issues carry spans. */
export function checkSignature(spec: BenchSpec, kernel: KernelInfo, all: KernelInfo[]): SpecError[] {
  const issues: SpecError[] = [];
  const names = kernel.params.map((p, i) => p.name || `#${i + 1}`);
  for (const a of spec.args) {
    const i = names.indexOf(a.name);
    if (i < 0) {
      issues.push(
        new SpecError(
          `'${a.name}' is not a parameter of ${kernel.name} (parameters: ${names.join(", ")})`,
          a.nameSpan,
        ),
      );
      continue;
    }
    const p = kernel.params[i]!;
    if (p.pointer && a.kind === "scalar")
      issues.push(
        new SpecError(
          `'${a.name}' is a pointer (${p.type}); describe a buffer: ${a.name}: ${a.dtype}[COUNT]`,
          a.nameSpan,
        ),
      );
    else if (!p.pointer && a.kind === "buffer")
      issues.push(
        new SpecError(
          `'${a.name}' is a ${p.type}, not a pointer; describe a scalar: ${a.name}: ${a.dtype} = VALUE`,
          a.nameSpan,
        ),
      );
    const expected = dtypeOfCType(p.baseType, spec.template);
    if (expected && !sameWidth(expected, a.dtype))
      issues.push(
        new SpecError(
          `'${a.name}' is declared ${p.baseType} (${expected}) but the spec says ${a.dtype}`,
          a.dtypeSpan,
          "warning",
        ),
      );
    if (a.output && p.isConst)
      issues.push(
        new SpecError(
          `'${a.name}' is const in ${kernel.name}; the kernel cannot write it`,
          a.output.span,
          "warning",
        ),
      );
  }
  kernel.params.forEach((_, i) => {
    if (!spec.args.some((a) => a.name === names[i]))
      issues.push(
        new SpecError(
          `no '@bench arg ${names[i]}: ...' for parameter ${i + 1} of ${kernel.name}`,
          spec.anchor,
        ),
      );
  });

  const tparams = kernel.template ?? [];
  for (const t of spec.template) {
    const p = tparams.find((tp) => tp.name === t.name);
    if (!p) {
      issues.push(
        new SpecError(
          tparams.length === 0
            ? `${kernel.name} is not a template`
            : `'${t.name}' is not a template parameter of ${kernel.name} (${tparams.map((x) => x.name).join(", ")})`,
          t.span,
        ),
      );
    } else if (
      p.kind === "value" &&
      !/^(?:-?(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*|true|false)$/.test(t.value)
    ) {
      issues.push(
        new SpecError(
          `'${t.name}' is a ${p.valueType}: give an integer or true/false, got '${t.value}'`,
          t.span,
        ),
      );
    }
  }
  for (const p of tparams)
    if (!p.defaultValue && !spec.template.some((t) => t.name === p.name))
      issues.push(
        new SpecError(
          `template parameter '${p.name}' of ${kernel.name} needs a value: @bench template ${p.name}=...`,
          spec.anchor,
        ),
      );

  if (spec.baseline) {
    const b = all.find((k) => k.name === spec.baseline!.name && k.hasBody);
    if (!b)
      issues.push(
        new SpecError(`no __global__ kernel '${spec.baseline.name}' in this file`, spec.baseline.span),
      );
    else if (b.name === kernel.name)
      issues.push(new SpecError("a kernel cannot be its own baseline", spec.baseline.span));
    else if (b.params.length !== kernel.params.length)
      issues.push(
        new SpecError(
          `${b.name} takes ${b.params.length} arguments, ${kernel.name} ${kernel.params.length}: a baseline gets the same arguments`,
          spec.baseline.span,
        ),
      );
    else if (spec.baseline.templateArgs && !b.template)
      issues.push(new SpecError(`${b.name} is not a template`, spec.baseline.span));
    else if (b.template) {
      const given = spec.baseline.templateArgs;
      if (given && given.length > b.template.length)
        issues.push(
          new SpecError(
            `${b.name} has ${b.template.length} template parameters, got ${given.length}`,
            spec.baseline.span,
          ),
        );
      b.template.forEach((p, i) => {
        const has = given ? i < given.length : spec.template.some((t) => t.name === p.name);
        if (!has && !p.defaultValue)
          issues.push(
            new SpecError(
              `the baseline's template parameter '${p.name}' needs a value: baseline ${b.name}<...>`,
              spec.baseline!.span,
            ),
          );
      });
    }
  }

  if (!spec.grid) issues.push(new SpecError("missing grid=(...): how many blocks to launch", spec.anchor));
  if (!spec.block) issues.push(new SpecError("missing block=(...): threads per block", spec.anchor));

  // Variables: each definition sees those above it; everything else sees them all.
  const known = new Set<string>();
  const unknown = (e: Expr | undefined) => {
    for (const v of e ? variablesOf(e) : [])
      if (!known.has(v.name)) issues.push(new SpecError(`unknown variable '${v.name}'`, v.span));
  };
  for (const v of spec.vars) {
    for (const e of v.values ?? []) unknown(e);
    unknown(v.expr);
    known.add(v.name);
  }
  for (const e of [
    ...(spec.grid?.dims ?? []),
    ...(spec.block?.dims ?? []),
    spec.smem,
    spec.bytes,
    spec.flops,
  ])
    unknown(e);
  for (const a of spec.args) {
    unknown(a.count);
    unknown(a.value);
  }
  return issues;
}

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
  const order = kernel.params.map((p, i) => p.name || `#${i + 1}`);
  const args = order
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
