#include "text_format.hpp"

#include <cstdio>

namespace gpubench {

std::string format_seconds(double s) {
    char text[32];
    if (s < 1e-3)
        std::snprintf(text, sizeof text, "%.2f us", s * 1e6);
    else if (s < 1)
        std::snprintf(text, sizeof text, "%.3f ms", s * 1e3);
    else
        std::snprintf(text, sizeof text, "%.3f s", s);
    return text;
}

std::string format_size(uint64_t size) {
    char text[32];
    if (size < 100000)
        std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(size));
    else
        std::snprintf(text, sizeof text, "%.3g", static_cast<double>(size));
    return text;
}

std::string trim(std::string_view text) {
    const size_t b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
    return b == std::string_view::npos ? std::string() : std::string(text.substr(b, e - b + 1));
}

}  // namespace gpubench
