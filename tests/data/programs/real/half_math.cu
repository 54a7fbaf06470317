// cuda_fp16.h's math functions on every half value, hashed per function (FNV-1a over the
// 65,536 result bits, NaNs as one canonical pattern), to compare with the GPU's
// (half_math.h100.txt: the same hashes of an H100's results of this kernel, built by nvcc 13).
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define FUNCTIONS(X) X(hexp) X(hexp2) X(hexp10) X(hlog) X(hlog2) X(hlog10) X(hsqrt) X(hrsqrt) \
    X(hrcp) X(hsin) X(hcos) X(htanh) X(hceil) X(hfloor) X(htrunc) X(hrint)

__device__ unsigned short apply(int f, __half x) {
    int k = 0;
#define CASE(h) if (f == k++) return __half_as_ushort(h(x));
    FUNCTIONS(CASE)
#undef CASE
    return 0;
}

__global__ void all(unsigned short *o, int f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    o[i] = apply(f, __ushort_as_half((unsigned short)i));
}

unsigned long long fnv(const unsigned short *v, int n) {
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) {
        unsigned short x = v[i];
        if ((x & 0x7c00) == 0x7c00 && (x & 0x3ff) != 0) x = 0x7fff;
        h = (h ^ x) * 1099511628211ull;
    }
    return h;
}

int main() {
    const char *names[] = {
#define NAME(h) #h,
        FUNCTIONS(NAME)
#undef NAME
    };
    unsigned short *o;
    cudaMallocManaged(&o, 65536 * sizeof(unsigned short));
    for (int f = 0; f < 16; f++) {
        all<<<65536 / 256, 256>>>(o, f);
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        printf("%s %016llx\n", names[f], fnv(o, 65536));
    }
    return 0;
}
