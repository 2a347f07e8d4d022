// A small, safe arithmetic language for grid/block/smem/count/bytes/flops expressions over the sweep
// variables. Parsed into a tree (never `eval`); integers follow C (`/` truncates between integers).
import type { Span } from "../rules/rule";
import { joinSpans, lexLine, spanOf, SpecError, type Token, TokenStream } from "./specLexer";

export type Expr =
  | { kind: "num"; value: number; float: boolean; span: Span }
  | { kind: "var"; name: string; span: Span }
  | { kind: "neg"; operand: Expr; span: Span }
  | { kind: "bin"; op: "+" | "-" | "*" | "/" | "//" | "%" | "<<" | ">>"; left: Expr; right: Expr; span: Span }
  | { kind: "call"; fn: string; args: Expr[]; span: Span };

/** A value: `float` is false for integers, so `7/2` is 3 as in C, and `7.0/2` is 3.5. */
export interface Value {
  value: number;
  float: boolean;
}

const FUNCTIONS: Record<string, { arity: [number, number]; apply: (a: Value[]) => Value }> = {
  cdiv: { arity: [2, 2], apply: ([a, b]) => ({ value: Math.ceil(a!.value / b!.value), float: false }) },
  ceil_div: { arity: [2, 2], apply: ([a, b]) => ({ value: Math.ceil(a!.value / b!.value), float: false }) },
  min: {
    arity: [1, 16],
    apply: (a) => ({ value: Math.min(...a.map((v) => v.value)), float: a.some((v) => v.float) }),
  },
  max: {
    arity: [1, 16],
    apply: (a) => ({ value: Math.max(...a.map((v) => v.value)), float: a.some((v) => v.float) }),
  },
  pow: {
    arity: [2, 2],
    apply: ([a, b]) => ({ value: a!.value ** b!.value, float: a!.float || b!.float || b!.value < 0 }),
  },
  sqrt: { arity: [1, 1], apply: ([a]) => ({ value: Math.sqrt(a!.value), float: true }) },
  log2: { arity: [1, 1], apply: ([a]) => ({ value: Math.log2(a!.value), float: true }) },
};

export const FUNCTION_NAMES = Object.keys(FUNCTIONS);

/** Parses a number literal as written in a spec (`1024`, `1e-6`, `0x100`, `1_000_000`, `2.5f`). */
export function parseNumber(tok: Token): Value {
  const raw = tok.text.replace(/_/g, "").replace(/[uUlLfF]+$/, "");
  const hex = /^0[xX]/.test(raw);
  const value = hex ? Number.parseInt(raw, 16) : Number(raw);
  if (!Number.isFinite(value) || raw === "" || (!hex && !/^[0-9.]/.test(raw)))
    throw new SpecError(`'${tok.text}' is not a number`, tok.span);
  return { value, float: !hex && /[.eE]/.test(raw) };
}

/**
 * Parses one expression from the stream. It ends where the next token cannot continue it, so
 * `grid=(rows) block=(256)` reads as two items without separators.
 */
export function parseExpr(ts: TokenStream): Expr {
  return parseShift(ts);
}

type BinOp = Extract<Expr, { kind: "bin" }>["op"];

/**
 * How deep an expression may nest (parentheses, calls, signs, and the operators of one chain, which make a
 * left-deep tree): a spec is a line a person writes, and the parser and evaluator recurse once per level,
 * so a 100,000-deep expression is an error at its place, not a stack overflow.
 */
const MAX_NESTING = 256;
let nesting = 0;

/** Runs `parse` one level deeper; a SpecError at `at` past MAX_NESTING. */
function deeper<T>(at: Token, levels: number, parse: () => T): T {
  if (nesting + levels > MAX_NESTING)
    throw new SpecError(`the expression nests deeper than ${MAX_NESTING} levels`, at.span);
  nesting += levels;
  try {
    return parse();
  } finally {
    nesting -= levels;
  }
}

/** One precedence level: left-associative `operand (op operand)*` for the operators given. */
function parseBinary(ts: TokenStream, ops: readonly BinOp[], operand: (ts: TokenStream) => Expr): Expr {
  let left = operand(ts);
  for (let chain = 1; ops.some((op) => ts.isPunct(op)); chain++) {
    const op = deeper(ts.peek()!, chain, () => ts.next()!).text as BinOp;
    const right = operand(ts);
    left = { kind: "bin", op, left, right, span: joinSpans(left.span, right.span) };
  }
  return left;
}

// C precedence: shifts bind looser than + and -, so `1 << n+1` is `1 << (n+1)`.
function parseShift(ts: TokenStream): Expr {
  return parseBinary(ts, ["<<", ">>"], parseSum);
}

function parseSum(ts: TokenStream): Expr {
  return parseBinary(ts, ["+", "-"], parseProduct);
}

function parseProduct(ts: TokenStream): Expr {
  return parseBinary(ts, ["*", "/", "//", "%"], parseUnary);
}

function parseUnary(ts: TokenStream): Expr {
  if (ts.isPunct("-") || ts.isPunct("+")) {
    const sign = ts.next()!;
    const operand = deeper(sign, 1, () => parseUnary(ts));
    return sign.text === "-" ? { kind: "neg", operand, span: joinSpans(sign.span, operand.span) } : operand;
  }
  return parsePrimary(ts);
}

function parsePrimary(ts: TokenStream): Expr {
  const t = ts.peek();
  if (!t) throw new SpecError("expected an expression", ts.here());
  if (t.kind === "number") {
    ts.next();
    return { kind: "num", ...parseNumber(t), span: t.span };
  }
  if (t.kind === "ident") {
    ts.next();
    if (ts.isPunct("(")) {
      if (!(t.text in FUNCTIONS))
        throw new SpecError(`unknown function '${t.text}' (known: ${FUNCTION_NAMES.join(", ")})`, t.span);
      ts.next();
      const args: Expr[] = [];
      if (!ts.isPunct(")")) {
        args.push(deeper(t, 1, () => parseExpr(ts)));
        while (ts.isPunct(",")) {
          ts.next();
          args.push(deeper(t, 1, () => parseExpr(ts)));
        }
      }
      const close = ts.expectPunct(")", `to close ${t.text}(`);
      const [lo, hi] = FUNCTIONS[t.text]!.arity;
      const span = joinSpans(t.span, close.span);
      if (args.length < lo || args.length > hi)
        throw new SpecError(
          `${t.text}() takes ${lo === hi ? lo : `${lo} to ${hi}`} arguments, got ${args.length}`,
          span,
        );
      return { kind: "call", fn: t.text, args, span };
    }
    return { kind: "var", name: t.text, span: t.span };
  }
  if (t.kind === "punct" && t.text === "(") {
    ts.next();
    const inner = deeper(t, 1, () => parseExpr(ts));
    ts.expectPunct(")");
    return inner;
  }
  throw new SpecError(`expected an expression, found '${t.text}'`, t.span);
}

/** Every variable an expression reads, with where. */
export function variablesOf(
  e: Expr,
  out: { name: string; span: Span }[] = [],
): { name: string; span: Span }[] {
  switch (e.kind) {
    case "var":
      out.push({ name: e.name, span: e.span });
      break;
    case "neg":
      variablesOf(e.operand, out);
      break;
    case "bin":
      variablesOf(e.left, out);
      variablesOf(e.right, out);
      break;
    case "call":
      for (const a of e.args) variablesOf(a, out);
      break;
    case "num":
      break;
  }
  return out;
}

export type Env = ReadonlyMap<string, Value>;

/** Evaluates with C-like integer semantics; errors (unknown variable, division by zero) carry the span. */
export function evaluate(e: Expr, env: Env): Value {
  switch (e.kind) {
    case "num":
      return { value: e.value, float: e.float };
    case "var": {
      const v = env.get(e.name);
      if (!v) throw new SpecError(`unknown variable '${e.name}'`, e.span);
      return v;
    }
    case "neg": {
      const v = evaluate(e.operand, env);
      return { value: -v.value, float: v.float };
    }
    case "call": {
      const args = e.args.map((a) => evaluate(a, env));
      if ((e.fn === "cdiv" || e.fn === "ceil_div") && args[1]!.value === 0)
        throw new SpecError("division by zero", e.args[1]!.span);
      const r = FUNCTIONS[e.fn]!.apply(args);
      if (!Number.isFinite(r.value)) throw new SpecError(`${e.fn}() is not finite here`, e.span);
      return r;
    }
    case "bin": {
      const a = evaluate(e.left, env);
      const b = evaluate(e.right, env);
      const float = a.float || b.float;
      let value: number;
      switch (e.op) {
        case "+":
          value = a.value + b.value;
          break;
        case "-":
          value = a.value - b.value;
          break;
        case "*":
          value = a.value * b.value;
          break;
        case "<<":
        case ">>":
          if (
            float ||
            !Number.isInteger(a.value) ||
            !Number.isInteger(b.value) ||
            b.value < 0 ||
            b.value > 62
          )
            throw new SpecError(`'${e.op}' needs integers and a shift of 0 to 62`, e.span);
          value = e.op === "<<" ? a.value * 2 ** b.value : Math.floor(a.value / 2 ** b.value);
          break;
        case "/":
        case "//":
        case "%":
          if (b.value === 0) throw new SpecError("division by zero", e.right.span);
          if (e.op === "%") value = a.value % b.value;
          else if (e.op === "//") value = Math.floor(a.value / b.value);
          else value = float ? a.value / b.value : Math.trunc(a.value / b.value);
          break;
      }
      if (!Number.isFinite(value)) throw new SpecError("the value is not finite", e.span);
      return { value, float: float && e.op !== "//" };
    }
  }
}

/** Evaluates and insists on an integer within [min, max]: grid/block dims, element counts. */
export function evaluateInt(
  e: Expr,
  env: Env,
  what: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const { value } = evaluate(e, env);
  if (!Number.isInteger(value)) throw new SpecError(`${what} must be an integer, got ${value}`, e.span);
  if (value < min || value > max)
    throw new SpecError(
      `${what} is ${value}, ${value < min ? `below the minimum ${min}` : `above the maximum ${max}`}`,
      e.span,
    );
  return value;
}

/** Parses a standalone expression (positions on line 0): tests and CLI overrides. */
export function parseExpressionString(text: string): Expr {
  const ts = new TokenStream(lexLine(text, 0, 0), spanOf(0, text.length, text.length));
  const e = parseExpr(ts);
  const rest = ts.peek();
  if (rest) throw new SpecError(`unexpected '${rest.text}' after the expression`, rest.span);
  return e;
}
