// The self-contained HTML report (runner report --format html): per workload, interactive
// plots (plotly.js, embedded) and the tables of the Markdown report, the studies view, the
// flags explained and a header naming the machine, GPUs, driver, commit, date and options;
// with a history database, each entry's trend over commits with its change points.
//
// The C++ side gathers the page's data into one JSON object (html_report_data) and writes the
// page around it; the drawing is core/report/report_page/report.js, compiled in. docs/html-report.md
// is the user's manual.
#pragma once

#include "report_formats.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace gpubench {

// The page's data: "files" (each run_header, options explained), "flags" (the glossary),
// "backends" (name -> colour, one per backend across the page), "workloads" (per report:
// columns with per-size summaries, with --counters each point's declared and counted work;
// crossover, sizes' meaning; "roofline", the roofs of the devices its counted points ran on)
// and "history" (series with "change_points"). Only the documents' verified entries appear.
nlohmann::json html_report_data(const ReportInput &input);

// The colour of each backend name: a fixed palette, assigned in name order, distinct for the
// first 48 names (then reused).
nlohmann::json backend_colours(const std::vector<std::string> &backends);

// JSON text that is safe inside <script>: '<', '>' and '&' written as \u escapes, invalid
// UTF-8 replaced.
std::string script_safe_json(const nlohmann::json &value);

// Where plotly.js is: `explicit_path` (--plotly-js) when given, else $GPUBENCH_PLOTLY_JS, else
// <runner's dir>/../share/gpubench/plotly.js, else Debian's /usr/share/python3-plotly/plotly.js.
// Throws std::runtime_error with one line naming what to install when none is readable.
std::filesystem::path find_plotly_js(const std::string &explicit_path);

}  // namespace gpubench
