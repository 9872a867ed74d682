// The JSON results document (schema in results/README.md) and its incremental writer.
#pragma once

#include "gpu.hpp"
#include "measure.hpp"
#include "plugin_library.hpp"
#include "statistics.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace gpubench {

// Bumped on any change a reader must know about; independent of the gpubench version.
inline constexpr int results_schema_version = 1;

nlohmann::json summary_json(const Summary &summary);
nlohmann::json gpu_json(const GpuInfo &gpu);
nlohmann::json plugin_json(const Plugin &plugin);
nlohmann::json entry_json(const EntryResult &entry, const MeasureOptions &options);

// Median-based figures of an entry, shared by the JSON and the console table.
struct EntryFigures {
    Summary run, upload, download, end_to_end;
    double gflops = 0;          // work.flops / median run time
    double gbytes_per_s = 0;    // work.bytes / median run time
    double items_per_s = 0;     // work.items / median run time
    // The throughput the plugin wants shown first: "gflops", "gbytes_per_s", "items_per_s",
    // or "" when it declared no work at all.
    std::string headline;
    double headline_value = 0;
};
EntryFigures entry_figures(const EntryResult &entry);

// A results file that is complete, valid JSON after every entry: each add_* rewrites it
// through a temporary file and a rename, so an interrupted sweep loses nothing measured.
class ResultsFile {
public:
    ResultsFile(std::filesystem::path path, nlohmann::json document);
    void add_plugin(const nlohmann::json &plugin);
    void add_entry(const nlohmann::json &entry);
    const std::filesystem::path &path() const { return path_; }

private:
    void write() const;
    std::filesystem::path path_;
    nlohmann::json document_;
};

}  // namespace gpubench
