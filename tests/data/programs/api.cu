// The runtime API as programs use it; prints a transcript that tests/programs.rs checks.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__constant__ float c_scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ unsigned int d_count;
__device__ int d_table[8];

__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= c_scale[i % 4];
}

__global__ void count(int n) {
    if (blockIdx.x * blockDim.x + threadIdx.x < n) atomicAdd(&d_count, 1u);
}

__global__ void fill(int *p, int v) { p[threadIdx.x] = v + threadIdx.x; }

__global__ void shared_user(float *out) {
    __shared__ float tile[256];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[255 - threadIdx.x];
}

#define SAY(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

int main(int argc, char **argv) {
    int count_dev = 0, dev = -1;
    SAY(cudaGetDeviceCount(&count_dev));
    SAY(cudaGetDevice(&dev));
    printf("devices %d, current %d\n", count_dev, dev);
    cudaDeviceProp p;
    SAY(cudaGetDeviceProperties(&p, 0));
    printf("cc %d.%d, %d SMs, warp %d, %zu shared/block, max threads %d\n", p.major, p.minor,
           p.multiProcessorCount, p.warpSize, p.sharedMemPerBlock, p.maxThreadsPerBlock);
    int attr = 0;
    SAY(cudaDeviceGetAttribute(&attr, cudaDevAttrComputeCapabilityMajor, 0));
    printf("major attribute %d\n", attr);
    SAY(cudaDeviceGetAttribute(&attr, cudaDevAttrCooperativeLaunch, 0));
    printf("cooperative launch %d %d\n", p.cooperativeLaunch, attr);
    int rt = 0;
    SAY(cudaRuntimeGetVersion(&rt));
    printf("runtime %d\n", rt);

    // Memory and copies of every kind.
    const int n = 1000;
    float h[n], back[n];
    for (int i = 0; i < n; i++) h[i] = (float)i;
    float *d = nullptr, *d2 = nullptr;
    SAY(cudaMalloc(&d, n * sizeof(float)));
    SAY(cudaMalloc(&d2, n * sizeof(float)));
    SAY(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    SAY(cudaMemcpy(d2, d, n * sizeof(float), cudaMemcpyDeviceToDevice));
    scale<<<(n + 127) / 128, 128>>>(d2, n);
    SAY(cudaGetLastError());
    SAY(cudaMemcpy(back, d2, n * sizeof(float), cudaMemcpyDefault));
    printf("scaled %.0f %.0f %.0f %.0f %.0f\n", back[0], back[1], back[2], back[3], back[999]);
    // Device pointer arithmetic on the host: the second half only.
    SAY(cudaMemset(d2 + n / 2, 0, n / 2 * sizeof(float)));
    SAY(cudaMemcpy(back, d2, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("after memset %.0f %.0f\n", back[n / 2 - 1], back[n / 2]);
    // Peers: there is one device, so a peer copy is from device 0 to device 0, and device 1
    // does not exist.
    float *d3 = nullptr;
    SAY(cudaMalloc(&d3, n * sizeof(float)));
    SAY(cudaMemcpyPeer(d3, 0, d2, 0, n * sizeof(float)));
    SAY(cudaMemcpy(back, d3, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("peer copy %.0f %.0f, device 1: %s\n", back[n / 2 - 1], back[n / 2],
           cudaGetErrorName(cudaMemcpyPeerAsync(d3, 1, d2, 0, 4, 0)));
    cudaGetLastError();

    // Symbols.
    float s[4] = {10, 20, 30, 40};
    SAY(cudaMemcpyToSymbol(c_scale, s, sizeof(s)));
    scale<<<(n + 127) / 128, 128>>>(d, n);
    SAY(cudaMemcpy(back, d, 4 * sizeof(float), cudaMemcpyDeviceToHost));
    printf("scaled by the new symbol %.0f %.0f %.0f %.0f\n", back[0], back[1], back[2], back[3]);
    unsigned int zero = 0, got = 0;
    SAY(cudaMemcpyToSymbol(d_count, &zero, sizeof(zero)));
    count<<<4, 64>>>(200);
    count<<<4, 64>>>(100);
    SAY(cudaMemcpyFromSymbol(&got, d_count, sizeof(got)));
    printf("counter after two launches %u\n", got);
    int *table = nullptr;
    SAY(cudaGetSymbolAddress((void **)&table, d_table));
    fill<<<1, 8>>>(table, 100);
    int t[8];
    SAY(cudaMemcpyFromSymbol(t, d_table, sizeof(t)));
    printf("table %d %d\n", t[0], t[7]);
    size_t sz = 0;
    SAY(cudaGetSymbolSize(&sz, d_table));
    printf("table size %zu\n", sz);
    SAY(cudaMemcpyToSymbol(d_table, h, 9 * sizeof(int)));

    // Kernel attributes and occupancy.
    cudaFuncAttributes fa;
    SAY(cudaFuncGetAttributes(&fa, shared_user));
    printf("shared_user: %zu static shared bytes, max %d threads\n", fa.sharedSizeBytes, fa.maxThreadsPerBlock);
    int blocks = 0;
    SAY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, shared_user, 256, 0));
    printf("occupancy: %d blocks of 256 per SM\n", blocks);
    SAY(cudaFuncSetAttribute(shared_user, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));

    // Streams and events.
    cudaStream_t st;
    cudaEvent_t a, b;
    SAY(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    SAY(cudaEventCreate(&a));
    SAY(cudaEventCreate(&b));
    SAY(cudaEventRecord(a, st));
    shared_user<<<1, 256, 0, st>>>(d);
    SAY(cudaEventRecord(b, st));
    SAY(cudaStreamSynchronize(st));
    float ms = -1;
    SAY(cudaEventElapsedTime(&ms, a, b));
    printf("elapsed is %s\n", ms >= 0 ? "non-negative" : "negative");
    SAY(cudaMemcpyAsync(back, d, 256 * sizeof(float), cudaMemcpyDeviceToHost, st));
    SAY(cudaStreamSynchronize(st));
    printf("reversed %.0f %.0f\n", back[0], back[255]);
    SAY(cudaEventDestroy(a));
    SAY(cudaEventDestroy(b));
    SAY(cudaStreamDestroy(st));

    // Pinned host memory is plain host memory for copies.
    float *pinned = nullptr;
    SAY(cudaMallocHost(&pinned, 16 * sizeof(float)));
    SAY(cudaMemcpy(pinned, d, 16 * sizeof(float), cudaMemcpyDeviceToHost));
    printf("pinned %.0f\n", pinned[15]);
    // A kernel reads and writes pinned memory through its host address (unified addressing),
    // and the host sees the result after synchronising; a copy out of it still works.
    int *staged = nullptr;
    SAY(cudaHostAlloc(&staged, 32 * sizeof(int), cudaHostAllocDefault));
    staged[3] = 9;
    fill<<<1, 16>>>(staged, 100);
    SAY(cudaDeviceSynchronize());
    SAY(cudaMemcpy(pinned, staged, sizeof(int), cudaMemcpyHostToHost));
    printf("pinned by a kernel %d %d %d, copied %d\n", staged[3], staged[15], staged[16],
           *(int *)pinned);
    SAY(cudaFreeHost(staged));
    SAY(cudaFreeHost(pinned));

    // Stream-ordered allocation from the device's pool, whose attributes are kept; stream
    // attributes for the L2 are accepted.
    cudaMemPool_t pool;
    SAY(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t threshold = 1 << 20, kept = 0;
    SAY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    SAY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &kept));
    printf("pool threshold %llu\n", (unsigned long long)kept);
    float *pooled = nullptr;
    SAY(cudaMallocFromPoolAsync((void **)&pooled, 64, pool, 0));
    SAY(cudaFreeAsync(pooled, 0));
    cudaStreamAttrValue window = {};
    window.accessPolicyWindow.base_ptr = d;
    window.accessPolicyWindow.num_bytes = 64;
    window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    SAY(cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &window));
    SAY(cudaCtxResetPersistingL2Cache());

    // A copy larger than any chunk, to and from an odd device address.
    size_t big = (size_t(20) << 20) + 3;
    unsigned char *out = (unsigned char *)malloc(big), *in = (unsigned char *)malloc(big);
    for (size_t i = 0; i < big; i++) out[i] = (unsigned char)(i * 7 + i / 4096);
    unsigned char *d_big = nullptr;
    SAY(cudaMalloc(&d_big, big + 1));
    SAY(cudaMemcpy(d_big + 1, out, big, cudaMemcpyHostToDevice));
    SAY(cudaMemcpy(in, d_big + 1, big, cudaMemcpyDeviceToHost));
    printf("big copy round trip %zu bytes %s\n", big, memcmp(in, out, big) ? "changed" : "intact");
    SAY(cudaFree(d_big));
    free(out);
    free(in);

    SAY(cudaFree(d));
    SAY(cudaFree(d2));
    SAY(cudaDeviceSynchronize());
    SAY(cudaDeviceReset());
    return 0;
}
