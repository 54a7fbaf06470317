// CUDA events around launches and a device-to-device copy: under warpsim they measure the
// predicted GPU time (or, with --event-time cpu, warpsim's CPU time).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
    float *x = nullptr, *y = nullptr;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    cudaEvent_t e0, e1, e2;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventCreate(&e2);
    int blocks = (n + 255) / 256;
    cudaEventRecord(e0);
    scale<<<blocks, 256>>>(x, 2.0f, n);
    cudaEventRecord(e1);
    scale<<<blocks, 256>>>(x, 3.0f, n);
    cudaMemcpy(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice);
    scale<<<blocks, 256>>>(y, 4.0f, n);
    cudaEventRecord(e2);
    cudaEventSynchronize(e2);
    float first = -1, rest = -1;
    cudaEventElapsedTime(&first, e0, e1);
    cudaEventElapsedTime(&rest, e1, e2);
    printf("first %.9f ms\nrest %.9f ms\n", first, rest);
    cudaFree(x);
    cudaFree(y);
    return 0;
}
