// Hover docs for CUDA intrinsics, types, built-ins and qualifiers, written from the CUDA C++ Programming
// Guide and the math/half/bf16 API references. Each entry: signature, meaning, where it is available,
// and the pitfall kernel authors actually hit.

export interface CudaDoc {
  kind: "intrinsic" | "type" | "built-in variable" | "qualifier" | "runtime API" | "macro" | "math function";
  signature: string;
  meaning: string;
  /** Architectures / headers it needs. */
  availability: string;
  pitfall: string;
}

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

const atomic = (name: string, what: string, types: string): CudaDoc => ({
  kind: "intrinsic",
  signature: `T ${name}(T* address, T val)`,
  meaning: `${what} Returns the old value. Types: ${types}.`,
  availability: "All supported architectures; `_block` and `_system` scoped variants exist since sm_60.",
  pitfall:
    "Many threads hitting one address serialize: reduce within the warp/block first and issue one atomic per block.",
});

export const CUDA_DOCS: Readonly<Record<string, CudaDoc>> = {
  // Built-in variables
  threadIdx: {
    kind: "built-in variable",
    signature: "const uint3 threadIdx",
    meaning: "The thread's index within its block (`.x`, `.y`, `.z`).",
    availability: "Device code, all architectures.",
    pitfall:
      "Branching on it makes code divergent: a `__syncthreads()` inside such a branch deadlocks or is undefined.",
  },
  blockIdx: {
    kind: "built-in variable",
    signature: "const uint3 blockIdx",
    meaning: "The block's index within the grid.",
    availability: "Device code, all architectures.",
    pitfall:
      "`blockIdx.x * blockDim.x` is computed in 32-bit unsigned: cast to `int64_t`/`size_t` before it addresses tensors with more than 2^31 elements.",
  },
  blockDim: {
    kind: "built-in variable",
    signature: "const dim3 blockDim",
    meaning: "The number of threads per block in each dimension, as launched.",
    availability: "Device code, all architectures.",
    pitfall:
      "Kernels that assume a fixed block size (e.g. shared arrays sized 256) break silently when launched with another; pin it with `__launch_bounds__` or a template parameter.",
  },
  gridDim: {
    kind: "built-in variable",
    signature: "const dim3 gridDim",
    meaning: "The number of blocks in the grid in each dimension.",
    availability: "Device code, all architectures.",
    pitfall:
      "`gridDim.y` and `gridDim.z` are limited to 65535; put the large dimension in `x` (up to 2^31-1).",
  },
  warpSize: {
    kind: "built-in variable",
    signature: "const int warpSize",
    meaning: "Threads per warp: 32 on every NVIDIA GPU so far.",
    availability: "Device code, all architectures.",
    pitfall:
      "It is not a compile-time constant: array sizes and `#if` need a literal 32 or your own `constexpr`.",
  },
  // Qualifiers
  __global__: {
    kind: "qualifier",
    signature: "__global__ void kernel(params...)",
    meaning: "A kernel: runs on the device, launched from the host with `<<<grid, block, smem, stream>>>`.",
    availability: "All architectures. Must return void.",
    pitfall:
      "Launches are asynchronous and errors surface later: check `cudaGetLastError()` (or `C10_CUDA_KERNEL_LAUNCH_CHECK()`) right after the launch.",
  },
  __device__: {
    kind: "qualifier",
    signature: "__device__ T f(params...)   /   __device__ T var;",
    meaning: "A function callable only from device code, or a variable in global memory.",
    availability: "All architectures.",
    pitfall:
      "Device functions in another translation unit need `-rdc=true` to link; prefer headers with `__forceinline__`.",
  },
  __host__: {
    kind: "qualifier",
    signature: "__host__ __device__ T f(params...)",
    meaning: "Compiled for the host; with `__device__`, compiled for both.",
    availability: "All architectures.",
    pitfall:
      "Inside a `__host__ __device__` function, guard device-only intrinsics with `#ifdef __CUDA_ARCH__`.",
  },
  __shared__: {
    kind: "qualifier",
    signature: "__shared__ T smem[N];   /   extern __shared__ T smem[];",
    meaning: "Block-shared on-chip memory, visible to all threads of a block for the block's lifetime.",
    availability:
      "All architectures. Static allocations are capped at 48 KB per block; more needs dynamic shared memory and `cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)`.",
    pitfall:
      "Threads must `__syncthreads()` between writing and reading each other's elements; 32 threads hitting the same bank with different addresses serialize (pad rows by one element).",
  },
  __constant__: {
    kind: "qualifier",
    signature: "__constant__ T var;",
    meaning: "Read-only (from the device) memory, 64 KB in total, cached and broadcast to a warp.",
    availability: "All architectures. Set with `cudaMemcpyToSymbol`.",
    pitfall: "Fast only when all lanes of a warp read the same address; divergent indices serialize.",
  },
  __restrict__: {
    kind: "qualifier",
    signature: "const T* __restrict__ p",
    meaning:
      "Promises the pointer does not alias other pointers, letting the compiler cache and reorder loads (e.g. through the read-only path).",
    availability: "All architectures.",
    pitfall: "A false promise (input and output overlap, e.g. in-place ops) gives wrong results silently.",
  },
  __forceinline__: {
    kind: "qualifier",
    signature: "__device__ __forceinline__ T f(...)",
    meaning: "Forces inlining of a device function.",
    availability: "All architectures.",
    pitfall:
      "Inlining large helpers into many call sites raises register pressure and can cut occupancy; check `-Xptxas -v`.",
  },
  __noinline__: {
    kind: "qualifier",
    signature: "__device__ __noinline__ T f(...)",
    meaning: "Keeps a device function out of line (a real call).",
    availability: "All architectures.",
    pitfall: "Calls pass arguments through the stack/local memory: slower in hot loops.",
  },
  __launch_bounds__: {
    kind: "qualifier",
    signature:
      "__launch_bounds__(maxThreadsPerBlock, minBlocksPerMultiprocessor = 0, maxBlocksPerCluster = 0)",
    meaning:
      "Tells the compiler the largest block size the kernel is launched with, so it can budget registers.",
    availability: "All architectures; the cluster argument sm_90+.",
    pitfall:
      "Launching with more threads than `maxThreadsPerBlock` fails with `cudaErrorLaunchOutOfResources`/invalid configuration.",
  },
  __managed__: {
    kind: "qualifier",
    signature: "__device__ __managed__ T var;",
    meaning: "A unified-memory variable accessible from host and device.",
    availability: "sm_30+ with a 64-bit host; concurrent access needs sm_60+ and OS support.",
    pitfall:
      "The host must not touch it while a kernel may be running unless `concurrentManagedAccess` is set.",
  },
  __CUDA_ARCH__: {
    kind: "macro",
    signature: "#if __CUDA_ARCH__ >= 800",
    meaning: "Defined only during the device compilation passes, as the SM number times 10 (sm_80 -> 800).",
    availability: "nvcc/clang device passes; undefined in the host pass.",
    pitfall:
      "Undefined on the host pass: `#if __CUDA_ARCH__ < 800` is also true on the host, and a declaration that differs between passes breaks linking.",
  },
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
  // Integer / bit intrinsics
  __popc: {
    kind: "intrinsic",
    signature: "int __popc(unsigned x)   /   int __popcll(unsigned long long x)",
    meaning: "Number of set bits.",
    availability: "All architectures.",
    pitfall:
      "Pass unsigned: a negative int converts, but `__popc(mask & ((1u << lane) - 1))` is the usual lane-rank idiom.",
  },
  __clz: {
    kind: "intrinsic",
    signature: "int __clz(int x)   /   int __clzll(long long x)",
    meaning: "Number of leading zero bits (32 for x == 0).",
    availability: "All architectures.",
    pitfall: "Returns 32 (not undefined) for zero, unlike some host builtins.",
  },
  __ffs: {
    kind: "intrinsic",
    signature: "int __ffs(int x)   /   int __ffsll(long long x)",
    meaning: "1-based position of the least significant set bit; 0 when x is 0.",
    availability: "All architectures.",
    pitfall: "1-based: subtract 1 to get the lane index from a ballot mask.",
  },
  __umulhi: {
    kind: "intrinsic",
    signature: "unsigned __umulhi(unsigned x, unsigned y)",
    meaning: "The high 32 bits of the 64-bit product (used in fast division by a constant).",
    availability: "All architectures.",
    pitfall: "Unsigned only; `__mulhi` is the signed form.",
  },
  __float_as_int: {
    kind: "intrinsic",
    signature: "int __float_as_int(float x)   /   float __int_as_float(int x)",
    meaning: "Reinterprets the bits (no conversion).",
    availability: "All architectures.",
    pitfall: "Not a numeric conversion: use `__float2int_rn` for that.",
  },
  __float2int_rn: {
    kind: "intrinsic",
    signature: "int __float2int_rn(float x)   (_rz, _ru, _rd)",
    meaning: "Converts float to int with an explicit rounding mode (round to nearest even here).",
    availability: "All architectures.",
    pitfall: "A plain `(int)x` truncates toward zero; out-of-range values saturate.",
  },
  // Fast math
  __expf: {
    kind: "math function",
    signature: "float __expf(float x)",
    meaning: "Fast approximate e^x on the special function unit.",
    availability: "All architectures. `-use_fast_math` turns `expf` into it.",
    pitfall: "Error grows with |x| (max 2 + floor(|1.173 x|) ulp); for softmax subtract the row max first.",
  },
  __logf: {
    kind: "math function",
    signature: "float __logf(float x)",
    meaning: "Fast approximate natural log.",
    availability: "All architectures.",
    pitfall: "Poor accuracy near 1.0 and for denormals; keep `logf` in loss computations.",
  },
  __fdividef: {
    kind: "math function",
    signature: "float __fdividef(float x, float y)",
    meaning: "Fast approximate division.",
    availability: "All architectures.",
    pitfall:
      "Returns 0 when 2^126 < |y| < 2^128 even if x is large; `x / y` is IEEE-exact without fast math.",
  },
  rsqrtf: {
    kind: "math function",
    signature: "float rsqrtf(float x)",
    meaning: "1 / sqrt(x), the normalisation factor in RMSNorm and LayerNorm.",
    availability: "All architectures (2 ulp).",
    pitfall: "Add the epsilon before the call: `rsqrtf(mean_sq + eps)`; `rsqrtf(0)` is +inf.",
  },
  __frcp_rn: {
    kind: "math function",
    signature: "float __frcp_rn(float x)",
    meaning: "Reciprocal 1/x rounded to nearest (IEEE compliant).",
    availability: "All architectures.",
    pitfall: "Correctly rounded, hence slower than the approximate `__fdividef(1.0f, x)`.",
  },
  __fmaf_rn: {
    kind: "math function",
    signature: "float __fmaf_rn(float x, float y, float z)",
    meaning: "x * y + z with one rounding, and never split by the compiler.",
    availability: "All architectures.",
    pitfall:
      "nvcc already contracts `a * b + c` into FMA by default (`--fmad=true`); results then differ from the CPU's.",
  },
  __saturatef: {
    kind: "math function",
    signature: "float __saturatef(float x)",
    meaning: "Clamps to [0, 1] (NaN becomes 0).",
    availability: "All architectures.",
    pitfall: "NaN maps to 0, hiding upstream NaNs.",
  },
  tanhf: {
    kind: "math function",
    signature: "float tanhf(float x)",
    meaning: "Hyperbolic tangent (GELU's tanh approximation uses it).",
    availability: "All architectures; a hardware `tanh.approx.f32` exists on sm_75+ (inline PTX).",
    pitfall:
      "Costly in fp32; GELU kernels often use `x * sigmoid(1.702x)` or the approx instruction deliberately.",
  },
  // Half precision (cuda_fp16.h)
  __half: {
    kind: "type",
    signature: "struct __half  (cuda_fp16.h; `half` is an alias)",
    meaning: "IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits; max 65504.",
    availability: "Storage on all architectures; native arithmetic sm_53+.",
    pitfall:
      "PyTorch extensions build with `-D__CUDA_NO_HALF_OPERATORS__`: `a + b` on `__half` then fails to compile; use `__hadd` or convert through float. Overflows above 65504; accumulate in float.",
  },
  __half2: {
    kind: "type",
    signature: "struct __half2  (cuda_fp16.h; `half2` is an alias)",
    meaning: "Two `__half` values in 32 bits, processed by one paired instruction.",
    availability: "sm_53+ for arithmetic.",
    pitfall:
      "Pointer casts to `__half2*` need 4-byte alignment and an even element count; handle the odd tail separately.",
  },
  __float2half: {
    kind: "intrinsic",
    signature: "__half __float2half(float a)   (also _rn, _rz, _rd, _ru)",
    meaning: "Converts float to half, rounding to nearest even.",
    availability: "cuda_fp16.h, all architectures.",
    pitfall: "Values above 65504 become inf: scale or clamp before converting.",
  },
  __half2float: {
    kind: "intrinsic",
    signature: "float __half2float(__half a)",
    meaning: "Converts half to float exactly.",
    availability: "cuda_fp16.h, all architectures.",
    pitfall:
      "Convert once per element and do the math in float; converting inside inner loops repeatedly costs instructions.",
  },
  __floats2half2_rn: {
    kind: "intrinsic",
    signature: "__half2 __floats2half2_rn(float a, float b)",
    meaning: "Packs two floats into a `__half2` (a in the low half).",
    availability: "cuda_fp16.h, all architectures.",
    pitfall: "`__float2half2_rn(a)` (singular) broadcasts one value to both halves: a different function.",
  },
  __half22float2: {
    kind: "intrinsic",
    signature: "float2 __half22float2(__half2 a)",
    meaning: "Unpacks a `__half2` into a `float2`.",
    availability: "cuda_fp16.h, all architectures.",
    pitfall: "`.x` is the low half (`__low2float`), `.y` the high half.",
  },
  __hadd: {
    kind: "intrinsic",
    signature: "__half __hadd(__half a, __half b)",
    meaning: "Half-precision addition (round to nearest).",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Accumulating many values in half loses precision fast; accumulate in float.",
  },
  __hmul: {
    kind: "intrinsic",
    signature: "__half __hmul(__half a, __half b)",
    meaning: "Half-precision multiplication.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Products overflow past 65504 to inf.",
  },
  __hfma: {
    kind: "intrinsic",
    signature: "__half __hfma(__half a, __half b, __half c)",
    meaning: "Fused a * b + c in half precision.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Still a half-precision accumulator; keep reductions in float.",
  },
  __hadd2: {
    kind: "intrinsic",
    signature: "__half2 __hadd2(__half2 a, __half2 b)",
    meaning: "Adds two pairs of halves in one instruction.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Needs the data as `__half2`: aligned, even-length access.",
  },
  __hmul2: {
    kind: "intrinsic",
    signature: "__half2 __hmul2(__half2 a, __half2 b)",
    meaning: "Multiplies two pairs of halves in one instruction.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "As `__hadd2`: alignment and odd tails.",
  },
  __hmax: {
    kind: "intrinsic",
    signature: "__half __hmax(__half a, __half b)",
    meaning: "Maximum of two halves; if one is NaN the other is returned, and +0.0 counts above -0.0.",
    availability:
      "cuda_fp16.h, host and device on all architectures in CUDA 13 (one `max.f16` instruction on sm_80+, emulated with comparisons before).",
    pitfall:
      "Older toolkits declared it only for sm_80+, so the same code built for T4 (sm_75) with them did not compile.",
  },
  __habs: {
    kind: "intrinsic",
    signature: "__half __habs(__half a)",
    meaning: "Absolute value of a half.",
    availability: "sm_53+ (cuda_fp16.h).",
    pitfall: "Keeps NaN as NaN.",
  },
  // BF16 (cuda_bf16.h)
  __nv_bfloat16: {
    kind: "type",
    signature: "struct __nv_bfloat16  (cuda_bf16.h)",
    meaning: "bfloat16: 1 sign, 8 exponent, 7 mantissa bits: float's range with ~3 significant digits.",
    availability:
      "Native arithmetic and conversions on sm_80+ (A100, H100); on sm_75 (T4) most bf16 intrinsics are missing or emulated.",
    pitfall:
      "Building for T4 (sm_75) breaks on bf16 intrinsics unless guarded by `#if __CUDA_ARCH__ >= 800`. Operators fail under `-D__CUDA_NO_BFLOAT16_OPERATORS__` (PyTorch sets it).",
  },
  __nv_bfloat162: {
    kind: "type",
    signature: "struct __nv_bfloat162  (cuda_bf16.h)",
    meaning: "Two bf16 values in 32 bits for paired instructions.",
    availability: "sm_80+ for arithmetic.",
    pitfall: "As `__half2`: 4-byte alignment and an even element count.",
  },
  __float2bfloat16: {
    kind: "intrinsic",
    signature: "__nv_bfloat16 __float2bfloat16(float a)   (also _rn, _rz)",
    meaning: "Converts float to bf16, rounding to nearest even.",
    availability: "cuda_bf16.h; hardware conversion on sm_80+, emulated before.",
    pitfall: "Truncating bit tricks (`>> 16`) round toward zero and bias results; use the intrinsic.",
  },
  __bfloat162float: {
    kind: "intrinsic",
    signature: "float __bfloat162float(__nv_bfloat16 a)",
    meaning: "Converts bf16 to float exactly.",
    availability: "cuda_bf16.h; all architectures the header supports.",
    pitfall: "Do the math in float and convert back once per element.",
  },
  __float22bfloat162_rn: {
    kind: "intrinsic",
    signature: "__nv_bfloat162 __float22bfloat162_rn(float2 a)",
    meaning: "Packs a float2 into a bf16 pair.",
    availability: "cuda_bf16.h; sm_80+ native.",
    pitfall: "Guard with `__CUDA_ARCH__ >= 800` when also building for sm_75.",
  },
  __bfloat1622float2: {
    kind: "intrinsic",
    signature: "float2 __bfloat1622float2(__nv_bfloat162 a)",
    meaning: "Unpacks a bf16 pair into a float2.",
    availability: "cuda_bf16.h.",
    pitfall: "`.x` is the low element.",
  },
  // Vector and launch types
  float4: {
    kind: "type",
    signature: "struct float4 { float x, y, z, w; }  (16-byte aligned)",
    meaning: "Four floats loaded or stored in one 16-byte transaction per thread.",
    availability: "All architectures.",
    pitfall:
      "`reinterpret_cast<float4*>(p)` needs p 16-byte aligned and a length divisible by 4: handle the tail with scalar code.",
  },
  float2: {
    kind: "type",
    signature: "struct float2 { float x, y; }  (8-byte aligned)",
    meaning: "Two floats in one 8-byte access.",
    availability: "All architectures.",
    pitfall: "Alignment: 8 bytes.",
  },
  dim3: {
    kind: "type",
    signature: "struct dim3 { unsigned x = 1, y = 1, z = 1; }",
    meaning: "Grid and block dimensions for a launch.",
    availability: "Host and device.",
    pitfall: "x * y * z of a block must be at most 1024 and should be a multiple of 32.",
  },
  // Runtime API
  cudaGetLastError: {
    kind: "runtime API",
    signature: "cudaError_t cudaGetLastError(void)",
    meaning: "Returns and clears the last error of this host thread, including launch-configuration errors.",
    availability: "CUDA runtime.",
    pitfall:
      "A launch reports bad configurations only here; asynchronous faults inside the kernel surface at the next synchronizing call.",
  },
  cudaPeekAtLastError: {
    kind: "runtime API",
    signature: "cudaError_t cudaPeekAtLastError(void)",
    meaning: "Returns the last error without clearing it.",
    availability: "CUDA runtime.",
    pitfall: "The error stays set and will be reported again by later calls.",
  },
  cudaDeviceSynchronize: {
    kind: "runtime API",
    signature: "cudaError_t cudaDeviceSynchronize(void)",
    meaning: "Blocks the host until all preceding work on the device finished; returns asynchronous errors.",
    availability: "CUDA runtime.",
    pitfall:
      "Kills overlap in production paths and stalls PyTorch's stream; use it in debugging and tests only.",
  },
  cudaFuncSetAttribute: {
    kind: "runtime API",
    signature: "cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value)",
    meaning:
      "Sets a kernel attribute, e.g. `cudaFuncAttributeMaxDynamicSharedMemorySize` to allow more than 48 KB of dynamic shared memory.",
    availability:
      "CUDA runtime; opt-in limits per architecture (99 KB sm_86/89, 163 KB sm_80, 227 KB sm_90).",
    pitfall: "Without it, a launch requesting over 48 KB of dynamic shared memory fails.",
  },
  cudaMemcpyAsync: {
    kind: "runtime API",
    signature:
      "cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream = 0)",
    meaning: "Queues a copy on a stream.",
    availability: "CUDA runtime.",
    pitfall: "Only asynchronous with pinned host memory; pageable memory makes it synchronous.",
  },
  cudaOccupancyMaxActiveBlocksPerMultiprocessor: {
    kind: "runtime API",
    signature:
      "cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize, size_t dynamicSMemSize)",
    meaning: "How many blocks of this kernel fit on one SM, given its registers and shared memory.",
    availability: "CUDA runtime.",
    pitfall: "Pass the dynamic shared memory you will actually launch with, or the answer is too optimistic.",
  },
  C10_CUDA_KERNEL_LAUNCH_CHECK: {
    kind: "macro",
    signature: "C10_CUDA_KERNEL_LAUNCH_CHECK()",
    meaning: "PyTorch's launch check: throws a c10::Error with the CUDA error string if the launch failed.",
    availability: "PyTorch C++ extensions (`c10/cuda/CUDAException.h`).",
    pitfall:
      "Put it immediately after the `<<<...>>>` launch; it does not catch faults that happen while the kernel runs.",
  },
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
