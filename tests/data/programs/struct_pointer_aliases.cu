// A struct kernel parameter passed by value whose fields are pointers, used through pointers
// to it (HeCBench btree: `insertion_unit(..., &allocator)`, then
// `volatileNodeReadR(memAlloc->getAddressPtr(next))` and `*(memAlloc->getAddressPtr(next) +
// lane)`): member functions called through `p->` returning pointers computed from the
// struct's pointer fields, such a pointer kept in a local and indexed, `p->field[i]`,
// `(*p).f()`, `this->` inside, an atomic through a field, a pointer to a local copy
// (`Pool *m = &copy;`), a pointer handed on to another function, and two structs whose fields
// are all pointers (whose methods must each see their own). The host computes every result
// from the same data.
#include <cstdint>
#include <cstdio>

struct Pool {
    uint32_t *d_pool;
    uint32_t *d_count;
    template <typename A = uint32_t>
    __device__ uint32_t *getAddressPtr(A &address) { return d_pool + address * 32; }
    __device__ uint32_t allocate() { return atomicAdd(d_count, 1); }
    __device__ uint32_t *row(int k) { return this->d_pool + k * 32; }
};

__device__ uint32_t readR(uint32_t *node) { return *(node + (31 - (threadIdx.x & 31))); }

__device__ uint32_t again(Pool *mem, uint32_t k) { return mem->row(k)[threadIdx.x & 31]; }

template <typename P>
__device__ void unit(uint32_t *out, P *mem) {
    uint32_t next = threadIdx.x / 32;
    uint32_t v = readR(mem->getAddressPtr(next));
    v += *(mem->getAddressPtr(next) + 1);
    uint32_t *row = mem->getAddressPtr(next);
    v += row[2] + mem->d_pool[3] * 3 + (*mem).row(1)[4] * 5 + again(mem, 2) * 7;
    if ((threadIdx.x & 31) == 0) mem->allocate();
    *(mem->getAddressPtr(next) + 32 * 4 + (threadIdx.x & 31)) = v;
    out[threadIdx.x] = v;
}

template <typename P>
__global__ void through_pointer(uint32_t *out, P pool) { unit(out, &pool); }

__global__ void local_copy(uint32_t *out, Pool pool) {
    Pool copy = pool;
    Pool *m = &copy;
    uint32_t n = 1;
    out[threadIdx.x] = m->getAddressPtr(n)[threadIdx.x & 31] + copy.row(0)[0] * 3 + m->d_pool[5];
}

struct View {
    int *d;
    __device__ int get(int i) { return d[i]; }
};

__device__ int via(View *p, int i) { return p->get(i) * 1000 + p->d[i]; }

__global__ void two_views(int *out, View a, View b) {
    int t = threadIdx.x;
    out[t] = a.get(t) * 100 + b.get(t) + via(&a, t) * 10 + via(&b, t);
}

int main() {
    const int words = 32 * 8;
    Pool p;
    cudaMalloc(&p.d_pool, words * sizeof(uint32_t));
    cudaMalloc(&p.d_count, sizeof(uint32_t));
    uint32_t h[words], c = 0;
    for (int i = 0; i < words; i++) h[i] = i * 7 + 1;
    cudaMemcpy(p.d_pool, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(p.d_count, &c, 4, cudaMemcpyHostToDevice);
    uint32_t *out, o[64];
    cudaMalloc(&out, sizeof o);
    through_pointer<<<1, 64>>>(out, p);
    cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
    uint32_t after[words];
    cudaMemcpy(after, p.d_pool, sizeof after, cudaMemcpyDeviceToHost);
    cudaMemcpy(&c, p.d_count, 4, cudaMemcpyDeviceToHost);
    int same = 0, stored = 0;
    for (int t = 0; t < 64; t++) {
        int next = t / 32, lane = t & 31;
        uint32_t v = h[next * 32 + 31 - lane] + h[next * 32 + 1] + h[next * 32 + 2] + h[3] * 3 +
                     h[32 + 4] * 5 + h[64 + lane] * 7;
        same += o[t] == v;
        stored += after[next * 32 + 128 + lane] == v;
    }
    printf("through a pointer %d of 64, stored %d of 64, allocations %u, last %u\n", same, stored,
           c, o[63]);
    local_copy<<<1, 64>>>(out, p);
    cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < 64; t++) same += o[t] == h[32 + (t & 31)] + h[0] * 3 + h[5];
    printf("local copy %d of 64, last %u\n", same, o[63]);
    View a, b;
    int ha[32], hb[32], ho[32], *dout;
    for (int i = 0; i < 32; i++) ha[i] = i + 1, hb[i] = 50 + i;
    cudaMalloc(&a.d, sizeof ha);
    cudaMalloc(&b.d, sizeof hb);
    cudaMalloc(&dout, sizeof ho);
    cudaMemcpy(a.d, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(b.d, hb, sizeof hb, cudaMemcpyHostToDevice);
    two_views<<<1, 32>>>(dout, a, b);
    cudaMemcpy(ho, dout, sizeof ho, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < 32; t++)
        same += ho[t] == ha[t] * 100 + hb[t] + (ha[t] * 1000 + ha[t]) * 10 + hb[t] * 1000 + hb[t];
    printf("two views %d of 32, last %d\n", same, ho[31]);
    return 0;
}
