#include "text_format.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using gpubench::parse_sizes;
using V = std::vector<uint64_t>;

namespace {

// What parse_sizes says about `text`: its error, or "no error".
std::string message(const char *text) {
    try {
        parse_sizes(text);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("size lists: plain numbers, scientific notation and powers", "[sizes]") {
    CHECK(parse_sizes("10,100,1000") == V{10, 100, 1000});
    CHECK(parse_sizes("1e6") == V{1000000});
    CHECK(parse_sizes(" 7 , 2^10 ") == V{7, 1024});
    CHECK(parse_sizes("33,33") == V{33, 33});  // order and repeats kept as written
}

TEST_CASE("size lists: ranges", "[sizes]") {
    CHECK(parse_sizes("2^10..2^13") == V{1024, 2048, 4096, 8192});
    CHECK(parse_sizes("10..1e4:*10") == V{10, 100, 1000, 10000});
    CHECK(parse_sizes("100..400:+100") == V{100, 200, 300, 400});
    CHECK(parse_sizes("3..20") == V{3, 6, 12});  // default step *2, end not exceeded
    CHECK(parse_sizes("1,2^2..2^3,5") == V{1, 4, 8, 5});
}

TEST_CASE("size lists: bad input names the problem", "[sizes]") {
    CHECK_THAT(message("1.5"), Catch::Contains("'1.5'") && Catch::Contains("not a whole number"));
    CHECK_THAT(message("abc"), Catch::Contains("not a number"));
    CHECK_THAT(message("0"), Catch::Contains(">= 1"));
    CHECK_THAT(message("-5"), Catch::Contains(">= 1"));
    CHECK_THAT(message("10,,20"), Catch::Contains("empty item"));
    CHECK_THAT(message(""), Catch::Contains("empty item"));
    CHECK_THAT(message("100..10"), Catch::Contains("start is above its end"));
    CHECK_THAT(message("1..100:*1"), Catch::Contains("at least *2"));
    CHECK_THAT(message("1..100:/2"), Catch::Contains("*F or +S"));
    CHECK_THAT(message("1e300"), Catch::Contains("too large"));
    CHECK_THAT(message("90071.5e31986"), Catch::Contains("too large"));  // beyond a double (found by fuzzing)
}

TEST_CASE("sizes are decimal and exact: no hex, no signs, nothing rounded", "[sizes]") {
    CHECK_THAT(message("0x10"), Catch::Contains("not a number"));
    CHECK_THAT(message("+5"), Catch::Contains("not a number"));
    CHECK_THAT(message("inf"), Catch::Contains("not a number"));
    CHECK_THAT(message("nan"), Catch::Contains("not a number"));
    CHECK_THAT(message("1e-3"), Catch::Contains("not a number"));
    // 2^53 + 1 is no double: written in digits it is kept exactly, in another form refused.
    CHECK(parse_sizes("9007199254740993") == std::vector<uint64_t>{9007199254740993ull});
    CHECK(parse_sizes("18446744073709551615") == std::vector<uint64_t>{UINT64_MAX});
    CHECK_THAT(message("18446744073709551616"), Catch::Contains("too large"));
    CHECK_THAT(message("9.007199254740993e15"), Catch::Contains("too large for this form"));
    CHECK(parse_sizes("2^63") == std::vector<uint64_t>{1ull << 63});
    CHECK_THAT(message("2^64"), Catch::Contains("too large"));
    CHECK_THAT(message("2^0.5"), Catch::Contains("whole numbers"));
    CHECK(parse_sizes("1e6,2.5e3") == std::vector<uint64_t>{1000000, 2500});
}
