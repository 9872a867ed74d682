// What every report format is written from (report_formats.hpp): the results files as read
// and checked, the same typed and labelled by source, the report built from them, and what
// only the HTML page shows (the history's trends, plotly.js).
#pragma once

#include "history_store.hpp"
#include "report.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct ReportInput {
    std::vector<std::string> files;  // the results files, as given
    // Each read and checked (read_results_file), with its column source ("" for one source):
    // build_report's input.
    std::vector<std::pair<std::string, ResultsDocument>> labelled;
    std::vector<WorkloadReport> reports;  // build_report over them
    std::string baseline_backend;         // --baseline
    std::optional<std::vector<HistorySeries>> history;  // --history
    std::string plotly_js;  // the HTML page's plotting library (its text), embedded in the page
};

}  // namespace gpubench
