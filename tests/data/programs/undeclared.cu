// A kernel that names a variable declared nowhere: nvcc fails this build. warpsim warns at the
// name before the program runs, runs the kernels that are whole, and fails the broken one's
// launch with cudaErrorInvalidDeviceFunction.
#include <cstdio>

__global__ void whole(int *p) { p[threadIdx.x] = threadIdx.x; }

__global__ void broken(int *p) { p[threadIdx.x] = scale_factor * threadIdx.x; }

int main(int argc, char **argv) {
    int *d, h[32];
    cudaMalloc(&d, sizeof h);
    whole<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("whole: %s %d\n", cudaGetErrorName(cudaGetLastError()), h[31]);
    if (argc > 1) {
        broken<<<1, 32>>>(d);
        printf("broken -> %s\n", cudaGetErrorName(cudaGetLastError()));
    }
    return 0;
}
