#include "entry_json.hpp"

#include "entry_figures.hpp"
#include "metric_format.hpp"
#include "results_model.hpp"
#include "roofline.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace gpubench {

using nlohmann::json;

GPUBENCH_JSON_FIELDS(Timing::Noise, median_rel_stderr, max_noise, converged)
GPUBENCH_JSON_FIELDS(Timing::Samples, run, upload, download, run_host, run_host_in_cycle)
GPUBENCH_JSON_FIELDS(PerLaunch, method, launches_per_sample, samples)
GPUBENCH_JSON_FIELDS_AS(Timing, put_timing, get_timing, clock, warmup_runs, profile_runs, load, setup, first_run,
                        stop_reason, cache, noise, samples, per_launch, per_launch_note, stream_hold,
                        warm_calls)

// The parts that apply to some entries only are left out of the others' (as files always did).
void to_json(json &j, const Timing &t) {
    put_timing(j, t);
    for (const char *key : {"per_launch_note", "stream_hold"})
        if (j[key].get<std::string>().empty()) j.erase(key);
    for (const char *key : {"profile_runs", "warm_calls"})
        if (j[key].get<size_t>() == 0) j.erase(key);
    if (t.per_launch.samples.empty()) j.erase("per_launch");
    for (const char *key : {"run_host", "run_host_in_cycle"})
        if (j["samples"][key].empty()) j["samples"].erase(key);
}

GPUBENCH_JSON_FIELDS_AS(Ceiling, put_ceiling, get_ceiling, flops, bytes_per_s, level, level_margin, level_source,
                        cache_bytes, margin)

void to_json(json &j, const Ceiling &c) {
    put_ceiling(j, c);
    if (c.level_source.empty()) j.erase("level_source");
}

void from_json(const json &j, Ceiling &c) {
    get_ceiling(j, c);
    if (!j.contains("level_margin")) c.level_margin = c.margin;  // files from before levels: one margin
}

GPUBENCH_JSON_FIELDS(EntryEnergy, sampling_j, mean_power_w, per_run_j, gflops_per_j, window_s)

void from_json(const json &j, Timing &t) {
    t.noise.max_noise = 0;  // files from before the noise criterion: none was asked for (never "noisy")
    get_timing(j, t);
}

namespace {

GPUBENCH_JSON_FIELDS_AS(Work, put_amounts, get_amounts, flops, bytes, host_bytes, device_bytes, items)
GPUBENCH_JSON_FIELDS_AS(Metric, put_metric, get_metric, name, value, unit, text)
// An entry's parts named as their members: read as they are, written where they apply.
GPUBENCH_JSON_FIELDS_AS(Measurement, put_named_parts, get_named_parts, message, refused_by, behind_schedule, sanitizer,
                        persisting_l2_left, counters, stream_audit, thread_audit, timing, verification, metrics, resources)

// The runner's notes (entry_json.hpp); its times where known (> 0).
GPUBENCH_JSON_FIELDS_AS(SweepNotes, put_worker, get_worker, worker_started, worker_entries_before)
GPUBENCH_JSON_FIELDS_AS(SweepNotes, put_times, get_times, entry_wall_s, finished_after_s, sampling_budget_s)
GPUBENCH_JSON_FIELDS_AS(SweepNotes, put_placement, get_placement, host_share, shard)

void put_sweep_notes(json &entry, const SweepNotes &n) {
    json &harness = entry["harness"];
    put_worker(harness, n);
    json times;
    put_times(times, n);
    for (const auto &[key, seconds] : times.items())
        if (seconds.get<double>() > 0) harness[key] = seconds;
    if (const auto devices = entry.find("devices"); devices != entry.end())
        for (json &device : *devices)
            for (const DeviceIdentity &known : n.devices)
                if (known.index == device.at("index").get<int>() && !known.name.empty()) {
                    device["name"] = known.name;
                    device["uuid"] = known.uuid;
                    device["pci_bus_id"] = known.pci_bus_id;
                }
    put_placement(entry, n);
}

void get_sweep_notes(const json &entry, SweepNotes &n) {
    if (const auto harness = entry.find("harness"); harness != entry.end()) {
        get_worker(*harness, n);
        get_times(*harness, n);
    }
    if (const auto devices = entry.find("devices"); devices != entry.end())
        for (const json &device : *devices)
            if (device.contains("name"))
                n.devices.push_back({device.at("index").get<int>(), device.at("name").get<std::string>(),
                                     device.value("uuid", ""), device.value("pci_bus_id", "")});
    get_placement(entry, n);
}

// "timing": the entry's Timing, and the figures of its samples beside them.
json timing_json(const Measurement &e, const EntryFigures &f) {
    json timing = e.timing;
    timing.update({{"unit", "s"}, {"run", f.run}, {"upload", f.upload}, {"download", f.download},
                   {"end_to_end", f.end_to_end},
                   {"compute",  // the headline: which method gave it (see per_launch.hpp)
                    {{"method", headline_method(e)}, {"median", f.compute.median}, {"summary", f.compute}}}});
    if (!e.timing.per_launch.samples.empty()) {
        timing["per_launch"]["run"] = f.compute;
        // What one launch costs beyond the work itself: single-launch median minus the
        // per-launch median.
        timing["launch_overhead"] = f.run.median - f.compute.median;
    }
    if (f.run_host) timing["run_host"] = *f.run_host;
    if (f.run_host_in_cycle) timing["run_host_in_cycle"] = *f.run_host_in_cycle;
    return timing;
}

json throughput_json(const Measurement &e, const EntryFigures &f) {
    json throughput = {{"gflops", f.gflops},
                       {"gbytes_per_s", f.gbytes_per_s},
                       {"items_per_s", f.items_per_s},
                       {"headline", f.headline}};
    if (!f.roofline_bound.empty()) {
        throughput["percent_of_peak"] = f.percent_of_peak;
        throughput["roofline_bound"] = f.roofline_bound;
        if (!f.peak_level.empty()) throughput["peak_level"] = f.peak_level;
    }
    if (!f.work_mismatch.empty()) throughput["work_mismatch"] = f.work_mismatch;  // --counters
    if (const Ceiling &c = e.ceiling; c.flops > 0 || c.bytes_per_s > 0 || !c.level_source.empty()) {
        throughput["ceiling"] = c;
        throughput["ceiling"]["math"] = math_name(e.work.math);
    }
    return throughput;
}

// The stored half of "throughput": the headline the plugin asked for (as entry_figures
// resolved it) and the ceilings; the rates are derived from the samples.
void read_throughput(const json &t, Measurement &e) {
    const std::string headline = t.value("headline", "");
    e.headline = headline == "gflops"         ? GPUBENCH_HEADLINE_FLOPS
                 : headline == "gbytes_per_s" ? GPUBENCH_HEADLINE_BYTES
                 : headline == "items_per_s"  ? GPUBENCH_HEADLINE_ITEMS
                                              : GPUBENCH_HEADLINE_AUTO;
    json_fields::get(t, "ceiling", e.ceiling);
}

// "energy" (entry_figures.hpp): the GPU board's figures, or why none ("note"); the CPU
// packages' ("cpu"); the node's, or why none ("node"). Null without any.
json energy_json(const EntryFigures &f) {
    json energy = f.energy ? json(*f.energy) : json::object();
    if (!f.energy_note.empty()) energy["note"] = f.energy_note;
    if (f.cpu_power_w) energy["cpu"] = {{"power_w", *f.cpu_power_w}, {"per_run_j", *f.cpu_energy_per_run_j}};
    if (f.node_power_w)
        energy["node"] = {{"power_w", *f.node_power_w}, {"per_run_j", *f.node_energy_per_run_j},
                          {"gpu_power_w", f.node_gpu_power_w}, {"gpu", f.node_gpu}};
    else if (!f.node_note.empty())
        energy["node"] = {{"note", f.node_note}};
    return energy.empty() ? json(nullptr) : energy;
}

}  // namespace

void to_json(json &j, const Metric &m) {
    put_metric(j, m);
    if (m.better != GPUBENCH_BETTER_UNSTATED) j["better"] = better_name(m.better);
}

void from_json(const json &j, Metric &m) {
    get_metric(j, m);
    const std::string better = j.value("better", "");
    const auto parsed = parse_better(better);
    if (!parsed) throw std::runtime_error("metric " + m.name + "'s better is \"" + better + "\", not higher or lower");
    m.better = *parsed;
}

void to_json(json &j, const EntryMetric &m) {
    to_json(j, static_cast<const Metric &>(m));
    if (m.measured) j["measured"] = true;
}

void from_json(const json &j, EntryMetric &m) {
    from_json(j, static_cast<Metric &>(m));
    m.measured = j.value("measured", false);
}

void to_json(json &j, const Work &w) {
    put_amounts(j, w);
    j["math"] = math_name(w.math);
    j["run_repeatable"] = (w.flags & GPUBENCH_WORK_RUN_REPEATABLE) != 0;
    j["run_no_device_work"] = (w.flags & GPUBENCH_WORK_RUN_NO_DEVICE_WORK) != 0;
    if (w.launches > 0) j["launches"] = w.launches;  // ABI 1.9; files before it have none
}

void from_json(const json &j, Work &w) {
    get_amounts(j, w);
    w.math = math_from_name(j.value("math", "fp32"));
    w.flags = (j.value("run_repeatable", false) ? GPUBENCH_WORK_RUN_REPEATABLE : 0u) |
              (j.value("run_no_device_work", false) ? GPUBENCH_WORK_RUN_NO_DEVICE_WORK : 0u);
    if (const auto launches = j.find("launches"); launches != j.end() && launches->is_number())
        w.launches = launches->get<double>();
}

GPUBENCH_JSON_FIELDS_AS(StreamAudit, put_stream_audit, get_stream_audit, checks, worst_phase, timed_s,
                        device_busy_after_s, outside_stream, audit_wall_s, problem, traced, untraced)

void to_json(json &j, const StreamAudit &a) {
    put_stream_audit(j, a);
    if (a.problem.empty()) j.erase("problem");
    // An entry whose traced cycles were all dropped (untraced) may still have had CUPTI in it.
    if (!a.traced.by.empty()) j.erase("untraced");
    else if (a.traced.stays_attached.empty()) j.erase("traced");
    if (a.traced.stays_attached.empty() && j.contains("traced")) j["traced"].erase("stays_attached");
}

void from_json(const json &j, StreamAudit &a) { get_stream_audit(j, a); }

GPUBENCH_JSON_FIELDS_AS(ThreadAudit, put_thread_audit, get_thread_audit, calls, resolution, threads,
                        started_by_run, worked_after_return, cpu_after_return_s, audit_wall_s, problem)

void to_json(json &j, const ThreadAudit &a) {
    put_thread_audit(j, a);
    if (a.problem.empty()) j.erase("problem");
}

void from_json(const json &j, ThreadAudit &a) { get_thread_audit(j, a); }

// The fields every entry's resources have, and those of GPU entries (EntryResources::on_device).
GPUBENCH_JSON_FIELDS_AS(EntryResources, put_host_fields, get_host_fields, sampling_wall_s,
                        sampling_cpu_s, peak_rss_bytes, gpu_before, gpu_after, host_load, gpu_energy, cpu_energy)
GPUBENCH_JSON_FIELDS_AS(EntryResources, put_device_fields, get_device_fields,
                        device_allocated_bytes, device_used_bytes, device_total_bytes, gpu_busy)

namespace {
// The resources' notes by key, written where there is one (as const or not: `Resources`).
template <class Resources>
auto resource_notes(Resources &r) {
    return std::array{std::pair{"gpu_state_note", &r.gpu_state_note}, std::pair{"gpu_energy_note", &r.gpu_energy_note},
                      std::pair{"cpu_energy_note", &r.cpu_energy_note}};
}
}  // namespace

void to_json(json &j, const EntryResources &r) {
    put_host_fields(j, r);
    if (r.on_device) put_device_fields(j, r);
    for (const auto &[key, state] : {std::pair{"gpu_before", &r.gpu_before}, {"gpu_after", &r.gpu_after}})
        if (*state && (*state)->throttle_reasons) j[key]["throttled"] = (*state)->throttled();
    if (r.gpu_before || r.gpu_after) j["throttled"] = r.throttled();
    for (const auto &[key, note] : resource_notes(r))
        if (!note->empty()) j[key] = *note;
    if (r.host_load) {
        j["host_load"]["contended"] = r.host_load->contended();
        if (r.host_load->contended()) j["host_load"]["reason"] = r.host_load->reason();
    }
}

void from_json(const json &j, EntryResources &r) {
    get_host_fields(j, r);
    r.on_device = j.contains("gpu_busy");
    get_device_fields(j, r);
    for (const auto &[key, note] : resource_notes(r)) json_fields::get(j, key, *note);
}

namespace {

// A measurement's entry, its figures derived on `run`.
void put_measurement(json &entry, const Measurement &e, const RunBasis &run) {
    const EntryFigures f = entry_figures(e, run);
    entry = {{"plugin", e.plugin},
             {"size", e.size},
             {"params", e.settings.params},
             {"seed", e.settings.seed},
             {"cpu_threads", e.settings.cpu_threads},
             {"status", to_string(e.status)},
             {"valid", e.status == EntryStatus::ok},  // the only entries whose figures are results
             {"message", e.message},
             {"flags", f.flags}};
    entry["work"] = e.work;
    entry["work"]["item_name"] = e.item_name;
    entry["harness"] = {{"plugin_time_s", e.plugin_time_s}};
    // "devices" by index; the runner's notes add what tells GPUs apart, where known.
    for (int index : e.cuda_devices) entry["devices"].push_back(json{{"index", index}});
    if (e.across_ranks()) entry["ranks"] = {{"rank", e.rank}, {"ranks", e.ranks}};
    for (const auto &[key, text] : {std::pair{"refused_by", &e.refused_by}, {"sanitizer", &e.sanitizer},
                                    {"persisting_l2_left", &e.persisting_l2_left}, {"counters", &e.counters}})
        if (!text->empty()) entry[key] = *text;
    if (e.behind_schedule) entry["behind_schedule"] = true;
    if (e.stream_audit.checks > 0) entry["stream_audit"] = e.stream_audit;
    if (e.thread_audit.calls > 0) entry["thread_audit"] = e.thread_audit;
    if (e.timing.samples.run.empty()) return;
    entry["timing"] = timing_json(e, f);
    entry["throughput"] = throughput_json(e, f);
    entry["verification"] = e.verification;
    entry["metrics"] = e.metrics;
    entry["resources"] = e.resources;
    entry["resources"]["cpu_cores"] = f.cpu_cores;
    entry["resources"]["cpu_percent"] = f.cpu_percent;
    if (json energy = energy_json(f); !energy.is_null()) entry["energy"] = std::move(energy);
}

}  // namespace

void to_json(json &entry, const Measurement &e) { put_measurement(entry, e, this_host_run()); }

void from_json(const json &entry, Measurement &e) {
    const auto identity = entry.get<EntryIdentity>();  // as merge and resume match entries
    e.plugin = identity.plugin;
    e.size = identity.size;
    e.settings.params = identity.params;
    e.settings.seed = identity.seed.value_or(0);
    json_fields::get(entry, "cpu_threads", e.settings.cpu_threads);
    e.status = entry_status_from_string(entry.value("status", ""));
    e.unoptimized = std::ranges::count(entry.value("flags", std::vector<std::string>()), "unoptimized") > 0;
    e.work = entry.at("work").get<Work>();
    e.item_name = entry.at("work").value("item_name", "");
    if (const auto harness = entry.find("harness"); harness != entry.end())
        json_fields::get(*harness, "plugin_time_s", e.plugin_time_s);
    if (const auto devices = entry.find("devices"); devices != entry.end())
        for (const json &device : *devices) e.cuda_devices.push_back(device.at("index").get<int>());
    if (const auto ranks = entry.find("ranks"); ranks != entry.end()) {
        e.rank = ranks->at("rank").get<uint32_t>();
        e.ranks = ranks->at("ranks").get<uint32_t>();
    }
    get_named_parts(entry, e);
    if (const auto throughput = entry.find("throughput"); throughput != entry.end())
        read_throughput(*throughput, e);
}

json entry_json(const EntryResult &e, const RunBasis &run) {
    json entry;
    put_measurement(entry, e, run);
    put_sweep_notes(entry, e.sweep);
    // The harness's share of the entry's wall time, where the runner timed it.
    if (e.sweep.entry_wall_s > 0)
        entry["harness"]["overhead_s"] = std::max(0.0, e.sweep.entry_wall_s - e.plugin_time_s);
    return entry;
}

void to_json(json &entry, const EntryResult &e) { entry = entry_json(e, this_host_run()); }

void from_json(const json &entry, EntryResult &e) {
    from_json(entry, static_cast<Measurement &>(e));
    get_sweep_notes(entry, e.sweep);
}

}  // namespace gpubench
