// Kernels for npm run test:gpu: a correct copy, a wrong one, one writing far out of bounds, one that
// never returns, and a template instantiated twice (its symbols are mangled; the test finds them).
#include <cuda_bf16.h>

__global__ void copy(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

// Vectorized copy, as a bandwidth-bound kernel should be written: compared with cudaMemcpy D2D.
__global__ void copy4(const float4* x, float4* y, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) y[i] = x[i];
}

// Wrong in exactly one element, so the baseline comparison must catch it.
__global__ void copy_wrong(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + (i == 3 ? 1.0f : 0.0f);
}

// Writes a terabyte past the buffer: far outside any allocation, so the fault is certain.
__global__ void oob(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i + (1ull << 38)] = x[i];
}

// Spins until a flag that nobody sets: the runner's timeout must kill it.
__global__ void spin(const float* x, float* y, int n) {
  volatile const float* v = x;
  while (v[0] != 12345.0f) {
  }
  y[0] = v[0];
}

template <typename T, int UNROLL>
__global__ void scale(const T* x, T* y, int n, float a) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
  for (int k = 0; k < UNROLL; ++k) {
    int i = base + k;
    if (i < n) y[i] = static_cast<T>(static_cast<float>(x[i]) * a);
  }
}

template __global__ void scale<float, 4>(const float*, float*, int, float);
template __global__ void scale<__nv_bfloat16, 2>(const __nv_bfloat16*, __nv_bfloat16*, int, float);

// Does nothing: its time is the launch and timing overhead, the floor of any measurement.
__global__ void empty() {}

// Reverses each block's slice through dynamic shared memory; launched with more than the 48 KB
// default so the runner must opt in (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES).
__global__ void smem_reverse(const float* x, float* y, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tile[threadIdx.x] = x[i];
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (i < n && j < n) y[i] = tile[blockDim.x - 1 - threadIdx.x];
}

// The same result without shared memory: smem_reverse's baseline.
__global__ void reverse_global(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (i < n && j < n) y[i] = x[j];
}

// c = a + b, one element per thread: the vector add of bench:gpu's table against ncu.
__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
