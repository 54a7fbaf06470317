// Why the bandwidth-bound transposes differ on an H100: six copies of a 4096² (and 2048², 8192²)
// float matrix that move the same bytes, each changing one thing.
//
//   nvcc -O3 -arch=sm_90 -o order transpose_order.cu && ./order      (CSV: size, kernel, µs)
//
// * copy: load, store, four times per thread. The store may alias the next load, so nvcc keeps
//   them in order and each load waits alone: one load per warp in flight.
// * copy-restrict: the same with `__restrict__`: nvcc issues the four loads first.
// * copy-shared: the four loads into shared memory, a barrier, four stores.
// * copy-shared-identity-mod: copy-shared with the diagonal kernel's `%` (which names the same
//   block): the modulo's instructions alone.
// * copy-shared-diagonal-order: copy-shared with the blocks in the diagonal kernel's order
//   (computed without `%`): the order alone.
// * diagonal: the documents' diagonal transpose (order and modulo).
// * no-conflicts: the documents' padded transpose (rows read, columns written).
//
// Each: 3 warm-ups, then the median of 30 launches between two CUDA events (launches.h). `./order once`
// launches each kernel once at 4096² (for a profiler: see results/transpose_order_ncu.txt).

#include <cstdio>
#include "launches.h"

#define TILE 32
#define ROWS 8

__global__ void copy(float *o, const float *in, int w, int h) {
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) o[(y + j) * w + x] = in[(y + j) * w + x];
}

__global__ void copy_restrict(float *__restrict__ o, const float *__restrict__ in, int w, int h) {
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) o[(y + j) * w + x] = in[(y + j) * w + x];
}

// copy-shared with the tile at (bx, by).
__device__ void copy_tile(float *o, const float *in, int w, int h, unsigned bx, unsigned by) {
    __shared__ float tile[TILE * TILE];
    int x = bx * TILE + threadIdx.x, y = by * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) tile[(threadIdx.y + j) * TILE + threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) o[(y + j) * w + x] = tile[(threadIdx.y + j) * TILE + threadIdx.x];
}

__global__ void copy_shared(float *o, const float *in, int w, int h) {
    copy_tile(o, in, w, h, blockIdx.x, blockIdx.y);
}

__global__ void copy_shared_identity_mod(float *o, const float *in, int w, int h) {
    copy_tile(o, in, w, h, (blockIdx.x + gridDim.x) % gridDim.x, blockIdx.y);
}

__global__ void copy_shared_diagonal_order(float *o, const float *in, int w, int h) {
    unsigned bx = blockIdx.x + blockIdx.y;
    if (bx >= gridDim.x) bx -= gridDim.x;
    copy_tile(o, in, w, h, bx, blockIdx.x);
}

__global__ void diagonal(float *o, const float *in, int w, int h) {
    __shared__ float tile[TILE][TILE + 1];
    int bx = (blockIdx.x + blockIdx.y) % gridDim.x, by = blockIdx.x;
    int x = bx * TILE + threadIdx.x, y = by * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = by * TILE + threadIdx.x;
    y = bx * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < h && y + j < w) o[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void no_conflicts(float *o, const float *in, int w, int h) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < h && y + j < w) o[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

typedef void (*Kernel)(float *, const float *, int, int);

int main(int argc, char **argv) {
    const bool once = argc > 1 && argv[1][0] == 'o';
    const struct { const char *name; Kernel k; } ks[] = {
        {"copy", copy},
        {"copy-restrict", copy_restrict},
        {"copy-shared", copy_shared},
        {"copy-shared-identity-mod", copy_shared_identity_mod},
        {"copy-shared-diagonal-order", copy_shared_diagonal_order},
        {"diagonal", diagonal},
        {"no-conflicts", no_conflicts},
    };
    printf("size,kernel,median_us,min_us\n");
    for (int n : {2048, 4096, 8192}) {
        if (once && n != 4096) continue;
        float *in, *out;
        size_t bytes = (size_t)n * n * sizeof(float);
        if (cudaMalloc(&in, bytes) != cudaSuccess || cudaMalloc(&out, bytes) != cudaSuccess) return 1;
        cudaMemset(in, 1, bytes);
        dim3 grid(n / TILE, n / TILE), block(TILE, ROWS);
        for (const auto &k : ks) {
            if (once) {
                k.k<<<grid, block>>>(out, in, n, n);
                continue;
            }
            Timed t = time_launches([&] { k.k<<<grid, block>>>(out, in, n, n); });
            printf("%d,%s,%.1f,%.1f\n", n, k.name, t.median_us, t.min_us);
        }
        cudaFree(in);
        cudaFree(out);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
