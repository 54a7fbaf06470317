// cuda_fp16.h's math functions over every half value: the device's results against the host's
// run of the same header (both compute in double and round once), per function the number of
// the 65,536 operands whose result bits agree.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define FUNCTIONS(X) X(hexp) X(hexp2) X(hexp10) X(hlog) X(hlog2) X(hlog10) X(hsqrt) X(hrsqrt) \
    X(hrcp) X(hsin) X(hcos) X(htanh) X(hceil) X(hfloor) X(htrunc) X(hrint)

__device__ __host__ inline unsigned short apply(int f, __half x) {
    int k = 0;
#define CASE(h) if (f == k++) return __half_as_ushort(h(x));
    FUNCTIONS(CASE)
#undef CASE
    return 0;
}

// The half2 forms, on two halves at once.
__device__ __host__ inline unsigned short pair(int i) {
    __half2 h = __halves2half2(__ushort_as_half((unsigned short)i), __ushort_as_half((unsigned short)~i));
    __half2 r = h2sqrt(h2exp(h2rcp(h)));
    return __half_as_ushort(r.x) ^ __half_as_ushort(r.y);
}

__global__ void all(unsigned short *o, int f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    o[i] = apply(f, __ushort_as_half((unsigned short)i));
    if (f == 0) o[65536 + i] = pair(i);
}

int main() {
    const char *names[] = {
#define NAME(h) #h,
        FUNCTIONS(NAME)
#undef NAME
    };
    unsigned short *o;
    cudaMallocManaged(&o, 2 * 65536 * sizeof(unsigned short));
    for (int f = 0; f < 16; f++) {
        all<<<65536 / 256, 256>>>(o, f);
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        int same = 0;
        for (int i = 0; i < 65536; i++) same += o[i] == apply(f, __ushort_as_half((unsigned short)i));
        printf("%s %d\n", names[f], same);
        if (f == 0) {
            same = 0;
            for (int i = 0; i < 65536; i++) same += o[65536 + i] == pair(i);
            printf("half2 %d\n", same);
        }
    }
    return 0;
}
