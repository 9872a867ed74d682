// Reports and comparisons on hand-made results files, where every figure is known.
#include "compare.hpp"
#include "report.hpp"
#include "report_documents.hpp"
#include "results.hpp"
#include "runner_process.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

using namespace gpubench;
using namespace report_documents;
using nlohmann::json;

namespace {

// sort: naive 1 ms/10 ms/100 ms, omp 10x faster, cuda 0.5 ms compute + 1 ms transfer at
// every size: end to end it loses to omp at 1e3 and 1e4 (1.5 ms against 0.1 and 1 ms) and
// wins at 1e5 (1.5 against 10 ms).
json study() {
    return results({{"sort_naive", 1000, around(1e-3)},    {"sort_naive", 10000, around(10e-3)},
                    {"sort_naive", 100000, around(100e-3)}, {"sort_omp", 1000, around(0.1e-3)},
                    {"sort_omp", 10000, around(1e-3)},      {"sort_omp", 100000, around(10e-3)},
                    {"sort_cuda", 1000, around(0.5e-3), 1e-3}, {"sort_cuda", 10000, around(0.5e-3), 1e-3},
                    {"sort_cuda", 100000, around(0.5e-3), 1e-3}});
}

}  // namespace

TEST_CASE("a report tells apart entries of one file on different GPU models", "[report][devices]") {
    json document = study();
    // sort_cuda's three entries: two on one model, one on another (--devices on unlike GPUs).
    const std::vector<std::string> models{"GPU model A", "GPU model A", "GPU model B"};
    size_t next = 0;
    for (json &entry : document["entries"])
        if (entry["plugin"] == "sort_cuda")
            entry["devices"] = json::array({json{{"index", next}, {"name", models.at(next)}}}), ++next;
    const std::vector<WorkloadReport> reports = build_report({{"", typed(document)}}, {});
    REQUIRE(reports.size() == 1);
    std::vector<std::string> labels;
    for (const ReportColumn &c : reports[0].columns) labels.push_back(c.label());
    CHECK(labels == std::vector<std::string>{"naive", "omp", "cuda on GPU model A", "cuda on GPU model B"});
    CHECK(answer_of(reports[0], "cuda on GPU model B"));
    std::ostringstream csv;
    write_csv(csv, reports);
    // Two sizes on model B: no model, no crossover.
    CHECK_THAT(csv.str(), Catch::Contains("sort,,,cuda,gpu,100000,0.0005,0.0015,200,66.6667,,,,,,,,,noisy,GPU model B"));
    CHECK(report_json(reports).at(0).at("columns").at(3).at("gpu_model") == "GPU model B");

    // One model in the file: no model in the labels, as before.
    for (json &entry : document["entries"])
        if (entry.contains("devices")) entry["devices"].at(0)["name"] = "GPU model A";
    labels.clear();
    const std::vector<WorkloadReport> one_model = build_report({{"", typed(document)}}, {});
    for (const ReportColumn &c : one_model.at(0).columns) labels.push_back(c.label());
    CHECK(labels == std::vector<std::string>{"naive", "omp", "cuda"});
}

TEST_CASE("a report puts sizes in rows, backends in columns, and computes speedup and crossover",
          "[report]") {
    const std::vector<WorkloadReport> reports = build_report({{"", typed(study())}}, {});
    REQUIRE(reports.size() == 1);
    const WorkloadReport &r = reports[0];
    CHECK(r.workload == "sort");
    CHECK(r.baseline == "naive");
    CHECK(r.sizes == std::vector<uint64_t>{1000, 10000, 100000});
    REQUIRE(r.columns.size() == 3);
    CHECK(r.columns[0].backend == "naive");  // CPU backends first
    CHECK(r.columns[2].backend == "cuda");
    CHECK(speedup(r, r.columns[1], 10000, false).value() == Approx(10));
    CHECK(speedup(r, r.columns[2], 100000, false).value() == Approx(200));   // 100 / 0.5 ms
    CHECK(speedup(r, r.columns[2], 100000, true).value() == Approx(100 / 1.5));
    REQUIRE(answer_of(r, "cuda"));
    const Crossover &end_to_end = answer_of(r, "cuda")->end_to_end;
    REQUIRE(end_to_end.verdict == CrossoverVerdict::from);  // 3 sizes: a crossover, but an interval of any width
    CHECK((end_to_end.size.value > 10000 && end_to_end.size.value < 100000));

    std::ostringstream md, csv;
    write_markdown(md, reports);
    CHECK_THAT(md.str(), Catch::Contains("| size | naive | omp | cuda |") &&
                             Catch::Contains("| cuda | end_to_end | ") && Catch::Contains("200x"));
    write_csv(csv, reports);
    CHECK_THAT(csv.str(), Catch::StartsWith("workload,params,source,backend,device,size,") &&
                              Catch::Contains("sort,,,cuda,gpu,100000,0.0005,0.0015,200,66.6667,0.0005,0.0015,"));
    const json j = report_json(reports);
    CHECK(j[0]["answer"]["answers"][0]["end_to_end"]["verdict"] == "from");
    CHECK(j[0]["answer"]["models"]["cuda"]["compute"]["inputs"].size() == 3);
    CHECK(j[0]["columns"][2]["points"][2]["speedup_compute"].get<double>() == Approx(200));

    // --baseline omp; and a GPU that never catches up is said to never cross over.
    ReportOptions against_omp;
    against_omp.baseline_backend = "omp";
    json slow = study();
    for (json &e : slow["entries"])
        if (e["plugin"] == "sort_cuda")  // transfers that make every end-to-end sample 1 s
            for (size_t i = 0; i < e["timing"]["samples"]["run"].size(); ++i)
                e["timing"]["samples"]["upload"][i] = 1.0 - e["timing"]["samples"]["run"][i].get<double>();
    const WorkloadReport r2 = build_report({{"", typed(slow)}}, against_omp)[0];
    CHECK(r2.baseline == "omp");
    CHECK(speedup(r2, r2.columns[0], 1000, false).value() == Approx(0.1));
    CHECK(answer_of(r2, "cuda")->end_to_end.verdict == CrossoverVerdict::never);
}

TEST_CASE("a setting only some plugins declare names their column, beside the baseline; one all declare is a section",
          "[report]") {
    // sort_cuda at two settings of its own kernel key, thrust at two of its own math key;
    // every entry at two values of the shared dtype.
    std::vector<Entry> entries;
    for (const char *plugin : {"sort_naive", "sort_cuda", "sort_cuda", "sort_thrust", "sort_thrust"})
        for (uint64_t n : {1000, 10000, 100000}) entries.push_back({plugin, n, around(1e-3)});
    const std::vector<Entry> once = entries;
    entries.insert(entries.end(), once.begin(), once.end());
    json document = results(entries);
    // Declared (as plugins of ABI 1.10 record them): dtype by all; kernel and math by one each.
    const auto declared = [](std::vector<std::string> keys) {
        json params = json::array();
        for (const std::string &key : keys) params.push_back({{"key", key}, {"type", "text"}, {"default", ""}, {"help", ""}});
        return params;
    };
    for (json &plugin : document["plugins"])
        plugin["params"] = plugin["name"] == "sort_cuda"     ? declared({"dtype", "kernel"})
                           : plugin["name"] == "sort_thrust" ? declared({"dtype", "math"})
                                                             : declared({"dtype"});
    const char *own[] = {"", "kernel=a", "kernel=b", "math=x", "math=y"};
    for (size_t i = 0; i < document["entries"].size(); ++i) {
        const std::string mine = own[i % 15 / 3], dtype = i < 15 ? "dtype=f32" : "dtype=f64";
        document["entries"][i]["params"] = mine.empty() ? dtype : mine + "," + dtype;
    }
    const std::vector<WorkloadReport> reports = build_report({{"", typed(document)}}, {"thrust"});
    REQUIRE(reports.size() == 2);  // dtype, read by all: a section each
    CHECK(reports[0].params == "dtype=f32");
    CHECK(reports[1].params == "dtype=f64");
    std::vector<std::string> labels;
    for (const ReportColumn &c : reports[0].columns) labels.push_back(c.label());
    CHECK(labels == std::vector<std::string>{"naive", "cuda [kernel=a]", "cuda [kernel=b]", "thrust [math=x]",
                                             "thrust [math=y]"});
    // --baseline thrust: its first setting's column; the others' speedups are against it.
    CHECK(reports[0].baseline == "thrust [math=x]");
    CHECK(speedup(reports[0], reports[0].columns[4], 1000, false).value() == Approx(1));
    std::ostringstream markdown;
    write_markdown(markdown, reports);
    CHECK_THAT(markdown.str(), Catch::Contains("| size | naive | cuda [kernel=a] | cuda [kernel=b] | thrust [math=x] |"));

    // A key every plugin declares makes sections even where only some entries set it (a GPU
    // sweep at iterations=10 resumed into every backend's file); so does one in a file whose
    // plugins declare nothing (written before declarations were recorded).
    for (json &entry : document["entries"])
        entry["params"] = entry["plugin"] == "sort_naive" ? "" : "dtype=f32";
    REQUIRE(build_report({{"", typed(document)}}, {}).size() == 2);
    for (json &plugin : document["plugins"]) plugin.erase("params");
    for (json &entry : document["entries"]) entry["params"] = entry["plugin"] == "sort_cuda" ? "kernel=a" : "";
    const std::vector<WorkloadReport> undeclared = build_report({{"", typed(document)}}, {});
    REQUIRE(undeclared.size() == 2);
    CHECK(undeclared[1].params == "kernel=a");
}

TEST_CASE("several files go side by side, named by their machine", "[report]") {
    const std::vector<WorkloadReport> reports =
        build_report({{"H100", typed(study())}, {"A100", typed(results({{"sort_naive", 1000, around(2e-3)},
                                                                       {"sort_cuda", 1000, around(1e-3)}},
                                                                      "NVIDIA A100"))}},
                     {});
    REQUIRE(reports.size() == 1);
    std::vector<std::string> labels;
    for (const ReportColumn &c : reports[0].columns) labels.push_back(c.label());
    CHECK(labels == std::vector<std::string>{"naive @ H100", "naive @ A100", "omp @ H100",
                                             "cuda @ H100", "cuda @ A100"});
    // Speedups are against the baseline of the same machine.
    CHECK(speedup(reports[0], reports[0].columns[4], 1000, false).value() == Approx(2));
}

TEST_CASE("the Mann-Whitney U test", "[compare]") {
    CHECK(mann_whitney_p({1, 2, 3}, {1, 2, 3}) == 1);
    CHECK(mann_whitney_p({1}, {2, 3}) == 1);  // too few to say anything
    // U = 0 for 5 against 5 with no overlap: z = (12.5 - 0.5) / sqrt(25 * 11 / 12), p = 0.0122
    // (scipy.stats.mannwhitneyu, asymptotic, with continuity correction: 0.01219).
    CHECK(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}) == Approx(0.01219).epsilon(0.01));
    CHECK(mann_whitney_p(around(1.0, 20), around(1.1, 20)) < 1e-6);
}

TEST_CASE("compare: identical is same, shifted is slower with a failing exit, failures count",
          "[compare]") {
    const json base = study();
    const auto compare = [](const json &baseline, const json &candidate) {
        return compare_results(typed(baseline), typed(candidate), {});
    };
    Comparison same = compare(base, base);
    CHECK_FALSE(same.regressed());
    CHECK(same.warning.empty());
    for (const ComparedEntry &e : same.entries) CHECK(e.verdict == Verdict::same);

    json slower = study();
    for (json &e : slower["entries"])
        if (e["plugin"] == "sort_omp")
            for (json &s : e["timing"]["samples"]["run"]) s = s.get<double>() * 1.2;
    Comparison shifted = compare(base, slower);
    CHECK(shifted.regressed());
    for (const ComparedEntry &e : shifted.entries)
        CHECK(e.verdict == (e.plugin == "sort_omp" ? Verdict::slower : Verdict::same));
    // 3% slower is within the 5% threshold: same, though significant.
    json slightly = study();
    for (json &e : slightly["entries"])
        for (json &s : e["timing"]["samples"]["run"]) s = s.get<double>() * 1.03;
    CHECK_FALSE(compare(base, slightly).regressed());
    // Faster is not a regression.
    Comparison quicker = compare(slower, base);
    CHECK_FALSE(quicker.regressed());

    json broken = study();
    broken["entries"][0]["valid"] = false;
    broken["entries"][0]["status"] = "verification_failed";
    broken["entries"].erase(broken["entries"].size() - 1);  // only in the baseline now
    broken["entries"].push_back(base["entries"][0]);
    broken["entries"].back()["size"] = 7;                    // only in the candidate
    Comparison failed = compare(base, broken);
    CHECK(failed.regressed());
    size_t failures = 0, only_base = 0, only_cand = 0;
    for (const ComparedEntry &e : failed.entries) {
        failures += e.verdict == Verdict::failed;
        only_base += e.verdict == Verdict::only_baseline;
        only_cand += e.verdict == Verdict::only_candidate;
    }
    CHECK(failures == 1);
    CHECK(only_base == 1);
    CHECK(only_cand == 1);

    Comparison machines = compare(base, results({}, "NVIDIA A100"));
    CHECK_THAT(machines.warning, Catch::Contains("different GPUs"));
}

TEST_CASE("runner compare --candidate-device: the candidate's entries on one GPU against the baseline's",
          "[compare][devices]") {
    using namespace runner_process;
    auto base = temp_results("cmpdev_base"), cand = temp_results("cmpdev_cand");
    std::ofstream(base) << study().dump();
    json on_two = study();  // sort_cuda's three sizes on devices 1, 0, 1; 1.5x slower on 1
    int next = 0;
    for (json &e : on_two["entries"])
        if (e["plugin"] == "sort_cuda") {
            const int device = next++ % 2 == 0 ? 1 : 0;
            e["devices"] = json::array({json{{"index", device}, {"name", "GPU model A"}}});
            if (device == 1)
                for (json &sample : e["timing"]["samples"]["run"]) sample = sample.get<double>() * 1.5;
        }
    std::ofstream(cand) << on_two.dump();
    const Outcome on_0 = run_runner("compare " + base.string() + " " + cand.string() + " --candidate-device 0");
    INFO(on_0.output);
    CHECK(on_0.status == 0);
    CHECK_THAT(on_0.output, Catch::Contains("| sort_cuda | 10000 |") && Catch::Contains("1 same") &&
                                !Catch::Contains("sort_naive") && !Catch::Contains("| 1000 |"));
    const Outcome on_1 = run_runner("compare " + base.string() + " " + cand.string() + " --candidate-device 1");
    INFO(on_1.output);
    CHECK(on_1.status == 1);  // GPU 1 is slower than the baseline's GPU
    CHECK_THAT(on_1.output, Catch::Contains("2 slower or failed") && Catch::Contains("0 same"));
    const Outcome none = run_runner("compare " + base.string() + " " + cand.string() + " --candidate-device 7");
    CHECK(none.status == 2);
    CHECK_THAT(none.output, Catch::Contains("--candidate-device 7: the candidate has no entry measured on that device"));
    std::filesystem::remove(base);
    std::filesystem::remove(cand);
}

TEST_CASE("runner compare says which entries each file verified, and those only one did", "[compare]") {
    using namespace runner_process;
    auto base = temp_results("cmpcov_base"), cand = temp_results("cmpcov_cand");
    std::ofstream(base) << study().dump();
    json fewer = study();  // the candidate skipped sort_cuda 10000
    size_t total = 0, verified = 0;
    for (json &e : fewer["entries"]) {
        ++total;
        verified += e["valid"].get<bool>();
        if (e["plugin"] == "sort_cuda" && e["size"] == 10000) {
            e["status"] = "skipped", e["valid"] = false, e["message"] = "over the sweep's budget";
            e.erase("timing");
        }
    }
    std::ofstream(cand) << fewer.dump();
    const Outcome o = run_runner("compare " + base.string() + " " + cand.string());
    INFO(o.output);
    CHECK_THAT(o.output, Catch::Contains("verified: " + std::to_string(verified) + " of the baseline's " +
                                         std::to_string(total) + " entries, " + std::to_string(verified - 1) +
                                         " of the candidate's " + std::to_string(total) +
                                         "; in the baseline only: 1, in the candidate only: 0\n"
                                         "  verified in the baseline only: sort_cuda 10000\n"));
    std::filesystem::remove(base);
    std::filesystem::remove(cand);
}

TEST_CASE("runner report and runner compare from the command line", "[compare]") {
    using namespace runner_process;
    const auto write = [](const std::filesystem::path &path, const json &doc) {
        std::ofstream(path) << doc.dump();
    };
    auto base = temp_results("cmp_base"), cand = temp_results("cmp_cand");
    write(base, study());
    json slower = study();
    for (json &e : slower["entries"])
        for (json &s : e["timing"]["samples"]["run"]) s = s.get<double>() * 1.5;
    write(cand, slower);
    Outcome same = run_runner("compare " + base.string() + " " + base.string());
    CHECK(same.status == 0);
    CHECK_THAT(same.output, Catch::Contains("0 slower or failed"));
    Outcome regressed = run_runner("compare " + base.string() + " " + cand.string());
    CHECK(regressed.status == 1);
    CHECK_THAT(regressed.output, Catch::Contains("SLOWER"));
    Outcome bad = run_runner("compare " + base.string());
    CHECK(bad.status == 2);
    CHECK_THAT(bad.output, Catch::Contains("runner compare: error: expected two results files"));

    Outcome md = run_runner("report " + base.string());
    CHECK(md.status == 0);
    CHECK_THAT(md.output, Catch::Contains("## sort") && Catch::Contains("| cuda | end_to_end | 15.0k |") &&
                              Catch::Contains("## sort: studies view"));
    Outcome csv = run_runner("report --format csv --baseline omp " + base.string());
    CHECK(csv.status == 0);
    CHECK_THAT(csv.output, Catch::StartsWith("workload,params,source,backend"));
    Outcome wrong = run_runner("report --format xml " + base.string());
    CHECK(wrong.status == 2);
    CHECK_THAT(wrong.output, Catch::Contains("--format 'xml': expected markdown, csv, json, gbench, html, or answer"));
    Outcome gbench = run_runner("report --format gbench " + base.string());
    CHECK(gbench.status == 0);
    const json g = json::parse(gbench.output);
    CHECK(g["context"]["host_name"] == "testhost");
    size_t iterations = 0, medians = 0;
    for (const json &b : g["benchmarks"]) {
        if (b["run_type"] == "iteration") ++iterations;
        if (b.value("aggregate_name", "") == "median") ++medians;
        CHECK(b["time_unit"] == "ns");
    }
    CHECK(iterations == 9 * 13);  // every sample of the 9 entries, as repetitions
    CHECK(medians == 9);
    CHECK(g["benchmarks"][0]["name"] == "sort_naive/1000");
    CHECK(g["benchmarks"][0]["real_time"].get<double>() == Approx(1e6 * (1 - 0.006)));
    std::filesystem::remove(base);
    std::filesystem::remove(cand);
}

TEST_CASE("reports show flags and per-launch headlines, and compare uses per-launch samples when both sides have them",
          "[report]") {
    json doc = results({{"vecadd_naive", 10, around(1e-6)},
                        {"vecadd_cuda", 10, around(8e-6), 0, true, around(1e-6)}});
    doc["entries"][0]["timing"]["cache"] = "cold";  // flagged as the writer flags it
    const auto reports = build_report({{"", typed(doc)}}, ReportOptions{});
    std::ostringstream markdown;
    write_markdown(markdown, reports);
    INFO(markdown.str());
    CHECK_THAT(markdown.str(), Catch::Contains("*cold*"));
    // The GPU's compute is its per-launch headline; end to end stays single launches.
    CHECK_THAT(markdown.str(), Catch::Contains("| 1.00 us (8.00 us)"));

    // Per-launch samples 3x slower on the candidate, single launches unchanged: a regression
    // that only the per-launch samples show.
    json candidate = doc;
    candidate["entries"][1]["timing"]["per_launch"]["samples"] = around(3e-6);
    CHECK(compare_results(typed(doc), typed(candidate), CompareOptions{}).regressed());
    // A baseline without per-launch samples is compared on single launches: no change.
    json old = doc;
    old["entries"][1]["timing"].erase("per_launch");
    CHECK_FALSE(compare_results(typed(old), typed(candidate), CompareOptions{}).regressed());
}

TEST_CASE("the studies view: per size, backends grouped by language with memory, use, compile time and lines",
          "[report]") {
    json doc = results({{"matmul_naive", 1000, around(1e-3)},   {"matmul_naive", 2000, around(8e-3)},
                        {"matmul_cuda", 1000, around(0.5e-3)},  {"matmul_cuda", 2000, around(1e-3)},
                        {"matmul_numpy", 1000, around(2e-3)},   {"matmul_mystery", 1000, around(3e-3)}});
    const json shared = {{"shared_files", {"plugins/matmul/matmul_common.cpp", "plugins/matmul/matmul_gpu.hpp"}},
                         {"shared_lines", 254}, {"shared_compile_s", 1.4}};
    const auto record = [&](const char *language, double compile_s, uint64_t lines) {
        json r = shared;
        r.update({{"language", language}, {"source_files", {"x"}}, {"source_lines", lines}});
        if (compile_s > 0) r["compile_s"] = compile_s;
        return r;
    };
    // Listed out of order: the view sorts C++ and CUDA first, then Python, then unknown.
    doc["plugins"][0]["build_record"] = record("C++", 1.5, 22);
    doc["plugins"][1]["build_record"] = record("CUDA", 4, 163);
    doc["plugins"][2]["build_record"] = {{"language", "Python"}, {"bridge_compile_s", 2.0},
                                         {"source_files", {"plugins/matmul/numpy.py"}}, {"source_lines", 30},
                                         {"shared_files", {"plugins/matmul/python.cpp"}}, {"shared_lines", 38}};
    // What was measured; the view derives CPU % from it and the header's 16 cores.
    doc["host"]["logical_cores"] = 16;
    for (json &e : doc["entries"]) {
        EntryResult r = e.get<EntryResult>();
        r.resources.peak_rss_bytes = 64ull << 20;
        r.resources.sampling_wall_s = 2;
        r.resources.sampling_cpu_s = 2;  // one core of 16: 6.25%
        r.timing.first_run = 0.5;
        r.timing.load = 0.8;
        if (r.plugin == "matmul_cuda") {
            r.resources.on_device = true;
            r.resources.device_allocated_bytes = 256ull << 20;
            r.resources.gpu_busy = 0.97;
            r.timing.samples.run_host = around(4e-6);
        }
        e = r;
    }
    std::ostringstream out;
    write_studies_markdown(out, build_report({{"", typed(doc)}}, {}));
    const std::string md = out.str();
    INFO(md);
    CHECK_THAT(md, Catch::Contains("## matmul: studies view") &&
                       Catch::Contains("| size | language | backend | time | host/call | CPU RAM | GPU RAM | "
                                       "CPU % | GPU % | compile | lines |"));
    const std::vector<std::string> rows = {
        "| 1000 | C++ | naive | 1.000 ms | — | 64 MiB | — | 6.2% | — | 1.500 s | 22 |",
        // A GPU backend's host time per run() call beside its GPU time.
        "|  | CUDA | cuda | 500.00 us | 4.00 us | 64 MiB | 256 MiB | 6.2% | 97% | 4.000 s | 163 |",
        // Python: JIT = first run - median run, and the load (interpreter and imports).
        "|  | Python | numpy | 2.000 ms | — | 64 MiB | — | 6.2% | — | JIT 498.000 ms, load 800.000 ms | 30 |",
        "|  | unknown | mystery | 3.000 ms | — | 64 MiB | — | 6.2% | — | — | — |",
        "| 2000 | C++ | naive | 8.000 ms |",
        "|  | CUDA | cuda | 1.000 ms |"};
    size_t at = 0;
    for (const std::string &row : rows) {  // present, and in this order
        INFO(row);
        const size_t found = md.find(row, at);
        REQUIRE(found != std::string::npos);
        at = found;
    }
    // The shared lines once per set of shared files, not per backend.
    CHECK_THAT(md, Catch::Contains("Shared by naive, cuda: 254 lines of code (plugins/matmul/matmul_common.cpp, "
                                   "plugins/matmul/matmul_gpu.hpp), compiled once in 1.400 s.") &&
                       Catch::Contains("Shared by numpy: 38 lines of code (plugins/matmul/python.cpp)."));
    CHECK(md.find("Shared by naive") == md.rfind("Shared by naive"));
}

TEST_CASE("crossover: 'never' when the GPU backend loses, unknown when no CPU backend was measured",
          "[report]") {
    json slow = study();  // the GPU never catches up
    for (json &e : slow["entries"])
        if (e["plugin"] == "sort_cuda")  // transfers that make every end-to-end sample 1 s
            for (size_t i = 0; i < e["timing"]["samples"]["run"].size(); ++i)
                e["timing"]["samples"]["upload"][i] = 1.0 - e["timing"]["samples"]["run"][i].get<double>();
    const json gpu_only = results({{"sort_cuda", 1000, around(0.5e-3), 1e-3}});
    const auto texts = [](const json &document) {
        const std::vector<WorkloadReport> reports = build_report({{"", typed(document)}}, {});
        std::ostringstream md, csv;
        write_markdown(md, reports);
        write_csv(csv, reports);
        return std::tuple(reports.at(0), md.str(), csv.str(), report_json(reports).at(0));
    };
    const auto [lost, lost_md, lost_csv, lost_json] = texts(slow);
    CHECK(answer_of(lost, "cuda")->end_to_end.verdict == CrossoverVerdict::never);
    CHECK_THAT(answer_line(lost), Catch::StartsWith("sort: end to end, the GPU never wins up to 100k; compute-only, "));
    CHECK_THAT(lost_md, Catch::Contains("| cuda | end_to_end | never | "));
    CHECK_THAT(lost_csv, Catch::Contains(",never,,,"));
    CHECK(lost_json["answer"]["answers"][0]["end_to_end"]["verdict"] == "never");

    const auto [alone, alone_md, alone_csv, alone_json] = texts(gpu_only);
    CHECK(answer_of(alone, "cuda")->end_to_end.verdict == CrossoverVerdict::unknown);
    CHECK_THAT(alone_md, Catch::Contains("| cuda | any | — | no CPU backend was measured |") &&
                             !Catch::Contains("never"));
    CHECK_THAT(alone_csv, Catch::Contains("sort,,,cuda,gpu,1000,0.0005,0.0015,1,1,,,,,,,,,"));
    CHECK(alone_json["answer"]["answers"][0]["compute"]["why"] == "no CPU backend was measured");
}

TEST_CASE("the Markdown report starts with each file's run and explains the flags that occur", "[report]") {
    using namespace runner_process;
    json document = study();  // its entries are flagged noisy (too few samples for --max-noise)
    document["command_line"] = {"runner", "--plugin", "sort_*", "--param", "input=random, sorted"};
    document["build"]["git_revision"] = "0123abc";
    // The first entry was also sampled while the rest of the host kept its cores busy.
    EntryResult crowded = document["entries"][0].get<EntryResult>();
    crowded.resources.host_load = HostLoad{.wall_s = 1, .own_cpu_s = 0.1, .machine_busy_cores = 2,
                                           .others_cores = 1.9, .own_wait_s = 0.5, .wait_share = 0.5,
                                           .host_cores = 2, .available = true};
    REQUIRE(crowded.resources.host_load->contended());
    document["entries"][0] = crowded;
    const auto file = temp_results("report_header");
    std::ofstream(file) << document.dump();
    const Outcome md = run_runner("report " + file.string());
    INFO(md.output);
    CHECK(md.status == 0);
    // The answer first, then the runs.
    CHECK_THAT(md.output, Catch::StartsWith("# gpubench report\n\n**The answer**: ") &&
                              Catch::Contains("\n- sort: end to end, cuda wins from ") &&
                              Catch::Contains("\n\n**" + file.string() + "**\n\n- machine: testhost"));
    CHECK_THAT(md.output, Catch::Contains("- GPUs: NVIDIA H100 80GB HBM3") && Catch::Contains("- commit: 0123abc") &&
                              Catch::Contains("- date: " + document["created"].get<std::string>()) &&
                              Catch::Contains("- options: ") && Catch::Contains("seed 42") &&
                              Catch::Contains("- command line: ` runner --plugin 'sort_*' --param 'input=random, sorted' `"));
    // The header comes first, the glossary after the tables: of the flags that occur only.
    const size_t table = md.output.find("## sort"), flags = md.output.find("## Flags");
    CHECK(md.output.find("- machine:") < table);
    REQUIRE(flags != std::string::npos);
    CHECK(table < flags);
    CHECK_THAT(md.output.substr(flags), Catch::Contains("- *noisy*: the noise criterion") &&
                                            Catch::Contains("- *contended*: the host was crowded") &&
                                            !Catch::Contains("*throttled*"));
    std::filesystem::remove(file);

    // No flag in the tables: no glossary (every entry met the noise criterion, none crowded).
    for (json &entry : document["entries"]) {
        entry["timing"]["noise"]["converged"] = true;
        entry["resources"].erase("host_load");
    }
    std::ostringstream clean;
    write_markdown(clean, build_report({{"", typed(document)}}, {}));
    CHECK_THAT(clean.str(), !Catch::Contains("## Flags"));
}

TEST_CASE("the report's header says how long a sweep took, per shard in a merged file", "[report]") {
    json document = study();
    for (size_t i = 0; i < document["entries"].size(); ++i)
        document["entries"][i]["harness"]["finished_after_s"] = 10.0 * double(i + 1);
    const double last = 10.0 * double(document["entries"].size());
    const RunHeader whole = typed(document).header;
    REQUIRE(whole.wall_s.size() == 1);
    CHECK(whole.wall_s[0] == std::pair<int, double>{-1, last});
    CHECK(whole.wall_time() == std::to_string(int(last)) + ".0 s");
    // A merged file: each entry names its shard; shard 1's last entry finished at 20 s.
    json merged = document;
    for (size_t i = 0; i < merged["entries"].size(); ++i) merged["entries"][i]["shard"] = i == 1 ? 1 : 0;
    REQUIRE(merged["entries"].size() == 9);  // the last, shard 0's, at 90 s
    CHECK(typed(merged).header.wall_time() == "shard 0: 90.0 s, shard 1: 20.0 s (the longest 4.50x the shortest)");
    // A file continued with --resume counts each run from its own start: no wall time.
    merged["resumed"] = json::array();
    CHECK(typed(merged).header.wall_s.empty());

    // --newest: a later file of the machine measured the last entry again; the earlier file's
    // header tells the time of the entries the report keeps of it (the last at 80 s).
    using namespace runner_process;
    document["created"] = "2026-01-01T00:00:00Z";
    json later = results({{"sort_cuda", 100000, around(0.5e-3), 1e-3}});
    later["created"] = "2026-01-02T00:00:00Z";
    later["entries"][0]["harness"]["finished_after_s"] = 5.0;
    const auto earlier_file = temp_results("newest_earlier"), later_file = temp_results("newest_later");
    std::ofstream(earlier_file) << document.dump();
    std::ofstream(later_file) << later.dump();
    const std::string files = earlier_file.string() + " " + later_file.string();
    const Outcome all = run_runner("report " + files), newest = run_runner("report --newest " + files);
    INFO(all.output + newest.output);
    CHECK((all.status == 0 && newest.status == 0));
    CHECK_THAT(all.output, Catch::Contains("- wall time: 90.0 s") && Catch::Contains("- wall time: 5.0 s"));
    CHECK_THAT(newest.output, Catch::Contains("- wall time: 80.0 s") && Catch::Contains("- wall time: 5.0 s") &&
                                  !Catch::Contains("90.0 s"));
    std::filesystem::remove(earlier_file);
    std::filesystem::remove(later_file);
}

TEST_CASE("the studies view of a sweep without a GPU backend has no GPU columns", "[report]") {
    const json cpu_only = results({{"sort_naive", 1000, around(1e-3)}, {"sort_omp", 1000, around(0.1e-3)}});
    std::ostringstream out;
    write_studies_markdown(out, build_report({{"", typed(cpu_only)}}, {}));
    INFO(out.str());
    CHECK_THAT(out.str(), Catch::Contains("| size | language | backend | time | CPU RAM | CPU % | compile | lines |") &&
                              Catch::Contains("No GPU backend was measured") && !Catch::Contains("GPU RAM"));
}
