// cuda_fp16.h's conversions between halves and integers, on the device and on the host (the same
// header), over every half and a spread of integers: a __half from each integer type (as
// NVIDIA's constructors make one: `__half2float(s.x)` of a `short` field), the _rn intrinsics, and
// each half-to-integer conversion in its four roundings, saturated, NaN as 0.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__host__ __device__ inline unsigned long long mix(unsigned long long h, unsigned long long x) {
    return (h ^ x) * 1099511628211ull;
}

__host__ __device__ inline unsigned long long from_half(int i) {
    __half h = __ushort_as_half((unsigned short)i);
    unsigned long long r = 1469598103934665603ull;
#define ALL(stem) r = mix(r, (unsigned long long)stem##_rz(h)); r = mix(r, (unsigned long long)stem##_rn(h)); \
    r = mix(r, (unsigned long long)stem##_rd(h)); r = mix(r, (unsigned long long)stem##_ru(h));
    ALL(__half2short) ALL(__half2ushort) ALL(__half2int) ALL(__half2uint) ALL(__half2ll) ALL(__half2ull)
#undef ALL
    return r;
}

__host__ __device__ inline unsigned long long to_half(int i) {
    long long v = (long long)i * 977 - 40000000;
    short s = (short)v;
    unsigned short us = (unsigned short)v;
    unsigned long long r = 1469598103934665603ull;
    r = mix(r, __half_as_ushort(__half(s)));
    r = mix(r, __half_as_ushort(__half(us)));
    r = mix(r, __half_as_ushort(__half((unsigned int)v)));
    r = mix(r, __half_as_ushort(__half((long)v)));
    r = mix(r, __half_as_ushort(__half(v)));
    r = mix(r, __half_as_ushort(__half((unsigned long long)v)));
    r = mix(r, __half_as_ushort(__short2half_rn(s)));
    r = mix(r, __half_as_ushort(__ushort2half_rn(us)));
    r = mix(r, __half_as_ushort(__ll2half_rn(v)));
    r = mix(r, __half_as_ushort(__ull2half_rn((unsigned long long)v)));
    r = mix(r, (unsigned long long)(long long)(__half2float(s) * 2.0f));
    return r;
}

__global__ void both(unsigned long long *o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    o[2 * i] = from_half(i);
    o[2 * i + 1] = to_half(i);
}

int main() {
    const int n = 65536;
    unsigned long long *o;
    cudaMallocManaged(&o, 2 * n * sizeof(unsigned long long));
    both<<<n / 256, 256>>>(o);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    int a = 0, b = 0;
    for (int i = 0; i < n; i++) {
        a += o[2 * i] == from_half(i);
        b += o[2 * i + 1] == to_half(i);
    }
    printf("half to integers %d of %d\nintegers to half %d of %d\n", a, n, b, n);
    return 0;
}
