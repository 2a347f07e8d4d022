// Whether an exit ends the thread, and what the exited threads then leave undone before a barrier.
// PTX's barrier (what __syncthreads() and a thread block's sync() compile to) waits for the non-exited
// threads of the block (PTX ISA, `exit`: a barrier held up only by exiting threads is released), so the
// early-return idiom (`if (i >= n) return; … __syncthreads();`) does not hang. It goes wrong another way
// when the exiting threads had a share of a cooperative fill of shared memory between the return and the
// barrier (`s[tid] = x[i];` or a `cp.async` of their part of a tile): the other threads read, after the
// barrier, elements nobody wrote.
//
// Answers: does a `return` end the thread (a return from the kernel itself; not from a __device__
// function or a lambda, whose caller goes on and may meet other barriers); the first write to shared
// memory in a stretch of code (an element of a `__shared__` array assigned, an asynchronous copy into
// shared memory).
// Cannot see: exits through calls (`asm("exit;")`, a __device__ function that traps); writes through a
// pointer into shared memory held in a local (`half* tile = smem + off; tile[i] = …`) or inside a called
// function.
import type { FunctionInfo } from "../source/fileIndex";
import type { Exit } from "./uniformityBase";

/** Does exit `e` end the thread: a `return` of the kernel `f` itself? */
export function endsThread(e: Exit, f: FunctionInfo): boolean {
  return e.kind === "return" && f.space === "global" && e.owner.id === f.node.id;
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
