// Cooperative launches: blocks that wait for each other at grid.sync().
//   grid_sync [run]   normalise a vector in one launch, iterate a stencil in another: PASSED
//   grid_sync plain   the first kernel launched with <<<>>> (not cooperative)
//   grid_sync early   a block returns before the grid.sync() the others wait at
//   grid_sync racy    the stencil without its grid.sync() (check mode finds the race)
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

// x[i] /= sum(x): partial sums per block, block 0 adds them up, every thread divides.
__global__ void normalise(float *x, float *partial, float *total, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ float s[256];
    float sum = 0.0f;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) sum += x[i];
    s[threadIdx.x] = sum;
    block.sync();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        block.sync();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
    grid.sync();
    if (grid.thread_rank() == 0) {
        float t = 0.0f;
        for (int b = 0; b < gridDim.x; b++) t += partial[b];
        *total = t;
    }
    cg::sync(grid);
    for (int i = grid.thread_rank(); i < n; i += grid.size()) x[i] /= *total;
}

// `steps` rounds of a 3-point average between two buffers, the grid in step each round.
__global__ void smooth(float *a, float *b, int n, int steps, bool synced) {
    cg::grid_group grid = cg::this_grid();
    for (int step = 0; step < steps; step++) {
        const float *in = step % 2 ? b : a;
        float *out = step % 2 ? a : b;
        for (int i = grid.thread_rank(); i < n; i += grid.size()) {
            float l = i > 0 ? in[i - 1] : in[i], r = i + 1 < n ? in[i + 1] : in[i];
            out[i] = (l + in[i] + r) / 3.0f;
        }
        if (synced) grid.sync();
    }
}

// Block 1 leaves before the barrier every other block waits at.
__global__ void leaves_early(int *x) {
    if (blockIdx.x == 1) return;
    x[blockIdx.x] = 1;
    cg::this_grid().sync();
}

static void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        printf("%s: %s\n", what, cudaGetErrorName(e));
        exit(1);
    }
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "run";
    int cooperative = 0, sms = 0, per_sm = 0;
    check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0), "attribute");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SMs");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalise, 256, 0), "occupancy");
    printf("cooperative launch: %d, %d blocks of 256 per SM\n", cooperative, per_sm);

    const int n = 100000;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) h[i] = (float)(i % 97) + 1.0f;
    float *x, *partial, *total, *y;
    check(cudaMalloc(&x, n * sizeof(float)), "malloc");
    check(cudaMalloc(&y, n * sizeof(float)), "malloc");
    check(cudaMalloc(&partial, 1024 * sizeof(float)), "malloc");
    check(cudaMalloc(&total, sizeof(float)), "malloc");
    check(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy");
    int nn = n;
    dim3 grid(40), block(256);
    void *args[] = {&x, &partial, &total, &nn};

    if (!strcmp(mode, "plain")) {
        normalise<<<grid, block>>>(x, partial, total, n);
        printf("plain: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
        return 0;
    }
    if (!strcmp(mode, "early")) {
        void *early[] = {&partial};
        cudaError_t e = cudaLaunchCooperativeKernel((void *)leaves_early, dim3(4), dim3(32), early, 0, 0);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        printf("early: %s\n", cudaGetErrorName(e));
        return 0;
    }
    int steps = 6;
    bool synced = strcmp(mode, "racy") != 0;
    void *smooth_args[] = {&x, &y, &nn, &steps, &synced};
    if (!synced) {
        check(cudaLaunchCooperativeKernel((void *)smooth, grid, block, smooth_args, 0, 0), "launch");
        check(cudaDeviceSynchronize(), "racy");
        printf("racy: done\n");
        return 0;
    }

    // More blocks than the device holds at once cannot launch cooperatively.
    cudaError_t big = cudaLaunchCooperativeKernel((void *)normalise, dim3(per_sm * sms + 1), block,
                                                  args, 0, 0);
    printf("too large: %s\n", cudaGetErrorName(big));

    check(cudaLaunchCooperativeKernel((void *)normalise, grid, block, args, 0, 0), "launch");
    std::vector<float> out(n);
    check(cudaMemcpy(out.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost), "copy back");
    double sum = 0, got = 0;
    for (int i = 0; i < n; i++) sum += h[i];
    int bad = 0;
    for (int i = 0; i < n; i++) {
        got += out[i];
        if (fabs(out[i] - h[i] / sum) > 1e-6 * (h[i] / sum) + 1e-12) bad++;
    }
    printf("normalised: sum %.4f, %d wrong\n", got, bad);

    // The stencil, on the host too.
    std::vector<float> a(out), b(n);
    for (int step = 0; step < steps; step++) {
        std::vector<float> &in = step % 2 ? b : a, &o = step % 2 ? a : b;
        for (int i = 0; i < n; i++) {
            float l = i > 0 ? in[i - 1] : in[i], r = i + 1 < n ? in[i + 1] : in[i];
            o[i] = (l + in[i] + r) / 3.0f;
        }
    }
    // Through cudaLaunchKernelEx and its cooperative attribute (clusters of 2 are a hint).
    cudaLaunchAttribute attrs[2];
    attrs[0].id = cudaLaunchAttributeCooperative;
    attrs[0].val.cooperative = 1;
    attrs[1].id = cudaLaunchAttributeClusterDimension;
    attrs[1].val.clusterDim.x = 2;
    attrs[1].val.clusterDim.y = 1;
    attrs[1].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.attrs = attrs;
    config.numAttrs = 2;
    check(cudaLaunchKernelEx(&config, smooth, x, y, n, steps, true), "launch");
    check(cudaMemcpy(out.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost), "copy back");
    int differ = 0;
    for (int i = 0; i < n; i++) differ += out[i] != a[i];
    printf("smoothed: %d differ\n", differ);
    printf(bad == 0 && differ == 0 ? "PASSED\n" : "FAILED\n");
    return 0;
}
