// find_change_points (core/history/change_points.hpp): the cases docs/history.md promises, and its
// false-positive rate and power measured on seeded synthetic series (the rates printed here
// are the ones docs/history.md quotes).
#include "change_points.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <functional>
#include <random>

using gpubench::ChangePoint;
using gpubench::find_change_points;

namespace {

using Noise = std::function<double(std::mt19937_64 &)>;

// A series of `n` points at level 1, `step` times that level from `step_at` on, each point
// multiplied by (1 + noise).
std::vector<double> synthetic(size_t n, size_t step_at, double step, const Noise &noise, std::mt19937_64 &rng) {
    std::vector<double> series(n);
    for (size_t i = 0; i < n; ++i) series[i] = (i >= step_at ? step : 1.0) * (1 + noise(rng));
    return series;
}

Noise uniform(double half_width) {
    return [half_width](std::mt19937_64 &rng) { return std::uniform_real_distribution<double>(-half_width, half_width)(rng); };
}

Noise gaussian(double sigma) {
    return [sigma](std::mt19937_64 &rng) { return std::normal_distribution<double>(0, sigma)(rng); };
}

// The share of 10 000 flat series, of lengths 6 to 60, in which any change point is found.
double false_positive_rate(const Noise &noise, uint64_t seed) {
    std::mt19937_64 rng(seed);
    size_t flagged = 0, trials = 10000;
    for (size_t t = 0; t < trials; ++t) {
        const size_t n = 6 + t % 55;
        flagged += find_change_points(synthetic(n, n, 1.0, noise, rng)).empty() ? 0 : 1;
    }
    return static_cast<double>(flagged) / static_cast<double>(trials);
}

// The share of 2 000 series (lengths 6 to 60, Gaussian 2% noise) with a step of `factor` in
// their last `newest` points in which exactly that step, and no other, is found.
double detection_power(double factor, size_t newest, uint64_t seed) {
    std::mt19937_64 rng(seed);
    size_t found = 0, trials = 2000;
    for (size_t t = 0; t < trials; ++t) {
        const size_t n = std::max<size_t>(6 + t % 55, newest + 2);
        const auto steps = find_change_points(synthetic(n, n - newest, factor, gaussian(0.02), rng));
        found += steps.size() == 1 && steps[0].index == n - newest ? 1 : 0;
    }
    return static_cast<double>(found) / static_cast<double>(trials);
}

}  // namespace

TEST_CASE("a 2x step in the last 2 of 6 commits is a slower step at index 4", "[change_points]") {
    const auto steps = find_change_points({1.0, 1.01, 0.99, 1.0, 2.0, 2.02});
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].index == 4);
    CHECK(steps[0].relative_step() == Approx(1.0).epsilon(0.02));
    CHECK(steps[0].after > steps[0].before);
}

TEST_CASE("a flat series has no change point, noisy or not", "[change_points]") {
    CHECK(find_change_points({1, 1, 1, 1, 1, 1}).empty());
    CHECK(find_change_points({0, 0, 0, 0}).empty());
    CHECK(find_change_points({1.02, 0.98, 1.02, 0.98, 1.02, 0.98, 0.98, 1.02}).empty());
    CHECK(find_change_points({}).empty());
    CHECK(find_change_points({1, 5}).empty());  // no two points before a step
}

TEST_CASE("several steps in one series are each found", "[change_points]") {
    const auto steps = find_change_points({1, 1, 1, 2, 2, 2, 1, 1, 1});
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].index == 3);
    CHECK(steps[0].relative_step() == Approx(1.0));
    CHECK(steps[1].index == 6);
    CHECK(steps[1].relative_step() == Approx(-0.5));
}

TEST_CASE("one outlier in the middle is not a step, and the newest point alone is", "[change_points]") {
    CHECK(find_change_points({1, 1.01, 0.99, 3, 1, 1.01, 0.99, 1}).empty());
    CHECK(find_change_points({1, 1, 1, 1, 1, 3, 1}).empty());  // one point after it: still an outlier
    // The newest run cannot be told from an outlier yet: it is reported, the next run settles it.
    const auto newest = find_change_points({1, 1.01, 0.99, 1, 1.01, 3});
    REQUIRE(newest.size() == 1);
    CHECK(newest[0].index == 5);
}

TEST_CASE("steps below the minimum relative step are never reported", "[change_points]") {
    CHECK(find_change_points({1, 1, 1, 1.04, 1.04, 1.04}).empty());
    gpubench::ChangePointOptions finer;
    finer.min_relative_step = 0.01;
    const auto steps = find_change_points({1, 1, 1, 1.04, 1.04, 1.04}, finer);
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].index == 3);
}

TEST_CASE("a 2500-point series of 100 steps is segmented exactly", "[change_points]") {
    // As asv's benchmarks of step_detect: ([1]*20 + [2]*30)*50. Exact dynamic programming,
    // O(n^2 log n): a fraction of a second.
    std::vector<double> series;
    for (int block = 0; block < 50; ++block) {
        series.insert(series.end(), 20, 1.0);
        series.insert(series.end(), 30, 2.0);
    }
    const auto steps = find_change_points(series);
    REQUIRE(steps.size() == 99);
    // Up at 50 b + 20, down at 50 (b + 1), for each block b.
    for (size_t i = 0; i < steps.size(); ++i) CHECK(steps[i].index == (i % 2 ? 50 * (i / 2 + 1) : 50 * (i / 2) + 20));
}

TEST_CASE("flat series with 2% noise: false positives within the documented bounds", "[change_points]") {
    const double uniform_rate = false_positive_rate(uniform(0.02), 1);
    const double gaussian_rate = false_positive_rate(gaussian(0.02), 2);
    std::printf("false positives over 10000 flat series (n = 6..60): uniform +-2%%: %.2f%%, Gaussian 2%%: %.2f%%\n",
                100 * uniform_rate, 100 * gaussian_rate);
    // Uniform +-2%: two levels never differ by 5%, so none can be reported.
    CHECK(uniform_rate == 0);
    CHECK(gaussian_rate <= 0.01);
}

TEST_CASE("steps of 10%, 20% and 100% in Gaussian 2% noise: detection power", "[change_points]") {
    for (double factor : {1.1, 1.2, 2.0})
        for (size_t newest : {1, 2, 3, 5}) {
            const double power = detection_power(factor, newest, 10 * newest + static_cast<uint64_t>(factor * 10));
            std::printf("step x%.1f in the newest %zu of n = 6..60 points: found exactly %.1f%%\n", factor, newest,
                        100 * power);
            if (factor >= 2.0) CHECK(power >= 0.99);
            if (factor >= 1.2 && newest >= 3) CHECK(power >= 0.95);
        }
}
