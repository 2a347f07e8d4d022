// Benchmark data on the GPU: inputs generated from (seed, index) exactly as native/GENERATOR.md defines
// them, and outputs compared on the device, so only per-block summaries cross to the host.
// Not built by node-gyp: `node native/gen-ptx.mjs` compiles it to PTX (no FMA contraction) into
// gpuDataPtx.h, which is committed, so the addon builds without nvcc and any driver JITs it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

// The codes gpuData.cc passes; the order of native/runner/protocol.ts's DType is not relied on.
enum DType : int { F64 = 0, F32, F16, BF16, I64, U64, I32, U32, I8, U8 };
enum Kind : int { ZEROS = 0, ONES, CONSTANT, ARANGE, UNIFORM, RANDN };

__device__ __forceinline__ uint32_t ckd_hash(uint32_t seed, uint32_t i) {
  uint32_t x = i + seed * 0x9E3779B9u;
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

// float32(hash >> 8) * 2^-24: both steps exact.
__device__ __forceinline__ float ckd_u(uint32_t seed, uint32_t i) {
  return __fmul_rn(static_cast<float>(ckd_hash(seed, i) >> 8), 5.9604644775390625e-8f);
}

__device__ float ckd_value(int kind, uint32_t seed, uint32_t i, float a, float b) {
  switch (kind) {
    case ONES:
      return 1.0f;
    case CONSTANT:
      return a;
    case ARANGE:
      return __uint2float_rn(i);
    case UNIFORM:
      return __fadd_rn(a, __fmul_rn(__fsub_rn(b, a), ckd_u(seed, i)));
    case RANDN: {
      const uint32_t j = 4u * i;
      const float s = __fadd_rn(__fadd_rn(ckd_u(seed, j), ckd_u(seed, j + 1u)),
                                __fadd_rn(ckd_u(seed, j + 2u), ckd_u(seed, j + 3u)));
      return __fmul_rn(__fsub_rn(s, 2.0f), 1.7320508f);
    }
    default:
      return 0.0f;
  }
}

// Integers truncate toward zero; the narrow and unsigned ones go through int64 and wrap (as torch's
// uint8 cast does), i32 and i64 saturate as cvt.rzi does.
__device__ void ckd_store(void* out, int dtype, uint64_t i, float v) {
  switch (dtype) {
    case F64:
      static_cast<double*>(out)[i] = static_cast<double>(v);
      break;
    case F32:
      static_cast<float*>(out)[i] = v;
      break;
    case F16:
      static_cast<__half*>(out)[i] = __float2half_rn(v);
      break;
    case BF16:
      static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16_rn(v);
      break;
    case I64:
      static_cast<long long*>(out)[i] = __float2ll_rz(v);
      break;
    case U64:
      static_cast<unsigned long long*>(out)[i] = static_cast<unsigned long long>(__float2ll_rz(v));
      break;
    case I32:
      static_cast<int*>(out)[i] = __float2int_rz(v);
      break;
    case U32:
      static_cast<unsigned*>(out)[i] = static_cast<unsigned>(__float2ll_rz(v));
      break;
    case I8:
      static_cast<signed char*>(out)[i] = static_cast<signed char>(__float2ll_rz(v));
      break;
    default:
      static_cast<unsigned char*>(out)[i] = static_cast<unsigned char>(__float2ll_rz(v));
      break;
  }
}

extern "C" __global__ void ckd_generate(void* out, int dtype, unsigned long long n, int kind, unsigned seed,
                                        float a, float b) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    ckd_store(out, dtype, i, ckd_value(kind, seed, static_cast<uint32_t>(i), a, b));
}

__device__ int ckd_size(int dtype) {
  switch (dtype) {
    case F64:
    case I64:
    case U64:
      return 8;
    case F32:
    case I32:
    case U32:
      return 4;
    case F16:
    case BF16:
      return 2;
    default:
      return 1;
  }
}

// Every byte still the runner's poison (0xFF): the kernel never wrote the element.
__device__ bool ckd_poisoned(const void* p, int dtype, uint64_t i) {
  switch (ckd_size(dtype)) {
    case 8:
      return static_cast<const unsigned long long*>(p)[i] == ~0ull;
    case 4:
      return static_cast<const unsigned*>(p)[i] == ~0u;
    case 2:
      return static_cast<const unsigned short*>(p)[i] == 0xFFFFu;
    default:
      return static_cast<const unsigned char*>(p)[i] == 0xFFu;
  }
}

__device__ double ckd_load(const void* p, int dtype, uint64_t i) {
  switch (dtype) {
    case F64:
      return static_cast<const double*>(p)[i];
    case F32:
      return static_cast<const float*>(p)[i];
    case F16:
      return __half2float(static_cast<const __half*>(p)[i]);
    case BF16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case I64:
      return static_cast<double>(static_cast<const long long*>(p)[i]);
    case U64:
      return static_cast<double>(static_cast<const unsigned long long*>(p)[i]);
    case I32:
      return static_cast<const int*>(p)[i];
    case U32:
      return static_cast<const unsigned*>(p)[i];
    case I8:
      return static_cast<const signed char*>(p)[i];
    default:
      return static_cast<const unsigned char*>(p)[i];
  }
}

// Per-block summary, in this order (gpuData.cc sums the blocks): max |got - want|, max relative error,
// mismatched, unwritten, non-finite, got·want, got·got, want·want.
constexpr int kFields = 8;
constexpr int kBlock = 256;

// The same decisions as native/runner/outputCheck.ts's checkOutput, element by element.
__device__ void ckd_check(double g, bool hasWant, double w, double atol, double rtol, double* s) {
  if (!hasWant) {
    if (!isfinite(g)) s[4] += 1;
    return;
  }
  if (!isfinite(w)) {
    if (!(g == w || (isnan(g) && isnan(w)))) s[2] += 1;
    return;
  }
  if (!isfinite(g)) {
    s[4] += 1;
    s[2] += 1;
    return;
  }
  const double abs = fabs(g - w);
  s[0] = fmax(s[0], abs);
  if (w != 0) s[1] = fmax(s[1], abs / fabs(w));
  if (!(abs <= atol + rtol * fabs(w))) s[2] += 1;
  s[5] += g * w;
  s[6] += g * g;
  s[7] += w * w;
}

extern "C" __global__ void __launch_bounds__(kBlock)
    ckd_compare(const void* got, int gotType, const void* want, int wantType, unsigned long long n,
                double atol, double rtol, double* partials) {
  __shared__ double red[kFields][kBlock];
  double s[kFields] = {0, 0, 0, 0, 0, 0, 0, 0};
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if (ckd_poisoned(got, gotType, i)) s[3] += 1;
    const double w = want != nullptr ? ckd_load(want, wantType, i) : 0.0;
    ckd_check(ckd_load(got, gotType, i), want != nullptr, w, atol, rtol, s);
  }
  for (int f = 0; f < kFields; ++f) red[f][threadIdx.x] = s[f];
  __syncthreads();
  for (int half = kBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      for (int f = 0; f < kFields; ++f) {
        const double other = red[f][threadIdx.x + half];
        red[f][threadIdx.x] = f < 2 ? fmax(red[f][threadIdx.x], other) : red[f][threadIdx.x] + other;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x < kFields) partials[blockIdx.x * kFields + threadIdx.x] = red[threadIdx.x][0];
}

// The blocking kernel of a timed sample (nvbench's blocking_kernel): one thread spins on a host-mapped
// flag until the host has enqueued the start event, the kernel and the stop event behind it and sets
// flag[0]; after timeout_ns it gives up and sets flag[1], so the host knows the sample was not held.
extern "C" __global__ void ckd_block(volatile int* flag, unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (flag[0] == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      flag[1] = 1;
      return;
    }
  }
}
