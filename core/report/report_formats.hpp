// The formats runner report writes, in one table: --format's values, their --help text and
// their writers, each writer in a file of its own (report_<format>.cpp). A new format is its
// writer's file, its row in report_formats.cpp and its line in CMakeLists.txt.
#pragma once

#include "report_input.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace gpubench {

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
