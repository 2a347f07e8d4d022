// Helpers shared by the example kernels.
//
// PyTorch extension builds pass -D__CUDA_NO_HALF_OPERATORS__, -D__CUDA_NO_HALF_CONVERSIONS__ and
// -D__CUDA_NO_BFLOAT16_CONVERSIONS__, so half/bfloat16 values never meet `+`, `*` or an implicit cast:
// every kernel loads through to_float(), computes in float and stores through from_float<T>().
#pragma once

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half from_float<__half>(float v) { return __float2half(v); }

// T4 (sm_75) has no BF16 units: the BF16 helpers exist for the host pass and for sm_80+ only.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
#endif

template <typename T>
__device__ __forceinline__ T warp_reduce_sum(T val) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    val += __shfl_xor_sync(kFullMask, val, offset);
  }
  return val;
}

template <typename T>
__device__ __forceinline__ T warp_reduce_max(T val) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    val = fmaxf(val, __shfl_xor_sync(kFullMask, val, offset));
  }
  return val;
}

// Sum over the whole block: shuffles inside each warp, one shared slot per warp, shuffles again.
// Every thread of the block must call it (it has barriers) and every thread gets the total.
__device__ __forceinline__ float block_reduce_sum(float val) {
  __shared__ float warp_sums[kWarpSize];
  __shared__ float total;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int num_warps = (blockDim.x + kWarpSize - 1) / kWarpSize;

  val = warp_reduce_sum(val);
  if (lane == 0) warp_sums[warp] = val;
  __syncthreads();
  if (warp == 0) {
    val = lane < num_warps ? warp_sums[lane] : 0.0f;
    val = warp_reduce_sum(val);
    if (lane == 0) total = val;
  }
  __syncthreads();
  return total;
}

__device__ __forceinline__ float block_reduce_max(float val) {
  __shared__ float warp_maxes[kWarpSize];
  __shared__ float total;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int num_warps = (blockDim.x + kWarpSize - 1) / kWarpSize;

  val = warp_reduce_max(val);
  if (lane == 0) warp_maxes[warp] = val;
  __syncthreads();
  if (warp == 0) {
    val = lane < num_warps ? warp_maxes[lane] : -INFINITY;
    val = warp_reduce_max(val);
    if (lane == 0) total = val;
  }
  __syncthreads();
  return total;
}

// Rounds a thread count up to whole warps and caps it at the per-block limit.
inline int threads_for(int work_items) {
  int threads = work_items < 1024 ? work_items : 1024;
  threads = threads < kWarpSize ? kWarpSize : threads;
  return (threads + kWarpSize - 1) / kWarpSize * kWarpSize;
}

// BF16 kernels only run on sm_80+; launchers ask before launching them.
inline bool device_supports_bf16() {
  int device = 0;
  int major = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
  return major >= 8;
}
