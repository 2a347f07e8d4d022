// What the lints catch: a first-draft kernel file that breaks the conventions on purpose.
// Each problem is marked with the rule that reports it. Compare with rmsnorm.cu and softmax.cu.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>  // BF16 conversions compile for sm_75 too (software paths); tensor-core BF16 would not

// Scalar FP16 RMSNorm with a shared-memory tree reduction.
__global__ void rmsnorm_naive(__half* out, const __half* in, const __half* weight, int cols, float eps) {
  __shared__ float partial[256];
  const __half* x = in + static_cast<size_t>(blockIdx.x) * cols;
  __half* y = out + static_cast<size_t>(blockIdx.x) * cols;

  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    float v = __half2float(x[i]);  // scalar-half-access: one 2-byte load per iteration
    sum_sq += v * v;
  }
  partial[threadIdx.x] = sum_sq;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {  // shared-memory-reduction
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float inv_rms = rsqrtf(partial[0] / cols + eps);
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    __half scaled = __float2half(__half2float(x[i]) * inv_rms);
    y[i] = scaled * weight[i];  // half-operator: fails under -D__CUDA_NO_HALF_OPERATORS__
  }
}

// BF16 bias add (conversions only, which sm_75 runs in software), and a 32-bit flat index.
__global__ void bias_add_bf16(__nv_bfloat16* out, const __nv_bfloat16* bias, int64_t n, int hidden) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;  // int-index-overflow: n can exceed 2^31
  if (idx < n) {
    float v = __bfloat162float(out[idx]) + __bfloat162float(bias[idx % hidden]);
    out[idx] = __float2bfloat16(v);
  }
}

// A BF16 scale in BF16 arithmetic, built for the T4 too (sm_75 is a target): no BF16 units there, so
// bf16-emulated-arch: every __hmul2 runs through float; the T4 build wants __half (or a guarded path).
__global__ void scale_bf16x2(__nv_bfloat162* x, __nv_bfloat162 s, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) x[i] = __hmul2(x[i], s);  // bf16-emulated-arch
}

// An FP32 row sum read one float per thread per iteration: scalar-float-access (float4 moves four).
__global__ void row_sum_f32(float* out, const float* x, int cols) {
  float s = 0.f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) s += x[blockIdx.x * cols + i];  // scalar-float-access
  atomicAdd(out + blockIdx.x, s);
}

// Kepler-era warp sum kept "for later". deprecated-shuffle: __shfl_down without _sync does not exist for
// sm_70+; this file only compiles because nothing instantiates the template yet.
template <typename T>
__device__ T warp_sum_legacy(T val) {
  for (int offset = 16; offset > 0; offset >>= 1) val += __shfl_down(val, offset);  // deprecated-shuffle
  return val;
}

// Counts positive values per row; the barrier sits inside a branch only some threads take.
__global__ void count_positive(const float* x, int* counts, int cols) {
  __shared__ int warp_counts[32];
  const int lane = threadIdx.x % 32;
  const float v = threadIdx.x < cols ? x[blockIdx.x * cols + threadIdx.x] : 0.0f;
  const unsigned votes = __ballot_sync(0xffffffffu, v > 0.0f);
  if (lane == 0) {
    warp_counts[threadIdx.x / 32] = __popc(votes);
    __syncthreads();  // syncthreads-in-divergent-branch: lanes 1..31 never arrive
  }
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) total += warp_counts[w];
    counts[blockIdx.x] = total;
  }
}

__global__ void __launch_bounds__(100) scale_kernel(float* x, float s, int n) {  // block-size-not-warp-multiple
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

void launch_all(__half* out, const __half* in, const __half* weight, __nv_bfloat16* act, const __nv_bfloat16* bias,
                const float* x, int* counts, float* y, int rows, int cols) {
  // missing-launch-check on all four launches: nothing calls cudaGetLastError() after them.
  rmsnorm_naive<<<rows, 256>>>(out, in, weight, cols, 1e-6f);
  bias_add_bf16<<<(rows * cols + 255) / 256, 2048>>>(act, bias, int64_t(rows) * cols, cols);  // block-size-too-large
  count_positive<<<rows, 256, 96 * 1024>>>(x, counts, cols);  // shared-memory-limit: 96 KB > 64 KB on sm_75
  scale_kernel<<<(rows * cols + 99) / 100, 100>>>(y, 0.5f, rows * cols);  // block-size-not-warp-multiple
  cudaDeviceSynchronize();
}
