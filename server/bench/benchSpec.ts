/**
 * Benchmark specs: `// @bench` comment lines directly above a `__global__` kernel.
 *
 * One item kind per line; lines may come in any order:
 *
 *   // @bench rows=[1024, 8192] cols=[2048, 4096]     sweep variables (the cartesian product is run)
 *   // @bench n = rows*cols                           derived (or constant) variables, in order
 *   // @bench grid=(rows) block=(256) smem=0          launch shape: 1-3 dims each; smem = dynamic bytes
 *   // @bench arg out: bf16[rows*cols] output(atol=1e-2, rtol=1e-2)
 *   // @bench arg in: bf16[rows*cols] randn(seed=1)   buffer: dtype[element count] init
 *   // @bench arg eps: f32 = 1e-6                     scalar: dtype = expression
 *   // @bench template T=__nv_bfloat16 VEC=8          template arguments, by parameter name
 *   // @bench bytes = 2*rows*cols*2 + cols*2          bytes moved per launch (for GB/s, % of peak)
 *   // @bench flops = 4*rows*cols                     FLOPs per launch (for TFLOP/s)
 *   // @bench baseline rmsnorm_scalar                 a kernel in the same file, same arguments
 *   // @bench baseline rmsnorm_kernel<__nv_bfloat16, 256>   a template baseline, its arguments in C++ order
 *   // @bench baseline scale_scalar grid=(cdiv(n, 256)) block=(256)   its own launch shape
 *   // @bench timing rsd=0.5 min_samples=10 budget_ms=2000 warmup=3 flush_l2=true
 *
 * dtypes: f32 f16 bf16 f64 i32 i64 u32 u64 u8 i8 (aliases: float half double int ...).
 * inits: randn(seed=S), uniform(LOW, HIGH, seed=S), zeros, ones, arange, constant(V). Default: zeros.
 * `output` marks a buffer the kernel writes; it is poisoned before the run and compared against the
 * baseline's with the tolerance given (default per dtype).
 * A template baseline without `<...>` takes the `template` values of the same parameter names.
 * Expressions: + - * / // % << >> ( ), cdiv(a,b), min, max, pow, sqrt, log2; `/` truncates between integers
 * like C, `//` floors. Every expression may use the sweep and derived variables defined above it.
 */
import type { DType, Init, TimingOptions } from "../../native/runner/protocol";
import type { Span } from "../rules/rule";
import { type Expr, evaluate, FUNCTION_NAMES, parseExpr, variablesOf } from "./expressions";
import type { KernelInfo, SpecLine } from "./kernelScan";
import { joinSpans, lexLine, spanOf, SpecError, type Token, TokenStream } from "./specLexer";

export interface VarDef {
  name: string;
  span: Span;
  /** A sweep: one run per value (cartesian product with the other sweeps). */
  values?: Expr[];
  /** A derived or constant variable. */
  expr?: Expr;
}

export interface Dim3Spec {
  dims: Expr[];
  span: Span;
}

export interface InitSpec {
  init: Init;
  span: Span;
}

export interface ArgSpec {
  name: string;
  nameSpan: Span;
  dtype: DType;
  dtypeSpan: Span;
  /** The whole line after `@bench`. */
  span: Span;
  kind: "buffer" | "scalar";
  count?: Expr;
  init?: InitSpec;
  output?: { atol: number; rtol: number; span: Span };
  value?: Expr;
}

export interface TemplateArgSpec {
  name: string;
  value: string;
  span: Span;
}

export interface BenchSpec {
  /** The kernel the spec sits above. */
  kernel: string;
  /** Span of the first `@bench` marker: where "missing X" errors point. */
  anchor: Span;
  vars: VarDef[];
  grid?: Dim3Spec;
  block?: Dim3Spec;
  smem?: Expr;
  args: ArgSpec[];
  template: TemplateArgSpec[];
  bytes?: Expr;
  flops?: Expr;
  /** `templateArgs`: positional C++ template arguments written as `baseline name<a, b>`. */
  /** grid/block/smem: the baseline's own launch shape (default: the kernel's). */
  baseline?: {
    name: string;
    span: Span;
    templateArgs?: string[];
    grid?: Dim3Spec;
    block?: Dim3Spec;
    smem?: Expr;
  };
  timing: Partial<TimingOptions>;
}

export interface ParsedSpec {
  spec: BenchSpec;
  errors: SpecError[];
}

const DTYPE_ALIASES: Record<string, DType> = {
  f32: "f32",
  float: "f32",
  float32: "f32",
  f16: "f16",
  half: "f16",
  float16: "f16",
  fp16: "f16",
  bf16: "bf16",
  bfloat16: "bf16",
  f64: "f64",
  double: "f64",
  float64: "f64",
  i32: "i32",
  int: "i32",
  int32: "i32",
  i64: "i64",
  int64: "i64",
  u32: "u32",
  uint32: "u32",
  u64: "u64",
  uint64: "u64",
  u8: "u8",
  uint8: "u8",
  i8: "i8",
  int8: "i8",
};

export const DTYPES: DType[] = ["f32", "f16", "bf16", "f64", "i32", "i64", "u32", "u64", "u8", "i8"];

/** Default output tolerances: roughly a few ulps at the dtype's precision after a reduction. */
export function defaultTolerance(dtype: DType): { atol: number; rtol: number } {
  switch (dtype) {
    case "bf16":
      return { atol: 1e-2, rtol: 1.6e-2 };
    case "f16":
      return { atol: 1e-3, rtol: 1e-3 };
    case "f32":
      return { atol: 1e-5, rtol: 1.3e-6 };
    case "f64":
      return { atol: 1e-7, rtol: 1e-7 };
    default:
      return { atol: 0, rtol: 0 };
  }
}

export const RESERVED = new Set([
  "grid",
  "block",
  "smem",
  "bytes",
  "flops",
  "arg",
  "template",
  "baseline",
  "timing",
]);

const TIMING_KEYS: Record<string, { key: keyof TimingOptions; kind: "int" | "number" | "bool" }> = {
  warmup: { key: "warmupRuns", kind: "int" },
  min_samples: { key: "minSamples", kind: "int" },
  max_samples: { key: "maxSamples", kind: "int" },
  rsd: { key: "targetRsdPct", kind: "number" },
  budget_ms: { key: "budgetMs", kind: "number" },
  flush_l2: { key: "flushL2", kind: "bool" },
};

const NO_ENV = new Map();

/** A constant expression (init parameters, tolerances): numbers and arithmetic only. */
function constant(ts: TokenStream): { value: number; span: Span } {
  const e = parseExpr(ts);
  const vars = variablesOf(e);
  if (vars.length > 0) throw new SpecError(`'${vars[0]!.name}': a constant is needed here`, vars[0]!.span);
  return { value: evaluate(e, NO_ENV).value, span: e.span };
}

/** `(a, b, key=c)` after a keyword: positional and named constants. */
function callArgs(
  ts: TokenStream,
  allowed: string[],
): { positional: number[]; named: Map<string, number>; end: Span } {
  const positional: number[] = [];
  const named = new Map<string, number>();
  ts.expectPunct("(");
  while (!ts.isPunct(")")) {
    if (ts.isIdent() && ts.isPunct("=", 1)) {
      const key = ts.next()!;
      if (!allowed.includes(key.text))
        throw new SpecError(`unknown parameter '${key.text}' (expected ${allowed.join(", ")})`, key.span);
      ts.next();
      if (named.has(key.text)) throw new SpecError(`'${key.text}' is given twice`, key.span);
      named.set(key.text, constant(ts).value);
    } else {
      positional.push(constant(ts).value);
    }
    if (!ts.isPunct(",")) break;
    ts.next();
  }
  const end = ts.expectPunct(")").span;
  return { positional, named, end };
}

function parseDType(tok: Token): DType {
  const d = DTYPE_ALIASES[tok.text];
  if (!d) throw new SpecError(`unknown dtype '${tok.text}' (expected one of ${DTYPES.join(", ")})`, tok.span);
  return d;
}

const INIT_KINDS = ["randn", "uniform", "zeros", "ones", "arange", "constant"];

function parseInit(ts: TokenStream, tok: Token): InitSpec {
  const seed = (named: Map<string, number>) => (named.has("seed") ? { seed: named.get("seed")! } : {});
  switch (tok.text) {
    case "zeros":
    case "ones":
    case "arange":
      return { init: { kind: tok.text }, span: tok.span };
    case "randn": {
      if (!ts.isPunct("(")) return { init: { kind: "randn" }, span: tok.span };
      const a = callArgs(ts, ["seed"]);
      if (a.positional.length > 0) throw new SpecError("randn takes only seed=N", joinSpans(tok.span, a.end));
      return { init: { kind: "randn", ...seed(a.named) }, span: joinSpans(tok.span, a.end) };
    }
    case "uniform": {
      if (!ts.isPunct("(")) return { init: { kind: "uniform", low: -1, high: 1 }, span: tok.span };
      const a = callArgs(ts, ["low", "high", "seed"]);
      const span = joinSpans(tok.span, a.end);
      const low = a.named.get("low") ?? a.positional[0] ?? -1;
      const high = a.named.get("high") ?? a.positional[1] ?? 1;
      if (a.positional.length > 2) throw new SpecError("uniform takes (low, high, seed=N)", span);
      if (!(low < high)) throw new SpecError(`uniform needs low < high, got ${low} and ${high}`, span);
      return { init: { kind: "uniform", low, high, ...seed(a.named) }, span };
    }
    case "constant": {
      const a = callArgs(ts, ["value"]);
      const span = joinSpans(tok.span, a.end);
      const value = a.named.get("value") ?? a.positional[0];
      if (value === undefined || a.positional.length > 1)
        throw new SpecError("constant takes one value", span);
      return { init: { kind: "constant", value }, span };
    }
    default:
      throw new SpecError(
        `unknown init '${tok.text}' (expected ${INIT_KINDS.join(", ")}, or output)`,
        tok.span,
      );
  }
}

function parseArg(ts: TokenStream, spec: BenchSpec, lineSpan: Span): void {
  const name = ts.expectIdent("the kernel parameter's name after 'arg'");
  ts.expectPunct(":", "after the argument name");
  const dtypeTok = ts.expectIdent("a dtype");
  const dtype = parseDType(dtypeTok);
  if (spec.args.some((a) => a.name === name.text))
    throw new SpecError(`argument '${name.text}' is described twice`, name.span);
  const base = { name: name.text, nameSpan: name.span, dtype, dtypeSpan: dtypeTok.span, span: lineSpan };
  if (ts.isPunct("=")) {
    ts.next();
    spec.args.push({ ...base, kind: "scalar", value: parseExpr(ts) });
    return;
  }
  if (!ts.isPunct("["))
    throw new SpecError("expected '[count]' for a buffer or '= value' for a scalar", ts.here());
  ts.next();
  const count = parseExpr(ts);
  ts.expectPunct("]", "after the element count");
  const arg: ArgSpec = { ...base, kind: "buffer", count };
  while (!ts.atEnd()) {
    const t = ts.expectIdent("an init (randn, uniform, zeros, ones, arange, constant) or output");
    if (t.text === "output") {
      if (arg.output) throw new SpecError("'output' is given twice", t.span);
      let tol = defaultTolerance(dtype);
      let span = t.span;
      if (ts.isPunct("(")) {
        const a = callArgs(ts, ["atol", "rtol"]);
        if (a.positional.length > 0)
          throw new SpecError("output takes atol=X, rtol=Y", joinSpans(t.span, a.end));
        tol = { atol: a.named.get("atol") ?? tol.atol, rtol: a.named.get("rtol") ?? tol.rtol };
        span = joinSpans(t.span, a.end);
        if (tol.atol < 0 || tol.rtol < 0) throw new SpecError("tolerances cannot be negative", span);
      }
      arg.output = { ...tol, span };
    } else {
      if (arg.init) throw new SpecError(`a second init '${t.text}' (already ${arg.init.init.kind})`, t.span);
      arg.init = parseInit(ts, t);
    }
  }
  spec.args.push(arg);
}

function parseTemplate(ts: TokenStream, spec: BenchSpec): void {
  if (ts.atEnd()) throw new SpecError("expected NAME=VALUE after 'template'", ts.here());
  while (!ts.atEnd()) {
    const name = ts.expectIdent("a template parameter name");
    ts.expectPunct("=", `after '${name.text}'`);
    // The value is C++ text up to the next `NAME=` (so `unsigned int` and `-3` work).
    const parts: Token[] = [];
    while (!ts.atEnd() && !(ts.isIdent() && ts.isPunct("=", 1))) parts.push(ts.next()!);
    if (parts.length === 0)
      throw new SpecError(`expected a value for template parameter '${name.text}'`, ts.here());
    const value = joinTokens(parts);
    if (spec.template.some((t) => t.name === name.text))
      throw new SpecError(`template parameter '${name.text}' is given twice`, name.span);
    spec.template.push({ name: name.text, value, span: joinSpans(name.span, parts[parts.length - 1]!.span) });
  }
}

function parseTiming(ts: TokenStream, spec: BenchSpec): void {
  if (ts.atEnd())
    throw new SpecError(
      `expected KEY=VALUE after 'timing' (${Object.keys(TIMING_KEYS).join(", ")})`,
      ts.here(),
    );
  while (!ts.atEnd()) {
    const key = ts.expectIdent("a timing key");
    const def = TIMING_KEYS[key.text];
    if (!def)
      throw new SpecError(
        `unknown timing key '${key.text}' (expected ${Object.keys(TIMING_KEYS).join(", ")})`,
        key.span,
      );
    ts.expectPunct("=", `after '${key.text}'`);
    if (def.kind === "bool") {
      const v = ts.expectIdent("true or false");
      if (v.text !== "true" && v.text !== "false") throw new SpecError("expected true or false", v.span);
      (spec.timing as Record<string, unknown>)[def.key] = v.text === "true";
      continue;
    }
    const c = constant(ts);
    if (c.value < 0 || (def.kind === "int" && !Number.isInteger(c.value)))
      throw new SpecError(
        `${key.text} must be a ${def.kind === "int" ? "non-negative integer" : "non-negative number"}`,
        c.span,
      );
    (spec.timing as Record<string, unknown>)[def.key] = c.value;
  }
}

/** `<a, b<c>, d>` as C++ text per top-level argument. */
function angleArgs(ts: TokenStream): string[] {
  const open = ts.next()!;
  const args: string[] = [];
  let cur: Token[] = [];
  let depth = 1;
  const flush = () => {
    if (cur.length === 0) throw new SpecError("empty template argument", ts.here());
    args.push(joinTokens(cur));
    cur = [];
  };
  for (;;) {
    const t = ts.next();
    if (!t) throw new SpecError("expected '>' to close the template arguments", open.span);
    if (t.kind === "punct" && t.text === "<") depth++;
    if (t.kind === "punct" && t.text === "<<") depth += 2;
    if (t.kind === "punct" && t.text === ">>") {
      // `k<a<b>>`: the outer close; any other `>>` stays C++ text.
      if (depth === 2) {
        cur.push({ ...t, text: ">" });
        break;
      }
      depth -= 2;
    }
    if (t.kind === "punct" && t.text === ">" && --depth === 0) break;
    if (t.kind === "punct" && t.text === "," && depth === 1) flush();
    else cur.push(t);
  }
  flush();
  return args;
}

/** C++ text from tokens: a space between two words (`unsigned int`), none around punctuation. */
function joinTokens(parts: Token[]): string {
  let value = "";
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const prev = parts[i - 1];
    value += (!prev || prev.kind === "punct" || p.kind === "punct" ? "" : " ") + p.text;
  }
  return value;
}

/** `(a, b, c)` or a single expression. */
function parseDim3(ts: TokenStream, key: Token): Dim3Spec {
  // A parenthesised list with a top-level comma is a tuple; `(rows)` or `(n+1)/2` is an expression.
  let isTuple = false;
  if (ts.isPunct("(")) {
    let depth = 0;
    for (let k = 0; ts.peek(k); k++) {
      const t = ts.peek(k)!;
      if (t.kind !== "punct") continue;
      if (t.text === "(") depth++;
      else if (t.text === ")" && --depth === 0) break;
      else if (t.text === "," && depth === 1) {
        isTuple = true;
        break;
      }
    }
  }
  if (!isTuple) {
    const e = parseExpr(ts);
    return { dims: [e], span: e.span };
  }
  const open = ts.next()!;
  const dims = [parseExpr(ts)];
  while (ts.isPunct(",")) {
    ts.next();
    dims.push(parseExpr(ts));
  }
  const close = ts.expectPunct(")", `to close ${key.text}`);
  const span = joinSpans(open.span, close.span);
  if (dims.length > 3) throw new SpecError(`${key.text} has at most 3 dimensions (x, y, z)`, span);
  return { dims, span };
}

function parseAssignments(ts: TokenStream, spec: BenchSpec): void {
  while (!ts.atEnd()) {
    const key = ts.expectIdent("NAME=VALUE");
    ts.expectPunct("=", `after '${key.text}'`);
    const seen = (what: unknown) => {
      if (what !== undefined) throw new SpecError(`'${key.text}' is given twice`, key.span);
    };
    switch (key.text) {
      case "grid":
        seen(spec.grid);
        spec.grid = parseDim3(ts, key);
        break;
      case "block":
        seen(spec.block);
        spec.block = parseDim3(ts, key);
        break;
      case "smem":
        seen(spec.smem);
        spec.smem = parseExpr(ts);
        break;
      case "bytes":
        seen(spec.bytes);
        spec.bytes = parseExpr(ts);
        break;
      case "flops":
        seen(spec.flops);
        spec.flops = parseExpr(ts);
        break;
      default: {
        if (RESERVED.has(key.text))
          throw new SpecError(`'${key.text}' is a keyword, not a variable`, key.span);
        if (FUNCTION_NAMES.includes(key.text))
          throw new SpecError(`'${key.text}' is a function name`, key.span);
        if (spec.vars.some((v) => v.name === key.text))
          throw new SpecError(`variable '${key.text}' is defined twice`, key.span);
        if (ts.isPunct("[")) {
          const open = ts.next()!;
          const values: Expr[] = [];
          while (!ts.isPunct("]")) {
            values.push(parseExpr(ts));
            if (!ts.isPunct(",")) break;
            ts.next();
          }
          const close = ts.expectPunct("]", `to close the list of '${key.text}'`);
          if (values.length === 0)
            throw new SpecError(`the sweep '${key.text}' is empty`, joinSpans(open.span, close.span));
          spec.vars.push({ name: key.text, span: key.span, values });
        } else {
          spec.vars.push({ name: key.text, span: key.span, expr: parseExpr(ts) });
        }
      }
    }
  }
}

function parseLine(line: SpecLine, spec: BenchSpec): void {
  const end = spanOf(line.line, line.column + line.text.length, line.column + line.text.length);
  const tokens = lexLine(line.text, line.line, line.column);
  if (tokens.length === 0) throw new SpecError("empty @bench line", line.markerSpan);
  const ts = new TokenStream(tokens, end);
  const lineSpan = joinSpans(tokens[0]!.span, tokens[tokens.length - 1]!.span);
  const first = tokens[0]!;
  const keyword = first.kind === "ident" && !ts.isPunct("=", 1) ? first.text : "";
  switch (keyword) {
    case "arg":
      ts.next();
      parseArg(ts, spec, lineSpan);
      break;
    case "template":
      ts.next();
      parseTemplate(ts, spec);
      break;
    case "baseline": {
      ts.next();
      const name = ts.expectIdent("the baseline kernel's name");
      if (spec.baseline) throw new SpecError("'baseline' is given twice", name.span);
      spec.baseline = {
        name: name.text,
        span: name.span,
        ...(ts.isPunct("<") ? { templateArgs: angleArgs(ts) } : {}),
      };
      // Optional launch shape of its own: a scalar baseline often needs more blocks than a vector kernel.
      while (!ts.atEnd()) {
        const key = ts.expectIdent("grid=, block= or smem= for the baseline");
        ts.expectPunct("=", `after '${key.text}'`);
        const b = spec.baseline;
        if (key.text !== "grid" && key.text !== "block" && key.text !== "smem")
          throw new SpecError(`a baseline takes grid=, block= and smem=, not '${key.text}'`, key.span);
        if (b[key.text]) throw new SpecError(`'${key.text}' is given twice`, key.span);
        if (key.text === "smem") b.smem = parseExpr(ts);
        else b[key.text] = parseDim3(ts, key);
      }
      break;
    }
    case "timing":
      ts.next();
      parseTiming(ts, spec);
      break;
    default:
      if (first.kind === "ident" && !ts.isPunct("=", 1))
        throw new SpecError(
          `unknown @bench item '${first.text}' (expected arg, template, baseline, timing, or NAME=VALUE)`,
          first.span,
        );
      parseAssignments(ts, spec);
  }
  const rest = ts.peek();
  if (rest) throw new SpecError(`unexpected '${rest.text}'`, rest.span);
}

/** Parses the spec above `kernel`; every line is parsed even after an error, so all errors show. */
export function parseSpec(kernel: KernelInfo): ParsedSpec | undefined {
  if (kernel.specLines.length === 0) return undefined;
  const spec: BenchSpec = {
    kernel: kernel.name,
    anchor: kernel.specLines[0]!.markerSpan,
    vars: [],
    args: [],
    template: [],
    timing: {},
  };
  const errors: SpecError[] = [];
  for (const line of kernel.specLines) {
    try {
      parseLine(line, spec);
    } catch (e) {
      if (e instanceof SpecError) errors.push(e);
      else throw e;
    }
  }
  return { spec, errors };
}
