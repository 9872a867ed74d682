#include "sanitizer.hpp"

#include "text_format.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <utility>

namespace gpubench {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::pair<SanitizerTool, const char *>, 4> tool_names{{
    {SanitizerTool::memcheck, "memcheck"},
    {SanitizerTool::racecheck, "racecheck"},
    {SanitizerTool::initcheck, "initcheck"},
    {SanitizerTool::synccheck, "synccheck"},
}};

constexpr const char *program_name = "compute-sanitizer";
constexpr const char *line_prefix = "=========";  // the tool's default --prefix
constexpr size_t max_first_errors = 3;

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

// One message of the log: a line at the prefix's level and the indented lines below it.
struct Message {
    std::string headline;
    std::vector<std::string> details;  // trimmed
};

std::vector<Message> split_messages(const std::string &log_text) {
    std::vector<Message> messages;
    std::istringstream in(log_text);
    std::string line;
    bool open = false;  // details may still join the last message (no separator seen)
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.starts_with(line_prefix)) continue;  // not the tool's (no such lines with --log-file)
        std::string rest = line.substr(std::string(line_prefix).size());
        if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
        if (trim(rest).empty()) {
            open = false;  // the blank line that ends an error's block
        } else if (rest[0] == ' ' || rest[0] == '\t') {
            if (open) messages.back().details.push_back(trim(rest));
        } else {
            messages.push_back({trim(rest), {}});
            open = true;
        }
    }
    return messages;
}

// racecheck reports its races as "Error: Race reported between ..." (analysis) and
// "Error: Potential RAW hazard detected at ..." (hazards): errors of the program, not the tool's.
bool is_race_report(const std::string &headline) {
    if (!headline.starts_with("Error: ")) return false;
    const std::string rest = headline.substr(7);
    return rest.starts_with("Race reported") || contains(rest, "hazard detected");
}

// Lines where the tool says it could not do its work.
bool is_tool_problem(const std::string &headline) {
    if (headline.starts_with("Error: ")) return !is_race_report(headline);
    static const char *const phrases[] = {
        "Unable to find injection library", "not supported", "is not a valid executable",
        "unable to initialize", "Could not connect to target application"};
    for (const char *p : phrases)
        if (contains(headline, p)) return true;
    return false;
}

// "Invalid __global__ write of size 4 bytes" + "at write_to(int *)+0x60 in probe.cu:6", or
// "Race reported between Write access at ..." + "and Read access at ... [256 hazards]".
std::string describe(const Message &m) {
    std::string text = m.headline.starts_with("Error: ") ? m.headline.substr(7) : m.headline;
    while (!text.empty() && (text.back() == ':' || text.back() == ' ')) text.pop_back();
    if (!m.details.empty() && (m.details[0].starts_with("at ") || m.details[0].starts_with("and ")))
        text += " " + m.details[0];
    return text;
}

}  // namespace

std::optional<SanitizerTool> sanitizer_tool_from_string(const std::string &name) {
    for (const auto &[tool, text] : tool_names)
        if (name == text) return tool;
    return std::nullopt;
}

const char *to_string(SanitizerTool tool) {
    for (const auto &[t, text] : tool_names)
        if (t == tool) return text;
    return "unknown";
}

std::optional<fs::path> find_compute_sanitizer(const std::string &toolkit_bin_dir) {
    std::vector<fs::path> folders;
    if (const char *path = std::getenv("PATH")) {
        std::istringstream in(path);
        std::string dir;
        // An empty entry means the current folder to a shell; a tool picked up from wherever the
        // runner happens to run is a surprise, so those are skipped.
        while (std::getline(in, dir, ':'))
            if (!dir.empty()) folders.emplace_back(dir);
    }
    if (!toolkit_bin_dir.empty()) folders.emplace_back(toolkit_bin_dir);
    folders.emplace_back("/usr/local/cuda/bin");
    for (const fs::path &dir : folders) {
        fs::path candidate = dir / program_name;
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec) || ::access(candidate.c_str(), X_OK) != 0) continue;
        fs::path absolute = fs::absolute(candidate, ec);
        return ec ? candidate : absolute;
    }
    return std::nullopt;
}

std::vector<std::string> sanitizer_command(const fs::path &sanitizer, SanitizerTool tool,
                                           const fs::path &log_file,
                                           const std::vector<std::string> &program_and_args) {
    std::vector<std::string> argv{
        sanitizer.string(),
        "--tool", to_string(tool),
        // The report goes to its own file: the worker's stdout/stderr stay the runner's. --log-file
        // expands %p, %q{VAR} and %%, and refuses any other '%': a literal '%' is "%%".
        "--log-file", std::regex_replace(log_file.string(), std::regex("%"), "%%"),
        // The default (100) is long for a worker whose every thread hits the same bug; the
        // summary still counts them all.
        "--print-limit", "20",
        // The worker starts no processes: only it is tracked, nothing is injected further.
        "--target-processes", "application-only",
        // A worker that exits before any CUDA call (a CPU entry, a refusal) is then a remark
        // of the log and exit status 0, not "Error: ..." and 255 as with the default.
        "--require-cuda-init", "no",
    };
    argv.insert(argv.end(), program_and_args.begin(), program_and_args.end());
    return argv;
}

SanitizerReport parse_sanitizer_log(const std::string &log_text, SanitizerTool tool) {
    static const std::regex error_summary(R"(ERROR SUMMARY: (\d+) errors?)");
    // racecheck: "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"; warnings are
    // not errors, and this version prints no ERROR SUMMARY beside it.
    static const std::regex race_summary(
        R"(RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?, \d+ warnings?\))");

    SanitizerReport report;
    report.tool = tool;
    std::optional<uint64_t> from_error_summary, from_race_summary;
    std::vector<std::string> problems;
    std::smatch m;
    for (const Message &msg : split_messages(log_text)) {
        const std::string &h = msg.headline;
        if (std::regex_match(h, m, error_summary)) {
            if (!from_error_summary) from_error_summary = std::stoull(m[1].str());
        } else if (std::regex_match(h, m, race_summary)) {
            from_race_summary = std::stoull(m[1].str());
        } else if (h.starts_with("ERROR SUMMARY:") || h.starts_with("LEAK SUMMARY:") ||
                   h.starts_with("RACECHECK SUMMARY:") || h == "COMPUTE-SANITIZER") {
            // "N errors were not printed", the leak total (its leaks are errors already), the banner
        } else if (is_tool_problem(h)) {
            problems.push_back(h);
        } else if (h.starts_with("Warning:")) {
            // racecheck's warnings: not counted as errors, not listed among them
        } else if (!msg.details.empty() || is_race_report(h)) {
            if (report.first_errors.size() < max_first_errors) report.first_errors.push_back(describe(msg));
        } else if (report.note.empty()) {
            report.note = h;  // e.g. "Target application returned an error"
        }
    }
    if (const auto errors = from_race_summary ? from_race_summary : from_error_summary) {
        report.summary_found = true;
        report.errors = *errors;
    }
    report.tool_problem = join(problems, "; ");
    return report;
}

std::string SanitizerReport::one_line() const {
    std::string line = std::string(program_name) + " " + to_string(tool) + ": ";
    if (summary_found) {
        line += std::to_string(errors) + (errors == 1 ? " error" : " errors");
        if (errors > 0 && !first_errors.empty()) line += " (first: " + first_errors.front() + ")";
        if (!tool_problem.empty()) line += "; " + tool_problem;
        return line;
    }
    line += "no error summary (" +
            (!tool_problem.empty() ? tool_problem
             : !note.empty()       ? note
                                   : "the process or the tool stopped before writing it") + ")";
    if (!first_errors.empty()) line += "; first error: " + first_errors.front();
    return line;
}

}  // namespace gpubench
