// The host's peak FLOP rates and memory bandwidth, measured (host_peaks.hpp); the cache
// that keeps them per machine is in host_peaks.cpp.
#include "host_peaks.hpp"

#include "host_load.hpp"
#include "host_resources.hpp"
#include "host_share.hpp"
#include "measuring_threads.hpp"
#include "system_info.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <vector>

namespace gpubench {

namespace {

constexpr int repetitions = 5;       // each figure is the best of these
constexpr double flop_rep_s = 0.04;  // on-CPU time of one FLOP repetition per thread

// The FMA kernels: `chains` independent accumulators, acc = acc * m + a, the inner loop fully
// unrolled so that each chain lives in its own register and the FMA units never wait on a
// latency (4-5 cycles on 2 units needs 8-10 chains in flight; 12 or 16 leave room). The
// fixed point a / (1 - m) = 1 keeps values normal. The result is returned and consumed, and
// the trip count is a run-time value, so the loop cannot be folded away.
#define GPUBENCH_FMA_KERNEL(NAME, TARGET, T, V, CHAINS, SET1, FMA, ADD, STOREU)  \
    TARGET T NAME(uint64_t iters, T seed) {                                       \
        V acc[CHAINS];                                                            \
        for (int k = 0; k < CHAINS; ++k) acc[k] = SET1(seed + T(k) * T(1e-3));    \
        const V m = SET1(T(0.999999)), a = SET1(T(1e-6));                         \
        for (uint64_t i = 0; i < iters; ++i) {                                    \
            _Pragma("GCC unroll 16")                                              \
            for (int k = 0; k < CHAINS; ++k) acc[k] = FMA(acc[k], m, a);          \
        }                                                                         \
        for (int k = 1; k < CHAINS; ++k) acc[0] = ADD(acc[0], acc[k]);            \
        T lanes[sizeof(V) / sizeof(T)];                                           \
        STOREU(lanes, acc[0]);                                                    \
        T sum = 0;                                                                \
        for (T x : lanes) sum += x;                                               \
        return sum;                                                               \
    }

#ifdef GPUBENCH_X86
// SSE2 has no FMA: a multiply and an add, also 2 FLOPs per lane.
inline __m128 mul_add_ps(__m128 x, __m128 m, __m128 a) { return _mm_add_ps(_mm_mul_ps(x, m), a); }
inline __m128d mul_add_pd(__m128d x, __m128d m, __m128d a) {
    return _mm_add_pd(_mm_mul_pd(x, m), a);
}

#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2,fma")))
GPUBENCH_FMA_KERNEL(fma_f32_avx512, AVX512, float, __m512, 16, _mm512_set1_ps, _mm512_fmadd_ps,
                    _mm512_add_ps, _mm512_storeu_ps)
GPUBENCH_FMA_KERNEL(fma_f64_avx512, AVX512, double, __m512d, 16, _mm512_set1_pd, _mm512_fmadd_pd,
                    _mm512_add_pd, _mm512_storeu_pd)
GPUBENCH_FMA_KERNEL(fma_f32_avx2, AVX2, float, __m256, 12, _mm256_set1_ps, _mm256_fmadd_ps,
                    _mm256_add_ps, _mm256_storeu_ps)
GPUBENCH_FMA_KERNEL(fma_f64_avx2, AVX2, double, __m256d, 12, _mm256_set1_pd, _mm256_fmadd_pd,
                    _mm256_add_pd, _mm256_storeu_pd)
GPUBENCH_FMA_KERNEL(fma_f32_sse2, , float, __m128, 12, _mm_set1_ps, mul_add_ps, _mm_add_ps,
                    _mm_storeu_ps)
GPUBENCH_FMA_KERNEL(fma_f64_sse2, , double, __m128d, 12, _mm_set1_pd, mul_add_pd, _mm_add_pd,
                    _mm_storeu_pd)
#undef AVX512
#undef AVX2
#else
// Elsewhere: plain arithmetic, 12 chains, vectorised as far as the compiler sees fit.
template <class T>
T fma_generic(uint64_t iters, T seed) {
    T acc[12];
    for (int k = 0; k < 12; ++k) acc[k] = seed + T(k) * T(1e-3);
    for (uint64_t i = 0; i < iters; ++i)
        for (T &x : acc) x = x * T(0.999999) + T(1e-6);
    T sum = 0;
    for (T x : acc) sum += x;
    return sum;
}
#endif

struct FmaIsa {
    const char *name;
    float (*f32)(uint64_t, float);
    double (*f64)(uint64_t, double);
    double f32_flops_per_iter, f64_flops_per_iter;  // chains x lanes x 2
};

FmaIsa widest_fma() {
#ifdef GPUBENCH_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return {"avx512f", fma_f32_avx512, fma_f64_avx512, 16 * 16 * 2, 16 * 8 * 2};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return {"avx2+fma", fma_f32_avx2, fma_f64_avx2, 12 * 8 * 2, 12 * 4 * 2};
    return {"sse2", fma_f32_sse2, fma_f64_sse2, 12 * 4 * 2, 12 * 2 * 2};
#else
    return {"generic", fma_generic<float>, fma_generic<double>, 12 * 2, 12 * 2};
#endif
}

// FMA throughput belongs to each core alone, so the threads' on-CPU rates add up, whatever
// else the host runs. Only SMT siblings share a core's FMA units: one whose sibling was
// preempted runs faster than both together do, so where cores have siblings the sum is
// capped at physical cores times one thread's rate on an otherwise idle core.
template <class T>
double flop_rate(T (*kernel)(uint64_t, T), double flops_per_iter, unsigned threads) {
    auto single = [&](uint64_t iters) {
        const int64_t t0 = own_thread_cpu_ns();
        kernel_sink = kernel_sink + kernel(iters, T(0.5));
        return (own_thread_cpu_ns() - t0) * 1e-9;
    };
    // Size one repetition to about flop_rep_s of one thread's CPU time.
    uint64_t iters = 1 << 10;
    double t = single(iters);
    for (; t < 0.004 && iters < (uint64_t(1) << 40); t = single(iters)) iters *= 4;
    iters = std::max<uint64_t>(1, uint64_t(iters * (flop_rep_s / std::max(t, 1e-6))));
    // One thread on an otherwise idle core, where cores have SMT siblings.
    std::vector<int> cpus(threads);
    std::iota(cpus.begin(), cpus.end(), 0);
    const size_t cores = physical_cores(cpus).size();
    double one_core = 0;
    for (int r = 0; cores < threads && r < 3; ++r) {
        uint64_t quarter = std::max<uint64_t>(1, iters / 4);
        double t = single(quarter);
        if (t > 0) one_core = std::max(one_core, quarter * flops_per_iter / t);
    }
    double best = 0;
    for (int r = 0; r < repetitions; ++r) {
        Repetition rep = run_together(threads, [&](unsigned i) {
            kernel_sink = kernel_sink + kernel(iters, T(0.5) + T(i) * T(1e-2));
            return double(iters) * flops_per_iter;
        });
        best = std::max(best, rep.best_own_core_rate());
    }
    return one_core > 0 ? std::min(best, cores * one_core) : best;
}

// The triad with streaming stores: what is written goes to memory without being read first,
// so the figure is the memory's bandwidth rather than a write-allocate share of it.
void triad(double *x, const double *y, const double *z, double s, size_t n) {
    size_t j = 0;
#ifdef GPUBENCH_X86
    const __m128d vs = _mm_set1_pd(s);  // SSE2, every x86-64: memory, not issue width, limits
    for (; j + 2 <= n; j += 2)
        _mm_stream_pd(x + j, _mm_add_pd(_mm_load_pd(y + j), _mm_mul_pd(vs, _mm_load_pd(z + j))));
    _mm_sfence();
#endif
    for (; j < n; ++j) x[j] = y[j] + s * z[j];
}

// STREAM-style bandwidth: arrays of at least 4x the last-level cache and 64 MiB each, the
// three within 1/8 of MemAvailable. A repetition covers one of `portions` parts of them, split
// between the threads, and the next repetitions the other parts: by the time a part comes
// back the caches hold other data, so each repetition reads memory. Short repetitions (a
// millisecond or two) mean that some of them run with no thread preempted by other processes:
// the best one's bytes over its wall time is what the memory delivers to all cores.
double memory_bandwidth(unsigned threads, uint64_t llc_bytes) {
    constexpr unsigned portions = 4;
    uint64_t each = std::max<uint64_t>(64ull << 20, 4 * llc_bytes);
    if (auto available = available_host_memory()) each = std::min(each, *available / 8 / 3);
    each = std::max<uint64_t>(each, 1ull << 20) & ~uint64_t(4095);
    const size_t n = each / sizeof(double);
    const AlignedDoubles a = aligned_doubles(4096, each), b = aligned_doubles(4096, each),
                         c = aligned_doubles(4096, each);
    if (!a || !b || !c) return 0;
    // Thread i's share of part p: [begin, end), in whole cache lines.
    auto bound = [&](unsigned p, unsigned i) {
        return i == threads ? n * (p + 1) / portions / 8 * 8
                            : (n * p / portions + n / portions * i / threads) / 8 * 8;
    };
    double *pa = a.get(), *pb = b.get(), *pc = c.get();
    // First touch by the thread that uses the memory: its NUMA node's pages.
    run_together(threads, [&](unsigned i) {
        for (unsigned p = 0; p < portions; ++p) {
            size_t lo = bound(p, i), count = bound(p, i + 1) - lo;
            std::fill_n(pa + lo, count, 0.0);
            std::fill_n(pb + lo, count, 1.0);
            std::fill_n(pc + lo, count, 2.0);
        }
        return 0.0;
    });
    volatile double scalar_source = 0.5;
    const double s = scalar_source;
    // Bandwidth is shared, so the threads' own rates do not add up; but the best single
    // thread's bytes over its on-CPU time are also a rate the memory delivered (to one core).
    double best = 0;
    bool clean = false;
    auto keep = [&](const Repetition &rep) {
        best = std::max(best, rep.wall_rate());
        for (unsigned i = 0; i < threads; ++i) best = std::max(best, rep.thread_rate(i));
        clean = clean || rep.all_ran();
    };
    // Where no repetition had all threads running together (a busy host), go on until one
    // has, for a second at most: only such a repetition shows all cores' bandwidth.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    for (int r = 0; r < repetitions || (!clean && std::chrono::steady_clock::now() < give_up);
         ++r) {
        for (unsigned p = 0; p < portions; ++p)
            keep(run_together(threads, [&](unsigned i) {
                size_t lo = bound(p, i), count = bound(p, i + 1) - lo;
                triad(pa + lo, pb + lo, pc + lo, s, count);
                return 3.0 * sizeof(double) * count;  // read b and c, write a
            }));
        for (unsigned p = 0; p < portions; ++p)
            keep(run_together(threads, [&](unsigned i) {
                size_t lo = bound(p, i), count = bound(p, i + 1) - lo;
                std::memcpy(pa + lo, pb + lo, count * sizeof(double));
                return 2.0 * sizeof(double) * count;
            }));
    }
    kernel_sink = kernel_sink + pa[n / 2] + pa[n - 1];
    return best;
}

}  // namespace

HostPeaks measure_host_peaks() {
    HostPeaks peaks;
    peaks.source = "measured now";
    HostLoadWatch load;
    load.begin();
    try {
        unsigned threads = logical_cores();
        FmaIsa isa = widest_fma();
        peaks.isa = isa.name;
        peaks.cpu_model = cpu_model_name();
        const CpuCaches caches = cpu_caches(threads);
        peaks.cache_source = caches.source;
        peaks.caches = measure_cache_levels(caches, threads);
        if (!peaks.caches.empty()) peaks.llc_bytes = peaks.caches.back().capacity;
        peaks.fp32_flops = flop_rate(isa.f32, isa.f32_flops_per_iter, threads);
        peaks.fp64_flops = flop_rate(isa.f64, isa.f64_flops_per_iter, threads);
        peaks.bytes_per_s = memory_bandwidth(threads, peaks.llc_bytes);
    } catch (...) {  // out of memory or threads: what was measured stays, the rest is 0
    }
    const HostLoad during = load.end();
    if (during.available && during.others_cores >= 0.5) {
        peaks.quiet = false;
        peaks.source = format_text("measured now beside other work (the rest of the host used %.1f cores): "
                                   "not cached", during.others_cores);
    }
    return peaks;
}

}  // namespace gpubench
