// A thread's local array read and written through a pointer of another type at an index known
// only at run time (`reinterpret_cast<float *>(pack)[i]` of a `uint4 pack[2]`, as 128-bit packs
// are unpacked into halves or floats): the bytes each element covers, little-endian as on the
// GPU. Each function runs on the device for 256 threads and on the host, compared.
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define N 256

// Element i of the `T`s that `p` holds: reinterpreted on the device; on the host through
// memcpy, which g++'s strict aliasing leaves alone.
template <typename T, typename S> __host__ __device__ T get(const S *p, int i) {
#ifdef __CUDA_ARCH__
    return reinterpret_cast<const T *>(p)[i];
#else
    T v;
    memcpy(&v, (const char *)p + i * sizeof(T), sizeof(T));
    return v;
#endif
}

template <typename T, typename S> __host__ __device__ void put(S *p, int i, T v) {
#ifdef __CUDA_ARCH__
    reinterpret_cast<T *>(p)[i] = v;
#else
    memcpy((char *)p + i * sizeof(T), &v, sizeof(T));
#endif
}

__host__ __device__ long long floats_of_pack(int t) {
    uint4 pack[2];
    for (int k = 0; k < 2; k++) pack[k] = make_uint4(0x3f800000u + t * 977u * (k + 1), 0x40000000u + t,
                                                    0xc0400000u - t * 31u, 0x3e800000u + k);
    float s = 0;
    for (int i = 0; i < 8; i++) s += get<float>(pack, i) - i;  // no product: fma contraction is not the point
    uint4 out;
    for (int i = 0; i < 4; i++) put<float>(&out, (i + t) % 4, s * i);
    return (long long)s + out.x + 3 * out.y + 7 * out.z + 11 * out.w;
}

__host__ __device__ long long halves_of_pack(int t) {
    uint4 pack = make_uint4(0x3c003800u + t, 0x44004000u ^ (t << 3), 0xbc00c000u + t * 5u, 0x7bff0001u);
    float s = 0;
    for (unsigned i = 0; i < 8; i++) s += __half2float(get<__half>(&pack, i)) * (i % 3 + 1);
    uint4 out = make_uint4(1, 2, 3, 4);
    for (unsigned i = t % 2; i < 8; i += 2) put<__half>(&out, i, __float2half(s + i));
    return (long long)s + out.x + (long long)out.y * 3 + (long long)out.z * 5 + (long long)out.w * 7;
}

__host__ __device__ long long bytes_of_words(int t) {
    unsigned w[3] = {0x04030201u * (t + 1), 0xa0b0c0d0u ^ t, 0x11223344u};
    long long s = 0;
    for (int i = t % 5; i < 12; i++) s = s * 3 + ((unsigned char *)w)[i];
    for (int i = 0; i < 6; i += 1 + t % 2) put<unsigned short>(w, i, (unsigned short)(get<unsigned short>(w, i) + i * 257));
    unsigned char *c = (unsigned char *)w + t % 4;
    c[0] = 0x5a;
    c += 2;
    *c = 0xa5;
    return s + w[0] + 5LL * w[1] + 9LL * w[2];
}

__host__ __device__ long long float_pointer_along_float4(int t) {
    float4 v = make_float4(t, 2.5f * t, -1.0f, 0.5f);
    float *f = &v.x;
    float s = 0;
    for (int i = 0; i < 4; i++) {
        s += *f * (i + 2);
        *f += i;
        f++;
    }
    return (long long)(s * 4) + (long long)(v.y * 8) + (long long)v.w;
}

typedef long long (*Fn)(int);

template <int F> __global__ void k(long long *o) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    o[t] = F == 0 ? floats_of_pack(t) : F == 1 ? halves_of_pack(t) : F == 2 ? bytes_of_words(t)
                                                                             : float_pointer_along_float4(t);
}

int main() {
    long long *o;
    cudaMallocManaged(&o, N * sizeof(long long));
    struct { const char *name; void (*kernel)(long long *); Fn host; } cases[] = {
        {"floats_of_pack", k<0>, floats_of_pack},
        {"halves_of_pack", k<1>, halves_of_pack},
        {"bytes_of_words", k<2>, bytes_of_words},
        {"float_pointer_along_float4", k<3>, float_pointer_along_float4},
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
