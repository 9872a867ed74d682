// What only a GPU can show: cold L2 samples, batched short launches, device memory and busy
// fraction, and a poisoned CUDA context that ends only its own entry. Skipped, with the
// reason, where no GPU can be used.
#include "gpu.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using namespace gpubench;

namespace {

void require_gpu() {
#ifndef GPUBENCH_HAVE_CUDA
    test_support::skip_test("gpubench was built without the CUDA toolkit");
#endif
    GpuInfo gpu = probe_gpu(0);
    if (!gpu.available) test_support::skip_test("no usable CUDA GPU: " + gpu.unavailable_reason);
}

Plugin load_shipped(const std::string &name) {
    auto loaded = load_plugin(std::filesystem::path(GPUBENCH_PLUGIN_DIR) / (name + ".so"));
    if (auto *r = std::get_if<Refusal>(&loaded)) FAIL(name << " refused: " << r->reason);
    return std::move(std::get<Plugin>(loaded));
}

MeasureOptions quick() {
    MeasureOptions options;
    options.min_samples = 10;
    options.max_samples = 50;
    options.min_time_s = 0;
    options.max_noise = 0;
    return options;
}

}  // namespace

TEST_CASE("GPU entries: batched short launches, cold L2, device memory, busy fraction, NVML",
          "[gpu]") {
    require_gpu();
    auto timer = make_cuda_event_timer(0);
    // copy_cuda (no reset(), so it can be batched) at 1e6 floats: a few-microsecond copy.
    Plugin copy = load_shipped("copy_cuda");
    EntryResult batched = measure_entry(copy, 1'000'000, quick(), *timer);
    REQUIRE(batched.status == EntryStatus::ok);
    CHECK(batched.batch_size >= 2);
    CHECK(batched.batched_run_s.size() == 10);
    const double single_launch = summarize(batched.run_s).median;
    CHECK(summarize(batched.batched_run_s).median <= single_launch);  // no launch gap in a batch
    nlohmann::json entry = entry_json(batched, quick());
    CHECK(entry["timing"]["batched"]["batch_size"].get<size_t>() == batched.batch_size);
    CHECK(entry["timing"]["launch_overhead"].get<double>() >= 0);

    // vecadd_cuda has reset(): never batched. 1e6 floats are 12 MB of device arrays, which
    // fit the H100's 50 MB L2: hot runs read from L2, cold ones (L2 flushed) from HBM.
    Plugin vecadd = load_shipped("vecadd_cuda");
    MeasureOptions many = quick();
    many.min_samples = many.max_samples = 200;
    EntryResult hot = measure_entry(vecadd, 1'000'000, many, *timer);
    REQUIRE(hot.status == EntryStatus::ok);
    CHECK(hot.cache == "hot");
    CHECK(hot.batched_run_s.empty());
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
    EntryResult cold = measure_entry(vecadd, 1'000'000, cold_options, *timer);
    REQUIRE(cold.status == EntryStatus::ok);
    CHECK(cold.cache == "cold");
    CHECK(summarize(cold.run_s).median > summarize(hot.run_s).median);
}

TEST_CASE("a kernel that poisons its CUDA context ends only its own entry", "[gpu]") {
    require_gpu();
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
