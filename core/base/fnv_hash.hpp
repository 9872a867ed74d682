// A 64-bit FNV-1a hash: stable across machines and builds (std::hash is not), fast, and not
// cryptographic. For fingerprints and names, never for security.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpubench {

inline uint64_t fnv1a_64(std::string_view bytes) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ull;
    return hash;
}

}  // namespace gpubench
