// Runs pooled (runner report --pool): a drift slower than a run moves all of its spells alike,
// so one run cannot see it; runs pooled show it as a shift shared by each run, and the interval
// holds it. The noise's levels, the interval over simulated studies of drifting runs, and the
// report that pools files.
#include "report_documents.hpp"
#include "runner_process.hpp"
#include "series_noise.hpp"
#include "simulated_series.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

using namespace gpubench;
using namespace simulated_series;
using namespace report_documents;

namespace {

// Run `run` of a study: three spells (run_in_spells), the whole run moved by `drift_sd`
// (lognormal): the host's state over the run, which all of its spells share.
Series drifting_run(const std::string &name, const Truth &truth, double drift_sd, double spell_sd, size_t run,
                    std::mt19937_64 &random) {
    std::normal_distribution<double> normal(0.0, 1.0);
    const double drift = std::exp(drift_sd * normal(random));
    Series series = run_in_spells(name, [&](double n) { return truth(n) * drift; }, spell_sd, random);
    for (SeriesPoint &p : series.points) p.run = run;
    return series;
}

// `runs` runs of `name` pooled into one series, as the report pools files.
Series pooled_runs(const std::string &name, const Truth &truth, double drift_sd, size_t runs,
                   std::mt19937_64 &random) {
    Series pooled{name, {}};
    for (size_t run = 0; run < runs; ++run)
        for (const SeriesPoint &p : drifting_run(name, truth, drift_sd, 0.03, run, random).points)
            pooled.points.push_back(p);
    std::stable_sort(pooled.points.begin(), pooled.points.end(),
                     [](const SeriesPoint &a, const SeriesPoint &b) { return a.size < b.size; });
    return pooled;
}

}  // namespace

TEST_CASE("each run is spells of its own, and a shift its spells share is the drift between runs", "[crossover]") {
    // Three runs whose entries finished at the same times (each run's clock starts at 0), two
    // spells each; the runs apart by ±20%, their spells by 1%.
    const double run_shift[] = {0.8, 1.0, 1.2}, spell_shift[] = {0.99, 1.01};
    Series series{"numpy", {}};
    for (size_t run = 0; run < 3; ++run)
        for (size_t spell = 0; spell < 2; ++spell)
            for (int k = 0; k < 4; ++k) {  // a second apart, the spells 100 s apart
                const uint64_t size = uint64_t(std::pow(10, k + 2));
                const double t = cpu_time(double(size)) * run_shift[run] * spell_shift[spell];
                series.points.push_back({size, {t, t, t}, "", 100.0 * double(spell) + k, run});
            }
    std::stable_sort(series.points.begin(), series.points.end(),
                     [](const SeriesPoint &a, const SeriesPoint &b) { return a.size < b.size; });
    const CostModel model = fit_cost_model(fit_points(series));
    REQUIRE(model.fitted());
    const SeriesNoise noise = series_noise(series, model);
    CHECK(noise.runs == 3);
    CHECK(noise.spells == 6);
    CHECK(noise.spell_df() == 3);
    CHECK(noise.run_df() == 2);
    size_t mixed = 0;  // points whose spell is of another run (runs numbered as met: 0, 1, 2)
    for (size_t i = 0; i < series.points.size(); ++i) mixed += noise.run_of[noise.spell_of[i]] != series.points[i].run;
    CHECK(mixed == 0);
    CHECK(noise.run_sd == Approx(0.2).epsilon(0.15));  // log(1.2) ≈ -log(0.8) ≈ 0.2
    CHECK(noise.spell_sd == Approx(0.01414).epsilon(0.02));  // ±0.01 in log about each run's mean, over 3 df
    // One run alone: its spells only, and no drift between runs to see.
    std::erase_if(series.points, [](const SeriesPoint &p) { return p.run != 1; });
    const SeriesNoise alone = series_noise(series, fit_cost_model(fit_points(series)));
    CHECK((alone.runs == 1 && alone.spells == 2 && alone.run_sd == 0 && alone.spell_df() == 1));
}

TEST_CASE("runs pooled: the interval holds the drift between runs, which one run's cannot",
          "[crossover][simulation]") {
    // 100 pairs of studies, each 4 runs of 3 spells: the CPU's runs drift by 12% (sd), its
    // spells by 3%; the GPU's runs by 2%. A study's interval is for a repeat of all its runs.
    std::mt19937_64 random(21);
    size_t found = 0, held = 0, agreed = 0, single_found = 0, single_agreed = 0;
    for (int pair = 0; pair < 100; ++pair) {
        Crossover studies[2], singles[2];
        for (int i = 0; i < 2; ++i) {
            const Series gpu = pooled_runs("cuda", gpu_time, 0.02, 4, random);
            const Series cpu = pooled_runs("openmp", cpu_time, 0.12, 4, random);
            studies[i] = find_crossover(gpu, {cpu}, {200, uint64_t(pair + 1)});
            const auto first_run = [](Series s) {
                std::erase_if(s.points, [](const SeriesPoint &p) { return p.run != 0; });
                return s;
            };
            singles[i] = find_crossover(first_run(gpu), {first_run(cpu)}, {200, uint64_t(pair + 1)});
        }
        if (studies[0].verdict == CrossoverVerdict::from && studies[1].verdict == CrossoverVerdict::from) {
            found += 2;
            held += holds(studies[0], true_crossover) + holds(studies[1], true_crossover);
            agreed += holds(studies[0], studies[1].size.value) + holds(studies[1], studies[0].size.value);
        }
        if (singles[0].verdict == CrossoverVerdict::from && singles[1].verdict == CrossoverVerdict::from)
            single_found += 2,
                single_agreed += holds(singles[0], singles[1].size.value) + holds(singles[1], singles[0].size.value);
        CHECK(studies[0].runs == 4);
    }
    std::printf("runs pooled: of %zu studies of 4 drifting runs, %.1f%% hold the true n*, %.1f%% the other "
                "study's; one run alone holds the other's %.1f%% of %zu\n",
                found, 100.0 * double(held) / double(found), 100.0 * double(agreed) / double(found),
                100.0 * double(single_agreed) / double(single_found), single_found);
    CHECK(found >= 195);
    CHECK(double(held) / double(found) >= 0.93);
    CHECK(double(agreed) / double(found) >= 0.93);
    // The premise: a drift slower than a run escapes one run's interval.
    CHECK(double(single_agreed) / double(single_found) < 0.85);
}

TEST_CASE("runner report --pool: files of one machine become runs of one column, their answer pooled",
          "[crossover][report][cli]") {
    using namespace runner_process;
    // Two runs of one study, the CPU 15% slower in the second (the host's drift).
    const auto study = [](double cpu_drift) {
        std::vector<Entry> entries;
        for (uint64_t n : {100, 1000, 3000, 10000, 30000, 100000, 1000000}) {
            const double cpu = (0.5e-6 + double(n) * 1e-9) * cpu_drift, gpu = 10e-6 + double(n) * 1e-10;
            entries.push_back({"vecadd_omp", n, {cpu, cpu * 1.02, cpu * 0.98}});
            entries.push_back({"vecadd_cuda", n, {gpu, gpu * 1.01, gpu * 0.99}});
        }
        return results(entries);
    };
    const json first = study(1.0), second = study(1.15);
    const std::vector<WorkloadReport> reports = build_report({{"", typed(first)}, {"", typed(second)}}, {});
    REQUIRE(reports.size() == 1);
    REQUIRE(reports[0].columns.size() == 2);  // omp and cuda, each holding both runs
    for (const ReportColumn &c : reports[0].columns) CHECK(c.repeats.size() == c.points.size());
    CHECK(answer_of(reports[0], "cuda")->compute.runs == 2);

    const auto a = temp_results("pool_a"), b = temp_results("pool_b");
    std::ofstream(a) << first.dump();
    std::ofstream(b) << second.dump();
    const std::string files = a.string() + " " + b.string();
    const Outcome pooled = run_runner("report --pool " + files), apart = run_runner("report " + files),
                  refused = run_runner("report --pool --newest " + files);
    INFO(pooled.output + apart.output + refused.output);
    CHECK(pooled.status == 0);
    CHECK_THAT(pooled.output, Catch::Contains("95% intervals for a repeat of the 2 runs pooled") &&
                                  !Catch::Contains("(gpubench_cli_pool_a"));
    CHECK(apart.status == 0);  // without --pool, each file its own columns, named by its file
    CHECK_THAT(apart.output, Catch::Contains("(gpubench_cli_pool_a") && Catch::Contains("for a repeat run") &&
                                 !Catch::Contains("runs pooled"));
    CHECK(refused.status == 2);
    CHECK(refused.output == "runner report: error: --pool keeps every file's entries: it cannot go with --newest\n");
    std::filesystem::remove(a);
    std::filesystem::remove(b);
}
