// The addon's launch functions (registered in addon.cc).
#pragma once

#include <napi.h>

namespace addon {

Napi::Value LaunchKernel(const Napi::CallbackInfo& info);
Napi::Value TimedLaunch(const Napi::CallbackInfo& info);

}  // namespace addon
