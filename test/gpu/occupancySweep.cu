// Kernels for the occupancy sweep (test/gpu/occupancySweep.mjs): each instantiation fixes its static
// shared memory; -maxrregcount at compile time fixes its registers (the work keeps ~240 values live,
// so ptxas uses as many registers as it is allowed). The results never matter, only the resources.
template <int SMEM>
__global__ void heavy(float* out, const float* in, int n) {
  float acc[240];
#pragma unroll
  for (int i = 0; i < 240; i++) acc[i] = in[threadIdx.x + i * n];
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int i = 0; i < 240; i++) acc[i] = acc[i] * acc[(i + 7) % 240] + acc[(i + 31) % 240];
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 240; i++) s += acc[i] * (i + 1);
  if constexpr (SMEM > 0) {
    __shared__ float buf[SMEM / 4];
    buf[threadIdx.x % (SMEM / 4)] = s;
    __syncthreads();
    s += buf[(threadIdx.x + 1) % (SMEM / 4)];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template __global__ void heavy<0>(float*, const float*, int);
template __global__ void heavy<4096>(float*, const float*, int);
template __global__ void heavy<40000>(float*, const float*, int);
template __global__ void heavy<49152>(float*, const float*, int);

// A light kernel (few registers) and kernels using N named barriers (ptxas: "used N barriers").
__global__ void light(float* out) { out[threadIdx.x] = 1.f; }

template <int N>
__global__ void barriers(float* out) {
  __shared__ float buf[32];
  buf[threadIdx.x % 32] = threadIdx.x;
  asm volatile("bar.sync %0, %1;" ::"n"(N - 1), "r"(blockDim.x));
  out[threadIdx.x] = buf[(threadIdx.x + 1) % 32];
}
template __global__ void barriers<4>(float*);
template __global__ void barriers<8>(float*);
template __global__ void barriers<16>(float*);
