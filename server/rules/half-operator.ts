// Operators on __half/__nv_bfloat16 values in builds that remove them: PyTorch extension builds define
// __CUDA_NO_HALF_OPERATORS__ and __CUDA_NO_HALF2_OPERATORS__ (the BF16 operators stay), so the file
// compiles standalone and fails in the real build. Which switches are in effect is the build context's.
import type { Node } from "web-tree-sitter";
import type { Fix, LintContext, Rule } from "./rule";
import { declEnv } from "../analysis/types/declEnv";
import { FileIndex } from "../analysis/source/fileIndex";
import { switchesSet, type Switches } from "../analysis/preprocessor/buildSwitches";
import { halfDecls, type HalfDecls } from "../analysis/types/halfDecls";
import { eachWholeWord, isSpace as spaceAt, isWord as wordAt } from "../analysis/types/halfText";
import { isPairKind, type HalfKind, type HalfScope, type HalfType } from "../analysis/types/halfTypes";
import { replaceNode, unparen } from "../analysis/source/nodes";

const OPERATOR_NODES: ReadonlySet<string> = new Set([
  "binary_expression",
  "assignment_expression",
  "unary_expression",
  "update_expression",
]);
/** Intrinsics whose result is a half value, as operands: `__float2half(a) * h`. */
const HALF_RETURNING =
  /\b(__float2half(?:_rn|_rz)?|__float2bfloat16(?:_rn|_rz)?|__h(?:add|sub|mul|div|fma|neg|abs)2?|__low2half|__high2half|__low2bfloat16|__high2bfloat16|__floats2half2_rn|__float22half2_rn|__float2half2_rn|__halves2half2|__floats2bfloat162_rn|__float22bfloat162_rn|__halves2bfloat162)\b/g;

const ARITH: Readonly<Record<string, string>> = { "+": "add", "-": "sub", "*": "mul", "/": "div" };
const COMPARE: Readonly<Record<string, string>> = {
  "<": "lt",
  ">": "gt",
  "<=": "le",
  ">=": "ge",
  "==": "eq",
  "!=": "ne",
};
const TYPE_NAME: Readonly<Record<HalfKind, string>> = {
  half: "__half",
  bf16: "__nv_bfloat16",
  half2: "__half2",
  bf162: "__nv_bfloat162",
};

/** The macro that removes each type's operators (cuda_fp16.hpp, cuda_bf16.hpp). */
const OFF_SWITCH: Readonly<Record<HalfKind, string>> = {
  half: "__CUDA_NO_HALF_OPERATORS__",
  half2: "__CUDA_NO_HALF2_OPERATORS__",
  bf16: "__CUDA_NO_BFLOAT16_OPERATORS__",
  bf162: "__CUDA_NO_BFLOAT162_OPERATORS__",
};

/** The intrinsic that does `op` on two values of `kind` with the operator's exact rounding. */
function intrinsic(op: string, kind: HalfKind): string | undefined {
  if (isPairKind(kind)) {
    if (op === "/") return "__h2div";
    return ARITH[op] ? `__h${ARITH[op]}2` : undefined;
  }
  if (ARITH[op]) return `__h${ARITH[op]}`;
  if (COMPARE[op]) return `__h${COMPARE[op]}`;
  return undefined;
}

/** Side-effect-free operands may be written twice (for `a += b` → `a = __hadd(a, b)`). */
function isSimpleLvalue(n: Node): boolean {
  const u = unparen(n);
  if (u.type === "identifier") return true;
  if (u.type === "field_expression") return isSimpleLvalue(u.childForFieldName("argument") ?? u);
  if (u.type === "subscript_expression") {
    const idx = u.childForFieldName("indices") ?? u.childForFieldName("index");
    return isSimpleLvalue(u.childForFieldName("argument") ?? u) && !/\+\+|--|\(|=/.test(idx?.text ?? "(");
  }
  return false;
}

const OP_CHARS = "+-*/<>=!";

// Bound once: from source (tsx compiles to CommonJS) each call of an imported function goes through a
// getter, which the text tests below would pay at every character.
const isSpace = spaceAt;
const isWord = wordAt;

/** Type names that make a following `*`/`&` a declarator: `const __half* x`, `auto& y`. */
const DECL_TYPES: ReadonlySet<string> = new Set([
  "__half",
  "__half2",
  "half",
  "half2",
  "__nv_bfloat16",
  "__nv_bfloat162",
  "nv_bfloat16",
  "nv_bfloat162",
  "auto",
]);
const DECL_QUALIFIERS: ReadonlySet<string> = new Set(["const", "volatile", "__restrict__"]);

/** Does the `*` or `&` at `j` follow a half type (or `auto`), so that it declares the name after it? */
function followsDeclType(text: string, j: number): boolean {
  let k = j;
  for (let guard = 0; guard < 8; guard++) {
    while (k > 0 && (isSpace(text, k - 1) || text[k - 1] === "*" || text[k - 1] === "&")) k--;
    const end = k;
    while (k > 0 && isWord(text, k - 1)) k--;
    const word = text.slice(k, end);
    if (!DECL_QUALIFIERS.has(word)) return DECL_TYPES.has(word);
  }
  return false;
}

/**
 * A cheap text test before asking the tree: could the name at [start, end) be an operand? Skips `[…]`,
 * `(…)` (a call), `.x`/`->y` and `)` after it, `(` and `*` before it, and looks for an operator character.
 * Conservative: never false for a real operand; the tree decides the rest.
 */
function operatorNearby(text: string, start: number, end: number): boolean {
  // Opening parentheses right before the name may close right after it: `(x[i]) * y`. Others belong to an
  // enclosing call (`f(x[i]) * y` puts the operator on the call, not on x).
  let j = start - 1;
  let opens = 0;
  for (; j >= 0; j--) {
    const c = text[j]!;
    if (c === "(") opens++;
    else if (!isSpace(text, j)) break;
  }
  if (j >= 0 && OP_CHARS.includes(text[j]!) && !(text[j] === "=" && !OP_CHARS.includes(text[j - 1] ?? ""))) {
    // `__half* x` declares x: a type name cannot be multiplied (the name may still be a left operand).
    const declarator = (text[j] === "*" || text[j] === "&") && followsDeclType(text, j);
    if (!declarator) return true;
  }
  let i = end;
  for (let guard = 0; guard < 16 && i < text.length; guard++) {
    while (i < text.length && isSpace(text, i)) i++;
    const c = text[i];
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")";
      let depth = 0;
      for (; i < text.length; i++) {
        if (text[i] === c) depth++;
        else if (text[i] === close && --depth === 0) break;
      }
      i++;
    } else if (c === ".") i = skipWord(text, i + 1);
    else if (c === "-" && text[i + 1] === ">") i = skipWord(text, i + 2);
    else if (c === ")" && opens > 0) {
      opens--;
      i++;
    } else break;
  }
  if (i >= text.length || !OP_CHARS.includes(text[i]!)) return false;
  // a plain `=` (assignment to something else) is not an operator on the name
  return !(text[i] === "=" && text[i + 1] !== "=");
}

function skipWord(text: string, i: number): number {
  while (i < text.length && isSpace(text, i)) i++;
  while (i < text.length && isWord(text, i)) i++;
  return i;
}

/** Nodes through which an operand's value passes to an enclosing operator: `(x)`, `x[i]`, `x.y`, `*x`, `f(…)`. */
function wrapsOperand(p: Node, type: string, n: Node): boolean {
  switch (type) {
    case "parenthesized_expression":
      return true;
    case "subscript_expression":
    case "field_expression":
      return p.childForFieldName("argument")?.id === n.id;
    case "pointer_expression":
      return p.childForFieldName("operator")?.text === "*";
    case "call_expression":
      return p.childForFieldName("function")?.id === n.id;
    default:
      return false;
  }
}

/** Adds the operator nodes that `start` (a half-typed name or intrinsic) is an operand of. */
function climb(start: Node, candidates: Map<number, Node>): void {
  let n: Node = start;
  for (let i = 0; i < 32; i++) {
    const p = n.parent;
    if (!p) return;
    const type = p.type;
    if (wrapsOperand(p, type, n)) {
      n = p;
      continue;
    }
    if (!OPERATOR_NODES.has(type)) return;
    candidates.set(p.id, p);
    // a * b + c: the sum of a half product is itself an operator on a half
    if (type !== "binary_expression") return;
    n = p;
  }
}

/** `/^\s*\[/` on the 8 characters from `after`: the pointer is subscripted. */
function subscripted(text: string, after: number): boolean {
  const stop = Math.min(text.length, after + 8);
  let i = after;
  while (i < stop && isSpace(text, i)) i++;
  return i < stop && text.charCodeAt(i) === 91;
}

/** `/\*\s*\(*\s*$/` on the 8 characters before `at` (read backwards): the pointer is dereferenced. */
function dereferenced(text: string, at: number): boolean {
  const lo = Math.max(0, at - 8);
  let i = at;
  while (i > lo && isSpace(text, i - 1)) i--;
  while (i > lo && text.charCodeAt(i - 1) === 40) i--;
  while (i > lo && isSpace(text, i - 1)) i--;
  return i > lo && text.charCodeAt(i - 1) === 42;
}

/** Adds the operators that the name at [index, index + length) is an operand of, if the text allows one. */
function operandAt(idx: FileIndex, candidates: Map<number, Node>, index: number, length: number): void {
  if (!operatorNearby(idx.text, index, index + length)) return;
  const id = idx.nodeAt(index, index + length);
  if (id.type === "identifier" && id.startIndex === index) climb(id, candidates);
}

/** A use of a half-typed name of type `t`: a pointer is only a half value when subscripted or dereferenced (`in + offset` is pointer arithmetic). */
function halfUse(
  idx: FileIndex,
  candidates: Map<number, Node>,
  index: number,
  word: string,
  t: HalfType,
): void {
  if (t.indirection > 0 && !subscripted(idx.text, index + word.length) && !dereferenced(idx.text, index))
    return;
  operandAt(idx, candidates, index, word.length);
}

/** Candidate operator nodes, in document order: the parents of every use of a half-typed name or half-returning intrinsic. */
function candidateOperators(idx: FileIndex, decls: HalfDecls): Node[] {
  const candidates = new Map<number, Node>();
  const { start: windowStart, end: windowEnd } = idx.window;
  const fileNames = decls.file.halfWords();
  if (fileNames.length > 0)
    eachWholeWord(idx.text, fileNames, windowStart, windowEnd, (index, match) => {
      const t = decls.file.lookup(match);
      if (t) halfUse(idx, candidates, index, match, t);
      else operandAt(idx, candidates, index, match.length);
    });
  for (const { start, end, scope, uses } of decls.functions) {
    const from = Math.max(start, windowStart);
    const to = Math.min(end, windowEnd);
    if (from >= to) continue;
    if (!uses) {
      // A struct's member list: its names, searched in its text.
      const names = scope.halfWords();
      if (names.length === 0) continue;
      eachWholeWord(idx.text, names, from, to, (index, match) => {
        const t = scope.lookup(match);
        if (t) halfUse(idx, candidates, index, match, t);
        else operandAt(idx, candidates, index, match.length);
      });
      continue;
    }
    // The function's declared names as halfDecls found them in its code: its half words are those of
    // them with a half type here (a name in a comment or literal is no identifier's).
    for (let i = uses.first; i < uses.end; i++) {
      const index = uses.at[i]!;
      if (index < from || index >= to) continue;
      const t = scope.lookup(uses.words[i]!);
      if (t) halfUse(idx, candidates, index, uses.words[i]!, t);
    }
  }
  for (const m of idx.scan(HALF_RETURNING)) operandAt(idx, candidates, m.index, m[0].length);
  return [...candidates.values()].sort((a, b) => a.startIndex - b.startIndex);
}

type Report = LintContext["report"];

function checkBinary(report: Report, e: Node, scope: HalfScope, off: Switches): void {
  const op = e.childForFieldName("operator")?.text ?? "";
  if (!ARITH[op] && !COMPARE[op]) return;
  const l = e.childForFieldName("left");
  const r = e.childForFieldName("right");
  if (!l || !r) return;
  const lk = scope.valueKind(l);
  const rk = scope.valueKind(r);
  const kind = lk ?? rk;
  if (!kind || !off[kind]) return;
  const fixes: Fix[] = [];
  const fn = intrinsic(op, kind);
  if (lk && rk && lk === rk && fn)
    fixes.push({
      title: `Use ${fn}()`,
      isPreferred: true,
      edits: [replaceNode(e, `${fn}(${l.text}, ${r.text})`)],
    });
  report({
    node: e,
    message: `\`${op}\` on ${TYPE_NAME[kind]} does not compile with ${off[kind]}. Convert to float (to_float/__half2float), compute, and convert back, or use ${fn ?? "the __h* intrinsics"}.`,
    fixes,
  });
}

function checkCompound(report: Report, e: Node, scope: HalfScope, off: Switches): void {
  const op = (e.childForFieldName("operator")?.text ?? "").replace(/=$/, "");
  if (!ARITH[op]) return;
  const l = e.childForFieldName("left");
  const r = e.childForFieldName("right");
  if (!l || !r) return;
  const lk = scope.valueKind(l);
  if (!lk || !off[lk]) return;
  const rk = scope.valueKind(r);
  const fn = intrinsic(op, lk);
  const fixes: Fix[] =
    fn && rk === lk && isSimpleLvalue(l)
      ? [
          {
            title: `Use ${fn}()`,
            isPreferred: true,
            edits: [replaceNode(e, `${l.text} = ${fn}(${l.text}, ${r.text})`)],
          },
        ]
      : [];
  report({
    node: e,
    message: `\`${op}=\` on ${TYPE_NAME[lk]} does not compile with ${off[lk]}. Accumulate in float (to_float) and convert once at the end${fn ? `, or use ${fn}` : ""}.`,
    fixes,
  });
}

function checkUnary(report: Report, e: Node, scope: HalfScope, off: Switches): void {
  const op = e.childForFieldName("operator")?.text ?? "";
  if (!["-", "++", "--"].includes(op)) return;
  const arg = e.childForFieldName("argument");
  const k = scope.valueKind(arg);
  if (!k || !arg || !off[k]) return;
  const neg = isPairKind(k) ? "__hneg2" : "__hneg";
  report({
    node: e,
    message: `\`${op}\` on ${TYPE_NAME[k]} does not compile with ${off[k]}.`,
    fixes:
      op === "-"
        ? [{ title: `Use ${neg}()`, isPreferred: true, edits: [replaceNode(e, `${neg}(${arg.text})`)] }]
        : [],
  });
}

export const halfOperator: Rule = {
  id: "half-operator",
  defaultSeverity: "error",
  basis: "does-not-compile",
  summary:
    "Arithmetic/comparison operators on __half/__nv_bfloat16 values in builds that remove them (-D__CUDA_NO_HALF_OPERATORS__: PyTorch extensions).",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const off = switchesSet(ctx, idx, OFF_SWITCH);
    if (Object.keys(off).length === 0) return;
    const decls = halfDecls(idx, declEnv(ctx));
    // Switches inferred from PyTorch includes (no build file says how the file is compiled) need context:
    // many builds undo them with -U.
    const basis = ctx.build.definesKnown ? undefined : "needs-context";
    const report: Report = (f) => ctx.report({ ...f, basis });
    for (const e of candidateOperators(idx, decls)) {
      const scope = decls.scopeAt(e.startIndex);
      if (e.type === "binary_expression") checkBinary(report, e, scope, off);
      else if (e.type === "assignment_expression") checkCompound(report, e, scope, off);
      else checkUnary(report, e, scope, off);
    }
  },
};
