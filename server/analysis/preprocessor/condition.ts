// The value of a preprocessor condition (`#if`/`#elif`, or a C++ constant condition such as
// `__CUDA_ARCH__ >= 800`), in three-valued logic: a number, or undefined when it depends on something
// unknown. Object-like macros are expanded as the preprocessor does (token by token, to a small depth);
// integer literals, defined(), !, ~, unary -, arithmetic, shifts, comparisons, &, ^, |, &&, || and ?: are
// evaluated. It cannot see what a macro is: the caller's `lookup` says (defined or not, and the body, or
// only a lower bound: the toolkit's version is at least what the targets need). A bound settles the
// comparisons with a number it decides (`CUDA_VERSION >= 9000` when it is at least 10000), is true when
// above 0, and stays a bound through adding or subtracting a number and multiplying or dividing by a
// positive one; anything else on it is unknown. Function-like macro calls, character literals and anything
// it cannot parse are unknown.
import { binary as arithmetic, parseIntLiteral } from "../constants/constEval";

type Tri = boolean | undefined;

/** What a condition may know of a macro: whether it is defined, and its body when object-like. */
export type MacroInfo =
  | { defined: false }
  | { defined: true; body?: string; functionLike?: boolean; atLeast?: number }
  | { defined: undefined };

export type MacroLookup = (name: string) => MacroInfo;

/** How many levels of macro bodies are expanded inside one another. */
const MAX_EXPANSION_DEPTH = 8;

/** A token: a number, an identifier, an operator, a value known only to be at least `v`, or UNKNOWN. */
type Tok =
  | { k: "num"; v: number }
  | { k: "id"; s: string }
  | { k: "op"; s: string }
  | { k: "min"; v: number }
  | { k: "unknown" };

const TOKEN =
  /\s*(?:(\d[\w.']*)|([A-Za-z_]\w*)|('(?:\\.|[^'\\])*')|(&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%<>!~&|^?:(),]))/y;

/** The tokens of `text`; undefined when something is not a condition's token (a string, `[`, `.`). */
function tokenize(text: string): Tok[] | undefined {
  const out: Tok[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    at = TOKEN.lastIndex;
    if (m[1] !== undefined) {
      const v = parseIntLiteral(m[1]);
      out.push(v === undefined ? { k: "unknown" } : { k: "num", v });
    } else if (m[2] !== undefined) out.push({ k: "id", s: m[2] });
    else if (m[3] !== undefined) out.push({ k: "unknown" });
    else out.push({ k: "op", s: m[4]! });
  }
  return text.slice(at).trim() === "" ? out : undefined;
}

/** Where the parenthesized argument list opening at `open` ends (the index past its `)`), or -1. */
function pastParens(toks: readonly Tok[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.k !== "op") continue;
    if (t.s === "(") depth++;
    else if (t.s === ")" && --depth === 0) return i + 1;
  }
  return -1;
}

const isOp = (t: Tok | undefined, s: string): boolean => t?.k === "op" && t.s === s;

/**
 * The tokens with every macro replaced: a defined object-like macro by its body's tokens (expanded in
 * turn, never inside itself), an undefined one by 0, an unknown one or any call `NAME(…)` by UNKNOWN.
 * The operand of `defined` is kept. Undefined when a call's parentheses do not close.
 */
function expand(
  toks: readonly Tok[],
  lookup: MacroLookup,
  hidden: ReadonlySet<string>,
  depth: number,
): Tok[] | undefined {
  const out: Tok[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.k !== "id") out.push(t);
    else if (t.s === "defined") {
      // defined NAME or defined ( NAME )
      const take = isOp(toks[i + 1], "(") ? 4 : 2;
      out.push(...toks.slice(i, i + take));
      i += take - 1;
    } else if (t.s === "true" || t.s === "false") out.push({ k: "num", v: t.s === "true" ? 1 : 0 });
    else if (isOp(toks[i + 1], "(")) {
      // a function-like macro (or a call of something else): its value is not known here
      const end = pastParens(toks, i + 1);
      if (end < 0) return undefined;
      out.push({ k: "unknown" });
      i = end - 1;
    } else for (const x of expandName(t.s, lookup, hidden, depth)) out.push(x);
  }
  return out;
}

/** What one object-like name stands for: 0 when undefined, its expanded body, or UNKNOWN. */
function expandName(name: string, lookup: MacroLookup, hidden: ReadonlySet<string>, depth: number): Tok[] {
  const info = hidden.has(name) ? ({ defined: undefined } as const) : lookup(name);
  if (info.defined === false) return [{ k: "num", v: 0 }];
  if (info.defined && info.atLeast !== undefined) return [{ k: "min", v: info.atLeast }];
  if (info.defined === undefined || info.functionLike || info.body === undefined) return [{ k: "unknown" }];
  const body = depth < MAX_EXPANSION_DEPTH ? tokenize(info.body) : undefined;
  if (!body || body.length === 0) return [{ k: "unknown" }];
  return expand(body, lookup, new Set([...hidden, name]), depth + 1) ?? [{ k: "unknown" }];
}

/** Binary operators by precedence, loosest first (?: is handled above them). */
const LEVELS: readonly (readonly string[])[] = [
  ["||"],
  ["&&"],
  ["|"],
  ["^"],
  ["&"],
  ["==", "!="],
  ["<", "<=", ">", ">="],
  ["<<", ">>"],
  ["+", "-"],
  ["*", "/", "%"],
];

/** A value: a number, one known only to be at least `atLeast`, or undefined (unknown). */
type Val = number | { atLeast: number } | undefined;

/** A value as a truth: a bound above 0 is nonzero; otherwise as a number, or unknown. */
function truth(v: Val): number | undefined {
  if (typeof v !== "object") return v;
  return v.atLeast > 0 ? 1 : undefined;
}

/** `op` with a bound on one side as `a op b` (the bound first when `flipped` is false). */
function onBound(op: string, lo: number, n: number, flipped: boolean): Val {
  if (flipped) {
    const mirror: Readonly<Record<string, string>> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=" };
    if (op in mirror) op = mirror[op]!;
    else if (op === "-" || op === "/" || op === "%" || op === "<<" || op === ">>") return undefined;
  }
  switch (op) {
    case ">=":
      return lo >= n ? 1 : undefined;
    case ">":
      return lo > n ? 1 : undefined;
    case "<":
      return lo >= n ? 0 : undefined;
    case "<=":
      return lo > n ? 0 : undefined;
    case "==":
      return lo > n ? 0 : undefined;
    case "!=":
      return lo > n ? 1 : undefined;
    case "+":
      return { atLeast: lo + n };
    case "-":
      return { atLeast: lo - n };
    case "*":
      return n > 0 ? { atLeast: lo * n } : undefined;
    case "/":
      return n > 0 ? { atLeast: Math.trunc(lo / n) } : undefined;
    default:
      return undefined;
  }
}

const COMPARE: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
};

function binary(op: string, va: Val, vb: Val): Val {
  if (op === "&&" || op === "||") {
    const [a, b] = [truth(va), truth(vb)];
    if (op === "&&") return a === 0 || b === 0 ? 0 : a === undefined || b === undefined ? undefined : 1;
    return (a ?? 0) !== 0 || (b ?? 0) !== 0 ? 1 : a === undefined || b === undefined ? undefined : 0;
  }
  if (va === undefined || vb === undefined) return undefined;
  if (typeof va === "object" || typeof vb === "object") {
    if (typeof vb === "number") return onBound(op, (va as { atLeast: number }).atLeast, vb, false);
    return typeof va === "number" ? onBound(op, vb.atLeast, va, true) : undefined;
  }
  const [a, b] = [va, vb];
  const compare = COMPARE[op];
  if (compare) return compare(a, b) ? 1 : 0;
  return op === "^" ? a ^ b : arithmetic(op, a, b);
}

/** A recursive-descent reader over expanded tokens; `fail` is set on a syntax it does not know. */
class Reader {
  private i = 0;
  fail = false;
  constructor(
    private readonly toks: readonly Tok[],
    private readonly lookup: MacroLookup,
  ) {}

  done(): boolean {
    return this.i >= this.toks.length;
  }

  private isOp(s: string): boolean {
    return isOp(this.toks[this.i], s);
  }

  conditional(): Val {
    const c = this.level(0);
    if (!this.isOp("?")) return c;
    this.i++;
    const a = this.conditional();
    if (!this.isOp(":")) this.fail = true;
    this.i++;
    const b = this.conditional();
    const t = truth(c);
    if (t !== undefined) return t !== 0 ? a : b;
    return typeof a === "number" && a === b ? a : undefined;
  }

  private level(n: number): Val {
    if (n === LEVELS.length) return this.unary();
    let a = this.level(n + 1);
    for (let t = this.toks[this.i]; t?.k === "op" && LEVELS[n]!.includes(t.s); t = this.toks[this.i]) {
      this.i++;
      a = binary(t.s, a, this.level(n + 1));
    }
    return a;
  }

  private unary(): Val {
    const t = this.toks[this.i++];
    if (!t) return this.error();
    if (t.k === "num") return t.v;
    if (t.k === "min") return { atLeast: t.v };
    if (t.k === "unknown") return undefined;
    if (t.k === "id") return t.s === "defined" ? this.defined() : this.error();
    if (t.s === "(") {
      const v = this.conditional();
      if (!this.isOp(")")) return this.error();
      this.i++;
      return v;
    }
    const operand = ["!", "-", "+", "~"].includes(t.s) ? this.unary() : this.error();
    if (t.s === "+" || operand === undefined) return operand;
    if (t.s === "!") return truth(operand) === undefined ? undefined : truth(operand) ? 0 : 1;
    if (typeof operand === "object") return undefined;
    return t.s === "-" ? -operand : ~operand;
  }

  private defined(): Val {
    const paren = this.isOp("(");
    if (paren) this.i++;
    const t = this.toks[this.i++];
    if (t?.k !== "id") return this.error();
    if (paren && !this.isOp(")")) return this.error();
    if (paren) this.i++;
    const d = this.lookup(t.s).defined;
    return d === undefined ? undefined : d ? 1 : 0;
  }

  private error(): undefined {
    this.fail = true;
    return undefined;
  }
}

/** The value of the condition `text` (comments already removed): a number, a lower bound, or unknown. */
function value(text: string, lookup: MacroLookup): Val {
  const toks = tokenize(text);
  const expanded = toks && toks.length > 0 ? expand(toks, lookup, new Set(), 0) : undefined;
  if (!expanded) return undefined;
  const r = new Reader(expanded, lookup);
  const v = r.conditional();
  return r.fail || !r.done() ? undefined : v;
}

/** The value of the condition `text` (comments already removed), or undefined when it is not known. */
export function evaluate(text: string, lookup: MacroLookup): number | undefined {
  const v = value(text, lookup);
  return typeof v === "number" ? v : undefined;
}

/** Whether the condition `text` holds: true, false, or undefined when unknown. */
export function holds(text: string, lookup: MacroLookup): Tri {
  const v = truth(value(text, lookup));
  return v === undefined ? undefined : v !== 0;
}
