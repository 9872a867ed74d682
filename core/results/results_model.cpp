#include "results_model.hpp"

#include "file_text.hpp"
#include "nvml_probe.hpp"
#include "results_journal.hpp"
#include "system_info.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
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

const std::vector<double> &TimingRecord::headline_samples() const {
    return per_launch && !per_launch->method.empty() ? per_launch->samples : samples.run;
}

std::string RecordedEntry::identity() const {
    return record.plugin + "|" + std::to_string(record.size) + "|" + record.params;
}

std::pair<std::vector<double>, std::vector<double>> comparable_samples(
    const RecordedEntry &base, const RecordedEntry &candidate) {
    if (!base.timing || !candidate.timing) return {};
    const auto method = [](const TimingRecord &t) { return t.per_launch ? t.per_launch->method : ""; };
    const std::string base_method = method(*base.timing);
    if (!base_method.empty() && base_method == method(*candidate.timing))
        return {base.timing->headline_samples(), candidate.timing->headline_samples()};
    return {base.timing->samples.run, candidate.timing->samples.run};
}

namespace {

template <typename T>
std::optional<T> optional_field(const json &object, const char *name) {
    const auto found = object.find(name);
    return found == object.end() ? std::nullopt : std::optional<T>(found->get<T>());
}

// An entry of a checked document, typed: every field read here has its type in the schema.
RecordedEntry recorded_entry(const json &entry) {
    RecordedEntry r{entry.get<EntryRecord>(), std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    if (const auto found = entry.find("timing"); found != entry.end()) {
        const json &timing = *found;
        TimingRecord &t = r.timing.emplace();
        t.run = timing.at("run").get<Summary>();
        t.end_to_end = timing.at("end_to_end").get<Summary>();
        t.load = optional_field<double>(timing, "load").value_or(0);
        t.first_run = timing.at("first_run").get<double>();
        t.samples = timing.at("samples").get<SampleSeries>();
        if (timing.contains("compute")) t.compute = timing.at("compute").get<HeadlineTiming>();
        if (timing.contains("per_launch"))
            t.per_launch = timing.at("per_launch").get<PerLaunchTiming>();
        t.run_host = optional_field<Summary>(timing, "run_host");
        t.stream_hold = optional_field<std::string>(timing, "stream_hold").value_or("");
    }
    if (const auto found = entry.find("resources"); found != entry.end())
        r.resources = ResourcesRecord{found->at("peak_rss_bytes").get<uint64_t>(),
                                      optional_field<double>(*found, "cpu_percent"),
                                      optional_field<uint64_t>(*found, "device_allocated_bytes"),
                                      optional_field<double>(*found, "gpu_busy")};
    if (const auto found = entry.find("harness"); found != entry.end()) {
        r.entry_wall_s = optional_field<double>(*found, "entry_wall_s");
        r.worker_started = optional_field<bool>(*found, "worker_started");
    }
    if (const auto found = entry.find("devices"); found != entry.end() && !found->empty()) {
        r.gpu_model = optional_field<std::string>(found->front(), "name").value_or("");
        r.device = found->front().at("index").get<int>();
    }
    return r;
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

ResultsDocument typed_results_document(const json &document) {  // checked already
    ResultsDocument d;
    d.created = document.at("created").get<std::string>();
    const json &host = document.at("host");
    d.host_name = host.at("host_name").get<std::string>();
    d.logical_cores = host.at("logical_cores").get<uint64_t>();
    if (const json &gpu = document.at("gpu"); gpu.at("available").get<bool>())
        d.gpu_name = gpu.at("name").get<std::string>();
    for (const json &plugin : document.at("plugins")) {
        PluginRecord &p = d.plugins.emplace_back(plugin.get<PluginRecord>());
        if (plugin.contains("build_record"))
            p.build_record = build_record_from_json(plugin.at("build_record"));
    }
    for (const json &entry : document.at("entries")) d.entries.push_back(recorded_entry(entry));
    return d;
}

ResultsDocument results_document(const json &document, const std::string &source) {
    check_results_document(document, source);
    return typed_results_document(document);
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
    return typed_results_document(read_results_json(path));
}

}  // namespace gpubench
