// The library one-liner: thrust::transform with thrust::plus over raw device pointers, on
// the runner's stream. par_nosync: no synchronisation at the end (the runner waits itself);
// transform needs no temporary storage, so nothing is allocated in the timed run.
#include "vecadd_gpu.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

namespace {

const gpubench::BackendSpec kThrust{
    "vecadd_thrust", "thrust", GPUBENCH_DEVICE_CUDA,
    "c = a + b with thrust::transform(thrust::plus) on the runner's stream; up to 1e9 "
    "elements (12 GB)",
    1'000'000'000, {1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000}};

struct AddOne {
    __host__ __device__ float operator()(float x) const { return x + 1.0f; }
};

class ThrustKernel {
public:
    ThrustKernel(size_t n, const gpubench::Setup &setup, vecadd::Variant)
        : n_(n), stream_(gpubench::cuda::stream_of(setup)) {}

    void add(const float *a, const float *b, float *c) {
        thrust::transform(thrust::cuda::par_nosync.on(stream_), a, a + n_, b, c,
                          thrust::plus<float>());
        gpubench::cuda::check_launch("thrust::transform");
    }
    void increment(float *c) {
        thrust::transform(thrust::cuda::par_nosync.on(stream_), c, c + n_, c, AddOne());
        gpubench::cuda::check_launch("thrust::transform");
    }

private:
    size_t n_;
    cudaStream_t stream_;
};

using ThrustPlugin = gpubench::cuda::DeviceProblem<vecadd::DeviceArrays<kThrust, ThrustKernel>>;

}  // namespace

GPUBENCH_PLUGIN(ThrustPlugin, vecadd::make_info(kThrust))
