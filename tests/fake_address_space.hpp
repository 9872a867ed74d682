// A pretend address space for descriptor checks (descriptor_check.hpp) in tests and fuzz
// targets: readable where a test says so, code only at the five functions below.
#pragma once

#include "descriptor_check.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace fake_address_space {

inline gpubench_status any_work(uint64_t, const char *, gpubench_work *, char *, size_t) { return 0; }
inline gpubench_status any_create(const gpubench_setup_args *, gpubench_instance **, char *, size_t) {
    return 0;
}
inline gpubench_status any_phase(gpubench_instance *, char *, size_t) { return 0; }
inline gpubench_status any_verify(gpubench_instance *, gpubench_verification *, char *, size_t) {
    return 0;
}
inline void any_destroy(gpubench_instance *) {}

class FakeAddressSpace final : public gpubench::AddressSpace {
public:
    void add(const void *begin, size_t bytes) { ranges_.push_back({static_cast<const char *>(begin), bytes}); }
    size_t readable_bytes(const void *address) const override {
        const char *at = static_cast<const char *>(address);
        for (const auto &[begin, bytes] : ranges_)
            if (at >= begin && at < begin + bytes) return static_cast<size_t>(begin + bytes - at);
        return 0;
    }
    bool executable(const void *address) const override {
        for (const void *f : {(const void *)&any_work, (const void *)&any_create, (const void *)&any_phase,
                              (const void *)&any_verify, (const void *)&any_destroy})
            if (f == address) return true;
        return false;
    }

private:
    std::vector<std::pair<const char *, size_t>> ranges_;
};

}  // namespace fake_address_space
