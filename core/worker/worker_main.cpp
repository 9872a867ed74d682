#include "worker_main.hpp"

#include "child_process.hpp"
#include "elapsed.hpp"
#include "entry_json.hpp"  // a budget's Work
#include "entry_measurer.hpp"
#include "json_fields.hpp"
#include "results_model.hpp"  // the options' fields

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <optional>

namespace gpubench {
namespace {

// A request is one entry's options: far below this.
constexpr size_t max_request_bytes = 1 << 20;

}  // namespace

GPUBENCH_JSON_FIELDS(RunBudget, limit_s, from_size, from_median_s, from_work, from_outside_s,
                     outside_limit_s, behind)

nlohmann::json request_to_wire(const WorkerRequest &r) {
    nlohmann::json wire = {
        {"size", r.size}, {"options", r.options}, {"host_roofline", roofline_json(r.host_roofline)}};
    if (r.budget) wire["budget"] = *r.budget;
    return wire;
}

WorkerRequest request_from_wire(const nlohmann::json &w) {
    WorkerRequest r;
    r.size = w.at("size").get<uint64_t>();
    r.host_roofline = roofline_from_json(w.at("host_roofline"));
    r.options = w.at("options").get<MeasureOptions>();
    json_fields::get(w, "budget", r.budget);
    return r;
}

std::vector<std::string> worker_command_line(const std::filesystem::path &runner,
                                             const std::filesystem::path &plugin_file,
                                             const std::optional<HostShare> &share,
                                             const WorkerReadiness &readiness) {
    std::vector<std::string> words{runner.string(), worker_flag, plugin_file.string()};
    if (share)
        words.insert(words.end(), {"--cpus", cpu_list_text(share->cpus), "--threads",
                                   std::to_string(share->threads)});
    if (readiness.prepare_threads > 0) {
        words.insert(words.end(), {"--prepare", std::to_string(readiness.prepare_threads)});
        if (readiness.trace) words.push_back("--trace");
    }
    return words;
}

namespace {

// The optional "--cpus LIST --threads N" and "--prepare THREADS [--trace]" after the fixed
// arguments, in that order; false when malformed.
bool parse_options(int argc, const char *const *argv, std::vector<int> &cpus, int &threads,
                   WorkerReadiness &readiness) {
    int at = 3;
    if (at < argc && std::string(argv[at]) == "--cpus") {
        if (at + 4 > argc || std::string(argv[at + 2]) != "--threads" || !parse_small_int(argv[at + 3], threads) ||
            threads < 1)
            return false;
        try {
            cpus = parse_cpu_list(argv[at + 1]);
        } catch (const std::invalid_argument &) {
            return false;
        }
        if (cpus.empty()) return false;
        at += 4;
    }
    if (at < argc && std::string(argv[at]) == "--prepare") {
        if (at + 2 > argc || !parse_small_int(argv[at + 1], readiness.prepare_threads) ||
            readiness.prepare_threads < 1)
            return false;
        at += 2;
        if (at < argc && std::string(argv[at]) == "--trace") readiness.trace = true, ++at;
    }
    return at == argc;
}

}  // namespace

int worker_main(int argc, const char *const *argv) {
    int threads = 0;
    std::vector<int> cpus;
    WorkerReadiness readiness;
    if (argc < 3 || !parse_options(argc, argv, cpus, threads, readiness)) {
        std::cerr << "runner " << worker_flag << ": error: expected PLUGIN_FILE [--cpus LIST --threads N] "
                     "[--prepare THREADS [--trace]] (started by the runner, not by hand)\n";
        return 2;
    }
    if (!start_helper()) return 0;  // a worker never outlives the runner that started it
    // Before the plugin loads: its libraries read their thread counts once, when they start.
    // A share that cannot be taken is each entry's error, said as such (not a silent exit).
    const std::string share_problem = cpus.empty() ? "" : apply_host_share(cpus, threads);

    const auto load_began = std::chrono::steady_clock::now();
    auto loaded = load_plugin(argv[2]);
    const double load_s = seconds_since(load_began);
    const Plugin *plugin = std::get_if<Plugin>(&loaded);
    // Why this worker can measure nothing, the answer to each request; "" when it can.
    const std::string unable =
        !share_problem.empty() ? "the worker could not take its share of the host: " + share_problem
        : !plugin ? "the worker could not load " + std::string(argv[2]) + ": " + std::get<Refusal>(loaded).reason
                  : "";
    EntryMeasurer measurer{Roofline{}};
    // The CUDA context now, while the runner still reads its options and writes its header;
    // and, as asked, the plugin's own preparation and the device trace (a share that cannot
    // be taken prepares nothing: each entry says why).
    if (plugin) measurer.prepare(*plugin, 0);
    if (unable.empty() && readiness.prepare_threads > 0)
        measurer.prepare_ahead(*plugin, readiness.prepare_threads, readiness.trace);
    PipeLines requests(max_request_bytes);
    for (;;) {
        WorkerRequest request;
        try {
            // A request beyond max_request_bytes throws std::length_error.
            std::optional<std::string> line = requests.next_line();
            while (!line && requests.read_from(worker_request_fd)) line = requests.next_line();
            if (!line) break;  // the runner closed the pipe: done
            request = request_from_wire(nlohmann::json::parse(*line));
        } catch (const std::exception &e) {
            std::cerr << "runner " << worker_flag << ": error: bad request: " << e.what() << '\n';
            return 2;
        }
        Measurement entry;
        if (!unable.empty()) {
            entry.status = EntryStatus::error;
            entry.size = request.size;
            entry.message = unable;
        } else {
            measurer.set_host_roofline(request.host_roofline);
            const auto stage = [&](const char *name) { report_or_exit(worker_report_fd, {{"stage", name}}); };
            entry = measurer.measure(*plugin, request.size, request.options, stage, request.budget);
            entry.timing.load = load_s + measurer.prepare_seconds(*plugin);  // prepare(): v1.4
        }
        report_or_exit(worker_report_fd, {{"entry", entry}});
        if (!unable.empty() || measurer.cuda_context_lost()) break;  // a fresh process is needed
    }
    return 0;
}

}  // namespace gpubench
