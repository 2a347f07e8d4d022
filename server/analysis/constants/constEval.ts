// Integer constant evaluation at lint time: literals, arithmetic, sizeof, casts, and names bound to
// `#define`s, `const`/`constexpr` values, `dim3` declarations and locals assigned exactly once.
import type { Node } from "web-tree-sitter";
import {
  bindingAt,
  bindingText,
  describeSite,
  sitesIn,
  sitesOfNames,
  type Binding,
  type BindingSite,
} from "./constSites";
import type { FileIndex } from "../source/fileIndex";
import { namedChildren, unparen } from "../source/nodes";

/** Sizes of the scalar types kernels use, in bytes. */
export const TYPE_SIZES: Readonly<Record<string, number>> = {
  char: 1,
  "unsigned char": 1,
  int8_t: 1,
  uint8_t: 1,
  bool: 1,
  short: 2,
  int16_t: 2,
  uint16_t: 2,
  __half: 2,
  half: 2,
  __nv_bfloat16: 2,
  nv_bfloat16: 2,
  int: 4,
  unsigned: 4,
  "unsigned int": 4,
  int32_t: 4,
  uint32_t: 4,
  float: 4,
  __half2: 4,
  half2: 4,
  __nv_bfloat162: 4,
  nv_bfloat162: 4,
  long: 8,
  "long long": 8,
  int64_t: 8,
  uint64_t: 8,
  size_t: 8,
  double: 8,
  float2: 8,
  int2: 8,
  float4: 16,
  int4: 16,
  uint4: 16,
  double2: 16,
};

export function typeSize(typeText: string): number | undefined {
  const t = typeText
    .replace(/\b(const|volatile|__restrict__|signed)\b/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return TYPE_SIZES[t];
}

/** The value of an integer literal (`256`, `0x100`, `48u`, `1'024`), or undefined. */
export function parseIntLiteral(text: string): number | undefined {
  // Plain decimal digits (most literals) by char code, without the regexes and the copies below. Up to 15
  // digits the sum is exact, as parseInt's; a leading 0 is octal (or 0 itself): the general path.
  let v = 0;
  let i = 0;
  for (; i < text.length && i < 16; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
  }
  if (i === text.length && i > 0 && i < 16 && (i === 1 || text.charCodeAt(0) !== 48)) return v;
  const t = text.replace(/'/g, "").replace(/[uUlL]+$/, "");
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) return parseInt(t.slice(2), 16);
  if (/^0[bB][01]+$/.test(t)) return parseInt(t.slice(2), 2);
  if (/^(0|[1-9][0-9]*)$/.test(t)) return parseInt(t, 10);
  return undefined;
}

/** An integer operator of C (+ - * / % << >> & |) on two values; undefined for a zero divisor or another operator. */
export function binary(op: string, a: number, b: number): number | undefined {
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      return b === 0 ? undefined : Math.trunc(a / b);
    case "%":
      return b === 0 ? undefined : a % b;
    case "<<":
      return a * 2 ** b;
    case ">>":
      return Math.floor(a / 2 ** b);
    case "&":
      return a & b;
    case "|":
      return a | b;
    default:
      return undefined;
  }
}

/** Evaluates a `#define` body such as `(32 * 8)` or `4 * WARP`: numbers, names, + - * / % << >> and parens. */
function evalMacroText(
  text: string,
  lookup: (name: string) => number | undefined,
  depth: number,
): number | undefined {
  const tokens = text.match(/0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<|>>|[-+*/%()&|]|\S/g) ?? [];
  let i = 0;
  const prec: Record<string, number> = {
    "|": 1,
    "&": 2,
    "<<": 3,
    ">>": 3,
    "+": 4,
    "-": 4,
    "*": 5,
    "/": 5,
    "%": 5,
  };
  const primary = (): number | undefined => {
    const t = tokens[i++];
    if (t === undefined) return undefined;
    if (t === "(") {
      const v = expr(0);
      return tokens[i++] === ")" ? v : undefined;
    }
    if (t === "-") {
      const v = primary();
      return v === undefined ? undefined : -v;
    }
    if (/^\d|^0[xX]/.test(t)) return parseIntLiteral(t);
    if (/^[A-Za-z_]/.test(t) && depth < 8) return lookup(t);
    return undefined;
  };
  const expr = (min: number): number | undefined => {
    let left = primary();
    for (;;) {
      const op = tokens[i];
      const p = op !== undefined ? prec[op] : undefined;
      if (left === undefined || p === undefined || p <= min) return left;
      i++;
      const right = expr(p);
      if (right === undefined) return undefined;
      left = binary(op!, left, right);
    }
  };
  const v = expr(0);
  return i === tokens.length ? v : undefined;
}

const NAME = /^[A-Za-z_]\w*$/;

/** Calls whose value is known from their arguments: a thread count `dim3(x, y, z)`, and casts. */
const CASTS: ReadonlySet<string> = new Set(["dim3", "static_cast", "int", "unsigned"]);

/** `node` without the parentheses around it, and its type, read once (each read crosses into wasm). */
function bare(node: Node): [Node, string] {
  let n = node;
  let type = n.type;
  while (type === "parenthesized_expression" && n.namedChildCount === 1) {
    n = n.namedChild(0)!;
    type = n.type;
  }
  return [n, type];
}

/**
 * Constant bindings of one file, looked up on demand by name. Locals count only when nothing assigns
 * them again, so `int threads = 256; ... threads = n;` is not taken as 256.
 */
export class Constants {
  /** Each name's bindings, with their texts (read once: for the relint's sites and to compare them here). */
  private readonly bindings = new Map<string, { b: Binding; text: string }[]>();
  private readonly evaluating = new Set<string>();

  private constructor(private readonly idx: FileIndex) {}

  /** The file's constants, shared by every rule of one lint run. */
  static of(idx: FileIndex): Constants {
    return idx.shared("constants", () => new Constants(idx));
  }

  /** Places found ahead by `prefetch`, by name, until the name is looked up. */
  private readonly prefetched = new Map<string, number[]>();

  /**
   * Finds the places of names about to be looked up in one scan of the text (see sitesOfNames). Only a
   * lookup counts as reading a name: this records nothing.
   */
  prefetch(names: Iterable<string>): void {
    const wanted = new Set<string>();
    for (const n of names)
      if (NAME.test(n) && !this.bindings.has(n) && !this.prefetched.has(n)) wanted.add(n);
    if (wanted.size < 2) return;
    for (const [n, sites] of sitesOfNames(this.idx.text, [...wanted])) this.prefetched.set(n, sites);
  }

  private bindingsOf(name: string): { b: Binding; text: string }[] {
    const cached = this.bindings.get(name);
    if (cached) return cached;
    const found: { b: Binding; isConst: boolean; text: string }[] = [];
    let reassigned = false;
    this.bindings.set(name, []);
    // Bindings may lie anywhere in the file, also outside a windowed run's window.
    this.idx.facts.constantNames.add(name);
    const sites: BindingSite[] = [];
    const offsets = this.prefetched.get(name) ?? sitesIn(this.idx.text, name);
    this.prefetched.delete(name);
    for (const at of offsets) {
      const site = bindingAt(this.idx, at, name);
      const text = site && site !== "reassigned" ? bindingText(site.b, this.idx.text) : "";
      sites.push({ at, what: describeSite(site, text) });
      if (site === "reassigned") reassigned = true;
      else if (site) found.push({ b: site.b, isConst: site.isConst, text });
    }
    this.idx.facts.constantSites.set(name, sites);
    // A reassigned name keeps its const bindings only (most names are not: no copy then).
    const list = reassigned ? found.filter((f) => f.isConst) : found;
    this.bindings.set(name, list);
    return list;
  }

  /** A name bound to one value only (two different bindings, e.g. in two functions, make it unknown). */
  private readonly singles = new Map<string, Binding | undefined>();
  private single(name: string): Binding | undefined {
    // Every lookup, also of a name looked up before: the rule asking now depends on its bindings.
    this.idx.reads(`const:${name}`);
    for (const names of this.looking) names.add(name);
    if (!this.singles.has(name)) this.singles.set(name, this.findSingle(name));
    return this.singles.get(name);
  }

  private findSingle(name: string): Binding | undefined {
    if (!NAME.test(name)) return undefined;
    const list = this.bindingsOf(name);
    if (list.length === 0) return undefined;
    if (list.length === 1) return list[0]!.b;
    const texts = new Set(list.map((f) => f.text));
    return texts.size === 1 ? list[0]!.b : undefined;
  }

  /**
   * The value of each name asked for outside any other name's evaluation, and every name that evaluation
   * looked up: many launches name the same constant, and a later lookup reads the same bindings again.
   * (Inside another evaluation a value may differ: a cycle or the macro depth limit can cut it short.)
   */
  private readonly values = new Map<string, { value: number | undefined; names: Set<string> }>();
  /** The names looked up by the top-level evaluations under way. */
  private readonly looking: Set<string>[] = [];

  valueOfName(name: string): number | undefined {
    if (this.evaluating.size > 0) return this.evaluate(name);
    const known = this.values.get(name);
    if (known) {
      for (const n of known.names) this.idx.reads(`const:${n}`);
      return known.value;
    }
    const names = new Set<string>();
    this.looking.push(names);
    try {
      const value = this.evaluate(name);
      this.values.set(name, { value, names });
      return value;
    } finally {
      this.looking.pop();
    }
  }

  private evaluate(name: string): number | undefined {
    if (this.evaluating.has(name)) return undefined;
    const b = this.single(name);
    if (!b) return undefined;
    this.evaluating.add(name);
    try {
      if (b.kind === "macro") return evalMacroText(b.text, (n) => this.valueOfName(n), this.evaluating.size);
      if (b.kind === "expr") return this.value(b.node);
      const dims = this.dimsOfArgs(b.args);
      return dims ? dims[0] * dims[1] * dims[2] : undefined;
    } finally {
      this.evaluating.delete(name);
    }
  }

  /** A node's text, or undefined where there is no node. */
  private textOf(n: Node | null | undefined): string | undefined {
    return n ? this.idx.textOf(n) : undefined;
  }

  /** The integer value of an expression, or undefined when it is not known at lint time. */
  value(node: Node): number | undefined {
    const [n, type] = bare(node);
    return this.valueOfBare(n, type);
  }

  /** The value of `n`, of type `type`, with no parentheses around it. */
  private valueOfBare(n: Node, type: string): number | undefined {
    switch (type) {
      case "number_literal":
        return parseIntLiteral(this.idx.textOf(n));
      case "identifier":
        return this.valueOfName(this.idx.textOf(n));
      case "type_identifier":
        return this.valueOfName(this.idx.textOf(n));
      case "binary_expression": {
        const l = n.childForFieldName("left");
        const r = n.childForFieldName("right");
        const op = this.textOf(n.childForFieldName("operator"));
        if (!l || !r || !op) return undefined;
        const a = this.value(l);
        const b = a === undefined ? undefined : this.value(r);
        return a === undefined || b === undefined ? undefined : binary(op, a, b);
      }
      case "unary_expression": {
        const v = this.value(n.childForFieldName("argument") ?? n);
        const op = this.textOf(n.childForFieldName("operator"));
        if (v === undefined) return undefined;
        return op === "-" ? -v : op === "+" ? v : undefined;
      }
      case "sizeof_expression": {
        // `sizeof(__half)`: tree-sitter cannot tell a type name from a variable's, and reads a lone name
        // in parentheses as a value; a known type's name is that type (a variable is never named `float`).
        const t = n.childForFieldName("type") ?? n.childForFieldName("value");
        return t ? typeSize(this.idx.textOf(t).replace(/^\(\s*|\s*\)$/g, "")) : undefined;
      }
      case "cast_expression":
        return this.value(n.childForFieldName("value") ?? n);
      case "call_expression":
        return this.callValue(n, n.childForFieldName("function"));
      default:
        return undefined;
    }
  }

  /** A call's value: static_cast<int>(x), int(x), dim3(x, y, z) as a thread count (`f`: its function). */
  private callValue(n: Node, f: Node | null): number | undefined {
    const name = f?.type === "template_function" ? this.textOf(f.childForFieldName("name")) : this.textOf(f);
    if (!name || !CASTS.has(name)) return undefined;
    const args = namedChildren(n.childForFieldName("arguments") ?? n).filter((a) => a.type !== "comment");
    if (name === "dim3") {
      const dims = this.dimsOfArgs(args);
      return dims ? dims[0] * dims[1] * dims[2] : undefined;
    }
    if ((name === "static_cast" || name === "int" || name === "unsigned") && args.length === 1)
      return this.value(args[0]!);
    return undefined;
  }

  private dimsOfArgs(args: Node[]): [number, number, number] | undefined {
    if (args.length === 0 || args.length > 3) return undefined;
    const v = args.map((a) => this.value(a));
    if (v.some((x) => x === undefined)) return undefined;
    return [v[0]!, v[1] ?? 1, v[2] ?? 1];
  }

  /** The (x, y, z) block shape of a launch's block argument, when known. */
  dims(node: Node): [number, number, number] | undefined {
    const [n, type] = bare(node);
    if (type === "call_expression") {
      // The function read once, for both questions.
      const f = n.childForFieldName("function");
      if (this.textOf(f) === "dim3")
        return this.dimsOfArgs(
          namedChildren(n.childForFieldName("arguments") ?? n).filter((a) => a.type !== "comment"),
        );
      const v = this.callValue(n, f);
      return v === undefined ? undefined : [v, 1, 1];
    }
    if (type === "initializer_list") return this.dimsOfArgs(namedChildren(n));
    let v: number | undefined;
    if (type === "identifier") {
      const name = this.idx.textOf(n);
      const b = this.single(name);
      if (b?.kind === "dim3") return this.dimsOfArgs(b.args);
      v = this.valueOfName(name);
    } else v = this.valueOfBare(n, type);
    return v === undefined ? undefined : [v, 1, 1];
  }

  /**
   * Whether a call of the function `name` may have a value here (a cast or dim3): `value` and `dims` of
   * any other call are undefined.
   */
  static evaluatesCall(name: string): boolean {
    return CASTS.has(name);
  }

  /** `dims` of a launch argument written as a plain name or integer literal (launches.ts), from its text. */
  dimsOfPlain(text: string): [number, number, number] | undefined {
    let v: number | undefined;
    if (NAME.test(text)) {
      const b = this.single(text);
      if (b?.kind === "dim3") return this.dimsOfArgs(b.args);
      v = this.valueOfName(text);
    } else v = parseIntLiteral(text);
    return v === undefined ? undefined : [v, 1, 1];
  }

  /** `value` of a launch argument written as a plain name or integer literal, from its text. */
  valueOfPlain(text: string): number | undefined {
    return NAME.test(text) ? this.valueOfName(text) : parseIntLiteral(text);
  }

  /** The literal that fixes a known value, so a quick fix can edit it: the node itself or its binding. */
  sourceLiteral(node: Node): Node | undefined {
    const n = unparen(node);
    if (n.type === "number_literal") return n;
    if (n.type === "identifier") {
      const b = this.single(n.text);
      if (b?.kind === "expr" && unparen(b.node).type === "number_literal") return unparen(b.node);
      if (b?.kind === "dim3" && b.args.length === 1 && unparen(b.args[0]!).type === "number_literal")
        return unparen(b.args[0]!);
    }
    if (n.type === "call_expression" && n.childForFieldName("function")?.text === "dim3") {
      const args = namedChildren(n.childForFieldName("arguments") ?? n);
      if (args.length === 1 && unparen(args[0]!).type === "number_literal") return unparen(args[0]!);
    }
    return undefined;
  }
}
