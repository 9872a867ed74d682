// What every solvebak backend shares: the descriptor data, the parameters, the work model,
// deterministic inputs, the float64 CPU reference and the verification, and the plugin class
// that picks float or double from the dtype parameter. A backend supplies only its solver.
//
// SolveBak (coordinate-descent least squares): given X (obs x vars) and y = X a_true, start
// from a = 0, e = y and sweep the columns `iterations` times; a block of `batch` columns
// [j0, j0+nb) takes one step:  da = X_blk^T e / |X_j|^2;  e -= X_blk da;  a_blk += da.
// batch = 1 is the sequential algorithm (one column at a time); batch > 1 is the notebook's
// "parallel HPSCDP" variant (all columns of a block see the same residual).
//
// X is stored column-major (column X_j contiguous): every step streams whole columns, once
// for the dot products and once for the update of e, so contiguous columns make both passes
// unit-stride on the CPU and coalesced on the GPU.
#pragma once

#include "one_of_problems.hpp"

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace solvebak {

enum class Dtype { float64, float32 };  // the default first, as dtype= lists them

struct Config {
    size_t obs = 0;         // rows of X (the size)
    size_t vars = 1000;     // columns of X, unknowns
    size_t iterations = 10;
    size_t batch = 1;       // columns per step
    Dtype dtype = Dtype::float64;

    size_t blocks_per_iteration() const { return (vars + batch - 1) / batch; }
};

// The parameters the CPU backends read, and the GPU ones (which add graph=): a backend's
// BackendSpec names one of them as its params_help.
extern const char *const kCpuParams;
extern const char *const kGpuParams;

// Descriptor data for one backend: its own row (name, device, sizes, description,
// parameters) plus what every solvebak backend shares.
gpubench::Info make_info(const gpubench::BackendSpec &spec);

// The parameters alone (vars, iterations, batch, dtype): InvalidArgument when malformed or
// out of range. obs is left 0.
Config parse_params(const gpubench::Params &params);

// The GPU backends' graph parameter: 1 (default) or 0.
bool parse_graph(const gpubench::Params &params);

// parse_params plus the size and the limits of the backend: NotSupported outside them.
Config checked_config(const gpubench::BackendSpec &spec, uint64_t obs,
                      const gpubench::Params &params);

// flops 4 obs vars iterations (a dot and an update per column); bytes: X read twice per
// iteration; items: column updates (vars x iterations).
gpubench::Work make_work(const gpubench::BackendSpec &spec, uint64_t obs,
                         const gpubench::Params &params);

// X column-major (vars columns of obs), y = X a_true (accumulated in double, then rounded
// to T), x_x[j] = |X_j|^2 (likewise) and a_true. Entries of X and a_true are
// 0.5 * symmetric_unit: uniform in (-0.5, 0.5), never zero (no empty column), exact in float.
// Element k of X is a pure function of (seed, k), whatever the thread count.
template <class T>
void fill_inputs(const Config &config, uint64_t seed, int threads, T *x, T *y, T *x_x,
                 double *a_true);

// out = X v in double, each row summed over the columns in order (the same for any thread
// count), in tiles of rows so that X is read column by column.
template <class T>
void multiply(const Config &config, const T *x, const double *v, double *out, int threads);

// Fills `count` elements with NaN so that a result a solver never writes fails verification.
template <class T>
void poison(T *values, size_t count);

// Checks a solver's result a (vars values): against the same algorithm run in float64 on the
// CPU (computed on the first verify, or read from reference_cache.hpp's folder), and against
// a_true where the system pins it down.
// Keeps mean |a - a_true| and |y - X a| / |y| for metrics().
template <class T>
class Verifier {
public:
    Verifier(const Config &config, int threads);
    double *a_true() { return a_true_.data(); }
    gpubench::Verification verify(const T *x, const T *y, const T *x_x, const T *a);
    std::vector<gpubench::Metric> metrics() const;

private:
    Config config_;
    int threads_;
    std::vector<double> a_true_, a_reference_;
    bool reference_cached_ = false;  // read from reference_cache.hpp's folder
    double mean_abs_error_ = 0, relative_residual_ = 0;
};

// Inputs and result in host memory, for CPU solvers. Solver<T> is constructed from
// (config, setup) and called as solver.solve(x, y, x_x, e, a): e is its scratch residual,
// a the result; it starts from a = 0, e = y itself (that is part of the timed solve).
template <class T, class Solver>
class HostProblem {
public:
    HostProblem(const gpubench::Setup &setup, const Config &config)
        : verifier_(config, setup.cpu_threads),
          x_(config.obs * config.vars), y_(config.obs), e_(config.obs), x_x_(config.vars),
          a_(config.vars), solver_(config, setup) {
        fill_inputs(config, setup.seed, setup.cpu_threads, x_.data(), y_.data(), x_x_.data(),
                    verifier_.a_true());
        poison(a_.data(), a_.size());
    }
    void run() { solver_.solve(x_.data(), y_.data(), x_x_.data(), e_.data(), a_.data()); }
    gpubench::Verification verify() {
        return verifier_.verify(x_.data(), y_.data(), x_x_.data(), a_.data());
    }
    std::vector<gpubench::Metric> metrics() const { return verifier_.metrics(); }

private:
    Verifier<T> verifier_;
    std::vector<T> x_, y_, e_, x_x_, a_;
    Solver solver_;
};

// How the dtype parameter picks Problem<float> or Problem<double> (one_of_problems.hpp).
struct Rules {
    static gpubench::ProblemChoice<const gpubench::Setup &, Config> choose(
        const gpubench::BackendSpec &spec, const gpubench::Setup &setup) {
        const Config config = checked_config(spec, setup.size, setup.params);
        return {config.dtype == Dtype::float64 ? 1u : 0u, {setup, config}};
    }
    static constexpr auto make_work = &solvebak::make_work;
};

// The class GPUBENCH_PLUGIN wraps: Problem<float> or Problem<double> as dtype says.
template <const gpubench::BackendSpec &Spec, template <class> class Problem>
using Plugin = gpubench::ProblemChosenByParams<Rules, Spec, Problem, float, double>;

}  // namespace solvebak
