#include "results.hpp"

#include "shard_plan.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <cstdio>
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
    if (plugin.build_record) j["build_record"] = build_record_json(*plugin.build_record);
    if (!plugin.build_record_note.empty()) j["build_record_note"] = plugin.build_record_note;
    return j;
}

ResultsFile::ResultsFile(std::filesystem::path path, json document)
    : path_(std::move(path)), document_(std::move(document)) {
    document_["plugins"] = json::array();
    document_["entries"] = json::array();
    open_target();
    write();
}

void ResultsFile::open_target() {
    if (path_.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(path_.parent_path(), ec);
        if (ec) throw std::runtime_error("cannot create " + path_.parent_path().string() + ": " + ec.message());
    }
    path_ = results_target(path_);  // a symlink's target is what gets updated
    lock_ = std::make_unique<OutputLock>(path_);
}

ResultsFile ResultsFile::resume(const std::filesystem::path &from, std::filesystem::path path,
                                const json &resumption) {
    ResultsFile file;
    file.document_ = read_results_json(from);  // checked before anything is written
    file.document_["resumed"].push_back(resumption);
    file.path_ = std::move(path);
    file.open_target();
    file.write();
    return file;
}

void ResultsFile::write_whole(std::filesystem::path path, json document) {
    ResultsFile file;
    file.document_ = std::move(document);
    file.path_ = std::move(path);
    file.open_target();
    file.write();
}

void ResultsFile::add_plugin(const json &plugin) {
    for (const json &known : document_["plugins"])
        if (known.value("name", "") == plugin.value("name", "")) return;
    document_["plugins"].push_back(plugin);
    write();
}

void ResultsFile::set_field(const json::json_pointer &where, json value) {
    document_[where] = std::move(value);
    write();
}

const json *ResultsFile::find_entry(const EntryIdentity &identity) const {
    for (const json &entry : document_["entries"])
        if (entry.get<EntryIdentity>() == identity) return &entry;
    return nullptr;
}

void ResultsFile::add_entry(const json &entry) {
    document_["entries"].push_back(entry);
    no_longer_missing(document_, entry);
    write();
}

void ResultsFile::write() const {
    // Text from plugins and paths may be invalid UTF-8: escaped, never thrown.
    replace_file_atomically(path_, document_.dump(1, ' ', false, json::error_handler_t::replace) + '\n');
}

}  // namespace gpubench
