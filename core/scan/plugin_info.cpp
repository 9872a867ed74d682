#include "plugin_info.hpp"

#include "declared_params.hpp"

namespace gpubench {

const char *PluginInfo::device_kind_name() const {
    switch (device_kind) {
        case GPUBENCH_DEVICE_CPU: return "cpu";
        case GPUBENCH_DEVICE_CUDA: return "cuda";
        default: return "unknown";
    }
}

bool PluginInfo::built_unoptimized() const {
    return build_info.find("unoptimized") != std::string::npos;
}

std::string PluginInfo::abi_text() const {
    return std::to_string(abi_major) + "." + std::to_string(abi_minor);
}

nlohmann::json plugin_info_to_json(const PluginInfo &info) {
    nlohmann::json json = {{"struct_size", info.struct_size},
                           {"abi_major", info.abi_major},
                           {"abi_minor", info.abi_minor},
                           {"name", info.name},
                           {"workload", info.workload},
                           {"backend", info.backend},
                           {"description", info.description},
                           {"size_meaning", info.size_meaning},
                           {"version", info.version},
                           {"build_info", info.build_info},
                           {"params_help", info.params_help},
                           {"device_kind", info.device_kind},
                           {"min_size", info.min_size},
                           {"max_size", info.max_size},
                           {"default_sizes", info.default_sizes},
                           {"item_name", info.item_name},
                           {"headline", info.headline}};
    if (info.param_names) json["param_names"] = *info.param_names;
    if (!info.params.empty()) json["params"] = declared_params_json(info.params);
    if (info.has_availability_probe) json["availability_probe"] = true;
    json["max_devices"] = info.max_devices;
    if (!info.unavailable_reason.empty()) json["unavailable"] = info.unavailable_reason;
    return json;
}

PluginInfo plugin_info_from_json(const nlohmann::json &json, const std::filesystem::path &file) {
    PluginInfo info;
    info.file = file;
    json.at("struct_size").get_to(info.struct_size);
    json.at("abi_major").get_to(info.abi_major);
    json.at("abi_minor").get_to(info.abi_minor);
    json.at("name").get_to(info.name);
    json.at("workload").get_to(info.workload);
    json.at("backend").get_to(info.backend);
    json.at("description").get_to(info.description);
    json.at("size_meaning").get_to(info.size_meaning);
    json.at("version").get_to(info.version);
    json.at("build_info").get_to(info.build_info);
    json.at("params_help").get_to(info.params_help);
    json.at("device_kind").get_to(info.device_kind);
    json.at("min_size").get_to(info.min_size);
    json.at("max_size").get_to(info.max_size);
    json.at("default_sizes").get_to(info.default_sizes);
    json.at("item_name").get_to(info.item_name);
    json.at("headline").get_to(info.headline);
    if (json.contains("param_names")) info.param_names = json["param_names"].get<std::vector<std::string>>();
    if (json.contains("params")) info.params = declared_params_from_json(json["params"]);
    info.has_availability_probe = json.value("availability_probe", false);
    info.max_devices = json.value("max_devices", 1u);
    info.unavailable_reason = json.value("unavailable", std::string());
    return info;
}

}  // namespace gpubench
