#include "cli.hpp"
#include "report.hpp"
#include "report_studies.hpp"
#include "results_model.hpp"
#include "subcommand_options.hpp"
#include "subcommands.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

namespace gpubench {

namespace po = boost::program_options;

namespace {

// What names a file's columns: its GPU, else its host. Files of one machine that measured
// different things (a GPU sweep and a CPU sweep of one study) share the name and so one
// table; files of one machine that measured the same things (two commits) are told apart
// by their file names.
std::vector<std::string> source_labels(const std::vector<std::string> &paths,
                                       const std::vector<ResultsDocument> &documents) {
    std::vector<std::string> labels;
    for (const ResultsDocument &d : documents) labels.push_back(d.gpu_name.value_or(d.host_name));
    std::vector<std::set<std::string>> identities(documents.size());
    for (size_t i = 0; i < documents.size(); ++i)
        for (const RecordedEntry &e : documents[i].entries) identities[i].insert(e.identity());
    std::vector<std::string> named = labels;
    for (size_t i = 0; i < labels.size(); ++i)
        for (size_t j = 0; j < labels.size(); ++j) {
            if (i == j || labels[i] != labels[j]) continue;
            const auto &a = identities[i], &b = identities[j];
            const bool overlap = std::any_of(a.begin(), a.end(), [&](const std::string &k) { return b.count(k); });
            if (overlap) named[i] = labels[i] + " (" + std::filesystem::path(paths[i]).stem().string() + ")";
        }
    return named;
}

}  // namespace

int report_command(int argc, const char *const *argv) {
    std::vector<std::string> files;
    std::string baseline = "naive", format = "markdown", output;
    po::options_description options(
        "Usage: runner report RESULTS.json [MORE.json...] [options]\n"
        "Per workload: median compute and end-to-end time by size and backend, speedups over a\n"
        "baseline, and the size from which each GPU backend beats the best CPU one end to end;\n"
        "in Markdown then the studies view: per size, each backend's time, memory, CPU and GPU\n"
        "use, compile time and lines of code, by language.\n"
        "Several files are put side by side, each column named by its machine.\nOptions");
    options.add_options()
        ("help,h", "show this help")
        ("baseline", po::value<std::string>(&baseline)->default_value(baseline),
         "backend the speedups are against (falls back to the first CPU backend)")
        ("format", po::value<std::string>(&format)->default_value(format),
         "markdown, csv, json, or gbench (one file in Google Benchmark's JSON format)")
        ("output,o", po::value<std::string>(&output), "write to this file instead of stdout");
    try {
        if (parse_subcommand(argc, argv, options, files)) return exit_ok;
        if (files.empty()) throw std::invalid_argument("no results file given");
        if (format != "markdown" && format != "csv" && format != "json" && format != "gbench")
            throw std::invalid_argument("--format '" + format +
                                        "': expected markdown, csv, json or gbench");
        if (format == "gbench" && files.size() != 1)
            throw std::invalid_argument("--format gbench converts one results file at a time");
        // Each file checked against results/schema.json before anything is read from it.
        std::vector<ResultsDocument> documents;
        for (const std::string &file : files) documents.push_back(read_results_file(file));
        const std::vector<std::string> labels = source_labels(files, documents);
        // One source (all files of one machine, or one file): no machine in the column names.
        const bool one_source = std::set<std::string>(labels.begin(), labels.end()).size() == 1;
        std::vector<std::pair<std::string, ResultsDocument>> labelled;
        for (size_t i = 0; i < documents.size(); ++i)
            labelled.emplace_back(one_source ? "" : labels[i], std::move(documents[i]));
        ReportOptions report_options;
        report_options.baseline_backend = baseline;
        const std::vector<WorkloadReport> reports = build_report(labelled, report_options);
        std::ofstream file;
        if (!output.empty()) {
            file.open(output);
            if (!file) throw std::runtime_error("cannot write " + output);
        }
        std::ostream &out = output.empty() ? std::cout : file;
        if (format == "markdown") {
            write_markdown(out, reports);
            write_studies_markdown(out, reports);
        }
        if (format == "csv") write_csv(out, reports);
        if (format == "json") out << report_json(reports).dump(1) << '\n';
        if (format == "gbench") out << gbench_json(labelled.front().second).dump(1) << '\n';
        return reports.empty() ? exit_skipped : exit_ok;
    } catch (const std::exception &e) {
        std::cerr << "runner report: error: " << e.what() << '\n';
        return exit_usage;
    }
}

}  // namespace gpubench
