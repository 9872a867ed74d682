// An entry's one encoding: the results file's entry, which is also what a worker sends the
// runner. Reading it back must give the entry that was written, field for field.
#include "entry_json.hpp"
#include "results_model.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gpubench;
using nlohmann::json;

namespace {

// Every field an entry with samples can hold, each set away from its default.
EntryResult full_entry() {
    EntryResult e;
    e.plugin = "sort_cuda";
    e.size = 1000000000ull;
    e.settings = {"input=descending", 7, 3};
    e.timing.warmup_runs = 2;
    e.timing.noise.max_noise = 0.01;
    e.status = EntryStatus::verification_failed;
    e.message = "wrong result";
    e.work = {1.5, 2.5, 3.5, 4.5, 5.5, GPUBENCH_MATH_FP64, GPUBENCH_WORK_RUN_REPEATABLE};
    e.timing.clock = "cuda_event";
    e.timing.load = 0.125;
    e.timing.setup = 0.5;
    e.timing.first_run = 0.25;
    e.timing.samples.upload = {1e-3, 2e-3};
    e.timing.samples.run = {3e-3, 4e-3};
    e.timing.samples.download = {5e-3, 6e-3};
    e.timing.samples.run_host = {1e-5, 2e-5};
    e.timing.stream_hold = "held";
    e.timing.stop_reason = "max_time reached";
    e.timing.cache = "cold";
    e.timing.per_launch = {"graph", 1000, {1e-6, 2e-6}};
    e.timing.per_launch_note = "a note";
    e.timing.noise.median_rel_stderr = 0.02;
    e.timing.noise.converged = false;
    e.stream_audit = {6, "run", 3e-3, 1e-7, false, {"CUPTI 13.0", 6, 2.5e-3, 1}, "", ""};
    e.thread_audit = {4, "ns", 3, 1, 2, 4.2e-4, 4.3e-3, "work outside run(): ..."};
    e.verification = {false, std::nan(""), 1e-6, 42, "first bad index 7"};
    e.metrics = {{"test_accuracy", 76.4, "%", "Fashion-MNIST"}};
    e.resources = {2.0, 3.0, 1u << 30, true, 5u << 20, 7u << 20, 80ull << 30, 0.9};
    GpuState state;
    state.sm_clock_mhz = 1980;
    state.energy_mj = 1000;
    state.throttle_reasons = 0x4;
    state.compute_processes = 2;
    e.resources.gpu_before = state;
    state.energy_mj = 2000;
    e.resources.gpu_after = state;
    e.resources.gpu_state_note = "read by NVML";
    e.resources.host_load = HostLoad{0.5, 0.4, 1.5, 0.7, 0.01, 0.02, 16, true};
    e.ceiling.flops = 60e12;
    e.ceiling.bytes_per_s = 3e12;
    e.ceiling.level = "HBM";
    e.ceiling.level_margin = 0.07;
    e.ceiling.cache_bytes = 50u << 20;
    e.ceiling.margin = 0.05;
    e.item_name = "keys";
    e.headline = GPUBENCH_HEADLINE_ITEMS;
    e.unoptimized = true;
    e.sanitizer = "memcheck: 0 errors";
    e.plugin_time_s = 1.5;
    e.sweep.entry_wall_s = 2.5;
    e.sweep.worker_started = true;
    e.sweep.worker_entries_before = 3;
    e.sweep.finished_after_s = 9.5;
    e.sweep.sampling_budget_s = 4.0;
    e.cuda_devices = {0, 1};
    e.sweep.devices = {{0, "NVIDIA H100", "GPU-1234", "0000:65:00.0"}};
    e.sweep.host_share = HostShare{{0, 1, 2, 3}, 4, 0, 2, "an equal part"};
    return e;
}

EntryResult through_text(const EntryResult &e) {
    return json::parse(json(e).dump()).get<EntryResult>();
}

}  // namespace

TEST_CASE("an entry read back from its encoding is the entry that was written", "[results]") {
    const EntryResult e = full_entry();
    const EntryResult back = through_text(e);
    CHECK(back.plugin == e.plugin);
    CHECK(back.size == e.size);
    CHECK(back.settings.params == e.settings.params);
    CHECK(back.settings.seed == e.settings.seed);
    CHECK(back.settings.cpu_threads == e.settings.cpu_threads);
    CHECK(back.timing.warmup_runs == e.timing.warmup_runs);
    CHECK(back.timing.noise.max_noise == e.timing.noise.max_noise);
    CHECK(back.status == e.status);
    CHECK(back.message == e.message);
    CHECK(back.work.flops == e.work.flops);
    CHECK(back.work.bytes == e.work.bytes);
    CHECK(back.work.host_bytes == e.work.host_bytes);
    CHECK(back.work.device_bytes == e.work.device_bytes);
    CHECK(back.work.items == e.work.items);
    CHECK(back.work.math == e.work.math);
    CHECK(back.work.flags == e.work.flags);
    CHECK(back.timing.clock == e.timing.clock);
    CHECK(back.timing.load == e.timing.load);
    CHECK(back.timing.setup == e.timing.setup);
    CHECK(back.timing.first_run == e.timing.first_run);
    CHECK(back.timing.samples.upload == e.timing.samples.upload);
    CHECK(back.timing.samples.run == e.timing.samples.run);
    CHECK(back.timing.samples.download == e.timing.samples.download);
    CHECK(back.timing.samples.run_host == e.timing.samples.run_host);
    CHECK(back.timing.stream_hold == e.timing.stream_hold);
    CHECK(back.timing.stop_reason == e.timing.stop_reason);
    CHECK(back.timing.cache == e.timing.cache);
    CHECK(back.timing.per_launch.method == e.timing.per_launch.method);
    CHECK(back.timing.per_launch.launches_per_sample == e.timing.per_launch.launches_per_sample);
    CHECK(back.timing.per_launch.samples == e.timing.per_launch.samples);
    CHECK(back.timing.per_launch_note == e.timing.per_launch_note);
    CHECK(back.timing.noise.median_rel_stderr == e.timing.noise.median_rel_stderr);
    CHECK(back.timing.noise.converged == e.timing.noise.converged);
    CHECK(back.stream_audit.checks == e.stream_audit.checks);
    CHECK(back.stream_audit.worst_phase == e.stream_audit.worst_phase);
    CHECK(back.stream_audit.timed_s == e.stream_audit.timed_s);
    CHECK(back.stream_audit.device_busy_after_s == e.stream_audit.device_busy_after_s);
    CHECK(back.stream_audit.traced.by == e.stream_audit.traced.by);
    CHECK(back.stream_audit.traced.calls == e.stream_audit.traced.calls);
    CHECK(back.stream_audit.traced.run_device_work_s == e.stream_audit.traced.run_device_work_s);
    CHECK(back.stream_audit.traced.run_operations == e.stream_audit.traced.run_operations);
    CHECK(back.thread_audit.calls == e.thread_audit.calls);
    CHECK(back.thread_audit.resolution == e.thread_audit.resolution);
    CHECK(back.thread_audit.threads == e.thread_audit.threads);
    CHECK(back.thread_audit.started_by_run == e.thread_audit.started_by_run);
    CHECK(back.thread_audit.worked_after_return == e.thread_audit.worked_after_return);
    CHECK(back.thread_audit.cpu_after_return_s == e.thread_audit.cpu_after_return_s);
    CHECK(back.thread_audit.audit_wall_s == e.thread_audit.audit_wall_s);
    CHECK(back.thread_audit.problem == e.thread_audit.problem);
    CHECK_FALSE(back.verification.passed);
    CHECK(std::isnan(back.verification.max_error));  // NaN travels as null and comes back
    CHECK(back.verification.tolerance == e.verification.tolerance);
    CHECK(back.verification.checked == e.verification.checked);
    CHECK(back.verification.detail == e.verification.detail);
    REQUIRE(back.metrics.size() == 1);
    CHECK(back.metrics[0].name == "test_accuracy");
    CHECK(back.metrics[0].value == 76.4);
    CHECK(back.metrics[0].unit == "%");
    CHECK(back.metrics[0].text == "Fashion-MNIST");
    const EntryResources &r = back.resources;
    CHECK(r.sampling_wall_s == 2.0);
    CHECK(r.sampling_cpu_s == 3.0);
    CHECK(r.peak_rss_bytes == (1u << 30));
    CHECK(r.on_device);
    CHECK(r.device_allocated_bytes == (5u << 20));
    CHECK(r.device_used_bytes == (7u << 20));
    CHECK(r.device_total_bytes == (80ull << 30));
    CHECK(r.gpu_busy == 0.9);
    REQUIRE(r.gpu_before);
    REQUIRE(r.gpu_after);
    CHECK(r.gpu_before->sm_clock_mhz == 1980u);
    CHECK(r.gpu_after->energy_mj == 2000u);
    CHECK(r.gpu_after->throttle_reasons == 0x4u);
    CHECK(r.gpu_after->compute_processes == 2u);
    CHECK_FALSE(r.gpu_after->temperature_c);
    CHECK(r.gpu_state_note == "read by NVML");
    REQUIRE(r.host_load);
    CHECK(r.host_load->own_wait_s == 0.01);
    CHECK(r.host_load->host_cores == 16u);
    CHECK(back.ceiling.flops == e.ceiling.flops);
    CHECK(back.ceiling.bytes_per_s == e.ceiling.bytes_per_s);
    CHECK(back.ceiling.cache_bytes == e.ceiling.cache_bytes);
    CHECK(back.ceiling.margin == e.ceiling.margin);
    CHECK(back.ceiling.level == "HBM");
    CHECK(back.ceiling.level_margin == e.ceiling.level_margin);
    CHECK(back.item_name == "keys");
    CHECK(back.headline == GPUBENCH_HEADLINE_ITEMS);
    CHECK(back.unoptimized);
    CHECK(back.sanitizer == e.sanitizer);
    CHECK(back.plugin_time_s == e.plugin_time_s);
    CHECK(back.sweep.entry_wall_s == e.sweep.entry_wall_s);
    CHECK(back.sweep.worker_started);
    CHECK(back.sweep.worker_entries_before == 3);
    CHECK(back.sweep.finished_after_s == e.sweep.finished_after_s);
    CHECK(back.sweep.sampling_budget_s == e.sweep.sampling_budget_s);
    CHECK(back.cuda_devices == e.cuda_devices);
    REQUIRE(back.sweep.devices.size() == 1);  // device 1 was not probed: its index alone
    CHECK(back.sweep.devices[0].uuid == "GPU-1234");
    CHECK(back.sweep.devices[0].pci_bus_id == "0000:65:00.0");
    CHECK(back.sweep.host_share == e.sweep.host_share);
    // Written again, it is the same record to the byte: the runner writes what the worker sent.
    CHECK(json(back).dump() == json(e).dump());
}

TEST_CASE("a measurement is written without the runner's notes, which its entry adds beside it",
          "[results]") {
    const EntryResult e = full_entry();
    const json measured = static_cast<const Measurement &>(e);
    CHECK(measured["harness"] == json{{"plugin_time_s", 1.5}});
    CHECK(measured["devices"] == json::parse(R"([{"index": 0}, {"index": 1}])"));
    CHECK_FALSE(measured.contains("host_share"));
    CHECK_FALSE(measured.contains("shard"));
    // The runner reads the worker's measurement, notes on it, and writes the same entry.
    EntryResult noted(json::parse(measured.dump()).get<Measurement>());
    noted.sweep = e.sweep;
    CHECK(json(noted).dump() == json(e).dump());
    // The keys as the results format has them (docs/results-format.md).
    const json written = e;
    CHECK(written["harness"] == json::parse(R"({"plugin_time_s": 1.5, "worker_started": true,
        "worker_entries_before": 3, "entry_wall_s": 2.5, "finished_after_s": 9.5,
        "sampling_budget_s": 4.0, "overhead_s": 1.0})"));
    CHECK(written["devices"] == json::parse(R"([{"index": 0, "name": "NVIDIA H100", "uuid": "GPU-1234",
        "pci_bus_id": "0000:65:00.0"}, {"index": 1}])"));
    CHECK(written["stream_audit"] == json::parse(R"({"checks": 6, "worst_phase": "run", "timed_s": 3e-3,
        "device_busy_after_s": 1e-7, "outside_stream": false, "audit_wall_s": 0, "traced": {"by":
        "CUPTI 13.0", "calls": 6, "run_device_work_s": 2.5e-3, "run_operations": 1}})"));
}

TEST_CASE("an encoded entry is a valid entry of a results file", "[results]") {
    EntryResult skipped;
    skipped.plugin = "sort_cuda";
    skipped.size = 5;
    skipped.status = EntryStatus::skipped;
    skipped.message = "outside the range";
    json document = results_header({"runner"}, GpuInfo{}, MeasureOptions{}, std::nullopt);
    document["plugins"] = json::array();
    document["entries"] = json::array({full_entry(), skipped});
    CHECK_NOTHROW(check_results_document(document, "encoded"));
    // Derived figures are written for readers: the throttle verdicts, contention, the rates.
    const json &full = document["entries"][0];
    CHECK(full["resources"]["gpu_before"]["throttled"] == true);
    CHECK(full["resources"]["host_load"].contains("contended"));
    CHECK(full["throughput"]["headline"] == "items_per_s");
    CHECK(full["flags"].dump().find("unoptimized") != std::string::npos);
}

TEST_CASE("an entry without samples keeps its identity, status and reason", "[results]") {
    EntryResult e = full_entry();
    e.status = EntryStatus::error;
    e.message = "create: out of memory";
    e.timing.samples.run.clear();
    const json written = e;
    CHECK_FALSE(written.contains("timing"));
    CHECK_FALSE(written.contains("resources"));
    const EntryResult back = through_text(e);
    CHECK(back.status == EntryStatus::error);
    CHECK(back.message == e.message);
    CHECK(back.settings.params == e.settings.params);
    CHECK(back.work.items == e.work.items);
    CHECK(back.sweep.entry_wall_s == e.sweep.entry_wall_s);
    CHECK(back.stream_audit.checks == e.stream_audit.checks);
    CHECK(back.timing.samples.run.empty());
}

TEST_CASE("a malformed entry is refused, never half read", "[results]") {
    json entry = full_entry();
    entry["status"] = "fine";
    CHECK_THROWS(entry.get<EntryResult>());
    json no_work = full_entry();
    no_work.erase("work");
    CHECK_THROWS(no_work.get<EntryResult>());
    json bad_samples = full_entry();
    bad_samples["timing"]["samples"]["run"] = "fast";
    CHECK_THROWS(bad_samples.get<EntryResult>());
}

TEST_CASE("an entry written before memory levels reads with no level and one margin",
          "[results]") {
    json entry = full_entry();
    json &ceiling = entry["throughput"]["ceiling"];
    ceiling.erase("level");
    ceiling.erase("level_margin");
    const EntryResult back = entry.get<EntryResult>();
    CHECK(back.ceiling.level.empty());
    CHECK(back.ceiling.level_margin == back.ceiling.margin);
    CHECK(back.ceiling.bytes_per_s == 3e12);
}
