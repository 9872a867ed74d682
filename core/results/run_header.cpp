#include "run_header.hpp"

#include "text_format.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace gpubench {

using nlohmann::json;

namespace {

std::string text(const json &object, const char *key) {
    if (!object.is_object()) return "";
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// NVML/CUDA encode the driver's CUDA version as 1000 * major + 10 * minor.
std::string driver_text(const json &gpu) {
    auto it = gpu.find("driver_version");
    if (it == gpu.end() || !it->is_number_integer()) return "";
    const int v = it->get<int>();
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// The roofline `holder` ("gpu", a "gpus" element, "host") records, where it has a well-formed one.
std::optional<Roofline> recorded_roofline(const json &holder) {
    const auto roofline = holder.find("roofline");
    if (roofline == holder.end()) return std::nullopt;
    try {
        return roofline_from_json(*roofline);
    } catch (const std::exception &) {  // a file the schema let through with a partial one
        return std::nullopt;
    }
}

}  // namespace

RunHeader run_header(const json &document, const std::string &file) {
    RunHeader h;
    h.file = file;
    h.created = text(document, "created");
    const json host = document.value("host", json::object());
    h.host_name = text(host, "host_name");
    h.cpu_model = text(host, "cpu_model");
    h.os = text(host, "os");
    h.logical_cores = host.value("logical_cores", uint64_t{0});
    // A --devices sweep lists every GPU in "gpus"; otherwise "gpu" is the one, if available.
    const json gpus = document.value("gpus", json::array());
    const json gpu = document.value("gpu", json::object());
    for (const json &g : gpus.is_array() ? gpus : json::array())
        if (g.value("available", true) && !text(g, "name").empty()) h.gpus.push_back(text(g, "name"));
    if (h.gpus.empty() && gpu.value("available", false) && !text(gpu, "name").empty())
        h.gpus.push_back(text(gpu, "name"));
    if (!h.gpus.empty()) h.driver = driver_text(gpu);
    for (const json &g : gpus.is_array() && !gpus.empty() ? gpus : json::array({gpu}))
        if (g.is_object() && g.value("available", true))
            if (auto roofline = recorded_roofline(g))
                h.rooflines.push_back({text(g, "name"), g.value("device", 0), std::move(*roofline)});
    if (host.is_object())
        if (auto roofline = recorded_roofline(host)) h.rooflines.push_back({"host", -1, std::move(*roofline)});
    const json build = document.value("build", json::object());
    h.commit = text(build, "git_revision");
    if (h.commit.empty()) h.commit = "unknown";
    h.build_type = text(build, "build_type");
    h.cxx_compiler = text(build, "cxx_compiler");
    h.cuda_compiler = text(build, "cuda_compiler");
    h.gpubench_version = text(build, "gpubench_version");
    h.plugin_abi = text(build, "plugin_abi");
    for (const json &arg : document.value("command_line", json::array()))
        if (arg.is_string()) h.command_line.push_back(arg.get<std::string>());
    h.options = document.value("options", json::object());
    h.resumed = document.contains("resumed");
    return h;
}

const RecordedRoofline *RunHeader::roofline_of(const EntryResult &entry) const {
    const bool on_gpu = !entry.cuda_devices.empty();
    const int index = on_gpu ? entry.cuda_devices.front() : -1;
    std::string name;  // the GPU's, where the sweep probed it
    for (const DeviceIdentity &d : entry.sweep.devices)
        if (d.index == index) name = d.name;
    for (const RecordedRoofline &r : rooflines) {
        const bool gpu_roofline = r.index >= 0;
        if (!on_gpu ? !gpu_roofline : gpu_roofline && (name.empty() ? r.index == index : r.device == name)) return &r;
    }
    return nullptr;
}

void RunHeader::time_sweep(const std::vector<EntryResult> &entries) {
    wall_s.clear();
    if (resumed) return;
    std::map<int, double> last;
    for (const EntryResult &entry : entries) {
        double &shard = last[entry.sweep.shard ? int(*entry.sweep.shard) : -1];
        shard = std::max(shard, entry.sweep.finished_after_s);
    }
    for (const auto &[shard, at] : last)
        if (at > 0) wall_s.push_back({shard, at});
}

std::string RunHeader::wall_time() const {
    const auto seconds = [](double s) { return format_text("%.1f s", s); };
    if (wall_s.size() == 1 && wall_s.front().first < 0) return seconds(wall_s.front().second);
    std::string text;
    double shortest = 0, longest = 0;
    for (const auto &[shard, at] : wall_s) {
        text += (text.empty() ? "" : ", ") + (shard < 0 ? std::string("unsharded") : "shard " + std::to_string(shard)) +
                ": " + seconds(at);
        shortest = shortest == 0 ? at : std::min(shortest, at);
        longest = std::max(longest, at);
    }
    if (wall_s.size() > 1 && shortest > 0)
        text += format_text(" (the longest %.2fx the shortest)", longest / shortest);
    return text;
}

std::string RunHeader::machine() const {
    std::string details = cpu_model;
    if (logical_cores) details += (details.empty() ? "" : ", ") + std::to_string(logical_cores) + " cores";
    return host_name + (details.empty() ? "" : " (" + details + ")");
}

std::string RunHeader::gpu_list() const {
    // Runs of one model are counted: "2 x NVIDIA H100", else listed in order.
    std::string list;
    for (size_t i = 0; i < gpus.size();) {
        size_t j = i;
        while (j < gpus.size() && gpus[j] == gpus[i]) ++j;
        list += (list.empty() ? "" : ", ") + (j - i > 1 ? std::to_string(j - i) + " x " : "") + gpus[i];
        i = j;
    }
    return list;
}

std::string RunHeader::build() const {
    std::string b = build_type;
    for (const std::string &part : {cxx_compiler, cuda_compiler == "none" ? std::string() : cuda_compiler,
                                    gpubench_version.empty() ? std::string() : "gpubench " + gpubench_version})
        if (!part.empty()) b += (b.empty() ? "" : ", ") + part;
    return b;
}

}  // namespace gpubench
