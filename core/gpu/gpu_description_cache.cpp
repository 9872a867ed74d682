#include "gpu_description_cache.hpp"

#include "cache_files.hpp"
#include "json_fields.hpp"
#include "l2_bandwidth.hpp"
#include "system_info.hpp"
#include "text_format.hpp"
#include "visible_devices.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

namespace gpubench {

namespace {

namespace fs = std::filesystem;

// Every field but l2_bytes_per_s, which has its own cache (l2_bandwidth.hpp).
GPUBENCH_JSON_FIELDS_AS(GpuInfo, put_description, get_description, available, unavailable_reason, device, name,
                        compute_major, compute_minor, sm_count, memory_bytes, l2_bytes, driver_version,
                        driver_release, runtime_version, pci_bus_id, uuid, peak_fp32_flops, peak_fp64_flops,
                        peak_bytes_per_s, boost_clock_hz, memory_bus_bits)

constexpr int cache_format = 1;                      // another format: the file starts afresh
constexpr std::uintmax_t max_file_bytes = 1 << 20;   // some hundred entries of under 1 KiB each
constexpr size_t max_entries = 64;                   // more: the file starts afresh
constexpr size_t max_mig_names = 4096;               // 8 GPUs of 7 instances take a few dozen

// A variable as the key holds it: unset and set to "" differ (CUDA_VISIBLE_DEVICES= shows no GPU).
std::string variable_text(const char *variable) {
    const char *value = std::getenv(variable);
    return std::string(variable) + (value ? "=" + std::string(value) : " unset");
}

// This boot's id, or the file GPUBENCH_PROC_BOOT_ID names (tests); "" where unreadable.
std::string boot_id() {
    const char *fake = std::getenv("GPUBENCH_PROC_BOOT_ID");
    std::ifstream in(fake && *fake ? fake : "/proc/sys/kernel/random/boot_id");
    char text[64] = {};  // a UUID and its newline; a longer "id" is not one
    in.read(text, sizeof text);
    std::string id(text, static_cast<size_t>(in.gcount()));
    while (!id.empty() && std::isspace(static_cast<unsigned char>(id.back()))) id.pop_back();
    return id.size() < sizeof text - 1 ? id : "";
}

// The names under the driver's capabilities/gpu*/mig folders (its MIG instances), sorted; ""
// where there are none; nullopt where they cannot be listed.
std::optional<std::string> mig_names(const fs::path &driver_folder) {
    const fs::path capabilities = driver_folder / "capabilities";
    std::error_code ec;
    std::vector<std::string> names;
    if (!fs::is_directory(capabilities, ec)) return "";
    for (const fs::directory_entry &gpu : fs::directory_iterator(capabilities, ec)) {
        if (gpu.path().filename().string().rfind("gpu", 0) != 0) continue;
        std::error_code no_mig;
        if (!fs::is_directory(gpu.path() / "mig", no_mig)) continue;
        for (fs::recursive_directory_iterator name(gpu.path() / "mig", ec), end; !ec && name != end;
             name.increment(ec)) {
            names.push_back(name->path().lexically_relative(capabilities).string());
            if (names.size() > max_mig_names) return std::nullopt;
        }
        if (ec) return std::nullopt;
    }
    if (ec) return std::nullopt;
    std::sort(names.begin(), names.end());
    return join(names, " ");
}

// A kept entry as keep_gpu_description writes it: every field, each of its kind (a whole
// number where one was written, so that no floating value is cast to an integer field).
bool well_formed(const nlohmann::json &entry) {
    const auto same_kind = [](const nlohmann::json &read, const nlohmann::json &written) {
        if (written.is_number_integer()) return read.is_number_integer();
        if (written.is_number_float()) return read.is_number();
        return read.type() == written.type();
    };
    nlohmann::json written;
    put_description(written, GpuInfo{});
    if (!entry.is_object() || entry.size() != written.size()) return false;
    for (const auto &[name, value] : written.items())
        if (const auto read = entry.find(name); read == entry.end() || !same_kind(*read, value)) return false;
    return true;
}

// What a probe could have answered for the key's device: texts printed as they are (no
// control characters to reach a terminal), rates that are rates.
bool plausible(const GpuInfo &gpu, const GpuDescriptionKey &key) {
    const auto rate = [](double value) { return std::isfinite(value) && value >= 0; };
    const auto text = [](const std::string &value) { return printable_text(value) == value; };
    return gpu.available && gpu.device == key.device && !gpu.name.empty() && !gpu.uuid.empty() &&
           gpu.sm_count > 0 && gpu.memory_bytes > 0 && rate(gpu.peak_fp32_flops) && rate(gpu.peak_fp64_flops) &&
           rate(gpu.peak_bytes_per_s) && rate(gpu.boost_clock_hz) && text(gpu.name) && text(gpu.uuid) &&
           text(gpu.pci_bus_id) && text(gpu.driver_release) && text(gpu.unavailable_reason);
}

// The file's entries where it is of this format and this boot; else nullopt.
std::optional<nlohmann::json> entries_of_this_boot(const nlohmann::json &document, const GpuDescriptionKey &key) {
    const auto format = document.find("format"), boot = document.find("boot_id"), gpus = document.find("gpus");
    if (format == document.end() || *format != cache_format || boot == document.end() || *boot != key.boot_id ||
        gpus == document.end() || !gpus->is_object())
        return std::nullopt;
    return *gpus;
}

// Replaces the file with this boot's `entries`; a write that fails is skipped.
void write_entries(const fs::path &file, const GpuDescriptionKey &key, nlohmann::json entries) {
    write_cache(file, {{"format", cache_format}, {"boot_id", key.boot_id}, {"gpus", std::move(entries)}});
}

}  // namespace

std::optional<GpuDescriptionKey> gpu_description_key(int own_index) {
    try {
        const fs::path listing = driver_gpu_listing();
        const std::optional<std::vector<std::string>> uuids = listed_gpu_uuids(listing);
        if (!uuids || !visible_gpu_count(listing, visible_device_entries(std::getenv(visible_devices_variable))))
            return std::nullopt;
        GpuDescriptionKey key{own_index, boot_id(), ""};
        const std::string release = driver_release(driver_proc_folder());
        const std::optional<std::string> mig = mig_names(driver_proc_folder());
        if (key.boot_id.empty() || release.empty() || !mig) return std::nullopt;
        key.text = "boot " + key.boot_id + "; driver " + release + "; listing " + join(*uuids, ",") + "; mig " +
                   *mig + "; " + variable_text(visible_devices_variable) + "; " + variable_text("CUDA_DEVICE_ORDER") +
                   "; " + variable_text("LD_LIBRARY_PATH") + "; build " + build_context().dump() + "; cudart " +
                   std::to_string(built_cuda_runtime_version()) + "; device " + std::to_string(own_index);
        return key;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

std::optional<GpuInfo> cached_gpu_description(const GpuDescriptionKey &key) {
    const std::optional<fs::path> file = cache_file(gpu_description_cache_name);
    if (!file) return std::nullopt;
    try {
        const std::optional<nlohmann::json> entries = entries_of_this_boot(read_cache(*file, max_file_bytes), key);
        if (!entries) return std::nullopt;
        const auto entry = entries->find(key.text);
        if (entry == entries->end() || !well_formed(*entry)) return std::nullopt;
        GpuInfo gpu;
        get_description(*entry, gpu);
        if (!plausible(gpu, key)) return std::nullopt;
        gpu.l2_bytes_per_s = l2_bytes_per_s(gpu, false);  // as probe_gpu fills it
        return gpu;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

void keep_gpu_description(const GpuDescriptionKey &key, const GpuInfo &gpu) {
    const std::optional<fs::path> file = cache_file(gpu_description_cache_name);
    if (!file) return;
    try {
        std::optional<nlohmann::json> entries = entries_of_this_boot(read_cache(*file, max_file_bytes), key);
        if (!gpu.available) {  // what was kept is wrong now (--reprobe-gpus): forgotten
            if (entries && entries->erase(key.text) > 0) write_entries(*file, key, std::move(*entries));
            return;
        }
        if (!entries || entries->size() >= max_entries) entries = nlohmann::json::object();
        nlohmann::json entry;  // a fresh one: nothing of a damaged entry is left in it
        put_description(entry, gpu);
        (*entries)[key.text] = std::move(entry);
        write_entries(*file, key, std::move(*entries));
    } catch (const std::exception &) {  // not kept: probed again next time
    }
}

GpuInfo cached_or_probed_gpu(int own_index, bool reprobe) {
    const std::optional<GpuDescriptionKey> key = gpu_description_key(own_index);
    if (key && !reprobe)
        if (std::optional<GpuInfo> cached = cached_gpu_description(*key)) return *cached;
    const GpuInfo gpu = probe_gpu(own_index);
    if (key) keep_gpu_description(*key, gpu);
    return gpu;
}

}  // namespace gpubench
