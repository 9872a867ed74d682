// CUPTI out of the process between traced calls. Once CUPTI has traced, it stays in every
// later CUDA call of the process, activities disabled or not: on an H200 a kernel launch took
// 5.6 us instead of 4.2 us, ten launches and event records 75 us instead of 56 us, and a
// CuPy run() of 800 launches 33 ms instead of 21 ms. run()'s host time per call must not carry
// that (cupyx's CPU time, its yardstick, has no CUPTI), so the device trace detaches CUPTI
// after each traced cycle and attaches it again before the next (about 14 ms on an H200).
#pragma once

#include "cupti_library.hpp"

#include <cstdint>
#include <string>

namespace gpubench {

// Detaches CUPTI (cuptiFinalize) at the exit of a CUDA call, where CUPTI's documentation asks
// for it, so that no other thread's CUDA call is inside CUPTI meanwhile. Call it with every
// activity disabled and flushed. Returns "" or why CUPTI stays attached (another tool holds
// its callbacks, or this CUPTI lacks the entry points).
std::string cupti_detach(const CuptiApi &api);

// How many times CUPTI was detached in this process: whatever registered with CUPTI before
// the count changed (activity callbacks, stream ids) must register again.
uint64_t cupti_detaches();

// Something in this process keeps CUPTI state that a detach would destroy under it (the GPU
// counters' profiler objects): cupti_detach refuses from then on. (A profiler initialised
// after a detach fails too, CUPTI_ERROR_NOT_INITIALIZED: the sampler does not detach under
// --counters at all, stream_audit.hpp.)
void keep_cupti_attached();

}  // namespace gpubench
