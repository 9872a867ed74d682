#include "work_mismatch.hpp"

#include "gpu_counter_figures.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace gpubench {
namespace {

// Whether the declared work is memory-bound: no flops, or fewer per byte than the roofline's
// ridge. A compute-bound kernel's declared bytes are the least it must move, which tiling
// and caches exceed by design: its flops are what to compare.
bool declared_memory_bound(const Measurement &e) {
    if (e.work.flops <= 0) return true;
    return e.ceiling.flops > 0 && e.ceiling.bytes_per_s > 0 && e.work.bytes > 0 &&
           e.work.flops / e.work.bytes < e.ceiling.flops / e.ceiling.bytes_per_s;
}

// The bytes the counters saw at the entry's level, and that level's name; nullopt where none.
std::optional<std::pair<double, std::string>> counted_bytes(const Measurement &e) {
    if (!declared_memory_bound(e)) return std::nullopt;
    if (!e.cuda_devices.empty()) {
        // What the SMs and copy engines moved through the L2, wherever it was served from: a
        // cold run's writes of a working set the L2 holds never reach HBM inside the run().
        if (const auto l2 = counted_value(e, "l2_bytes_per_run")) return std::pair(*l2, std::string("L2"));
        const auto read = counted_value(e, "dram_read_bytes_per_run"), write = counted_value(e, "dram_write_bytes_per_run");
        if (read || write) return std::pair(read.value_or(0) + write.value_or(0), std::string("HBM"));
        return std::nullopt;
    }
    if (e.ceiling.level == "DRAM")
        if (const auto misses = counted_value(e, "llc_misses_per_run")) return std::pair(*misses * 64, std::string("DRAM"));
    return std::nullopt;
}

std::string text(const char *unit, double declared, double measured, const std::string &where) {
    const std::string line =
        format_text("declares %.3g %s a run(), the counters %.3g %s", declared, unit, measured, unit);
    return where.empty() ? line : line + " (" + where + ")";
}

}  // namespace

std::optional<double> counted_value(const Measurement &e, const char *name) {
    for (const EntryMetric &m : e.metrics)
        if (m.measured && m.name == name) return m.value;
    return std::nullopt;
}

std::optional<double> counted_sum(const Measurement &e, std::initializer_list<const char *> names) {
    std::optional<double> total;
    for (const char *name : names)
        if (const auto value = counted_value(e, name)) total = total.value_or(0) + *value;
    return total;
}

std::optional<double> counted_flops(const Measurement &e) {
    std::optional<double> pipes;  // none counted: the flops are unknown, whatever the tensor cores say
    for (const PipeFlops &pipe : pipe_flops)
        if (const auto value = counted_value(e, pipe.figure)) pipes = pipes.value_or(0) + *value;
    if (!pipes) return std::nullopt;
    return *pipes + counted_value(e, "tensor_flops_per_run").value_or(0);
}

CountedWork counted_work(const Measurement &e) {
    CountedWork counted;
    if (const auto bytes = counted_bytes(e);
        bytes && e.work.bytes >= counted_work_least_bytes) {
        counted.bytes_ratio = bytes->first / e.work.bytes;
        counted.level = bytes->second;
    }
    if (const auto flops = counted_flops(e); flops && e.work.flops > 0)
        counted.flops_ratio = (*flops - counted_value(e, "fp16_flops_per_run").value_or(0)) / e.work.flops;
    return counted;
}

std::vector<Metric> counted_work_figures(const Measurement &e) {
    const CountedWork counted = counted_work(e);
    std::vector<Metric> figures;
    if (counted.bytes_ratio)
        figures.push_back({"bytes_over_declared", *counted.bytes_ratio, "x",
                           "the bytes the counters saw a run() (" + counted.level + ") over those work() declares",
                           GPUBENCH_BETTER_LOWER});
    if (counted.flops_ratio)
        figures.push_back({"flops_over_declared", *counted.flops_ratio, "x",
                           "the flops the counters saw a run() over those work() declares", GPUBENCH_BETTER_LOWER});
    return figures;
}

std::string counted_work_mismatch(const Measurement &e) {
    std::string mismatch;
    const CountedWork counted = counted_work(e);
    if (counted.bytes_ratio && *counted.bytes_ratio < 1 / counted_work_tolerance)
        mismatch = text("B", e.work.bytes, *counted.bytes_ratio * e.work.bytes, counted.level);
    // Judged with the FP16 pipe's count in: the least a plugin can be said to do.
    if (const auto flops = counted_flops(e); flops && e.work.flops > 0 && *flops < e.work.flops / counted_work_tolerance)
        mismatch += (mismatch.empty() ? "" : "; ") + text("flops", e.work.flops, *flops, "");
    return mismatch;
}

// The texts below name the tolerance: change them with it.
static_assert(counted_work_tolerance == 1.5);

extern const Check work_mismatch_check{
    "work_mismatch", CheckVerdict::flag,
    "--counters: the hardware counted less than 1/1.5 of the bytes or flops the plugin's work() "
    "declares, so its throughput reads too high (throughput.work_mismatch names both)",
    "the counted bytes or flops of one `run()` against `work()`'s: less than declared is flagged; more is "
    "the efficiency figures `bytes_over_declared` and `flops_over_declared` "
    "([profiling.md](profiling.md#hardware-counters---counters))",
    "", counted_work_mismatch};

}  // namespace gpubench
