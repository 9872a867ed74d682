#include "build_record.hpp"

#include "json_fields.hpp"
#include "json_schema.hpp"
#include "text_format.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpubench {

using nlohmann::json;

namespace {
// Every field but imports, which is written only when there are some.
GPUBENCH_JSON_FIELDS_AS(BuildRecord, put_build_record, get_build_record, language, compile_s,
                        bridge_compile_s, source_files, source_lines, shared_files, shared_lines,
                        shared_compile_s)
}  // namespace

json build_record_json(const BuildRecord &r) {
    json j;
    put_build_record(j, r);
    if (!r.imports.empty()) j["imports"] = r.imports;
    return j;
}

BuildRecord build_record_from_json(const json &j) {
    BuildRecord r;
    get_build_record(j, r);
    json_fields::get(j, "imports", r.imports);
    return r;
}

std::string build_record_violation(const json &j) {
    // The results schema's definition, so that the file and the results hold one format.
    static const JsonSchema schema(
        json{{"$defs", results_schema().at("$defs")}, {"$ref", "#/$defs/build_record"}});
    const auto violation = schema.first_violation(j);
    return violation ? violation->text() : "";
}

std::filesystem::path build_record_path(const std::filesystem::path &plugin_file) {
    return plugin_file.string() + ".build.json";
}

namespace {

// The file's bytes, or why it is not read.
std::string read_small_file(const std::filesystem::path &path, std::string &text) {
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? "" : std::string("cannot be read: ") + std::strerror(errno);
    struct stat st {};
    std::string why;
    const std::string too_large = "larger than " + std::to_string(max_build_record_bytes / 1024) + " KiB";
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (st.st_size > static_cast<off_t>(max_build_record_bytes))
        why = too_large;
    char buffer[4096];
    while (why.empty()) {  // the size checked again: the file may grow while it is read
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) why = std::string("cannot be read: ") + std::strerror(errno);
        if (got <= 0) break;
        text.append(buffer, static_cast<size_t>(got));
        if (text.size() > max_build_record_bytes) why = too_large;
    }
    close(fd);
    return why;
}

}  // namespace

BuildRecordRead read_build_record(const std::filesystem::path &plugin_file) {
    const std::filesystem::path path = build_record_path(plugin_file);
    BuildRecordRead result;
    const auto refuse = [&](const std::string &why) {
        result.note = printable_text(path.filename().string()) + " ignored: " + why;
        return result;
    };
    std::string text;
    if (std::string why = read_small_file(path, text); !why.empty()) return refuse(why);
    if (text.empty()) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) return result;  // none: nothing to note
        return refuse("empty");
    }
    try {
        // A record nests two levels: anything deeper is refused before it is built.
        const json::parser_callback_t shallow = [](int depth, json::parse_event_t event, json &) {
            if (depth > 4 && (event == json::parse_event_t::object_start ||
                              event == json::parse_event_t::array_start))
                throw std::runtime_error("nested deeper than a build record");
            return true;
        };
        const json parsed = json::parse(text, shallow);
        if (std::string why = build_record_violation(parsed); !why.empty()) return refuse(why);
        BuildRecord record = build_record_from_json(parsed);
        record.language = printable_text(record.language);
        for (auto *texts : {&record.source_files, &record.shared_files, &record.imports})
            for (std::string &text : *texts) text = printable_text(text);
        result.record = std::move(record);
    } catch (const json::exception &) {
        return refuse("not JSON");
    } catch (const std::exception &e) {
        return refuse(e.what());
    }
    return result;
}

}  // namespace gpubench
