// How much the runner itself costs per sample: the clocks, the statistics, and a whole
// entry of a plugin whose run() does almost nothing. Google Benchmark does the timing here;
// these numbers bound what the runner adds to every measurement it reports.
#include "gpu.hpp"
#include "measure.hpp"
#include "nvtx_range.hpp"
#include "plugin_library.hpp"
#include "statistics.hpp"

#include <benchmark/benchmark.h>

#include <random>

using namespace gpubench;

namespace {

void steady_clock_empty_phase(benchmark::State &state) {
    SteadyClockTimer timer;
    for (auto _ : state) {
        timer.start();
        benchmark::DoNotOptimize(timer.stop());
    }
}
BENCHMARK(steady_clock_empty_phase);

void cuda_event_empty_phase(benchmark::State &state) {
    GpuInfo gpu = probe_gpu(0);
    if (!gpu.available) {
        state.SkipWithError(("no usable GPU: " + gpu.unavailable_reason).c_str());
        return;
    }
    auto timer = make_cuda_event_timer(0);
    for (auto _ : state) {
        timer->start();
        benchmark::DoNotOptimize(timer->stop());
    }
}
BENCHMARK(cuda_event_empty_phase)->UseRealTime();

// One phase's NVTX range as a plugin call gets it (plugin_instance.cpp): its name looked up,
// pushed and popped. With no profiler attached (NVTX's injection library not loaded), this is what
// each call of each sample costs beside its timed span.
void nvtx_phase_range(benchmark::State &state) {
    if (!nvtx_built_in()) {
        state.SkipWithError("built without the CUDA toolkit: no NVTX ranges");
        return;
    }
    EntryRanges ranges(nvtx_entry_label("vecadd_cuda", 100000000, ""));
    for (auto _ : state) {
        const NvtxRange range(ranges.name("run"));
        benchmark::ClobberMemory();
    }
}
BENCHMARK(nvtx_phase_range);

void summarize_samples(benchmark::State &state) {
    std::mt19937 random(1);
    std::vector<double> samples(static_cast<size_t>(state.range(0)));
    for (double &s : samples) s = std::uniform_real_distribution<double>(1e-6, 2e-6)(random);
    for (auto _ : state) benchmark::DoNotOptimize(summarize(samples));
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(summarize_samples)->Arg(10)->Arg(1000);

// Per-sample cost of a whole entry (setup, warm-up, 100 samples, verify) at size 1.
void entry_overhead(benchmark::State &state, const char *plugin_name) {
    auto loaded = load_plugin(std::string(GPUBENCH_PLUGIN_DIR) + "/" + plugin_name + ".so");
    const Plugin *plugin = std::get_if<Plugin>(&loaded);
    if (!plugin) {
        state.SkipWithError("plugin not built");
        return;
    }
    std::unique_ptr<PhaseTimer> timer;
    if (plugin->is_cuda()) {
        if (!probe_gpu(0).available) {
            state.SkipWithError("no usable GPU");
            return;
        }
        timer = make_cuda_event_timer(0);
    } else {
        timer = std::make_unique<SteadyClockTimer>();
    }
    MeasureOptions options;
    options.min_samples = options.max_samples = 100;
    options.min_time_s = 0;
    for (auto _ : state) benchmark::DoNotOptimize(measure_entry(*plugin, 1, options, *timer));
    state.counters["per_sample"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * 100,
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(entry_overhead, matmul_naive, "matmul_naive")->UseRealTime();
BENCHMARK_CAPTURE(entry_overhead, matmul_cublas, "matmul_cublas")->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
