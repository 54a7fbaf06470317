// C++ rules in device code, each checked against the host compiler's run of the same
// __host__ __device__ function: member functions called through the references functions
// return, copy constructors (in every form of copy) and copy-assignment operators, names
// looked up in enclosing namespaces, decltype, the order of `=`'s operands,
// lambdas' captures by value, sizeof of an array parameter, #if's unsigned arithmetic. The program prints, per function, how many of 256 threads agree with the host and
// thread 255's value.
#include <cstdio>

struct Acc {
    int s;
    __host__ __device__ void add(int v) { s += v; }
    __host__ __device__ int get() const { return s; }
};

struct Wrap {
    Acc a;
    __host__ __device__ Acc &first() { return a; }
};

struct View {
    Acc *p;
    __host__ __device__ Acc &operator[](int i) { return p[i]; }
};

struct Twice {
    int s;
    __host__ __device__ Twice &twice() { s *= 2; return *this; }
};

__host__ __device__ Twice &twice(Twice &a) { a.s += 1; return a; }

// A mutating member function on the object a returned reference names, not on a copy.
__host__ __device__ long long references(int t) {
    Wrap w;
    w.a.s = t;
    w.first().add(1);
    w.first().s += 2;
    Acc buf[3];
    for (int i = 0; i < 3; i++) buf[i].s = i + t;
    View v;
    v.p = buf;
    v[t % 3].add(10);
    v[1].s += 5;
    Twice a;
    a.s = t;
    a.twice().twice();
    twice(twice(a)).twice();
    Twice &r = a.twice();
    r.s += 3;
    return w.a.s * 1000000000LL + w.first().get() * 1000000LL + buf[0].s * 10000 + buf[1].s * 100 +
           buf[2].s + a.s * 7;
}

struct Counted {
    int copies;
    __host__ __device__ Counted() : copies(0) {}
    __host__ __device__ Counted(int c) : copies(c * 10) {}
    __host__ __device__ Counted(const Counted &o) : copies(o.copies + 1) {}
};

struct Bumped {
    int x;
    __host__ __device__ Bumped &operator=(const Bumped &o) { x = o.x + 1; return *this; }
};

__host__ __device__ int by_value(Counted c) { return c.copies; }
template <typename T> __host__ __device__ int by_value_t(T c) { return c.copies; }
__host__ __device__ Counted made(int t) { Counted c(t); return c; }

// Copies run the struct's copy constructor or operator=; a prvalue initializes the object.
__host__ __device__ long long copies(int t) {
    Counted a;
    a.copies = t;
    Counted b = a;
    Counted c(b);
    Counted d = made(2);
    Counted e = Counted(3);
    Bumped x, y, z;
    x.x = t;
    y = x;
    z = y = x;
    return b.copies * 1000000 + c.copies * 10000 + d.copies * 100 + e.copies +
           by_value(a) * 100000000LL + by_value_t(b) * 10000000000LL + y.x * 1000000000000LL +
           z.x * 10000000000000000LL;
}

struct Holder {
    Counted c;
    Counted arr[2];
    __host__ __device__ Holder(const Counted &o) : c(o) { arr[0] = c; arr[1] = o; }
    __host__ __device__ Counted get() const { return c; }
    __host__ __device__ Counted at(int i) const { return arr[i]; }
    __host__ __device__ auto deduced() const { return c; }
};

struct Pair {
    Counted c;
    int k;
};

__host__ __device__ Counted passed_on(Counted c) { return c; }
// Each `return` names one local, which is the caller's object (no copy).
__host__ __device__ Counted named(int t) {
    Counted c;
    c.copies = t;
    if (t > 100) return c;
    c.copies += 1;
    return c;
}
// Two locals returned: the one returned is copied.
__host__ __device__ Counted either(int t) {
    Counted a, b;
    a.copies = t;
    b.copies = 2 * t;
    if (t % 2) return a;
    return b;
}

// Every other form of copy runs the copy constructor too: `auto`, `return` of what is not the
// function's own local, braced lists of a struct, an array and an aggregate, member
// initializers.
__host__ __device__ long long more_copies(int t) {
    Counted a(t);
    auto b = a;
    const auto c = b;
    Holder h(a);
    Counted s{a};
    Counted arr[2] = {a, b};
    Pair p = {a, 3};
    Pair q{b, 4};
    Counted got[] = {b, c, h.c, h.arr[0], h.arr[1], h.get(), h.at(1), h.deduced(),
                     passed_on(a), named(t), either(t), s, arr[0], arr[1], p.c, q.c};
    unsigned long long r = 0;
    for (int i = 0; i < 16; i++) r = r * 1000003 + got[i].copies;
    return (long long)(r + p.k + q.k);
}

__host__ __device__ int g(int x) { return x * 7; }
namespace outer {
namespace warps {
__host__ __device__ int f(int x) { return x + 1; }
}
__host__ __device__ int g(int x) { return x * 3; }
__host__ __device__ int h(int x) { return x * 11; }
namespace kernels {
__host__ __device__ int g(int x) { return x * 5; }
// A name is looked up in the enclosing namespaces, innermost first: `warps::f` is
// outer::warps::f, `g` is kernels::g (hiding outer::g and ::g), `h` is outer::h.
__host__ __device__ long long lookup(int t) {
    return warps::f(t) + g(t) * 1000LL + h(t) * 1000000LL + outer::g(t) * 1000000000LL +
           ::g(t) * 1000000000000LL;
}
}  // namespace kernels
}  // namespace outer

struct Pt {
    float x;
    int n;
};
__host__ __device__ float halve(float a) { return a / 2; }

// `decltype(e)`: a name's declared type (that of the variable being declared too, as in
// `T (*p)[N] = reinterpret_cast<decltype(p)>(...)`), else the type of e's value.
__host__ __device__ long long decltypes(int t) {
    int grid[3][4];
    for (int i = 0; i < 12; i++) grid[i / 4][i % 4] = t * 10 + i;
    int (*rows)[4] = reinterpret_cast<decltype(rows)>(grid[0]);
    decltype(rows) next = rows + 1;
    next[1][2] += 1000;
    decltype(t) u = t * 3;
    Pt p;
    p.x = t * 0.25f;
    p.n = t;
    decltype(p) q = p;
    decltype(p.x) f = q.x + u;
    decltype(halve(1.0f)) h = halve(f);
    decltype(u + 0.5) d = u + 0.5;
    decltype(grid) copy;
    return grid[2][2] + rows[1][3] * 100LL + (long long)(h * 4) * 1000000LL +
           (long long)(d * 2) * 10000000000LL + sizeof(copy) * 100000000000000LL +
           sizeof(decltype(next)) * 10000000000000000LL;
}

// C++17: the right operand of `=` is evaluated before the left.
__host__ __device__ long long sequencing(int t) {
    int a[3] = {0, 0, 0};
    int i = t % 2;
    a[i++] = i;
    int *p = a + 2;
    *p-- = (int)(p - a) + 5;
    int j = 0;
    a[j] += ++j;
    return a[0] * 1000 + a[1] * 100 + a[2] * 10 + i;
}

struct Captor {
    int v;
    // `[=]` captures `this`: the lambda sees v as it is when called.
    __host__ __device__ int run(int t) { auto f = [=]() { return v + t; }; v = 100; return f(); }
};

// Captures by value are copies made where the lambda is written; `mutable` changes the copy.
__host__ __device__ long long lambdas(int t) {
    int k = t, j = 1;
    auto all = [=]() { return k * 2; };
    auto named = [k, &j]() { return k * 10 + j; };
    auto counter = [=]() mutable { k += 1; return k; };
    auto mixed = [=, &j]() { j += k; return k; };
    auto init = [m = k + 1]() { return m; };
    auto by_ref = [&]() { return k; };
    float2 p = make_float2(t, 1);
    auto fields = [=]() { return p.x + p.y; };
    k = 7;
    j = 3;
    p.x = 0;
    int a = counter();
    int b = counter();
    Captor c;
    c.v = t;
    int got[] = {all(), named(), a, b, mixed(), j, init(), by_ref(), (int)fields(), c.run(t)};
    unsigned long long h = 0;  // each value in a hash that wraps as it should
    for (int i = 0; i < 10; i++) h = h * 1000003 + got[i];
    return (long long)h;
}

__host__ __device__ int size_of_param(int a[4]) { return sizeof(a); }

// #if arithmetic is in intmax_t, or uintmax_t where an operand is unsigned.
#if -1 > 0u && (0u - 1) / 2 > 0 && 18446744073709551615 > 0 && -1 < 0 && (-1 >> 1) < 0
#define UNSIGNED_IF 1
#else
#define UNSIGNED_IF 0
#endif

__host__ __device__ long long odds(int t) {
    int a[4] = {t, 0, 0, 0};
    return size_of_param(a) * 1000 + UNSIGNED_IF * 100 + a[0];
}

__global__ void k_references(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = references(t); }
__global__ void k_copies(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = copies(t); }
__global__ void k_more_copies(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = more_copies(t); }
__global__ void k_lookup(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = outer::kernels::lookup(t); }
__global__ void k_decltypes(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = decltypes(t); }
__global__ void k_lambdas(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = lambdas(t); }
__global__ void k_odds(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = odds(t); }
__global__ void k_sequencing(long long *out) { int t = threadIdx.x + blockIdx.x * blockDim.x; out[t] = sequencing(t); }

// Through a reference into global memory.
__global__ void k_view(View v) { v[threadIdx.x + blockIdx.x * blockDim.x].add(7); }

const int n = 256;

template <typename T> void report(const char *name, T *d, T (*f)(int)) {
    T h[n];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 0;
    for (int t = 0; t < n; t++) same += h[t] == f(t);
    printf("%s %d of %d, last %lld\n", name, same, n, (long long)h[n - 1]);
}

int main() {
    long long *dl;
    cudaMalloc(&dl, n * sizeof(long long));
    k_references<<<2, n / 2>>>(dl);
    report("references", dl, references);
    k_copies<<<2, n / 2>>>(dl);
    report("copies", dl, copies);
    k_more_copies<<<2, n / 2>>>(dl);
    report("more_copies", dl, more_copies);
    k_lookup<<<2, n / 2>>>(dl);
    report("lookup", dl, outer::kernels::lookup);
    k_decltypes<<<2, n / 2>>>(dl);
    report("decltypes", dl, decltypes);
    k_sequencing<<<2, n / 2>>>(dl);
    report("sequencing", dl, sequencing);
    k_lambdas<<<2, n / 2>>>(dl);
    report("lambdas", dl, lambdas);
    k_odds<<<2, n / 2>>>(dl);
    report("odds", dl, odds);
    Acc *da;
    cudaMalloc(&da, n * sizeof(Acc));
    cudaMemset(da, 0, n * sizeof(Acc));
    View v{da};
    k_view<<<2, n / 2>>>(v);
    Acc ha[n];
    cudaMemcpy(ha, da, sizeof ha, cudaMemcpyDeviceToHost);
    int sevens = 0;
    for (int t = 0; t < n; t++) sevens += ha[t].s == 7;
    printf("view %d of %d\n", sevens, n);
    return 0;
}
