// The report formats' table (report_formats.hpp): every format runner report offers is a row
// with a writer, --format and its errors read the same table, and what runner report writes in
// a format is that row's writer's output.
#include "report_formats.hpp"
#include "report_html.hpp"
#include "results_model.hpp"
#include "runner_process.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <sstream>

using namespace gpubench;
using namespace runner_process;

namespace {

// A committed study: CPU and GPU backends, C++ and Python, several sizes.
const std::string study_file = GPUBENCH_SOURCE_DIR "/docs/studies/data/h100/vecadd-cpp-and-python-2026-11-24.json";

// What runner report builds from one results file.
ReportInput input_of_file(const std::string &file) {
    ReportInput input;
    input.labelled = {{"", read_results_file(file)}};
    input.baseline_backend = "naive";
    input.reports = build_report(input.labelled, {});
    return input;
}

}  // namespace

TEST_CASE("the report formats: one table of names, descriptions and writers", "[report][formats]") {
    std::set<std::string> names;
    for (const ReportFormat &format : report_formats()) {
        CHECK(names.insert(format.name).second);  // each name once
        CHECK(format.write != nullptr);
        CHECK(find_report_format(format.name) == &format);
    }
    CHECK(names == std::set<std::string>{"markdown", "csv", "json", "gbench", "html", "answer"});
    CHECK(find_report_format("xml") == nullptr);
    CHECK(find_report_format("") == nullptr);
    CHECK(report_format_list(false) == "markdown, csv, json, gbench, html, or answer");
    CHECK(report_format_list(true) == "markdown, csv, json, gbench (one file in Google Benchmark's JSON "
                                      "format), html (one self-contained interactive page: docs/html-report.md), "
                                      "or answer (each workload's answer line alone)");
    CHECK(find_report_format("html")->html_page);
    CHECK(find_report_format("gbench")->one_file);
    CHECK_FALSE(find_report_format("markdown")->html_page);

    const Outcome unknown = run_runner("report --format xml " + study_file);
    CHECK(unknown.status == 2);
    CHECK_THAT(unknown.output, Catch::Equals("runner report: error: --format 'xml': expected " +
                                             report_format_list(false) + "\n"));
    const Outcome help = run_runner("report --help");
    CHECK(help.status == 0);
    for (const std::string &name : names) CHECK_THAT(help.output, Catch::Contains(name));
}

TEST_CASE("runner report --format F writes F's writer's output, byte for byte", "[report][formats][cli]") {
    ReportInput input = input_of_file(study_file);
    REQUIRE_FALSE(input.reports.empty());
    std::set<std::string> outputs;
    for (const ReportFormat &format : report_formats()) {
        if (format.html_page) {
            try {
                input.plotly_js = slurp(find_plotly_js(""));
            } catch (const std::exception &e) {
                WARN("html not checked: " << e.what());
                continue;
            }
        }
        std::ostringstream written;
        format.write(written, input);
        const auto file = temp_results("report-format-" + format.name);
        const Outcome report = run_runner("report --format " + format.name + " -o " + file.string() + " " + study_file);
        INFO(format.name << ": " << report.output);
        CHECK(report.status == 0);
        CHECK(report.output.empty());
        CHECK(slurp(file) == written.str());
        CHECK(outputs.insert(written.str()).second);  // a format of its own
        std::filesystem::remove(file);
    }
}
