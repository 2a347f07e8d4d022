// Whether an exit ends the thread, so that a barrier after it is not waited on for that thread. PTX's
// barrier (what __syncthreads() and a thread block's sync() compile to) waits for the non-exited threads
// of the block (PTX ISA, `barrier`): threads that returned from the kernel are not waited for, so the
// early-return idiom (`if (i >= n) return; … __syncthreads();`) does not hang. A barrier inside
// thread-dependent code is another matter: the CUDA programming guide allows __syncthreads() in
// conditional code only where the condition is the same for the whole block.
//
// Answers: does a `return` end the thread (a return from the kernel itself; not from a __device__
// function or a lambda, whose caller goes on and may meet other barriers).
// Cannot see: exits through calls (`asm("exit;")`, a __device__ function that traps).
import type { FunctionInfo } from "../source/fileIndex";
import type { Exit } from "./uniformityBase";

/** Does exit `e` end the thread: a `return` of the kernel `f` itself? */
export function endsThread(e: Exit, f: FunctionInfo): boolean {
  return e.kind === "return" && f.space === "global" && e.owner.id === f.node.id;
}
