// RMSNorm over the last dimension, one block per row:
//   y = x / sqrt(mean(x^2) + eps) * weight
// A generic scalar kernel (float, __half) and a BF16 kernel that moves two elements per 32-bit load.
#include "common.cuh"

// @bench rows=[1024, 8192] cols=[2048, 4096]
// @bench grid=(rows) block=(256)
// @bench arg out: f32[rows*cols] output
// @bench arg in: f32[rows*cols] randn(seed=1)
// @bench arg weight: f32[cols] uniform(0.5, 1.5, seed=2)
// @bench arg rows: i32 = rows
// @bench arg cols: i32 = cols
// @bench arg eps: f32 = 1e-6
// @bench template T=float BLOCK=256
// @bench bytes = 4*(2*rows*cols + cols)
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ in, const T* __restrict__ weight, int rows,
                   int cols, float eps) {
  const int row = blockIdx.x;
  if (row >= rows) return;  // uniform across the block, so the barriers below stay safe
  const T* x = in + static_cast<size_t>(row) * cols;
  T* y = out + static_cast<size_t>(row) * cols;

  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < cols; i += BLOCK) {
    // cuda-kernel-dev-disable-next-line scalar-half-access -- the generic any-T path: one element per iteration also for T = __half (a vectorized FP16 path is not written)
    const float v = to_float(x[i]);
    sum_sq += v * v;
  }
  const float inv_rms = rsqrtf(block_reduce_sum(sum_sq) / cols + eps);

  for (int i = threadIdx.x; i < cols; i += BLOCK) {
    // cuda-kernel-dev-disable-next-line scalar-half-access -- the generic any-T path: one element per iteration also for T = __half (a vectorized FP16 path is not written)
    y[i] = from_float<T>(to_float(x[i]) * inv_rms * to_float(weight[i]));
  }
}

// BF16, vectorized through __nv_bfloat162. T4 (sm_75) has no BF16, so the body only exists for sm_80+;
// the launcher checks the device before using it.
// The sizes are the skill's RMSNorm table ([batch x seq x hidden]: 1x1024x2048 ... 4x4096x3072, one
// row per token), against PyTorch's F.rms_norm and its torch.compile (README: "The seeds' RMSNorm
// table"). `in` is a Python keyword, so the expression names it `in_`.
// @bench rows=[1024, 2048, 4096, 8192, 16384]
// @bench cols = 2048 + 1024*min(1, rows // 8192)
// @bench grid=(rows) block=(256)
// @bench arg out: bf16[rows*cols] output(atol=2e-2, rtol=2e-2)
// @bench arg in: bf16[rows*cols] randn(seed=1)
// @bench arg weight: bf16[cols] uniform(0.5, 1.5, seed=2)
// @bench arg rows: i32 = rows
// @bench arg cols: i32 = cols
// @bench arg eps: f32 = 1e-6
// @bench bytes = 2*(2*rows*cols + cols)
// @bench baseline rmsnorm_kernel<__nv_bfloat16, 256>
// @bench torch F.rms_norm(in_.view(rows, cols), (cols,), weight, eps)
// @bench torch.compile
__global__ void __launch_bounds__(256)
    rmsnorm_bf16x2_kernel(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ in,
                          const __nv_bfloat16* __restrict__ weight, int rows, int cols, float eps) {
#if __CUDA_ARCH__ >= 800
  const int row = blockIdx.x;
  if (row >= rows) return;
  const int pairs = cols / 2;
  const auto* x = reinterpret_cast<const __nv_bfloat162*>(in + static_cast<size_t>(row) * cols);
  const auto* w = reinterpret_cast<const __nv_bfloat162*>(weight);
  auto* y = reinterpret_cast<__nv_bfloat162*>(out + static_cast<size_t>(row) * cols);

  float sum_sq = 0.0f;
#pragma unroll 4
  for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
    const float2 v = __bfloat1622float2(x[i]);
    sum_sq += v.x * v.x + v.y * v.y;
  }
  const float inv_rms = rsqrtf(block_reduce_sum(sum_sq) / cols + eps);

  for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
    const float2 v = __bfloat1622float2(x[i]);
    const float2 g = __bfloat1622float2(w[i]);
    y[i] = __floats2bfloat162_rn(v.x * inv_rms * g.x, v.y * inv_rms * g.y);
  }
#endif
}

constexpr int kRmsBlock = 256;

cudaError_t rmsnorm_f32(float* out, const float* in, const float* weight, int rows, int cols, float eps,
                        cudaStream_t stream) {
  rmsnorm_kernel<float, kRmsBlock><<<rows, kRmsBlock, 0, stream>>>(out, in, weight, rows, cols, eps);
  return cudaGetLastError();
}

cudaError_t rmsnorm_f16(__half* out, const __half* in, const __half* weight, int rows, int cols, float eps,
                        cudaStream_t stream) {
  rmsnorm_kernel<__half, kRmsBlock><<<rows, kRmsBlock, 0, stream>>>(out, in, weight, rows, cols, eps);
  return cudaGetLastError();
}

cudaError_t rmsnorm_bf16(__nv_bfloat16* out, const __nv_bfloat16* in, const __nv_bfloat16* weight, int rows,
                         int cols, float eps, cudaStream_t stream) {
  if (!device_supports_bf16()) return cudaErrorNotSupported;
  if (cols % 2 != 0) return cudaErrorInvalidValue;  // the kernel reads pairs
  dim3 block(kRmsBlock);
  rmsnorm_bf16x2_kernel<<<rows, block, 0, stream>>>(out, in, weight, rows, cols, eps);
  return cudaGetLastError();
}
