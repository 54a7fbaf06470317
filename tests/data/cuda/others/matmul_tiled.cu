// Tiled matrix multiply C = A * B (A: M x K, B: K x N, row-major) through shared tiles, as in
// the CUDA C Programming Guide's shared-memory example, with bounds checks for any size.
#include <cuda_runtime.h>
#include <cstdio>

#ifndef TILE
#define TILE 16
#endif

typedef struct {
    int width;
    int height;
    int stride;
} MatDims;

__device__ __forceinline__ float load_or_zero(const float *m, int row, int col, int rows, int cols) {
    return (row < rows && col < cols) ? m[row * cols + col] : 0.0f;
}

__global__ void matmul_tiled(const float *__restrict__ A, const float *__restrict__ B, float *C,
                             int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = load_or_zero(A, row, t * TILE + threadIdx.x, M, K);
        Bs[threadIdx.y][threadIdx.x] = load_or_zero(B, t * TILE + threadIdx.y, col, K, N);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// The naive version, with the dimensions in a struct passed by value.
__global__ void matmul_naive(const float *A, const float *B, float *C, MatDims a, MatDims b) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= a.height || col >= b.width) return;
    float sum = 0;
    for (int k = 0; k < a.width; k++) sum += A[row * a.stride + k] * B[k * b.stride + col];
    C[row * b.stride + col] = sum;
}

int main() {
    int M = 512, N = 512, K = 512;
    float *A, *B, *C;
    cudaMallocManaged(&A, M * K * sizeof(float));
    cudaMallocManaged(&B, K * N * sizeof(float));
    cudaMallocManaged(&C, M * N * sizeof(float));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
    cudaDeviceSynchronize();
    return 0;
}
