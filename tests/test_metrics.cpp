// Metrics as an open set (docs/metrics.md): a plugin's metrics cross the ABI in either layout
// with their direction; every writer shows a metric it has never heard of; compare and the
// history judge metrics by their direction.
#include "compare.hpp"
#include "entry_json.hpp"
#include "measure.hpp"
#include "metric_format.hpp"
#include "report.hpp"
#include "report_formats.hpp"
#include "report_html.hpp"
#include "results.hpp"
#include "runner_process.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <functional>
#include <sstream>

using namespace gpubench;
using namespace runner_process;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

Measurement measured(const std::string &fixture, uint64_t size) {
    SteadyClockTimer timer;
    return measure_entry(test_support::load_fixture(fixture), size, test_support::sampled(3, 3), timer);
}

// A results document of two CPU backends of one workload at two sizes, each entry with the
// metrics given (by plugin), changed by `adjust`, written as the runner writes one and read back typed.
ResultsDocument document_with(const std::map<std::string, std::vector<Metric>> &metrics,
                              const std::function<void(EntryResult &)> &adjust = {}) {
    json doc = results_header({"runner"}, GpuInfo{}, MeasureOptions{}, std::nullopt);
    doc["plugins"] = json::array();
    doc["entries"] = json::array();
    for (const auto &[plugin, list] : metrics) {
        doc["plugins"].push_back({{"name", plugin}, {"workload", "sort"}, {"backend", plugin.substr(5)},
                                  {"device_kind", "cpu"}, {"description", ""}, {"size_meaning", "n"},
                                  {"version", "1.0"}, {"abi", "1.8"}, {"build_info", ""}, {"file", plugin + ".so"}});
        for (uint64_t size : {1000, 2000}) {
            EntryResult e;
            e.plugin = plugin;
            e.size = size;
            e.status = EntryStatus::ok;
            e.timing.clock = "steady_clock";
            e.timing.samples.run = {1e-3, 1.1e-3, 0.9e-3};
            for (const Metric &m : list) e.metrics.push_back({m});
            for (EntryMetric &m : e.metrics) m.value *= static_cast<double>(size) / 1000;
            if (adjust) adjust(e);
            doc["entries"].push_back(json(e));
        }
    }
    return results_document(doc, "test document");
}

ReportInput input_of_document(const ResultsDocument &document) {
    ReportInput input;
    input.labelled = {{"", document}};
    input.baseline_backend = "naive";
    input.reports = build_report(input.labelled, {});
    return input;
}

const Metric accuracy{"test_accuracy", 90, "%", "MNIST", GPUBENCH_BETTER_HIGHER};
const Metric faults{"faults_per_run", 4, "", "", GPUBENCH_BETTER_LOWER};
const Metric plain{"iterations", 7, "", "", GPUBENCH_BETTER_UNSTATED};

}  // namespace

TEST_CASE("a metric is judged by its direction, a change from 0 beyond every threshold", "[metrics]") {
    CHECK(metric_worse(GPUBENCH_BETTER_HIGHER, 90, 80, 0.05));
    CHECK_FALSE(metric_worse(GPUBENCH_BETTER_HIGHER, 90, 88, 0.05));  // 2%: within
    CHECK(metric_better(GPUBENCH_BETTER_HIGHER, 90, 99, 0.05));
    CHECK(metric_worse(GPUBENCH_BETTER_LOWER, 4, 5, 0.05));
    CHECK_FALSE(metric_worse(GPUBENCH_BETTER_LOWER, 4, 3, 0.05));
    CHECK(metric_better(GPUBENCH_BETTER_LOWER, 4, 3, 0.05));
    CHECK(metric_worse(GPUBENCH_BETTER_LOWER, 0, 1, 0.5));
    CHECK_FALSE(metric_worse(GPUBENCH_BETTER_LOWER, 0, 0, 0));
    CHECK(metric_worse(GPUBENCH_BETTER_HIGHER, -1, -2, 0.05));  // a negative metric falls too
    CHECK_FALSE(metric_worse(GPUBENCH_BETTER_UNSTATED, 90, 0, 0.05));
    CHECK_FALSE(metric_better(GPUBENCH_BETTER_UNSTATED, 0, 90, 0.05));
    CHECK(metric_moved(90, 80, 0.05));
    CHECK(metric_moved(90, 99, 0.05));
    CHECK_FALSE(metric_moved(90, 88, 0.05));
    CHECK(metric_moved(0, 1, 10));
    CHECK(metric_text(accuracy) == "test_accuracy 90 % ↑ (MNIST)");
    CHECK(metric_text(plain) == "iterations 7");
    CHECK(metric_heading(faults) == "faults_per_run ↓");
}

TEST_CASE("a metric's direction is written as higher or lower, and any other is refused", "[metrics]") {
    const json written = json(accuracy);
    CHECK(written.at("better") == "higher");
    CHECK_FALSE(json(plain).contains("better"));
    CHECK(written.get<Metric>().better == GPUBENCH_BETTER_HIGHER);
    CHECK(json(faults).get<Metric>().better == GPUBENCH_BETTER_LOWER);
    CHECK(json(plain).get<Metric>().better == GPUBENCH_BETTER_UNSTATED);
    json sideways = written;
    sideways["better"] = "sideways";
    CHECK_THROWS_WITH(sideways.get<Metric>(), Catch::Contains("better is \"sideways\""));
    // An entry's metric the runner measured says so; a plugin's leaves it out.
    const json measured = json(EntryMetric{faults, true});
    CHECK(measured.at("measured") == true);
    CHECK(measured.get<EntryMetric>().measured);
    CHECK_FALSE(json(EntryMetric{faults}).contains("measured"));
    CHECK_FALSE(json(EntryMetric{faults}).get<EntryMetric>().measured);
}

TEST_CASE("metrics cross the ABI in a 1.8 plugin's layout and in an older plugin's", "[metrics][abi]") {
    // fixture_v1_4 writes three metrics by the 192-byte stride of gpubench_metric before 1.8.
    const Measurement old = measured("fixture_v1_4.so", 10);
    REQUIRE(old.status == EntryStatus::ok);
    REQUIRE(old.metrics.size() >= 3);
    for (size_t i = 0; i < 3; ++i) {
        INFO(i);
        CHECK(old.metrics[i].name == "old_layout_" + std::to_string(i));
        CHECK(old.metrics[i].value == 10.0 + static_cast<double>(i));
        CHECK(old.metrics[i].unit == "s");
        CHECK(old.metrics[i].text == "element " + std::to_string(i));
        CHECK(old.metrics[i].better == GPUBENCH_BETTER_UNSTATED);
    }
    // fixture_history, built against 1.8: its direction arrives; one that is no
    // gpubench_better fails the entry, naming it.
    const Measurement current = measured("fixture_history.so", 4);
    REQUIRE(current.status == EntryStatus::ok);
    REQUIRE_FALSE(current.metrics.empty());
    CHECK(current.metrics[0].name == "accuracy");
    CHECK(current.metrics[0].unit == "%");
    CHECK(current.metrics[0].value == 90);
    CHECK(current.metrics[0].better == GPUBENCH_BETTER_HIGHER);
    {
        // A plugin that overwrites the array's struct_size is read by the runner's own stride.
        const test_support::ScopedEnv scribble("FIXTURE_HISTORY_SCRIBBLE", "1");
        const Measurement scribbled = measured("fixture_history.so", 4);
        REQUIRE(scribbled.status == EntryStatus::ok);
        CHECK(scribbled.metrics.at(0).name == "accuracy");
        CHECK(scribbled.metrics.at(0).better == GPUBENCH_BETTER_HIGHER);
        CHECK(scribbled.metrics.at(1).name == "scribbled");
        CHECK(scribbled.metrics.at(1).value == 2);
    }
    const test_support::ScopedEnv bad("FIXTURE_HISTORY_BETTER", "7");
    const Measurement refused = measured("fixture_history.so", 4);
    CHECK(refused.status == EntryStatus::error);
    CHECK_THAT(refused.message, Catch::Contains("accuracy's better is 7, not a gpubench_better"));
}

TEST_CASE("every report format shows a metric no writer names", "[metrics][report]") {
    const ResultsDocument document =
        document_with({{"sort_naive", {accuracy, plain}}, {"sort_omp", {accuracy, faults}}});
    const ReportInput input = input_of_document(document);

    std::ostringstream csv;
    find_report_format("csv")->write(csv, input);
    std::istringstream rows(csv.str());
    std::string header, first;
    std::getline(rows, header);
    std::getline(rows, first);
    CHECK_THAT(header, Catch::EndsWith(",test_accuracy [%] ↑,iterations,faults_per_run ↓"));
    CHECK_THAT(first, Catch::StartsWith("sort,,,naive,cpu,1000,") && Catch::EndsWith(",90,7,"));

    std::ostringstream markdown;
    find_report_format("markdown")->write(markdown, input);
    CHECK_THAT(markdown.str(), Catch::Contains("| metric | size | naive | omp |") &&
                                   Catch::Contains("| test_accuracy [%] ↑ | 2000 | 180 | 180 |") &&
                                   Catch::Contains("| faults_per_run ↓ | 1000 | — | 4 |"));

    std::ostringstream report;
    find_report_format("json")->write(report, input);
    const json point = json::parse(report.str()).at(0).at("columns").at(1).at("points").at(0);
    CHECK(point.at("metrics").at(1) == json(faults));

    std::ostringstream gbench;
    find_report_format("gbench")->write(gbench, input);
    const json record = json::parse(gbench.str()).at("benchmarks").at(0);
    CHECK(record.at("test_accuracy") == 90);
    CHECK(record.at("iterations") == 1);  // Google Benchmark's own field, never a plugin's metric

    const json page = html_report_data(input);
    const json &html_point = page.at("workloads").at(0).at("columns").at(0).at("points").at(1);
    CHECK(html_point.at("metrics").at(0).at("value") == 180);
    CHECK(html_point.at("metrics").at(0).at("better") == "higher");
}

TEST_CASE("compare judges the metrics both sides have by their direction", "[metrics][compare]") {
    Metric lower_accuracy = accuracy, fewer_faults = faults, other_plain = plain;
    lower_accuracy.value = 80;
    fewer_faults.value = 2;
    other_plain.value = 70;
    const ResultsDocument base = document_with({{"sort_naive", {accuracy, plain}}, {"sort_omp", {faults}}});
    const ResultsDocument worse = document_with({{"sort_naive", {lower_accuracy, other_plain}}, {"sort_omp", {fewer_faults}}});
    const Comparison compared = compare_results(base, worse, {});
    REQUIRE(compared.metrics.size() == 6);  // 3 metrics at 2 sizes
    std::map<std::string, MetricVerdict> verdicts;
    for (const ComparedMetric &m : compared.metrics) verdicts[m.candidate.name] = m.verdict;
    CHECK(verdicts.at("test_accuracy") == MetricVerdict::worse);
    CHECK(verdicts.at("faults_per_run") == MetricVerdict::better);
    CHECK(verdicts.at("iterations") == MetricVerdict::unjudged);  // no direction: shown only
    CHECK(compared.regressed());
    CompareOptions ignoring;
    ignoring.ignored_metrics = {"test_accuracy"};
    CHECK_FALSE(compare_results(base, worse, ignoring).regressed());
    CHECK(compare_results(worse, base, {}).regressed());  // faults 2 -> 4: worse
    CHECK_FALSE(compare_results(base, base, {}).regressed());
    // The same metrics, measured by the runner: one value a side is never judged.
    ResultsDocument measured_base = base, measured_worse = worse;
    for (ResultsDocument *d : {&measured_base, &measured_worse})
        for (EntryResult &e : d->entries)
            for (EntryMetric &m : e.metrics) m.measured = true;
    const Comparison measured = compare_results(measured_base, measured_worse, {});
    REQUIRE(measured.metrics.size() == 6);
    for (const ComparedMetric &m : measured.metrics) CHECK(m.verdict == MetricVerdict::unjudged);
    CHECK_FALSE(measured.regressed());
}

TEST_CASE("the history keeps each metric as a series and fails on a plugin's metric's worse step", "[metrics][history]") {
    const test_support::TempFolder folder;
    const fs::path sweep = folder.path() / "sweep.json";
    const Outcome swept = run_runner(fixtures() + " --plugin fixture_history --sizes 4 --max-time 0.05 --quiet -o " +
                                     sweep.string());
    INFO(swept.output);
    REQUIRE(swept.status == 0);
    const json document = read_json(sweep);
    // Six commits with the same times; accuracy 90 then, in the newest two, `newest`.
    const auto history_of = [&](const std::string &name, double newest) {
        const fs::path db = folder.path() / (name + ".sqlite");
        std::string files;
        for (int run = 1; run <= 6; ++run) {
            json copy = document;
            copy["created"] = "2026-01-0" + std::to_string(run) + "T12:00:00Z";
            // The runner's measured page faults jump from 0 to 100 at the same commits.
            for (json &entry : copy["entries"])
                for (json &m : entry["metrics"]) {
                    if (m["name"] == "accuracy") m["value"] = run > 4 ? newest : 90.0;
                    if (m["name"] == "page_faults_per_run") m["value"] = run > 4 ? 100.0 : 0.0;
                }
            const fs::path file = folder.path() / (name + std::to_string(run) + ".json");
            write(file, copy.dump());
            files += " " + file.string();
        }
        const Outcome added = run_runner("history add" + files + " --db " + db.string() + " --commit c");
        INFO(added.output);
        REQUIRE(added.status == 0);
        return db;
    };
    const fs::path fell = history_of("fell", 80);
    const Outcome shown = run_runner("history show --plugin fixture_history --db " + fell.string());
    INFO(shown.output);
    CHECK_THAT(shown.output, Catch::Contains("fixture_history 4: accuracy |") && Catch::Contains("80 %") &&
                                 Catch::Contains("<- step -11% (worse)"));
    const Outcome regressed = run_runner("history regressions --db " + fell.string());
    INFO(regressed.output);
    CHECK(regressed.status == 1);
    CHECK_THAT(regressed.output, Catch::Contains("REGRESSION: fixture_history 4: accuracy |") &&
                                     Catch::Contains("11% worse from commit c") && Catch::Contains("90 % -> 80 %"));
    const Outcome rose = run_runner("history regressions --db " + history_of("rose", 99).string());
    INFO(rose.output);
    CHECK(rose.status == 0);  // a measured value's worse step is listed, never failed on
    CHECK_THAT(rose.output, Catch::Contains("step: fixture_history 4: accuracy |") && Catch::Contains("10% better") &&
                                Catch::Contains("step: fixture_history 4: page_faults_per_run |") &&
                                Catch::Contains(": worse from commit c"));
}

TEST_CASE("the runner's figures reach every report's metric columns as measured metrics", "[metrics][report]") {
    // sort_omp declares 2 GFLOP a run against a 4 TFLOP/s roof: 2000 GFLOP/s at 1 ms, 50% of
    // peak; sort_naive declares no work, and no entry had an energy counter.
    const ResultsDocument document = document_with({{"sort_naive", {}}, {"sort_omp", {plain}}}, [](EntryResult &e) {
        if (e.plugin != "sort_omp") return;
        e.work.flops = 2e9;
        e.ceiling.flops = 4e12;
    });
    const ReportInput input = input_of_document(document);

    std::ostringstream csv;
    find_report_format("csv")->write(csv, input);
    std::istringstream rows(csv.str());
    std::string header, naive, omp;  // rows by column, then size
    std::getline(rows, header);
    std::getline(rows, naive);
    std::getline(rows, omp);
    std::getline(rows, omp);
    CHECK_THAT(header, Catch::EndsWith(",iterations,gflops [GFLOP/s] ↑,percent_of_peak [%] ↑"));
    CHECK_THAT(naive, Catch::EndsWith(",,,"));  // no work declared: no throughput, no % of peak
    CHECK_THAT(omp, Catch::EndsWith(",7,2000,50"));
    CHECK_THAT(header, !Catch::Contains("energy_per_run_j") && !Catch::Contains("cpu_percent"));

    std::ostringstream markdown;
    find_report_format("markdown")->write(markdown, input);
    CHECK_THAT(markdown.str(), Catch::Contains("| gflops [GFLOP/s] ↑ | 1000 | — | 2000 |") &&
                                   Catch::Contains("| percent_of_peak [%] ↑ | 2000 | — | 50 |"));

    std::ostringstream report;
    find_report_format("json")->write(report, input);
    const json point = json::parse(report.str()).at(0).at("columns").at(1).at("points").at(0);
    CHECK(point.at("metrics").at(1).at("name") == "gflops");
    CHECK(point.at("metrics").at(1).at("measured") == true);
    CHECK(point.at("metrics").at(2).at("text") == "compute bound");

    std::ostringstream gbench;
    find_report_format("gbench")->write(gbench, input);
    size_t counted = 0;
    const json records = json::parse(gbench.str()).at("benchmarks");
    for (const json &record : records)
        if (record.at("run_name") == "sort_omp/1000") counted += record.at("gflops").get<double>() == Approx(2000);
    CHECK(counted == 5);  // 3 samples, the mean and the median

    // A plugin's metric of the same name is its own, listed first.
    const ResultsDocument shadowed = document_with({{"sort_omp", {{"gflops", 1, "GFLOP/s", "", GPUBENCH_BETTER_HIGHER}}}},
                                                   [](EntryResult &e) { e.work.flops = 2e9; });
    std::ostringstream shadowed_csv;
    find_report_format("csv")->write(shadowed_csv, input_of_document(shadowed));
    CHECK_THAT(shadowed_csv.str(), Catch::Contains(",gflops [GFLOP/s] ↑\n") && Catch::Contains(",1000,") &&
                                       Catch::Contains(",1\n"));
}
