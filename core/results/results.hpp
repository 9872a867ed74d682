// Writing the JSON results document (its model and reading it back: results_model.hpp): the
// file that holds it while a sweep runs, and that file's journal.
#pragma once

#include "entry_json.hpp"
#include "plugin_info.hpp"
#include "results_io.hpp"
#include "results_model.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>

namespace gpubench {

nlohmann::json plugin_json(const PluginInfo &plugin);

// A sweep's journal: <results file>.journal, JSON Lines, one line per change to the results
// document, each fsynced before the sweep goes on: a sweep of N entries writes O(N) bytes, not
// the O(N²) of rewriting the document after each. The document is written whole when the sweep
// ends (or is interrupted), and the journal then goes; a runner killed at any point leaves it,
// and every reader replays it (read_results_json, --resume too): nothing measured is lost.
// Lines: {"document": {...}} first (the header, or a resumed file whole), then any of
// {"plugin": {...}}, {"entry": {...}}, {"set": "/json/pointer", "value": ...}.
std::filesystem::path journal_path(const std::filesystem::path &results_file);

class ResultsJournal {
public:
    // Starts the journal of `results_file` with `document` as its first line: written whole to
    // a fresh file and renamed over any journal there (whose changes `document` includes), so a
    // journal, where there is one, always describes the newest document. Throws
    // std::runtime_error naming the file and the cause.
    ResultsJournal(const std::filesystem::path &results_file, const nlohmann::json &document);
    ~ResultsJournal();
    ResultsJournal(const ResultsJournal &) = delete;
    ResultsJournal &operator=(const ResultsJournal &) = delete;

    // One line, fsynced. Throws std::runtime_error (a full disk): the lines before are kept.
    void append(const nlohmann::json &change);
    // The results document now holds everything: the journal goes.
    void remove();

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

// The document the journal at `journal` describes: its first line with each whole later line
// applied. A last line cut short (the runner killed while writing it) is left out. nullopt when
// there is no journal. Throws std::runtime_error naming the journal (and line) when it cannot
// be read or a whole line is not a change: a journal is read as untrusted input.
std::optional<nlohmann::json> replay_journal(const std::filesystem::path &journal);

// The results file of a sweep, kept in memory and journaled (above): each add_* appends one
// line to the journal, and finish() writes the document whole (results_io.hpp) and removes the
// journal, also on the way out (the destructor, where it was not called). The file is locked
// for as long as this object lives. Constructors, add_* and finish() throw std::runtime_error
// with a one-line reason.
class ResultsFile {
public:
    // A new file with `document`'s header and no plugins or entries yet.
    ResultsFile(std::filesystem::path path, nlohmann::json document);
    // Continues the results file at `from` (--resume), written to `path` (which may be the
    // same file): its plugins and entries (its journal's too) are kept, and `resumption` (when
    // and how) is appended to its "resumed" list. Nothing is written when `from` fails its
    // check (read_results_json), which throws std::runtime_error naming what is wrong.
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
    // A measured entry, its figures derived on this file's header (RunHeader::basis()), as
    // every reader of the file derives them.
    void add_entry(const EntryResult &entry);
    // Sets the header's field at `where` (its objects made where missing): a figure known only
    // once the sweep ends (a shard's actual wall time).
    void set_field(const nlohmann::json::json_pointer &where, nlohmann::json value);
    // Writes the document whole and removes the journal; later add_* are refused.
    void finish();
    const nlohmann::json &document() const { return document_; }
    // The recorded entry of this identity (its seed included), decoded (typed_entry), or nullopt.
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
