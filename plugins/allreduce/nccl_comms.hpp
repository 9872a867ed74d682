// The NCCL communicators an all-reduce runs on, one per GPU of this process. Alone (one rank),
// ncclCommInitAll makes them all. Ranks launched together (ABI 1.7: mpirun, srun) each add
// theirs to one communicator across every rank, as nccl-tests does: rank 0 makes NCCL's unique
// id and shares it through the entry's rendezvous folder (gpubench/rendezvous.hpp: files,
// because the runner's worker processes cannot join the launcher's MPI job), GPU i of rank r
// is NCCL rank r x (GPUs per rank) + i, and the communicators are non-blocking, so that no
// wait for the other ranks (to join, to enqueue, to tear down) outlasts the rank time-out.
#pragma once

#include <gpubench/rendezvous.hpp>

#include <nccl.h>

#include <vector>

namespace allreduce {

// A failed NCCL call as the gpubench status it is, with NCCL's own last words.
void check_nccl(ncclResult_t result, const char *what);

class NcclComms {
public:
    // `devices`: this process's GPUs, in order; `place`: where its rank meets the others (rank
    // 0 of 1 and no folder when alone). Throws gpubench::Error naming what it waited for.
    NcclComms(const std::vector<int> &devices, const gpubench::rendezvous::Place &place);
    ~NcclComms() { close(false); }
    NcclComms(const NcclComms &) = delete;
    NcclComms &operator=(const NcclComms &) = delete;

    ncclComm_t at(size_t device) const { return comms_.at(device); }

    // ncclGroupEnd's result for `what`: a non-blocking group is waited for until NCCL has
    // enqueued its operations, at most the rank time-out; then checked (throws).
    void end_group(ncclResult_t ended, const char *what);

    // Releases the communicators: finalised and destroyed when nothing is in flight (`idle`)
    // and none reports an error, aborted otherwise. Across ranks either may wait for the
    // others, so it runs on a thread of its own that is waited for at most the rank time-out
    // and then left to finish (a peer gone for good may hold it for ever).
    void close(bool idle) noexcept;

private:
    std::vector<unsigned char> shared_id(size_t devices) const;

    std::vector<ncclComm_t> comms_;
    gpubench::rendezvous::Place place_;
    int nccl_ranks_ = 0;  // GPUs in the communicator: every rank's
    int first_rank_ = 0;  // the NCCL rank of this process's first GPU
    bool across_ranks_ = false, closed_ = false;
};

}  // namespace allreduce
