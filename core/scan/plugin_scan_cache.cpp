#include "plugin_scan_cache.hpp"

#include "cache_files.hpp"
#include "descriptor_check.hpp"
#include "json_fields.hpp"
#include "system_info.hpp"
#include "text_format.hpp"

#include <sys/stat.h>

namespace gpubench {

namespace fs = std::filesystem;

GPUBENCH_JSON_FIELDS(FileIdentity, device, inode, size, modified_ns, changed_ns)

namespace {

constexpr int cache_format = 1;

// Scans are only as good as the checks of the runner that made them.
std::string runner_identity() {
    const nlohmann::json build = build_context();
    return build.value("gpubench_version", "") + " " + build.value("git_revision", "") + " abi " +
           abi_text(GPUBENCH_ABI_MAJOR, GPUBENCH_ABI_MINOR) + " format " + std::to_string(cache_format);
}

// A cache file this runner wrote: the same runner, and its entries where they should be.
bool written_by_this_runner(const nlohmann::json &document) {
    const auto runner = document.find("runner"), files = document.find("files");
    return runner != document.end() && runner->is_string() && *runner == runner_identity() &&
           files != document.end() && files->is_object();
}

}  // namespace

std::optional<FileIdentity> file_identity(const fs::path &file) {
    struct stat st {};
    if (stat(file.c_str(), &st) != 0) return std::nullopt;
    const auto ns = [](const timespec &t) { return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; };
    return FileIdentity{st.st_dev, st.st_ino, static_cast<uint64_t>(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}

ScanCache::ScanCache(std::optional<fs::path> file) : file_(std::move(file)) {
    if (!file_) return;
    nlohmann::json document = read_cache(*file_);
    if (written_by_this_runner(document)) entries_ = document["files"];
}

std::optional<ScanResult> ScanCache::find(const fs::path &plugin_file,
                                          const FileIdentity &identity) const {
    const auto entry = entries_.find(plugin_file.string());
    if (entry == entries_.end() || !entry->is_object()) return std::nullopt;
    try {
        if (entry->at("identity") != nlohmann::json(identity)) return std::nullopt;
        if (entry->contains("refused"))
            return Refusal{plugin_file, entry->at("refused").get<std::string>()};
        PluginInfo info = plugin_info_from_json(entry->at("plugin"), plugin_file);
        if (!plugin_info_problem(info).empty()) return std::nullopt;  // not what a scan writes
        return info;
    } catch (const std::exception &) {
        return std::nullopt;  // a damaged entry: scan again
    }
}

void ScanCache::remember(const fs::path &plugin_file, const FileIdentity &identity,
                         const ScanResult &result) {
    const std::string key = plugin_file.string();
    if (printable_text(key) != key) return;  // JSON keys must be UTF-8: such paths are not cached
    nlohmann::json &entry = entries_[key] = {{"identity", identity}};
    if (const auto *refusal = std::get_if<Refusal>(&result))
        entry["refused"] = refusal->reason;
    else
        entry["plugin"] = plugin_info_to_json(std::get<PluginInfo>(result));
    changed_ = true;
}

void ScanCache::save() const {
    if (!file_ || !changed_) return;
    // Another runner may have scanned other files meanwhile: keep its entries too.
    nlohmann::json document = read_cache(*file_);
    if (!written_by_this_runner(document))
        document = {{"runner", runner_identity()}, {"files", nlohmann::json::object()}};
    for (const auto &[path, entry] : entries_.items()) document["files"][path] = entry;
    write_cache(*file_, document);
}

}  // namespace gpubench
