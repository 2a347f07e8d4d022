// Integer constant evaluation at lint time: literals, arithmetic, sizeof, casts, and names bound to
// `#define`s, `const`/`constexpr` values, `dim3` declarations and locals assigned exactly once.
import type { Node } from "web-tree-sitter";
import { ancestors, declaredName, descendants, namedChildren, unparen } from "./nodes";

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
  const t = text.replace(/'/g, "").replace(/[uUlL]+$/, "");
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) return parseInt(t.slice(2), 16);
  if (/^0[bB][01]+$/.test(t)) return parseInt(t.slice(2), 2);
  if (/^(0|[1-9][0-9]*)$/.test(t)) return parseInt(t, 10);
  return undefined;
}

function binary(op: string, a: number, b: number): number | undefined {
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

/** One name's binding: a value, a dim3 (x, y, z) or the node to evaluate on demand. */
type Binding =
  { kind: "expr"; node: Node } | { kind: "macro"; text: string } | { kind: "dim3"; args: Node[] };

/**
 * Constant bindings of one file. Locals count only when nothing else assigns them in their function, so
 * `int threads = 256; ... threads = n;` is not taken as 256.
 */
export class Constants {
  private readonly bindings = new Map<string, Binding[]>();
  private readonly evaluating = new Set<string>();

  constructor(root: Node) {
    for (const def of descendants(root, "preproc_def")) {
      const name = def.childForFieldName("name")?.text;
      const value = def.childForFieldName("value")?.text;
      if (name && value) this.add(name, { kind: "macro", text: value });
    }
    const reassigned = new Set<string>();
    for (const a of descendants(root, "assignment_expression", "update_expression")) {
      const target = unparen(a.childForFieldName("left") ?? a.childForFieldName("argument") ?? a);
      if (target.type === "identifier") reassigned.add(target.text);
    }
    for (const decl of descendants(root, "declaration")) {
      const type = decl.childForFieldName("type");
      if (!type) continue;
      const isConst = namedChildren(decl).some(
        (c) => c.type === "type_qualifier" && (c.text === "const" || c.text === "constexpr"),
      );
      const isDim3 = type.text === "dim3";
      for (const d of namedChildren(decl)) {
        if (d.type === "init_declarator") {
          const nameNode = d.childForFieldName("declarator");
          const value = d.childForFieldName("value");
          if (nameNode?.type !== "identifier" || !value) continue;
          if (!isConst && reassigned.has(nameNode.text)) continue;
          if (isDim3) {
            // dim3 b(256, 4) | dim3 b{256} | dim3 b = dim3(256)
            const inner = value.type === "call_expression" ? value.childForFieldName("arguments") : value;
            const args = inner ? namedChildren(inner).filter((n) => n.type !== "comment") : [];
            if (
              value.type === "argument_list" ||
              value.type === "initializer_list" ||
              value.type === "call_expression"
            )
              this.add(nameNode.text, { kind: "dim3", args });
            else this.add(nameNode.text, { kind: "expr", node: value });
          } else this.add(nameNode.text, { kind: "expr", node: value });
        } else if (isDim3 && d.type === "function_declarator") {
          // `dim3 block(kThreads)` parses as a function declaration; its "parameter types" are the names.
          const name = d.childForFieldName("declarator");
          const params = d.childForFieldName("parameters");
          if (name?.type !== "identifier" || !params || reassigned.has(name.text)) continue;
          const args = namedChildren(params).map((p) => p.childForFieldName("type") ?? p);
          this.add(name.text, { kind: "dim3", args });
        }
      }
    }
  }

  private add(name: string, b: Binding): void {
    const list = this.bindings.get(name) ?? [];
    list.push(b);
    this.bindings.set(name, list);
  }

  /** A name bound to one value only (two different bindings, e.g. in two functions, make it unknown). */
  private single(name: string): Binding | undefined {
    const list = this.bindings.get(name);
    if (!list || list.length === 0) return undefined;
    if (list.length === 1) return list[0];
    const texts = new Set(
      list.map((b) =>
        b.kind === "macro" ? b.text : b.kind === "expr" ? b.node.text : b.args.map((a) => a.text).join(","),
      ),
    );
    return texts.size === 1 ? list[0] : undefined;
  }

  valueOfName(name: string): number | undefined {
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

  /** The integer value of an expression, or undefined when it is not known at lint time. */
  value(node: Node): number | undefined {
    const n = unparen(node);
    switch (n.type) {
      case "number_literal":
        return parseIntLiteral(n.text);
      case "identifier":
        return this.valueOfName(n.text);
      case "type_identifier":
        return this.valueOfName(n.text);
      case "binary_expression": {
        const l = n.childForFieldName("left");
        const r = n.childForFieldName("right");
        const op = n.childForFieldName("operator")?.text;
        if (!l || !r || !op) return undefined;
        const a = this.value(l);
        const b = a === undefined ? undefined : this.value(r);
        return a === undefined || b === undefined ? undefined : binary(op, a, b);
      }
      case "unary_expression": {
        const v = this.value(n.childForFieldName("argument") ?? n);
        const op = n.childForFieldName("operator")?.text;
        if (v === undefined) return undefined;
        return op === "-" ? -v : op === "+" ? v : undefined;
      }
      case "sizeof_expression": {
        const t = n.childForFieldName("type");
        return t ? typeSize(t.text) : undefined;
      }
      case "cast_expression":
        return this.value(n.childForFieldName("value") ?? n);
      case "call_expression": {
        // static_cast<int>(x), int(x), dim3(x, y, z) as a thread count
        const f = n.childForFieldName("function");
        const args = namedChildren(n.childForFieldName("arguments") ?? n).filter((a) => a.type !== "comment");
        const name = f?.type === "template_function" ? f.childForFieldName("name")?.text : f?.text;
        if (name === "dim3") {
          const dims = this.dimsOfArgs(args);
          return dims ? dims[0] * dims[1] * dims[2] : undefined;
        }
        if ((name === "static_cast" || name === "int" || name === "unsigned") && args.length === 1)
          return this.value(args[0]!);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  private dimsOfArgs(args: Node[]): [number, number, number] | undefined {
    if (args.length === 0 || args.length > 3) return undefined;
    const v = args.map((a) => this.value(a));
    if (v.some((x) => x === undefined)) return undefined;
    return [v[0]!, v[1] ?? 1, v[2] ?? 1];
  }

  /** The (x, y, z) block shape of a launch's block argument, when known. */
  dims(node: Node): [number, number, number] | undefined {
    const n = unparen(node);
    if (n.type === "call_expression" && n.childForFieldName("function")?.text === "dim3") {
      return this.dimsOfArgs(
        namedChildren(n.childForFieldName("arguments") ?? n).filter((a) => a.type !== "comment"),
      );
    }
    if (n.type === "initializer_list") return this.dimsOfArgs(namedChildren(n));
    if (n.type === "identifier") {
      const b = this.single(n.text);
      if (b?.kind === "dim3") return this.dimsOfArgs(b.args);
    }
    const v = this.value(n);
    return v === undefined ? undefined : [v, 1, 1];
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

/** Is `node` inside `outer`? */
export function within(node: Node, outer: Node): boolean {
  for (const a of ancestors(node)) if (a.id === outer.id) return true;
  return node.id === outer.id;
}

export { declaredName };
