// What real programs do that a simulator must take as it comes: managed memory written by the
// host between a launch and the synchronisation, a pointer into the middle of an allocation
// indexed backwards, a stream callback marked CUDART_CB, a macro defined empty on the command
// line, a header that is not UTF-8, kernel templates with defaults and enum parameters, NVTX
// ranges, `time(0)` without <time.h> (nvcc's runtime header brings it), cudaMemAdvise, a
// `#pragma once` header reached from two include directories, glibc's `ulong` and `u_int` in a
// kernel, a launch between timing macros defined as nothing, and files that start with a
// UTF-8 byte order mark (this one, and bom.h).
#include <cstdio>
#include <cstring>
#include "latin1.h"
#include "bom.h"
#include "once.h"
#include "again.h"
#include "nvtx3/nvToolsExt.h"

#define STR2(x) #x
#define STR(x) STR2(x)

__global__ void count(int *x) { atomicAdd(&x[0], 1); }
__global__ void back(const float *p, float *out) { out[threadIdx.x] = p[(int)threadIdx.x - 1]; }

enum class Combine { Add, Mul };
enum Shift { NONE, ONE = 1, TWO };

template <typename T, Combine C = Combine::Mul, int B = 32>
__global__ void combine(const T *a, T *out, Shift s) {
    int i = threadIdx.x;
    Combine c = C;
    T v = c == Combine::Add ? a[i] + T(B) : a[i] * T(B);
    out[i] = v + (s == TWO ? 2 : 0) + Shift::ONE;
}

// Timing macros a build turns off by defining them empty: the launch between them still runs.
#define TIMER_START
#define TIMER_STOP(name)

__global__ void widths(ulong *w) {
    u_int i = threadIdx.x;
    w[i] = (ulong)i << 40;
}

static int calls = 0;
void CUDART_CB done(cudaStream_t, cudaError_t status, void *n) {
    if (status == cudaSuccess) ++*(int *)n;
}

int main() {
    srand((unsigned)time(0));  // <time.h> and <stdlib.h> come with the CUDA runtime, as nvcc's
    nvtxRangePushA("habits");
    int *m;
    cudaMallocManaged(&m, 2 * sizeof(int));
    nvtxRangePop();
    cudaMemAdvise(m, 2 * sizeof(int), cudaMemAdviseSetPreferredLocation, 0);
    m[0] = 0;
    m[1] = 0;
    count<<<1, 32>>>(m);
    m[1] = 5;  // the kernel never touches it
    __sync_fetch_and_add(&m[0], 100);
    cudaDeviceSynchronize();
    printf("managed: %d %d\n", m[0], m[1]);

    float h[33], *d, *o, r[32];
    for (int j = 0; j < 33; ++j) h[j] = (float)j;
    cudaMalloc(&d, sizeof h);
    cudaMalloc(&o, sizeof r);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    back<<<1, 32>>>(d + 1, o);
    cudaError_t e = cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost);
    printf("interior: %s %g %g\n", cudaGetErrorName(e), r[0], r[31]);

    combine<float><<<1, 32>>>(d, o, TWO);
    cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost);
    printf("enum: %g", r[3]);
    combine<float, Combine::Add, 8><<<1, 32>>>(d, o, NONE);
    cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost);
    printf(" %g\n", r[3]);

    cudaStream_t s;
    cudaStreamCreate(&s);
    count<<<1, 1, 0, s>>>(m);
    cudaStreamAddCallback(s, done, &calls, 0);
    cudaStreamSynchronize(s);
    printf("callback: %d, EMPTY=\"%s\", latin1: %d, bom: %d\n", calls, STR(EMPTY), LATIN1_OK, BOM_OK);
    printf("once: %d\n", again(Once{41}));

    ulong *w, hw[32];
    cudaMalloc(&w, sizeof hw);
    TIMER_START
    widths<<<1, 32>>>(w);
    TIMER_STOP("widths (1, 32)")
    cudaMemcpy(hw, w, sizeof hw, cudaMemcpyDeviceToHost);
    printf("typedefs: %lu %lu\n", hw[3] >> 40, hw[31] >> 40);
    return 0;
}
