// The skeleton of a CUDA plugin, written once: host arrays in page-locked memory beside their
// device copies, the timed transfers on the runner's stream, the poisoned outputs and the
// waits of the untimed phases. A problem then holds only what is its own: its arrays, how
// it fills them, its kernel and its check. Header-only, C++20; include from .cu files.
//
//   class Saxpy {
//   public:
//       explicit Saxpy(const gpubench::Setup &setup);  // allocate, fill x_.host and y_.host
//       auto arrays() { return std::tie(x_, y_, out_); }
//       void run();                                     // out_.device from x_.device and
//                                                       // y_.device, on the runner's stream
//       gpubench::Verification verify();                // checks out_.host
//       static gpubench::Work work(uint64_t size, const gpubench::Params &params);
//   private:
//       gpubench::cuda::Input<float> x_, y_;
//       gpubench::cuda::Output<float> out_;
//   };
//   GPUBENCH_PLUGIN(gpubench::cuda::DeviceProblem<Saxpy>, gpubench::Info{...})
#pragma once

// gpubench_add_plugin asks for C++17 at least; this header's concepts need C++20.
#if __cplusplus < 202002L
#error "gpubench/device_problem.hpp needs C++20: set_target_properties(<plugin> PROPERTIES CUDA_STANDARD 20) or target_compile_features(<plugin> PRIVATE cuda_std_20)"
#endif

#include <gpubench/cuda.hpp>

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpubench::cuda {

// A host array in page-locked memory (transfers at full link speed, on equal terms for every
// plugin) and its device copy, of the same length. Its role is its type: an Input, an Output
// or an InPlace output. Empty ones cost no call: an array this configuration does not use.
template <class T>
struct MirroredBuffer {
    explicit MirroredBuffer(size_t count) : host(count), device(count) {}

    PinnedBuffer<T> host;
    DeviceBuffer<T> device;
};

// Made on the host at create; upload() copies it to the device.
template <class T>
struct Input : MirroredBuffer<T> {
    using MirroredBuffer<T>::MirroredBuffer;
    explicit Input(const std::vector<T> &values) : MirroredBuffer<T>(values.size()) {
        std::copy(values.begin(), values.end(), this->host.data());
    }
    void upload(cudaStream_t stream) {
        if (this->host.size()) copy_async(this->device, this->host, stream);
    }
};

// Written by run() on the device; download() copies it to the host. Its device side is
// poisoned at create, all bytes 0xFF (a NaN in float and double, the largest integer), so
// that values run() never writes fail verification; the download copies it whole, so the
// host side needs no poison.
template <class T>
struct Output : MirroredBuffer<T> {
    using MirroredBuffer<T>::MirroredBuffer;
    void poison(cudaStream_t stream) {
        if (this->host.size())
            GPUBENCH_CUDA_CHECK(
                cudaMemsetAsync(this->device.data(), 0xFF, this->device.bytes(), stream));
    }
    void download(cudaStream_t stream) {
        if (this->host.size()) copy_async(this->host, this->device, stream);
    }
};

// An output that run() works on in place, starting from an input of the same length: reset()
// restores it from that input's device side before every run. With no input (this
// configuration leaves its inputs alone) it is an ordinary output.
template <class T>
struct InPlace : Output<T> {
    InPlace(size_t count, const Input<T> *pristine) : Output<T>(count), pristine(pristine) {}
    void restore(cudaStream_t stream) {
        if (pristine && this->host.size())
            GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(this->device.data(), pristine->device.data(),
                                                this->device.bytes(), cudaMemcpyDeviceToDevice,
                                                stream));
    }

    const Input<T> *pristine;
};

// An input matrix, rows of `width` elements packed on the host and padded with zeros to
// `pitch` elements on the device, so that a kernel may copy rows in aligned vectors.
template <class T>
struct InputRows {
    InputRows(size_t rows, size_t width, size_t pitch, cudaStream_t stream)
        : width(width), pitch(pitch), host(rows * width), device(rows * pitch) {
        GPUBENCH_CUDA_CHECK(cudaMemsetAsync(device.data(), 0, device.bytes(), stream));
    }
    void upload(cudaStream_t stream) {
        if (host.size())
            GPUBENCH_CUDA_CHECK(cudaMemcpy2DAsync(device.data(), pitch * sizeof(T), host.data(),
                                                  width * sizeof(T), width * sizeof(T),
                                                  host.size() / width, cudaMemcpyHostToDevice,
                                                  stream));
    }

    size_t width, pitch;
    PinnedBuffer<T> host;
    DeviceBuffer<T> device;
};

template <class Array>
concept Uploaded = requires(Array &array, cudaStream_t stream) { array.upload(stream); };
template <class Array>
concept Restored = requires(Array &array, cudaStream_t stream) { array.restore(stream); };

// Which roles a std::tie of arrays holds.
template <class Arrays>
struct Roles;
template <class... Array>
struct Roles<std::tuple<Array &...>> {
    static constexpr bool inputs = (Uploaded<Array> || ...);
    static constexpr bool in_place = (Restored<Array> || ...);
};

// The plugin class around a problem on the device (see the top of this file). Problem is
// constructed from (setup, arguments...) and provides
//   arrays()  a std::tie of its Inputs, Outputs and InPlace outputs;
//   run()     the computation, enqueued on stream_of(setup) without allocating;
//   verify()  the check of the outputs' host sides, called once the download has landed;
// and, where it has them, metrics() and the static work(size, params). It defines no
// upload, reset or download: this class does, with upload only where there are inputs and
// reset only where an output is worked on in place.
template <class Problem>
class DeviceProblem : public Problem {
    using Held = Roles<decltype(std::declval<Problem &>().arrays())>;

public:
    template <class... Arguments>
    explicit DeviceProblem(const Setup &setup, Arguments &&...arguments)
        : Problem(setup, std::forward<Arguments>(arguments)...), stream_(stream_of(setup)) {
        each([&](auto &array) -> decltype(array.poison(stream_)) { array.poison(stream_); });
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // create may block
    }

    void upload()
        requires Held::inputs
    {
        each([&](auto &array) -> decltype(array.upload(stream_)) { array.upload(stream_); });
    }
    void reset()
        requires Held::in_place
    {
        each([&](auto &array) -> decltype(array.restore(stream_)) { array.restore(stream_); });
    }
    void download() {
        each([&](auto &array) -> decltype(array.download(stream_)) { array.download(stream_); });
    }
    Verification verify() {
        GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the download has landed
        return Problem::verify();
    }

private:
    // Calls `action` on each array it applies to.
    template <class Action>
    void each(Action action) {
        std::apply([&](auto &...array) { (apply_to(action, array), ...); }, Problem::arrays());
    }
    template <class Action, class Array>
    static void apply_to(Action &action, Array &array) {
        if constexpr (std::is_invocable_v<Action &, Array &>) action(array);
    }

    cudaStream_t stream_;
};

}  // namespace gpubench::cuda
