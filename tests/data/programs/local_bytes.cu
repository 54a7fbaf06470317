// A thread's own variable read through a pointer of another type (`*(char *)&one`,
// `*reinterpret_cast<unsigned *>(&h2)`, a float's bits): the bytes it covers, little-endian as
// on the GPU. Each function runs on the device for 256 threads and on the host, compared.
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define N 256

__host__ __device__ long long endianness(int t) {
    const unsigned one = 1;  // a constant whose address is taken
    bool big_endian = !(*((char *)(&one)));
    return big_endian ? -t : t;
}

__host__ __device__ long long bytes_of_int(int t) {
    int x = 0x01020304 * (t + 1);
    const unsigned char *b = (const unsigned char *)&x;
    short mid = *(const short *)(b + 2);
    return b[0] + 10 * b[1] + 100 * b[2] + 1000 * b[3] + 7 * mid;
}

__host__ __device__ long long float_bits(int t) {
    float f = t * 0.375f - 11.0f;
    unsigned u = *reinterpret_cast<const unsigned *>(&f);
    double d = t * 1e-3;
    long long l = *(const long long *)&d;
    return (long long)(u ^ (u >> 7)) + (l >> 20);
}

__host__ __device__ long long half2_bits(int t) {
    __half2 h = __floats2half2_rn(t * 0.5f, -t * 0.25f);
    unsigned w = *reinterpret_cast<const unsigned *>(&h) & 0x7fff7fffu;  // |h.x|, |h.y|
    __half2 back = *reinterpret_cast<const __half2 *>(&w);
    return w + (long long)(__low2float(back) * 100) + (long long)(__high2float(back) * 10000);
}

typedef long long (*Fn)(int);

template <int F> __global__ void k(long long *o) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    o[t] = F == 0 ? endianness(t) : F == 1 ? bytes_of_int(t) : F == 2 ? float_bits(t) : half2_bits(t);
}

int main() {
    long long *o;
    cudaMallocManaged(&o, N * sizeof(long long));
    struct { const char *name; void (*kernel)(long long *); Fn host; } cases[] = {
        {"endianness", k<0>, endianness},
        {"bytes_of_int", k<1>, bytes_of_int},
        {"float_bits", k<2>, float_bits},
        {"half2_bits", k<3>, half2_bits},
    };
    for (auto &c : cases) {
        c.kernel<<<N / 64, 64>>>(o);
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        int same = 0;
        for (int t = 0; t < N; t++) same += o[t] == c.host(t);
        printf("%s %d of %d, last %lld\n", c.name, same, N, o[N - 1]);
    }
    return 0;
}
