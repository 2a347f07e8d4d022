// A block barrier that only some threads of the block reach: the block deadlocks or, worse, silently
// synchronizes with the wrong barrier. Threads that have exited are not waited for
// (analysis/uniformity/barrierReach.ts): a barrier after an early return is fine, and so is one in a
// thread-dependent branch or loop that ends the kernel (the threads that skip it exit). Which conditions
// differ between threads comes from the function's uniformity analysis (analysis/uniformity/): conditions
// on blockIdx, kernel arguments, constants, uniform loop counters or shared values read after a barrier
// are the same for every thread and are fine, and so is a bounds guard the file's launches make true for
// every thread (`i < n` in one block of n threads: analysis/launches/launchedGuards.ts).
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import type { Basis } from "./severity";
import { isSpaceCode, isWordCode } from "../analysis/source/charCodes";
import { FileIndex, type FunctionInfo } from "../analysis/source/fileIndex";
import {
  LOOPS,
  Uniformity,
  type Barrier,
  type Control,
  type Exit,
  type SoFar,
} from "../analysis/uniformity/uniformity";
import { endsKernel, endsThread, sharedArrays, sharedWrite } from "../analysis/uniformity/barrierReach";
import { ancestors } from "../analysis/source/nodes";
import { codeSlice } from "../analysis/source/codeText";
import { fileScopeShared } from "../analysis/sharedMemory/fileScope";
import { classConstructors } from "../analysis/types/classConstructors";
import { launchGuards } from "../analysis/launches/launchedGuards";

const IDENTS: ReadonlySet<string> = new Set(["identifier", "field_identifier"]);

/** `__syncthreads…`, and `sync` for cooperative groups (`cta.sync()`, `cg::sync(block)`), before a `(`. */
const BARRIER_WORD = /^(?:__syncthreads(?:_count|_and|_or)?|sync)$/;

/**
 * A barrier's name in a function: where it starts, and its node, unless it is a statement `name();` of
 * the function's body itself (see bodyStatement), in no condition: its node is not needed then.
 */
interface BarrierToken {
  f: FunctionInfo;
  at: number;
  id: Node | undefined;
}

/**
 * The barrier names called in the run's window, in device functions' bodies, with their function: the
 * identifiers of BARRIER_WORD followed by `(` (what FileIndex.tokens finds for `\b(word)\s*\(`). Each
 * holds `sync`, which is found without a regex trying every place of the file, and is asked of its
 * function rather than the root (whose search passes every top-level item before).
 */
function barrierTokens(idx: FileIndex): BarrierToken[] {
  const { text } = idx;
  const { start, end } = idx.window;
  const out: BarrierToken[] = [];
  // "ync", then its "s": a search for "sync" stops at every `s` of the file, one for "ync" at every `y`
  for (let y = text.indexOf("ync", start + 1); y >= 0; y = text.indexOf("ync", y + 3)) {
    const at = y - 1;
    if (text.charCodeAt(at) !== 115) continue;
    let from = at;
    while (from > 0 && isWordCode(text.charCodeAt(from - 1))) from--;
    let to = at + 4;
    while (to < text.length && isWordCode(text.charCodeAt(to))) to++;
    if (from >= end) break;
    if (from < start || !BARRIER_WORD.test(text.slice(from, to))) continue;
    let paren = to;
    while (paren < text.length && isSpaceCode(text.charCodeAt(paren))) paren++;
    if (text[paren] !== "(") continue;
    const f = idx.deviceFunctionAt(from);
    if (!f) continue;
    // a body statement `name();` is the call itself: its name is the identifier, and needs no node
    if (bodyStatement(text, f.body, from, to)) {
      out.push({ f, at: from, id: undefined });
      continue;
    }
    const n = f.node.descendantForIndex(from, to);
    if (n && n.startIndex === from && IDENTS.has(n.type) && n.endIndex === to)
      out.push({ f, at: from, id: n });
  }
  return out;
}

/** Relative, so the message still holds when edits above move the function. */
function linesAbove(call: Node, at: Node): string {
  const above = call.startPosition.row - at.startPosition.row;
  if (above < 0) return above === -1 ? "1 line below" : `${-above} lines below`;
  return above === 0 ? "on this line" : above === 1 ? "1 line above" : `${above} lines above`;
}

function inside(n: Node, outer: Node): boolean {
  return n.startIndex >= outer.startIndex && n.endIndex <= outer.endIndex;
}

/**
 * An `if` whose two branches hold as many block barriers: every thread reaches one of them the same
 * number of times (`__syncthreads()` is one barrier, wherever it is called from), a deliberate pattern.
 */
function balanced(barriers: readonly Barrier[], branch: Node): boolean {
  if (branch.type !== "if_statement") return false;
  const count = (n: Node | null): number =>
    n ? barriers.filter((b) => b.level === "block" && inside(b.call, n)).length : 0;
  const alternative = branch.childForFieldName("alternative");
  return alternative !== null && count(branch.childForFieldName("consequence")) === count(alternative);
}

function condText(cond: Node): string {
  return cond.text.replace(/^\((.*)\)$/s, "$1");
}

/**
 * Why `b` is divergent, or undefined when every thread of the block that has not exited reaches it: a
 * return from the kernel ends its thread, which the barrier does not wait for (barrierReach.ts), and so
 * does skipping a branch, or leaving a loop, that ends the kernel (nothing after it for those threads).
 * Either is reported only when the exiting threads skip shared-memory writes before the barrier
 * (`skippedWrite`), as information: whether the launch ever makes its condition true for part of a block
 * is the host's. A return from a __device__ function or a lambda does not end the thread: its caller
 * goes on.
 */
function divergence(
  u: Uniformity,
  b: Barrier,
  endsKernel: (k: Control) => boolean,
  endsThread: (e: Exit) => boolean,
  skippedWrite: (from: Node, b: Barrier) => string | undefined,
): { message: string; basis?: Basis } | undefined {
  // read only for a finding (each node read costs)
  const name = (): string => `${b.call.childForFieldName("function")!.text}()`;
  const k = b.controls.find((c) => u.varies(c.deps) && !balanced(u.barriers, c.guarded));
  if (k) {
    const where = linesAbove(b.call, k.cond);
    const loop = LOOPS.has(k.guarded.type);
    const what = loop
      ? `runs once per iteration of a loop whose condition \`${condText(k.cond)}\` (${where}) depends on the thread index`
      : `is reached only by the threads for which \`${condText(k.cond)}\` (${where}) holds, which depends on the thread index`;
    if (!endsKernel(k)) {
      // they go on: to a later barrier, to work the barrier was to order, or round an enclosing loop
      const why = loop
        ? "threads leave the loop after different numbers of barriers and go on. Give every thread of the block the same trip count (loop to a block-uniform bound and predicate the work inside), or move the barrier out of the loop."
        : "the other threads never arrive at this barrier and go on. Move the barrier out of the branch and predicate only the work.";
      return { message: `${name()} ${what}: ${why}` };
    }
    const write = skippedWrite(k.guarded, b);
    if (write) {
      const leave = loop ? "leave the loop early" : "skip the branch";
      const message = `${name()} ${what}. The threads that ${leave} run to the end of the kernel and exit, and the barrier does not wait for them, but they skip their share of the shared-memory writes before it (\`${write}\`): if the launch can make that happen in part of a block, the threads left may read elements nobody wrote after the barrier. Keep every thread through the cooperative copy and predicate only its global loads and stores, or assert the shapes that rule it out.`;
      return { message, basis: "needs-context" };
    }
  }
  for (const e of u.exits) {
    const why = u.firstVarying(e.controls);
    if (!why || !u.skips(e, b)) continue;
    if (endsThread(e)) {
      const write = skippedWrite(e.stmt, b);
      if (!write) continue;
      const message = `${name()} comes after the \`${e.kind}\` ${linesAbove(b.call, e.stmt)} (under \`${condText(why.cond)}\`, which depends on the thread index). Threads that ${e.kind === "return" ? "return" : "leave the loop"} have exited and the barrier does not wait for them, but they skip their share of the shared-memory writes before it (\`${write}\`): if the launch can make the condition true for part of a block, the threads left may read elements nobody wrote after the barrier. Keep every thread through the cooperative copy and predicate only its global loads and stores, or assert the shapes that rule it out.`;
      return { message, basis: "needs-context" };
    }
    const goesOn = e.kind === "return" ? "return to the caller and go on" : "go on";
    return {
      message: `${name()} is skipped by the threads that take the \`${e.kind}\` ${linesAbove(b.call, e.stmt)} (under \`${condText(why.cond)}\`, which depends on the thread index): they ${goesOn} while the others wait at the barrier for them. Keep every thread going to the barrier and predicate only the work.`,
    };
  }
  return undefined;
}

/**
 * The first shared-memory write that threads leaving the kernel at `from` skip before barrier `b`, as a
 * short one-line text. `from` is an exit or a branch or loop that ends the kernel: from an exit to the
 * barrier; from the start of a branch or loop around the barrier (the threads that skip it, or leave the
 * loop, miss its writes, the next iterations' too); or, when the barrier comes before the exit in the
 * text, from the start of the loop around both (the exited threads miss the next iterations' writes).
 */
function skippedWrite(idx: FileIndex, f: FunctionInfo, from: Node, b: Barrier): string | undefined {
  const at = b.call.startIndex;
  let start = at;
  if (at >= from.endIndex) start = from.endIndex;
  else if (inside(b.call, from)) start = from.startIndex;
  else {
    const loop = [...ancestors(from, f.node)].find((a) => LOOPS.has(a.type) && inside(b.call, a));
    if (loop) start = loop.startIndex;
  }
  const shared = new Set([...sharedArrays(codeSlice(idx, f.start, f.end)), ...fileScopeShared(idx)]);
  const write = sharedWrite(idx.text.slice(start, at), shared);
  if (!write) return undefined;
  const line = write.replace(/\s+/g, " ");
  return line.length > 70 ? `${line.slice(0, 67)}...` : line;
}

export const syncthreadsInDivergentBranch: Rule = {
  id: "syncthreads-in-divergent-branch",
  defaultSeverity: "warning",
  basis: "heuristic",
  summary:
    "A block barrier (__syncthreads(), a thread block's sync()) that not every thread of the block reaches: under a thread-dependent condition, or after a thread-dependent break, continue, or return from a __device__ function; after a return from the kernel, or in a thread-dependent branch or loop that ends the kernel, only when the exited threads skip shared-memory writes before the barrier.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    // The analysis only for functions that hold a barrier (it walks the whole function).
    const fns = new Map<number, { f: FunctionInfo; calls: BarrierToken[] }>();
    for (const token of barrierTokens(idx)) {
      const { f } = token;
      const entry = fns.get(f.node.id) ?? { f, calls: [] };
      entry.calls.push(token);
      fns.set(f.node.id, entry);
    }
    for (const { f, calls } of fns.values()) {
      if (!mayDiverge(idx.text, f, calls)) continue;
      // asked again at each statement the walk passes while the barrier is not settled
      const tails = new Map<string, boolean>();
      const endsKernelAt = (k: Control, b: Barrier): boolean => {
        const key = `${k.guarded.id}:${b.call.id}`;
        let v = tails.get(key);
        if (v === undefined) tails.set(key, (v = endsKernel(k.guarded, f, idx.text, b.call)));
        return v;
      };
      const until = { after: idx.text.lastIndexOf("sync", f.end), settled: settledBy(endsKernelAt) };
      const u = Uniformity.of(idx, f, until, classConstructors(ctx), launchGuards(idx, f));
      for (const b of u.barriers) {
        if (b.level !== "block") continue;
        const found = divergence(
          u,
          b,
          (k) => endsKernelAt(k, b),
          (e) => endsThread(e, f, idx.text),
          (from, at) => skippedWrite(idx, f, from, at),
        );
        if (found) ctx.report({ node: b.call, ...found });
      }
    }
  },
};

/**
 * Is a barrier's finding known before the rest of the function is read? When its innermost condition
 * varies already (it can only go on varying), is not a balanced if, and its branch does not end the
 * kernel (`endsKernel`): divergence reports that one. When, between two statements of the body, its
 * conditions and every exit's are uniform for good: an exit still to come cannot skip it, so it has no
 * finding. A barrier of another level is not reported at all.
 */
function settledBy(endsKernel: (k: Control, b: Barrier) => boolean): (b: Barrier, w: SoFar) => boolean {
  return (b, w) => {
    if (b.level !== "block") return true;
    const k = b.controls[0];
    if (k !== undefined && w.varies(k.deps) && !balanced(w.barriers, k.guarded) && !endsKernel(k, b))
      return true;
    return (
      w.between &&
      b.controls.every((c) => w.uniform(c.deps)) &&
      w.exits.every((e) => e.controls.every((c) => w.uniform(c.deps)))
    );
  };
}

const CONTROL: ReadonlySet<string> = new Set([
  ...LOOPS,
  "if_statement",
  "switch_statement",
  "conditional_expression",
  "binary_expression",
]);

/**
 * Can a barrier of `f` be divergent at all: is one under a condition, or is there a return, break or
 * continue before the last one? Most barriers are not, and the analysis walks the whole function.
 */
function mayDiverge(text: string, f: FunctionInfo, barriers: BarrierToken[]): boolean {
  const last = barriers.reduce((m, b) => Math.max(m, b.at), -Infinity);
  if (/\b(?:return|break|continue)\b/.test(text.slice(f.body.startIndex, last))) return true;
  return barriers.some((b) => b.id !== undefined && underControl(f.body, b.id));
}

/** `();` after a barrier's name: the whole statement is the call. */
const EMPTY_CALL = /\s*\(\s*\)\s*;/y;

/**
 * Is the whole word at [from, to) the name of a statement `name();` of `body` itself, so in no CONTROL
 * node? Asked in one call (the child of the body at `from`) where underControl asks one per level. Such
 * a statement is a call: its name is an identifier, no comment or string.
 */
function bodyStatement(text: string, body: Node, from: number, to: number): boolean {
  EMPTY_CALL.lastIndex = to;
  if (!EMPTY_CALL.test(text)) return false;
  // the body's first named child ending after `from`: the one holding it, if any
  const s = body.firstNamedChildForIndex(from);
  return s?.startIndex === from && s.endIndex === EMPTY_CALL.lastIndex && s.type === "expression_statement";
}

/**
 * Is `token` inside a CONTROL node below `body`? Asked from `body` down to the token (Node.parent walks
 * down from the root for every step up).
 */
function underControl(body: Node, token: Node): boolean {
  let n = body;
  for (;;) {
    const k = n.firstNamedChildForIndex(token.startIndex);
    if (!k || k.startIndex > token.startIndex || k.id === token.id) return false;
    if (CONTROL.has(k.type)) return true;
    n = k;
  }
}
