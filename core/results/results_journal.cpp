#include "results_journal.hpp"

#include "child_process.hpp"
#include "file_text.hpp"
#include "results_io.hpp"
#include "shard_plan.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

namespace gpubench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A set field is a header's (/shard/actual_s): nothing deeper, so a hostile journal cannot
// build nesting that the walks over the document would recurse into.
constexpr size_t max_set_depth = 4;

std::string line_text(const json &change) {
    // Text from plugins and paths may be invalid UTF-8: escaped, never thrown. Compact JSON
    // has no raw newline, so one change is one line.
    return change.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}

}  // namespace

fs::path journal_path(const fs::path &results_file) {
    fs::path journal = results_file;
    journal += ".journal";
    return journal;
}

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

ResultsJournal::ResultsJournal(const fs::path &results_file, const json &document)
    : path_(journal_path(results_file)) {
    replace_file_atomically(path_, line_text({{"document", document}}));
    fd_ = open(path_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) throw_file_error("cannot open the journal", path_, errno);
}

ResultsJournal::~ResultsJournal() {
    if (fd_ >= 0) close(fd_);
}

void ResultsJournal::append(const json &change) {
    const off_t before = lseek(fd_, 0, SEEK_END);
    if (!write_all(fd_, line_text(change))) {
        const int error = errno;
        // A part of a line would make the next line unreadable: cut back to the last whole one.
        const bool cut_back = before >= 0 && ftruncate(fd_, before) == 0;
        throw_file_error(cut_back ? "cannot append to the journal" : "cannot append to (nor repair) the journal",
                         path_, error);
    }
    if (fdatasync(fd_) != 0) throw_file_error("cannot append to the journal", path_, errno);
}

void ResultsJournal::remove() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
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
