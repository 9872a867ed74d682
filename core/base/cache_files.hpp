// The runner's small caches (host peaks, plugin scans): where they live and how they are read
// and written. A cache is only ever an optimisation: unreadable or corrupt means "measure
// again", and a failed write is ignored.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>

namespace gpubench {

// $GPUBENCH_CACHE_DIR/<name>, else $XDG_CACHE_HOME/gpubench/<name>, else
// ~/.cache/gpubench/<name>; nullopt when there is no home to put it in.
std::optional<std::filesystem::path> cache_file(const std::string &name);

// Sets GPUBENCH_CACHE_DIR to cache_file's folder where it is unset: the runner's workers and
// plugins (plugins/common/reference_cache.hpp) find the same folder there.
void export_cache_dir();

// The JSON object in `file`, or an empty object when it is missing, unreadable, not a
// regular file (a FIFO would block), longer than `max_bytes`, not JSON or not an object.
nlohmann::json read_cache(const std::filesystem::path &file,
                          std::uintmax_t max_bytes = std::numeric_limits<std::uintmax_t>::max());

// Replaces `file` atomically (results_io.hpp), creating its folder; false when it could not.
bool write_cache(const std::filesystem::path &file, const nlohmann::json &document);

}  // namespace gpubench
