#include "work_query.hpp"

#include "child_process.hpp"
#include "plugin_instance.hpp"
#include "plugin_library.hpp"
#include "reporting_child.hpp"
#include "text_format.hpp"

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <utility>

namespace gpubench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The figures of declared work that the helper reports, each finite and not negative.
constexpr std::pair<const char *, double Work::*> work_figures[] = {
    {"flops", &Work::flops},           {"bytes", &Work::bytes},           {"items", &Work::items},
    {"host_bytes", &Work::host_bytes}, {"device_bytes", &Work::device_bytes}, {"launches", &Work::launches}};

// An answer as it arrived: checked again, as the library's code ran where it was written.
WorkAnswer work_from_report(const json &report) {
    Work work;
    for (const auto &[name, figure] : work_figures) {
        const auto found = report.find(name);
        if (found == report.end() || !found->is_number() || !std::isfinite(found->get<double>()) ||
            found->get<double>() < 0)
            return std::string("work() declared no finite, non-negative ") + name;
        work.*figure = found->get<double>();
    }
    return work;
}

std::string how_it_ended(int status) {
    if (WIFSIGNALED(status)) return "the helper crashed: " + describe_signal(WTERMSIG(status));
    return "the helper exited with status " + std::to_string(WEXITSTATUS(status)) + " before answering";
}

// One plugin's query, in its helper process.
class QueryJob {
public:
    QueryJob(size_t index, const WorkQuery &query, const fs::path &runner, double timeout_s, int stdout_fd)
        : index(index), sizes_(query.sizes.size()), timeout_s_(timeout_s) {
        if (query.sizes.empty()) return;
        std::string sizes;
        for (uint64_t size : query.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(size);
        try {
            child_.emplace(std::vector<std::string>{runner.string(), work_query_flag, query.plugin_file.string(),
                                                    "3", query.params, std::to_string(query.devices), sizes},
                           stdout_fd);
        } catch (const std::exception &e) {
            fail_the_rest(std::string("cannot start the helper: ") + e.what());
        }
    }

    const size_t index;
    std::vector<WorkAnswer> answers;
    int fd() const { return child_ ? child_->fd() : -1; }

    // Reads what the helper wrote, and notes its end; true once every size has an answer.
    bool advance() {
        if (!done()) read_lines();
        if (done()) return true;
        if (const std::optional<int> status = child_->ended()) {
            read_lines();  // what it wrote just before it ended
            fail_the_rest(how_it_ended(*status));
        } else if (child_->seconds() > timeout_s_) {
            fail_the_rest(format_text("no answer after %g s (--scan-timeout)", timeout_s_));
        }
        return done();
    }

private:
    bool done() const { return answers.size() == sizes_; }
    void fail_the_rest(const std::string &why) {
        while (!done()) answers.push_back(why);
    }
    void read_lines() {
        try {
            for (const std::string &line : child_->take_lines())
                if (!done()) take_line(json::parse(line));
        } catch (const std::length_error &) {
            fail_the_rest("the helper's report is larger than " + std::to_string(max_report_bytes) + " bytes");
        } catch (const std::exception &e) {
            fail_the_rest("the helper's report did not parse (" + std::string(e.what()) + ")");
        }
    }
    void take_line(const json &report) {
        if (report.contains("refused"))
            fail_the_rest("cannot load the plugin: " + report.at("refused").get<std::string>());
        else if (report.contains("error"))
            answers.push_back(report.at("error").get<std::string>());
        else
            answers.push_back(work_from_report(report));
    }

    const size_t sizes_;
    const double timeout_s_;
    std::optional<ReportingChild> child_;
};

}  // namespace

// Reports one line per size, in order: the work_figures or {"error"}; or a single {"refused"}
// when the file does not load.
int work_query_main(int argc, const char *const *argv) {
    int report_fd = -1, devices = 0;
    std::vector<uint64_t> sizes;
    try {
        if (argc == 7) sizes = parse_sizes(argv[6]);
    } catch (const std::invalid_argument &) {
    }
    if (sizes.empty() || !parse_small_int(argv[3], report_fd) || !parse_small_int(argv[5], devices)) {
        std::cerr << "runner " << work_query_flag << ": error: expected PLUGIN_FILE REPORT_FD PARAMS "
                  << "DEVICES SIZES (started by the runner, not by hand)\n";
        return 2;
    }
    if (!start_helper()) return 0;
    auto loaded = load_plugin(argv[2]);
    if (const auto *refusal = std::get_if<Refusal>(&loaded)) {
        report_or_exit(report_fd, {{"refused", refusal->reason}});
        std::_Exit(0);
    }
    const gpubench_plugin &api = std::get<Plugin>(loaded).api();
    for (uint64_t size : sizes) try {
            const Work work = query_work(api, size, argv[4], devices);
            json report;
            for (const auto &[name, figure] : work_figures) report[name] = work.*figure;
            report_or_exit(report_fd, report);
        } catch (const PluginFailure &failure) {
            report_or_exit(report_fd, {{"error", failure.message}});
        }
    std::_Exit(0);  // the library's destructors are not the query's business
}

std::vector<std::vector<WorkAnswer>> query_declared_work(const std::vector<WorkQuery> &queries,
                                                         const fs::path &runner, double timeout_s) {
    std::vector<std::vector<WorkAnswer>> answers(queries.size());
    run_helpers(
        queries.size(),
        [&](size_t i, int stdout_fd) {
            return std::make_unique<QueryJob>(i, queries[i], runner, timeout_s, stdout_fd);
        },
        [&](QueryJob &job) { answers[job.index] = std::move(job.answers); });
    return answers;
}

}  // namespace gpubench
