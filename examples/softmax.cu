// Row softmax over the last dimension, numerically stable (subtract the row max), one block per row.
//   in, out: [rows, cols]
#include "common.cuh"

template <typename T>
__global__ void softmax_kernel(T* __restrict__ out, const T* __restrict__ in, int rows, int cols) {
  const int row = blockIdx.x;
  if (row >= rows) return;
  const T* x = in + static_cast<int64_t>(row) * cols;
  T* y = out + static_cast<int64_t>(row) * cols;

  float local_max = -INFINITY;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) local_max = fmaxf(local_max, to_float(x[i]));
  const float row_max = block_reduce_max(local_max);

  float local_sum = 0.0f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) local_sum += __expf(to_float(x[i]) - row_max);
  const float inv_sum = 1.0f / block_reduce_sum(local_sum);

  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    y[i] = from_float<T>(__expf(to_float(x[i]) - row_max) * inv_sum);
  }
}

// Short rows (cols <= 32 * kColsPerLane): one warp per row, the whole row in registers, no shared memory.
template <typename T, int kColsPerLane>
__global__ void softmax_warp_kernel(T* __restrict__ out, const T* __restrict__ in, int rows, int cols) {
  const int warps_per_block = blockDim.x / kWarpSize;
  const int row = blockIdx.x * warps_per_block + threadIdx.x / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (row >= rows) return;  // whole warps leave together; no block barrier below
  const T* x = in + static_cast<int64_t>(row) * cols;
  T* y = out + static_cast<int64_t>(row) * cols;

  float v[kColsPerLane];
  float row_max = -INFINITY;
#pragma unroll
  for (int k = 0; k < kColsPerLane; ++k) {
    const int c = lane + k * kWarpSize;
    v[k] = c < cols ? to_float(x[c]) : -INFINITY;
    row_max = fmaxf(row_max, v[k]);
  }
  row_max = warp_reduce_max(row_max);
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kColsPerLane; ++k) {
    v[k] = __expf(v[k] - row_max);
    sum += v[k];
  }
  const float inv_sum = 1.0f / warp_reduce_sum(sum);
#pragma unroll
  for (int k = 0; k < kColsPerLane; ++k) {
    const int c = lane + k * kWarpSize;
    if (c < cols) y[c] = from_float<T>(v[k] * inv_sum);
  }
}

constexpr int kSoftmaxBlock = 512;
constexpr int kWarpRowsPerBlock = 4;

template <typename T>
cudaError_t softmax(T* out, const T* in, int rows, int cols, cudaStream_t stream) {
  if (cols <= 4 * kWarpSize) {
    const int blocks = (rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock;
    softmax_warp_kernel<T, 4><<<blocks, kWarpRowsPerBlock * kWarpSize, 0, stream>>>(out, in, rows, cols);
  } else {
    softmax_kernel<T><<<rows, kSoftmaxBlock, 0, stream>>>(out, in, rows, cols);
  }
  return cudaGetLastError();
}

cudaError_t softmax_f32(float* out, const float* in, int rows, int cols, cudaStream_t stream) {
  return softmax(out, in, rows, cols, stream);
}

cudaError_t softmax_f16(__half* out, const __half* in, int rows, int cols, cudaStream_t stream) {
  return softmax(out, in, rows, cols, stream);
}
