// The kernel clock: each kernel's own start and end timestamps from CUPTI's activity records (what
// Nsight Systems shows), so a sample is the kernel's execution alone, without the ~1 µs that CUDA events
// add around a launch (the launch's setup on the GPU and the stop event's wait for completion).
// libcupti is loaded at run time; without it (or when a profiler holds CUPTI) timing stays on events.
#pragma once

#include <cstdint>
#include <string>

namespace addon {

// Starts recording kernel activity; false, with why, when CUPTI cannot be loaded or subscribed.
bool kernelClockStart(std::string& why);
// Stops recording (the last records are drained and dropped).
void kernelClockStop();
bool kernelClockActive();
// After a sample has synchronized: end - start in ns of the latest-starting kernel recorded since the
// previous call (the sample's kernel starts after its flush and blocking kernels), 0 if none.
uint64_t kernelClockLastNs();

}  // namespace addon
