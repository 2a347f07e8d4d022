// Rotary position embedding applied in place to queries or keys.
//   x:   [tokens, heads, head_dim]      cos, sin: [tokens, head_dim / 2] (float)
// Two layouts: NeoX rotates the two halves of head_dim, GPT-J rotates interleaved pairs.
#include "common.cuh"

// NeoX layout, one block per (token, head); any element type with to_float/from_float.
template <typename T>
__global__ void rope_neox_kernel(T* __restrict__ x, const float* __restrict__ cos_cache,
                                 const float* __restrict__ sin_cache, int heads, int head_dim) {
  const int token = blockIdx.x;
  const int head = blockIdx.y;
  const int half_dim = head_dim / 2;
  T* v = x + (static_cast<int64_t>(token) * heads + head) * head_dim;
  const float* c = cos_cache + static_cast<int64_t>(token) * half_dim;
  const float* s = sin_cache + static_cast<int64_t>(token) * half_dim;

  for (int i = threadIdx.x; i < half_dim; i += blockDim.x) {
    // cuda-kernel-dev-disable-next-line scalar-half-access -- the generic any-T path: one element per iteration also for T = __half (a vectorized FP16 path is not written)
    const float x1 = to_float(v[i]);
    const float x2 = to_float(v[i + half_dim]);
    v[i] = from_float<T>(x1 * c[i] - x2 * s[i]);
    v[i + half_dim] = from_float<T>(x2 * c[i] + x1 * s[i]);
  }
}

// GPT-J layout in FP16: each rotated pair is one __half2, loaded and stored in one 32-bit access.
__global__ void rope_gptj_half2_kernel(__half* __restrict__ x, const float* __restrict__ cos_cache,
                                       const float* __restrict__ sin_cache, int heads, int head_dim) {
  const int token = blockIdx.x;
  const int head = blockIdx.y;
  const int half_dim = head_dim / 2;
  auto* v = reinterpret_cast<__half2*>(x + (static_cast<int64_t>(token) * heads + head) * head_dim);
  const float* c = cos_cache + static_cast<int64_t>(token) * half_dim;
  const float* s = sin_cache + static_cast<int64_t>(token) * half_dim;

  for (int i = threadIdx.x; i < half_dim; i += blockDim.x) {
    const float2 p = __half22float2(v[i]);
    v[i] = __floats2half2_rn(p.x * c[i] - p.y * s[i], p.y * c[i] + p.x * s[i]);
  }
}

constexpr int kRopeThreads = 64;  // head_dim / 2 is 64 for the usual 128-wide heads

cudaError_t rope_neox_f16(__half* x, const float* cos_cache, const float* sin_cache, int tokens, int heads,
                          int head_dim, cudaStream_t stream) {
  const dim3 grid(tokens, heads);
  rope_neox_kernel<__half><<<grid, kRopeThreads, 0, stream>>>(x, cos_cache, sin_cache, heads, head_dim);
  return cudaGetLastError();
}

cudaError_t rope_gptj_f16(__half* x, const float* cos_cache, const float* sin_cache, int tokens, int heads,
                          int head_dim, cudaStream_t stream) {
  const dim3 grid(tokens, heads);
  rope_gptj_half2_kernel<<<grid, kRopeThreads, 0, stream>>>(x, cos_cache, sin_cache, heads, head_dim);
  return cudaGetLastError();
}
