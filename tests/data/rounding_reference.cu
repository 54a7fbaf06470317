// Makes tests/data/rounding.h100: runs rounding.cu's kernel on a GPU and prints, per
// intrinsic, the FNV-1a hash of its results over the 4096 threads (u64s, little-endian, in
// thread order); with a file argument, also writes every result there (raw, as the kernel's
// buffer). nvcc -arch=sm_90 -o rounding_reference rounding_reference.cu
#include <cstdio>
#include <vector>
#include "rounding.cu"

int main(int argc, char **argv) {
    const int n = 4096, intrinsics = 115;
    unsigned long long *d = nullptr;
    size_t bytes = sizeof(unsigned long long) * n * intrinsics;
    if (cudaMalloc(&d, bytes) != cudaSuccess) return 1;
    rounding<<<n / 256, 256>>>(d, n);
    std::vector<unsigned long long> h((size_t)n * intrinsics);
    if (cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        fwrite(h.data(), 1, bytes, f);
        fclose(f);
    }
    for (int k = 0; k < intrinsics; ++k) {
        unsigned long long x = 0xcbf29ce484222325ULL;
        for (int i = 0; i < n; ++i)
            for (int b = 0; b < 8; ++b) {
                x ^= (h[(size_t)k * n + i] >> (8 * b)) & 0xff;
                x *= 0x100000001b3ULL;
            }
        printf("%016llx\n", x);
    }
    return 0;
}
