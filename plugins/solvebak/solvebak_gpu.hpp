// solvebak's CUDA problem (include from .cu files only): X, y, |X_j|^2 and a mirrored on the
// device, the start of a run (e = y, a = 0 on the device) and the graph of one iteration.
#pragma once

#include "solvebak_common.hpp"

#include <gpubench/cuda_graph.hpp>
#include <gpubench/device_problem.hpp>

namespace solvebak {

template <class T>
struct DeviceData {  // the device arrays a solver works on
    const T *x, *x_x;  // X column-major, |X_j|^2
    T *e, *a;          // the residual, the result
};

// Solver<T> is constructed from (config, setup, device data, the stream it enqueues on);
// begin_run(runner_stream) resets its own state at the start of a run and enqueue_iteration()
// one sweep over the columns on its stream (with graph=1 the capture stream, once, here).
template <class T, class Solver>
class DeviceArrays {
public:
    DeviceArrays(const gpubench::Setup &setup, const Config &config)
        : c_(config), stream_(gpubench::cuda::stream_of(setup)),
          graph_(parse_graph(setup.params)), verifier_(config, setup.cpu_threads), e_(config.obs),
          x_(config.obs * config.vars), y_(config.obs), x_x_(config.vars), a_(config.vars),
          solver_(config, setup,
                  {x_.device.data(), x_x_.device.data(), e_.data(), a_.device.data()},
                  graph_.wanted() ? graph_.capture_stream() : stream_) {
        fill_inputs(config, setup.seed, setup.cpu_threads, x_.host.data(), y_.host.data(),
                    x_x_.host.data(), verifier_.a_true());
        graph_.capture([&] { solver_.enqueue_iteration(); });
    }
    auto arrays() { return std::tie(x_, y_, x_x_, a_); }
    // a = 0, e = y (device to device): part of the solver, so timed.
    void run() {
        GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(e_.data(), y_.device.data(), y_.device.bytes(),
                                            cudaMemcpyDeviceToDevice, stream_));
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(a_.device.data(), 0, a_.device.bytes(), stream_));
        solver_.begin_run(stream_);
        graph_.run(stream_, c_.iterations, [&] { solver_.enqueue_iteration(); });
    }
    gpubench::Verification verify() {
        return verifier_.verify(x_.host.data(), y_.host.data(), x_x_.host.data(), a_.host.data());
    }
    std::vector<gpubench::Metric> metrics() const { return verifier_.metrics(); }

private:
    Config c_;
    cudaStream_t stream_;
    gpubench::cuda::CapturedGraph graph_;  // before the solver, which may enqueue on its stream
    Verifier<T> verifier_;
    gpubench::cuda::DeviceBuffer<T> e_;  // the residual, y at the start of a run
    gpubench::cuda::Input<T> x_, y_, x_x_;
    gpubench::cuda::Output<T> a_;
    Solver solver_;
};

}  // namespace solvebak
