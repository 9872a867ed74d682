// The CPU's cache sizes (cpu_caches, host_peaks.hpp).
#include "host_peaks.hpp"

#include "host_share.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define GPUBENCH_X86 1
#endif

namespace fs = std::filesystem;

namespace gpubench {

std::filesystem::path sysfs_cpu_root() {
    const char *hook = std::getenv("GPUBENCH_SYSFS_CPU");
    return hook && *hook ? fs::path(hook) : fs::path("/sys/devices/system/cpu");
}

uint64_t parse_cache_size(const std::string &text) {
    char *unit = nullptr;
    uint64_t bytes = std::strtoull(text.c_str(), &unit, 10);
    if (unit == text.c_str()) return 0;
    switch (*unit) {
        case 'K': return bytes << 10;
        case 'M': return bytes << 20;
        case 'G': return bytes << 30;
        case '\0': return bytes;
        default: return 0;
    }
}

namespace {

// How many CPUs a shared_cpu_list names; 1 (the cache is its CPU's own) when it is not a list.
unsigned sharers_of(const std::string &list) {
    try {
        return std::max<unsigned>(1, static_cast<unsigned>(parse_cpu_list(list).size()));
    } catch (const std::invalid_argument &) {
        return 1;
    }
}

// One cache per level, the largest where a level has several (a split L1: its data half).
void keep(CpuCaches &caches, CpuCache cache, unsigned logical) {
    if (cache.level <= 0 || cache.bytes == 0) return;
    cache.sharers = std::clamp(cache.sharers, 1u, std::max(1u, logical));
    for (CpuCache &known : caches.levels)
        if (known.level == cache.level) {
            if (cache.bytes > known.bytes) known = cache;
            return;
        }
    caches.levels.push_back(cache);
    std::sort(caches.levels.begin(), caches.levels.end(),
              [](const CpuCache &a, const CpuCache &b) { return a.level < b.level; });
}

}  // namespace

CpuCaches cpu_caches_from_sysfs(const fs::path &root, unsigned logical) {
    CpuCaches caches;
    std::error_code ec;
    for (fs::directory_iterator it(root / "cpu0" / "cache", ec), end; !ec && it != end;
         it.increment(ec)) {
        if (it->path().filename().string().rfind("index", 0) != 0) continue;
        std::ifstream level_file(it->path() / "level"), type_file(it->path() / "type"),
            size_file(it->path() / "size"), shared_file(it->path() / "shared_cpu_list");
        CpuCache cache;
        std::string type, size, shared;
        if (!(level_file >> cache.level) || !(type_file >> type) || !(size_file >> size)) continue;
        if (type == "Instruction") continue;
        cache.bytes = parse_cache_size(size);
        cache.sharers = shared_file >> shared ? sharers_of(shared) : 1;
        keep(caches, cache, logical);
    }
    caches.source = caches.levels.empty() ? "unknown" : "sysfs";
    return caches;
}

CpuCaches cpu_caches_from_cpuid(unsigned logical) {
    CpuCaches caches;
    caches.source = "unknown";
#ifdef GPUBENCH_X86
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return caches;
    const unsigned max_leaf = a;
    const bool amd = (b == 0x68747541 || b == 0x6f677948);  // "Auth"enticAMD, "Hygo"nGenuine
    unsigned leaf = 4;
    if (amd) {
        // Leaf 0x8000001D needs the topology extensions (CPUID 0x80000001 ECX bit 22).
        if (__get_cpuid_max(0x80000000, nullptr) < 0x8000001D ||
            !__get_cpuid(0x80000001, &a, &b, &c, &d) || !(c & (1u << 22)))
            return caches;
        leaf = 0x8000001D;
    } else if (max_leaf < 4) {
        return caches;
    }
    // Both leaves: EAX[4:0] type (0 = no more), [7:5] level, [25:14] sharers - 1;
    // EBX line size, partitions and ways - 1; ECX sets - 1.
    for (unsigned index = 0; index < 16; ++index) {
        __cpuid_count(leaf, index, a, b, c, d);
        const unsigned type = a & 0x1f;
        if (type == 0) break;
        if (type == 2) continue;  // instructions
        CpuCache cache;
        cache.level = static_cast<int>((a >> 5) & 0x7);
        cache.sharers = ((a >> 14) & 0xfff) + 1;
        cache.bytes = uint64_t((b & 0xfff) + 1) * (((b >> 12) & 0x3ff) + 1) *
                      (((b >> 22) & 0x3ff) + 1) * (uint64_t(c) + 1);
        keep(caches, cache, logical);
    }
    if (!caches.levels.empty()) caches.source = "cpuid";
#else
    (void)logical;
#endif
    return caches;
}

CpuCaches cpu_caches(unsigned logical) {
    CpuCaches caches = cpu_caches_from_sysfs(sysfs_cpu_root(), logical);
    return caches.levels.empty() ? cpu_caches_from_cpuid(logical) : caches;
}

}  // namespace gpubench
