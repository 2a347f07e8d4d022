// Driver status, devices, primary contexts and memory.
#include <cstdint>
#include <map>
#include <string>

#include "addonState.h"
#include "exports.h"

namespace addon {

using namespace cu;

namespace {

std::map<int, CUcontext> g_contexts;  // retained primary contexts by ordinal

int deviceAttr(Napi::Env env, CUdevice dev, int attr) {
  int value = 0;
  checkCu(env, api(env).cuDeviceGetAttribute(&value, attr, dev), "cuDeviceGetAttribute");
  return value;
}

// Attributes CUDA 13 deprecates (clock rates) may be refused by a future driver: report 0, not fail.
int softDeviceAttr(CUdevice dev, int attr) {
  int value = 0;
  return g_api->cuDeviceGetAttribute(&value, attr, dev) == CUDA_SUCCESS ? value : 0;
}

CUdevice deviceArg(Napi::Env env, const Napi::Value& v) {
  int count = 0;
  checkCu(env, api(env).cuDeviceGetCount(&count), "cuDeviceGetCount");
  int ordinal = static_cast<int>(intArg(env, v, "device ordinal", 0, INT32_MAX));
  if (ordinal >= count)
    throwCode(
        env, "BAD_ARGUMENT",
        "device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " device(s))");
  CUdevice dev = 0;
  checkCu(env, g_api->cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  return dev;
}

// deviceAttributes()'s fields, in order (RawDeviceAttributes in native/addon.d.ts); `soft` ones are
// read with softDeviceAttr.
struct NamedAttribute {
  const char* name;
  int attribute;
  bool soft;
};
constexpr NamedAttribute kDeviceAttributes[] = {
    {"ccMajor", ATTR_COMPUTE_CAPABILITY_MAJOR, false},
    {"ccMinor", ATTR_COMPUTE_CAPABILITY_MINOR, false},
    {"smCount", ATTR_MULTIPROCESSOR_COUNT, false},
    {"memoryClockKHz", ATTR_MEMORY_CLOCK_RATE, true},
    {"memoryBusWidthBits", ATTR_GLOBAL_MEMORY_BUS_WIDTH, false},
    {"l2CacheBytes", ATTR_L2_CACHE_SIZE, false},
    {"sharedMemPerBlockBytes", ATTR_MAX_SHARED_MEMORY_PER_BLOCK, false},
    {"sharedMemPerBlockOptinBytes", ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, false},
    {"sharedMemPerSMBytes", ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, false},
    {"reservedSharedMemPerBlockBytes", ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK, true},
    {"regsPerBlock", ATTR_MAX_REGISTERS_PER_BLOCK, false},
    {"regsPerSM", ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR, false},
    {"maxThreadsPerBlock", ATTR_MAX_THREADS_PER_BLOCK, false},
    {"maxThreadsPerSM", ATTR_MAX_THREADS_PER_MULTIPROCESSOR, false},
    {"maxBlocksPerSM", ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR, false},
    {"warpSize", ATTR_WARP_SIZE, false},
    {"clockRateKHz", ATTR_CLOCK_RATE, true},
};

}  // namespace

// ---- driver and devices ----

Napi::Value DriverStatus(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string reason;
  const Api* a = load(reason);
  Napi::Object out = Napi::Object::New(env);
  out.Set("available", a != nullptr);
  if (a == nullptr) {
    out.Set("reason", reason);
  } else {
    out.Set("driverVersion", static_cast<double>(a->driverVersion));
  }
  return out;
}

Napi::Value Init(const Napi::CallbackInfo& info) {
  api(info.Env());
  return info.Env().Undefined();
}

Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int count = 0;
  checkCu(env, api(env).cuDeviceGetCount(&count), "cuDeviceGetCount");
  return Napi::Number::New(env, count);
}

Napi::Value DeviceAttributes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdevice dev = deviceArg(env, info[0]);
  char name[256] = {0};
  checkCu(env, g_api->cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
  size_t total = 0;
  checkCu(env, g_api->cuDeviceTotalMem(&total, dev), "cuDeviceTotalMem_v2");
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", std::string(name));
  o.Set("totalMemoryBytes", static_cast<double>(total));
  for (const NamedAttribute& a : kDeviceAttributes)
    o.Set(a.name, a.soft ? softDeviceAttr(dev, a.attribute) : deviceAttr(env, dev, a.attribute));
  return o;
}

// Makes the device's primary context current on this thread (retained once, kept for the process).
Napi::Value UseDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CUdevice dev = deviceArg(env, info[0]);
  auto it = g_contexts.find(dev);
  if (it == g_contexts.end()) {
    CUcontext ctx = nullptr;
    checkCu(env, g_api->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    it = g_contexts.emplace(dev, ctx).first;
  }
  checkCu(env, g_api->cuCtxSetCurrent(it->second), "cuCtxSetCurrent");
  g_currentDevice = dev;
  return env.Undefined();
}

Napi::Value Synchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkCu(env, api(env).cuCtxSynchronize(), "cuCtxSynchronize");
  return env.Undefined();
}

// ---- memory ----

Napi::Value MemGetInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t freeBytes = 0, totalBytes = 0;
  checkCu(env, api(env).cuMemGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo_v2");
  Napi::Object o = Napi::Object::New(env);
  o.Set("freeBytes", static_cast<double>(freeBytes));
  o.Set("totalBytes", static_cast<double>(totalBytes));
  return o;
}

Napi::Value MemAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  size_t bytes = static_cast<size_t>(intArg(env, info[0], "bytes", 1, INT64_C(1) << 50));
  CUdeviceptr p = 0;
  checkCu(env, g_api->cuMemAlloc(&p, bytes), "cuMemAlloc_v2");
  return Napi::BigInt::New(env, static_cast<uint64_t>(p));
}

Napi::Value MemFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  checkCu(env, g_api->cuMemFree(ptrArg(env, info[0], "ptr")), "cuMemFree_v2");
  return env.Undefined();
}

Napi::Value MemcpyHtoD(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  CUdeviceptr dst = ptrArg(env, info[0], "ptr");
  Napi::Uint8Array data = bytesArg(env, info[1], "data");
  checkCu(env, g_api->cuMemcpyHtoD(dst, data.Data(), data.ByteLength()), "cuMemcpyHtoD_v2");
  return env.Undefined();
}

Napi::Value MemcpyDtoH(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  CUdeviceptr src = ptrArg(env, info[0], "ptr");
  size_t bytes = static_cast<size_t>(intArg(env, info[1], "bytes", 0, INT64_C(1) << 40));
  Napi::Buffer<uint8_t> out = Napi::Buffer<uint8_t>::New(env, bytes);
  if (bytes > 0) checkCu(env, g_api->cuMemcpyDtoH(out.Data(), src, bytes), "cuMemcpyDtoH_v2");
  return out;
}

Napi::Value MemsetD8(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  CUdeviceptr dst = ptrArg(env, info[0], "ptr");
  auto value = static_cast<unsigned char>(intArg(env, info[1], "value", 0, 255));
  size_t bytes = static_cast<size_t>(intArg(env, info[2], "bytes", 0, INT64_C(1) << 50));
  checkCu(env, g_api->cuMemsetD8(dst, value, bytes), "cuMemsetD8_v2");
  return env.Undefined();
}

}  // namespace addon
