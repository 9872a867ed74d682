// What only a GPU can show: cold L2 samples, batched short launches, device memory and busy
// fraction, and a poisoned CUDA context that ends only its own entry. Skipped, with the
// reason, where no GPU can be used.
#include "check.hpp"
#include "entry_measurer.hpp"
#include "gpu.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "runner_process.hpp"
#include "sampling.hpp"
#include "sanitizer.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace gpubench;

namespace {

Plugin load_shipped(const std::string &name) {
    return test_support::load_file(std::filesystem::path(GPUBENCH_PLUGIN_DIR) / (name + ".so"));
}

MeasureOptions quick_gpu_options() { return test_support::sampled(10, 50); }

}  // namespace

TEST_CASE("GPU entries: per-launch headline, cold L2, device memory, busy fraction, NVML",
          "[gpu]") {
    test_support::require_gpu();
    auto timer = make_cuda_event_timer(0);
    // copy_cuda (no reset()) at 1e6 floats: a few-microsecond copy, replayed from a graph.
    Plugin copy = load_shipped("copy_cuda");
    Measurement replayed = measure_entry(copy, 1'000'000, quick_gpu_options(), *timer);
    REQUIRE(replayed.status == EntryStatus::ok);
    INFO("per-launch note: " << replayed.timing.per_launch_note);
    CHECK(replayed.timing.per_launch.method == "graph");
    CHECK(replayed.timing.per_launch.launches_per_sample >= 10);
    CHECK(replayed.timing.per_launch.samples.size() >= 10);
    const double single_launch = summarize(replayed.timing.samples.run).median;
    CHECK(summarize(replayed.timing.per_launch.samples).median <= single_launch);  // no launch gaps
    nlohmann::json entry = nlohmann::json(replayed);
    CHECK(entry["timing"]["compute"]["method"] == "graph");
    CHECK(entry["timing"]["per_launch"]["launches_per_sample"].get<size_t>() ==
          replayed.timing.per_launch.launches_per_sample);
    CHECK(entry["timing"]["launch_overhead"].get<double>() >= 0);
    CHECK(entry["stream_audit"]["outside_stream"] == false);

    // vecadd_cuda has reset() (for variant=increment); add declares run() repeatable. 1e6
    // floats are 12 MB of device arrays, which fit the H100's 50 MB L2: hot runs read from L2,
    // cold ones (L2 flushed) from HBM.
    Plugin vecadd = load_shipped("vecadd_cuda");
    MeasureOptions many = quick_gpu_options();
    many.min_samples = many.max_samples = 200;
    Measurement hot = measure_entry(vecadd, 1'000'000, many, *timer);
    REQUIRE(hot.status == EntryStatus::ok);
    CHECK(hot.timing.cache == "hot");
    CHECK(hot.timing.per_launch.method == "graph");
    const EntryResources &r = hot.resources;
    CHECK(r.on_device);
    CHECK(r.device_allocated_bytes >= 12'000'000);
    CHECK(r.device_used_bytes >= r.device_allocated_bytes);
    CHECK(r.gpu_busy > 0);
    CHECK(r.gpu_busy <= 1);
    // NVML answers on the GPU machines we verify on (the driver ships libnvidia-ml.so.1).
    REQUIRE(r.gpu_before);
    REQUIRE(r.gpu_after);
    INFO("NVML note: " << r.gpu_state_note);
    CHECK(r.gpu_before->sm_clock_mhz.has_value());
    CHECK(r.gpu_after->power_w.has_value());
    CHECK(r.gpu_after->temperature_c.has_value());
    CHECK(r.gpu_after->energy_mj.has_value());

    MeasureOptions cold_options = many;
    cold_options.cold = true;
    Measurement cold = measure_entry(vecadd, 1'000'000, cold_options, *timer);
    REQUIRE(cold.status == EntryStatus::ok);
    CHECK(cold.timing.cache == "cold");
    CHECK(cold.timing.per_launch.samples.empty());  // each cold run needs its flush: single launches
    CHECK(summarize(cold.timing.samples.run).median > summarize(hot.timing.samples.run).median);
}

TEST_CASE("a kernel that poisons its CUDA context ends only its own entry", "[gpu]") {
    test_support::require_gpu();
    using namespace runner_process;
    auto path = temp_results("cuda_fault");
    Outcome o = run_runner(fixtures() + " --plugin fixture_cuda_fault --sizes 1,2,3" +
                           runner_process::quick +
                           "-o " + path.string());
    INFO(o.output);
    CHECK(o.status == 1);
    const nlohmann::json document = read_json(path);
    REQUIRE(document["entries"].size() == 3);
    CHECK(document["entries"][0]["status"] == "error");
    CHECK_THAT(document["entries"][0]["message"].get<std::string>(),
               Catch::Contains("cudaErrorIllegalAddress"));
    CHECK(document["entries"][1]["status"] == "ok");  // fresh processes, fresh contexts
    CHECK(document["entries"][2]["status"] == "ok");
    std::filesystem::remove(path);
}

TEST_CASE("a CUDA plugin's mistakes are caught: own stream, device leak, impossible flops",
          "[gpu]") {
    test_support::require_gpu();
    auto timer = make_cuda_event_timer(0);
    Plugin mistakes = test_support::load_fixture("fixture_cuda_mistakes.so");
    const Measurement own_stream = measure_entry(mistakes, 1, quick_gpu_options(), *timer);
    CHECK(own_stream.status == EntryStatus::verification_failed);
    CHECK_THAT(own_stream.message, Catch::StartsWith("work outside the runner's stream in run(): "));
    // The kernel spins ~2 ms on the plugin's own stream, after its span has ended.
    CHECK(own_stream.stream_audit.device_busy_after_s > 1e-3);
    CHECK(own_stream.stream_audit.device_busy_after_s > own_stream.stream_audit.timed_s);

    MeasureOptions many = quick_gpu_options();
    many.min_samples = many.max_samples = 50;
    const Measurement leak = measure_entry(mistakes, 2, many, *timer);
    CHECK(leak.status == EntryStatus::error);
    // The device's used memory is a device-wide reading: under ctest -j other processes'
    // allocations add to it, so the rate is at least the 64 MiB leaked, not exactly it.
    CHECK_THAT(leak.message, Catch::StartsWith("leaks ") && Catch::Contains(" MiB of device memory per run()"));
    CHECK(std::stod(leak.message.substr(6)) >= 63.5);

    const Measurement impossible = measure_entry(mistakes, 4, quick_gpu_options(), *timer);
    CHECK(impossible.status == EntryStatus::verification_failed);
    CHECK_THAT(impossible.message, Catch::StartsWith("faster than the hardware"));

    const Measurement control = measure_entry(mistakes, 5, quick_gpu_options(), *timer);
    CHECK(control.status == EntryStatus::ok);
    CHECK_FALSE(control.stream_audit.outside_stream);
}

TEST_CASE("persisting L2 that a plugin leaves changed after destroy() is flagged and set back, never when it gives it back", "[gpu]") {
    test_support::require_gpu();
    auto timer = make_cuda_event_timer(0);
    Plugin mistakes = test_support::load_fixture("fixture_cuda_mistakes.so");
    // What the context starts with (a driver may set some L2 aside by default).
    const auto before = read_persisting_l2(timer->cuda_devices(), timer->cuda_streams());
    const Measurement left = measure_entry(mistakes, 9, quick_gpu_options(), *timer);
    if (left.status == EntryStatus::skipped) test_support::skip_test(left.message);  // a GPU before sm_80
    REQUIRE(left.status == EntryStatus::ok);
    CHECK_THAT(left.persisting_l2_left, Catch::Contains("cudaLimitPersistingL2CacheSize") &&
                                            Catch::Contains("access-policy window of 0.00391 MiB"));
    const std::vector<std::string> flags = entry_flags(left);
    CHECK(std::find(flags.begin(), flags.end(), "persisting_l2_left") != flags.end());
    // The runner set it back: the next entry finds what the context started with.
    CHECK(restore_persisting_l2(before, timer->cuda_devices(), timer->cuda_streams()).empty());

    const Measurement given_back = measure_entry(mistakes, 10, quick_gpu_options(), *timer);
    REQUIRE(given_back.status == EntryStatus::ok);
    CHECK(given_back.persisting_l2_left.empty());
    const Measurement control = measure_entry(mistakes, 5, quick_gpu_options(), *timer);
    CHECK(control.persisting_l2_left.empty());
    CHECK(entry_flags(control).empty());
}

TEST_CASE("a microsecond kernel with reset() gets a per-launch headline", "[gpu]") {
    test_support::require_gpu();
    auto timer = make_cuda_event_timer(0);
    auto loaded = load_plugin(test_support::fixture("fixture_cuda_mistakes.so"));
    REQUIRE(std::holds_alternative<Plugin>(loaded));
    const Measurement e = measure_entry(std::get<Plugin>(loaded), 3, quick_gpu_options(), *timer);
    REQUIRE(e.status == EntryStatus::ok);
    INFO("note: " << e.timing.per_launch_note);
    CHECK(e.timing.per_launch.method == "graph, reset subtracted");
    CHECK(headline_method(e) == e.timing.per_launch.method);
    const double per_launch = summarize(e.timing.per_launch.samples).median;
    CHECK(per_launch > 0);
    CHECK(per_launch < summarize(e.timing.samples.run).median);
    CHECK(nlohmann::json(e)["timing"]["compute"]["median"].get<double>() == Approx(per_launch));
}

TEST_CASE("a held stream keeps run()'s host time out of the GPU span, and lets go of a run() that waits", "[gpu]") {
    test_support::require_gpu();
    auto timer = make_cuda_event_timer(0);
    Plugin mistakes = test_support::load_fixture("fixture_cuda_mistakes.so");
    // Size 6: ~2 ms on the host, then a microsecond kernel.
    const Measurement held = measure_entry(mistakes, 6, quick_gpu_options(), *timer);
    REQUIRE(held.status == EntryStatus::ok);
    CHECK(held.timing.stream_hold == "held");
    REQUIRE(held.timing.samples.run_host_in_cycle.size() == held.timing.samples.run.size());
    CHECK(summarize(held.timing.samples.run_host_in_cycle).median > 2e-3);
    REQUIRE_FALSE(held.timing.samples.run_host.empty());  // the back-to-back calls
    CHECK(held.timing.samples.run_host.size() <= back_to_back_calls);
    CHECK(summarize(held.timing.samples.run_host).median > 2e-3);
    CHECK(summarize(held.timing.samples.run).median < 0.5e-3);
    MeasureOptions unheld_options = quick_gpu_options();
    unheld_options.hold_stream = false;
    const Measurement unheld = measure_entry(mistakes, 6, unheld_options, *timer);
    REQUIRE(unheld.status == EntryStatus::ok);
    CHECK(unheld.timing.stream_hold.empty());
    CHECK(summarize(unheld.timing.samples.run).median > 2e-3);

    // Size 7: run() waits for its own kernel; the watchdog ends the hold, the entry is timed
    // unheld and still verified.
    const Measurement waits = measure_entry(mistakes, 7, quick_gpu_options(), *timer);
    REQUIRE(waits.status == EntryStatus::ok);
    CHECK_THAT(waits.timing.stream_hold, Catch::StartsWith("not held: the hold was released by its watchdog"));
    CHECK(waits.timing.samples.run.size() >= quick_gpu_options().min_samples);

    // Through the runner: the worker holds none of that plugin's later entries (size 5 would
    // hold), and says why.
    const auto path = runner_process::temp_results("hold");
    const auto o = runner_process::run_runner(runner_process::fixtures() +
                                              " --plugin fixture_cuda_mistakes --sizes 7,5" +
                                              runner_process::quick + "-o " + path.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const nlohmann::json document = runner_process::read_json(path);
    REQUIRE(document["entries"].size() == 2);
    CHECK_THAT(document["entries"][1]["timing"]["stream_hold"].get<std::string>(),
               Catch::StartsWith("not held: at size 7 the hold was released by its watchdog"));
    CHECK(document["entries"][1]["timing"]["samples"]["run_host_in_cycle"].size() ==
          document["entries"][1]["timing"]["samples"]["run"].size());
    std::filesystem::remove(path);
}

TEST_CASE("run()'s host time per call comes from back-to-back calls, not from the cycles' calls after a transfer",
          "[gpu]") {
    test_support::require_gpu();
    auto timer = make_cuda_event_timer(0);
    Plugin mistakes = test_support::load_fixture("fixture_cuda_mistakes.so");
    // Size 8: the first three run()s after a download spend ~2 ms each on the host.
    const Measurement e = measure_entry(mistakes, 8, quick_gpu_options(), *timer);
    REQUIRE(e.status == EntryStatus::ok);
    CHECK(e.timing.stream_hold == "held");
    REQUIRE(e.timing.samples.run_host_in_cycle.size() == e.timing.samples.run.size());
    CHECK(summarize(e.timing.samples.run_host_in_cycle).median > 2e-3);
    REQUIRE(e.timing.samples.run_host.size() >= 3);  // groups: the last call of each timed
    CHECK(e.timing.samples.run_host.size() <= back_to_back_calls);
    // Every timing, not only most: each is the fourth call after a download or later.
    CHECK(*std::max_element(e.timing.samples.run_host.begin(), e.timing.samples.run_host.end()) < 1.5e-3);
    const nlohmann::json timing = nlohmann::json(e)["timing"];
    CHECK(timing["run_host"]["median"].get<double>() < 0.5e-3);
    CHECK(timing["run_host_in_cycle"]["median"].get<double>() > 2e-3);
}

TEST_CASE("sanitized runs: memcheck records each entry's error summary and fails the faulty one",
          "[gpu]") {
    test_support::require_gpu();
    if (!find_compute_sanitizer(""))
        test_support::skip_test("compute-sanitizer is not installed");
    using namespace runner_process;
    auto path = temp_results("sanitize");
    // fixture_cuda_fault at size 1 writes to an illegal address; fixture_cuda_mistakes at
    // size 5 is a correct control (fixture_cuda_fault's other sizes make an empty launch on
    // purpose, which memcheck reports as an API error).
    Outcome o = run_runner(fixtures() + " --plugin fixture_cuda_fault,fixture_cuda_mistakes" +
                           " --sizes 1,5 --sanitize memcheck" + runner_process::quick + "-o " +
                           path.string());
    INFO(o.output);
    CHECK(o.status == 1);
    const nlohmann::json d = read_json(path);
    REQUIRE(d["entries"].size() == 4);
    const auto entry = [&](const std::string &plugin, uint64_t size) {
        for (const nlohmann::json &e : d["entries"])
            if (e["plugin"] == plugin && e["size"] == size) return e;
        FAIL("no entry " << plugin << " " << size);
        return nlohmann::json();
    };
    const nlohmann::json fault = entry("fixture_cuda_fault", 1), clean = entry("fixture_cuda_mistakes", 5);
    CHECK(fault["status"] == "error");
    CHECK_THAT(fault["sanitizer"].get<std::string>(), Catch::Contains("memcheck"));
    CHECK(clean["status"] == "ok");
    CHECK(clean["sanitizer"] == "compute-sanitizer memcheck: 0 errors");
    CHECK(clean["flags"].dump().find("sanitized") != std::string::npos);
    std::filesystem::remove(path);
}

TEST_CASE("allreduce_nccl sums across the selected GPUs, verified, and records them", "[gpu]") {
    test_support::require_gpu();
    if (!std::filesystem::exists(std::filesystem::path(GPUBENCH_PLUGIN_DIR) / "allreduce_nccl.so"))
        test_support::skip_test("allreduce_nccl was not built (no NCCL found at configure time)");
    // Through the runner, 1 MiB per GPU, on every GPU there is (--devices all).
    const auto path = runner_process::temp_results("allreduce");
    const runner_process::Outcome o = runner_process::run_runner(
        std::string("--plugin allreduce_nccl --sizes 1048576 --devices all") + runner_process::quick +
        "-o " + path.string());
    INFO(o.output);
    const nlohmann::json document = runner_process::read_json(path);
    REQUIRE(document["entries"].size() == 1);
    const nlohmann::json &entry = document["entries"][0];
    if (document["gpus"].size() < 2) {  // nothing to reduce across: skipped, never timed
        CHECK(o.status == 3);
        CHECK(entry["status"] == "skipped");
        CHECK_THAT(entry["message"].get<std::string>(), Catch::Contains("an all-reduce needs at least 2 GPUs"));
        CHECK_FALSE(entry.contains("timing"));
        std::filesystem::remove(path);
        test_support::skip_test("one GPU here: allreduce_nccl was skipped with its reason, as it should; "
                                "the sum across GPUs needs 2");
    }
    CHECK(o.status == 0);
    CHECK(entry["status"] == "ok");
    // busbw is held to the GPUs' interconnect, read from NVML, never to their memory.
    const std::string level = entry["throughput"]["ceiling"]["level"].get<std::string>();
    CHECK((level == "NVLink" || level == "PCIe" || level == "interconnect"));
    CHECK_FALSE(entry["throughput"]["ceiling"]["level_source"].get<std::string>().empty());
    CHECK(document["gpu"]["roofline"].contains("interconnect"));
    REQUIRE(entry["devices"].size() == document["gpus"].size());
    for (size_t i = 0; i < entry["devices"].size(); ++i) {
        const nlohmann::json &device = entry["devices"][i];
        CHECK(device["index"] == document["gpus"][i]["device"]);
        CHECK(device["name"] == document["gpus"][i]["name"]);
        CHECK(device["uuid"].get<std::string>().rfind("GPU-", 0) == 0);
        CHECK(device["pci_bus_id"] == document["gpus"][i]["pci_bus_id"]);
    }
    CHECK(entry["verification"]["passed"] == true);
    std::filesystem::remove(path);

    // Every visible GPU, as the runner's measurer does it for a selected device list.
    std::vector<int> all;
    for (int device = 0; probe_gpu(device).available; ++device) all.push_back(device);
    MeasureOptions options = quick_gpu_options();
    options.cuda_devices = all;
    EntryMeasurer measurer{Roofline{}};
    const Measurement e = measurer.measure(load_shipped("allreduce_nccl"), 1 << 20, options);
    INFO(e.message);
    CHECK(e.status == EntryStatus::ok);
    CHECK(e.cuda_devices == all);
    CHECK(e.verification.checked == (1u << 18) * all.size());  // every float on every GPU
    const double n = static_cast<double>(all.size());
    CHECK(e.work.items == 1 << 20);                                // algbw: bytes per GPU
    CHECK(e.work.bytes == Approx((1 << 20) * 2 * (n - 1) / n));  // busbw
    CHECK(e.work.flags & GPUBENCH_WORK_BYTES_INTERCONNECT);
    CHECK(e.timing.clock == "cuda_event_multi_device");
}

TEST_CASE("allreduce_nccl across 2 ranks, one GPU each, sums in lock-step and verifies", "[gpu][ranks]") {
    test_support::require_gpu();
    if (!std::filesystem::exists(std::filesystem::path(GPUBENCH_PLUGIN_DIR) / "allreduce_nccl.so"))
        test_support::skip_test("allreduce_nccl was not built (no NCCL found at configure time)");
    if (!probe_gpu(1).available) test_support::skip_test("one GPU here: two ranks need one GPU each");
    // Two runner processes as mpirun starts them (its variables, no MPI), GPU r for rank r: a
    // small size, one per launch gap, and one with a tail of 3 bytes.
    const test_support::TempFolder folder;
    std::string launch;
    for (int rank : {0, 1})
        launch += "( env OMPI_MCA_ess_base_jobid=gpu-test-" + std::to_string(getpid()) + " OMPI_COMM_WORLD_RANK=" +
                  std::to_string(rank) + " OMPI_COMM_WORLD_SIZE=2 " + GPUBENCH_RUNNER + " --device " +
                  std::to_string(rank) + " --plugin allreduce_nccl --sizes 4096,1048579 --min-samples 5 " +
                  "--rank-timeout 60 -o " + (folder.path() / ("rank-" + std::to_string(rank) + ".json")).string() +
                  " > " + (folder.path() / ("rank-" + std::to_string(rank) + ".log")).string() + " 2>&1 ) & ";
    runner_process::run_command(launch + "wait");
    for (int rank : {0, 1}) {
        INFO(runner_process::slurp(folder.path() / ("rank-" + std::to_string(rank) + ".log")));
        const nlohmann::json document =
            runner_process::read_json(folder.path() / ("rank-" + std::to_string(rank) + ".json"));
        REQUIRE(document["entries"].size() == 2);
        for (const nlohmann::json &entry : document["entries"]) {
            CHECK(entry["status"] == "ok");
            CHECK(entry["ranks"] == nlohmann::json({{"rank", rank}, {"ranks", 2}}));
            CHECK(entry["devices"][0]["index"] == rank);
            CHECK(entry["verification"]["passed"] == true);
            CHECK(entry["work"]["bytes"].get<double>() == Approx(entry["size"].get<double>()));  // 2(n-1)/n = 1
            CHECK(entry["timing"]["samples"]["run"].size() == 5);
            CHECK(entry["timing"]["compute"]["method"] == "batch");
            CHECK_THAT(entry["timing"]["stop_reason"].get<std::string>(), Catch::StartsWith("a fixed count across 2 ranks"));
            CHECK_THAT(entry["timing"]["stream_hold"].get<std::string>(), Catch::Contains("collective across ranks"));
        }
    }
}
