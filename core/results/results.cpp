#include "results.hpp"

#include "declared_params.hpp"
#include "shard_plan.hpp"
#include "text_format.hpp"

#include <stdexcept>
#include <utility>

namespace gpubench {

using nlohmann::json;

json plugin_json(const PluginInfo &plugin) {
    json j = {{"name", plugin.name},
              {"workload", plugin.workload},
              {"backend", plugin.backend},
              {"device_kind", plugin.device_kind_name()},
              {"description", plugin.description},
              {"size_meaning", plugin.size_meaning},
              {"version", plugin.version},
              {"abi", plugin.abi_text()},
              {"build_info", plugin.build_info},
              {"file", printable_text(plugin.file.string())}};
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

void ResultsFile::finish() {
    if (!journal_) return;
    write();
    journal_->remove();
    journal_.reset();
}

void ResultsFile::write() const {
    // Text from plugins and paths may be invalid UTF-8: escaped, never thrown.
    replace_file_atomically(path_, document_.dump(1, ' ', false, json::error_handler_t::replace) + '\n');
}

}  // namespace gpubench
