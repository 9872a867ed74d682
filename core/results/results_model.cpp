#include "results_model.hpp"

#include "entry_json.hpp"
#include "file_text.hpp"
#include "json_fields.hpp"
#include "nvml_probe.hpp"
#include "results.hpp"
#include "statistics.hpp"
#include "system_info.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace gpubench {

using nlohmann::json;

namespace {
// An available GPU's fields that are named as its members.
GPUBENCH_JSON_FIELDS_AS(GpuInfo, put_gpu, get_gpu, available, device, name, sm_count, memory_bytes, l2_bytes,
                        pci_bus_id, uuid, driver_version, driver_release, runtime_version)
}  // namespace

json gpu_json(const GpuInfo &gpu) {
    if (!gpu.available)
        return {{"available", false},
                {"reason", gpu.unavailable_reason},
                {"driver_version", gpu.driver_version},
                {"runtime_version", gpu.runtime_version}};
    json j = {{"compute_capability", std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor)},
              {"peak",
               {{"fp32_flops", gpu.peak_fp32_flops},
                {"fp64_flops", gpu.peak_fp64_flops},
                {"bytes_per_s", gpu.peak_bytes_per_s},
                {"source", "device attributes: SMs x boost clock x non-tensor lanes per SM x 2; "
                           "memory clock x bus width x 2"}}}};
    put_gpu(j, gpu);
    return j;
}

json results_header(std::vector<std::string> command_line, const GpuInfo &gpu, json options,
                    const std::optional<Roofline> &host_roofline) {
    json header = {{"schema_version", results_schema_version},
                   {"created", utc_timestamp()},
                   {"command_line", std::move(command_line)},
                   {"host", host_context()},
                   {"build", build_context()},
                   {"gpu", gpu_json(gpu)},
                   {"options", std::move(options)}};
    if (gpu.available) {
        Roofline roofline = gpu_roofline(gpu);
        roofline.interconnect = interconnect_peak(link_answers_of(gpu.pci_bus_id));
        header["gpu"]["roofline"] = roofline_json(roofline);
    }
    if (host_roofline) header["host"]["roofline"] = roofline_json(*host_roofline);
    return header;
}

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

// Files from before each entry carried its ceilings ("throughput.ceiling") held a GPU entry
// to the header's GPU peaks (gpu.peak): decoded as its ceilings, so that its % of peak is
// derived as its writer derived it.
void ceilings_of_earlier_files(const json &document, ResultsDocument &d) {
    const json &gpu = document.at("gpu");
    const auto peak = gpu.find("peak");
    if (peak == gpu.end()) return;
    for (const json &entry : document.at("entries"))
        if (entry.contains(json::json_pointer("/throughput/ceiling"))) return;  // a later file
    const auto rate = [&](const char *key) {
        const auto found = peak->find(key);
        return found != peak->end() && found->is_number() ? found->get<double>() : 0.0;
    };
    std::set<std::string> on_gpu;
    for (const PluginRecord &p : d.plugins)
        if (p.device_kind == "cuda") on_gpu.insert(p.name);
    for (EntryResult &e : d.entries)
        if (on_gpu.count(e.plugin)) {
            e.ceiling.flops = rate(e.work.math == GPUBENCH_MATH_FP64 ? "fp64_flops" : "fp32_flops");
            e.ceiling.bytes_per_s = rate("bytes_per_s");
        }
}

// An entry's wall time as recorded_costs (results_model.hpp) reads it.
double recorded_wall_s(const EntryResult &entry) {
    if (entry.sweep.entry_wall_s > 0) return entry.sweep.entry_wall_s;
    const std::vector<double> &runs = entry.timing.samples.run;
    return runs.empty() ? 0 : summarize(runs).median * double(runs.size()) + entry.timing.first_run;
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
    // The energy sources: the file's, else (a file from before them, continued) its latest continuation's.
    const json *energy = document.contains("energy") ? &document.at("energy") : nullptr;
    if (const json &resumed = document.value("resumed", json::array());
        !energy && !resumed.empty() && resumed.back().contains("energy"))
        energy = &document.at("resumed").back().at("energy");
    if (energy && energy->is_object()) h.energy = energy->get<SweepEnergy>();
    return h;
}

RunBasis RunHeader::basis() const {
    RunBasis basis{logical_cores, !gpus.empty(), std::nullopt, ""};
    if (energy && energy->gpu.idle_w) basis.gpu_idle_w = energy->gpu.idle_w;
    else if (!energy) basis.gpu_idle_note = "a file from before idle powers were measured";
    else basis.gpu_idle_note = energy->gpu.source ? "not measured" : energy->gpu.reason;
    return basis;
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

void check_results_document(const json &document, const std::string &source) {
    if (!document.is_object() || !document.contains("schema_version"))
        throw std::runtime_error(source + " is not a gpubench results file (no schema_version)");
    if (const json &version = document["schema_version"];
        version.is_number() && version != results_schema_version)
        throw std::runtime_error(source + " has results schema " + version.dump() +
                                 "; this runner reads schema " +
                                 std::to_string(results_schema_version));
    if (const auto violation = results_schema_violation(document))
        throw std::runtime_error(source + ": " + violation->text());
}

EntryResult typed_entry(const json &entry, size_t index, const std::string &source) {
    try {
        return entry.get<EntryResult>();
    } catch (const std::exception &e) {  // what the schema cannot say (a bad status...)
        throw std::runtime_error(source + ": /entries/" + std::to_string(index) + ": " +
                                 without_exception_id(e.what()));
    }
}

ResultsDocument typed_results_document(const json &document, const std::string &source) {  // checked already
    ResultsDocument d;
    d.header = run_header(document, source);
    if (const json &gpu = document.at("gpu"); gpu.at("available").get<bool>())
        d.gpu_name = gpu.at("name").get<std::string>();
    for (const json &plugin : document.at("plugins")) {
        PluginRecord &p = d.plugins.emplace_back(plugin.get<PluginRecord>());
        if (plugin.contains("build_record"))
            p.build_record = build_record_from_json(plugin.at("build_record"));
        for (const json &param : plugin.value("params", json::array())) p.param_keys.push_back(param.value("key", ""));
    }
    const json &entries = document.at("entries");
    d.entries.reserve(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) d.entries.push_back(typed_entry(entries[i], i, source));
    ceilings_of_earlier_files(document, d);
    d.header.time_sweep(d.entries);
    return d;
}

ResultsDocument results_document(const json &document, const std::string &source) {
    check_results_document(document, source);
    return typed_results_document(document, source);
}

json read_results_json(const std::filesystem::path &path) {
    const std::string name = path.string();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw std::runtime_error(name + " is a directory, not a results file");
    // A sweep under way, or killed, has its entries in the journal beside the file it writes
    // (the symlink's target's, where `path` is one).
    const std::filesystem::path target = std::filesystem::weakly_canonical(path, ec);
    if (std::optional<json> replayed = replay_journal(journal_path(ec ? path : target))) {
        check_results_document(*replayed, name + " (with its journal)");
        return std::move(*replayed);
    }
    const std::string text = read_file_text(path);  // gzip-compressed or not
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw std::runtime_error(name + " is empty");
    json document = parse_bounded(text, name);
    check_results_document(document, name);
    return document;
}

ResultsDocument read_results_file(const std::filesystem::path &path) {
    return typed_results_document(read_results_json(path), path.string());
}

void refuse_profile_runs(const ResultsDocument &document, const std::string &source, const std::string &reader) {
    for (const EntryResult &entry : document.entries)
        if (entry.timing.profile_runs)
            throw std::runtime_error(source + ": entry " + entry.plugin + " " + std::to_string(entry.size) +
                                     " is a profile run (--profile): its times are not a measurement, and " +
                                     reader + " takes none");
}

std::vector<RecordedCost> recorded_costs(const ResultsDocument &document) {
    std::vector<RecordedCost> costs;
    for (const EntryResult &entry : document.entries) {
        RecordedCost cost{std::max(0.0, recorded_wall_s(entry)), std::nullopt};
        const Timing &t = entry.timing;
        if (entry.sweep.worker_started && !t.samples.run.empty() && entry.sweep.entry_wall_s > 0) {
            const double first_use_s = std::max(0.0, t.first_run - summarize(t.samples.run).median);
            const double start_s = std::min(cost.entry_s, t.load + first_use_s);
            cost.start_s = start_s;
            cost.entry_s -= start_s;
        }
        costs.push_back(cost);
    }
    return costs;
}

}  // namespace gpubench
