// Requests warpsim must refuse with an error for the program, and go on: copies past an
// allocation or from no device memory, freeing what was not allocated, launching a function
// that is no kernel.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k(float *p) { p[threadIdx.x] = 0; }

static void not_a_kernel(float *) {}

#define SAY(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

int main() {
    float h[64] = {0};
    float *d = nullptr;
    SAY(cudaMalloc(&d, 32 * sizeof(float)));
    SAY(cudaMemcpy(d, h, 64 * sizeof(float), cudaMemcpyHostToDevice));
    SAY(cudaMemcpy(h, d + 16, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    SAY(cudaMemcpy(h, (float *)0x10, 4, cudaMemcpyDeviceToHost));
    SAY(cudaMemset(d + 31, 0, 8));
    SAY(cudaFree(d + 1));
    SAY(cudaFree(h));
    void *args[] = {&d};
    SAY(cudaLaunchKernel((const void *)not_a_kernel, dim3(1), dim3(32), args, 0, 0));
    SAY(cudaLaunchKernel((const void *)k, dim3(1), dim3(32), args, 0, 0));
    SAY(cudaMemcpy(h, d, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    SAY(cudaFree(d));
    return 0;
}
