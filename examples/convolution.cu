// A 2-D convolution whose filter lives in __constant__ memory, set from the host with
// cudaMemcpyToSymbol; the result is checked against the same convolution on the CPU.
//
//   warpsim cu examples/convolution.cu -- [width] [height]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define RADIUS 2
#define DIAMETER (2 * RADIUS + 1)

__constant__ float c_filter[DIAMETER * DIAMETER];

__global__ void convolve(const float *in, float *out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float sum = 0.0f;
    for (int dy = -RADIUS; dy <= RADIUS; dy++) {
        for (int dx = -RADIUS; dx <= RADIUS; dx++) {
            int sx = min(max(x + dx, 0), width - 1);
            int sy = min(max(y + dy, 0), height - 1);
            sum += c_filter[(dy + RADIUS) * DIAMETER + dx + RADIUS] * in[sy * width + sx];
        }
    }
    out[y * width + x] = sum;
}

static void convolve_cpu(const float *in, float *out, const float *f, int width, int height) {
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float sum = 0.0f;
            for (int dy = -RADIUS; dy <= RADIUS; dy++)
                for (int dx = -RADIUS; dx <= RADIUS; dx++) {
                    int sx = std::min(std::max(x + dx, 0), width - 1);
                    int sy = std::min(std::max(y + dy, 0), height - 1);
                    sum += f[(dy + RADIUS) * DIAMETER + dx + RADIUS] * in[sy * width + sx];
                }
            out[y * width + x] = sum;
        }
}

int main(int argc, char **argv) {
    int width = argc > 1 ? atoi(argv[1]) : 256;
    int height = argc > 2 ? atoi(argv[2]) : 192;
    size_t bytes = (size_t)width * height * sizeof(float);
    float filter[DIAMETER * DIAMETER];
    float total = 0.0f;
    for (int i = 0; i < DIAMETER * DIAMETER; i++) total += filter[i] = 1.0f + (i % 3);
    for (int i = 0; i < DIAMETER * DIAMETER; i++) filter[i] /= total;
    cudaMemcpyToSymbol(c_filter, filter, sizeof(filter));
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes), *ref = (float *)malloc(bytes);
    for (int i = 0; i < width * height; i++) h_in[i] = (float)((i * 37) % 101);
    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
    dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
    convolve<<<grid, block>>>(d_in, d_out, width, height);
    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    convolve_cpu(h_in, ref, filter, width, height);
    double worst = 0.0;
    for (int i = 0; i < width * height; i++) worst = fmax(worst, fabs(h_out[i] - ref[i]));
    printf("convolution %dx%d with a %dx%d filter: largest difference %g\n", width, height,
           DIAMETER, DIAMETER, worst);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    free(ref);
    printf(worst < 1e-4 ? "PASSED\n" : "FAILED\n");
    return worst < 1e-4 ? 0 : 1;
}
