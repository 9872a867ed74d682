// The exceptions a plugin written with gpubench/plugin.hpp throws: each knows the status it
// becomes at the boundary (gpubench/guard.hpp catches them there).
#pragma once

#include <gpubench/plugin.h>

#include <stdexcept>
#include <string>

namespace gpubench {

// An exception that knows which status it becomes at the boundary.
class Error : public std::runtime_error {
public:
    Error(gpubench_status status, const std::string &message)
        : std::runtime_error(message), status_(status) {}
    gpubench_status status() const noexcept { return status_; }

private:
    gpubench_status status_;
};

struct OutOfMemory : Error {
    explicit OutOfMemory(const std::string &m) : Error(GPUBENCH_OUT_OF_MEMORY, m) {}
};
struct NotSupported : Error {
    explicit NotSupported(const std::string &m) : Error(GPUBENCH_NOT_SUPPORTED, m) {}
};
struct InvalidArgument : Error {
    explicit InvalidArgument(const std::string &m) : Error(GPUBENCH_INVALID_ARGUMENT, m) {}
};

}  // namespace gpubench
