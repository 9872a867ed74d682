#include "statistics.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using gpubench::summarize;

TEST_CASE("summary of an odd number of samples", "[statistics]") {
    auto s = summarize({5, 1, 3});
    CHECK(s.count == 3);
    CHECK(s.median == 3);
    CHECK(s.mean == Approx(3));
    CHECK(s.min == 1);
    CHECK(s.max == 5);
    CHECK(s.stddev == Approx(2));  // sample standard deviation, n - 1
    CHECK(s.rel_stddev == Approx(2.0 / 3.0));
}

TEST_CASE("summary of an even number of samples takes the middle pair's mean", "[statistics]") {
    auto s = summarize({4, 1, 2, 3});
    CHECK(s.median == Approx(2.5));
    CHECK(s.mean == Approx(2.5));
}

TEST_CASE("summary of one and of no samples", "[statistics]") {
    auto one = summarize({0.25});
    CHECK(one.median == 0.25);
    CHECK(one.stddev == 0);
    CHECK(one.rel_stddev == 0);
    auto none = summarize({});
    CHECK(none.count == 0);
    CHECK(none.median == 0);
}

TEST_CASE("end-to-end samples are elementwise sums", "[statistics]") {
    CHECK(gpubench::add_samples({1, 2}, {10, 20}) == std::vector<double>{11, 22});
    CHECK_THROWS_AS(gpubench::add_samples({1}, {1, 2}), std::invalid_argument);
}
