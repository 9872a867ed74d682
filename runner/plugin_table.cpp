#include "plugin_list.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <string_view>
#include <tuple>
#include <vector>

namespace gpubench {

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// The language of the plugin's build record: "C++", "CUDA", "Python"...; "-" without one.
std::string language_of(const PluginInfo &p) {
    return p.build_record && !p.build_record->language.empty() ? p.build_record->language : "-";
}

// The table's order: workload, compiled before Python (whose backends follow the C++ ones in
// the docs), CPU before GPU, backend, then name (two plugins may share a backend).
auto table_order(const PluginInfo *p) {
    return std::make_tuple(std::string_view(p->workload), language_of(*p) == "Python", p->is_cuda(),
                           std::string_view(p->backend), std::string_view(p->name));
}

// The name as code, unless a backquote or a bar in it would break the code span.
std::string name_cell(const std::string &name) {
    return name.find_first_of("`|") == std::string::npos ? "`" + name + "`" : markdown_cell_text(name);
}

}  // namespace

std::string markdown_cell_text(const std::string &text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        // An underscore inside a word (sort_by_key) never starts emphasis: left as it is.
        const bool inside_word = i > 0 && i + 1 < text.size() && is_word_char(text[i - 1]) && is_word_char(text[i + 1]);
        if (std::string_view("\\`*|<[]~").find(c) != std::string_view::npos || (c == '_' && !inside_word))
            out += '\\';
        out += c;
    }
    return out;
}

std::string size_bound_text(uint64_t size) {
    if (size < 100000) return std::to_string(size);
    uint64_t mantissa = size;
    int exponent = 0;
    while (mantissa % 10 == 0) {
        mantissa /= 10;
        ++exponent;
    }
    if (mantissa < 1000) return std::to_string(mantissa) + "e" + std::to_string(exponent);
    if (std::has_single_bit(size)) return "2^" + std::to_string(std::countr_zero(size));
    return std::to_string(size);
}

void print_plugin_table(std::ostream &out, std::ostream &notes, const PluginCatalog &catalog) {
    std::vector<const PluginInfo *> plugins;
    for (const PluginInfo &p : catalog.plugins) plugins.push_back(&p);
    std::ranges::stable_sort(plugins, {}, table_order);
    out << "| plugin | language | device | sizes | what it is |\n"
        << "| --- | --- | --- | --- | --- |\n";
    for (const PluginInfo *p : plugins)
        out << "| " << name_cell(p->name) << " | " << markdown_cell_text(language_of(*p)) << " | "
            << p->device_kind_name() << " | " << size_bound_text(p->min_size) << " – "
            << size_bound_text(p->max_size) << " | " << markdown_cell_text(p->description) << " |\n";
    if (catalog.plugins.empty()) notes << "runner: note: no plugins found\n";
    if (!catalog.refused.empty())
        notes << "runner: note: " << catalog.refused.size()
              << (catalog.refused.size() == 1 ? " file was" : " files were")
              << " refused as plugins and left out of the table (runner --list says why)\n";
}

}  // namespace gpubench
