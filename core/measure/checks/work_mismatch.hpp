// The work the hardware counted (--counters, hardware_counters.hpp) against the work the
// plugin declared (work()): a plugin whose work() is wrong below the peak shows here, where
// the impossible-throughput check only sees it above. Bytes are compared as a GPU entry's
// L2 traffic (l2_bytes_per_run: every byte its kernels and copies moved, served by the L2 or
// by HBM; HBM's reads and writes where no L2 figure was counted); a CPU entry's DRAM traffic
// (last-level cache misses x 64 B) only where it is held to DRAM, since the PMU's generic
// events see no other level; and only where the declared work is memory-bound (a compute-bound kernel moves
// more than its least bytes by design). FLOPs are compared where both are known.
#pragma once

#include "check.hpp"

#include <initializer_list>
#include <optional>
#include <string>

namespace gpubench {

// The factor beyond which declared and counted work disagree. Below 2, so that a plugin off
// by a factor of 2 (declaring half its bytes, or twice) is caught even where the caches keep
// part of its traffic from the counters (an H100 writes 0.97-1.0 of vecadd's bytes back to
// HBM by the end of a run()); above what a correct plugin shows on an H100 (0.99-1.0 of its
// bytes in HBM, 1.1-1.3 in the L2, where the counted cycle's own traffic adds).
inline constexpr double counted_work_tolerance = 1.5;

// Bytes a run() must move, declared or counted, before they are compared: below, what the
// counted cycle moves besides the work (an H100 counts 1.5-1.9 MB through the L2 for a run()
// of 12 KB, the profiler's own floor taken off) is a large part of what the counters see.
inline constexpr double counted_work_least_bytes = 4 << 20;

// The counter `name` as the entry recorded it (a measured metric), or nullopt; the sum of
// those of `names` that were read, or nullopt where none was.
std::optional<double> counted_value(const Measurement &entry, const char *name);
std::optional<double> counted_sum(const Measurement &entry, std::initializer_list<const char *> names);
// The counted flops of the four precisions together, or nullopt where the pipes' (FP64, FP32,
// FP16) were not read: where the profiler could not see them all (gpu_counter_figures.hpp),
// the tensor cores' alone would read as a wrong total.
std::optional<double> counted_flops(const Measurement &entry);

// "" where they agree within counted_work_tolerance or cannot be compared; else what
// differs, naming both: "declares 4e+08 B a run(), the counters 8e+08 B (HBM)".
std::string counted_work_mismatch(const Measurement &entry);

}  // namespace gpubench
