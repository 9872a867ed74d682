// The baseline: the textbook top-down merge sort on one thread. Each call sorts both halves,
// merges them into the scratch buffer (taking from the left half on ties, so it is stable)
// and copies the merged range back.
#include "sort_common.hpp"

#include <algorithm>
#include <memory>

namespace {

const gpubench::BackendSpec kNaive{
    "sort_naive", "naive", GPUBENCH_DEVICE_CPU,
    "top-down recursive merge sort on one CPU thread (merge into one scratch "
    "buffer, copy back); up to 1e8 keys (about 10-20 s per run)",
    100'000'000ull, {1'000, 10'000, 100'000, 1'000'000}};

template <class Element>
class MergeSorter {
public:
    MergeSorter(size_t n, const gpubench::Setup &setup)
        : size_(n), scratch_(std::make_unique_for_overwrite<Element[]>(n)) {
        // Touch the scratch pages now, so that the first timed run does not fault them in.
        sort::poison(scratch_.get(), n * sizeof(Element), setup.threads());
    }

    Element *sort(Element *data) {
        sort_range(data, 0, size_);
        return data;
    }

private:
    void sort_range(Element *a, size_t begin, size_t end) {
        if (end - begin < 2) return;
        const size_t middle = begin + (end - begin) / 2;
        sort_range(a, begin, middle);
        sort_range(a, middle, end);
        const sort::KeyLess less;
        Element *out = scratch_.get();
        size_t left = begin, right = middle, k = begin;
        while (left < middle && right < end)
            out[k++] = less(a[right], a[left]) ? a[right++] : a[left++];
        while (left < middle) out[k++] = a[left++];
        while (right < end) out[k++] = a[right++];
        std::copy(out + begin, out + end, a + begin);
    }

    size_t size_;
    std::unique_ptr<Element[]> scratch_;
};

template <class Layout>
using NaiveProblem = sort::HostProblem<Layout, MergeSorter>;
using NaivePlugin = sort::Plugin<kNaive, NaiveProblem>;

}  // namespace

GPUBENCH_PLUGIN(NaivePlugin, sort::make_info(kNaive))
