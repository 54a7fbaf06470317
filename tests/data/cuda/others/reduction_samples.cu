// Parallel reductions in the style of NVIDIA's CUDA samples (6_Advanced/reduction):
// reduce0..reduce6, templated on the element type and the block size, using cooperative
// groups for block barriers and warp tiles. Written from memory for warpsim's front-end tests.
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include <iostream>

namespace cg = cooperative_groups;

// Dynamic shared memory of any element type (the samples use a SharedMemory<T> helper).
template <class T>
__device__ __forceinline__ T *shared_as() {
    extern __shared__ unsigned char smem_raw[];
    return reinterpret_cast<T *>(smem_raw);
}

bool isPow2(unsigned int x) { return ((x & (x - 1)) == 0); }

// Interleaved addressing with divergent branching.
template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = shared_as<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    cg::sync(cta);
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if ((tid % (2 * s)) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        cg::sync(cta);
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Interleaved addressing with bank conflicts.
template <class T>
__global__ void reduce1(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = shared_as<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    cg::sync(cta);
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        int index = 2 * s * tid;
        if (index < blockDim.x) {
            sdata[index] += sdata[index + s];
        }
        cg::sync(cta);
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Sequential addressing.
template <class T>
__global__ void reduce2(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = shared_as<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    cg::sync(cta);
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        cg::sync(cta);
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// First add during the global load.
template <class T>
__global__ void reduce3(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = shared_as<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    T mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
    sdata[tid] = mySum;
    cg::sync(cta);
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = mySum = mySum + sdata[tid + s];
        }
        cg::sync(cta);
    }
    if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// The last warp with warp shuffles on a 32-thread tile.
template <class T, unsigned int blockSize>
__global__ void reduce4(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = shared_as<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    T mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockSize < n) mySum += g_idata[i + blockSize];
    sdata[tid] = mySum;
    cg::sync(cta);
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] = mySum = mySum + sdata[tid + s];
        }
        cg::sync(cta);
    }
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    if (cta.thread_rank() < 32) {
        if (blockSize >= 64) mySum += sdata[tid + 32];
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2) {
            mySum += tile32.shfl_down(mySum, offset);
        }
    }
    if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

// Completely unrolled for a compile-time block size.
template <class T, unsigned int blockSize>
__global__ void reduce5(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = shared_as<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    T mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockSize < n) mySum += g_idata[i + blockSize];
    sdata[tid] = mySum;
    cg::sync(cta);
    if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
    cg::sync(cta);
    if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
    cg::sync(cta);
    if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
    cg::sync(cta);
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    if (cta.thread_rank() < 32) {
        if (blockSize >= 64) mySum += sdata[tid + 32];
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2) {
            mySum += tile32.shfl_down(mySum, offset);
        }
    }
    if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

// Many elements per thread (grid-stride), then the unrolled tree.
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(T *g_idata, T *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    T *sdata = shared_as<T>();
    unsigned int tid = threadIdx.x;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    T mySum = 0;
    if (nIsPow2) {
        unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
        gridSize = gridSize << 1;
        while (i < n) {
            mySum += g_idata[i];
            if ((i + blockSize) < n) {
                mySum += g_idata[i + blockSize];
            }
            i += gridSize;
        }
    } else {
        unsigned int i = blockIdx.x * blockSize + threadIdx.x;
        while (i < n) {
            mySum += g_idata[i];
            i += gridSize;
        }
    }
    sdata[tid] = mySum;
    cg::sync(cta);
    if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
    cg::sync(cta);
    if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
    cg::sync(cta);
    if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
    cg::sync(cta);
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    if (cta.thread_rank() < 32) {
        if (blockSize >= 64) mySum += sdata[tid + 32];
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2) {
            mySum += tile32.shfl_down(mySum, offset);
        }
    }
    if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

template <class T>
void reduce(int size, int threads, int blocks, int whichKernel, T *d_idata, T *d_odata) {
    dim3 dimBlock(threads, 1, 1);
    dim3 dimGrid(blocks, 1, 1);
    int smemSize = (threads <= 32) ? 2 * threads * sizeof(T) : threads * sizeof(T);
    switch (whichKernel) {
        case 0: reduce0<T><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        case 1: reduce1<T><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        case 2: reduce2<T><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        case 3: reduce3<T><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        case 4: reduce4<T, 256><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        case 5: reduce5<T, 256><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
        default:
            if (isPow2(size)) reduce6<T, 256, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
            else reduce6<T, 256, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
    }
}

int main(int argc, char **argv) {
    int size = 1 << 24;
    std::vector<float> h(size, 1.0f);
    float *d_in = nullptr, *d_out = nullptr;
    cudaMalloc((void **)&d_in, size * sizeof(float));
    cudaMalloc((void **)&d_out, 64 * sizeof(float));
    cudaMemcpy(d_in, h.data(), size * sizeof(float), cudaMemcpyHostToDevice);
    for (int k = 0; k < 7; ++k) reduce<float>(size, 256, 64, k, d_in, d_out);
    std::cout << "done" << std::endl;
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
