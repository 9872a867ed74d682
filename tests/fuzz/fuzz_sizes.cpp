// --sizes text: either sizes (each at least 1) or one std::invalid_argument; never another
// exception, a crash or a hang. What the runner shows of it goes through text_format: each
// size through format_size, the refusal (which quotes the input) through printable_text,
// which must leave one line of valid UTF-8 (nlohmann::json throws when it writes anything
// else into a results file).
#include "text_format.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

void check_printable(std::string_view outside) {
    const std::string shown = gpubench::printable_text(outside);
    for (const char c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) std::abort();
    (void)nlohmann::json(shown).dump();  // throws on invalid UTF-8
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    check_printable(text);
    try {
        const std::vector<uint64_t> sizes = gpubench::parse_sizes(text);
        if (sizes.empty()) std::abort();  // an empty list is refused, never returned
        for (const uint64_t parsed : sizes) {
            if (parsed < 1) std::abort();
            const std::string shown = gpubench::format_size(parsed);
            if (shown.empty() || shown.find_first_not_of("0123456789.e+") != std::string::npos)
                std::abort();
        }
    } catch (const std::invalid_argument &e) {
        check_printable(e.what());
    }
    return 0;
}
