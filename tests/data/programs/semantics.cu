// C and C++ rules in device code, each checked against the host compiler's run of the same
// __host__ __device__ function: conversions between char/short types of one width, the types
// of integer literals, default member initialisers, macros next to other tokens, <stdint.h>'s and <limits.h>'s macros
// (which nvcc's headers bring in without an #include). The program
// prints, per function, how many of 256 threads agree with the host and thread 255's value.
#include <cstdio>

#define real float
#define NEGONE -1
#define TWICE(x) 2 * x

struct Defaults {
    int a = 5;
    float b{2.5f};
    int c;
};

struct Nested {
    Defaults d;
    int e = 7;
    __host__ __device__ Nested(int x) : e(x) {}
};

__host__ __device__ float defaults(int t) {
    Defaults d;
    d.c = t;
    Defaults e{};
    Defaults f{9};                   // b takes its default
    Nested n(t);                     // n.d takes Defaults' defaults
    return d.a * 100 + d.b + d.c + e.a + e.b + f.a * 1000 + f.b + n.d.a * 10 + n.d.b + n.e;
}

__host__ __device__ long long same_width(int t) {
    char c = (char)(t - 128);
    unsigned char u = c;             // initialisation
    short s = (short)(t * 300 - 40000);
    unsigned short us = s;
    unsigned short big = (unsigned short)(65535 - t);
    return (long long)u * 1000000 + (unsigned char)c * 1000 + us + (short)big +
           static_cast<signed char>(u);
}

__host__ __device__ long long literals(int t) {
    long long a = -2147483648;       // long: the negation of 2147483648
    long long b = t * 3000000000;    // 3000000000 is a long, not an unsigned int
    long long c = 0xFFFFFFFF + t;    // hex: unsigned int, wraps at 32 bits
    int below = -1 < 4294967295;     // true: 4294967295 is a long
    return a + b + c + below + (long long)sizeof(2147483648);
}

__host__ __device__ float macros(int t) {
    real inc = 0.5f;                 // `real inc`, not `realinc` or `floatinc`
    int x = t;
    return x-NEGONE + TWICE(t) + inc;
}

__host__ __device__ long long limits(int t) {
    unsigned long long big = UINT64_C(0xC96C5795D7870F42) >> (t % 64);
    long long neg = INT64_C(-1) * t;
    return (long long)(big & 0xFFFF) + neg + CHAR_BIT + SHRT_MAX + (t < 200 ? INT_MAX : INT_MIN) +
           UINT32_C(7) + (UCHAR_MAX ^ t);
}

// `<` after a variable is less-than, whatever follows: `i < n >> 3` is `i < (n >> 3)`, not
// a template `i<n>` compared with 3.
__host__ __device__ long long comparisons(int t) {
    long long sum = 0;
    for (int iter = 0; iter < t >> 3; iter++) sum += iter;
    int lo = t % 7, hi = t % 11;
    sum += (lo < hi >> 1) + 2 * (lo < t >> 4) + 4 * (hi < lo << 1);
    return sum;
}

__global__ void k_limits(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = limits(t); }
__global__ void k_defaults(float *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = defaults(t); }
__global__ void k_same_width(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = same_width(t); }
__global__ void k_literals(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = literals(t); }
__global__ void k_macros(float *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = macros(t); }
__global__ void k_comparisons(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = comparisons(t); }

const int n = 256;

template <typename T> void report(const char *name, T *d, T (*f)(int)) {
    T h[n];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == f(t);
    printf("%s %d of %d, last %.1f\n", name, same, n, (double)h[n - 1]);
}

int main() {
    long long *dl;
    float *df;
    cudaMalloc(&dl, n * sizeof(long long));
    cudaMalloc(&df, n * sizeof(float));
    k_same_width<<<2, n / 2>>>(dl);
    report("same_width", dl, same_width);
    k_literals<<<2, n / 2>>>(dl);
    report("literals", dl, literals);
    k_defaults<<<2, n / 2>>>(df);
    report("defaults", df, defaults);
    k_limits<<<2, n / 2>>>(dl);
    report("limits", dl, limits);
    k_macros<<<2, n / 2>>>(df);
    report("macros", df, macros);
    k_comparisons<<<2, n / 2>>>(dl);
    report("comparisons", dl, comparisons);
    return 0;
}
