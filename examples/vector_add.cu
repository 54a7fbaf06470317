// Vector addition as CUDA programs are written: allocate, copy in, launch, copy out, check.
//
//   warpsim cu examples/vector_add.cu                  # the whole program (n = 1 << 20)
//   warpsim cu examples/vector_add.cu -- 5000          # the program's own argument: n
//
// Its kernel alone, with arguments from the command line:
//
//   warpsim cu examples/vector_add.cu --kernel vector_add --block 256 \
//       --arg 'float[1<<20]:rand' --arg 'float[1<<20]:iota' --arg 'float[1<<20]:zeros' \
//       --arg 1048576 --out C=c.bin
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                 \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(EXIT_FAILURE);                                                     \
        }                                                                           \
    } while (0)

__global__ void vector_add(const float *A, const float *B, float *C, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) C[i] = A[i] + B[i];
    if (i == 0) printf("vector_add: %d elements, C[0] = %f\n", n, C[0]);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes), *h_c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        h_a[i] = rand() / (float)RAND_MAX;
        h_b[i] = (float)i;
    }
    float *d_a, *d_b, *d_c;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));
    CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
    int threads = 256, blocks = (n + threads - 1) / threads;
    vector_add<<<blocks, threads>>>(d_a, d_b, d_c, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        if (fabsf(h_a[i] + h_b[i] - h_c[i]) > 1e-5f) {
            fprintf(stderr, "mismatch at %d: %f + %f != %f\n", i, h_a[i], h_b[i], h_c[i]);
            return 1;
        }
    }
    printf("PASSED: %d elements\n", n);
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    free(h_a);
    free(h_b);
    free(h_c);
    return 0;
}
