// @WORKLOAD@_omp: y = a*x on the CPU, an OpenMP loop over the threads the runner gives it.
#include "workload.hpp"

#include <vector>

namespace {

const gpubench::Info info =
    workload::info("@WORKLOAD@_omp", "omp", GPUBENCH_DEVICE_CPU, "y = a*x, OpenMP parallel loop");

}  // namespace

class OmpBackend {
public:
    // create(): untimed. checked_size: a size outside the descriptor's range is NotSupported.
    explicit OmpBackend(const gpubench::Setup &setup)
        : a_(workload::scale(setup.params)),
          threads_(setup.threads()),
          x_(gpubench::checked_size(info, setup.size)),
          y_(setup.size) {
        workload::make_inputs(setup.seed, x_.size(), x_.data());
    }

    static gpubench::Work work(uint64_t size, const gpubench::Params &params) {
        return workload::work(size, params, false);
    }

    // The timed part. The parallel region ends with a barrier: no work outlives run().
    void run() {
        const float a = a_;
        const float *x = x_.data();
        float *y = y_.data();
        const long long n = static_cast<long long>(x_.size());
#pragma omp parallel for num_threads(threads_) schedule(static)
        for (long long i = 0; i < n; ++i) y[i] = a * x[i];
    }

    gpubench::Verification verify() { return workload::verify(a_, x_.data(), y_.data(), x_.size()); }

private:
    float a_;
    int threads_;
    std::vector<float> x_, y_;
};

GPUBENCH_PLUGIN(OmpBackend, info)
