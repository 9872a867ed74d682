// The contract every shipped CUDA plugin must keep, run in this process with CUDA events: it
// loads, declares sane work, and computes a verified result at small and odd sizes. Skipped,
// with the reason, where no GPU can be used. The CPU plugins keep the same contract through
// `runner check` (runner_check_passes_every_shipped_plugin, and test_runner_check under the
// sanitizers), which checks all of this and more the way a sweep runs them.
#include "gpu.hpp"
#include "measure.hpp"
#include "plugin_catalog.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace gpubench;

namespace {

const uint64_t contract_sizes[] = {1, 7, 33, 1000};

// The entry ran, and its result was checked and found right.
void check_verified(const Measurement &e) {
    CHECK(e.status == EntryStatus::ok);
    CHECK(e.verification.passed);
    CHECK(e.verification.checked > 0);
}

// CUDA events on device 0 (a GPU required), or the host's clock.
std::unique_ptr<PhaseTimer> contract_timer(bool cuda) {
    if (!cuda) return std::make_unique<SteadyClockTimer>();
    test_support::require_gpu();
    return make_cuda_event_timer(0);
}

void check_cuda_contract() {
    const std::unique_ptr<PhaseTimer> timer = contract_timer(true);
    PluginCatalog catalog = discover_plugins(test_support::search_in({GPUBENCH_PLUGIN_DIR}));
    for (const Refusal &r : catalog.refused) FAIL("refused: " << r.file << ": " << r.reason);
    MeasureOptions options;
    options.min_samples = 2;
    options.max_samples = 3;
    options.min_time_s = 0;
    // A JIT's first compilation (Numba-CUDA, CuPy's kernels) is part of the first run(): seconds
    // on a busy machine, which the time cap that stops sampling must not cut short.
    options.max_time_s = 120;
    options.cpu_threads = 2;
    int checked = 0;
    for (const PluginInfo &info : catalog.plugins) {
        if (!info.is_cuda()) continue;
        // A plugin whose interpreter or package is missing (ABI 1.4's available()): a GPU
        // machine may lack CuPy or numba-cuda, and says which were not tested.
        if (!info.is_available()) {
            WARN("not tested: " << info.name << " unavailable: " << info.unavailable_reason);
            continue;
        }
        CHECK(info.name == info.workload + "_" + info.backend);
        CHECK(!info.default_sizes.empty());
        CHECK(info.param_names.has_value());  // so the runner catches a mistyped --param
        const Plugin plugin = test_support::load_file(info.file);
        for (uint64_t size : contract_sizes) {
            if (!size_range_problem(info, size).empty()) continue;
            // A scoped INFO, not a section: Catch reruns a case once per section, and each
            // rerun would load every plugin again (minutes for the Python ones).
            INFO(info.name << " at size " << size);
            Measurement e = measure_entry(plugin, size, options, *timer);
            INFO(e.message);
            ++checked;
            // A plugin across GPUs may need more than the one it is given here
            // (allreduce_nccl): then it says so, and is never timed.
            if (info.max_devices > 1 && e.status == EntryStatus::skipped) {
                CHECK_THAT(e.message, Catch::StartsWith("not supported: "));
                CHECK(e.timing.samples.run.empty());
                WARN("not tested on one GPU: " << info.name << ": " << e.message);
                continue;
            }
            check_verified(e);
            CHECK(e.work.flops + e.work.bytes + e.work.items > 0);  // declared work of some kind
            CHECK(e.timing.samples.run.size() >= options.min_samples);
            CHECK(cuda_sticky_error().empty());
        }
    }
    CHECK(checked > 0);
}

}  // namespace

TEST_CASE("contract: every CUDA plugin verifies at small and odd sizes", "[contract][cuda]") {
#ifndef GPUBENCH_HAVE_CUDA
    test_support::skip_test("gpubench was built without the CUDA toolkit");
#endif
    check_cuda_contract();
}

// logreg_cublas cuts its gradient product into chunks of samples from 30000 samples on
// (plugins/logreg/cublas.cu): both paths, and a short last chunk, must verify.
TEST_CASE("logreg_cublas verifies on both sides of its gradient chunking", "[contract][cuda]") {
#ifndef GPUBENCH_HAVE_CUDA
    test_support::skip_test("gpubench was built without the CUDA toolkit");
#endif
    test_support::require_gpu();
    const auto file = std::filesystem::path(GPUBENCH_PLUGIN_DIR) / "logreg_cublas.so";
    if (!std::filesystem::exists(file))
        test_support::skip_test("logreg_cublas was not built (no cuBLAS)");
    const Plugin plugin = test_support::load_file(file);
    const auto timer = make_cuda_event_timer(0);
    MeasureOptions options = test_support::sampled(1, 1);
    options.params = "iterations=3";
    for (uint64_t size : {29999, 30000, 30001, 45677}) {  // one product; 60 chunks; 59 + 1
        DYNAMIC_SECTION("at size " << size) {
            Measurement e = measure_entry(plugin, size, options, *timer);
            INFO(e.message);
            check_verified(e);
        }
    }
}

// keys=uint32 on every sort backend: random keys use all 32 bits (half of them at or above
// 2^31, where a signed sort would misplace them), descending ones the whole range; at sizes
// from one key to several of sort_cuda's 8192-key tiles.
static void check_sort_uint32(bool cuda) {
    const std::unique_ptr<PhaseTimer> timer = contract_timer(cuda);
    PluginCatalog catalog = discover_plugins(test_support::search_in({GPUBENCH_PLUGIN_DIR}));
    int checked = 0;
    for (const PluginInfo &info : catalog.plugins) {
        if (info.workload != "sort" || info.is_cuda() != cuda) continue;
        if (test_support::sanitized_build && info.build_record && info.build_record->language == "Python")
            continue;  // as in check_contract
        if (!info.is_available()) {
            WARN("not tested: " << info.name << " unavailable: " << info.unavailable_reason);
            continue;
        }
        const Plugin plugin = test_support::load_file(info.file);
        for (const char *input : {"random", "descending"})
            for (uint64_t size : {1, 7, 1000, 30011}) {
                INFO(info.name << " keys=uint32 input=" << input << " at " << size);  // as above
                MeasureOptions options = test_support::sampled(1, 1);
                options.params = std::string("keys=uint32,input=") + input;
                Measurement e = measure_entry(plugin, size, options, *timer);
                INFO(e.message);
                check_verified(e);
                CHECK_THAT(e.verification.detail, Catch::Contains("uint32 keys"));
                ++checked;
            }
    }
    CHECK(checked > 0);
}

TEST_CASE("sort: every CPU backend sorts keys=uint32", "[contract]") { check_sort_uint32(false); }

TEST_CASE("sort: every CUDA backend sorts keys=uint32", "[contract][cuda]") {
#ifndef GPUBENCH_HAVE_CUDA
    test_support::skip_test("gpubench was built without the CUDA toolkit");
#endif
    check_sort_uint32(true);
}

// Every kernel of matmul_cuda and mode of matmul_cublas at ragged sizes: below, at and past
// one tile (128) and several, with whole tiles beside (256, 1024), against the same checks
// (math=tf32 with its rounding allowed, kernel=tensor's 3xTF32 with float32's tolerance).
TEST_CASE("matmul: every kernel and mode verifies at ragged sizes", "[contract][cuda]") {
#ifndef GPUBENCH_HAVE_CUDA
    test_support::skip_test("gpubench was built without the CUDA toolkit");
#endif
    test_support::require_gpu();
    const auto timer = make_cuda_event_timer(0);
    const std::pair<const char *, const char *> settings[] = {
        {"matmul_cuda", "kernel=tensor"}, {"matmul_cuda", "kernel=ffma"}, {"matmul_cuda", "dtype=float64"},
        {"matmul_cublas", "math=fp32"}, {"matmul_cublas", "math=tf32"}};
    for (const auto &[name, params] : settings) {
        const auto file = std::filesystem::path(GPUBENCH_PLUGIN_DIR) / (std::string(name) + ".so");
        if (!std::filesystem::exists(file)) {
            WARN("not tested: " << name << " was not built");
            continue;
        }
        const Plugin plugin = test_support::load_file(file);
        MeasureOptions options = test_support::sampled(1, 1);
        options.params = params;
        for (uint64_t size : {1, 2, 31, 127, 128, 129, 255, 256, 383, 1000, 1024}) {
            INFO(name << " " << params << " at " << size);  // a scoped INFO: see check_cuda_contract
            Measurement e = measure_entry(plugin, size, options, *timer);
            INFO(e.message << " " << e.verification.detail);
            check_verified(e);
        }
    }
}
