#include "plugin_list.hpp"

#include "declared_params.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <string>

namespace gpubench {

namespace {

constexpr size_t description_width = 100;

// Prints rows of cells with each column as wide as its widest cell.
void print_table(std::ostream &out, const std::vector<std::vector<std::string>> &rows) {
    std::vector<size_t> width(rows.front().size());  // every row has the header's cells
    for (const auto &row : rows)
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto &row : rows) {
        std::string line;
        for (size_t c = 0; c < row.size(); ++c) {
            line += row[c];
            if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
        }
        out << line << '\n';
    }
}

// The --param keys a plugin reads: declared ones with their values ("dtype=float32|float64"),
// else their names, "-" for none, or "any" when it does not say.
std::string params_read(const PluginInfo &p) {
    if (!p.params.empty()) {
        std::vector<std::string> declared;
        for (const ParamSpec &spec : p.params) declared.push_back(spec.key + "=" + declared_values_text(spec));
        return printable_text(join(declared, " "));
    }
    if (!p.param_names) return "any";
    return p.param_names->empty() ? "-" : printable_text(join(*p.param_names, ","));
}

// `text` broken at spaces into lines of at most `width` after `indent`, each line indented.
std::string wrapped(const std::string &text, size_t indent, size_t width = description_width) {
    std::string out, line;
    for (const std::string &word : split_list(text, ' ')) {
        if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
            out += std::string(indent, ' ') + line + '\n';
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + std::string(indent, ' ') + line + '\n';
}

// "  label:  text", the text wrapped under itself.
std::string field(const std::string &label, const std::string &text) {
    const size_t indent = 12;
    std::string out = wrapped(printable_text(text), indent);
    out.replace(2, label.size() + 1, label + ":");
    return out;
}

std::string declared_param_text(const ParamSpec &p) {
    return p.key + " = " + declared_values_text(p) + " (default " + (p.default_value.empty() ? "\"\"" : p.default_value) +
           ")" + (p.help.empty() ? "" : ": " + p.help);
}

}  // namespace

std::string unavailable_reason(const PluginInfo &p, const GpuInfo &gpu) {
    if (!p.is_available()) return p.unavailable_reason;
    return p.is_cuda() && !gpu.available ? gpu.unavailable_reason : "";
}

std::string sizes_text(const std::vector<uint64_t> &sizes) {
    std::vector<std::string> texts;
    for (uint64_t size : sizes) texts.push_back(std::to_string(size));
    return join(texts, ",");
}

void print_plugin_list(std::ostream &out, const PluginCatalog &catalog, const GpuInfo &gpu) {
    std::vector<std::vector<std::string>> rows = {
        {"PLUGIN", "WORKLOAD", "BACKEND", "DEVICE", "SIZES", "STATUS", "PARAMS"}};
    std::vector<std::string> reasons;
    for (const PluginInfo &p : catalog.plugins) {
        const std::string reason = unavailable_reason(p, gpu);
        if (!reason.empty()) reasons.push_back(p.name + ": unavailable: " + reason);
        rows.push_back({p.name, p.workload, p.backend, p.device_kind_name(),
                        std::to_string(p.min_size) + ".." + std::to_string(p.max_size),
                        reason.empty() ? "available" : "unavailable", params_read(p)});
    }
    print_table(out, rows);
    if (catalog.plugins.empty()) out << "(no plugins found)\n";
    if (!reasons.empty()) out << '\n';
    for (const std::string &reason : reasons) out << printable_text(reason) << '\n';
    if (!catalog.refused.empty()) {
        out << "\nRefused:\n";
        for (const Refusal &r : catalog.refused)
            out << "  " << printable_text(r.file.string()) << ": " << printable_text(r.reason) << '\n';
    }
    out << "\nrunner --list --plugin NAME describes a plugin: what its size means, each parameter, its file.\n";
}

void print_plugin_descriptions(std::ostream &out, const std::vector<const PluginInfo *> &plugins,
                               const GpuInfo &gpu) {
    for (const PluginInfo *p : plugins) {
        const std::string reason = unavailable_reason(*p, gpu);
        out << p->name << " (" << p->workload << ", " << p->backend << ", " << p->device_kind_name() << ")\n"
            << wrapped(printable_text(p->description), 2)
            << field("size", p->size_meaning)
            << field("sizes", std::to_string(p->min_size) + ".." + std::to_string(p->max_size) +
                                  "; default sweep " + sizes_text(p->default_sizes));
        for (const ParamSpec &spec : p->params) out << field("param", declared_param_text(spec));
        if (p->params.empty()) out << field("params", params_read(*p) + (p->params_help.empty() ? "" : ": " + p->params_help));
        out << field("status", reason.empty() ? "available" : "unavailable: " + reason)
            << field("version", p->version + ", plugin ABI " + p->abi_text())
            << field("build", p->build_info) << field("file", p->file.string()) << '\n';
    }
}

}  // namespace gpubench
