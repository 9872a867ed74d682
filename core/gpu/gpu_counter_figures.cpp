#include "gpu_counter_figures.hpp"

#include "text_format.hpp"

#include <algorithm>

namespace gpubench {
namespace {

// The two figures that check the instrumented flops, not recorded.
constexpr char executed_figure[] = "warp_instructions", instrumented_figure[] = "instrumented_warp_instructions";
constexpr double least_instrumented_share = 0.99;

bool from_instrumented_code(const std::string &figure) {
    return std::any_of(std::begin(pipe_flops), std::end(pipe_flops),
                       [&](const PipeFlops &pipe) { return figure == pipe.figure; });
}

}  // namespace

std::set<std::string> tensor_metrics(const std::set<std::string> &known) {
    // Hopper: sm__ops_path_tensor_src_{fp16, bf16_dst_fp32, tf32_dst_fp32, fp8, fp64}.
    const std::string prefix = "sm__ops_path_tensor_src_";
    std::set<std::string> tensor;
    for (const std::string &name : known) {
        if (name.rfind(prefix, 0) != 0 || name.find("int") != std::string::npos ||
            name.find("bool") != std::string::npos || name.find("sparsity") != std::string::npos)
            continue;
        const bool refines = std::any_of(known.begin(), known.end(), [&](const std::string &other) {
            return other.size() > prefix.size() && other.size() < name.size() && name.rfind(other + "_", 0) == 0;
        });
        if (!refines) tensor.insert(name);
    }
    return tensor;
}

std::vector<CounterFigure> wanted_figures(const std::set<std::string> &tensor) {
    using Combine = CounterFigure::Combine;
    // An FMA counts two flops, as in Nsight Compute's roofline.
    const auto flops = [](const char *precision) {
        const std::string op = std::string("smsp__sass_thread_inst_executed_op_") + precision;
        return std::vector<std::pair<std::string, double>>{
            {op + "add_pred_on.sum", 1}, {op + "mul_pred_on.sum", 1}, {op + "fma_pred_on.sum", 2}};
    };
    std::vector<std::pair<std::string, double>> tensor_terms;
    for (const std::string &metric : tensor) tensor_terms.push_back({metric + ".sum", 1});
    const auto percent = [](const char *metric) { return std::string(metric) + ".avg.pct_of_peak_sustained_elapsed"; };
    std::vector<CounterFigure> figures = {
        {"dram_read_bytes_per_run", {{"dram__bytes_read.sum", 1}}},
        {"dram_write_bytes_per_run", {{"dram__bytes_write.sum", 1}}},
        // What the L2's clients (SMs, copy engines) moved through it, each byte once: an H100's
        // L2 has two partitions, and a request served by the far one is counted again at the
        // fabric between them (vecadd at 1e6 would show 1.8x its 12 MB).
        {"l2_bytes_per_run", {{"lts__t_bytes.sum", 1}, {"lts__t_sectors_srcunit_ltcfabric.sum", -32}}},
    };
    for (const PipeFlops &pipe : pipe_flops) figures.push_back({pipe.figure, flops(pipe.precision)});
    figures.push_back({"tensor_flops_per_run", tensor_terms});
    figures.insert(figures.end(), {
        // Nsight Compute's sm__throughput and gpu__compute_memory_throughput are the busiest of
        // some twenty units each, and would take 13 passes instead of 6 on an H100: these are
        // the units a benchmark's kernels fill (the issue slots, the FP64, tensor and load/store
        // pipes), and DRAM.
        {"sm_throughput",
         {{percent("smsp__issue_active"), 1},
          {percent("sm__inst_executed_pipe_fp64"), 1},
          {percent("sm__pipe_tensor_cycles_active"), 1},
          {percent("sm__inst_executed_pipe_lsu"), 1}},
         Combine::busiest},
        {"memory_throughput", {{percent("dram__throughput"), 1}}, Combine::busiest},
        {executed_figure, {{"smsp__inst_executed.sum", 1}}},
        {instrumented_figure, {{"smsp__sass_inst_executed.sum", 1}}},
    });
    return figures;
}

std::vector<CounterFigure> chip_figures(const std::set<std::string> &known) {
    std::vector<CounterFigure> counted;
    for (CounterFigure &figure : wanted_figures(tensor_metrics(known))) {
        const auto lacking = [&](const std::pair<std::string, double> &term) {
            return known.count(term.first.substr(0, term.first.find('.'))) == 0;
        };
        if (figure.combine == CounterFigure::Combine::busiest)
            figure.terms.erase(std::remove_if(figure.terms.begin(), figure.terms.end(), lacking), figure.terms.end());
        if (!figure.terms.empty() && std::none_of(figure.terms.begin(), figure.terms.end(), lacking))
            counted.push_back(std::move(figure));
    }
    return counted;
}

CountedFigures evaluate_figures(const std::vector<CounterFigure> &figures, const std::vector<double> &values,
                                const std::vector<double> &floor) {
    CountedFigures counted;
    double executed = -1, instrumented = -1;
    size_t next = 0;
    for (const CounterFigure &figure : figures) {
        double value = 0;
        for (const auto &[metric, weight] : figure.terms) {
            if (next >= values.size()) return counted;  // a caller's bug: nothing rather than garbage
            if (figure.combine == CounterFigure::Combine::busiest)
                value = std::max(value, values[next]);
            else
                value += weight * (values[next] - (next < floor.size() ? floor[next] : 0));
            ++next;
        }
        value = std::max(0.0, value);
        if (figure.name == executed_figure)
            executed = value;
        else if (figure.name == instrumented_figure)
            instrumented = value;
        else
            counted.values.push_back({figure.name, value});
    }
    if (executed > 0 && instrumented >= 0 && instrumented < least_instrumented_share * executed) {
        counted.values.erase(std::remove_if(counted.values.begin(), counted.values.end(),
                                            [](const auto &figure) { return from_instrumented_code(figure.first); }),
                             counted.values.end());
        counted.caveat = format_text(
            "FP64/FP32/FP16 flops not counted: the profiler instrumented %.3g of the %.3g warp "
            "instructions executed (the rest ran in kernels it cannot patch: a CUDA graph's, made "
            "before counting, or the driver's own copies)",
            instrumented, executed);
    }
    return counted;
}

}  // namespace gpubench
