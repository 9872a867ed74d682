// What earlier scans found (plugin_scan.hpp), kept in the cache folder (cache_files.hpp) and
// trusted only for the very same file: same path, device, inode, size, modification and
// change times, scanned by a runner of the same version and revision. Anything else in the
// cache file (another runner's entries, a corrupt or hand-edited entry) is ignored.
#pragma once

#include "plugin_scan.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace gpubench {

struct FileIdentity {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t modified_ns = 0, changed_ns = 0;
};

// stat() of the file (through symlinks); nullopt when it cannot be read.
std::optional<FileIdentity> file_identity(const std::filesystem::path &file);

class ScanCache {
public:
    explicit ScanCache(std::optional<std::filesystem::path> file);  // reads it, if any
    std::optional<ScanResult> find(const std::filesystem::path &plugin_file,
                                   const FileIdentity &identity) const;
    void remember(const std::filesystem::path &plugin_file, const FileIdentity &identity,
                  const ScanResult &result);
    void save() const;  // writes the file if anything was remembered; failures are ignored

private:
    std::optional<std::filesystem::path> file_;
    nlohmann::json entries_ = nlohmann::json::object();  // path -> entry
    bool changed_ = false;
};

}  // namespace gpubench
