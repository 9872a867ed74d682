#include "worker.hpp"

#include "gpu.hpp"
#include "measure.hpp"
#include "worker_protocol.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <iostream>
#include <memory>

namespace gpubench {
namespace {

// One JSON document per line, written at once, so the runner sees each as it happens.
void send(int fd, const nlohmann::json &message) {
    const std::string line = message.dump() + '\n';
    for (size_t done = 0; done < line.size();) {
        const ssize_t wrote = write(fd, line.data() + done, line.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return;  // the runner is gone: nothing left to tell
        done += static_cast<size_t>(wrote);
    }
}

EntryResult measure(const WorkerRequest &request, int report_fd) {
    EntryResult entry;
    entry.plugin = request.plugin_name;
    entry.size = request.size;
    const auto load_began = std::chrono::steady_clock::now();
    auto loaded = load_plugin(request.plugin_file);
    const double load_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - load_began).count();
    if (const Refusal *refusal = std::get_if<Refusal>(&loaded)) {
        entry.message = "the worker could not load " + refusal->file.string() + ": " + refusal->reason;
        return entry;
    }
    const Plugin &plugin = std::get<Plugin>(loaded);
    std::unique_ptr<PhaseTimer> timer;
    if (plugin.is_cuda()) {
        try {
            timer = make_cuda_event_timer(request.options.cuda_device);
        } catch (const std::exception &e) {
            entry.status = EntryStatus::skipped;
            entry.message = std::string("unavailable: ") + e.what();
            return entry;
        }
    } else {
        timer = std::make_unique<SteadyClockTimer>();
    }
    entry = measure_entry(plugin, request.size, request.options, *timer, [&](const char *stage) {
        send(report_fd, {{"stage", stage}});
    });
    entry.load_s = load_s;
    if (plugin.is_cuda()) note_lost_cuda_context(entry);
    return entry;
}

}  // namespace

int run_worker(const std::string &request_text, int report_fd) {
    WorkerRequest request;
    try {
        request = request_from_wire(nlohmann::json::parse(request_text));
    } catch (const std::exception &e) {
        std::cerr << "runner --worker: error: bad request: " << e.what() << '\n';
        return 2;
    }
    const EntryResult entry = measure(request, report_fd);
    send(report_fd, {{"entry", entry_to_wire(entry)}});
    return 0;
}

}  // namespace gpubench
