// What DRAM charges for sectors far apart: every thread reads one float `stride` floats after
// its neighbour's (2^21 threads, out[i] = in[i × stride]). From a stride of 8 floats on, every
// lane reads a sector of its own (32 per request, 64 MiB of sectors), spaced further and further
// apart: the sectors stay the same, their runs shrink to one sector and the gaps grow.
//
//   nvcc -O3 -arch=sm_90 -o stride stride_read.cu && ./stride     (CSV: stride, µs)
//   warpsim cu stride_read.cu -- once                               (each launch once)
//
// Each: 3 warm-ups, then the median of 30 launches between two CUDA events (launches.h).

#include <cstdio>
#include "launches.h"

__global__ void stride_read(float *out, const float *in, int stride) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    out[i] = in[i * stride];
}

int main(int argc, char **argv) {
    const bool once = argc > 1 && argv[1][0] == 'o';
    const int n = 1 << 21, most = 128;
    float *in, *out;
    if (cudaMalloc(&in, (size_t)n * most * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&out, n * sizeof(float)) != cudaSuccess)
        return 1;
    cudaMemset(in, 0, (size_t)n * most * sizeof(float));
    printf("stride,median_us,min_us\n");
    for (int stride = 1; stride <= most; stride *= 2) {
        if (once) {
            stride_read<<<n / 256, 256>>>(out, in, stride);
            continue;
        }
        Timed t = time_launches([&] { stride_read<<<n / 256, 256>>>(out, in, stride); });
        printf("%d,%.1f,%.1f\n", stride, t.median_us, t.min_us);
    }
    cudaFree(in);
    cudaFree(out);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
