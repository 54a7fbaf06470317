// The host half of a multi-file program: plain C++ that calls the GPU through kernels.h.
//
//   warpsim cu examples/multifile/main.cpp examples/multifile/kernels.cu -- [n]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels.h"

int main(int argc, char **argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 100000;
    std::vector<unsigned char> data(n);
    std::vector<unsigned int> expected(256, 0), bins(256, 0);
    for (int i = 0; i < n; i++) {
        data[i] = (unsigned char)((i * 2654435761u) >> 24);
        expected[data[i]]++;
    }
    if (gpu_histogram(data.data(), n, bins.data()) != 0) {
        std::fprintf(stderr, "gpu_histogram failed\n");
        return 1;
    }
    int wrong = 0;
    for (int b = 0; b < 256; b++) wrong += bins[b] != expected[b];
    std::vector<float> v(1000);
    for (int i = 0; i < 1000; i++) v[i] = (float)i;
    if (gpu_scale(v.data(), 1000, 3.0f) != 0) return 1;
    for (int i = 0; i < 1000; i++) wrong += v[i] != 3.0f * i;
    std::printf("histogram of %d bytes and a scaled vector: %d wrong\n", n, wrong);
    std::printf(wrong ? "FAILED\n" : "PASSED\n");
    return wrong ? 1 : 0;
}
