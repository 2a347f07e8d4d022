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
 *   // @bench torch F.rms_norm(inp.view(rows, cols), (cols,), weight, eps)   a PyTorch baseline (Python)
 *   // @bench torch.compile                          also time torch.compile of it
 *
 * dtypes: f32 f16 bf16 f64 i32 i64 u32 u64 u8 i8 (aliases: float half double int ...).
 * inits: randn(seed=S), uniform(LOW, HIGH, seed=S), zeros, ones, arange, constant(V). Default: zeros.
 * `output` marks a buffer the kernel writes; it is poisoned before the run and compared against the
 * baseline's with the tolerance given (default per dtype).
 * A template baseline without `<...>` takes the `template` values of the same parameter names.
 * Expressions: + - * / // % << >> ( ), cdiv(a,b), min, max, pow, sqrt, log2; `/` truncates between integers
 * like C, `//` floors. Every expression may use the sweep and derived variables defined above it.
 */
import type { TimingOptions } from "../../native/runner/protocol";
import { type Expr, FUNCTION_NAMES, parseExpr } from "./expressions";
import type { KernelInfo, SpecLine } from "./kernelScan";
import { constant, parseArg } from "./specArgs";
import { parseTorchLine } from "./specTorch";
import { joinSpans, lexLine, spanOf, SpecError, type Token, TokenStream } from "./specLexer";
import type { BenchSpec, Dim3Spec, ParsedSpec } from "./specTypes";

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
  if (parseTorchLine(line, spec)) return;
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
          `unknown @bench item '${first.text}' (expected arg, template, baseline, timing, torch, or NAME=VALUE)`,
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
  if (spec.torchCompile && !spec.torch)
    errors.push(new SpecError("'torch.compile' needs a 'torch EXPR' line to compile", spec.torchCompile));
  return { spec, errors };
}
