// --format html (report_formats.hpp), the page (report_html.hpp): the data as one JSON block,
// plotly.js compressed, and the page's own style and script (core/report/report_page/,
// compiled in as report_page.hpp).
#include "report_html.hpp"

#include "report_page.hpp"

namespace gpubench {

// The page's own script and style go in raw: none may close its element ("</script>").
static_assert(report_page_js.find("</") == std::string_view::npos, "core/report/report_page/*.js contains '</'");
static_assert(report_page_css.find("</") == std::string_view::npos, "core/report/report_page/report.css contains '</'");

std::string script_safe_json(const nlohmann::json &value) {
    const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    // Outside strings JSON has none of these; inside a string the escape reads the same, and
    // no "</script>" or "<!--" can end or change the script element.
    std::string safe;
    safe.reserve(text.size());
    for (char ch : text) {
        if (ch == '<') safe += "\\u003c";
        else if (ch == '>') safe += "\\u003e";
        else if (ch == '&') safe += "\\u0026";
        else safe += ch;
    }
    return safe;
}

void write_html_report(std::ostream &out, const ReportInput &input) {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"generator\" content=\"gpubench runner report --format html\">\n"
           "<title>gpubench report</title>\n"
           "<link rel=\"icon\" href=\"data:,\">\n"  // no favicon fetched from disk
           "<style>\n"
        << report_page_css
        << "</style>\n</head>\n<body>\n"
           "<noscript><p class=\"problem\">This report is drawn by JavaScript: allow scripts to see it.</p></noscript>\n"
           "<div id=\"report\"></div>\n"
           "<script type=\"application/json\" id=\"gpubench-data\">"
        << script_safe_json(html_report_data(input))
        << "</script>\n"
           // plotly.js, gzip then base64: the script inflates it with DecompressionStream.
           "<script type=\"application/octet-stream\" id=\"plotly-gzip-base64\">"
        << gzip_base64(input.plotly_js) << "</script>\n<script>\n"
        << report_page_js << "</script>\n</body>\n</html>\n";
}

}  // namespace gpubench
