// A kernel that writes far past its buffer (beyond the padding warpsim tolerates, where a bare
// GPU may fault too): the launch's error is cudaErrorIllegalAddress, and every
// CUDA call after it returns it too (sticky) until cudaDeviceReset. An invalid configuration is
// an error of its launch only. A null pointer and a pointer into no allocation fault too.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void write_past(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i * 1024] = i;  // a row of 1024 per thread where there is one of 100 for all
}

__global__ void ok(int *p) { p[threadIdx.x] = 1; }

__global__ void through(int *p) { p[threadIdx.x] = 2; }

#define SAY(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "bounds";
    int *d = nullptr;
    SAY(cudaMalloc(&d, 100 * sizeof(int)));
    if (strcmp(what, "config") == 0) {
        ok<<<1, 2048>>>(d);
        SAY(cudaGetLastError());
        ok<<<1, 32>>>(d);
        SAY(cudaGetLastError());
        SAY(cudaDeviceSynchronize());
        return 0;
    }
    if (strcmp(what, "null") == 0) {
        through<<<1, 32>>>(nullptr);
        SAY(cudaDeviceSynchronize());
        return 0;
    }
    if (strcmp(what, "host") == 0) {
        static int host[32];
        through<<<1, 32>>>(host);
        SAY(cudaDeviceSynchronize());
        return 0;
    }
    write_past<<<4, 32>>>(d, 100);
    SAY(cudaGetLastError());
    SAY(cudaDeviceSynchronize());
    int *e = nullptr;
    SAY(cudaMalloc(&e, 16));
    SAY(cudaMemset(d, 0, 16));
    SAY(cudaDeviceReset());
    SAY(cudaMalloc(&e, 32 * sizeof(int)));
    ok<<<1, 32>>>(e);
    SAY(cudaDeviceSynchronize());
    return 0;
}
