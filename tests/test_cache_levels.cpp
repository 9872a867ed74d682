// The roofline by memory level: cache sizes from sysfs or else CPUID, each level's measured
// bandwidth, and an entry held to the level its working set fits in. Correct cache-resident
// work passes where the host publishes no cache data (a VM); work faster than its level, at
// DRAM size or at a cache level, is refused.
#include "check.hpp"
#include "entry_figures.hpp"
#include "gpu.hpp"
#include "host_peaks.hpp"
#include "measure.hpp"
#include "roofline.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

using namespace gpubench;
namespace fs = std::filesystem;

namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr bool x86 = true;
#else
constexpr bool x86 = false;
#endif

// A sysfs cpu folder with cpu0's caches as given: {level, type, size, shared_cpu_list}.
struct FakeSysfs {
    test_support::TempCacheDir dir;  // a fresh folder (and cache), removed afterwards
    explicit FakeSysfs(const std::vector<std::array<std::string, 4>> &caches) {
        for (size_t i = 0; i < caches.size(); ++i) {
            const fs::path index = dir.dir / "cpu0" / "cache" / ("index" + std::to_string(i));
            fs::create_directories(index);
            const char *names[] = {"level", "type", "size", "shared_cpu_list"};
            for (size_t f = 0; f < 4; ++f) std::ofstream(index / names[f]) << caches[i][f] << '\n';
        }
    }
};

// A host with 2 cores: L1 48 KiB and L2 1 MiB per core, a 32 MiB L3; measured bandwidths.
Roofline two_core_host(bool quiet = true) {
    HostPeaks p;
    p.fp32_flops = 2e11, p.fp64_flops = 1e11, p.bytes_per_s = 40e9;
    p.caches = {{"L1", 2 * (48u << 10), 600e9, 0}, {"L2", 2u << 20, 300e9, 0},
                {"L3", 32u << 20, 150e9, 0}};
    p.cache_source = "cpuid";
    p.quiet = quiet;
    return host_roofline(p);
}

// A CPU entry moving `bytes` (and holding them) per run in `seconds`.
EntryResult cpu_entry(double bytes, double seconds, const Roofline &roofline) {
    EntryResult e;
    e.status = EntryStatus::ok;
    e.work.bytes = e.work.host_bytes = bytes;
    e.timing.samples.run = {seconds, seconds, seconds};
    e.ceiling.margin = roofline.margin;
    hold_to_level(e, roofline, false);
    return e;
}

}  // namespace

TEST_CASE("cache sizes and sharers are read from sysfs, and its absence says so", "[host]") {
    FakeSysfs sysfs({{"1", "Data", "48K", "0-1"}, {"1", "Instruction", "32K", "0-1"},
                     {"2", "Unified", "1024K", "0"}, {"3", "Unified", "32768K", "0-15"}});
    const CpuCaches caches = cpu_caches_from_sysfs(sysfs.dir.dir, 8);
    CHECK(caches.source == "sysfs");
    REQUIRE(caches.levels.size() == 3);  // the instruction cache is not data's
    CHECK(caches.levels[0].level == 1);
    CHECK(caches.levels[0].bytes == 48u << 10);
    CHECK(caches.levels[0].sharers == 2);
    CHECK(caches.levels[1].bytes == 1u << 20);
    CHECK(caches.levels[2].bytes == 32u << 20);
    CHECK(caches.levels[2].sharers == 8);  // 16 CPUs named, 8 on this host
    const CpuCaches none = cpu_caches_from_sysfs("/nonexistent", 8);
    CHECK(none.source == "unknown");
    CHECK(none.levels.empty());
    CHECK(parse_cache_size("32K") == 32u << 10);
    CHECK(parse_cache_size("2M") == 2u << 20);
    CHECK(parse_cache_size("big") == 0);
    FakeSysfs odd({{"1", "Data", "48K", "0-3,8,10-11"}, {"2", "Unified", "1024K", "3-1"},
                   {"3", "Unified", "32768K", "x"}});
    const CpuCaches listed = cpu_caches_from_sysfs(odd.dir.dir, 16);
    REQUIRE(listed.levels.size() == 3);
    CHECK(listed.levels[0].sharers == 7);
    CHECK(listed.levels[1].sharers == 1);  // not a CPU list: the cache is its CPU's own
    CHECK(listed.levels[2].sharers == 1);
}

TEST_CASE("without sysfs cache data, CPUID gives the sizes (x86)", "[host]") {
    if (!x86) test_support::skip_test("CPUID is x86's");
    const CpuCaches cpuid = cpu_caches_from_cpuid(2);
    CHECK(cpuid.source == "cpuid");
    REQUIRE(cpuid.levels.size() >= 2);
    CHECK(cpuid.levels[0].level == 1);
    CHECK(cpuid.levels[0].bytes >= 16u << 10);
    CHECK(cpuid.levels.back().bytes > cpuid.levels[0].bytes);
    test_support::ScopedEnv vm("GPUBENCH_SYSFS_CPU", "/nonexistent");
    CHECK(sysfs_cpu_root() == "/nonexistent");
    CHECK(cpu_caches(2).source == "cpuid");
}

TEST_CASE("each cache level's bandwidth is measured, all threads together", "[host]") {
    const CpuCaches caches = cpu_caches(2);
    if (caches.levels.empty()) test_support::skip_test("this host tells no cache sizes");
    const std::vector<MemoryLevel> levels = measure_cache_levels(caches, 2);
    REQUIRE(levels.size() == caches.levels.size());
    for (const MemoryLevel &level : levels) {
        INFO(level.name << ": " << level.bytes_per_s * 1e-9 << " GB/s");
        CHECK(level.bytes_per_s > 1e9);
        CHECK(level.capacity >= caches.levels.front().bytes);
    }
    CHECK(levels.front().name == "L1");
    CHECK(levels.front().capacity == 2 * caches.levels.front().bytes);  // private: x threads
    // No sizes at all: a level without a bandwidth, so nothing is refused on a guess.
    const std::vector<MemoryLevel> unknown = measure_cache_levels(CpuCaches{{}, "unknown"}, 2);
    REQUIRE(unknown.size() == 1);
    CHECK(unknown[0].bytes_per_s == 0);
    CHECK(unknown[0].capacity == unknown_cache_bytes);
}

TEST_CASE("a working set is held to the smallest level that holds it", "[host]") {
    const Roofline r = two_core_host();
    REQUIRE(r.levels.size() == 4);
    CHECK(r.level_for(64 << 10, false).name == "L1");
    CHECK(r.level_for(200 << 10, false).name == "L2");
    CHECK(r.level_for(8 << 20, false).name == "L3");
    CHECK(r.level_for(1e9, false).name == "DRAM");
    CHECK(r.level_for(64 << 10, true).name == "DRAM");  // caches flushed before each run
    CHECK(r.level_for(64 << 10, true).bytes_per_s == 40e9);
    // Within a level, the part the faster levels hold counts at their rate: just beyond the
    // L2, nearly the L2's; far beyond it, nearly the L3's own.
    CHECK(r.level_for(64 << 10, false).bytes_per_s == 600e9);
    const double l2 = 2u << 20, l1 = 96u << 10;
    CHECK(r.level_for(l2 + 1, false).name == "L3");
    CHECK(r.level_for(l2 + 1, false).bytes_per_s ==
          Approx((l2 + 1) / (l1 / 600e9 + (l2 - l1) / 300e9 + 1 / 150e9)));
    CHECK(r.level_for(30e6, false).bytes_per_s < 160e9);
    CHECK(r.level_for(1e9, false).bytes_per_s == Approx(40e9).epsilon(0.05));
    CHECK(r.level_for(64 << 10, false).margin == Approx(0.5));
    CHECK(r.level_for(1e9, false).margin == Approx(0.2));
    CHECK(two_core_host(false).level_for(64 << 10, false).margin == Approx(2.0));
    CHECK(two_core_host(false).level_for(1e9, false).margin == Approx(1.0));
    const Roofline back = roofline_from_json(roofline_json(r));
    REQUIRE(back.levels.size() == r.levels.size());
    CHECK(back.levels[1].name == "L2");
    CHECK(back.levels[1].bytes_per_s == r.levels[1].bytes_per_s);
    // A roofline from before levels: no ceiling within the cache, the memory's above.
    Roofline old = r;
    old.levels.clear();
    old.cache_bytes = 32u << 20;
    CHECK(old.level_for(1 << 20, false).bytes_per_s == 0);
    CHECK(old.level_for(1e9, false).bytes_per_s == r.bytes_per_s);
}

TEST_CASE("the working set is the footprint a run's bytes come from", "[host]") {
    Work w;
    w.bytes = 100e6;  // 100 passes over a 1 MB matrix
    w.host_bytes = 1e6;
    CHECK(working_set_bytes(w, false) == 1e6);
    CHECK(working_set_bytes(w, true) == 100e6);  // no device footprint declared
    w.device_bytes = 2e6;
    CHECK(working_set_bytes(w, true) == 2e6);
    w.host_bytes = 0;
    CHECK(working_set_bytes(w, false) == 100e6);
}

TEST_CASE("cache-resident work is read against its level, and 10x beyond a level is refused",
          "[host][checks]") {
    const Roofline r = two_core_host();
    // 120 KB (vecadd at 1e4) at 121 GB/s: 264% of DRAM, but it fits in the L2.
    const EntryResult fits = cpu_entry(120e3, 120e3 / 121e9, r);
    CHECK(fits.ceiling.level == "L2");
    CHECK(faster_than_hardware(fits).empty());
    const EntryFigures f = entry_figures(fits, this_host_run());
    CHECK(f.peak_level == "L2");
    CHECK(f.percent_of_peak == Approx(100 * 121e9 / fits.ceiling.bytes_per_s));
    // 10x the level's bandwidth, at a cache level and at DRAM size.
    const EntryResult l2_cheat = cpu_entry(1e6, 1e6 / 3000e9, r);
    CHECK_THAT(faster_than_hardware(l2_cheat), Catch::Contains("of the L2 bandwidth"));
    const EntryResult l1_cheat = cpu_entry(40e3, 40e3 / 6000e9, r);
    CHECK_THAT(faster_than_hardware(l1_cheat), Catch::Contains("of the L1 bandwidth"));
    const EntryResult dram_cheat = cpu_entry(1e9, 1e9 / 400e9, r);
    CHECK(dram_cheat.ceiling.level == "DRAM");
    CHECK_THAT(faster_than_hardware(dram_cheat), Catch::Contains("of the DRAM bandwidth 41"));
    // Within the margin at DRAM size: not refused.
    CHECK(faster_than_hardware(cpu_entry(1e9, 1e9 / 45e9, r)).empty());
}

TEST_CASE("without any cache size, cache-sized work is not refused, and DRAM-sized cheats are",
          "[host][checks]") {
    HostPeaks p;
    p.fp32_flops = 2e11, p.fp64_flops = 1e11, p.bytes_per_s = 40e9;
    p.caches = measure_cache_levels(CpuCaches{{}, "unknown"}, 2);
    const Roofline r = host_roofline(p);
    CHECK(faster_than_hardware(cpu_entry(1e6, 1e6 / 400e9, r)).empty());
    CHECK_FALSE(faster_than_hardware(cpu_entry(1e12, 1e12 / 400e9, r)).empty());
}

TEST_CASE("a simulated VM without sysfs cache data measures levels from CPUID, and honest "
          "cache-resident entries pass", "[host][checks]") {
    if (!x86) test_support::skip_test("CPUID is x86's");
    test_support::ScopedEnv vm("GPUBENCH_SYSFS_CPU", "/nonexistent");
    const HostPeaks peaks = measure_host_peaks();
    CHECK(peaks.cache_source == "cpuid");
    REQUIRE(peaks.caches.size() >= 2);
    CHECK(peaks.llc_bytes == peaks.caches.back().capacity);
    CHECK(host_peaks_from_json(host_peaks_json(peaks))->caches.size() == peaks.caches.size());
    SteadyClockTimer timer;
    timer.set_roofline(host_roofline(peaks));
    const Plugin plugin = test_support::load_fixture("fixture_mistakes.so");
    const Measurement control = measure_entry(plugin, 5, test_support::sampled(20, 20), timer);
    INFO(control.message);
    CHECK(control.status == EntryStatus::ok);
    CHECK(control.ceiling.level == "L1");  // 8 KB of floats
    const Measurement cheat = measure_entry(plugin, 2, test_support::sampled(20, 20), timer);
    CHECK(cheat.status == EntryStatus::verification_failed);  // 1e15 bytes a run over 8 KB
    CHECK_THAT(cheat.message, Catch::Contains("of the L1 bandwidth"));
}

TEST_CASE("a GPU working set within the L2 is held to the L2's bandwidth, where known", "[checks]") {
    GpuInfo h100;
    h100.available = true;
    h100.compute_major = 9;
    h100.peak_bytes_per_s = 3.35e12;
    h100.memory_bus_bits = 5120;
    h100.l2_bytes = 50u << 20;
    Roofline r = gpu_roofline(h100);
    REQUIRE(r.levels.size() == 2);
    CHECK(r.level_for(12e6, false).name == "L2");
    CHECK(r.level_for(12e6, false).bytes_per_s == 0);  // not measured: no ceiling
    CHECK(r.level_for(1.2e9, false).name == "HBM");
    h100.l2_bytes_per_s = 8e12;
    r = gpu_roofline(h100);
    CHECK(r.level_for(12e6, false).bytes_per_s == 8e12);
    CHECK(r.level_for(12e6, true).name == "HBM");  // cold: L2 flushed before each run
    h100.memory_bus_bits = 384;
    CHECK(gpu_roofline(h100).levels.back().name == "DRAM");
}

TEST_CASE("the L2 bandwidth is measured once per GPU, faster than its memory", "[gpu]") {
    test_support::require_gpu();
    test_support::TempCacheDir cache;
    auto timer = make_cuda_event_timer(0);
    const MemoryLevel l2 = timer->roofline().level_for(1e6, false);
    CHECK(l2.name == "L2");
    CHECK(l2.bytes_per_s > timer->roofline().bytes_per_s);
    CHECK(fs::exists(cache.dir / "gpu-l2-bandwidth.json"));
    CHECK(probe_gpu(0).l2_bytes_per_s == l2.bytes_per_s);  // read back from the cache
}
