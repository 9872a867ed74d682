#include "cli.hpp"
#include "file_text.hpp"
#include "history_store.hpp"
#include "report.hpp"
#include "report_formats.hpp"
#include "report_html.hpp"
#include "results_model.hpp"
#include "subcommands.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

namespace gpubench {

namespace po = boost::program_options;

namespace {

// What names a file's columns: its GPU, else its host. Files of one machine that measured
// different things (a GPU sweep and a CPU sweep of one study) share the name and so one
// table; files of one machine that measured the same things (two commits) are told apart
// by their file names (after --newest, none are), unless `pooled`: then they are runs of one
// column.
std::vector<std::string> source_labels(const std::vector<std::string> &paths,
                                       const std::vector<ResultsDocument> &documents, bool pooled) {
    std::vector<std::string> labels;
    for (const ResultsDocument &d : documents) labels.push_back(d.gpu_name.value_or(d.header.host_name));
    std::vector<std::set<EntryIdentity>> identities(documents.size());  // in any seed
    for (size_t i = 0; i < documents.size(); ++i)
        for (const EntryResult &e : documents[i].entries)
            if (e.status == EntryStatus::ok) identities[i].insert(e.identity().any_seed());  // only verified ones are reported
    std::vector<std::string> named = labels;
    if (pooled) return named;
    for (size_t i = 0; i < labels.size(); ++i)
        for (size_t j = 0; j < labels.size(); ++j)
            if (i != j && labels[i] == labels[j] &&
                std::ranges::any_of(identities[i], [&](const EntryIdentity &k) { return identities[j].count(k); }))
                named[i] = labels[i] + " (" + std::filesystem::path(paths[i]).stem().string() + ")";
    return named;
}

// --newest: where several files of one machine hold the same verified entry (in any seed),
// only the newest file's stays.
void keep_newest_entries(std::vector<ResultsDocument> &documents) {
    using MachineEntry = std::pair<std::string, EntryIdentity>;
    std::map<MachineEntry, size_t> newest;  // -> the document holding it last
    auto key = [&](size_t i, const EntryResult &e) {
        return MachineEntry{documents[i].gpu_name.value_or(documents[i].header.host_name), e.identity().any_seed()};
    };
    for (size_t i = 0; i < documents.size(); ++i)
        for (const EntryResult &e : documents[i].entries) {
            if (e.status != EntryStatus::ok) continue;
            auto [it, added] = newest.emplace(key(i, e), i);
            if (!added && documents[i].header.created >= documents[it->second].header.created) it->second = i;
        }
    for (size_t i = 0; i < documents.size(); ++i) {
        std::erase_if(documents[i].entries,
                      [&](const EntryResult &e) { return e.status == EntryStatus::ok && newest.at(key(i, e)) != i; });
        documents[i].header.time_sweep(documents[i].entries);  // the header describes what is kept
    }
}

// The command line of runner report.
struct ReportRequest {
    std::vector<std::string> files;
    std::string baseline = "naive", format = "markdown", output, plotly_js_path, history;
    bool newest = false, pool = false;
};

po::options_description report_options(ReportRequest &r) {
    po::options_description options(
        "Usage: runner report RESULTS.json [MORE.json...] [options]\n"
        "       runner report --format html --history DB [RESULTS.json...] [-o PAGE.html]\n"
        "Per workload: median compute and end-to-end time by size and backend, speedups over a\n"
        "baseline, and the size from which each GPU backend beats the best CPU one end to end;\n"
        "in Markdown then the studies view: per size, each backend's time, memory, CPU and GPU\n"
        "use, compile time and lines of code, by language.\n"
        "Several files are put side by side, each column named by its machine.\nOptions");
    options.add_options()
        ("help,h", "show this help")
        ("baseline", po::value<std::string>(&r.baseline)->default_value(r.baseline),
         "backend the speedups are against (falls back to the first CPU backend)")
        ("format", po::value<std::string>(&r.format)->default_value(r.format), report_format_list(true).c_str())
        ("output,o", po::value<std::string>(&r.output), "write to this file instead of stdout")
        ("newest", po::bool_switch(&r.newest),
         "where several files of one machine hold the same entry, report only the newest file's "
         "(a folder of runs over time, reported as its latest state)")
        ("pool", po::bool_switch(&r.pool),
         "files of one machine are repeat runs: one column per backend holds all their entries "
         "(the tables show the last file's at a size), and the answer's interval holds the drift "
         "between the runs as well as within each")
        ("plotly-js", po::value<std::string>(&r.plotly_js_path),
         "html: the plotly.js to embed (default: $GPUBENCH_PLOTLY_JS, else the installed one, "
         "else /usr/share/python3-plotly/plotly.js)")
        ("history", po::value<std::string>(&r.history),
         "html: add each entry's trend over commits from this history database (runner history); "
         "with no results file, a page of the history alone");
    return options;
}

// What the command line alone can tell is wrong; the format asked for.
const ReportFormat &check_report_request(const ReportRequest &r) {
    const ReportFormat *format = find_report_format(r.format);
    if (r.files.empty() && !(format && format->html_page && !r.history.empty()))
        throw std::invalid_argument("no results file given");
    if (!format) throw std::invalid_argument("--format '" + r.format + "': expected " + report_format_list(false));
    if (!format->html_page && (!r.history.empty() || !r.plotly_js_path.empty()))
        throw std::invalid_argument("--history and --plotly-js are for --format html");
    if (r.pool && r.newest) throw std::invalid_argument("--pool keeps every file's entries: it cannot go with --newest");
    if (format->one_file && r.files.size() != 1)
        throw std::invalid_argument("--format " + format->name + " converts one results file at a time");
    return *format;
}

// The results files read (each checked against core/base/results_schema.json before anything is
// read from it), each labelled by its source, and the report built from them.
ReportInput read_reports(const ReportRequest &r) {
    ReportInput input;
    input.baseline_backend = r.baseline;
    std::vector<ResultsDocument> documents;
    for (const std::string &file : r.files) documents.push_back(read_results_file(file));
    if (r.newest) keep_newest_entries(documents);
    const std::vector<std::string> labels = source_labels(r.files, documents, r.pool);
    // One source (all files of one machine, or one file): no machine in the column names.
    const bool one_source = std::set<std::string>(labels.begin(), labels.end()).size() == 1;
    for (size_t i = 0; i < documents.size(); ++i)
        input.labelled.emplace_back(one_source ? "" : labels[i], std::move(documents[i]));
    input.reports = build_report(input.labelled, ReportOptions{r.baseline});
    return input;
}

// Writes the report in `format` to --output or stdout; returns the exit status.
int write_report(const ReportRequest &r, const ReportFormat &format, const ReportInput &input) {
    std::ofstream file;
    if (!r.output.empty()) {
        file.open(r.output);
        if (!file) throw std::runtime_error("cannot write " + r.output);
    }
    std::ostream &out = r.output.empty() ? std::cout : file;
    format.write(out, input);
    if (!out.flush()) throw std::runtime_error("cannot write " + (r.output.empty() ? "stdout" : r.output));
    return input.reports.empty() && !input.labelled.empty() ? exit_skipped : exit_ok;  // a history page alone: ok
}

}  // namespace

int report_command(int argc, const char *const *argv) {
    ReportRequest request;
    const po::options_description options = report_options(request);
    if (parse_subcommand(argc, argv, options, &request.files)) return exit_ok;
    const ReportFormat &format = check_report_request(request);
    // html: plotly.js and the history read before anything is written.
    std::string plotly_js = format.html_page ? read_file_text(find_plotly_js(request.plotly_js_path)) : "";
    std::optional<std::vector<HistorySeries>> history;
    if (!request.history.empty()) history = history_series(request.history);
    ReportInput input = read_reports(request);
    input.history = std::move(history);
    input.plotly_js = std::move(plotly_js);
    return write_report(request, format, input);
}

}  // namespace gpubench
