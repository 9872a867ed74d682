// A sweep's journal: <results file>.journal, JSON Lines, one line per change to the results
// document, each written and fsynced before the sweep goes on. Appending an entry costs that
// entry's line, so a sweep of N entries writes O(N) bytes; rewriting the whole document after
// each entry wrote O(N²). The document itself is written from memory when the sweep ends (or
// is interrupted), and the journal then goes. A runner killed at any point leaves its journal:
// every reader replays it (read_results_json), --resume included, so nothing measured is lost.
//
// Lines: {"document": {...}} first (the header, or a resumed file whole), then any of
// {"plugin": {...}}, {"entry": {...}}, {"set": "/json/pointer", "value": ...}.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

namespace gpubench {

std::filesystem::path journal_path(const std::filesystem::path &results_file);

// Applies one change line to `document` (the one rule the sweep and the replay share): false
// when it changes nothing (a plugin already there). Throws std::runtime_error, one line, for a
// line that is not a change.
bool apply_journal_change(nlohmann::json &document, const nlohmann::json &change);

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

}  // namespace gpubench
