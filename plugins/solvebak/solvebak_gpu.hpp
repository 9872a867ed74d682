// The GPU side shared by the CUDA backends (include from .cu files only): pinned host inputs,
// their device copies, the timed transfers, the start of a run (e = y, a = 0 on the device)
// and the optional CUDA graph of one iteration.
#pragma once

#include "solvebak_common.hpp"

#include <gpubench/cuda.hpp>

namespace solvebak {

// The device arrays a solver works on.
template <class T>
struct DeviceData {
    const T *x, *x_x;  // X column-major, |X_j|^2
    T *e, *a;          // the residual, the result
};

// The graph parameter: 1 (default) or 0.
inline bool parse_graph(const gpubench::Params &params) {
    const long long graph = params.get_int("graph", 1);
    if (graph != 0 && graph != 1)
        throw gpubench::InvalidArgument("graph=" + std::to_string(graph) + ": expected 0 or 1");
    return graph == 1;
}

// A stream of the plugin's own, to capture a graph on (capturing the runner's stream would
// change its state); null when not wanted.
class OwnStream {
public:
    explicit OwnStream(bool wanted) {
        if (wanted)
            GPUBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    }
    ~OwnStream() { if (stream_) cudaStreamDestroy(stream_); }
    OwnStream(const OwnStream &) = delete;
    OwnStream &operator=(const OwnStream &) = delete;
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

// One iteration's launches, captured once and replayed: a few hundred to thousands of small
// kernels cost one launch call instead of one each.
class IterationGraph {
public:
    IterationGraph() = default;
    ~IterationGraph() {
        if (exec_) cudaGraphExecDestroy(exec_);
        if (graph_) cudaGraphDestroy(graph_);
    }
    IterationGraph(const IterationGraph &) = delete;
    IterationGraph &operator=(const IterationGraph &) = delete;

    template <class Enqueue>
    void capture(cudaStream_t stream, Enqueue &&enqueue) {
        GPUBENCH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        try {
            enqueue();
        } catch (...) {
            cudaGraph_t partial = nullptr;
            cudaStreamEndCapture(stream, &partial);
            if (partial) cudaGraphDestroy(partial);
            throw;
        }
        GPUBENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
        GPUBENCH_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }
    void launch(cudaStream_t stream) { GPUBENCH_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

private:
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};

// Solver<T> is constructed from (config, setup, device data, the stream it enqueues on) and
// has begin_run(runner_stream), which resets its own state at the start of a run, and
// enqueue_iteration(), which enqueues one sweep over the columns on its stream. With
// graph=1 that stream is a private one and the sweep is captured once, here.
template <class T, class Solver>
class DeviceProblem {
public:
    DeviceProblem(const Config &config, const gpubench::Setup &setup)
        : c_(config),
          stream_(gpubench::cuda::stream_of(setup)),
          use_graph_(parse_graph(setup.params)),
          capture_stream_(use_graph_),
          verifier_(config, setup.cpu_threads),
          x_host_(config.obs * config.vars), y_host_(config.obs), x_x_host_(config.vars),
          a_host_(config.vars),
          x_(config.obs * config.vars), y_(config.obs), x_x_(config.vars), e_(config.obs),
          a_(config.vars),
          solver_(config, setup, DeviceData<T>{x_.data(), x_x_.data(), e_.data(), a_.data()},
                  use_graph_ ? capture_stream_.get() : stream_) {
        fill_inputs(config, setup.seed, setup.cpu_threads, x_host_.data(), y_host_.data(),
                    x_x_host_.data(), verifier_.a_true());
        poison(a_host_.data(), a_host_.size());
        // All bytes 0xFF is a NaN in float and double: a result never written fails verify.
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(a_.data(), 0xFF, a_.bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(e_.data(), 0xFF, e_.bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
        if (use_graph_) graph_.capture(capture_stream_.get(), [&] { solver_.enqueue_iteration(); });
    }

    void upload() {
        gpubench::cuda::copy_async(x_, x_host_, stream_);
        gpubench::cuda::copy_async(y_, y_host_, stream_);
        gpubench::cuda::copy_async(x_x_, x_x_host_, stream_);
    }
    // a = 0, e = y (device to device): part of the solver, so timed.
    void run() {
        GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(e_.data(), y_.data(), y_.bytes(),
                                            cudaMemcpyDeviceToDevice, stream_));
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(a_.data(), 0, a_.bytes(), stream_));
        solver_.begin_run(stream_);
        for (size_t iteration = 0; iteration < c_.iterations; ++iteration) {
            if (use_graph_)
                graph_.launch(stream_);
            else
                solver_.enqueue_iteration();
        }
    }
    void download() { gpubench::cuda::copy_async(a_host_, a_, stream_); }

    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the download has landed
        return verifier_.verify(x_host_.data(), y_host_.data(), x_x_host_.data(),
                                a_host_.data());
    }
    std::vector<gpubench::Metric> metrics() const { return verifier_.metrics(); }

private:
    Config c_;
    cudaStream_t stream_;
    bool use_graph_;
    OwnStream capture_stream_;
    Verifier<T> verifier_;
    gpubench::cuda::PinnedBuffer<T> x_host_, y_host_, x_x_host_, a_host_;
    gpubench::cuda::DeviceBuffer<T> x_, y_, x_x_, e_, a_;
    Solver solver_;
    IterationGraph graph_;
};

}  // namespace solvebak
