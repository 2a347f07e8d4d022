// Hover docs: barriers and warp-level primitives (shuffles, votes, reductions).
import type { CudaDoc } from "./cudaDoc";

const shfl = (variant: string, what: string): CudaDoc => ({
  kind: "intrinsic",
  signature: `T __shfl${variant}_sync(unsigned mask, T var, ${variant === "" ? "int srcLane" : variant === "_xor" ? "int laneMask" : "unsigned delta"}, int width = warpSize)`,
  meaning: `Warp shuffle: ${what} T is int, unsigned, long, long long, float, double, __half, __half2, __nv_bfloat16 or __nv_bfloat162.`,
  availability: "All supported architectures (sm_30+); the `_sync` forms since CUDA 9.",
  pitfall:
    "`mask` must name every lane that executes the call (usually `0xffffffff`); a lane that does not reach it makes the result undefined. The old form without `_sync` was removed for sm_70+.",
});

const vote = (name: string, what: string, ret: string): CudaDoc => ({
  kind: "intrinsic",
  signature: `${ret} ${name}(unsigned mask, int predicate)`,
  meaning: what,
  availability: "All supported architectures; `_sync` forms since CUDA 9.",
  pitfall:
    "Every lane named in `mask` must execute the call; use `__activemask()` only when you really want the lanes that happen to be converged.",
});

export const WARP_DOCS: Readonly<Record<string, CudaDoc>> = {
  // Synchronization
  __syncthreads: {
    kind: "intrinsic",
    signature: "void __syncthreads()",
    meaning: "Block-wide barrier; also makes shared and global memory writes before it visible to the block.",
    availability: "All architectures.",
    pitfall:
      "Every thread of the block must reach the same barrier: under a `threadIdx`-dependent condition it deadlocks or is undefined.",
  },
  __syncwarp: {
    kind: "intrinsic",
    signature: "void __syncwarp(unsigned mask = 0xffffffff)",
    meaning: "Barrier and memory fence for the lanes of a warp named in `mask`.",
    availability: "All supported architectures (CUDA 9+).",
    pitfall:
      "Since Volta, lanes of a warp are not implicitly in lockstep: warp-synchronous shared-memory code needs it between steps.",
  },
  __threadfence: {
    kind: "intrinsic",
    signature: "void __threadfence()",
    meaning: "Orders this thread's memory writes as seen by all threads of the device.",
    availability: "All architectures.",
    pitfall:
      "It is a fence, not a barrier: it does not wait for other threads. Combine with atomics for last-block-done patterns.",
  },
  __threadfence_block: {
    kind: "intrinsic",
    signature: "void __threadfence_block()",
    meaning: "Orders this thread's memory writes as seen by threads of the same block.",
    availability: "All architectures.",
    pitfall: "Not a barrier; use `__syncthreads()` when threads must wait for each other.",
  },
  // Warp primitives
  __shfl_sync: shfl("", "every lane reads `var` from lane `srcLane`."),
  __shfl_xor_sync: shfl(
    "_xor",
    "every lane reads `var` from lane `laneId ^ laneMask` (butterfly; all lanes end with the full reduction).",
  ),
  __shfl_down_sync: shfl(
    "_down",
    "lane i reads `var` from lane i + delta (lanes near the top keep their own value; only lane 0 ends with a full reduction).",
  ),
  __shfl_up_sync: shfl("_up", "lane i reads `var` from lane i - delta (for scans)."),
  __ballot_sync: vote(
    "__ballot_sync",
    "Returns a bit mask with bit i set when lane i's predicate is non-zero.",
    "unsigned",
  ),
  __any_sync: vote("__any_sync", "Non-zero when the predicate is non-zero for any lane in mask.", "int"),
  __all_sync: vote("__all_sync", "Non-zero when the predicate is non-zero for all lanes in mask.", "int"),
  __activemask: {
    kind: "intrinsic",
    signature: "unsigned __activemask()",
    meaning: "The mask of lanes currently executing this instruction together.",
    availability: "All supported architectures (CUDA 9+).",
    pitfall:
      "It does not synchronize: lanes that will reach the code later are not in it. Not a substitute for a known mask.",
  },
  __reduce_add_sync: {
    kind: "intrinsic",
    signature:
      "unsigned __reduce_add_sync(unsigned mask, unsigned value)  (also int, _min, _max, _and, _or, _xor)",
    meaning: "Warp-wide integer reduction in one instruction.",
    availability: "sm_80 and newer only.",
    pitfall:
      "Integers only: float reductions still need a shuffle loop; guard with `__CUDA_ARCH__ >= 800` if you build for T4 (sm_75).",
  },
  __shfl: {
    kind: "intrinsic",
    signature: "T __shfl(T var, int srcLane, int width = warpSize)   (deprecated)",
    meaning: "The pre-CUDA 9 shuffle without a mask.",
    availability:
      "Deprecated since CUDA 9; `sm_30_intrinsics.h` declares it only when compiling for below sm_70, so it does not exist for sm_70 and newer.",
    pitfall: "Replace with `__shfl_sync(0xffffffff, var, srcLane)`.",
  },
};
