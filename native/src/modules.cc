// Modules (loaded from cubin, fatbin or PTX files), their functions, function attributes and occupancy.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "addonState.h"
#include "exports.h"

namespace addon {

using namespace cu;

namespace {

std::map<int, CUmodule> g_modules;  // by id, like g_functions (addonState.h says why)

CUmodule moduleArg(Napi::Env env, const Napi::Value& v, int& id) {
  id = static_cast<int>(intArg(env, v, "module handle", 1, INT32_MAX));
  auto it = g_modules.find(id);
  if (it == g_modules.end()) throwCode(env, "BAD_HANDLE", "unknown or unloaded module handle");
  return it->second;
}

}  // namespace

Napi::Value LoadModule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  if (!info[0].IsString()) throwCode(env, "BAD_ARGUMENT", "path must be a string");
  std::string path = info[0].As<Napi::String>().Utf8Value();
  std::ifstream in(path, std::ios::binary);
  if (!in) throwCode(env, "IO_ERROR", "cannot read module " + path);
  std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  image.push_back('\0');  // PTX images must be NUL-terminated; harmless for cubin/fatbin
  CUmodule mod = nullptr;
  CUresult r = g_api->cuModuleLoadData(&mod, image.data());
  if (r != CUDA_SUCCESS) throwCuda(env, r, "cuModuleLoadData");
  int id = g_nextId++;
  g_modules.emplace(id, mod);
  return Napi::Number::New(env, id);
}

Napi::Value UnloadModule(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  int id = static_cast<int>(intArg(env, info[0], "module handle", 1, INT32_MAX));
  auto it = g_modules.find(id);
  if (it == g_modules.end()) throwCode(env, "BAD_HANDLE", "unknown or unloaded module handle");
  CUmodule mod = it->second;
  g_modules.erase(it);
  for (auto f = g_functions.begin(); f != g_functions.end();) {
    f = f->second.module == id ? g_functions.erase(f) : std::next(f);
  }
  checkCu(env, g_api->cuModuleUnload(mod), "cuModuleUnload");
  return env.Undefined();
}

Napi::Value GetFunction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  int modId = 0;
  CUmodule mod = moduleArg(env, info[0], modId);
  if (!info[1].IsString()) throwCode(env, "BAD_ARGUMENT", "name must be a string");
  std::string name = info[1].As<Napi::String>().Utf8Value();
  CUfunction fn = nullptr;
  CUresult r = g_api->cuModuleGetFunction(&fn, mod, name.c_str());
  if (r != CUDA_SUCCESS) throwCuda(env, r, "cuModuleGetFunction", name);
  int id = g_nextId++;
  g_functions.emplace(id, FunctionRec{fn, name, modId});
  return Napi::Number::New(env, id);
}

Napi::Value ListFunctions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  int modId = 0;
  CUmodule mod = moduleArg(env, info[0], modId);
  if (g_api->cuModuleGetFunctionCount == nullptr || g_api->cuModuleEnumerateFunctions == nullptr ||
      g_api->cuFuncGetName == nullptr)
    throwCode(env, "NOT_SUPPORTED",
              "listing a module's kernels needs an NVIDIA driver for CUDA 12.4 or newer");
  unsigned count = 0;
  checkCu(env, g_api->cuModuleGetFunctionCount(&count, mod), "cuModuleGetFunctionCount");
  std::vector<CUfunction> fns(count);
  if (count > 0)
    checkCu(env, g_api->cuModuleEnumerateFunctions(fns.data(), count, mod), "cuModuleEnumerateFunctions");
  Napi::Array out = Napi::Array::New(env, count);
  for (unsigned i = 0; i < count; ++i) {
    const char* name = nullptr;
    checkCu(env, g_api->cuFuncGetName(&name, fns[i]), "cuFuncGetName");
    out.Set(i, Napi::String::New(env, name != nullptr ? name : ""));
  }
  return out;
}

Napi::Value FunctionAttributes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  const FunctionRec& f = functionArg(env, info[0]);
  auto attr = [&](int which) {
    int v = 0;
    checkCu(env, g_api->cuFuncGetAttribute(&v, which, f.fn), "cuFuncGetAttribute", f.name);
    return v;
  };
  Napi::Object o = Napi::Object::New(env);
  o.Set("numRegs", attr(FUNC_NUM_REGS));
  o.Set("sharedSizeBytes", attr(FUNC_SHARED_SIZE_BYTES));
  o.Set("constSizeBytes", attr(FUNC_CONST_SIZE_BYTES));
  o.Set("localSizeBytes", attr(FUNC_LOCAL_SIZE_BYTES));
  o.Set("maxThreadsPerBlock", attr(FUNC_MAX_THREADS_PER_BLOCK));
  o.Set("maxDynamicSharedSizeBytes", attr(FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES));
  return o;
}

Napi::Value SetMaxDynamicSharedMemory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  const FunctionRec& f = functionArg(env, info[0]);
  int bytes = static_cast<int>(intArg(env, info[1], "bytes", 0, INT32_MAX));
  checkCu(env, g_api->cuFuncSetAttribute(f.fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
          "cuFuncSetAttribute", f.name);
  return env.Undefined();
}

Napi::Value OccupancyMaxActiveBlocks(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  const FunctionRec& f = functionArg(env, info[0]);
  int blockSize = static_cast<int>(intArg(env, info[1], "blockSize", 1, 1 << 20));
  size_t smem = static_cast<size_t>(intArg(env, info[2], "dynamicSmemBytes", 0, INT32_MAX));
  int blocks = 0;
  checkCu(env, g_api->cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f.fn, blockSize, smem),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor", f.name);
  return Napi::Number::New(env, blocks);
}

}  // namespace addon
