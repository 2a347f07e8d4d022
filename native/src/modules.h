// The addon's module and function functions (registered in addon.cc).
#pragma once

#include <napi.h>

namespace addon {

Napi::Value LoadModule(const Napi::CallbackInfo& info);
Napi::Value UnloadModule(const Napi::CallbackInfo& info);
Napi::Value GetFunction(const Napi::CallbackInfo& info);
Napi::Value ListFunctions(const Napi::CallbackInfo& info);
Napi::Value FunctionAttributes(const Napi::CallbackInfo& info);
Napi::Value SetMaxDynamicSharedMemory(const Napi::CallbackInfo& info);
Napi::Value OccupancyMaxActiveBlocks(const Napi::CallbackInfo& info);

}  // namespace addon
