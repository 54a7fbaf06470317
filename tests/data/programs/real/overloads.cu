// Overloaded kernels: each launch runs the overload its arguments pick, and the profile keeps
// them apart by their parameter types.
#include <cstdio>
#include "overloads.h"

__global__ void fill(int *p, int v) { p[threadIdx.x] = v; }
__global__ void fill(float *p, float v) { p[threadIdx.x] = v + 0.5f; }
template <typename T> __global__ void twice(T *p) { p[threadIdx.x] *= 2; }
template <typename T> __global__ void twice(T *p, int n) { if ((int)threadIdx.x < n) p[threadIdx.x] *= 3; }

int main() {
    int *a;
    float *b;
    uchar4 *c;
    cudaMalloc(&a, 32 * sizeof(int));
    cudaMalloc(&b, 32 * sizeof(float));
    cudaMalloc(&c, 32 * sizeof(uchar4));
    fill<<<1, 32>>>(a, 7);
    fill<<<1, 32>>>(b, 1.0f);
    twice<<<1, 32>>>(a);
    twice<<<1, 32>>>(b, 16);
    to_byte<<<1, 16>>>(c, b + 16);
    int ha[32];
    float hb[32];
    uchar4 hc[32];
    cudaMemcpy(ha, a, sizeof ha, cudaMemcpyDeviceToHost);
    cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost);
    cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, static_cast<void (*)(float *, float)>(fill));
    printf("overloads: %d %g %g %d %d %s\n", ha[0], hb[0], hb[31], hc[0].x, hc[15].w,
           cudaGetErrorName(e));
    return 0;
}
