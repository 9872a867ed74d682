// The GPU side shared by ann's CUDA backends (include from .cu files only): pinned host copies
// of the inputs and outputs, their device copies and the timed transfers on the runner's
// stream. A CUDA backend (cuda.cu, cublas.cu) is then one Trainer and one CMake line:
//
//   class CublasTrainer {
//   public:
//       CublasTrainer(const ann::Task &task, const gpubench::Setup &setup);
//       static double scratch_bytes(uint64_t obs);  // its own device memory (H, H^T H...)
//       void train(const ann::TrainingData &data, const ann::Model &model);  // device pointers
//   };
//   using CublasPlugin = ann::DevicePlugin<kCublas, CublasTrainer>;
//   GPUBENCH_PLUGIN(CublasPlugin, ann::make_info(kCublas))
#pragma once

#include "ann_common.hpp"

#include <gpubench/cuda.hpp>

#include <algorithm>
#include <limits>
#include <vector>

namespace ann {

// A page-locked copy of host values, for timed uploads at full link speed.
template <class T>
gpubench::cuda::PinnedBuffer<T> pinned_copy(const std::vector<T> &values) {
    gpubench::cuda::PinnedBuffer<T> copy(values.size());
    std::copy(values.begin(), values.end(), copy.data());
    return copy;
}

// gram (kNeurons x kNeurons; only its diagonal is touched, so either storage order) gets
// kRidge * trace(gram) / kNeurons added to its diagonal. One block of kRidgeThreads, the
// trace summed in a fixed tree. Internal linkage: each backend's .so has its own copy.
constexpr int kRidgeThreads = 256;
static __global__ void __launch_bounds__(kRidgeThreads) add_ridge(double *gram) {
    __shared__ double partial[kRidgeThreads];
    double sum = 0;
    for (int k = threadIdx.x; k < int(kNeurons); k += kRidgeThreads)
        sum += gram[size_t(k) * (kNeurons + 1)];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = kRidgeThreads / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    const double ridge = kRidge * partial[0] / double(kNeurons);
    for (int k = threadIdx.x; k < int(kNeurons); k += kRidgeThreads)
        gram[size_t(k) * (kNeurons + 1)] += ridge;
}

// The class GPUBENCH_PLUGIN wraps for CUDA backends. Trainer is constructed from (task, setup)
// and called as trainer.train(data, model) with device pointers (the inputs and subsets every
// backend gets); it enqueues one whole training and the test predictions on
// gpubench::cuda::stream_of(setup), without synchronising or allocating.
template <const gpubench::BackendSpec &Spec, class Trainer>
class DevicePlugin {
public:
    explicit DevicePlugin(const gpubench::Setup &setup)
        : task_(Spec, setup), stream_(gpubench::cuda::stream_of(setup)),
          x_host_(pinned_copy(task_.x())), y_host_(pinned_copy(task_.y())),
          x_test_host_(pinned_copy(task_.x_test())), subsets_host_(pinned_copy(task_.subsets())),
          w_host_(kWeights), v_host_(kNeurons), predictions_host_(task_.obs()),
          x_(x_host_.size()), y_(y_host_.size()), x_test_(x_test_host_.size()),
          subsets_(subsets_host_.size()), w_(kWeights), v_(kNeurons), predictions_(task_.obs()),
          trainer_(task_, setup) {
        constexpr double nan = std::numeric_limits<double>::quiet_NaN();
        for (auto *host : {&w_host_, &v_host_, &predictions_host_})
            std::fill(host->data(), host->data() + host->size(), nan);
        // All bytes 0xFF is a double NaN: outputs a training never writes fail verify().
        for (auto *device : {&w_, &v_, &predictions_})
            GPUBENCH_CUDA_CHECK(cudaMemsetAsync(device->data(), 0xFF, device->bytes(), stream_));
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
    }
    static gpubench::Work work(uint64_t obs, const gpubench::Params &) {
        return make_work(Spec, obs, Trainer::scratch_bytes(obs));
    }

    void upload() {
        gpubench::cuda::copy_async(x_, x_host_, stream_);
        gpubench::cuda::copy_async(y_, y_host_, stream_);
        gpubench::cuda::copy_async(x_test_, x_test_host_, stream_);
        gpubench::cuda::copy_async(subsets_, subsets_host_, stream_);
    }
    void run() {
        TrainingData data = task_.data();  // the sizes; the arrays on the device
        data.x = x_.data();
        data.y = y_.data();
        data.x_test = x_test_.data();
        data.subsets = subsets_.data();
        trainer_.train(data, Model{w_.data(), v_.data(), predictions_.data()});
    }
    void download() {
        gpubench::cuda::copy_async(w_host_, w_, stream_);
        gpubench::cuda::copy_async(v_host_, v_, stream_);
        gpubench::cuda::copy_async(predictions_host_, predictions_, stream_);
    }

    gpubench::Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the download has landed
        return task_.verify(w_host_.data(), v_host_.data(), predictions_host_.data());
    }
    std::vector<gpubench::Metric> metrics() const { return task_.metrics(); }

private:
    Task task_;
    cudaStream_t stream_;
    gpubench::cuda::PinnedBuffer<double> x_host_, y_host_, x_test_host_;
    gpubench::cuda::PinnedBuffer<int64_t> subsets_host_;
    gpubench::cuda::PinnedBuffer<double> w_host_, v_host_, predictions_host_;
    gpubench::cuda::DeviceBuffer<double> x_, y_, x_test_;
    gpubench::cuda::DeviceBuffer<int64_t> subsets_;
    gpubench::cuda::DeviceBuffer<double> w_, v_, predictions_;
    Trainer trainer_;
};

}  // namespace ann
