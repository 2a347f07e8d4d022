// Is a node compiled for a target? Evaluates the `#if`/`#elif`/`#else` conditions around it with
// __CUDA_ARCH__ set to each target (or undefined: the host pass) and the build's macros (macroEnv.ts:
// HIP's and a project's HIP switches are undefined in a CUDA build), in three-valued logic. Dead code for
// the findings (inDeadCode) also reads the file's and its project headers' #defines (preprocess.ts);
// the arch ranges rules ask for in a window (archOffRanges) read only the directives themselves.
import type { Node, Tree } from "web-tree-sitter";
import { FileIndex } from "../source/fileIndex";
import { isSpaceCode, isWordCode } from "../source/charCodes";
import { codeOnly } from "../source/codeText";
import { holds } from "./condition";
import { directiveLines, logicalLineEnd } from "./directiveLines";
import { baseLookup, type MacroEnv, type Pass } from "./macroEnv";
import { deadArms, type IncludeReader } from "./preprocess";
import { projectHeaders } from "./projectHeaders";

export type { MacroEnv } from "./macroEnv";

type Tri = boolean | undefined;

const NO_MACROS: MacroEnv = { defines: new Map(), undefines: new Set() };

/** Whether the condition `cond` holds in one pass, with only the build's macros known. */
function truth(idx: FileIndex, cond: Node | null | undefined, pass: Pass, env: MacroEnv): Tri {
  return cond ? holds(idx.textOf(cond), baseLookup(pass, env)) : undefined;
}

/** Whether a preprocessor arm is compiled in one pass. */
function branchActive(idx: FileIndex, branch: Node, pass: Pass, env: MacroEnv): Tri {
  // branch is preproc_if / preproc_ifdef / preproc_elif / preproc_else; walk back through earlier arms.
  const head = (b: Node): Tri => {
    if (b.type === "preproc_if" || b.type === "preproc_elif")
      return truth(idx, b.childForFieldName("condition"), pass, env);
    if (b.type === "preproc_ifdef") {
      const name = b.childForFieldName("name")?.text;
      const d = name ? baseLookup(pass, env)(name).defined : undefined;
      if (d === undefined) return undefined;
      return b.child(0)?.type === "#ifndef" ? !d : d;
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
    if (passes.every((p) => branchActive(idx, arm, p, env) === false)) out.push(armBody(arm));
  }
  return out;
}

/**
 * Which of `points` lie in code no compilation of the file sees, with the build's macros and targets
 * (undefined: any device arch), the file's #defines and its project headers' (when `headers` says where
 * to look): `#if 0`, `#ifdef USE_ROCM` or a project's HIP switch in a CUDA build, `#if __CUDA_ARCH__ >=
 * 800` when every target is below, `#if DEBUG_PRINT` where the file defines DEBUG_PRINT as 0.
 */
export function inDeadCode(
  tree: Tree,
  text: string,
  targets: readonly number[] | undefined,
  env: MacroEnv,
  points: readonly { row: number; column: number }[],
  headers?: HeaderSource,
): boolean[] {
  const idx = FileIndex.of({ tree, text });
  if (!idx.directives().some((d) => IF_WORDS.has(d.word))) return points.map(() => false);
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
  const include: IncludeReader | undefined = headers
    ? (name) =>
        projectHeaders(headers.fileName, [name], headers.headerRoot, headers.includeDirs).map((f) => f.lines)
    : undefined;
  const dead = deadArms(directiveLines(text, codeOnly(text)), passes, env, include, text.length);
  return offsets.map((o) => inRanges(o, dead));
}

/** Where a file's includes are looked for (projectHeaders.ts): its path, the header root, the build's -I folders. */
export interface HeaderSource {
  fileName: string;
  headerRoot?: string;
  includeDirs?: readonly string[];
}

const IF_WORDS: ReadonlySet<string> = new Set(["if", "ifdef", "ifndef"]);

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
    const hold = passes.map((p) => truth(idx, cond, p, env));
    const then = stmt.childForFieldName("consequence");
    const alt = stmt.childForFieldName("alternative");
    if (then && hold.every((h) => h === false)) out.push([then.startIndex, then.endIndex]);
    if (alt && hold.every((h) => h === true)) out.push([alt.startIndex, alt.endIndex]);
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

type Directive = ReturnType<FileIndex["directives"]>[number];

/** Does the condition of the `#if`/`#elif` directive `d` hold on sm_80 and not on sm_75? */
function guardsBf16(idx: FileIndex, d: Directive): boolean {
  let n = idx.ownerOf(d.hash, d.end, IF_ARMS) ?? null;
  if (!n) {
    const tok = idx.nodeAt(d.hash, d.end);
    n = IF_ARMS.has(tok.type) ? tok : tok.parent;
  }
  const c = n?.childForFieldName("condition");
  if (!c) return false;
  const lo = truth(idx, c, 750, NO_MACROS);
  const hi = truth(idx, c, 800, NO_MACROS);
  return lo !== undefined && hi !== undefined && lo !== hi;
}
