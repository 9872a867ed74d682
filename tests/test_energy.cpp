// Energy per result: the CPU packages' source (powercap, perf's power PMU) over made-up sysfs
// trees, NVML's counter read at its changes, and sampling that goes on for the GPU's energy
// window.
#include "counter_change.hpp"
#include "cpu_energy.hpp"
#include "entry_figures.hpp"
#include "measure.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace gpubench;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// `text` as the whole file at once (a new file renamed over the old): a reader never sees it
// half written, as it never sees a sysfs file so.
void write_sysfs_file(const fs::path &file, const std::string &text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file.string() + ".new") << text << '\n';
    fs::rename(file.string() + ".new", file);
}

// powercap's tree as the intel_rapl driver makes it: domain `folder` named `name`, with its
// counter and the value it wraps at.
void rapl_domain(const fs::path &root, const std::string &folder, const std::string &name, uint64_t energy_uj,
                 uint64_t range_uj = 262143328850) {
    write_sysfs_file(root / folder / "name", name);
    write_sysfs_file(root / folder / "energy_uj", std::to_string(energy_uj));
    write_sysfs_file(root / folder / "max_energy_range_uj", std::to_string(range_uj));
}

// perf's power PMU as the kernel describes it, with the events named.
void power_pmu(const fs::path &root, const std::vector<std::string> &events, const std::string &unit = "Joules") {
    write_sysfs_file(root / "type", "4242");  // no real PMU has this number: perf_event_open refuses it
    write_sysfs_file(root / "cpumask", "0,18");
    write_sysfs_file(root / "format" / "event", "config:0-7");
    for (const std::string &event : events) {
        write_sysfs_file(root / "events" / event, event == "energy-pkg" ? "event=0x02" : "event=0x05");
        write_sysfs_file(root / "events" / (event + ".scale"), "2.3283064365386962890625e-10");
        write_sysfs_file(root / "events" / (event + ".unit"), unit);
    }
}

// A GPU energy counter that steps by 10 J every 100 ms (100 W), as an H200's does.
std::optional<uint64_t> stepping_counter_mj() {
    static const std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
    const auto since = std::chrono::steady_clock::now() - began;
    const auto steps = std::chrono::duration_cast<std::chrono::milliseconds>(since).count() / 100;
    return uint64_t(1000000 + steps * 10000);
}

}  // namespace

TEST_CASE("the CPU source sums powercap's packages, undoing a counter's wrap-around", "[energy]") {
    test_support::TempFolder tree;
    const uint64_t range = 262143328850;
    rapl_domain(tree.path(), "intel-rapl:0", "package-0", range - 1000000, range);
    rapl_domain(tree.path(), "intel-rapl:1", "package-1", 5000000);
    rapl_domain(tree.path(), "intel-rapl:0:0", "core", 7);  // a sub-domain: not a package
    rapl_domain(tree.path(), "intel-rapl:2", "psys", 9);    // the platform: not a package
    std::string why;
    const auto source = CpuEnergySource::discover(tree.path(), "/nonexistent-perf", why);
    REQUIRE(source);
    CHECK(source->name() == "powercap intel-rapl: 2 packages");
    const auto before = source->read();
    REQUIRE(before);
    CHECK(*before == std::vector<uint64_t>{range - 1000000, 5000000});
    write_sysfs_file(tree.path() / "intel-rapl:0" / "energy_uj", "1000000");  // wrapped: 2 J later
    write_sysfs_file(tree.path() / "intel-rapl:1" / "energy_uj", "8000000");  // 3 J later
    const auto after = source->read();
    REQUIRE(after);
    CHECK(source->joules_between(*before, *after) == Approx(5.0));
}

TEST_CASE("a CPU source that cannot be read is refused with the reason, never an error", "[energy]") {
    test_support::TempFolder tree;
    rapl_domain(tree.path(), "intel-rapl:0", "package-0", 1000);
    // Unreadable (root's alone since Linux 5.10; a folder here, which root cannot read either).
    fs::remove(tree.path() / "intel-rapl:0" / "energy_uj");
    fs::create_directories(tree.path() / "intel-rapl:0" / "energy_uj");
    std::string why;
    CHECK_FALSE(CpuEnergySource::discover(tree.path(), "/nonexistent-perf", why));
    CHECK_THAT(why, Catch::Contains("intel-rapl:0/energy_uj is not readable"));
    CHECK(why.find('\n') == std::string::npos);
    // No tree at all: the reason names what was looked for, and why each was unusable.
    CHECK_FALSE(CpuEnergySource::discover("/nonexistent-powercap", "/nonexistent-perf", why));
    CHECK_THAT(why, Catch::StartsWith("no CPU package energy counter: powercap: no /nonexistent-powercap") &&
                        Catch::Contains("perf /nonexistent-perf: no such power PMU"));
    // A tree of sub-domains and psys alone has no package.
    test_support::TempFolder platform;
    rapl_domain(platform.path(), "intel-rapl:1", "psys", 1000);
    CHECK_FALSE(CpuEnergySource::discover(platform.path(), "/nonexistent-perf", why));
    CHECK_THAT(why, Catch::Contains("no package domain"));
}

TEST_CASE("perf's power PMU: energy-pkg is chosen and parsed, energy-psys alone refused", "[energy]") {
    test_support::TempFolder psys_only, with_pkg, in_millijoules;
    power_pmu(psys_only.path(), {"energy-psys"});
    std::string why;
    CHECK_FALSE(perf_power_event(psys_only.path(), why));
    CHECK_THAT(why, Catch::Contains("energy-psys is the platform (psys) domain") && Catch::Contains("not used"));

    power_pmu(with_pkg.path(), {"energy-psys", "energy-pkg"});
    const std::optional<PerfPowerEvent> event = perf_power_event(with_pkg.path(), why);
    REQUIRE(event);
    CHECK(event->type == 4242);
    CHECK(event->config == 2);
    CHECK(event->scale == Approx(2.3283064365386962890625e-10));
    CHECK(event->cpus == std::vector<int>{0, 18});  // one CPU per package

    power_pmu(in_millijoules.path(), {"energy-pkg"}, "mJ");
    CHECK_FALSE(perf_power_event(in_millijoules.path(), why));
    CHECK_THAT(why, Catch::Contains("counts in mJ, not Joules"));
    // Opening the event itself cannot be faked: a PMU type no kernel has is refused, with why.
    CHECK_FALSE(CpuEnergySource::discover("/nonexistent-powercap", with_pkg.path(), why));
    CHECK_THAT(why, Catch::Contains("perf power/energy-pkg: perf_event_open on CPU 0"));
}

TEST_CASE("a counter read at its changes: where it changed, or that it did not", "[energy]") {
    CounterChange stepping(stepping_counter_mj);
    REQUIRE(stepping.readable());
    const uint64_t first = stepping.value();
    CHECK(stepping.await());
    CHECK(stepping.value() == first + 10000);
    CHECK(stepping.waited_s() < 0.2);
    CounterChange constant([] { return std::optional<uint64_t>(7); });
    CHECK_FALSE(constant.await(0.02));
    CHECK(constant.waited_s() >= 0.02);
    CHECK_THAT(not_aligned_note("end"), Catch::StartsWith("not aligned at its end: NVML's energy counter"));
    CounterChange absent([] { return std::optional<uint64_t>(); });
    CHECK_FALSE(absent.readable());
    CHECK_FALSE(absent.await());
}

TEST_CASE("a GPU entry samples on until its energy window is long enough and ends at a change", "[energy]") {
    test_support::ClaimedDevicesTimer timer({0}, stepping_counter_mj);
    const Measurement e = measure_entry(test_support::load_fixture("fixture_good.so"), 100,
                                        test_support::sampled(2, 3), timer);
    REQUIRE(e.status == EntryStatus::ok);
    CHECK(e.timing.samples.run.size() > 3);  // past max_samples: the extra cycles are samples
    CHECK_THAT(e.timing.stop_reason, Catch::Contains("more, for the GPU's energy window"));
    REQUIRE(e.resources.gpu_energy);
    CHECK(e.resources.gpu_energy_note.empty());  // aligned at both ends
    CHECK(e.resources.gpu_energy->seconds >= EntryResources::energy_window_min_s);
    CHECK(e.resources.gpu_energy->joules >= 50);  // whole steps of 10 J, 0.5 s at least
    const EntryFigures f = entry_figures(e, this_host_run());
    REQUIRE(f.energy);
    CHECK(f.energy->mean_power_w > 70);  // 100 W, timed by a shared host's clock
    CHECK(f.energy->mean_power_w < 140);
    CHECK(f.energy->window_s == e.resources.gpu_energy->seconds);
}

TEST_CASE("the energy window gives way to --max-time, and a fixed count of runs is kept", "[energy]") {
    test_support::ClaimedDevicesTimer timer({0}, stepping_counter_mj);
    MeasureOptions options = test_support::sampled(2, 3);
    options.max_time_s = 0.2;
    const Measurement cut = measure_entry(test_support::load_fixture("fixture_good.so"), 100, options, timer);
    REQUIRE(cut.status == EntryStatus::ok);
    REQUIRE(cut.resources.gpu_energy);
    CHECK(cut.resources.gpu_energy->seconds < EntryResources::energy_window_min_s);
    CHECK_THAT(cut.resources.gpu_energy_note, Catch::Contains("not aligned at its end"));
    const EntryFigures f = entry_figures(cut, this_host_run());
    CHECK_FALSE(f.energy);
    CHECK_THAT(f.energy_note, Catch::StartsWith("n/a: its energy window lasted") && Catch::Contains("too short"));

    options = test_support::sampled(2, 3);
    options.profile_runs = 5;
    const Measurement profiled = measure_entry(test_support::load_fixture("fixture_good.so"), 100, options, timer);
    REQUIRE(profiled.status == EntryStatus::ok);
    CHECK(profiled.timing.samples.run.size() == 5);
    CHECK_THAT(profiled.resources.gpu_energy_note, Catch::Contains("fixed count of runs"));
}
