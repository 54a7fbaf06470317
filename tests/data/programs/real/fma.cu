// nvcc's FMA contraction, each pattern in a kernel of its own (no product shared between
// patterns): per pattern and output, over the operand sets where the candidate roundings
// differ, how many of the GPU's results are the fused one (index 0: as nvcc's rule fuses),
// every operation rounded (1), or an alternative (2, 3), and the FNV-1a hash of all results.
// fma.h200.txt is this program built with plain `nvcc -arch=sm_90` (--fmad=true, nvcc's
// default) and run on an H200; fma.nofmad.h200.txt the same built with `--fmad=false`.
#include <cmath>
#include <cstdio>
#include <cstring>
const int N = 4096;

template <typename T> __device__ T mrn(T x, T y);
template <> __device__ float mrn(float x, float y) { return __fmul_rn(x, y); }
template <> __device__ double mrn(double x, double y) { return __dmul_rn(x, y); }

// A literal passed to an inlined function: nvcc folds `k * 1.25` to a constant before it
// fuses, so the two other products are fused.
template <typename T> __device__ T lin(T x, int k, T y) { return x * (T)0.37 + k * (T)1.25 + y * (T)0.001; }

template <int P, typename T>
__global__ void k(const T *A, const T *B, const T *C, const T *D, const T *E, const int *F, T *r0, T *r1) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    T a = A[i], b = B[i], c = C[i], d = D[i], e = E[i];
    T x = 0, y = 0;
    switch (P) {
    case 0: x = a * b + c; break;
    case 1: x = a * b - d; break;
    case 2: x = d - a * b; break;
    case 3: { T t = a * b; x = t + c; y = t - d; } break;               // 2 uses, both add/sub
    case 4: { T t = a * b; x = t + c; y = t; } break;                   // an add and a store
    case 5: { T t = a * b; x = t + c; y = t > 0 ? (T)1 : (T)2; } break; // an add and a compare
    case 6: { T t = a * b; x = t + c; y = (t - d) + (t + c * (T)0.5) + (t - d * (T)0.25) + (t + c * (T)0.125); } break; // 5 uses
    case 7: { T t = a * b; x = t + c; y = (t - d) + (t + c * (T)0.5) + (t - d * (T)0.25); } break; // 4 uses
    case 8: x = a * b + e * b; break;
    case 9: x = e * b + a * b; break;
    case 10: x = a * b + c; y = a * b - d; break;                      // the same product written twice
    case 11: { T t = a * b; if (F[i]) x = t + c; else x = t - d; } break;
    case 12: { T t = a * b; if (F[i]) { y = c * (T)3; x = t + c; } } break;
    case 13: { T acc = c; for (int j = 0; j < 8; j++) acc += A[(i + j) % N] * B[(i + j) % N]; x = acc; } break;
    case 14: { T acc = c; for (int j = 0; j < N; j += 512) acc = acc + A[(i + j) % N] * b; x = acc; } break;
    case 15: x = mrn(a, b) + c; break;
    case 16: { T t = a * b; T u = t; x = u + c; } break;
    case 17: { T t = a * b; y = t * (T)2; x = t + c; } break;           // a mul use and an add
    case 18: x = -(a * b) + c; break;
    case 19: x = (a * b) * e + c; break;
    case 20: x = c + a * b + e * c; break;
    case 21: x = a * a + b * b + c * c; break;
    case 22: { T t = a * b; x = t + c; if (F[i]) y = t + d; } break;   // the second use under a branch
    case 23: x = a * (b + c) + d; break;
    case 24: x = lin(a, 1, b); break;
    }
    r0[i] = x;
    r1[i] = y;
}

unsigned int rnd(unsigned int &s) { s = s * 1664525u + 1013904223u; return s >> 8; }
template <typename T> T mul(T x, T y) { volatile T p = x * y; return p; }
template <typename T> T add(T x, T y) { volatile T s = x + y; return s; }
template <typename T> T fm(T x, T y, T z) { return std::fma(x, y, z); }
template <typename T> unsigned long long bits(T v) { unsigned long long u = 0; memcpy(&u, &v, sizeof v); return u; }

struct Host { double a, b, c, d, e; int f; };

template <typename T> struct Data { T *h[5]; int *f; T *dv[5]; int *df; T *d0, *d1; T *o0, *o1; };

template <int P, typename T> void launch(Data<T> &D) {
    k<P, T><<<N / 128, 128>>>(D.dv[0], D.dv[1], D.dv[2], D.dv[3], D.dv[4], D.df, D.d0, D.d1);
    cudaMemcpy(D.o0, D.d0, N * sizeof(T), cudaMemcpyDeviceToHost);
    cudaMemcpy(D.o1, D.d1, N * sizeof(T), cudaMemcpyDeviceToHost);
}

// The candidate results of pattern `p`'s output `out`: 0 fused, 1 every operation rounded,
// 2 and 3 alternatives; returns how many (0: the output tells nothing).
template <typename T> int cands(int p, int out, T a, T b, T c, T d, T e, int f, const T *A, const T *B, int i, T *v) {
    switch (p * 2 + out) {
    case 0: v[0] = fm(a, b, c); v[1] = add(mul(a, b), c); return 2;
    case 2: v[0] = fm(a, b, -d); v[1] = add(mul(a, b), -d); return 2;
    case 4: v[0] = fm(-a, b, d); v[1] = add(d, -mul(a, b)); return 2;
    case 6: case 8: case 10: case 12: case 14: case 32: case 34: case 44:
        v[0] = fm(a, b, c); v[1] = add(mul(a, b), c); return 2;
    case 7: v[0] = fm(a, b, -d); v[1] = add(mul(a, b), -d); return 2;
    case 16: v[0] = fm(a, b, e * b); v[1] = add(mul(a, b), mul(e, b)); v[2] = fm(e, b, mul(a, b)); return 3;
    case 18: v[0] = fm(e, b, a * b); v[1] = add(mul(e, b), mul(a, b)); v[2] = fm(a, b, mul(e, b)); return 3;
    case 20: v[0] = fm(a, b, c); v[1] = add(mul(a, b), c); return 2;
    case 21: v[0] = fm(a, b, -d); v[1] = add(mul(a, b), -d); return 2;
    case 22: v[0] = f ? fm(a, b, c) : fm(a, b, -d); v[1] = f ? add(mul(a, b), c) : add(mul(a, b), -d); return 2;
    case 24: if (!f) return 0; v[0] = fm(a, b, c); v[1] = add(mul(a, b), c); return 2;
    case 26: { T x = c, y = c; for (int j = 0; j < 8; j++) { int q = (i + j) % N; x = fm(A[q], B[q], x); y = add(y, mul(A[q], B[q])); } v[0] = x; v[1] = y; return 2; }
    case 28: { T x = c, y = c; for (int j = 0; j < N; j += 512) { int q = (i + j) % N; x = fm(A[q], b, x); y = add(y, mul(A[q], b)); } v[0] = x; v[1] = y; return 2; }
    case 30: v[0] = v[1] = add(mul(a, b), c); return 2;
    case 36: v[0] = fm(-a, b, c); v[1] = add(c, -mul(a, b)); return 2;
    case 38: v[0] = fm(mul(a, b), e, c); v[1] = add(mul(mul(a, b), e), c); return 2;
    case 40: v[0] = fm(e, c, fm(a, b, c)); v[1] = add(add(c, mul(a, b)), mul(e, c)); v[2] = fm(a, b, add(c, mul(e, c))); v[3] = add(fm(a, b, c), mul(e, c)); return 4;
    case 42: v[0] = fm(c, c, fm(b, b, mul(a, a))); v[1] = add(add(mul(a, a), mul(b, b)), mul(c, c)); v[2] = fm(c, c, fm(a, a, mul(b, b))); v[3] = fm(c,c,add(mul(a, a), mul(b, b))); return 4;
    case 45: if (!f) return 0; v[0] = fm(a, b, d); v[1] = add(mul(a, b), d); return 2;
    case 46: v[0] = fm(a, add(b, c), d); v[1] = add(mul(a, add(b, c)), d); return 2;
    case 48: { T p = (T)0.37, q = (T)1.25, r = (T)0.001;
        v[0] = fm(b, r, fm(a, p, q)); v[1] = add(add(mul(a, p), q), mul(b, r));
        v[2] = fm(b, r, add(mul(a, p), q)); v[3] = add(fm(a, p, q), mul(b, r)); return 4; }
    default: return 0;
    }
}

template <typename T, int P> void one(Data<T> &D, const char *ty) {
    launch<P, T>(D);
    for (int out = 0; out < 2; out++) {
        T *o = out ? D.o1 : D.o0;
        unsigned long long hash = 1469598103934665603ull;
        int count[5] = {0, 0, 0, 0, 0}, told = 0, n = 0;
        for (int i = 0; i < N; i++) {
            unsigned long long u = bits(o[i]);
            for (int q = 0; q < (int)sizeof(T); q++) hash = (hash ^ ((u >> (8 * q)) & 0xff)) * 1099511628211ull;
            T v[4];
            n = cands<T>(P, out, D.h[0][i], D.h[1][i], D.h[2][i], D.h[3][i], D.h[4][i], D.f[i], D.h[0], D.h[1], i, v);
            if (n == 0) continue;
            bool differ = false;
            for (int q = 1; q < n; q++) differ |= bits(v[q]) != bits(v[0]);
            if (!differ) continue;
            told++;
            int which = 4;
            for (int q = 0; q < n; q++) if (u == bits(v[q])) { which = q; break; }
            count[which]++;
        }
        if (told == 0 && out == 1) continue;
        printf("%s p%02d.%d told %4d fused %4d rounded %4d alt2 %4d alt3 %4d other %4d hash %016llx\n", ty, P, out,
               told, count[0], count[1], count[2], count[3], count[4], hash);
    }
}

template <typename T, int... P> struct All;
template <typename T> struct All<T> { static void go(Data<T> &, const char *) {} };
template <typename T, int P, int... R> struct All<T, P, R...> {
    static void go(Data<T> &D, const char *ty) { one<T, P>(D, ty); All<T, R...>::go(D, ty); }
};

template <typename T> void run(const char *ty) {
    Data<T> D;
    for (int q = 0; q < 5; q++) D.h[q] = new T[N];
    D.f = new int[N];
    unsigned int s = 12345;
    for (int i = 0; i < N; i++) {
        T a = (T)(rnd(s) % 100000 + 1) / (T)977.0, b = (T)(rnd(s) % 100000 + 1) / (T)1013.0;
        T sign = (rnd(s) & 1) ? (T)1 : (T)-1;
        // c cancels +ab or -ab, d cancels ab under subtraction; e cancels a in e*b + a*b.
        D.h[0][i] = a; D.h[1][i] = b;
        D.h[2][i] = -sign * mul(a, b) * (T)(1.0 + (rnd(s) % 64) * 1e-7);
        D.h[3][i] = sign * mul(a, b) * (T)(1.0 + (rnd(s) % 64) * 1e-7);
        D.h[4][i] = -a * (T)(1.0 + (rnd(s) % 64) * 1e-7);
        D.f[i] = rnd(s) & 1;
    }
    for (int q = 0; q < 5; q++) {
        cudaMalloc(&D.dv[q], N * sizeof(T));
        cudaMemcpy(D.dv[q], D.h[q], N * sizeof(T), cudaMemcpyHostToDevice);
    }
    cudaMalloc(&D.df, N * sizeof(int));
    cudaMemcpy(D.df, D.f, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMalloc(&D.d0, N * sizeof(T));
    cudaMalloc(&D.d1, N * sizeof(T));
    D.o0 = new T[N];
    D.o1 = new T[N];
    All<T, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24>::go(D, ty);
}

int main() {
    run<float>("float");
    run<double>("double");
    return 0;
}
