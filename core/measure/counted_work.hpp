// The work the hardware counted (--counters, hardware_counters.hpp) against the work the
// plugin declared (work()): a plugin whose work() is wrong below the peak shows here, where
// the impossible-throughput check only sees it above. Bytes are compared at the level the
// entry's working set is held to: a GPU entry's L2 traffic (l2_bytes_per_run) where it fits
// in the L2, its HBM traffic (dram read + write) beyond; a CPU entry's DRAM traffic (last-level
// cache misses x 64 B) only where it is held to DRAM, since the PMU's generic events see no
// other level; and only where the declared work is memory-bound (a compute-bound kernel moves
// more than its least bytes by design). FLOPs are compared where both are known.
#pragma once

#include "measure.hpp"

#include <string>

namespace gpubench {

// The factor beyond which declared and counted work disagree.
inline constexpr double counted_work_tolerance = 2.0;

// "" where they agree within counted_work_tolerance or cannot be compared; else what
// differs, naming both: "declares 4e+08 B a run(), the counters 8e+08 B (HBM)".
std::string counted_work_mismatch(const EntryResult &entry);

}  // namespace gpubench
