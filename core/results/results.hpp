// Writing the JSON results document (its model and reading it back: results_model.hpp) and
// the file that holds it while a sweep runs.
#pragma once

#include "entry_figures.hpp"
#include "gpu.hpp"
#include "measure.hpp"
#include "plugin_info.hpp"
#include "results_io.hpp"
#include "results_model.hpp"
#include "statistics.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>

namespace gpubench {

nlohmann::json plugin_json(const PluginInfo &plugin);
nlohmann::json entry_json(const EntryResult &entry, const MeasureOptions &options);
// The measurement options, as the results file's "options" and the worker's request hold them
// (their fields: results_model.hpp).
inline nlohmann::json measure_options_json(const MeasureOptions &options) { return options; }
// Parts of an entry, shared with the worker's report (worker_protocol.cpp).
nlohmann::json work_json(const Work &work, const std::string &item_name);
nlohmann::json verification_json(const Verification &verification);
// An entry's "stream_audit": the busy-after check and what traced the checks, or why nothing did.
nlohmann::json stream_audit_json(const StreamAudit &audit);
nlohmann::json metrics_json(const std::vector<Metric> &metrics);
nlohmann::json resources_json(const EntryResources &resources);
EntryResources resources_from_json(const nlohmann::json &json);
// Where an entry's wall time went: plugin_time_s, entry_wall_s, overhead_s (the difference),
// worker_started, finished_after_s (since the runner started).
nlohmann::json harness_json(const EntryResult &entry);


// What a reader must know before trusting an entry's numbers, as short words: noisy,
// throttled, cold, contended, unoptimized, sanitized. Shared by the console, the results
// file ("flags") and the report.
std::vector<std::string> entry_flags(const EntryResult &entry);

// A results file that is complete, valid JSON after every entry: each add_* rewrites it
// through a temporary file and a rename, so an interrupted sweep loses nothing measured.
// The file is locked for as long as this object lives (results_io.hpp). Constructors and
// add_* throw std::runtime_error with a one-line reason.
class ResultsFile {
public:
    // A new file with `document`'s header and no plugins or entries yet.
    ResultsFile(std::filesystem::path path, nlohmann::json document);
    // Continues the results file at `from` (--resume), written to `path` (which may be the
    // same file): its plugins and entries are kept, and `resumption` (when and how) is
    // appended to its "resumed" list. The file is checked first (read_results_json), and
    // nothing is written when it fails: throws std::runtime_error naming what is wrong.
    static ResultsFile resume(const std::filesystem::path &from, std::filesystem::path path,
                              const nlohmann::json &resumption);
    // Writes `document`, complete, to `path` at once, as the constructor and add_* write
    // (runner merge): locked while it is written.
    static void write_whole(std::filesystem::path path, nlohmann::json document);

    void add_plugin(const nlohmann::json &plugin);  // once per plugin name
    void add_entry(const nlohmann::json &entry);  // a merged file's "missing" loses it
    // The recorded entry of (plugin, size) measured with these params and seed, or nullptr.
    const nlohmann::json *find_entry(const std::string &plugin, uint64_t size,
                                     const std::string &params, uint64_t seed) const;
    const std::filesystem::path &path() const { return path_; }

private:
    ResultsFile() = default;
    void write() const;
    void open_target();  // resolves path_ (results_io.hpp) and takes the lock
    std::filesystem::path path_;
    std::unique_ptr<OutputLock> lock_;
    nlohmann::json document_;
};

}  // namespace gpubench
