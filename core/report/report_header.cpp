// The parts of a Markdown report around its tables: the header naming the run behind each
// results file (RunHeader, results_model.hpp), and the glossary of the flags that mark entries.
#include "report.hpp"

#include "check.hpp"
#include "text_format.hpp"

#include <set>

namespace gpubench {

using nlohmann::json;

namespace {

// A command line as one would type it: words with spaces or shell characters in quotes.
std::string shell_words(const std::vector<std::string> &words) {
    std::string line;
    for (const std::string &word : words) {
        const bool plain = !word.empty() && word.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%") == std::string::npos;
        std::string quoted = "'";
        for (char ch : word) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
        line += (line.empty() ? "" : " ") + (plain ? word : quoted + "'");
    }
    return line;
}

// The file's options as "seed 42; cpu_threads 2; param_axes dtype=float32,float64...".
std::string options_text(const json &options) {
    std::string text;
    for (const auto &[key, value] : options.items()) {
        std::string shown;
        if (value.is_string()) {
            shown = value.get<std::string>();
        } else if (key == "param_axes" && value.is_object()) {
            for (const auto &[name, values] : value.items()) {
                std::string list;
                for (const json &v : values)
                    list += (list.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
                shown += (shown.empty() ? "" : " ") + name + "=" + list;
            }
        } else {
            shown = value.dump();
        }
        text += (text.empty() ? "" : "; ") + key + " " + (shown.empty() ? "\"\"" : shown);
    }
    return text;
}

// Inline code that holds any text: fenced by more backticks than it contains in a row.
std::string code_span(const std::string &text) {
    std::string fence = "`";
    while (text.find(fence) != std::string::npos) fence += '`';
    return fence + " " + text + " " + fence;
}

}  // namespace

void write_markdown_header(std::ostream &out, const std::vector<RunHeader> &runs) {
    out << "# gpubench report\n\n";
    for (const RunHeader &h : runs) {
        out << "**" << printable_text(h.file) << "**\n\n"
            << "- machine: " << printable_text(h.machine()) << (h.os.empty() ? "" : ", " + printable_text(h.os))
            << "\n- GPUs: " << (h.gpus.empty() ? "none" : printable_text(h.gpu_list()))
            << "\n- driver: " << (h.driver.empty() ? "none" : "CUDA " + h.driver)
            << "\n- commit: " << printable_text(h.commit)
            << "\n- date: " << (h.created.empty() ? "unknown" : printable_text(h.created))
            << "\n- build: " << printable_text(h.build())
            << "\n- options: " << printable_text(options_text(h.options))
            << (h.wall_s.empty() ? "" : "\n- wall time: " + h.wall_time() + " (until the last entry finished)")
            << "\n- command line: " << code_span(printable_text(shell_words(h.command_line))) << "\n\n";
    }
}

void write_flag_glossary(std::ostream &out, const std::vector<WorkloadReport> &reports) {
    std::set<std::string> seen;
    for (const WorkloadReport &r : reports)
        for (const ReportColumn &c : r.columns)
            for (const auto &[size, point] : c.points) seen.insert(point.figures.flags.begin(), point.figures.flags.end());
    if (seen.empty()) return;
    out << "## Flags\n\nA flag after a time marks an entry whose numbers need care:\n";
    for (const auto &[flag, meaning] : flag_glossary())
        if (seen.erase(flag)) out << "\n- *" << flag << "*: " << meaning;
    for (const std::string &flag : seen)  // set by a newer runner than this report
        out << "\n- *" << printable_text(flag) << "*: not known to this version of the report";
    out << "\n\n";
}

}  // namespace gpubench
