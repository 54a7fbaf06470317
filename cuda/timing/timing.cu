// warpsim timing set: launch configurations timed with CUDA events (the catalogue's defaults,
// the issues' sizes and kernels beyond the documents).
//
// The same program measures a real GPU and asks warpsim for its prediction:
//
//   nvcc -O3 -arch=sm_90 -o timing timing.cu && ./timing            # an H100's times
//   warpsim cu cuda/timing/timing.cu -- --warmup 0 --reps 1           # warpsim's predicted times
//
// Each configuration sets up its buffers, launches its kernel `warmup` times, then `reps`
// times, each launch between two events, and prints the median, min and max of the elapsed
// times (ms) in one CSV line. Under warpsim an event's elapsed time is the predicted GPU time of
// the work between the two records, so one launch is enough there.
//
// Options: --warmup W (3)  --reps R (20)  --only SUBSTRING (configurations whose name has it)

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__,    \
                    cudaGetErrorString(e_));                                              \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

static unsigned ceil_div(unsigned long long a, unsigned long long b) {
    return (unsigned)((a + b - 1) / b);
}

// ------------------------------------------------------------------------------ reductions
__global__ void reduce_interleaved(const float *x, float *out, unsigned int n) {
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    sdata[t] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_interleaved_strided(const float *x, float *out, unsigned int n) {
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    sdata[t] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * t;
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_sequential(const float *x, float *out, unsigned int n) {
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    sdata[t] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_first_add(const float *x, float *out, unsigned int n) {
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + t;
    float a = (i < n) ? x[i] : 0.0f;
    float b = (i + blockDim.x < n) ? x[i + blockDim.x] : 0.0f;
    sdata[t] = a + b;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

__device__ void warp_tail_step(volatile float *s, unsigned int t, unsigned int k) {
    float v = s[t] + s[t + k];
    __syncwarp();
    s[t] = v;
    __syncwarp();
}

__global__ void reduce_unroll_warp(const float *x, float *out, unsigned int n) {
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * (2 * blockDim.x) + t;
    float a = (i < n) ? x[i] : 0.0f;
    float b = (i + blockDim.x < n) ? x[i + blockDim.x] : 0.0f;
    sdata[t] = a + b;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *vs = sdata;
        warp_tail_step(vs, t, 32);
        warp_tail_step(vs, t, 16);
        warp_tail_step(vs, t, 8);
        warp_tail_step(vs, t, 4);
        warp_tail_step(vs, t, 2);
        warp_tail_step(vs, t, 1);
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

// Completely unrolled for blocks of 256 threads.
__global__ void reduce_unrolled(const float *x, float *out, unsigned int n) {
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * 512 + t;
    float a = (i < n) ? x[i] : 0.0f;
    float b = (i + 256 < n) ? x[i + 256] : 0.0f;
    sdata[t] = a + b;
    __syncthreads();
    if (t < 128) sdata[t] += sdata[t + 128];
    __syncthreads();
    if (t < 64) sdata[t] += sdata[t + 64];
    __syncthreads();
    if (t < 32) {
        volatile float *vs = sdata;
        warp_tail_step(vs, t, 32);
        warp_tail_step(vs, t, 16);
        warp_tail_step(vs, t, 8);
        warp_tail_step(vs, t, 4);
        warp_tail_step(vs, t, 2);
        warp_tail_step(vs, t, 1);
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_multi(const float *x, float *out, unsigned int n) {
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    float sum = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        sum += x[i];
    sdata[t] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_shuffle(const float *x, float *out, unsigned int n) {
    __shared__ float warp_sums[32];
    unsigned int t = threadIdx.x;
    unsigned int lane = t % 32, warp = t / 32;
    float v = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        v += x[i];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < blockDim.x / 32) ? warp_sums[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

// ------------------------------------------------------------------------------ transposes
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_copy(float *odata, const float *idata, int width, int height) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) odata[(y + j) * width + x] = idata[(y + j) * width + x];
}

__global__ void transpose_naive(float *odata, const float *idata, int width, int height) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

__global__ void transpose_copy_shared(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE_DIM * TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[(threadIdx.y + j) * TILE_DIM + threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            odata[(y + j) * width + x] = tile[(threadIdx.y + j) * TILE_DIM + threadIdx.x];
}

__global__ void transpose_coalesced(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_no_conflicts(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_diagonal(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int bx = (blockIdx.x + blockIdx.y) % gridDim.x;
    int by = blockIdx.x;
    int x = bx * TILE_DIM + threadIdx.x;
    int y = by * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = by * TILE_DIM + threadIdx.x;
    y = bx * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// ------------------------------------------------------------------------- memory access
__global__ void read_offset(const float *A, const float *B, float *C, int n, int offset) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;
    if (k < n) C[i] = A[k] + B[k];
}

__global__ void write_offset(const float *A, const float *B, float *C, int n, int offset) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;
    if (k < n) C[k] = A[i] + B[i];
}

__global__ void read_offset_unroll4(const float *A, const float *B, float *C, int n, int offset) {
    unsigned int i = blockIdx.x * blockDim.x * 4 + threadIdx.x;
    unsigned int k = i + offset;
    if (k + 3 * blockDim.x < n) {
        C[i] = A[k] + B[k];
        C[i + blockDim.x] = A[k + blockDim.x] + B[k + blockDim.x];
        C[i + 2 * blockDim.x] = A[k + 2 * blockDim.x] + B[k + 2 * blockDim.x];
        C[i + 3 * blockDim.x] = A[k + 3 * blockDim.x] + B[k + 3 * blockDim.x];
    }
}

struct innerStruct {
    float x;
    float y;
};

__global__ void test_inner_struct(const innerStruct *data, innerStruct *result, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float tx = data[i].x + 10.f;
        float ty = data[i].y + 20.f;
        result[i].x = tx;
        result[i].y = ty;
    }
}

__global__ void test_inner_array(const float *dx, const float *dy, float *rx, float *ry, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        rx[i] = dx[i] + 10.f;
        ry[i] = dy[i] + 20.f;
    }
}

__global__ void vector_add(const float *A, const float *B, float *C, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) C[i] = A[i] + B[i];
}

__global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray, int width, int height) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        int g = row * width + col;
        int c = g * 3;
        gray[g] = (unsigned char)(0.21f * rgb[c] + 0.71f * rgb[c + 1] + 0.07f * rgb[c + 2]);
    }
}

// ------------------------------------------------------------------------------ divergence
__device__ float heavy_a(float v) {
    for (int k = 0; k < 64; ++k) v = fmaf(v, 1.0001f, 0.5f);
    return v;
}
__device__ float heavy_b(float v) {
    for (int k = 0; k < 64; ++k) v = fmaf(v, v, 0.1f) * 0.5f;
    return v;
}

__global__ void branch_by_lane(float *out) {
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)(tid & 255u) * (1.0f / 256.0f);
    float r;
    if (tid % 2 == 0) r = heavy_a(v);
    else r = heavy_b(v);
    out[tid] = r;
}

__global__ void branch_by_warp(float *out) {
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)(tid & 255u) * (1.0f / 256.0f);
    float r;
    if ((tid / 32) % 2 == 0) r = heavy_a(v);
    else r = heavy_b(v);
    out[tid] = r;
}

// ------------------------------------------------------------------------------- stencils
#define RADIUS 3
#define STENCIL_BLOCK 256

__global__ void stencil_1d(const float *in, float *out, int n) {
    __shared__ float temp[STENCIL_BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        temp[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;
        temp[l + STENCIL_BLOCK] = g + STENCIL_BLOCK < n ? in[g + STENCIL_BLOCK] : 0.0f;
    }
    __syncthreads();
    float r = 0.0f;
    for (int o = -RADIUS; o <= RADIUS; ++o) r += temp[l + o];
    if (g < n) out[g] = r;
}

__global__ void stencil_2d(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
        int i = y * w + x;
        out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
    }
}

// ---------------------------------------------------------------------------------- matmul
#define MM_TILE 16

__global__ void matmul_naive(const float *A, const float *B, float *C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float s = 0.0f;
        for (int k = 0; k < n; ++k) s += A[row * n + k] * B[k * n + col];
        C[row * n + col] = s;
    }
}

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[MM_TILE][MM_TILE];
    __shared__ float Bs[MM_TILE][MM_TILE];
    int row = blockIdx.y * MM_TILE + threadIdx.y;
    int col = blockIdx.x * MM_TILE + threadIdx.x;
    float s = 0.0f;
    for (int t = 0; t < n / MM_TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t * MM_TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * MM_TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < MM_TILE; ++k) s += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = s;
}

// ------------------------------------------------------------------------------- atomics
__global__ void histogram_global(const unsigned char *data, unsigned int *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i]], 1u);
}

__global__ void histogram_shared(const unsigned char *data, unsigned int *bins, int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void atomic_one_address(unsigned int *counter, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(counter, 1u);
}

// -------------------------------------------------------------------- shared-memory banks
__global__ void smem_stride(float *out, int stride, int iters) {
    __shared__ float buf[256 * 33];
    unsigned int t = threadIdx.x;
    for (unsigned int j = t; j < 256 * 33; j += blockDim.x) buf[j] = (float)(j & 1023u);
    __syncthreads();
    volatile float *vb = buf;
    unsigned int idx = (t * stride) % (256 * 33);
    float acc = 0.0f;
    for (int it = 0; it < iters; ++it) acc += vb[idx];
    out[blockIdx.x * blockDim.x + t] = acc;
}

// Each thread read-modify-writes the word `start` words after its neighbour's, then moves on by
// `move` words, within 4096 words (16 KiB, in L1): every iteration waits for the last, and its
// load and store each touch 1 to 32 lines of 128 bytes (`start` 1 to 32).
__global__ void strided_rmw(unsigned int *m, int start, int move, int iters) {
    unsigned int idx = (threadIdx.x * start) % 4096u;
    for (int i = 0; i < iters; ++i) {
        m[idx] += idx * (unsigned int)i;
        idx = (idx + move) % 4096u;
    }
}

// ------------------------------------------------------------------------------- harness
static int g_warmup = 3, g_reps = 20;
static const char *g_only = nullptr;
static int g_count = 0;

static float *dev_floats(size_t n, unsigned int seed) {
    std::vector<float> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = (float)(int)((((unsigned int)(i + seed) * 2654435761u) >> 16) % 17u) - 8.0f;
    float *d = nullptr;
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

static float *dev_zeros(size_t n) {
    float *d = nullptr;
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemset(d, 0, n * sizeof(float)));
    return d;
}

// Time `launch` (one kernel launch) and print one CSV line.
static void timed(const char *family, const std::string &name, dim3 grid, dim3 block,
                  const std::function<void()> &launch) {
    if (g_only && !strstr(name.c_str(), g_only)) return;
    ++g_count;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int w = 0; w < g_warmup; ++w) launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < g_reps; ++r) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t = 0.0f;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    CK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    float median = ms.size() % 2 ? ms[ms.size() / 2] : 0.5f * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
    printf("%s,%s,%ux%ux%u,%ux%ux%u,%.5f,%.5f,%.5f,%zu\n", family, name.c_str(), grid.x, grid.y,
           grid.z, block.x, block.y, block.z, median, ms.front(), ms.back(), ms.size());
    fflush(stdout);
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
}

static bool wanted(const std::string &name) { return !g_only || strstr(name.c_str(), g_only); }

static void reductions() {
    typedef void (*Reduce)(const float *, float *, unsigned int);
    struct R { const char *name; Reduce k; int per_thread; bool capped; };
    const R rs[] = {
        {"reduce-interleaved", reduce_interleaved, 1, false},
        {"reduce-interleaved-strided", reduce_interleaved_strided, 1, false},
        {"reduce-sequential", reduce_sequential, 1, false},
        {"reduce-first-add", reduce_first_add, 2, false},
        {"reduce-unroll-warp", reduce_unroll_warp, 2, false},
        {"reduce-unrolled", reduce_unrolled, 2, false},
        {"reduce-multi", reduce_multi, 1, true},
        {"reduce-shuffle", reduce_shuffle, 1, true},
    };
    for (unsigned int n : {1u << 20, 1u << 22, 1u << 24}) {
        bool any = false;
        for (const R &r : rs) any |= wanted(std::string(r.name) + " n=" + std::to_string(n));
        if (!any) continue;
        float *x = dev_floats(n, 1);
        float *out = dev_zeros(n);
        const unsigned int B = 256;
        for (const R &r : rs) {
            unsigned int grid = ceil_div(n, (unsigned long long)r.per_thread * B);
            if (r.capped && grid > 256) grid = 256;
            Reduce k = r.k;
            timed("reduction", std::string(r.name) + " n=" + std::to_string(n), dim3(grid), dim3(B),
                  [=] { k<<<grid, B, B * sizeof(float)>>>(x, out, n); });
        }
        CK(cudaFree(x));
        CK(cudaFree(out));
    }
}

static void transposes() {
    typedef void (*Transpose)(float *, const float *, int, int);
    struct T { const char *name; Transpose k; };
    const T ts[] = {
        {"transpose-copy", transpose_copy},
        {"transpose-naive", transpose_naive},
        {"transpose-copy-shared", transpose_copy_shared},
        {"transpose-coalesced", transpose_coalesced},
        {"transpose-no-conflicts", transpose_no_conflicts},
        {"transpose-diagonal", transpose_diagonal},
    };
    for (int n : {1024, 2048, 4096}) {
        bool any = false;
        for (const T &t : ts) any |= wanted(std::string(t.name) + " " + std::to_string(n));
        if (!any) continue;
        float *in = dev_floats((size_t)n * n, 2);
        float *out = dev_zeros((size_t)n * n);
        dim3 grid(n / TILE_DIM, n / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
        for (const T &t : ts) {
            Transpose k = t.k;
            timed("transpose", std::string(t.name) + " " + std::to_string(n), grid, block,
                  [=] { k<<<grid, block>>>(out, in, n, n); });
        }
        CK(cudaFree(in));
        CK(cudaFree(out));
    }
}

static void offsets(int n, std::initializer_list<int> read_offsets, std::initializer_list<int> other_offsets) {
    const int B = 512;
    const std::string size = " n=" + std::to_string(n);
    float *a = dev_floats(n, 3), *b = dev_floats(n, 4), *c = dev_zeros(n);
    for (int off : read_offsets) {
        unsigned int grid = ceil_div(n, B);
        timed("memory", "read-offset offset=" + std::to_string(off) + size, dim3(grid), dim3(B),
              [=] { read_offset<<<grid, B>>>(a, b, c, n, off); });
    }
    for (int off : other_offsets) {
        unsigned int grid = ceil_div(n, B);
        timed("memory", "write-offset offset=" + std::to_string(off) + size, dim3(grid), dim3(B),
              [=] { write_offset<<<grid, B>>>(a, b, c, n, off); });
        unsigned int grid4 = ceil_div(n, 4 * B);
        timed("memory", "read-offset-unroll4 offset=" + std::to_string(off) + size, dim3(grid4), dim3(B),
              [=] { read_offset_unroll4<<<grid4, B>>>(a, b, c, n, off); });
    }
    {
        unsigned int grid = ceil_div(n, B);
        innerStruct *s = nullptr, *r = nullptr;
        CK(cudaMalloc(&s, n * sizeof(innerStruct)));
        CK(cudaMalloc(&r, n * sizeof(innerStruct)));
        CK(cudaMemset(s, 0, n * sizeof(innerStruct)));
        timed("memory", "aos" + size, dim3(grid), dim3(B), [=] { test_inner_struct<<<grid, B>>>(s, r, n); });
        float *d = dev_zeros(n);
        timed("memory", "soa" + size, dim3(grid), dim3(B), [=] { test_inner_array<<<grid, B>>>(a, b, c, d, n); });
        CK(cudaFree(s));
        CK(cudaFree(r));
        CK(cudaFree(d));
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
}

static void memory() {
    offsets(1 << 20, {0, 11}, {11});
    offsets(1 << 22, {0, 1, 11, 32, 128}, {0, 11});
    struct V { int n, block; };
    for (V v : {V{1003, 64}, V{1000, 256}, V{1 << 20, 256}, V{1 << 24, 256}, V{1 << 26, 256}}) {
        const int m = v.n, B = v.block;
        std::string name = "vector-add n=" + std::to_string(m) + " block=" + std::to_string(B);
        if (!wanted(name)) continue;
        float *x = dev_floats(m, 5), *y = dev_floats(m, 6), *z = dev_zeros(m);
        unsigned int grid = ceil_div(m, B);
        timed("memory", name, dim3(grid), dim3(B), [=] { vector_add<<<grid, B>>>(x, y, z, m); });
        CK(cudaFree(x));
        CK(cudaFree(y));
        CK(cudaFree(z));
    }
}

static void divergence() {
    const int B = 256;
    for (int n : {1 << 16, 1 << 20}) {
        float *out = dev_zeros(n);
        const std::string size = " n=" + std::to_string(n);
        timed("divergence", "branch-by-lane" + size, dim3(n / B), dim3(B), [=] { branch_by_lane<<<n / B, B>>>(out); });
        timed("divergence", "branch-by-warp" + size, dim3(n / B), dim3(B), [=] { branch_by_warp<<<n / B, B>>>(out); });
        CK(cudaFree(out));
    }
    struct I { int w, h; };
    for (I im : {I{76, 62}, I{1920, 1080}}) {
        std::string name = "rgb-to-gray " + std::to_string(im.w) + "x" + std::to_string(im.h);
        if (!wanted(name)) continue;
        size_t px = (size_t)im.w * im.h;
        unsigned char *rgb = nullptr, *gray = nullptr;
        CK(cudaMalloc(&rgb, 3 * px));
        CK(cudaMalloc(&gray, px));
        CK(cudaMemset(rgb, 7, 3 * px));
        dim3 block(16, 16), grid(ceil_div(im.w, 16), ceil_div(im.h, 16));
        int w = im.w, h = im.h;
        timed("divergence", name, grid, block, [=] { rgb_to_gray<<<grid, block>>>(rgb, gray, w, h); });
        CK(cudaFree(rgb));
        CK(cudaFree(gray));
    }
}

static void stencils() {
    if (wanted("stencil-1d")) {
        const int n = 1 << 24;
        float *in = dev_floats(n, 7), *out = dev_zeros(n);
        unsigned int grid = ceil_div(n, STENCIL_BLOCK);
        timed("stencil", "stencil-1d n=16777216", dim3(grid), dim3(STENCIL_BLOCK),
              [=] { stencil_1d<<<grid, STENCIL_BLOCK>>>(in, out, n); });
        CK(cudaFree(in));
        CK(cudaFree(out));
    }
    if (wanted("stencil-2d")) {
        const int w = 4096;
        float *in = dev_floats((size_t)w * w, 8), *out = dev_zeros((size_t)w * w);
        dim3 grid(w / 32, w / 8), block(32, 8);
        timed("stencil", "stencil-2d 4096", grid, block, [=] { stencil_2d<<<grid, block>>>(in, out, w, w); });
        CK(cudaFree(in));
        CK(cudaFree(out));
    }
}

static void matmuls() {
    for (int n : {512, 1024}) {
        if (!wanted("matmul-naive " + std::to_string(n)) && !wanted("matmul-tiled " + std::to_string(n))) continue;
        float *a = dev_floats((size_t)n * n, 9), *b = dev_floats((size_t)n * n, 10), *c = dev_zeros((size_t)n * n);
        dim3 grid(n / MM_TILE, n / MM_TILE), block(MM_TILE, MM_TILE);
        timed("matmul", "matmul-naive " + std::to_string(n), grid, block,
              [=] { matmul_naive<<<grid, block>>>(a, b, c, n); });
        timed("matmul", "matmul-tiled " + std::to_string(n), grid, block,
              [=] { matmul_tiled<<<grid, block>>>(a, b, c, n); });
        CK(cudaFree(a));
        CK(cudaFree(b));
        CK(cudaFree(c));
    }
}

static void atomics() {
    const int n = 1 << 24;
    if (wanted("histogram") || wanted("atomic-one-address")) {
        std::vector<unsigned char> h(n);
        for (int i = 0; i < n; ++i) h[i] = (unsigned char)(((unsigned int)i * 2654435761u) >> 24);
        unsigned char *d = nullptr;
        unsigned int *bins = nullptr;
        CK(cudaMalloc(&d, n));
        CK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
        CK(cudaMalloc(&bins, 256 * sizeof(unsigned int)));
        CK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
        unsigned int grid = ceil_div(n, 256);
        timed("atomics", "histogram-global n=16777216", dim3(grid), dim3(256),
              [=] { histogram_global<<<grid, 256>>>(d, bins, n); });
        timed("atomics", "histogram-shared n=16777216", dim3(1056), dim3(256),
              [=] { histogram_shared<<<1056, 256>>>(d, bins, n); });
        const int m = 1 << 20;
        timed("atomics", "atomic-one-address n=1048576", dim3(m / 256), dim3(256),
              [=] { atomic_one_address<<<m / 256, 256>>>(bins, m); });
        CK(cudaFree(d));
        CK(cudaFree(bins));
    }
}

static void coalescing() {
    struct K { int blocks, threads, start; };
    for (K k : {K{1, 32, 1}, K{1, 32, 2}, K{1, 32, 4}, K{1, 32, 8}, K{1, 32, 16}, K{1, 32, 32},
                K{1, 256, 1}, K{1, 256, 32}, K{132, 32, 32}}) {
        // Each iteration moves past the warp's whole span: no iteration re-reads the last one's words.
        int start = k.start, move = 32 * k.start, iters = 2000, blocks = k.blocks, threads = k.threads;
        std::string name = "strided-rmw start=" + std::to_string(start) + " blocks=" +
                           std::to_string(blocks) + " threads=" + std::to_string(threads);
        if (!wanted(name)) continue;
        unsigned int *m = nullptr;
        CK(cudaMalloc(&m, 4096 * sizeof(unsigned int)));
        CK(cudaMemset(m, 0, 4096 * sizeof(unsigned int)));
        timed("coalescing", name, dim3(blocks), dim3(threads),
              [=] { strided_rmw<<<blocks, threads>>>(m, start, move, iters); });
        CK(cudaFree(m));
    }
}

static void banks() {
    const int B = 256;
    struct K { int blocks, stride, iters; };
    for (K k : {K{1056, 1, 256}, K{1056, 2, 256}, K{1056, 8, 256}, K{1056, 32, 256}, K{1056, 33, 256},
                K{1, 2, 1000}, K{1, 32, 1000}}) {
        std::string name = "smem-stride stride=" + std::to_string(k.stride) + " blocks=" +
                           std::to_string(k.blocks) + " iters=" + std::to_string(k.iters);
        if (!wanted(name)) continue;
        float *out = dev_zeros((size_t)k.blocks * B);
        int blocks = k.blocks, stride = k.stride, iters = k.iters;
        timed("banks", name, dim3(blocks), dim3(B), [=] { smem_stride<<<blocks, B>>>(out, stride, iters); });
        CK(cudaFree(out));
    }
}

int main(int argc, char **argv) {
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--warmup") && a + 1 < argc) g_warmup = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) g_reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--only") && a + 1 < argc) g_only = argv[++a];
        else {
            fprintf(stderr, "usage: timing [--warmup W] [--reps R] [--only SUBSTRING]\n");
            return 1;
        }
    }
    if (g_reps < 1) g_reps = 1;
    printf("family,config,grid,block,median_ms,min_ms,max_ms,reps\n");
    reductions();
    transposes();
    memory();
    divergence();
    stencils();
    matmuls();
    atomics();
    banks();
    coalescing();
    fprintf(stderr, "%d configurations\n", g_count);
    return 0;
}
