// The textbook shared-memory tree reduction: log2(blockDim) steps, each with a block-wide barrier, with
// most threads idle in the last steps. Warp shuffles do the last five steps in registers without barriers.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { isSpaceCode, isWordCode } from "../analysis/source/charCodes";
import { Constants } from "../analysis/constants/constEval";
import { FileIndex, sharedQualifier, type FunctionInfo } from "../analysis/source/fileIndex";
import { ancestors, descendants, namedChildren, textIn, unparen } from "../analysis/source/nodes";
import { calleeName, LOOPS } from "../analysis/uniformity/uniformity";
import { fileScopeShared } from "../analysis/sharedMemory/fileScope";
import { reductionStep, type Stride } from "../analysis/sharedMemory/treeStep";
import { launchedAsOneBlock } from "../analysis/launches/launchSites";
import { definedName } from "../analysis/callgraph/callGraph";

/**
 * The operator of a halving or doubling step: `>>= 1`, `/= 2`, `<<= 1`, `*= 2`, or `>> 1`, `/ 2`, `<< 1`,
 * `* 2` (groups: operator, `=`, the number). Searched for first, its first character being rare: the name
 * before it is then read backwards (see hasStep).
 */
const STEP_OP = /(>>|<<|[/*])(=?)\s*([12])\b/g;

/**
 * Does the text step a variable: `s >>= 1`, `s /= 2`, `s <<= 1`, `s *= 2`, or `s = s >> 1`, `s = s / 2`,
 * `s = s << 1`, `s = s * 2` (what `\b(\w+)\s*(?:>>=\s*1|…)\b|\b(\w+)\s*=\s*\2\s*(?:>>\s*1|…)\b` finds; that
 * regex tries every word of the text)?
 */
function hasStep(src: string): boolean {
  STEP_OP.lastIndex = 0;
  for (let m = STEP_OP.exec(src); m; m = STEP_OP.exec(src)) {
    const [, op, assign, k] = m;
    if ((op === ">>" || op === "<<") !== (k === "1")) continue;
    const end = spaceBefore(src, m.index);
    const name = wordBefore(src, end);
    if (name === "") continue;
    if (assign) return true; // `s >>= 1`
    // `s = s >> 1`: the same whole word before an `=` before this one
    const eq = spaceBefore(src, end - name.length) - 1;
    if (src[eq] === "=" && wordBefore(src, spaceBefore(src, eq)) === name) return true;
  }
  return false;
}

/** Where the spaces ending at `end` (exclusive) start. */
function spaceBefore(text: string, end: number): number {
  let i = end;
  while (i > 0 && isSpaceCode(text.charCodeAt(i - 1))) i--;
  return i;
}

/** The whole word ending at `end` (exclusive), or "". */
function wordBefore(text: string, end: number): string {
  let i = end;
  while (i > 0 && isWordCode(text.charCodeAt(i - 1))) i--;
  return text.slice(i, end);
}

/** The stride variable when `update` halves (`s >>= 1`, `s /= 2`, `s = s / 2`) or doubles it (`src`: the file's text). */
function strideUpdate(update: Node | null, src: string): Stride | undefined {
  if (!update) return undefined;
  const u = unparen(update);
  // `s >>= 1, spre >>= 1`: the first of the updates that halves or doubles
  if (u.type === "comma_expression")
    return strideUpdate(u.childForFieldName("left"), src) ?? strideUpdate(u.childForFieldName("right"), src);
  if (u.type !== "assignment_expression") return undefined;
  const left = u.childForFieldName("left");
  const right = u.childForFieldName("right");
  const opNode = u.childForFieldName("operator");
  const op = opNode && textIn(src, opNode);
  if (left?.type !== "identifier" || !right) return undefined;
  const r = textIn(src, unparen(right)).replace(/\s+/g, "");
  const name = textIn(src, left);
  if ((op === ">>=" && r === "1") || (op === "/=" && r === "2")) return { name, dir: "down" };
  if ((op === "<<=" && r === "1") || (op === "*=" && r === "2")) return { name, dir: "up" };
  if (op === "=" && (r === `${name}>>1` || r === `${name}/2`)) return { name, dir: "down" };
  if (op === "=" && (r === `${name}<<1` || r === `${name}*2`)) return { name, dir: "up" };
  return undefined;
}

/** The smallest stride a halving loop still runs with, from its condition (`s > 0` → 1, `s > 32` → 33). */
function smallestStride(cond: Node | null, name: string, consts: Constants, src: string): number | undefined {
  if (!cond) return undefined;
  const c = unparen(cond.type === "condition_clause" ? (cond.childForFieldName("value") ?? cond) : cond);
  if (c.type === "identifier" && textIn(src, c) === name) return 1; // while (s)
  if (c.type !== "binary_expression") return undefined;
  const l = c.childForFieldName("left");
  const r = c.childForFieldName("right");
  const opNode = c.childForFieldName("operator");
  const op = opNode && textIn(src, opNode);
  if (!l || textIn(src, l) !== name || !r) return undefined;
  const k = consts.value(r);
  if (k === undefined) return undefined;
  if (op === ">") return k + 1;
  if (op === ">=") return k;
  if (op === "!=" && k === 0) return 1;
  return undefined;
}

/** `T* sdata = SharedMemory<T>()`, `float* buf = shared.getPointer()`: a pointer and its initialiser. */
const POINTER_INIT = /\*\s*(\w+)\s*=\s*([^;]+);/g;
/** `SharedMemory<Real> sdata;`: the helper object itself, indexed like an array. */
const SHARED_OBJECT = /\bSharedMemory\s*<[^;>]*>\s+(\w+)\s*;/g;
const SHARED_SOURCE = /\bSharedMemory\b|\bshared_memory\b|getPointer\s*\(/;

/**
 * Names of shared memory in function `fn`: declared `__shared__` (there or at file scope), found from the
 * qualifier's text (walking the function's declarations costs more), and pointers set from those or from
 * a SharedMemory<T>() helper (the CUDA samples' way to type dynamic shared memory); `params` are taken
 * as shared too.
 */
function sharedNames(idx: FileIndex, fn: FunctionInfo, params: string[]): Set<string> {
  const { start, end } = fn;
  const shared = new Set([...declaredShared(idx, fn.node, start, end), ...fileScopeShared(idx), ...params]);
  // a scan runs on to the next match, maybe at the end of the file: only where the range can hold one
  if (within(idx.text, "SharedMemory", start, end))
    for (const m of idx.scanAll(SHARED_OBJECT, start, end)) shared.add(m[1]!);
  // no name to find in a pointer's value (which ends at the first `;` from the range's end at the latest)
  const stop = idx.text.indexOf(";", end);
  const reach = idx.text.slice(start, stop < 0 ? idx.text.length : stop + 1);
  if (shared.size === 0 && !SHARED_SOURCE.test(reach)) return shared;
  const names = shared.size > 0 ? new RegExp(`\\b(?:${[...shared].join("|")})\\b`) : undefined;
  // over `reach`, which holds every match starting in the range whole, not on to the next one after it
  for (const m of reach.matchAll(POINTER_INIT)) {
    if (m.index >= end - start) break;
    const value = m[2]!;
    if (SHARED_SOURCE.test(value) || names?.test(value)) shared.add(m[1]!);
  }
  return shared;
}

/** Does `word` start in [start, end) of `text`? (A slice: indexOf would read on to the word's next place.) */
function within(text: string, word: string, start: number, end: number): boolean {
  return text.slice(start, end + word.length - 1).includes(word);
}

/** Can the function see shared memory at all (a cheap text look before the loops are read)? */
function mayHoldShared(idx: FileIndex, fn: FunctionInfo): boolean {
  const body = idx.text.slice(fn.body.startIndex, fn.end);
  if (body.includes("__shared__") || SHARED_SOURCE.test(body) || fileScopeShared(idx).size > 0) return true;
  return fn.space === "device" && idx.text.slice(fn.start, fn.body.startIndex).includes("*");
}

/**
 * A __device__ function's pointer parameters: the block's shared buffer is handed to reduction helpers
 * (`reduceBlock(volatile float* sdata, …)`); global memory reduced in place between barriers is as slow.
 */
function pointerParams(fn: Node, src: string): string[] {
  const params = fn.childForFieldName("declarator")?.childForFieldName("parameters");
  return descendants(params ?? fn, "parameter_declaration").flatMap((p) => {
    const d = p.childForFieldName("declarator");
    const name = d?.type === "pointer_declarator" ? d.childForFieldName("declarator") : null;
    return params && name?.type === "identifier" ? [textIn(src, name)] : [];
  });
}

function declaredShared(idx: FileIndex, fn: Node, start: number, end: number): Set<string> {
  const shared = new Set<string>();
  for (const m of idx.scanAll(/\b__shared__\b/g, start, end)) {
    const at = m.index + m[0].length;
    // the qualifier asked of the function first (a search from the root passes every top-level item before)
    const n = fn.namedDescendantForIndex(m.index, at);
    const decl = (n?.type === "type_qualifier" ? n : sharedQualifier(idx, m.index, at))?.parent;
    if (decl?.type !== "declaration") continue;
    const plain = plainSharedArray(idx.text.slice(decl.startIndex, decl.endIndex));
    if (plain && !decl.hasError) {
      for (const name of plain) shared.add(name);
      continue;
    }
    // the identifiers whose parent is one of these declarators (asked downwards: Node.parent is dear)
    for (const d of descendants(decl, "array_declarator", "pointer_declarator", "init_declarator"))
      for (const id of namedChildren(d)) if (id.type === "identifier") shared.add(idx.textOf(id));
  }
  return shared;
}

/** `[extern] __shared__ [volatile|const] [unsigned…] T name[N]…;` (groups: the name, the brackets). */
const PLAIN_SHARED_ARRAY =
  /^(?:extern\s+)?__shared__\s+(?:(?:volatile|const)\s+)?(?:(?:unsigned|signed|long|short)\s+)*[A-Za-z_]\w*\s+([A-Za-z_]\w*)\s*((?:\[[^[\];=]*\]\s*)+);$/;

/** Words a size in brackets may be that the tree does not read as an identifier. */
const NOT_IDENTIFIER = /^(?:true|false|NULL|nullptr|this|const|volatile|auto|sizeof)$/;

/**
 * The identifiers a declaration `__shared__ T name[N][M];` (text without errors) has right under its
 * array declarators, read from its text: the name, and each size that is one identifier. What the walk
 * over its declarators finds; undefined for other declarations.
 */
function plainSharedArray(decl: string): string[] | undefined {
  const m = PLAIN_SHARED_ARRAY.exec(decl);
  if (!m) return undefined;
  const out = [m[1]!];
  for (const size of m[2]!.split("]")) {
    const word = size.replace(/^\s*\[/, "").trim();
    if (NOT_IDENTIFIER.test(word)) return undefined;
    if (/^[A-Za-z_]\w*$/.test(word)) out.push(word);
  }
  return out;
}

/**
 * `for` and `while` loops of function `fn`, from their keywords, in document order. Each keyword's loop
 * is asked of the function (the smallest named node around the keyword, as FileIndex.ownerOf finds it
 * from the root, whose search passes every top-level item before the function).
 */
function forAndWhileLoops(idx: FileIndex, fn: FunctionInfo): { loop: Node; isFor: boolean }[] {
  const out: { loop: Node; isFor: boolean }[] = [];
  for (const m of idx.scanAll(/\b(for|while)\b/g, fn.start, fn.end)) {
    const type = `${m[0]}_statement`;
    const n = fn.node.namedDescendantForIndex(m.index, m.index + m[0].length);
    const t = n?.type;
    if (n && t && LOOPS.has(t)) {
      // its first token, at the match, is the keyword
      if (t === type && n.startIndex === m.index) out.push({ loop: n, isFor: m[0] === "for" });
      continue;
    }
    const kw = idx.nodeAt(m.index, m.index + m[0].length);
    const loop = kw.parent;
    if (kw.type !== m[0] || loop?.type !== type || loop.startIndex !== m.index) continue;
    out.push({ loop, isFor: m[0] === "for" });
  }
  return out;
}

/**
 * Text that may hold an update strideUpdate accepts: `>>=`, `/=`, `<<=`, `*=`, or `=` with `>>`, `/`,
 * `<<` or `*` after it. Most loops count up by one or by a block: their trees are not read.
 */
const MAY_STEP = /[>/<*]=|=[^=;][^;]*(?:>>|\/|<<|\*)/;

/**
 * The text of the header `for (…)` of the for loop at `at`, up to its matching parenthesis; undefined
 * where a comment, quote or preprocessor line may hide one.
 */
function forHeader(text: string, at: number): string | undefined {
  const open = text.indexOf("(", at);
  if (open < 0 || text.slice(at + 3, open).trim() !== "") return undefined;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(") depth++;
    else if (ch === ")") {
      if (--depth === 0) return text.slice(at, i + 1);
    } else if (ch === '"' || ch === "'" || ch === "#" || ch === "{" || ch === "}") return undefined;
    else if (ch === "/" && (text[i + 1] === "/" || text[i + 1] === "*")) return undefined;
  }
  return undefined;
}

/**
 * Can the loop at `loop` halve or double a stride at all (see MAY_STEP)? A for loop's update is in its
 * header, read from the text; a while loop's assignments are in its body.
 */
function mayStep(text: string, loop: Node, isFor: boolean, body: () => Node | null): boolean {
  const header = isFor ? forHeader(text, loop.startIndex) : undefined;
  if (header !== undefined) return MAY_STEP.test(header);
  const b = body();
  if (!b) return true; // no body: the caller's own test
  return MAY_STEP.test(text.slice(isFor ? loop.startIndex : b.startIndex, isFor ? b.startIndex : b.endIndex));
}

/** The stride a loop halves or doubles: its `for` update, or an assignment in a `while` body. */
function loopStride(loop: Node, isFor: boolean, body: Node, src: string): Stride | undefined {
  if (isFor) return strideUpdate(loop.childForFieldName("update"), src);
  let stride: Stride | undefined;
  for (const a of descendants(body, "assignment_expression")) stride ??= strideUpdate(a, src);
  return stride;
}

/** Barriers by text: `__syncthreads()`, `__syncwarp()`, and cooperative groups' `cg::sync(g)`, `g.sync()`. */
const BARRIER_TEXT = /\b__sync(?:threads|warp)\b|\bsync\s*\(/;

/** A barrier call: the name of the function it calls is `__syncthreads`, `__syncwarp` or `sync`. */
function barrierCall(c: Node, src: string): boolean {
  const name = calleeName(c.childForFieldName("function"), src);
  return name === "__syncthreads" || name === "__syncwarp" || name === "sync";
}

/**
 * The barrier the loop body calls, when the body is a tree reduction's step (analysis/sharedMemory/
 * treeStep.ts). Only a body that names the stride can index with it: others are not read node by node.
 */
function treeStepBarrier(
  body: Node,
  src: string,
  shared: () => ReadonlySet<string>,
  stride: Stride,
  consts: Constants,
): Node | undefined {
  const text = textIn(src, body);
  if (!BARRIER_TEXT.test(text) || !text.includes(stride.name)) return undefined;
  // the calls, declarations and assignments in one walk (each walk costs, whatever it finds)
  const calls: Node[] = [];
  const writes: Node[] = [];
  for (const n of descendants(body, "call_expression", "init_declarator", "assignment_expression"))
    (n.type === "call_expression" ? calls : writes).push(n);
  const barrier = calls.find((c) => barrierCall(c, src));
  if (!barrier) return undefined;
  return reductionStep({ node: body, text, src, calls, writes }, shared(), stride, consts)
    ? barrier
    : undefined;
}

/**
 * A loop of a kernel the file launches only as one block, inside no other loop: the tree runs once per
 * launch on one SM, a few hundred cycles against the launch's own microseconds.
 */
function oncePerLaunch(idx: FileIndex, fn: FunctionInfo, loop: Node): boolean {
  if (fn.space !== "global") return false;
  for (const a of ancestors(loop, fn.node)) if (LOOPS.has(a.type)) return false;
  const name = definedName(idx, fn.node);
  return name !== undefined && launchedAsOneBlock(idx, name);
}

export const sharedMemoryReduction: Rule = {
  id: "shared-memory-reduction",
  defaultSeverity: "warning",
  basis: "heuristic",
  shippedCodeOnly: true,
  summary:
    "A block reduction halving a stride in shared memory with a barrier every step down to one element.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const consts = Constants.of(idx);
    for (const fn of idx.deviceFunctions()) {
      const { start, end } = fn;
      // Cheap text test first: only functions with a barrier and a halving/doubling step.
      const src = idx.text.slice(start, end);
      if (!src.includes("sync") || !BARRIER_TEXT.test(src) || !hasStep(src) || !mayHoldShared(idx, fn))
        continue;
      // The shared names only once a loop qualifies (most halving loops do not).
      let shared: Set<string> | undefined;
      for (const { loop, isFor } of forAndWhileLoops(idx, fn)) {
        let body: Node | null | undefined;
        const bodyOf = (): Node | null => (body ??= loop.childForFieldName("body"));
        if (!mayStep(idx.text, loop, isFor, bodyOf)) continue;
        body = bodyOf();
        if (!body) continue;
        const stride = loopStride(loop, isFor, body, idx.text);
        if (!stride) continue;
        if (stride.dir === "down") {
          const min = smallestStride(loop.childForFieldName("condition"), stride.name, consts, idx.text);
          // Stopping at 32 and finishing with shuffles is the recommended hybrid.
          if (min === undefined || min >= 32) continue;
        }
        const barrier = treeStepBarrier(
          body,
          idx.text,
          () =>
            (shared ??= sharedNames(idx, fn, fn.space === "device" ? pointerParams(fn.node, idx.text) : [])),
          stride,
          consts,
        );
        if (!barrier || oncePerLaunch(idx, fn, loop)) continue;
        ctx.report({
          node: loop.child(0) ?? loop,
          message: `Shared-memory tree reduction over \`${stride.name}\`: one ${barrier.childForFieldName("function")!.text}() per step down to a single element, most threads idle at the end. Reduce within each warp with __shfl_xor_sync (no barrier), then combine the per-warp results (one shared slot per warp, one barrier).`,
        });
      }
    }
  },
};
