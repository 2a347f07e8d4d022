// Is a node compiled for a target? Evaluates the `#if`/`#elif`/`#else` conditions around it with
// __CUDA_ARCH__ set to each target (or undefined: the host pass), and the build's command-line macros
// (USE_ROCM is undefined in a CUDA build), in three-valued logic: other macros are unknown.
import type { Node, Tree } from "web-tree-sitter";
import type { BuildFacts } from "../../rules/rule";
import { FileIndex } from "../source/fileIndex";
import { namedChildren, unparen } from "../source/nodes";
import { parseIntLiteral } from "../constants/constEval";
import { isSpaceCode, isWordCode } from "../source/charCodes";

type Tri = boolean | undefined;
/** The macros a condition may name, as the build context knows them. */
export type MacroEnv = Pick<BuildFacts, "defines" | "undefines">;
/** One compilation pass: the host, a device pass for an SM×10 value (e.g. 750), or a device pass for any arch. */
type Pass = number | "host" | "device";

const NO_MACROS: MacroEnv = { defines: new Map(), undefines: new Set() };

/** 1 or 0 for a macro the build defines or undefines; undefined when it does not say. */
function definedness(name: string, pass: Pass, env: MacroEnv): number | undefined {
  if (name === "__CUDA_ARCH__") return pass === "host" ? 0 : 1;
  if (env.defines.has(name)) return 1;
  return env.undefines.has(name) ? 0 : undefined;
}

function identifierValue(name: string, pass: Pass, env: MacroEnv): number | undefined {
  if (name === "__CUDA_ARCH__") return pass === "host" ? 0 : pass === "device" ? undefined : pass;
  const v = env.defines.get(name);
  if (v !== undefined) return /^\d+$/.test(v) ? Number(v) : undefined;
  // An undefined macro reads as 0 in #if.
  return env.undefines.has(name) ? 0 : undefined;
}

function compare(op: string | undefined, a: number, b: number): number | undefined {
  switch (op) {
    case ">=":
      return a >= b ? 1 : 0;
    case ">":
      return a > b ? 1 : 0;
    case "<=":
      return a <= b ? 1 : 0;
    case "<":
      return a < b ? 1 : 0;
    case "==":
      return a === b ? 1 : 0;
    case "!=":
      return a !== b ? 1 : 0;
    default:
      return undefined;
  }
}

/** Values are numbers; `undefined` means unknown. */
function evalCond(node: Node, pass: Pass, env: MacroEnv): number | undefined {
  const n = unparen(node);
  switch (n.type) {
    case "number_literal":
      return parseIntLiteral(n.text);
    case "identifier":
      return identifierValue(n.text, pass, env);
    case "preproc_defined": {
      const name = namedChildren(n).find((c) => c.type === "identifier")?.text;
      return name ? definedness(name, pass, env) : undefined;
    }
    case "unary_expression": {
      const v = evalCond(n.childForFieldName("argument") ?? n, pass, env);
      const op = n.childForFieldName("operator")?.text;
      if (v === undefined) return undefined;
      return op === "!" ? (v ? 0 : 1) : op === "-" ? -v : undefined;
    }
    case "binary_expression": {
      const op = n.childForFieldName("operator")?.text;
      const a = evalCond(n.childForFieldName("left") ?? n, pass, env);
      const b = evalCond(n.childForFieldName("right") ?? n, pass, env);
      if (op === "&&") return a === 0 || b === 0 ? 0 : a === undefined || b === undefined ? undefined : 1;
      if (op === "||")
        return (a !== undefined && a !== 0) || (b !== undefined && b !== 0)
          ? 1
          : a === undefined || b === undefined
            ? undefined
            : 0;
      if (a === undefined || b === undefined) return undefined;
      return compare(op, a, b);
    }
    default:
      return undefined;
  }
}

function truth(cond: Node | null | undefined, pass: Pass, env: MacroEnv): Tri {
  if (!cond) return undefined;
  const v = evalCond(cond, pass, env);
  return v === undefined ? undefined : v !== 0;
}

/** Whether a preprocessor arm is compiled in one pass. */
function branchActive(branch: Node, pass: Pass, env: MacroEnv): Tri {
  // branch is preproc_if / preproc_ifdef / preproc_elif / preproc_else; walk back through earlier arms.
  const head = (b: Node): Tri => {
    if (b.type === "preproc_if" || b.type === "preproc_elif")
      return truth(b.childForFieldName("condition"), pass, env);
    if (b.type === "preproc_ifdef") {
      const name = b.childForFieldName("name")?.text;
      const d = name ? definedness(name, pass, env) : undefined;
      if (d === undefined) return undefined;
      return b.child(0)?.type === "#ifndef" ? d === 0 : d === 1;
    }
    return true;
  };
  let active: Tri = head(branch);
  for (
    let prev = branch.parent;
    prev && branch.type !== "preproc_if" && branch.type !== "preproc_ifdef";
    prev = prev.parent
  ) {
    if (!["preproc_if", "preproc_ifdef", "preproc_elif"].includes(prev.type)) break;
    const p = head(prev);
    // this arm runs only when every earlier arm was false
    active = p === true ? false : p === undefined ? (active === false ? false : undefined) : active;
    if (prev.type === "preproc_if" || prev.type === "preproc_ifdef") break;
  }
  return active;
}

/** The text range [start, end) of an arm's body. */
function armBody(arm: Node): [number, number] {
  const head = arm.childForFieldName("condition") ?? arm.childForFieldName("name") ?? arm.child(0);
  const alt = arm.childForFieldName("alternative");
  return [head?.endIndex ?? arm.startIndex, alt?.startIndex ?? arm.endIndex];
}

/** Every preprocessor arm among `directives` that no pass of `passes` compiles. */
function offArms(
  idx: FileIndex,
  directives: readonly { hash: number; end: number; word: string }[],
  passes: readonly Pass[],
  env: MacroEnv,
): [number, number][] {
  const out: [number, number][] = [];
  for (const d of directives) {
    if (!ARM_WORDS.has(d.word)) continue;
    const arm = idx.ownerOf(d.hash, d.end, ARMS) ?? armOf(idx.nodeAt(d.hash, d.end));
    if (!arm || !ARMS.has(arm.type)) continue;
    if (passes.every((p) => branchActive(arm, p, env) === false)) out.push(armBody(arm));
  }
  return out;
}

/**
 * Which of `points` lie in code no compilation of the file sees, with the build's macros and targets
 * (undefined: any device arch): `#if 0`, `#ifdef USE_ROCM` in a CUDA build, `#if __CUDA_ARCH__ >= 800`
 * when every target is below. Runs on every lint: only the arms holding a point are asked of the tree.
 */
export function inDeadCode(
  tree: Tree,
  text: string,
  targets: readonly number[] | undefined,
  env: MacroEnv,
  points: readonly { row: number; column: number }[],
): boolean[] {
  const idx = FileIndex.of({ tree, text });
  const arms = decidable(text, idx.directives(), env);
  if (arms.length === 0) return points.map(() => false);
  // Rows are '\n'-counted, columns UTF-16 units, as in the tree: a line's start plus the column. Only a
  // point before the root's first token (leading blank lines) asks the tree, as it always did.
  const firstRow = tree.rootNode.startPosition.row;
  const starts = rowStarts(
    text,
    points.filter((p) => p.row >= firstRow).map((p) => p.row),
  );
  const offsets = points.map((p) => {
    if (p.row >= firstRow) {
      const start = starts.get(p.row);
      return start === undefined ? -1 : start + p.column;
    }
    const n = tree.rootNode.descendantForPosition(p);
    if (!n) return -1;
    // The smallest node there may start on an earlier line: walk down the text to the point's line.
    let off = n.startIndex;
    for (let row = n.startPosition.row; row < p.row; row++) {
      off = text.indexOf("\n", off) + 1;
      if (off === 0) return -1;
    }
    return off + p.column - (n.startPosition.row === p.row ? n.startPosition.column : 0);
  });
  const passes: Pass[] = ["host", ...(targets ? targets.map((t) => t * 10) : ["device" as const])];
  const holding = arms.filter((a) => offsets.some((o) => o >= a.d.end && o < a.end)).map((a) => a.d);
  const dead = offArms(idx, holding, passes, env);
  return offsets.map((o) => dead.some(([a, b]) => o >= a && o < b));
}

/**
 * The offset where each of `rows` starts (none for a row past the last line), in one walk down the text
 * to the last of them. A list of every line's start cost ~150 KB of garbage per edit in a 5,000-line
 * file, which the collector then paid for in the slowest edits.
 */
function rowStarts(text: string, rows: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  let row = 0;
  let start = 0;
  for (const want of [...new Set(rows)].sort((a, b) => a - b)) {
    while (row < want) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) return out;
      start = nl + 1;
      row++;
    }
    out.set(want, start);
  }
  return out;
}

type Directive = ReturnType<FileIndex["directives"]>[number];

/**
 * The arms (directive and the text offset where the arm ends) whose chain names something the context
 * decides (__CUDA_ARCH__, a build macro, a literal 0/1): the others are never off.
 */
function decidable(
  text: string,
  directives: readonly Directive[],
  env: MacroEnv,
): { d: Directive; end: number }[] {
  const names = ["__CUDA_ARCH__", ...env.defines.keys(), ...env.undefines].filter((n) => /^\w+$/.test(n));
  const known = new RegExp(`\\b(?:${names.join("|")})\\b|^\\s*[01]\\s*(?:$|//|/\\*)`);
  const decides = (d: Directive): boolean => {
    const nl = text.indexOf("\n", d.end);
    return known.test(text.slice(d.end, nl < 0 ? text.length : nl));
  };
  // Per open #if chain: does any condition so far name something known, and the arm being read.
  const chains: { known: boolean; arm: Directive; armKnown: boolean }[] = [];
  const out: { d: Directive; end: number }[] = [];
  for (const d of directives) {
    if (d.word === "if" || d.word === "ifdef" || d.word === "ifndef") {
      const k = decides(d);
      chains.push({ known: k, arm: d, armKnown: k });
      continue;
    }
    const top = chains[chains.length - 1];
    if (!top || (d.word !== "elif" && d.word !== "else" && d.word !== "endif")) continue;
    if (top.armKnown) out.push({ d: top.arm, end: d.hash });
    if (d.word === "endif") chains.pop();
    else {
      if (d.word === "elif") top.known = top.known || decides(d);
      top.arm = d;
      top.armKnown = top.known;
    }
  }
  return out;
}

/**
 * Text ranges [start, end) of device code compiled for none of `lowArchs` (SM numbers such as 75):
 * `#if __CUDA_ARCH__ >= 800` bodies, `#else` arms of `< 800` tests, NV_IF_TARGET(NV_PROVIDES_SM_80, …)
 * arms, `if constexpr (__CUDA_ARCH__ >= 800)` branches. Unknown conditions (other macros) are not guards.
 */
export function archOffRanges(
  idx: FileIndex,
  lowArchs: readonly number[],
  env: MacroEnv = NO_MACROS,
): [number, number][] {
  if (lowArchs.length === 0) return [];
  const passes = lowArchs.map((sm) => sm * 10);
  return [
    ...offArms(idx, idx.windowDirectives(), passes, env),
    ...targetMacroRanges(idx, lowArchs),
    ...constexprRanges(idx, passes, env),
  ];
}

/** Whether NV_IF_TARGET's first argument holds on an SM (undefined for a query we do not know). */
function targetQuery(query: string, sm: number): Tri {
  const q = query.trim();
  const m = /^NV_(PROVIDES_SM|IS_EXACTLY_SM)_(\d+)$/.exec(q);
  if (m) return m[1] === "PROVIDES_SM" ? sm >= Number(m[2]) : sm === Number(m[2]);
  if (q === "NV_IS_DEVICE" || q === "NV_ANY_TARGET") return true;
  if (q === "NV_IS_HOST" || q === "NV_NO_TARGET") return false;
  return undefined;
}

/** The top-level comma-separated argument ranges of the call whose `(` is at `open`. */
function macroArgs(text: string, open: number): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
    } else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      if (--depth === 0) {
        out.push([start, i]);
        return out;
      }
    } else if (c === "," && depth === 1) {
      out.push([start, i]);
      start = i + 1;
    }
  }
  return out;
}

/** <nv/target>'s NV_IF_TARGET(query, (then)) and NV_IF_ELSE_TARGET(query, (then), (else)). */
function targetMacroRanges(idx: FileIndex, lowArchs: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  if (!idx.text.includes("NV_IF_")) return out;
  for (const m of idx.scan(/\bNV_IF_(?:ELSE_)?TARGET\s*\(/g)) {
    const args = macroArgs(idx.text, m.index + m[0].length - 1);
    if (args.length < 2) continue;
    const q = idx.text.slice(args[0]![0], args[0]![1]);
    const holds = lowArchs.map((sm) => targetQuery(q, sm));
    if (holds.every((h) => h === false)) out.push(args[1]!);
    if (args[2] && holds.every((h) => h === true)) out.push(args[2]);
  }
  return out;
}

/** After `if`: `constexpr (__CUDA_ARCH__ >= 800)` or a later architecture. */
const CONSTEXPR_BF16 = /constexpr\s*\(\s*__CUDA_ARCH__\s*>=?\s*[89]\d\d\b/y;

/**
 * Each `if constexpr` whose `if` starts in [from, to): the `if`'s offset and the `constexpr`'s. What
 * /\bif\s+constexpr\b/g finds, from the rarer word (a regex starting at `if` tries every `if`).
 */
function* ifConstexprs(text: string, from: number, to: number): Generator<[number, number]> {
  const re = /\bconstexpr\b/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let j = m.index;
    while (j > 0 && isSpaceCode(text.charCodeAt(j - 1))) j--;
    // The `if` of each later `constexpr` starts after this one: past `to`, none is left.
    if (j - 2 >= to) return;
    const wordBefore = j >= 3 && isWordCode(text.charCodeAt(j - 3));
    if (j < m.index && j - 2 >= from && text.startsWith("if", j - 2) && !wordBefore) yield [j - 2, m.index];
  }
}

/** `if constexpr (__CUDA_ARCH__ >= 800) {…} else {…}`: the branch no low pass takes. */
function constexprRanges(idx: FileIndex, passes: readonly Pass[], env: MacroEnv): [number, number][] {
  const out: [number, number][] = [];
  if (!idx.text.includes("constexpr")) return out;
  const { start, end } = idx.window;
  for (const [at] of ifConstexprs(idx.text, start, end)) {
    const stmt = idx.nodeAt(at, at + 2).parent;
    if (stmt?.type !== "if_statement") continue;
    const clause = stmt.childForFieldName("condition");
    const cond = clause?.childForFieldName("value") ?? clause?.namedChild(0);
    if (!cond?.text.includes("__CUDA_ARCH__")) continue;
    const holds = passes.map((p) => truth(cond, p, env));
    const then = stmt.childForFieldName("consequence");
    const alt = stmt.childForFieldName("alternative");
    if (then && holds.every((h) => h === false)) out.push([then.startIndex, then.endIndex]);
    if (alt && holds.every((h) => h === true)) out.push([alt.startIndex, alt.endIndex]);
  }
  return out;
}

const ARMS: ReadonlySet<string> = new Set(["preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else"]);
const ARM_WORDS: ReadonlySet<string> = new Set(["if", "ifdef", "ifndef", "elif", "else"]);
const IF_ARMS: ReadonlySet<string> = new Set(["preproc_if", "preproc_elif"]);

/** The arm a directive's token belongs to: the token itself or its parent. */
function armOf(tok: Node): Node | null {
  return ARMS.has(tok.type) ? tok : tok.parent;
}

export function inRanges(offset: number, ranges: readonly [number, number][]): boolean {
  return ranges.some(([a, b]) => offset >= a && offset < b);
}

/** Does the file guard anything on __CUDA_ARCH__ >= 800 at all (for the `cuda_bf16.h` include check)? */
export function hasBf16Guard(idx: FileIndex): boolean {
  idx.reads("context:guard");
  return idx.shared("hasBf16Guard", () => findBf16Guard(idx));
}

function findBf16Guard(idx: FileIndex): boolean {
  // <nv/target> and `if constexpr` guards count as well as preprocessor ones. The directives first: the
  // file's lines are listed for other readers anyway, and the common `#if __CUDA_ARCH__ >= 800` ends
  // the search there, before the scans of the whole text for the others.
  const { text } = idx;
  for (const d of idx.directives()) {
    if (d.word !== "if" && d.word !== "elif") continue;
    // With no macros known only __CUDA_ARCH__ differs between the two passes: skip other conditions
    // (a block comment may carry the condition past the line: then ask the tree).
    const line = text.slice(d.end, logicalLineEnd(text, d.end));
    if (!line.includes("__CUDA_ARCH__") && !line.includes("/*")) continue;
    const guard = guardsBf16(idx, d);
    if (guard) return true;
  }
  // The regexes only where their fixed words occur: this runs on every edit.
  if (text.includes("NV_PROVIDES_SM_"))
    for (const m of text.matchAll(/\bNV_IF_(?:ELSE_)?TARGET\s*\(\s*NV_PROVIDES_SM_(\d+)/g))
      if (Number(m[1]) >= 80) return true;
  if (text.includes("__CUDA_ARCH__"))
    for (const [, word] of ifConstexprs(text, 0, text.length)) {
      CONSTEXPR_BF16.lastIndex = word;
      if (CONSTEXPR_BF16.test(text)) return true;
    }
  return false;
}

/** Does the condition of the `#if`/`#elif` directive `d` hold on sm_80 and not on sm_75? */
function guardsBf16(idx: FileIndex, d: Directive): boolean {
  let n = idx.ownerOf(d.hash, d.end, IF_ARMS) ?? null;
  if (!n) {
    const tok = idx.nodeAt(d.hash, d.end);
    n = IF_ARMS.has(tok.type) ? tok : tok.parent;
  }
  const c = n?.childForFieldName("condition");
  if (!c) return false;
  const lo = truth(c, 750, NO_MACROS);
  const hi = truth(c, 800, NO_MACROS);
  return lo !== undefined && hi !== undefined && lo !== hi;
}

/** Where the line holding `at` ends, following backslash continuations. */
function logicalLineEnd(text: string, at: number): number {
  let end = text.indexOf("\n", at);
  while (end > 0 && /\\\r?$/.test(text.slice(Math.max(0, end - 2), end))) end = text.indexOf("\n", end + 1);
  return end < 0 ? text.length : end;
}
