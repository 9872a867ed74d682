// Shared by the HTML report's tests (test_report_html.cpp, test_report_roofline.cpp): the
// report's input from results documents, the page --format html writes, and its data block.
#pragma once

#include "report_formats.hpp"
#include "report_html.hpp"
#include "results.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace report_page_support {

// The input the report formats take, as runner report builds it; `labels`: each document's
// source, as for files of several machines (none: one source).
inline gpubench::ReportInput input_of(const std::vector<nlohmann::json> &documents,
                                      const std::vector<std::string> &labels = {}) {
    gpubench::ReportInput input;
    for (size_t i = 0; i < documents.size(); ++i) {
        const std::string file = "file" + std::to_string(i) + ".json";
        input.labelled.emplace_back(i < labels.size() ? labels[i] : "", gpubench::results_document(documents[i], file));
    }
    input.reports = gpubench::build_report(input.labelled, {});
    input.baseline_backend = "naive";
    return input;
}

// The data block of a page, parsed back.
inline nlohmann::json page_data(const std::string &page) {
    const std::string open = "<script type=\"application/json\" id=\"gpubench-data\">";
    const size_t begin = page.find(open);
    REQUIRE(begin != std::string::npos);
    const size_t end = page.find("</script>", begin);
    return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

// The column of `backend` in a workload of the page's data.
inline const nlohmann::json &column(const nlohmann::json &workload, const std::string &backend) {
    for (const nlohmann::json &c : workload.at("columns"))
        if (c.at("backend") == backend) return c;
    FAIL("no column " << backend);
    throw;
}

// The plotly.js the runner embeds; a machine without one (no python3-plotly when the build was
// configured) skips the tests that need the real page.
inline std::filesystem::path plotly_or_skip() {
    try {
        return gpubench::find_plotly_js("");
    } catch (const std::exception &e) {
        test_support::skip_test(e.what());
    }
}

// The page --format html writes (its writer from the formats' table).
inline std::string page_of(gpubench::ReportInput input, const std::string &plotly_js = "window.Plotly = {};") {
    input.plotly_js = plotly_js;
    const gpubench::ReportFormat *html = gpubench::find_report_format("html");
    REQUIRE(html);
    std::ostringstream out;
    html->write(out, input);
    return out.str();
}

}  // namespace report_page_support
