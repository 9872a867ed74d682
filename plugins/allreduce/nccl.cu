// allreduce_nccl: an NCCL all-reduce (sum) across every GPU the run selected, from one
// process: one communicator per device (ncclCommInitAll), each device's collective enqueued on
// that device's runner stream, all in one group. size = bytes per GPU, summed as float32 (a
// last 1 to 3 bytes as uint8), out of place so that run() can repeat.
//
// Throughput as nccl-tests defines it, for n GPUs and a time t:
//   algorithm bandwidth algbw = size / t                  -> items/s (items are bytes)
//   bus bandwidth       busbw = algbw x 2(n-1)/n          -> bytes/s (GB/s; 0 on one GPU)
// busbw is what the links carry per GPU in a ring, comparable across GPU counts. No flops are
// declared, so the automatic headline shows busbw on several GPUs and algbw on one.
//
// The inputs are small integers in [-8, 8] (bytes of the tail: 0 to 3), so every sum is exact
// in float32 whatever order NCCL reduces in, and every element of every GPU is checked exactly.
#include "random_inputs.hpp"

#include <gpubench/cuda.hpp>

#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using gpubench::cuda::CurrentDevice;
using gpubench::cuda::DeviceBuffer;
using gpubench::cuda::PinnedBuffer;

constexpr uint32_t kMaxDevices = 64;  // |sum| <= 8 x 64: exact in float32, a tail byte too

const gpubench::Info info{
    "allreduce_nccl", "allreduce", "nccl", GPUBENCH_DEVICE_CUDA,
    "NCCL all-reduce (sum, out of place) across the selected GPUs from one process, one "
    "communicator per device, NVLink multicast off (NCCL_NVLS_ENABLE=0); as nccl-tests: "
    "items/s = algorithm bandwidth (bytes per GPU / time), GB/s = bus bandwidth (algbw x "
    "2(n-1)/n, 0 on one GPU)",
    "bytes per GPU: float32 elements summed across the GPUs (a last 1-3 bytes as uint8)", "1.0",
    "", 1, 8ull << 30,
    {4ull << 10, 64ull << 10, 1ull << 20, 8ull << 20, 32ull << 20, 128ull << 20, 512ull << 20,
     2ull << 30, 4ull << 30},
    "bytes", GPUBENCH_HEADLINE_AUTO, "", kMaxDevices};

// A failed NCCL call as the gpubench status it is, with NCCL's own last words.
void check_nccl(ncclResult_t result, const char *what) {
    if (result == ncclSuccess) return;
    std::string message = std::string(what) + ": " + ncclGetErrorString(result);
    if (const char *last = ncclGetLastError(nullptr); last && *last)
        message += " (" + std::string(last) + ")";
    std::replace(message.begin(), message.end(), '\n', ' ');
    if (message.find("out of memory") != std::string::npos) throw gpubench::OutOfMemory(message);
    const bool device = result == ncclUnhandledCudaError || result == ncclSystemError ||
                        result == ncclRemoteError;
    throw gpubench::Error(device ? GPUBENCH_DEVICE_ERROR : GPUBENCH_ERROR, message);
}

// Element i of device `rank`'s input: an integer in [-8, 8] as a float32.
float input_float(uint64_t key, uint64_t i) {
    return static_cast<float>(static_cast<int>(gpubench::inputs::bits(key, i) % 17) - 8);
}
// Tail byte i (counted from the buffer's start) of device `rank`'s input: 0 to 3.
unsigned char input_byte(uint64_t key, uint64_t i) {
    return static_cast<unsigned char>(gpubench::inputs::bits(key, i) % 4);
}

// One device's part: its communicator, the runner's stream for it, its buffers on the device
// and the pinned host copies of its input and of its result.
struct Rank {
    int device = 0;
    cudaStream_t stream = nullptr;
    ncclComm_t comm = nullptr;
    PinnedBuffer<unsigned char> input, result;
    DeviceBuffer<unsigned char> send, receive;
};

class NcclAllReduce {
public:
    explicit NcclAllReduce(const gpubench::Setup &setup)
        : bytes_(gpubench::checked_size(info, setup.size)), floats_(bytes_ / 4),
          ranks_(setup.cuda_devices.size()) {
        if (ranks_.empty() || setup.cuda_streams.size() != ranks_.size())
            throw gpubench::Error(GPUBENCH_ERROR, "no CUDA devices or streams given to allreduce_nccl");
        std::vector<int> devices;
        for (size_t r = 0; r < ranks_.size(); ++r) {
            Rank &rank = ranks_[r];
            rank.device = setup.cuda_devices[r];
            rank.stream = static_cast<cudaStream_t>(setup.cuda_streams[r]);
            devices.push_back(rank.device);
            const uint64_t key = gpubench::inputs::stream_key(setup.seed, r);
            const CurrentDevice on(rank.device);  // buffers belong to the rank's device
            rank.input = PinnedBuffer<unsigned char>(bytes_);
            rank.result = PinnedBuffer<unsigned char>(bytes_);
            rank.send = DeviceBuffer<unsigned char>(bytes_);
            rank.receive = DeviceBuffer<unsigned char>(bytes_);
            float *floats = reinterpret_cast<float *>(rank.input.data());
            for (size_t i = 0; i < floats_; ++i) floats[i] = input_float(key, i);
            for (size_t i = 4 * floats_; i < bytes_; ++i) rank.input[i] = input_byte(key, i);
            // All bits set: NaN floats and 255 bytes, which no sum here can be.
            GPUBENCH_CUDA_CHECK(cudaMemsetAsync(rank.receive.data(), 0xFF, bytes_, rank.stream));
            GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(rank.stream));
        }
        // Before NCCL's first call reads its settings: NVLink multicast (NVLS) can take the
        // GPUs of a shared host out of service, so it stays off even where a user set it.
        setenv("NCCL_NVLS_ENABLE", "0", 1);
        const CurrentDevice first(devices.front());  // ncclCommInitAll visits every device
        std::vector<ncclComm_t> comms(ranks_.size(), nullptr);
        check_nccl(ncclCommInitAll(comms.data(), static_cast<int>(comms.size()), devices.data()),
                   "ncclCommInitAll");
        for (size_t r = 0; r < ranks_.size(); ++r) ranks_[r].comm = comms[r];
    }
    // NCCL's order for communicators driven from one thread: finalised together in a group,
    // then destroyed. One with an asynchronous error (a failed run) gets them all aborted
    // instead: a finalise would wait for it.
    ~NcclAllReduce() {
        if (!ranks_.front().comm) return;  // ncclCommInitAll makes all or none
        bool healthy = true;
        for (const Rank &rank : ranks_) {
            ncclResult_t state = ncclSuccess;
            healthy = healthy && ncclCommGetAsyncError(rank.comm, &state) == ncclSuccess &&
                      state == ncclSuccess;
        }
        if (healthy && ncclGroupStart() == ncclSuccess) {
            ncclResult_t finalised = ncclSuccess;
            for (const Rank &rank : ranks_)
                if (finalised == ncclSuccess) finalised = ncclCommFinalize(rank.comm);
            healthy = ncclGroupEnd() == ncclSuccess && finalised == ncclSuccess;
        } else {
            healthy = false;
        }
        for (const Rank &rank : ranks_) healthy ? ncclCommDestroy(rank.comm) : ncclCommAbort(rank.comm);
    }
    NcclAllReduce(const NcclAllReduce &) = delete;
    NcclAllReduce &operator=(const NcclAllReduce &) = delete;

    static gpubench::Work work(uint64_t size, const gpubench::Params &, int devices) {
        const double n = std::max(devices, 1), bytes = static_cast<double>(size);
        gpubench::Work w;
        w.items = bytes;                    // items/s: algbw
        w.bytes = bytes * 2 * (n - 1) / n;  // bytes/s: busbw
        w.device_bytes = 2 * bytes;         // per device: send and receive buffers
        w.host_bytes = 2 * bytes * n;       // pinned input and result of every device
        w.flags = GPUBENCH_WORK_RUN_REPEATABLE;  // out of place: the inputs stay as uploaded
        return w;
    }

    void upload() {
        for (Rank &rank : ranks_) {
            const CurrentDevice on(rank.device);
            gpubench::cuda::copy_async(rank.send, rank.input, rank.stream);
        }
    }
    // One group: from one thread, the communicators' parts must be launched together, or the
    // first device's would wait forever for peers not yet launched.
    void run() {
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        ncclResult_t status = ncclSuccess;
        const size_t tail = bytes_ - 4 * floats_;
        for (Rank &rank : ranks_) {
            if (floats_ && status == ncclSuccess)
                status = ncclAllReduce(rank.send.data(), rank.receive.data(), floats_, ncclFloat,
                                       ncclSum, rank.comm, rank.stream);
            if (tail && status == ncclSuccess)
                status = ncclAllReduce(rank.send.data() + 4 * floats_,
                                       rank.receive.data() + 4 * floats_, tail, ncclUint8, ncclSum,
                                       rank.comm, rank.stream);
        }
        const ncclResult_t ended = ncclGroupEnd();  // closed even when a call in it failed
        check_nccl(status, "ncclAllReduce");
        check_nccl(ended, "ncclGroupEnd");
    }
    void download() {
        for (Rank &rank : ranks_) {
            const CurrentDevice on(rank.device);
            gpubench::cuda::copy_async(rank.result, rank.receive, rank.stream);
        }
    }

    // Every element of every device against the exact sum of the inputs.
    gpubench::Verification verify() {
        for (Rank &rank : ranks_) GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(rank.stream));
        uint64_t wrong = 0, first = 0;
        size_t first_rank = 0;
        double max_error = 0;
        const auto compare = [&](size_t i, double expected, double got, size_t r) {
            const double error = std::isnan(got) ? INFINITY : std::fabs(got - expected);
            if (error == 0) return;
            max_error = std::max(max_error, error);
            if (wrong++ == 0) first = i, first_rank = r;
        };
        const auto floats = [](const PinnedBuffer<unsigned char> &buffer) {
            return reinterpret_cast<const float *>(buffer.data());
        };
        for (size_t i = 0; i < floats_; ++i) {
            float expected = 0;
            for (const Rank &rank : ranks_) expected += floats(rank.input)[i];
            for (size_t r = 0; r < ranks_.size(); ++r)
                compare(i, expected, floats(ranks_[r].result)[i], r);
        }
        for (size_t i = 4 * floats_; i < bytes_; ++i) {
            unsigned expected = 0;
            for (const Rank &rank : ranks_) expected += rank.input[i];
            for (size_t r = 0; r < ranks_.size(); ++r) compare(i, expected, ranks_[r].result[i], r);
        }
        gpubench::Verification v;
        v.checked = (floats_ + (bytes_ - 4 * floats_)) * ranks_.size();
        v.max_error = max_error;
        v.tolerance = 0;
        v.passed = wrong == 0;
        v.detail = "exact sums of " + std::to_string(ranks_.size()) + " GPUs' inputs (integers in "
                   "[-8, 8] as float32), every element on every GPU";
        if (wrong)
            v.detail += "; " + std::to_string(wrong) + " differ, first on GPU " +
                        std::to_string(ranks_[first_rank].device) + " at " +
                        (first < floats_ ? "float " : "byte ") + std::to_string(first);
        return v;
    }

    std::vector<gpubench::Metric> metrics() {
        const double n = static_cast<double>(ranks_.size());
        return {{"devices", n, "", "GPUs in the all-reduce, one communicator each"},
                {"bus_factor", 2 * (n - 1) / n, "", "busbw / algbw = 2(n-1)/n (nccl-tests)"}};
    }

private:
    size_t bytes_, floats_;
    std::vector<Rank> ranks_;
};

}  // namespace

GPUBENCH_PLUGIN(NcclAllReduce, info)
