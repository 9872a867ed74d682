// sort's O(n) check on uint32 keys, both ways: a sorted permutation of the input passes; keys
// out of order (a signed order, which puts keys at or above 2^31 first) and records that are
// not the input's are refused.
#include "sort_common.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

namespace {

struct Keys {
    std::vector<uint32_t> input;
    sort::MultisetHash hash;
    explicit Keys(sort::Input order) : input(10007) {
        sort::fill_input(42, order, input.data(), input.size(), 2);
        hash = sort::hash_of(input.data(), input.size(), 2);
    }
    gpubench::Verification check(const std::vector<uint32_t> &keys) const {
        return sort::verify_sorted(keys.data(), keys.size(), hash, 2);
    }
};

}  // namespace

TEST_CASE("sort's check of uint32 keys passes a sorted permutation and refuses the rest", "[sort]") {
    for (const sort::Input order : {sort::Input::random, sort::Input::descending}) {
        const Keys keys(order);
        // Both inputs use the whole 32-bit range: keys on both sides of 2^31.
        CHECK(std::any_of(keys.input.begin(), keys.input.end(), [](uint32_t k) { return k >= 1u << 31; }));
        CHECK(std::any_of(keys.input.begin(), keys.input.end(), [](uint32_t k) { return k < 1u << 31; }));
        if (order == sort::Input::descending)
            CHECK(std::adjacent_find(keys.input.begin(), keys.input.end(),
                                     [](uint32_t a, uint32_t b) { return a <= b; }) == keys.input.end());

        std::vector<uint32_t> sorted = keys.input;
        std::sort(sorted.begin(), sorted.end());
        const gpubench::Verification right = keys.check(sorted);
        CHECK(right.passed);
        CHECK(right.max_error == 0);
        CHECK_THAT(right.detail, Catch::Contains("uint32 keys"));

        std::vector<uint32_t> signed_order = keys.input;  // as int32: 2^31 and above first
        std::sort(signed_order.begin(), signed_order.end(),
                  [](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b); });
        const gpubench::Verification misordered = keys.check(signed_order);
        CHECK_FALSE(misordered.passed);
        CHECK_THAT(misordered.detail, Catch::Contains("adjacent pairs out of order"));

        std::vector<uint32_t> changed = sorted;  // still sorted, one key lost to its neighbour
        changed[5000] = changed[4999];
        const gpubench::Verification not_input = keys.check(changed);
        CHECK_FALSE(not_input.passed);
        CHECK_THAT(not_input.detail, Catch::Contains("not a permutation of the input"));
    }
}
