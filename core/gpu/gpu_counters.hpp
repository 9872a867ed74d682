// The GPU's hardware counters over one stretch of host code (a plugin's run()), read through
// CUPTI's range profiler: one range around the call, made by the caller as many passes as the
// counters need (the hardware counts a few at a time). Everything the device does in the range
// counts, every library's kernels and the copy engines alike. Implemented by
// gpu_counters_cupti.cpp, or cupti_none.cpp without CUPTI's headers.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

class GpuCounterSession {
public:
    virtual ~GpuCounterSession() = default;
    // Around each pass of the counted call; end_pass() says whether every pass is done (false:
    // restore the call's inputs and make it again). Both throw std::runtime_error.
    virtual void start_pass() = 0;
    virtual bool end_pass() = 0;
    // After the last pass: each figure ("dram_read_bytes_per_run") with its value over the
    // range, counts net of the profiler's own (a range around nothing, counted at the start).
    virtual std::vector<std::pair<std::string, double>> read() = 0;
    virtual std::string caveat() const = 0;  // after read(): one line on figures left out, or ""
    virtual std::string name() const = 0;  // "CUPTI 13.0 range profiler"
    virtual size_t passes() const = 0;     // how many the counted call is made
};

// A session on the CUDA context current on this thread, or nullptr with `why_not` saying in
// one line why none can be had (no CUPTI, profiling not allowed, another tool holding it).
std::unique_ptr<GpuCounterSession> open_gpu_counters(std::string &why_not);

}  // namespace gpubench
