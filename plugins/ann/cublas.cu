// cuBLAS and cuSOLVER calls in the notebook's order, float64:
//   - each neuron in turn, as the notebook's loop of lstsq: its rows gathered column-major
//     with arctanh of their targets (one small kernel), then QR (geqrf), Q^T b (ormqr) and
//     R w = (Q^T b)[:10] (trsm): four launches a neuron, 4000 in all;
//   - H^T = tanh(W X^T): dgemm and a tanh kernel, H held whole as CuPy holds it;
//   - H^T H (dsyrk, lower half) and H^T y (dgemv); the ridge on the diagonal (one block);
//   - V by Cholesky (potrf, potrs);
//   - the test predictions: dgemm and tanh into the same H, then dgemv.
// Column-major views: row-major x (obs x 10) is cuBLAS's 10 x obs X^T, row-major W
// (1000 x 10) its 10 x 1000 W^T, and H^T (1000 x obs) is stored as cuBLAS's 1000 x obs.
#include "ann_cusolver.hpp"
#include "ann_gpu.hpp"

#include <gpubench/cublas.hpp>

#include <algorithm>

namespace {

using ann::kInputs, ann::kNeurons;

const gpubench::BackendSpec kCublas{
    "ann_cublas", "cublas", GPUBENCH_DEVICE_CUDA,
    "the notebook's random-feature network with cuBLAS and cuSOLVER in the notebook's "
    "order, float64: per neuron in turn a gather (with arctanh), geqrf, ormqr and trsm; "
    "dgemm + a tanh kernel for H (held whole: 8 GB at 1e6), dsyrk and dgemv for the "
    "normal equations, the ridge, potrf/potrs, then the test predictions the same way",
    4'000'000, {10'000, 100'000, 1'000'000}};

constexpr int kThreads = 256;

// Neuron rows `subset` of x as a column-major rows x kInputs block `a`, and arctanh of
// their targets in `b`.
__global__ void gather_subset(const double *__restrict__ x, const double *__restrict__ y,
                              const int64_t *__restrict__ subset, int rows, double *__restrict__ a,
                              double *__restrict__ b) {
    const int r = blockIdx.x * kThreads + threadIdx.x;
    if (r >= rows) return;
    const int64_t i = subset[r];
#pragma unroll
    for (int c = 0; c < int(kInputs); ++c) a[size_t(c) * rows + r] = x[i * kInputs + c];
    b[r] = atanh(y[i]);
}

__global__ void tanh_in_place(double *values, size_t count) {
    for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < count;
         i += size_t(gridDim.x) * kThreads)
        values[i] = tanh(values[i]);
}

class CublasTrainer {
public:
    // H (obs x 1000), H^T H, the gathered fit blocks and cuSOLVER's workspace.
    static double scratch_bytes(uint64_t obs) {
        const double rows = double(ann::rows_per_neuron(obs));
        return ann::hidden_layer_bytes(obs) + 8.0 * (kNeurons * kNeurons + (kInputs + 1) * rows) +
               double(32 << 20);
    }

    CublasTrainer(const ann::Task &task, const gpubench::Setup &setup)
        : obs_(int(task.obs())), rows_(int(ann::rows_per_neuron(task.obs()))),
          stream_(gpubench::cuda::stream_of(setup)), blas_(stream_), solver_(stream_),
          hidden_(size_t(obs_) * kNeurons), gram_(kNeurons * kNeurons),
          fit_a_(size_t(rows_) * kInputs), fit_b_(rows_), tau_(kInputs), info_(1) {
        int geqrf = 0, ormqr = 0, potrf = 0;
        ANN_CUSOLVER_CHECK(cusolverDnDgeqrf_bufferSize(solver_.get(), rows_, kInputs,
                                                       fit_a_.data(), rows_, &geqrf));
        ANN_CUSOLVER_CHECK(cusolverDnDormqr_bufferSize(
            solver_.get(), CUBLAS_SIDE_LEFT, CUBLAS_OP_T, rows_, 1, kInputs, fit_a_.data(), rows_,
            tau_.data(), fit_b_.data(), rows_, &ormqr));
        ANN_CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(solver_.get(), CUBLAS_FILL_MODE_LOWER,
                                                       kNeurons, gram_.data(), kNeurons, &potrf));
        workspace_ = gpubench::cuda::DeviceBuffer<double>(std::max({geqrf, ormqr, potrf, 1}));
    }

    void train(const ann::TrainingData &data, const ann::Model &model) {
        const double one = 1, zero = 0;
        const int work = int(workspace_.size());
        for (size_t k = 0; k < kNeurons; ++k) {
            gather_subset<<<(rows_ + kThreads - 1) / kThreads, kThreads, 0, stream_>>>(
                data.x, data.y, data.subsets + k * size_t(rows_), rows_, fit_a_.data(),
                fit_b_.data());
            gpubench::cuda::check_launch("gather_subset");
            ANN_CUSOLVER_CHECK(cusolverDnDgeqrf(solver_.get(), rows_, kInputs, fit_a_.data(), rows_,
                                                tau_.data(), workspace_.data(), work, info_.data()));
            ANN_CUSOLVER_CHECK(cusolverDnDormqr(solver_.get(), CUBLAS_SIDE_LEFT, CUBLAS_OP_T, rows_,
                                                1, kInputs, fit_a_.data(), rows_, tau_.data(),
                                                fit_b_.data(), rows_, workspace_.data(), work,
                                                info_.data()));
            GPUBENCH_CUBLAS_CHECK(cublasDtrsm(blas_.get(), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                              CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, kInputs, 1, &one,
                                              fit_a_.data(), rows_, fit_b_.data(), rows_));
            GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(model.w + k * kInputs, fit_b_.data(),
                                                kInputs * sizeof(double),
                                                cudaMemcpyDeviceToDevice, stream_));
        }
        hidden_layer(data.x, model.w);
        GPUBENCH_CUBLAS_CHECK(cublasDsyrk(blas_.get(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                          kNeurons, obs_, &one, hidden_.data(), kNeurons, &zero,
                                          gram_.data(), kNeurons));
        GPUBENCH_CUBLAS_CHECK(cublasDgemv(blas_.get(), CUBLAS_OP_N, kNeurons, obs_, &one,
                                          hidden_.data(), kNeurons, data.y, 1, &zero, model.v, 1));
        ann::add_ridge<<<1, ann::kRidgeThreads, 0, stream_>>>(gram_.data());
        gpubench::cuda::check_launch("add_ridge");
        ANN_CUSOLVER_CHECK(cusolverDnDpotrf(solver_.get(), CUBLAS_FILL_MODE_LOWER, kNeurons,
                                            gram_.data(), kNeurons, workspace_.data(), work,
                                            info_.data()));
        ANN_CUSOLVER_CHECK(cusolverDnDpotrs(solver_.get(), CUBLAS_FILL_MODE_LOWER, kNeurons, 1,
                                            gram_.data(), kNeurons, model.v, kNeurons,
                                            info_.data()));
        hidden_layer(data.x_test, model.w);
        GPUBENCH_CUBLAS_CHECK(cublasDgemv(blas_.get(), CUBLAS_OP_T, kNeurons, obs_, &one,
                                          hidden_.data(), kNeurons, model.v, 1, &zero,
                                          model.predictions, 1));
    }

private:
    // H^T = tanh(W X^T) for the rows of `x` (obs of them), into hidden_.
    void hidden_layer(const double *x, const double *w) {
        const double one = 1, zero = 0;
        GPUBENCH_CUBLAS_CHECK(cublasDgemm(blas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, kNeurons, obs_,
                                          kInputs, &one, w, kInputs, x, kInputs, &zero,
                                          hidden_.data(), kNeurons));
        const size_t blocks = std::min<size_t>((hidden_.size() + kThreads - 1) / kThreads, 4096);
        tanh_in_place<<<unsigned(blocks), kThreads, 0, stream_>>>(hidden_.data(), hidden_.size());
        gpubench::cuda::check_launch("tanh_in_place");
    }

    int obs_, rows_;
    cudaStream_t stream_;
    gpubench::cublas::Handle blas_;
    ann::cusolver::Handle solver_;
    gpubench::cuda::DeviceBuffer<double> hidden_, gram_, fit_a_, fit_b_, tau_, workspace_;
    gpubench::cuda::DeviceBuffer<int> info_;
};

using CublasPlugin = gpubench::cuda::DeviceProblem<ann::DeviceArrays<kCublas, CublasTrainer>>;

}  // namespace

GPUBENCH_PLUGIN(CublasPlugin, ann::make_info(kCublas))
