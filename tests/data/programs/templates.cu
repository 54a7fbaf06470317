// Templates as C++ instantiates them, checked against the host compiler's run of the same
// __host__ __device__ functions: an explicit specialisation replaces its primary template only
// for exactly the arguments it specialises (deduced from its type when not written), and takes
// no part in choosing a function; a function that is no template wins a tie; default template
// arguments fill in what is neither given nor deduced. A kernel template's explicit specialisation is the kernel
// launched for its arguments, from a host function template too. The program prints, per
// check, how many of 256 threads agree with the host and thread 255's value.
#include <cstdio>

template <typename T> __host__ __device__ int kindA(T) { return 0; }
template <> __host__ __device__ int kindA(long long) { return 6; }     // kindA<long long>
template <typename T> __host__ __device__ int kindC(T) { return 2; }
template <> __host__ __device__ int kindC<float>(float) { return 1; }
template <int N> __host__ __device__ int scaled(int x) { return x * N; }
template <> __host__ __device__ int scaled<3>(int x) { return -x; }
template <class T> __host__ __device__ T init(int v) { T r{}; return r; }   // T from the return
template <> __host__ __device__ int init(int v) { return v; }
template <> __host__ __device__ int2 init(int v) { return make_int2(v, 2 * v); }
template <class T> __host__ __device__ int reduce(T v) { return 0; }
template <> __host__ __device__ int reduce(int v) { return v; }
template <> __host__ __device__ int reduce(int2 v) { return v.x + v.y; }

__host__ __device__ long long specialisations(int t) {
    long long r = kindA(t) + 10 * kindA((long long)t) + 100 * kindA((unsigned)t) +
                  1000 * kindA(t * 0.5f) + 10000 * kindC(t * 1.0f) + 100000 * kindC(t) +
                  1000000 * kindC(2.0);
    r += scaled<3>(t) + scaled<4>(t) + reduce(init<int>(t)) + reduce(init<int2>(t)) +
         reduce(init<float>(t)) + reduce(t * 1.0);
    return r;
}

// Overloads beside a template (HeCBench cmembench): the function that is no template wins a
// tie, and the template's `T` is its own, not the calling template's.
template <class T> __host__ __device__ void add(T &a, const T &b) {}
__host__ __device__ void add(int &a, const int &b) { a += b; }
__host__ __device__ void add(int2 &a, const int2 &b) { a.x += b.x; a.y += 2 * b.y; }
template <class T> __host__ __device__ int sum_of(int t) {
    T s = init<T>(0);
    for (int i = 0; i < 4; i++) add(s, init<T>(t + i));
    return reduce(s);
}

__host__ __device__ long long overloads(int t) {
    return sum_of<int>(t) + 10000LL * sum_of<int2>(t) + 100000000LL * (sum_of<float>(t) + 1);
}

// Default template arguments, of struct and function templates, naming the parameters before
// them; a struct instance is the same type whether its defaults are written or not.
enum Mode { PLAIN, DOUBLED };
template <typename T, int N, Mode M = PLAIN, int S = N * 2, typename U = T> struct Box {
    T v[N];
    __host__ __device__ U total() const {
        U s = 0;
        for (int i = 0; i < N; i++) s += v[i];
        return M == DOUBLED ? s * 2 + S : s + S;
    }
};
// The explicit specialization for Box<char, 2, PLAIN, 4, char>, however it is named.
template <> struct Box<char, 2> {
    char v[2];
    __host__ __device__ int total() const { return 7; }
};
template <typename T, int K = sizeof(T)> __host__ __device__ int width(T x) { return K * 100 + (int)x; }
template <typename T = float, typename R = T> __host__ __device__ R half_of(int v) { return (R)v / 2; }
template <int N = 3> __host__ __device__ int times(int x) { return x * N; }

__host__ __device__ long long defaults(int t) {
    Box<int, 3> a;
    Box<int, 2, DOUBLED> b;
    Box<float, 2, PLAIN, 1, double> c;
    for (int i = 0; i < 3; i++) a.v[i] = t + i;
    for (int i = 0; i < 2; i++) {
        b.v[i] = t * i;
        c.v[i] = t * 0.5f + i;
    }
    Box<int, 3, PLAIN, 6, int> same = a;
    Box<char, 2, PLAIN, 4, char> special;
    return a.total() + 10 * b.total() + (long long)(c.total() * 4) * 100 + same.total() * 1000 +
           width(t) + width((char)1) * 10000 + (long long)(half_of(t) * 2) * 100000 +
           (long long)(half_of<double>(t) * 2) * 1000000 + times(t) * 10000000LL +
           times<2>(t) * 100000000LL + sizeof(Box<char, 5>) * 1000000000LL +
           special.total() * 10000000000000LL;
}

__global__ void k_defaults(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = defaults(t); }
__global__ void k_overloads(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = overloads(t); }
__global__ void k_specialisations(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = specialisations(t); }

template <typename T, typename U> __global__ void fill(T *out, U v) { out[threadIdx.x + blockIdx.x * blockDim.x] = v + 1; }
template <> __global__ void fill<float, float>(float *out, float v) { out[threadIdx.x + blockIdx.x * blockDim.x] = v * 2; }

const int n = 256;

template <typename T> void report(const char *name, T *d, T (*f)(int)) {
    T h[n];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == f(t);
    printf("%s %d of %d, last %.1f\n", name, same, n, (double)h[n - 1]);
}

// fill<float, float> is the specialisation: 3 * 2; fill<double, double> the template: 3 + 1.
template <typename T> void run_fill(const char *name) {
    T *d, h[n];
    cudaMalloc(&d, sizeof h);
    fill<T, T><<<2, n / 2>>>(d, (T)3);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == h[0];
    printf("%s %d of %d, %.1f\n", name, same, n, (double)h[0]);
    cudaFree(d);
}

int main() {
    long long *dl;
    cudaMalloc(&dl, n * sizeof(long long));
    k_specialisations<<<2, n / 2>>>(dl);
    report("specialisations", dl, specialisations);
    k_overloads<<<2, n / 2>>>(dl);
    report("overloads", dl, overloads);
    k_defaults<<<2, n / 2>>>(dl);
    report("defaults", dl, defaults);
    run_fill<float>("fill<float, float>");
    run_fill<double>("fill<double, double>");
    return 0;
}
