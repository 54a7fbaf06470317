// File-scope `constexpr` and `const` arrays, structs and scalars of the host used from device
// code where their values are known at compile time, as nvcc allows (HeCBench axpby's
// `constexpr int depth_to_max_tensors[6]` sizing an array in a struct template): array bounds
// in struct templates and in device code, template arguments, case labels, `if constexpr`,
// `sizeof`, elements at constant indices in arithmetic, members of constant structs and of
// arrays of structs, a 2-D array, an unsized `const` array, and `__device__ constexpr`
// variables, which are constants in array bounds and device memory at run time (indexed by a
// thread's number), and static constexpr arrays and structs of struct templates. Each per-thread computation is a __host__ __device__ function where the
// host can run it: the program prints, per function, how many of the threads' results equal
// the host's and one of them.
#include <cstdio>

constexpr int depth_to_max[6] = {110, 64, 48, 36, 30, 24};
const int primes[] = {2, 3, 5, 7, 11, 13};
constexpr int table[2][3] = {{1, 2, 3}, {40, 50, 60}};
constexpr float scale = 1.5f;
constexpr double weights[3] = {0.5, -0.25, 0.125};

struct Coef {
    int k;
    float w;
};
constexpr Coef coefs[3] = {{1, 0.5f}, {2, 0.25f}, {3, -2.0f}};
constexpr Coef one = {7, 3.5f};

template <int n>
struct Meta {
    int sizes[depth_to_max[n - 1]];
    unsigned char tags[depth_to_max[n]];
    int count;
};

template <int k>
__host__ __device__ int times(int x) { return x * k; }

__host__ __device__ int bounds(int t) {
    int buf[depth_to_max[5]];  // 24
    for (int i = 0; i < depth_to_max[5]; i++) buf[i] = t + i;
    int r = 0;
    for (int i = 0; i < (int)(sizeof(buf) / sizeof(buf[0])); i += 5) r += buf[i];
    int count = (int)(sizeof(primes) / sizeof(primes[0]));
    return r + count * 1000 + (int)sizeof(Meta<3>) * 10000 + (int)sizeof(table);
}

__host__ __device__ int selections(int t) {
    int r = times<depth_to_max[2]>(t);  // 48 t
    switch (t % 4) {
        case table[0][0]:
            r += 100;
            break;
        case table[0][1]:
            r += 200;
            break;
        case table[0][2]:
            r += 300;
            break;
        default:
            break;
    }
    if constexpr (depth_to_max[0] > 100) r += 7;
    if constexpr (coefs[1].k == 3) r += 1000000;
    return r;
}

__host__ __device__ float values(int t) {
    float x = (float)t * scale + (float)depth_to_max[3] * coefs[2].w;
    x += (float)table[1][2] + (float)weights[1] * (float)t;
    Coef c = coefs[1];
    x += c.w * (float)c.k + one.w * (float)one.k;
    return x;
}

// Static constexpr members: arrays and structs, bare in their struct, `S<N>::m` outside.
template <int N>
struct Stencil {
    static constexpr int taps[3] = {N, 2 * N, 3 * N};
    static constexpr Coef mid = {N + 1, 0.5f};
    int cells[taps[1]];
    __host__ __device__ int sum() const { return taps[0] + taps[2] * 10 + mid.k * 100; }
};

__host__ __device__ int members(int t) {
    Stencil<4> s;
    constexpr int cells = Stencil<4>::taps[1];
    for (int i = 0; i < cells; i++) s.cells[i] = t * i;
    return s.sum() * 1000 + s.cells[7] + Stencil<2>::taps[2] + (int)sizeof(s) * 100000 +
           Stencil<3>::mid.k;
}

__device__ constexpr int dev_sizes[3] = {4, 8, 16};
__device__ constexpr int dev_n = 5;

// Device constants: array bounds where constant, loads at run time.
__global__ void k_device(int *out) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    int buf[dev_sizes[1] + dev_n];  // 13
    for (int i = 0; i < 13; i++) buf[i] = i * t;
    out[t] = buf[12] + dev_sizes[t % 3] + dev_n * (int)(sizeof(buf) / sizeof(int));
}

__global__ void k_bounds(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = bounds(t); }
__global__ void k_selections(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = selections(t); }
__global__ void k_members(int *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = members(t); }
__global__ void k_values(float *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = values(t); }

// A struct sized by a constant, passed by value.
__global__ void k_meta(Meta<2> m, int *out) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    out[t] = m.sizes[t % depth_to_max[1]] + m.tags[t % depth_to_max[2]] + m.count;
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

int device(int t) { return 12 * t + (t % 3 == 0 ? 4 : t % 3 == 1 ? 8 : 16) + 5 * 13; }

int meta(int t) { return 3 * (t % 64) + (t % 48) + 1000; }

int main() {
    int *d;
    float *df;
    cudaMalloc(&d, n * sizeof(int));
    cudaMalloc(&df, n * sizeof(float));
    report("bounds", k_bounds, bounds, d);
    report("selections", k_selections, selections, d);
    report("device", k_device, device, d);
    report("members", k_members, members, d);
    Meta<2> m;
    for (int i = 0; i < depth_to_max[1]; i++) m.sizes[i] = 3 * i;
    for (int i = 0; i < depth_to_max[2]; i++) m.tags[i] = (unsigned char)i;
    m.count = 1000;
    int h[n];
    k_meta<<<2, n / 2>>>(m, d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == meta(t);
    printf("meta %d of %d, last %d\n", same, n, h[n - 1]);
    float hf[n];
    k_values<<<2, n / 2>>>(df);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) same += hf[t] == values(t);
    printf("values %d of %d, last %.2f\n", same, n, hf[n - 1]);
    return 0;
}
