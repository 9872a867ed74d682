#include "plugin_catalog.hpp"

#include "text_format.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace gpubench {

namespace fs = std::filesystem;

std::vector<std::string> split_list(const std::string &text, char separator) {
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(separator, start);
        if (end == std::string::npos) end = text.size();
        std::string item = trim(std::string_view(text).substr(start, end - start));
        if (!item.empty()) items.push_back(std::move(item));
        start = end + 1;
    }
    return items;
}

std::vector<fs::path> plugin_search_path(const fs::path &exe_dir,
                                         const std::vector<std::string> &explicit_dirs,
                                         const char *environment_value) {
    std::vector<fs::path> dirs(explicit_dirs.begin(), explicit_dirs.end());
    if (environment_value)
        for (const std::string &dir : split_list(environment_value, ':')) dirs.emplace_back(dir);
    dirs.push_back(exe_dir / ".." / "lib" / "gpubench" / "plugins");
    std::vector<fs::path> unique;
    for (const fs::path &dir : dirs) {
        std::error_code ec;
        fs::path canonical = fs::weakly_canonical(dir, ec);
        const fs::path &key = ec ? dir : canonical;
        if (std::find(unique.begin(), unique.end(), key) == unique.end()) unique.push_back(key);
    }
    return unique;
}

namespace {

bool matches_any(const std::vector<std::string> &patterns, const std::string &name) {
    for (const std::string &pattern : patterns)
        if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
    return false;
}

void add_file(PluginCatalog &catalog, const fs::path &file) {
    auto loaded = load_plugin(file);
    if (auto *refusal = std::get_if<Refusal>(&loaded)) {
        catalog.refused.push_back(std::move(*refusal));
        return;
    }
    Plugin &plugin = std::get<Plugin>(loaded);
    auto same = std::find_if(catalog.plugins.begin(), catalog.plugins.end(),
                             [&](const Plugin &p) { return p.name() == plugin.name(); });
    if (same != catalog.plugins.end()) {
        catalog.refused.push_back({file, "duplicate plugin name '" + plugin.name() +
                                             "', already provided by " + same->file().string()});
        return;
    }
    catalog.plugins.push_back(std::move(plugin));
}

}  // namespace

PluginCatalog discover_plugins(const std::vector<fs::path> &dirs,
                               const std::vector<std::string> &patterns) {
    PluginCatalog catalog;
    for (const fs::path &dir : dirs) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            catalog.refused.push_back({dir, "plugin directory does not exist"});
            continue;
        }
        std::vector<fs::path> files;
        for (const auto &item : fs::directory_iterator(dir, ec))
            if (item.path().extension() == ".so" && item.is_regular_file(ec))
                files.push_back(item.path());
        std::sort(files.begin(), files.end());
        for (const fs::path &file : files) {
            if (!patterns.empty() && !matches_any(patterns, file.stem().string()))
                catalog.not_loaded.push_back(file);
            else
                add_file(catalog, file);
        }
    }
    return catalog;
}

std::vector<const Plugin *> select_plugins(PluginCatalog &catalog,
                                           const std::vector<std::string> &patterns) {
    for (const std::string &pattern : patterns)
        if (!catalog.not_loaded.empty() &&
            std::none_of(catalog.plugins.begin(), catalog.plugins.end(), [&](const Plugin &p) {
                return fnmatch(pattern.c_str(), p.api().name, 0) == 0;
            })) {
            for (const fs::path &file : catalog.not_loaded) add_file(catalog, file);
            catalog.not_loaded.clear();
        }
    std::set<const Plugin *> chosen;
    for (const std::string &pattern : patterns) {
        bool matched = false;
        for (const Plugin &plugin : catalog.plugins)
            if (fnmatch(pattern.c_str(), plugin.api().name, 0) == 0) {
                chosen.insert(&plugin);
                matched = true;
            }
        if (!matched)
            throw std::invalid_argument("no plugin matches '" + pattern +
                                        "' (runner --list shows what was found)");
    }
    std::vector<const Plugin *> ordered;
    for (const Plugin &plugin : catalog.plugins)
        if (chosen.count(&plugin)) ordered.push_back(&plugin);
    return ordered;
}

std::string unread_param_problem(const std::vector<const Plugin *> &plugins,
                                 const std::string &params) {
    std::set<std::string> read;
    std::string readers;  // "matmul_omp reads dtype; sort_omp reads keys, input"
    for (const Plugin *plugin : plugins) {
        const auto names = plugin->param_names();
        if (!names) return "";  // undeclared: any key may be this plugin's
        read.insert(names->begin(), names->end());
        std::string list;
        for (const std::string &name : *names) list += (list.empty() ? "" : ", ") + name;
        readers += (readers.empty() ? "" : "; ") + plugin->name() + " reads " +
                   (list.empty() ? "none" : list);
    }
    for (const std::string &item : split_list(params)) {
        const std::string key = item.substr(0, item.find('='));
        if (!read.count(key))
            return "--param " + key + ": no selected plugin reads it (" + readers + ")";
    }
    return "";
}

}  // namespace gpubench
