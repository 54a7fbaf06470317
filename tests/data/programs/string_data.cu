// String literals used as data in device code: a `const char *` to one, a cast of one to bytes
// (`(const uint8_t *)"expand 32-byte k"`), one indexed directly and one passed to a function
// taking `const char *`. Each function runs on the device for 256 threads and on the host,
// compared.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define N 256

__host__ __device__ uint32_t pack4(const uint8_t *a) {
    return a[0] | (uint32_t)a[1] << 8 | (uint32_t)a[2] << 16 | (uint32_t)a[3] << 24;
}

__host__ __device__ int length(const char *s) {
    int n = 0;
    while (s[n]) n++;
    return n;
}

__host__ __device__ long long magic_words(int t) {
    const uint8_t *magic = (const uint8_t *)"expand 32-byte k";
    long long s = 0;
    for (int k = 0; k < 4; k++) s += (long long)pack4(magic + 4 * k) * (k + 1);
    return s + magic[t % 17];
}

__host__ __device__ long long digits(int t) {
    const char *hex = "0123456789abcdef";
    long long s = 0;
    for (int v = t + 1; v; v /= 16) s = s * 131 + hex[v % 16];
    return s + "xyz"[t % 3] + length("a string\tlong \"enough\"") * 1000 + length(hex + t % 16);
}

typedef long long (*Fn)(int);

template <int F> __global__ void k(long long *o) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    o[t] = F == 0 ? magic_words(t) : digits(t);
}

int main() {
    long long *o;
    cudaMallocManaged(&o, N * sizeof(long long));
    struct { const char *name; void (*kernel)(long long *); Fn host; } cases[] = {
        {"magic_words", k<0>, magic_words},
        {"digits", k<1>, digits},
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
