#include "results.hpp"

#include "host_resources.hpp"
#include "shard_plan.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace gpubench {

using nlohmann::json;

json plugin_json(const PluginInfo &plugin) {
    json j = {{"name", plugin.name},
              {"workload", plugin.workload},
              {"backend", plugin.backend},
              {"device_kind", plugin.device_kind_name()},
              {"description", plugin.description},
              {"size_meaning", plugin.size_meaning},
              {"version", plugin.version},
              {"abi", plugin.abi_text()},
              {"build_info", plugin.build_info},
              {"file", printable_text(plugin.file.string())}};
    if (plugin.build_record) j["build_record"] = build_record_json(*plugin.build_record);
    if (!plugin.build_record_note.empty()) j["build_record_note"] = plugin.build_record_note;
    return j;
}

std::vector<std::string> entry_flags(const EntryResult &e) {
    std::vector<std::string> flags;
    if (e.noise_required && !e.noise_converged && !e.run_s.empty()) flags.push_back("noisy");
    if (e.resources.throttled()) flags.push_back("throttled");
    if (e.resources.gpu_shared()) flags.push_back("gpu_shared");
    if (e.cache == "cold") flags.push_back("cold");
    if (e.resources.host_load && e.resources.host_load->contended()) flags.push_back("contended");
    if (e.unoptimized) flags.push_back("unoptimized");
    if (!e.sanitizer.empty()) flags.push_back("sanitized");
    return flags;
}

json work_json(const Work &w, const std::string &item_name) {
    return {{"flops", w.flops},
            {"bytes", w.bytes},
            {"host_bytes", w.host_bytes},
            {"device_bytes", w.device_bytes},
            {"items", w.items},
            {"item_name", item_name},
            {"math", math_name(w.math)},
            {"run_repeatable", (w.flags & GPUBENCH_WORK_RUN_REPEATABLE) != 0},
            {"run_no_device_work", (w.flags & GPUBENCH_WORK_RUN_NO_DEVICE_WORK) != 0}};
}

json stream_audit_json(const StreamAudit &a) {
    json audit = {{"checks", a.audits},
                  {"worst_phase", a.worst_phase},
                  {"timed_s", a.timed_s},
                  {"device_busy_after_s", a.drain_s},
                  {"outside_stream", a.escaped}};
    if (!a.problem.empty()) audit["problem"] = a.problem;
    if (a.tracer.empty()) {
        audit["untraced"] = a.untraced;
        return audit;
    }
    audit["traced"] = {{"by", a.tracer},
                       {"calls", a.traced_calls},
                       {"run_device_work_s", a.run_traced_s},
                       {"run_operations", a.run_operations}};
    return audit;
}

json verification_json(const Verification &v) {
    return {{"passed", v.passed},   {"max_error", v.max_error}, {"tolerance", v.tolerance},
            {"checked", v.checked}, {"detail", v.detail}};
}

json metrics_json(const std::vector<Metric> &metrics) {
    json all = json::array();
    for (const Metric &m : metrics)
        all.push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}, {"text", m.text}});
    return all;
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HostLoad, available, wall_s, own_cpu_s, machine_busy_cores,
                                   others_cores, own_wait_s, wait_share, host_cores)

namespace {

json host_load_json(const HostLoad &h) {
    json j = h;
    j["contended"] = h.contended();
    if (h.contended()) j["reason"] = h.reason();
    return j;
}

}  // namespace

json resources_json(const EntryResources &r) {
    json j = {{"sampling_wall_s", r.sampling_wall_s},
              {"sampling_cpu_s", r.sampling_cpu_s},
              {"cpu_cores", r.cpu_cores()},
              {"cpu_percent", logical_cores() > 0 ? 100.0 * r.cpu_cores() / logical_cores() : 0.0},
              {"peak_rss_bytes", r.peak_rss_bytes}};
    if (r.on_device) {
        j["device_allocated_bytes"] = r.device_allocated_bytes;
        j["device_used_bytes"] = r.device_used_bytes;
        j["device_total_bytes"] = r.device_total_bytes;
        j["gpu_busy"] = r.gpu_busy;
    }
    if (r.gpu_before) j["gpu_before"] = gpu_state_json(*r.gpu_before);
    if (r.gpu_after) j["gpu_after"] = gpu_state_json(*r.gpu_after);
    if (r.gpu_before || r.gpu_after) j["throttled"] = r.throttled();
    if (!r.gpu_state_note.empty()) j["gpu_state_note"] = r.gpu_state_note;
    if (r.host_load) j["host_load"] = host_load_json(*r.host_load);
    return j;
}

EntryResources resources_from_json(const json &j) {
    EntryResources r;
    r.sampling_wall_s = j.at("sampling_wall_s").get<double>();
    r.sampling_cpu_s = j.at("sampling_cpu_s").get<double>();
    r.peak_rss_bytes = j.at("peak_rss_bytes").get<uint64_t>();
    r.on_device = j.contains("gpu_busy");
    if (r.on_device) {
        r.device_allocated_bytes = j.at("device_allocated_bytes").get<uint64_t>();
        r.device_used_bytes = j.at("device_used_bytes").get<uint64_t>();
        r.device_total_bytes = j.at("device_total_bytes").get<uint64_t>();
        r.gpu_busy = j.at("gpu_busy").get<double>();
    }
    if (j.contains("gpu_before")) r.gpu_before = gpu_state_from_json(j["gpu_before"]);
    if (j.contains("gpu_after")) r.gpu_after = gpu_state_from_json(j["gpu_after"]);
    r.gpu_state_note = j.value("gpu_state_note", "");
    if (j.contains("host_load")) r.host_load = j["host_load"].get<HostLoad>();
    return r;
}

json harness_json(const EntryResult &e) {
    json h = {{"plugin_time_s", e.plugin_time_s},
              {"worker_started", e.worker_started},
              {"worker_entries_before", e.worker_entries_before}};
    if (e.entry_wall_s > 0) {
        h["entry_wall_s"] = e.entry_wall_s;
        h["overhead_s"] = std::max(0.0, e.entry_wall_s - e.plugin_time_s);
    }
    if (e.finished_after_s > 0) h["finished_after_s"] = e.finished_after_s;
    if (e.sampling_budget_s > 0) h["sampling_budget_s"] = e.sampling_budget_s;
    return h;
}

namespace {

// The CUDA devices an entry ran on, each with what tells GPUs apart where it is known.
json devices_json(const EntryResult &e) {
    json devices = json::array();
    for (int index : e.cuda_devices) {
        json &device = devices.emplace_back(json{{"index", index}});
        for (const DeviceIdentity &known : e.devices)
            if (known.index == index && !known.name.empty()) {
                device["name"] = known.name;
                device["uuid"] = known.uuid;
                device["pci_bus_id"] = known.pci_bus_id;
            }
    }
    return devices;
}

// The timing object: how the samples were taken, their summaries, and the samples.
json timing_json(const EntryResult &e, const EntryFigures &f, const MeasureOptions &options) {
    json timing = {{"clock", e.clock},
                   {"unit", "s"},
                   {"warmup_runs", options.warmup_runs},
                   {"load", e.load_s},
                   {"setup", e.setup_s},
                   {"first_run", e.first_run_s},
                   {"stop_reason", e.stop_reason},
                   {"cache", e.cache},
                   {"noise",
                    {{"median_rel_stderr", e.noise},
                     {"max_noise", options.max_noise},
                     {"converged", e.noise_converged}}},
                   {"run", f.run},
                   {"upload", f.upload},
                   {"download", f.download},
                   {"end_to_end", f.end_to_end},
                   {"samples",
                    SampleSeries{.run = e.run_s, .upload = e.upload_s, .download = e.download_s}}};
    // The headline: which method gave it, and its samples (see per_launch.hpp).
    timing["compute"] =
        HeadlineTiming{.method = headline_method(e), .median = f.compute.median, .summary = f.compute};
    if (!e.per_launch.run_s.empty()) {
        timing["per_launch"] = PerLaunchTiming{.method = e.per_launch.method,
                                               .launches_per_sample = e.per_launch.launches,
                                               .run = f.compute,
                                               .samples = e.per_launch.run_s};
        // What one launch costs beyond the work itself: single-launch median minus the
        // per-launch median.
        timing["launch_overhead"] = f.run.median - f.compute.median;
    }
    if (!e.per_launch.note.empty()) timing["per_launch_note"] = e.per_launch.note;
    if (!e.run_host_s.empty()) {
        timing["run_host"] = summarize(e.run_host_s);
        timing["samples"]["run_host"] = e.run_host_s;
    }
    if (!e.stream_hold.empty()) timing["stream_hold"] = e.stream_hold;
    return timing;
}

json throughput_json(const EntryResult &e, const EntryFigures &f) {
    json throughput = {{"gflops", f.gflops},
                       {"gbytes_per_s", f.gbytes_per_s},
                       {"items_per_s", f.items_per_s},
                       {"headline", f.headline}};
    if (!f.roofline_bound.empty()) {
        throughput["percent_of_peak"] = f.percent_of_peak;
        throughput["roofline_bound"] = f.roofline_bound;
    }
    if (e.peak_flops > 0 || e.peak_bytes_per_s > 0)
        throughput["ceiling"] = {{"flops", e.peak_flops},
                                 {"math", math_name(e.work.math)},
                                 {"bytes_per_s", e.peak_bytes_per_s},
                                 {"cache_bytes", e.roofline_cache_bytes},
                                 {"margin", e.roofline_margin}};
    return throughput;
}

// Energy: the mean power while sampling, from NVML's energy counter, charged to one run at
// the median run time (the counter is too coarse to time single runs). Null without one.
json energy_json(const EntryResult &e, const EntryFigures &f) {
    if (const auto joules = e.resources.sampling_energy_j();
        joules && e.resources.sampling_wall_s > 0) {
        const double watts = *joules / e.resources.sampling_wall_s;
        const double per_run = watts * f.run.median;
        return {{"sampling_j", *joules},
                {"mean_power_w", watts},
                {"per_run_j", per_run},
                {"gflops_per_j", per_run > 0 ? e.work.flops * 1e-9 / per_run : 0.0}};
    }
    if (e.resources.gpu_after && e.resources.gpu_after->energy_mj) {
        char note[128];
        std::snprintf(note, sizeof note,
                      "n/a: sampling lasted %.3g s, too short for NVML's energy counter (%.2g s "
                      "at least)", e.resources.sampling_wall_s, EntryResources::energy_window_min_s);
        return {{"note", note}};
    }
    return nullptr;
}

}  // namespace

json entry_json(const EntryResult &e, const MeasureOptions &options) {
    json entry = EntryRecord{.plugin = e.plugin,
                             .size = e.size,
                             .params = options.params,
                             .seed = options.seed,
                             .cpu_threads = options.cpu_threads,
                             .status = to_string(e.status),
                             .valid = e.status == EntryStatus::ok,
                             .message = e.message,
                             .flags = entry_flags(e)};
    entry["work"] = work_json(e.work, e.item_name);
    entry["harness"] = harness_json(e);
    if (!e.cuda_devices.empty()) entry["devices"] = devices_json(e);
    if (e.host_share) entry["host_share"] = host_share_json(*e.host_share);
    if (!e.sanitizer.empty()) entry["sanitizer"] = e.sanitizer;
    if (e.stream_audit.audits > 0) entry["stream_audit"] = stream_audit_json(e.stream_audit);
    if (e.run_s.empty()) return entry;
    const EntryFigures f = entry_figures(e);
    entry["timing"] = timing_json(e, f, options);
    entry["throughput"] = throughput_json(e, f);
    entry["verification"] = verification_json(e.verification);
    entry["metrics"] = metrics_json(e.metrics);
    entry["resources"] = resources_json(e.resources);
    if (json energy = energy_json(e, f); !energy.is_null()) entry["energy"] = std::move(energy);
    return entry;
}

ResultsFile::ResultsFile(std::filesystem::path path, json document)
    : path_(std::move(path)), document_(std::move(document)) {
    document_["plugins"] = json::array();
    document_["entries"] = json::array();
    open_target();
    write();
}

void ResultsFile::open_target() {
    if (path_.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(path_.parent_path(), ec);
        if (ec) throw std::runtime_error("cannot create " + path_.parent_path().string() + ": " + ec.message());
    }
    path_ = results_target(path_);  // a symlink's target is what gets updated
    lock_ = std::make_unique<OutputLock>(path_);
}

ResultsFile ResultsFile::resume(const std::filesystem::path &from, std::filesystem::path path,
                                const json &resumption) {
    ResultsFile file;
    file.document_ = read_results_json(from);  // checked before anything is written
    file.document_["resumed"].push_back(resumption);
    file.path_ = std::move(path);
    file.open_target();
    file.write();
    return file;
}

void ResultsFile::write_whole(std::filesystem::path path, json document) {
    ResultsFile file;
    file.document_ = std::move(document);
    file.path_ = std::move(path);
    file.open_target();
    file.write();
}

void ResultsFile::add_plugin(const json &plugin) {
    for (const json &known : document_["plugins"])
        if (known.value("name", "") == plugin.value("name", "")) return;
    document_["plugins"].push_back(plugin);
    write();
}

const json *ResultsFile::find_entry(const std::string &plugin, uint64_t size,
                                    const std::string &params, uint64_t seed) const {
    for (const json &entry : document_["entries"]) {
        const EntryRecord recorded = entry.get<EntryRecord>();
        if (recorded.plugin == plugin && recorded.size == size && recorded.params == params &&
            recorded.seed == seed)
            return &entry;
    }
    return nullptr;
}

void ResultsFile::add_entry(const json &entry) {
    document_["entries"].push_back(entry);
    no_longer_missing(document_, entry);
    write();
}

void ResultsFile::write() const {
    // Text from plugins and paths may be invalid UTF-8: escaped, never thrown.
    replace_file_atomically(path_, document_.dump(1, ' ', false, json::error_handler_t::replace) + '\n');
}

}  // namespace gpubench
