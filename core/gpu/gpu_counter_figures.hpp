// Which Nsight Compute metrics make gpubench's GPU counters, and how their values over one
// range become the figures recorded (hardware_counters.hpp names them). Kept apart from the
// CUPTI calls (gpu_counters_cupti.cpp) so that the arithmetic is tested without a GPU.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct CounterFigure {
    enum class Combine {
        count,    // a weighted sum of counts over the range, less the profiler's own floor
        busiest,  // the largest of its terms, each a % of peak (not floored)
    };
    std::string name;
    std::vector<std::pair<std::string, double>> terms;  // metric, weight
    Combine combine = Combine::count;
};

// The flops of the FP64, FP32 and FP16 pipes, counted from instrumented SASS: the figure and
// the precision letter of Nsight Compute's smsp__sass_thread_inst_executed_op_{d,f,h}*.
struct PipeFlops {
    const char *figure, *precision;
};
inline constexpr PipeFlops pipe_flops[] = {
    {"fp64_flops_per_run", "d"}, {"fp32_flops_per_run", "f"}, {"fp16_flops_per_run", "h"}};

// The tensor-core metrics of a chip (its base metrics `known`): the operations by source
// type, integer and sparsity ones left out, a refinement of a name kept not counted twice.
std::set<std::string> tensor_metrics(const std::set<std::string> &known);

// Every figure gpubench asks a chip for (tensor_metrics() as one figure's terms), two of them
// only to check the instrumented flops (see evaluate_figures).
std::vector<CounterFigure> wanted_figures(const std::set<std::string> &tensor_metrics);

// wanted_figures() as a chip with base metrics `known` counts them: a figure whose metrics
// it lacks is left out, except that a `busiest` one keeps the terms it has.
std::vector<CounterFigure> chip_figures(const std::set<std::string> &known);

struct CountedFigures {
    std::vector<std::pair<std::string, double>> values;  // figure name, value per run()
    std::string caveat;  // one line on figures left out, or ""
};

// The figures from each metric's value over the range (`values`, in the figures' term order)
// and over an empty range (`floor`). The pipes' flops come from patched SASS: where under 99%
// of the warp instructions executed were instrumented, they are left out with a caveat. Not
// patched: a CUDA graph made before the counting (solvebak's graph=1 counted 0 flops), and
// the driver's own copy kernels, which the check cannot tell apart: a copy's 0 flops go too.
CountedFigures evaluate_figures(const std::vector<CounterFigure> &figures, const std::vector<double> &values,
                                const std::vector<double> &floor);

}  // namespace gpubench
