// Energy per result: the CPU packages' source (powercap, perf's power PMU) over made-up sysfs
// trees, NVML's counter read at its changes, sampling that goes on for the GPU's energy window,
// the node's power in the figures, and a CPU sweep whose fake package counter a thread advances.
#include "counter_change.hpp"
#include "cpu_energy.hpp"
#include "entry_figures.hpp"
#include "entry_json.hpp"
#include "idle_power.hpp"
#include "measure.hpp"
#include "results_model.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
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

// An entry with `runs` samples of `run_s` each, sampled for `wall_s`.
Measurement sampled_entry(size_t runs, double run_s, double wall_s) {
    Measurement e;
    e.timing.samples.run.assign(runs, run_s);
    e.resources.sampling_wall_s = wall_s;
    return e;
}

const EntryMetric *metric_named(const EntryFigures &f, const std::string &name) {
    for (const EntryMetric &m : f.metrics)
        if (m.name == name) return &m;
    return nullptr;
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

TEST_CASE("the idle window waits for a board's power to stop falling, and no longer", "[energy]") {
    double now = 0;  // a fake clock: the waits advance it
    const auto sleep = [&](double s) { now += s; };
    // An H200 right after a sweep: 125 W coming down to 78 W in about 3 s (time constant 1 s).
    const PowerSettling busy = await_settled_power([&] { return 78 + 47 * std::exp(-now); }, sleep);
    CHECK(busy.settled);
    CHECK(busy.waited_s > 3);
    CHECK(busy.waited_s < 8);
    CHECK(78 + 47 * std::exp(-now) < 78 * 1.02);  // within 2% of idle when the window starts
    // Idle already: one second of readings, and no more.
    now = 0;
    const PowerSettling idle = await_settled_power([&] { return 78.0 + 0.5 * std::sin(now * 7); }, sleep);
    CHECK(idle.settled);
    CHECK(idle.waited_s == Approx(1.0).margin(0.15));
    // Falling for ever: it gives up at the limit and says so.
    now = 0;
    const PowerSettling falling = await_settled_power([&] { return 300 * std::exp(-now / 20); }, sleep);
    CHECK_FALSE(falling.settled);
    CHECK(falling.waited_s == Approx(idle_settle_limit_s).margin(0.15));
    // No readings: nothing to wait for.
    CHECK(await_settled_power([] { return std::optional<double>(); }, sleep).waited_s == 0);
}

TEST_CASE("a GPU entry samples on until its energy window is long enough and ends at a change", "[energy]") {
    test_support::ClaimedDevicesTimer timer({0}, stepping_counter_mj);
    const Measurement e = measure_entry(test_support::load_fixture("fixture_good.so"), 100,
                                        test_support::sampled(2, 3), timer);
    REQUIRE(e.status == EntryStatus::ok);
    CHECK(e.timing.samples.run.size() == 3);  // past max_samples the extra cycles run, uncounted
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

TEST_CASE("node power: the CPU packages' and the GPU board's, its idle power for a CPU entry", "[energy]") {
    Measurement cpu_entry = sampled_entry(3, 0.01, 1.0);
    cpu_entry.resources.cpu_energy = EnergyWindow{30, 1.0};  // 30 W
    RunBasis with_gpu{4, true, 70.0, ""};
    EntryFigures f = entry_figures(cpu_entry, with_gpu);
    REQUIRE(f.node_power_w);
    CHECK(*f.cpu_power_w == Approx(30));
    CHECK(*f.node_power_w == Approx(100));  // 30 W of packages + the board's 70 W at idle
    CHECK(*f.node_energy_per_run_j == Approx(1.0));
    CHECK(f.node_gpu == "idle");
    REQUIRE(metric_named(f, "node_energy_per_run_j"));
    CHECK(metric_named(f, "node_energy_per_run_j")->value == Approx(1.0));
    CHECK(metric_named(f, "node_energy_per_run_j")->better == GPUBENCH_BETTER_LOWER);
    CHECK(metric_named(f, "cpu_energy_per_run_j")->value == Approx(0.3));
    f = entry_figures(cpu_entry, RunBasis{4, false, std::nullopt, ""});  // a host without a GPU
    CHECK(*f.node_power_w == Approx(30));
    CHECK(f.node_gpu == "none");
    f = entry_figures(cpu_entry, RunBasis{4, true, std::nullopt, "not measured"});
    CHECK_FALSE(f.node_power_w);
    CHECK(f.node_note == "n/a: the GPU board's idle power is not known (not measured)");

    Measurement gpu_entry = sampled_entry(3, 0.01, 1.0);
    gpu_entry.cuda_devices = {0};
    gpu_entry.resources.gpu_energy = EnergyWindow{60, 0.6};  // 100 W
    gpu_entry.resources.cpu_energy = EnergyWindow{24, 0.6};  // 40 W
    f = entry_figures(gpu_entry, with_gpu);
    REQUIRE(f.node_power_w);
    CHECK(*f.node_power_w == Approx(140));  // its own board's power, not the idle one
    CHECK(f.node_gpu == "measured");
    gpu_entry.resources.gpu_energy = EnergyWindow{30, 0.3};  // too short for the counter
    f = entry_figures(gpu_entry, with_gpu);
    CHECK_FALSE(f.node_power_w);
    CHECK_THAT(f.node_note, Catch::StartsWith("n/a: no GPU board energy"));
    gpu_entry.cuda_devices = {0, 1};
    CHECK_THAT(entry_figures(gpu_entry, with_gpu).node_note, Catch::Contains("2 GPUs ran it"));
}

TEST_CASE("without a CPU source there is no node energy, and the figures say why", "[energy]") {
    Measurement e = sampled_entry(3, 0.01, 1.0);
    EntryFigures f = entry_figures(e, RunBasis{4, false, std::nullopt, ""});
    CHECK_FALSE(f.node_power_w);
    CHECK_FALSE(f.cpu_power_w);
    CHECK(f.node_note == "n/a: no CPU package energy counter (the header's energy.cpu says why)");
    CHECK_FALSE(metric_named(f, "node_energy_per_run_j"));
    e.resources.cpu_energy = EnergyWindow{1, 0.01};  // a window too short for RAPL's updates
    CHECK_THAT(entry_figures(e, RunBasis{}).node_note, Catch::Contains("under the 0.05 s their counters need"));
}

TEST_CASE("the energy fields travel in the entry's encoding, and an entry without them still decodes",
          "[energy]") {
    EntryResult e(sampled_entry(3, 0.01, 1.0));
    e.plugin = "fixture_good";
    e.resources.cpu_energy = EnergyWindow{30, 1.0};
    e.resources.gpu_energy_note = "not aligned at its start: ...";
    const json entry = entry_json(e, RunBasis{4, false, std::nullopt, ""});
    CHECK(entry["resources"]["cpu_energy"] == json{{"joules", 30.0}, {"seconds", 1.0}});
    CHECK(entry["energy"]["cpu"]["power_w"] == 30.0);
    CHECK(entry["energy"]["node"]["gpu"] == "none");
    CHECK(entry["energy"]["note"] == "not aligned at its start: ...");
    const EntryResult back = entry.get<EntryResult>();
    REQUIRE(back.resources.cpu_energy);
    CHECK(back.resources.cpu_energy->joules == 30.0);
    CHECK(back.resources.gpu_energy_note == e.resources.gpu_energy_note);

    json earlier = entry;  // as a writer before the energy windows wrote it
    for (const char *key : {"cpu_energy", "gpu_energy", "gpu_energy_note"}) earlier["resources"].erase(key);
    earlier.erase("energy");
    const EntryResult old = earlier.get<EntryResult>();
    CHECK_FALSE(old.resources.cpu_energy);
    CHECK_FALSE(old.resources.gpu_energy);
    CHECK_THAT(entry_figures(old, RunBasis{}).node_note, Catch::Contains("no CPU package energy counter"));
    // Its header without "energy": the GPU's idle power is not known, and says so.
    json document = results_header({"runner"}, GpuInfo{}, MeasureOptions{}, std::nullopt);
    CHECK_FALSE(run_header(document, "old.json").energy);
    document["gpus"] = json::array({{{"available", true}, {"name", "NVIDIA H200"}}});
    CHECK(run_header(document, "old.json").basis().gpu_idle_note == "a file from before idle powers were measured");
}

TEST_CASE("a CPU sweep records its packages' joules and the header's sources and idle power", "[energy][cli]") {
    test_support::TempFolder tree;
    rapl_domain(tree.path(), "intel-rapl:0", "package-0", 0);
    rapl_domain(tree.path(), "intel-rapl:1", "package-1", 0);
    // The packages draw 25 W and 15 W: their counters advanced by the clock, every millisecond.
    std::jthread packages([&](std::stop_token stop) {
        const auto began = std::chrono::steady_clock::now();
        while (!stop.stop_requested()) {
            const auto since = std::chrono::steady_clock::now() - began;
            const double us = std::chrono::duration<double, std::micro>(since).count();
            write_sysfs_file(tree.path() / "intel-rapl:0" / "energy_uj", std::to_string(uint64_t(25 * us)));
            write_sysfs_file(tree.path() / "intel-rapl:1" / "energy_uj", std::to_string(uint64_t(15 * us)));
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    });
    const fs::path results = runner_process::temp_results("energy");
    const runner_process::Outcome o = runner_process::run_command(
        "GPUBENCH_POWERCAP_ROOT=" + tree.path().string() + " GPUBENCH_PERF_POWER_ROOT=/nonexistent " GPUBENCH_RUNNER
        " " + runner_process::fixtures() + " --plugin fixture_spin --sizes 10 --min-samples 3 --min-time 0 "
        "--max-noise 0 --threads 1 -o " + results.string());
    packages.request_stop();
    INFO(o.output);
    REQUIRE(o.status == 0);
    const json document = runner_process::read_json(results);
    const json &header = document.at("energy");
    CHECK(header["cpu"]["source"] == "powercap intel-rapl: 2 packages");
    CHECK(header["cpu"]["idle_w"].get<double>() > 20);  // 40 W, as a shared host's clock times it
    CHECK(header["cpu"]["idle_w"].get<double>() < 80);
    CHECK(header["gpu"]["source"].is_null());  // this build has no GPU
    CHECK_FALSE(header["gpu"]["reason"].get<std::string>().empty());
    const json &entry = document.at("entries").at(0);
    CHECK(entry["resources"]["cpu_energy"]["joules"].get<double>() > 0);
    const double package_w = entry["energy"]["cpu"]["power_w"].get<double>();
    CHECK(package_w > 20);
    CHECK(package_w < 80);
    CHECK(entry["energy"]["node"]["gpu"] == "none");  // node power: the packages alone here
    CHECK(entry["energy"]["node"]["power_w"].get<double>() == Approx(package_w));
    CHECK(read_results_file(results).entries.at(0).resources.cpu_energy);  // it reads back
    fs::remove(results);
}
