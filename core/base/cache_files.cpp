#include "cache_files.hpp"

#include "json_fields.hpp"
#include "results_io.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace gpubench {

namespace fs = std::filesystem;

std::optional<fs::path> cache_file(const std::string &name) {
    const auto env = [](const char *variable) -> std::string {
        const char *value = std::getenv(variable);
        return value ? value : "";
    };
    if (!env("GPUBENCH_CACHE_DIR").empty()) return fs::path(env("GPUBENCH_CACHE_DIR")) / name;
    if (!env("XDG_CACHE_HOME").empty()) return fs::path(env("XDG_CACHE_HOME")) / "gpubench" / name;
    std::string home = env("HOME");
    if (home.empty())
        if (const passwd *pw = getpwuid(getuid()); pw && pw->pw_dir) home = pw->pw_dir;
    if (home.empty()) return std::nullopt;
    return fs::path(home) / ".cache" / "gpubench" / name;
}

void export_cache_dir() {
    if (const char *set = std::getenv("GPUBENCH_CACHE_DIR"); set && *set) return;
    if (const auto file = cache_file("-")) setenv("GPUBENCH_CACHE_DIR", file->parent_path().c_str(), 1);
}

nlohmann::json read_cache(const fs::path &file, std::uintmax_t max_bytes) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return nlohmann::json::object();
    std::ifstream in(file, std::ios::binary);
    if (!in) return nlohmann::json::object();
    std::string text;
    // Read in pieces up to the bound: the file may grow while it is read.
    for (char piece[65536]; in.read(piece, sizeof piece) || in.gcount() > 0;) {
        text.append(piece, static_cast<size_t>(in.gcount()));
        if (text.size() > max_bytes) return nlohmann::json::object();
    }
    nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
    return document.is_object() ? document : nlohmann::json::object();
}

bool write_cache(const fs::path &file, const nlohmann::json &document) {
    try {
        std::error_code ec;
        fs::create_directories(file.parent_path(), ec);
        replace_file_atomically(file, json_fields::text(document, 1));
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

}  // namespace gpubench
