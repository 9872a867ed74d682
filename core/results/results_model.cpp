#include "results_model.hpp"

#include "entry_json.hpp"
#include "file_text.hpp"
#include "nvml_probe.hpp"
#include "results_journal.hpp"
#include "system_info.hpp"

#include <set>
#include <stdexcept>

namespace gpubench {

using nlohmann::json;

json gpu_json(const GpuInfo &gpu) {
    if (!gpu.available)
        return {{"available", false},
                {"reason", gpu.unavailable_reason},
                {"driver_version", gpu.driver_version},
                {"runtime_version", gpu.runtime_version}};
    return {{"available", true},
            {"device", gpu.device},
            {"name", gpu.name},
            {"compute_capability", std::to_string(gpu.compute_major) + "." +
                                       std::to_string(gpu.compute_minor)},
            {"sm_count", gpu.sm_count},
            {"memory_bytes", gpu.memory_bytes},
            {"l2_bytes", gpu.l2_bytes},
            {"pci_bus_id", gpu.pci_bus_id},
            {"uuid", gpu.uuid},
            {"driver_version", gpu.driver_version},
            {"driver_release", gpu.driver_release},
            {"runtime_version", gpu.runtime_version},
            {"peak",
             {{"fp32_flops", gpu.peak_fp32_flops},
              {"fp64_flops", gpu.peak_fp64_flops},
              {"bytes_per_s", gpu.peak_bytes_per_s},
              {"source", "device attributes: SMs x boost clock x non-tensor lanes per SM x 2; "
                         "memory clock x bus width x 2"}}}};
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
            e.peak_flops = rate(e.work.math == GPUBENCH_MATH_FP64 ? "fp64_flops" : "fp32_flops");
            e.peak_bytes_per_s = rate("bytes_per_s");
        }
}

}  // namespace

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
        if (entry.settings.profile_runs)
            throw std::runtime_error(source + ": entry " + entry.plugin + " " + std::to_string(entry.size) +
                                     " is a profile run (--profile): its times are not a measurement, and " +
                                     reader + " takes none");
}

}  // namespace gpubench
