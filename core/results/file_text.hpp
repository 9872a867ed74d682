// A file's whole text, read as it is or inflated where it is gzip-compressed (by its magic
// bytes, whatever its name), so that large results files can be kept compressed
// (`gzip results.json`) and read as they are.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace gpubench {

// What a compressed file may inflate to: a results file is a few MB; a "gzip bomb" is refused.
inline constexpr uint64_t max_inflated_bytes = uint64_t(1) << 30;

// The text of `path`, inflated if gzip. Throws std::runtime_error naming the file and the
// problem: unreadable, corrupt compressed data, or more than max_inflated_bytes inflated.
std::string read_file_text(const std::filesystem::path &path);

}  // namespace gpubench
