// A 256-bin byte histogram with per-block privatisation in shared memory (the classic
// "shared atomics" histogram of the CUDA programming guides), with its host driver.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define NUM_BINS 256

__global__ void histogram_smem(const unsigned char *data, unsigned int *hist, size_t n) {
    __shared__ unsigned int s_hist[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&s_hist[data[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned int c = s_hist[b];
        if (c > 0) atomicAdd(hist + b, c);
    }
}

// The naive version: every thread updates global memory.
__global__ void histogram_global(const unsigned char *data, unsigned int *hist, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[data[i]], 1);
}

int main() {
    const size_t n = 1 << 24;
    unsigned char *h = (unsigned char *)malloc(n);
    for (size_t i = 0; i < n; ++i) h[i] = rand() & 0xff;
    unsigned char *d;
    unsigned int *dh;
    cudaMalloc(&d, n);
    cudaMalloc(&dh, NUM_BINS * sizeof(unsigned int));
    cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);
    cudaMemset(dh, 0, NUM_BINS * sizeof(unsigned int));
    histogram_smem<<<240, 256>>>(d, dh, n);
    cudaDeviceSynchronize();
    printf("ok\n");
    free(h);
    return 0;
}
