// Kernels warpsim cannot run (inline PTX; a template given a lambda written in host code, as
// nvcc's --extended-lambda allows): their launches fail with cudaErrorInvalidDeviceFunction
// and warpsim says why, at the line.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void ptx(int *p) {
    int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    p[threadIdx.x] = lane;
}

template <typename F> __global__ void each(int *p, F f) { p[threadIdx.x] = f(threadIdx.x); }

int main() {
    int *d;
    cudaMalloc(&d, 32 * sizeof(int));
    ptx<<<1, 32>>>(d);
    printf("launch -> %s\n", cudaGetErrorName(cudaGetLastError()));
    each<<<1, 32>>>(d, [] __device__(int i) { return 2 * i; });
    printf("lambda -> %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
