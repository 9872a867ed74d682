// The answer's statistics (core/crossover): the cost model recovers known series and its
// breaks, the crossover and its verdicts, the 95% interval's coverage over simulated sweeps with
// a known crossover (noise within entries and between them, as a shared host gives), and the
// search that adds sizes until the interval is narrow.
#include "cost_model.hpp"
#include "crossover.hpp"
#include "refine.hpp"
#include "simulated_series.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

using namespace gpubench;
using namespace simulated_series;

TEST_CASE("a cost model recovers a latency plus size over throughput", "[crossover]") {
    std::mt19937_64 random(3);
    const Series s = simulated("cpu", cpu_time, log_sizes(10, 1e7, 13), 0, 0, random);
    const CostModel model = fit_cost_model(fit_points(s));
    REQUIRE(model.fitted());
    CHECK(model.latency == Approx(0.5e-6).epsilon(0.02));
    CHECK(model.exponent == Approx(1).epsilon(0.01));
    CHECK(model.at(1e5) == Approx(cpu_time(1e5)).epsilon(0.01));
    CHECK(model.leave_out_sizes == 11);
    CHECK(model.leave_out_max_error < 0.02);
    CHECK(model.residual_df() == 10);
}

TEST_CASE("a cost model breaks where the working set leaves a cache level", "[crossover]") {
    // Four times slower per element once out of cache (above 10^5): one model cannot follow.
    const Truth cached = [](double n) { return 1e-6 + (n < 1e5 ? n : 1e5 + 4 * (n - 1e5)) * 1e-10; };
    Series s{"cpu", {}};
    for (uint64_t size : log_sizes(100, 1e8, 13))
        s.points.push_back({size, {cached(double(size))}, size <= 1e5 ? "L2" : "DRAM"});
    const CostModel model = fit_cost_model(fit_points(s));
    REQUIRE(model.knots.size() == 1);
    CHECK(model.knots[0] == Approx(1e5).epsilon(0.01));
    CHECK(model.leave_out_max_error < 0.05);
    CHECK(model.at(3e7) == Approx(cached(3e7)).epsilon(0.02));
    // Without the levels, no break, and the left-out sizes say the fit is worse.
    for (SeriesPoint &p : s.points) p.level.clear();
    const CostModel plain = fit_cost_model(fit_points(s));
    CHECK(plain.knots.empty());
    CHECK(plain.leave_out_max_error > model.leave_out_max_error);
}

TEST_CASE("too few sizes give no model and an unknown crossover that says why", "[crossover]") {
    std::mt19937_64 random(4);
    const Series few = simulated("gpu", gpu_time, {100, 1000}, 0.01, 0, random);
    CHECK_FALSE(fit_cost_model(fit_points(few)).fitted());
    const Crossover c = find_crossover(few, {simulated("cpu", cpu_time, log_sizes(10, 1e6, 6), 0.01, 0, random)});
    CHECK(c.verdict == CrossoverVerdict::unknown);
    CHECK(c.why.find("fewer than 3 sizes") != std::string::npos);
}

TEST_CASE("the crossover of noiseless series is where they meet; never and always say so", "[crossover]") {
    std::mt19937_64 random(5);
    const auto sizes = log_sizes(100, 1e6, 9);
    const Series gpu = simulated("cuda", gpu_time, sizes, 0, 0, random);
    const Series cpu = simulated("openmp", cpu_time, sizes, 0, 0, random);
    const Crossover c = find_crossover(gpu, {cpu});
    REQUIRE(c.verdict == CrossoverVerdict::from);
    CHECK(c.size.value == Approx(true_crossover).epsilon(0.01));
    CHECK(c.best_cpu == "openmp");
    CHECK(c.margin.value == Approx(cpu_time(1e6) / gpu_time(1e6)).epsilon(0.01));
    const Crossover never = find_crossover(gpu, {simulated("openmp", cpu_time, log_sizes(100, 5000, 6), 0, 0, random)});
    CHECK(never.verdict == CrossoverVerdict::never);
    CHECK(never.margin.value < 1);
    const Crossover always = find_crossover(gpu, {simulated("openmp", cpu_time, log_sizes(3e4, 1e6, 6), 0, 0, random)});
    CHECK(always.verdict == CrossoverVerdict::always);
    CHECK(always.margin.value > 1);
}

TEST_CASE("the best CPU series is taken at each size, within the sizes it measured", "[crossover]") {
    std::mt19937_64 random(6);
    // A CPU loop fastest for small sizes, measured only up to 10^4, and a slower-starting threaded one.
    const Truth loop = [](double n) { return 0.1e-6 + n * 3e-9; };
    const Series gpu = simulated("cuda", gpu_time, log_sizes(100, 1e6, 9), 0, 0, random);
    const Series small = simulated("naive", loop, log_sizes(100, 1e4, 5), 0, 0, random);
    const Series threaded = simulated("openmp", cpu_time, log_sizes(100, 1e6, 9), 0, 0, random);
    const Crossover c = find_crossover(gpu, {small, threaded});
    REQUIRE(c.verdict == CrossoverVerdict::from);
    CHECK(c.size.value == Approx(true_crossover).epsilon(0.02));  // the loop is slower than openmp there
    CHECK(c.best_cpu == "openmp");
}

TEST_CASE("the 95% interval holds the true crossover in at least 93% of 1000 simulated sweeps",
          "[crossover][simulation]") {
    // Nine sizes over four decades, 15 samples each: 4% noise within an entry, and between
    // entries 5% on the CPU (a shared 16-core host) and 1% on the GPU.
    std::mt19937_64 random(7);
    const auto sizes = log_sizes(100, 1e6, 9);
    size_t held = 0, found = 0;
    std::vector<double> widths;
    for (int sweep = 0; sweep < 1000; ++sweep) {
        const Series gpu = simulated("cuda", gpu_time, sizes, 0.04, 0.01, random);
        const Series cpu = simulated("openmp", cpu_time, sizes, 0.04, 0.05, random);
        const Crossover c = find_crossover(gpu, {cpu}, {200, uint64_t(sweep + 1)});
        if (c.verdict != CrossoverVerdict::from) continue;
        ++found;
        held += c.size.lo <= true_crossover && true_crossover <= c.size.hi;
        widths.push_back(c.size.hi / c.size.lo);
    }
    std::sort(widths.begin(), widths.end());
    const double coverage = double(held) / 1000, median_width = widths[widths.size() / 2];
    std::printf("crossover interval: %.1f%% of 1000 sweeps hold the true n*; median hi/lo %.2f\n", 100 * coverage,
                median_width);
    CHECK(found >= 990);
    CHECK(coverage >= 0.93);
    // Not by being uninformative: the typical interval is within a factor of two end to end.
    CHECK(median_width < 2.0);
}

TEST_CASE("sizes to refine lie between the sizes bracketing n*, or within a near tie's reach; a narrow interval "
          "needs none",
          "[crossover]") {
    Crossover c;
    c.verdict = CrossoverVerdict::from;
    c.smallest = 100, c.largest = 1e6;
    c.size = {10000, 3000, 40000};
    const std::vector<uint64_t> measured{100, 1000, 100000, 1000000};
    const std::vector<uint64_t> added = sizes_to_refine(c, measured);
    REQUIRE(added.size() == 3);
    for (uint64_t size : added) CHECK((size > 3000 && size < 40000));
    c.size = {10000, 8000, 12000};
    CHECK(sizes_to_refine(c, measured).empty());
    // always and never: nothing to narrow where no repeat run could cross within the sizes...
    c.verdict = CrossoverVerdict::never;
    c.size = {INFINITY, 1e6, INFINITY};
    CHECK(sizes_to_refine(c, measured).empty());
    c.verdict = CrossoverVerdict::always;
    c.size = {0, 0, 110};
    CHECK(sizes_to_refine(c, measured).empty());
    // ...and sizes within the reach of a near tie where one could.
    c.size = {0, 0, 900};
    REQUIRE_FALSE(sizes_to_refine(c, measured).empty());
    for (uint64_t size : sizes_to_refine(c, measured)) CHECK((size > 100 && size < 900));
    // A never's reach lies among the dearest sizes: no round for it.
    c.verdict = CrossoverVerdict::never;
    c.size = {INFINITY, 3e5, INFINITY};
    CHECK_FALSE(c.within(crossover_precision));
    CHECK(sizes_to_refine(c, measured).empty());
    // No room between the bracket's sizes: beside n*, none within 2% of a measured size.
    c.verdict = CrossoverVerdict::from;
    c.size = {10000, 5000, 20000};
    for (uint64_t size : sizes_to_refine(c, {100, 9900, 10100, 1000000}))
        CHECK(std::abs(double(size) / 10000 - 1) >= 0.04);
}

TEST_CASE("measuring where sizes_to_refine says narrows the interval to 25% around the truth", "[crossover]") {
    std::mt19937_64 random(8);
    std::vector<uint64_t> sizes = log_sizes(100, 1e6, 5);
    Crossover c;
    size_t rounds = 0;
    for (; rounds < 8; ++rounds) {
        const Series gpu = simulated("cuda", gpu_time, sizes, 0.04, 0.01, random);
        const Series cpu = simulated("openmp", cpu_time, sizes, 0.04, 0.05, random);
        c = find_crossover(gpu, {cpu});
        const std::vector<uint64_t> more = sizes_to_refine(c, sizes);
        if (more.empty()) break;
        sizes.insert(sizes.end(), more.begin(), more.end());
        std::sort(sizes.begin(), sizes.end());
    }
    INFO("rounds " << rounds << ", sizes " << sizes.size() << ", n* " << c.size.value << " (" << c.size.lo << "-"
                   << c.size.hi << ")");
    CHECK(c.within(crossover_precision));
    CHECK(rounds < 8);
    CHECK((c.size.lo <= true_crossover && true_crossover <= c.size.hi));
}

TEST_CASE("a backend that changes its algorithm jumps: the crossover is the last, past the jump", "[crossover]") {
    // A GPU sort: 10 us up to 4,800 keys in one block, 40 us after (its multi-pass sort); the CPU
    // meets it at 3,000 and again at 10,000 (0.5 us + 4 ns a key). From 10,000 on the GPU wins.
    const Truth gpu = [](double n) { return (n <= 4800 ? 10e-6 : 40e-6) + n * 1e-11; };
    const Truth cpu = [](double n) { return 0.5e-6 + n * 4e-9; };
    std::mt19937_64 random(9);
    std::vector<uint64_t> sizes = log_sizes(100, 1e6, 13);
    for (uint64_t n : {3000, 4000, 4500, 5200, 6000, 8000, 9000, 11000, 12500}) sizes.push_back(n);
    std::sort(sizes.begin(), sizes.end());
    const Series g = simulated("thrust", gpu, sizes, 0.02, 0.01, random);
    const Series c = simulated("omp", cpu, sizes, 0.02, 0.02, random);
    const CostModel model = fit_cost_model(fit_points(g));
    REQUIRE(model.steps.size() == 1);
    CHECK((model.steps[0] > 4500 && model.steps[0] < 5200));
    CHECK(model.jumps[0] == Approx(30e-6).epsilon(0.15));
    const Crossover crossing = find_crossover(g, {c});
    REQUIRE(crossing.verdict == CrossoverVerdict::from);
    const double last = (40e-6 - 0.5e-6) / (4e-9 - 1e-11);  // 9,900
    CHECK(crossing.size.value == Approx(last).epsilon(0.05));
    // Smooth series get no step (the coverage case above: 5 of its 2000 fits have one).
    const Series smooth = simulated("omp", cpu_time, log_sizes(100, 1e6, 9), 0.04, 0.05, random);
    CHECK(fit_cost_model(fit_points(smooth)).steps.empty());
}

TEST_CASE("between runs: each of two runs' n* lies in the other's interval, and both hold the truth",
          "[crossover][simulation]") {
    // 250 pairs of runs, the CPU's spells moved by 8% (sd) and the GPU's by 2%.
    std::mt19937_64 random(10);
    size_t found = 0, held = 0, agreed = 0, both_ways = 0;
    for (int pair = 0; pair < 250; ++pair) {
        Crossover runs[2];
        for (Crossover &c : runs)
            c = find_crossover(run_in_spells("cuda", gpu_time, 0.02, random),
                               {run_in_spells("openmp", cpu_time, 0.08, random)}, {200, uint64_t(pair + 1)});
        if (runs[0].verdict != CrossoverVerdict::from || runs[1].verdict != CrossoverVerdict::from) continue;
        found += 2;
        held += holds(runs[0], true_crossover) + holds(runs[1], true_crossover);
        const bool first = holds(runs[0], runs[1].size.value), second = holds(runs[1], runs[0].size.value);
        agreed += first + second, both_ways += first && second;
    }
    std::printf("between runs: %.1f%% of 500 runs hold the true n*; %.1f%% hold the other run's n*; "
                "%.1f%% of 250 pairs agree both ways\n",
                100.0 * double(held) / 500, 100.0 * double(agreed) / 500, 100.0 * double(both_ways) / 250);
    CHECK(found >= 495);
    CHECK(double(held) / 500 >= 0.93);
    CHECK(double(agreed) / 500 >= 0.93);
}

TEST_CASE("a near tie below n* is inside the interval: two runs that read it differently agree", "[crossover]") {
    // A CPU at 5.0 µs plus 1 ns a key against a GPU at 5.2 µs plus 0.01 ns: 2% apart at 100,
    // they cross at 202; 4% noise in an entry cannot tell 100 to 300 apart.
    const Truth cpu = [](double n) { return 5.0e-6 + n * 1e-9; }, gpu = [](double n) { return 5.2e-6 + n * 1e-11; };
    const double crossing = 0.2e-6 / (1e-9 - 1e-11);
    std::mt19937_64 random(12);
    const auto sizes = log_sizes(100, 1e5, 10);
    std::vector<Crossover> runs;
    for (int run = 0; run < 40; ++run)
        runs.push_back(find_crossover(simulated("cuda", gpu, sizes, 0.04, 0.02, random),
                                      {simulated("omp", cpu, sizes, 0.04, 0.02, random)}, {200, uint64_t(run + 1)}));
    // n* as a run reads it: "always" is from the smallest size.
    const auto n_star = [](const Crossover &c) { return c.verdict == CrossoverVerdict::always ? c.smallest : c.size.value; };
    size_t held = 0, agreed = 0, below_smallest = 0, always = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
        held += holds(runs[i], crossing);
        agreed += holds(runs[i], n_star(runs[i ^ 1]));  // the pair's other run
        below_smallest += runs[i].size.lo == 0;
        always += runs[i].verdict == CrossoverVerdict::always;
    }
    std::printf("near tie: %zu of 40 runs say always; %zu hold the truth, %zu the other run's n*\n", always, held,
                agreed);
    CHECK(held >= 38);
    CHECK(agreed >= 38);
    CHECK(below_smallest >= 38);
    // A clear crossing keeps a tight interval: no tie reaches the smallest size.
    const Crossover clear = find_crossover(simulated("cuda", gpu_time, log_sizes(100, 1e6, 9), 0.04, 0.01, random),
                                           {simulated("omp", cpu_time, log_sizes(100, 1e6, 9), 0.04, 0.05, random)});
    REQUIRE(clear.verdict == CrossoverVerdict::from);
    CHECK(clear.size.lo > 100);
    CHECK(clear.size.hi / clear.size.lo < 2.0);
}
