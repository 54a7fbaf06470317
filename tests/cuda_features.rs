//! Device code that real programs use, each feature lowered, run and checked against what
//! CUDA computes: structs with member functions and operators, legacy warp intrinsics, warp
//! masks from votes, cooperative groups, `__constant__`/`__device__` variables, pointers,
//! `sizeof`/`__align__`, lambdas and initializer lists, memcpy, `__CUDA_ARCH__`, check mode
//! on the idioms of older code, and the intrinsics of arithmetic and conversion in a rounding
//! mode against a GPU's results.

use warpsim::cuda::{self, Arg, CudaReport, Engine, Module, Options, Tier};
use warpsim::{Device, Global, LaunchConfig, Mode, Profile};

fn module(src: &str, arch: u32) -> Module {
    let options = Options {
        arch,
        ..Options::default()
    };
    Module::from_source("features.cu", src, &options).unwrap_or_else(|e| panic!("{e}"))
}

/// Run kernel `name` of `src` on `dev` with `args`, in `mode`.
fn run_on(
    dev: &Device,
    src: &str,
    name: &str,
    grid: u32,
    block: u32,
    args: &[Arg],
    mode: Mode,
) -> CudaReport {
    let arch = {
        let (major, minor) = dev.profile().compute_capability;
        major * 100 + minor * 10
    };
    let k = module(src, arch)
        .lower(name)
        .unwrap_or_else(|e| panic!("{e}"));
    let cfg = LaunchConfig::new(grid, block).name(name).mode(mode);
    cuda::launch(dev, &k, &cfg, args).unwrap_or_else(|e| panic!("{e}"))
}

fn run(src: &str, name: &str, grid: u32, block: u32, args: &[Arg]) -> CudaReport {
    run_on(&Device::default(), src, name, grid, block, args, Mode::Fast)
}

/// The error lowering kernel `k` of `src` (as `bad.cu`) gives: it must be refused.
fn lower(src: &str) -> String {
    Module::from_source("bad.cu", src, &Options::default())
        .unwrap()
        .lower("k")
        .expect_err("refused")
        .to_string()
}

fn ints(dev: &Device, n: usize) -> Global<i32> {
    dev.alloc_zeroed::<i32>("out", n)
}

#[test]
fn structs_with_methods_constructors_conversions_and_operators() {
    let src = r#"
template <class T> struct SharedMemory {
    __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }
};
struct V2 {
    float x, y;
    __device__ V2() : x(0), y(0) {}
    __device__ V2(float a, float b) : x(a), y(b) {}
    __device__ V2 operator+(const V2 &o) const { return V2(x + o.x, y + o.y); }
    __device__ float dot(V2 o) const { return x * o.x + y * o.y; }
    __device__ static float twice(float v) { return 2 * v; }
    __device__ void scale(float k) { x *= k; this->y *= k; }
};
inline __device__ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
inline __device__ void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
__global__ void k(float *out) {
    float *s = SharedMemory<float>();
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    V2 a(1, 2), b{3, 4}, c;
    V2 d = a + b;
    d.scale(2);
    float3 p = make_float3(1, 2, 3) * 2.0f;
    p += make_float3(t, t, t);
    out[t] = s[31 - t] + d.dot(V2(1, 1)) + c.x + p.z + V2::twice(1);
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 32);
    let k = module(src, 900)
        .lower("k")
        .unwrap_or_else(|e| panic!("{e}"));
    let cfg = LaunchConfig::new(1, 32).dynamic_shared(32 * 4);
    cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&out)]).unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<f32> = (0..32)
        .map(|t| (31 - t) as f32 + 20.0 + 0.0 + (6 + t) as f32 + 2.0)
        .collect();
    assert_eq!(out.to_vec(), expected);
}

#[test]
fn legacy_intrinsics_run_before_volta_and_are_refused_after() {
    let src = r#"
__global__ void k(int *out) {
    int v = threadIdx.x;
    v += __shfl_xor(v, 1);
    unsigned b = __ballot(v > 10);
    out[threadIdx.x] = v + (__any(v > 60) ? 1000 : 0) + (__all(v >= 0) ? 10000 : 0) + (int)(b & 1);
}
"#;
    let dev = Device::new(Profile::sm_61());
    let out = ints(&dev, 64);
    run_on(&dev, src, "k", 1, 64, &[Arg::buffer(&out)], Mode::Fast);
    let o = out.to_vec();
    assert_eq!(o[0], 11001); // 0 + 1, no lane of warp 0 has v > 60 but lane 31's 61
    assert_eq!(o[33], 10000 + 65 + 1000 + 1);
    let e = module(src, 900).lower("k").expect_err("refused on sm_90");
    assert!(
        e.message.contains("not available on sm_70 and later"),
        "{e}"
    );
    assert_eq!(e.line, 4);
}

#[test]
fn a_mask_from_a_ballot_is_the_same_in_every_lane_of_the_warp() {
    let src = r#"
__global__ void k(int *out) {
    int t = threadIdx.x;
    int v = t;
    unsigned m = __ballot_sync(~0u, t < 8);
    if (t < 8) v += __shfl_down_sync(m, v, 1);
    out[t] = v;
}
"#;
    let dev = Device::default();
    let out = ints(&dev, 64);
    let r = run_on(&dev, src, "k", 1, 64, &[Arg::buffer(&out)], Mode::Check);
    let o = out.to_vec();
    // Lane 7 reads lane 8, which is outside the mask and inactive: 0 on an H200
    // (tests/data/programs/real/shfl.cu), and check mode says so, once, for lane 7 alone.
    assert_eq!(&o[..8], &[1, 3, 5, 7, 9, 11, 13, 7]);
    assert_eq!(o[40], 40);
    let f = &r.launch.findings;
    assert_eq!(f.len(), 1, "{f:?}");
    let text = format!("{:?}", f[0]);
    assert!(
        text.contains("lanes 0x00000080 of warp 0 read lanes 0x00000100"),
        "{text}"
    );
}

/// `__dp4a` and `__dp2a_lo/hi` (sm_61): packed bytes and halves, signed for `int`, unsigned for
/// `unsigned`, as the PTX `dp4a`/`dp2a` define them.
#[test]
fn packed_dot_products() {
    let src = r#"
#include <sm_61_intrinsics.h>
__global__ void k(const int *a, const int *b, int *out) {
    int t = threadIdx.x;
    unsigned ua = a[t], ub = b[t];
    out[4 * t] = __dp4a(a[t], b[t], 5);
    out[4 * t + 1] = (int)__dp4a(ua, ub, 5u);
    out[4 * t + 2] = __dp2a_lo(a[t], b[t], -1);
    out[4 * t + 3] = __dp2a_hi(a[t], b[t], -1);
    // The vector overloads: the same words as char4, uchar4 and short2.
    char4 c = *(const char4 *)&a[t], d = *(const char4 *)&b[t];
    uchar4 uc = *(const uchar4 *)&a[t], ud = *(const uchar4 *)&b[t];
    short2 h = *(const short2 *)&a[t];
    out[128 + 3 * t] = __dp4a(c, d, 5) - out[4 * t];
    out[128 + 3 * t + 1] = (int)__dp4a(uc, ud, 5u) - out[4 * t + 1];
    out[128 + 3 * t + 2] = __dp2a_lo(h, d, -1) - out[4 * t + 2];
}
"#;
    let dev = Device::default();
    let av: Vec<i32> = (0..32i32)
        .map(|t| t.wrapping_mul(0x1357_9bdf).wrapping_add(t << 20))
        .collect();
    let bv: Vec<i32> = (0..32i32)
        .map(|t| t.wrapping_mul(-0x2468_ace1).wrapping_sub(t))
        .collect();
    let (a, b) = (dev.alloc_from("a", &av), dev.alloc_from("b", &bv));
    let out = ints(&dev, 224);
    run(
        src,
        "k",
        1,
        32,
        &[Arg::buffer(&a), Arg::buffer(&b), Arg::buffer(&out)],
    );
    let bytes = |x: i32| x.to_le_bytes();
    let halves = |x: i32| [x as i16, (x >> 16) as i16];
    let want: Vec<i32> = av
        .iter()
        .zip(&bv)
        .flat_map(|(&x, &y)| {
            let (bx, by) = (bytes(x), bytes(y));
            let s: i32 = (0..4)
                .map(|k| i32::from(bx[k] as i8) * i32::from(by[k] as i8))
                .sum();
            let u: u32 = (0..4).map(|k| u32::from(bx[k]) * u32::from(by[k])).sum();
            let h = halves(x);
            let lo =
                i32::from(h[0]) * i32::from(by[0] as i8) + i32::from(h[1]) * i32::from(by[1] as i8);
            let hi =
                i32::from(h[0]) * i32::from(by[2] as i8) + i32::from(h[1]) * i32::from(by[3] as i8);
            [s + 5, u.wrapping_add(5) as i32, lo - 1, hi - 1]
        })
        .collect();
    let got = out.to_vec();
    assert_eq!(got[..128], want);
    assert!(got[128..].iter().all(|&d| d == 0), "{:?}", &got[128..]);
}

/// `cg::reduce`'s operation in every spelling programs use: a built-in braced or called, a
/// `__device__` function, a functor struct (called, braced, named or a template instance).
#[test]
fn cg_reduce_takes_functions_and_functors() {
    let src = r#"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__device__ int add2(int a, int b) { return a + b; }
struct Max { __device__ int operator()(int a, int b) const { return a > b ? a : b; } };
template <class T> struct AddT { __device__ T operator()(T a, T b) const { return a + b; } };
__global__ void k(int *out) {
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    int v = (threadIdx.x * 7) % 32 + threadIdx.x / 32 * 100;
    Max named;
    int r[7] = {cg::reduce(tile, v, cg::greater<int>{}), cg::reduce(tile, v, add2),
                cg::reduce(tile, v, Max()), cg::reduce(tile, v, Max{}),
                cg::reduce(tile, v, cg::less<int>{}), cg::reduce(tile, v, named),
                cg::reduce(tile, v, AddT<int>{})};
    if (tile.thread_rank() == 0)
        for (int j = 0; j < 7; j++) out[threadIdx.x / 32 * 7 + j] = r[j];
}
"#;
    let dev = Device::default();
    let out = ints(&dev, 14);
    run(src, "k", 1, 64, &[Arg::buffer(&out)]);
    assert_eq!(
        out.to_vec(),
        [
            31, 496, 31, 31, 0, 31, 496, 131, 3696, 131, 131, 100, 131, 3696
        ]
    );
}

#[test]
fn cooperative_groups_beyond_the_block() {
    let src = r#"
#include <cooperative_groups.h>
__device__ int agg(int *counter) {
    namespace cg = cooperative_groups;
    cg::coalesced_group active = cg::coalesced_threads();
    int res = 0;
    if (active.thread_rank() == 0) res = atomicAdd(counter, active.size());
    res = active.shfl(res, 0);
    return res + active.thread_rank();
}
__global__ void k(int *out, int *counter, int *red, int *lab) {
    namespace cg = cooperative_groups;
    __shared__ cg::block_tile_memory<128> scratch;
    cg::grid_group grid = cg::this_grid();
    cg::thread_block cta = cg::this_thread_block(scratch);
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
    int t = grid.thread_rank();
    if (t % 3 == 0) out[agg(counter)] = t;
    red[t] = cg::reduce(tile, t, cg::plus<int>());
    auto big = cg::tiled_partition<64>(cta);
    int m = cg::reduce(big, t, cg::greater<int>());
    if (big.thread_rank() == 0) red[128 + big.meta_group_rank()] = m;
    int lo = cg::reduce(tile, t, [](int a, int b) { return a < b ? a : b; });
    if (tile.thread_rank() == 0) red[130 + tile.meta_group_rank()] = lo;
    auto g = cg::labeled_partition(cg::coalesced_threads(), t % 4);
    lab[t] = g.size() * 1000 + g.thread_rank();
    if (t == 0) lab[128] = grid.size();
}
"#;
    let dev = Device::default();
    let (out, counter, red, lab) = (
        ints(&dev, 128),
        ints(&dev, 1),
        ints(&dev, 134),
        ints(&dev, 129),
    );
    run(
        src,
        "k",
        1,
        128,
        &[
            Arg::buffer(&out),
            Arg::buffer(&counter),
            Arg::buffer(&red),
            Arg::buffer(&lab),
        ],
    );
    assert_eq!(counter.to_vec(), [43]);
    let mut taken: Vec<i32> = out.to_vec()[..43].to_vec();
    taken.sort();
    assert_eq!(taken, (0..128).filter(|t| t % 3 == 0).collect::<Vec<_>>());
    let r = red.to_vec();
    assert_eq!((r[0], r[31], r[32]), (496, 496, 1520));
    assert_eq!(&r[128..134], &[63, 127, 0, 32, 64, 96]);
    let l = lab.to_vec();
    assert_eq!((l[0], l[4], l[5], l[128]), (8000, 8001, 8001, 128));
    // grid.sync() lowers (a cooperative launch runs it: tests/programs.rs); a multi-device
    // grid is refused where a kernel asks for it, and only there.
    let m = module(
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void s(int *a) {\n  cg::grid_group g = cg::this_grid();\n  a[g.thread_rank()] = 1;\n  g.sync();\n}\n__global__ void m(int *a) {\n  a[0] = 1;\n  cg::this_multi_grid().sync();\n}\n",
        900,
    );
    m.lower("s").expect("grid.sync() lowers");
    let e = m.lower("m").expect_err("this_multi_grid");
    assert_eq!(e.line, 10, "{e}");
}

#[test]
fn constant_and_device_variables_start_from_their_initializers() {
    let src = r#"
__constant__ float c_k[4] = {1.0f, 2.0f, 3.0f};
__device__ int d_n = 7;
struct P { int a; float b; };
__constant__ P c_p = {5, 0.5f};
__global__ void k(float *out) {
    int t = threadIdx.x;
    out[t] = c_k[t % 4] * d_n + c_p.a + c_p.b;
    if (t == 0) d_n = 100;
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 8);
    let r = run_on(&dev, src, "k", 1, 8, &[Arg::buffer(&out)], Mode::Count);
    assert_eq!(out.to_vec(), [12.5, 19.5, 26.5, 5.5, 12.5, 19.5, 26.5, 5.5]);
    // Constant memory is no global load: the only global loads are d_n's.
    let m = r.launch.metrics().unwrap();
    assert_eq!(m.gld_requests, 1);
}

#[test]
fn pointers_compare_and_move_between_buffers() {
    let src = r#"
__device__ float sum3(const float *v) { return v[0] + v[1] + v[2]; }
__device__ void fill(float *v, float x) { for (int k = 0; k < 3; k++) v[k] = x + k; }
__global__ void k(float *a, float *b, float *out, int n, int steps, float *maybe) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *src = a, *dst = b;
    for (int s = 0; s < steps; s++) {
        if (i < n) dst[i] = src[i] + 1.0f;
        float *t = src; src = dst; dst = t;
    }
    float buf[3];
    fill(buf, 1.0f);
    float *per_thread = (i & 1) ? a : b;
    float extra = maybe != NULL ? maybe[0] : 0.0f;
    if (i < n) out[i] = src[i] + sum3(buf) + (per_thread == a ? 100.0f : 0.0f) + per_thread[i] * 0.0f + extra;
    if (i == 0) out[n] = (float)(b - a > 0) + (float)(((unsigned long long)out & 3) == 0);
}
"#;
    let dev = Device::default();
    let a = dev.alloc_from("a", &(0..64).map(|x| x as f32).collect::<Vec<_>>());
    let b = dev.alloc_zeroed::<f32>("b", 64);
    let out = dev.alloc_zeroed::<f32>("out", 33);
    run(
        src,
        "k",
        1,
        32,
        &[
            Arg::buffer(&a),
            Arg::buffer(&b),
            Arg::buffer(&out),
            Arg::Int(32),
            Arg::Int(3),
            Arg::NoBuffer(0),
        ],
    );
    let o = out.to_vec();
    assert_eq!((o[0], o[1], o[2], o[31]), (9.0, 110.0, 11.0, 140.0));
    assert_eq!(o[32], 2.0);
}

#[test]
fn arrays_inside_struct_variables_take_indices_known_at_run_time() {
    // Shapes and strides passed by value and walked in loops, as tensor code does.
    let src = r#"
struct Shape { int dims[3]; int strides[3]; float m[2][3]; };
struct Item { int key; float w[2]; };
struct Bag { Item items[4]; int n; };
__global__ void picks(int *out, Shape p, int which) {
    int t = threadIdx.x;
    Shape s;
    for (int d = 0; d < 3; d++) s.dims[d] = p.dims[d];
    for (int d = 2, acc = 1; d >= 0; d--) { s.strides[d] = acc; acc *= s.dims[d]; }
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++) s.m[r][c] = 10 * r + c;
    Bag b;
    b.n = 4;
    for (int k = 0; k < 4; k++) {
        b.items[k].key = k * k;
        b.items[k].w[k % 2] = k;
        b.items[k].w[(k + 1) % 2] = -k;
    }
    b.items[t % 4].key += 100;
    int d = t % 3;
    out[t] = s.strides[d] * 1000 + (int)s.m[t % 2][d] * 10 + b.items[t % 4].key
           + (int)b.items[(t + 1) % 4].w[t % 2] + p.strides[d] * 100000;
    if (which == 1 && t == 5) out[0] = s.dims[t];
    if (which == 2 && t == 5) out[0] = (int)s.m[0][t - 2];
}
"#;
    let dev = Device::default();
    let out = ints(&dev, 32);
    let mut shape = Vec::new();
    for v in [2i32, 3, 4, 7, 8, 9] {
        shape.extend(v.to_le_bytes());
    }
    shape.extend([0u8; 24]);
    let args = |which| {
        [
            Arg::buffer(&out),
            Arg::Bytes(shape.clone()),
            Arg::Int(which),
        ]
    };
    run_on(&dev, src, "picks", 1, 32, &args(0), Mode::Fast);
    let expected: Vec<i32> = (0..32)
        .map(|t: i32| {
            let d = (t % 3) as usize;
            let strides = [12, 4, 1];
            let k = (t + 1) % 4;
            let w = if t % 2 == k % 2 { k } else { -k };
            strides[d] * 1000
                + (10 * (t % 2) + d as i32) * 10
                + (t % 4) * (t % 4)
                + 100
                + w
                + [7, 8, 9][d] * 100000
        })
        .collect();
    assert_eq!(out.to_vec(), expected);
    // An index past the array is the thread's fault, not another variable's value.
    let k = module(src, 900)
        .lower("picks")
        .unwrap_or_else(|e| panic!("{e}"));
    let err = cuda::launch(&dev, &k, &LaunchConfig::new(1, 32), &args(1))
        .expect_err("index 5 of 3 elements");
    assert!(
        err.to_string()
            .contains("out of bounds of an array of 3 elements held in a struct variable"),
        "{err}"
    );
    // An inner index past its row traps too, though the combined index would fit.
    let err = cuda::launch(&dev, &k, &LaunchConfig::new(1, 32), &args(2))
        .expect_err("index 3 of a row of 3");
    assert!(
        err.to_string().contains("of 3 elements held in a struct"),
        "{err}"
    );
}

#[test]
fn struct_parameters_carry_pointers_into_buffers() {
    let src = r#"
struct In { const int *x; int n; };
struct Args { In in; int *out; };
__device__ int get(In in, int i) { return in.x[i] + in.n; }
__device__ void bump(Args a) { a.out += 1; a.out[0] = 7; }
__global__ void k(Args a) {
    int i = threadIdx.x;
    if (a.out != nullptr && i < a.in.n) a.out[i] = get(a.in, i) * 2;
    if (i == 31) { bump(a); a.out[0] = 1; }  // the callee's copy moves its own pointer
}
"#;
    let dev = Device::default();
    let x = dev.alloc_from("x", &(0..32).collect::<Vec<i32>>());
    let out = ints(&dev, 32);
    // The struct's bytes as C lays them out: x at 0, n at 8, out at 16 (24 bytes).
    let mut bytes = vec![0u8; 24];
    bytes[..8].copy_from_slice(&x.address().to_le_bytes());
    bytes[8..12].copy_from_slice(&20i32.to_le_bytes());
    bytes[16..24].copy_from_slice(&out.address().to_le_bytes());
    let k = module(src, 900)
        .lower("k")
        .unwrap_or_else(|e| panic!("{e}"));
    let bound = Arg::Struct {
        bytes: bytes.clone(),
        pointers: vec![Arg::buffer(&x), Arg::buffer(&out)],
    };
    cuda::launch(&dev, &k, &LaunchConfig::new(1, 32), &[bound]).unwrap_or_else(|e| panic!("{e}"));
    let mut want: Vec<i32> = (0..32)
        .map(|i| if i < 20 { (i + 20) * 2 } else { 0 })
        .collect();
    (want[0], want[1]) = (1, 7);
    assert_eq!(out.to_vec(), want);
    // Bytes alone bind no buffer: the first access through a pointer field faults, naming
    // the address the field holds.
    let err = cuda::launch(&dev, &k, &LaunchConfig::new(1, 32), &[Arg::Bytes(bytes)])
        .expect_err("no buffer bound");
    assert!(
        err.to_string().contains(&format!("{:#x}", x.address())),
        "{err}"
    );
}

#[test]
fn struct_variables_carry_pointers_too() {
    // The Programming Guide's `Matrix` with `GetSubMatrix`, a local view, a copy, and a member
    // function reaching its pointer field as `n` and as `this->n`.
    let src = r#"
typedef struct { int stride; int *elements; } Matrix;
__device__ Matrix Sub(Matrix A, int off) {
    Matrix s;
    s.stride = A.stride;
    s.elements = &A.elements[off];
    return s;
}
struct Counter {
    int *n;
    __device__ void add() { atomicAdd(this->n, 1); }
    __device__ void set(int v) { n[1] = v; }
};
struct View { int *p; };
__global__ void k(Matrix A, int *out, int *count) {
    int t = threadIdx.x;
    Matrix s = Sub(A, 2);
    Matrix copy;
    copy = s;
    View v;
    v.p = out + 1;
    v.p[t] = copy.elements[t] * s.stride;
    Counter c;
    c.n = count;
    c.add();
    if (t == 0) c.set(copy.elements[0]);
}
"#;
    let dev = Device::default();
    let x = dev.alloc_from("x", &(0..40).collect::<Vec<i32>>());
    let out = ints(&dev, 33);
    let count = ints(&dev, 2);
    let mut bytes = vec![0u8; 16];
    bytes[..4].copy_from_slice(&3i32.to_le_bytes());
    bytes[8..16].copy_from_slice(&x.address().to_le_bytes());
    let matrix = Arg::Struct {
        bytes,
        pointers: vec![Arg::buffer(&x)],
    };
    run(
        src,
        "k",
        1,
        32,
        &[matrix, Arg::buffer(&out), Arg::buffer(&count)],
    );
    let want: Vec<i32> = std::iter::once(0)
        .chain((0..32).map(|t| (t + 2) * 3))
        .collect();
    assert_eq!(out.to_vec(), want);
    assert_eq!(count.to_vec(), vec![32, 2]);
}

#[test]
fn a_typedef_may_share_its_structs_name() {
    // `typedef struct S {..} S;` (lavaMD's style) resolves to the struct; typedefs in a circle
    // are an error, not a stack overflow.
    let src = r#"
typedef struct pair_t { int a, b; } pair_t;
__global__ void k(pair_t *p, int *out) { out[threadIdx.x] = p[threadIdx.x].a + p[threadIdx.x].b; }
"#;
    let dev = Device::default();
    let pairs = dev.alloc_from("p", &[1i32, 2, 3, 4]);
    let out = ints(&dev, 2);
    run_on(
        &dev,
        src,
        "k",
        1,
        2,
        &[Arg::buffer(&pairs), Arg::buffer(&out)],
        Mode::Fast,
    );
    assert_eq!(out.to_vec(), vec![3, 7]);
    let circle = "typedef struct A B;\ntypedef B C;\ntypedef C B;\n\
                  __global__ void k(B *p, int *o) { o[0] = 1; }";
    let e = module(circle, 900).lower("k").expect_err("a circle");
    assert!(e.to_string().contains("names itself"), "{e}");
}

#[test]
fn a_const_reference_binds_a_calls_result_or_a_value() {
    // The interval sample's `const T &xl = x.lower();` (a getter returning `T const &`), and a
    // reference to an arithmetic result: a temporary holding the value, as in C++; a const
    // reference to an object still names the object.
    let src = r#"
template <class T> struct Interval {
    T lo, hi;
    __device__ Interval(T a, T b) : lo(a), hi(b) {}
    __device__ T const &lower() const { return lo; }
    __device__ T const &upper() const { return hi; }
};
__global__ void k(const int *in, int *out) {
    int t = threadIdx.x;
    Interval<int> x(in[t], 2 * in[t]);
    const int &l = x.lower();
    int const &u = x.upper();
    const int &s = l + u;
    const int &e = in[t];
    out[t] = 1000 * s + 100 * l + 10 * (u - l) + e;
}
"#;
    let dev = Device::default();
    let input = dev.alloc_from("in", &[1i32, 2, 3]);
    let out = ints(&dev, 3);
    run_on(
        &dev,
        src,
        "k",
        1,
        3,
        &[Arg::buffer(&input), Arg::buffer(&out)],
        Mode::Fast,
    );
    assert_eq!(out.to_vec(), vec![3111, 6222, 9333]);
}

#[test]
fn a_constructor_sets_pointer_fields_its_methods_use() {
    // The interval sample's `global_stack(T *buf, int thread_id) : buf(buf), ...` (a member
    // initializer named as its parameter), a constructor assigning one, a static member
    // function declared in the class and defined outside it, and `::nan("")` from inside a
    // struct with a member `nan`.
    let src = r#"
template <class T, int S> struct Stack {
    T *buf;
    int at;
    __device__ Stack(T *buf, int t) : buf(buf), at(t) {}
    __device__ void push(T v) { buf[at] = v; at += S; }
    __device__ int size() { return at / S; }
};
struct Cursor {
    float *p;
    __device__ Cursor(float *q, int t) { p = q + t; }
    __device__ void put(float v) { *p = v; }
    static __device__ float scale();
    __device__ float nan() { return ::nanf(""); }
};
__device__ float Cursor::scale() { return 0.5f; }
__global__ void k(float *out, int *n, float *aux) {
    int t = threadIdx.x;
    Stack<float, 4> s(out, t);
    s.push(1.0f * t);
    s.push(2.0f * t);
    n[t] = s.size();
    Cursor c(aux, t);
    c.put(Cursor::scale() * t + (isnan(c.nan()) ? 100.0f : 0.0f));
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 8);
    let n = ints(&dev, 4);
    let aux = dev.alloc_zeroed::<f32>("aux", 4);
    run_on(
        &dev,
        src,
        "k",
        1,
        4,
        &[Arg::buffer(&out), Arg::buffer(&n), Arg::buffer(&aux)],
        Mode::Fast,
    );
    assert_eq!(out.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 0.0, 2.0, 4.0, 6.0]);
    assert_eq!(n.to_vec(), vec![2; 4]);
    assert_eq!(aux.to_vec(), vec![100.0, 100.5, 101.0, 101.5]);
}

#[test]
fn default_arguments_fill_the_parameters_left() {
    // A function, a member function and constructors called with fewer arguments than
    // parameters (the interval sample's `division_part2(x, y, bool b = true)`), a constructor
    // all of whose parameters have defaults serving `S s;`.
    let src = r#"
__device__ int scaled(int x, int k = 10, int add = 1) { return x * k + add; }
struct Acc {
    int v;
    __device__ Acc(int start = 5, int step = 2) : v(start * step) {}
    __device__ int plus(int x, bool twice = false) { return v + (twice ? 2 * x : x); }
};
__global__ void k(int *out) {
    int t = threadIdx.x;
    Acc a;
    Acc b(t);
    Acc c(t, 3);
    out[4 * t] = scaled(t);
    out[4 * t + 1] = scaled(t, 2) + scaled(t, 3, 0);
    out[4 * t + 2] = a.plus(t) + b.plus(t, true);
    out[4 * t + 3] = c.v;
}
"#;
    let dev = Device::default();
    let out = ints(&dev, 8);
    run_on(&dev, src, "k", 1, 2, &[Arg::buffer(&out)], Mode::Fast);
    assert_eq!(out.to_vec(), vec![1, 1, 10, 0, 11, 6, 15, 3]);
    let too_few = "__device__ int f(int a, int b = 1) { return a + b; }\n\
                   __global__ void k(int *o) { o[0] = f(); }";
    let e = module(too_few, 900).lower("k").expect_err("f needs a");
    assert!(e.to_string().contains("`f`"), "{e}");
}

#[test]
fn an_array_without_a_size_takes_its_initialisers_count() {
    // `__constant__ float DCTv8matrix[] = {...}` (the dct8x8 sample), and a local one.
    let src = r#"
__constant__ float m[] = {1.5f, 2.5f, 3.5f};
__global__ void k(float *out) {
    int t = threadIdx.x;
    int l[] = {10, 20};
    out[t] = m[t % 3] + l[t % 2] + sizeof(m) + 100 * sizeof(l);
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 4);
    run_on(&dev, src, "k", 1, 4, &[Arg::buffer(&out)], Mode::Fast);
    assert_eq!(out.to_vec(), vec![823.5, 834.5, 825.5, 833.5]);
}

#[test]
fn a_struct_aligned_to_its_size_moves_in_one_access() {
    // As nvcc compiles them (SASS on an H200): `__align__(16)` of four words is LDG.E.128,
    // `__align__(8)` of a float and an int LDG.E.64, two floats aligned to 4 two LDG.E.
    let src = r#"
struct __align__(16) Rgba { unsigned int r, g, b, a; };
struct __align__(8) Mixed { float f; int i; };
struct Plain { float x, y; };
__global__ void rgba(const Rgba *in, Rgba *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void mixed(const Mixed *in, Mixed *out) {
    Mixed m = in[threadIdx.x];
    m.f += 1.0f;
    m.i += 2;
    out[threadIdx.x] = m;
}
__global__ void plain(const Plain *in, Plain *out) { out[threadIdx.x] = in[threadIdx.x]; }
"#;
    let dev = Device::default();
    let words: Vec<u32> = (0..128).map(|i| 0x3f80_0000 + i).collect();
    let input = dev.alloc_from("in", &words);
    for (name, requests, sectors) in [("rgba", 1, 16), ("mixed", 1, 8), ("plain", 2, 16)] {
        let out = dev.alloc_zeroed::<u32>("out", 128);
        let r = run_on(
            &dev,
            src,
            name,
            1,
            32,
            &[Arg::buffer(&input), Arg::buffer(&out)],
            Mode::Count,
        );
        let c = r.launch.counters.expect("counted");
        assert_eq!(
            (c.gld_requests, c.gld_sectors, c.gst_requests, c.gst_sectors),
            (requests, sectors, requests, sectors),
            "{name}"
        );
        let got = out.to_vec();
        let span = if name == "rgba" { 128 } else { 64 };
        for (k, (&g, &w)) in got.iter().zip(&words).take(span).enumerate() {
            let want = match (name, k % 2) {
                ("mixed", 0) => (f32::from_bits(w) + 1.0).to_bits(),
                ("mixed", _) => w + 2,
                _ => w,
            };
            assert_eq!(g, want, "{name} word {k}");
        }
    }
}

#[test]
fn enums_declared_inside_structs() {
    // MC_SingleAsianOptionP's `AsianOption<Real>::CallPut`: named through the struct (a
    // template's instance too), bare inside its member functions, as a field's type.
    let src = r#"
template <typename Real> struct Option {
    enum CallPut { Call, Put };
    enum class Style : int { European = 3, Asian };
    Real strike;
    CallPut type;
    __device__ Real sign() const { return type == Call ? Real(1) : Real(-1); }
};
struct Plain { enum Kind { A = 5, B }; Kind k; };
__global__ void k(int *out) {
    Option<float> o;
    o.strike = 2.0f;
    o.type = Option<float>::Put;
    Plain p;
    p.k = Plain::B;
    out[threadIdx.x] = (int)(o.sign() * o.strike) * 100 + (int)Option<float>::Style::Asian * 10 + p.k;
}
"#;
    let dev = Device::default();
    let out = ints(&dev, 32);
    run_on(&dev, src, "k", 1, 32, &[Arg::buffer(&out)], Mode::Fast);
    assert_eq!(out.to_vec(), vec![-200 + 40 + 6; 32]);
}

#[test]
fn array_parameters_and_parenthesised_casts() {
    // An array parameter is a pointer, whatever follows it; `(size_t)(x)` parses as a call of
    // `size_t` and is a cast.
    let src = r#"
typedef unsigned int uint;
__device__ void load(const uint *img, float3 c[4], int base, int t) { c[t % 4].x = img[base + t]; }
__global__ void k(const uint *img, float *out) {
    __shared__ float3 c[4];
    int t = threadIdx.x;
    if (t < 4) load(img, c, 10, t);
    __syncthreads();
    size_t wide = (size_t)(t * 3);
    out[t] = c[t % 4].x + (float)(clock_t)(wide);
}
"#;
    let dev = Device::default();
    let img = dev.alloc_from("img", &(0..64u32).collect::<Vec<_>>());
    let out = dev.alloc_zeroed::<f32>("out", 32);
    run_on(
        &dev,
        src,
        "k",
        1,
        32,
        &[Arg::buffer(&img), Arg::buffer(&out)],
        Mode::Fast,
    );
    let want: Vec<f32> = (0..32).map(|t| (10 + t % 4 + 3 * t) as f32).collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn out_parameters_take_the_address_of_a_variable() {
    // `f(&x)`: the pointer parameter names the variable, through `*p`, `p->f`, `p[0]`, and
    // passes it on; a group parameter takes any group.
    let src = r#"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct P { float x, y; };
__device__ void minmax(const float *v, int n, float *lo, float *hi) {
    *lo = v[0]; hi[0] = v[0];
    for (int k = 1; k < n; k++) { *lo = fminf(*lo, v[k]); *hi = fmaxf(*hi, v[k]); }
}
__device__ void setp(P *p, float a) { p->x = a; (*p).y = 2 * a; }
__device__ void inc(int *c) { (*c)++; *c += 1; }
__device__ void step(int &j, float *p) { j++; *p = 5; }
__device__ void both(int *c, float *v, float *lo, float *hi) { inc(c); minmax(v, 3, lo, hi); }
__device__ int ranks(cg::thread_group g) { return g.thread_rank(); }
__global__ void k(float *out) {
    float v[3] = {3.0f, (float)threadIdx.x, -1.0f};
    float lo, hi; P p; int c = 0;
    both(&c, v, &lo, &hi);
    setp(&p, lo);
    inc(&c);
    int j = 0;
    step(j, &v[j]);  // the element chosen at the call, v[0]
    lo += v[0] - 5 + v[1] - threadIdx.x;
    cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), 4);
    out[threadIdx.x] = lo + 10 * hi + 100 * p.y + 1000 * c + 10000 * ranks(tile);
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 8);
    run_on(&dev, src, "k", 1, 8, &[Arg::buffer(&out)], Mode::Fast);
    let want: Vec<f32> = (0..8)
        .map(|t: i32| (-1 + 10 * t.max(3) - 200 + 4000 + 10000 * (t % 4)) as f32)
        .collect();
    assert_eq!(out.to_vec(), want);
    // Used as a value, such a pointer points into the variable, kept in a local array.
    let kept = "__device__ float *keep(float *p) { return p; }\n\
               __global__ void k(float *out) {\n  float x = 1;\n  out[0] = *keep(&x) + 1;\n}\n";
    let out = dev.alloc_zeroed::<f32>("out", 1);
    run_on(&dev, kept, "k", 1, 1, &[Arg::buffer(&out)], Mode::Fast);
    assert_eq!(out.to_vec(), [2.0]);
    // One to an element of an array in a struct parameter has no other use: refused, located.
    let bad = "struct S { float a[4]; };\n__device__ float *keep(float *p) { return p; }\n\
               __global__ void k(float *out, S s) {\n  out[0] = *keep(&s.a[1]);\n}\n";
    let e = Module::from_source("bad.cu", bad, &Options::default())
        .unwrap()
        .lower("k")
        .expect_err("a pointer to a parameter's element returned");
    assert!(e.to_string().contains("pointer to a local variable"), "{e}");
    assert!(e.to_string().contains("bad.cu:2:"), "{e}");
}

#[test]
fn a_jump_out_of_a_statement_expression_is_refused_at_its_line() {
    // Its value would be left unset: `return` (or `break`/`continue` out of its own loops)
    // leaves in the middle of the expression that holds it.
    let src = "__global__ void k(int *out, int n) {\n  for (int i = 0; i < n; i++)\n    \
               out[i] = ({ int t = i; if (t > 3) break; for (;;) { break; } t * 2; });\n}\n";
    let e = Module::from_source("bad.cu", src, &Options::default())
        .unwrap()
        .lower("k")
        .expect_err("a break out of a statement expression");
    let e = e.to_string();
    assert!(
        e.contains(
            "bad.cu:3:39: error: a `return`, `break` or `continue` that leaves a statement \
             expression `({ ... })` is not supported"
        ),
        "{e}"
    );
}

#[test]
fn fold_expressions_and_packs_left_unexpanded_are_refused_at_their_line() {
    // A fold expression.
    let e = lower(
        "template <typename... Ts>\n__device__ int sum(Ts... xs) {\n  return (xs + ...);\n}\n\
         __global__ void k(int *out) { out[0] = sum(1, 2); }\n",
    );
    assert!(
        e.contains("bad.cu:3:10: error: a fold expression (`(args + ...)`) is not supported"),
        "{e}"
    );
    // An expansion inside another's pattern.
    let e = lower(
        "__device__ int one(int a) { return a; }\n\
         template <typename... Ts>\n__device__ int f(Ts... xs) {\n  int v[] = {one(xs...)...};\n  \
         return v[0];\n}\n__global__ void k(int *out) { out[0] = f(1); }\n",
    );
    assert!(
        e.contains("bad.cu:4:18: error: a pack expansion `...` here is not supported"),
        "{e}"
    );
}

#[test]
fn a_parameter_read_from_its_bytes_cannot_be_assigned() {
    // An array of 300 elements indexed at run time is read from the parameter's bytes, which an
    // assignment to the parameter would leave behind: refused where it is, before or after the
    // read, of a field or of an element.
    for (body, col) in [
        ("m.n = 3; out[threadIdx.x] = m.a[threadIdx.x] + m.n;", 36),
        ("out[threadIdx.x] = m.a[threadIdx.x]; m.a[0] += 1;", 73),
        ("m.a[threadIdx.x] = 1; out[0] = m.a[5];", 36),
    ] {
        let e = lower(&format!(
            "struct M {{ int a[300]; int n; }};\n__global__ void k(M m, int *out) {{ {body} }}\n"
        ));
        assert!(
            e.contains(&format!(
                "bad.cu:2:{col}: error: assigning to the parameter `m`, whose array is indexed at \
                 run time (at line 2) beyond 256 elements is not supported"
            )),
            "{e}"
        );
    }
}

#[test]
fn class_template_constructs_warpsim_cannot_honour_are_refused_at_their_line() {
    // A reference member is bound once: assigning its struct would rebind it (C++ deletes
    // that operator=); bound to a temporary it would dangle; initialized member by member, or
    // held in memory (where warpsim does not follow pointers), it is refused.
    let view =
        "struct View {\n  const float &r;\n  __device__ View(const float &x) : r(x) {}\n};\n";
    let e = lower(&format!(
        "{view}__global__ void k(float *out) {{ View a(out[0]), b(out[1]); a = b; }}\n"
    ));
    assert!(
        e.contains("bad.cu:5:60: error: assigning a `View` would rebind its reference member `r`"),
        "{e}"
    );
    let e = lower(&format!(
        "{view}__global__ void k(float *out) {{ View a(out[0] + 1); out[1] = a.r; }}\n"
    ));
    assert!(
        e.contains(
            "bad.cu:3:39: error: binding the reference member `View.r` to a temporary value \
             (gone once the constructor's call ends) is not supported"
        ),
        "{e}"
    );
    let e = lower(
        "struct A {\n  float &r;\n};\n__global__ void k(float *out) { A a{out[0]}; out[1] = a.r; }\n",
    );
    assert!(
        e.contains(
            "bad.cu:4:36: error: initializing `A` member by member, which binds its reference \
             member `r` is not supported"
        ),
        "{e}"
    );
    let e = lower(&format!(
        "{view}__global__ void k(float *out, View *v) {{ out[0] = v->r; }}\n"
    ));
    assert!(
        e.contains(
            "bad.cu:5:51: error: the reference member `r` of a `View` in memory or in an array \
             is not supported"
        ),
        "{e}"
    );
    // warpsim's types carry no `const`: a specialization for `const T` that means something
    // of its own cannot be told from the primary template.
    let e = lower(
        "template <typename T> struct IsConst { enum { V = 0 }; };\n\
         template <typename T> struct IsConst<const T> { enum { V = 1 }; };\n\
         __global__ void k(int *out) { out[0] = IsConst<const int>::V; }\n",
    );
    assert!(
        e.contains(
            "bad.cu:2:38: error: a partial specialization of `IsConst` for a `const` or \
             `volatile` type (warpsim's types do not carry them) is not supported"
        ),
        "{e}"
    );
    // Two partial specializations that both match: C++ takes the more specialized one.
    let e = lower(
        "template <typename T, typename U> struct Q { enum { V = 0 }; };\n\
         template <typename T, typename U> struct Q<T *, U> { enum { V = 1 }; };\n\
         template <typename T> struct Q<T *, int> { enum { V = 2 }; };\n\
         __global__ void k(int *out) {\n  out[0] = Q<float *, int>::V;\n}\n",
    );
    assert!(
        e.contains(
            "bad.cu:5:12: error: choosing between the 2 partial specializations of `Q` that \
             match `Q<float *, int>` (the most specialized one) is not supported"
        ),
        "{e}"
    );
    // A primary template declared only, with no specialization for the arguments.
    let e = lower(
        "enum Algo { DIRECT, STRIPED };\ntemplate <Algo A, int D> struct Impl;\n\
         template <int D> struct Impl<DIRECT, D> { int x; };\n\
         __global__ void k(int *out) {\n  Impl<STRIPED, 2> i;\n  out[0] = sizeof(i);\n}\n",
    );
    assert!(
        e.contains(
            "bad.cu:5:20: error: `Impl<1, 2>` is declared but not defined: no specialization \
             matches it"
        ),
        "{e}"
    );
}

#[test]
fn a_union_whose_members_are_not_bytes_is_refused_at_its_line() {
    // A union's value is its bytes: a member that is not (a pointer, a `bool`, an object with
    // a constructor) or a default member initializer is refused where the union is, as are
    // unions the lowering cannot name (defined inside a function, or whose members are the
    // function's variables) and an initializer of two values.
    let cases = [
        (
            "union P { float *p; int i; };\n__global__ void k(int *out) {\n  P u;\n  u.i = 1;\n  out[0] = u.i;\n}\n",
            "bad.cu:1:1: error: the member `p` of the union `P`, which is or holds a pointer is not supported",
        ),
        (
            "struct C { int a; __device__ C() : a(1) {} };\nunion U { C c; int i; };\n\
             __global__ void k(int *out) {\n  U u;\n  out[0] = u.i;\n}\n",
            "bad.cu:2:1: error: the member `c` of the union `U`, which has a constructor is not supported",
        ),
        (
            "union B { bool b; char c; };\n__global__ void k(int *out) {\n  B u;\n  u.c = 2;\n  out[0] = u.b;\n}\n",
            "bad.cu:1:1: error: the member `b` of the union `B`, which is or holds a `bool` is not supported",
        ),
        (
            "union D { int i = 3; float f; };\n__global__ void k(int *out) {\n  D u;\n  out[0] = u.i;\n}\n",
            "bad.cu:1:1: error: a default member initializer (`i`) in the union `D` is not supported",
        ),
        (
            "__global__ void k(int *out) {\n  union L { int i; float f; } u;\n  u.f = 1.0f;\n  out[0] = u.i;\n}\n",
            "bad.cu:2:3: error: a named union defined inside a function is not supported",
        ),
        (
            "__global__ void k(int *out) {\n  union { int i; float f; };\n  f = 1.0f;\n  out[0] = i;\n}\n",
            "bad.cu:2:3: error: an anonymous struct or union whose members are variables of the function is not supported",
        ),
        (
            "union T { int i; float f; };\n__global__ void k(int *out) {\n  T u = {1, 2.0f};\n  out[0] = u.i;\n}\n",
            "bad.cu:3:9: error: the union `T` is initialized by one value (its first member's), 2 given",
        ),
    ];
    for (src, want) in cases {
        let e = Module::from_source("bad.cu", src, &Options::default())
            .unwrap()
            .lower("k")
            .expect_err(want)
            .to_string();
        assert!(e.contains(want), "{want}\n{e}");
    }
}

#[test]
fn a_pointer_into_a_threads_variables_points_into_one_of_them() {
    // A pointer into local variables names one array (or variable) at lowering time: one
    // that is `&a` in some threads and `&b` in others, or an atomic through one, is refused
    // at its line with what to do instead.
    let cases = [
        (
            "int a = 1, b = 2;\n  int *p = threadIdx.x ? &a : &b;\n  *p = 3;\n  out[0] = a + b;",
            "bad.cu:3:12: error: pointer `?:` pointing into a local array and elsewhere",
        ),
        (
            "float a[4], b[4];\n  float *p = a;\n  if (threadIdx.x) p = b;\n  out[0] = *p;",
            "bad.cu:4:20: error: pointer `p` pointing into a local array and elsewhere",
        ),
        (
            "int c[2] = {0, 0};\n  atomicAdd(&c[1], 1);\n  out[0] = c[1];",
            "bad.cu:3:3: error: an atomic operation on a local variable is not supported",
        ),
    ];
    for (body, want) in cases {
        let src = format!("__global__ void k(int *out) {{\n  {body}\n}}\n");
        let e = Module::from_source("bad.cu", &src, &Options::default())
            .unwrap()
            .lower("k")
            .expect_err("refused");
        assert!(e.to_string().contains(want), "{src}\n{e}");
        assert!(e.to_string().contains("help:"), "{e}");
    }
}

#[test]
fn members_defined_outside_their_class_and_references_returned() {
    let src = r#"
struct S { float v; __device__ S(float a); __device__ float get() const; };
__device__ S::S(float a) : v(a) {}
__device__ float S::get() const { return v * 2; }
template <class T> struct I {
    T lo, w[4];
    __device__ I(T a);
    __device__ T const &lower() const;
    __device__ T &operator[](int k) { return w[k]; }
};
template <class T> __device__ I<T>::I(T a) : lo(a) { for (int k = 0; k < 4; k++) w[k] = a + k; }
template <class T> inline __device__ T const &I<T>::lower() const { return lo; }
template <> inline __device__ int const &I<int>::lower() const { return w[3]; }
__global__ void k(float *out) {
    S s(1.5f);
    I<float> i(2.0f);
    I<int> n(1);  // its lower() is the specialization's: w[3] = 4
    float third = i[2];
    out[threadIdx.x] = s.get() + i.lower() * 10 + third * 100 + n.lower() * 1000;
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 4);
    run_on(&dev, src, "k", 1, 4, &[Arg::buffer(&out)], Mode::Fast);
    assert_eq!(out.to_vec(), [4423.0; 4]);
    // Assigning through a returned reference, and through `operator[]`'s, writes what it
    // refers to (in global and shared memory).
    let src = "template <class T> struct View { T *p; __device__ T &operator[](int i) { return p[i]; } };\n\
               __device__ float &at(float *p, int i) { return p[i]; }\n\
               __global__ void k(float *out) {\n  __shared__ float sh[4];\n  View<float> v;\n  v.p = out;\n  at(sh, threadIdx.x) = threadIdx.x;\n  at(sh, threadIdx.x) += 1;\n  __syncthreads();\n  v[threadIdx.x] = sh[3 - threadIdx.x];\n  if (threadIdx.x == 0) v[0] *= 10;\n}\n";
    let out = dev.alloc_zeroed::<f32>("out", 4);
    run_on(&dev, src, "k", 1, 4, &[Arg::buffer(&out)], Mode::Fast);
    assert_eq!(out.to_vec(), [40.0, 3.0, 2.0, 1.0]);
    // A reference from a function with several `return`s names no one place: assigning through
    // it, or calling a member function on it, is refused where it is written.
    for (use_, what) in [
        ("at(out, 0, 1) = 1", "assigning through"),
        ("at(out, 0, 1).add()", "as an object"),
    ] {
        let bad = format!(
            "struct A {{ float v; __device__ void add() {{ v += 1; }} }};\n\
             __device__ A &at(A *p, int i, int j) {{ if (i) return p[i]; return p[j]; }}\n\
             __global__ void k(A *out) {{\n  {use_};\n}}\n"
        );
        let e = Module::from_source("bad.cu", &bad, &Options::default())
            .unwrap()
            .lower("k")
            .expect_err(use_);
        assert_eq!(e.line, 4, "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("several `return`s") && msg.contains(what),
            "{msg}"
        );
    }
}

/// Implicit copies that would run members' copy constructors are refused where they are written
/// (a struct's own copy constructor and `operator=` run: tests/data/programs/cxx_semantics.cu).
#[test]
fn copies_running_members_copy_constructors_are_refused() {
    // `S b = a;`, `auto b = a;` and `return` of what is not the function's own local.
    for copy in ["H g = h;", "auto g = h;", "H g = h.self();"] {
        let bad = format!(
            "struct C {{ int n; __device__ C() : n(0) {{}} __device__ C(const C &o) : n(o.n + 1) {{}} }};\n\
             struct H {{ C c; __device__ H self() const {{ return *this; }} }};\n\
             __global__ void k(int *o) {{\n  H h;\n  {copy}\n  o[0] = g.c.n;\n}}\n"
        );
        let e = Module::from_source("bad.cu", &bad, &Options::default())
            .unwrap()
            .lower("k")
            .expect_err("a copy running a member's copy constructor");
        let line = if copy.contains("self") { 2 } else { 5 };
        assert_eq!(e.line, line, "{copy}: {e}");
        assert!(
            e.to_string()
                .contains("copying a `H`, whose members have their own copy constructor"),
            "{e}"
        );
    }
}

/// A lambda capturing a local array or `*this` by value is refused where it is written (other
/// captures by value: tests/data/programs/cxx_semantics.cu).
#[test]
fn lambdas_capturing_arrays_by_value_are_refused() {
    let bad = "__global__ void k(int *o) {\n  int a[3] = {1, 2, 3};\n  auto f = [=]() { return a[1]; };\n  o[0] = f();\n}\n";
    let e = Module::from_source("bad.cu", bad, &Options::default())
        .unwrap()
        .lower("k")
        .expect_err("an array captured by value");
    assert_eq!(e.line, 3, "{e}");
    assert!(
        e.to_string()
            .contains("capturing `a` (a `int[3]`) by value"),
        "{e}"
    );
}

/// Constructs whose C++ meaning warpsim does not keep are refused where they are written: a
/// bit-field (its width), member functions told apart only by `const`, a using-declaration in
/// a function.
#[test]
fn bitfields_const_overloads_and_local_using_declarations_are_refused() {
    for (src, line, want) in [
        (
            "struct B { unsigned a : 3; };\n__global__ void k(int *o) {\n  B b;\n  b.a = 9;\n  o[0] = b.a;\n}\n",
            1,
            "the bit-field in `B`",
        ),
        (
            "struct M { __device__ int f() { return 1; } __device__ int f() const { return 2; } };\n\
             __global__ void k(int *o) {\n  M m;\n  o[0] = m.f();\n}\n",
            4,
            "overloads that differ only in `const`",
        ),
        (
            "namespace ns { __device__ int g(int) { return 3; } }\n__device__ int g(int) { return 5; }\n\
             __global__ void k(int *o) {\n  using ns::g;\n  o[0] = g(0);\n}\n",
            4,
            "a using-declaration inside a function",
        ),
    ] {
        let e = Module::from_source("bad.cu", src, &Options::default())
            .unwrap()
            .lower("k")
            .expect_err(want);
        assert_eq!(e.line, line, "{e}");
        assert!(e.to_string().contains(want), "{e}");
    }
}

#[test]
fn memcpy_memset_sizeof_and_alignment() {
    let src = r#"
typedef unsigned int uint;
struct __align__(16) RGB32 { unsigned r, g, b; };
struct packed { uint4 x, y; };
__global__ void k(uint *out, float *f) {
    uint r[8];
    for (int i = 0; i < 8; i++) r[i] = threadIdx.x * 10 + i;
    packed p;
    memcpy(&p, r, sizeof(p));
    float loc[4];
    memcpy(loc, f + 4 * threadIdx.x, 4 * sizeof(float));
    out[threadIdx.x] = p.y.z + (uint)loc[1] * 1000;
    memset(&p, 0, sizeof(p));
    RGB32 arr[2];
    if (threadIdx.x == 0) {
        out[4] = sizeof(uint) + 100 * sizeof(RGB32) + 10000 * sizeof(arr) + p.x.x;
        out[5] = alignof(RGB32);
    }
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 6);
    let f = dev.alloc_from("f", &(0..16).map(|x| x as f32).collect::<Vec<_>>());
    run(src, "k", 1, 4, &[Arg::buffer(&out), Arg::buffer(&f)]);
    assert_eq!(
        out.to_vec(),
        [1006, 5016, 9026, 13036, 4 + 1600 + 320000, 16]
    );
}

#[test]
fn lambdas_initializer_lists_auto_and_constexpr() {
    let src = r#"
struct V2 { float x, y; };
template <class F> __device__ float apply(F f, float v) { return f(v); }
__device__ auto twice(int v) { return 2 * v; }
__device__ V2 make(float a) { return {a, a + 1}; }
__device__ float norm1(V2 v) { return v.x + v.y; }
__global__ void k(float *out, float s) {
    int t = threadIdx.x;
    constexpr int N = 4;
    static_assert(N == 4, "four");
    auto sq = [](float v) { return v * v; };
    auto add_s = [&](float v) -> float { return v + s; };
    float acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc += i;
    typedef float real;
    real e = make(5).y;
    out[t] = sq(2.0f) + apply(add_s, 1.0f) + twice(t) + acc + e + norm1({1, 2});
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 4);
    run(src, "k", 1, 4, &[Arg::buffer(&out), Arg::Float(10.0)]);
    assert_eq!(out.to_vec(), [30.0, 32.0, 34.0, 36.0]);
}

#[test]
fn cuda_arch_follows_the_device() {
    let src = "__global__ void k(int *a) { a[0] = __CUDA_ARCH__; a[1] = CUDART_VERSION; }";
    for (p, arch) in [(Profile::sm_61(), 610), (Profile::sm_90(), 900)] {
        let dev = Device::new(p);
        let a = ints(&dev, 2);
        run_on(&dev, src, "k", 1, 1, &[Arg::buffer(&a)], Mode::Fast);
        assert_eq!(a.to_vec(), [arch, 12040]);
    }
}

#[test]
fn check_mode_accepts_bytes_written_as_words_and_lockstep_warps_before_volta() {
    let src = r#"
__global__ void bytes(unsigned char *out) {
    __shared__ unsigned char s[256];
    ((unsigned *)s)[threadIdx.x] = 0x01020304u * threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
__device__ void warp_reduce(volatile float *s, int t) {
    s[t] += s[t + 32]; s[t] += s[t + 16]; s[t] += s[t + 8];
    s[t] += s[t + 4]; s[t] += s[t + 2]; s[t] += s[t + 1];
}
__global__ void legacy_reduce(const float *in, float *out) {
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 64) s[t] += s[t + 64];
    __syncthreads();
    if (t < 32) warp_reduce(s, t);
    if (t == 0) out[0] = s[0];
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u8>("out", 64);
    let r = run_on(&dev, src, "bytes", 1, 64, &[Arg::buffer(&out)], Mode::Check);
    assert!(r.launch.findings.is_empty(), "{:?}", r.launch.findings);
    let input: Vec<f32> = (0..128).map(|x| x as f32).collect();
    for (p, hazards) in [(Profile::sm_61(), false), (Profile::sm_90(), true)] {
        let dev = Device::new(p);
        let (i, o) = (
            dev.alloc_from("in", &input),
            dev.alloc_zeroed::<f32>("out", 1),
        );
        let r = run_on(
            &dev,
            src,
            "legacy_reduce",
            1,
            128,
            &[Arg::buffer(&i), Arg::buffer(&o)],
            Mode::Check,
        );
        assert_eq!(o.to_vec(), [8128.0]);
        assert_eq!(
            !r.launch.findings.is_empty(),
            hazards,
            "{:?}",
            r.launch.findings
        );
    }
}

#[test]
fn warp_reductions_and_groups_that_split_a_warp() {
    let src = r#"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(int *out, unsigned *bits, int *parts, int *tiles) {
    int t = threadIdx.x;
    // The sm_80 warp reductions: int overloads compare signed, unsigned ones unsigned.
    out[t] = __reduce_add_sync(0xffffffff, t) + __reduce_min_sync(0xffffffff, t - 5) * 1000
           + (t >= 16 ? __reduce_max_sync(0xffff0000u, t) * 100000 : 0);
    bits[t] = t < 16 ? __reduce_or_sync(0xffff, 1u << t) : __reduce_max_sync(0xffff0000u, (unsigned)(t - 20));
    // Lanes of a warp in groups of their own: each group's shuffle and reduction names only
    // its members.
    auto g = cg::labeled_partition(cg::coalesced_threads(), t % 3);
    int first = g.shfl(t, 0);
    parts[t] = first * 100 + cg::reduce(g, 1, cg::plus<int>());
    auto tile = cg::tiled_partition<8>(cg::this_thread_block());
    tiles[t] = cg::reduce(tile, t, cg::plus<int>()) + cg::reduce(tile, t, cg::less<int>()) * 1000;
}
"#;
    let dev = Device::default();
    let (out, bits, parts, tiles) = (
        ints(&dev, 32),
        dev.alloc_zeroed::<u32>("bits", 32),
        ints(&dev, 32),
        ints(&dev, 32),
    );
    let report = run_on(
        &dev,
        src,
        "k",
        1,
        32,
        &[
            Arg::buffer(&out),
            Arg::buffer(&bits),
            Arg::buffer(&parts),
            Arg::buffer(&tiles),
        ],
        Mode::Check,
    );
    let o = out.to_vec();
    assert_eq!(o[0], 496 - 5000);
    assert_eq!(o[16], 496 - 5000 + 3_100_000);
    let b = bits.to_vec();
    assert_eq!(b[3], 0xffff);
    // (unsigned)(19 - 20) is the largest unsigned value of the upper half (signed: 11).
    assert_eq!(b[20], 19u32.wrapping_sub(20));
    let p = parts.to_vec();
    assert_eq!((p[0], p[3], p[1], p[31], p[2]), (11, 11, 111, 111, 210));
    let tl = tiles.to_vec();
    assert_eq!((tl[0], tl[9], tl[31]), (28, 8000 + 92, 24000 + 220));
    assert!(
        report.launch.findings.is_empty(),
        "{:?}",
        report.launch.findings
    );
    // A warp issues a reduction once, whatever masks its lanes pass: the same code counts the
    // same instructions with one mask for the warp and with one per half.
    let one = module(
        "__global__ void r(const unsigned *m, int *o) { o[threadIdx.x] = __reduce_add_sync(m[threadIdx.x], 1); }\n",
        900,
    )
    .lower("r")
    .unwrap();
    let cfg = LaunchConfig::new(1, 32).name("r").mode(Mode::Count);
    let count = |masks: Vec<u32>| {
        let m = dev.alloc_from("m", &masks);
        let o = ints(&dev, 32);
        let rep = cuda::launch(&dev, &one, &cfg, &[Arg::buffer(&m), Arg::buffer(&o)]).unwrap();
        (o.to_vec(), rep.launch.counters.unwrap().warp_instructions)
    };
    let (whole, n1) = count(vec![!0; 32]);
    let (halves, n2) = count(
        (0..32)
            .map(|t| if t < 16 { 0xffff } else { 0xffff_0000 })
            .collect(),
    );
    assert_eq!(whole, vec![32; 32]);
    assert_eq!(halves, vec![16; 32]);
    assert_eq!(n1, n2);
    // Before sm_80 nvcc has no __reduce_*_sync.
    let e = module(
        "__global__ void r(int *o) { o[0] = __reduce_add_sync(~0u, 1); }\n",
        750,
    )
    .lower("r")
    .unwrap_err();
    assert!(e.message.contains("sm_80"), "{e}");
}

#[test]
fn atomics_on_eight_byte_numbers() {
    let src = r#"
__global__ void k(unsigned long long *c, double *s, long long *m, unsigned long long *cas) {
    __shared__ unsigned long long sh;
    __shared__ double sd;
    if (threadIdx.x == 0) { sh = 0; sd = 0; }
    __syncthreads();
    long long t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&sh, 1ull << 33);
    atomicAdd(&sd, 0.5);
    __syncthreads();
    if (threadIdx.x == 0) { atomicAdd(c, sh); atomicAdd(s, sd); }
    atomicMax(m, t - 1000);
    atomicMin(m + 1, -t);
    // The compare-and-swap loop of code written before 64-bit atomicAdd existed.
    unsigned long long old = *cas, assumed;
    do {
        assumed = old;
        old = atomicCAS(cas, assumed, assumed + 3);
    } while (assumed != old);
}
"#;
    let dev = Device::default();
    let c = dev.alloc_zeroed::<u64>("c", 1);
    let s = dev.alloc_zeroed::<f64>("s", 1);
    // `long long` buffers, as their bits.
    let m = dev.alloc_from::<u64>("m", &[i64::MIN as u64, i64::MAX as u64]);
    let cas = dev.alloc_zeroed::<u64>("cas", 1);
    let args = [
        Arg::buffer(&c),
        Arg::buffer(&s),
        Arg::buffer(&m),
        Arg::buffer(&cas),
    ];
    run_on(&dev, src, "k", 8, 64, &args, Mode::Count);
    assert_eq!(c.to_vec(), [512u64 << 33]);
    assert_eq!(s.to_vec(), [256.0]);
    assert_eq!(m.to_vec(), [(511i64 - 1000) as u64, -511i64 as u64]);
    assert_eq!(cas.to_vec(), [3 * 512]);
    // What CUDA has no 8-byte form of is refused with what there is.
    let e = module(
        "__global__ void k(unsigned long long *x) { atomicInc(x, 5ull); }\n",
        900,
    )
    .lower("k")
    .unwrap_err();
    assert!(e.to_string().contains("atomicInc"), "{e}");
}

#[test]
fn check_mode_orders_blocks_that_publish_through_a_fence_and_an_atomic() {
    // The single-pass reduction: each block writes its partial sum, fences, and takes a
    // ticket; the block with the last ticket reads every partial sum and resets the counter.
    let single_pass = |fence: &str| {
        format!(
            r#"
__device__ unsigned int count = 0;
__global__ void k(unsigned *partial, unsigned *out) {{
    __shared__ bool last;
    unsigned t = threadIdx.x;
    if (t == 0) {{
        partial[blockIdx.x] = blockIdx.x + 1;
        {fence}
        unsigned ticket = atomicInc(&count, gridDim.x);
        last = ticket == gridDim.x - 1;
    }}
    __syncthreads();
    if (last && t == 0) {{
        unsigned sum = 0;
        for (unsigned b = 0; b < gridDim.x; b++) sum += partial[b];
        *out = sum;
        count = 0;
    }}
}}
"#
        )
    };
    let dev = Device::default();
    let run_check = |src: &str| {
        let (partial, out) = (
            dev.alloc_zeroed::<u32>("partial", 8),
            dev.alloc_zeroed::<u32>("out", 1),
        );
        let r = run_on(
            &dev,
            src,
            "k",
            8,
            32,
            &[Arg::buffer(&partial), Arg::buffer(&out)],
            Mode::Check,
        );
        assert_eq!(out.to_vec(), [36]);
        r.launch.findings
    };
    let fenced = run_check(&single_pass("__threadfence();"));
    assert!(fenced.is_empty(), "{fenced:#?}");
    // Without the fence the partial sums are not published: a race, found.
    let unfenced = run_check(&single_pass(""));
    assert!(
        unfenced
            .iter()
            .any(|f| f.kind == warpsim::check::Kind::GlobalRace && f.buffer == "partial"),
        "{unfenced:#?}"
    );
}

#[test]
fn the_math_library_beyond_the_basics() {
    let src = r#"
__global__ void k(const float *x, float *f, int *i, double *d) {
    int t = threadIdx.x;
    float v = x[t];
    float s, c, whole;
    int e;
    sincosf(v, &s, &c);
    f[t * 12 + 0] = asinf(v / 4) + acosf(v / 4) + atanf(v);
    f[t * 12 + 1] = cbrtf(v) + erff(v) + erfcf(v);
    f[t * 12 + 2] = expm1f(v) + log1pf(fabsf(v)) + hypotf(v, 3.0f);
    f[t * 12 + 3] = copysignf(2.0f, v) + fdimf(v, 1.0f) + ldexpf(v, 3);
    f[t * 12 + 4] = s * 10 + c;
    f[t * 12 + 5] = modff(v, &whole) + 100 * whole;
    f[t * 12 + 6] = frexpf(v, &e) + 100 * e;
    f[t * 12 + 7] = normcdff(v) + sinhf(v / 8) + coshf(v / 8);
    f[t * 12 + 8] = lgammaf(fabsf(v) + 1) + tgammaf(fabsf(v) / 2 + 1);
    f[t * 12 + 9] = remainderf(v * 7, 2.0f) + exp10f(v / 10) + sinpif(v) + cospif(v);
    f[t * 12 + 10] = asinhf(v) + logbf(v + 7.5f) + scalbnf(v, -2);
    f[t * 12 + 11] = tanhf(v);
    i[t] = isnan(v) + 2 * isinf(v) + 4 * isfinite(v) + 8 * (signbit(v) != 0) + 16 * ilogbf(v + 9);
    d[t] = erf((double)v) + cbrt((double)v) + hypot((double)v, 4.0);
}
"#;
    let xs = [0.3f32, -1.7, 2.5, 0.0, -0.0, f32::INFINITY, f32::NAN, 1e-30];
    let n = 32;
    let input: Vec<f32> = (0..n).map(|t| xs[t % xs.len()]).collect();
    let dev = Device::default();
    let x = dev.alloc_from("x", &input);
    let f = dev.alloc_zeroed::<f32>("f", n * 12);
    let i = ints(&dev, n);
    let d = dev.alloc_zeroed::<f64>("d", n);
    run(
        src,
        "k",
        1,
        n as u32,
        &[
            Arg::buffer(&x),
            Arg::buffer(&f),
            Arg::buffer(&i),
            Arg::buffer(&d),
        ],
    );
    let (f, i, d) = (f.to_vec(), i.to_vec(), d.to_vec());
    // What C's math library gives (libm, f32 functions; f64 where float has no twin here).
    let frexp = |v: f32| libm::frexpf(v);
    for (t, &v) in input.iter().enumerate().take(xs.len()) {
        let whole = v.trunc();
        let frac = if v.is_infinite() {
            0.0f32.copysign(v)
        } else {
            v - whole
        };
        let (fr, e) = frexp(v);
        let want = [
            (v / 4.0).asin() + (v / 4.0).acos() + v.atan(),
            v.cbrt() + libm::erff(v) + libm::erfcf(v),
            v.exp_m1() + v.abs().ln_1p() + (f64::from(v).hypot(3.0) as f32),
            2.0f32.copysign(v)
                + (f64::from(v) - 1.0).max(0.0) as f32 * if v.is_nan() { f32::NAN } else { 1.0 }
                + v * 8.0,
            v.sin() * 10.0 + v.cos(),
            frac + 100.0 * whole,
            fr + 100.0 * e as f32,
            0.5 * libm::erfcf(-v * std::f32::consts::FRAC_1_SQRT_2)
                + (v / 8.0).sinh()
                + (v / 8.0).cosh(),
            libm::lgammaf(v.abs() + 1.0) + libm::tgammaf(v.abs() / 2.0 + 1.0),
            (libm::remainder(f64::from(v * 7.0), 2.0) as f32)
                + libm::exp10f(v / 10.0)
                + (v * std::f32::consts::PI).sin()
                + (v * std::f32::consts::PI).cos(),
            v.asinh() + (libm::ilogbf(v + 7.5) as f32) + v / 4.0,
            v.tanh(),
        ];
        for (col, w) in want.iter().enumerate() {
            let got = f[t * 12 + col];
            assert!(
                got == *w
                    || got.is_nan() && w.is_nan()
                    || (got - w).abs() <= 1e-6 * w.abs().max(1.0),
                "x = {v}, column {col}: {got} against {w}"
            );
        }
        let classes = i32::from(v.is_nan())
            + 2 * i32::from(v.is_infinite())
            + 4 * i32::from(v.is_finite())
            + 8 * i32::from(v.is_sign_negative())
            + 16 * libm::ilogbf(v + 9.0);
        assert_eq!(i[t], classes, "x = {v}");
        let v = f64::from(v);
        let want = libm::erf(v) + v.cbrt() + v.hypot(4.0);
        assert!(
            d[t] == want || d[t].is_nan() && want.is_nan(),
            "x = {v}: {} against {want}",
            d[t]
        );
    }
}

#[test]
fn templates_constructors_and_overloads_as_cpp_resolves_them() {
    let src = r#"
template <typename T> struct Pick { __device__ T get() { return 1; } };
template <> struct Pick<float> { __device__ float get() { return 2.5f; } };
template <class T, int N> struct Box { T v[N]; };
template <class T, int N> __device__ int capacity(Box<T, N> &b) { b.v[0] = (T)N; return N; }
struct P {
    int n;
    __device__ P(int *b, int t) : n(t + b[0]) {}
};
inline __device__ float3 make_float3(float s) { return make_float3(s, s, s); }
__global__ void k(float *out, int *buf) {
    Pick<float> p;
    Pick<int> q;
    Box<float, 6> b;
    int t = threadIdx.x;
    P s(buf, t);
    float3 a = make_float3(2.0f), c = make_float3(1.0f, 2.0f, 3.0f);
    out[0] = p.get() + 10 * q.get();
    out[1] = capacity<float>(b) + 10 * capacity(b);
    out[2] = s.n;
    out[3] = a.y + c.z;
    out[4] = sizeof(Box<double, 3>) + sizeof(Pick<float>);
}
"#;
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 5);
    let buf = dev.alloc_from::<i32>("buf", &[40]);
    run(src, "k", 1, 1, &[Arg::buffer(&out), Arg::buffer(&buf)]);
    // The explicit specialization for float, the primary for int; N deduced from `Box<float,
    // 6>`; `P s(buf, t)` constructs; the program's make_float3 adds to the built-in one.
    assert_eq!(out.to_vec(), [12.5, 66.0, 40.0, 5.0, 25.0]);
}

#[test]
fn clock_counts_the_blocks_work_and_a_wait_on_it_ends() {
    let src = r#"
__global__ void k(long long *o, clock_t wait) {
    clock_t start = clock();
    long long t = 0;
    int turns = 0;
    while (t < wait) { t = clock64() - start; turns++; }
    o[threadIdx.x] = turns;
}
"#;
    let dev = Device::default();
    let o = dev.alloc_zeroed::<u64>("o", 32);
    run(src, "k", 1, 32, &[Arg::buffer(&o), Arg::Int(1000)]);
    let turns = o.to_vec();
    assert!(
        turns[0] > 1 && turns.iter().all(|&t| t == turns[0]),
        "{turns:?}"
    );
}

/// FNV-1a of `words` as little-endian bytes (as `rounding_reference.cu` hashes).
fn fnv1a(words: &[u64]) -> u64 {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
}

/// Every intrinsic of arithmetic (`__fadd_rd`, `__dsqrt_ru`, `__frcp_rz`, `__fmaf_rd`, …) and
/// conversion (`__float2ll_ru`, `__ull2float_rd`, `__double2float_rz`, …) in each rounding
/// mode gives, on both tiers, the bits an sm_90 GPU (an H200) gave for the same 4096 threads
/// of edge and pseudo-random operands: tests/data/rounding.sm_90 holds each intrinsic's
/// hash, made by tests/data/rounding_reference.cu (where a hash differs, that program writes
/// the GPU's results to compare lane by lane).
#[test]
fn rounding_mode_intrinsics_give_the_gpus_bits() {
    let src = include_str!("data/rounding.cu");
    // The intrinsic each result is of, in the order the kernel writes them.
    let names: Vec<&str> = src
        .split("out[k++ * n + i] = ")
        .skip(1)
        .map(|s| {
            let s = &s[s.find("__").expect("an intrinsic")..];
            &s[..s.find('(').expect("a call")]
        })
        .collect();
    let want: Vec<u64> = include_str!("data/rounding.sm_90")
        .lines()
        .map(|l| u64::from_str_radix(l, 16).expect("hex"))
        .collect();
    assert_eq!(names.len(), want.len(), "one hash per intrinsic");
    let n = 4096;
    let k = module(src, 900).lower("rounding").expect("lowers");
    for engine in [Engine::Interp, Engine::Jit] {
        let dev = Device::default();
        let out = dev.alloc_zeroed::<u64>("out", n * names.len());
        let cfg = LaunchConfig::new(16, 256)
            .name("rounding")
            .mode(Mode::Fast)
            .engine(engine);
        let r = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&out), Arg::Int(4096)])
            .unwrap_or_else(|e| panic!("{e}"));
        if engine == Engine::Jit {
            assert!(matches!(r.tier, Tier::Compiled { .. }), "{:?}", r.tier);
        }
        let got = out.to_vec();
        let differ: Vec<&str> = names
            .iter()
            .zip(&want)
            .zip(got.chunks(n))
            .filter(|((_, h), results)| fnv1a(results) != **h)
            .map(|((name, _), _)| *name)
            .collect();
        assert!(
            differ.is_empty(),
            "{engine:?}: {} of {} intrinsics differ from the GPU's: {differ:?}",
            differ.len(),
            names.len()
        );
    }
}

/// Template parameters deduced from call arguments as C++ deduces them, parameter by
/// parameter: `T (&)[N]` from a local array (both), `T *` from a `float *` and from a local
/// array (it decays), `const T &` from an element and from a temporary, `N` alone from an
/// unnamed array reference's bound, both bounds of a 2-D array, and a value parameter
/// converted to its declared type; on both tiers.
#[test]
fn template_parameters_are_deduced_from_arrays_pointers_and_references() {
    let src = r#"
template <int N, typename T>
__device__ T sum(T (&v)[N]) { T s = 0; for (int i = 0; i < N; i++) s += v[i]; return s; }
template <typename T>
__device__ void fill(T *p, T v) { p[0] = v; }
template <typename T>
__device__ T first(T *p) { return p[0]; }
template <typename T>
__device__ T twice(const T &x) { return x + x; }
template <int N>
__device__ int len(const float (&)[N]) { return N; }
template <typename T, int R, int C>
__device__ int cells(T (&m)[R][C]) { return R * 10 + C + (int)sizeof(T); }
template <unsigned char B>
__device__ int wrapped(int (&v)[B]) { return (unsigned char)(B + 250); }
__global__ void k(float *out, int *iout) {
    int t = threadIdx.x;
    float v[3] = {1.0f, 2.0f, (float)t};
    double m[2][3] = {{0, 0, 0}, {0, 0, 0}};
    int w[7] = {0, 0, 0, 0, 0, 0, 0};
    out[t] = sum(v) + first(v) + twice(v[2]) + twice(0.5f);
    fill(out + 32 + t, 2.0f * t);
    iout[t] = len(v) * 1000 + cells(m) * 10 + sum(w) + wrapped(w) * 100000;
}
"#;
    let k = module(src, 900)
        .lower("k")
        .unwrap_or_else(|e| panic!("{e}"));
    for engine in [Engine::Interp, Engine::Jit] {
        let dev = Device::default();
        let out = dev.alloc_zeroed::<f32>("out", 64);
        let iout = ints(&dev, 32);
        let cfg = LaunchConfig::new(1, 32).mode(Mode::Fast).engine(engine);
        let r = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&out), Arg::buffer(&iout)])
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"));
        if engine == Engine::Jit {
            assert!(matches!(r.tier, Tier::Compiled { .. }), "{:?}", r.tier);
        }
        let want: Vec<f32> = (0..32)
            .map(|t| (3 + t) as f32 + 1.0 + 2.0 * t as f32 + 1.0)
            .chain((0..32).map(|t| 2.0 * t as f32))
            .collect();
        assert_eq!(out.to_vec(), want, "{engine:?}");
        // len 3; cells 2 rows of 3 doubles: 20 + 3 + 8 = 31; 7 + 250 wraps to 1.
        assert_eq!(iout.to_vec(), vec![3000 + 310 + 100000; 32], "{engine:?}");
    }
}

/// A struct template given fewer arguments than its parameters without defaults, or more than
/// all its parameters, is an error that says how many it takes (defaults filling in the rest:
/// tests/data/programs/templates.cu).
#[test]
fn struct_templates_say_how_many_arguments_they_take() {
    for (args, given) in [("int", 1), ("int, 2, 3, 4", 4)] {
        let bad = format!(
            "template <typename T, int N, int M = N * 2> struct Box {{ T v[N + M]; }};\n\
             __global__ void k(int *o) {{\n  Box<{args}> b;\n  o[0] = sizeof(b);\n}}\n"
        );
        let e = Module::from_source("bad.cu", &bad, &Options::default())
            .unwrap()
            .lower("k")
            .expect_err("a wrong number of template arguments");
        assert_eq!(e.line, 3, "{e}");
        assert!(
            e.to_string().contains(&format!(
                "`Box` takes 2 to 3 template argument(s), {given} given"
            )),
            "{e}"
        );
    }
}

/// `decltype` where C++ gives a reference type is refused where it is written: of an lvalue
/// expression, a name declared as a reference, `decltype((x))` (other forms:
/// tests/data/programs/cxx_semantics.cu).
#[test]
fn decltype_of_a_name_declared_as_a_reference_is_refused() {
    // `decltype(r)` is `int &`, `__typeof__(r)` is `int`: warpsim's parsed types do not tell
    // them apart. (`decltype(o[0])`, `decltype(*o)` and `decltype((y))` are references, as
    // statement_expressions.cu checks.)
    for (decl, what) in [
        (
            "int &r = o[0];\n  decltype(r) x = r;",
            "`decltype` or `__typeof__` of a name declared as a reference",
        ),
        (
            "int &r = o[0];\n  __typeof__(r) x = r;",
            "`decltype` or `__typeof__` of a name declared as a reference",
        ),
    ] {
        let bad = format!("__global__ void k(int *o) {{\n  {decl}\n  x = 2;\n  o[1] = x;\n}}\n");
        let e = Module::from_source("bad.cu", &bad, &Options::default())
            .unwrap()
            .lower("k")
            .expect_err("decltype of a reference");
        let line = 2 + decl.matches('\n').count();
        assert_eq!(e.line as usize, line, "{decl}: {e}");
        assert!(e.to_string().contains(what), "{decl}: {e}");
    }
}

#[test]
fn host_constants_are_refused_where_their_values_are_known_only_at_run_time() {
    // nvcc: "identifier is undefined in device code" for a host constexpr array indexed at
    // run time, its address, or the array itself; `__device__ constexpr` is memory and works.
    let src = r#"
constexpr int tbl[3] = {1, 2, 3};
__device__ constexpr int dtbl[3] = {1, 2, 3};
__global__ void run_time(int *out) { out[0] = tbl[threadIdx.x % 3]; }
__global__ void address(int *out) { const int *p = &tbl[1]; out[0] = *p; }
__global__ void whole(int *out) { const int *p = tbl; out[0] = p[1]; }
__global__ void outside(int *out) { out[0] = tbl[3]; }
__global__ void device(int *out) { out[threadIdx.x] = dtbl[threadIdx.x % 3] + tbl[2]; }
"#;
    let m = module(src, 900);
    for (k, what) in [
        ("run_time", "not an element at a run-time index"),
        ("address", "not its address, or an assignment"),
        ("whole", "not the array as a whole"),
    ] {
        let e = m.lower(k).unwrap_err().to_string();
        assert!(
            e.contains("`tbl` is a file-scope constant of the host"),
            "{e}"
        );
        assert!(e.contains(what), "{e}");
        assert!(e.contains("__device__ constexpr"), "{e}");
    }
    let e = m.lower("outside").unwrap_err().to_string();
    assert!(e.contains("index 3 is outside `tbl`"), "{e}");
    let dev = Device::default();
    let out = ints(&dev, 32);
    run_on(&dev, src, "device", 1, 32, &[Arg::buffer(&out)], Mode::Fast);
    let want: Vec<i32> = (0..32).map(|t| t % 3 + 1 + 3).collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn a_pointer_to_a_struct_variable_that_carries_pointers_is_not_moved() {
    // `V *m = &a;` names `a` (its pointer fields are pointer variables, in no memory a
    // pointer could address): pointing it at another struct is refused where it is done.
    let src = r#"
struct V { int *d; };
__global__ void k(int *out, V a, V b) {
    V *m = &a;
    if (threadIdx.x > 3) m = &b;
    out[threadIdx.x] = m->d[0];
}
"#;
    let e = module(src, 900).lower("k").unwrap_err().to_string();
    assert!(e.contains("features.cu:5:"), "{e}");
    assert!(e.contains("taking the address of a local variable"), "{e}");
}

/// A `constexpr` function is device code (as under `--expt-relaxed-constexpr`); a host function
/// whose body declares a `constexpr` local is still the host's.
#[test]
fn constexpr_functions_are_device_code_and_host_functions_stay_the_hosts() {
    let ok = "constexpr int div_up(int p, int q) { return (p + q - 1) / q; }\n\
              __global__ void k(int *o) { o[threadIdx.x] = div_up(threadIdx.x, 4); }\n";
    let m = Module::from_source("ok.cu", ok, &Options::default()).unwrap();
    assert!(m.lower("k").is_ok());
    let err = lower(
        "int host_only(int x) { constexpr int k = 3; return x * k; }\n\
         __global__ void k(int *o) { o[threadIdx.x] = host_only(threadIdx.x); }\n",
    );
    assert!(
        err.contains("`host_only` is a host function and cannot be called from device code"),
        "{err}"
    );
}
