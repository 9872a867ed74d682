// What the runner knows of a plugin without loading it: a plain copy of its descriptor, made
// by the scanner process (plugin_scan.hpp) or by a worker that loaded it, with every string
// bounded and valid UTF-8. The runner's own process decides, lists, records and plans with
// this; only workers (and --in-process) load the library itself (plugin_library.hpp).
#pragma once

#include "build_record.hpp"

#include <gpubench/param_spec.hpp>
#include <gpubench/plugin.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

std::string abi_text(uint16_t major, uint16_t minor);  // "1.3"

struct PluginInfo {
    std::filesystem::path file;
    uint32_t struct_size = 0;
    uint16_t abi_major = 0, abi_minor = 0;
    std::string name, workload, backend, description, size_meaning, version, build_info,
        params_help;
    gpubench_device_kind device_kind = GPUBENCH_DEVICE_CPU;
    uint64_t min_size = 1, max_size = 1;
    std::vector<uint64_t> default_sizes;
    std::string item_name;                                  // v1.1; "" = none
    gpubench_headline headline = GPUBENCH_HEADLINE_AUTO;    // v1.1
    std::optional<std::vector<std::string>> param_names;    // v1.2; nullopt = not declared
    std::vector<ParamSpec> params;  // v1.10: declared with type and values; empty = not so declared
    bool has_availability_probe = false;                    // v1.4: available() is set
    uint32_t max_devices = 1;  // v1.5: GPUs it works across at once; 1 = single-device (0 read as 1)
    std::string unavailable_reason;  // what available() said in the scan; "" = available
    // Not from the descriptor: the build record beside the file, read by discover_plugins.
    std::optional<BuildRecord> build_record;
    std::string build_record_note;  // why a build record beside it was ignored; "" when none was

    bool is_available() const { return unavailable_reason.empty(); }
    bool is_cuda() const { return device_kind == GPUBENCH_DEVICE_CUDA; }
    const char *device_kind_name() const;  // "cpu", "cuda"
    // build_info says the plugin was compiled without optimisation (GPUBENCH_OPTIMIZATION_TEXT).
    bool built_unoptimized() const;
    std::string abi_text() const { return gpubench::abi_text(abi_major, abi_minor); }
};

// A file that was not accepted as a plugin, and why.
struct Refusal {
    std::filesystem::path file;
    std::string reason;
};

// The scanner's and the scan cache's form. The file is not part of it (the reader knows it).
nlohmann::json plugin_info_to_json(const PluginInfo &info);
// Throws std::exception on a missing field or a wrong type.
PluginInfo plugin_info_from_json(const nlohmann::json &json, const std::filesystem::path &file);

}  // namespace gpubench
