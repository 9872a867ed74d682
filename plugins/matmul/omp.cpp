// A cache-blocked CPU GEMM in the GotoBLAS/BLIS shape. For each KC-deep slice of K:
//   1. pack the KC x N slice of B into NR-wide column panels and the N x KC slice of A
//      into MR-high row panels (zero-padded), so the micro-kernel reads both contiguously;
//   2. split C into MC x NC tiles and hand them to the threads (dynamic schedule); each tile
//      walks its B panels (one stays in L1) against its A panels (they stay in L2),
//      accumulating an MR x NR block of C in SIMD registers.
// A B panel is 64 bytes wide (16 floats, 8 doubles). The micro-kernel is written once with
// GCC vector types and compiled three times, for AVX-512 (MR = 12), AVX2+FMA (MR = 6) and
// the x86-64 baseline (MR = 2), each with its native vector width; the constructor picks
// the one the CPU supports, so the binary stays portable (no -march). GCC's target_clones
// would not do: its clones share one source shape, and a 64-byte vector type on AVX2
// compiles to slow code.
#include "matmul_common.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

namespace {

const gpubench::BackendSpec kOmp{
    "matmul_omp", "omp", GPUBENCH_DEVICE_CPU,
    "C = A*B, a BLIS-shaped CPU GEMM: packed panels, cache blocking, a SIMD micro-kernel "
    "compiled for AVX-512, AVX2 and the x86-64 baseline and picked at run time, OpenMP "
    "over tiles",
    8192, {64, 128, 256, 512, 1024}};

constexpr size_t kPanelBytes = 64;   // width of a B panel: 1 AVX-512, 2 AVX2, 4 SSE vectors
constexpr size_t kKC = 256;          // depth of a slice: a B panel is 16 KiB, it stays in L1
constexpr size_t kMC = 96;           // rows of a C tile: 96 KiB of float A, in L2
constexpr size_t kNC = 192;          // columns of a C tile: the grain of the parallel loop

static_assert(kMC % 12 == 0 && kMC % 6 == 0 && kMC % 2 == 0, "tiles hold whole MR blocks");
static_assert(kNC % (kPanelBytes / sizeof(float)) == 0, "tiles hold whole B panels");

template <class T, size_t Bytes>
using Vector [[gnu::vector_size(Bytes)]] = T;

template <class T>
constexpr size_t kNR = kPanelBytes / sizeof(T);  // columns of a packed B panel

// Packed panels are read as whole vectors: keep them on cache-line boundaries.
template <class T>
struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <class U>
    CacheLineAllocator(const CacheLineAllocator<U> &) {}
    T *allocate(size_t count) {
        return static_cast<T *>(::operator new(count * sizeof(T), std::align_val_t{64}));
    }
    void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t{64}); }
    bool operator==(const CacheLineAllocator &) const = default;
};

template <class T>
using PackedBuffer = std::vector<T, CacheLineAllocator<T>>;

// One C tile: rows [row, row + rows) x columns [col, col + cols); row is a multiple of MR
// and col of NR.
struct Tile {
    size_t row, rows, col, cols;
};

// C[tile] (+)= A[tile rows, slice] * B[slice, tile cols] from the packed slices of depth kc,
// with an MR x NR register block made of NR / (VectorBytes / sizeof(T)) vectors per row.
// `accumulate` is false for the first slice: C holds garbage before it.
template <class T, size_t MR, size_t VectorBytes>
[[gnu::always_inline]] inline void multiply_tile_body(const T *a_packed, const T *b_packed,
                                                      size_t kc, T *c, size_t n, Tile tile,
                                                      bool accumulate) {
    using V = Vector<T, VectorBytes>;
    constexpr size_t nr = kNR<T>, lanes = VectorBytes / sizeof(T), nv = nr / lanes;
    for (size_t j = tile.col; j < tile.col + tile.cols; j += nr) {
        const T *b_panel = b_packed + j * kc;  // panel j/nr starts at (j/nr) * kc * nr
        for (size_t i = tile.row; i < tile.row + tile.rows; i += MR) {
            const T *a_panel = a_packed + i * kc;
            const bool whole = i + MR <= n && j + nr <= n;
            if (whole && accumulate)  // C comes from L3 or memory: start fetching it now
                for (size_t r = 0; r < MR; ++r) {  // both cache lines the row may touch
                    __builtin_prefetch(c + (i + r) * n + j, 1);
                    __builtin_prefetch(c + (i + r) * n + j + nr - 1, 1);
                }

            V acc[MR][nv] = {};
            for (size_t k = 0; k < kc; ++k) {
                V b[nv];
#pragma GCC unroll 4
                for (size_t v = 0; v < nv; ++v)  // one vector at a time keeps b in registers
                    std::memcpy(&b[v], b_panel + k * nr + v * lanes, sizeof(V));
#pragma GCC unroll 16
                for (size_t r = 0; r < MR; ++r) {
                    const T a = a_panel[k * MR + r];
#pragma GCC unroll 4
                    for (size_t v = 0; v < nv; ++v) acc[r][v] += a * b[v];
                }
            }

            // Only constant indices into acc, so that it stays in registers.
            alignas(kPanelBytes) T block[MR][nr];
#pragma GCC unroll 16
            for (size_t r = 0; r < MR; ++r) {
                T *out = whole ? c + (i + r) * n + j : block[r];
#pragma GCC unroll 4
                for (size_t v = 0; v < nv; ++v) {
                    V sum{};
                    if (accumulate && whole) std::memcpy(&sum, out + v * lanes, sizeof sum);
                    sum += acc[r][v];
                    std::memcpy(out + v * lanes, &sum, sizeof sum);
                }
            }
            if (!whole)  // ragged edge of C: copy the part inside the matrix
                for (size_t r = 0; r < std::min(MR, n - i); ++r)
                    for (size_t q = 0; q < std::min(nr, n - j); ++q) {
                        T &out = c[(i + r) * n + j + q];
                        out = (accumulate ? out : T{0}) + block[r][q];
                    }
        }
    }
}

// One micro-kernel per instruction set, each using most of its vector registers for
// accumulators: 12 of 32 zmm, 12 of 16 ymm, 8 of 16 xmm (16-byte vectors elsewhere).
#if defined(__x86_64__)
template <class T>
__attribute__((target("arch=x86-64-v4"))) void multiply_tile_avx512(
    const T *a_packed, const T *b_packed, size_t kc, T *c, size_t n, Tile tile, bool accumulate) {
    multiply_tile_body<T, 12, 64>(a_packed, b_packed, kc, c, n, tile, accumulate);
}

template <class T>
__attribute__((target("arch=x86-64-v3"))) void multiply_tile_avx2(
    const T *a_packed, const T *b_packed, size_t kc, T *c, size_t n, Tile tile, bool accumulate) {
    multiply_tile_body<T, 6, 32>(a_packed, b_packed, kc, c, n, tile, accumulate);
}
#endif

template <class T>
void multiply_tile_baseline(const T *a_packed, const T *b_packed, size_t kc, T *c, size_t n,
                            Tile tile, bool accumulate) {
    multiply_tile_body<T, 2, 16>(a_packed, b_packed, kc, c, n, tile, accumulate);
}

template <class T>
class OmpKernel {
public:
    OmpKernel(size_t n, const gpubench::Setup &setup)
        : n_(n), threads_(setup.threads()) {
        mr_ = 2, multiply_tile_ = &multiply_tile_baseline<T>;
#if defined(__x86_64__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("x86-64-v4"))
            mr_ = 12, multiply_tile_ = &multiply_tile_avx512<T>;
        else if (__builtin_cpu_supports("x86-64-v3"))
            mr_ = 6, multiply_tile_ = &multiply_tile_avx2<T>;
#endif
        a_packed_.resize((n + mr_ - 1) / mr_ * mr_ * std::min(n, kKC));
        b_packed_.resize((n + kNR<T> - 1) / kNR<T> * kNR<T> * std::min(n, kKC));
    }

    void multiply(const T *a, const T *b, T *c) {
        const size_t n = n_;
        const size_t row_tiles = (n + kMC - 1) / kMC, col_tiles = (n + kNC - 1) / kNC;
        const long long tiles = static_cast<long long>(row_tiles * col_tiles);
        const long long a_panels = static_cast<long long>((n + mr_ - 1) / mr_);
        const long long b_panels = static_cast<long long>((n + kNR<T> - 1) / kNR<T>);
        T *a_packed = a_packed_.data(), *b_packed = b_packed_.data();

#pragma omp parallel num_threads(threads_)
        for (size_t k0 = 0; k0 < n; k0 += kKC) {
            const size_t kc = std::min(kKC, n - k0);
#pragma omp for schedule(static) nowait
            for (long long p = 0; p < b_panels; ++p) pack_b_panel(b, k0, kc, size_t(p), b_packed);
#pragma omp for schedule(static)
            for (long long p = 0; p < a_panels; ++p) pack_a_panel(a, k0, kc, size_t(p), a_packed);
#pragma omp for schedule(dynamic)
            for (long long t = 0; t < tiles; ++t) {
                const size_t row = size_t(t) / col_tiles * kMC, col = size_t(t) % col_tiles * kNC;
                const Tile tile{row, std::min(kMC, n - row), col, std::min(kNC, n - col)};
                multiply_tile_(a_packed, b_packed, kc, c, n, tile, k0 > 0);
            }
        }
    }

private:
    // B[k0 .. k0+kc) x [p*NR, p*NR + NR) -> b_packed[p][k][0..NR), zero past column n.
    void pack_b_panel(const T *b, size_t k0, size_t kc, size_t p, T *b_packed) const {
        constexpr size_t nr = kNR<T>;
        const size_t col = p * nr, cols = std::min(nr, n_ - col);
        T *out = b_packed + p * kc * nr;
        for (size_t k = 0; k < kc; ++k, out += nr) {
            const T *in = b + (k0 + k) * n_ + col;
            for (size_t q = 0; q < nr; ++q) out[q] = q < cols ? in[q] : T{0};
        }
    }

    // A[p*MR, p*MR + MR) x [k0 .. k0+kc) -> a_packed[p][k][0..MR), zero past row n.
    void pack_a_panel(const T *a, size_t k0, size_t kc, size_t p, T *a_packed) const {
        const size_t row = p * mr_, rows = std::min(mr_, n_ - row);
        T *out = a_packed + p * kc * mr_;
        for (size_t r = 0; r < mr_; ++r) {
            const T *in = r < rows ? a + (row + r) * n_ + k0 : nullptr;
            for (size_t k = 0; k < kc; ++k) out[k * mr_ + r] = in ? in[k] : T{0};
        }
    }

    size_t n_;
    int threads_;
    size_t mr_;  // rows of the register block of the chosen micro-kernel
    void (*multiply_tile_)(const T *, const T *, size_t, T *, size_t, Tile, bool);
    PackedBuffer<T> a_packed_, b_packed_;
};

template <class T>
using OmpProblem = matmul::HostProblem<T, OmpKernel<T>>;
using OmpPlugin = matmul::Plugin<kOmp, OmpProblem>;

}  // namespace

GPUBENCH_PLUGIN(OmpPlugin, matmul::make_info(kOmp))
