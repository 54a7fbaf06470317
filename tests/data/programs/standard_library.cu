// Standard C++ that device code uses, each checked against the host compiler's run of the same
// __host__ __device__ function: hexadecimal floating literals, std::numeric_limits' members for
// the arithmetic types, <type_traits>' predicates and transformations, and declarations whose
// type comes from the initializer (`auto *`, `const auto &`, `char s[] = "..."`, `int a[] = {..}`). The program prints,
// per function, how many of 256 threads agree with the host and thread 255's value.
#include <cstdio>
#include <limits>
#include <type_traits>

__host__ __device__ double hex_literals(int t) {
    float tiny = 0x1.0p-24f;         // 2^-24
    double three = 0X1.8P+1;         // 1.5 * 2
    double eight = 0x1p3;
    float frac = 0x.Cp0F;            // 0.75
    double big = 0x1.fffffffffffffp1023L;
    double sub = 0x0.0000000000001p-1022; // the smallest subnormal
    return t * tiny + three * t + eight + frac + big / 0x1p1000 + sub * 0x1p1000 * 0x1p74;
}

template <typename T> __host__ __device__ double limits_of(int t) {
    // Keeps each term visible in the sum.
    double scale = std::is_same<T, double>::value ? 1e300
                   : std::is_same<T, float>::value ? 1e30
                                                    : 1e12;
    double sum = (double)std::numeric_limits<T>::max() / scale +
                 (double)std::numeric_limits<T>::min() * 3 +
                 (double)std::numeric_limits<T>::lowest() / 7 / scale +
                 (double)std::numeric_limits<T>::epsilon() + std::numeric_limits<T>::digits +
                 std::numeric_limits<T>::digits10 * 10 + std::numeric_limits<T>::is_signed * 100 +
                 std::numeric_limits<T>::is_integer * 1000 + std::numeric_limits<T>::max_digits10;
    if (std::numeric_limits<T>::has_infinity)
        sum += (std::numeric_limits<T>::infinity() > std::numeric_limits<T>::max()) * 2 +
               (std::numeric_limits<T>::quiet_NaN() != std::numeric_limits<T>::quiet_NaN());
    return sum + (T)t;
}

// Each thread checks one type.
__host__ __device__ double limits(int t) {
    double exponents = std::numeric_limits<float>::min_exponent +
                       std::numeric_limits<double>::max_exponent10 +
                       std::numeric_limits<float>::denorm_min() * 1e45;
    switch (t % 8) {
    case 0: return limits_of<float>(t) + exponents;
    case 1: return limits_of<double>(t);
    case 2: return limits_of<int>(t);
    case 3: return limits_of<unsigned char>(t);
    case 4: return limits_of<long long>(t);
    case 5: return limits_of<unsigned>(t);
    case 6: return limits_of<short>(t);
    default: return limits_of<bool>(t);
    }
}

template <typename T> __host__ __device__ typename std::make_unsigned<T>::type as_unsigned(T v) {
    return (typename std::make_unsigned<T>::type)v;
}

template <typename T>
__host__ __device__ typename std::enable_if<std::is_integral<T>::value, T>::type twice(T v) {
    return v * 2;
}

template <typename T> __host__ __device__ double traits_of(T v) {
    typedef typename std::conditional<std::is_floating_point<T>::value, double, long long>::type Wide;
    Wide w = (Wide)v;
    std::make_signed_t<unsigned short> s = (std::make_signed_t<unsigned short>)(unsigned short)v;
    return (double)w + s + std::is_same<T, int>::value * 10 + std::is_same_v<Wide, double> * 100 +
           std::is_unsigned_v<T> * 1000 + std::is_signed<T>::value * 10000 + std::is_pointer_v<T *>;
}

__host__ __device__ double traits(int t) {
    return traits_of(t - 100) + traits_of(t * 0.5f) + traits_of((unsigned char)t) +
           as_unsigned(t - 128) + as_unsigned((signed char)(t - 128)) + twice(t) +
           twice((unsigned char)t);
}

// A constexpr function without markers: device code calls it (nvcc with
// --expt-relaxed-constexpr; HeCBench langford's div_up).
constexpr int div_up(int p, int q) { return (p + q - 1) / q; }

__host__ __device__ double declarations(int t) {
    const char digits[] = "0123456789abcdef";
    unsigned char weights[] = {3, 1, 4, 1, 5};
    float values[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    auto *p = &values[t % 4];
    p[0] += t;
    const auto &first = values[0];
    auto &second = values[1];
    second *= 2;
    const auto &sum = first + second;
    return digits[t % 16] + digits[sizeof digits - 2] * 10 + weights[t % 5] * 100 +
           sizeof(weights) * 1000 + *p + first + sum + div_up(t, 7) * 10000;
}

__global__ void k_declarations(double *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = declarations(t); }
__global__ void k_hex_literals(double *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = hex_literals(t); }
__global__ void k_limits(double *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = limits(t); }
__global__ void k_traits(double *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = traits(t); }

const int n = 256;

void report(const char *name, double *d, double (*f)(int)) {
    double h[n];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == f(t);
    printf("%s %d of %d, last %.6g\n", name, same, n, h[n - 1]);
}

int main() {
    double *d;
    cudaMalloc(&d, n * sizeof(double));
    k_hex_literals<<<2, n / 2>>>(d);
    report("hex_literals", d, hex_literals);
    k_limits<<<2, n / 2>>>(d);
    report("limits", d, limits);
    k_traits<<<2, n / 2>>>(d);
    report("traits", d, traits);
    k_declarations<<<2, n / 2>>>(d);
    report("declarations", d, declarations);
    return 0;
}
