// A sum in passes: each launch reduces every block of 256 elements to one partial sum, and the
// host launches again on the partial sums until one value is left (the classic multi-pass
// reduction, with the output of one launch as the input of the next).
//
//   warpsim cu examples/reduce_two_pass.cu -- [n]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void reduce_pass(const float *in, float *out, int n) {
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    float *h = (float *)malloc(n * sizeof(float));
    double expected = 0.0;
    for (int i = 0; i < n; i++) {
        h[i] = (float)(i % 7) * 0.5f;
        expected += h[i];
    }
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, ((n + 2 * BLOCK - 1) / (2 * BLOCK)) * sizeof(float));
    cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
    int passes = 0;
    for (int left = n; left > 1; passes++) {
        int blocks = (left + 2 * BLOCK - 1) / (2 * BLOCK);
        reduce_pass<<<blocks, BLOCK>>>(d_in, d_out, left);
        if (cudaGetLastError() != cudaSuccess) return 2;
        float *t = d_in;  // this pass's output is the next pass's input
        d_in = d_out;
        d_out = t;
        left = blocks;
    }
    float sum;
    cudaMemcpy(&sum, d_in, sizeof(float), cudaMemcpyDeviceToHost);
    double err = (sum - expected) / expected;
    printf("sum of %d elements in %d passes: %.1f (expected %.1f)\n", n, passes, sum, expected);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    if (err > 1e-5 || err < -1e-5) {
        printf("FAILED\n");
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
