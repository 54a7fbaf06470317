// A 1-D stencil with a shared halo (the "CUDA C basics" example) and an inclusive block scan
// built from warp scans with __shfl_up_sync.
#include <cuda_runtime.h>
#include <cstdio>

#define RADIUS 3
#define BLOCK_SIZE 256

__global__ void stencil_1d(const int *in, int *out, int n) {
    __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
    int gindex = threadIdx.x + blockIdx.x * blockDim.x;
    int lindex = threadIdx.x + RADIUS;
    temp[lindex] = gindex < n ? in[gindex] : 0;
    if (threadIdx.x < RADIUS) {
        temp[lindex - RADIUS] = (gindex >= RADIUS && gindex - RADIUS < n) ? in[gindex - RADIUS] : 0;
        temp[lindex + BLOCK_SIZE] = (gindex + BLOCK_SIZE < n) ? in[gindex + BLOCK_SIZE] : 0;
    }
    __syncthreads();
    int result = 0;
    for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
    if (gindex < n) out[gindex] = result;
}

__device__ float warp_inclusive_scan(float v) {
    const unsigned int lane = threadIdx.x & (warpSize - 1);
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        float up = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += up;
    }
    return v;
}

// Inclusive scan of each block's elements (blockDim.x a multiple of 32, at most 1024).
__global__ void block_scan(const float *in, float *out, int n) {
    __shared__ float warp_totals[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    float v = (i < n) ? in[i] : 0.0f;
    v = warp_inclusive_scan(v);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float t = (lane < blockDim.x / 32) ? warp_totals[lane] : 0.0f;
        t = warp_inclusive_scan(t);
        warp_totals[lane] = t;
    }
    __syncthreads();
    if (warp > 0) v += warp_totals[warp - 1];
    if (i < n) out[i] = v;
}

int main() {
    int n = 1 << 20;
    int *in, *out;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    stencil_1d<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(in, out, n);
    return 0;
}
