// `@bench arg` lines: a kernel parameter described as a buffer (dtype[count], init, output tolerance)
// or a scalar (dtype = value), plus the constant-only calls (`randn(seed=1)`, `output(atol=...)`) they use.
import type { DType } from "../../native/runner/protocol";
import type { Span } from "../rules/rule";
import { evaluate, parseExpr, variablesOf } from "./expressions";
import { joinSpans, SpecError, type Token, TokenStream } from "./specLexer";
import type { ArgSpec, BenchSpec, InitSpec } from "./specTypes";

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

const NO_ENV = new Map();

/** A constant expression (init parameters, tolerances): numbers and arithmetic only. */
export function constant(ts: TokenStream): { value: number; span: Span } {
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

export function parseArg(ts: TokenStream, spec: BenchSpec, lineSpan: Span): void {
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
