#include "worker_protocol.hpp"

#include "results.hpp"  // the shapes of options, work, verification and metrics

#include <limits>
#include <stdexcept>

namespace gpubench {

using nlohmann::json;

json request_to_wire(const WorkerRequest &r) {
    json wire = {{"size", r.size},
                 {"options", r.options},
                 {"host_roofline", roofline_json(r.host_roofline)}};
    if (const auto &b = r.budget)
        wire["budget"] = {{"limit_s", b->limit_s},
                          {"from_size", b->from_size},
                          {"from_median_s", b->from_median_s},
                          {"from_flops", b->from_work.flops},
                          {"from_bytes", b->from_work.bytes},
                          {"from_items", b->from_work.items},
                          {"from_host_bytes", b->from_work.host_bytes},
                          {"from_outside_s", b->from_outside_s},
                          {"outside_limit_s", b->outside_limit_s}};
    return wire;
}

WorkerRequest request_from_wire(const json &w) {
    WorkerRequest r;
    r.size = w.at("size").get<uint64_t>();
    r.host_roofline = roofline_from_json(w.at("host_roofline"));
    r.options = w.at("options").get<MeasureOptions>();  // fields: results_model.hpp
    if (w.contains("budget")) {
        const json &b = w.at("budget");
        RunBudget budget;
        budget.limit_s = b.at("limit_s").get<double>();
        budget.from_size = b.at("from_size").get<uint64_t>();
        budget.from_median_s = b.at("from_median_s").get<double>();
        budget.from_work.flops = b.at("from_flops").get<double>();
        budget.from_work.bytes = b.at("from_bytes").get<double>();
        budget.from_work.items = b.at("from_items").get<double>();
        budget.from_work.host_bytes = b.at("from_host_bytes").get<double>();
        budget.from_outside_s = b.at("from_outside_s").get<double>();
        budget.outside_limit_s = b.at("outside_limit_s").get<double>();
        r.budget = budget;
    }
    return r;
}

namespace {

// JSON has no NaN or infinity: they are written as null (a plugin may report a NaN error).
double number_at(const json &object, const char *key) {
    const json &value = object.at(key);
    return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

}  // namespace

json entry_to_wire(const EntryResult &e) {
    return {{"plugin", e.plugin},
            {"size", e.size},
            {"status", to_string(e.status)},
            {"message", e.message},
            {"work", work_json(e.work, e.item_name)},
            {"clock", e.clock},
            {"load_s", e.load_s},
            {"setup_s", e.setup_s},
            {"first_run_s", e.first_run_s},
            {"upload_s", e.upload_s},
            {"run_s", e.run_s},
            {"download_s", e.download_s},
            {"run_host_s", e.run_host_s},
            {"stream_hold", e.stream_hold},
            {"stop_reason", e.stop_reason},
            {"cache", e.cache},
            {"per_launch",
             {{"method", e.per_launch.method},
              {"launches", e.per_launch.launches},
              {"run_s", e.per_launch.run_s},
              {"note", e.per_launch.note}}},
            {"stream_audit", e.stream_audit},
            {"roofline",
             {{"peak_flops", e.peak_flops},
              {"peak_bytes_per_s", e.peak_bytes_per_s},
              {"cache_bytes", e.roofline_cache_bytes},
              {"margin", e.roofline_margin}}},
            {"unoptimized", e.unoptimized},
            {"plugin_time_s", e.plugin_time_s},
            {"noise", e.noise},
            {"noise_converged", e.noise_converged},
            {"noise_required", e.noise_required},
            {"verification", verification_json(e.verification)},
            {"metrics", metrics_json(e.metrics)},
            {"resources", resources_json(e.resources)},
            {"headline", e.headline},
            {"cuda_devices", e.cuda_devices}};
}

EntryResult entry_from_wire(const json &w) {
    EntryResult e;
    e.plugin = w.at("plugin").get<std::string>();
    e.size = w.at("size").get<uint64_t>();
    e.status = entry_status_from_string(w.at("status").get<std::string>());
    e.message = w.at("message").get<std::string>();
    const json &work = w.at("work");
    e.work = {number_at(work, "flops"), number_at(work, "bytes"), number_at(work, "host_bytes"),
              number_at(work, "device_bytes"), number_at(work, "items"),
              math_from_name(work.at("math").get<std::string>()),
              (work.at("run_repeatable").get<bool>() ? GPUBENCH_WORK_RUN_REPEATABLE : 0u) |
                  (work.at("run_no_device_work").get<bool>() ? GPUBENCH_WORK_RUN_NO_DEVICE_WORK : 0u)};
    e.clock = w.at("clock").get<std::string>();
    e.load_s = number_at(w, "load_s");
    e.setup_s = number_at(w, "setup_s");
    e.first_run_s = number_at(w, "first_run_s");
    e.upload_s = w.at("upload_s").get<std::vector<double>>();
    e.run_s = w.at("run_s").get<std::vector<double>>();
    e.download_s = w.at("download_s").get<std::vector<double>>();
    e.run_host_s = w.at("run_host_s").get<std::vector<double>>();
    e.stream_hold = w.at("stream_hold").get<std::string>();
    e.stop_reason = w.at("stop_reason").get<std::string>();
    e.cache = w.at("cache").get<std::string>();
    const json &pl = w.at("per_launch");
    e.per_launch = {pl.at("method").get<std::string>(), pl.at("launches").get<size_t>(),
                    pl.at("run_s").get<std::vector<double>>(), pl.at("note").get<std::string>()};
    e.stream_audit = w.at("stream_audit").get<StreamAudit>();
    const json &roof = w.at("roofline");
    e.peak_flops = number_at(roof, "peak_flops");
    e.peak_bytes_per_s = number_at(roof, "peak_bytes_per_s");
    e.roofline_cache_bytes = roof.at("cache_bytes").get<uint64_t>();
    e.roofline_margin = number_at(roof, "margin");
    e.unoptimized = w.at("unoptimized").get<bool>();
    e.plugin_time_s = number_at(w, "plugin_time_s");
    e.noise = number_at(w, "noise");
    e.noise_converged = w.at("noise_converged").get<bool>();
    e.noise_required = w.at("noise_required").get<bool>();
    const json &v = w.at("verification");
    e.verification = {v.at("passed").get<bool>(), number_at(v, "max_error"),
                      number_at(v, "tolerance"), v.at("checked").get<uint64_t>(),
                      v.at("detail").get<std::string>()};
    for (const json &m : w.at("metrics"))
        e.metrics.push_back({m.at("name").get<std::string>(), number_at(m, "value"),
                             m.at("unit").get<std::string>(), m.at("text").get<std::string>()});
    e.item_name = work.at("item_name").get<std::string>();
    e.resources = resources_from_json(w.at("resources"));
    e.headline = w.at("headline").get<gpubench_headline>();
    e.cuda_devices = w.at("cuda_devices").get<std::vector<int>>();
    return e;
}

}  // namespace gpubench
