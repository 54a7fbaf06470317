// Variadic templates (HeCBench axpby's multi_tensor_apply): device functions over parameter
// packs of types and of values, their packs deduced from the arguments, given explicitly or
// both; `sizeof...`; expansions into a call's arguments (`sum(rest...)`, recursively down to
// the overload for none), into a braced list, into template arguments, and of patterns
// (`xs * 2 ...`, `sizeof(Ts)...`); a functor called with a pack; and variadic kernels,
// launched with elements of several types, with none, and from a host function template
// that forwards its own pack (`k<<<g, b>>>(out, args...)`), their packs holding instances of
// struct templates and pointers. Each per-thread computation is a
// __host__ __device__ function: the host runs the same code compiled by the C++ compiler, and
// the program prints, per kernel, how many threads' results equal the host's and one of them.
#include <cstdio>

__host__ __device__ float sum() { return 0.0f; }

template <typename T, typename... Rest>
__host__ __device__ float sum(T first, Rest... rest) {
    return (float)first * 2.0f + sum(rest...);
}

template <typename... Ts>
__host__ __device__ int count(Ts... xs) {
    return (int)sizeof...(Ts) * 10 + (int)sizeof...(xs);
}

template <typename... Ts>
__host__ __device__ int last_of(int a, const Ts &...xs) {
    int v[] = {a, (int)xs...};
    return v[sizeof...(xs)] * 1000 + v[0];
}

__host__ __device__ int weigh(int a, int b, int c) { return a * 100 + b * 10 + c; }

template <typename... Ts>
__host__ __device__ int twice_all(Ts... xs) {
    return weigh(xs * 2 ...);
}

template <typename... Ts>
__host__ __device__ int total_size() {
    int s[] = {(int)sizeof(Ts)...};
    int r = 0;
    for (int i = 0; i < (int)sizeof...(Ts); i++) r = r * 10 + s[i];
    return r;
}

template <int... Ns>
__host__ __device__ int digits() {
    int v[] = {Ns...};
    int r = 0;
    for (int i = 0; i < (int)sizeof...(Ns); i++) r = r * 10 + v[i];
    return r;
}

template <typename... Ts>
__host__ __device__ int sizes_of(Ts... xs) {
    return total_size<Ts...>() + count<Ts...>(xs...) * 100000;
}

struct Weigh {
    __host__ __device__ int operator()(int a, int b, int c) const { return weigh(a, b, c); }
};

// A functor of a struct template, as apex's (the kernel's name names `Offset<long long, -2>`).
template <typename T, int K>
struct Offset {
    __host__ __device__ int operator()(int a, int b, int c) const {
        return weigh(a, b, c) + K * (int)sizeof(T);
    }
};

template <typename F, typename... Args>
__host__ __device__ int apply(F f, Args... args) {
    return f(args...) + count(args...);
}

__host__ __device__ float functions(int t) {
    float s = sum(t, 0.5f, (char)3, 2u) + sum<float, int>(1.5f, t, 4);
    int c = count() + count(t) + count(t, 1.0, 'x');
    int l = last_of(t, 7, 8.5f) + last_of(t);
    int p = twice_all(t % 5, 2, (short)3) + apply(Weigh(), t % 3, 4, 5);
    int z = sizes_of(t, 'c', 2.0) + total_size<double, char>() + digits<3, 1, 4>();
    return s + (float)c + (float)l + (float)p + (float)z;
}

template <typename T, typename... Args>
__global__ void k_pack(T *out, Args... args) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    out[t] = (T)sum(t, args...);
}

template <typename F, typename... Args>
__global__ void k_apply(int *out, F f, Args... args) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    out[t] = f(args...) + t;
}

// A pack of pointers (named `const float*` and `float*`).
template <typename... Ps>
__global__ void k_gather(float *out, Ps... ps) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    out[t] = sum(ps[t % 4]...);
}

__global__ void k_functions(float *out) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    out[t] = functions(t);
}

template <typename... Args>
void launch(float *out, Args... args) {
    k_pack<<<2, 128>>>(out, args...);
}

const int n = 256;

int main() {
    float *df, hf[n];
    int *di, hi[n];
    cudaMalloc(&df, n * sizeof(float));
    cudaMalloc(&di, n * sizeof(int));
    int same = 0;

    k_functions<<<2, 128>>>(df);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    for (int t = 0; t < n; t++) same += hf[t] == functions(t);
    printf("functions %d of %d, last %.1f\n", same, n, hf[n - 1]);

    k_pack<<<2, 128>>>(df, 1, 2.5f, 'c');
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) same += hf[t] == sum(t, 1, 2.5f, 'c');
    printf("pack %d of %d, last %.1f\n", same, n, hf[n - 1]);

    k_pack<<<2, 128>>>(di);
    cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) same += hi[t] == (int)sum(t);
    printf("empty %d of %d, last %d\n", same, n, hi[n - 1]);

    launch(df, 0.25, (long long)7);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) same += hf[t] == sum(t, 0.25, (long long)7);
    printf("forwarded %d of %d, last %.1f\n", same, n, hf[n - 1]);

    k_apply<<<2, 128>>>(di, Weigh(), 1, 2, 3);
    cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) same += hi[t] == weigh(1, 2, 3) + t;
    printf("functor %d of %d, last %d\n", same, n, hi[n - 1]);

    k_apply<<<2, 128>>>(di, Offset<long long, -2>(), 1, 2, 3);
    cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) same += hi[t] == Offset<long long, -2>()(1, 2, 3) + t;
    printf("template functor %d of %d, last %d\n", same, n, hi[n - 1]);

    float ab[8] = {1, 2, 3, 4, 10, 20, 30, 40};
    float *dab;
    cudaMalloc(&dab, sizeof ab);
    cudaMemcpy(dab, ab, sizeof ab, cudaMemcpyHostToDevice);
    k_gather<<<2, 128>>>(df, (const float *)dab, dab + 4);
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    same = 0;
    for (int t = 0; t < n; t++) same += hf[t] == sum(ab[t % 4], ab[4 + t % 4]);
    printf("pointers %d of %d, last %.1f\n", same, n, hf[n - 1]);
    return 0;
}
