// The addon's driver, device and memory functions (registered in addon.cc).
#pragma once

#include <napi.h>

namespace addon {

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

}  // namespace addon
