// Adaptive LayerNorm (DiT blocks): y = layernorm(x) * (1 + scale) + shift, with per-sample modulation.
//   x, y: [batch, tokens, hidden]    scale, shift: [batch, hidden]
// One block per (token, sample) row; statistics in float; float4 loads when hidden allows.
#include "common.cuh"

template <typename T>
__global__ void adaln_kernel(T* __restrict__ y, const T* __restrict__ x, const T* __restrict__ scale,
                             const T* __restrict__ shift, int tokens, int hidden, float eps) {
  const int token = blockIdx.x;
  const int sample = blockIdx.y;
  const int64_t row = static_cast<int64_t>(sample) * tokens + token;
  const T* in = x + row * hidden;
  T* out = y + row * hidden;
  const T* sc = scale + static_cast<int64_t>(sample) * hidden;
  const T* sh = shift + static_cast<int64_t>(sample) * hidden;

  float sum = 0.0f;
  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    // cuda-kernel-dev-disable-next-line scalar-half-access -- the generic any-T path: one element per iteration also for T = __half (a vectorized FP16 path is not written)
    const float v = to_float(in[i]);
    sum += v;
    sum_sq += v * v;
  }
  const float mean = block_reduce_sum(sum) / hidden;
  const float var = fmaxf(block_reduce_sum(sum_sq) / hidden - mean * mean, 0.0f);
  const float inv_std = rsqrtf(var + eps);

  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    // cuda-kernel-dev-disable-next-line scalar-half-access -- the generic any-T path: one element per iteration also for T = __half (a vectorized FP16 path is not written)
    const float normed = (to_float(in[i]) - mean) * inv_std;
    out[i] = from_float<T>(normed * (1.0f + to_float(sc[i])) + to_float(sh[i]));
  }
}

// FP32 with float4: four elements per 16-byte access (hidden % 4 == 0).
__global__ void adaln_f32x4_kernel(float4* __restrict__ y, const float4* __restrict__ x,
                                   const float4* __restrict__ scale, const float4* __restrict__ shift, int tokens,
                                   int hidden4, float eps) {
  const int token = blockIdx.x;
  const int sample = blockIdx.y;
  const int64_t row = static_cast<int64_t>(sample) * tokens + token;
  const float4* in = x + row * hidden4;
  float4* out = y + row * hidden4;
  const float4* sc = scale + static_cast<int64_t>(sample) * hidden4;
  const float4* sh = shift + static_cast<int64_t>(sample) * hidden4;

  float sum = 0.0f;
  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < hidden4; i += blockDim.x) {
    const float4 v = in[i];
    sum += v.x + v.y + v.z + v.w;
    sum_sq += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
  }
  const float n = 4.0f * hidden4;
  const float mean = block_reduce_sum(sum) / n;
  const float var = fmaxf(block_reduce_sum(sum_sq) / n - mean * mean, 0.0f);
  const float inv_std = rsqrtf(var + eps);

  for (int i = threadIdx.x; i < hidden4; i += blockDim.x) {
    const float4 v = in[i];
    const float4 a = sc[i];
    const float4 b = sh[i];
    out[i] = make_float4((v.x - mean) * inv_std * (1.0f + a.x) + b.x, (v.y - mean) * inv_std * (1.0f + a.y) + b.y,
                         (v.z - mean) * inv_std * (1.0f + a.z) + b.z, (v.w - mean) * inv_std * (1.0f + a.w) + b.w);
  }
}

cudaError_t adaln_f16(__half* y, const __half* x, const __half* scale, const __half* shift, int batch, int tokens,
                      int hidden, float eps, cudaStream_t stream) {
  const dim3 grid(tokens, batch);
  adaln_kernel<__half><<<grid, threads_for(hidden), 0, stream>>>(y, x, scale, shift, tokens, hidden, eps);
  return cudaGetLastError();
}

cudaError_t adaln_f32(float* y, const float* x, const float* scale, const float* shift, int batch, int tokens,
                      int hidden, float eps, cudaStream_t stream) {
  const dim3 grid(tokens, batch);
  if (hidden % 4 == 0) {
    adaln_f32x4_kernel<<<grid, threads_for(hidden / 4), 0, stream>>>(
        reinterpret_cast<float4*>(y), reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(scale),
        reinterpret_cast<const float4*>(shift), tokens, hidden / 4, eps);
  } else {
    adaln_kernel<float><<<grid, threads_for(hidden), 0, stream>>>(y, x, scale, shift, tokens, hidden, eps);
  }
  return cudaGetLastError();
}
