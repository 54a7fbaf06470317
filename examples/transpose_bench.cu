// Matrix transpose three ways, each timed with CUDA events and checked on the host: naive
// (uncoalesced stores), through a shared tile (coalesced, with bank conflicts), and through a
// padded tile (no bank conflicts). warpsim's summary shows why the times differ on a GPU.
//
//   warpsim cu examples/transpose_bench.cu -- [width] [height]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE 32
#define ROWS 8

__global__ void transpose_naive(float *out, const float *in, int width, int height) {
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height) out[x * height + (y + j)] = in[(y + j) * width + x];
}

__global__ void transpose_tiled(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

typedef void (*Kernel)(float *, const float *, int, int);

int main(int argc, char **argv) {
    int width = argc > 1 ? atoi(argv[1]) : 512;
    int height = argc > 2 ? atoi(argv[2]) : width;
    size_t bytes = (size_t)width * height * sizeof(float);
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    for (int i = 0; i < width * height; i++) h_in[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
    dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE), block(TILE, ROWS);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    const char *names[] = {"naive", "tiled", "padded"};
    Kernel kernels[] = {transpose_naive, transpose_tiled, transpose_padded};
    int failures = 0;
    for (int k = 0; k < 3; k++) {
        cudaMemset(d_out, 0, bytes);
        cudaEventRecord(start);
        kernels[k]<<<grid, block>>>(d_out, d_in, width, height);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int y = 0; y < height && !bad; y++)
            for (int x = 0; x < width; x++)
                if (h_out[x * height + y] != h_in[y * width + x]) {
                    bad = 1;
                    break;
                }
        failures += bad;
        printf("%-7s %dx%d: %8.3f ms, %s\n", names[k], width, height, ms, bad ? "WRONG" : "ok");
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    printf(failures ? "FAILED\n" : "PASSED\n");
    return failures ? 1 : 0;
}
