// --format html (report_formats.hpp), the page (report_html.hpp): the data as one JSON block,
// plotly.js compressed, and the page's own style and script (core/report/report_page/,
// compiled in as report_page.hpp); where plotly.js is found, and how the page carries it (gzip
// then base64, about 2.5 MB for the 8.6 MB library).
#include "report_html.hpp"

#include "report_page.hpp"
#include "text_format.hpp"

#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace gpubench {

namespace fs = std::filesystem;

namespace {

bool readable_file(const fs::path &path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec) && std::ifstream(path).good();
}

const char *const install_hint = "install it with 'apt-get install python3-plotly' or name it with --plotly-js PATH";

std::string gzip(const std::string &text) {
    z_stream stream{};
    // windowBits 15 + 16: a gzip header and trailer, which DecompressionStream('gzip') reads.
    if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("zlib: deflateInit2 failed");
    std::string out(deflateBound(&stream, uLong(text.size())), '\0');
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
    stream.avail_in = uInt(text.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = uInt(out.size());
    const int status = deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    if (status != Z_STREAM_END) throw std::runtime_error("zlib: deflate failed");
    return out;
}

std::string base64(const std::string &bytes) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const size_t n = std::min<size_t>(3, bytes.size() - i);
        uint32_t chunk = 0;
        for (size_t k = 0; k < 3; ++k)
            chunk = chunk << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
        for (size_t k = 0; k < 4; ++k) out += k <= n ? alphabet[(chunk >> (18 - 6 * k)) & 63] : '=';
    }
    return out;
}

}  // namespace

fs::path find_plotly_js(const std::string &explicit_path) {
    const char *env = std::getenv("GPUBENCH_PLOTLY_JS");
    if (const std::string named = !explicit_path.empty() ? explicit_path : env ? env : ""; !named.empty()) {
        if (readable_file(named)) return named;
        throw std::runtime_error(std::string("plotly.js: cannot read ") +
                                 (explicit_path.empty() ? "$GPUBENCH_PLOTLY_JS " : "--plotly-js ") + named + "; " +
                                 install_hint);
    }
    std::vector<fs::path> candidates;
    std::error_code ec;
    if (const fs::path runner = fs::read_symlink("/proc/self/exe", ec); !ec)
        candidates.push_back(runner.parent_path() / ".." / "share" / "gpubench" / "plotly.js");
    candidates.emplace_back("/usr/share/python3-plotly/plotly.js");
    for (const fs::path &candidate : candidates)
        if (readable_file(candidate)) return candidate.lexically_normal();
    throw std::runtime_error("plotly.js not found (looked in " + candidates.front().lexically_normal().string() +
                             (candidates.size() > 1 ? " and " + candidates.back().string() : "") + "); " +
                             install_hint);
}

// The page's own script and style go in raw: none may close its element ("</script>").
static_assert(report_page_js.find("</") == std::string_view::npos, "core/report/report_page/*.js contains '</'");
static_assert(report_page_css.find("</") == std::string_view::npos, "core/report/report_page/report.css contains '</'");

std::string script_safe_json(const nlohmann::json &value) {
    const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    // Outside strings JSON has none of these; inside a string the escape reads the same, and
    // no "</script>" or "<!--" can end or change the script element.
    std::string safe;
    safe.reserve(text.size());
    for (char ch : text)
        if (ch == '<' || ch == '>' || ch == '&')
            safe += format_text("\\u%04x", ch);
        else
            safe += ch;
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
        << base64(gzip(input.plotly_js)) << "</script>\n<script>\n"
        << report_page_js << "</script>\n</body>\n</html>\n";
}

}  // namespace gpubench
