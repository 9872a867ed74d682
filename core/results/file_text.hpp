// Text read as untrusted input: a file's whole text, as it is or inflated where it is
// gzip-compressed (by its magic bytes, whatever its name), so that large results files can be
// kept compressed (`gzip results.json`) and read as they are; and JSON parsed with its nesting
// bounded before it is built, nlohmann's errors turned into one line naming the source.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace gpubench {

// The text of `path`, inflated if gzip. Throws std::runtime_error naming the file and the
// problem: unreadable, corrupt compressed data, or more than 1 GiB inflated (a results file is
// a few MB; a "gzip bomb" is refused).
std::string read_file_text(const std::filesystem::path &path);

// Results files nest about 6 levels deep; anything far deeper is refused while parsing (which
// does not recurse), as the walks over a parsed document (dump, the schema check) do.
inline constexpr int max_results_depth = 64;

// Throws std::runtime_error "<name> is not valid JSON (...)" or "<name> nests ... deep".
nlohmann::json parse_bounded(const std::string &text, const std::string &name);

// nlohmann's messages start with "[json.exception.parse_error.101] ": the rest is for people.
std::string without_exception_id(const std::string &what);

}  // namespace gpubench
