// The kernels of gpuData.cu (PTX in gpuDataPtx.h), loaded once per device: seeded generation, the
// device-side output check and the blocking kernel that timed samples start behind.
#pragma once

#include <napi.h>

#include "cudaDriver.h"

namespace addon {

struct DataKernels {
  cu::CUfunction generate = nullptr;
  cu::CUfunction compare = nullptr;
  cu::CUfunction block = nullptr;
  cu::CUresult loadError = 0;  // cuModuleLoadData's answer; the functions are null unless 0
};

// The current device's kernels (loaded on first use; a failed JIT is remembered, not retried).
const DataKernels& dataKernels();

}  // namespace addon
