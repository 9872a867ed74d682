#include "visible_devices.hpp"

#include "text_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace gpubench {
namespace {

std::vector<int> narrowed_to;  // narrow_own_devices' indices; empty: not narrowed

bool is_index(const std::string &entry) {
    return !entry.empty() && entry.size() < 8 && std::all_of(entry.begin(), entry.end(), ::isdigit);
}

}  // namespace

std::optional<std::vector<std::string>> listed_gpu_uuids(const std::filesystem::path &proc_gpus) {
    std::error_code ec;
    if (!std::filesystem::is_directory(proc_gpus, ec)) return std::nullopt;
    std::map<std::string, std::string> gpus;  // UUIDs by PCI bus id, in bus order
    for (const auto &gpu : std::filesystem::directory_iterator(proc_gpus, ec)) {
        std::ifstream information(gpu.path() / "information");
        std::string line, uuid;
        bool excluded = false;
        while (std::getline(information, line)) {
            const size_t colon = line.find(':');
            if (colon == std::string::npos) continue;
            const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
            if (key == "GPU UUID") uuid = value;
            if (key == "GPU Excluded") excluded = value == "Yes";
        }
        if (uuid.empty()) return std::nullopt;  // a listing this code does not understand
        if (!excluded) gpus.emplace(gpu.path().filename().string(), uuid);
    }
    std::vector<std::string> uuids;
    for (const auto &[bus, uuid] : gpus) uuids.push_back(uuid);
    return uuids;
}

std::optional<std::vector<std::string>> visible_device_entries(const char *value) {
    if (!value) return std::nullopt;
    std::vector<std::string> entries = split_list(value, ',', true);
    if (entries.back().empty()) entries.pop_back();  // "" has no entry, "0," one: only the last is dropped
    return entries;
}

std::string narrowed_visible_devices(const std::optional<std::vector<std::string>> &inherited,
                                     const std::vector<int> &indices) {
    std::vector<std::string> entries;
    for (int index : indices) {
        const size_t at = static_cast<size_t>(index);
        entries.push_back(!inherited                ? std::to_string(index)
                          : at < inherited->size() ? (*inherited)[at]
                                                   : std::to_string(1 << 20));  // no such device
    }
    return join(entries, ",");
}

std::optional<int> visible_gpu_count(const std::filesystem::path &proc_gpus,
                                     const std::optional<std::vector<std::string>> &inherited) {
    const std::optional<std::vector<std::string>> uuids = listed_gpu_uuids(proc_gpus);
    if (!uuids) return std::nullopt;
    if (!inherited) return static_cast<int>(uuids->size());
    // CUDA shows the entries up to the first that names no device.
    std::set<std::string> seen;
    int count = 0;
    for (const std::string &entry : *inherited) {
        std::string uuid;
        if (is_index(entry)) {
            const size_t index = std::stoul(entry);
            if (index >= uuids->size()) break;
            uuid = "#" + entry;  // an index names a device in CUDA's order, not known here
        } else if (std::find(uuids->begin(), uuids->end(), entry) != uuids->end()) {
            uuid = entry;
        } else if (entry.rfind("GPU-", 0) == 0 || entry.rfind("MIG-", 0) == 0) {
            return std::nullopt;  // a prefix CUDA may complete, or a MIG instance
        } else {
            break;
        }
        if (!seen.insert(uuid).second) return std::nullopt;  // a device named twice
        ++count;
    }
    return count;
}

const std::optional<std::vector<std::string>> &inherited_visible_devices() {
    static const std::optional<std::vector<std::string>> inherited =
        visible_device_entries(std::getenv(visible_devices_variable));
    return inherited;
}

bool narrow_own_devices(const std::vector<int> &indices) {
    const auto &inherited = inherited_visible_devices();
    const std::optional<int> count = visible_gpu_count(driver_gpu_listing(), inherited);
    if (!count || indices.empty() || static_cast<int>(indices.size()) >= *count || !narrowed_to.empty()) return false;
    for (int index : indices)
        if (index < 0 || index >= *count) return false;
    setenv(visible_devices_variable, narrowed_visible_devices(inherited, indices).c_str(), 1);
    narrowed_to = indices;
    return true;
}

int own_cuda_index(int index) {
    if (narrowed_to.empty()) return index;
    const auto found = std::find(narrowed_to.begin(), narrowed_to.end(), index);
    return found == narrowed_to.end() ? -1 : static_cast<int>(found - narrowed_to.begin());
}

std::filesystem::path driver_gpu_listing() {
    const char *fake = std::getenv("GPUBENCH_PROC_NVIDIA_GPUS");
    return fake && *fake ? fake : "/proc/driver/nvidia/gpus";
}

std::filesystem::path driver_proc_folder() {
    std::filesystem::path listing = driver_gpu_listing();
    if (!listing.has_filename()) listing = listing.parent_path();  // "gpus/": the folder itself
    return listing.parent_path();
}

std::string driver_release(const std::filesystem::path &driver_folder) {
    std::ifstream version(driver_folder / "version");
    std::string line;
    std::getline(version, line);  // the NVRM line: the first
    std::istringstream words(line);
    bool after_module = false;
    for (std::string word; words >> word;) {
        if (after_module && std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos)
            return word;
        after_module = after_module || word == "Module";
    }
    return "";
}

std::string worker_visible_devices(const std::vector<int> &indices, const std::vector<DeviceIdentity> &known,
                                   const std::optional<std::vector<std::string>> &inherited,
                                   const std::optional<std::vector<std::string>> &listed) {
    const bool mig = inherited && std::any_of(inherited->begin(), inherited->end(), [](const std::string &entry) {
                         return entry.rfind("MIG-", 0) == 0;
                     });
    std::vector<std::string> uuids;
    for (int index : indices) {
        const auto found = std::find_if(known.begin(), known.end(), [&](const DeviceIdentity &device) {
            return device.index == index && !device.uuid.empty();
        });
        if (mig || found == known.end() ||
            (listed && std::find(listed->begin(), listed->end(), found->uuid) == listed->end()))
            return narrowed_visible_devices(inherited, indices);
        uuids.push_back(found->uuid);
    }
    return join(uuids, ",");
}

}  // namespace gpubench
