// example_babelstream_cuda: BabelStream's five kernels (copy, mul, add, triad, dot) as a
// device-only gpubench plugin. The arrays are made and initialised on the device, so there is
// no upload() and no download(): run() enqueues the five kernels on the runner's stream, and
// verify() copies back what it checks (on the same stream) and compares it with BabelStream's
// closed-form values.
//
// One run() is one BabelStream iteration. The iteration changes a, b and c (a shrinks by
// 0.96 each time), so run() is not repeatable: reset() sets the starting values again before
// every run(), untimed, and the work does not declare GPUBENCH_WORK_RUN_REPEATABLE. The values
// verify() expects are then those of one iteration, whatever number of run() calls the runner
// made (graph replays included). Declaring the flag instead would let the runner replay run()
// thousands of times without reset(): the values would decay to zero and the check would
// check nothing.
#include <gpubench/cuda.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr unsigned kBlock = 256;  // threads per block; a power of two (the block reduction)

// BabelStream's starting values and scalar.
constexpr double kStartA = 0.1, kStartB = 0.2, kStartC = 0.0, kScalar = 0.4;

enum class Dtype { float64, float32 };
constexpr const char *kDtypeNames[] = {"float64", "float32"};

Dtype dtype_of(const gpubench::Params &params) {
    return params.get_enum<Dtype>("dtype", kDtypeNames);
}

const gpubench::Info info{
    "example_babelstream_cuda",
    "example_babelstream",
    "cuda",
    GPUBENCH_DEVICE_CUDA,
    "BabelStream copy, mul, add, triad and dot on the device; no upload or download",
    "n: elements of each of the arrays a, b and c",
    "1.0.0",
    "dtype=float64|float32 (default float64)",
    1,
    uint64_t(1) << 30,  // 3 arrays of 8 GiB in float64
    {uint64_t(1) << 10, uint64_t(1) << 20, uint64_t(1) << 25, uint64_t(1) << 28},
    "elements",
    GPUBENCH_HEADLINE_BYTES,  // BabelStream reports bandwidth
    "dtype",
};

__device__ size_t first_index() { return size_t(blockIdx.x) * blockDim.x + threadIdx.x; }

template <class T>
__global__ void init_kernel(T *a, T *b, T *c, T start_a, T start_b, T start_c, size_t n) {
    if (size_t i = first_index(); i < n) a[i] = start_a, b[i] = start_b, c[i] = start_c;
}
template <class T>
__global__ void copy_kernel(const T *a, T *c, size_t n) {
    if (size_t i = first_index(); i < n) c[i] = a[i];
}
template <class T>
__global__ void mul_kernel(T *b, const T *c, T scalar, size_t n) {
    if (size_t i = first_index(); i < n) b[i] = scalar * c[i];
}
template <class T>
__global__ void add_kernel(const T *a, const T *b, T *c, size_t n) {
    if (size_t i = first_index(); i < n) c[i] = a[i] + b[i];
}
template <class T>
__global__ void triad_kernel(T *a, const T *b, const T *c, T scalar, size_t n) {
    if (size_t i = first_index(); i < n) a[i] = b[i] + scalar * c[i];
}

// The sum of `value` over the block's kBlock threads, in thread 0.
template <class T>
__device__ T block_sum(T value) {
    __shared__ T cache[kBlock];
    cache[threadIdx.x] = value;
    __syncthreads();
    for (unsigned half = kBlock / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    return cache[0];
}

// Dot, first pass: one partial sum per block (grid-stride), kept on the device.
template <class T>
__global__ void dot_partial_kernel(const T *a, const T *b, T *partial, size_t n) {
    T sum = 0;
    for (size_t i = first_index(); i < n; i += size_t(gridDim.x) * blockDim.x) sum += a[i] * b[i];
    sum = block_sum(sum);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}
// Dot, second pass: one block sums the partials into *total, which stays on the device.
template <class T>
__global__ void dot_final_kernel(const T *partial, unsigned count, T *total) {
    T sum = 0;
    for (unsigned i = threadIdx.x; i < count; i += kBlock) sum += partial[i];
    sum = block_sum(sum);
    if (threadIdx.x == 0) *total = sum;
}

// One check of verify(): its error and the bound it is compared with.
struct Check {
    const char *name;
    double error, tolerance;
    double ratio() const { return error / tolerance; }
};

// The largest relative error of `values` against `expected`; NaN counts as infinite.
template <class T>
double worst_relative_error(const std::vector<T> &values, T expected) {
    double worst = 0;
    for (T value : values) {
        const double error = std::fabs(double(value) - double(expected)) / std::fabs(double(expected));
        worst = std::isnan(error) ? std::numeric_limits<double>::infinity() : std::max(worst, error);
    }
    return worst;
}

// What the plugin class calls, for either element type.
class Stream {
public:
    virtual ~Stream() = default;
    virtual void reset() = 0;
    virtual void run() = 0;
    virtual gpubench::Verification verify() = 0;
};

template <class T>
class StreamOf final : public Stream {
public:
    StreamOf(const gpubench::Setup &setup, size_t n)
        : n_(n), stream_(gpubench::cuda::stream_of(setup)), a_(n), b_(n), c_(n) {
        int sms = 0;
        GPUBENCH_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, setup.cuda_device));
        dot_blocks_ = static_cast<unsigned>(std::clamp<size_t>(blocks(), 1, size_t(sms) * 4));
        partial_ = gpubench::cuda::DeviceBuffer<T>(dot_blocks_);
        total_ = gpubench::cuda::DeviceBuffer<T>(1);
        reset();
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
    }

    // Untimed: the starting values again, as run() overwrote them.
    void reset() override {
        init_kernel<<<blocks(), kBlock, 0, stream_>>>(a_.data(), b_.data(), c_.data(), T(kStartA),
                                                      T(kStartB), T(kStartC), n_);
        gpubench::cuda::check_launch("init_kernel");
    }

    // Timed: one BabelStream iteration, every kernel on the runner's stream, nothing waited for.
    void run() override {
        T *a = a_.data(), *b = b_.data(), *c = c_.data();
        const T scalar = T(kScalar);
        copy_kernel<<<blocks(), kBlock, 0, stream_>>>(a, c, n_);
        mul_kernel<<<blocks(), kBlock, 0, stream_>>>(b, c, scalar, n_);
        add_kernel<<<blocks(), kBlock, 0, stream_>>>(a, b, c, n_);
        triad_kernel<<<blocks(), kBlock, 0, stream_>>>(a, b, c, scalar, n_);
        dot_partial_kernel<<<dot_blocks_, kBlock, 0, stream_>>>(a, b, partial_.data(), n_);
        dot_final_kernel<<<1, kBlock, 0, stream_>>>(partial_.data(), dot_blocks_, total_.data());
        gpubench::cuda::check_launch("babelstream kernels");
    }

    // Untimed, may block: copies the arrays and the dot back on the runner's stream (ordered
    // after the last run()), waits, and checks them against one iteration's closed form.
    gpubench::Verification verify() override {
        T a = T(kStartA), b = T(kStartB), c = T(kStartC);  // BabelStream's recurrence, once
        const T scalar = T(kScalar);
        c = a, b = scalar * c, c = a + b, a = b + scalar * c;
        const double eps = std::numeric_limits<T>::epsilon();
        // Summing n positive terms in this order rounds at most `depth` times along any path.
        const double depth = double(n_ / (size_t(dot_blocks_) * kBlock) + 1) + 2 * 8 +
                             double(dot_blocks_ / kBlock + 1) + 1;
        const double dot_expected = double(a) * double(b) * double(n_);
        std::vector<Check> checks = {{"a", element_error(a_, a), 2 * eps},
                                     {"b", element_error(b_, b), 2 * eps},
                                     {"c", element_error(c_, c), 2 * eps},
                                     {"dot", dot_error(dot_expected), depth * eps}};
        const Check &worst = *std::max_element(
            checks.begin(), checks.end(),
            [](const Check &x, const Check &y) { return x.ratio() < y.ratio(); });
        gpubench::Verification v;
        v.max_error = worst.error;  // the pair of the check nearest its bound (or beyond it)
        v.tolerance = worst.tolerance;
        v.passed = std::all_of(checks.begin(), checks.end(),
                               [](const Check &x) { return x.error <= x.tolerance; });
        v.checked = 3 * n_ + 1;
        v.detail = std::string("worst: ") + worst.name + "; relative errors of a, b, c (each " +
                   std::to_string(n_) + " elements, bound 2 eps) and of dot (bound " +
                   std::to_string(static_cast<long>(depth)) + " eps) after one iteration";
        return v;
    }

private:
    unsigned blocks() const { return static_cast<unsigned>((n_ + kBlock - 1) / kBlock); }

    double element_error(const gpubench::cuda::DeviceBuffer<T> &array, T expected) {
        std::vector<T> host(n_);
        GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(host.data(), array.data(), array.bytes(),
                                            cudaMemcpyDeviceToHost, stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return worst_relative_error(host, expected);
    }
    double dot_error(double expected) {
        T total = 0;
        GPUBENCH_CUDA_CHECK(
            cudaMemcpyAsync(&total, total_.data(), sizeof total, cudaMemcpyDeviceToHost, stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
        const double error = std::fabs(double(total) - expected) / expected;
        return std::isnan(error) ? std::numeric_limits<double>::infinity() : error;
    }

    size_t n_;
    cudaStream_t stream_;
    unsigned dot_blocks_ = 1;
    gpubench::cuda::DeviceBuffer<T> a_, b_, c_, partial_, total_;
};

}  // namespace

class BabelStream {
public:
    explicit BabelStream(const gpubench::Setup &setup) {
        const size_t n = gpubench::checked_size(info, setup.size);
        if (dtype_of(setup.params) == Dtype::float32)
            stream_ = std::make_unique<StreamOf<float>>(setup, n);
        else
            stream_ = std::make_unique<StreamOf<double>>(setup, n);
    }

    // One iteration: copy, mul and dot move 2n elements, add and triad 3n; mul and add do n
    // flops, triad and dot 2n. The element count is the size, in n.
    static gpubench::Work work(uint64_t n, const gpubench::Params &params) {
        const bool single = dtype_of(params) == Dtype::float32;
        const double bytes_per_element = single ? sizeof(float) : sizeof(double), size = double(n);
        gpubench::Work w;
        w.bytes = (2 + 2 + 3 + 3 + 2) * size * bytes_per_element;
        w.flops = (1 + 1 + 2 + 2) * size;
        w.items = size;
        w.device_bytes = 3 * size * bytes_per_element;  // a, b, c (the partial sums are tiny)
        w.host_bytes = size * bytes_per_element;        // verify()'s copy of one array
        w.math = single ? GPUBENCH_MATH_FP32 : GPUBENCH_MATH_FP64;
        return w;
    }

    void reset() { stream_->reset(); }
    void run() { stream_->run(); }
    gpubench::Verification verify() { return stream_->verify(); }

private:
    std::unique_ptr<Stream> stream_;
};

GPUBENCH_PLUGIN(BabelStream, info)
