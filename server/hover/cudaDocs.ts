// Hover docs for CUDA intrinsics, types, built-ins and qualifiers, written from the CUDA C++ Programming
// Guide and the math/half/bf16 API references. Each entry: signature, meaning, where it is available,
// and the pitfall kernel authors actually hit. The entries are in docs/, one file per topic.
import type { CudaDoc } from "./docs/cudaDoc";
import { HALF_DOCS } from "./docs/halfDocs";
import { LANGUAGE_DOCS } from "./docs/languageDocs";
import { MATH_DOCS } from "./docs/mathDocs";
import { MEMORY_DOCS } from "./docs/memoryDocs";
import { RUNTIME_DOCS } from "./docs/runtimeDocs";
import { WARP_DOCS } from "./docs/warpDocs";

export type { CudaDoc };

export const CUDA_DOCS: Readonly<Record<string, CudaDoc>> = {
  ...LANGUAGE_DOCS,
  ...WARP_DOCS,
  ...MEMORY_DOCS,
  ...MATH_DOCS,
  ...HALF_DOCS,
  ...RUNTIME_DOCS,
};

/** Common aliases that mean the same thing. */
export const CUDA_DOC_ALIASES: Readonly<Record<string, string>> = {
  half: "__half",
  half2: "__half2",
  nv_bfloat16: "__nv_bfloat16",
  nv_bfloat162: "__nv_bfloat162",
  __int_as_float: "__float_as_int",
  __popcll: "__popc",
  __clzll: "__clz",
  __ffsll: "__ffs",
  __shfl_up: "__shfl",
  __shfl_down: "__shfl",
  __shfl_xor: "__shfl",
  __float2half_rn: "__float2half",
  __float2bfloat16_rn: "__float2bfloat16",
  __low2float: "__half22float2",
  __high2float: "__half22float2",
  atomicAdd_block: "atomicAdd",
  __reduce_max_sync: "__reduce_add_sync",
  __reduce_min_sync: "__reduce_add_sync",
  expf: "__expf",
};
