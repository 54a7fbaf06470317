// Unified memory: one allocation the host and the kernels both use, no cudaMemcpy. The host
// fills it, kernels update it in place, and after cudaDeviceSynchronize the host reads what the
// kernels wrote (warpsim copies managed memory to the device before each launch and back at
// each synchronisation).
//
//   warpsim cu examples/managed.cu -- [n]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *x, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
    float *x, *y;
    if (cudaMallocManaged(&x, n * sizeof(float)) != cudaSuccess ||
        cudaMallocManaged(&y, n * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "cudaMallocManaged failed\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = (float)i;
    }
    // A grid-stride loop over fewer blocks than elements.
    saxpy<<<32, 256>>>(n, 2.0f, x, y);
    cudaDeviceSynchronize();
    saxpy<<<32, 256>>>(n, 0.5f, x, y);
    cudaDeviceSynchronize();
    int errors = 0;
    for (int i = 0; i < n; i++)
        if (y[i] != (float)i + 2.5f) errors++;
    printf("y[0] = %.1f, y[%d] = %.1f, %d errors\n", y[0], n - 1, y[n - 1], errors);
    cudaFree(x);
    cudaFree(y);
    printf(errors ? "FAILED\n" : "PASSED\n");
    return errors ? 1 : 0;
}
