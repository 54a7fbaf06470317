//! Running CUDA C: kernels from `.cu` source launched with `warpsim::cuda::launch`, their
//! outputs checked against CPU references, their counters against the rules of
//! `docs/counters.md`.

use warpsim::cuda::{self, Arg, CudaReport, Engine, Module, Options};
use warpsim::{Device, Dim3, Error, LaunchConfig, Mode};

fn kernel(src: &str, name: &str) -> warpsim::cuda::ir::Kernel {
    Module::from_source("test.cu", src, &Options::default())
        .and_then(|m| m.lower(name))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn run(
    dev: &Device,
    src: &str,
    name: &str,
    grid: impl Into<Dim3>,
    block: impl Into<Dim3>,
    args: &[Arg],
) -> Result<CudaReport, Error> {
    let k = kernel(src, name);
    let cfg = LaunchConfig::new(grid, block).mode(Mode::Count);
    cuda::launch(dev, &k, &cfg, args)
}

#[test]
fn vector_add_matches_the_cpu_and_counts_like_the_source() {
    let src = r#"
__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}"#;
    let dev = Device::default();
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32 * 0.5).collect();
    let (ga, gb) = (dev.alloc_from("a", &a), dev.alloc_from("b", &b));
    let gc = dev.alloc_zeroed::<f32>("c", n);
    let r = run(
        &dev,
        src,
        "add",
        4,
        256,
        &[
            Arg::buffer(&ga),
            Arg::buffer(&gb),
            Arg::buffer(&gc),
            Arg::Int(n as i128),
        ],
    )
    .unwrap();
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(gc.to_vec(), want);
    let c = r.launch.counters.unwrap();
    // 32 warps: i (mul+add = 2), the compare, the branch; 1000 threads: 31.25 warps load twice,
    // add, store.
    assert_eq!(c.gld_requests, 2 * 32);
    assert_eq!(c.gst_requests, 32);
    assert_eq!(c.branches, 32);
    assert_eq!(c.divergent_branches, 1);
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let src = r#"
#define BLOCK 256
__global__ void reduce(const float *in, float *out, unsigned n) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}"#;
    let dev = Device::default();
    let n = 5000u32;
    let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let gx = dev.alloc_from("x", &x);
    let blocks = n.div_ceil(256);
    let out = dev.alloc_zeroed::<f32>("out", blocks as usize);
    run(
        &dev,
        src,
        "reduce",
        blocks,
        256,
        &[Arg::buffer(&gx), Arg::buffer(&out), Arg::Int(n.into())],
    )
    .unwrap();
    let want: Vec<f32> = x.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn loops_with_break_continue_and_early_return() {
    let src = r#"
__global__ void k(int *out, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    int acc = 0;
    for (int j = 0; j < 100; j++) {
        if (j % 3 == 0) continue;
        if (j > t) break;
        acc += j;
    }
    int w = 0;
    while (true) { w++; if (w * w > t) break; }
    do { acc += 1; } while (acc % 5 != 0);
    out[t] = acc * 1000 + w;
}"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<i32>("out", 64);
    run(&dev, src, "k", 1, 64, &[Arg::buffer(&out), Arg::Int(50)]).unwrap();
    let want: Vec<i32> = (0..64)
        .map(|t| {
            if t >= 50 {
                return 0;
            }
            let mut acc = 0;
            for j in 0..100 {
                if j % 3 == 0 {
                    continue;
                }
                if j > t {
                    break;
                }
                acc += j;
            }
            let mut w = 0;
            loop {
                w += 1;
                if w * w > t {
                    break;
                }
            }
            loop {
                acc += 1;
                if acc % 5 == 0 {
                    break;
                }
            }
            acc * 1000 + w
        })
        .collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn shuffles_votes_atomics_and_printf() {
    let src = r#"
#include <cstdio>
__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}
__global__ void k(const float *x, float *sums, unsigned *ballots, int *count) {
    int t = threadIdx.x;
    float s = warp_sum(x[t]);
    unsigned b = __ballot_sync(0xffffffff, x[t] > 2.0f);
    if ((t & 31) == 0) {
        sums[t / 32] = s;
        ballots[t / 32] = b;
    }
    if (x[t] > 2.0f) atomicAdd(count, 1);
    if (t == 32) printf("t=%d s=%.1f b=%08x\n", t, s, b);
}"#;
    let dev = Device::default();
    let x: Vec<f32> = (0..64).map(|i| (i % 5) as f32).collect();
    let gx = dev.alloc_from("x", &x);
    let sums = dev.alloc_zeroed::<f32>("sums", 2);
    let ballots = dev.alloc_zeroed::<u32>("ballots", 2);
    let count = dev.alloc_zeroed::<i32>("count", 1);
    let r = run(
        &dev,
        src,
        "k",
        1,
        64,
        &[
            Arg::buffer(&gx),
            Arg::buffer(&sums),
            Arg::buffer(&ballots),
            Arg::buffer(&count),
        ],
    )
    .unwrap();
    let want_sums: Vec<f32> = x.chunks(32).map(|c| c.iter().sum()).collect();
    assert_eq!(sums.to_vec(), want_sums);
    let want_ballots: Vec<u32> = x
        .chunks(32)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0, |m, (l, v)| m | (u32::from(*v > 2.0) << l))
        })
        .collect();
    assert_eq!(ballots.to_vec(), want_ballots);
    assert_eq!(
        count.to_vec()[0],
        x.iter().filter(|v| **v > 2.0).count() as i32
    );
    assert_eq!(
        r.stdout(),
        format!("t=32 s={:.1} b={:08x}\n", want_sums[1], want_ballots[1])
    );
}

#[test]
fn out_of_bounds_store_names_the_thread_and_the_line() {
    let src = "__global__ void k(float *x) {\n    x[threadIdx.x + 10] = 1.0f;\n}\n";
    let dev = Device::default();
    let x = dev.alloc_zeroed::<f32>("x", 32);
    let e = run(&dev, src, "k", 1, 32, &[Arg::buffer(&x)]).unwrap_err();
    match &e {
        Error::OutOfBounds(f) => {
            assert_eq!(f.thread.x, 22);
            assert_eq!(f.index, 32);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn wrong_arguments_are_an_invalid_launch() {
    let src = "__global__ void k(float *x, int n) { x[0] = n; }";
    let dev = Device::default();
    let x = dev.alloc_zeroed::<f32>("x", 1);
    let e = run(&dev, src, "k", 1, 32, &[Arg::buffer(&x)]).unwrap_err();
    assert!(e.to_string().contains("takes 2 arguments"), "{e}");
    let e = run(&dev, src, "k", 1, 32, &[Arg::Int(1), Arg::Int(2)]).unwrap_err();
    assert!(e.to_string().contains("`x`"), "{e}");
    let e = run(&dev, src, "k", 1, 32, &[Arg::buffer(&x), Arg::Int(1 << 40)]).unwrap_err();
    assert!(e.to_string().contains("cannot hold"), "{e}");
}

#[test]
fn a_type_name_called_like_a_function_is_a_cast() {
    // `T(x)` for a template type parameter and for a typedef, as templated samples write it.
    let src = r#"
typedef int count_t;
template <typename T>
__global__ void k(T *out) {
    T zero = T(0);
    out[threadIdx.x] = zero + T(threadIdx.x) / T(2) + T(count_t(2.75f));
}"#;
    let dev = Device::default();
    let f = dev.alloc_zeroed::<f32>("f", 4);
    run(&dev, src, "k<float>", 1, 4, &[Arg::buffer(&f)]).unwrap();
    assert_eq!(f.to_vec(), [2.0, 2.5, 3.0, 3.5]);
    let i = dev.alloc_zeroed::<i32>("i", 4);
    run(&dev, src, "k<int>", 1, 4, &[Arg::buffer(&i)]).unwrap();
    assert_eq!(i.to_vec(), [2, 2, 3, 3]);
    // A function of the same name as a typedef elsewhere is still a call.
    let shadow = r#"
namespace a { typedef float scale; }
namespace b { __device__ float scale(float x) { return x * 2.0f; }
              __device__ float use(float x) { return scale(x); } }
__global__ void k(float *out) { out[threadIdx.x] = b::use(3.0f); }"#;
    let o = dev.alloc_zeroed::<f32>("o", 2);
    run(&dev, shadow, "k", 1, 2, &[Arg::buffer(&o)]).unwrap();
    assert_eq!(o.to_vec(), [6.0, 6.0]);
}

/// Comparisons the grammar reads as a template's arguments (`(t < n && t >= lo)` as `t<n &&
/// t>` = lo, `t < n && t > (lo)` as a call of `t<n && t>`) run as the comparisons they are; a
/// template of the same shape still takes its arguments.
#[test]
fn comparisons_that_look_like_template_arguments() {
    let src = r#"
template <int N> __device__ int pick(int x) { return x + N; }
__global__ void k(int *out, int n, int lo) {
    int t = threadIdx.x;
    int c = 0;
    c += (t < n && t >= lo) ? 1 : 0;
    c += (t < n || t >= 6) ? 2 : 0;
    if (t < n && t > (lo - 1)) c += 4;
    c += (t < n && t >> 1) ? 8 : 0;
    c += (t > 0 && (t < n && t >= lo)) ? 16 : 0;
    c += (t < n && t > -lo) ? 32 : 0;
    out[t] = c * 1000 + pick<3>(t);
}"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<i32>("out", 8);
    let (n, lo) = (5, 2);
    run(
        &dev,
        src,
        "k",
        1,
        8,
        &[Arg::buffer(&out), Arg::Int(n.into()), Arg::Int(lo.into())],
    )
    .unwrap();
    let want: Vec<i32> = (0..8)
        .map(|t| {
            let c = i32::from(t < n && t >= lo)
                + 2 * i32::from(t < n || t >= 6)
                + 4 * i32::from(t < n && t > lo - 1)
                + 8 * i32::from(t < n && (t >> 1) != 0)
                + 16 * i32::from(t > 0 && t < n && t >= lo)
                + 32 * i32::from(t < n && t > -lo);
            c * 1000 + t + 3
        })
        .collect();
    assert_eq!(out.to_vec(), want);
}

/// Parenthesised variables the grammar reads as casts (Rodinia's `((x) >= (min) && (x) <= (max))`
/// as a cast of `&&(x)` to a type `min`; `(a) - b * c` with the cast's precedence) run as the
/// expressions they are; casts to types stay casts.
#[test]
fn parenthesised_variables_that_look_like_casts() {
    let src = r#"
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
typedef int count_t;
__global__ void k(int *out, int lo, int hi, int b) {
    int x = threadIdx.x;
    int c = 0, d = 3, e[2] = {1, 2};
    c += IN_RANGE(x, lo, hi) ? 1 : 0;
    c += ((lo) - x * 2 < 0) ? 2 : 0;
    c += ((b) & x) ? 4 : 0;
    c += (x == (lo) || (hi) == x) ? 8 : 0;
    c += (count_t)x * -1 < -3 ? 16 : 0;
    c += ((d) - x > 0) ? 32 : 0;
    c += (e[1]) + x > 4 ? 64 : 0;
    out[x] = c + (lo) * x * 100;
}"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<i32>("out", 8);
    let (lo, hi, b) = (2, 5, 6);
    let args = [lo, hi, b].map(|v| Arg::Int(v.into()));
    run(
        &dev,
        src,
        "k",
        1,
        8,
        &[&[Arg::buffer(&out)][..], &args].concat(),
    )
    .unwrap();
    let want: Vec<i32> = (0..8)
        .map(|x| {
            i32::from(x >= lo && x <= hi)
                + 2 * i32::from(lo - x * 2 < 0)
                + 4 * i32::from(b & x != 0)
                + 8 * i32::from(x == lo || hi == x)
                + 16 * i32::from(-x < -3)
                + 32 * i32::from(3 - x > 0)
                + 64 * i32::from(2 + x > 4)
                + lo * x * 100
        })
        .collect();
    assert_eq!(out.to_vec(), want);
}

/// Static data members with a value are constants of each instance: an array bound inside the
/// struct, bare in its methods, `S::n` through a typedef, an instance or a template's type.
#[test]
fn static_constexpr_members_are_constants() {
    let src = r#"
template <class T> struct alignas(16) Pack {
    static constexpr int size = 16 / sizeof(T);
    static const unsigned first = 1, second = 2;
    T v[size];
    __device__ T sum() const { T s = 0; for (int j = 0; j < size; j++) s += v[j]; return s; }
};
struct Plain { static constexpr int n = 3; };
template <int N> struct Twice { static constexpr int n = N * 2; };
template <bool B> struct Pick { static constexpr int v = B ? 1 : 2; };
typedef Pack<float> P4;
template <class P> __device__ int width() { return P::size; }
__global__ void k(float *out) {
    int t = threadIdx.x;
    P4 p;
    for (int j = 0; j < P4::size; j++) p.v[j] = t + j;
    Pack<double> d;
    for (int j = 0; j < Pack<double>::size; j++) d.v[j] = 10.0;
    out[t] = p.sum() * 100 + d.sum() + Plain::n * 1000 + width<Pack<short>>() * 10000
           + (Pack<int>::second - P4::first) * 100000 + Twice<4>::n * 1000000
           + Pick<false>::v * 10000000;
}"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 4);
    run(&dev, src, "k", 1, 4, &[Arg::buffer(&out)]).unwrap();
    let want: Vec<f32> = (0..4)
        .map(|t| ((4 * t + 6) * 100 + 20 + 3000 + 80_000 + 100_000 + 8_000_000 + 20_000_000) as f32)
        .collect();
    assert_eq!(out.to_vec(), want);
}

/// Functor objects called as `f(x)` (a parameter, a kernel template's argument, a local), a
/// member function calling its siblings bare and through `this->`, `obj.n`/`p->n` of a static
/// member, and the stores with cache hints.
#[test]
fn functors_sibling_methods_static_members_and_store_hints() {
    let src = r#"
struct Scale { float s; __device__ float operator()(float x) const { return s * x; } };
struct Acc {
    static constexpr int n = 3;
    float v;
    __device__ float get() const { return v; }
    __device__ float twice() const { return get() + this->get(); }
    __device__ int count() const { return this->n; }
};
template <class F> __device__ float apply(F f, float x) { return f(x); }
template <class F> __global__ void k(float *out, F f, Scale g) {
    int t = threadIdx.x;
    Scale local{0.5f};
    Acc a{float(t)};
    __shared__ Acc box[1];
    const Acc *p = &box[0];
    float r = f(float(t)) + g(1.0f) + apply(local, 4.0f) + a.twice() + a.n + p->n + a.count();
    __stcs(&out[t], r);
    __stwt(&out[t + 32], float(t));
}
template __global__ void k<Scale>(float *, Scale, Scale);
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 64);
    let scale = |s: f32| Arg::Bytes(s.to_le_bytes().to_vec());
    run(
        &dev,
        src,
        "k<Scale>",
        1,
        32,
        &[Arg::buffer(&out), scale(3.0), scale(10.0)],
    )
    .unwrap();
    let want: Vec<f32> = (0..32)
        .map(|t| 3.0 * t as f32 + 10.0 + 2.0 + 2.0 * t as f32 + 9.0)
        .chain((0..32).map(|t| t as f32))
        .collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn array_members_of_struct_variables() {
    // A struct copied into a local, a struct parameter by value, and a local struct written
    // field by field; their array members indexed with constants.
    let src = r#"
struct P { float v[3]; int n; };
struct S { float a; float b[2]; };
__global__ void k(const P *ps, P cfg, float *out) {
    P p = ps[threadIdx.x];
    S s;
    s.b[0] = 2.0f;
    s.b[1] = p.v[2];
    out[threadIdx.x] = p.v[0] + p.v[1] * cfg.v[2] + s.b[0] + s.b[1] + cfg.n;
}"#;
    let dev = Device::default();
    // Thread t's P holds 4t, 4t+1, 4t+2 in `v` (its `n` is not read).
    let ps: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let ps = dev.alloc_from("ps", &ps);
    let out = dev.alloc_zeroed::<f32>("out", 4);
    // `P cfg = {{1, 2, 3}, 4}` as C lays it out: three floats, then the int.
    let mut cfg = Vec::new();
    for v in [1.0f32, 2.0, 3.0] {
        cfg.extend(v.to_le_bytes());
    }
    cfg.extend(4i32.to_le_bytes());
    let cfg = Arg::Bytes(cfg);
    run(
        &dev,
        src,
        "k",
        1,
        4,
        &[Arg::buffer(&ps), cfg, Arg::buffer(&out)],
    )
    .unwrap();
    let want: Vec<f32> = (0..4)
        .map(|t| {
            let t = t as f32;
            4.0 * t + (4.0 * t + 1.0) * 3.0 + 2.0 + (4.0 * t + 2.0) + 4.0
        })
        .collect();
    assert_eq!(out.to_vec(), want);
    // An index known only at run time picks among the elements.
    let looped = r#"
struct P { float v[3]; };
__global__ void k(const P *ps, float *out) {
    P p = ps[threadIdx.x];
    for (int j = 0; j < 3; j++) out[threadIdx.x] += p.v[j];
}"#;
    let sums = dev.alloc_zeroed::<f32>("sums", 4);
    run(
        &dev,
        looped,
        "k",
        1,
        4,
        &[Arg::buffer(&ps), Arg::buffer(&sums)],
    )
    .unwrap();
    // Thread t's P is floats 3t, 3t + 1, 3t + 2.
    let want: Vec<f32> = (0..4).map(|t| 9.0 * t as f32 + 3.0).collect();
    assert_eq!(sums.to_vec(), want);
}

#[test]
fn load_batches_end_at_stores_barriers_loop_iterations_and_four_loads() {
    // One warp per kernel; every kernel's loads are full rows, so each is one request.
    let src = r#"
#define ROWS 4
__global__ void copy(float *o, const float *in) {            // load, store: 4 batches
    for (int j = 0; j < ROWS; ++j) o[j * 32 + threadIdx.x] = in[j * 32 + threadIdx.x];
}
__global__ void through_shared(float *o, const float *in) {  // 4 loads at once: 1 batch
    __shared__ float t[ROWS * 32];
    for (int j = 0; j < ROWS; ++j) t[j * 32 + threadIdx.x] = in[j * 32 + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < ROWS; ++j) o[j * 32 + threadIdx.x] = t[j * 32 + threadIdx.x];
}
__global__ void six(float *o, const float *in) {             // 6 loads: 2 batches of at most 4
    float s = 0;
    for (int j = 0; j < 6; ++j) s += in[j * 32 + threadIdx.x];
    o[threadIdx.x] = s;
}
__global__ void strided(float *o, const float *in, int n) {  // a loop of unknown trip count: 1 each
    float s = 0;
    for (int i = threadIdx.x; i < n; i += 32) s += in[i];
    o[threadIdx.x] = s;
}
__global__ void barrier(float *o, const float *in) {         // a barrier between: 2 batches
    float a = in[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = a + in[32 + threadIdx.x];
}
__constant__ float c[32];
__global__ void constant(float *o) {                         // constant memory: no batch
    o[threadIdx.x] = c[threadIdx.x];
}"#;
    let dev = Device::default();
    let input = dev.alloc_from("in", &(0..256).map(|i| i as f32).collect::<Vec<_>>());
    let out = dev.alloc_zeroed::<f32>("out", 256);
    let (o, i) = (Arg::buffer(&out), Arg::buffer(&input));
    let cases: [(&str, Vec<Arg>, u64, u64); 6] = [
        ("copy", vec![o.clone(), i.clone()], 4, 4),
        ("through_shared", vec![o.clone(), i.clone()], 4, 1),
        ("six", vec![o.clone(), i.clone()], 6, 2),
        (
            "strided",
            vec![o.clone(), i.clone(), Arg::Int(5 * 32)],
            5,
            5,
        ),
        ("barrier", vec![o.clone(), i.clone()], 2, 2),
        ("constant", vec![o.clone()], 0, 0),
    ];
    for engine in [Engine::Interp, Engine::Jit] {
        for (name, args, loads, batches) in &cases {
            let k = kernel(src, name);
            let cfg = LaunchConfig::new(1, 32).mode(Mode::Count).engine(engine);
            let r = cuda::launch(&dev, &k, &cfg, args).unwrap_or_else(|e| panic!("{e}"));
            let c = r.launch.counters.unwrap();
            assert_eq!(
                (c.gld_requests, c.gld_batches),
                (*loads, *batches),
                "{name} on {engine:?}: (loads, batches)"
            );
        }
    }
}

/// A half-to-float conversion is one instruction on the GPU: a warp converting subnormal,
/// normal and special halves together takes no branch for it (only the bounds check's).
#[test]
fn half_conversions_are_no_branches() {
    let src = r#"
#include <cuda_fp16.h>
__global__ void widen(const unsigned short *bits, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __half2float(__ushort_as_half(bits[i]));
}"#;
    let dev = Device::default();
    // Per warp: zero, subnormals, normals, infinity and NaN of both signs.
    let bits: Vec<u16> = (0..64u16)
        .map(|i| {
            [
                0x0000, 0x0001, 0x03ff, 0x3c00, 0x7c00, 0x7e00, 0x8001, 0xc000,
            ][i as usize % 8]
        })
        .collect();
    let gb = dev.alloc_from("bits", &bits);
    let go = dev.alloc_zeroed::<f32>("out", 64);
    let r = run(
        &dev,
        src,
        "widen",
        1,
        64,
        &[Arg::buffer(&gb), Arg::buffer(&go), Arg::Int(64)],
    )
    .unwrap();
    let out = go.to_vec();
    assert_eq!(out[3], 1.0);
    assert_eq!(out[1], 2f32.powi(-24));
    assert!(out[5].is_nan());
    let c = r.launch.counters.unwrap();
    assert_eq!((c.branches, c.divergent_branches), (2, 0));
}
