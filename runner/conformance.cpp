#include "conformance.hpp"

#include "check.hpp"
#include "declared_params.hpp"
#include "text_format.hpp"


namespace gpubench {

namespace {

const char *const see_descriptor = "writing-a-plugin.md#descriptor-and-symbol";
const char *const see_params = "writing-a-plugin.md#declared-parameters-abi-110";
const char *const see_work = "writing-a-plugin.md#lifecycle-and-timing";
const char *const see_checks = "measurement.md#checks-on-every-entry";
const char *const see_errors = "writing-a-plugin.md#errors";

bool same_work(const Work &a, const Work &b) {
    return a.flops == b.flops && a.bytes == b.bytes && a.host_bytes == b.host_bytes &&
           a.device_bytes == b.device_bytes && a.items == b.items && a.math == b.math && a.flags == b.flags &&
           a.launches == b.launches;
}

void check_params(const PluginInfo &plugin, std::vector<Finding> &out) {
    if (!plugin.param_names)
        out.push_back({plugin.name, "params_declared",
                       "declares no parameter keys (param_names): a mistyped --param cannot be caught", see_params});
    else if (!plugin.param_names->empty() && plugin.params.empty())
        out.push_back({plugin.name, "params_declared",
                       "reads " + join(*plugin.param_names, ",") +
                           " but declares no values for them (ABI 1.10): a wrong value is found only as an error entry",
                       see_params, false});
}

// work() at each size: an answer, and some work declared.
void check_work(const PluginInfo &plugin, const std::vector<uint64_t> &sizes, const std::vector<WorkAnswer> &plain,
                std::vector<Finding> &out) {
    for (size_t i = 0; i < sizes.size() && i < plain.size(); ++i) {
        const std::string at = "work() at size " + std::to_string(sizes[i]);
        if (const auto *failed = std::get_if<std::string>(&plain[i]))
            out.push_back({plugin.name, "work_declared", at + " failed: " + *failed, see_work});
        else if (const Work &w = std::get<Work>(plain[i]); w.flops + w.bytes + w.items <= 0)
            out.push_back({plugin.name, "work_declared", at + " declares no flops, bytes or items", see_work});
    }
}

}  // namespace

std::string finding_line(const Finding &f) {
    return f.plugin + ": " + (f.fails ? "" : "note: ") + f.rule + ": " + f.what + " (see " + f.see + ")";
}

std::vector<uint64_t> conformance_sizes(const PluginInfo &plugin) {
    std::vector<uint64_t> sizes;
    for (uint64_t size : {1, 7, 33, 1000})
        if (size >= plugin.min_size && size <= plugin.max_size) sizes.push_back(size);
    if (sizes.empty()) sizes.push_back(plugin.min_size);
    return sizes;
}

std::vector<std::string> conformance_param_axes(const PluginInfo &plugin) {
    std::vector<std::string> axes;
    for (const ParamSpec &p : plugin.params)
        if (p.kind == GPUBENCH_PARAM_CHOICE) axes.push_back(p.key + "=" + join(p.choices, ","));
    return axes;
}

std::vector<std::string> default_settings(const PluginInfo &plugin) {
    std::vector<std::string> settings;
    for (const ParamSpec &p : plugin.params)
        if (!p.default_value.empty()) settings.push_back(p.key + "=" + p.default_value);
    return settings;
}

std::vector<Finding> declared_findings(const PluginInfo &plugin, const std::vector<uint64_t> &sizes,
                                       const std::vector<WorkAnswer> &plain,
                                       const std::vector<std::vector<WorkAnswer>> &defaults) {
    std::vector<Finding> out;
    if (plugin.name != plugin.workload + "_" + plugin.backend)
        out.push_back({plugin.name, "naming",
                       "the name is not <workload>_<backend> (" + plugin.workload + "_" + plugin.backend + ")",
                       see_descriptor});
    check_params(plugin, out);
    check_work(plugin, sizes, plain, out);
    const std::vector<std::string> settings = default_settings(plugin);
    for (size_t s = 0; s < settings.size() && s < defaults.size(); ++s)
        for (size_t i = 0; i < sizes.size() && i < plain.size() && i < defaults[s].size(); ++i) {
            const auto *without = std::get_if<Work>(&plain[i]);
            const auto *with = std::get_if<Work>(&defaults[s][i]);
            if (without && with && !same_work(*without, *with)) {
                out.push_back({plugin.name, "param_default",
                               "work() at size " + std::to_string(sizes[i]) + " differs with " + settings[s] +
                                   ", the declared default, from without it",
                               see_params});
                break;
            }
        }
    return out;
}

std::vector<Finding> entry_findings(const Measurement &e) {
    const std::string at = " (size " + std::to_string(e.size) + (e.settings.params.empty() ? "" : ", " + e.settings.params) + ")";
    std::vector<Finding> out;
    // A check's finding is named by it; a failure the plugin reported itself is an "error".
    const std::string rule = e.refused_by.empty() ? "error" : e.refused_by;
    if (e.status == EntryStatus::skipped)
        out.push_back({e.plugin, e.refused_by.empty() ? "skipped" : rule, e.message + at, see_errors, false});
    else if (e.status != EntryStatus::ok)
        out.push_back({e.plugin, rule, e.message + at, e.refused_by.empty() ? see_errors : see_checks});
    else if (e.verification.checked == 0)  // "verified", with nothing compared
        out.push_back({e.plugin, "verified_nothing", "verify() passed without checking an element of the result" + at,
                       see_work});
    for (const std::string &flag : entry_flags(e))
        if (flag == "persisting_l2_left" || flag == "work_mismatch" || flag == "unoptimized")
            out.push_back({e.plugin, flag, check_named(flag).meaning + at, see_checks, flag != "unoptimized"});
    return out;
}

}  // namespace gpubench
