// The CUDA driver addon. libcuda.so.1 is opened at run time (dlopen), so this builds and loads without CUDA.
#include <napi.h>

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("abiVersion", Napi::Number::New(env, 1));
  return exports;
}

NODE_API_MODULE(cuda_addon, Init)
