// Implicit __half/__nv_bfloat16 <-> float conversions: PyTorch extension builds define
// __CUDA_NO_HALF_CONVERSIONS__ and __CUDA_NO_BFLOAT16_CONVERSIONS__, which remove them, so
// `float v = x[i];` compiles standalone and fails in the real build.
import type { Node } from "web-tree-sitter";
import type { Fix, LintContext, Rule } from "./rule";
import { codeSpan } from "../analysis/source/codeText";
import { declEnv } from "../analysis/types/declEnv";
import { FileIndex } from "../analysis/source/fileIndex";
import { switchesSet, type Switches } from "../analysis/preprocessor/buildSwitches";
import { halfDecls, type HalfDecls } from "../analysis/types/halfDecls";
import { isSpace, isWord } from "../analysis/types/halfText";
import { WordList, type HalfKind, type HalfScope } from "../analysis/types/halfTypes";
import { replaceNode, unparen } from "../analysis/source/nodes";
import { floatNames } from "../analysis/types/floatNames";

const TO_FLOAT: Readonly<Partial<Record<HalfKind, string>>> = {
  half: "__half2float",
  bf16: "__bfloat162float",
};
const FROM_FLOAT: Readonly<Partial<Record<HalfKind, string>>> = {
  half: "__float2half",
  bf16: "__float2bfloat16",
};
const TYPE_NAME: Readonly<Partial<Record<HalfKind, string>>> = { half: "__half", bf16: "__nv_bfloat16" };
const SWITCH: Readonly<Partial<Record<HalfKind, string>>> = {
  half: "__CUDA_NO_HALF_CONVERSIONS__",
  bf16: "__CUDA_NO_BFLOAT16_CONVERSIONS__",
};

/** Functions returning float that kernels feed into half stores. */
const FLOAT_FUNCS: ReadonlySet<string> = new Set([
  "__half2float",
  "__bfloat162float",
  "to_float",
  "expf",
  "__expf",
  "logf",
  "__logf",
  "sqrtf",
  "rsqrtf",
  "tanhf",
  "fmaxf",
  "fminf",
  "fabsf",
  "normcdff",
  "__fdividef",
  "__saturatef",
  "erff",
]);

/**
 * Is the expression certainly a float/int value (not a half)? Literals, float calls, casts, names the
 * function declares float (`floats`), arithmetic of them.
 */
function isArithmeticValue(node: Node, scope: HalfScope, floats: ReadonlySet<string>): boolean {
  const n = unparen(node);
  switch (n.type) {
    case "number_literal":
      return true;
    case "identifier":
      return floats.has(n.text) && !scope.lookup(n.text);
    case "call_expression": {
      const f = n.childForFieldName("function");
      return f?.type === "identifier" && FLOAT_FUNCS.has(f.text);
    }
    case "cast_expression":
      return /^(float|double|int)$/.test((n.childForFieldName("type")?.text ?? "").trim());
    case "binary_expression": {
      const op = n.childForFieldName("operator")?.text ?? "";
      if (!["+", "-", "*", "/"].includes(op)) return false;
      const l = n.childForFieldName("left");
      const r = n.childForFieldName("right");
      if (!l || !r || scope.valueKind(l) || scope.valueKind(r)) return false;
      return isArithmeticValue(l, scope, floats) || isArithmeticValue(r, scope, floats);
    }
    case "unary_expression":
      return (
        n.childForFieldName("operator")?.text === "-" &&
        isArithmeticValue(n.childForFieldName("argument") ?? n, scope, floats)
      );
    default:
      return false;
  }
}

/** The arithmetic types of `float v = x[i];` declarations. */
const ARITH_TYPES = new WordList([
  "float",
  "double",
  "int",
  "unsigned",
  "int64_t",
  "int32_t",
  "size_t",
  "long",
]);

/** An arithmetic declaration initialised from a name: `[const] TYPE NAME = [(]FIRST`. */
interface ArithDecl {
  /** Where the match of the regex below starts (at `const` when it is there). */
  index: number;
  /** Where TYPE starts: the match's start for a scan begun after `const`. */
  typeStart: number;
  nameStart: number;
  nameEnd: number;
  first: string;
}

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
// Bound once: from source (tsx compiles to CommonJS) each call of an imported function goes through a
// getter, which the loops below would pay at every character.
const wordAt = isWord;
const spaceAt = isSpace;

function wordStart(text: string, i: number): number {
  while (i > 0 && wordAt(text, i - 1)) i--;
  return i;
}

/**
 * The match of `/\b(?:const\s+)?(TYPES)\s+([A-Za-z_]\w*)\s*=\s*\(?\s*([A-Za-z_]\w*)/g` whose `=` is at
 * `eq`, read around it (each match has one `=`, and in code two matches cannot overlap): the regex, tried
 * at every offset of each function, cost more than looking at the `=`s.
 */
function arithDeclAt(text: string, eq: number): ArithDecl | undefined {
  let j = eq;
  while (j > 0 && spaceAt(text, j - 1)) j--;
  const nameEnd = j;
  const nameStart = wordStart(text, j);
  if (nameStart === nameEnd || !isLetter(text.charCodeAt(nameStart))) return undefined;
  let k = nameStart;
  while (k > 0 && spaceAt(text, k - 1)) k--;
  if (k === nameStart) return undefined;
  const typeStart = wordStart(text, k);
  if (!ARITH_TYPES.has(text, typeStart, k)) return undefined;
  let i = eq + 1;
  while (i < text.length && spaceAt(text, i)) i++;
  if (text.charCodeAt(i) === 40) i++;
  while (i < text.length && spaceAt(text, i)) i++;
  if (!isLetter(text.charCodeAt(i))) return undefined;
  let e = i;
  while (e < text.length && wordAt(text, e)) e++;
  let c = typeStart;
  while (c > 0 && spaceAt(text, c - 1)) c--;
  const constStart = c < typeStart ? wordStart(text, c) : c;
  const index =
    c < typeStart && c - constStart === 5 && text.startsWith("const", constStart) ? constStart : typeStart;
  return { index, typeStart, nameStart, nameEnd, first: text.slice(i, e) };
}

/**
 * The arithmetic declarations starting in [from, to) of the text: their `=` lies before the first
 * character at or after `to` that is neither a word's nor a space (`const TYPE NAME` holds only those).
 */
function* arithDecls(text: string, from: number, to: number): Generator<ArithDecl> {
  let stop = to;
  while (stop < text.length && (wordAt(text, stop) || spaceAt(text, stop))) stop++;
  for (let eq = text.indexOf("=", from); eq >= 0 && eq <= stop; eq = text.indexOf("=", eq + 1)) {
    const d = arithDeclAt(text, eq);
    if (!d || d.typeStart < from || d.index >= to) continue;
    // A scan begun between `const` and the type matches from the type.
    yield d.index >= from ? d : { ...d, index: d.typeStart };
  }
}

/** The base name of an lvalue just before `=`: `y[i]`, `out[row * n + c]`, `pair.x`. */
const LVALUE_BASE = /([A-Za-z_]\w*)\s*(?:\[[^\]]*\]|\.\s*\w+|->\s*\w+)*\s*$/;

/**
 * LVALUE_BASE's name on text[lineStart, eq), read backwards where that is plain: a last word with no `.`
 * or `>` before it is the name (from its first letter or `_`), a last character that is neither a word's
 * nor `]` ends no lvalue. Null where the regex must tell (`y[i]`, `p.x`, `q->y`): tried at every offset
 * of the line, with a `$` at its end, it costs more than the rest of the test.
 */
function plainLvalueBase(text: string, lineStart: number, eq: number): string | undefined | null {
  let j = eq;
  while (j > lineStart && spaceAt(text, j - 1)) j--;
  if (j === lineStart) return undefined;
  if (!wordAt(text, j - 1)) return text.charCodeAt(j - 1) === 93 ? null : undefined;
  const k = Math.max(lineStart, wordStart(text, j));
  let b = k;
  while (b > lineStart && spaceAt(text, b - 1)) b--;
  const before = b > lineStart ? text.charCodeAt(b - 1) : 0;
  if (before === 46 || before === 62) return null;
  let s = k;
  while (s < j && isDigit(text.charCodeAt(s))) s++;
  return s < j ? text.slice(s, j) : undefined;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

type Report = (target: Node, kind: HalfKind, toFloat: boolean) => void;

/** The rule's report: one finding per converted expression, with the explicit conversion as its fix. */
function reporter(ctx: LintContext, switches: Switches): Report {
  const seen = new Set<number>();
  return (target, kind, toFloat) => {
    const why = switches[kind];
    if (!why || seen.has(target.id)) return;
    seen.add(target.id);
    const conv = (toFloat ? TO_FLOAT : FROM_FLOAT)[kind];
    const type = TYPE_NAME[kind];
    if (!conv || !type) return;
    const fixes: Fix[] = [
      {
        title: `Convert explicitly with ${conv}()`,
        isPreferred: true,
        edits: [replaceNode(target, `${conv}(${target.text})`)],
      },
    ];
    ctx.report({
      node: target,
      message: toFloat
        ? `Implicit ${type} → float conversion: it does not compile with ${why}. Use ${conv}() or a to_float() helper.`
        : `Implicit float → ${type} conversion: it does not compile with ${why}. Use ${conv}() or a from_float() helper.`,
      fixes,
      // A switch inferred from PyTorch includes (no build file says how the file is compiled) needs context: many builds undo it with -U.
      basis: ctx.build.definesKnown ? undefined : "needs-context",
    });
  };
}

/** Where half-typed names are visible: functions declaring some, or the file if it does. */
function halfScopes(idx: FileIndex, decls: HalfDecls): readonly { start: number; end: number }[] {
  return decls.file.hasHalfNames() ? [idx.window] : decls.functions;
}

/** Arithmetic declarations where half-typed names are visible (within the run's window). */
function* arithDeclsInHalfScopes(idx: FileIndex, decls: HalfDecls): Generator<ArithDecl> {
  const { text, window } = idx;
  for (const { start, end } of halfScopes(idx, decls))
    yield* arithDecls(text, Math.max(start, window.start), Math.min(end, window.end));
}

/** Characters that make a following `=` part of another operator (`==`, `<=`, `+=`...). */
const BEFORE_OPERATOR = new Set("=!<>+-*/%&|^");

/** Offsets of the assignment `=`s where half-typed names are visible (found with indexOf: most text has none). */
function* assignments(idx: FileIndex, decls: HalfDecls): Generator<number> {
  const { text, window } = idx;
  for (const r of halfScopes(idx, decls)) {
    const end = Math.min(r.end, window.end);
    for (
      let at = text.indexOf("=", Math.max(r.start, window.start));
      at >= 0 && at < end;
      at = text.indexOf("=", at + 1)
    )
      if (!BEFORE_OPERATOR.has(text[at - 1]!) && text[at + 1] !== "=") yield at;
  }
}

/** `float v = x[i];`: a half value initialises an arithmetic variable. */
function halfIntoArithmetic(idx: FileIndex, decls: HalfDecls, report: Report): void {
  for (const d of arithDeclsInHalfScopes(idx, decls)) {
    const scope = decls.scopeAt(d.index);
    if (!scope.lookup(d.first)) continue;
    const init = idx.nodeAt(d.nameStart, d.nameEnd).parent;
    const value = init?.type === "init_declarator" ? init.childForFieldName("value") : null;
    const kind = value ? scope.valueKind(value) : undefined;
    if (value && (kind === "half" || kind === "bf16")) report(value, kind, true);
  }
}

/** `__half h = 0.0f;`: a half variable initialised from a float. */
function floatIntoHalfInit(idx: FileIndex, decls: HalfDecls, report: Report): void {
  for (const init of decls.initializers) {
    if (init.kind !== "half" && init.kind !== "bf16") continue;
    const scope = decls.scopeAt(init.start);
    const t = scope.lookup(init.name);
    if (!t || t.indirection !== 0) continue;
    const first = idx.text.slice(init.start, init.end).search(/\S/);
    if (first < 0) continue;
    const at = init.start + first;
    const trimmedEnd = init.start + idx.text.slice(init.start, init.end).trimEnd().length;
    let value = idx.nodeAt(at, trimmedEnd);
    // the smallest node spanning the whole initialiser text
    while (value.parent && value.endIndex - value.startIndex < trimmedEnd - at) value = value.parent;
    if (value.startIndex === at && isArithmeticValue(value, scope, floatsAt(idx, at)))
      report(value, init.kind, false);
  }
}

/** Words whose absence (with no digit) rules out isArithmeticValue: float calls and casts; a number has a digit. */
const ARITH_HINT = new RegExp(`\\b\\d|\\b(?:float|double|int|${[...FLOAT_FUNCS].join("|")})\\b`);

/**
 * Can the value assigned by the `=` at `eq` be isArithmeticValue's? Read from the code up to the `;`
 * (a number, a float function or a cast names itself there), before asking the tree. True where the text
 * cannot tell: a `{` before the `;` (a lambda or statement expression may hold one), an unclosed `(`, no
 * `;` in the code span, or a `=` not in code (a comment's: its parent's value may lie anywhere).
 */
function mayBeArithmetic(idx: FileIndex, eq: number, floats: ReadonlySet<string>): boolean {
  const { code, base } = codeSpan(idx);
  const from = eq - base;
  if (from < 0 || from >= code.length || code[from] !== "=") return true;
  const semi = code.indexOf(";", from);
  if (semi < 0) return true;
  const value = code.slice(from + 1, semi);
  if (value.includes("{") || unclosed(value) || ARITH_HINT.test(value)) return true;
  // A name the function declares float (`row[d] = x1 * c - x2 * s;`).
  if (floats.size > 0) for (const w of value.match(/[A-Za-z_]\w*/g) ?? []) if (floats.has(w)) return true;
  return false;
}

/** The float-typed names of the function around `at` (none outside functions). */
function floatsAt(idx: FileIndex, at: number): ReadonlySet<string> {
  const fn = idx.functionSpanAt(at);
  return fn ? floatNames(idx, fn) : NO_NAMES;
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** More `(` than `)`: the `;` lies inside parentheses (broken code), where the tree's value may run past it. */
function unclosed(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41) depth--;
  }
  return depth > 0;
}

/** `y[i] = v * r;`: a float stored into a half element or variable. */
function floatIntoHalfStore(idx: FileIndex, decls: HalfDecls, report: Report): void {
  for (const index of assignments(idx, decls)) {
    // Text first: the assigned expression must be a half name, maybe subscripted or a field.
    const lineStart = idx.text.lastIndexOf("\n", index) + 1;
    const at = decls.scopeAt(index);
    let base = plainLvalueBase(idx.text, lineStart, index);
    if (base === null) base = LVALUE_BASE.exec(idx.text.slice(lineStart, index))?.[1];
    if (!base || !at.lookup(base)) continue;
    const floats = floatsAt(idx, index);
    if (!mayBeArithmetic(idx, index, floats)) continue;
    // The `=` token's parent in one call, the smallest named node around it (Node.parent searches from
    // the root); a comment holding the `=` is such a node of its own, its parent the one around it.
    const around = idx.root.namedDescendantForIndex(index, index + 1);
    const a = around?.type === "comment" ? around.parent : around;
    if (a?.type !== "assignment_expression" || a.childForFieldName("operator")?.text !== "=") continue;
    const left = a.childForFieldName("left");
    const right = a.childForFieldName("right");
    if (!left || !right) continue;
    const scope = decls.scopeAt(a.startIndex);
    const lk = scope.valueKind(left);
    if ((lk === "half" || lk === "bf16") && isArithmeticValue(right, scope, floats)) report(right, lk, false);
  }
}

export const halfImplicitConversion: Rule = {
  id: "half-implicit-conversion",
  // Reported only where the build removes the conversion: nvcc rejects each one ("no operator "=" matches
  // these operands: __half = float", "no suitable conversion function"), see nvcc.test.ts.
  defaultSeverity: "error",
  basis: "does-not-compile",
  summary:
    "An implicit __half/__nv_bfloat16 <-> float conversion; it does not compile with -D__CUDA_NO_HALF_CONVERSIONS__ (PyTorch builds).",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const switches = switchesSet(ctx, idx, SWITCH);
    if (Object.keys(switches).length === 0) return;
    const report = reporter(ctx, switches);
    const decls = halfDecls(idx, declEnv(ctx));
    for (const find of [halfIntoArithmetic, floatIntoHalfInit, floatIntoHalfStore]) find(idx, decls, report);
  },
};
