// The formats runner report writes, in one table: --format's values, their --help text and
// their writers, each writer in a file of its own (report_<format>.cpp), all written from one
// ReportInput. A new format is its writer's file, its row in report_formats.cpp and its line
// in CMakeLists.txt.
#pragma once

#include "history_store.hpp"
#include "report.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

// What every format is written from: the results files, read and checked (read_results_file)
// and labelled by column source ("" for one source), the report built from them, and what only
// the HTML page shows (the history's trends, plotly.js).
struct ReportInput {
    std::vector<std::pair<std::string, ResultsDocument>> labelled;
    std::vector<WorkloadReport> reports;  // build_report over them
    std::string baseline_backend;         // --baseline
    std::optional<std::vector<HistorySeries>> history;  // --history
    std::string plotly_js;  // the HTML page's plotting library (its text), embedded in the page
};

struct ReportFormat {
    std::string name;         // --format's value
    std::string description;  // what --help adds to the name; "" when the name says it
    void (*write)(std::ostream &out, const ReportInput &input);
    // An HTML page: it alone takes --plotly-js and --history, and with --history it needs no
    // results file (a page of the history alone).
    bool html_page = false;
    bool one_file = false;  // converts exactly one results file
};

// Every format, in the order --help lists them.
const std::vector<ReportFormat> &report_formats();

// The format named `name`; nullptr when there is none.
const ReportFormat *find_report_format(const std::string &name);

// The formats as one phrase: "markdown, csv, ..., or html"; with `described`, each name
// followed by its description in parentheses where it has one.
std::string report_format_list(bool described);

}  // namespace gpubench
