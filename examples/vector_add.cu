// A complete CUDA C program: warpsim runs its kernel as written (the host code is skipped).
//
//   warpsim cu examples/vector_add.cu --kernel vector_add --block 256 \
//       --arg 'float[1<<20]:rand' --arg 'float[1<<20]:iota' --arg 'float[1<<20]:zeros' \
//       --arg 1048576 --out C=c.bin
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vector_add(const float *A, const float *B, float *C, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) C[i] = A[i] + B[i];
    if (i == 0) printf("vector_add: %d elements, C[0] = %f\n", n, C[0]);
}

int main() {
    const int n = 1 << 20;
    float *a, *b, *c;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&c, n * sizeof(float));
    vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
    cudaDeviceSynchronize();
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
