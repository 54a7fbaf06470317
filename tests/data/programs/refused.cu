// A kernel warpsim cannot run (inline PTX): its launch fails with
// cudaErrorInvalidDeviceFunction and warpsim says why, at the line.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void ptx(int *p) {
    int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    p[threadIdx.x] = lane;
}

int main() {
    int *d;
    cudaMalloc(&d, 32 * sizeof(int));
    ptx<<<1, 32>>>(d);
    printf("launch -> %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
