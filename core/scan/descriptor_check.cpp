#include "descriptor_check.hpp"

#include "declared_params.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace gpubench {

ProcessAddressSpace::ProcessAddressSpace() {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        unsigned long begin = 0, end = 0;
        char permissions[5] = {};
        if (std::sscanf(line.c_str(), "%lx-%lx %4s", &begin, &end, permissions) != 3) continue;
        mappings_.push_back({begin, end, permissions[0] == 'r', permissions[2] == 'x'});
    }
}

size_t ProcessAddressSpace::readable_bytes(const void *address) const {
    uintptr_t at = reinterpret_cast<uintptr_t>(address);
    size_t readable = 0;
    // Adjacent readable mappings (a library's segments) count as one span.
    for (const Mapping &m : mappings_) {
        if (m.end <= at) continue;
        if (m.begin > at || !m.readable) break;
        readable += m.end - at;
        at = m.end;
    }
    return readable;
}

bool ProcessAddressSpace::executable(const void *address) const {
    const uintptr_t at = reinterpret_cast<uintptr_t>(address);
    return std::any_of(mappings_.begin(), mappings_.end(), [&](const Mapping &m) {
        return m.executable && m.readable && m.begin <= at && at < m.end;
    });
}

namespace {

// Copies fields out of a descriptor, checking each pointer first; `problem` keeps the first
// thing wrong, and later reads are skipped.
class FieldReader {
public:
    explicit FieldReader(const AddressSpace &memory) : memory_(memory) {}
    std::string problem;

    // A string field; `required` ones must be non-empty.
    std::string text(const char *pointer, const char *field, bool required) {
        if (!problem.empty() || (!pointer && !required)) return "";
        const std::string named = std::string("descriptor field '") + field + "' ";
        const size_t readable = pointer ? std::min(memory_.readable_bytes(pointer), max_descriptor_string) : 0;
        const size_t length = readable ? strnlen(pointer, readable) : 0;
        if (!pointer)
            problem = named + "is NULL";
        else if (readable == 0)
            problem = named + "points to unreadable memory";
        else if (length == readable)
            problem = named + "is not a NUL-terminated string of at most " +
                      std::to_string(max_descriptor_string - 1) + " bytes";
        else if (required && length == 0)
            problem = named + "is empty";
        return problem.empty() ? printable_text(std::string_view(pointer, length)) : "";
    }

    // A function pointer: NULL allowed only where the field is optional.
    template <class Function>
    void function(Function *pointer, const char *field, bool required) {
        if (!problem.empty()) return;
        if (!pointer) {
            if (required) problem = std::string("descriptor lacks the required function '") + field + "'";
            return;
        }
        if (!memory_.executable(reinterpret_cast<const void *>(pointer)))
            problem = std::string("descriptor function '") + field + "' does not point to code";
    }

    std::vector<uint64_t> sizes(const uint64_t *pointer, uint32_t count) {
        if (!problem.empty() || count == 0) return {};
        if (count > max_default_sizes)
            problem = "default_size_count " + std::to_string(count) + " is above the limit of " +
                      std::to_string(max_default_sizes);
        else if (!pointer)
            problem = "default_size_count is set but default_sizes is NULL";
        else if (memory_.readable_bytes(pointer) < count * sizeof(uint64_t))
            problem = "default_sizes: " + std::to_string(count) + " sizes are not all in readable memory";
        if (!problem.empty()) return {};
        std::vector<uint64_t> out(count);
        std::memcpy(out.data(), pointer, count * sizeof(uint64_t));
        return out;
    }

private:
    const AddressSpace &memory_;
};

}  // namespace

std::string plugin_info_problem(const PluginInfo &info) {
    if (info.name.empty() || info.name.size() > 64)
        return "plugin name must have 1 to 64 characters";
    for (const char c : info.name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
            return "plugin name '" + info.name + "' has characters other than letters, digits, "
                   "'_' and '-'";
    if (info.device_kind != GPUBENCH_DEVICE_CPU && info.device_kind != GPUBENCH_DEVICE_CUDA)
        return "unknown device kind " + std::to_string(info.device_kind);
    if (info.min_size < 1 || info.min_size > info.max_size)
        return "invalid size range " + std::to_string(info.min_size) + ".." +
               std::to_string(info.max_size);
    if (info.default_sizes.size() > max_default_sizes)
        return "more than " + std::to_string(max_default_sizes) + " default sizes";
    for (uint64_t size : info.default_sizes)
        if (size < info.min_size || size > info.max_size)
            return "default size " + std::to_string(size) + " is outside the plugin's range " +
                   std::to_string(info.min_size) + ".." + std::to_string(info.max_size);
    if (info.headline < GPUBENCH_HEADLINE_AUTO || info.headline > GPUBENCH_HEADLINE_ITEMS)
        return "unknown headline " + std::to_string(info.headline);
    if (info.max_devices < 1 || info.max_devices > max_plugin_devices)
        return "max_devices " + std::to_string(info.max_devices) + " is outside 1.." +
               std::to_string(max_plugin_devices);
    return declared_params_problem(info);
}

namespace {

// The descriptor's fields this runner knows copied into `d` (its struct_size cut to them), or
// why it cannot be read. `declared_size` is the struct_size the plugin gave.
std::string copy_descriptor(const void *descriptor, const AddressSpace &memory, gpubench_plugin &d,
                            uint32_t &declared_size) {
    if (!descriptor) return "entry symbol returned NULL";
    // struct_size and abi_major/minor are laid out identically in every ABI version.
    constexpr size_t header_size = offsetof(gpubench_plugin, abi_minor) + sizeof(uint16_t);
    if (memory.readable_bytes(descriptor) < header_size)
        return "entry symbol returned a pointer to unreadable memory";
    std::memcpy(&d, descriptor, header_size);
    if (d.abi_major != GPUBENCH_ABI_MAJOR)
        return "ABI " + abi_text(d.abi_major, d.abi_minor) + " is incompatible with this runner's ABI " +
               abi_text(GPUBENCH_ABI_MAJOR, GPUBENCH_ABI_MINOR) +
               " (major versions differ): rebuild it against this SDK";
    if (d.struct_size < GPUBENCH_PLUGIN_V1_0_SIZE)
        return "descriptor too small (struct_size " + std::to_string(d.struct_size) + " < " +
               std::to_string(GPUBENCH_PLUGIN_V1_0_SIZE) + " of ABI 1.0)";
    if (d.struct_size > max_descriptor_size)
        return "descriptor struct_size " + std::to_string(d.struct_size) + " is above the limit of " +
               std::to_string(max_descriptor_size) + " bytes";
    // A newer minor version's descriptor is larger: only the fields this runner knows are read.
    const size_t known = std::min<size_t>(d.struct_size, sizeof d);
    if (memory.readable_bytes(descriptor) < known)
        return "descriptor of " + std::to_string(d.struct_size) + " bytes is not all in readable memory";
    declared_size = d.struct_size;
    std::memcpy(&d, descriptor, known);
    d.struct_size = static_cast<uint32_t>(known);  // GPUBENCH_HAS_FIELD: the fields copied
    return "";
}

void read_functions(const gpubench_plugin &d, FieldReader &read) {
    read.function(d.work, "work", true);
    read.function(d.create, "create", true);
    read.function(d.upload, "upload", false);
    read.function(d.reset, "reset", false);
    read.function(d.run, "run", true);
    read.function(d.download, "download", false);
    read.function(d.verify, "verify", true);
    read.function(d.destroy, "destroy", true);
}

// The fields of later minor versions, where the descriptor has them.
void read_later_fields(const gpubench_plugin &d, FieldReader &read, PluginInfo &info) {
    if (GPUBENCH_HAS_FIELD(&d, gpubench_plugin, item_name))
        info.item_name = read.text(d.item_name, "item_name", false);
    if (GPUBENCH_HAS_FIELD(&d, gpubench_plugin, headline)) info.headline = d.headline;
    if (GPUBENCH_HAS_FIELD(&d, gpubench_plugin, metrics)) read.function(d.metrics, "metrics", false);
    if (GPUBENCH_HAS_FIELD(&d, gpubench_plugin, param_names) && d.param_names)
        info.param_names = split_list(read.text(d.param_names, "param_names", false));
    if (GPUBENCH_HAS_FIELD(&d, gpubench_plugin, available)) {
        read.function(d.available, "available", false);
        info.has_availability_probe = d.available != nullptr;
    }
    if (GPUBENCH_HAS_FIELD(&d, gpubench_plugin, prepare)) read.function(d.prepare, "prepare", false);
    if (GPUBENCH_HAS_FIELD(&d, gpubench_plugin, max_devices))
        info.max_devices = std::max<uint32_t>(d.max_devices, 1);  // 0: a single-device plugin
}

// The first version's gpubench_param, the least a params element may hold.
constexpr size_t param_v1_10_size = offsetof(gpubench_param, help) + sizeof(const char *);

// v1.10: the declared parameters, each element checked readable before it is copied; they
// name their keys in param_names where the plugin left that NULL.
void read_declared_params(const gpubench_plugin &d, FieldReader &read, const AddressSpace &memory,
                          PluginInfo &info) {
    if (!GPUBENCH_HAS_FIELD(&d, gpubench_plugin, param_count) || d.param_count == 0 || !read.problem.empty())
        return;
    const uint32_t count = d.param_count;
    uint32_t stride = 0;
    if (count > max_declared_params)
        read.problem = "param_count " + std::to_string(count) + " is above the limit of " +
                       std::to_string(max_declared_params);
    else if (!d.params || memory.readable_bytes(d.params) < sizeof stride)
        read.problem = "param_count is set but params is NULL or unreadable";
    else if (std::memcpy(&stride, d.params, sizeof stride); stride < param_v1_10_size || stride > 1024)
        read.problem = "params[0].struct_size " + std::to_string(stride) + " is not that of a gpubench_param";
    else if (memory.readable_bytes(d.params) < size_t(stride) * count)
        read.problem = "params: " + std::to_string(count) + " parameters are not all in readable memory";
    for (uint32_t i = 0; i < count && read.problem.empty(); ++i) {
        gpubench_param p{};
        std::memcpy(&p, reinterpret_cast<const char *>(d.params) + size_t(i) * stride,
                    std::min<size_t>(stride, sizeof p));
        if (p.struct_size != stride) read.problem = "params[" + std::to_string(i) + "].struct_size differs from params[0]'s";
        ParamSpec spec;
        spec.key = read.text(p.key, "params[].key", true);
        spec.kind = p.kind;
        spec.default_value = read.text(p.default_value, "params[].default_value", false);
        if (p.kind == GPUBENCH_PARAM_CHOICE) spec.choices = split_list(read.text(p.choices, "params[].choices", true));
        spec.min = p.min;
        spec.max = p.max;
        spec.help = read.text(p.help, "params[].help", false);
        info.params.push_back(std::move(spec));
    }
    if (!info.param_names && read.problem.empty()) {
        info.param_names.emplace();
        for (const ParamSpec &p : info.params) info.param_names->push_back(p.key);
    }
}

}  // namespace

std::variant<PluginInfo, std::string> read_descriptor(const void *descriptor,
                                                      const AddressSpace &memory) {
    gpubench_plugin d{};
    uint32_t declared_size = 0;
    if (std::string problem = copy_descriptor(descriptor, memory, d, declared_size); !problem.empty())
        return problem;
    PluginInfo info;
    info.struct_size = declared_size;
    info.abi_major = d.abi_major;
    info.abi_minor = d.abi_minor;
    FieldReader read(memory);
    info.name = read.text(d.name, "name", true);
    info.workload = read.text(d.workload, "workload", true);
    info.backend = read.text(d.backend, "backend", true);
    info.description = read.text(d.description, "description", true);
    info.size_meaning = read.text(d.size_meaning, "size_meaning", true);
    info.version = read.text(d.version, "version", true);
    info.build_info = read.text(d.build_info, "build_info", false);
    info.params_help = read.text(d.params_help, "params_help", false);
    read_functions(d, read);
    info.default_sizes = read.sizes(d.default_sizes, d.default_size_count);
    info.device_kind = d.device_kind;
    info.min_size = d.min_size;
    info.max_size = d.max_size;
    read_later_fields(d, read, info);
    read_declared_params(d, read, memory, info);
    if (!read.problem.empty()) return read.problem;
    if (std::string problem = plugin_info_problem(info); !problem.empty()) return problem;
    return info;
}

}  // namespace gpubench
