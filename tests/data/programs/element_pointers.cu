// Pointers to elements of arrays inside struct variables and parameters (`&p.rows[i][0]`),
// handed to a function or kept in a pointer variable and stepped through with `q[k]`, `q->f`
// and `*q`. Each function runs on the device for 256 threads and on the host, compared.
#include <cstdio>
#include <cuda_runtime.h>

#define N 256

struct Term { int kind; float factor; };

struct Params {
    float rows[4][3];
    Term terms[4][2];
    int scale;
};

__host__ __device__ float dot3(const float *r, float x, float y) {
    return r[0] * x + r[1] * y + r[2];
}

__host__ __device__ void bump(float *r, int k) {
    r[k] += 1.5f;
    *r -= 0.25f;
}

__host__ __device__ float row_ops(Params p, int t) {
    int i = t % 4;
    float a = dot3(&p.rows[i][0], t * 0.5f, -1.0f);
    bump(&p.rows[i][0], t % 3);  // writes the copy's row
    float b = dot3(p.rows[i], 2.0f, t * 0.125f);
    const float *tail = &p.rows[(t + 1) % 4][1];
    return a + b + tail[0] * 3 + tail[1] + p.scale;
}

__host__ __device__ float term_ops(const Params &p, int t) {
    const Term *ts = &p.terms[t % 4][0];
    float s = 0;
    for (int k = 0; k < 2; k++) {
        if (ts[k].kind == 0) continue;
        s += ts[k].factor * ts[k].kind;
    }
    return s + ts->factor + (*ts).kind;
}

__host__ __device__ void low_byte(unsigned v, unsigned char *d) { d[0] = v & 0xff; }

// Overloads of one name calling each other (not recursion), `state + 6` and `out + k` moved on
// from a member array.
struct Block {
    unsigned state[8];
    unsigned char bytes[8];
    __host__ __device__ void next(unsigned *out) {
        for (int k = 0; k < 8; k++) out[k] = state[k] * 2654435761u;
        unsigned *counter = state + 6;
        counter[0]++;
        if (counter[0] == 0) counter[1]++;
    }
    __host__ __device__ void next(unsigned char *out) {
        unsigned w[8];
        next(w);
        for (int k = 0; k < 8; k++) low_byte(w[k] >> 8, out + k);
    }
};

__host__ __device__ float block_ops(int t) {
    Block b;
    for (int k = 0; k < 8; k++) b.state[k] = t * 977u + k;
    b.state[6] = 0xfffffffeu + t % 3;
    unsigned long long s = 0;
    for (int r = 0; r < 3; r++) {
        b.next(b.bytes);
        for (int k = 0; k < 8; k++) s = s * 7 + b.bytes[k];
    }
    return (float)(s % 100000) + b.state[7];
}

__host__ __device__ Params make(int seed) {
    Params p;
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) p.rows[i][j] = seed * 0.25f + i - j;
        for (int k = 0; k < 2; k++) p.terms[i][k] = Term{(i + k + seed) % 3, i * 0.5f - k};
    }
    p.scale = seed;
    return p;
}

template <int F> __global__ void k(float *o, Params p) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    o[t] = F == 0 ? row_ops(p, t) : F == 1 ? term_ops(p, t) : block_ops(t);
}

int main() {
    float *o;
    cudaMallocManaged(&o, N * sizeof(float));
    Params p = make(7);
    struct { const char *name; void (*kernel)(float *, Params); float (*host)(Params, int); } cases[] = {
        {"row_ops", k<0>, row_ops},
        {"term_ops", k<1>, [](Params q, int t) { return term_ops(q, t); }},
        {"block_ops", k<2>, [](Params, int t) { return block_ops(t); }},
    };
    for (auto &c : cases) {
        c.kernel<<<N / 64, 64>>>(o, p);
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        int same = 0;
        for (int t = 0; t < N; t++) same += o[t] == c.host(p, t);
        printf("%s %d of %d, last %.3f\n", c.name, same, N, o[N - 1]);
    }
    return 0;
}
