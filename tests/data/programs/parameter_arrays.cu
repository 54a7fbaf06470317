// Arrays in a struct passed to a kernel by value, indexed at run time, larger than the 256
// elements warpsim picks among (HeCBench axpby's `TensorListMetadata`: `unsigned char
// block_to_tensor[320]`, `int block_to_chunk[320]` indexed by `blockIdx.x`): read from the
// parameter's bytes, as the GPU reads its parameter bank at a run-time offset. Arrays of bytes,
// ints and 8-byte integers, a two-dimensional array indexed twice at run time, an array inside
// structs of an array (`items[k].w[j]`), the struct passed on by reference, and small arrays
// beside them (still picked). The host computes every expected value from the same data.
#include <cstdio>

struct Item {
    int a;
    float w[3];
};

struct Meta {
    long long sizes[110];
    unsigned char block_to_tensor[320];
    int block_to_chunk[320];
    short grid[20][20];
    Item items[100];
    int small[8];
    int start;
};

__device__ long long through(const Meta &m, int k) { return m.sizes[k % 110] + m.start; }

__global__ void read_meta(Meta m, long long *out) {
    int b = blockIdx.x, t = threadIdx.x;
    int g = b * blockDim.x + t;
    int tensor = m.block_to_tensor[b];
    long long v = m.sizes[tensor] * 3 + m.block_to_chunk[(b * 7 + t) % 320];
    v += m.grid[(g * 3) % 20][(g * 11 + b) % 20] * 5;
    v += (long long)(m.items[g % 100].w[t % 3] * 4.0f) + m.items[(g + 1) % 100].a;
    v += m.small[t % 8] * 1000;
    v += through(m, g) * 7;
    out[g] = v;
}

int main() {
    static Meta m;
    for (int i = 0; i < 110; i++) m.sizes[i] = 100000LL * i + 17;
    for (int i = 0; i < 320; i++) m.block_to_tensor[i] = (i * 37) % 110, m.block_to_chunk[i] = i * i;
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 20; j++) m.grid[i][j] = i * 20 - j;
    for (int i = 0; i < 100; i++) {
        m.items[i].a = -i;
        for (int j = 0; j < 3; j++) m.items[i].w[j] = i * 0.5f + j;
    }
    for (int i = 0; i < 8; i++) m.small[i] = i + 1;
    m.start = 9;
    const int blocks = 320, threads = 32, n = blocks * threads;
    long long *dout, *out = new long long[n];
    cudaMalloc(&dout, n * sizeof(long long));
    read_meta<<<blocks, threads>>>(m, dout);
    cudaMemcpy(out, dout, n * sizeof(long long), cudaMemcpyDeviceToHost);
    int same = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            int g = b * threads + t;
            long long v = m.sizes[m.block_to_tensor[b]] * 3 + m.block_to_chunk[(b * 7 + t) % 320];
            v += m.grid[(g * 3) % 20][(g * 11 + b) % 20] * 5;
            v += (long long)(m.items[g % 100].w[t % 3] * 4.0f) + m.items[(g + 1) % 100].a;
            v += m.small[t % 8] * 1000;
            v += (m.sizes[g % 110] + m.start) * 7;
            same += out[g] == v;
        }
    printf("parameter arrays %d of %d (%zu bytes), last %lld\n", same, n, sizeof(Meta), out[n - 1]);
    delete[] out;
    return 0;
}
