// The baseline: the textbook i-j-k triple loop on one thread, accumulating in T.
#include "matmul_common.hpp"

namespace {

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
using NaivePlugin = matmul::Plugin<matmul::Backend::naive, NaiveProblem>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, matmul::make_info(matmul::Backend::naive))
