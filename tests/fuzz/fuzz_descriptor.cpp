// A plugin descriptor of any bytes, its pointers drawn from what the input chooses: NULL,
// a string inside the input (terminated or not), an unreadable address, data, or one of the
// known functions. read_descriptor accepts it, with every field inside its bounds, or names
// a problem; it never reads outside the memory it was told about.
#include "descriptor_check.hpp"

#include "../fake_address_space.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <variant>
#include <vector>

using namespace fake_address_space;

namespace {

// Turns the pointer-sized word at `field` into a pointer the address space knows about.
template <class T>
void choose_pointer(T &field, const std::vector<char> &text) {
    uintptr_t word;
    std::memcpy(&word, &field, sizeof word);
    const void *chosen = nullptr;
    switch (word % 6) {
        case 0: break;  // NULL
        case 1: chosen = text.data() + (word >> 8) % text.size(); break;
        case 2: chosen = reinterpret_cast<const void *>(16); break;
        case 3: chosen = text.data(); break;
        case 4: chosen = reinterpret_cast<const void *>(&any_phase); break;
        default: chosen = reinterpret_cast<const void *>(&any_work); break;
    }
    std::memcpy(&field, &chosen, sizeof chosen);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gpubench_plugin d{};
    const size_t head = std::min(size, sizeof d);
    if (head) std::memcpy(&d, data, head);  // data may be NULL when size is 0
    // The rest of the input is the memory strings and sizes may point into (unterminated).
    std::vector<char> text(data + head, data + size);
    text.push_back('x');
    for (const char **s : {&d.name, &d.workload, &d.backend, &d.description, &d.size_meaning,
                           &d.version, &d.build_info, &d.params_help, &d.item_name, &d.param_names})
        choose_pointer(*s, text);
    choose_pointer(d.default_sizes, text);
    choose_pointer(d.work, text);
    choose_pointer(d.create, text);
    choose_pointer(d.upload, text);
    choose_pointer(d.reset, text);
    choose_pointer(d.run, text);
    choose_pointer(d.download, text);
    choose_pointer(d.verify, text);
    choose_pointer(d.destroy, text);
    choose_pointer(d.metrics, text);
    FakeAddressSpace memory;
    memory.add(&d, sizeof d);
    memory.add(text.data(), text.size());
    const auto read = gpubench::read_descriptor(&d, memory);
    if (const auto *info = std::get_if<gpubench::PluginInfo>(&read)) {
        if (!gpubench::plugin_info_problem(*info).empty()) std::abort();
        const gpubench::PluginInfo back =
            gpubench::plugin_info_from_json(gpubench::plugin_info_to_json(*info), info->file);
        if (back.name != info->name || back.default_sizes != info->default_sizes) std::abort();
    }
    return 0;
}
