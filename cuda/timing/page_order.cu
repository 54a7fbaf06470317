// What the order of a wave's blocks costs in DRAM: the same tiled copy of a 4096² (and 8192²)
// float matrix with its tiles visited in panels W tiles wide. Block b copies tile
// (panel × W + b % W, (b / W) % tiles): consecutive blocks walk W tiles across, then the next
// 32 rows down, so the blocks resident at once (about a thousand on an H100) cover runs of
// W × 128 contiguous bytes per matrix row. W = all tiles is row order (whole rows); W = 1 walks
// down columns (128 bytes per row); panel 0 is the diagonal transpose's order. Same sectors,
// nearly the same instructions, different DRAM rows.
//
//   nvcc -O3 -arch=sm_90 -o pages page_order.cu && ./pages        (CSV: size, panel, µs)
//   warpsim cu page_order.cu -- once                               (each launch once)
//
// Each: 3 warm-ups, then the median of 30 launches between two CUDA events (launches.h).

#include <algorithm>
#include <cstdio>
#include <vector>
#include "launches.h"

#define TILE 32
#define ROWS 8

// panel = 0: the diagonal transpose's order instead (block b of row r = b / tiles takes tile
// ((b + r) % tiles, b % tiles)): consecutive blocks step one tile down and one across.
__global__ void panel_copy(float *o, const float *in, int n, int panel) {
    __shared__ float tile[TILE * TILE];
    unsigned tiles = n / TILE, b = blockIdx.x, bx, by;
    if (panel == 0) {
        bx = (b % tiles + b / tiles) % tiles;
        by = b % tiles;
    } else {
        unsigned per_panel = panel * tiles;
        bx = b / per_panel * panel + b % panel;
        by = b % per_panel / panel;
    }
    int x = bx * TILE + threadIdx.x, y = by * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[(threadIdx.y + j) * TILE + threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    for (int j = 0; j < TILE; j += ROWS)
        o[(size_t)(y + j) * n + x] = tile[(threadIdx.y + j) * TILE + threadIdx.x];
}

int main(int argc, char **argv) {
    const bool once = argc > 1 && argv[1][0] == 'o';
    printf("size,panel,median_us,min_us\n");
    for (int n : {4096, 8192}) {
        float *in, *out;
        size_t bytes = (size_t)n * n * sizeof(float);
        if (cudaMalloc(&in, bytes) != cudaSuccess || cudaMalloc(&out, bytes) != cudaSuccess) return 1;
        cudaMemset(in, 1, bytes);
        int tiles = n / TILE;
        dim3 grid(tiles * tiles), block(TILE, ROWS);
        for (int panel = 0; panel <= tiles; panel = panel ? panel * 2 : 1) {
            if (once) {
                panel_copy<<<grid, block>>>(out, in, n, panel);
                continue;
            }
            Timed t = time_launches([&] { panel_copy<<<grid, block>>>(out, in, n, panel); });
            printf("%d,%d,%.1f,%.1f\n", n, panel, t.median_us, t.min_us);
        }
        // Every byte of the input was 1, so every byte of the copy must be.
        std::vector<unsigned char> h(bytes);
        cudaMemcpy(h.data(), out, bytes, cudaMemcpyDeviceToHost);
        if (std::any_of(h.begin(), h.end(), [](unsigned char c) { return c != 1; })) {
            fprintf(stderr, "panel_copy %d: wrong copy\n", n);
            return 1;
        }
        cudaFree(in);
        cudaFree(out);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
