// A templated reduction in the style of NVIDIA's samples: the block size is a template
// parameter (so the unrolled steps are resolved at compile time), shared memory comes through
// the SharedMemory<T> helper, and the host picks the instantiation at run time, for float and
// int.
//
//   warpsim cu examples/reduce_template.cu -- [n] [threads]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// Dynamically sized shared memory of any type (one extern array per type, as the samples do).
template <class T>
struct SharedMemory {
    __device__ inline operator T *() {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
    __device__ inline operator const T *() const {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <class T, unsigned int blockSize>
__global__ void reduce(const T *g_idata, T *g_odata, unsigned int n) {
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    T sum = 0;
    while (i < n) {
        sum += g_idata[i];
        if (i + blockSize < n) sum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = sum;
    __syncthreads();
    if (blockSize >= 512 && tid < 256) sdata[tid] = sum = sum + sdata[tid + 256];
    __syncthreads();
    if (blockSize >= 256 && tid < 128) sdata[tid] = sum = sum + sdata[tid + 128];
    __syncthreads();
    if (blockSize >= 128 && tid < 64) sdata[tid] = sum = sum + sdata[tid + 64];
    __syncthreads();
    for (int offset = 32; offset > 0; offset /= 2) {
        if (blockSize >= 2 * offset && tid < offset) sdata[tid] = sum = sum + sdata[tid + offset];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sum;
}

template <class T>
void launch_reduce(int threads, int blocks, const T *in, T *out, unsigned int n) {
    size_t smem = threads * sizeof(T);
    switch (threads) {
        case 512: reduce<T, 512><<<blocks, threads, smem>>>(in, out, n); break;
        case 256: reduce<T, 256><<<blocks, threads, smem>>>(in, out, n); break;
        case 128: reduce<T, 128><<<blocks, threads, smem>>>(in, out, n); break;
        default: reduce<T, 64><<<blocks, 64, 64 * sizeof(T)>>>(in, out, n); break;
    }
}

template <class T>
bool run(const char *type, unsigned int n, int threads) {
    T *h = (T *)malloc(n * sizeof(T));
    T expected = 0;
    for (unsigned int i = 0; i < n; i++) {
        h[i] = (T)(i % 10);
        expected += h[i];
    }
    int blocks = 64;
    T *d_in, *d_out;
    cudaMalloc((void **)&d_in, n * sizeof(T));
    cudaMalloc((void **)&d_out, blocks * sizeof(T));
    cudaMemcpy(d_in, h, n * sizeof(T), cudaMemcpyHostToDevice);
    launch_reduce<T>(threads, blocks, d_in, d_out, n);
    launch_reduce<T>(threads, 1, d_out, d_out, blocks);  // the partial sums, in place
    T result;
    cudaMemcpy(&result, d_out, sizeof(T), cudaMemcpyDeviceToHost);
    bool ok = result == expected;
    printf("%-5s n = %u, %d threads: %s (got %g, expected %g)\n", type, n, threads,
           ok ? "ok" : "WRONG", (double)result, (double)expected);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    return ok;
}

int main(int argc, char **argv) {
    unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 1 << 18;
    int threads = argc > 2 ? atoi(argv[2]) : 256;
    bool ok = run<float>("float", n, threads) & run<int>("int", n, threads);
    printf(ok ? "PASSED\n" : "FAILED\n");
    return ok ? 0 : 1;
}
