// Device work captured once as a CUDA graph and replayed on the runner's stream: hundreds to
// thousands of small launches then cost one launch call each. Header-only; include from .cu
// files.
#pragma once

#include <gpubench/cuda.hpp>

namespace gpubench::cuda {

// The capture runs on a stream of the graph's own, made only when replay is wanted:
// capturing the runner's stream would change its state. Nothing runs on that stream while it
// captures; the replays run on the stream launch() is given.
class CapturedGraph {
public:
    explicit CapturedGraph(bool wanted) {
        if (wanted)
            GPUBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
    }
    ~CapturedGraph() {
        if (exec_) cudaGraphExecDestroy(exec_);
        if (graph_) cudaGraphDestroy(graph_);
        if (capture_stream_) cudaStreamDestroy(capture_stream_);
    }
    CapturedGraph(const CapturedGraph &) = delete;
    CapturedGraph &operator=(const CapturedGraph &) = delete;

    bool wanted() const { return capture_stream_ != nullptr; }
    // Where the work to capture is enqueued; null when replay is not wanted.
    cudaStream_t capture_stream() const { return capture_stream_; }

    // Records what enqueue() enqueues on capture_stream(), where replay is wanted.
    template <class Enqueue>
    void capture(Enqueue &&enqueue) {
        if (!wanted()) return;
        GPUBENCH_CUDA_CHECK(
            cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeThreadLocal));
        try {
            enqueue();
        } catch (...) {
            cudaGraph_t partial = nullptr;
            cudaStreamEndCapture(capture_stream_, &partial);
            if (partial) cudaGraphDestroy(partial);
            throw;
        }
        GPUBENCH_CUDA_CHECK(cudaStreamEndCapture(capture_stream_, &graph_));
        GPUBENCH_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }
    // The work `times` over on `stream`: replays of the captured graph, or else enqueue()
    // itself each time.
    template <class Enqueue>
    void run(cudaStream_t stream, size_t times, Enqueue &&enqueue) {
        for (size_t time = 0; time < times; ++time) {
            if (exec_)
                GPUBENCH_CUDA_CHECK(cudaGraphLaunch(exec_, stream));
            else
                enqueue();
        }
    }

private:
    cudaStream_t capture_stream_ = nullptr;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};

}  // namespace gpubench::cuda
