#include "plugin_catalog.hpp"

#include "text_format.hpp"

#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace gpubench {

namespace fs = std::filesystem;

PluginSearchPath plugin_search_path(const fs::path &exe_dir,
                                    const std::vector<std::string> &explicit_dirs,
                                    const char *environment_value) {
    PluginSearchPath search;
    std::vector<fs::path> dirs(explicit_dirs.begin(), explicit_dirs.end());
    if (environment_value) {
        const std::string value = environment_value;
        size_t start = 0;
        for (;;) {  // split by hand: an empty entry must be seen to be warned about
            const size_t end = std::min(value.find(':', start), value.size());
            const std::string entry = value.substr(start, end - start);
            if (fs::path(entry).is_absolute())
                dirs.emplace_back(entry);
            else
                search.warnings.push_back(
                    std::string(plugin_path_variable) + " entry '" + printable_text(entry) +
                    "' is " + (entry.empty() ? "empty" : "relative") + ", so it would depend on "
                    "the folder the runner starts in: ignored (give an absolute path)");
            if (end == value.size()) break;
            start = end + 1;
        }
    }
    dirs.push_back(exe_dir / ".." / "lib" / "gpubench" / "plugins");
    for (const fs::path &dir : dirs) {
        std::error_code ec;
        fs::path canonical = fs::weakly_canonical(dir, ec);
        const fs::path &key = ec ? dir : canonical;
        if (std::find(search.dirs.begin(), search.dirs.end(), key) == search.dirs.end())
            search.dirs.push_back(key);
    }
    return search;
}

namespace {

// Why a plugin file or folder is not to be trusted, as ssh judges a key: "" when it is owned
// by this user or root and writable by no one else (symlinks followed).
std::string insecure_plugin_path(const fs::path &path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return "";  // not there: reported where it is read
    const std::string mode = format_text("%04o", static_cast<unsigned>(st.st_mode & 07777));
    if (st.st_uid != 0 && st.st_uid != getuid())
        return "owned by user " + std::to_string(st.st_uid) + ", neither you nor root";
    if (st.st_mode & S_IWOTH) return "writable by everyone (mode " + mode + ")";
    if (st.st_mode & S_IWGRP) return "writable by its group (mode " + mode + ")";
    return "";
}

bool matches_any(const std::vector<std::string> &patterns, const std::string &name) {
    for (const std::string &pattern : patterns)
        if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
    return false;
}

// Scans `files` and adds what they are to the catalog.
void add_files(PluginCatalog &catalog, const std::vector<fs::path> &files) {
    std::vector<ScanResult> results = scan_plugin_files(files, catalog.scan);
    for (ScanResult &result : results) {
        if (auto *refusal = std::get_if<Refusal>(&result)) {
            catalog.refused.push_back(std::move(*refusal));
            continue;
        }
        PluginInfo &plugin = std::get<PluginInfo>(result);
        auto same = std::find_if(catalog.plugins.begin(), catalog.plugins.end(),
                                 [&](const PluginInfo &p) { return p.name == plugin.name; });
        if (same != catalog.plugins.end()) {
            catalog.refused.push_back({plugin.file, "duplicate plugin name '" + plugin.name +
                                                        "', already provided by " +
                                                        printable_text(same->file.string())});
            continue;
        }
        BuildRecordRead build = read_build_record(plugin.file);
        plugin.build_record = std::move(build.record);
        plugin.build_record_note = std::move(build.note);
        catalog.plugins.push_back(std::move(plugin));
    }
}

const char *insecure_advice = ": refused, as a plugin runs with your rights "
                              "(--allow-insecure-plugins loads it anyway)";

}  // namespace

PluginCatalog discover_plugins(const PluginSearch &search, const std::vector<std::string> &patterns) {
    PluginCatalog catalog;
    catalog.scan = search.scan;
    std::vector<fs::path> to_scan;
    for (const fs::path &dir : search.dirs) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            catalog.refused.push_back({dir, "plugin directory does not exist"});
            continue;
        }
        if (std::string why = insecure_plugin_path(dir); !why.empty() && !search.allow_insecure) {
            catalog.refused.push_back({dir, "plugin folder " + why + insecure_advice});
            continue;
        }
        std::vector<fs::path> files;
        for (const auto &item : fs::directory_iterator(dir, ec))
            if (item.path().extension() == ".so" && item.is_regular_file(ec))
                files.push_back(item.path());
        std::sort(files.begin(), files.end());
        for (const fs::path &file : files) {
            std::string why = insecure_plugin_path(file);
            // A link may lead elsewhere: the folder of the file it names counts too.
            if (why.empty() && fs::is_symlink(file, ec))
                why = insecure_plugin_path(fs::canonical(file, ec).parent_path());
            if (!why.empty() && !search.allow_insecure)
                catalog.refused.push_back({file, "plugin file " + why + insecure_advice});
            else if (!patterns.empty() && !matches_any(patterns, file.stem().string()))
                catalog.not_scanned.push_back(file);
            else
                to_scan.push_back(file);
        }
    }
    add_files(catalog, to_scan);
    return catalog;
}

std::vector<const PluginInfo *> select_plugins(PluginCatalog &catalog,
                                               const std::vector<std::string> &patterns) {
    const auto matched = [&](const std::string &pattern) {
        std::vector<const PluginInfo *> plugins;
        for (const PluginInfo &plugin : catalog.plugins)
            if (fnmatch(pattern.c_str(), plugin.name.c_str(), 0) == 0) plugins.push_back(&plugin);
        return plugins;
    };
    for (const std::string &pattern : patterns)
        if (!catalog.not_scanned.empty() && matched(pattern).empty()) {
            add_files(catalog, catalog.not_scanned);
            catalog.not_scanned.clear();
        }
    std::set<const PluginInfo *> chosen;
    for (const std::string &pattern : patterns) {
        const std::vector<const PluginInfo *> plugins = matched(pattern);
        if (plugins.empty())
            throw std::invalid_argument("no plugin matches '" + pattern +
                                        "' (runner --list shows what was found)");
        chosen.insert(plugins.begin(), plugins.end());
    }
    std::vector<const PluginInfo *> ordered;
    for (const PluginInfo &plugin : catalog.plugins)
        if (chosen.count(&plugin)) ordered.push_back(&plugin);
    return ordered;
}

std::string unread_param_problem(const std::vector<const PluginInfo *> &plugins,
                                 const std::string &params) {
    std::set<std::string> read;
    std::string readers;  // "matmul_omp reads dtype; sort_omp reads keys, input"
    for (const PluginInfo *plugin : plugins) {
        const auto &names = plugin->param_names;
        if (!names) return "";  // undeclared: any key may be this plugin's
        read.insert(names->begin(), names->end());
        readers += (readers.empty() ? "" : "; ") + plugin->name + " reads " +
                   (names->empty() ? "none" : join(*names, ", "));
    }
    for (const std::string &item : split_list(params)) {
        const std::string key = item.substr(0, item.find('='));
        if (!read.count(key))
            return "--param " + key + ": no selected plugin reads it (" + readers + ")";
    }
    return "";
}

}  // namespace gpubench
