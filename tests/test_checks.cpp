// The checks that keep a plugin's mistakes out of the results (fixture_mistakes.c): numbers
// faster than the hardware, memory that leaks with every run, running out of memory after
// runs succeeded, plugins built without optimisation, a contended host, and one worker
// serving all the entries of a plugin. Each can fail: the control entry (size 5) passes.
#include "entry_figures.hpp"
#include "host_peaks.hpp"
#include "leak.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "roofline.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

using namespace gpubench;
using test_support::fixture;
using test_support::load_fixture;

namespace {

MeasureOptions twenty_samples() { return test_support::sampled(20, 20); }

// The host clock with the host's measured roofline, as a worker measures CPU entries.
Measurement measure_mistake(uint64_t size, MeasureOptions options = twenty_samples()) {
    SteadyClockTimer timer;
    timer.set_roofline(host_roofline(host_peaks()));
    return measure_entry(load_fixture("fixture_mistakes.so"), size, options, timer);
}

bool has_flag(const Measurement &e, const std::string &flag) {
    const auto flags = entry_figures(e, this_host_run()).flags;
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

}  // namespace

TEST_CASE("a CPU entry faster than the host's measured peak is invalid", "[checks]") {
    const Measurement flops = measure_mistake(1);
    CHECK(flops.status == EntryStatus::verification_failed);
    CHECK_THAT(flops.message, Catch::StartsWith("faster than the hardware: "));
    CHECK_THAT(flops.message, Catch::Contains("GFLOP/s (fp32)"));
    const Measurement bytes = measure_mistake(2);
    CHECK(bytes.status == EntryStatus::verification_failed);
    // 1e15 bytes a run over an instance of 8 KB: held to the L1, whose bandwidth it exceeds.
    CHECK_THAT(bytes.message, Catch::Contains("of the L1 bandwidth"));
    nlohmann::json entry = nlohmann::json(bytes);
    CHECK(entry["valid"] == false);
    CHECK(entry["throughput"]["ceiling"]["bytes_per_s"].get<double>() > 0);
    // The control: honest work, a CPU roofline, a %PEAK, and valid.
    const Measurement control = measure_mistake(5);
    REQUIRE(control.status == EntryStatus::ok);
    CHECK(control.ceiling.flops > 0);
    const EntryFigures f = entry_figures(control, this_host_run());
    CHECK(f.percent_of_peak > 0);
    CHECK(f.percent_of_peak < 100);
}

TEST_CASE("a GPU roofline reads each kind of math against its own peak", "[checks]") {
    GpuInfo h100;
    h100.available = true;
    h100.name = "H100";
    h100.compute_major = 9;
    h100.sm_count = 132;
    h100.boost_clock_hz = 1.98e9;
    h100.peak_fp32_flops = 132 * 1.98e9 * 128 * 2;
    h100.peak_fp64_flops = 132 * 1.98e9 * 64 * 2;
    h100.peak_bytes_per_s = 3.35e12;
    h100.l2_bytes = 50u << 20;
    const Roofline r = gpu_roofline(h100);
    CHECK(r.flops_for(GPUBENCH_MATH_FP32) == Approx(66.9e12).epsilon(0.01));
    CHECK(r.flops_for(GPUBENCH_MATH_FP64) == Approx(66.9e12).epsilon(0.01));  // FP64 tensor cores
    CHECK(r.flops_for(GPUBENCH_MATH_TENSOR_FP16) == Approx(1070e12).epsilon(0.01));
    CHECK(r.flops_for(42) == 0);
    EntryResult e;
    e.status = EntryStatus::ok;
    e.timing.samples.run = {1.0};
    e.work.flops = 500e12;  // 500 TFLOP/s: impossible in FP32, fine on FP16 tensor cores
    e.ceiling.flops = r.flops_for(GPUBENCH_MATH_FP32);
    CHECK(entry_figures(e, this_host_run()).percent_of_peak > 700);
    e.ceiling.flops = r.flops_for(GPUBENCH_MATH_TENSOR_FP16);
    CHECK(entry_figures(e, this_host_run()).percent_of_peak < 50);
    const Roofline back = roofline_from_json(roofline_json(r));
    CHECK(back.flops == r.flops);
    CHECK(back.cache_bytes == r.cache_bytes);
}

TEST_CASE("memory that grows with every run() is a leak, named with its rate", "[checks]") {
    const Measurement leak = measure_mistake(3);
    CHECK(leak.status == EntryStatus::error);
    // From the heap's own count; under AddressSanitizer, whose allocator mallinfo2() does not
    // see, from resident memory, which holds the sanitizer's own pages too.
    if (test_support::sanitized_build)
        CHECK_THAT(leak.message,
                   Catch::Matches("leaks 4(\\.0[0-9])? MiB of host memory \\(resident\\) per run\\(\\).*"));
    else
        CHECK_THAT(leak.message, Catch::StartsWith("leaks 4 MiB of host memory per run()"));
    CHECK(leak_between(1, 100 << 20, 2, 100 << 20, 4, 100 << 20, "device memory").empty());
    // One burst (a pool that settles) is no leak; steady growth is.
    CHECK(leak_between(1, 0, 2, 64 << 20, 4, 64 << 20, "device memory").empty());
    CHECK_THAT(leak_between(1, 0, 2, 256ull << 20, 4, 768ull << 20, "device memory"),
               Catch::StartsWith("leaks 256 MiB of device memory per run()"));
    CHECK(leak_between(1, 0, 2, 1 << 20, 4, 3 << 20, "host memory").empty());  // under 16 MiB
}

namespace {

// A device whose used memory grows by 256 MiB between readings, with `processes` contexts on it.
class GrowingDeviceTimer final : public PhaseTimer {
public:
    explicit GrowingDeviceTimer(unsigned processes) : processes_(processes) {}
    const char *clock_name() const override { return "growing_device"; }
    void start() override {}
    double stop() override { return 0; }
    std::optional<DeviceMemory> device_memory() const override {
        used_ += 256ull << 20;
        return DeviceMemory{(80ull << 30) - used_, 80ull << 30, processes_};
    }

private:
    unsigned processes_;
    mutable uint64_t used_ = 0;
};

std::string device_leak_seen(unsigned processes) {
    GrowingDeviceTimer timer(processes);
    LeakWatch leaks(timer);
    for (size_t runs : {1, 2, 4}) leaks.read_now(runs);
    return leaks.leak();
}

}  // namespace

TEST_CASE("device memory that grows while another process computes on the GPU is no leak verdict",
          "[checks]") {
    CHECK_THAT(device_leak_seen(1), Catch::StartsWith("leaks ") && Catch::Contains("of device memory"));
    CHECK(device_leak_seen(2).empty());  // two shards on one GPU: the other's allocations count too
    EntryResult entry;
    entry.resources.gpu_after = GpuState{};
    entry.resources.gpu_after->compute_processes = 1;
    CHECK(entry_figures(entry, this_host_run()).flags.empty());
    entry.resources.gpu_after->compute_processes = 2;
    CHECK(entry_figures(entry, this_host_run()).flags == std::vector<std::string>{"gpu_shared"});
}

TEST_CASE("out of memory after runs succeeded is an error, not a skip", "[checks]") {
    const Measurement oom = measure_mistake(4);
    CHECK(oom.status == EntryStatus::error);
    CHECK_THAT(oom.message, Catch::StartsWith("out of memory: run: cannot allocate"));
    CHECK_THAT(oom.message, Catch::Contains("after 5 successful runs"));
}

TEST_CASE("plugins built without optimisation are flagged", "[checks]") {
    SteadyClockTimer timer;
    const Plugin optimized = load_fixture("fixture_mistakes.so"), plain = load_fixture("fixture_unoptimized.so");
    CHECK_THAT(plain.api().build_info, Catch::Contains("unoptimized (-O0)"));
    CHECK_FALSE(optimized.info().built_unoptimized());
    CHECK(plain.info().built_unoptimized());
    const Measurement e = measure_entry(plain, 5, twenty_samples(), timer);
    REQUIRE(e.status == EntryStatus::ok);
    CHECK(has_flag(e, "unoptimized"));
    CHECK(nlohmann::json(e)["flags"].dump().find("unoptimized") != std::string::npos);
    CHECK_FALSE(has_flag(measure_entry(optimized, 5, twenty_samples(), timer), "unoptimized"));
}

TEST_CASE("an entry sampled while other processes crowd the CPUs is flagged contended",
          "[checks]") {
    MeasureOptions options = twenty_samples();
    options.min_time_s = 0.3;
    options.max_samples = 1000;
    SteadyClockTimer timer;
    const Plugin plugin = load_fixture("fixture_misbehave.so");
    // Alone: fixture_misbehave at 200 busy-waits 2 ms per run and is not flagged... unless
    // this machine is busy with other work right now (ctest -j): then it must say so.
    const Measurement alone = measure_entry(plugin, 200, options, timer);
    REQUIRE(alone.resources.host_load);
    CHECK(has_flag(alone, "contended") == alone.resources.host_load->contended());
    // More spinning processes than cores: the entry's busy thread waits for a CPU.
    Measurement crowded;
    {
        test_support::SpinningProcesses others(3 * std::max(1u, std::thread::hardware_concurrency()));
        crowded = measure_entry(plugin, 200, options, timer);
    }
    REQUIRE(crowded.status == EntryStatus::ok);
    REQUIRE(crowded.resources.host_load);
    INFO("wait share " << crowded.resources.host_load->wait_share);
    CHECK(has_flag(crowded, "contended"));
    CHECK_THAT(crowded.resources.host_load->reason(), Catch::Contains("waited"));
}

TEST_CASE("one worker serves a plugin's entries, and a failure gets the next one a fresh worker",
          "[checks]") {
    using namespace runner_process;
    auto path = temp_results("one_worker");
    Outcome o = run_runner(fixtures() + " --plugin fixture_mistakes --sizes 5,5,3,5,5" +
                           " --min-samples 20 --max-samples 20 --min-time 0 --max-noise 0 " +
                           "-o " + path.string());
    INFO(o.output);
    CHECK(o.status == 1);  // the leak
    const nlohmann::json d = read_json(path);
    REQUIRE(d["entries"].size() == 5);
    const auto started = [&](size_t i) { return d["entries"][i]["harness"]["worker_started"].get<bool>(); };
    CHECK(started(0));        // the first worker (started ahead of the first entry)
    CHECK_FALSE(started(1));  // the same worker again
    CHECK_FALSE(started(2));  // ... which then leaks and is replaced
    CHECK(started(3));
    CHECK_FALSE(started(4));
    CHECK(d["entries"][2]["status"] == "error");
    std::vector<size_t> before;
    for (const nlohmann::json &e : d["entries"]) before.push_back(e["harness"]["worker_entries_before"]);
    CHECK(before == std::vector<size_t>{0, 1, 2, 0, 1});
    for (size_t i : {0u, 1u, 3u, 4u}) {
        CHECK(d["entries"][i]["status"] == "ok");
        const nlohmann::json &h = d["entries"][i]["harness"];
        CHECK(h["plugin_time_s"].get<double>() > 0);
        CHECK(h["overhead_s"].get<double>() >= 0);
        CHECK(h["finished_after_s"].get<double>() > 0);
    }
    // --worker-per-entry: a fresh worker each time, so nothing carries between sizes.
    Outcome fresh = run_runner(fixtures() + " --plugin fixture_mistakes --sizes 5,5,5 --worker-per-entry" +
                               runner_process::quick + "-o " + path.string());
    INFO(fresh.output);
    const nlohmann::json f = read_json(path);
    REQUIRE(f["entries"].size() == 3);
    for (const nlohmann::json &e : f["entries"]) {
        CHECK(e["harness"]["worker_started"] == true);
        CHECK(e["harness"]["worker_entries_before"] == 0);
    }
    CHECK(f["options"]["isolation"] == "worker process per entry");
    std::filesystem::remove(path);
}

TEST_CASE("host memory set aside for the runner's own checks is no leak", "[checks]") {
    // 32 MiB touched between each pair of readings, as CUPTI's buffers grow during a traced
    // cycle: a leak unless it is set aside.
    std::vector<std::vector<char>> kept;
    const auto grow = [&] { kept.emplace_back(32u << 20, 'x'); };
    SteadyClockTimer timer;
    LeakWatch plain(timer), aside(timer);
    for (size_t runs : {1, 2, 4}) {
        const MemoryReading before = read_memory(timer, runs);
        grow();
        aside.set_aside(before, read_memory(timer, runs));
        plain.read_now(runs);
        aside.read_now(runs);
    }
    CHECK_THAT(plain.leak(), Catch::StartsWith("leaks "));
    CHECK(aside.leak().empty());
}
