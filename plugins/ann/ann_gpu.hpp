// ann's CUDA problem (include from .cu files only): inputs and outputs mirrored on the device.
#pragma once

#include "ann_common.hpp"

#include <gpubench/device_problem.hpp>

namespace ann {

// A CUDA backend is one Trainer, constructed from (task, setup) and called as
// trainer.train(data, model) with device pointers: it enqueues one whole training and the test
// predictions on the runner's stream, without synchronising or allocating. Its static
// scratch_bytes(obs) is its own device memory (H, H^T H...).
template <const gpubench::BackendSpec &Spec, class Trainer>
class DeviceArrays {
public:
    explicit DeviceArrays(const gpubench::Setup &setup)
        : task_(Spec, setup), x_(task_.x()), y_(task_.y()), x_test_(task_.x_test()),
          subsets_(task_.subsets()), w_(kWeights), v_(kNeurons), predictions_(task_.obs()),
          trainer_(task_, setup) {}
    static gpubench::Work work(uint64_t obs, const gpubench::Params &) {
        return make_work(Spec, obs, Trainer::scratch_bytes(obs));
    }
    auto arrays() { return std::tie(x_, y_, x_test_, subsets_, w_, v_, predictions_); }
    void run() {
        const TrainingData sizes = task_.data();  // the arrays are the device copies
        trainer_.train({sizes.obs, sizes.rows_per_neuron, x_.device.data(), y_.device.data(),
                        x_test_.device.data(), subsets_.device.data()},
                       {w_.device.data(), v_.device.data(), predictions_.device.data()});
    }
    gpubench::Verification verify() {
        return task_.verify(w_.host.data(), v_.host.data(), predictions_.host.data());
    }
    std::vector<gpubench::Metric> metrics() const { return task_.metrics(); }

private:
    Task task_;
    gpubench::cuda::Input<double> x_, y_, x_test_;
    gpubench::cuda::Input<int64_t> subsets_;
    gpubench::cuda::Output<double> w_, v_, predictions_;
    Trainer trainer_;
};

}  // namespace ann
