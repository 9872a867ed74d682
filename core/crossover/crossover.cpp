#include "crossover.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace gpubench {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// A repeat run's n* misses this run's by the noise of both: √2 times one run's spread, so the
// interval given is this run's widened by √2 (see crossover.hpp).
const double repeat_run = std::sqrt(2.0);

// What the models say over [smallest, largest]: where the GPU wins from, the margin at the
// top, the CPU series best at n* (or at the top), and log(GPU / best CPU) at each grid size.
struct Comparison {
    CrossoverVerdict verdict = CrossoverVerdict::unknown;
    double size = 0, margin = 0;
    size_t best_cpu = 0;
    int last_lost = -1;        // the largest grid size the GPU does not win at (-1: none)
    std::vector<double> gaps;  // negative where the GPU wins
};

class Comparer {
public:
    static constexpr int steps = 160;  // the grid: steps + 1 sizes, even in log space

    Comparer(double smallest, double largest, std::vector<std::pair<double, double>> cpu_ranges)
        : smallest_(smallest), largest_(largest), step_(std::log(largest / smallest) / steps),
          cpu_ranges_(std::move(cpu_ranges)) {}

    double size_at(int i) const { return i == 0 ? smallest_ : smallest_ * std::exp(step_ * i); }

    Comparison compare(const CostModel &gpu, const std::vector<const CostModel *> &cpus) const {
        Comparison c;
        for (int i = 0; i <= steps; ++i) {
            c.gaps.push_back(gap(gpu, cpus, size_at(i)));
            if (c.gaps.back() >= 0) c.last_lost = i;
        }
        c.margin = best_cpu(cpus, largest_, c.best_cpu) / gpu.at(largest_);
        if (c.last_lost < 0) c.verdict = CrossoverVerdict::always, c.size = 0;
        else if (c.last_lost == steps) c.verdict = CrossoverVerdict::never, c.size = infinity;
        else {
            double lost = size_at(c.last_lost), won = size_at(c.last_lost + 1);
            for (int i = 0; i < 30; ++i) {
                const double middle = std::sqrt(lost * won);
                (gap(gpu, cpus, middle) >= 0 ? lost : won) = middle;
            }
            c.verdict = CrossoverVerdict::from, c.size = std::sqrt(lost * won);
            best_cpu(cpus, c.size, c.best_cpu);
        }
        return c;
    }

private:
    // The best CPU figure at `size`, among the series that measured around it.
    double best_cpu(const std::vector<const CostModel *> &cpus, double size, size_t &which) const {
        double best = infinity;
        for (size_t k = 0; k < cpus.size(); ++k) {
            const auto [lo, hi] = cpu_ranges_[k];
            if (size < lo * (1 - 1e-9) || size > hi * (1 + 1e-9)) continue;
            if (const double t = cpus[k]->at(size); t < best) best = t, which = k;
        }
        return best;
    }
    double gap(const CostModel &gpu, const std::vector<const CostModel *> &cpus, double size) const {
        size_t which = 0;
        return std::log(gpu.at(size) / best_cpu(cpus, size, which));
    }
    double smallest_, largest_, step_;
    std::vector<std::pair<double, double>> cpu_ranges_;
};

// Which shifts shared by several entries a replicate draws: none, the spells', or the spells'
// and the runs' (widening() weighs each by what it adds).
enum class Shared { none, spells, runs };

// One replicate of `f`'s points: each median drawn again from its samples and moved by the
// noise between entries and by its spell's and its run's as `shared` asks; then the model of
// the same form refitted.
CostModel resampled_model(const FittedSeries &f, Shared shared, std::mt19937_64 &random) {
    std::normal_distribution<double> normal(0.0, 1.0);
    const SeriesNoise &noise = f.noise;
    std::vector<double> run_shift(noise.runs, 0.0), spell_shift(noise.spells, 0.0);
    if (shared == Shared::runs && noise.run_sd > 0)  // a run alone draws as before pooling
        for (double &shift : run_shift) shift = noise.run_sd * normal(random);
    if (shared != Shared::none)
        for (size_t g = 0; g < noise.spells; ++g)
            spell_shift[g] = noise.spell_sd * normal(random) + run_shift[noise.run_of[g]];
    std::vector<FitPoint> points;
    std::vector<double> drawn;
    for (size_t i = 0; i < f.series.points.size(); ++i) {
        const SeriesPoint &p = f.series.points[i];
        if (p.samples.empty()) continue;
        drawn.resize(p.samples.size());
        std::uniform_int_distribution<size_t> pick(0, p.samples.size() - 1);
        for (double &d : drawn) d = p.samples[pick(random)];
        const double m = median(drawn);
        const double shift = noise.entry_sd * normal(random) + spell_shift[noise.spell_of[i]];
        if (m > 0) points.push_back({double(p.size), m * std::exp(shift), p.level});
    }
    return refit_cost_model(points, f.model.form(), f.model.exponent);
}

// Replicates of n* (log; infinite for never and always), of the margin (log) and of the gaps.
struct Draws {
    std::vector<double> sizes, margins;
    std::vector<std::vector<double>> gaps;
    double size_variance() const {  // of the finite draws
        double sum = 0, squares = 0, n = 0;
        for (double s : sizes)
            if (std::isfinite(s)) sum += s, squares += s * s, n += 1;
        return n > 1 ? (squares - sum * sum / n) / (n - 1) : 0.0;
    }
};

Draws draw(const FittedSeries &g, const std::vector<const FittedSeries *> &c, const Comparer &comparer,
           size_t replicates, Shared shared, std::mt19937_64 &random) {
    Draws draws;
    for (size_t b = 0; b < replicates; ++b) {
        std::vector<CostModel> resampled;
        for (const FittedSeries *f : c) resampled.push_back(resampled_model(*f, shared, random));
        std::vector<const CostModel *> models;
        for (const CostModel &m : resampled) models.push_back(&m);
        Comparison r = comparer.compare(resampled_model(g, shared, random), models);
        draws.sizes.push_back(r.verdict == CrossoverVerdict::from    ? std::log(r.size)
                              : r.verdict == CrossoverVerdict::never ? infinity
                                                                     : -infinity);
        draws.margins.push_back(std::log(r.margin));
        draws.gaps.push_back(std::move(r.gaps));
    }
    return draws;
}

// The variance of n* that each source adds, with the degrees of freedom of its estimate.
struct VarianceShare {
    double variance = 0;
    size_t df = 0;
};

// How much wider than normal the interval must be: Student's t over the normal, for the
// degrees of freedom of the noise estimates, the spells' and the runs' (few) weighed by their
// share of the variance (Welch-Satterthwaite). `shares` begins with the models' own.
double widening(const std::vector<VarianceShare> &shares) {
    const double z = student_t_95(std::numeric_limits<size_t>::max());
    if (shares.front().df == 0) return student_t_95(0) / z;  // no residual left: nothing known of the noise
    double total = 0, weighed = 0;
    for (const VarianceShare &s : shares) {
        if (s.variance <= 0) continue;
        if (s.df == 0) return student_t_95(0) / z;
        total += s.variance, weighed += s.variance * s.variance / double(s.df);
    }
    if (total <= 0) return student_t_95(shares.front().df) / z;  // the model's own
    return student_t_95(size_t(std::max(1.0, std::floor(total * total / weighed)))) / z;
}

// The 95% range of `draws` (logs; infinities kept) about `center`, widened by `widen`.
Estimate interval_of(std::vector<double> draws, double center, double widen) {
    std::sort(draws.begin(), draws.end());
    const size_t last = draws.size() - 1;
    const double lo = draws[size_t(std::floor(0.025 * double(last)))];
    const double hi = draws[size_t(std::ceil(0.975 * double(last)))];
    const auto widened = [&](double edge) {
        return std::isinf(edge) || edge == center ? edge : center + widen * (edge - center);
    };
    return {center, widened(std::min(lo, center)), widened(std::max(hi, center))};
}

Estimate exp_of(const Estimate &e) { return {std::exp(e.value), std::exp(e.lo), std::exp(e.hi)}; }

// A near tie: at a size whose gap's interval holds 0, a repeat run may find either side
// winning, so n* may lie there. The interval takes in the sizes so tied next to n* (a cuBLAS
// call and a NumPy call of about 4 µs each over the smallest sizes on an H200).
void widen_to_ties(Estimate &size, const Comparison &measured, const Draws &all, double widen,
                   const Comparer &comparer) {
    const auto tied = [&](int i) {
        std::vector<double> at;
        for (const std::vector<double> &gaps : all.gaps) at.push_back(gaps[size_t(i)]);
        const Estimate band = interval_of(std::move(at), measured.gaps[size_t(i)], widen);
        return band.lo <= 0 && 0 <= band.hi;
    };
    const int steps = Comparer::steps;
    if (measured.verdict != CrossoverVerdict::always) {  // down from the last size lost
        int i = measured.verdict == CrossoverVerdict::never ? steps : measured.last_lost;
        while (i >= 0 && tied(i)) --i;
        if (i < 0) size.lo = 0;
        else if (i < (measured.verdict == CrossoverVerdict::never ? steps : measured.last_lost))
            size.lo = std::min(size.lo, comparer.size_at(i + 1));
    }
    if (measured.verdict != CrossoverVerdict::never) {  // up from the first size won
        int i = measured.last_lost + 1;
        while (i <= steps && tied(i)) ++i;
        if (i > steps) size.hi = infinity;
        else if (i > measured.last_lost + 1) size.hi = std::max(size.hi, comparer.size_at(i - 1));
    }
}

// Where n* is a step of a model (one side's jump makes it), the step is somewhere between the
// two sizes measured on either side: the interval takes that gap in.
void widen_to_step_gap(Estimate &size, const FittedSeries &gpu, const std::vector<const FittedSeries *> &cpus) {
    std::vector<const FittedSeries *> all{&gpu};
    all.insert(all.end(), cpus.begin(), cpus.end());
    for (const FittedSeries *f : all)
        for (double step : f->model.steps) {
            if (std::abs(step / size.value - 1) > 1e-6) continue;
            double below = 0, above = infinity;  // the sizes measured on either side of the step
            for (const SeriesPoint &p : f->series.points) {
                if (double(p.size) < step) below = std::max(below, double(p.size));
                if (double(p.size) > step) above = std::min(above, double(p.size));
            }
            size.lo = std::min(size.lo, below);
            size.hi = std::max(size.hi, above);
        }
}

// The interval's widening and its degrees of freedom: the replicates' spread over what their
// few residuals and spells can say (widening()), then √2 for a repeat run.
struct Spread {
    double widen = 1;
    size_t degrees_of_freedom = 0;
};

Spread spread_of(const FittedSeries &gpu, const FittedSeries &best_cpu, const std::vector<const FittedSeries *> &cpus,
                 const Comparer &comparer, const Draws &all, size_t replicates, std::mt19937_64 &random) {
    Spread s;
    s.degrees_of_freedom = std::min(gpu.model.residual_df(), best_cpu.model.residual_df());
    // The fewest spells' and runs' of the two series that cross, less one per run and one.
    size_t spell_df = 0, run_df = 0;
    for (const FittedSeries *f : {&gpu, &best_cpu}) {
        if (f->noise.spell_sd > 0) spell_df = spell_df ? std::min(spell_df, f->noise.spell_df()) : f->noise.spell_df();
        if (f->noise.run_sd > 0) run_df = run_df ? std::min(run_df, f->noise.run_df()) : f->noise.run_df();
    }
    // Each source's share: what the replicates' variance loses without it.
    const Draws spells_only = run_df ? draw(gpu, cpus, comparer, replicates / 2, Shared::spells, random) : all;
    const Draws entries_only =
        spell_df ? draw(gpu, cpus, comparer, replicates / 2, Shared::none, random) : spells_only;
    const double v_all = all.size_variance(), v_spells = spells_only.size_variance(),
                 v_entries = entries_only.size_variance();
    s.widen = repeat_run * widening({{v_entries, s.degrees_of_freedom},
                                     {std::max(0.0, v_spells - v_entries), spell_df},
                                     {std::max(0.0, v_all - v_spells), run_df}});
    return s;
}

}  // namespace

const char *verdict_name(CrossoverVerdict verdict) {
    static constexpr const char *names[] = {"from", "never", "always", "unknown"};
    return names[static_cast<int>(verdict)];
}

bool Crossover::within(double fraction) const {
    switch (verdict) {
    case CrossoverVerdict::from: return size.lo >= (1 - fraction) * size.value && size.hi <= (1 + fraction) * size.value;
    case CrossoverVerdict::always: return size.hi <= (1 + fraction) * smallest;
    case CrossoverVerdict::never: return size.lo >= (1 - fraction) * largest;
    case CrossoverVerdict::unknown: break;
    }
    return true;  // nothing to narrow
}

Crossover find_crossover(const FittedSeries &gpu, const std::vector<const FittedSeries *> &cpus,
                         const CrossoverOptions &options) {
    Crossover result;
    std::vector<const FittedSeries *> c;
    for (const FittedSeries *f : cpus)
        if (f->model.fitted()) c.push_back(f);
    if (!gpu.model.fitted()) return result.why = "the GPU backend was measured at fewer than 3 sizes", result;
    if (c.empty()) return result.why = "no CPU backend was measured at 3 sizes or more", result;
    double cpu_smallest = infinity, cpu_largest = 0;
    std::vector<std::pair<double, double>> ranges;
    std::vector<const CostModel *> cpu_models;
    for (const FittedSeries *f : c) {
        ranges.emplace_back(f->series.smallest(), f->series.largest());
        cpu_smallest = std::min(cpu_smallest, ranges.back().first);
        cpu_largest = std::max(cpu_largest, ranges.back().second);
        cpu_models.push_back(&f->model);
    }
    result.smallest = std::max<double>(gpu.series.smallest(), cpu_smallest);
    result.largest = std::min<double>(gpu.series.largest(), cpu_largest);
    if (!(result.smallest < result.largest))
        return result.why = "the GPU and CPU backends measured no range of sizes in common", result;
    const Comparer comparer(result.smallest, result.largest, ranges);
    const Comparison measured = comparer.compare(gpu.model, cpu_models);
    result.verdict = measured.verdict;
    result.best_cpu = c[measured.best_cpu]->series.name;
    std::mt19937_64 random(options.seed);
    const Draws all = draw(gpu, c, comparer, options.replicates, Shared::runs, random);
    const Spread spread = spread_of(gpu, *c[measured.best_cpu], c, comparer, all, options.replicates, random);
    result.replicates = options.replicates, result.degrees_of_freedom = spread.degrees_of_freedom;
    result.runs = std::max(gpu.noise.runs, c[measured.best_cpu]->noise.runs);
    const double center = measured.verdict == CrossoverVerdict::from    ? measured.size
                          : measured.verdict == CrossoverVerdict::never ? result.largest
                                                                        : result.smallest;
    result.size = exp_of(interval_of(all.sizes, std::log(center), spread.widen));
    result.size.value = measured.size;
    widen_to_ties(result.size, measured, all, spread.widen, comparer);
    if (measured.verdict == CrossoverVerdict::from) widen_to_step_gap(result.size, gpu, c);
    if (result.size.lo < result.smallest * (1 - 1e-9)) result.size.lo = 0;
    if (result.size.hi > result.largest * (1 + 1e-9)) result.size.hi = infinity;
    result.margin = exp_of(interval_of(all.margins, std::log(measured.margin), spread.widen));
    return result;
}

Crossover find_crossover(const Series &gpu, const std::vector<Series> &cpus, const CrossoverOptions &options) {
    std::vector<FittedSeries> fitted;
    for (const Series &s : cpus) fitted.push_back(fit_series(s));
    std::vector<const FittedSeries *> pointers;
    for (const FittedSeries &f : fitted) pointers.push_back(&f);
    return find_crossover(fit_series(gpu), pointers, options);
}

}  // namespace gpubench
