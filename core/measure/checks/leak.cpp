#include "leak.hpp"

#include "text_format.hpp"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace gpubench {

MemoryReading read_memory(const PhaseTimer &timer, size_t runs) {
    MemoryReading reading;
    reading.runs = runs;
    if (const auto device = timer.device_memory()) {
        reading.device_used = device->total - device->free;
        reading.device_shared = device->shared();
    }
    // Counts memory that malloc handed out even where it was never touched (no RSS yet).
    const struct mallinfo2 info = mallinfo2();
    reading.host_allocated = info.uordblks + info.hblkhd;
    std::ifstream statm("/proc/self/statm");
    uint64_t size_pages = 0, resident_pages = 0;
    if (statm >> size_pages >> resident_pages)
        reading.host_resident = resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    return reading;
}

std::string leak_between(size_t runs_a, uint64_t a, size_t runs_b, uint64_t b, size_t runs_c,
                         uint64_t c, const char *what) {
    if (!(runs_a < runs_b && runs_b < runs_c) || !(a < b && b < c)) return "";
    const double total = static_cast<double>(c - a);
    const double per_run = total / static_cast<double>(runs_c - runs_a);
    if (total < LeakWatch::leak_min_total || per_run < LeakWatch::leak_min_per_run) return "";
    // Both intervals grow at a steady share of the rate, not one burst.
    const double share_b = static_cast<double>(b - a) / static_cast<double>(runs_b - runs_a);
    const double share_c = static_cast<double>(c - b) / static_cast<double>(runs_c - runs_b);
    if (share_b < per_run / 4 || share_c < per_run / 4) return "";
    return "leaks " + format_memory(per_run) + " of " + what + " per run() (" + format_memory(total) +
           " more after " + std::to_string(runs_c - runs_a) + " more runs)";
}

std::string LeakWatch::after_run(size_t runs) {
    if (runs < next_checkpoint_) return "";
    read_now(runs);
    next_checkpoint_ = runs < 1 ? 1 : 2 * runs;
    return leak();
}

void LeakWatch::read_now(size_t runs) {
    if (!readings_.empty() && readings_.back().runs == runs) return;
    MemoryReading reading = read_memory(timer_, runs);
    reading.host_allocated -= std::min(reading.host_allocated, aside_allocated_);
    reading.host_resident -= std::min(reading.host_resident, aside_resident_);
    readings_.push_back(reading);
}

void LeakWatch::set_aside(const MemoryReading &before, const MemoryReading &after) {
    const auto growth = [](uint64_t from, uint64_t to) { return to > from ? to - from : 0; };
    const uint64_t allocated = growth(before.host_allocated, after.host_allocated),
                   resident = growth(before.host_resident, after.host_resident);
    aside_allocated_ += allocated;
    aside_resident_ += resident;
    // A reading taken during the cycle (after a run() of it) already holds the growth; one at
    // before.runs was taken before the cycle and does not.
    if (!readings_.empty() && readings_.back().runs > before.runs) {
        MemoryReading &last = readings_.back();
        last.host_allocated -= std::min(last.host_allocated, allocated);
        last.host_resident -= std::min(last.host_resident, resident);
    }
}

std::string LeakWatch::leak() const {
    if (readings_.size() < 3) return "";
    const MemoryReading &a = readings_[readings_.size() - 3], &b = readings_[readings_.size() - 2],
                        &c = readings_.back();
    // The device's used memory is everyone's: growth while another process computes there
    // (two shards on one GPU) may be its allocations, so it is no verdict on this plugin.
    const bool device_shared = a.device_shared || b.device_shared || c.device_shared;
    if (a.device_used && b.device_used && c.device_used && !device_shared)
        if (std::string found = leak_between(a.runs, *a.device_used, b.runs, *b.device_used,
                                             c.runs, *c.device_used, "device memory");
            !found.empty())
            return found;
    if (std::string found = leak_between(a.runs, a.host_allocated, b.runs, b.host_allocated,
                                         c.runs, c.host_allocated, "host memory");
        !found.empty())
        return found;
    return leak_between(a.runs, a.host_resident, b.runs, b.host_resident, c.runs,
                        c.host_resident, "host memory (resident)");
}

extern const Check leak_check{
    "leak", CheckVerdict::error, "memory that grows with the number of run() calls",
    "device memory used, host memory allocated (`mallinfo2`) and resident, read at 1, 2, 4, 8… "
    "runs: growth in each of the last two intervals, ≥ 16 MiB in all and ≥ 64 KiB per run. "
    "Checked while sampling, so it stops before memory runs out",
    "`leaks 256 MiB of device memory per run() (768 MiB more after 3 more runs)`",
    nullptr};  // judged while sampling (Sampler::ran, sampling.cpp)

}  // namespace gpubench
