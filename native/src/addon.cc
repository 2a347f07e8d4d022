// The CUDA driver addon, cuda_addon.node: devices, primary contexts, memory (devices.cc), modules and
// functions (modules.cc), launches and timed launches (launches.cc), benchmark data on the GPU (gpuData.cc);
// what they share is in addonState.h. libcuda.so.1 is opened at run time (cudaDriver.cc), so this builds and
// loads without CUDA. The typed surface is native/addon.d.ts; this file only registers its functions.
#include <napi.h>

#include "exports.h"

namespace {

Napi::Object Register(Napi::Env env, Napi::Object exports) {
  using namespace addon;
  exports.Set("abiVersion", Napi::Number::New(env, 1));
  auto fn = [&](const char* name, Napi::Function::Callback cb) {
    exports.Set(name, Napi::Function::New(env, cb, name));
  };
  fn("driverStatus", DriverStatus);
  fn("init", Init);
  fn("deviceCount", DeviceCount);
  fn("deviceAttributes", DeviceAttributes);
  fn("useDevice", UseDevice);
  fn("synchronize", Synchronize);
  fn("memGetInfo", MemGetInfo);
  fn("memAlloc", MemAlloc);
  fn("memFree", MemFree);
  fn("memcpyHtoD", MemcpyHtoD);
  fn("memcpyDtoH", MemcpyDtoH);
  fn("memsetD8", MemsetD8);
  fn("loadModule", LoadModule);
  fn("unloadModule", UnloadModule);
  fn("getFunction", GetFunction);
  fn("listFunctions", ListFunctions);
  fn("functionAttributes", FunctionAttributes);
  fn("setMaxDynamicSharedMemory", SetMaxDynamicSharedMemory);
  fn("occupancyMaxActiveBlocksPerMultiprocessor", OccupancyMaxActiveBlocks);
  fn("launch", LaunchKernel);
  fn("timedLaunch", TimedLaunch);
  fn("fillBuffer", FillBuffer);
  fn("compareBuffers", CompareBuffers);
  return exports;
}

}  // namespace

NODE_API_MODULE(cuda_addon, Register)
