#include "results.hpp"

#include "child_process.hpp"
#include "declared_params.hpp"
#include "file_text.hpp"
#include "json_fields.hpp"
#include "results_model.hpp"
#include "shard_plan.hpp"
#include "text_format.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <utility>

namespace gpubench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A set field is a header's (/shard/actual_s): nothing deeper, so a hostile journal cannot
// build nesting that the walks over the document would recurse into.
constexpr size_t max_set_depth = 4;

// Applies one change line to `document` (the one rule the sweep and the replay share): false
// when it changes nothing (a plugin already there). Throws std::runtime_error, one line, for a
// line that is not a change.
bool apply_journal_change(json &document, const json &change) {
    try {
        if (!change.is_object() || change.size() != (change.contains("set") ? 2u : 1u))
            throw std::runtime_error("not one change");
        if (const auto entry = change.find("entry"); entry != change.end() && entry->is_object()) {
            document.at("entries").push_back(*entry);
            no_longer_missing(document, *entry);
        } else if (const auto plugin = change.find("plugin"); plugin != change.end() && plugin->is_object()) {
            json &plugins = document.at("plugins");
            for (const json &known : plugins)
                if (known.value("name", "") == plugin->value("name", "")) return false;
            plugins.push_back(*plugin);
        } else if (const auto set = change.find("set"); set != change.end() && change.contains("value")) {
            const json::json_pointer where(set->get<std::string>());
            if (where.empty()) throw std::runtime_error("a set field names the whole document");
            size_t depth = 0;
            for (json::json_pointer up = where; !up.empty(); up.pop_back()) ++depth;
            if (depth > max_set_depth) throw std::runtime_error("a set field deeper than the header's");
            document[where] = change.at("value");
        } else {
            throw std::runtime_error("not an entry, a plugin or a set field");
        }
        return true;
    } catch (const json::exception &e) {
        throw std::runtime_error(without_exception_id(e.what()));
    }
}

// A plugin's fields in the results that are named as its members.
GPUBENCH_JSON_FIELDS_AS(PluginInfo, put_plugin, get_plugin, name, workload, backend, description, size_meaning,
                        version, build_info)

}  // namespace

json plugin_json(const PluginInfo &plugin) {
    json j = {{"device_kind", plugin.device_kind_name()},
              {"abi", plugin.abi_text()},
              {"file", printable_text(plugin.file.string())}};
    put_plugin(j, plugin);
    if (!plugin.params.empty()) j["params"] = declared_params_json(plugin.params);
    if (plugin.build_record) j["build_record"] = build_record_json(*plugin.build_record);
    if (!plugin.build_record_note.empty()) j["build_record_note"] = plugin.build_record_note;
    return j;
}

// At `path`'s target (results_io.hpp), locked, journaled from `document` where `journaled`,
// and written.
ResultsFile::ResultsFile(std::filesystem::path path, json document, bool journaled) : document_(std::move(document)) {
    if (path.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(path.parent_path(), ec);
        if (ec) throw std::runtime_error("cannot create " + path.parent_path().string() + ": " + ec.message());
    }
    path_ = results_target(path);  // a symlink's target is what gets updated
    lock_ = std::make_unique<OutputLock>(path_);
    // The journal first: from here on, it or the document holds everything recorded.
    if (journaled) journal_ = std::make_unique<ResultsJournal>(path_, document_);
    write();  // a new file's header alone: the file is there, and valid, from the start
}

ResultsFile::ResultsFile(std::filesystem::path path, json document)
    : ResultsFile(std::move(path),
                  [&] {
                      document["plugins"] = json::array();
                      document["entries"] = json::array();
                      return std::move(document);
                  }(),
                  true) {}

ResultsFile::~ResultsFile() {
    if (!journal_) return;
    try {
        finish();
    } catch (const std::exception &) {  // a full disk: the journal keeps every entry
    }
}

ResultsFile ResultsFile::resume(const std::filesystem::path &from, std::filesystem::path path,
                                const json &resumption) {
    json document = read_results_json(from);  // checked (its journal replayed) before anything is written
    document["resumed"].push_back(resumption);
    ResultsFile file(std::move(path), std::move(document), true);
    for (size_t position = 0; position < file.document_["entries"].size(); ++position) file.index_entry(position);
    return file;
}

void ResultsFile::write_whole(std::filesystem::path path, json document) {
    const ResultsFile file(std::move(path), std::move(document), false);
    // A killed sweep's journal at this name would stand for the file in every reader: it goes.
    std::error_code ignored;
    std::filesystem::remove(journal_path(file.path_), ignored);
}

void ResultsFile::change(const json &line) {
    if (!journal_) throw std::logic_error("results file " + path_.string() + " changed after it was finished");
    if (apply_journal_change(document_, line)) journal_->append(line);
}

void ResultsFile::add_plugin(const json &plugin) {
    change({{"plugin", plugin}});  // journaled only the first time its name comes
}

void ResultsFile::set_field(const json::json_pointer &where, json value) {
    change({{"set", where.to_string()}, {"value", std::move(value)}});
}

void ResultsFile::index_entry(size_t position) {
    const json &entry = document_["entries"][position];  // checked by the schema, or written here
    index_[entry.get<EntryIdentity>()] = position;
}

std::optional<EntryResult> ResultsFile::find_entry(const EntryIdentity &identity) const {
    const auto found = index_.find(identity);
    if (found == index_.end()) return std::nullopt;
    return typed_entry(document_["entries"][found->second], found->second, path_.string());
}

void ResultsFile::add_entry(const json &entry) {
    change({{"entry", entry}});
    index_entry(document_["entries"].size() - 1);
}

void ResultsFile::add_entry(const EntryResult &entry) {
    add_entry(entry_json(entry, run_header(document_, path_.string()).basis()));
}

void ResultsFile::finish() {
    if (!journal_) return;
    write();
    journal_->remove();
    journal_.reset();
}

void ResultsFile::write() const {
    replace_file_atomically(path_, json_fields::text(document_, 1));
}

fs::path journal_path(const fs::path &results_file) { return fs::path(results_file) += ".journal"; }

ResultsJournal::ResultsJournal(const fs::path &results_file, const json &document)
    : path_(journal_path(results_file)) {
    replace_file_atomically(path_, json_fields::text({{"document", document}}));
    fd_ = open(path_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) throw_file_error("cannot open the journal", path_, errno);
}

ResultsJournal::~ResultsJournal() {
    if (fd_ >= 0) close(fd_);
}

void ResultsJournal::append(const json &change) {
    const off_t before = lseek(fd_, 0, SEEK_END);
    if (!write_all(fd_, json_fields::text(change))) {
        const int error = errno;
        // A part of a line would make the next line unreadable: cut back to the last whole one.
        const bool cut_back = before >= 0 && ftruncate(fd_, before) == 0;
        throw_file_error(cut_back ? "cannot append to the journal" : "cannot append to (nor repair) the journal",
                         path_, error);
    }
    if (fdatasync(fd_) != 0) throw_file_error("cannot append to the journal", path_, errno);
}

void ResultsJournal::remove() {
    if (fd_ >= 0) close(std::exchange(fd_, -1));
    unlink(path_.c_str());
}

std::optional<json> replay_journal(const fs::path &journal) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(journal, ec))) return std::nullopt;
    const std::string name = journal.string();
    const std::string text = read_file_text(journal);
    std::optional<json> document;
    size_t line_number = 0;
    for (size_t start = 0; start < text.size();) {
        const size_t end = text.find('\n', start);
        if (end == std::string::npos) break;  // cut short by a kill: that change never happened
        ++line_number;
        const std::string where = name + " line " + std::to_string(line_number);
        const json change = parse_bounded(text.substr(start, end - start), where);
        start = end + 1;
        if (!document) {
            const auto first = change.is_object() ? change.find("document") : change.end();
            if (change.size() != 1 || first == change.end() || !first->is_object())
                throw std::runtime_error(where + ": not a gpubench journal (its first line is not a document)");
            document = *first;
            continue;
        }
        try {
            apply_journal_change(*document, change);
        } catch (const std::exception &e) {
            throw std::runtime_error(where + ": " + e.what());
        }
    }
    if (!document) throw std::runtime_error(name + ": not a gpubench journal (no whole first line)");
    return document;
}

}  // namespace gpubench
