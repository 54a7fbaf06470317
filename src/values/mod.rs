//! Block-wide values: the per-thread variables of a kernel.
//!
//! A kernel runs once per block, and every per-thread value it computes is a block-wide value:
//! one 32-lane vector per warp ([`crate::lanes`]). [`F32s`], [`I32s`], [`U32s`], [`F64s`] and
//! [`U64s`] are CUDA's `float`, `int`, `unsigned`, `double` and `unsigned long long` per thread;
//! [`Pred`] is a per-thread `bool` (one bit mask per warp). They are small `Copy` handles, so
//! kernels use them like numbers: `let sum = a + b * 2.0;`, `t.lt(n)`.
//!
//! An operation applies the lane operation of [`crate::lanes`] to every warp that has an active
//! lane, and counts as one warp instruction for each such warp when the launch counts (see
//! [`crate::metrics`]). Lanes that are not active compute too (nothing traps), but what they
//! compute is never observed: values leave a divergent construct only as its result, merged per
//! lane ([`Merge`]), and a value created inside a branch body cannot be used after it (the
//! attempt stops the launch with an error that says so).
//!
//! Thread indices and what is computed from them with `+`, `-` and multiplication by a uniform
//! value are kept as affine forms `a + b·warp + c·lane` that need no storage; an access at such
//! an index is known to be contiguous (or strided) without looking at its lanes. That is an
//! implementation detail with no effect on results or counters.
//!
//! Values exist only inside a kernel: using one on the host panics.

pub(crate) mod frame;

use crate::lanes::{F32x32, F64x32, I32x32, Mask, U32x32, U64x32, WARP_SIZE};
use crate::site::Site;
use frame::{Frame, MAX_WARPS, Masks, R32, R64, Slot};
use std::fmt;
use std::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Shl, Shr, Sub, SubAssign,
};

/// A per-thread `bool`: one bit per lane of every warp.
///
/// Comes from comparisons (`x.lt(y)`) and drives predication ([`crate::Block::if_`]); combine
/// with `&`, `|`, `^` and `!` (free: predicate logic is not counted as an instruction, as on a
/// GPU, where it folds into the comparisons).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Pred {
    pub(crate) bits: Masks,
}

impl Pred {
    /// True for every thread.
    pub const TRUE: Pred = Pred {
        bits: [u32::MAX; MAX_WARPS],
    };
    /// False for every thread.
    pub const FALSE: Pred = Pred {
        bits: [0; MAX_WARPS],
    };

    /// The same value for every thread.
    pub fn splat(v: bool) -> Pred {
        if v { Pred::TRUE } else { Pred::FALSE }
    }

    /// Warp `w`'s lanes as a [`Mask`].
    pub fn warp(&self, w: usize) -> Mask {
        Mask(self.bits.get(w).copied().unwrap_or(0))
    }

    pub(crate) fn from_masks(bits: Masks) -> Pred {
        Pred { bits }
    }
}

impl Default for Pred {
    fn default() -> Pred {
        Pred::FALSE
    }
}

impl fmt::Debug for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.bits.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        f.debug_list()
            .entries(self.bits[..n].iter().map(|b| Mask(*b)))
            .finish()
    }
}

impl BitAnd for Pred {
    type Output = Pred;
    #[inline]
    fn bitand(self, rhs: Pred) -> Pred {
        Pred {
            bits: std::array::from_fn(|w| self.bits[w] & rhs.bits[w]),
        }
    }
}
impl BitOr for Pred {
    type Output = Pred;
    #[inline]
    fn bitor(self, rhs: Pred) -> Pred {
        Pred {
            bits: std::array::from_fn(|w| self.bits[w] | rhs.bits[w]),
        }
    }
}
impl BitXor for Pred {
    type Output = Pred;
    #[inline]
    fn bitxor(self, rhs: Pred) -> Pred {
        Pred {
            bits: std::array::from_fn(|w| self.bits[w] ^ rhs.bits[w]),
        }
    }
}
impl Not for Pred {
    type Output = Pred;
    #[inline]
    fn not(self) -> Pred {
        Pred {
            bits: self.bits.map(|b| !b),
        }
    }
}
impl BitAndAssign for Pred {
    #[inline]
    fn bitand_assign(&mut self, rhs: Pred) {
        *self = *self & rhs;
    }
}
impl BitOrAssign for Pred {
    #[inline]
    fn bitor_assign(&mut self, rhs: Pred) {
        *self = *self | rhs;
    }
}

/// Values that leave a divergent construct: each lane is taken from the side it executed.
///
/// Implemented for every value type, [`Pred`], `()`, tuples of up to four and arrays of
/// mergeable values. Branch bodies ([`crate::Block::if_else`]) and loop bodies
/// ([`crate::Block::while_`]) return `Merge` values; that is the only way a value computed under
/// a mask reaches the code after the construct. Uniform Rust scalars deliberately do not
/// implement it: a value that may differ per thread must be a block-wide value.
pub trait Merge: Copy + Default {
    /// Lanes in `p` from `a`, the others from `b`, for the lanes executing now (the others are
    /// not observed and may come from either side).
    fn merge(p: &Pred, a: Self, b: Self) -> Self;

    /// Every frame slot the value holds, with its rows per warp (for the executor, which moves
    /// a construct's result down when it frees the construct's temporaries).
    #[doc(hidden)]
    fn visit_slots(&mut self, f: &mut dyn FnMut(&mut SlotRef<'_>));
}

/// A value's slot, as [`Merge::visit_slots`] shows it to the executor.
#[doc(hidden)]
pub struct SlotRef<'a> {
    pub(crate) slot: &'a mut Slot,
    pub(crate) per_warp: usize,
}

impl Merge for () {
    fn merge(_: &Pred, _: (), _: ()) {}
    fn visit_slots(&mut self, _: &mut dyn FnMut(&mut SlotRef<'_>)) {}
}

impl Merge for Pred {
    #[inline]
    fn merge(p: &Pred, a: Pred, b: Pred) -> Pred {
        Pred {
            bits: std::array::from_fn(|w| (a.bits[w] & p.bits[w]) | (b.bits[w] & !p.bits[w])),
        }
    }
    fn visit_slots(&mut self, _: &mut dyn FnMut(&mut SlotRef<'_>)) {}
}

macro_rules! merge_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Merge),+> Merge for ($($t,)+) {
            #[inline]
            fn merge(p: &Pred, a: Self, b: Self) -> Self {
                ($($t::merge(p, a.$i, b.$i),)+)
            }
            fn visit_slots(&mut self, f: &mut dyn FnMut(&mut SlotRef<'_>)) {
                $(self.$i.visit_slots(f);)+
            }
        }
    };
}
merge_tuple!(A 0);
merge_tuple!(A 0, B 1);
merge_tuple!(A 0, B 1, C 2);
merge_tuple!(A 0, B 1, C 2, D 3);

impl<T: Merge, const N: usize> Merge for [T; N]
where
    [T; N]: Default,
{
    #[inline]
    fn merge(p: &Pred, a: Self, b: Self) -> Self {
        std::array::from_fn(|i| T::merge(p, a[i], b[i]))
    }
    fn visit_slots(&mut self, f: &mut dyn FnMut(&mut SlotRef<'_>)) {
        for v in self.iter_mut() {
            v.visit_slots(f);
        }
    }
}

/// Move the slots of `r` that lie above `mark` down to `mark`, freeing everything else above
/// it (the end of a divergent construct whose result is `r`).
pub(crate) fn compact<R: Merge>(fr: &mut Frame, mark: usize, r: &mut R) {
    let found = &mut fr.found;
    r.visit_slots(&mut |s: &mut SlotRef<'_>| found.push((*s.slot, s.per_warp)));
    fr.compact_found(mark);
    if !fr.moves.is_empty() {
        let moves = &fr.moves;
        r.visit_slots(&mut |s: &mut SlotRef<'_>| {
            if let Some((_, to)) = moves.iter().find(|(from, _)| from == s.slot) {
                *s.slot = *to;
            }
        });
    }
}

/// Whether `p` holds every executing lane (`Some(true)`), none (`Some(false)`) or some.
fn covers(fr: &Frame, p: &Pred) -> Option<bool> {
    let (mut all, mut none) = (true, true);
    for w in 0..fr.warps {
        let a = fr.active[w];
        all &= p.bits[w] & a == a;
        none &= p.bits[w] & a == 0;
    }
    if all {
        Some(true)
    } else if none {
        Some(false)
    } else {
        None
    }
}

// ----- lane types as rows ------------------------------------------------------------------------

/// A 32-bit lane vector stored as one row.
pub(crate) trait Row32: Copy {
    fn from_row(r: U32x32) -> Self;
    fn to_row(self) -> U32x32;
}
impl Row32 for U32x32 {
    #[inline(always)]
    fn from_row(r: U32x32) -> Self {
        r
    }
    #[inline(always)]
    fn to_row(self) -> U32x32 {
        self
    }
}
impl Row32 for I32x32 {
    #[inline(always)]
    fn from_row(r: U32x32) -> Self {
        r.as_i32()
    }
    #[inline(always)]
    fn to_row(self) -> U32x32 {
        self.as_u32()
    }
}
impl Row32 for F32x32 {
    #[inline(always)]
    fn from_row(r: U32x32) -> Self {
        F32x32::from_bits(r)
    }
    #[inline(always)]
    fn to_row(self) -> U32x32 {
        self.as_u32()
    }
}

/// A 64-bit lane vector stored as two rows.
pub(crate) trait Row64: Copy {
    fn from_u64(r: U64x32) -> Self;
    fn to_u64(self) -> U64x32;
}
impl Row64 for U64x32 {
    #[inline(always)]
    fn from_u64(r: U64x32) -> Self {
        r
    }
    #[inline(always)]
    fn to_u64(self) -> U64x32 {
        self
    }
}
impl Row64 for F64x32 {
    #[inline(always)]
    fn from_u64(r: U64x32) -> Self {
        F64x32::from_rows(r.to_rows())
    }
    #[inline(always)]
    fn to_u64(self) -> U64x32 {
        U64x32::from_rows(self.to_rows())
    }
}

// ----- operation drivers -------------------------------------------------------------------------

/// Warp `w`'s lanes of an operand, resolved once per operation so the per-warp loop neither
/// matches on the operand's form nor checks bounds.
pub(crate) trait Lanes32: Copy {
    fn at(&self, w: usize) -> U32x32;
}

/// An operand stored in rows (the slot's rows, one per warp).
#[derive(Clone, Copy)]
pub(crate) struct RowsOf<'r>(pub &'r [U32x32]);

impl Lanes32 for RowsOf<'_> {
    #[inline(always)]
    fn at(&self, w: usize) -> U32x32 {
        self.0[w]
    }
}

/// An affine operand: `c·lane + (a + b·w)`, with `c·lane` precomputed.
#[derive(Clone, Copy)]
pub(crate) struct AffOf {
    a: u32,
    b: u32,
    lanes: U32x32,
}

impl AffOf {
    #[inline(always)]
    pub(crate) fn new(a: u32, b: u32, c: u32) -> AffOf {
        AffOf {
            a,
            b,
            lanes: frame::lane_steps(c),
        }
    }
}

impl Lanes32 for AffOf {
    #[inline(always)]
    fn at(&self, w: usize) -> U32x32 {
        self.lanes + self.a.wrapping_add(self.b.wrapping_mul(w as u32))
    }
}

/// Bind `$g` to the resolved form of 32-bit source `$src` over `$rows` (`$n` warps) and
/// evaluate `$body` (once per form, monomorphised).
macro_rules! with32 {
    ($rows:expr, $n:expr, $src:expr, |$g:ident| $body:expr) => {
        match $src {
            $crate::values::frame::Src32::Rows(r) => {
                let $g = $crate::values::RowsOf(&$rows[r..r + $n]);
                $body
            }
            $crate::values::frame::Src32::Aff { a, b, c } => {
                let $g = $crate::values::AffOf::new(a, b, c);
                $body
            }
        }
    };
}
pub(crate) use with32;

/// `out[w] = f(w)` for each warp with an active lane (every warp, without a test per warp,
/// when all have one).
#[inline(always)]
pub(crate) fn each_warp(
    out: &mut [U32x32],
    active: &Masks,
    all: bool,
    f: impl Fn(usize) -> U32x32,
) {
    if all {
        for (w, o) in out.iter_mut().enumerate() {
            *o = f(w);
        }
    } else {
        for (w, o) in out.iter_mut().enumerate() {
            if active[w] != 0 {
                *o = f(w);
            }
        }
    }
}

/// `f` on each active warp of `a` into a new 32-bit value (uniform in, uniform out).
#[inline(always)]
pub(crate) fn un32<A: Row32, O: Row32>(site: Site, a: R32, f: impl Fn(A) -> O) -> R32 {
    if let Some(u) = a.as_uniform() {
        frame::tally_light(site);
        return R32::uniform(f(A::from_row(U32x32::splat(u))).to_row().lane(0));
    }
    frame::with(|fr| {
        fr.tally(site);
        un32_in(fr, a, f)
    })
}

/// [`un32`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn un32_in<A: Row32, O: Row32>(fr: &mut Frame, a: R32, f: impl Fn(A) -> O) -> R32 {
    if let Some(u) = a.as_uniform() {
        return R32::uniform(f(A::from_row(U32x32::splat(u))).to_row().lane(0));
    }
    let sa = fr.src32(a);
    let dst = fr.alloc(1);
    let (n, all) = (fr.warps, fr.all_active());
    let Frame { rows, active, .. } = fr;
    let (lo, hi) = rows.split_at_mut(dst.row as usize);
    let out = &mut hi[..n];
    with32!(lo, n, sa, |ga| each_warp(out, active, all, |w| f(
        A::from_row(ga.at(w))
    )
    .to_row()));
    R32::Slot(dst)
}

/// `f` on each active warp of `a` and `b` into a new 32-bit value.
#[inline(always)]
pub(crate) fn bin32<A: Row32, B: Row32, O: Row32>(
    site: Site,
    a: R32,
    b: R32,
    f: impl Fn(A, B) -> O,
) -> R32 {
    if let (Some(x), Some(y)) = (a.as_uniform(), b.as_uniform()) {
        frame::tally_light(site);
        let r = f(A::from_row(U32x32::splat(x)), B::from_row(U32x32::splat(y)));
        return R32::uniform(r.to_row().lane(0));
    }
    frame::with(|fr| {
        fr.tally(site);
        bin32_in(fr, a, b, f)
    })
}

/// [`bin32`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn bin32_in<A: Row32, B: Row32, O: Row32>(
    fr: &mut Frame,
    a: R32,
    b: R32,
    f: impl Fn(A, B) -> O,
) -> R32 {
    if let (Some(x), Some(y)) = (a.as_uniform(), b.as_uniform()) {
        let r = f(A::from_row(U32x32::splat(x)), B::from_row(U32x32::splat(y)));
        return R32::uniform(r.to_row().lane(0));
    }
    let (sa, sb) = (fr.src32(a), fr.src32(b));
    let dst = fr.alloc(1);
    let (n, all) = (fr.warps, fr.all_active());
    let Frame { rows, active, .. } = fr;
    let (lo, hi) = rows.split_at_mut(dst.row as usize);
    let out = &mut hi[..n];
    with32!(lo, n, sa, |ga| with32!(lo, n, sb, |gb| each_warp(
        out,
        active,
        all,
        |w| { f(A::from_row(ga.at(w)), B::from_row(gb.at(w))).to_row() }
    )));
    R32::Slot(dst)
}

/// `f` on each active warp of `a`, `b` and `c` into a new 32-bit value.
#[inline(always)]
pub(crate) fn tri32<A: Row32, O: Row32>(
    site: Site,
    a: R32,
    b: R32,
    c: R32,
    f: impl Fn(A, A, A) -> O,
) -> R32 {
    frame::with(|fr| {
        fr.tally(site);
        if let (Some(x), Some(y), Some(z)) = (a.as_uniform(), b.as_uniform(), c.as_uniform()) {
            let s = |v| A::from_row(U32x32::splat(v));
            return R32::uniform(f(s(x), s(y), s(z)).to_row().lane(0));
        }
        let (sa, sb, sc) = (fr.src32(a), fr.src32(b), fr.src32(c));
        let dst = fr.alloc(1);
        let (n, all) = (fr.warps, fr.all_active());
        let Frame { rows, active, .. } = fr;
        let (lo, hi) = rows.split_at_mut(dst.row as usize);
        let g = |s: &frame::Src32, w: usize| A::from_row(s.get(lo, w));
        each_warp(&mut hi[..n], active, all, |w| {
            f(g(&sa, w), g(&sb, w), g(&sc, w)).to_row()
        });
        R32::Slot(dst)
    })
}

/// `f` on each active warp of a 64-bit `a` into a new 64-bit value.
#[inline(always)]
pub(crate) fn un64<A: Row64, O: Row64>(site: Site, a: R64, f: impl Fn(A) -> O) -> R64 {
    frame::with(|fr| {
        fr.tally(site);
        un64_in(fr, a, f)
    })
}

/// [`un64`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn un64_in<A: Row64, O: Row64>(fr: &mut Frame, a: R64, f: impl Fn(A) -> O) -> R64 {
    {
        if let Some(u) = a.as_uniform() {
            return R64::uniform(f(A::from_u64(U64x32::splat(u))).to_u64().lane(0));
        }
        let sa = fr.src64(a);
        let dst = fr.alloc(2);
        let Frame {
            rows,
            active,
            warps,
            ..
        } = fr;
        let (lo, hi) = rows.split_at_mut(dst.row as usize);
        for w in 0..*warps {
            if active[w] != 0 {
                let [x, y] = f(A::from_u64(sa.get(lo, w))).to_u64().to_rows();
                hi[2 * w] = x;
                hi[2 * w + 1] = y;
            }
        }
        R64::Slot(dst)
    }
}

/// `f` on each active warp of 64-bit `a` and `b` into a new 64-bit value.
#[inline(always)]
pub(crate) fn bin64<A: Row64, O: Row64>(site: Site, a: R64, b: R64, f: impl Fn(A, A) -> O) -> R64 {
    frame::with(|fr| {
        fr.tally(site);
        bin64_in(fr, a, b, f)
    })
}

/// [`bin64`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn bin64_in<A: Row64, O: Row64>(
    fr: &mut Frame,
    a: R64,
    b: R64,
    f: impl Fn(A, A) -> O,
) -> R64 {
    {
        if let (Some(x), Some(y)) = (a.as_uniform(), b.as_uniform()) {
            let r = f(A::from_u64(U64x32::splat(x)), A::from_u64(U64x32::splat(y)));
            return R64::uniform(r.to_u64().lane(0));
        }
        let (sa, sb) = (fr.src64(a), fr.src64(b));
        let dst = fr.alloc(2);
        let Frame {
            rows,
            active,
            warps,
            ..
        } = fr;
        let (lo, hi) = rows.split_at_mut(dst.row as usize);
        for w in 0..*warps {
            if active[w] != 0 {
                let v = f(A::from_u64(sa.get(lo, w)), A::from_u64(sb.get(lo, w)));
                let [x, y] = v.to_u64().to_rows();
                hi[2 * w] = x;
                hi[2 * w + 1] = y;
            }
        }
        R64::Slot(dst)
    }
}

/// A 32-bit value widened (or converted) to a 64-bit one by `f`.
#[inline(always)]
pub(crate) fn widen<A: Row32, O: Row64>(site: Site, a: R32, f: impl Fn(A) -> O) -> R64 {
    frame::with(|fr| {
        fr.tally(site);
        widen_in(fr, a, f)
    })
}

/// [`widen`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn widen_in<A: Row32, O: Row64>(fr: &mut Frame, a: R32, f: impl Fn(A) -> O) -> R64 {
    {
        if let Some(u) = a.as_uniform() {
            return R64::uniform(f(A::from_row(U32x32::splat(u))).to_u64().lane(0));
        }
        let sa = fr.src32(a);
        let dst = fr.alloc(2);
        let Frame {
            rows,
            active,
            warps,
            ..
        } = fr;
        let (lo, hi) = rows.split_at_mut(dst.row as usize);
        for w in 0..*warps {
            if active[w] != 0 {
                let [x, y] = f(A::from_row(sa.get(lo, w))).to_u64().to_rows();
                hi[2 * w] = x;
                hi[2 * w + 1] = y;
            }
        }
        R64::Slot(dst)
    }
}

/// A 64-bit value narrowed (or converted) to a 32-bit one by `f`.
#[inline(always)]
pub(crate) fn narrow<A: Row64, O: Row32>(site: Site, a: R64, f: impl Fn(A) -> O) -> R32 {
    frame::with(|fr| {
        fr.tally(site);
        narrow_in(fr, a, f)
    })
}

/// [`narrow`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn narrow_in<A: Row64, O: Row32>(fr: &mut Frame, a: R64, f: impl Fn(A) -> O) -> R32 {
    {
        if let Some(u) = a.as_uniform() {
            return R32::uniform(f(A::from_u64(U64x32::splat(u))).to_row().lane(0));
        }
        let sa = fr.src64(a);
        let dst = fr.alloc(1);
        let Frame {
            rows,
            active,
            warps,
            ..
        } = fr;
        let (lo, hi) = rows.split_at_mut(dst.row as usize);
        for w in 0..*warps {
            if active[w] != 0 {
                hi[w] = f(A::from_u64(sa.get(lo, w))).to_row();
            }
        }
        R32::Slot(dst)
    }
}

/// A comparison, for the arithmetic fast path of affine operands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// How the lanes `base + l` (`l` in `0..32`, no wrap) compare with `n`: the mask, computed
/// without looking at the lanes.
#[inline(always)]
fn affine_mask(op: Cmp, base: u32, n: u32) -> u32 {
    // Lanes below `n`: `n - base` of them, clamped to 0..=32.
    let below = |n: u32| Mask::first_n(n.saturating_sub(base)).0;
    let at = if n >= base && n - base < 32 {
        1 << (n - base)
    } else {
        0
    };
    match op {
        Cmp::Lt => below(n),
        Cmp::Ge => !below(n),
        Cmp::Le => below(n) | at,
        Cmp::Gt => !(below(n) | at),
        Cmp::Eq => at,
        Cmp::Ne => !at,
    }
}

/// The lanes of each active warp where `f(a, b)` holds. `op` names `f` for the fast path of
/// integer types (`signed`: `Some(false)` unsigned, `Some(true)` signed, taken only where every
/// value involved is non-negative; `None` for floats, which have no fast path).
#[inline(always)]
pub(crate) fn cmp32<A: Row32>(
    site: Site,
    a: R32,
    b: R32,
    op: Cmp,
    signed: Option<bool>,
    f: impl Fn(A, A) -> Mask,
) -> Pred {
    if let Some(signed) = signed
        && let Some(p) = cmp32_affine(a, b, op, signed, usize::from(frame::hot().warps))
    {
        frame::tally_light(site);
        return p;
    }
    frame::with(|fr| {
        fr.tally(site);
        cmp32_in(fr, a, b, f)
    })
}

/// `a op b` for lanes `base + l` against a uniform `n`, computed without looking at lanes
/// (every warp's bits: those of inactive warps are never used); `None` unless `a` has that form
/// and no lane's value wraps (for `signed`, stays below `i32::MAX`).
#[inline(always)]
pub(crate) fn cmp32_affine(a: R32, b: R32, op: Cmp, signed: bool, warps: usize) -> Option<Pred> {
    let (R32::Aff { a: x, b: y, c: 1 }, Some(n)) = (a, b.as_uniform()) else {
        return None;
    };
    let top = x as u64 + y as u64 * (warps.max(1) as u64 - 1) + 31;
    let fits = if signed {
        top <= i32::MAX as u64 && n <= i32::MAX as u32
    } else {
        top <= u32::MAX as u64
    };
    if !fits {
        return None;
    }
    let mut bits = [0; MAX_WARPS];
    for (w, b) in bits.iter_mut().enumerate().take(warps) {
        *b = affine_mask(op, x + y * w as u32, n);
    }
    Some(Pred { bits })
}

/// [`cmp32`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn cmp32_in<A: Row32>(fr: &Frame, a: R32, b: R32, f: impl Fn(A, A) -> Mask) -> Pred {
    let mut bits = [0; MAX_WARPS];
    if let (Some(x), Some(y)) = (a.as_uniform(), b.as_uniform()) {
        let m = if f(A::from_row(U32x32::splat(x)), A::from_row(U32x32::splat(y))).0 & 1 != 0 {
            u32::MAX
        } else {
            0
        };
        for (b, a) in bits.iter_mut().zip(&fr.active[..fr.warps]) {
            *b = m & a;
        }
        return Pred { bits };
    }
    let (sa, sb, n) = (fr.src32(a), fr.src32(b), fr.warps);
    let rows = &fr.rows;
    with32!(rows, n, sa, |ga| with32!(rows, n, sb, |gb| {
        for (w, b) in bits.iter_mut().enumerate().take(n) {
            if fr.active[w] != 0 {
                *b = f(A::from_row(ga.at(w)), A::from_row(gb.at(w))).0;
            }
        }
    }));
    Pred { bits }
}

/// The lanes of each active warp where `f(a, b)` holds, for 64-bit operands.
#[inline(always)]
pub(crate) fn cmp64<A: Row64>(
    site: Site,
    a: R64,
    b: R64,
    _op: Cmp,
    _signed: Option<bool>,
    f: impl Fn(A, A) -> Mask,
) -> Pred {
    frame::with(|fr| {
        fr.tally(site);
        cmp64_in(fr, a, b, f)
    })
}

/// [`cmp64`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn cmp64_in<A: Row64>(fr: &Frame, a: R64, b: R64, f: impl Fn(A, A) -> Mask) -> Pred {
    let (sa, sb) = (fr.src64(a), fr.src64(b));
    let mut bits = [0; MAX_WARPS];
    for (w, b) in bits.iter_mut().enumerate().take(fr.warps) {
        if fr.active[w] != 0 {
            *b = f(
                A::from_u64(sa.get(&fr.rows, w)),
                A::from_u64(sb.get(&fr.rows, w)),
            )
            .0;
        }
    }
    Pred { bits }
}

/// Lanes in `p` from `a`, the others from `b`, for the executing warps (a new value unless one
/// side covers every executing lane).
#[inline]
pub(crate) fn select32(fr: &mut Frame, p: &Pred, a: R32, b: R32) -> R32 {
    if a == b {
        return a;
    }
    match covers(fr, p) {
        Some(true) => return a,
        Some(false) => return b,
        None => {}
    }
    let (sa, sb) = (fr.src32(a), fr.src32(b));
    let dst = fr.alloc(1);
    let (n, all) = (fr.warps, fr.all_active());
    let Frame { rows, active, .. } = fr;
    let (lo, hi) = rows.split_at_mut(dst.row as usize);
    let out = &mut hi[..n];
    with32!(lo, n, sa, |ga| with32!(lo, n, sb, |gb| each_warp(
        out,
        active,
        all,
        |w| { U32x32::select(Mask(p.bits[w]), ga.at(w), gb.at(w)) }
    )));
    R32::Slot(dst)
}

/// [`select32`] for 64-bit values.
#[inline]
pub(crate) fn select64(fr: &mut Frame, p: &Pred, a: R64, b: R64) -> R64 {
    if a == b {
        return a;
    }
    match covers(fr, p) {
        Some(true) => return a,
        Some(false) => return b,
        None => {}
    }
    let (sa, sb) = (fr.src64(a), fr.src64(b));
    let dst = fr.alloc(2);
    let Frame {
        rows,
        active,
        warps,
        ..
    } = fr;
    let (lo, hi) = rows.split_at_mut(dst.row as usize);
    for w in 0..*warps {
        if active[w] != 0 {
            let v = U64x32::select(Mask(p.bits[w]), sa.get(lo, w), sb.get(lo, w));
            let [x, y] = v.to_rows();
            hi[2 * w] = x;
            hi[2 * w + 1] = y;
        }
    }
    R64::Slot(dst)
}

/// Every thread's lanes of a 32-bit value, in linear thread order (threads of the block only).
pub(crate) fn lanes32(v: R32) -> Vec<u32> {
    frame::with(|fr| {
        let s = fr.src32(v);
        let mut out = Vec::new();
        for w in 0..fr.warps {
            let lanes = s.get(&fr.rows, w).to_array();
            out.extend(
                (0..WARP_SIZE)
                    .filter(|&l| fr.exists[w] >> l & 1 != 0)
                    .map(|l| lanes[l]),
            );
        }
        out
    })
}

/// Every thread's lanes of a 64-bit value, in linear thread order.
pub(crate) fn lanes64(v: R64) -> Vec<u64> {
    frame::with(|fr| {
        let s = fr.src64(v);
        let mut out = Vec::new();
        for w in 0..fr.warps {
            let lanes = s.get(&fr.rows, w).to_array();
            out.extend(
                (0..WARP_SIZE)
                    .filter(|&l| fr.exists[w] >> l & 1 != 0)
                    .map(|l| lanes[l]),
            );
        }
        out
    })
}

// ----- affine rules ------------------------------------------------------------------------------

/// `a + b` of two affine forms.
#[inline(always)]
pub(crate) fn aff_add32(a: R32, b: R32) -> Option<R32> {
    match (a, b) {
        (R32::Aff { a: x, b: y, c: z }, R32::Aff { a: p, b: q, c: r }) => Some(R32::Aff {
            a: x.wrapping_add(p),
            b: y.wrapping_add(q),
            c: z.wrapping_add(r),
        }),
        _ => None,
    }
}

#[inline(always)]
pub(crate) fn aff_sub32(a: R32, b: R32) -> Option<R32> {
    match (a, b) {
        (R32::Aff { a: x, b: y, c: z }, R32::Aff { a: p, b: q, c: r }) => Some(R32::Aff {
            a: x.wrapping_sub(p),
            b: y.wrapping_sub(q),
            c: z.wrapping_sub(r),
        }),
        _ => None,
    }
}

#[inline(always)]
fn aff_scale32(v: R32, k: u32) -> Option<R32> {
    match v {
        R32::Aff { a, b, c } => Some(R32::Aff {
            a: a.wrapping_mul(k),
            b: b.wrapping_mul(k),
            c: c.wrapping_mul(k),
        }),
        R32::Slot(_) => None,
    }
}

#[inline(always)]
pub(crate) fn aff_mul32(a: R32, b: R32) -> Option<R32> {
    match (a.as_uniform(), b.as_uniform()) {
        (_, Some(k)) => aff_scale32(a, k),
        (Some(k), _) => aff_scale32(b, k),
        _ => None,
    }
}

/// A 32-bit affine value widened to 64 bits (sign-extended when `signed`), still affine when
/// no lane of the block's `warps` warps wraps: the strides are read as signed, so `n - 1 - i`
/// stays affine too.
pub(crate) fn aff_widen32(v: R32, signed: bool, warps: usize) -> Option<R64> {
    let R32::Aff { a, b, c } = v else { return None };
    let base = if signed {
        i64::from(a as i32)
    } else {
        i64::from(a)
    };
    let (b, c) = (i64::from(b as i32), i64::from(c as i32));
    let ends = |s: i64, n: i64| if s < 0 { (s * n, 0) } else { (0, s * n) };
    let (bl, bh) = ends(b, warps.max(1) as i64 - 1);
    let (cl, ch) = ends(c, 31);
    let (lo, hi) = (base + bl + cl, base + bh + ch);
    let range = if signed {
        i64::from(i32::MIN)..=i64::from(i32::MAX)
    } else {
        0..=i64::from(u32::MAX)
    };
    (range.contains(&lo) && range.contains(&hi)).then_some(R64::Aff {
        a: base as u64,
        b: b as u64,
        c: c as u64,
    })
}

#[inline(always)]
pub(crate) fn aff_add64(a: R64, b: R64) -> Option<R64> {
    match (a, b) {
        (R64::Aff { a: x, b: y, c: z }, R64::Aff { a: p, b: q, c: r }) => Some(R64::Aff {
            a: x.wrapping_add(p),
            b: y.wrapping_add(q),
            c: z.wrapping_add(r),
        }),
        _ => None,
    }
}

#[inline(always)]
pub(crate) fn aff_sub64(a: R64, b: R64) -> Option<R64> {
    match (a, b) {
        (R64::Aff { a: x, b: y, c: z }, R64::Aff { a: p, b: q, c: r }) => Some(R64::Aff {
            a: x.wrapping_sub(p),
            b: y.wrapping_sub(q),
            c: z.wrapping_sub(r),
        }),
        _ => None,
    }
}

#[inline(always)]
pub(crate) fn aff_mul64(a: R64, b: R64) -> Option<R64> {
    let scale = |v: R64, k: u64| match v {
        R64::Aff { a, b, c } => Some(R64::Aff {
            a: a.wrapping_mul(k),
            b: b.wrapping_mul(k),
            c: c.wrapping_mul(k),
        }),
        R64::Slot(_) => None,
    };
    match (a.as_uniform(), b.as_uniform()) {
        (_, Some(k)) => scale(a, k),
        (Some(k), _) => scale(b, k),
        _ => None,
    }
}

/// A 32-bit operation that stays affine when `aff` says so (still one counted instruction).
#[inline(always)]
fn affine_or32<L: Row32>(
    site: Site,
    a: R32,
    b: R32,
    aff: impl Fn(R32, R32) -> Option<R32>,
    f: impl Fn(L, L) -> L,
) -> R32 {
    if let Some(r) = aff(a, b) {
        frame::tally_light(site);
        return r;
    }
    frame::with(|fr| {
        fr.tally(site);
        bin32_in(fr, a, b, f)
    })
}

/// [`affine_or32`] for 64-bit values.
#[inline(always)]
fn affine_or64(
    site: Site,
    a: R64,
    b: R64,
    aff: impl Fn(R64, R64) -> Option<R64>,
    f: impl Fn(U64x32, U64x32) -> U64x32,
) -> R64 {
    if let Some(r) = aff(a, b) {
        frame::tally_light(site);
        return r;
    }
    bin64(site, a, b, f)
}

// ----- the value types -----------------------------------------------------------------------------

/// What the five value types share: construction, merging, comparisons, `+ - *`.
macro_rules! value_common {
    ($(#[$doc:meta])* $name:ident, $scalar:ty, $repr:ident, $lane:ty, $per:literal,
     $to:expr, $from:expr, $cmp:ident, $signed:expr, $sel:ident, $lanes_fn:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name(pub(crate) $repr);

        impl $name {
            /// Zero for every thread.
            pub const ZERO: $name = $name($repr::uniform(0));

            /// The same value for every thread (costs no instruction).
            #[inline]
            pub fn splat(v: $scalar) -> $name {
                $name($repr::uniform($to(v)))
            }

            /// Each thread's value, in linear thread order (inside the kernel only; not counted).
            /// Lanes that are not executing hold whatever they last computed.
            pub fn to_vec(self) -> Vec<$scalar> {
                $lanes_fn(self.0).into_iter().map($from).collect()
            }

            /// Threads where `self < rhs`.
            #[track_caller]
            #[inline]
            pub fn lt(self, rhs: impl Into<$name>) -> Pred {
                $cmp::<$lane>(Site::here(), self.0, rhs.into().0, Cmp::Lt, $signed, |a, b| a.lt(b))
            }
            /// Threads where `self <= rhs`.
            #[track_caller]
            #[inline]
            pub fn le(self, rhs: impl Into<$name>) -> Pred {
                $cmp::<$lane>(Site::here(), self.0, rhs.into().0, Cmp::Le, $signed, |a, b| a.le(b))
            }
            /// Threads where `self > rhs`.
            #[track_caller]
            #[inline]
            pub fn gt(self, rhs: impl Into<$name>) -> Pred {
                $cmp::<$lane>(Site::here(), self.0, rhs.into().0, Cmp::Gt, $signed, |a, b| a.gt(b))
            }
            /// Threads where `self >= rhs`.
            #[track_caller]
            #[inline]
            pub fn ge(self, rhs: impl Into<$name>) -> Pred {
                $cmp::<$lane>(Site::here(), self.0, rhs.into().0, Cmp::Ge, $signed, |a, b| a.ge(b))
            }
            /// Threads where `self == rhs`.
            #[track_caller]
            #[inline]
            pub fn eq(self, rhs: impl Into<$name>) -> Pred {
                $cmp::<$lane>(Site::here(), self.0, rhs.into().0, Cmp::Eq, $signed, |a, b| a.eq(b))
            }
            /// Threads where `self != rhs`.
            #[track_caller]
            #[inline]
            pub fn ne(self, rhs: impl Into<$name>) -> Pred {
                $cmp::<$lane>(Site::here(), self.0, rhs.into().0, Cmp::Ne, $signed, |a, b| a.ne(b))
            }

            /// `cond ? a : b` per thread (one instruction).
            #[track_caller]
            #[inline]
            pub fn select(cond: Pred, a: impl Into<$name>, b: impl Into<$name>) -> $name {
                let (a, b) = (a.into().0, b.into().0);
                frame::with(|fr| {
                    fr.tally(Site::here());
                    $name($sel(fr, &cond, a, b))
                })
            }
        }

        impl Default for $name {
            fn default() -> $name {
                $name::ZERO
            }
        }

        impl From<$scalar> for $name {
            #[inline]
            fn from(v: $scalar) -> $name {
                $name::splat(v)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.0.as_uniform() {
                    Some(u) => write!(f, "{}({:?})", stringify!($name), $from(u)),
                    None => write!(f, "{}(per-thread)", stringify!($name)),
                }
            }
        }

        impl Merge for $name {
            #[inline]
            fn merge(p: &Pred, a: $name, b: $name) -> $name {
                frame::with(|fr| $name($sel(fr, p, a.0, b.0)))
            }
            fn visit_slots(&mut self, f: &mut dyn FnMut(&mut SlotRef<'_>)) {
                if let $repr::Slot(s) = &mut self.0 {
                    f(&mut SlotRef { slot: s, per_warp: $per });
                }
            }
        }
    };
}

/// `op` with a value or a scalar on either side, and the assigning form.
macro_rules! value_binop {
    ($name:ident, $scalar:ty, $tr:ident, $f:ident, $tra:ident, $fa:ident, $imp:expr) => {
        impl $tr for $name {
            type Output = $name;
            #[track_caller]
            #[inline]
            fn $f(self, rhs: $name) -> $name {
                $name($imp(Site::here(), self.0, rhs.0))
            }
        }
        impl $tr<$scalar> for $name {
            type Output = $name;
            #[track_caller]
            #[inline]
            fn $f(self, rhs: $scalar) -> $name {
                $name($imp(Site::here(), self.0, $name::splat(rhs).0))
            }
        }
        impl $tr<$name> for $scalar {
            type Output = $name;
            #[track_caller]
            #[inline]
            fn $f(self, rhs: $name) -> $name {
                $name($imp(Site::here(), $name::splat(self).0, rhs.0))
            }
        }
        impl $tra for $name {
            #[track_caller]
            #[inline]
            fn $fa(&mut self, rhs: $name) {
                *self = $name($imp(Site::here(), self.0, rhs.0));
            }
        }
        impl $tra<$scalar> for $name {
            #[track_caller]
            #[inline]
            fn $fa(&mut self, rhs: $scalar) {
                *self = $name($imp(Site::here(), self.0, $name::splat(rhs).0));
            }
        }
    };
}

/// A unary method applying a lane method.
macro_rules! value_unary {
    ($name:ident, $drv:ident, $lane:ty, $(#[$doc:meta] $m:ident => $e:expr;)*) => {
        impl $name {
            $(
                #[$doc]
                #[track_caller]
                #[inline]
                pub fn $m(self) -> $name {
                    $name($drv::<$lane, $lane>(Site::here(), self.0, $e))
                }
            )*
        }
    };
}

value_common!(
    /// A per-thread `float`: one [`F32x32`] per warp.
    F32s, f32, R32, F32x32, 1, f32::to_bits, f32::from_bits, cmp32, None, select32, lanes32
);
value_common!(
    /// A per-thread `int`: one [`I32x32`] per warp; arithmetic wraps.
    I32s, i32, R32, I32x32, 1, |v: i32| v as u32, |v: u32| v as i32, cmp32, Some(true), select32, lanes32
);
value_common!(
    /// A per-thread `unsigned int`: one [`U32x32`] per warp; arithmetic wraps. Also the index
    /// type of memory accesses.
    U32s, u32, R32, U32x32, 1, |v: u32| v, |v: u32| v, cmp32, Some(false), select32, lanes32
);
value_common!(
    /// A per-thread `double`: one [`F64x32`] per warp.
    F64s, f64, R64, F64x32, 2, f64::to_bits, f64::from_bits, cmp64, None, select64, lanes64
);
value_common!(
    /// A per-thread `unsigned long long`: one [`U64x32`] per warp; arithmetic wraps.
    U64s, u64, R64, U64x32, 2, |v: u64| v, |v: u64| v, cmp64, Some(false), select64, lanes64
);

// + - * : affine for the integer types, uniform-folded for the float types.
macro_rules! int32_arith {
    ($name:ident, $scalar:ty, $lane:ty) => {
        value_binop!(
            $name,
            $scalar,
            Add,
            add,
            AddAssign,
            add_assign,
            |s, a, b| { affine_or32::<$lane>(s, a, b, aff_add32, |x, y| x + y) }
        );
        value_binop!(
            $name,
            $scalar,
            Sub,
            sub,
            SubAssign,
            sub_assign,
            |s, a, b| { affine_or32::<$lane>(s, a, b, aff_sub32, |x, y| x - y) }
        );
        value_binop!(
            $name,
            $scalar,
            Mul,
            mul,
            MulAssign,
            mul_assign,
            |s, a, b| { affine_or32::<$lane>(s, a, b, aff_mul32, |x, y| x * y) }
        );
        value_binop!(
            $name,
            $scalar,
            Div,
            div,
            DivAssign,
            div_assign,
            |s, a, b| { div32::<$lane>(s, a, b, false) }
        );
        value_binop!(
            $name,
            $scalar,
            Rem,
            rem,
            RemAssign,
            rem_assign,
            |s, a, b| { div32::<$lane>(s, a, b, true) }
        );
        value_binop!(
            $name,
            $scalar,
            BitAnd,
            bitand,
            BitAndAssign,
            bitand_assign,
            |s, a, b| { bin32::<$lane, $lane, $lane>(s, a, b, |x, y| x & y) }
        );
        value_binop!(
            $name,
            $scalar,
            BitOr,
            bitor,
            BitOrAssign,
            bitor_assign,
            |s, a, b| { bin32::<$lane, $lane, $lane>(s, a, b, |x, y| x | y) }
        );
        value_binop!(
            $name,
            $scalar,
            BitXor,
            bitxor,
            BitXorAssign,
            bitxor_assign,
            |s, a, b| { bin32::<$lane, $lane, $lane>(s, a, b, |x, y| x ^ y) }
        );
        impl Not for $name {
            type Output = $name;
            #[track_caller]
            #[inline]
            fn not(self) -> $name {
                $name(un32::<$lane, $lane>(Site::here(), self.0, |x| !x))
            }
        }
        impl Shl<u32> for $name {
            type Output = $name;
            /// Shift left; amounts of 32 or more give 0 (PTX clamps).
            #[track_caller]
            #[inline]
            fn shl(self, k: u32) -> $name {
                let site = Site::here();
                if k < 32 {
                    $name(affine_or32::<$lane>(
                        site,
                        self.0,
                        R32::uniform(1 << k),
                        aff_mul32,
                        |x, _| x << k,
                    ))
                } else {
                    $name(un32::<$lane, $lane>(site, self.0, |x| x << k))
                }
            }
        }
        impl Shr<u32> for $name {
            type Output = $name;
            /// Shift right (arithmetic for `int`); large amounts saturate as PTX clamps.
            #[track_caller]
            #[inline]
            fn shr(self, k: u32) -> $name {
                $name(un32::<$lane, $lane>(Site::here(), self.0, |x| x >> k))
            }
        }
        impl Shl<U32s> for $name {
            type Output = $name;
            /// Per-thread shift amounts (32 or more give 0).
            #[track_caller]
            #[inline]
            fn shl(self, k: U32s) -> $name {
                $name(bin32::<$lane, U32x32, $lane>(
                    Site::here(),
                    self.0,
                    k.0,
                    |x, s| x << s,
                ))
            }
        }
        impl Shr<U32s> for $name {
            type Output = $name;
            /// Per-thread shift amounts (large amounts saturate).
            #[track_caller]
            #[inline]
            fn shr(self, k: U32s) -> $name {
                $name(bin32::<$lane, U32x32, $lane>(
                    Site::here(),
                    self.0,
                    k.0,
                    |x, s| x >> s,
                ))
            }
        }
        impl $name {
            /// Per-thread minimum.
            #[track_caller]
            #[inline]
            pub fn min(self, rhs: impl Into<$name>) -> $name {
                $name(bin32::<$lane, $lane, $lane>(
                    Site::here(),
                    self.0,
                    rhs.into().0,
                    |x, y| x.min(y),
                ))
            }
            /// Per-thread maximum.
            #[track_caller]
            #[inline]
            pub fn max(self, rhs: impl Into<$name>) -> $name {
                $name(bin32::<$lane, $lane, $lane>(
                    Site::here(),
                    self.0,
                    rhs.into().0,
                    |x, y| x.max(y),
                ))
            }
        }
    };
}

/// Division and remainder; by a uniform power of two they become a shift and a mask (the
/// result is the same; only the cost differs).
#[inline(always)]
fn div32<L: Row32 + Div<Output = L> + Rem<Output = L> + DivPow2>(
    site: Site,
    a: R32,
    b: R32,
    rem: bool,
) -> R32 {
    if let (Some(_), Some(_)) = (a.as_uniform(), b.as_uniform()) {
        frame::tally_light(site);
    } else {
        frame::with(|fr| fr.tally(site));
    }
    frame::with(|fr| div32_in::<L>(fr, a, b, rem))
}

/// [`div32`] on a borrowed frame, uncounted.
#[inline(always)]
pub(crate) fn div32_in<L: Row32 + Div<Output = L> + Rem<Output = L> + DivPow2>(
    fr: &mut Frame,
    a: R32,
    b: R32,
    rem: bool,
) -> R32 {
    let pow2 = b.as_uniform().filter(|d| d.is_power_of_two());
    match pow2 {
        Some(d) => bin32_in::<L, L, L>(fr, a, b, |x, _| L::by_pow2(x, d, rem)),
        None if rem => bin32_in::<L, L, L>(fr, a, b, |x, y| x % y),
        None => bin32_in::<L, L, L>(fr, a, b, |x, y| x / y),
    }
}

/// Division by a power of two without a per-lane divide.
pub(crate) trait DivPow2: Sized {
    fn by_pow2(x: Self, d: u32, rem: bool) -> Self;
}
impl DivPow2 for U32x32 {
    #[inline(always)]
    fn by_pow2(x: U32x32, d: u32, rem: bool) -> U32x32 {
        if rem {
            x & (d - 1)
        } else {
            x >> d.trailing_zeros()
        }
    }
}
impl DivPow2 for I32x32 {
    #[inline(always)]
    fn by_pow2(x: I32x32, d: u32, rem: bool) -> I32x32 {
        let k = d.trailing_zeros();
        if d == 1 << 31 {
            // `i32::MIN` as a divisor: only itself divides to 1.
            return if rem {
                I32x32::select(x.eq(i32::MIN), I32x32::ZERO, x)
            } else {
                I32x32::select(x.eq(i32::MIN), I32x32::splat(1), I32x32::ZERO)
            };
        }
        // Round toward zero: add d - 1 to negative dividends before the arithmetic shift.
        let bias = (x >> 31) & (d as i32 - 1);
        let q = (x + bias) >> k;
        if rem { x - (q << k) } else { q }
    }
}

int32_arith!(I32s, i32, I32x32);
int32_arith!(U32s, u32, U32x32);

impl Neg for I32s {
    type Output = I32s;
    #[track_caller]
    #[inline]
    fn neg(self) -> I32s {
        let site = Site::here();
        I32s(affine_or32::<I32x32>(
            site,
            R32::uniform(0),
            self.0,
            aff_sub32,
            |x, y| x - y,
        ))
    }
}

impl I32s {
    /// Absolute value (wrapping: `abs(i32::MIN) == i32::MIN`).
    #[track_caller]
    #[inline]
    pub fn abs(self) -> I32s {
        I32s(un32::<I32x32, I32x32>(Site::here(), self.0, |x| x.abs()))
    }
    /// Reinterpret the bits as unsigned (no instruction).
    #[inline]
    pub fn as_u32(self) -> U32s {
        U32s(self.0)
    }
    /// Convert to `float` (round to nearest).
    #[track_caller]
    #[inline]
    pub fn to_f32(self) -> F32s {
        F32s(un32::<I32x32, F32x32>(Site::here(), self.0, |x| x.to_f32()))
    }
    /// Convert to `double` (exact).
    #[track_caller]
    #[inline]
    pub fn to_f64(self) -> F64s {
        F64s(widen::<I32x32, F64x32>(Site::here(), self.0, |x| {
            F64x32::from_array(x.to_array().map(f64::from))
        }))
    }
}

impl U32s {
    /// Reinterpret the bits as signed (no instruction).
    #[inline]
    pub fn as_i32(self) -> I32s {
        I32s(self.0)
    }
    /// Convert to `float` (round to nearest).
    #[track_caller]
    #[inline]
    pub fn to_f32(self) -> F32s {
        F32s(un32::<U32x32, F32x32>(Site::here(), self.0, |x| x.to_f32()))
    }
    /// Convert to `double` (exact).
    #[track_caller]
    #[inline]
    pub fn to_f64(self) -> F64s {
        F64s(widen::<U32x32, F64x32>(Site::here(), self.0, |x| {
            F64x32::from_array(x.to_array().map(f64::from))
        }))
    }
    /// Widen to `unsigned long long`.
    #[track_caller]
    #[inline]
    pub fn to_u64(self) -> U64s {
        let site = Site::here();
        if let R32::Aff { a, b, c } = self.0
            && no_wrap(a, b, c)
        {
            frame::with(|fr| fr.tally(site));
            return U64s(R64::Aff {
                a: a.into(),
                b: b.into(),
                c: c.into(),
            });
        }
        U64s(widen::<U32x32, U64x32>(site, self.0, |x| x.to_u64()))
    }
}

/// Whether `a + b·w + c·l` stays below 2^32 for every warp and lane of any block (then widening
/// keeps the affine form).
fn no_wrap(a: u32, b: u32, c: u32) -> bool {
    u64::from(a) + u64::from(b) * (MAX_WARPS as u64 - 1) + u64::from(c) * (WARP_SIZE as u64 - 1)
        <= u64::from(u32::MAX)
}

value_unary!(U32s, un32, U32x32,
    /// Set bits per thread (`__popc`).
    popc => |x: U32x32| x.popc();
    /// Leading zeros per thread (`__clz`; 32 for zero).
    clz => |x: U32x32| x.clz();
    /// Position of the lowest set bit plus one, 0 for zero (`__ffs`).
    ffs => |x: U32x32| x.ffs();
    /// Bits reversed per thread (`__brev`).
    brev => |x: U32x32| x.brev();
);

value_binop!(U64s, u64, Add, add, AddAssign, add_assign, |s, a, b| {
    affine_or64(s, a, b, aff_add64, |x, y| x + y)
});
value_binop!(U64s, u64, Sub, sub, SubAssign, sub_assign, |s, a, b| {
    affine_or64(s, a, b, aff_sub64, |x, y| x - y)
});
value_binop!(U64s, u64, Mul, mul, MulAssign, mul_assign, |s, a, b| {
    affine_or64(s, a, b, aff_mul64, |x, y| x * y)
});
value_binop!(U64s, u64, Div, div, DivAssign, div_assign, |s, a, b| {
    bin64::<U64x32, U64x32>(s, a, b, |x, y| x / y)
});
value_binop!(U64s, u64, Rem, rem, RemAssign, rem_assign, |s, a, b| {
    bin64::<U64x32, U64x32>(s, a, b, |x, y| x % y)
});
value_binop!(
    U64s,
    u64,
    BitAnd,
    bitand,
    BitAndAssign,
    bitand_assign,
    |s, a, b| { bin64::<U64x32, U64x32>(s, a, b, |x, y| x & y) }
);
value_binop!(
    U64s,
    u64,
    BitOr,
    bitor,
    BitOrAssign,
    bitor_assign,
    |s, a, b| { bin64::<U64x32, U64x32>(s, a, b, |x, y| x | y) }
);
value_binop!(
    U64s,
    u64,
    BitXor,
    bitxor,
    BitXorAssign,
    bitxor_assign,
    |s, a, b| { bin64::<U64x32, U64x32>(s, a, b, |x, y| x ^ y) }
);

impl Shl<u32> for U64s {
    type Output = U64s;
    /// Shift left; amounts of 64 or more give 0.
    #[track_caller]
    #[inline]
    fn shl(self, k: u32) -> U64s {
        U64s(un64::<U64x32, U64x32>(Site::here(), self.0, |x| x << k))
    }
}
impl Shr<u32> for U64s {
    type Output = U64s;
    /// Shift right; amounts of 64 or more give 0.
    #[track_caller]
    #[inline]
    fn shr(self, k: u32) -> U64s {
        U64s(un64::<U64x32, U64x32>(Site::here(), self.0, |x| x >> k))
    }
}
impl Not for U64s {
    type Output = U64s;
    #[track_caller]
    #[inline]
    fn not(self) -> U64s {
        U64s(un64::<U64x32, U64x32>(Site::here(), self.0, |x| !x))
    }
}

impl U64s {
    /// Truncate to the low 32 bits.
    #[track_caller]
    #[inline]
    pub fn to_u32(self) -> U32s {
        U32s(narrow::<U64x32, U32x32>(Site::here(), self.0, |x| {
            x.to_u32()
        }))
    }
    /// Per-thread minimum.
    #[track_caller]
    #[inline]
    pub fn min(self, rhs: impl Into<U64s>) -> U64s {
        U64s(bin64::<U64x32, U64x32>(
            Site::here(),
            self.0,
            rhs.into().0,
            |x, y| x.min(y),
        ))
    }
    /// Per-thread maximum.
    #[track_caller]
    #[inline]
    pub fn max(self, rhs: impl Into<U64s>) -> U64s {
        U64s(bin64::<U64x32, U64x32>(
            Site::here(),
            self.0,
            rhs.into().0,
            |x, y| x.max(y),
        ))
    }
}

/// Float arithmetic and math shared by `float` and `double`.
macro_rules! float_ops {
    ($name:ident, $scalar:ty, $lane:ty, $bin:ident, $un:ident, $rebuild:expr) => {
        value_binop!($name, $scalar, Add, add, AddAssign, add_assign, |s, a, b| {
            $bin::<$lane, $lane>(s, a, b, |x: $lane, y: $lane| x + y)
        });
        value_binop!($name, $scalar, Sub, sub, SubAssign, sub_assign, |s, a, b| {
            $bin::<$lane, $lane>(s, a, b, |x: $lane, y: $lane| x - y)
        });
        value_binop!($name, $scalar, Mul, mul, MulAssign, mul_assign, |s, a, b| {
            $bin::<$lane, $lane>(s, a, b, |x: $lane, y: $lane| x * y)
        });
        value_binop!($name, $scalar, Div, div, DivAssign, div_assign, |s, a, b| {
            $bin::<$lane, $lane>(s, a, b, |x: $lane, y: $lane| x / y)
        });
        value_binop!($name, $scalar, Rem, rem, RemAssign, rem_assign, |s, a, b| {
            $bin::<$lane, $lane>(s, a, b, |x: $lane, y: $lane| x % y)
        });
        impl Neg for $name {
            type Output = $name;
            #[track_caller]
            #[inline]
            fn neg(self) -> $name {
                $name($un::<$lane, $lane>(Site::here(), self.0, |x: $lane| -x))
            }
        }
        impl $name {
            /// Per-thread minimum (`fminf`: a NaN operand gives the other).
            #[track_caller]
            #[inline]
            pub fn min(self, rhs: impl Into<$name>) -> $name {
                $name($bin::<$lane, $lane>(Site::here(), self.0, rhs.into().0, |x: $lane, y: $lane| x.min(y)))
            }
            /// Per-thread maximum (`fmaxf`: a NaN operand gives the other).
            #[track_caller]
            #[inline]
            pub fn max(self, rhs: impl Into<$name>) -> $name {
                $name($bin::<$lane, $lane>(Site::here(), self.0, rhs.into().0, |x: $lane, y: $lane| x.max(y)))
            }
            /// Fused multiply-add `self * a + b`, rounded once (`fmaf`).
            #[track_caller]
            #[inline]
            pub fn mul_add(self, a: impl Into<$name>, b: impl Into<$name>) -> $name {
                let site = Site::here();
                $name($rebuild(site, self.0, a.into().0, b.into().0))
            }
            /// `x ^ y` per thread (`powf`).
            #[track_caller]
            #[inline]
            pub fn powf(self, y: impl Into<$name>) -> $name {
                $name($bin::<$lane, $lane>(Site::here(), self.0, y.into().0, |x: $lane, y: $lane| {
                    x.zip_each(y, <$scalar>::powf)
                }))
            }
            /// Threads holding NaN.
            #[track_caller]
            #[inline]
            pub fn is_nan(self) -> Pred {
                self.ne(self)
            }
        }
        value_unary!($name, $un, $lane,
            /// Absolute value (`fabsf`).
            abs => |x: $lane| x.abs();
            /// Square root (NaN for negative values, like `sqrtf`).
            sqrt => |x: $lane| x.sqrt();
            /// Round toward negative infinity (`floorf`).
            floor => |x: $lane| x.floor();
            /// Round toward positive infinity (`ceilf`).
            ceil => |x: $lane| x.map_each(<$scalar>::ceil);
            /// Round toward zero (`truncf`).
            trunc => |x: $lane| x.map_each(<$scalar>::trunc);
            /// Round half away from zero (`roundf`).
            round => |x: $lane| x.map_each(<$scalar>::round);
            /// `1 / sqrt(x)` (`rsqrtf`).
            rsqrt => |x: $lane| x.map_each(|v| 1.0 / v.sqrt());
            /// `e^x` (`expf`).
            exp => |x: $lane| x.map_each(<$scalar>::exp);
            /// `2^x` (`exp2f`).
            exp2 => |x: $lane| x.map_each(<$scalar>::exp2);
            /// Natural logarithm (`logf`).
            ln => |x: $lane| x.map_each(<$scalar>::ln);
            /// Base-2 logarithm (`log2f`).
            log2 => |x: $lane| x.map_each(<$scalar>::log2);
            /// Base-10 logarithm (`log10f`).
            log10 => |x: $lane| x.map_each(<$scalar>::log10);
            /// Sine (`sinf`).
            sin => |x: $lane| x.map_each(<$scalar>::sin);
            /// Cosine (`cosf`).
            cos => |x: $lane| x.map_each(<$scalar>::cos);
            /// Tangent (`tanf`).
            tan => |x: $lane| x.map_each(<$scalar>::tan);
            /// Hyperbolic tangent (`tanhf`).
            tanh => |x: $lane| x.map_each(<$scalar>::tanh);
        );
    };
}

float_ops!(F32s, f32, F32x32, bin32f, un32f, fma32);
float_ops!(F64s, f64, F64x32, bin64, un64, fma64);

/// `bin32` with one lane type for all operands (the float macro's shape).
#[inline(always)]
fn bin32f<A: Row32, O: Row32>(site: Site, a: R32, b: R32, f: impl Fn(A, A) -> O) -> R32 {
    bin32::<A, A, O>(site, a, b, f)
}

#[inline(always)]
fn un32f<A: Row32, O: Row32>(site: Site, a: R32, f: impl Fn(A) -> O) -> R32 {
    un32::<A, O>(site, a, f)
}

fn fma32(site: Site, a: R32, b: R32, c: R32) -> R32 {
    tri32::<F32x32, F32x32>(site, a, b, c, |x, y, z| x.mul_add(y, z))
}

fn fma64(site: Site, a: R64, b: R64, c: R64) -> R64 {
    tri64::<F64x32, F64x32>(site, a, b, c, |x, y, z| x.mul_add(y, z))
}

/// `f` on each active warp of 64-bit `a`, `b` and `c` into a new 64-bit value.
#[inline(always)]
fn tri64<A: Row64, O: Row64>(site: Site, a: R64, b: R64, c: R64, f: impl Fn(A, A, A) -> O) -> R64 {
    frame::with(|fr| {
        fr.tally(site);
        if let (Some(x), Some(y), Some(z)) = (a.as_uniform(), b.as_uniform(), c.as_uniform()) {
            let s = |v| A::from_u64(U64x32::splat(v));
            return R64::uniform(f(s(x), s(y), s(z)).to_u64().lane(0));
        }
        let (sa, sb, sc) = (fr.src64(a), fr.src64(b), fr.src64(c));
        let dst = fr.alloc(2);
        let Frame {
            rows,
            active,
            warps,
            ..
        } = fr;
        let (lo, hi) = rows.split_at_mut(dst.row as usize);
        for w in 0..*warps {
            if active[w] != 0 {
                let g = |s: &frame::Src64| A::from_u64(s.get(lo, w));
                let [x, y] = f(g(&sa), g(&sb), g(&sc)).to_u64().to_rows();
                hi[2 * w] = x;
                hi[2 * w + 1] = y;
            }
        }
        R64::Slot(dst)
    })
}

impl F32s {
    /// Convert to `int`, rounding toward zero; out-of-range values saturate and NaN gives 0
    /// (`__float2int_rz`).
    #[track_caller]
    #[inline]
    pub fn to_i32(self) -> I32s {
        I32s(un32::<F32x32, I32x32>(Site::here(), self.0, |x| x.to_i32()))
    }
    /// Convert to `unsigned`, rounding toward zero and saturating; NaN gives 0.
    #[track_caller]
    #[inline]
    pub fn to_u32(self) -> U32s {
        U32s(un32::<F32x32, U32x32>(Site::here(), self.0, |x| x.to_u32()))
    }
    /// Widen to `double`.
    #[track_caller]
    #[inline]
    pub fn to_f64(self) -> F64s {
        F64s(widen::<F32x32, F64x32>(Site::here(), self.0, |x| {
            x.to_f64()
        }))
    }
    /// Reinterpret the bits (`__float_as_uint`, no instruction).
    #[inline]
    pub fn as_u32(self) -> U32s {
        U32s(self.0)
    }
    /// Reinterpret bits as floats (`__uint_as_float`, no instruction).
    #[inline]
    pub fn from_bits(bits: U32s) -> F32s {
        F32s(bits.0)
    }
}

impl F64s {
    /// Narrow to `float` (round to nearest).
    #[track_caller]
    #[inline]
    pub fn to_f32(self) -> F32s {
        F32s(narrow::<F64x32, F32x32>(Site::here(), self.0, |x| {
            x.to_f32()
        }))
    }
    /// Convert to `int`, rounding toward zero and saturating; NaN gives 0.
    #[track_caller]
    #[inline]
    pub fn to_i32(self) -> I32s {
        I32s(narrow::<F64x32, I32x32>(Site::here(), self.0, |x| {
            I32x32::from_array(x.to_array().map(|v| v as i32))
        }))
    }
    /// Reinterpret the bits (`__double_as_longlong`, no instruction).
    #[inline]
    pub fn to_bits(self) -> U64s {
        U64s(self.0)
    }
    /// Reinterpret bits as doubles (no instruction).
    #[inline]
    pub fn from_bits(bits: U64s) -> F64s {
        F64s(bits.0)
    }
}
