// Writing the JSON results document (its model and reading it back: results_model.hpp) and
// the file that holds it while a sweep runs.
#pragma once

#include "entry_json.hpp"
#include "plugin_info.hpp"
#include "results_io.hpp"
#include "results_journal.hpp"
#include "results_model.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>

namespace gpubench {

nlohmann::json plugin_json(const PluginInfo &plugin);

// The results file of a sweep, kept in memory and journaled (results_journal.hpp): each add_*
// appends one fsynced line to <file>.journal, and finish() writes the document whole (through
// a temporary file and a rename) and removes the journal. An interrupted sweep loses nothing
// measured: finish() runs on the way out (the destructor, where it was not called), and a
// killed one leaves the journal, which every reader replays. The file is locked for as long
// as this object lives (results_io.hpp). Constructors, add_* and finish() throw
// std::runtime_error with a one-line reason.
class ResultsFile {
public:
    // A new file with `document`'s header and no plugins or entries yet.
    ResultsFile(std::filesystem::path path, nlohmann::json document);
    // Continues the results file at `from` (--resume), written to `path` (which may be the
    // same file): its plugins and entries (its journal's too) are kept, and `resumption` (when
    // and how) is appended to its "resumed" list. The file is checked first
    // (read_results_json), and nothing is written when it fails: throws std::runtime_error
    // naming what is wrong.
    static ResultsFile resume(const std::filesystem::path &from, std::filesystem::path path,
                              const nlohmann::json &resumption);
    // Writes `document`, complete, to `path` at once (runner merge): locked while it is
    // written; a journal left there by a killed sweep is removed.
    static void write_whole(std::filesystem::path path, nlohmann::json document);
    ResultsFile(ResultsFile &&) noexcept = default;
    ResultsFile &operator=(ResultsFile &&) = delete;
    ~ResultsFile();  // finish(), where it was not called; a failure there is left to the journal

    void add_plugin(const nlohmann::json &plugin);  // once per plugin name
    void add_entry(const nlohmann::json &entry);  // a merged file's "missing" loses it
    // Sets the header's field at `where` (its objects made where missing): a figure known only
    // once the sweep ends (a shard's actual wall time).
    void set_field(const nlohmann::json::json_pointer &where, nlohmann::json value);
    // Writes the document whole and removes the journal; later add_* are refused.
    void finish();
    const nlohmann::json &document() const { return document_; }
    // The recorded entry of this identity (its seed included), decoded (typed_entry), or
    // nullopt.
    std::optional<EntryResult> find_entry(const EntryIdentity &identity) const;
    const std::filesystem::path &path() const { return path_; }

private:
    ResultsFile(std::filesystem::path path, nlohmann::json document, bool journaled);
    void write() const;
    void change(const nlohmann::json &line);  // applied here, then journaled
    void index_entry(size_t position);
    std::filesystem::path path_;
    std::unique_ptr<OutputLock> lock_;
    std::unique_ptr<ResultsJournal> journal_;  // null once finished (or for write_whole)
    // Each recorded entry's place in document_["entries"]: a resumed sweep looks up each entry.
    std::map<EntryIdentity, size_t> index_;
    nlohmann::json document_;
};

}  // namespace gpubench
