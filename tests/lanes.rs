//! Every lane operation against a per-lane scalar reference.
//!
//! Inputs come from a fixed seed and are biased towards edge values (0, -0, ±1, MIN/MAX, NaN,
//! ±inf, subnormals, shift amounts of 32 and more, zero divisors, `i32::MIN / -1`). The
//! reference of each operation is written lane by lane from its documented meaning
//! (`src/lanes.rs`, CUDA's intrinsics), independently of the engine's implementation.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng, rngs::SmallRng};
use warpsim::{F32x32, F64x32, I32x32, Lanes, Mask, U32x32, U64x32, WARP_SIZE};

const ROUNDS: usize = 200;

const F32_EDGES: [f32; 18] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.0,
    f32::MIN,
    f32::MAX,
    f32::MIN_POSITIVE,
    1.0e-40, // subnormal
    -1.0e-40,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    2147483648.0,  // 2^31
    -2147483904.0, // just below i32::MIN
    4294967296.0,  // 2^32
];

const F64_EDGES: [f64; 15] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    f64::MIN,
    f64::MAX,
    f64::MIN_POSITIVE,
    5.0e-324,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1.0e300, // overflows f32
    3.4028235677973366e38,
];

const I32_EDGES: [i32; 14] = [
    0,
    1,
    -1,
    2,
    -2,
    31,
    32,
    33,
    i32::MIN,
    i32::MIN + 1,
    i32::MAX,
    i32::MAX - 1,
    0x5555_5555,
    -0x1234_5678,
];

const U32_EDGES: [u32; 14] = [
    0,
    1,
    2,
    3,
    31,
    32,
    33,
    63,
    64,
    u32::MAX,
    u32::MAX - 1,
    1 << 31,
    (1 << 31) - 1,
    0x8000_0001,
];

const U64_EDGES: [u64; 14] = [
    0,
    1,
    2,
    63,
    64,
    65,
    u64::MAX,
    u64::MAX - 1,
    1 << 63,
    (1 << 63) - 1,
    1 << 32,
    u32::MAX as u64,
    (u32::MAX as u64) + 1,
    0xdead_beef_0000_0001,
];

fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

fn f32_lanes(r: &mut SmallRng) -> [f32; WARP_SIZE] {
    std::array::from_fn(|_| match r.random_range(0..4) {
        0 | 1 => F32_EDGES[r.random_range(0..F32_EDGES.len())],
        2 => r.random_range(-100.0f32..100.0),
        _ => f32::from_bits(r.random::<u32>()),
    })
}

fn f64_lanes(r: &mut SmallRng) -> [f64; WARP_SIZE] {
    std::array::from_fn(|_| match r.random_range(0..4) {
        0 | 1 => F64_EDGES[r.random_range(0..F64_EDGES.len())],
        2 => r.random_range(-100.0f64..100.0),
        _ => f64::from_bits(r.random::<u64>()),
    })
}

fn i32_lanes(r: &mut SmallRng) -> [i32; WARP_SIZE] {
    std::array::from_fn(|_| match r.random_range(0..4) {
        0 | 1 => I32_EDGES[r.random_range(0..I32_EDGES.len())],
        2 => r.random_range(-40..40),
        _ => r.random::<i32>(),
    })
}

fn u32_lanes(r: &mut SmallRng) -> [u32; WARP_SIZE] {
    std::array::from_fn(|_| match r.random_range(0..4) {
        0 | 1 => U32_EDGES[r.random_range(0..U32_EDGES.len())],
        2 => r.random_range(0..70),
        _ => r.random::<u32>(),
    })
}

fn u64_lanes(r: &mut SmallRng) -> [u64; WARP_SIZE] {
    std::array::from_fn(|_| match r.random_range(0..4) {
        0 | 1 => U64_EDGES[r.random_range(0..U64_EDGES.len())],
        2 => r.random_range(0..70),
        _ => r.random::<u64>(),
    })
}

/// Exact float equality: NaN matches any NaN, otherwise the bits must agree (so -0 ≠ +0).
trait Same: Copy + std::fmt::Debug {
    fn same(self, other: Self) -> bool;
}
impl Same for f32 {
    fn same(self, o: f32) -> bool {
        (self.is_nan() && o.is_nan()) || self.to_bits() == o.to_bits()
    }
}
impl Same for f64 {
    fn same(self, o: f64) -> bool {
        (self.is_nan() && o.is_nan()) || self.to_bits() == o.to_bits()
    }
}
macro_rules! same_eq {
    ($($t:ty),*) => {$(impl Same for $t { fn same(self, o: $t) -> bool { self == o } })*};
}
same_eq!(i32, u32, u64, bool);

/// Lane `l` of `got` must be `want(l)`.
#[track_caller]
fn check<T: Same, I: std::fmt::Debug>(
    what: &str,
    got: [T; WARP_SIZE],
    inputs: impl Fn(usize) -> I,
    want: impl Fn(usize) -> T,
) {
    for (l, g) in got.iter().enumerate() {
        let w = want(l);
        assert!(
            g.same(w),
            "{what}: lane {l} inputs {:?}: got {:?}, want {:?}",
            inputs(l),
            g,
            w
        );
    }
}

/// Mask bit `l` must be `want(l)`.
#[track_caller]
fn check_mask<I: std::fmt::Debug>(
    what: &str,
    got: Mask,
    inputs: impl Fn(usize) -> I,
    want: impl Fn(usize) -> bool,
) {
    for l in 0..WARP_SIZE {
        assert_eq!(
            got.contains(l as u32),
            want(l),
            "{what}: lane {l} inputs {:?}",
            inputs(l)
        );
    }
}

/// CUDA `fminf`/`fmaxf`: a NaN operand yields the other operand. The sign of a zero result
/// when comparing +0 with -0 is not specified, so either zero is accepted there.
fn fmin_ok<T: Same + PartialOrd + Default>(
    a: T,
    b: T,
    got: T,
    is_nan: fn(T) -> bool,
    max: bool,
) -> bool {
    if is_nan(a) && is_nan(b) {
        return is_nan(got);
    }
    if is_nan(a) {
        return got.same(b);
    }
    if is_nan(b) {
        return got.same(a);
    }
    if a == T::default() && b == T::default() {
        return got == T::default();
    }
    let want = if (a < b) != max { a } else { b };
    got.same(want)
}

// ----- f32 ------------------------------------------------------------------------------------

#[test]
fn f32_arithmetic() {
    let mut r = rng(1);
    for _ in 0..ROUNDS {
        let (a, b, c) = (f32_lanes(&mut r), f32_lanes(&mut r), f32_lanes(&mut r));
        let (va, vb, vc) = (
            F32x32::from_array(a),
            F32x32::from_array(b),
            F32x32::from_array(c),
        );
        let ab = |l: usize| (a[l], b[l]);
        check("f32 +", (va + vb).to_array(), ab, |l| a[l] + b[l]);
        check("f32 -", (va - vb).to_array(), ab, |l| a[l] - b[l]);
        check("f32 *", (va * vb).to_array(), ab, |l| a[l] * b[l]);
        check("f32 /", (va / vb).to_array(), ab, |l| a[l] / b[l]);
        check("f32 %", (va % vb).to_array(), ab, |l| a[l] % b[l]);
        check("f32 neg", (-va).to_array(), |l| a[l], |l| -a[l]);
        check(
            "f32 abs",
            va.abs().to_array(),
            |l| a[l],
            |l| f32::from_bits(a[l].to_bits() & 0x7fff_ffff),
        );
        check("f32 sqrt", va.sqrt().to_array(), |l| a[l], |l| a[l].sqrt());
        check(
            "f32 floor",
            va.floor().to_array(),
            |l| a[l],
            |l| a[l].floor(),
        );
        check(
            "f32 mul_add",
            va.mul_add(vb, vc).to_array(),
            |l| (a[l], b[l], c[l]),
            |l| a[l].mul_add(b[l], c[l]),
        );
        let min = va.min(vb).to_array();
        let max = va.max(vb).to_array();
        for l in 0..WARP_SIZE {
            assert!(
                fmin_ok(a[l], b[l], min[l], f32::is_nan, false),
                "f32 min {:?} -> {:?}",
                ab(l),
                min[l]
            );
            assert!(
                fmin_ok(a[l], b[l], max[l], f32::is_nan, true),
                "f32 max {:?} -> {:?}",
                ab(l),
                max[l]
            );
        }
        check_mask("f32 is_nan", va.is_nan(), |l| a[l], |l| a[l].is_nan());
    }
}

#[test]
fn f32_scalar_operands_and_assign_ops() {
    let mut r = rng(2);
    for _ in 0..ROUNDS {
        let a = f32_lanes(&mut r);
        let s = F32_EDGES[r.random_range(0..F32_EDGES.len())];
        let va = F32x32::from_array(a);
        check("v + s", (va + s).to_array(), |l| (a[l], s), |l| a[l] + s);
        check("s - v", (s - va).to_array(), |l| (s, a[l]), |l| s - a[l]);
        check(
            "s / v",
            (F32x32::splat(s) / va).to_array(),
            |l| (s, a[l]),
            |l| s / a[l],
        );
        check("v % s", (va % s).to_array(), |l| (a[l], s), |l| a[l] % s);
        let mut m = va;
        m += s;
        m *= va;
        m -= 1.0;
        m /= va;
        check(
            "assign ops",
            m.to_array(),
            |l| (a[l], s),
            |l| ((a[l] + s) * a[l] - 1.0) / a[l],
        );
        check_mask("lt scalar", va.lt(s), |l| (a[l], s), |l| a[l] < s);
    }
}

#[test]
fn f32_comparisons_give_masks() {
    let mut r = rng(3);
    for _ in 0..ROUNDS {
        let (a, mut b) = (f32_lanes(&mut r), f32_lanes(&mut r));
        // Make some lanes equal so == and <= are exercised.
        for l in (0..WARP_SIZE).step_by(3) {
            b[l] = a[l];
        }
        let (va, vb) = (F32x32::from_array(a), F32x32::from_array(b));
        let ab = |l: usize| (a[l], b[l]);
        check_mask("f32 lt", va.lt(vb), ab, |l| a[l] < b[l]);
        check_mask("f32 le", va.le(vb), ab, |l| a[l] <= b[l]);
        check_mask("f32 gt", va.gt(vb), ab, |l| a[l] > b[l]);
        check_mask("f32 ge", va.ge(vb), ab, |l| a[l] >= b[l]);
        check_mask("f32 eq", va.eq(vb), ab, |l| a[l] == b[l]);
        check_mask("f32 ne", va.ne(vb), ab, |l| a[l] != b[l]);
    }
    // The documented special cases, spelled out.
    let v = F32x32::from_fn(|l| [f32::NAN, 0.0, -0.0, f32::INFINITY][l % 4]);
    assert_eq!(v.eq(v).bits(), 0xeeee_eeee, "NaN != NaN, 0 == 0");
    assert_eq!(v.ne(v).bits(), 0x1111_1111);
    assert_eq!(v.eq(0.0).bits(), 0x6666_6666, "-0 == +0");
    assert_eq!(v.lt(f32::NAN).bits(), 0);
}

#[test]
fn f32_conversions() {
    let mut r = rng(4);
    for _ in 0..ROUNDS {
        let a = f32_lanes(&mut r);
        let va = F32x32::from_array(a);
        // __float2int_rz: truncate, saturate, NaN -> 0.
        let to_i32 = |x: f32| -> i32 {
            if x.is_nan() {
                0
            } else if x >= 2147483648.0 {
                i32::MAX
            } else if x <= -2147483649.0 {
                i32::MIN
            } else {
                x.trunc() as i64 as i32
            }
        };
        let to_u32 = |x: f32| -> u32 {
            if x.is_nan() || x <= -1.0 {
                0
            } else if x >= 4294967296.0 {
                u32::MAX
            } else {
                x.trunc().max(0.0) as i64 as u32
            }
        };
        check(
            "f32 to_i32",
            va.to_i32().to_array(),
            |l| a[l],
            |l| to_i32(a[l]),
        );
        check(
            "f32 to_u32",
            va.to_u32().to_array(),
            |l| a[l],
            |l| to_u32(a[l]),
        );
        check(
            "f32 to_f64",
            va.to_f64().to_array(),
            |l| a[l],
            |l| f64::from(a[l]),
        );
        check(
            "f32 as_u32",
            va.as_u32().to_array(),
            |l| a[l],
            |l| a[l].to_bits(),
        );
        let back = F32x32::from_bits(va.as_u32()).to_array();
        check(
            "from_bits(as_u32)",
            back.map(f32::to_bits),
            |l| a[l],
            |l| a[l].to_bits(),
        );
    }
    let v = F32x32::from_fn(|l| {
        [
            f32::NAN,
            -0.9,
            2.9,
            -2.9,
            1e10,
            -1e10,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ][l % 8]
    });
    assert_eq!(
        &v.to_i32().to_array()[..8],
        [0, 0, 2, -2, i32::MAX, i32::MIN, i32::MAX, i32::MIN]
    );
    assert_eq!(
        &v.to_u32().to_array()[..8],
        [0, 0, 2, 0, u32::MAX, 0, u32::MAX, 0]
    );
}

// ----- f64 ------------------------------------------------------------------------------------

#[test]
fn f64_arithmetic_comparisons_conversions() {
    let mut r = rng(5);
    for _ in 0..ROUNDS {
        let (a, mut b, c) = (f64_lanes(&mut r), f64_lanes(&mut r), f64_lanes(&mut r));
        for l in (0..WARP_SIZE).step_by(4) {
            b[l] = a[l];
        }
        let (va, vb, vc) = (
            F64x32::from_array(a),
            F64x32::from_array(b),
            F64x32::from_array(c),
        );
        let ab = |l: usize| (a[l], b[l]);
        check("f64 +", (va + vb).to_array(), ab, |l| a[l] + b[l]);
        check("f64 -", (va - vb).to_array(), ab, |l| a[l] - b[l]);
        check("f64 *", (va * vb).to_array(), ab, |l| a[l] * b[l]);
        check("f64 /", (va / vb).to_array(), ab, |l| a[l] / b[l]);
        check("f64 %", (va % vb).to_array(), ab, |l| a[l] % b[l]);
        check("f64 neg", (-va).to_array(), |l| a[l], |l| -a[l]);
        check(
            "f64 abs",
            va.abs().to_array(),
            |l| a[l],
            |l| f64::from_bits(a[l].to_bits() & !(1 << 63)),
        );
        check("f64 sqrt", va.sqrt().to_array(), |l| a[l], |l| a[l].sqrt());
        check(
            "f64 floor",
            va.floor().to_array(),
            |l| a[l],
            |l| a[l].floor(),
        );
        check(
            "f64 mul_add",
            va.mul_add(vb, vc).to_array(),
            |l| (a[l], b[l], c[l]),
            |l| a[l].mul_add(b[l], c[l]),
        );
        let min = va.min(vb).to_array();
        let max = va.max(vb).to_array();
        for l in 0..WARP_SIZE {
            assert!(
                fmin_ok(a[l], b[l], min[l], f64::is_nan, false),
                "f64 min {:?} -> {:?}",
                ab(l),
                min[l]
            );
            assert!(
                fmin_ok(a[l], b[l], max[l], f64::is_nan, true),
                "f64 max {:?} -> {:?}",
                ab(l),
                max[l]
            );
        }
        check_mask("f64 lt", va.lt(vb), ab, |l| a[l] < b[l]);
        check_mask("f64 le", va.le(vb), ab, |l| a[l] <= b[l]);
        check_mask("f64 gt", va.gt(vb), ab, |l| a[l] > b[l]);
        check_mask("f64 ge", va.ge(vb), ab, |l| a[l] >= b[l]);
        check_mask("f64 eq", va.eq(vb), ab, |l| a[l] == b[l]);
        check_mask("f64 ne", va.ne(vb), ab, |l| a[l] != b[l]);
        check_mask("f64 is_nan", va.is_nan(), |l| a[l], |l| a[l].is_nan());
        // Narrowing rounds to nearest, overflows to infinity, keeps NaN.
        check(
            "f64 to_f32",
            va.to_f32().to_array(),
            |l| a[l],
            |l| a[l] as f32,
        );
        let m = Mask(r.random::<u32>());
        check(
            "f64 select",
            F64x32::select(m, va, vb).to_array(),
            |l| (m, a[l], b[l]),
            |l| {
                if m.contains(l as u32) { a[l] } else { b[l] }
            },
        );
    }
}

// ----- i32 ------------------------------------------------------------------------------------

#[test]
fn i32_arithmetic_wraps_and_never_traps() {
    let mut r = rng(6);
    for _ in 0..ROUNDS {
        let (a, mut b) = (i32_lanes(&mut r), i32_lanes(&mut r));
        b[0] = 0;
        b[1] = -1;
        let (va, vb) = (I32x32::from_array(a), I32x32::from_array(b));
        let ab = |l: usize| (a[l], b[l]);
        check("i32 +", (va + vb).to_array(), ab, |l| {
            a[l].wrapping_add(b[l])
        });
        check("i32 -", (va - vb).to_array(), ab, |l| {
            a[l].wrapping_sub(b[l])
        });
        check("i32 *", (va * vb).to_array(), ab, |l| {
            a[l].wrapping_mul(b[l])
        });
        // Documented: x / 0 = -1, x % 0 = x, i32::MIN / -1 = i32::MIN (and % gives 0).
        let div = |x: i32, y: i32| -> i32 {
            if y == 0 {
                -1
            } else if x == i32::MIN && y == -1 {
                i32::MIN
            } else {
                x / y
            }
        };
        let rem = |x: i32, y: i32| -> i32 {
            if y == 0 {
                x
            } else if y == -1 {
                0
            } else {
                x % y
            }
        };
        check("i32 /", (va / vb).to_array(), ab, |l| div(a[l], b[l]));
        check("i32 %", (va % vb).to_array(), ab, |l| rem(a[l], b[l]));
        check(
            "i32 neg",
            (-va).to_array(),
            |l| a[l],
            |l| 0i32.wrapping_sub(a[l]),
        );
        check(
            "i32 abs",
            va.abs().to_array(),
            |l| a[l],
            |l| {
                if a[l] < 0 {
                    0i32.wrapping_sub(a[l])
                } else {
                    a[l]
                }
            },
        );
        check("i32 min", va.min(vb).to_array(), ab, |l| {
            if a[l] < b[l] { a[l] } else { b[l] }
        });
        check("i32 max", va.max(vb).to_array(), ab, |l| {
            if a[l] > b[l] { a[l] } else { b[l] }
        });
        check("i32 &", (va & vb).to_array(), ab, |l| a[l] & b[l]);
        check("i32 |", (va | vb).to_array(), ab, |l| a[l] | b[l]);
        check("i32 ^", (va ^ vb).to_array(), ab, |l| a[l] ^ b[l]);
        check("i32 !", (!va).to_array(), |l| a[l], |l| -1 - a[l]);
        check(
            "i32 to_f32",
            va.to_f32().to_array(),
            |l| a[l],
            |l| a[l] as f32,
        );
        check(
            "i32 as_u32",
            va.as_u32().to_array(),
            |l| a[l],
            |l| a[l] as u32,
        );
        check_mask("i32 lt", va.lt(vb), ab, |l| a[l] < b[l]);
        check_mask("i32 le", va.le(vb), ab, |l| a[l] <= b[l]);
        check_mask("i32 gt", va.gt(vb), ab, |l| a[l] > b[l]);
        check_mask("i32 ge", va.ge(vb), ab, |l| a[l] >= b[l]);
        check_mask("i32 eq", va.eq(vb), ab, |l| a[l] == b[l]);
        check_mask("i32 ne", va.ne(vb), ab, |l| a[l] != b[l]);
    }
    let min = I32x32::splat(i32::MIN);
    assert_eq!((min / -1).lane(0), i32::MIN);
    assert_eq!((min % I32x32::splat(-1)).lane(0), 0);
    assert_eq!((I32x32::splat(7) / 0).lane(5), -1);
    assert_eq!((I32x32::splat(-7) % 0).lane(5), -7);
    assert_eq!(min.abs().lane(3), i32::MIN);
}

/// Reference shifts as PTX clamps them: left by ≥ width gives 0, logical right by ≥ width
/// gives 0, arithmetic right by ≥ width gives the sign.
fn shl32(x: u32, s: u32) -> u32 {
    if s >= 32 { 0 } else { x << s }
}
fn shr32(x: u32, s: u32) -> u32 {
    if s >= 32 { 0 } else { x >> s }
}
fn sar32(x: i32, s: u32) -> i32 {
    if s >= 32 {
        if x < 0 { -1 } else { 0 }
    } else {
        x >> s
    }
}

#[test]
fn shifts_clamp_amounts_of_32_and_more() {
    let mut r = rng(7);
    for _ in 0..ROUNDS {
        let (a, u, q) = (i32_lanes(&mut r), u32_lanes(&mut r), u64_lanes(&mut r));
        let amounts: [u32; WARP_SIZE] = std::array::from_fn(|_| match r.random_range(0..3) {
            0 => r.random_range(0..32),
            1 => r.random_range(32..80),
            _ => [0, 31, 32, 33, 63, 64, 65, u32::MAX][r.random_range(0..8)],
        });
        let (va, vu, vq, vs) = (
            I32x32::from_array(a),
            U32x32::from_array(u),
            U64x32::from_array(q),
            U32x32::from_array(amounts),
        );
        // Per-lane amounts.
        check(
            "i32 << v",
            (va << vs).to_array(),
            |l| (a[l], amounts[l]),
            |l| shl32(a[l] as u32, amounts[l]) as i32,
        );
        check(
            "i32 >> v",
            (va >> vs).to_array(),
            |l| (a[l], amounts[l]),
            |l| sar32(a[l], amounts[l]),
        );
        check(
            "u32 << v",
            (vu << vs).to_array(),
            |l| (u[l], amounts[l]),
            |l| shl32(u[l], amounts[l]),
        );
        check(
            "u32 >> v",
            (vu >> vs).to_array(),
            |l| (u[l], amounts[l]),
            |l| shr32(u[l], amounts[l]),
        );
        let shl64 = |x: u64, s: u32| if s >= 64 { 0 } else { x << s };
        let shr64 = |x: u64, s: u32| if s >= 64 { 0 } else { x >> s };
        check(
            "u64 << v",
            (vq << vs).to_array(),
            |l| (q[l], amounts[l]),
            |l| shl64(q[l], amounts[l]),
        );
        check(
            "u64 >> v",
            (vq >> vs).to_array(),
            |l| (q[l], amounts[l]),
            |l| shr64(q[l], amounts[l]),
        );
        // Uniform amounts.
        let s = amounts[0];
        check(
            "i32 << s",
            (va << s).to_array(),
            |l| (a[l], s),
            |l| shl32(a[l] as u32, s) as i32,
        );
        check(
            "i32 >> s",
            (va >> s).to_array(),
            |l| (a[l], s),
            |l| sar32(a[l], s),
        );
        check(
            "u32 << s",
            (vu << s).to_array(),
            |l| (u[l], s),
            |l| shl32(u[l], s),
        );
        check(
            "u32 >> s",
            (vu >> s).to_array(),
            |l| (u[l], s),
            |l| shr32(u[l], s),
        );
        check(
            "u64 << s",
            (vq << s).to_array(),
            |l| (q[l], s),
            |l| shl64(q[l], s),
        );
        check(
            "u64 >> s",
            (vq >> s).to_array(),
            |l| (q[l], s),
            |l| shr64(q[l], s),
        );
    }
    for s in [32, 33, 64, 100, u32::MAX] {
        assert_eq!((I32x32::splat(-5) >> s).lane(0), -1, "sar by {s}");
        assert_eq!((I32x32::splat(5) >> s).lane(0), 0, "sar by {s}");
        assert_eq!((U32x32::splat(u32::MAX) << s).lane(0), 0, "shl by {s}");
        assert_eq!((U32x32::splat(u32::MAX) >> s).lane(0), 0, "shr by {s}");
    }
    assert_eq!((U64x32::splat(1) << 63).lane(0), 1 << 63);
    assert_eq!((U64x32::splat(1) << 64).lane(0), 0);
}

// ----- u32 ------------------------------------------------------------------------------------

#[test]
fn u32_arithmetic_bits_and_intrinsics() {
    let mut r = rng(8);
    for _ in 0..ROUNDS {
        let (a, mut b) = (u32_lanes(&mut r), u32_lanes(&mut r));
        b[0] = 0;
        b[7] = 0;
        let (va, vb) = (U32x32::from_array(a), U32x32::from_array(b));
        let ab = |l: usize| (a[l], b[l]);
        check("u32 +", (va + vb).to_array(), ab, |l| {
            a[l].wrapping_add(b[l])
        });
        check("u32 -", (va - vb).to_array(), ab, |l| {
            a[l].wrapping_sub(b[l])
        });
        check("u32 *", (va * vb).to_array(), ab, |l| {
            a[l].wrapping_mul(b[l])
        });
        // Documented: x / 0 = u32::MAX, x % 0 = x.
        check("u32 /", (va / vb).to_array(), ab, |l| {
            a[l].checked_div(b[l]).unwrap_or(u32::MAX)
        });
        check("u32 %", (va % vb).to_array(), ab, |l| {
            if b[l] == 0 { a[l] } else { a[l] % b[l] }
        });
        check("u32 min", va.min(vb).to_array(), ab, |l| {
            if a[l] < b[l] { a[l] } else { b[l] }
        });
        check("u32 max", va.max(vb).to_array(), ab, |l| {
            if a[l] > b[l] { a[l] } else { b[l] }
        });
        check("u32 &", (va & vb).to_array(), ab, |l| a[l] & b[l]);
        check("u32 |", (va | vb).to_array(), ab, |l| a[l] | b[l]);
        check("u32 ^", (va ^ vb).to_array(), ab, |l| a[l] ^ b[l]);
        check("u32 !", (!va).to_array(), |l| a[l], |l| u32::MAX - a[l]);
        // Unsigned comparisons: values ≥ 2^31 are large, not negative.
        check_mask("u32 lt", va.lt(vb), ab, |l| a[l] < b[l]);
        check_mask("u32 le", va.le(vb), ab, |l| a[l] <= b[l]);
        check_mask("u32 gt", va.gt(vb), ab, |l| a[l] > b[l]);
        check_mask("u32 ge", va.ge(vb), ab, |l| a[l] >= b[l]);
        check_mask("u32 eq", va.eq(vb), ab, |l| a[l] == b[l]);
        check_mask("u32 ne", va.ne(vb), ab, |l| a[l] != b[l]);
        let popc = |x: u32| (0..32).filter(|i| x >> i & 1 == 1).count() as u32;
        let clz = |x: u32| (0..32).rev().take_while(|i| x >> i & 1 == 0).count() as u32;
        let ffs = |x: u32| (0..32).find(|i| x >> i & 1 == 1).map_or(0, |i| i + 1);
        let brev = |x: u32| (0..32).fold(0u32, |acc, i| acc | ((x >> i) & 1) << (31 - i));
        check("popc", va.popc().to_array(), |l| a[l], |l| popc(a[l]));
        check("clz", va.clz().to_array(), |l| a[l], |l| clz(a[l]));
        check("ffs", va.ffs().to_array(), |l| a[l], |l| ffs(a[l]));
        check("brev", va.brev().to_array(), |l| a[l], |l| brev(a[l]));
        check(
            "u32 to_f32",
            va.to_f32().to_array(),
            |l| a[l],
            |l| a[l] as f32,
        );
        check(
            "u32 to_u64",
            va.to_u64().to_array(),
            |l| a[l],
            |l| u64::from(a[l]),
        );
        check(
            "u32 as_i32",
            va.as_i32().to_array(),
            |l| a[l],
            |l| a[l] as i32,
        );
        let m = Mask(r.random::<u32>());
        check(
            "u32 select",
            U32x32::select(m, va, vb).to_array(),
            |l| (m, a[l], b[l]),
            |l| {
                if m.contains(l as u32) { a[l] } else { b[l] }
            },
        );
    }
    let v = U32x32::from_fn(|l| [0, 1, 0x8000_0000, u32::MAX][l % 4]);
    assert_eq!(&v.popc().to_array()[..4], [0, 1, 1, 32]);
    assert_eq!(&v.clz().to_array()[..4], [32, 31, 0, 0]);
    assert_eq!(&v.ffs().to_array()[..4], [0, 1, 32, 1]);
    assert_eq!(&v.brev().to_array()[..4], [0, 0x8000_0000, 1, u32::MAX]);
    assert_eq!(U32x32::iota().to_array(), std::array::from_fn(|l| l as u32));
    assert_eq!((U32x32::splat(5) / 0).lane(0), u32::MAX);
    assert_eq!((U32x32::splat(5) % 0).lane(0), 5);
}

// ----- u64 ------------------------------------------------------------------------------------

#[test]
fn u64_arithmetic_and_comparisons() {
    let mut r = rng(9);
    for _ in 0..ROUNDS {
        let (a, mut b) = (u64_lanes(&mut r), u64_lanes(&mut r));
        b[3] = 0;
        for l in (0..WARP_SIZE).step_by(5) {
            b[l + 1] = a[l + 1];
        }
        let (va, vb) = (U64x32::from_array(a), U64x32::from_array(b));
        let ab = |l: usize| (a[l], b[l]);
        check("u64 +", (va + vb).to_array(), ab, |l| {
            a[l].wrapping_add(b[l])
        });
        check("u64 -", (va - vb).to_array(), ab, |l| {
            a[l].wrapping_sub(b[l])
        });
        check("u64 *", (va * vb).to_array(), ab, |l| {
            a[l].wrapping_mul(b[l])
        });
        check("u64 /", (va / vb).to_array(), ab, |l| {
            a[l].checked_div(b[l]).unwrap_or(u64::MAX)
        });
        check("u64 %", (va % vb).to_array(), ab, |l| {
            if b[l] == 0 { a[l] } else { a[l] % b[l] }
        });
        check("u64 min", va.min(vb).to_array(), ab, |l| {
            if a[l] < b[l] { a[l] } else { b[l] }
        });
        check("u64 max", va.max(vb).to_array(), ab, |l| {
            if a[l] > b[l] { a[l] } else { b[l] }
        });
        check("u64 &", (va & vb).to_array(), ab, |l| a[l] & b[l]);
        check("u64 |", (va | vb).to_array(), ab, |l| a[l] | b[l]);
        check("u64 ^", (va ^ vb).to_array(), ab, |l| a[l] ^ b[l]);
        check("u64 !", (!va).to_array(), |l| a[l], |l| u64::MAX - a[l]);
        check_mask("u64 lt", va.lt(vb), ab, |l| a[l] < b[l]);
        check_mask("u64 le", va.le(vb), ab, |l| a[l] <= b[l]);
        check_mask("u64 gt", va.gt(vb), ab, |l| a[l] > b[l]);
        check_mask("u64 ge", va.ge(vb), ab, |l| a[l] >= b[l]);
        check_mask("u64 eq", va.eq(vb), ab, |l| a[l] == b[l]);
        check_mask("u64 ne", va.ne(vb), ab, |l| a[l] != b[l]);
        check(
            "u64 to_u32",
            va.to_u32().to_array(),
            |l| a[l],
            |l| (a[l] & 0xffff_ffff) as u32,
        );
    }
}

// ----- select, masks, generic lanes -----------------------------------------------------------

#[test]
fn select_takes_each_lane_from_the_mask() {
    let mut r = rng(10);
    for _ in 0..ROUNDS {
        let m = Mask(match r.random_range(0..3) {
            0 => 0,
            1 => u32::MAX,
            _ => r.random::<u32>(),
        });
        let (a, b) = (f32_lanes(&mut r), f32_lanes(&mut r));
        let got = F32x32::select(m, F32x32::from_array(a), F32x32::from_array(b)).to_array();
        check(
            "f32 select",
            got,
            |l| (m, a[l], b[l]),
            |l| if m.contains(l as u32) { a[l] } else { b[l] },
        );
        let (a, b) = (i32_lanes(&mut r), i32_lanes(&mut r));
        let got = I32x32::select(m, I32x32::from_array(a), I32x32::from_array(b)).to_array();
        check(
            "i32 select",
            got,
            |l| (m, a[l], b[l]),
            |l| if m.contains(l as u32) { a[l] } else { b[l] },
        );
        let (a, b) = (u64_lanes(&mut r), u64_lanes(&mut r));
        let got = U64x32::select(m, U64x32::from_array(a), U64x32::from_array(b)).to_array();
        check(
            "u64 select",
            got,
            |l| (m, a[l], b[l]),
            |l| if m.contains(l as u32) { a[l] } else { b[l] },
        );
    }
}

#[test]
fn mask_helpers_and_generic_lanes() {
    assert_eq!(Mask::first_n(0), Mask::NONE);
    assert_eq!(Mask::first_n(32), Mask::FULL);
    assert_eq!(Mask::first_n(7).bits(), 0x7f);
    assert_eq!(Mask::lane(31).bits(), 1 << 31);
    let m = Mask(0x8000_0102);
    assert_eq!(m.count(), 3);
    assert_eq!(m.first(), Some(1));
    assert_eq!(m.lanes().collect::<Vec<_>>(), [1, 8, 31]);
    assert!(m.contains(31) && !m.contains(0) && !m.contains(32));
    assert_eq!(Mask::NONE.first(), None);
    assert!(Mask::NONE.is_empty() && Mask::FULL.is_full());
    assert_eq!((!m).count(), 29);
    assert_eq!((m & Mask(0x102)).bits(), 0x102);
    assert_eq!((m | Mask(1)).bits(), 0x8000_0103);
    assert_eq!((m ^ Mask(2)).bits(), 0x8000_0100);
    // The generic interface every lane type shares.
    fn roundtrip<V: Lanes>(a: [V::Scalar; WARP_SIZE]) {
        let v = V::from_array(a);
        assert_eq!(v.to_array(), a);
        assert_eq!(v.lane(17), a[17]);
        let rev: [u8; WARP_SIZE] = std::array::from_fn(|i| 31 - i as u8);
        let p = v.permute(&rev).to_array();
        assert!((0..WARP_SIZE).all(|i| p[i] == a[31 - i]));
        assert_eq!(V::splat(a[3]).to_array(), [a[3]; WARP_SIZE]);
    }
    let mut r = rng(11);
    roundtrip::<U32x32>(u32_lanes(&mut r));
    roundtrip::<I32x32>(i32_lanes(&mut r));
    roundtrip::<U64x32>(u64_lanes(&mut r));
    roundtrip::<F64x32>(std::array::from_fn(|i| i as f64 - 0.5));
    roundtrip::<F32x32>(std::array::from_fn(|i| i as f32 * 1.5));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn prop_i32_div_rem_reconstruct(a in prop::array::uniform32(any::<i32>()), b in prop::array::uniform32(any::<i32>())) {
        let (va, vb) = (I32x32::from_array(a), I32x32::from_array(b));
        let (q, m) = ((va / vb).to_array(), (va % vb).to_array());
        for l in 0..WARP_SIZE {
            if b[l] != 0 {
                // Euclid's identity, wrapping: a = q*b + r with |r| < |b| and r of a's sign.
                prop_assert_eq!(q[l].wrapping_mul(b[l]).wrapping_add(m[l]), a[l]);
                prop_assert!(m[l] == 0 || (m[l] < 0) == (a[l] < 0));
            } else {
                prop_assert_eq!((q[l], m[l]), (-1, a[l]));
            }
        }
    }

    #[test]
    fn prop_u32_shift_pairs(a in prop::array::uniform32(any::<u32>()), s in prop::array::uniform32(0u32..40)) {
        let (va, vs) = (U32x32::from_array(a), U32x32::from_array(s));
        let left = (va << vs).to_array();
        let right = (va >> vs).to_array();
        for l in 0..WARP_SIZE {
            prop_assert_eq!(left[l], shl32(a[l], s[l]));
            prop_assert_eq!(right[l], shr32(a[l], s[l]));
        }
    }

    #[test]
    fn prop_f32_roundtrip_through_f64(a in prop::array::uniform32(any::<f32>())) {
        let back = F32x32::from_array(a).to_f64().to_f32().to_array();
        for l in 0..WARP_SIZE {
            prop_assert!(back[l].same(a[l]));
        }
    }
}
