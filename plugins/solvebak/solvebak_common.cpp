#include "solvebak_common.hpp"

#include "device_launches.hpp"
#include "random_inputs.hpp"

#include <gpubench/backend_spec.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <string>

namespace solvebak {

// The GPU backends take one parameter more; adjacent literals join at compile time.
#define SOLVEBAK_PARAMS                                                                         \
    "vars=N (columns of X, default 1000), iterations=N (sweeps over the columns, default 10), " \
    "batch=N (columns per step, default 1 = sequential; batch > 1 needs obs >= 8*batch), "      \
    "dtype=float64|float32 (default float64)"
const char *const kCpuParams = SOLVEBAK_PARAMS;
const char *const kGpuParams =
    SOLVEBAK_PARAMS ", graph=1|0 (launch each iteration as one CUDA graph, default 1)";
#undef SOLVEBAK_PARAMS
namespace inputs = gpubench::inputs;
namespace {

using gpubench::BackendSpec;

// The sizes of the descriptor hold at the default vars=1000 and iterations=10; other values
// scale the limits: X may hold max_size*1000 elements (memory) and a run may take
// max_size*1000*10 column-element steps (time).
constexpr double kDefaultVars = 1000, kDefaultIterations = 10;

// Below ~4 obs per column of a block the block step (all its columns from one residual)
// makes the residual grow instead of shrink; 8 keeps a margin.
constexpr size_t kObsPerBatchColumn = 8;

const gpubench::ParamSpec kVarsParam = gpubench::whole("vars", 1000, 1, 100'000, "columns of X");
const gpubench::ParamSpec kIterationsParam =
    gpubench::whole("iterations", 10, 1, 100'000, "sweeps over the columns");
const gpubench::ParamSpec kBatchParam =
    gpubench::whole("batch", 1, 1, 100'000, "columns updated from one residual; at most vars");
const gpubench::ParamSpec kDtypeParam = gpubench::choice("dtype", {"float64", "float32"}, "element type");
const gpubench::ParamSpec kGraphParam =
    gpubench::choice("graph", {"1", "0"}, "1: launch each iteration as one CUDA graph");

}  // namespace

gpubench::Info make_info(const BackendSpec &s) {
    // A backend without params_help (the Python ones) reads the parameters every backend
    // reads, not the CUDA backends' graph.
    const bool reads_graph = s.params_help == kGpuParams;
    gpubench::Info info{s.name,
                        "solvebak",
                        s.backend,
                        s.device_kind,
                        s.description,
                        "obs: rows of X (obs x vars, vars=1000 by default), y = X a_true, "
                        "float64 (dtype=float32 for float)",
                        "1.0",
                        s.params_help ? s.params_help : kCpuParams,
                        1,
                        s.max_size,
                        s.default_sizes,
                        "column updates",
                        GPUBENCH_HEADLINE_BYTES};
    info.params = {kVarsParam, kIterationsParam, kBatchParam, kDtypeParam};
    if (reads_graph) info.params.push_back(kGraphParam);
    return info;
}

Config parse_params(const gpubench::Params &params) {
    Config c;
    c.vars = static_cast<size_t>(params.get_int(kVarsParam));
    c.iterations = static_cast<size_t>(params.get_int(kIterationsParam));
    c.batch = static_cast<size_t>(params.get_int(kBatchParam));
    if (c.batch > c.vars)  // a bound the declaration cannot state
        throw gpubench::InvalidArgument("batch=" + std::to_string(c.batch) + ": expected 1..vars (" +
                                        std::to_string(c.vars) + ")");
    c.dtype = params.get_enum<Dtype>(kDtypeParam);
    return c;
}

bool parse_graph(const gpubench::Params &params) { return params.get(kGraphParam) == "1"; }

Config checked_config(const BackendSpec &s, uint64_t obs, const gpubench::Params &params) {
    Config c = parse_params(params);
    c.obs = gpubench::checked_size(make_info(s), obs);
    const double elements = double(c.obs) * double(c.vars);
    const double max_elements = double(s.max_size) * kDefaultVars;
    const auto whole = [](double count) { return std::to_string(uint64_t(count)); };
    const std::string shape = "obs x vars = " + std::to_string(c.obs) + " x " +
                              std::to_string(c.vars);
    if (elements > max_elements)
        throw gpubench::NotSupported(shape + " exceeds " + s.name + "'s " +
                                     whole(max_elements) + " matrix elements");
    if (elements * double(c.iterations) > max_elements * kDefaultIterations)
        throw gpubench::NotSupported(shape + " x iterations " + std::to_string(c.iterations) +
                                     " exceeds " + s.name + "'s time budget of " +
                                     whole(max_elements * kDefaultIterations) +
                                     " column-element steps");
    if (c.batch > 1 && c.obs < kObsPerBatchColumn * c.batch)
        throw gpubench::NotSupported("batch=" + std::to_string(c.batch) + " needs obs >= " +
                                     std::to_string(kObsPerBatchColumn * c.batch) +
                                     ": with fewer rows the block step diverges");
    return c;
}

gpubench::Work make_work(const BackendSpec &spec, uint64_t obs, const gpubench::Params &params) {
    const Config c = parse_params(params);
    const double element = c.dtype == Dtype::float64 ? 8.0 : 4.0;
    const double n = double(obs), vars = double(c.vars), iterations = double(c.iterations);
    gpubench::Work w;
    w.flops = 4.0 * n * vars * iterations;
    if (c.dtype == Dtype::float64) w.math = GPUBENCH_MATH_FP64;  // read against the FP64 peak
    // Each column is read twice per iteration (dot, then update). The residual e, obs
    // elements, is read and written as often, but stays in cache (8 MB at obs=1e6).
    w.bytes = 2.0 * n * vars * iterations * element;
    w.items = vars * iterations;
    // Per block of columns: one kernel (cuda); dot, scale, axpy and the update of a (cuBLAS);
    // CuPy's and PyTorch's array operations; Numba's two kernels, and a clear per sweep.
    w.launches = gpubench::device_launches(spec, double(c.blocks_per_iteration()) * iterations,
                                           {{"cuda", 1, 3}, {"cublas", 4, 2}, {"cupy", 6, 2},
                                            {"torch", 5, 2}, {"numba_cuda", 2, 1 + iterations}});
    const double matrix = n * vars * element, vectors = 3.0 * n * element + 8.0 * vars;
    w.host_bytes = matrix + vectors + 8.0 * n;  // + the float64 reference's residual
    w.device_bytes = spec.device_kind == GPUBENCH_DEVICE_CUDA ? matrix + vectors : 0;
    return w;
}

template <class T>
void fill_inputs(const Config &config, uint64_t seed, int threads, T *x, T *y, T *x_x,
                 double *a_true) {
    const int64_t obs = int64_t(config.obs), vars = int64_t(config.vars);
    const uint64_t key_x = inputs::stream_key(seed, 0), key_a = inputs::stream_key(seed, 1);
    for (int64_t j = 0; j < vars; ++j)
        a_true[j] = 0.5 * inputs::symmetric_unit(inputs::bits(key_a, uint64_t(j)));

#pragma omp parallel num_threads(std::max(1, threads))
    {
#pragma omp for schedule(static)
        for (int64_t k = 0; k < obs * vars; ++k)
            x[k] = static_cast<T>(0.5 * inputs::symmetric_unit(inputs::bits(key_x, uint64_t(k))));
#pragma omp for schedule(static)
        for (int64_t j = 0; j < vars; ++j) {
            double sum = 0;
            for (int64_t i = 0; i < obs; ++i) sum += double(x[j * obs + i]) * x[j * obs + i];
            x_x[j] = static_cast<T>(sum);
        }
    }
    std::vector<double> product(config.obs);
    multiply(config, x, a_true, product.data(), threads);
    std::copy(product.begin(), product.end(), y);  // rounded to T
}

template <class T>
void multiply(const Config &config, const T *x, const double *v, double *out, int threads) {
    const int64_t obs = int64_t(config.obs), vars = int64_t(config.vars);
    constexpr int64_t kTile = 256;
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads))
    for (int64_t row0 = 0; row0 < obs; row0 += kTile) {
        const int64_t rows = std::min(kTile, obs - row0);
        std::array<double, kTile> sum{};
        for (int64_t j = 0; j < vars; ++j)
            for (int64_t i = 0; i < rows; ++i) sum[i] += double(x[j * obs + row0 + i]) * v[j];
        std::copy(sum.begin(), sum.begin() + rows, out + row0);
    }
}

template <class T>
void poison(T *values, size_t count) {
    std::fill(values, values + count, std::numeric_limits<T>::quiet_NaN());
}

template void fill_inputs<float>(const Config &, uint64_t, int, float *, float *, float *,
                                 double *);
template void fill_inputs<double>(const Config &, uint64_t, int, double *, double *, double *,
                                  double *);
template void multiply<float>(const Config &, const float *, const double *, double *, int);
template void multiply<double>(const Config &, const double *, const double *, double *, int);
template void poison<float>(float *, size_t);
template void poison<double>(double *, size_t);

}  // namespace solvebak
