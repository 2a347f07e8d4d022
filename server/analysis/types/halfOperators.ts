// The operator expressions with a 16-bit operand: the parents of every use of an FP16/BF16-typed name
// (halfDecls.ts) or of an intrinsic that returns one, that are arithmetic, comparison, compound-assignment,
// unary or update expressions. Found from the names' uses in the text and confirmed in the tree (walking
// every expression of a file costs far more), in document order. Which operand is 16-bit, and of what
// kind, is the caller's to ask (HalfScope.valueKind): half-operator reports operators its build removes,
// bf16Arithmetic the BF16 work a pre-Ampere target emulates.
// Cannot see: operands typed through templates, `auto` or unknown functions, and code macros generate.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import type { HalfDecls } from "./halfDecls";
import { eachWholeWord, isSpace as spaceAt, isWord as wordAt } from "./halfText";
import type { HalfType } from "./halfTypes";

const OPERATOR_NODES: ReadonlySet<string> = new Set([
  "binary_expression",
  "assignment_expression",
  "unary_expression",
  "update_expression",
]);
/** Intrinsics whose result is a half value, as operands: `__float2half(a) * h`. */
const HALF_RETURNING =
  /\b(__float2half(?:_rn|_rz)?|__float2bfloat16(?:_rn|_rz)?|__h(?:add|sub|mul|div|fma|neg|abs)2?|__low2half|__high2half|__low2bfloat16|__high2bfloat16|__floats2half2_rn|__float22half2_rn|__float2half2_rn|__halves2half2|__floats2bfloat162_rn|__float22bfloat162_rn|__halves2bfloat162)\b/g;

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
export function halfOperators(idx: FileIndex, decls: HalfDecls): Node[] {
  // Shared by the rules of a run (half-operator, bf16-emulated-arch): both ask after reading halfDecls.
  return idx.shared("halfOperators", () => findHalfOperators(idx, decls));
}

function findHalfOperators(idx: FileIndex, decls: HalfDecls): Node[] {
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
