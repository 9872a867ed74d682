// Parsing text read from files as untrusted input: nesting bounded before it is built, and
// nlohmann's errors turned into one line naming the file.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace gpubench {

// Results files nest about 6 levels deep; anything far deeper is refused while parsing, as
// the walks over a parsed document (dump, the schema check) recurse.
inline constexpr int max_results_depth = 64;

// Throws std::runtime_error "<name> is not valid JSON (...)" or "<name> nests ... deep".
nlohmann::json parse_bounded(const std::string &text, const std::string &name);

// nlohmann's messages start with "[json.exception.parse_error.101] ": the rest is for people.
std::string without_exception_id(const std::string &what);

}  // namespace gpubench
