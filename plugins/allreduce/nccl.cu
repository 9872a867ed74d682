// allreduce_nccl: an NCCL all-reduce (sum) across GPUs, each device's collective enqueued on
// that device's runner stream, this process's devices in one group. Either from one process
// across every GPU the run selected (--devices), or, with ranks launched together (mpirun,
// srun: ABI 1.7), across the ranks, each with its GPU (nccl_comms.hpp): across hosts, as
// nccl-tests does. size = bytes per GPU, summed as float32 (a last 1 to 3 bytes as uint8), out
// of place so that run() can repeat.
//
// Throughput as nccl-tests defines it, for n GPUs in all and a time t:
//   algorithm bandwidth algbw = size / t                  -> items/s (items are bytes)
//   bus bandwidth       busbw = algbw x 2(n-1)/n          -> bytes/s (GB/s)
// busbw is what each GPU's links carry per direction in a ring, comparable across GPU counts:
// declared as crossing the interconnect, so that the runner holds it to the NVLink (or PCIe)
// peak, not to the memory. On one GPU there is nothing to reduce across: skipped.
//
// The inputs are small integers in [-8, 8] (bytes of the tail: 0 to 3), so every sum is exact
// in float32 whatever order NCCL reduces in, and every element of this process's GPUs is
// checked exactly against the sum of every GPU's inputs, which each rank can compute: GPU g's
// are a pure function of (seed, g).
#include "nccl_comms.hpp"
#include "random_inputs.hpp"

#include <gpubench/cuda.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using allreduce::check_nccl;
using gpubench::cuda::CurrentDevice;
using gpubench::cuda::DeviceBuffer;
using gpubench::cuda::PinnedBuffer;

constexpr uint32_t kMaxDevices = 64;  // |sum| <= 8 x 64: exact in float32, a tail byte too

const gpubench::Info info{
    "allreduce_nccl", "allreduce", "nccl", GPUBENCH_DEVICE_CUDA,
    "NCCL all-reduce (sum, out of place) across GPUs: from one process over the selected GPUs, "
    "or one process per GPU across ranks launched together (mpirun, srun; across hosts), NVLink "
    "multicast off; as nccl-tests: items/s = algorithm bandwidth (bytes per GPU / time), GB/s = "
    "bus bandwidth (algbw x 2(n-1)/n for n GPUs) against the NVLink or PCIe peak; needs 2 GPUs",
    "bytes per GPU: float32 elements summed across the GPUs (a last 1-3 bytes as uint8)", "1.1",
    "", 1, 8ull << 30,
    {4ull << 10, 64ull << 10, 1ull << 20, 8ull << 20, 32ull << 20, 128ull << 20, 512ull << 20,
     2ull << 30, 4ull << 30},
    "bytes", GPUBENCH_HEADLINE_AUTO, "", kMaxDevices};

// Element i of GPU g's input (key: stream_key(seed, g)): an integer in [-8, 8] as a float32.
float input_float(uint64_t key, uint64_t i) {
    return static_cast<float>(static_cast<int>(gpubench::inputs::bits(key, i) % 17) - 8);
}
// Tail byte i (counted from the buffer's start) of GPU g's input: 0 to 3.
unsigned char input_byte(uint64_t key, uint64_t i) {
    return static_cast<unsigned char>(gpubench::inputs::bits(key, i) % 4);
}

// One of this process's GPUs: the runner's stream for it, its buffers on the device and the
// pinned host copies of its input and of its result.
struct Gpu {
    int device = 0;
    cudaStream_t stream = nullptr;
    PinnedBuffer<unsigned char> input, result;
    DeviceBuffer<unsigned char> send, receive;
};

// What verify() found in one slice of the elements.
struct Check {
    uint64_t wrong = 0, first = 0;
    size_t first_gpu = 0;
    double max_error = 0;
};

class NcclAllReduce {
public:
    explicit NcclAllReduce(const gpubench::Setup &setup)
        : bytes_(gpubench::checked_size(info, setup.size)), floats_(bytes_ / 4),
          gpus_(setup.cuda_devices.size()), threads_(setup.threads()) {
        if (gpus_.empty() || setup.cuda_streams.size() != gpus_.size())
            throw gpubench::Error(GPUBENCH_ERROR, "no CUDA devices or streams given to allreduce_nccl");
        const gpubench::rendezvous::Place place{setup.rendezvous, setup.rank, setup.ranks, setup.rank_timeout_s};
        const size_t all = gpus_.size() * static_cast<size_t>(std::max(setup.ranks, 1));
        if (all < 2) throw gpubench::NotSupported(one_gpu_reason());
        const size_t first = gpus_.size() * static_cast<size_t>(setup.rank);
        for (size_t g = 0; g < all; ++g) keys_.push_back(gpubench::inputs::stream_key(setup.seed, g));
        std::vector<int> devices;
        for (size_t r = 0; r < gpus_.size(); ++r) {
            Gpu &gpu = gpus_[r];
            gpu.device = setup.cuda_devices[r];
            gpu.stream = static_cast<cudaStream_t>(setup.cuda_streams[r]);
            devices.push_back(gpu.device);
            const uint64_t key = keys_[first + r];
            const CurrentDevice on(gpu.device);  // buffers belong to the GPU's device
            gpu.input = PinnedBuffer<unsigned char>(bytes_);
            gpu.result = PinnedBuffer<unsigned char>(bytes_);
            gpu.send = DeviceBuffer<unsigned char>(bytes_);
            gpu.receive = DeviceBuffer<unsigned char>(bytes_);
            float *floats = reinterpret_cast<float *>(gpu.input.data());
            for (size_t i = 0; i < floats_; ++i) floats[i] = input_float(key, i);
            for (size_t i = 4 * floats_; i < bytes_; ++i) gpu.input[i] = input_byte(key, i);
            // All bits set: NaN floats and 255 bytes, which no sum here can be.
            GPUBENCH_CUDA_CHECK(cudaMemsetAsync(gpu.receive.data(), 0xFF, bytes_, gpu.stream));
            GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
        }
        comms_.emplace(devices, place);
    }
    // Finalised when every stream is idle; a run still in flight (a failed entry) is aborted.
    ~NcclAllReduce() {
        bool idle = true;
        for (const Gpu &gpu : gpus_) idle = idle && cudaStreamQuery(gpu.stream) == cudaSuccess;
        cudaGetLastError();  // a stream still busy is not this process's error
        if (comms_) comms_->close(idle);
    }
    NcclAllReduce(const NcclAllReduce &) = delete;
    NcclAllReduce &operator=(const NcclAllReduce &) = delete;

    static std::string one_gpu_reason() {
        return "an all-reduce needs at least 2 GPUs: --devices 0,1 (or all) in one process, or ranks "
               "launched together with a GPU each (mpirun, srun; docs/scale-out.md)";
    }

    static gpubench::Work work(uint64_t size, const gpubench::Params &, int devices, int ranks) {
        const double here = std::max(devices, 1), n = here * std::max(ranks, 1), bytes = static_cast<double>(size);
        if (n < 2) throw gpubench::NotSupported(one_gpu_reason());
        gpubench::Work w;
        w.items = bytes;                    // items/s: algbw
        w.bytes = bytes * 2 * (n - 1) / n;  // bytes/s: busbw, what each GPU's links carry
        w.device_bytes = 2 * bytes;         // per device: send and receive buffers
        w.host_bytes = 2 * bytes * here;    // pinned input and result of this process's GPUs
        // Out of place: the inputs stay as uploaded. Across ranks, run() is one collective
        // with the other ranks.
        w.flags = GPUBENCH_WORK_RUN_REPEATABLE | GPUBENCH_WORK_BYTES_INTERCONNECT |
                  (ranks > 1 ? GPUBENCH_WORK_RUN_ACROSS_RANKS : 0u);
        return w;
    }

    void upload() {
        for (Gpu &gpu : gpus_) {
            const CurrentDevice on(gpu.device);
            gpubench::cuda::copy_async(gpu.send, gpu.input, gpu.stream);
        }
    }
    // One group: this process's parts must be launched together, or the first GPU's would wait
    // for ever for peers not yet launched.
    void run() {
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        ncclResult_t status = ncclSuccess;
        const size_t tail = bytes_ - 4 * floats_;
        const auto ok = [&] { return status == ncclSuccess || status == ncclInProgress; };
        for (size_t r = 0; r < gpus_.size(); ++r) {
            Gpu &gpu = gpus_[r];
            if (floats_ && ok())
                status = ncclAllReduce(gpu.send.data(), gpu.receive.data(), floats_, ncclFloat, ncclSum,
                                       comms_->at(r), gpu.stream);
            if (tail && ok())
                status = ncclAllReduce(gpu.send.data() + 4 * floats_, gpu.receive.data() + 4 * floats_, tail,
                                       ncclUint8, ncclSum, comms_->at(r), gpu.stream);
        }
        const ncclResult_t ended = ncclGroupEnd();  // closed even when a call in it failed
        if (!ok()) check_nccl(status, "ncclAllReduce");
        comms_->end_group(ended, "ncclAllReduce");
    }
    void download() {
        for (Gpu &gpu : gpus_) {
            const CurrentDevice on(gpu.device);
            gpubench::cuda::copy_async(gpu.result, gpu.receive, gpu.stream);
        }
    }

    // Every element of this process's GPUs against the exact sum of every GPU's inputs, in
    // slices on the run's threads.
    gpubench::Verification verify() {
        for (Gpu &gpu : gpus_) GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
        const size_t slices = std::max<size_t>(1, std::min<size_t>(threads_, bytes_ / 4096 + 1));
        std::vector<Check> checks(slices);
        std::vector<std::thread> workers;
        for (size_t s = 1; s < slices; ++s) workers.emplace_back([&, s] { check_slice(s, slices, checks[s]); });
        check_slice(0, slices, checks[0]);
        for (std::thread &worker : workers) worker.join();
        Check all;
        for (const Check &c : checks) {  // in order: the first wrong element is the first slice's
            if (c.wrong && !all.wrong) all.first = c.first, all.first_gpu = c.first_gpu;
            all.wrong += c.wrong;
            all.max_error = std::max(all.max_error, c.max_error);
        }
        gpubench::Verification v;
        v.checked = (floats_ + (bytes_ - 4 * floats_)) * gpus_.size();
        v.max_error = all.max_error;
        v.tolerance = 0;
        v.passed = all.wrong == 0;
        v.detail = "exact sums of " + std::to_string(keys_.size()) + " GPUs' inputs (integers in [-8, 8] as "
                   "float32), every element on " + (gpus_.size() == keys_.size() ? "every GPU" : "this rank's GPUs");
        if (all.wrong)
            v.detail += "; " + std::to_string(all.wrong) + " differ, first on GPU " +
                        std::to_string(gpus_[all.first_gpu].device) + " at " +
                        (all.first < floats_ ? "float " : "byte ") + std::to_string(all.first);
        return v;
    }

    std::vector<gpubench::Metric> metrics() {
        const double n = static_cast<double>(keys_.size());
        return {{"devices", n, "", "GPUs in the all-reduce (NCCL ranks), every process's"},
                {"processes", n / static_cast<double>(gpus_.size()), "", "processes (ranks) in it, one or more GPUs each"},
                {"bus_factor", 2 * (n - 1) / n, "", "busbw / algbw = 2(n-1)/n (nccl-tests)"}};
    }

private:
    // Slice s of `slices` of the floats and of the tail bytes.
    void check_slice(size_t s, size_t slices, Check &c) const {
        const auto compare = [&](uint64_t i, double expected, double got, size_t r) {
            const double error = std::isnan(got) ? INFINITY : std::fabs(got - expected);
            if (error == 0) return;
            c.max_error = std::max(c.max_error, error);
            if (c.wrong++ == 0) c.first = i, c.first_gpu = r;
        };
        for (size_t i = floats_ * s / slices, end = floats_ * (s + 1) / slices; i < end; ++i) {
            float expected = 0;
            for (uint64_t key : keys_) expected += input_float(key, i);
            for (size_t r = 0; r < gpus_.size(); ++r)
                compare(i, expected, reinterpret_cast<const float *>(gpus_[r].result.data())[i], r);
        }
        if (s != slices - 1) return;
        for (size_t i = 4 * floats_; i < bytes_; ++i) {
            unsigned expected = 0;
            for (uint64_t key : keys_) expected += input_byte(key, i);
            for (size_t r = 0; r < gpus_.size(); ++r) compare(i, expected, gpus_[r].result[i], r);
        }
    }

    size_t bytes_, floats_;
    std::vector<Gpu> gpus_;
    size_t threads_;
    std::vector<uint64_t> keys_;  // every GPU's input stream, in NCCL rank order
    std::optional<allreduce::NcclComms> comms_;
};

}  // namespace

GPUBENCH_PLUGIN(NcclAllReduce, info)
