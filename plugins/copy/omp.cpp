// The host's copy bandwidth: each OpenMP thread copies its static share with memcpy, after
// the arrays were first touched by the same static split (so pages sit near their thread).
#include "copy_common.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

namespace {

const gpubench::Info info = copy::make_info(
    "copy_omp", "omp", GPUBENCH_DEVICE_CPU,
    "dst = src over n float32, one contiguous memcpy share per OpenMP thread: the host's "
    "copy bandwidth");

class OmpCopy {
public:
    explicit OmpCopy(const gpubench::Setup &setup)
        : n_(gpubench::checked_size(info, setup.size)),
          threads_(setup.threads()),
          key_(gpubench::inputs::stream_key(setup.seed, 0)),
          src_(new float[n_]), dst_(new float[n_]) {
#pragma omp parallel for schedule(static) num_threads(threads_)
        for (int64_t i = 0; i < static_cast<int64_t>(n_); ++i) {
            src_[i] = copy::source_value(key_, i);
            dst_[i] = std::numeric_limits<float>::quiet_NaN();  // never copied: fails verify
        }
    }
    static gpubench::Work work(uint64_t n, const gpubench::Params &) {
        return copy::make_work(n, false);
    }
    void run() {
#pragma omp parallel num_threads(threads_)
        {
            const size_t parts = omp_get_num_threads(), part = omp_get_thread_num();
            const size_t begin = n_ * part / parts, end = n_ * (part + 1) / parts;
            std::memcpy(dst_.get() + begin, src_.get() + begin, (end - begin) * sizeof(float));
        }
    }
    gpubench::Verification verify() { return copy::verify_copy(key_, dst_.get(), n_); }

private:
    size_t n_;
    int threads_;
    uint64_t key_;
    // new float[] leaves pages untouched, so the parallel fill above places them.
    std::unique_ptr<float[]> src_, dst_;
};

}  // namespace

GPUBENCH_PLUGIN(OmpCopy, info)
