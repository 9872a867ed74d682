// Parallel merge sort with OpenMP: each thread std::sorts one of `threads` equal chunks;
// then rounds of pairwise merges double the sorted runs until one is left, ping-ponging
// between the working array and one scratch buffer. Every round's output is cut into
// 4 x threads equal pieces handed out dynamically: a piece finds where it starts in each of
// the two runs it merges by a merge-path binary search (co-rank), so all threads share
// every round, the last one included, whatever the run lengths.
#include "sort_common.hpp"

#include <algorithm>
#include <memory>

namespace {

const gpubench::BackendSpec kOmp{
    "sort_omp", "omp", GPUBENCH_DEVICE_CPU,
    "std::sort of one chunk per OpenMP thread, then rounds of pairwise merges, "
    "each split over all threads by merge-path binary search; up to 2e9 keys "
    "(3 arrays: 24 GB float32/uint32, 48 GB uint64/pairs)",
    2'000'000'000ull, {1'000, 10'000, 100'000, 1'000'000, 10'000'000}};

constexpr size_t kPiecesPerThread = 4;  // load balance of the merge rounds

// How many of the first k records of merge(a, b) come from a. Ties go to a first, as in
// std::merge, so merging the pieces one by one gives exactly the whole merge.
template <class Element>
size_t co_rank(size_t k, const Element *a, size_t a_size, const Element *b, size_t b_size) {
    const sort::KeyLess less;
    size_t low = k > b_size ? k - b_size : 0, high = std::min(k, a_size);
    while (low < high) {
        const size_t i = low + (high - low) / 2;  // i < a_size and 1 <= k - i <= b_size
        if (!less(b[k - i - 1], a[i]))
            low = i + 1;  // a[i] <= b[k-i-1]: a[i] is among the first k
        else
            high = i;
    }
    return low;
}

template <class Element>
class ParallelMergeSorter {
public:
    ParallelMergeSorter(size_t n, const gpubench::Setup &setup)
        : n_(n),
          threads_(setup.threads()),
          chunks_(std::min<size_t>(threads_, n)),
          pieces_(kPiecesPerThread * threads_),
          scratch_(std::make_unique_for_overwrite<Element[]>(n)) {
        sort::poison(scratch_.get(), n * sizeof(Element), threads_);  // first touch
    }

    Element *sort(Element *data) {
        size_t rounds = 0;
        while (size_t{1} << rounds < chunks_) ++rounds;
#pragma omp parallel num_threads(threads_)
        {
#pragma omp for schedule(static, 1)
            for (int64_t c = 0; c < static_cast<int64_t>(chunks_); ++c)
                std::sort(data + chunk_start(c), data + chunk_start(c + 1), sort::KeyLess{});
            // Every thread walks the same rounds; the barrier after each `omp for` keeps them
            // in step, so from/to agree everywhere.
            Element *from = data, *to = scratch_.get();
            for (size_t round = 0; round < rounds; ++round) {
#pragma omp for schedule(dynamic, 1)
                for (int64_t p = 0; p < static_cast<int64_t>(pieces_); ++p)
                    merge_piece(from, to, size_t{1} << round, static_cast<size_t>(p));
                std::swap(from, to);
            }
        }
        return rounds % 2 ? scratch_.get() : data;
    }

private:
    // Chunk c is [chunk_start(c), chunk_start(c + 1)); chunk_start(chunks_) = n.
    size_t chunk_start(size_t c) const { return n_ * std::min(c, chunks_) / chunks_; }

    // Writes output piece p of a round that merges runs of `width` chunks in pairs.
    void merge_piece(const Element *from, Element *to, size_t width, size_t p) const {
        const size_t piece_begin = n_ * p / pieces_, piece_end = n_ * (p + 1) / pieces_;
        for (size_t first = 0; first < chunks_; first += 2 * width) {  // one output run each
            const size_t begin = chunk_start(first), middle = chunk_start(first + width),
                         end = chunk_start(first + 2 * width);
            const size_t out_begin = std::max(begin, piece_begin);
            const size_t out_end = std::min(end, piece_end);
            if (out_begin >= out_end) continue;
            const Element *a = from + begin, *b = from + middle;
            const size_t a_size = middle - begin, b_size = end - middle;
            const size_t k0 = out_begin - begin, k1 = out_end - begin;
            const size_t i0 = co_rank(k0, a, a_size, b, b_size);
            const size_t i1 = co_rank(k1, a, a_size, b, b_size);
            std::merge(a + i0, a + i1, b + (k0 - i0), b + (k1 - i1), to + out_begin,
                       sort::KeyLess{});
        }
    }

    size_t n_;
    int threads_;
    size_t chunks_, pieces_;
    std::unique_ptr<Element[]> scratch_;
};

template <class Layout>
using OmpProblem = sort::HostProblem<Layout, ParallelMergeSorter>;
using OmpPlugin = sort::Plugin<kOmp, OmpProblem>;

}  // namespace

GPUBENCH_PLUGIN(OmpPlugin, sort::make_info(kOmp))
