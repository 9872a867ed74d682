#include "stale_folders.hpp"

#include <algorithm>

namespace gpubench {

namespace fs = std::filesystem;

namespace {

// The newest modification time of a folder and of the files in it.
fs::file_time_type last_touched(const fs::path &folder) {
    fs::file_time_type newest = fs::last_write_time(folder);
    for (const fs::directory_entry &entry : fs::directory_iterator(folder))
        newest = std::max(newest, entry.last_write_time());
    return newest;
}

}  // namespace

void remove_stale_siblings(const fs::path &folder, std::chrono::hours stale) {
    const fs::file_time_type now = fs::file_time_type::clock::now();
    try {
        for (const fs::directory_entry &sibling : fs::directory_iterator(folder.parent_path())) {
            if (sibling.path() == folder) continue;
            try {
                if (sibling.is_directory() && now - last_touched(sibling.path()) > stale)
                    fs::remove_all(sibling.path());
            } catch (const fs::filesystem_error &) {
                // Removed by another rank meanwhile, or not ours to remove: left alone.
            }
        }
    } catch (const fs::filesystem_error &) {
        // Cleaning up is a courtesy: the ranks meet without it.
    }
}

}  // namespace gpubench
