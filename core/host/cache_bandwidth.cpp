// Each cache level's bandwidth, all threads together (measure_cache_levels, host_peaks.hpp).
#include "host_peaks.hpp"

#include "measuring_threads.hpp"

#include <algorithm>
#include <string>

namespace gpubench {

namespace {

constexpr int repetitions = 5;  // each level's figure is the best of these, per stream
// Bytes one thread streams per repetition: long enough to dwarf starting the threads, short
// enough that all levels together take about 0.1 s.
constexpr uint64_t bytes_per_repetition = 16ull << 20;
constexpr size_t block_doubles = 64;  // 512 bytes: 8 AVX-512 loads, the kernels' step

// Two streams per ISA. A read stream (8 independent sums, so that the adds keep up with two
// loads a cycle) and a[i] = b[i] + c[i]: a core may load and store in the same cycle, so two
// loads and a store can move more bytes than loads alone. Barriers between passes keep the
// compiler from merging repeated passes over the same data.
#define GPUBENCH_STREAM_KERNELS(SUFFIX, TARGET, V, LOAD, STORE, ADD, ZERO, STOREU)             \
    TARGET double read_##SUFFIX(const double *x, size_t n, size_t passes) {                   \
        constexpr size_t lanes = sizeof(V) / sizeof(double);                                  \
        V acc[8];                                                                             \
        for (V &a : acc) a = ZERO();                                                          \
        for (size_t p = 0; p < passes; ++p) {                                                 \
            for (size_t i = 0; i + 8 * lanes <= n; i += 8 * lanes) {                          \
                _Pragma("GCC unroll 8")                                                       \
                for (size_t k = 0; k < 8; ++k) acc[k] = ADD(acc[k], LOAD(x + i + k * lanes)); \
            }                                                                                 \
            asm volatile("" ::: "memory");                                                    \
        }                                                                                     \
        for (size_t k = 1; k < 8; ++k) acc[0] = ADD(acc[0], acc[k]);                          \
        double out[lanes];                                                                    \
        STOREU(out, acc[0]);                                                                  \
        double sum = 0;                                                                       \
        for (double v : out) sum += v;                                                        \
        return sum;                                                                           \
    }                                                                                         \
    TARGET void add_##SUFFIX(double *a, const double *b, const double *c, size_t n,           \
                             size_t passes) {                                                 \
        constexpr size_t lanes = sizeof(V) / sizeof(double);                                  \
        for (size_t p = 0; p < passes; ++p) {                                                 \
            for (size_t i = 0; i + lanes <= n; i += lanes)                                    \
                STORE(a + i, ADD(LOAD(b + i), LOAD(c + i)));                                  \
            asm volatile("" ::: "memory");                                                    \
        }                                                                                     \
    }

#ifdef GPUBENCH_X86
#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2")))
GPUBENCH_STREAM_KERNELS(avx512, AVX512, __m512d, _mm512_load_pd, _mm512_store_pd, _mm512_add_pd,
                        _mm512_setzero_pd, _mm512_storeu_pd)
GPUBENCH_STREAM_KERNELS(avx2, AVX2, __m256d, _mm256_load_pd, _mm256_store_pd, _mm256_add_pd,
                        _mm256_setzero_pd, _mm256_storeu_pd)
GPUBENCH_STREAM_KERNELS(sse2, , __m128d, _mm_load_pd, _mm_store_pd, _mm_add_pd, _mm_setzero_pd,
                        _mm_storeu_pd)
#undef AVX512
#undef AVX2
#else
// Elsewhere: plain loops, vectorised as far as the compiler sees fit.
struct Lanes2 {
    double v[2];
};
inline Lanes2 load2(const double *p) { return {{p[0], p[1]}}; }
inline void store2(double *p, Lanes2 x) { p[0] = x.v[0], p[1] = x.v[1]; }
inline Lanes2 add2(Lanes2 x, Lanes2 y) { return {{x.v[0] + y.v[0], x.v[1] + y.v[1]}}; }
inline Lanes2 zero2() { return {{0, 0}}; }
GPUBENCH_STREAM_KERNELS(generic, , Lanes2, load2, store2, add2, zero2, store2)
#endif

struct StreamIsa {
    double (*read)(const double *, size_t, size_t);
    void (*add)(double *, const double *, const double *, size_t, size_t);
};

StreamIsa widest_loads() {
#ifdef GPUBENCH_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return {read_avx512, add_avx512};
    if (__builtin_cpu_supports("avx2")) return {read_avx2, add_avx2};
    return {read_sse2, add_sse2};
#else
    return {read_generic, add_generic};
#endif
}

// The best all-thread rate of both streams over `bytes` per thread. Each core's cache serves
// its own thread, so the threads' on-CPU rates add up, whatever else preempted them.
double level_bandwidth(const StreamIsa &isa, uint64_t bytes, unsigned threads) {
    const size_t n = bytes / 3 / sizeof(double) / block_doubles * block_doubles;  // per array
    if (n == 0) return 0;
    std::vector<AlignedDoubles> buffers;
    for (unsigned i = 0; i < threads; ++i) {
        buffers.push_back(aligned_doubles(64, 3 * n * sizeof(double)));
        if (!buffers.back()) return 0;
        std::fill_n(buffers.back().get(), 3 * n, 1.0);
    }
    const double streamed = 3.0 * n * sizeof(double);
    const size_t passes = std::max<size_t>(8, bytes_per_repetition / static_cast<size_t>(streamed));
    double best = 0;
    auto keep = [&](const Repetition &rep) { best = std::max(best, rep.best_own_core_rate()); };
    for (int r = 0; r < repetitions; ++r) {
        keep(run_together(threads, [&](unsigned i) {
            kernel_sink = kernel_sink + isa.read(buffers[i].get(), 3 * n, passes);
            return streamed * passes;
        }));
        keep(run_together(threads, [&](unsigned i) {
            double *p = buffers[i].get();
            isa.add(p, p + n, p + 2 * n, n, passes);
            return streamed * passes;
        }));
    }
    return best;
}

}  // namespace

std::vector<MemoryLevel> measure_cache_levels(const CpuCaches &caches, unsigned threads) {
    if (caches.levels.empty()) return {{"cache", unknown_cache_bytes, 0, 0}};
    threads = std::max(1u, threads);
    const StreamIsa isa = widest_loads();
    std::vector<MemoryLevel> levels;
    for (const CpuCache &cache : caches.levels) {
        const unsigned sharers = std::min(cache.sharers, threads);
        // L1 and L2 are a core's own (or its SMT siblings'): count one per logical CPU.
        const uint64_t instances =
            cache.level <= 2 ? threads : (threads + cache.sharers - 1) / cache.sharers;
        // Half a thread's share: its data stays in the level beside whatever else is there.
        const uint64_t per_thread = cache.bytes / sharers / 2;
        levels.push_back({"L" + std::to_string(cache.level), cache.bytes * instances,
                          level_bandwidth(isa, per_thread, threads), 0});
    }
    return levels;
}

}  // namespace gpubench
