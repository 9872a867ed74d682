#include "entry_figures.hpp"
#include "entry_measurer.hpp"
#include "measure.hpp"
#include "plugin_instance.hpp"
#include "results.hpp"
#include "sampling.hpp"
#include "worker_pool.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include <unistd.h>

#include <fstream>

using namespace gpubench;
using test_support::fixture;
using test_support::load_fixture;

namespace {

MeasureOptions counted_options(std::string params = "") {
    MeasureOptions options = test_support::sampled(3, 5);  // these tests count samples
    options.params = std::move(params);
    return options;
}

Measurement measure(const std::string &file, uint64_t size, std::string params = "") {
    SteadyClockTimer timer;
    return measure_entry(load_fixture(file), size, counted_options(std::move(params)), timer);
}

}  // namespace

TEST_CASE("a correct plugin is sampled, verified and summarised", "[measure]") {
    Measurement e = measure("fixture_good.so", 100);
    CHECK(e.status == EntryStatus::ok);
    CHECK(e.message.empty());
    CHECK(e.timing.clock == "steady_clock");
    CHECK(e.timing.samples.run.size() == 3);  // min_samples reached with min_time 0
    CHECK(e.timing.samples.upload.empty());   // a CPU plugin has no transfers
    CHECK(e.verification.passed);
    CHECK(e.timing.stop_reason == "min_samples and min_time reached");
    EntryFigures f = entry_figures(e, this_host_run());
    CHECK(f.run.count == 3);
    CHECK(f.end_to_end.median == Approx(f.run.median));
}

TEST_CASE("run()'s host time per call: groups back to back within their share, one call where no group fits",
          "[measure]") {
    test_support::ClaimedDevicesTimer timer({0});  // sampling's GPU path, on the host clock
    // A run() of microseconds: groups, each timing the last call.
    MeasureOptions options = test_support::sampled(10, 1000);
    options.min_time_s = 0.05;
    const Measurement fast = measure_entry(load_fixture("fixture_good.so"), 100, options, timer);
    REQUIRE(fast.status == EntryStatus::ok);
    CHECK(fast.timing.samples.run_host.size() >= 2);
    CHECK(fast.timing.samples.run_host.size() <= back_to_back_calls);
    CHECK(fast.timing.warm_calls == 0);  // no transfers: nothing cools the host's caches
    CHECK_FALSE(nlohmann::json(fast)["timing"].contains("warm_calls"));
    // fixture_spin's run() spins 60 ms: a group (240 ms) would take more than 5% of the sampling and
    // than the 0.1 s top-up, so one call, after the samples. --max-time 0.4 s ends the sampling after
    // about 6 (the warm-up counts); a group taken among them would leave 2.
    options = test_support::sampled(3, 100);
    options.min_time_s = 10;  // so that --max-time ends it
    options.max_time_s = 0.4;
    options.cpu_threads = 1;
    const Measurement slow = measure_entry(load_fixture("fixture_spin.so"), 10, options, timer);
    REQUIRE(slow.status == EntryStatus::ok);
    CHECK(slow.timing.samples.run.size() >= 5);
    REQUIRE(slow.timing.samples.run_host.size() == 1);
    CHECK(slow.timing.samples.run_host[0] > 0.05);
}

TEST_CASE("an unheld sampled call follows warm calls, as many as fit in the transfers' time", "[measure]") {
    test_support::ClaimedDevicesTimer timer({0});  // a host clock: its stream cannot be held
    // fixture_cold_path: 30 ms of upload, then three run()s of 3 ms each before fast ones.
    const Measurement e = measure_entry(load_fixture("fixture_cold_path.so"), 100, test_support::sampled(6, 6), timer);
    REQUIRE(e.status == EntryStatus::ok);
    CHECK_THAT(e.timing.stream_hold, Catch::StartsWith("not held"));
    REQUIRE(e.timing.samples.run.size() == 6);
    // Every sampled call is the fourth after its cycle's transfers: the three before it pay.
    CHECK(e.timing.warm_calls == 3 * e.timing.samples.run.size());
    CHECK(nlohmann::json(e)["timing"]["warm_calls"] == e.timing.warm_calls);
    CHECK(summarize(e.timing.samples.run).median < 1e-3);
    CHECK(summarize(e.timing.samples.run_host_in_cycle).median < 1e-3);
    // A CPU entry (the host's clock, no stream) is timed as it comes: its first call after
    // the transfer is the sampled one.
    SteadyClockTimer host;
    const Measurement cpu = measure_entry(load_fixture("fixture_cold_path.so"), 100, test_support::sampled(3, 3), host);
    REQUIRE(cpu.status == EntryStatus::ok);
    CHECK(cpu.timing.warm_calls == 0);
    CHECK(summarize(cpu.timing.samples.run).median > 2.5e-3);
}

TEST_CASE("the back-to-back calls' budget: a share of the sampling, topped up to 8 timings of a run() of milliseconds",
          "[measure]") {
    // Among the samples: 5% of the sampling so far, whatever the group costs.
    CHECK(back_to_back_budget_s(2.0, 1e-3, false) == Approx(0.1));
    // After them: 20 ms at least (groups of microseconds) ...
    CHECK(back_to_back_budget_s(0.2, 40e-6, true) == Approx(back_to_back_min_s));
    // ... 8 groups of a run() of milliseconds (a 2.5 ms matmul: 10 ms a group), where 5% of a
    // sampling that converged in half a second fits two ...
    CHECK(back_to_back_budget_s(0.5, 10e-3, true) == Approx(8 * 10e-3));
    CHECK(back_to_back_budget_s(0.5, 10e-3, true) / 10e-3 >= double(back_to_back_min_timings) - 1e-9);
    // ... but no more than 0.1 s for them, and never less than the share.
    CHECK(back_to_back_budget_s(0.5, 30e-3, true) == Approx(back_to_back_top_up_max_s));
    CHECK(back_to_back_budget_s(10.0, 30e-3, true) == Approx(0.5));
}

TEST_CASE("items, the headline and metrics (ABI 1.1) reach the entry and the results", "[measure]") {
    Measurement e = measure("fixture_good.so", 50);
    REQUIRE(e.status == EntryStatus::ok);
    CHECK(e.work.items == 50);
    CHECK(e.item_name == "elements");
    EntryFigures f = entry_figures(e, this_host_run());
    CHECK(f.headline == "items_per_s");
    CHECK(f.headline_value == Approx(50 / f.run.median));
    REQUIRE(e.metrics.size() == 2);  // the plugin's, then the runner's own
    CHECK(e.metrics[1].name == "page_faults_per_run");
    CHECK(e.metrics[0].name == "sum_of_y");
    CHECK(e.metrics[0].text == "computed by a plain-C plugin");
    CHECK(e.metrics[0].value >= 2 * 50);  // y = 2x with x in [1, 2)
    CHECK(e.metrics[0].value < 4 * 50);
    nlohmann::json entry = nlohmann::json(e);
    CHECK(entry["metrics"][0]["name"] == "sum_of_y");
    CHECK(entry["throughput"]["headline"] == "items_per_s");
    CHECK(entry["work"]["item_name"] == "elements");
}

TEST_CASE("a v1.0 plugin is measured without reading the fields it does not have", "[measure]") {
    // fixture_v1_0 leaves garbage where v1.1 fields would be: reading them would crash.
    Plugin plugin = load_fixture("fixture_v1_0.so");
    CHECK(plugin.info().item_name.empty());
    CHECK(plugin.info().headline == GPUBENCH_HEADLINE_AUTO);
    CHECK(plugin.metrics_fn() == nullptr);
    SteadyClockTimer timer;
    Measurement e = measure_entry(plugin, 20, counted_options(), timer);
    CHECK(e.status == EntryStatus::ok);
    REQUIRE(e.metrics.size() == 1);  // none of the plugin's: the runner's own alone
    CHECK(e.metrics[0].name == "page_faults_per_run");
    CHECK(entry_figures(e, this_host_run()).headline == "gflops");  // automatic: it declares flops
}

TEST_CASE("sampling stops at max_samples and at max_time", "[measure]") {
    SteadyClockTimer timer;
    Plugin plugin = load_fixture("fixture_good.so");
    MeasureOptions options = counted_options();
    options.min_time_s = 1e9;  // never reached
    Measurement capped = measure_entry(plugin, 10, options, timer);
    CHECK(capped.timing.samples.run.size() == options.max_samples);
    CHECK(capped.timing.stop_reason == "max_samples reached");
    options.max_samples = 1000000;
    options.max_time_s = 0;
    Measurement timed_out = measure_entry(plugin, 10, options, timer);
    CHECK(timed_out.timing.samples.run.size() == 1);
    CHECK(timed_out.timing.stop_reason == "max_time reached");
}

TEST_CASE("a wrong result is marked invalid, never ok", "[measure]") {
    Measurement e = measure("fixture_bad_verify.so", 10);
    CHECK(e.status == EntryStatus::verification_failed);
    CHECK_FALSE(e.verification.passed);
    CHECK_THAT(e.message, Catch::Contains("wrong result"));
    CHECK(nlohmann::json(e)["valid"] == false);
}

TEST_CASE("plugin statuses become entry statuses with the plugin's message", "[measure]") {
    Measurement oom = measure("fixture_status.so", 1000);
    CHECK(oom.status == EntryStatus::skipped);
    CHECK_THAT(oom.message, Catch::StartsWith("out of memory: setup: "));

    Measurement unsupported = measure("fixture_status.so", 7, "reject_odd=1");
    CHECK(unsupported.status == EntryStatus::skipped);
    CHECK_THAT(unsupported.message, Catch::StartsWith("not supported: setup: "));

    Measurement failed = measure("fixture_status.so", 8, "fail_run=1");
    CHECK(failed.status == EntryStatus::error);
    CHECK_THAT(failed.message, Catch::Contains("run: run failed on purpose"));

    // A message that fills the buffer with no terminating NUL is cut at the buffer's end.
    Measurement unterminated = measure("fixture_status.so", 8, "fail_run=2");
    CHECK(unterminated.status == EntryStatus::error);
    CHECK(unterminated.message == "run: " + std::string(1023, 'x'));

    CHECK(measure("fixture_status.so", 8).status == EntryStatus::ok);
}

TEST_CASE("the results file is valid JSON from its start, each entry in its journal once added, whole once finished",
          "[results]") {
    auto path = std::filesystem::temp_directory_path() /
                ("gpubench_test_results_" + std::to_string(getpid()) + ".json");
    Plugin plugin = load_fixture("fixture_good.so");
    ResultsFile file(path, {{"schema_version", results_schema_version}});
    auto read = [&] {
        std::ifstream in(path);
        return nlohmann::json::parse(in);
    };
    CHECK(read()["entries"].empty());
    file.add_plugin(plugin_json(plugin.info()));
    SteadyClockTimer timer;
    file.add_entry(nlohmann::json(measure_entry(plugin, 5, counted_options(), timer)));
    CHECK(read()["entries"].empty());  // the file is rewritten only once finished
    const std::optional<nlohmann::json> journaled = replay_journal(journal_path(path));
    REQUIRE(journaled);
    REQUIRE((*journaled)["entries"].size() == 1);
    file.finish();
    CHECK_FALSE(std::filesystem::exists(journal_path(path)));
    nlohmann::json doc = read();
    CHECK(doc == *journaled);
    REQUIRE(doc["entries"].size() == 1);
    CHECK(doc["plugins"][0]["name"] == "fixture_good");
    const auto &entry = doc["entries"][0];
    CHECK(entry["status"] == "ok");
    CHECK(entry["timing"]["run"]["count"] == 3);
    CHECK(entry["timing"]["samples"]["run"].size() == 3);
    CHECK(entry["verification"]["passed"] == true);
    CHECK_FALSE(std::filesystem::exists(path.string() + ".partial"));
    std::filesystem::remove(path);
}

TEST_CASE("the noise criterion stops a steady entry early and runs a noisy one to the limit",
          "[measure]") {
    Plugin plugin = load_fixture("fixture_misbehave.so");
    MeasureOptions options;
    options.warmup_runs = 1;
    options.min_samples = 10;
    options.max_samples = 100000;
    options.min_time_s = 0;
    options.max_time_s = 1.0;
    options.max_noise = 0.005;
    SteadyClockTimer timer;
    // Size 200 busy-waits a steady 2 ms per run: its median is known well after 10 samples.
    Measurement steady = measure_entry(plugin, 200, options, timer);
    INFO("steady: " << steady.timing.samples.run.size() << " samples, noise " << steady.timing.noise.median_rel_stderr);
    // On a crowded machine (ctest -j) preemption can make even a busy wait noisy: then the
    // runner must say why (contended), and the converged case is not asserted.
    const bool crowded = steady.resources.host_load && steady.resources.host_load->contended();
    if (crowded) {
        WARN("the host was contended: convergence of the steady entry not asserted ("
             << steady.resources.host_load->reason() << ")");
        const auto flags = entry_figures(steady, this_host_run()).flags;
        CHECK(std::find(flags.begin(), flags.end(), "contended") != flags.end());
    } else {
        CHECK(steady.timing.stop_reason == "noise below max_noise");
        CHECK(steady.timing.noise.converged);
        CHECK(steady.timing.noise.median_rel_stderr <= options.max_noise);
        CHECK(steady.timing.samples.run.size() < 100);
    }
    // Size 201 waits 1 to 4 ms at random: 0.5% would take ~10000 samples, so it runs to
    // max_time and says it did not converge.
    Measurement noisy = measure_entry(plugin, 201, options, timer);
    INFO("noisy: " << noisy.timing.samples.run.size() << " samples, noise " << noisy.timing.noise.median_rel_stderr);
    CHECK(noisy.timing.stop_reason == "max_time reached");
    CHECK_FALSE(noisy.timing.noise.converged);
    CHECK(noisy.timing.noise.median_rel_stderr > options.max_noise);
    if (!crowded) CHECK(noisy.timing.samples.run.size() > steady.timing.samples.run.size());
}

TEST_CASE("the median's relative standard error shrinks with the square root of n",
          "[measure]") {
    CHECK(median_relative_standard_error({}) == 0);
    CHECK(median_relative_standard_error({1.0}) == 0);
    CHECK(median_relative_standard_error({2.0, 2.0, 2.0}) == 0);
    // Samples 1, 2, 3 repeated: median 2, MAD 1.
    std::vector<double> few = {1, 2, 3, 1, 2, 3, 1, 2, 3};
    CHECK(median_relative_standard_error(few) == Approx(1.2533 * 1.4826 * 1 / 3.0 / 2));
    std::vector<double> many;
    for (int i = 0; i < 4; ++i) many.insert(many.end(), few.begin(), few.end());
    CHECK(median_relative_standard_error(many) == Approx(median_relative_standard_error(few) / 2));
}

TEST_CASE("an entry reports its CPU time, peak memory and (for CPU plugins) no device figures",
          "[measure]") {
    Plugin plugin = load_fixture("fixture_misbehave.so");
    // 25 samples (50 ms) rather than 3: over a few milliseconds one wake-up of another thread
    // of this process, waiting a slice for a CPU on a loaded machine, moved the ratios below
    // by a third (a sanitized ctest -j2 in CI).
    MeasureOptions options = test_support::sampled(25, 25);
    SteadyClockTimer timer;
    // Size 200 busy-waits 2 ms per run on one thread: about one core while sampling.
    Measurement e = measure_entry(plugin, 200, options, timer);
    REQUIRE(e.status == EntryStatus::ok);
    const EntryResources &r = e.resources;
    CHECK(r.sampling_wall_s >= 25 * 0.002);
    // One busy thread: at most about one core. On a loaded machine (ctest -j) it also waits
    // for a CPU, so CPU time alone can fall far below the wall time; CPU time plus the wait
    // the scheduler reports cannot. The wait counts every thread of the process, so the sum
    // may pass one core a little, never twice.
    CHECK(r.cpu_cores() > 0);
    CHECK(r.cpu_cores() <= 1.3);
    REQUIRE(r.host_load);
    if (r.host_load->available) {
        const double busy = (r.host_load->own_cpu_s + r.host_load->own_wait_s) / r.host_load->wall_s;
        CHECK(busy >= 0.7);
        CHECK(busy <= 1.6);
    }
    CHECK(r.peak_rss_bytes > 0);
    CHECK_FALSE(r.on_device);
    CHECK(r.gpu_busy == 0);
    nlohmann::json entry = nlohmann::json(e);
    CHECK(entry["resources"]["cpu_cores"].get<double>() == Approx(r.cpu_cores()));
    CHECK_FALSE(entry["resources"].contains("gpu_busy"));
}

TEST_CASE("the runner adds its page faults per run to the entry's metrics", "[measure][metrics]") {
    const auto faults = [](const Measurement &e) {
        REQUIRE(e.status == EntryStatus::ok);
        REQUIRE_FALSE(e.metrics.empty());
        const Metric &m = e.metrics.back();  // the runner's come after the plugin's
        CHECK(m.name == "page_faults_per_run");
        CHECK(m.better == GPUBENCH_BETTER_LOWER);
        return m.value;
    };
    SteadyClockTimer timer;
    const MeasureOptions options = test_support::sampled(10, 10);
    // 1 MiB mapped and touched per run: 256 faults of 4 KiB pages (and a few of the shadow
    // memory's in a sanitized build).
    const double fresh = faults(measure_entry(load_fixture("fixture_misbehave.so"), 202, options, timer));
    CHECK(fresh >= 200);
    CHECK(fresh <= 320);
    // The same plugin's correct size takes nothing per run; in a sanitized build the runner's
    // own allocations take fresh pages (freed memory waits in the allocator's quarantine).
    CHECK(faults(measure_entry(load_fixture("fixture_misbehave.so"), 10, options, timer)) <=
          (test_support::sanitized_build ? 64 : 2));
}

TEST_CASE("throughput is read against the roofline of the device's peaks", "[measure]") {
    EntryResult e;
    e.status = EntryStatus::ok;
    e.timing.samples.run = {1.0};
    e.work.flops = 50e12;  // 50 TFLOP/s
    e.work.bytes = 1e12;   // 1 TB/s
    CHECK(entry_figures(e, this_host_run()).roofline_bound.empty());  // peaks unknown (a CPU entry)
    e.ceiling.flops = 100e12;
    e.ceiling.bytes_per_s = 4e12;
    EntryFigures compute = entry_figures(e, this_host_run());
    CHECK(compute.percent_of_peak == Approx(50));
    CHECK(compute.roofline_bound == "compute");
    e.work.flops = 1e12;  // 1 TFLOP/s: 1%, while 1 TB/s is 25% of the bandwidth
    EntryFigures memory = entry_figures(e, this_host_run());
    CHECK(memory.percent_of_peak == Approx(25));
    CHECK(memory.roofline_bound == "memory");
}

TEST_CASE("invalid UTF-8 from a plugin is written to the results file, replaced, never thrown",
          "[results]") {
    const auto path = std::filesystem::temp_directory_path() /
                      ("gpubench_utf8_" + std::to_string(getpid()) + ".json");
    ResultsFile file(path, {{"schema_version", results_schema_version}});
    EntryResult e;
    e.plugin = "fixture_good";
    e.size = 1;
    e.status = EntryStatus::error;
    e.message = "run: bad bytes \xff\xfe from the plugin";
    CHECK_NOTHROW(file.add_entry(nlohmann::json(e)));
    CHECK_NOTHROW(file.finish());
    std::ifstream in(path);
    const nlohmann::json back = nlohmann::json::parse(in);
    REQUIRE(back["entries"].size() == 1);
    CHECK_THAT(back["entries"][0]["message"].get<std::string>(), Catch::Contains("bad bytes"));
    std::filesystem::remove(path);
}

TEST_CASE("the default sweep's budget skips a size predicted to run too long, before its setup",
          "[measure]") {
    Work smaller;
    smaller.bytes = 1000;
    const RunBudget budget{2.0, 10, 0.5, smaller};
    Work next;
    next.bytes = 8000;
    CHECK(predicted_run_s(budget, next, 80) == Approx(4.0));  // scaled by declared bytes
    CHECK(predicted_run_s(budget, Work{}, 40) == Approx(2.0));  // nothing declared: by size
    CHECK(predicted_run_s(budget, next, 10) == 0);              // not a larger size

    // fixture_good declares bytes in proportion to its size: 100 is 10x the 10 measured.
    const Plugin plugin = load_fixture("fixture_good.so");
    EntryMeasurer measurer{Roofline{}};
    const Work at_10 = query_work(plugin.api(), 10, "");
    const Measurement over = measurer.measure(plugin, 100, counted_options(), {}, RunBudget{0.5, 10, 0.1, at_10});
    CHECK(over.status == EntryStatus::skipped);
    CHECK_THAT(over.message, Catch::Contains("over the default sweep's budget") &&
                                 Catch::Contains("predicted to take 1 s (from size 10)"));
    CHECK(over.timing.samples.run.empty());
    CHECK(measurer.measure(plugin, 100, counted_options(), {}, RunBudget{5.0, 10, 0.1, at_10}).status ==
          EntryStatus::ok);

    // The same in a worker process: the budget travels with the request.
    WorkerLaunch launch;
    launch.runner = GPUBENCH_RUNNER;
    WorkerPool pool(launch);
    const auto in_worker = pool.measure(plugin.info(), 100, counted_options(), RunBudget{0.5, 10, 0.1, at_10});
    REQUIRE(in_worker);
    CHECK(in_worker->status == EntryStatus::skipped);
    CHECK_THAT(in_worker->message, Catch::Contains("over the default sweep's budget"));
}

TEST_CASE("a skip for a sweep behind its schedule is marked so, in the worker and across its pipe; no other skip is",
          "[measure]") {
    const Plugin plugin = load_fixture("fixture_good.so");
    const Work at_10 = query_work(plugin.api(), 10, "");
    // Set-up and checks took 1 s at size 10: 10 s predicted at 100, over the 2 s a sweep
    // behind its schedule allows (behind), or a fixed cap's (not behind).
    const auto budget = [&](bool behind) { return RunBudget{0, 10, 0.1, at_10, 1.0, 2.0, behind}; };
    EntryMeasurer measurer{Roofline{}};
    const Measurement late = measurer.measure(plugin, 100, counted_options(), {}, budget(true));
    CHECK(late.status == EntryStatus::skipped);
    CHECK(late.behind_schedule);
    CHECK_THAT(late.message, Catch::StartsWith(behind_schedule_text));
    const Measurement capped = measurer.measure(plugin, 100, counted_options(), {}, budget(false));
    CHECK(capped.status == EntryStatus::skipped);
    CHECK_FALSE(capped.behind_schedule);
    // Behind, but over the cap on run() instead: a size no schedule will make room for.
    RunBudget run_over = budget(true);
    run_over.limit_s = 0.5;
    CHECK_FALSE(measurer.measure(plugin, 100, counted_options(), {}, run_over).behind_schedule);

    WorkerLaunch launch;
    launch.runner = GPUBENCH_RUNNER;
    WorkerPool pool(launch);
    const auto in_worker = pool.measure(plugin.info(), 100, counted_options(), budget(true));
    REQUIRE(in_worker);
    CHECK(in_worker->behind_schedule);
    CHECK_FALSE(pool.measure(plugin.info(), 100, counted_options(), budget(false))->behind_schedule);
}
