// A plugin's build record: <plugin>.so.build.json, written beside it by the build
// (gpubench_write_build_record, sdk/cmake/gpubenchPlugin.cmake) with what only the build
// knows: the plugin's language, compile time and lines of code, its own and its workload's
// shared ones. The runner copies it into the results ("build_record" of a plugin; its format
// is $defs/build_record of core/base/results_schema.json). The file is untrusted input, as the plugin
// folder may hold anything: a bad one is ignored with a note, never fatal.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct BuildRecord {
    std::string language;                     // "C", "C++", "CUDA", "Python"...
    std::optional<double> compile_s;          // compiling the plugin's own sources, and linking
    std::optional<double> bridge_compile_s;   // a script's: compiling its native bridge instead
    std::vector<std::string> source_files;    // the backend's own files
    uint64_t source_lines = 0;                // their lines that are neither blank nor only a comment
    std::vector<std::string> shared_files;    // the workload's files all its backends share
    uint64_t shared_lines = 0;
    std::optional<double> shared_compile_s;   // compiling those once
    // A Python backend's top-level imports ("numba", "cupy"...): what its start will cost
    // (entry_cost.hpp). Empty for other languages.
    std::vector<std::string> imports;
};

nlohmann::json build_record_json(const BuildRecord &record);
// From JSON that passed $defs/build_record of the results schema (see build_record_violation).
BuildRecord build_record_from_json(const nlohmann::json &json);
// Where `json` breaks $defs/build_record, as one line; "" when it does not.
std::string build_record_violation(const nlohmann::json &json);

inline constexpr size_t max_build_record_bytes = 64 * 1024;

std::filesystem::path build_record_path(const std::filesystem::path &plugin_file);

struct BuildRecordRead {
    std::optional<BuildRecord> record;  // nullopt: none beside the plugin, or ignored
    std::string note;                   // why one was ignored; "" when none was
};

// The build record beside `plugin_file`. Refused, with the reason in `note`: a file that is
// not regular (a FIFO would block), larger than max_build_record_bytes, not JSON, nested
// deeper than a record is, or not of the schema's form. Strings are made printable
// (printable_text). Never throws.
BuildRecordRead read_build_record(const std::filesystem::path &plugin_file);

}  // namespace gpubench
