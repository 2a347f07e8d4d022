// Benchmark data on the GPU: fillBuffer generates a buffer's values from (seed, index) as
// native/GENERATOR.md defines them; compareBuffers checks an output (against a baseline's) on the
// device and returns only the summary. The kernels are gpuData.cu's, as PTX JIT-compiled per device.
#include "gpuData.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "addonState.h"
#include "exports.h"
#include "gpuDataPtx.h"

namespace addon {

using namespace cu;

namespace {

std::map<int, DataKernels> g_dataKernels;  // per device; the modules stay loaded for the process

constexpr int kFields = 8;  // per-block summary fields, as ckd_compare writes them
constexpr unsigned kBlock = 256;
constexpr unsigned kCompareBlocks = 1024;

// The codes gpuData.cu's DType and Kind enums give each name.
int codeOf(Napi::Env env, const Napi::Value& v, const char* what, const std::vector<const char*>& names) {
  if (v.IsString()) {
    std::string s = v.As<Napi::String>().Utf8Value();
    for (size_t i = 0; i < names.size(); ++i)
      if (s == names[i]) return static_cast<int>(i);
  }
  throwCode(env, "BAD_ARGUMENT", std::string(what) + " is not one of the known names");
}

int dtypeArg(Napi::Env env, const Napi::Value& v) {
  return codeOf(env, v, "dtype", {"f64", "f32", "f16", "bf16", "i64", "u64", "i32", "u32", "i8", "u8"});
}

const DataKernels& loadedKernels(Napi::Env env) {
  const DataKernels& k = dataKernels();
  if (k.loadError != CUDA_SUCCESS)
    throwCode(env, "NOT_SUPPORTED",
              "the benchmark data kernels' PTX did not load: " + errorName(*g_api, k.loadError),
              "cuModuleLoadData");
  return k;
}

unsigned blocksFor(unsigned long long n, unsigned cap) {
  return static_cast<unsigned>(
      std::max<unsigned long long>(1, std::min<unsigned long long>((n + kBlock - 1) / kBlock, cap)));
}

}  // namespace

const DataKernels& dataKernels() {
  auto it = g_dataKernels.find(g_currentDevice);
  if (it != g_dataKernels.end()) return it->second;
  DataKernels k;
  CUmodule mod = nullptr;
  k.loadError = g_api->cuModuleLoadData(&mod, kGpuDataPtx);
  if (k.loadError == CUDA_SUCCESS) {
    const CUresult a = g_api->cuModuleGetFunction(&k.generate, mod, "ckd_generate");
    const CUresult b = g_api->cuModuleGetFunction(&k.compare, mod, "ckd_compare");
    const CUresult c = g_api->cuModuleGetFunction(&k.block, mod, "ckd_block");
    k.loadError = a != CUDA_SUCCESS ? a : b != CUDA_SUCCESS ? b : c;
  }
  return g_dataKernels.emplace(g_currentDevice, k).first->second;
}

// fillBuffer({ptr, dtype, count, kind, seed, a, b}): enqueued on the default stream.
Napi::Value FillBuffer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  Napi::Object o = objectArg(env, info[0], "fill options");
  CUdeviceptr ptr = ptrArg(env, o.Get("ptr"), "ptr");
  int dtype = dtypeArg(env, o.Get("dtype"));
  // GENERATOR.md: element indices are uint32.
  unsigned long long n =
      static_cast<unsigned long long>(intArg(env, o.Get("count"), "count", 0, INT64_C(1) << 32));
  int kind = codeOf(env, o.Get("kind"), "kind", {"zeros", "ones", "constant", "arange", "uniform", "randn"});
  unsigned seed = static_cast<unsigned>(intArg(env, o.Get("seed"), "seed", 0, UINT32_MAX));
  float a = static_cast<float>(numberArg(env, o.Get("a"), "a"));
  float b = static_cast<float>(numberArg(env, o.Get("b"), "b"));
  const DataKernels& k = loadedKernels(env);
  if (n == 0) return env.Undefined();
  void* params[] = {&ptr, &dtype, &n, &kind, &seed, &a, &b};
  checkCu(
      env,
      g_api->cuLaunchKernel(k.generate, blocksFor(n, 4096), 1, 1, kBlock, 1, 1, 0, nullptr, params, nullptr),
      "cuLaunchKernel", "ckd_generate");
  return env.Undefined();
}

// compareBuffers({got: {ptr, dtype}, want?: {ptr, dtype}, count, atol, rtol}): waits for the check and
// returns the summed per-block summaries (summed here, in block order, so the answer is reproducible).
Napi::Value CompareBuffers(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  Napi::Object o = objectArg(env, info[0], "compare options");
  Napi::Object got = objectArg(env, o.Get("got"), "got");
  CUdeviceptr gotPtr = ptrArg(env, got.Get("ptr"), "got.ptr");
  int gotType = dtypeArg(env, got.Get("dtype"));
  CUdeviceptr wantPtr = 0;
  int wantType = 0;
  if (auto want = optionalObjectArg(env, o.Get("want"), "want")) {
    wantPtr = ptrArg(env, want->Get("ptr"), "want.ptr");
    wantType = dtypeArg(env, want->Get("dtype"));
  }
  unsigned long long n =
      static_cast<unsigned long long>(intArg(env, o.Get("count"), "count", 0, INT64_C(1) << 40));
  double atol = numberArg(env, o.Get("atol"), "atol");
  double rtol = numberArg(env, o.Get("rtol"), "rtol");
  const DataKernels& k = loadedKernels(env);
  const unsigned blocks = blocksFor(n, kCompareBlocks);
  std::vector<double> partials(static_cast<size_t>(blocks) * kFields);
  CUdeviceptr dev = 0;
  checkCu(env, g_api->cuMemAlloc(&dev, partials.size() * sizeof(double)), "cuMemAlloc");
  void* params[] = {&gotPtr, &gotType, &wantPtr, &wantType, &n, &atol, &rtol, &dev};
  const char* call = "cuLaunchKernel";
  CUresult r = g_api->cuLaunchKernel(k.compare, blocks, 1, 1, kBlock, 1, 1, 0, nullptr, params, nullptr);
  if (r == CUDA_SUCCESS) {
    call = "cuMemcpyDtoH";
    r = g_api->cuMemcpyDtoH(partials.data(), dev, partials.size() * sizeof(double));
  }
  g_api->cuMemFree(dev);
  checkCu(env, r, call, "ckd_compare");
  double s[kFields] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (unsigned b = 0; b < blocks; ++b)
    for (int f = 0; f < kFields; ++f) {
      double v = partials[static_cast<size_t>(b) * kFields + f];
      s[f] = f < 2 ? std::max(s[f], v) : s[f] + v;
    }
  Napi::Object out = Napi::Object::New(env);
  const char* names[kFields] = {"maxAbsError", "maxRelError", "mismatched", "unwritten",
                                "nonFinite",   "dot",         "normGot",    "normWant"};
  for (int f = 0; f < kFields; ++f) out.Set(names[f], Napi::Number::New(env, s[f]));
  return out;
}

}  // namespace addon
