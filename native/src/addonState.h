// What the addon's files share: the loaded driver API, the current device, the function table,
// the error throwers and the readers of JS arguments.
// Every failure is thrown as a JS Error with `code` (CUDA error name or addon code), `call` and,
// where known, `kernel`; nothing here aborts the process. The typed surface is native/addon.d.ts.
#pragma once

#include <napi.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "cudaDriver.h"

namespace addon {

// Modules and functions are small integer ids into tables (this one and modules.cc's): JS never
// holds a raw pointer, a stale id is a clear error, and unloading a module drops its functions.
struct FunctionRec {
  cu::CUfunction fn;
  std::string name;
  int module;  // the id of the module it came from
};

// Defined in addonState.cc.
extern const cu::Api* g_api;  // set by api() once the driver has loaded
extern int g_currentDevice;   // the ordinal useDevice made current; -1 before
extern std::map<int, FunctionRec> g_functions;
extern int g_nextId;  // the next module or function id; one sequence for both

[[noreturn]] void throwCode(Napi::Env env, const std::string& code, const std::string& message,
                            const char* call = nullptr);
[[noreturn]] void throwCuda(Napi::Env env, cu::CUresult r, const char* call, const std::string& kernel = "");
// Throws the driver's error for a failed call; `kernel` names the kernel where the call concerns one.
void checkCu(Napi::Env env, cu::CUresult r, const char* call, const std::string& kernel = "");

// The driver API, loaded on first use; throws NO_DRIVER with the reason when it cannot load.
const cu::Api& api(Napi::Env env);

// Argument readers: each throws BAD_ARGUMENT (BAD_HANDLE for a stale id) naming `what`.
double numberArg(Napi::Env env, const Napi::Value& v, const char* what);
int64_t intArg(Napi::Env env, const Napi::Value& v, const char* what, int64_t lo, int64_t hi);
cu::CUdeviceptr ptrArg(Napi::Env env, const Napi::Value& v, const char* what);
Napi::Object objectArg(Napi::Env env, const Napi::Value& v, const char* what);
// An optional object argument: nothing when v is undefined or null.
std::optional<Napi::Object> optionalObjectArg(Napi::Env env, const Napi::Value& v, const char* what);
Napi::Uint8Array bytesArg(Napi::Env env, const Napi::Value& v, const char* what);
const FunctionRec& functionArg(Napi::Env env, const Napi::Value& v);

}  // namespace addon
