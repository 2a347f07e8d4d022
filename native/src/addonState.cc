#include "addonState.h"

namespace addon {

using namespace cu;

const Api* g_api = nullptr;
int g_currentDevice = -1;
std::map<int, FunctionRec> g_functions;
int g_nextId = 1;

[[noreturn]] void throwCode(Napi::Env env, const std::string& code, const std::string& message,
                            const char* call) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", code);
  if (call != nullptr) e.Set("call", call);
  throw e;
}

[[noreturn]] void throwCuda(Napi::Env env, CUresult r, const char* call, const std::string& kernel) {
  std::string name = errorName(*g_api, r);
  std::string message = std::string(call) + " failed: " + name + " (" + errorString(*g_api, r) + ")";
  if (!kernel.empty()) message += " in kernel " + kernel;
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", name);
  e.Set("call", call);
  e.Set("result", static_cast<double>(r));
  if (!kernel.empty()) e.Set("kernel", kernel);
  throw e;
}

void checkCu(Napi::Env env, CUresult r, const char* call, const std::string& kernel) {
  if (r != CUDA_SUCCESS) throwCuda(env, r, call, kernel);
}

const Api& api(Napi::Env env) {
  if (g_api == nullptr) {
    std::string reason;
    g_api = load(reason);
    if (g_api == nullptr) throwCode(env, "NO_DRIVER", reason);
  }
  return *g_api;
}

double numberArg(Napi::Env env, const Napi::Value& v, const char* what) {
  if (!v.IsNumber()) throwCode(env, "BAD_ARGUMENT", std::string(what) + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

int64_t intArg(Napi::Env env, const Napi::Value& v, const char* what, int64_t lo, int64_t hi) {
  double d = numberArg(env, v, what);
  if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) ||
      d != static_cast<double>(static_cast<int64_t>(d)))
    throwCode(env, "BAD_ARGUMENT",
              std::string(what) + " must be an integer in [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + "]");
  return static_cast<int64_t>(d);
}

CUdeviceptr ptrArg(Napi::Env env, const Napi::Value& v, const char* what) {
  if (!v.IsBigInt()) throwCode(env, "BAD_ARGUMENT", std::string(what) + " must be a bigint device pointer");
  bool lossless = false;
  uint64_t p = v.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless || p == 0)
    throwCode(env, "BAD_ARGUMENT", std::string(what) + " is not a valid device pointer");
  return static_cast<CUdeviceptr>(p);
}

Napi::Object objectArg(Napi::Env env, const Napi::Value& v, const char* what) {
  if (!v.IsObject()) throwCode(env, "BAD_ARGUMENT", std::string(what) + " must be an object");
  return v.As<Napi::Object>();
}

std::optional<Napi::Object> optionalObjectArg(Napi::Env env, const Napi::Value& v, const char* what) {
  if (v.IsUndefined() || v.IsNull()) return std::nullopt;
  return objectArg(env, v, what);
}

Napi::Uint8Array bytesArg(Napi::Env env, const Napi::Value& v, const char* what) {
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    throwCode(env, "BAD_ARGUMENT", std::string(what) + " must be a Uint8Array");
  return v.As<Napi::Uint8Array>();
}

const FunctionRec& functionArg(Napi::Env env, const Napi::Value& v) {
  auto it = g_functions.find(static_cast<int>(intArg(env, v, "function handle", 1, INT32_MAX)));
  if (it == g_functions.end()) throwCode(env, "BAD_HANDLE", "unknown or unloaded function handle");
  return it->second;
}

}  // namespace addon
