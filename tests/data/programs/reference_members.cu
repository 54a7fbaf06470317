// Reference members (`T &r;` of a struct), bound once in a constructor's member initializer
// list and dereferenced wherever they are named, as C++ keeps them (the address, 8 bytes of the
// object): CUB's collectives (`_TempStorage &temp_storage`, bound to `__shared__` storage
// through `TempStorage::Alias()`, `Load(tmp).Load(...)` on a temporary), a reference to an
// element of global memory (written through, atomically too), references to a thread's own
// variable, to a kernel's parameter, to an element of a thread's own array at a run-time index
// and to a `__device__` variable; an object copied, passed by value and by reference,
// `this->r`, a `const` reference member, and `sizeof`. The host computes every expected value
// from the same data.
#include <cstdio>

template <typename T>
struct Raw {
    T storage;
    __device__ T &Alias() { return reinterpret_cast<T &>(*this); }
};

template <typename T, int ITEMS>
struct BlockExchange {
    struct _TempStorage {
        T buf[64 * ITEMS];
    };
    _TempStorage &temp_storage;
    int tid;

    struct TempStorage : Raw<_TempStorage> {};

    __device__ BlockExchange(TempStorage &temp_storage)
        : temp_storage(temp_storage.Alias()), tid(threadIdx.x) {}

    // Each thread writes its items, then reads those of the thread across the block.
    __device__ void Reverse(T (&items)[ITEMS]) {
        for (int i = 0; i < ITEMS; i++) temp_storage.buf[tid * ITEMS + i] = items[i];
        __syncthreads();
        int other = blockDim.x - 1 - tid;
        for (int i = 0; i < ITEMS; i++) items[i] = this->temp_storage.buf[other * ITEMS + i];
        __syncthreads();
    }
};

__global__ void exchange(const int *in, int *out) {
    typedef BlockExchange<int, 3> Exchange;
    __shared__ typename Exchange::TempStorage tmp;
    int items[3];
    for (int i = 0; i < 3; i++) items[i] = in[blockIdx.x * 64 * 3 + threadIdx.x * 3 + i];
    Exchange(tmp).Reverse(items);
    // A second temporary on the same storage, and a named object.
    for (int i = 0; i < 3; i++) items[i] += 1000;
    Exchange ex(tmp);
    ex.Reverse(items);
    Exchange(tmp).Reverse(items);
    for (int i = 0; i < 3; i++) out[blockIdx.x * 64 * 3 + threadIdx.x * 3 + i] = items[i];
}

struct Tally {
    float &total;
    const float &scale;
    int calls;
    __device__ Tally(float &t, const float &s) : total(t), scale(s), calls(0) {}
    __device__ void add(float v) {
        total += v * scale;
        calls++;
    }
    __device__ void add_atomic(float v) { atomicAdd(&total, v); }
};

__device__ void twice(Tally t, float v) {
    t.add(v);
    t.add(v);
}

__device__ void thrice(Tally &t, float v) {
    for (int k = 0; k < 3; k++) t.add(v);
}

__global__ void global_refs(const float *in, float *sums, float *each, const float *scale) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    Tally mine(each[t], scale[0]);
    mine.add(in[t]);
    twice(mine, 1.0f);
    thrice(mine, 2.0f);
    Tally copy = mine;
    copy.add(0.5f);
    Tally block(sums[blockIdx.x], scale[0]);
    block.add_atomic(in[t]);
    if (threadIdx.x == 0) each[t] += mine.calls * 100 + copy.calls * 10000;
}

struct Counter {
    int &n;
    __device__ explicit Counter(int &target) : n(target) {}
    __device__ void bump(int by = 1) { n += by; }
    __device__ int get() const { return n; }
};

template <typename T>
struct Pair {
    T &a;
    T b;
    __device__ Pair(T &x, T y) : a(x), b(y) {}
};

__device__ int tally = 40;

__global__ void local_refs(const int *in, int *out, int *sizes, int base) {
    int t = threadIdx.x;
    Counter from_parameter(base);
    from_parameter.bump(t);
    if (t == 5) {
        Counter device_variable(tally);
        device_variable.bump(base);
    }
    int count = in[t];
    Counter c(count);
    c.bump();
    c.bump(3);
    Counter d = c;
    d.bump(10);
    int slots[4] = {0, 0, 0, 0};
    Counter s(slots[t % 4]);
    s.bump(t);
    s.n *= 2;
    int sum = 0;
    for (int k = 0; k < 4; k++) sum += slots[k] * (k + 1);
    Pair<int> p(count, 7);
    p.a -= p.b;
    out[t] = count * 1000 + sum + (c.get() == count) * 1000000 + base * 10000000;
    if (t == 0) {
        sizes[0] = sizeof(Counter);
        sizes[1] = sizeof(Pair<int>);
        sizes[2] = sizeof(Tally);
    }
}

int main() {
    const int blocks = 2, n = blocks * 64 * 3;
    int hin[n], hout[n], *din, *dout;
    for (int i = 0; i < n; i++) hin[i] = i * 7 + 3;
    cudaMalloc(&din, sizeof hin);
    cudaMalloc(&dout, sizeof hout);
    cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice);
    exchange<<<blocks, 64>>>(din, dout);
    cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < 64; t++)
            for (int i = 0; i < 3; i++) {
                // Three reversals: the thread across the block's items, plus 1000.
                int other = 63 - t;
                same += hout[(b * 64 + t) * 3 + i] == hin[(b * 64 + other) * 3 + i] + 1000;
            }
    printf("shared %d of %d, last %d\n", same, n, hout[n - 1]);

    const int threads = 128, tb = 32;
    float fin[threads], fsum[threads / tb], feach[threads], fscale = 0.5f;
    float *dfin, *dsum, *deach, *dscale;
    for (int i = 0; i < threads; i++) fin[i] = (i % 9) * 0.25f, feach[i] = i;
    for (int b = 0; b < threads / tb; b++) fsum[b] = b * 100.0f;
    cudaMalloc(&dfin, sizeof fin);
    cudaMalloc(&dsum, sizeof fsum);
    cudaMalloc(&deach, sizeof feach);
    cudaMalloc(&dscale, sizeof fscale);
    cudaMemcpy(dfin, fin, sizeof fin, cudaMemcpyHostToDevice);
    cudaMemcpy(dsum, fsum, sizeof fsum, cudaMemcpyHostToDevice);
    cudaMemcpy(deach, feach, sizeof feach, cudaMemcpyHostToDevice);
    cudaMemcpy(dscale, &fscale, sizeof fscale, cudaMemcpyHostToDevice);
    global_refs<<<threads / tb, tb>>>(dfin, dsum, deach, dscale);
    float gsum[threads / tb], geach[threads];
    cudaMemcpy(gsum, dsum, sizeof gsum, cudaMemcpyDeviceToHost);
    cudaMemcpy(geach, deach, sizeof geach, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < threads; t++) {
        // add(in), twice(1) on a copy, thrice(2) by reference, copy.add(0.5): every add scaled.
        float want = t + fin[t] * fscale + 2 * fscale + 3 * 2 * fscale + 0.5f * fscale;
        // `mine` counts its own add and thrice's (by reference); `copy` was copied after them.
        if (t % tb == 0) want += 4 * 100 + 5 * 10000;
        same += geach[t] == want;
    }
    int sums = 0;
    for (int b = 0; b < threads / tb; b++) {
        float want = b * 100.0f;
        for (int t = 0; t < tb; t++) want += fin[b * tb + t];
        sums += gsum[b] == want;
    }
    printf("global %d of %d, sums %d of %d, last %.3f\n", same, threads, sums, threads / tb,
           geach[threads - 1]);

    int lin[64], lout[64], lsizes[3], *dlin, *dlout, *dsizes;
    for (int i = 0; i < 64; i++) lin[i] = i * 3 - 20;
    cudaMalloc(&dlin, sizeof lin);
    cudaMalloc(&dlout, sizeof lout);
    cudaMalloc(&dsizes, sizeof lsizes);
    cudaMemcpy(dlin, lin, sizeof lin, cudaMemcpyHostToDevice);
    local_refs<<<1, 64>>>(dlin, dlout, dsizes, 3);
    cudaMemcpy(lout, dlout, sizeof lout, cudaMemcpyDeviceToHost);
    cudaMemcpy(lsizes, dsizes, sizeof lsizes, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < 64; t++) {
        // `c`, `d` (a copy) and `p.a` all refer to `count`.
        int count = lin[t] + 1 + 3 + 10 - 7;
        int sum = (t * 2) * (t % 4 + 1);
        same += lout[t] == count * 1000 + sum + 1000000 + (3 + t) * 10000000;
    }
    int htally;
    cudaMemcpyFromSymbol(&htally, tally, sizeof htally);
    // Thread 5 added its `base` (3, then 5 more through its reference member) to 40.
    printf("local %d of 64, last %d, device variable %d of %d\n", same, lout[63], htally,
           40 + 3 + 5);
    int sizes_same = lsizes[0] == (int)sizeof(Counter) && lsizes[1] == (int)sizeof(Pair<int>) &&
                     lsizes[2] == (int)sizeof(Tally);
    printf("sizes %d %d %d, as the host's: %d\n", lsizes[0], lsizes[1], lsizes[2], sizes_same);
    return 0;
}
