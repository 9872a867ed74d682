#include "nccl_comms.hpp"

#include <gpubench/cuda.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>

namespace allreduce {

namespace {

using Clock = std::chrono::steady_clock;
using gpubench::cuda::CurrentDevice;

constexpr const char *id_file = "nccl-unique-id";

Clock::time_point deadline_after(double seconds) {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", seconds);
    return text;
}

// Waits until no communicator is still working on its last call (non-blocking: ncclInProgress):
// ncclSuccess, the first error, or ncclInProgress when `deadline` came first. It spins for its
// first 2 ms, as an enqueue settles in microseconds: with a 50 us sleep from the start, each
// run() across ranks took 140 us on the host, and small all-reduces measured that instead.
ncclResult_t wait_settled(const std::vector<ncclComm_t> &comms, Clock::time_point deadline) {
    const Clock::time_point spin_until = Clock::now() + std::chrono::milliseconds(2);
    for (;;) {
        bool pending = false;
        for (ncclComm_t comm : comms) {
            ncclResult_t state = ncclSuccess;
            if (const ncclResult_t asked = ncclCommGetAsyncError(comm, &state); asked != ncclSuccess) return asked;
            if (state == ncclInProgress)
                pending = true;
            else if (state != ncclSuccess)
                return state;
        }
        if (!pending) return ncclSuccess;
        const Clock::time_point now = Clock::now();
        if (now >= deadline) return ncclInProgress;
        if (now < spin_until)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

void abort_all(const std::vector<ncclComm_t> &comms) {
    for (ncclComm_t comm : comms)
        if (comm) ncclCommAbort(comm);
}

// NCCL's order: finalised together in a group, then destroyed; a communicator with an error,
// or with work in flight (a failed run), is aborted instead, as a finalise would wait for it.
void release(const std::vector<ncclComm_t> &comms, bool idle) {
    bool healthy = idle;
    for (ncclComm_t comm : comms) {
        ncclResult_t state = ncclSuccess;
        healthy = healthy && ncclCommGetAsyncError(comm, &state) == ncclSuccess && state == ncclSuccess;
    }
    if (healthy && ncclGroupStart() == ncclSuccess) {
        ncclResult_t finalised = ncclSuccess;
        for (ncclComm_t comm : comms)
            if (finalised == ncclSuccess || finalised == ncclInProgress) finalised = ncclCommFinalize(comm);
        ncclResult_t ended = ncclGroupEnd();
        if (ended == ncclInProgress) ended = wait_settled(comms, Clock::time_point::max());
        healthy = ended == ncclSuccess && (finalised == ncclSuccess || finalised == ncclInProgress);
    } else {
        healthy = false;
    }
    if (!healthy) return abort_all(comms);
    for (ncclComm_t comm : comms) ncclCommDestroy(comm);
}

}  // namespace

void check_nccl(ncclResult_t result, const char *what) {
    if (result == ncclSuccess) return;
    std::string message = std::string(what) + ": " + ncclGetErrorString(result);
    if (const char *last = ncclGetLastError(nullptr); last && *last) message += " (" + std::string(last) + ")";
    std::replace(message.begin(), message.end(), '\n', ' ');
    if (message.find("out of memory") != std::string::npos) throw gpubench::OutOfMemory(message);
    const bool device = result == ncclUnhandledCudaError || result == ncclSystemError || result == ncclRemoteError;
    throw gpubench::Error(device ? GPUBENCH_DEVICE_ERROR : GPUBENCH_ERROR, message);
}

NcclComms::NcclComms(const std::vector<int> &devices, const gpubench::rendezvous::Place &place)
    : comms_(devices.size(), nullptr), place_(place),
      nccl_ranks_(static_cast<int>(devices.size()) * place.ranks),
      first_rank_(static_cast<int>(devices.size()) * place.rank), across_ranks_(place.ranks > 1) {
    // Before NCCL's first call reads its settings: NVLink multicast (NVLS) can take the GPUs of
    // a shared host out of service, so it stays off even where a user set it.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    if (!across_ranks_) {
        const CurrentDevice first(devices.front());  // ncclCommInitAll visits every device
        check_nccl(ncclCommInitAll(comms_.data(), nccl_ranks_, devices.data()), "ncclCommInitAll");
        return;
    }
    const std::vector<unsigned char> id_bytes = shared_id(devices.size());
    ncclUniqueId id;
    std::memcpy(&id, id_bytes.data() + sizeof(uint32_t), sizeof id);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;  // so that a rank that never joins is a time-out, not a hang
    ncclResult_t status = ncclGroupStart();
    for (size_t i = 0; i < devices.size() && (status == ncclSuccess || status == ncclInProgress); ++i) {
        const CurrentDevice on(devices[i]);
        status = ncclCommInitRankConfig(&comms_[i], nccl_ranks_, id, first_rank_ + static_cast<int>(i), &config);
    }
    ncclResult_t ended = ncclGroupEnd();
    if (status != ncclSuccess && status != ncclInProgress) ended = status;
    if (ended == ncclSuccess || ended == ncclInProgress) ended = wait_settled(comms_, deadline_after(place_.timeout_s));
    if (ended != ncclSuccess) {
        abort_all(comms_);
        comms_.assign(comms_.size(), nullptr);
        if (ended == ncclInProgress)
            throw gpubench::Error(GPUBENCH_ERROR,
                                  "rank " + std::to_string(place_.rank) + " of " + std::to_string(place_.ranks) +
                                      " waited " + seconds_text(place_.timeout_s) +
                                      " (--rank-timeout) for the other ranks to join NCCL's communicator "
                                      "(did one skip or fail this entry, or not reach rank 0's host?)");
        check_nccl(ended, "ncclCommInitRankConfig");
    }
    // Every rank joined, so every rank read the id: nothing of it stays behind.
    if (place_.rank == 0) gpubench::rendezvous::withdraw(place_, id_file);
}

// Rank 0 makes the id and publishes it with its GPU count; the others wait for it. Every rank
// must give NCCL as many GPUs, or their NCCL ranks would overlap.
std::vector<unsigned char> NcclComms::shared_id(size_t devices) const {
    std::vector<unsigned char> bytes(sizeof(uint32_t) + sizeof(ncclUniqueId));
    const uint32_t count = static_cast<uint32_t>(devices);
    if (place_.rank == 0) {
        ncclUniqueId id;
        check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
        std::memcpy(bytes.data(), &count, sizeof count);
        std::memcpy(bytes.data() + sizeof count, &id, sizeof id);
        gpubench::rendezvous::publish(place_, id_file, bytes);
        return bytes;
    }
    bytes = gpubench::rendezvous::await(place_, id_file, bytes.size());
    uint32_t theirs = 0;
    std::memcpy(&theirs, bytes.data(), sizeof theirs);
    if (theirs != count)
        throw gpubench::Error(GPUBENCH_INVALID_ARGUMENT,
                              "rank " + std::to_string(place_.rank) + " has " + std::to_string(count) +
                                  " GPUs and rank 0 " + std::to_string(theirs) +
                                  ": every rank needs as many (the same --device or --devices count)");
    return bytes;
}

void NcclComms::end_group(ncclResult_t ended, const char *what) {
    if (ended == ncclInProgress && across_ranks_) {
        ended = wait_settled(comms_, deadline_after(place_.timeout_s));
        if (ended == ncclInProgress)
            throw gpubench::Error(GPUBENCH_ERROR, std::string(what) + ": NCCL had not enqueued it after " +
                                                      seconds_text(place_.timeout_s) +
                                                      " (--rank-timeout): the other ranks did not take part");
    }
    check_nccl(ended, what);
}

void NcclComms::close(bool idle) noexcept {
    if (closed_ || comms_.empty() || !comms_.front()) return;
    closed_ = true;
    if (!across_ranks_) return release(comms_, idle);
    try {
        std::packaged_task<void()> task([comms = comms_, idle] { release(comms, idle); });
        std::future<void> done = task.get_future();
        std::thread closing(std::move(task));
        if (done.wait_for(std::chrono::duration<double>(place_.timeout_s)) == std::future_status::ready)
            closing.join();
        else
            closing.detach();  // its communicators are this process's loss, not a hang
    } catch (const std::exception &) {
        abort_all(comms_);  // no thread to spare: abort here
    }
}

}  // namespace allreduce
