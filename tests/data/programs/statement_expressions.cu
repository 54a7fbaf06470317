// GNU statement expressions `({ ...; value; })` and `__typeof__`/`decltype`, as macros use them
// (HeCBench chemv's `ppcg_min`): each argument evaluated once, locals scoped to the block
// (shadowing an outer name), nested, in `if`/`while`/`for` conditions, behind `&&` and `?:`
// (evaluated only when reached), holding loops, of struct type, and as a statement with no
// value; `__typeof__` of a type, of a promoted expression and of an element (a copy), and
// `decltype` of an element and of a parenthesised name (references: writes go through). Each
// per-thread computation is a __host__ __device__ function: the host runs the same code
// compiled by the C++ compiler, and the program prints, per function, how many of the
// threads' results equal the host's and one of them.
#include <cstdio>

#define MIN(x, y) ({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); _x < _y ? _x : _y; })
#define MAX(x, y) ({ __typeof(x) _x = (x); decltype(y) _y = (y); _x > _y ? _x : _y; })
#define CLAMP(v, lo, hi) MIN(MAX(v, lo), hi)

__host__ __device__ int macros(int t) {
    int i = t;
    int m = MAX(i++, 100);  // `i++` once
    int c = CLAMP(t % 50, 10, 40);
    float f = MIN(0.5f * (float)t, 20.0f);
    long long big = MAX((long long)t << 33, 1LL);
    return m * 7 + c * 3 + (int)(f * 4.0f) + (int)(big >> 33) + i;
}

__host__ __device__ int scoping(int t) {
    int x = t;
    int y = ({
        int x = t * 2;  // shadows the outer x
        int z = x + 1;
        z * 3;
    }) + x;
    int s = ({
        int acc = 0;
        for (int k = 0; k < t % 9; k++) {
            if (k == 5) break;
            acc += k * k;
        }
        acc;
    });
    int n = ({ ({ int q = t & 7; q * q; }) + ({ int q = t >> 3; q; }); });  // nested
    return y * 1000 + s * 10 + n + x;
}

__host__ __device__ int conditions(int t) {
    int r = 0;
    if (({ int h = t / 2; h * 2 == t; })) r += 1;
    if (MAX(t, 30) > 40) r += 10;
    int left = t % 13, steps = 0;
    while (({ int l = left; left = l - 3; l > 0; })) steps++;
    for (int k = 0; ({ int lim = MIN(t, 6); k < lim; }); k++) r += 100;
    int touched = 0;
    bool b = t > 200 && ({ touched += 1; true; });  // not evaluated where t <= 200
    int pick = (t & 1) ? ({ int o = t * 5; o - 1; }) : ({ int e = t * 3; e + 1; });
    ({
        if (t % 3 == 0) r += 7;
    });  // a statement expression with no value, as a statement
    return r + steps * 10000 + touched * 100000 + (int)b * 1000000 + pick;
}

struct Pair {
    int a;
    float b;
};

__host__ __device__ float values(int t) {
    Pair p = ({ Pair q; q.a = t + 1; q.b = 0.25f * (float)t; q; });
    float sum = ({ Pair q = p; q.b + (float)q.a; });
    char c = (char)(t & 63);
    __typeof__(c + 1) promoted = c + 1;  // int
    __typeof__(unsigned int) u = (unsigned int)t * 3u;
    __typeof__(float) half = (float)t * 0.5f;
    int size = (int)sizeof(__typeof__(c)) * 10 + (int)sizeof(promoted);
    float cast = (decltype(half))t / 4.0f;
    return sum + (float)promoted + (float)u + half + (float)size * 100.0f + cast + (float)p.a;
}

__host__ __device__ int references(int t) {
    int a[4] = {t, t + 1, t + 2, t + 3};
    decltype(a[1]) r = a[1];  // int &
    r = 50;
    __typeof__(a[2]) copy = a[2];  // int
    copy = 70;
    int x = t;
    decltype((x)) rx = x;  // int &
    rx += 5;
    decltype(x) cx = x;  // int
    cx += 1000;
    return a[0] + a[1] * 10 + a[2] * 100 + a[3] + x * 1000 + cx;
}

// `typeof` (g++'s `-std=c++17` does not know it, so only device code uses it).
__global__ void k_typeof(int *out) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    typeof(t) twice = t * 2;
    out[t] = ({ typeof(twice) h = twice / 2; h; }) == t;
}

__global__ void k_macros(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = macros(t); }
__global__ void k_scoping(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = scoping(t); }
__global__ void k_conditions(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = conditions(t); }
__global__ void k_references(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = references(t); }
__global__ void k_values(float *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = values(t); }

const int n = 256;

void report(const char *name, void (*k)(int *), int (*f)(int), int *d) {
    int h[n];
    k<<<2, n / 2>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == f(t);
    printf("%s %d of %d, last %d\n", name, same, n, h[n - 1]);
}

int main() {
    int *d;
    float *df;
    cudaMalloc(&d, n * sizeof(int));
    cudaMalloc(&df, n * sizeof(float));
    report("macros", k_macros, macros, d);
    report("scoping", k_scoping, scoping, d);
    report("conditions", k_conditions, conditions, d);
    report("references", k_references, references, d);
    float hf[n];
    k_values<<<2, n / 2>>>(df);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += hf[t] == values(t);
    printf("values %d of %d, last %.2f\n", same, n, hf[n - 1]);
    int h[n];
    k_typeof<<<2, n / 2>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) same += h[t];
    printf("typeof %d of %d\n", same, n);
    return 0;
}
