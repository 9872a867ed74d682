// The floor for "fresh process -> first GPU result": a process that only creates its CUDA
// context (cudaFree(0)) and exits. bench/sweep_cost.sh times it beside the runner.
#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
    const cudaError_t status = cudaFree(nullptr);
    if (status != cudaSuccess) std::fprintf(stderr, "cudaFree(0): %s\n", cudaGetErrorString(status));
    return status == cudaSuccess ? 0 : 1;
}
