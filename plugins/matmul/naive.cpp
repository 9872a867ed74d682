// The baseline: the textbook i-j-k triple loop on one thread, accumulating in T.
#include "matmul_common.hpp"

namespace {

const gpubench::BackendSpec kNaive{
    "matmul_naive", "naive", GPUBENCH_DEVICE_CPU,
    "C = A*B, the plain i-j-k triple loop on one CPU thread (the baseline; N > 2048 takes "
    "minutes, so max_size is 2048)",
    2048, {64, 128, 256, 512}};

template <class T>
class NaiveKernel {
public:
    NaiveKernel(size_t n, const gpubench::Setup &) : n_(n) {}

    void multiply(const T *a, const T *b, T *c) const {
        for (size_t i = 0; i < n_; ++i)
            for (size_t j = 0; j < n_; ++j) {
                T sum = 0;
                for (size_t k = 0; k < n_; ++k) sum += a[i * n_ + k] * b[k * n_ + j];
                c[i * n_ + j] = sum;
            }
    }

private:
    size_t n_;
};

template <class T>
using NaiveProblem = matmul::HostProblem<T, NaiveKernel<T>>;
using NaivePlugin = matmul::Plugin<kNaive, NaiveProblem>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, matmul::make_info(kNaive))
