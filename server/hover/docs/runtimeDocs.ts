// Hover docs: vector and launch types, and the runtime API calls kernels are launched and checked with.
import type { CudaDoc } from "./cudaDoc";

export const RUNTIME_DOCS: Readonly<Record<string, CudaDoc>> = {
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
