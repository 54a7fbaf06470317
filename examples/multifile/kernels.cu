// The CUDA half of a multi-file program: kernels and the extern "C" wrappers that launch them.
#include <cuda_runtime.h>
#include "kernels.h"

__global__ void histogram256(const unsigned char *data, int n, unsigned int *bins) {
    __shared__ unsigned int local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

__global__ void scale(float *data, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= k;
}

extern "C" int gpu_histogram(const unsigned char *data, int n, unsigned int *bins) {
    unsigned char *d_data;
    unsigned int *d_bins;
    if (cudaMalloc(&d_data, n) != cudaSuccess) return 1;
    cudaMalloc(&d_bins, 256 * sizeof(unsigned int));
    cudaMemcpy(d_data, data, n, cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, 256 * sizeof(unsigned int));
    histogram256<<<16, 256>>>(d_data, n, d_bins);
    cudaError_t err = cudaMemcpy(bins, d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaFree(d_data);
    cudaFree(d_bins);
    return err == cudaSuccess ? 0 : 1;
}

extern "C" int gpu_scale(float *data, int n, float k) {
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, data, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(n + 127) / 128, 128>>>(d, n, k);
    cudaError_t err = cudaMemcpy(data, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
    return err == cudaSuccess ? 0 : 1;
}
