// Launches and timed launches, with the L2 flush that runs before a timed sample.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "addonState.h"
#include "exports.h"
#include "gpuData.h"

namespace addon {

using namespace cu;

namespace {

// Reads a buffer (16 B per thread per step, L1 bypassed) to fill L2 with clean lines before a timed
// launch. A memset would leave L2 full of dirty lines whose write-back then lands inside the timed
// kernel (seen on an H100: +12% on a 61 µs copy against ncu). PTX 6.0 for sm_50, so any driver JITs it.
const char* const kFlushPtx = R"(.version 6.0
.target sm_50
.address_size 64
.visible .entry ckd_l2_flush(.param .u64 p0, .param .u64 p1, .param .u64 p2)
{
  .reg .pred %p<4>;
  .reg .b32 %r<17>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd7, [p0];
  ld.param.u64 %rd8, [p1];
  ld.param.u64 %rd9, [p2];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  cvt.u64.u32 %rd1, %r4;
  mul.wide.u32 %rd10, %r3, %r4;
  mov.u32 %r5, %tid.x;
  cvt.u64.u32 %rd11, %r5;
  add.s64 %rd15, %rd10, %rd11;
  setp.ge.u64 %p1, %rd15, %rd8;
  @%p1 bra DONE;
  mov.u32 %r7, %nctaid.x;
  cvt.u64.u32 %rd12, %r7;
  mul.lo.s64 %rd3, %rd12, %rd1;
  cvta.to.global.u64 %rd4, %rd9;
  mov.u32 %r16, 0;
LOOP:
  shl.b64 %rd14, %rd15, 4;
  add.s64 %rd13, %rd7, %rd14;
  ld.global.cg.v4.u32 {%r8,%r9,%r10,%r11}, [%rd13];
  xor.b32 %r12, %r9, %r16;
  xor.b32 %r13, %r12, %r8;
  xor.b32 %r14, %r13, %r10;
  xor.b32 %r16, %r14, %r11;
  add.s64 %rd15, %rd15, %rd3;
  setp.lt.u64 %p2, %rd15, %rd8;
  @%p2 bra LOOP;
  setp.ne.s32 %p3, %r16, -1640531527;
  @%p3 bra DONE;
  mov.u32 %r15, -1640531527;
  st.global.u32 [%rd4], %r15;
DONE:
  ret;
}
)";

std::map<int, CUfunction> g_flushKernels;  // per device; nullptr: PTX JIT failed, memset instead

struct Launch {
  const FunctionRec* f = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned smem = 0;
  std::vector<std::vector<uint64_t>> storage;  // 8-byte aligned copies of each parameter's bytes
  std::vector<void*> params;
};

void dims(Napi::Env env, const Napi::Object& o, const char* key, unsigned out[3]) {
  Napi::Value v = o.Get(key);
  if (!v.IsArray() || v.As<Napi::Array>().Length() != 3)
    throwCode(env, "BAD_ARGUMENT", std::string(key) + " must be [x, y, z]");
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < 3; ++i) out[i] = static_cast<unsigned>(intArg(env, a.Get(i), key, 1, UINT32_MAX));
}

Launch parseLaunch(Napi::Env env, const Napi::Value& v) {
  Napi::Object o = objectArg(env, v, "launch options");
  Launch l;
  l.f = &functionArg(env, o.Get("fn"));
  dims(env, o, "grid", l.grid);
  dims(env, o, "block", l.block);
  Napi::Value smem = o.Get("sharedMemBytes");
  if (!smem.IsUndefined()) l.smem = static_cast<unsigned>(intArg(env, smem, "sharedMemBytes", 0, INT32_MAX));
  Napi::Value args = o.Get("args");
  if (!args.IsArray()) throwCode(env, "BAD_ARGUMENT", "args must be an array of Uint8Array");
  Napi::Array a = args.As<Napi::Array>();
  l.storage.resize(a.Length());
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Uint8Array bytes = bytesArg(env, a.Get(i), "each arg");
    if (bytes.ByteLength() == 0) throwCode(env, "BAD_ARGUMENT", "an arg has no bytes");
    l.storage[i].assign((bytes.ByteLength() + 7) / 8, 0);
    std::memcpy(l.storage[i].data(), bytes.Data(), bytes.ByteLength());
    l.params.push_back(l.storage[i].data());
  }
  return l;
}

void enqueue(Napi::Env env, const Launch& l) {
  checkCu(env,
          g_api->cuLaunchKernel(l.f->fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                                l.smem, nullptr,
                                l.params.empty() ? nullptr : const_cast<void**>(l.params.data()), nullptr),
          "cuLaunchKernel", l.f->name);
}

CUfunction flushKernel() {
  auto it = g_flushKernels.find(g_currentDevice);
  if (it != g_flushKernels.end()) return it->second;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  if (g_api->cuModuleLoadData(&mod, kFlushPtx) == CUDA_SUCCESS &&
      g_api->cuModuleGetFunction(&fn, mod, "ckd_l2_flush") != CUDA_SUCCESS)
    fn = nullptr;
  g_flushKernels.emplace(g_currentDevice, fn);  // the module stays loaded for the process
  return fn;
}

void enqueueFlush(Napi::Env env, CUdeviceptr ptr, size_t bytes) {
  CUfunction fn = flushKernel();
  if (fn == nullptr) {
    checkCu(env, g_api->cuMemsetD8Async(ptr, 0, bytes, nullptr), "cuMemsetD8Async");
    return;
  }
  unsigned long long n = bytes / 16;
  void* params[] = {&ptr, &n, &ptr};
  checkCu(env, g_api->cuLaunchKernel(fn, 1024, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr),
          "cuLaunchKernel", "ckd_l2_flush");
}

// The blocking kernel's flag, host memory the GPU reads through its mapping: [0] the host sets to
// release the kernel, [1] the kernel sets when it gave up waiting.
struct HostFlag {
  volatile int* host = nullptr;
  CUdeviceptr dev = 0;
};
std::map<int, HostFlag> g_hostFlags;  // per device; host == nullptr: no mapped memory, never block

// Long enough for any host to enqueue three calls; short enough that a sample which cannot be held
// (CUDA_LAUNCH_BLOCKING=1, a debugger, a profiler serializing launches) costs one second, once.
constexpr unsigned long long kBlockTimeoutNs = 1000000000ull;

HostFlag hostFlag() {
  auto it = g_hostFlags.find(g_currentDevice);
  if (it != g_hostFlags.end()) return it->second;
  HostFlag f;
  void* p = nullptr;
  if (g_api->cuMemHostAlloc(&p, 2 * sizeof(int), MEMHOSTALLOC_PORTABLE | MEMHOSTALLOC_DEVICEMAP) ==
          CUDA_SUCCESS &&
      g_api->cuMemHostGetDevicePointer(&f.dev, p, 0) == CUDA_SUCCESS)
    f.host = static_cast<volatile int*>(p);  // kept for the process, like the flush kernel
  g_hostFlags.emplace(g_currentDevice, f);
  return f;
}

// Holds the stream with the blocking kernel until release() (or the end of the scope, so a refused
// launch does not leave it spinning until its timeout). held: false when it could not be enqueued.
struct Blocker {
  HostFlag flag;
  bool held = false;

  void block(Napi::Env env) {
    CUfunction fn = dataKernels().block;
    flag = hostFlag();
    if (fn == nullptr || flag.host == nullptr) return;
    flag.host[0] = 0;
    flag.host[1] = 0;
    unsigned long long timeout = kBlockTimeoutNs;
    void* params[] = {&flag.dev, &timeout};
    checkCu(env, g_api->cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel",
            "ckd_block");
    held = true;
  }
  void release() {
    if (!held) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    flag.host[0] = 1;
  }
  // After the stop event: whether the kernel really held the stream until release().
  bool heldToTheEnd() const { return held && flag.host[1] == 0; }
  ~Blocker() { release(); }
};

// RAII so an error between create and destroy does not leak events.
struct EventPair {
  CUevent start = nullptr, stop = nullptr;
  ~EventPair() {
    if (start != nullptr) g_api->cuEventDestroy(start);
    if (stop != nullptr) g_api->cuEventDestroy(stop);
  }
};

}  // namespace

Napi::Value LaunchKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  enqueue(env, parseLaunch(env, info[0]));
  return env.Undefined();
}

// One sample, as nvbench's cold measurement takes it: [flush L2] -> blocking kernel -> start event ->
// launch -> stop event, then the host releases the blocking kernel and waits. The GPU reaches the start
// event only once everything is enqueued, so neither the flush nor the launch latency is timed.
// Returns {ms: the launch's GPU time, blocked: whether the blocking kernel held until the release}.
Napi::Value TimedLaunch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  api(env);
  Launch l = parseLaunch(env, info[0]);
  Napi::Object o = info[0].As<Napi::Object>();
  CUdeviceptr flushPtr = 0;
  size_t flushBytes = 0;
  if (auto f = optionalObjectArg(env, o.Get("flush"), "flush")) {
    flushPtr = ptrArg(env, f->Get("ptr"), "flush.ptr");
    flushBytes = static_cast<size_t>(intArg(env, f->Get("bytes"), "flush.bytes", 1, INT64_C(1) << 40));
  }
  Napi::Value blocking = o.Get("blocking");
  EventPair ev;
  checkCu(env, g_api->cuEventCreate(&ev.start, EVENT_DEFAULT), "cuEventCreate");
  checkCu(env, g_api->cuEventCreate(&ev.stop, EVENT_DEFAULT), "cuEventCreate");
  // The flush goes first: it finishes before the blocking kernel starts, so L2 is cold at the start
  // event and the flush's own time stays outside it.
  if (flushBytes > 0) enqueueFlush(env, flushPtr, flushBytes);
  Blocker blocker;
  if (blocking.IsUndefined() || blocking.ToBoolean().Value()) blocker.block(env);
  checkCu(env, g_api->cuEventRecord(ev.start, nullptr), "cuEventRecord");
  enqueue(env, l);
  checkCu(env, g_api->cuEventRecord(ev.stop, nullptr), "cuEventRecord", l.f->name);
  blocker.release();
  checkCu(env, g_api->cuEventSynchronize(ev.stop), "cuEventSynchronize", l.f->name);
  float ms = 0;
  checkCu(env, g_api->cuEventElapsedTime(&ms, ev.start, ev.stop), "cuEventElapsedTime", l.f->name);
  Napi::Object out = Napi::Object::New(env);
  out.Set("ms", Napi::Number::New(env, ms));
  out.Set("blocked", Napi::Boolean::New(env, blocker.heldToTheEnd()));
  return out;
}

}  // namespace addon
