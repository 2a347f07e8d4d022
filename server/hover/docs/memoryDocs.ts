// Hover docs: memory access (loads, stores, async copies) and atomics.
import type { CudaDoc } from "./cudaDoc";

const atomic = (name: string, what: string, types: string): CudaDoc => ({
  kind: "intrinsic",
  signature: `T ${name}(T* address, T val)`,
  meaning: `${what} Returns the old value. Types: ${types}.`,
  availability: "All supported architectures; `_block` and `_system` scoped variants exist since sm_60.",
  pitfall:
    "Many threads hitting one address serialize: reduce within the warp/block first and issue one atomic per block.",
});

export const MEMORY_DOCS: Readonly<Record<string, CudaDoc>> = {
  // Memory access
  __ldg: {
    kind: "intrinsic",
    signature: "T __ldg(const T* address)",
    meaning: "Loads through the read-only (non-coherent) data cache.",
    availability: "sm_35+: every architecture current toolkits build for.",
    pitfall:
      "The data must not be written by any thread during the kernel; `const T* __restrict__` often gets the same code without it.",
  },
  __ldcs: {
    kind: "intrinsic",
    signature: "T __ldcs(const T* address)",
    meaning: "Streaming load (cache hint: evict first) for data read once.",
    availability: "sm_35+: every architecture current toolkits build for.",
    pitfall: "A hint only; measure before keeping it.",
  },
  __stcs: {
    kind: "intrinsic",
    signature: "void __stcs(T* address, T value)",
    meaning: "Streaming store (cache hint: evict first) for output not re-read soon.",
    availability: "sm_35+: every architecture current toolkits build for.",
    pitfall: "A hint only; measure before keeping it.",
  },
  __cvta_generic_to_shared: {
    kind: "intrinsic",
    signature: "size_t __cvta_generic_to_shared(const void* ptr)",
    meaning:
      "Converts a generic pointer to a 32-bit shared-memory address, as `cp.async`/`ldmatrix` inline PTX wants.",
    availability: "All supported architectures (declared in `sm_20_intrinsics.h`).",
    pitfall:
      "The pointer must point into shared memory; the result is an address for PTX, not a dereferenceable pointer.",
  },
  __pipeline_memcpy_async: {
    kind: "intrinsic",
    signature: "void __pipeline_memcpy_async(void* dst_shared, const void* src_global, size_t size)",
    meaning:
      "Asynchronous global-to-shared copy (cp.async) of 4, 8 or 16 bytes; commit with `__pipeline_commit()` and wait with `__pipeline_wait_prior(n)`.",
    availability:
      "Hardware-accelerated on sm_80+; emulated with plain loads before. Header `cuda_pipeline.h`.",
    pitfall:
      "Both pointers must be aligned to the copy size, and you still need `__syncthreads()` after the wait before other threads read.",
  },
  // Atomics
  atomicAdd: atomic(
    "atomicAdd",
    "Adds `val` at `address` atomically.",
    "int, unsigned, unsigned long long, float, double (sm_60+), __half2 (sm_60+), __nv_bfloat162 (sm_80+)",
  ),
  atomicMax: atomic(
    "atomicMax",
    "Stores the maximum of the old value and `val`.",
    "int, unsigned, long long / unsigned long long (sm_35+); no float (use an int-ordering trick or atomicCAS)",
  ),
  atomicMin: atomic(
    "atomicMin",
    "Stores the minimum of the old value and `val`.",
    "int, unsigned, long long / unsigned long long (sm_35+); no float",
  ),
  atomicExch: atomic(
    "atomicExch",
    "Stores `val` and returns the old value.",
    "int, unsigned, unsigned long long, float",
  ),
  atomicCAS: {
    kind: "intrinsic",
    signature: "T atomicCAS(T* address, T compare, T val)",
    meaning:
      "Stores `val` if the current value equals `compare`; returns the old value. The building block for any other atomic.",
    availability: "All architectures; 16-bit since sm_70.",
    pitfall:
      "CAS loops on a contended address are slow and can starve; a float CAS loop compares bit patterns (-0.0 vs 0.0, NaN).",
  },
};
