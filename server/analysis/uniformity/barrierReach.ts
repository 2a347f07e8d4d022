// Whether an exit ends the thread, and what the exited threads then leave undone before a barrier.
// PTX's barrier (what __syncthreads() and a thread block's sync() compile to) waits for the non-exited
// threads of the block (PTX ISA, `exit`: a barrier held up only by exiting threads is released), so the
// early-return idiom (`if (i >= n) return; … __syncthreads();`) does not hang. Nor does its other
// spelling, a thread-dependent `if` around the rest of the kernel (`if (i < n) { … __syncthreads(); … }`
// and nothing after it) or a grid-stride loop with a barrier per iteration and nothing after the loop:
// the threads that skip the branch or leave the loop early run to the kernel's end and exit. It goes
// wrong another way when the exiting threads had a share of a cooperative fill of shared memory between
// the return and the barrier (`s[tid] = x[i];` or a `cp.async` of their part of a tile): the other
// threads read, after the barrier, elements nobody wrote.
//
// Answers: does a `return` end the thread (a return from the kernel itself; not from a __device__
// function or a lambda, whose caller goes on and may meet other barriers), or a `break` out of a loop
// that ends the kernel; does a branch or loop around a barrier end the kernel for the threads that
// leave it (no loop around it, an `if`'s other arm empty, and after it nothing they run: a `return;`, or
// an `if` that requires the branch's own condition); the first write to shared memory in a stretch of
// code (an element of a `__shared__` array assigned, an asynchronous copy into shared memory).
// Cannot see: exits through calls (`asm("exit;")`, a __device__ function that traps); writes through a
// pointer into shared memory held in a local (`half* tile = smem + off; tile[i] = …`) or inside a called
// function; a later `if` that the leaving threads skip for another reason than the branch's condition
// (it is taken as work they do); `goto`.
import type { Node } from "web-tree-sitter";
import type { FunctionInfo } from "../source/fileIndex";
import { LOOPS, type Exit } from "./uniformityBase";

/**
 * Does exit `e` end the thread: a `return` of the kernel `f` itself, or a `break` out of a loop of it
 * that ends the kernel (`text`: the file's)?
 */
export function endsThread(e: Exit, f: FunctionInfo, text: string): boolean {
  if (f.space !== "global" || e.owner.id !== f.node.id) return false;
  if (e.kind === "return") return true;
  return (
    e.kind === "break" && e.target !== undefined && LOOPS.has(e.target.type) && endsKernel(e.target, f, text)
  );
}

/** Containers whose later statements the leaving threads would run; any other (a loop, a switch, a lambda) brings them back or elsewhere. */
const PASSED: ReadonlySet<string> = new Set([
  "compound_statement",
  "if_statement",
  "else_clause",
  "condition_clause",
  "labeled_statement",
  "preproc_if",
  "preproc_ifdef",
  "preproc_else",
  "preproc_elif",
]);

/**
 * Do the threads that leave `branch` (an `if` or a loop of kernel `f` around barrier `barrier`: the
 * threads that do not take the `if`'s arm holding it, or that leave the loop) run nothing more before
 * they exit at the kernel's end? Then the branch is an early return put another way (`if (!cond)
 * return;` before it): the barrier does not wait for them. Not when a loop around the branch brings them
 * back to a barrier, when the `if`'s other arm does work (it runs beside the barrier), or when anything
 * follows the branch but a `return;` or an `if` (without `else`) whose condition requires the branch's
 * own, none of that condition's names assigned in between (`if (vo == 0 && (vi < Dh))` after `if (vi <
 * Dh)`): the threads that skipped the barrier go on to work it was to order, or to a later barrier.
 */
export function endsKernel(branch: Node, f: FunctionInfo, text: string, barrier?: Node): boolean {
  if (f.space !== "global") return false;
  let needed: Conjuncts | undefined;
  if (branch.type === "if_statement") {
    const then = branch.childForFieldName("consequence");
    const otherwise = branch.childForFieldName("alternative");
    const inThen = !barrier || (then !== null && within(barrier, then));
    if (inThen ? otherwise && !doesNothing(otherwise) : then && !doesNothing(then)) return false;
    // the threads leaving the then-arm are those for which the condition is false
    if (inThen) needed = conjuncts(branch.childForFieldName("condition"));
  }
  for (let n: Node = f.body; n.id !== branch.id;) {
    const k = n.firstNamedChildForIndex(branch.startIndex);
    if (!k || k.startIndex > branch.startIndex || k.endIndex < branch.endIndex) return false;
    if (k.id !== branch.id && !PASSED.has(k.type)) return false;
    if (!restDoesNothing(n, k, branch, needed, text)) return false;
    n = k;
  }
  return true;
}

function within(n: Node, outer: Node): boolean {
  return n.startIndex >= outer.startIndex && n.endIndex <= outer.endIndex;
}

/** A condition's `&&` operands, parentheses and whitespace aside (`a && (b || c)`: `a`, `b||c`). */
type Conjuncts = Set<string>;

function conjuncts(cond: Node | null): Conjuncts | undefined {
  if (!cond) return undefined;
  const out = new Set<string>();
  const add = (n: Node): void => {
    if (n.type === "condition_clause" || n.type === "parenthesized_expression") {
      const inner = n.namedChildCount === 1 ? n.namedChild(0) : null;
      if (inner) return add(inner);
    }
    if (n.type === "binary_expression" && n.childForFieldName("operator")?.type === "&&") {
      add(n.childForFieldName("left")!);
      return add(n.childForFieldName("right")!);
    }
    out.add(n.text.replace(/\s+/g, ""));
  };
  add(cond);
  return out;
}

/**
 * Do the statements of `container` after its child `k` (which holds `branch`) do nothing for threads
 * that left `branch`? Its other `#if` arms are not run with this one.
 */
function restDoesNothing(
  container: Node,
  k: Node,
  branch: Node,
  needed: Conjuncts | undefined,
  text: string,
): boolean {
  if (container.type === "if_statement" || container.type === "else_clause") return true;
  for (let s = k.nextNamedSibling; s; s = s.nextNamedSibling) {
    if (s.type.startsWith("preproc_el")) break;
    if (doesNothing(s)) continue;
    if (s.type === "if_statement" && !s.childForFieldName("alternative") && needed) {
      const later = conjuncts(s.childForFieldName("condition"));
      const between = text.slice(branch.startIndex, s.startIndex);
      if (later && [...needed].every((c) => later.has(c)) && !assignsAny(between, needed)) continue;
    }
    return false;
  }
  return true;
}

/** A statement that does nothing: a comment, `;`, `return;`, a `#pragma`, a block of these. */
function doesNothing(s: Node): boolean {
  switch (s.type) {
    case "comment":
    case "preproc_call":
      return true;
    case "expression_statement":
    case "return_statement":
      return s.namedChildCount === 0;
    case "compound_statement":
    case "else_clause":
      for (let i = 0; i < s.namedChildCount; i++) if (!doesNothing(s.namedChild(i)!)) return false;
      return true;
    default:
      return false;
  }
}

/** Is a name of `conds` assigned, incremented or decremented in `code`? */
function assignsAny(code: string, conds: Conjuncts): boolean {
  const names = new Set([...conds].flatMap((c) => c.match(/[A-Za-z_]\w*/g) ?? []));
  for (const name of names) {
    const write = new RegExp(
      `(?:\\+\\+|--)\\s*${name}\\b|\\b${name}\\s*(?:\\+\\+|--|(?:<<|>>|[-+*/%&|^])?=(?!=))`,
    );
    if (write.test(code)) return true;
  }
  return false;
}

/** The names a function's code declares `__shared__` arrays (`__shared__ half s_a[BM][BK], s_b[…];`). */
export function sharedArrays(code: string): Set<string> {
  const out = new Set<string>();
  for (const decl of code.matchAll(/\b__shared__\b[^;{}]*;/g))
    for (const m of decl[0].matchAll(/([A-Za-z_]\w*)\s*\[/g)) out.add(m[1]!);
  return out;
}

/**
 * Asynchronous copies into shared memory: PTX `cp.async.ca/cg` (in inline asm), and the names projects
 * and CUDA give them (`CP_ASYNC_CG(dst, src, 16)`, `cp_async16`, `__pipeline_memcpy_async`,
 * `cuda::memcpy_async`), not their commit and wait forms.
 */
const ASYNC_COPY =
  /\bcp\.async\.c[ag]\b|\b(?:\w*memcpy_async|cp_?async)(?!_?(?:commit|wait|fence|bulk_commit))\w*\s*[(<]/i;

/**
 * The first statement of `text` (code, its comments stripped and its string literals kept, for inline
 * asm) that writes shared memory: an asynchronous copy, or an assignment whose left side names an
 * element of one of `shared` (`s_a[m][k] = …`, `LDST64BITS(s_a[m][k]) = …`, `s[i] += …`).
 */
export function sharedWrite(text: string, shared: ReadonlySet<string>): string | undefined {
  const code = text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, " ");
  for (const stmt of code.split(/[;{}]/)) {
    const s = stmt.trim();
    if (!s) continue;
    if (ASYNC_COPY.test(s)) return s;
    const eq = /(?<![=!<>+\-*/%&|^])=(?!=)|[+\-*/%&|^]=/.exec(s);
    if (!eq) continue;
    const left = s.slice(0, eq.index);
    for (const m of left.matchAll(/([A-Za-z_]\w*)\s*\[/g)) if (shared.has(m[1]!)) return s;
  }
  return undefined;
}
