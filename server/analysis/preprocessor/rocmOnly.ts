// Whether a file is written for AMD's ROCm only: it includes, outside any `#if` arm, a header that only
// ROCm ships — HIP's runtime (`<hip/…>`), Composable Kernel (`ck/`, `ck_tile/`) or a ROCm library
// (rocPRIM, rocWMMA, rocBLAS, MIOpen, RCCL…). nvcc finds none of them, so no CUDA build compiles the
// file, and the HIP intrinsics in it (the maskless `__shfl_xor(v, mask, width)`) are HIP's own. A part of
// the whole-file context (lint/fileContext.ts).
// Cannot see: an include under any `#if` (a CUDA build may skip that arm, so it says nothing; an include
// guard's `#ifndef X` / `#define X` is not such an arm), a ROCm header reached through a project header,
// or HIP's ports to NVIDIA (hipcub, hipblas: not taken as signs). HIP's own NVIDIA path, which compiles
// `<hip/hip_runtime.h>` with nvcc, is taken as HIP code too.
import { codeOnly } from "../source/codeText";
import type { FileIndex } from "../source/fileIndex";
import { directiveLines, type DirectiveLine } from "./directiveLines";

/** An include's name that only ROCm provides (the first path part, or a bare ROCm library header). */
const ROCM_HEADER =
  /^\s*[<"](?:(?:hip|ck|ck_tile|rocprim|rocwmma|rocblas|rocrand|rocsparse|rocsolver|rocfft|rocthrust|miopen|rccl)\/|(?:rocblas|miopen|rccl)\.h\b)/;

/** Does the file include a ROCm-only header where every compilation of it does (see the header)? */
export function rocmOnly(idx: FileIndex): boolean {
  idx.reads("context:rocm");
  return idx.shared("rocmOnly", () => {
    // The raw directives first: most files include no such header, and their code text is not needed.
    const { text } = idx;
    const named = idx
      .directives()
      .some((d) => d.word === "include" && ROCM_HEADER.test(text.slice(d.end, d.end + 64)));
    return named && unconditionalRocmInclude(directiveLines(text, codeOnly(text)));
  });
}

/** A ROCm include outside every `#if` arm but an include guard (`#ifndef X` then `#define X`). */
function unconditionalRocmInclude(lines: readonly DirectiveLine[]): boolean {
  let depth = 0;
  let guard = -1; // the depth inside the include guard, once one is open
  for (let i = 0; i < lines.length; i++) {
    const d = lines[i]!;
    if (d.word === "if" || d.word === "ifdef" || d.word === "ifndef") {
      const name = /^\s*(\w+)\s*$/.exec(d.rest)?.[1];
      const next = lines[i + 1];
      const isGuard =
        guard < 0 &&
        depth === 0 &&
        d.word === "ifndef" &&
        next?.word === "define" &&
        name !== undefined &&
        new RegExp(`^\\s*${name}\\b`).test(next.rest);
      depth++;
      if (isGuard) guard = depth;
    } else if (d.word === "endif") {
      if (depth === guard) guard = -1;
      depth = Math.max(0, depth - 1);
    } else if (d.word === "include" && (depth === 0 || depth === guard) && ROCM_HEADER.test(d.rest)) {
      return true;
    }
  }
  return false;
}
