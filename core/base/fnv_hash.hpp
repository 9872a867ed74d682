// A 64-bit FNV-1a hash: stable across machines and builds (std::hash is not), fast, and not
// cryptographic. For fingerprints and names, never for security.
#pragma once

#include "text_format.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace gpubench {

inline uint64_t fnv1a_64(std::string_view bytes) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ull;
    return hash;
}

// The hash as 16 hex digits: a short name for folders and files.
inline std::string fnv1a_64_hex(std::string_view bytes) {
    return format_text("%016llx", static_cast<unsigned long long>(fnv1a_64(bytes)));
}

}  // namespace gpubench
