// The arithmetic that turns Nsight Compute metrics into gpubench's GPU counters
// (gpu_counter_figures.hpp), with made-up metric values: no GPU needed.
#include "gpu_counter_figures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

using namespace gpubench;

namespace {

// Every base metric the figures name, as a chip that counts them all lists them.
std::set<std::string> every_metric() {
    std::set<std::string> known = {"sm__ops_path_tensor_src_fp16", "sm__ops_path_tensor_src_fp16_dst_fp32",
                                    "sm__ops_path_tensor_src_int8", "sm__ops_path_tensor_src_fp64_sparsity_on"};
    for (const CounterFigure &figure : wanted_figures({}))
        for (const auto &[metric, weight] : figure.terms) known.insert(metric.substr(0, metric.find('.')));
    return known;
}

const CounterFigure *named(const std::vector<CounterFigure> &figures, const std::string &name) {
    for (const CounterFigure &figure : figures)
        if (figure.name == name) return &figure;
    return nullptr;
}

// evaluate_figures() on `figures` where every metric reads `value`, except those in `set`;
// the floor is `floor` for every metric.
CountedFigures evaluate(const std::vector<CounterFigure> &figures, double value,
                        const std::map<std::string, double> &set, double floor = 0) {
    std::vector<double> values, floors;
    for (const CounterFigure &figure : figures)
        for (const auto &[metric, weight] : figure.terms) {
            const auto it = set.find(metric);
            values.push_back(it == set.end() ? value : it->second);
            floors.push_back(floor);
        }
    return evaluate_figures(figures, values, floors);
}

std::map<std::string, double> as_map(const CountedFigures &counted) {
    return {counted.values.begin(), counted.values.end()};
}

}  // namespace

TEST_CASE("GPU counter figures: the tensor metrics are the floating-point sources, each once", "[counters]") {
    const std::set<std::string> tensor = tensor_metrics(every_metric());
    CHECK(tensor == std::set<std::string>{"sm__ops_path_tensor_src_fp16"});  // its _dst_fp32 refines it
}

TEST_CASE("GPU counter figures: what a chip lacks is left out, a busiest figure keeps the units it has", "[counters]") {
    std::set<std::string> known = every_metric();
    REQUIRE(named(chip_figures(known), "tensor_flops_per_run") != nullptr);
    known.erase("smsp__sass_thread_inst_executed_op_dfma_pred_on");
    known.erase("sm__pipe_tensor_cycles_active");
    const std::vector<CounterFigure> figures = chip_figures(known);
    CHECK(named(figures, "fp64_flops_per_run") == nullptr);  // a sum needs all its terms
    CHECK(named(figures, "fp32_flops_per_run") != nullptr);
    const CounterFigure *sm = named(figures, "sm_throughput");
    REQUIRE(sm != nullptr);
    CHECK(sm->terms.size() == 3);
    known.clear();
    CHECK(chip_figures(known).empty());
}

TEST_CASE("GPU counter figures: counts less the floor, an FMA as two flops, the L2 less its fabric, the busiest unit",
          "[counters]") {
    const std::vector<CounterFigure> figures = chip_figures(every_metric());
    const std::map<std::string, double> set = {
        {"dram__bytes_read.sum", 1000},
        {"lts__t_bytes.sum", 6400},
        {"lts__t_sectors_srcunit_ltcfabric.sum", 50},
        {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 110},
        {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 30},
        {"smsp__inst_executed.sum", 500},
        {"smsp__sass_inst_executed.sum", 500},
        {"smsp__issue_active.avg.pct_of_peak_sustained_elapsed", 40},
        {"sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed", 72.5},
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 91},
    };
    const CountedFigures counted = evaluate(figures, 10, set, 10);
    const std::map<std::string, double> values = as_map(counted);
    CHECK(counted.caveat.empty());
    CHECK(values.at("dram_read_bytes_per_run") == 990);
    CHECK(values.at("dram_write_bytes_per_run") == 0);
    CHECK(values.at("l2_bytes_per_run") == 6390 - 32 * 40);
    CHECK(values.at("fp32_flops_per_run") == 2 * 100 + 20 + 0);
    CHECK(values.at("sm_throughput") == 72.5);  // percentages are not floored
    CHECK(values.at("memory_throughput") == 91);
    CHECK(values.count("warp_instructions") == 0);  // checked, not recorded
}

TEST_CASE("GPU counter figures: where the profiler instrumented under 99% of the instructions, the pipes' flops are "
          "left out with a caveat",
          "[counters]") {
    const std::vector<CounterFigure> figures = chip_figures(every_metric());
    const auto counted = [&](double executed, double instrumented) {
        return evaluate(figures, 100, {{"smsp__inst_executed.sum", executed}, {"smsp__sass_inst_executed.sum", instrumented}});
    };
    SECTION("all of them, or 99%: every figure") {
        for (const double instrumented : {1000.0, 990.0}) {
            const CountedFigures all = counted(1000, instrumented);
            CHECK(all.caveat.empty());
            CHECK(as_map(all).count("fp64_flops_per_run") == 1);
        }
    }
    SECTION("none of them (a graph's kernels alone)") {
        const CountedFigures none = counted(1000, 0);
        const std::map<std::string, double> values = as_map(none);
        for (const char *left_out : {"fp64_flops_per_run", "fp32_flops_per_run", "fp16_flops_per_run"})
            CHECK(values.count(left_out) == 0);
        for (const char *kept : {"tensor_flops_per_run", "dram_read_bytes_per_run", "sm_throughput"})
            CHECK(values.count(kept) == 1);
        CHECK(none.caveat == "FP64/FP32/FP16 flops not counted: the profiler instrumented 0 of the 1e+03 warp "
                             "instructions executed (the rest ran in kernels it cannot patch: a CUDA graph's, made "
                             "before counting, or the driver's own copies)");
    }
    SECTION("a share of them") {
        CHECK_THAT(counted(1000, 600).caveat, Catch::Contains(" instrumented 600 of the 1e+03 warp instructions "));
    }
    SECTION("no instruction at all (a copy): nothing to check") {
        CHECK(counted(0, 0).caveat.empty());
    }
}
