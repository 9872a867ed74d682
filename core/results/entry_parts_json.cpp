#include "entry_parts_json.hpp"

#include "metric_format.hpp"
#include "roofline.hpp"

#include <stdexcept>

namespace gpubench {

using nlohmann::json;

namespace {
GPUBENCH_JSON_FIELDS_AS(Work, put_amounts, get_amounts, flops, bytes, host_bytes, device_bytes, items)
GPUBENCH_JSON_FIELDS_AS(Metric, put_metric, get_metric, name, value, unit, text)
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
    j.erase(a.traced.by.empty() ? "traced" : "untraced");
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
                        sampling_cpu_s, peak_rss_bytes, gpu_before, gpu_after, host_load)
GPUBENCH_JSON_FIELDS_AS(EntryResources, put_device_fields, get_device_fields,
                        device_allocated_bytes, device_used_bytes, device_total_bytes, gpu_busy)

void to_json(json &j, const EntryResources &r) {
    put_host_fields(j, r);
    if (r.on_device) put_device_fields(j, r);
    for (const auto &[key, state] : {std::pair{"gpu_before", &r.gpu_before}, {"gpu_after", &r.gpu_after}})
        if (*state && (*state)->throttle_reasons) j[key]["throttled"] = (*state)->throttled();
    if (r.gpu_before || r.gpu_after) j["throttled"] = r.throttled();
    if (!r.gpu_state_note.empty()) j["gpu_state_note"] = r.gpu_state_note;
    if (r.host_load) {
        j["host_load"]["contended"] = r.host_load->contended();
        if (r.host_load->contended()) j["host_load"]["reason"] = r.host_load->reason();
    }
}

void from_json(const json &j, EntryResources &r) {
    get_host_fields(j, r);
    r.on_device = j.contains("gpu_busy");
    get_device_fields(j, r);
    json_fields::get(j, "gpu_state_note", r.gpu_state_note);
}

}  // namespace gpubench
