// Named NVTX ranges around plugin calls, so that a profiler (Nsight Systems, Nsight Compute's
// --nvtx filters) can tell which entry and phase each kernel and copy belongs to:
// "vecadd_cuda 1e+08 run". Without a profiler a range costs tens of nanoseconds
// (bench/harness_overhead), kept outside every timed span. NVTX 3 comes with the CUDA
// toolkit: a build without it, or an entry measured with --no-nvtx, has none.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>

namespace gpubench {

// An entry's name in its ranges: "<plugin> <size>[ <params>]".
std::string nvtx_entry_label(const std::string &plugin, uint64_t size, const std::string &params);

// The range names of one entry's phases, each made once and kept where it is: "<label>
// <phase>", or during the warm-up "<label> warmup <phase>" (a profiler's filter on "... run"
// then takes the counted runs alone). An empty label names no range (--no-nvtx).
class EntryRanges {
public:
    explicit EntryRanges(std::string label) : label_(std::move(label)) {}
    const char *name(const char *phase);  // nullptr: no range
    void set_warm_up(bool on) { warm_up_ = on; }

private:
    std::string label_;
    bool warm_up_ = false;
    // Phase and its range's name; a deque, so that a name handed out stays where it is.
    std::deque<std::pair<std::string, std::string>> names_;
};

// A range pushed on this thread's stack for the object's life; none for a null name.
class NvtxRange {
public:
    explicit NvtxRange(const char *name);
    ~NvtxRange();
    NvtxRange(const NvtxRange &) = delete;
    NvtxRange &operator=(const NvtxRange &) = delete;

private:
    bool pushed_ = false;
};

// Whether this build emits NVTX ranges (it was built with the CUDA toolkit's NVTX 3).
bool nvtx_built_in();

}  // namespace gpubench
