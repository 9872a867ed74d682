// The runner's answer after a sweep (runner/crossover_search.hpp): --find-crossover's next round
// measures every backend of a workload between the sizes that bracket its crossover and stops
// once the interval is narrow; the answers go into the results file, which still reads.
#include "crossover_search.hpp"
#include "refine.hpp"
#include "report_documents.hpp"
#include "runner_process.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <random>

using namespace gpubench;
using namespace report_documents;

namespace {

// vecadd on a CPU that starts at once and a GPU with a launch's latency and ten times the
// throughput (they meet at 10,556), at `sizes`, each entry's samples off by 3% and its median
// off by `between`.
json vecadd_study(const std::vector<uint64_t> &sizes, double between, uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    const auto samples = [&](double t) {
        std::vector<double> s;
        const double entry = t * std::exp(between * normal(random));
        for (int i = 0; i < 15; ++i) s.push_back(entry * std::exp(0.03 * normal(random)));
        return s;
    };
    std::vector<Entry> entries;
    for (uint64_t n : sizes) {
        entries.push_back({"vecadd_omp", n, samples(0.5e-6 + double(n) * 1e-9)});
        entries.push_back({"vecadd_cuda", n, samples(10e-6 + double(n) * 1e-10)});
    }
    return results(entries);
}

PluginInfo plugin(const std::string &name, uint64_t max_size) {
    PluginInfo p;
    p.name = name, p.workload = "vecadd", p.backend = name.substr(7), p.max_size = max_size;
    return p;
}

}  // namespace

TEST_CASE("a round of --find-crossover: every backend of the workload between the sizes bracketing n*",
          "[crossover][runner]") {
    const std::vector<uint64_t> sparse{100, 1000, 100000, 1000000};
    const std::vector<WorkloadReport> reports = build_report({{"", typed(vecadd_study(sparse, 0.05, 1))}}, {});
    REQUIRE(reports.size() == 1);
    INFO(answer_line(reports[0]));
    const Crossover &c = answer_of(reports[0], "cuda")->compute;
    REQUIRE(c.verdict == CrossoverVerdict::from);
    REQUIRE_FALSE(c.within(crossover_precision));  // four sizes: too few for a narrow interval
    const PluginInfo omp = plugin("vecadd_omp", 1u << 30), cuda = plugin("vecadd_cuda", 1u << 30);
    const PluginInfo small = plugin("vecadd_small", 20000);  // its range ends below some of the sizes
    const PluginInfo other = [] { PluginInfo p = plugin("vecadd_numpy", 1u << 30); p.workload = "sort"; return p; }();
    const SweepEntries planned{
        {&omp, 100, ""}, {&omp, 1000, ""}, {&cuda, 100, ""}, {&small, 100, ""}, {&other, 100, ""}};
    const SweepEntries round = next_crossover_round(reports, planned);
    REQUIRE_FALSE(round.empty());
    std::set<std::string> plugins;
    for (const SweepEntry &e : round) {
        plugins.insert(e.plugin->name);
        CHECK((e.size > 1000 && e.size < 100000));
        CHECK(std::find(sparse.begin(), sparse.end(), e.size) == sparse.end());
        CHECK(e.out_of_range.empty());
    }
    CHECK(plugins.count("vecadd_omp"));
    CHECK(plugins.count("vecadd_cuda"));
    CHECK_FALSE(plugins.count("vecadd_numpy"));  // another workload
    // Each plugin once per size, whatever how many of its entries were planned.
    CHECK(std::count_if(round.begin(), round.end(), [&](const SweepEntry &e) { return e.plugin == &omp; }) ==
          std::count_if(round.begin(), round.end(), [&](const SweepEntry &e) { return e.plugin == &cuda; }));
    for (const SweepEntry &e : round)
        if (e.plugin == &small) CHECK(e.size <= 20000);

    // Measured densely around n* with little noise between entries: nothing left to add.
    std::vector<uint64_t> dense = sparse;
    for (uint64_t n : {4000, 6000, 8000, 9000, 10500, 12000, 14000, 17000, 25000, 40000}) dense.push_back(n);
    std::sort(dense.begin(), dense.end());
    const std::vector<WorkloadReport> narrow = build_report({{"", typed(vecadd_study(dense, 0.005, 2))}}, {});
    INFO(answer_line(narrow[0]));
    CHECK(answer_of(narrow[0], "cuda")->compute.within(crossover_precision));
    CHECK(next_crossover_round(narrow, planned).empty());
}

TEST_CASE("the answers go into the results file, which still reads, and lead the console's summary",
          "[crossover][runner]") {
    const json document = vecadd_study({100, 1000, 10000, 100000, 1000000}, 0.02, 3);
    const auto path = runner_process::temp_results("answers_recorded");
    std::filesystem::remove(path);
    json header = document;
    header["plugins"] = json::array(), header["entries"] = json::array();
    ResultsFile file(path, header);
    for (const json &plugin : document["plugins"]) file.add_plugin(plugin);
    for (const json &entry : document["entries"]) file.add_entry(entry);
    const std::vector<WorkloadReport> reports = report_so_far(file, path.string());
    record_answers(file, reports);
    file.finish();
    const json written = read_results_json(path);
    REQUIRE(written.at("answers").size() == 1);
    CHECK(written["answers"][0]["workload"] == "vecadd");
    CHECK_THAT(written["answers"][0]["line"].get<std::string>(),
               Catch::StartsWith("vecadd: end to end, cuda wins from "));
    CHECK(written["answers"][0]["models"]["omp"]["compute"]["inputs"].size() == 5);
    std::ostringstream out;
    print_answers(out, reports);
    CHECK_THAT(out.str(),
               Catch::StartsWith("\nThe answer (95% intervals") && Catch::Contains("  vecadd: end to end, "));
    std::ostringstream none;
    print_answers(none, build_report({{"", typed(results({{"sort_naive", 1000, around(1e-3)}}))}}, {}));
    CHECK(none.str().empty());  // no GPU backend, no answer
}

TEST_CASE("the runner refuses --find-crossover beside --shard and --profile", "[crossover][runner]") {
    using namespace runner_process;
    const Outcome shard = run_runner("--plugin 'vecadd_*' --find-crossover --shard 0/2");
    CHECK(shard.status == 2);
    CHECK_THAT(shard.output, Catch::Contains("--find-crossover chooses sizes from the whole sweep's entries"));
    const Outcome profile = run_runner("--plugin 'vecadd_*' --find-crossover --profile");
    CHECK(profile.status == 2);
    CHECK_THAT(profile.output, Catch::Contains("--find-crossover has no place beside it"));
}

TEST_CASE("the energy crossover: from each entry's node power over its runs, and why none without a CPU source",
          "[crossover][energy]") {
    // The CPU draws 150 W in its packages while it computes (GPU board idle at 70 W), the GPU
    // entry 300 W on its board and 60 W in the CPU packages: per result the GPU spends 360 W x
    // its time, the CPU 220 W x its, so the GPU uses less energy from where 360 t_gpu < 220 t_cpu.
    json document = vecadd_study({100, 1000, 3000, 10000, 30000, 100000, 1000000}, 0.01, 4);
    document["energy"] = {{"gpu", {{"source", "NVML energy counter of GPU 0 (test)"}, {"idle_w", 70.0}}},
                          {"cpu", {{"source", "powercap intel-rapl: 1 package (test)"}, {"idle_w", 20.0}}}};
    for (json &entry : document["entries"]) {
        const bool gpu = entry["plugin"] == "vecadd_cuda";
        json &resources = entry["resources"];
        resources["sampling_wall_s"] = 1.0;
        resources["cpu_energy"] = {{"joules", gpu ? 60.0 : 150.0}, {"seconds", 1.0}};
        if (gpu) {
            entry["devices"] = json::array({{{"index", 0}, {"name", "NVIDIA H100 80GB HBM3"}}});
            resources["gpu_energy"] = {{"joules", 300.0}, {"seconds", 1.0}};
        }
    }
    const std::vector<WorkloadReport> reports = build_report({{"", typed(document)}}, {});
    INFO(answer_line(reports.at(0)));
    const Crossover &energy = answer_of(reports[0], "cuda")->energy;
    REQUIRE(energy.verdict == CrossoverVerdict::from);
    // 360 (10e-6 + 1e-10 n) = 220 (0.5e-6 + 1e-9 n): n = (3.6e-3 - 0.11e-3) / (220e-9 - 36e-9) = 18,967.
    CHECK(energy.size.value == Approx(18967).epsilon(0.1));
    CHECK((energy.size.lo <= 18967 && 18967 <= energy.size.hi));
    CHECK_THAT(answer_line(reports[0]), Catch::Contains(", and uses less energy from 1"));
    CHECK(reports[0].columns.front().models.energy.fitted());

    // The same entries without a CPU source: no node energy, and the line says why.
    document.erase("energy");
    for (json &entry : document["entries"]) entry["resources"].erase("cpu_energy");
    const std::vector<WorkloadReport> without = build_report({{"", typed(document)}}, {});
    CHECK(answer_of(without[0], "cuda")->energy.verdict == CrossoverVerdict::unknown);
    CHECK_THAT(answer_line(without[0]),
               Catch::Contains("; no energy crossover (no node energy per result: no CPU package energy counter"));
}
