// nvcc's FMA contraction where one product, `a * b`, is written in many patterns of one kernel:
// nvcc computes it once, and a product with more than four uses, or one used other than by a
// sum, is not fused (the patterns with products of their own are). Each pattern over 4,096
// operand sets: how many of the GPU's results are fused or rounded where the two differ (the
// `+N` after other: results that are the sum's other product fused) and the FNV-1a hash of
// all. fma_shared.h200.txt is this program built with plain `nvcc -arch=sm_90` and run on an
// H200; fma_shared.nofmad.h200.txt the same built with `--fmad=false`.
#include <cmath>
#include <cstdio>
#include <cstring>

const int N = 4096;
const int PATTERNS = 24;

__device__ float twice(float x, float y) { return x * y; }
__device__ double twice(double x, double y) { return x * y; }
__device__ float mul_rn(float x, float y) { return __fmul_rn(x, y); }
__device__ double mul_rn(double x, double y) { return __dmul_rn(x, y); }

template <typename T>
__global__ void patterns(const T *A, const T *B, const T *C, const T *D, const T *E, const T *F,
                         const int *flag, int uflag, T *r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    T a = A[i], b = B[i], c = C[i], d = D[i], e = E[i], g = F[i];
    T *o = r + i;
    o[0 * N] = a * b + c;
    o[1 * N] = a * b - c;
    o[2 * N] = c - a * b;
    o[3 * N] = c + a * b;
    { T t = a * b; o[4 * N] = t + c; }
    { T t = a * b; o[5 * N] = t + c; o[22 * N] = t; }        // the product stored as well
    { T t = a * b; o[6 * N] = t + c; o[7 * N] = t + d; }     // the product added twice
    o[8 * N] = a * b + e * b;
    o[9 * N] = mul_rn(a, b) + c;
    { T t = a * b; o[10 * N] = flag[i] ? t + c : t - d; }    // the sum under a varying branch
    { T t = a * b; T u; if (flag[i]) u = t + c; else u = t - d; o[11 * N] = u; }
    { T t = a * b; T u; if (uflag) u = t + c; else u = t - d; o[12 * N] = u; }
    { T acc = c; for (int k = 0; k < 4; k++) acc += A[(i + k) % N] * B[(i + k) % N]; o[13 * N] = acc; }
    { T x = a * b; x += c; o[14 * N] = x; }
    o[15 * N] = -(a * b) + c;
    o[16 * N] = a * b * c + d;
    { T t = a * b; o[17 * N] = t + c; o[23 * N] = t > (T)0 ? (T)1 : (T)0; }   // product compared
    o[18 * N] = twice(a, b) + c;
    o[19 * N] = a * b - g * b;
    { T t = a * b; T s = t + c; o[20 * N] = s * d + a; }
    { T acc = c; for (int k = 0; k < N; k += 1024) { if (flag[(i + k) % N]) acc += A[(i + k) % N] * b; } o[21 * N] = acc; }
}

unsigned int rnd(unsigned int &s) { s = s * 1664525u + 1013904223u; return s >> 8; }

// Exact host arithmetic: each operation rounded by itself (volatile keeps the compiler from
// contracting), or fused.
template <typename T> T mul(T x, T y) { volatile T p = x * y; return p; }
template <typename T> T add(T x, T y) { volatile T s = x + y; return s; }
template <typename T> T fma_(T x, T y, T z) { return std::fma(x, y, z); }

template <typename T> unsigned long long bits(T v) {
    unsigned long long u = 0;
    memcpy(&u, &v, sizeof v);
    return u;
}

template <typename T> void run(const char *ty) {
    T *h[6];
    for (int k = 0; k < 6; k++) h[k] = new T[N];
    int *hf = new int[N];
    unsigned int s = 12345;
    for (int i = 0; i < N; i++) {
        // Operands whose product is nearly cancelled by the addend, so one rounding shows.
        T a = (T)(rnd(s) % 100000 + 1) / (T)977.0, b = (T)(rnd(s) % 100000 + 1) / (T)1013.0;
        T sign = (rnd(s) & 1) ? (T)1 : (T)-1;
        T c = sign * mul(a, b) * (T)(1.0 + (rnd(s) % 64) * 1e-7);
        T d = -sign * mul(a, b) * (T)(1.0 + (rnd(s) % 64) * 1e-7);
        h[0][i] = a; h[1][i] = b; h[2][i] = c; h[3][i] = d;
        h[4][i] = -a * (T)(1.0 + (rnd(s) % 64) * 1e-7); h[5][i] = -h[4][i];
        hf[i] = rnd(s) & 1;
    }
    T *dv[6], *dr;
    int *df;
    for (int k = 0; k < 6; k++) {
        cudaMalloc(&dv[k], N * sizeof(T));
        cudaMemcpy(dv[k], h[k], N * sizeof(T), cudaMemcpyHostToDevice);
    }
    cudaMalloc(&df, N * sizeof(int));
    cudaMemcpy(df, hf, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMalloc(&dr, (size_t)PATTERNS * N * sizeof(T));
    patterns<T><<<N / 128, 128>>>(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], df, 1, dr);
    T *out = new T[(size_t)PATTERNS * N];
    cudaMemcpy(out, dr, (size_t)PATTERNS * N * sizeof(T), cudaMemcpyDeviceToHost);
    const char *name[PATTERNS] = {"a*b+c", "a*b-c", "c-a*b", "c+a*b", "t=a*b;t+c", "t=a*b;t+c;store(t)",
        "t=a*b;t+c;(t+d)", "t=a*b;(t+c);t+d", "a*b+e*b", "__fmul_rn(a,b)+c", "t=a*b;f?t+c:t-d",
        "t=a*b;if(f)t+c;else t-d", "t=a*b;if(uniform)t+c", "acc+=a*b(4x)", "x=a*b;x+=c", "-(a*b)+c",
        "a*b*c+d", "t=a*b;t+c;t>0", "f(a,b)+c", "a*b-g*b", "(a*b+c)*d+a", "if(f)acc+=a*b"};
    for (int p = 0; p < PATTERNS - 2; p++) {
        unsigned long long hash = 1469598103934665603ull;
        int fused = 0, plain = 0, other = 0, swapped = 0;
        for (int i = 0; i < N; i++) {
            T a = h[0][i], b = h[1][i], c = h[2][i], d = h[3][i], e = h[4][i], g = h[5][i], v = out[(size_t)p * N + i];
            unsigned long long u = bits(v);
            for (int k = 0; k < (int)sizeof(T); k++) hash = (hash ^ ((u >> (8 * k)) & 0xff)) * 1099511628211ull;
            T f, q;  // fused, every operation rounded
            switch (p) {
            case 0: case 3: case 4: case 5: case 6: case 14: case 17: case 18:
                f = fma_(a, b, c); q = add(mul(a, b), c); break;
            case 7: f = fma_(a, b, d); q = add(mul(a, b), d); break;
            case 1: f = fma_(a, b, -c); q = add(mul(a, b), -c); break;
            case 2: case 15: f = fma_(-a, b, c); q = add(c, -mul(a, b)); break;
            case 8: f = fma_(a, b, mul(e, b)); q = add(mul(a, b), mul(e, b)); break;
            case 9: f = q = add(mul(a, b), c); break;
            case 10: case 11: f = hf[i] ? fma_(a, b, c) : fma_(a, b, -d); q = hf[i] ? add(mul(a, b), c) : add(mul(a, b), -d); break;
            case 12: f = fma_(a, b, c); q = add(mul(a, b), c); break;
            case 13: f = c; q = c;
                for (int k = 0; k < 4; k++) { int j = (i + k) % N; f = fma_(h[0][j], h[1][j], f); q = add(q, mul(h[0][j], h[1][j])); }
                break;
            case 16: f = fma_(mul(a, b), c, d); q = add(mul(mul(a, b), c), d); break;
            case 19: f = fma_(a, b, -mul(g, b)); q = add(mul(a, b), -mul(g, b)); break;
            case 20: f = fma_(fma_(a, b, c), d, a); q = add(mul(add(mul(a, b), c), d), a); break;
            default: f = c; q = c;
                for (int k = 0; k < N; k += 1024) { int j = (i + k) % N; if (hf[j]) { f = fma_(h[0][j], b, f); q = add(q, mul(h[0][j], b)); } }
                break;
            }
            if (bits(f) == bits(q)) continue;  // this operand set tells nothing
            if (bits(v) == bits(f)) fused++;
            else if (bits(v) == bits(q)) plain++;
            else other++;
            if (bits(v) != bits(f) && bits(v) != bits(q) &&
                ((p == 8 && bits(v) == bits(fma_(e, b, mul(a, b)))) || (p == 19 && bits(v) == bits(fma_(-g, b, mul(a, b))))))
                swapped++;  // the other product fused
        }
        printf("%s %-26s fused %4d rounded %4d other %4d+%d hash %016llx\n", ty, name[p], fused, plain,
               other, swapped, hash);
    }
    for (int k = 0; k < 6; k++) cudaFree(dv[k]);
    cudaFree(df);
    cudaFree(dr);
}

int main() {
    run<float>("float");
    run<double>("double");
    return 0;
}
