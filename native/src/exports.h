// The functions addon.cc registers as the module's exports, by the file that defines them.
#pragma once

#include <napi.h>

namespace addon {

// devices.cc: driver status, devices, primary contexts, memory.
Napi::Value DriverStatus(const Napi::CallbackInfo& info);
Napi::Value Init(const Napi::CallbackInfo& info);
Napi::Value DeviceCount(const Napi::CallbackInfo& info);
Napi::Value DeviceAttributes(const Napi::CallbackInfo& info);
Napi::Value UseDevice(const Napi::CallbackInfo& info);
Napi::Value Synchronize(const Napi::CallbackInfo& info);
Napi::Value MemGetInfo(const Napi::CallbackInfo& info);
Napi::Value MemAlloc(const Napi::CallbackInfo& info);
Napi::Value MemFree(const Napi::CallbackInfo& info);
Napi::Value MemcpyHtoD(const Napi::CallbackInfo& info);
Napi::Value MemcpyDtoH(const Napi::CallbackInfo& info);
Napi::Value MemsetD8(const Napi::CallbackInfo& info);

// modules.cc: modules, functions, function attributes, occupancy.
Napi::Value LoadModule(const Napi::CallbackInfo& info);
Napi::Value UnloadModule(const Napi::CallbackInfo& info);
Napi::Value GetFunction(const Napi::CallbackInfo& info);
Napi::Value ListFunctions(const Napi::CallbackInfo& info);
Napi::Value FunctionAttributes(const Napi::CallbackInfo& info);
Napi::Value SetMaxDynamicSharedMemory(const Napi::CallbackInfo& info);
Napi::Value OccupancyMaxActiveBlocks(const Napi::CallbackInfo& info);

// launches.cc: launches and timed launches.
Napi::Value LaunchKernel(const Napi::CallbackInfo& info);
Napi::Value TimedLaunch(const Napi::CallbackInfo& info);

// gpuData.cc: seeded generation and output checks on the device.
Napi::Value FillBuffer(const Napi::CallbackInfo& info);
Napi::Value CompareBuffers(const Napi::CallbackInfo& info);

}  // namespace addon
