// Class templates as CUB-style block primitives write them, checked against the host compiler's
// run of the same __host__ __device__ functions: member typedefs and nested structs used inside
// the class and through it (`typename Packet<T, N>::Pad`), enumerators and static members of
// each instance, partial and full specialisations, member templates, alias templates, base
// classes that are template instances, member function templates and a storage wrapper. The
// program prints, per check, how many of 256 threads agree with the host and thread 255's value.
#include <cstdio>
#include <type_traits>

// Member typedefs, a nested struct that depends on the template's argument, enumerators and
// static constexpr members of each instance.
template <typename T, int N>
struct Packet {
    typedef T value_type;
    using index_type = unsigned short;
    struct Pad {
        T v;
        char c;
    };
    enum { ALIGN = sizeof(Pad) - sizeof(T), BYTES = sizeof(T) * N };
    static constexpr int COUNT = N;
    value_type items[COUNT];
    index_type used;
    __host__ __device__ value_type sum() const {
        value_type s = 0;
        for (index_type i = 0; i < used; i++) s += items[i];
        return s;
    }
};

__host__ __device__ long long members(int t) {
    typedef Packet<double, 3> P;
    typename P::value_type x = t * 0.5;
    Packet<char, 5>::index_type k = (Packet<char, 5>::index_type)(t * 300);
    P p;
    p.used = 2;
    for (int i = 0; i < 3; i++) p.items[i] = x + i;
    typename Packet<short, 2>::Pad pad;
    pad.v = (short)t;
    pad.c = 3;
    return (long long)(p.sum() * 2) + 1000LL * P::ALIGN + 10000LL * Packet<char, 7>::ALIGN +
           100000LL * Packet<short, 2>::BYTES + 1000000LL * P::COUNT + 10000000LL * k +
           (pad.v + pad.c) * 100000000000LL + sizeof(typename Packet<char, 3>::Pad) * 10000000000000LL;
}

// Partial and full specialisations: the one whose pattern matches, its parameters deduced.
template <typename T, int N> struct Shape { static constexpr int KIND = 1; __host__ __device__ int of(T) { return N; } };
template <typename T> struct Shape<T, 1> { static constexpr int KIND = 2; __host__ __device__ int of(T x) { return (int)x; } };
template <typename T, int N> struct Shape<T *, N> { static constexpr int KIND = 3; __host__ __device__ int of(T *p) { return (int)p[0] * N; } };
template <> struct Shape<char, 2> { static constexpr int KIND = 4; __host__ __device__ int of(char c) { return c + 1; } };
enum Algo { DIRECT, STRIPED };
template <Algo A, int D> struct Impl;
template <int D> struct Impl<DIRECT, D> { __host__ __device__ int run(int x) { return x + D; } };
template <int D> struct Impl<STRIPED, D> { __host__ __device__ int run(int x) { return x * D; } };

__host__ __device__ long long specialisations(int t) {
    int v[1] = {t};
    Shape<float, 3> a;
    Shape<int, 1> b;
    Shape<int *, 5> c;
    Shape<char, 2> d;
    Impl<DIRECT, 4> e;
    Impl<STRIPED, 4> f;
    return a.of(1.5f) + 10 * b.of(t) + 1000 * c.of(v) + 100000LL * d.of(4) +
           1000000LL * (Shape<float, 3>::KIND + 10 * Shape<int, 1>::KIND + 100 * Shape<int *, 5>::KIND +
                        1000 * Shape<char, 2>::KIND) +
           10000000000LL * (e.run(t) + 1000 * f.run(t));
}

// Member templates and alias templates: `Rebind<U>::other`, a member template's enumerator, a
// choice of type by a condition.
template <bool C, class A, class B> using Select = typename std::conditional<C, A, B>::type;
template <typename T> using Ptr = T *;
template <typename T> struct Word {
    enum { SIZE = sizeof(T) };
    template <typename U> struct Fits { enum { YES = sizeof(U) <= SIZE && SIZE % sizeof(U) == 0 }; };
    using Type = Select<Fits<int>::YES, unsigned int, Select<Fits<short>::YES, unsigned short, unsigned char>>;
    template <typename U> struct Rebind { typedef Word<U> other; };
};

__host__ __device__ long long member_templates(int t) {
    typename Word<double>::Type a = 0xffffffffu;
    typename Word<short>::Type b = 0xffffu;
    typename Word<char[3]>::Type c = 0xffu;
    typedef typename Word<char>::template Rebind<long long>::other W8;
    a += t;
    b += t;
    c += t;
    float f = t * 0.25f;
    Ptr<float> p = &f;
    return a + 10000000000LL * sizeof(typename Word<double>::Type) + b * 100000LL + c * 1000LL +
           W8::SIZE * 100000000000LL + (long long)(*p * 4) * 1000000000000LL;
}

// Base classes that are template instances: fields, member functions, typedefs and statics
// inherited; a base initializer.
template <typename T> struct Counter {
    T count;
    typedef T value_type;
    static constexpr int ID = 7;
    __host__ __device__ Counter(T c) : count(c) {}
    __host__ __device__ void add(T x) { count += x; }
    __host__ __device__ T twice() const { return count * 2; }
};
struct Tally : Counter<int> {
    int extra;
    __host__ __device__ Tally(int e) : Counter<int>(e * 2), extra(e) {}
    __host__ __device__ int both() const { return count + extra + twice(); }
};
template <typename T> struct Scaled : Counter<T> {
    T scale;
    __host__ __device__ Scaled(T c, T s) : Counter<T>(c), scale(s) {}
    __host__ __device__ T value() const { return this->count * scale; }
};

__host__ __device__ long long bases(int t) {
    Tally a(t);
    a.add(3);
    Tally::value_type v = a.count;
    Scaled<long long> s(t, 3);
    s.add(1);
    return a.both() + 1000LL * v + 1000000LL * Tally::ID + 10000000LL * s.value() +
           sizeof(Tally) * 100000000000LL;
}

// Template member functions, called with explicit and deduced arguments.
struct Conv {
    int v;
    template <typename U> __host__ __device__ U as() const { return (U)v / 2; }
    template <typename U> __host__ __device__ U plus(U x) const { return x + (U)v; }
};
template <typename T> __host__ __device__ T generic(Conv c) { return c.template as<T>(); }

__host__ __device__ long long member_functions(int t) {
    Conv c{t};
    return (long long)(c.as<float>() * 2) + 1000LL * c.as<int>() + 1000000LL * (long long)(c.plus(0.5) * 2) +
           1000000000LL * generic<int>(c);
}

// A storage wrapper as block primitives write one: raw words sized for a T, read and written as
// a T through `reinterpret_cast<T &>` in shared memory (a struct nested in a class template
// deriving from it).
template <typename T> struct Raw {
    typedef typename Word<T>::Type W;
    static constexpr int WORDS = (sizeof(T) + sizeof(W) - 1) / sizeof(W);
    W storage[WORDS];
    __host__ __device__ T &alias() { return reinterpret_cast<T &>(*this); }
};
struct Pair { int a; float b; };
template <typename T> struct Holder { struct Storage : Raw<T> {}; };

__host__ __device__ long long storage(int t) {
    return t + sizeof(typename Holder<Pair>::Storage) * 1000 + Raw<Pair>::WORDS * 100000LL +
           sizeof(Holder<double>::Storage) * 10000000LL + sizeof(Raw<char[3]>::W) * 1000000000LL;
}
__host__ __device__ long long shared_storage(int t) { return t * 3 + 10000LL * (t / 32); }

const int n = 256;
__global__ void k_members(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = members(t); }
__global__ void k_specialisations(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = specialisations(t); }
__global__ void k_member_templates(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = member_templates(t); }
__global__ void k_bases(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = bases(t); }
__global__ void k_member_functions(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = member_functions(t); }

__global__ void k_storage(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = storage(t); }
__global__ void k_shared_storage(long long *out) {
    __shared__ typename Holder<Pair>::Storage s[n / 2];
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    s[threadIdx.x].alias().a = t * 3;
    s[threadIdx.x].alias().b = (float)(t / 32);
    __syncthreads();
    Pair &p = s[threadIdx.x].alias();
    out[t] = p.a + 10000LL * (long long)p.b;
}

void report(const char *name, long long *d, long long (*f)(int)) {
    long long h[n];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == f(t);
    printf("%s %d of %d, last %lld\n", name, same, n, h[n - 1]);
}

int main() {
    long long *d;
    cudaMalloc(&d, n * sizeof(long long));
    k_members<<<2, n / 2>>>(d);
    report("members", d, members);
    k_specialisations<<<2, n / 2>>>(d);
    report("specialisations", d, specialisations);
    k_member_templates<<<2, n / 2>>>(d);
    report("member_templates", d, member_templates);
    k_bases<<<2, n / 2>>>(d);
    report("bases", d, bases);
    k_member_functions<<<2, n / 2>>>(d);
    report("member_functions", d, member_functions);
    k_storage<<<2, n / 2>>>(d);
    report("storage", d, storage);
    k_shared_storage<<<2, n / 2>>>(d);
    report("shared_storage", d, shared_storage);
    return 0;
}
