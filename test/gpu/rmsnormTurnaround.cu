// bench:gpu's turnaround (test/bench/gpuTurnaround.ts), issue 13's goal: the warm 4-size BF16 RMSNorm
// sweep with its CUDA baseline, and the same with the PyTorch baseline too (eager only: torch.compile
// recompiles per shape, seconds each, and is left out of the goal). The kernels are
// examples/rmsnorm.cu's, on the first four of the seeds' shapes; `in` is `in_` in the expression.
#include "../../examples/common.cuh"

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
    const float v = to_float(x[i]);
    sum_sq += v * v;
  }
  const float inv_rms = rsqrtf(block_reduce_sum(sum_sq) / cols + eps);
  for (int i = threadIdx.x; i < cols; i += BLOCK) {
    y[i] = from_float<T>(to_float(x[i]) * inv_rms * to_float(weight[i]));
  }
}

__device__ __forceinline__ void rmsnorm_bf16x2_row(__nv_bfloat16* __restrict__ out,
                                                   const __nv_bfloat16* __restrict__ in,
                                                   const __nv_bfloat16* __restrict__ weight, int rows,
                                                   int cols, float eps) {
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

// @bench rows=[1024, 2048, 4096, 8192]
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
__global__ void __launch_bounds__(256)
    rmsnorm_bf16x2_cuda(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ in,
                        const __nv_bfloat16* __restrict__ weight, int rows, int cols, float eps) {
  rmsnorm_bf16x2_row(out, in, weight, rows, cols, eps);
}

// @bench rows=[1024, 2048, 4096, 8192]
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
__global__ void __launch_bounds__(256)
    rmsnorm_bf16x2_torch(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ in,
                         const __nv_bfloat16* __restrict__ weight, int rows, int cols, float eps) {
  rmsnorm_bf16x2_row(out, in, weight, rows, cols, eps);
}
