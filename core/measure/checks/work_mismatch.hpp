// The work the hardware counted (--counters, hardware_counters.hpp) against the work the
// plugin declared, both ways: less counted means the plugin claims work it does not do (the
// work_mismatch flag); more is how far the kernel goes beyond the least its work needs (a
// tiled product's re-reads): an efficiency figure, never a flag. Bytes are compared only where
// the declared work is memory-bound (a compute-bound kernel's declared bytes say little of its
// traffic): a GPU entry's L2 traffic (every byte its kernels and copies moved; else HBM's),
// a CPU entry's last-level cache misses x 64 B only where it is held to DRAM (the PMU's
// generic events see no other level). FLOPs are compared where both are known.
#pragma once

#include "check.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// How far below the declared work the count must be to flag it: a plugin that claims 1.5 times
// the work it does is caught even where the caches keep part of its traffic from the counters
// (an H100 writes 0.97-1.0 of vecadd's bytes back to HBM by the end of a run()), and a correct
// plugin's count (0.99-1.3 of its bytes, the counted cycle's own traffic added) never is.
inline constexpr double counted_work_tolerance = 1.5;

// Bytes a run() must declare before they are compared: below, what the counted cycle moves
// besides the work (an H100 counts 1.5-1.9 MB through the L2 for a run() of 12 KB, the
// profiler's own floor taken off) is a large part of what the counters see.
inline constexpr double counted_work_least_bytes = 4 << 20;

// The counter `name` as the entry recorded it (a measured metric), or nullopt; the sum of
// those of `names` that were read, or nullopt where none was.
std::optional<double> counted_value(const Measurement &entry, const char *name);
std::optional<double> counted_sum(const Measurement &entry, std::initializer_list<const char *> names);
// The counted flops of the four precisions together, or nullopt where the pipes' (FP64, FP32,
// FP16) were not read: where the profiler could not see them all (gpu_counter_figures.hpp),
// the tensor cores' alone would read as a wrong total.
std::optional<double> counted_flops(const Measurement &entry);

// The counted work over the declared, per run(), where they can be compared: bytes at the
// entry's level (`level`: "L2", "HBM", "DRAM"), and flops (the FP16 pipe's left out: compilers
// load constants with HFMA2s, and no declared math is plain FP16).
struct CountedWork {
    std::optional<double> bytes_ratio, flops_ratio;
    std::string level;
};
CountedWork counted_work(const Measurement &entry);

// The counting's efficiency figures, measured metrics of the entry: `bytes_over_declared` and
// `flops_over_declared` ("2.9 x": the hardware moved 2.9 times the bytes work() declares).
std::vector<Metric> counted_work_figures(const Measurement &entry);

// "" unless the counters saw less than 1/counted_work_tolerance of the declared bytes or flops;
// else what differs, naming both: "declares 8e+08 B a run(), the counters 4e+08 B (L2)".
std::string counted_work_mismatch(const Measurement &entry);

}  // namespace gpubench
