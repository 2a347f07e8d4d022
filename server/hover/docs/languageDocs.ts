// Hover docs: CUDA C++ itself: the built-in variables and the qualifiers.
import type { CudaDoc } from "./cudaDoc";

export const LANGUAGE_DOCS: Readonly<Record<string, CudaDoc>> = {
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
};
