// The exception guard at the boundary: no exception crosses into the runner; each becomes a
// status and a one-line message (gpubench::Error its own status, std::bad_alloc
// OUT_OF_MEMORY, anything else ERROR with what()).
#pragma once

#include <gpubench/errors.hpp>
#include <gpubench/plugin.h>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

namespace gpubench::detail {

// The verification's detail into the C struct's field; one that does not fit says so at its
// end, with its whole length, rather than stopping mid-word unannounced.
template <size_t N>
void copy_detail(const std::string &text, char (&out)[N]) {
    if (text.size() < N) {
        std::snprintf(out, N, "%s", text.c_str());
        return;
    }
    const std::string mark = " [cut: " + std::to_string(text.size()) + " characters]";
    std::snprintf(out, N, "%.*s%s", static_cast<int>(N - 1 - mark.size()), text.c_str(), mark.c_str());
}

inline void write_message(char *buffer, size_t size, const char *text) noexcept {
    if (buffer && size) std::snprintf(buffer, size, "%s", text);
}

template <class F>
gpubench_status guarded(char *message, size_t message_size, F &&body) noexcept {
    try {
        body();
        return GPUBENCH_OK;
    } catch (const Error &e) {
        write_message(message, message_size, e.what());
        return e.status();
    } catch (const std::bad_alloc &) {
        write_message(message, message_size, "host allocation failed (std::bad_alloc)");
        return GPUBENCH_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        write_message(message, message_size, e.what());
        return GPUBENCH_ERROR;
    } catch (...) {
        write_message(message, message_size, "unknown exception");
        return GPUBENCH_ERROR;
    }
}

}  // namespace gpubench::detail
