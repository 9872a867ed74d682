#include "plugin_info.hpp"

#include "declared_params.hpp"
#include "json_fields.hpp"

namespace gpubench {

const char *PluginInfo::device_kind_name() const {
    return device_kind == GPUBENCH_DEVICE_CPU ? "cpu" : device_kind == GPUBENCH_DEVICE_CUDA ? "cuda" : "unknown";
}

bool PluginInfo::built_unoptimized() const {
    return build_info.find("unoptimized") != std::string::npos;
}

std::string abi_text(uint16_t major, uint16_t minor) {
    return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

GPUBENCH_JSON_FIELDS_AS(PluginInfo, put_descriptor, get_descriptor, struct_size, abi_major, abi_minor, name,
                        workload, backend, description, size_meaning, version, build_info, params_help,
                        device_kind, min_size, max_size, default_sizes, item_name, headline)
}  // namespace

nlohmann::json plugin_info_to_json(const PluginInfo &info) {
    nlohmann::json json;
    put_descriptor(json, info);
    if (info.param_names) json["param_names"] = *info.param_names;
    if (!info.params.empty()) json["params"] = declared_params_json(info.params);
    if (info.has_availability_probe) json["availability_probe"] = true;
    json["max_devices"] = info.max_devices;
    if (!info.unavailable_reason.empty()) json["unavailable"] = info.unavailable_reason;
    return json;
}

PluginInfo plugin_info_from_json(const nlohmann::json &json, const std::filesystem::path &file) {
    PluginInfo info;
    nlohmann::json required;
    put_descriptor(required, info);  // the fields every scan writes: a missing one throws
    for (const auto &field : required.items()) json.at(field.key());
    info.file = file;
    get_descriptor(json, info);
    if (json.contains("param_names")) info.param_names = json["param_names"].get<std::vector<std::string>>();
    if (json.contains("params")) info.params = declared_params_from_json(json["params"]);
    info.has_availability_probe = json.value("availability_probe", false);
    info.max_devices = json.value("max_devices", 1u);
    info.unavailable_reason = json.value("unavailable", std::string());
    return info;
}

}  // namespace gpubench
