#include "plugin_scan.hpp"

#include "child_process.hpp"
#include "descriptor_check.hpp"
#include "plugin_library.hpp"
#include "plugin_scan_cache.hpp"
#include "reporting_child.hpp"
#include "text_format.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <iostream>

namespace gpubench {

namespace fs = std::filesystem;

int scan_main(int argc, const char *const *argv) {
    int report_fd = -1;
    if (argc != 4 || !parse_small_int(argv[3], report_fd)) {
        std::cerr << "runner " << scan_flag << ": error: expected PLUGIN_FILE REPORT_FD "
                  << "(started by the runner, not by hand)\n";
        return 2;
    }
    if (!start_helper()) return 0;
    std::string stage;
    const auto report = [&](const nlohmann::json &message) { report_or_exit(report_fd, message); };
    auto loaded = load_plugin(argv[2], [&](const char *name) {
        stage = name;
        report({{"stage", name}});
    });
    if (const auto *plugin = std::get_if<Plugin>(&loaded)) {
        PluginInfo info = plugin->info();
        if (info.has_availability_probe) {  // v1.4: asked here, on every scan
            stage = "asking available()";
            report({{"stage", stage}});
            char message[1024] = "";
            if (plugin->api().available(message, sizeof message) != GPUBENCH_OK) {
                message[sizeof message - 1] = '\0';
                info.unavailable_reason = printable_text(*message ? message : "available() said no");
            }
        }
        report({{"plugin", plugin_info_to_json(info)}});
    }
    else  // a library the dynamic loader refused may load in another environment: not cached
        report({{"refused", std::get<Refusal>(loaded).reason},
                {"cacheable", stage != "loading the library"}});
    std::_Exit(0);  // the library's destructors are not the scan's business
}

namespace {

// One file being scanned by a scanner process.
class ScanJob {
public:
    ScanJob(size_t index, const fs::path &file, const ScanSettings &settings, int stdout_fd)
        : index(index), file(file), settings_(settings) {
        try {
            child_.emplace(std::vector<std::string>{settings.runner.string(), scan_flag, file.string(), "3"},
                           stdout_fd);
        } catch (const std::exception &e) {
            result = Refusal{file, std::string("cannot scan: ") + e.what()};
            cacheable = false;
        }
    }

    const size_t index;
    const fs::path file;
    std::optional<ScanResult> result;
    bool cacheable = true;  // a time-out, or an environment's loader error, is asked again
    int fd() const { return child_ ? child_->fd() : -1; }

    // Reads what the scanner wrote, and notes its end; true once the job has a result.
    bool advance() {
        if (!result) read_lines();
        if (result) return true;
        if (const std::optional<int> status = child_->ended()) {
            read_lines();  // what it wrote just before it ended
            if (!result) refuse_after_exit(*status);
            return true;
        }
        if (child_->seconds() > settings_.timeout_s) {
            result = Refusal{file, "still " + stage_ + " after " + format_text("%g", settings_.timeout_s) +
                                       " s (a constructor that blocks?): killed (--scan-timeout)"};
            cacheable = false;
        }
        return result.has_value();
    }

private:
    void read_lines() {
        try {
            for (const std::string &line : child_->take_lines())
                if (!result) take_line(line);
        } catch (const std::length_error &) {
            result = Refusal{file, "the scanner's report is larger than " +
                                       std::to_string(max_report_bytes) + " bytes"};
        } catch (const std::exception &e) {
            result = Refusal{file, "the scanner's report did not parse (" + std::string(e.what()) +
                                       "): something in the library wrote to it?"};
        }
    }
    void take_line(const std::string &line) {
        const nlohmann::json message = nlohmann::json::parse(line);
        if (message.contains("stage")) stage_ = message.at("stage").get<std::string>();
        if (message.contains("refused")) {
            result = Refusal{file, message.at("refused").get<std::string>()};
            cacheable = message.value("cacheable", true);
        } else if (message.contains("plugin")) {
            // What arrives on the pipe is checked again: the library's code ran there.
            PluginInfo info = plugin_info_from_json(message.at("plugin"), file);
            cacheable = !info.has_availability_probe;  // its answer depends on the machine
            const std::string problem = plugin_info_problem(info);
            result = problem.empty() ? ScanResult(std::move(info)) : Refusal{file, problem};
        }
    }
    void refuse_after_exit(int status) {
        if (WIFSIGNALED(status))
            result = Refusal{file, "crashed while " + stage_ + ": " + describe_signal(WTERMSIG(status))};
        else
            result = Refusal{file, "exited with status " + std::to_string(WEXITSTATUS(status)) +
                                       " while " + stage_ + ", without a report (a constructor "
                                       "that calls exit()?)"};
    }

    const ScanSettings &settings_;
    std::optional<ReportingChild> child_;
    std::string stage_ = "starting the scanner";
};

}  // namespace

std::vector<ScanResult> scan_plugin_files(const std::vector<fs::path> &files,
                                          const ScanSettings &settings) {
    ScanCache cache(settings.cache);
    std::vector<std::optional<ScanResult>> results(files.size());
    std::vector<std::optional<FileIdentity>> identities(files.size());
    std::vector<size_t> todo;
    for (size_t i = 0; i < files.size(); ++i) {
        identities[i] = file_identity(files[i]);
        if (!identities[i])
            results[i] = Refusal{files[i], "cannot read the file"};
        else if (!settings.rescan)
            results[i] = cache.find(files[i], *identities[i]);
        if (!results[i]) todo.push_back(i);
    }
    std::vector<bool> cacheable(files.size(), false);
    run_helpers(
        todo.size(),
        [&](size_t i, int stdout_fd) {
            return std::make_unique<ScanJob>(todo[i], files[todo[i]], settings, stdout_fd);
        },
        [&](ScanJob &job) {
            results[job.index] = std::move(job.result);
            cacheable[job.index] = job.cacheable;
        });
    std::vector<ScanResult> out;
    for (size_t i = 0; i < files.size(); ++i) {
        // The identity from before the scan: a file replaced meanwhile is scanned again next time.
        if (cacheable[i] && identities[i]) cache.remember(files[i], *identities[i], *results[i]);
        out.push_back(std::move(*results[i]));
    }
    cache.save();
    return out;
}

}  // namespace gpubench
