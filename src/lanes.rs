//! Lane vectors and masks: the registers of one warp.
//!
//! A GPU warp executes one instruction for 32 threads ("lanes") at once. Here one warp's value of
//! a per-thread variable is a 32-lane vector ([`F32x32`], [`I32x32`], [`U32x32`], [`F64x32`],
//! [`U64x32`]) backed by `wide` SIMD registers, so one warp instruction is a handful of CPU
//! vector instructions. A [`Mask`] is a `u32` whose bit `i` is lane `i`: comparisons return masks.
//!
//! These are the building blocks of the block-wide values kernels compute with
//! ([`crate::values`]): a block-wide value holds one lane vector per warp, and every operation on
//! it applies the lane operation defined here to each warp. The semantics of an operation are
//! therefore fixed here, once. No operation may trap on any lane, because every lane computes,
//! active or not: integer arithmetic wraps, shifts by 32 or more give 0 (or the sign for
//! arithmetic right shifts, as PTX clamps them), and integer division by zero gives a fixed value
//! instead of a panic: `x / 0` is `u32::MAX` (unsigned) or `-1` (signed) and `x % 0` is `x`;
//! `i32::MIN / -1` wraps to `i32::MIN`.
//!
//! Nothing here counts instructions; counting happens at the block level.

use bytemuck::cast;
use std::fmt;
use std::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Shl, Shr, Sub, SubAssign,
};
use wide::{f32x16, f64x8, i32x16, u32x16, u64x8};

/// Threads in a warp: lanes of every vector and bits of every [`Mask`].
pub const WARP_SIZE: usize = 32;

/// A set of lanes: bit `i` is lane `i`.
///
/// Masks come from comparisons of lane vectors (`x.lt(y)`), from a block-wide predicate's
/// [`crate::Pred::warp`] and from the vote intrinsics; they combine with `&`, `|`, `^` and `!`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Mask(pub u32);

impl Mask {
    /// All 32 lanes.
    pub const FULL: Mask = Mask(u32::MAX);
    /// No lane.
    pub const NONE: Mask = Mask(0);

    /// The mask of lanes `0..n` (`n` clamped to 32).
    #[inline]
    pub fn first_n(n: u32) -> Mask {
        Mask(if n >= 32 { u32::MAX } else { (1u32 << n) - 1 })
    }

    /// The mask holding only `lane` (which must be below 32).
    #[inline]
    pub fn lane(lane: u32) -> Mask {
        Mask(1u32 << lane)
    }

    /// The raw bits.
    #[inline]
    pub fn bits(self) -> u32 {
        self.0
    }

    /// Number of lanes in the mask (`__popc`).
    #[inline]
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True if no lane is set.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if all 32 lanes are set.
    #[inline]
    pub fn is_full(self) -> bool {
        self.0 == u32::MAX
    }

    /// True if `lane` is set.
    #[inline]
    pub fn contains(self, lane: u32) -> bool {
        lane < 32 && self.0 & (1 << lane) != 0
    }

    /// The lowest set lane, if any.
    #[inline]
    pub fn first(self) -> Option<u32> {
        (self.0 != 0).then(|| self.0.trailing_zeros())
    }

    /// The set lanes, lowest first.
    #[inline]
    pub fn lanes(self) -> impl Iterator<Item = u32> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let lane = bits.trailing_zeros();
                bits &= bits - 1;
                lane
            })
        })
    }

    /// True if the set lanes form one contiguous run (or the mask is empty).
    #[inline]
    pub(crate) fn is_contiguous(self) -> bool {
        let b = self.0 >> self.0.trailing_zeros().min(31);
        b & b.wrapping_add(1) == 0
    }
}

impl fmt::Debug for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mask({:#010x})", self.0)
    }
}

impl BitAnd for Mask {
    type Output = Mask;
    #[inline]
    fn bitand(self, rhs: Mask) -> Mask {
        Mask(self.0 & rhs.0)
    }
}
impl BitOr for Mask {
    type Output = Mask;
    #[inline]
    fn bitor(self, rhs: Mask) -> Mask {
        Mask(self.0 | rhs.0)
    }
}
impl BitXor for Mask {
    type Output = Mask;
    #[inline]
    fn bitxor(self, rhs: Mask) -> Mask {
        Mask(self.0 ^ rhs.0)
    }
}
impl Not for Mask {
    type Output = Mask;
    #[inline]
    fn not(self) -> Mask {
        Mask(!self.0)
    }
}
impl BitAndAssign for Mask {
    #[inline]
    fn bitand_assign(&mut self, rhs: Mask) {
        self.0 &= rhs.0;
    }
}
impl BitOrAssign for Mask {
    #[inline]
    fn bitor_assign(&mut self, rhs: Mask) {
        self.0 |= rhs.0;
    }
}

/// What every 32-lane vector type offers generically (used by shuffles, memory and tests).
pub trait Lanes: Copy + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// The per-lane scalar.
    type Scalar: Copy + PartialEq + fmt::Debug + Default;
    /// Every lane set to `v`.
    fn splat(v: Self::Scalar) -> Self;
    /// The vector holding `a[i]` in lane `i`.
    fn from_array(a: [Self::Scalar; WARP_SIZE]) -> Self;
    /// The lanes as an array.
    fn to_array(self) -> [Self::Scalar; WARP_SIZE];
    /// Lane `i` (panics if `i >= 32`).
    #[inline]
    fn lane(self, i: usize) -> Self::Scalar {
        self.to_array()[i]
    }
    /// Lane `i` of the result is lane `src[i]` of `self` (every `src[i]` below 32).
    #[inline]
    fn permute(self, src: &[u8; WARP_SIZE]) -> Self {
        let a = self.to_array();
        Self::from_array(std::array::from_fn(|i| a[src[i] as usize & 31]))
    }
}

/// A 32-bit mask vector of one `wide` register from 16 bits of a [`Mask`].
#[inline]
fn mask16(bits: u32) -> u32x16 {
    const LANE_BIT: [u32; 16] = [
        1,
        1 << 1,
        1 << 2,
        1 << 3,
        1 << 4,
        1 << 5,
        1 << 6,
        1 << 7,
        1 << 8,
        1 << 9,
        1 << 10,
        1 << 11,
        1 << 12,
        1 << 13,
        1 << 14,
        1 << 15,
    ];
    (u32x16::splat(bits) & u32x16::new(LANE_BIT)).simd_ne(u32x16::ZERO)
}

/// A 64-bit mask vector of one `wide` register from 8 bits of a [`Mask`].
#[inline]
fn mask8(bits: u32) -> u64x8 {
    const LANE_BIT: [u64; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
    (u64x8::splat(bits as u64) & u64x8::new(LANE_BIT)).simd_ne(u64x8::ZERO)
}

/// Shared shape of the five lane types: storage, construction, merging, comparisons.
macro_rules! lane_type {
    ($(#[$doc:meta])* $name:ident, $scalar:ty, $simd:ty, $parts:literal, $per:literal,
     $mask_fn:ident, $bits:ty) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default)]
        #[repr(transparent)]
        pub struct $name([$simd; $parts]);

        impl $name {
            /// Every lane zero.
            pub const ZERO: $name = $name([<$simd>::ZERO; $parts]);

            /// Every lane set to `v` (a uniform value; costs no instruction).
            #[inline]
            pub fn splat(v: $scalar) -> Self {
                $name([<$simd>::splat(v); $parts])
            }

            /// The vector holding `a[i]` in lane `i`.
            #[inline]
            pub fn from_array(a: [$scalar; WARP_SIZE]) -> Self {
                $name(cast(a))
            }

            /// The lanes as an array.
            #[inline]
            pub fn to_array(self) -> [$scalar; WARP_SIZE] {
                cast(self.0)
            }

            /// The vector whose lane `i` is `f(i)`.
            #[inline]
            pub fn from_fn(f: impl FnMut(usize) -> $scalar) -> Self {
                Self::from_array(std::array::from_fn(f))
            }

            /// Lane `i` (panics if `i >= 32`).
            #[inline]
            pub fn lane(self, i: usize) -> $scalar {
                self.to_array()[i]
            }

            /// Lanes in `mask` from `a`, the others from `b` (`cond ? a : b`).
            #[inline]
            pub fn select(mask: Mask, a: Self, b: Self) -> Self {
                if mask.is_full() {
                    return a;
                }
                if mask.is_empty() {
                    return b;
                }
                $name(std::array::from_fn(|p| {
                    let m: $simd = cast($mask_fn((mask.0 >> (p * $per)) & ((1u64 << $per) - 1) as u32));
                    m.bitselect(a.0[p], b.0[p])
                }))
            }

            #[inline]
            fn cmp(self, rhs: Self, f: impl Fn($simd, $simd) -> $simd) -> Mask {
                let mut bits = 0u32;
                for p in 0..$parts {
                    bits |= (f(self.0[p], rhs.0[p]).to_bitmask() as u32) << (p * $per);
                }
                Mask(bits)
            }

            /// Lanes where `self < rhs`.
            #[inline]
            pub fn lt(self, rhs: impl Into<Self>) -> Mask {
                self.cmp(rhs.into(), |a, b| a.simd_lt(b))
            }
            /// Lanes where `self <= rhs`.
            #[inline]
            pub fn le(self, rhs: impl Into<Self>) -> Mask {
                self.cmp(rhs.into(), |a, b| a.simd_le(b))
            }
            /// Lanes where `self > rhs`.
            #[inline]
            pub fn gt(self, rhs: impl Into<Self>) -> Mask {
                self.cmp(rhs.into(), |a, b| a.simd_gt(b))
            }
            /// Lanes where `self >= rhs`.
            #[inline]
            pub fn ge(self, rhs: impl Into<Self>) -> Mask {
                self.cmp(rhs.into(), |a, b| a.simd_ge(b))
            }
            /// Lanes where `self == rhs`.
            #[inline]
            pub fn eq(self, rhs: impl Into<Self>) -> Mask {
                self.cmp(rhs.into(), |a, b| a.simd_eq(b))
            }
            /// Lanes where `self != rhs`.
            #[inline]
            pub fn ne(self, rhs: impl Into<Self>) -> Mask {
                self.cmp(rhs.into(), |a, b| a.simd_ne(b))
            }

            /// Lane-wise minimum.
            #[inline]
            pub fn min(self, rhs: impl Into<Self>) -> Self {
                self.zip(rhs.into(), |a, b| a.min(b))
            }
            /// Lane-wise maximum.
            #[inline]
            pub fn max(self, rhs: impl Into<Self>) -> Self {
                self.zip(rhs.into(), |a, b| a.max(b))
            }

            #[inline]
            fn zip(self, rhs: Self, f: impl Fn($simd, $simd) -> $simd) -> Self {
                $name(std::array::from_fn(|p| f(self.0[p], rhs.0[p])))
            }

            #[inline]
            fn map(self, f: impl Fn($simd) -> $simd) -> Self {
                $name(std::array::from_fn(|p| f(self.0[p])))
            }

            /// `f` applied to each lane (a per-lane fallback for what `wide` lacks).
            #[inline]
            pub fn map_each(self, f: impl Fn($scalar) -> $scalar) -> Self {
                Self::from_array(self.to_array().map(f))
            }

            /// `f` applied to each pair of lanes.
            #[inline]
            pub fn zip_each(self, rhs: Self, f: impl Fn($scalar, $scalar) -> $scalar) -> Self {
                let (a, b) = (self.to_array(), rhs.to_array());
                Self::from_array(std::array::from_fn(|i| f(a[i], b[i])))
            }

            /// The raw bits of every lane.
            #[inline]
            pub fn to_bits(self) -> [$bits; WARP_SIZE] {
                cast(self.0)
            }
        }

        impl From<$scalar> for $name {
            #[inline]
            fn from(v: $scalar) -> Self {
                Self::splat(v)
            }
        }

        impl PartialEq for $name {
            /// Bitwise equality of all 32 lanes (`NaN == NaN` when the bits match); for
            /// lane-wise comparison use [`Self::eq`](#method.eq).
            fn eq(&self, other: &Self) -> bool {
                self.to_bits() == other.to_bits()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.to_array()).finish()
            }
        }

        impl Lanes for $name {
            type Scalar = $scalar;
            #[inline]
            fn splat(v: $scalar) -> Self {
                $name::splat(v)
            }
            #[inline]
            fn from_array(a: [$scalar; WARP_SIZE]) -> Self {
                $name::from_array(a)
            }
            #[inline]
            fn to_array(self) -> [$scalar; WARP_SIZE] {
                $name::to_array(self)
            }
        }

        lane_binop!($name, $scalar, Add, add, AddAssign, add_assign, |a, b| a + b);
        lane_binop!($name, $scalar, Sub, sub, SubAssign, sub_assign, |a, b| a - b);
        lane_binop!($name, $scalar, Mul, mul, MulAssign, mul_assign, |a, b| a * b);
    };
}

/// `op` between two vectors, a vector and a scalar (either side), and the assigning form.
macro_rules! lane_binop {
    ($name:ident, $scalar:ty, $tr:ident, $f:ident, $tra:ident, $fa:ident, $body:expr) => {
        impl $tr for $name {
            type Output = $name;
            #[inline]
            fn $f(self, rhs: $name) -> $name {
                self.zip(rhs, $body)
            }
        }
        impl $tr<$scalar> for $name {
            type Output = $name;
            #[inline]
            fn $f(self, rhs: $scalar) -> $name {
                self.zip($name::splat(rhs), $body)
            }
        }
        impl $tr<$name> for $scalar {
            type Output = $name;
            #[inline]
            fn $f(self, rhs: $name) -> $name {
                $name::splat(self).zip(rhs, $body)
            }
        }
        impl $tra for $name {
            #[inline]
            fn $fa(&mut self, rhs: $name) {
                *self = $tr::$f(*self, rhs);
            }
        }
        impl $tra<$scalar> for $name {
            #[inline]
            fn $fa(&mut self, rhs: $scalar) {
                *self = $tr::$f(*self, rhs);
            }
        }
    };
}

/// Division and remainder through a per-lane rule (`wide` has no integer division, and
/// ours must not trap).
macro_rules! lane_divrem {
    ($name:ident, $scalar:ty, $div:expr, $rem:expr) => {
        impl Div for $name {
            type Output = $name;
            #[inline]
            fn div(self, rhs: $name) -> $name {
                self.zip_each(rhs, $div)
            }
        }
        impl Div<$scalar> for $name {
            type Output = $name;
            #[inline]
            fn div(self, rhs: $scalar) -> $name {
                self.zip_each($name::splat(rhs), $div)
            }
        }
        impl DivAssign for $name {
            #[inline]
            fn div_assign(&mut self, rhs: $name) {
                *self = *self / rhs;
            }
        }
        impl Rem for $name {
            type Output = $name;
            #[inline]
            fn rem(self, rhs: $name) -> $name {
                self.zip_each(rhs, $rem)
            }
        }
        impl Rem<$scalar> for $name {
            type Output = $name;
            #[inline]
            fn rem(self, rhs: $scalar) -> $name {
                self.zip_each($name::splat(rhs), $rem)
            }
        }
        impl RemAssign for $name {
            #[inline]
            fn rem_assign(&mut self, rhs: $name) {
                *self = *self % rhs;
            }
        }
    };
}

/// Bitwise operators and shifts of the integer lane types.
macro_rules! lane_bits {
    ($name:ident, $scalar:ty) => {
        lane_binop!(
            $name,
            $scalar,
            BitAnd,
            bitand,
            BitAndAssign,
            bitand_assign,
            |a, b| a & b
        );
        lane_binop!(
            $name,
            $scalar,
            BitOr,
            bitor,
            BitOrAssign,
            bitor_assign,
            |a, b| a | b
        );
        lane_binop!(
            $name,
            $scalar,
            BitXor,
            bitxor,
            BitXorAssign,
            bitxor_assign,
            |a, b| a ^ b
        );
        impl Not for $name {
            type Output = $name;
            #[inline]
            fn not(self) -> $name {
                self.map(|a| !a)
            }
        }
        impl Shl<u32> for $name {
            type Output = $name;
            /// Shift left; amounts of the bit width or more give 0 (PTX clamps).
            #[inline]
            fn shl(self, rhs: u32) -> $name {
                if rhs < <$scalar>::BITS {
                    self.map(|a| a << rhs)
                } else {
                    self.map(|_| Default::default())
                }
            }
        }
        impl Shr<u32> for $name {
            type Output = $name;
            /// Shift right (arithmetic for signed lanes); large amounts saturate as PTX clamps.
            #[inline]
            fn shr(self, rhs: u32) -> $name {
                if rhs < <$scalar>::BITS {
                    self.map(|a| a >> rhs)
                } else {
                    $name::from_array(self.to_array().map(|a| a.unbounded_shr(rhs)))
                }
            }
        }
        impl Shl<U32x32> for $name {
            type Output = $name;
            #[inline]
            fn shl(self, rhs: U32x32) -> $name {
                let (a, s) = (self.to_array(), rhs.to_array());
                $name::from_array(std::array::from_fn(|i| a[i].unbounded_shl(s[i])))
            }
        }
        impl Shr<U32x32> for $name {
            type Output = $name;
            #[inline]
            fn shr(self, rhs: U32x32) -> $name {
                let (a, s) = (self.to_array(), rhs.to_array());
                $name::from_array(std::array::from_fn(|i| a[i].unbounded_shr(s[i])))
            }
        }
    };
}

/// Float-only operations.
macro_rules! lane_float {
    ($name:ident, $scalar:ty) => {
        lane_divrem!($name, $scalar, |a, b| a / b, |a, b| a % b);
        impl Neg for $name {
            type Output = $name;
            #[inline]
            fn neg(self) -> $name {
                self.map(|a| -a)
            }
        }
        impl Div<$name> for $scalar {
            type Output = $name;
            #[inline]
            fn div(self, rhs: $name) -> $name {
                $name::splat(self).zip(rhs, |a, b| a / b)
            }
        }
        impl $name {
            /// Absolute value.
            #[inline]
            pub fn abs(self) -> Self {
                self.map(|a| a.abs())
            }
            /// Square root (NaN for negative lanes, like `sqrtf`).
            #[inline]
            pub fn sqrt(self) -> Self {
                self.map(|a| a.sqrt())
            }
            /// Fused multiply-add `self * a + b`, rounded once (`fmaf`).
            #[inline]
            pub fn mul_add(self, a: impl Into<Self>, b: impl Into<Self>) -> Self {
                let (a, b) = (a.into(), b.into());
                $name(std::array::from_fn(|p| self.0[p].mul_add(a.0[p], b.0[p])))
            }
            /// Round toward negative infinity.
            #[inline]
            pub fn floor(self) -> Self {
                self.map(|a| a.floor())
            }
            /// Lanes holding NaN.
            #[inline]
            pub fn is_nan(self) -> Mask {
                self.ne(self)
            }
        }
    };
}

lane_type!(
    /// 32 lanes of `f32` (two `wide::f32x16`).
    F32x32, f32, f32x16, 2, 16, mask16, u32
);
lane_type!(
    /// 32 lanes of `f64` (four `wide::f64x8`).
    F64x32, f64, f64x8, 4, 8, mask8, u64
);
lane_type!(
    /// 32 lanes of `i32` (two `wide::i32x16`); arithmetic wraps.
    I32x32, i32, i32x16, 2, 16, mask16, u32
);
lane_type!(
    /// 32 lanes of `u32` (two `wide::u32x16`); arithmetic wraps. Also the index type of
    /// memory accesses and shuffles.
    U32x32, u32, u32x16, 2, 16, mask16, u32
);
lane_type!(
    /// 32 lanes of `u64` (four `wide::u64x8`); arithmetic wraps.
    U64x32, u64, u64x8, 4, 8, mask8, u64
);

lane_float!(F32x32, f32);
lane_float!(F64x32, f64);
lane_bits!(I32x32, i32);
lane_bits!(U32x32, u32);
lane_bits!(U64x32, u64);
lane_divrem!(
    I32x32,
    i32,
    |a: i32, b: i32| if b == 0 { -1 } else { a.wrapping_div(b) },
    |a: i32, b: i32| if b == 0 { a } else { a.wrapping_rem(b) }
);
lane_divrem!(
    U32x32,
    u32,
    |a: u32, b: u32| a.checked_div(b).unwrap_or(u32::MAX),
    |a: u32, b: u32| a.checked_rem(b).unwrap_or(a)
);
lane_divrem!(
    U64x32,
    u64,
    |a: u64, b: u64| a.checked_div(b).unwrap_or(u64::MAX),
    |a: u64, b: u64| a.checked_rem(b).unwrap_or(a)
);

impl Neg for I32x32 {
    type Output = I32x32;
    #[inline]
    fn neg(self) -> I32x32 {
        self.map(|a| I32x32::ZERO.0[0] - a)
    }
}

impl I32x32 {
    /// Absolute value (wrapping: `abs(i32::MIN) == i32::MIN`, like `abs()` on a GPU).
    #[inline]
    pub fn abs(self) -> Self {
        self.map(|a| a.abs())
    }
    /// Reinterpret the bits as unsigned (no instruction).
    #[inline]
    pub fn as_u32(self) -> U32x32 {
        U32x32(cast(self.0))
    }
    /// Convert to `f32` (round to nearest).
    #[inline]
    pub fn to_f32(self) -> F32x32 {
        F32x32(self.0.map(|p| p.round_float()))
    }
}

impl U32x32 {
    /// `0, 1, …, 31`: each lane's own index.
    #[inline]
    pub fn iota() -> U32x32 {
        IOTA
    }
    /// Reinterpret the bits as signed (no instruction).
    #[inline]
    pub fn as_i32(self) -> I32x32 {
        I32x32(cast(self.0))
    }
    /// Convert to `f32` (round to nearest).
    #[inline]
    pub fn to_f32(self) -> F32x32 {
        let a = self.to_array();
        F32x32::from_array(a.map(|v| v as f32))
    }
    /// Widen to `u64`.
    #[inline]
    pub fn to_u64(self) -> U64x32 {
        U64x32::from_array(self.to_array().map(u64::from))
    }
    /// Set bits per lane (`__popc`).
    #[inline]
    pub fn popc(self) -> U32x32 {
        U32x32::from_array(self.to_array().map(u32::count_ones))
    }
    /// Leading zeros per lane (`__clz`; 32 for zero).
    #[inline]
    pub fn clz(self) -> U32x32 {
        U32x32::from_array(self.to_array().map(u32::leading_zeros))
    }
    /// Position of the lowest set bit plus one, 0 for zero (`__ffs`).
    #[inline]
    pub fn ffs(self) -> U32x32 {
        U32x32::from_array(
            self.to_array()
                .map(|v| if v == 0 { 0 } else { v.trailing_zeros() + 1 }),
        )
    }
    /// Bits reversed per lane (`__brev`).
    #[inline]
    pub fn brev(self) -> U32x32 {
        U32x32::from_array(self.to_array().map(u32::reverse_bits))
    }
}

impl U64x32 {
    /// Truncate to the low 32 bits.
    #[inline]
    pub fn to_u32(self) -> U32x32 {
        U32x32::from_array(self.to_array().map(|v| v as u32))
    }
}

impl F32x32 {
    /// Convert to `i32`, rounding toward zero; out-of-range lanes saturate and NaN gives 0
    /// (`__float2int_rz`).
    #[inline]
    pub fn to_i32(self) -> I32x32 {
        I32x32::from_array(self.to_array().map(|v| v as i32))
    }
    /// Convert to `u32`, rounding toward zero and saturating; NaN gives 0 (`__float2uint_rz`).
    #[inline]
    pub fn to_u32(self) -> U32x32 {
        U32x32::from_array(self.to_array().map(|v| v as u32))
    }
    /// Widen to `f64`.
    #[inline]
    pub fn to_f64(self) -> F64x32 {
        F64x32::from_array(self.to_array().map(f64::from))
    }
    /// Reinterpret the bits (`__float_as_uint`, no instruction).
    #[inline]
    pub fn as_u32(self) -> U32x32 {
        U32x32(cast(self.0))
    }
    /// Reinterpret bits as floats (`__uint_as_float`, no instruction).
    #[inline]
    pub fn from_bits(bits: U32x32) -> F32x32 {
        F32x32(cast(bits.0))
    }
}

impl F64x32 {
    /// Narrow to `f32` (round to nearest).
    #[inline]
    pub fn to_f32(self) -> F32x32 {
        F32x32::from_array(self.to_array().map(|v| v as f32))
    }
}

impl U32x32 {
    /// The lanes as a mutable array (for filling a row in place).
    #[inline(always)]
    pub(crate) fn words_mut(&mut self) -> &mut [u32; WARP_SIZE] {
        bytemuck::cast_mut(&mut self.0)
    }

    /// The lanes as an array, borrowed.
    #[inline(always)]
    pub(crate) fn words(&self) -> &[u32; WARP_SIZE] {
        bytemuck::cast_ref(&self.0)
    }
}

/// `0, 1, …, 31`: each lane's own index.
pub(crate) const IOTA: U32x32 = U32x32([
    u32x16::new([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
    u32x16::new([
        16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    ]),
]);

/// Raw conversions between a 64-bit lane vector and the two 32-bit rows that store it
/// (lanes 0–15 in the first row, 16–31 in the second, little-endian words).
macro_rules! rows64 {
    ($name:ident) => {
        impl $name {
            /// The vector stored in two rows.
            #[inline(always)]
            pub(crate) fn from_rows(r: [U32x32; 2]) -> $name {
                $name(cast([r[0].0, r[1].0]))
            }
            /// The two rows that store the vector.
            #[inline(always)]
            pub(crate) fn to_rows(self) -> [U32x32; 2] {
                let [a, b, c, d]: [u32x16; 4] = cast(self.0);
                [U32x32([a, b]), U32x32([c, d])]
            }
        }
    };
}
rows64!(U64x32);
rows64!(F64x32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_helpers() {
        assert_eq!(Mask::first_n(0), Mask::NONE);
        assert_eq!(Mask::first_n(5).bits(), 0b11111);
        assert_eq!(Mask::first_n(40), Mask::FULL);
        assert_eq!(Mask(0b1010_0100).lanes().collect::<Vec<_>>(), [2, 5, 7]);
        assert!(Mask(0b0111_0000).is_contiguous());
        assert!(!Mask(0b0101_0000).is_contiguous());
        assert!(Mask::FULL.is_contiguous());
        assert_eq!(Mask(0b1000).first(), Some(3));
    }

    #[test]
    fn select_takes_lanes_by_mask() {
        let a = F64x32::from_fn(|i| i as f64);
        let b = F64x32::splat(-1.0);
        let m = Mask(0x8000_0101);
        let r = F64x32::select(m, a, b).to_array();
        for (i, v) in r.iter().enumerate() {
            let want = if m.contains(i as u32) { i as f64 } else { -1.0 };
            assert_eq!(*v, want);
        }
    }
}
