// Writing the JSON results document (its model and reading it back: results_model.hpp) and
// the file that holds it while a sweep runs.
#pragma once

#include "entry_json.hpp"
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
    // Sets the header's field at `where` (its objects made where missing) and writes the file:
    // a figure known only once the sweep ends (a shard's actual wall time).
    void set_field(const nlohmann::json::json_pointer &where, nlohmann::json value);
    const nlohmann::json &document() const { return document_; }
    // The recorded entry of this identity (its seed included), or nullptr.
    const nlohmann::json *find_entry(const EntryIdentity &identity) const;
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
