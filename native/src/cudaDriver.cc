// Loads libcuda.so.1 at run time. Done once per process; the outcome (API or reason) is remembered.
#include "cudaDriver.h"

#include <dlfcn.h>

#include <mutex>

namespace cu {

namespace {

Api g_api;
const Api* g_loaded = nullptr;
std::string g_reason;
std::once_flag g_once;

void loadOnce() {
  // RTLD_NODELETE: the driver keeps threads alive; never unmap it under them.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (lib == nullptr) {
    const char* err = dlerror();
    g_reason = std::string("libcuda.so.1 could not be loaded (no NVIDIA driver installed?): ") +
               (err != nullptr ? err : "unknown dlopen error");
    return;
  }
  Api api;
#define CU_RESOLVE_REQUIRED(field, symbol, type)                                   \
  api.field = reinterpret_cast<type>(dlsym(lib, symbol));                          \
  if (api.field == nullptr) {                                                      \
    g_reason = std::string("libcuda.so.1 has no ") + symbol + " (driver too old)"; \
    return;                                                                        \
  }
  CU_REQUIRED_FUNCTIONS(CU_RESOLVE_REQUIRED)
#undef CU_RESOLVE_REQUIRED
#define CU_RESOLVE_OPTIONAL(field, symbol, type) api.field = reinterpret_cast<type>(dlsym(lib, symbol));
  CU_OPTIONAL_FUNCTIONS(CU_RESOLVE_OPTIONAL)
#undef CU_RESOLVE_OPTIONAL

  CUresult r = api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    g_reason = "cuInit failed: " + errorName(api, r) + " (" + errorString(api, r) + ")";
    return;
  }
  if (api.cuDriverGetVersion(&api.driverVersion) != CUDA_SUCCESS) api.driverVersion = 0;
  g_api = api;
  g_loaded = &g_api;
}

}  // namespace

const Api* load(std::string& reason) {
  std::call_once(g_once, loadOnce);
  reason = g_reason;
  return g_loaded;
}

std::string errorName(const Api& api, CUresult r) {
  const char* name = nullptr;
  if (api.cuGetErrorName != nullptr && api.cuGetErrorName(r, &name) == CUDA_SUCCESS && name != nullptr)
    return name;
  return "CUDA_ERROR_" + std::to_string(r);
}

std::string errorString(const Api& api, CUresult r) {
  const char* text = nullptr;
  if (api.cuGetErrorString != nullptr && api.cuGetErrorString(r, &text) == CUDA_SUCCESS && text != nullptr)
    return text;
  return "unknown CUDA error " + std::to_string(r);
}

}  // namespace cu
