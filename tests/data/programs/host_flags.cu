// Host compiler options reach every host compile and the link (nvcc's -Xcompiler, -l, -L),
// not the device pass (which defines __CUDA_ARCH__).
#include <cstdio>
#if !defined(__CUDA_ARCH__) && !defined(HOST_ONLY)
#error "-Xcompiler -DHOST_ONLY=... did not reach the host compiler"
#endif
__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }
int main() {
    int *d;
    cudaMalloc(&d, 32 * sizeof(int));
    k<<<1, 32>>>(d);
    printf("host flag %d: %s\n", HOST_ONLY, cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
