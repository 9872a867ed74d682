// The GPU's hardware counters over one stretch of host code (a plugin's run()), read through
// CUPTI's range profiler: one user range around the call, replayed by the caller as many
// passes as the counters need (the hardware counts a few at a time). Everything the device
// does in the range counts: the kernels of every library (cuBLAS, CUB, CuPy, PyTorch) and
// the copy engines' traffic alike. Implemented by gpu_counters_cupti.cpp where CUPTI's
// headers were found at build time, by cupti_none.cpp otherwise.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

class GpuCounterSession {
public:
    virtual ~GpuCounterSession() = default;
    // Around each pass of the counted call: start_pass() opens the range; end_pass() waits for
    // the device, closes the range and says whether every pass is done (false: restore the
    // call's inputs and make it again). Both throw std::runtime_error naming what failed.
    virtual void start_pass() = 0;
    virtual bool end_pass() = 0;
    // After the last pass: each counter by the name hardware_counters.hpp gives it
    // ("dram_read_bytes_per_run"), with its value over the range. Counts (bytes, flops) are
    // net of the profiler's own: a range around nothing, counted when the session opens.
    virtual std::vector<std::pair<std::string, double>> read() = 0;
    virtual std::string caveat() const = 0;  // after read(): one line on figures left out, or ""
    virtual std::string name() const = 0;  // "CUPTI 13.0 range profiler"
    virtual size_t passes() const = 0;     // how many the counted call is made
};

// A session on the CUDA context current on this thread, or nullptr with `why_not` saying in
// one line why none can be had: no CUPTI, a device or system that does not allow profiling
// (profiling restricted to administrators, vGPU, confidential computing...), another tool
// holding the profiler in this process.
std::unique_ptr<GpuCounterSession> open_gpu_counters(std::string &why_not);

}  // namespace gpubench
