// An independent measurement of cuBLAS SGEMM, outside the runner and its plugin ABI, to check
// the runner's timing of matmul_cublas (issue 4: agreement within 2%). The same call (n x n
// float32, default math mode, its own stream and handle), the same clock (a CUDA event pair
// around each call), the median of many calls after a warm-up.
//
//   cublas_reference [N=4096] [CALLS=200]  ->  "cublas_reference N=4096: median 2.726 ms ..."
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t status, const char *what) {
    if (status == cudaSuccess) return;
    std::fprintf(stderr, "cublas_reference: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
}

void check(cublasStatus_t status, const char *what) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    std::fprintf(stderr, "cublas_reference: %s: cuBLAS status %d\n", what, int(status));
    std::exit(1);
}

}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    const int calls = argc > 2 ? std::atoi(argv[2]) : 200;
    if (n <= 0 || calls <= 0) {
        std::fprintf(stderr, "usage: cublas_reference [N>0] [CALLS>0]\n");
        return 2;
    }
    const size_t elements = size_t(n) * n;
    float *a = nullptr, *b = nullptr, *c = nullptr;
    check(cudaMalloc(&a, elements * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&b, elements * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&c, elements * sizeof(float)), "cudaMalloc");
    // Inputs of moderate size (GEMM time does not depend on the values, but denormals would).
    std::vector<float> host(elements);
    for (size_t i = 0; i < elements; ++i) host[i] = float((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
    check(cudaMemcpy(a, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(b, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "upload");

    cudaStream_t stream;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    cublasHandle_t handle;
    check(cublasCreate(&handle), "cublasCreate");
    check(cublasSetStream(handle, stream), "cublasSetStream");
    cudaEvent_t begin, end;
    check(cudaEventCreate(&begin), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    const float one = 1, zero = 0;
    const auto gemm = [&] {
        check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n),
              "cublasSgemm");
    };
    for (int i = 0; i < 10; ++i) gemm();  // warm-up: kernel selection, clocks up
    check(cudaStreamSynchronize(stream), "warm-up");

    std::vector<double> ms(calls);
    for (int i = 0; i < calls; ++i) {
        check(cudaEventRecord(begin, stream), "cudaEventRecord");
        gemm();
        check(cudaEventRecord(end, stream), "cudaEventRecord");
        check(cudaEventSynchronize(end), "cudaEventSynchronize");
        float elapsed = 0;
        check(cudaEventElapsedTime(&elapsed, begin, end), "cudaEventElapsedTime");
        ms[i] = elapsed;
    }
    std::sort(ms.begin(), ms.end());
    const double median = calls % 2 ? ms[calls / 2] : 0.5 * (ms[calls / 2 - 1] + ms[calls / 2]);
    std::printf("cublas_reference N=%d: median %.4f ms over %d calls (min %.4f, max %.4f), "
                "%.2f TFLOP/s\n",
                n, median, calls, ms.front(), ms.back(), 2.0 * n * double(n) * n / (median * 1e-3) * 1e-12);
    cublasDestroy(handle);
    cudaStreamDestroy(stream);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
