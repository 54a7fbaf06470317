// Kernels and device functions that macros define: the host pass must give each its launch
// stub (or drop it) as the device pass sees it after preprocessing.
#include <cstdio>
#include <cuda_runtime.h>
#include "macro_kernels.cuh"

#define HD __host__ __device__
#define DEVICE_ONLY __device__

HD long long twice(int t) { return 2LL * t; }
HD long long square(int t) { return (long long)t * t; }
DEVICE_ONLY long long lane(int t) { return t + threadIdx.x % 32 - t % 32; }

// A family of kernels from a macro with parameters.
#define KERNEL(f) \
    __global__ void k_##f(long long *o) { int t = blockIdx.x * blockDim.x + threadIdx.x; o[t] = f(t); }
KERNEL(twice)
KERNEL(square)
KERNEL(lane)

// Through another macro, with a template kernel and a device function it calls.
#define SCALE_DEVICE(T) __device__ T scale_##T(T v, T s) { return v * s; }
#define SCALE_KERNEL(T)                                                   \
    SCALE_DEVICE(T)                                                       \
    template <int N> __global__ void scale_##T##_k(T *v, T s) {           \
        for (int i = threadIdx.x; i < N; i += blockDim.x) v[i] = scale_##T(v[i], s); \
    }
SCALE_KERNEL(int)
SCALE_KERNEL(double)

// From a header's macro; in a namespace.
namespace ops {
HD long long negate(int t) { return -t; }
UNARY_KERNEL(negate_all, negate)
}

// A macro that launches a kernel a macro defines.
#define RUN(k, o) k<<<2, 32>>>(o)

int main() {
    long long *o;
    cudaMallocManaged(&o, 64 * sizeof(long long));
    const char *names[] = {"twice", "square", "lane"};
    for (int k = 0; k < 3; ++k) {
        if (k == 0) RUN(k_twice, o);
        if (k == 1) RUN(k_square, o);
        if (k == 2) k_lane<<<1, 64>>>(o);
        cudaDeviceSynchronize();
        long long sum = 0;
        for (int i = 0; i < 64; ++i) sum += o[i];
        printf("%s %lld %lld\n", names[k], o[63], sum);
    }

    int *vi;
    double *vd;
    cudaMallocManaged(&vi, 100 * sizeof(int));
    cudaMallocManaged(&vd, 100 * sizeof(double));
    for (int i = 0; i < 100; ++i) {
        vi[i] = i;
        vd[i] = i + 0.5;
    }
    scale_int_k<100><<<1, 32>>>(vi, 3);
    scale_double_k<100><<<1, 32>>>(vd, 0.5);
    cudaDeviceSynchronize();
    printf("scale %d %.2f\n", vi[99], vd[99]);

    int *in;
    cudaMallocManaged(&in, 64 * sizeof(int));
    for (int i = 0; i < 64; ++i) in[i] = i * 7;
    ops::negate_all<<<2, 32>>>(in, o, 64);
    cudaDeviceSynchronize();
    printf("negate %lld %lld\n", o[1], o[63]);

    cudaFuncAttributes a;
    printf("attributes %d\n", cudaFuncGetAttributes(&a, k_square) == cudaSuccess);
    cudaFree(o);
    cudaFree(vi);
    cudaFree(vd);
    cudaFree(in);
    return 0;
}
