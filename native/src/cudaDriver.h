// The slice of the CUDA driver API the addon uses, declared here (no cuda.h needed to build) and
// resolved from libcuda.so.1 with dlopen at run time, so the addon builds and loads without a GPU.
// Values are copied from CUDA 13.0's cuda.h.
#pragma once

#include <cstddef>
#include <string>

namespace cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;

constexpr CUresult CUDA_SUCCESS = 0;

// CUdevice_attribute
constexpr int ATTR_MAX_THREADS_PER_BLOCK = 1;
constexpr int ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8;
constexpr int ATTR_WARP_SIZE = 10;
constexpr int ATTR_MAX_REGISTERS_PER_BLOCK = 12;
constexpr int ATTR_CLOCK_RATE = 13;
constexpr int ATTR_MULTIPROCESSOR_COUNT = 16;
constexpr int ATTR_MEMORY_CLOCK_RATE = 36;
constexpr int ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37;
constexpr int ATTR_L2_CACHE_SIZE = 38;
constexpr int ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39;
constexpr int ATTR_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int ATTR_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81;
constexpr int ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82;
constexpr int ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR = 106;
constexpr int ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK = 111;

// CUfunction_attribute
constexpr int FUNC_MAX_THREADS_PER_BLOCK = 0;
constexpr int FUNC_SHARED_SIZE_BYTES = 1;
constexpr int FUNC_CONST_SIZE_BYTES = 2;
constexpr int FUNC_LOCAL_SIZE_BYTES = 3;
constexpr int FUNC_NUM_REGS = 4;
constexpr int FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

constexpr unsigned EVENT_DEFAULT = 0x0;
// cuMemHostAlloc flags
constexpr unsigned MEMHOSTALLOC_PORTABLE = 0x01;
constexpr unsigned MEMHOSTALLOC_DEVICEMAP = 0x02;

// X(field, exported symbol, signature). The _v2 symbols are what cuda.h maps the plain names to.
#define CU_REQUIRED_FUNCTIONS(X)                                                                             \
  X(cuInit, "cuInit", CUresult (*)(unsigned))                                                                \
  X(cuDriverGetVersion, "cuDriverGetVersion", CUresult (*)(int*))                                            \
  X(cuGetErrorName, "cuGetErrorName", CUresult (*)(CUresult, const char**))                                  \
  X(cuGetErrorString, "cuGetErrorString", CUresult (*)(CUresult, const char**))                              \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult (*)(int*))                                                \
  X(cuDeviceGet, "cuDeviceGet", CUresult (*)(CUdevice*, int))                                                \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult (*)(char*, int, CUdevice))                                  \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult (*)(int*, int, CUdevice))                         \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult (*)(size_t*, CUdevice))                                \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult (*)(CUcontext*, CUdevice))                \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult (*)(CUcontext))                                             \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult (*)())                                                    \
  X(cuMemGetInfo, "cuMemGetInfo_v2", CUresult (*)(size_t*, size_t*))                                         \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr*, size_t))                                         \
  X(cuMemFree, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                                                    \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", CUresult (*)(CUdeviceptr, const void*, size_t))                         \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", CUresult (*)(void*, CUdeviceptr, size_t))                               \
  X(cuMemsetD8, "cuMemsetD8_v2", CUresult (*)(CUdeviceptr, unsigned char, size_t))                           \
  X(cuMemsetD8Async, "cuMemsetD8Async", CUresult (*)(CUdeviceptr, unsigned char, size_t, CUstream))          \
  X(cuModuleLoadData, "cuModuleLoadData", CUresult (*)(CUmodule*, const void*))                              \
  X(cuModuleUnload, "cuModuleUnload", CUresult (*)(CUmodule))                                                \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUresult (*)(CUfunction*, CUmodule, const char*))            \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", CUresult (*)(int*, int, CUfunction))                           \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUresult (*)(CUfunction, int, int))                            \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",              \
    CUresult (*)(int*, CUfunction, int, size_t))                                                             \
  X(cuLaunchKernel, "cuLaunchKernel",                                                                        \
    CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, \
                 void**, void**))                                                                            \
  X(cuEventCreate, "cuEventCreate", CUresult (*)(CUevent*, unsigned))                                        \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult (*)(CUevent))                                              \
  X(cuEventRecord, "cuEventRecord", CUresult (*)(CUevent, CUstream))                                         \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult (*)(CUevent))                                         \
  X(cuEventElapsedTime, "cuEventElapsedTime", CUresult (*)(float*, CUevent, CUevent))                        \
  X(cuMemHostAlloc, "cuMemHostAlloc", CUresult (*)(void**, size_t, unsigned))                                \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", CUresult (*)(CUdeviceptr*, void*, unsigned))

// From driver 12.4; listFunctions reports NOT_SUPPORTED without them.
#define CU_OPTIONAL_FUNCTIONS(X)                                                                             \
  X(cuModuleGetFunctionCount, "cuModuleGetFunctionCount", CUresult (*)(unsigned*, CUmodule))                 \
  X(cuModuleEnumerateFunctions, "cuModuleEnumerateFunctions", CUresult (*)(CUfunction*, unsigned, CUmodule)) \
  X(cuFuncGetName, "cuFuncGetName", CUresult (*)(const char**, CUfunction))

// A function-pointer type written inline cannot precede the declared name; this alias lets it.
template <typename T>
using Fn = T;

struct Api {
#define CU_FIELD(field, symbol, type) Fn<type> field = nullptr;
  CU_REQUIRED_FUNCTIONS(CU_FIELD)
  CU_OPTIONAL_FUNCTIONS(CU_FIELD)
#undef CU_FIELD
  int driverVersion = 0;
};

// Opens libcuda.so.1, resolves the entry points and calls cuInit once. Returns the API, or nullptr
// with `reason` saying what is missing (the same answer on every call).
const Api* load(std::string& reason);

// "CUDA_ERROR_ILLEGAL_ADDRESS" (or "CUDA_ERROR_<n>" when the driver does not know the code).
std::string errorName(const Api& api, CUresult r);
std::string errorString(const Api& api, CUresult r);

}  // namespace cu
