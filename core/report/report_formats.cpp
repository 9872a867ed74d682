#include "report_formats.hpp"

namespace gpubench {

// Each format's writer, defined in its own file (report_<format>.cpp).
void write_markdown_report(std::ostream &out, const ReportInput &input);
void write_csv_report(std::ostream &out, const ReportInput &input);
void write_json_report(std::ostream &out, const ReportInput &input);
void write_gbench_json_report(std::ostream &out, const ReportInput &input);
void write_html_report(std::ostream &out, const ReportInput &input);
void write_answer_report(std::ostream &out, const ReportInput &input);

const std::vector<ReportFormat> &report_formats() {
    static const std::vector<ReportFormat> formats = {
        {"markdown", "", write_markdown_report},
        {"csv", "", write_csv_report},
        {"json", "", write_json_report},
        {"gbench", "one file in Google Benchmark's JSON format", write_gbench_json_report, false, true},
        {"html", "one self-contained interactive page: docs/html-report.md", write_html_report, true},
        {"answer", "each workload's answer line alone", write_answer_report},
    };
    return formats;
}

const ReportFormat *find_report_format(const std::string &name) {
    for (const ReportFormat &format : report_formats())
        if (format.name == name) return &format;
    return nullptr;
}

std::string report_format_list(bool described) {
    const std::vector<ReportFormat> &formats = report_formats();
    std::string list;
    for (size_t i = 0; i < formats.size(); ++i) {
        if (i > 0) list += i + 1 == formats.size() ? ", or " : ", ";
        list += formats[i].name;
        if (described && !formats[i].description.empty()) list += " (" + formats[i].description + ")";
    }
    return list;
}

}  // namespace gpubench
