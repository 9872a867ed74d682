// The size check every plugin makes in create(): sizes outside the declared range are
// NOT_SUPPORTED with the reason (the runner also skips them, but a plugin must not trust it).
#pragma once

#include <gpubench/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpubench {

inline size_t checked_size(const Info &info, uint64_t size) {
    if (size < info.min_size || size > info.max_size)
        throw NotSupported("size " + std::to_string(size) + " is outside " + info.name +
                           "'s range " + std::to_string(info.min_size) + ".." +
                           std::to_string(info.max_size));
    return static_cast<size_t>(size);
}

}  // namespace gpubench
