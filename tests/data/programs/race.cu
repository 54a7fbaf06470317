// Threads of a block write one shared word without a barrier between the writes and the read:
// a race check mode reports.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void racy(int *out) {
    __shared__ int s;
    s = threadIdx.x;
    out[threadIdx.x] = s;
}

int main() {
    int *d;
    cudaMalloc(&d, 64 * sizeof(int));
    racy<<<1, 64>>>(d);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
