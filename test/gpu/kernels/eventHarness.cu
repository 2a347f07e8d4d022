// A plain nvcc + cudaEvent harness timing the same kernels the runner times, the same way (L2 flushed
// by a memset before each sample, events around the launch, median), for npm run bench:gpu to compare
// against; also cudaMemcpy device-to-device as the bandwidth reference.
// Usage: eventHarness copy|scale|empty|memcpy N SAMPLES [read|memset]  -> prints the median in ns.
// The flush reads the buffer by default, as the runner does; "memset" shows what a memset flush costs
// (the dirty lines it leaves in L2 are written back during the timed kernel).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runnerKernels.cu"

__global__ void l2_flush_read(const uint4* p, unsigned long long n, unsigned* sink) {
  unsigned acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    uint4 v = __ldcg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e = (x);                                                          \
    if (e != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e));         \
      return 2;                                                                   \
    }                                                                             \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s copy|scale|empty|memcpy N SAMPLES [read|memset]\n", argv[0]);
    return 1;
  }
  const char* mode = argv[1];
  const int n = std::atoi(argv[2]);
  const int samples = std::atoi(argv[3]);
  const bool memsetFlush = argc == 5 && !std::strcmp(argv[4], "memset");
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t flushBytes = std::max<size_t>(2 * static_cast<size_t>(l2), 32u << 20);
  char* flush = nullptr;
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&flush, flushBytes));
  CHECK(cudaMalloc(&x, sizeof(float) * n));
  CHECK(cudaMalloc(&y, sizeof(float) * n));
  CHECK(cudaMemset(x, 0, sizeof(float) * n));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  auto launch = [&]() {
    if (!std::strcmp(mode, "copy")) copy<<<(n + 255) / 256, 256>>>(x, y, n);
    else if (!std::strcmp(mode, "scale")) scale<float, 4><<<(n + 1023) / 1024, 256>>>(x, y, n, 0.5f);
    else if (!std::strcmp(mode, "empty")) empty<<<1, 1>>>();
    else cudaMemcpyAsync(y, x, sizeof(float) * n, cudaMemcpyDeviceToDevice);
  };
  for (int i = 0; i < 3; ++i) launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(samples);
  for (int i = 0; i < samples; ++i) {
    if (memsetFlush) {
      CHECK(cudaMemsetAsync(flush, 0, flushBytes));
    } else {
      l2_flush_read<<<1024, 256>>>(reinterpret_cast<const uint4*>(flush), flushBytes / 16,
                                   reinterpret_cast<unsigned*>(flush));
    }
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  const double median = samples % 2 ? ms[samples / 2] : (ms[samples / 2 - 1] + ms[samples / 2]) / 2.0;
  std::printf("%.1f\n", median * 1e6);
  return 0;
}
