// Checks a parsed spec against the kernel it sits above, before anything is evaluated: its arguments
// against the parameters (names, pointer or scalar, dtype against the C++ type), its template values,
// its baseline, its launch shape and the variables every expression uses. Issues carry spans.
import type { DType } from "../../native/runner/protocol";
import { type Expr, variablesOf } from "./expressions";
import type { KernelInfo } from "./kernelScan";
import { SpecError } from "./specLexer";
import type { BenchSpec, TemplateArgSpec } from "./specTypes";

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

/** Signedness aside (an `unsigned` described as i32 is fine), do the two agree? */
function sameWidth(a: DType, b: DType): boolean {
  const norm = (d: DType) => (d === "u32" ? "i32" : d === "u64" ? "i64" : d);
  return norm(a) === norm(b);
}

/** Checks the spec against the kernel (arguments, template, baseline, variables); issues carry spans. */
export function checkSignature(spec: BenchSpec, kernel: KernelInfo, all: KernelInfo[]): SpecError[] {
  return [
    ...checkArgs(spec, kernel),
    ...checkTemplate(spec, kernel),
    ...(spec.baseline ? checkBaseline(spec, kernel, all) : []),
    ...checkLaunch(spec),
    ...checkVariables(spec),
  ];
}

/** The name each parameter is described by: its own, or `#N` for an unnamed one. */
export function paramNames(kernel: KernelInfo): string[] {
  return kernel.params.map((p, i) => p.name || `#${i + 1}`);
}

/** Each `arg` names a parameter and matches its kind and type; every parameter is described. */
function checkArgs(spec: BenchSpec, kernel: KernelInfo): SpecError[] {
  const issues: SpecError[] = [];
  const names = paramNames(kernel);
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
  return issues;
}

/** Each `template` value names a template parameter and suits it; every parameter without a default has one. */
function checkTemplate(spec: BenchSpec, kernel: KernelInfo): SpecError[] {
  const issues: SpecError[] = [];
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
  return issues;
}

/** The baseline is another kernel of this file taking the same arguments, with every template value. */
function checkBaseline(spec: BenchSpec, kernel: KernelInfo, all: KernelInfo[]): SpecError[] {
  const baseline = spec.baseline!;
  const b = all.find((k) => k.name === baseline.name && k.hasBody);
  if (!b) return [new SpecError(`no __global__ kernel '${baseline.name}' in this file`, baseline.span)];
  if (b.name === kernel.name) return [new SpecError("a kernel cannot be its own baseline", baseline.span)];
  if (b.params.length !== kernel.params.length)
    return [
      new SpecError(
        `${b.name} takes ${b.params.length} arguments, ${kernel.name} ${kernel.params.length}: a baseline gets the same arguments`,
        baseline.span,
      ),
    ];
  if (baseline.templateArgs && !b.template)
    return [new SpecError(`${b.name} is not a template`, baseline.span)];
  if (!b.template) return [];
  const issues: SpecError[] = [];
  const given = baseline.templateArgs;
  if (given && given.length > b.template.length)
    issues.push(
      new SpecError(
        `${b.name} has ${b.template.length} template parameters, got ${given.length}`,
        baseline.span,
      ),
    );
  b.template.forEach((p, i) => {
    const has = given ? i < given.length : spec.template.some((t) => t.name === p.name);
    if (!has && !p.defaultValue)
      issues.push(
        new SpecError(
          `the baseline's template parameter '${p.name}' needs a value: baseline ${b.name}<...>`,
          baseline.span,
        ),
      );
  });
  return issues;
}

function checkLaunch(spec: BenchSpec): SpecError[] {
  const issues: SpecError[] = [];
  if (!spec.grid) issues.push(new SpecError("missing grid=(...): how many blocks to launch", spec.anchor));
  if (!spec.block) issues.push(new SpecError("missing block=(...): threads per block", spec.anchor));
  return issues;
}

/** Variables: each definition sees those above it; everything else sees them all. */
function checkVariables(spec: BenchSpec): SpecError[] {
  const issues: SpecError[] = [];
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
