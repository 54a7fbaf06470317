// Pointers into a thread's own variables and arrays: `&x` held in a pointer, a pointer into a
// local array moved with ++, +=, compared with an end pointer and subtracted, handed to
// functions, rows of a 2-D local array, `p->f` into a local array of structs, `&v.x` stepping
// on to `v.y`; `*lo++ = *hi` through pointers into global memory (the old address); and a
// pointer into one of two buffers, chosen per warp and per lane (each lane's load its own). Each per-thread computation is a __host__ __device__ function: the host runs the
// same code compiled by the C++ compiler, and the program prints, per kernel, how many of the
// threads' results equal the host's (every value is exact in float, so contraction does not
// matter) and one of them.
#include <cstdio>

struct Particle {
    float x, v;
    int hits;
};

__host__ __device__ void bump(int *p, int by) { *p += by; }

__host__ __device__ float sum(const float *begin, const float *end) {
    float s = 0.0f;
    for (const float *p = begin; p != end; ++p) s += *p;
    return s;
}

__host__ __device__ void reverse(float *a, int n) {
    float *lo = a, *hi = a + n - 1;
    while (lo < hi) {
        float t = *lo;
        *lo++ = *hi;
        *hi-- = t;
    }
}

__host__ __device__ void step(Particle *p, float dt) {
    p->x += p->v * dt;
    if (p->x > 4.0f) {
        p->v = -p->v;
        p->hits++;
    }
}

__host__ __device__ int scalars(int t) {
    int x = t;
    int *q = &x;
    *q = *q * 3 + 1;
    bump(q, 2);
    int pair[2] = {x, 5};
    int *r = &pair[t & 1];  // an element chosen per thread
    *r += 10;
    return pair[0] * 100 + pair[1];
}

__host__ __device__ float arrays(int t) {
    float a[8];
    for (int i = 0; i < 8; i++) a[i] = (float)((t * 7 + i * 3) % 11);
    float *p = a + 2;
    p[1] += 0.5f;
    p += 3;
    *p = -*p;
    reverse(a, 8);
    float *mid = &a[4];
    return sum(a, mid) * 10.0f + sum(mid, a + 8) + (float)(mid - a);
}

__host__ __device__ float matrix(int t) {
    float m[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) m[i][j] = (float)(i * 4 + j + t % 5);
    float acc = 0.0f;
    for (int i = 0; i < 4; i++) {
        float *row = m[i];
        acc += row[(i + t) % 4] * (float)(i + 1);
    }
    float *flat = &m[0][0];
    return acc + flat[t % 16];
}

__host__ __device__ float particles(int t) {
    Particle ps[3];
    for (int i = 0; i < 3; i++) {
        ps[i].x = (float)i;
        ps[i].v = 0.25f * (float)((t + i) % 7);
        ps[i].hits = 0;
    }
    for (int s = 0; s < 12; s++)
        for (Particle *p = ps; p < ps + 3; p++) step(p, 0.5f);
    Particle *last = &ps[2];
    float2 w = make_float2(ps[0].x, ps[1].x);
    float *wx = &w.x;
    wx[1] += last->x;
    return w.x + 2.0f * w.y + 1000.0f * (ps[0].hits + 10 * ps[1].hits + 100 * last->hits);
}

__global__ void k_scalars(int *out) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    out[t] = scalars(t);
}


__global__ void k_reverse(float *rows, int len) {
    reverse(rows + (threadIdx.x + blockIdx.x * blockDim.x) * len, len);
}

__global__ void k_two_buffers(const float *a, const float *b, float *out, int split) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    const float *src = b;
    if (t / 32 < split) src = a;              // per warp
    const float *other = (t & 1) ? a : b;     // per lane
    out[t] = src[t % 8] * 100.0f + other[t % 5];
}

__global__ void k_arrays(float *out) { out[threadIdx.x + blockIdx.x * blockDim.x] = arrays(threadIdx.x + blockIdx.x * blockDim.x); }
__global__ void k_matrix(float *out) { out[threadIdx.x + blockIdx.x * blockDim.x] = matrix(threadIdx.x + blockIdx.x * blockDim.x); }
__global__ void k_particles(float *out) { out[threadIdx.x + blockIdx.x * blockDim.x] = particles(threadIdx.x + blockIdx.x * blockDim.x); }

const int n = 256;

void report(const char *name, const float *got, float (*f)(int)) {
    int same = 0;
    for (int t = 0; t < n; t++) same += got[t] == f(t);
    printf("%s %d of %d, last %.3f\n", name, same, n, got[n - 1]);
}

int main() {
    int *di;
    float *df;
    cudaMalloc(&di, n * sizeof(int));
    cudaMalloc(&df, n * sizeof(float));
    int hi[n];
    float hf[n];

    k_scalars<<<2, n / 2>>>(di);
    cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += hi[t] == scalars(t);
    printf("scalars %d of %d, last %d\n", same, n, hi[n - 1]);

    k_arrays<<<2, n / 2>>>(df);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    report("arrays", hf, arrays);
    k_matrix<<<2, n / 2>>>(df);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    report("matrix", hf, matrix);
    k_particles<<<2, n / 2>>>(df);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    report("particles", hf, particles);

    // Two buffers of 8: a[i] = i + 1, b[i] = -(i + 1); warps 0-2 read a, lanes alternate.
    float ab[16];
    for (int i = 0; i < 8; i++) ab[i] = (float)(i + 1), ab[8 + i] = -(float)(i + 1);
    float *dab;
    cudaMalloc(&dab, sizeof ab);
    cudaMemcpy(dab, ab, sizeof ab, cudaMemcpyHostToDevice);
    k_two_buffers<<<2, n / 2>>>(dab, dab + 8, df, 3);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) {
        float s = t / 32 < 3 ? ab[t % 8] : ab[8 + t % 8];
        float o = (t & 1) ? ab[t % 5] : ab[8 + t % 5];
        same += hf[t] == s * 100.0f + o;
    }
    printf("two_buffers %d of %d, first %g\n", same, n, hf[0]);

    // Rows of 1 to 8 elements (a row of `len` for thread `len - 1`), reversed in place.
    float rows[8 * 8], want[8 * 8];
    for (int i = 0; i < 64; i++) rows[i] = want[i] = (float)i;
    for (int len = 1; len <= 8; len++) reverse(want + (len - 1) * 8, len);
    cudaMemcpy(df, rows, sizeof rows, cudaMemcpyHostToDevice);
    for (int len = 1; len <= 8; len++) k_reverse<<<1, 1>>>(df + (len - 1) * 8, len);
    cudaMemcpy(rows, df, sizeof rows, cudaMemcpyDeviceToHost);
    same = 0;
    for (int i = 0; i < 64; i++) same += rows[i] == want[i];
    printf("reverse %d of 64, row 8: %g %g %g\n", same, rows[56], rows[57], rows[63]);
    return 0;
}
