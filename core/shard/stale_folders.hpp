// Folders that ranks meet in stay after their job (no rank knows that it is the last to read
// them): each new job removes those of jobs long gone.
#pragma once

#include <chrono>
#include <filesystem>

namespace gpubench {

// Removes the folders beside `folder` (not itself) in which nothing was touched for `stale`,
// the folder's own time and its files' counted. Never throws: what another rank removed
// meanwhile, or what is not ours to remove, is left alone.
void remove_stale_siblings(const std::filesystem::path &folder, std::chrono::hours stale);

}  // namespace gpubench
