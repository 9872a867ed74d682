// The bandwidth of each CPU cache level, all logical CPUs together, as a cache-aware roofline
// measures it (Intel Advisor's CARM, likwid-bench's per-level streams): every thread streams
// over a buffer of its own that fits well inside its share of the level.
#pragma once

#include "cpu_caches.hpp"
#include "roofline.hpp"

#include <vector>

namespace gpubench {

// One level per cache ("L1", "L2"...), of what all its instances hold (a private cache's size
// times the logical CPUs: generous, so that no working set is placed in a slower level than it
// may run from), bytes_per_s measured now (about 0.1 s), margin 0 (host_roofline sets it).
// Without cache sizes: one level "cache" of unknown_cache_bytes and no bandwidth (no
// ceiling: a size that is not known must not refuse correct work).
std::vector<MemoryLevel> measure_cache_levels(const CpuCaches &caches, unsigned threads);

// The capacity assumed when no cache size is known: more than any CPU's caches hold.
inline constexpr uint64_t unknown_cache_bytes = 2ull << 30;

}  // namespace gpubench
