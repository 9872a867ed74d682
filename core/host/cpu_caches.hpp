// The CPU's data caches: the size of each level and how many logical CPUs share one instance
// of it. From sysfs where the kernel publishes them; else from CPUID (x86: leaf 4 on Intel,
// 0x8000001D on AMD), which a VM without sysfs cache folders still answers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gpubench {

struct CpuCache {
    int level = 0;          // 1, 2, 3...
    uint64_t bytes = 0;     // one instance
    unsigned sharers = 1;   // logical CPUs sharing one instance (at most the host's)
};

struct CpuCaches {
    std::vector<CpuCache> levels;  // data or unified caches, one per level, lowest first
    std::string source;            // "sysfs", "cpuid" or "unknown" (levels empty)
};

// $GPUBENCH_SYSFS_CPU, else /sys/devices/system/cpu. The variable is a test hook: pointing it at
// a folder without cpu0/cache simulates a host (a VM) whose kernel publishes no cache data.
std::filesystem::path sysfs_cpu_root();

// From <root>/cpu0/cache/index*/{level,type,size,shared_cpu_list}; empty levels when absent.
CpuCaches cpu_caches_from_sysfs(const std::filesystem::path &root, unsigned logical);
// From CPUID; empty levels off x86 or when the CPU does not say.
CpuCaches cpu_caches_from_cpuid(unsigned logical);
// sysfs, else CPUID, else none ("unknown").
CpuCaches cpu_caches(unsigned logical);

// "32K" / "1024K" / "32M" (sysfs sizes) in bytes; 0 when not a size.
uint64_t parse_cache_size(const std::string &text);

}  // namespace gpubench
