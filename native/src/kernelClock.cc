// CUPTI activity records of kernels (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), read through dlopen so the
// addon neither links nor needs libcupti. A kernel record starts {u32 kind, ..., u64 start at byte 16,
// u64 end at byte 24} in every CUpti_ActivityKernel version from 4 to 10 (checked against CUDA 13.0's
// cupti_activity.h), so only those two fields are read.
#include "kernelClock.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace addon {

namespace {

constexpr int kActivityKernel = 3;
constexpr int kActivityConcurrentKernel = 10;
constexpr unsigned kFlushForced = 1;
constexpr size_t kBufferBytes = 1 << 16;

using RequestFn = void (*)(uint8_t**, size_t*, size_t*);
using CompleteFn = void (*)(void*, uint32_t, uint8_t*, size_t, size_t);

struct Cupti {
  int (*enable)(int) = nullptr;
  int (*disable)(int) = nullptr;
  int (*registerCallbacks)(RequestFn, CompleteFn) = nullptr;
  int (*flushAll)(unsigned) = nullptr;
  int (*nextRecord)(uint8_t*, size_t, void**) = nullptr;
};

Cupti g_cupti;
bool g_loaded = false;
std::string g_loadError;
bool g_active = false;
std::mutex g_mutex;  // CUPTI may complete buffers on its own thread
uint64_t g_start = 0, g_end = 0;

void requested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *maxRecords = 0;
}

void completed(void*, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  void* record = nullptr;
  while (g_cupti.nextRecord(buffer, valid, &record) == 0) {
    const uint8_t* r = static_cast<const uint8_t*>(record);
    uint32_t kind = 0;
    uint64_t start = 0, end = 0;
    std::memcpy(&kind, r, sizeof kind);
    if (kind != kActivityConcurrentKernel && kind != kActivityKernel) continue;
    std::memcpy(&start, r + 16, sizeof start);
    std::memcpy(&end, r + 24, sizeof end);
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_active && start > g_start && end >= start) {
      g_start = start;
      g_end = end;
    }
  }
  std::free(buffer);
}

// libcupti from the library path, else where CUDA 13 (lib64) and earlier toolkits (extras/CUPTI) keep it.
void* openCupti() {
  std::vector<std::string> candidates = {"libcupti.so"};
  const char* roots[] = {std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH"), "/usr/local/cuda"};
  for (const char* root : roots) {
    if (root == nullptr || *root == '\0') continue;
    candidates.push_back(std::string(root) + "/lib64/libcupti.so");
    candidates.push_back(std::string(root) + "/extras/CUPTI/lib64/libcupti.so");
  }
  for (const std::string& path : candidates)
    if (void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) return lib;
  return nullptr;
}

bool load(std::string& why) {
  if (g_loaded) return true;
  if (!g_loadError.empty()) {
    why = g_loadError;
    return false;
  }
  void* lib = openCupti();
  if (lib == nullptr) {
    why = g_loadError = "libcupti.so not found (CUDA toolkit's lib64 or extras/CUPTI/lib64)";
    return false;
  }
  g_cupti.enable = reinterpret_cast<int (*)(int)>(dlsym(lib, "cuptiActivityEnable"));
  g_cupti.disable = reinterpret_cast<int (*)(int)>(dlsym(lib, "cuptiActivityDisable"));
  g_cupti.registerCallbacks =
      reinterpret_cast<int (*)(RequestFn, CompleteFn)>(dlsym(lib, "cuptiActivityRegisterCallbacks"));
  g_cupti.flushAll = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "cuptiActivityFlushAll"));
  g_cupti.nextRecord =
      reinterpret_cast<int (*)(uint8_t*, size_t, void**)>(dlsym(lib, "cuptiActivityGetNextRecord"));
  if (g_cupti.enable == nullptr || g_cupti.disable == nullptr || g_cupti.registerCallbacks == nullptr ||
      g_cupti.flushAll == nullptr || g_cupti.nextRecord == nullptr) {
    why = g_loadError = "libcupti.so lacks the activity API";
    return false;
  }
  int r = g_cupti.registerCallbacks(requested, completed);
  if (r != 0) {
    why = g_loadError = "cuptiActivityRegisterCallbacks failed (CUPTI error " + std::to_string(r) + ")";
    return false;
  }
  g_loaded = true;
  return true;
}

}  // namespace

bool kernelClockStart(std::string& why) {
  if (g_active) return true;
  if (!load(why)) return false;
  int r = g_cupti.enable(kActivityConcurrentKernel);
  if (r != 0) {
    // e.g. a profiler (ncu, nsys) already subscribed to CUPTI.
    why = "cuptiActivityEnable failed (CUPTI error " + std::to_string(r) + ")";
    return false;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_active = true;
  g_start = g_end = 0;
  return true;
}

void kernelClockStop() {
  if (!g_active) return;
  g_cupti.disable(kActivityConcurrentKernel);
  g_cupti.flushAll(kFlushForced);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_active = false;
}

bool kernelClockActive() { return g_active; }

uint64_t kernelClockLastNs() {
  if (!g_active) return 0;
  g_cupti.flushAll(kFlushForced);
  std::lock_guard<std::mutex> lock(g_mutex);
  uint64_t ns = g_start != 0 ? g_end - g_start : 0;
  g_start = g_end = 0;
  return ns;
}

}  // namespace addon
