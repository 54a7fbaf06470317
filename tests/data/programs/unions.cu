// Unions in device code, as nvcc compiles them: every member at offset 0, the size the largest
// member's rounded up to the largest alignment, and a member other than the one last written
// read as the same bytes (float/int punning as aobench's `union { float f; int i; } u;`, an
// array overlaying named fields as d3q19-bgk's `outer_wall`). Local, anonymous and nested
// unions, anonymous struct and union members found through the struct around them (in its
// member functions too, and in templates), arrays of unions indexed at run time, unions
// copied, initialized, passed and returned by value, as kernel parameters, in global, shared
// and `__device__` memory and through pointers. Each per-thread computation is a
// __host__ __device__ function: the host runs the same code compiled by the C++ compiler, and
// the program prints, per function, how many of the threads' results equal the host's and one
// of them.
#include <cstdio>

union FloatBits {
    float f;
    int i;
    unsigned char b[4];
};

typedef struct outer_wall {
    union {
        struct {
            int xmin, xmax, ymin, ymax, zmin, zmax;
        };
        int el[6];
    };
    __host__ __device__ int width() const { return xmax - xmin + el[0]; }
} outer_wall;

union Wide {
    double d;
    unsigned long long u;
    int i[2];
    unsigned short s[4];
    unsigned char c[8];
};

struct Tagged {
    char tag;
    union {
        float f;
        int i;
    } val;
    short after;
};

union Word {
    unsigned u;
    unsigned short h[2];
    __host__ __device__ unsigned high() const { return h[1]; }
    __host__ __device__ void set_low(unsigned short v) { h[0] = v; }
};

union Vec {
    float4 v;
    float a[4];
    unsigned long long q[2];
};

struct Layouts {
    int sizes, aligns;
};

__device__ FloatBits device_bits = {3.0f};
__constant__ Wide constant_wide = {-2.5};

// aobench's generator: the random bits into a float's mantissa.
__host__ __device__ float unit_float(unsigned bits) {
    union {
        float f;
        int i;
    } u;
    u.i = (bits & 0x007fffff) | 0x3f800000;
    return u.f - 1.f;
}

__host__ __device__ int punning(int t) {
    int r = (int)(unit_float(t * 2654435761u) * 1e6f);
    FloatBits x;
    x.f = 0.75f * (float)t - 3.0f;
    int bits = x.i;
    x.b[3] ^= 0x80;  // the sign
    x.b[0] = (unsigned char)t;
    return r + bits + (int)(x.f * 8.0f) + x.i;
}

__host__ __device__ int overlay(int t) {
    outer_wall w;
    w.xmin = t;
    w.xmax = t * 3;
    w.ymin = -t;
    w.ymax = 7;
    w.zmin = t & 5;
    w.zmax = 11;
    int s = 0;
    for (int k = 0; k < 6; k++) s += w.el[k] * (k + 1);
    w.el[t % 6] += 100;
    w.el[(t + 1) % 6] = 9;
    return s * 1000 + w.xmin + w.xmax * 3 + w.ymin * 5 + w.ymax * 7 + w.zmin * 11 +
           w.zmax * 13 + w.width();
}

__host__ __device__ int wide(int t) {
    Wide w;
    w.d = 1.0 / (double)(t + 1);
    int r = w.i[0] ^ w.i[1];
    r += w.s[t % 4] + w.c[t % 8];
    w.s[1] = (unsigned short)t;
    w.c[7] = 0x40;
    r ^= (int)(w.u >> 13);
    r += (int)(w.d * 100.0);
    return r;
}

__host__ __device__ int nested(int t) {
    Tagged a[4];
    for (int k = 0; k < 4; k++) {
        a[k].tag = (char)k;
        a[k].val.f = (float)(t + k) * 0.5f;
        a[k].after = (short)(t - k);
    }
    int r = a[t % 4].val.i;
    a[(t + 2) % 4].val.i += t;
    for (int k = 0; k < 4; k++) r ^= (int)(a[k].val.f * 16.0f) + a[k].tag + a[k].after;
    return r;
}

__host__ __device__ FloatBits make_bits(int t) {
    FloatBits b = {(float)t * 1.25f};
    return b;
}

__host__ __device__ int bump(FloatBits b) {
    b.i += 1;
    return b.i;
}

__host__ __device__ int copies(int t) {
    FloatBits a = make_bits(t);
    FloatBits b = a;
    b.b[0] ^= 0xff;
    FloatBits c;
    c = b;
    FloatBits z = {};
    FloatBits pick = (t & 1) ? a : c;
    Word w = {0x12345678u + (unsigned)t};
    w.set_low((unsigned short)(t * 3));
    Wide nested_init = {2.0};
    return a.i + c.i * 3 + bump(c) + make_bits(t + 1).i + z.i + pick.i + (int)w.high() + (int)w.u +
           (int)(nested_init.u >> 40);
}

__host__ __device__ int vectors(int t) {
    Vec v;
    v.v = make_float4((float)t, 0.5f, -1.0f, (float)(t * t));
    float s = v.a[t % 4] + v.a[3];
    v.a[1] = 2.0f;
    return (int)s + (int)(v.q[0] >> 32) + (int)v.q[1] + (int)(v.v.y * 10.0f);
}

struct Holder {
    int n;
    FloatBits u[3];
    struct {
        union {
            float g;
            unsigned gi;
        };
    } deep;
};

__host__ __device__ void set(FloatBits &r, float v) { r.f = v; }

// A union through a pointer and a reference, unions in a struct's array indexed at run time,
// an anonymous union in an anonymous struct, and unions captured by a lambda.
__host__ __device__ int places(int t) {
    FloatBits x;
    x.f = 1.0f + (float)t;
    FloatBits *p = &x;
    p->b[2] ^= 1;
    Holder h;
    h.n = t;
    for (int k = 0; k < 3; k++) h.u[k].f = (float)k + 0.5f * (float)t;
    h.u[t % 3].i += 5;
    h.deep.g = 2.5f;
    h.deep.gi += t;
    set(h.u[1], 9.0f);
    auto sum = [=]() { return x.i + h.u[2].i; };
    FloatBits &r = h.u[(t + 1) % 3];
    r.b[0] = 1;
    return sum() + h.u[0].i + h.u[1].i + h.u[2].i + (int)h.deep.gi + x.i + h.n;
}

// Anonymous members of a struct template and a local union of a function template, which
// name the template's parameters: one layout per instance.
template <typename T>
struct V3 {
    union {
        struct {
            T x, y, z;
        };
        T data[3];
    };
    __host__ __device__ T sum() const { return x + data[1] + z; }
};

template <typename T>
__host__ __device__ T flip_low_bit(T v) {
    union {
        T value;
        unsigned char bytes[sizeof(T)];
    } u;
    u.value = v;
    u.bytes[0] ^= 1;
    return u.value;
}

__host__ __device__ int templates(int t) {
    V3<float> a;
    a.x = (float)t;
    a.y = 2.0f;
    a.data[2] = 3.0f;
    V3<double> b;
    b.data[t % 3] = 1.5;
    b.x = 0.25;
    b.data[(t + 1) % 3] = 4.0;
    b.data[(t + 2) % 3] = 8.0;
    double d = flip_low_bit(2.0 * (double)t);
    return (int)(a.sum() * 4.0f) + (int)(b.sum() * 4.0) + flip_low_bit(t * 3) +
           (int)(flip_low_bit(0.5f * (float)t) * 1024.0f) + (int)(d * 1e6) +
           (int)(sizeof(a) * 100 + sizeof(b) * 10000 + sizeof(V3<char>));
}

__host__ __device__ Layouts layouts() {
    Layouts l;
    l.sizes = (int)(sizeof(FloatBits) + sizeof(outer_wall) * 10 + sizeof(Wide) * 100 +
                    sizeof(Tagged) * 1000 + sizeof(Word) * 10000 + sizeof(Vec) * 100000);
    l.aligns = (int)(alignof(FloatBits) + alignof(outer_wall) * 10 + alignof(Wide) * 100 +
                     alignof(Tagged) * 1000 + alignof(Word) * 10000 + alignof(Vec) * 100000);
    return l;
}

__global__ void k_punning(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = punning(t); }
__global__ void k_overlay(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = overlay(t); }
__global__ void k_wide(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = wide(t); }
__global__ void k_nested(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = nested(t); }
__global__ void k_copies(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = copies(t); }
__global__ void k_vectors(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = vectors(t); }
__global__ void k_places(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = places(t); }
__global__ void k_templates(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = templates(t); }

// Structs holding unions by value as kernel parameters: the host's bytes.
__host__ __device__ int from_wall(outer_wall w, Tagged g, int t) {
    return w.el[t % 6] * 3 + w.ymax + w.width() + g.val.i + g.tag + g.after;
}
__global__ void k_param(outer_wall w, Tagged g, int *out) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    out[t] = from_wall(w, g, t);
}

// Unions in global memory (written as one member, read as another), through pointers, in
// shared memory (an atomic on a member), and `__device__`/`__constant__` unions.
// Thread `t`'s result, `next` being the thread after it in its block (wrapping around).
__host__ __device__ int memory_value(int t, int next) {
    FloatBits b;
    b.f = (float)t * 0.25f;
    FloatBits c;
    c.f = (float)next * 0.25f;
    c.b[1] = 3;
    return b.i + c.i;
}
__global__ void k_memory(FloatBits *g, int *out) {
    __shared__ FloatBits s[128];
    __shared__ FloatBits count;
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    g[t].f = (float)t * 0.25f;
    s[threadIdx.x].f = (float)t * 0.25f;
    if (threadIdx.x == 0) count.f = 1.0f;
    __syncthreads();
    atomicAdd(&count.i, 1);
    FloatBits *p = &g[t];
    FloatBits c = s[(threadIdx.x + 1) % blockDim.x];
    c.b[1] = 3;
    __syncthreads();
    out[t] = p->i + c.i + count.i;
    if (t == 0) out[gridDim.x * blockDim.x] = device_bits.i + (int)(constant_wide.u >> 32);
}

const int n = 256;

void report(const char *name, void (*k)(int *), int (*f)(int), int *d) {
    int h[n];
    k<<<2, n / 2>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == f(t);
    printf("%s %d of %d, last %d\n", name, same, n, h[n - 1]);
}

__global__ void k_layouts(Layouts *out) { *out = layouts(); }

int main() {
    int *d;
    cudaMalloc(&d, (n + 1) * sizeof(int));
    report("punning", k_punning, punning, d);
    report("overlay", k_overlay, overlay, d);
    report("wide", k_wide, wide, d);
    report("nested", k_nested, nested, d);
    report("copies", k_copies, copies, d);
    report("vectors", k_vectors, vectors, d);
    report("places", k_places, places, d);
    report("templates", k_templates, templates, d);

    outer_wall w;
    for (int k = 0; k < 6; k++) w.el[k] = k * k - 4;
    Tagged g;
    g.tag = 5;
    g.val.f = 6.5f;
    g.after = -9;
    int h[n + 1];
    k_param<<<2, n / 2>>>(w, g, d);
    cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == from_wall(w, g, t);
    printf("parameters %d of %d, last %d\n", same, n, h[n - 1]);

    FloatBits *gb;
    cudaMalloc(&gb, n * sizeof(FloatBits));
    k_memory<<<2, n / 2>>>(gb, d);
    cudaMemcpy(h, d, (n + 1) * sizeof(int), cudaMemcpyDeviceToHost);
    same = 0;
    FloatBits one = {1.0f};
    for (int t = 0; t < n; t++)
        same += h[t] == memory_value(t, t / 128 * 128 + (t + 1) % 128) + one.i + 128;
    FloatBits three = {3.0f};
    Wide minus = {-2.5};
    printf("memory %d of %d, globals %d\n", same, n, h[n] == three.i + (int)(minus.u >> 32));

    Layouts *dl, hl;
    cudaMalloc(&dl, sizeof(Layouts));
    k_layouts<<<1, 1>>>(dl);
    cudaMemcpy(&hl, dl, sizeof hl, cudaMemcpyDeviceToHost);
    Layouts want = layouts();
    printf("layouts %d %d, host %d %d\n", hl.sizes, hl.aligns, want.sizes, want.aligns);
    return 0;
}
