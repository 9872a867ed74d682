// Reading a plugin's descriptor without trusting it: every field bounded and checked before
// it is used, every pointer checked against the memory it may point into. The result is a
// plain PluginInfo or one line naming the first problem. Runs in the scanner process and in
// workers (plugin_library.cpp), never on a file the runner has not scanned first.
#pragma once

#include "plugin_info.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace gpubench {

// Bounds on what a descriptor may declare: generous for any real plugin, small enough that
// nothing the runner does with them can exhaust memory or time.
inline constexpr uint32_t max_descriptor_size = 64 * 1024;
inline constexpr size_t max_descriptor_string = 4096;  // bytes, with the terminating NUL
inline constexpr uint32_t max_default_sizes = 1024;
inline constexpr uint32_t max_plugin_devices = 1024;  // max_devices (v1.5)
inline constexpr uint32_t max_declared_params = 64;  // params of one descriptor (ABI 1.10)

// Which addresses may be read and which hold code. The process's own map in production
// (ProcessAddressSpace); a test or fuzz target describes its buffers instead.
class AddressSpace {
public:
    virtual ~AddressSpace() = default;
    // How many bytes from `address` on are readable without a gap (0: not readable).
    virtual size_t readable_bytes(const void *address) const = 0;
    virtual bool executable(const void *address) const = 0;
};

// The mappings of this process as /proc/self/maps lists them when constructed.
class ProcessAddressSpace final : public AddressSpace {
public:
    ProcessAddressSpace();
    size_t readable_bytes(const void *address) const override;
    bool executable(const void *address) const override;

private:
    struct Mapping {
        uintptr_t begin, end;
        bool readable, executable;
    };
    std::vector<Mapping> mappings_;  // sorted, as the kernel lists them
};

// Reads and checks the descriptor at `descriptor` (an entry symbol's result, may be null).
// ABI major mismatch and every malformed field are refusals with the reason.
std::variant<PluginInfo, std::string> read_descriptor(const void *descriptor,
                                                      const AddressSpace &memory);

// The checks on values alone (names, ranges, counts), shared with PluginInfo read back from
// the scan cache: the first problem, or "".
std::string plugin_info_problem(const PluginInfo &info);

}  // namespace gpubench
