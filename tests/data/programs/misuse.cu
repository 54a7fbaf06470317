// Requests warpsim must refuse with an error for the program, and go on: copies past an
// allocation or from no device memory, freeing what was not allocated (or freed already),
// launching a function that is no kernel, an attribute no device has, ending a capture that
// never began; then a kernel that calls __trap(), after which every call fails (sticky).
// With argument `assert`, a kernel whose assert fails instead.
#include <cassert>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void k(float *p) { p[threadIdx.x] = 0; }
__global__ void trap(float *p) {
    if (threadIdx.x == 3) __trap();
    p[threadIdx.x] = 1;
}
__global__ void check(float *p) { assert(p[threadIdx.x] == 1); }

static void not_a_kernel(float *) {}

#define SAY(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

int main(int argc, char **argv) {
    float h[64] = {0};
    float *d = nullptr;
    SAY(cudaMalloc(&d, 32 * sizeof(float)));
    if (argc > 1 && !strcmp(argv[1], "assert")) {
        check<<<1, 32>>>(d);
        SAY(cudaDeviceSynchronize());
        SAY(cudaMemset(d, 0, 4));
        return 0;
    }
    SAY(cudaMemcpy(d, h, 64 * sizeof(float), cudaMemcpyHostToDevice));
    SAY(cudaMemcpy(h, d + 16, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    SAY(cudaMemcpy(h, (float *)0x10, 4, cudaMemcpyDeviceToHost));
    SAY(cudaMemset(d + 31, 0, 8));
    SAY(cudaFree(d + 1));
    SAY(cudaFree(h));
    void *args[] = {&d};
    SAY(cudaLaunchKernel((const void *)not_a_kernel, dim3(1), dim3(32), args, 0, 0));
    SAY(cudaLaunchKernel((const void *)k, dim3(1), dim3(32), args, 0, 0));
    SAY(cudaMemcpy(h, d, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    SAY(cudaFree(d));
    SAY(cudaFree(d));
    int value = -1;
    SAY(cudaDeviceGetAttribute(&value, (cudaDeviceAttr)99999, 0));
    SAY(cudaDeviceGetAttribute(&value, cudaDevAttrMax, 0));
    SAY(cudaDeviceGetAttribute(&value, (cudaDeviceAttr)0, 0));
    SAY(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 0));
    printf("warp size %d\n", value);
    cudaStream_t s;
    cudaGraph_t g = nullptr;
    SAY(cudaStreamCreate(&s));
    SAY(cudaStreamEndCapture(s, &g));
    SAY(cudaMalloc(&d, 32 * sizeof(float)));
    trap<<<1, 32>>>(d);
    SAY(cudaDeviceSynchronize());
    SAY(cudaMemset(d, 0, 4));
    SAY(cudaGetLastError());
    return 0;
}
