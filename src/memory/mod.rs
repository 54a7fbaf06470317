//! Memory spaces: what a warp can load from and store to.
//!
//! Two spaces exist, as on a GPU: [`Global`] memory, owned by a [`crate::Device`] and visible to
//! every block (one simulated device address space, allocations 256-byte aligned), and a block's
//! [`Shared`] memory, a small arena private to the block. Both store 4-byte words: global memory
//! as relaxed atomics (blocks run on different CPU threads), shared memory as plain cells (a block
//! runs on one CPU thread). Elements of 1, 2, 4, 8 and 16 bytes ([`Element`]) are laid over the
//! words, so a view can be reinterpreted as another element type and a misaligned access is
//! visible, and faults, exactly where it would be on a GPU.
//!
//! A warp accesses memory through [`crate::Warp::load`], [`crate::Warp::store`] and the atomics,
//! with one element index per lane: only active lanes access (and are checked and counted). The
//! counters of each access are computed in the space's module: coalescing into sectors and lines
//! in [`global`], banks and wavefronts in [`shared`].

pub mod global;
pub mod shared;

use crate::error::{AccessFault, AccessKind, Error, Space};
use crate::lanes::{F32x32, F64x32, I32x32, Mask, Merge, U32x32, U64x32, WARP_SIZE};
use crate::warp::Warp;
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

pub use global::Global;
pub use shared::Shared;

/// Word storage under both memory spaces.
pub(crate) trait Words {
    /// Words `i..i + 32`.
    fn get32(&self, i: usize) -> [u32; 32];
    /// Set words `i..i + 32`.
    fn set32(&self, i: usize, v: [u32; 32]);
    fn get(&self, i: usize) -> u32;
    fn set(&self, i: usize, v: u32);
    /// Replace word `i` by `f(old)` as one indivisible step; returns the old word.
    fn update(&self, i: usize, f: impl Fn(u32) -> u32) -> u32;
}

impl Words for [AtomicU32] {
    #[inline(always)]
    fn get32(&self, i: usize) -> [u32; 32] {
        let mut out = [0; 32];
        for (o, a) in out.iter_mut().zip(&self[i..i + 32]) {
            *o = a.load(Relaxed);
        }
        out
    }
    #[inline(always)]
    fn set32(&self, i: usize, v: [u32; 32]) {
        for (a, v) in self[i..i + 32].iter().zip(v) {
            a.store(v, Relaxed);
        }
    }
    #[inline(always)]
    fn get(&self, i: usize) -> u32 {
        self[i].load(Relaxed)
    }
    #[inline(always)]
    fn set(&self, i: usize, v: u32) {
        self[i].store(v, Relaxed)
    }
    #[inline]
    fn update(&self, i: usize, f: impl Fn(u32) -> u32) -> u32 {
        match self[i].fetch_update(Relaxed, Relaxed, |v| Some(f(v))) {
            Ok(v) | Err(v) => v,
        }
    }
}

impl Words for [Cell<u32>] {
    #[inline(always)]
    fn get32(&self, i: usize) -> [u32; 32] {
        let mut out = [0; 32];
        for (o, c) in out.iter_mut().zip(&self[i..i + 32]) {
            *o = c.get();
        }
        out
    }
    #[inline(always)]
    fn set32(&self, i: usize, v: [u32; 32]) {
        for (c, v) in self[i..i + 32].iter().zip(v) {
            c.set(v);
        }
    }
    #[inline(always)]
    fn get(&self, i: usize) -> u32 {
        self[i].get()
    }
    #[inline(always)]
    fn set(&self, i: usize, v: u32) {
        self[i].set(v)
    }
    #[inline]
    fn update(&self, i: usize, f: impl Fn(u32) -> u32) -> u32 {
        let old = self[i].get();
        self[i].set(f(old));
        old
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A type that can live in device memory: 1, 2, 4, 8 or 16 bytes, naturally aligned.
///
/// In registers an element is a lane vector ([`Element::Lanes`]): `u8` and `u16` widen to
/// [`U32x32`] as they do in a GPU's 32-bit registers, `[f32; 2]` and `[f32; 4]` (CUDA's `float2`
/// and `float4`) become arrays of [`F32x32`]. Sealed: the set matches what the coalescing and
/// bank counters model.
pub trait Element:
    sealed::Sealed + Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static
{
    /// Size in bytes (also the required alignment).
    const SIZE: u32;
    /// The register form: one lane vector (or an array of them) per element.
    type Lanes: Merge + Copy + PartialEq + std::fmt::Debug;
    /// The element from its words (sub-word types in the low bits of word 0).
    fn from_words(w: [u32; 4]) -> Self;
    /// The element as words.
    fn to_words(self) -> [u32; 4];
    /// Lanes from per-lane elements.
    fn pack(a: [Self; WARP_SIZE]) -> Self::Lanes;
    /// Per-lane elements from lanes.
    fn unpack(v: Self::Lanes) -> [Self; WARP_SIZE];
    /// Lanes from one word per lane (the contiguous fast path of 4-byte elements).
    #[inline(always)]
    fn pack_words(w: [u32; WARP_SIZE]) -> Self::Lanes {
        Self::pack(w.map(|w| Self::from_words([w, 0, 0, 0])))
    }
    /// One word per lane from lanes (the inverse of [`Element::pack_words`]).
    #[inline(always)]
    fn unpack_words(v: Self::Lanes) -> [u32; WARP_SIZE] {
        Self::unpack(v).map(|e| e.to_words()[0])
    }
}

macro_rules! scalar_element {
    // 4-byte elements: a word per lane is the element's bits, so words cast without a per-lane map.
    ($t:ty, 4, $lanes:ty, $to:expr, $from:expr, $pack:expr, $unpack:expr) => {
        scalar_element!(@impl $t, 4, $lanes, $to, $from, $pack, $unpack,
            #[inline(always)]
            fn pack_words(w: [u32; WARP_SIZE]) -> $lanes {
                $pack(bytemuck::cast(w))
            }
            #[inline(always)]
            fn unpack_words(v: $lanes) -> [u32; WARP_SIZE] {
                bytemuck::cast($unpack(v))
            }
        );
    };
    ($t:ty, $size:literal, $lanes:ty, $to:expr, $from:expr, $pack:expr, $unpack:expr) => {
        scalar_element!(@impl $t, $size, $lanes, $to, $from, $pack, $unpack,);
    };
    (@impl $t:ty, $size:literal, $lanes:ty, $to:expr, $from:expr, $pack:expr, $unpack:expr, $($words:item)*) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const SIZE: u32 = $size;
            type Lanes = $lanes;
            #[inline(always)]
            fn from_words(w: [u32; 4]) -> Self {
                $from(w)
            }
            #[inline(always)]
            fn to_words(self) -> [u32; 4] {
                $to(self)
            }
            #[inline(always)]
            fn pack(a: [Self; WARP_SIZE]) -> $lanes {
                $pack(a)
            }
            #[inline(always)]
            fn unpack(v: $lanes) -> [Self; WARP_SIZE] {
                $unpack(v)
            }
            $($words)*
        }
    };
}

scalar_element!(
    u8,
    1,
    U32x32,
    |v: u8| [u32::from(v), 0, 0, 0],
    |w: [u32; 4]| w[0] as u8,
    |a: [u8; 32]| U32x32::from_array(a.map(u32::from)),
    |v: U32x32| v.to_array().map(|x| x as u8)
);
scalar_element!(
    u16,
    2,
    U32x32,
    |v: u16| [u32::from(v), 0, 0, 0],
    |w: [u32; 4]| w[0] as u16,
    |a: [u16; 32]| U32x32::from_array(a.map(u32::from)),
    |v: U32x32| v.to_array().map(|x| x as u16)
);
scalar_element!(
    u32,
    4,
    U32x32,
    |v: u32| [v, 0, 0, 0],
    |w: [u32; 4]| w[0],
    U32x32::from_array,
    U32x32::to_array
);
scalar_element!(
    i32,
    4,
    I32x32,
    |v: i32| [v as u32, 0, 0, 0],
    |w: [u32; 4]| w[0] as i32,
    I32x32::from_array,
    I32x32::to_array
);
scalar_element!(
    f32,
    4,
    F32x32,
    |v: f32| [v.to_bits(), 0, 0, 0],
    |w: [u32; 4]| f32::from_bits(w[0]),
    F32x32::from_array,
    F32x32::to_array
);
scalar_element!(
    u64,
    8,
    U64x32,
    |v: u64| [v as u32, (v >> 32) as u32, 0, 0],
    |w: [u32; 4]| u64::from(w[0]) | (u64::from(w[1]) << 32),
    U64x32::from_array,
    U64x32::to_array
);
scalar_element!(
    f64,
    8,
    F64x32,
    |v: f64| {
        let b = v.to_bits();
        [b as u32, (b >> 32) as u32, 0, 0]
    },
    |w: [u32; 4]| f64::from_bits(u64::from(w[0]) | (u64::from(w[1]) << 32)),
    F64x32::from_array,
    F64x32::to_array
);
scalar_element!(
    [f32; 2],
    8,
    [F32x32; 2],
    |v: [f32; 2]| [v[0].to_bits(), v[1].to_bits(), 0, 0],
    |w: [u32; 4]| [f32::from_bits(w[0]), f32::from_bits(w[1])],
    |a: [[f32; 2]; 32]| [0, 1].map(|c| F32x32::from_fn(|i| a[i][c])),
    |v: [F32x32; 2]| {
        let c = v.map(F32x32::to_array);
        std::array::from_fn(|i| [c[0][i], c[1][i]])
    }
);
scalar_element!(
    [f32; 4],
    16,
    [F32x32; 4],
    |v: [f32; 4]| v.map(f32::to_bits),
    |w: [u32; 4]| w.map(f32::from_bits),
    |a: [[f32; 4]; 32]| [0, 1, 2, 3].map(|c| F32x32::from_fn(|i| a[i][c])),
    |v: [F32x32; 4]| {
        let c = v.map(F32x32::to_array);
        std::array::from_fn(|i| [c[0][i], c[1][i], c[2][i], c[3][i]])
    }
);

/// Read the element at byte offset `byte` (a multiple of `T::SIZE`) of `words`.
#[inline(always)]
pub(crate) fn read_elem<T: Element, W: Words + ?Sized>(words: &W, byte: usize) -> T {
    let i = byte / 4;
    match T::SIZE {
        1 | 2 => {
            let shift = (byte % 4) * 8;
            T::from_words([words.get(i) >> shift, 0, 0, 0])
        }
        4 => T::from_words([words.get(i), 0, 0, 0]),
        8 => T::from_words([words.get(i), words.get(i + 1), 0, 0]),
        _ => T::from_words([
            words.get(i),
            words.get(i + 1),
            words.get(i + 2),
            words.get(i + 3),
        ]),
    }
}

/// Write the element at byte offset `byte` (a multiple of `T::SIZE`) of `words`.
#[inline(always)]
pub(crate) fn write_elem<T: Element, W: Words + ?Sized>(words: &W, byte: usize, v: T) {
    let i = byte / 4;
    let w = v.to_words();
    match T::SIZE {
        1 | 2 => {
            let shift = (byte % 4) * 8;
            let field = if T::SIZE == 1 { 0xffu32 } else { 0xffff } << shift;
            words.update(i, |old| (old & !field) | ((w[0] << shift) & field));
        }
        4 => words.set(i, w[0]),
        8 => {
            words.set(i, w[0]);
            words.set(i + 1, w[1]);
        }
        _ => {
            for (k, word) in w.iter().enumerate() {
                words.set(i + k, *word);
            }
        }
    }
}

/// 4-byte elements with atomic read-modify-write: `i32`, `u32`, `f32`.
pub trait AtomicElement: Element {
    /// `old + v` (wrapping for integers).
    fn add(old: Self, v: Self) -> Self;
    /// `old - v` (wrapping for integers).
    fn sub(old: Self, v: Self) -> Self;
    /// The smaller of the two.
    fn min(old: Self, v: Self) -> Self;
    /// The larger of the two.
    fn max(old: Self, v: Self) -> Self;
}

/// Integer elements with the bitwise atomics (`atomicAnd`, `atomicOr`, `atomicXor`).
pub trait AtomicBits: AtomicElement {
    /// `old & v`.
    fn and(old: Self, v: Self) -> Self;
    /// `old | v`.
    fn or(old: Self, v: Self) -> Self;
    /// `old ^ v`.
    fn xor(old: Self, v: Self) -> Self;
}

macro_rules! int_atomic {
    ($t:ty) => {
        impl AtomicElement for $t {
            fn add(o: $t, v: $t) -> $t {
                o.wrapping_add(v)
            }
            fn sub(o: $t, v: $t) -> $t {
                o.wrapping_sub(v)
            }
            fn min(o: $t, v: $t) -> $t {
                Ord::min(o, v)
            }
            fn max(o: $t, v: $t) -> $t {
                Ord::max(o, v)
            }
        }
        impl AtomicBits for $t {
            fn and(o: $t, v: $t) -> $t {
                o & v
            }
            fn or(o: $t, v: $t) -> $t {
                o | v
            }
            fn xor(o: $t, v: $t) -> $t {
                o ^ v
            }
        }
    };
}
int_atomic!(u32);
int_atomic!(i32);

impl AtomicElement for f32 {
    fn add(o: f32, v: f32) -> f32 {
        o + v
    }
    fn sub(o: f32, v: f32) -> f32 {
        o - v
    }
    fn min(o: f32, v: f32) -> f32 {
        o.min(v)
    }
    fn max(o: f32, v: f32) -> f32 {
        o.max(v)
    }
}

/// Which element of a buffer each active lane touches, validated.
///
/// Built once per warp memory instruction: the indices are checked against the buffer length
/// and alignment (faulting the lowest bad lane), and the contiguous case (`base + lane`, the
/// coalesced access of a well-written kernel) is recognised so counters and copies can take a
/// fast path.
pub(crate) struct Access {
    /// Each lane's element index (a vector, so the struct moves in whole registers).
    idx: U32x32,
    pub mask: Mask,
    /// `Some(first)` when every active lane `l` uses index `first + l`.
    pub contiguous_from: Option<u32>,
}

/// What the counters and the fault report need to know about a buffer.
pub(crate) struct Target<'n> {
    pub space: Space,
    pub name: &'n str,
    pub len: usize,
    /// Address of element 0 (device address, or byte offset in shared memory).
    pub base: u64,
    pub elem: u32,
}

impl Access {
    /// The element index of `lane`.
    #[inline(always)]
    pub fn index(&self, lane: u32) -> u32 {
        self.idx.lane(lane as usize & 31)
    }

    /// Validate `idx` for the warp's active lanes against `t`; faults unwind the block.
    #[inline(always)]
    pub fn new(w: &Warp<'_>, t: &Target<'_>, idx: U32x32, kind: AccessKind, mask: Mask) -> Access {
        let in_bounds = match u32::try_from(t.len) {
            Ok(len) => idx.lanes_below(len),
            Err(_) => Mask::FULL,
        };
        let l0 = mask.first().unwrap_or(0);
        let from_zero = idx.wrapping_sub_uncounted(U32x32::iota());
        let first = from_zero.lane(l0 as usize);
        let contiguous =
            mask.is_contiguous() && (from_zero.lanes_equal(U32x32::splat(first)) & mask) == mask;
        if let Some(lane) = (mask & !in_bounds).first() {
            let index = idx.lane(lane as usize);
            w.fault(Error::OutOfBounds(Box::new(fault_detail(
                w, t, lane, index, kind,
            ))));
        }
        if t.base & u64::from(t.elem - 1) != 0 {
            let index = idx.lane(l0 as usize);
            w.fault(Error::Misaligned(Box::new(fault_detail(
                w, t, l0, index, kind,
            ))));
        }
        Access {
            idx,
            mask,
            contiguous_from: contiguous.then_some(first),
        }
    }
}

/// The fault report for `lane` accessing element `index` of `t`.
pub(crate) fn fault_detail(
    w: &Warp<'_>,
    t: &Target<'_>,
    lane: u32,
    index: u32,
    access: AccessKind,
) -> AccessFault {
    AccessFault {
        kernel: w.launch.name.clone(),
        block: w.block_idx(),
        thread: w.thread_of_lane(lane),
        space: t.space,
        access,
        buffer: t.name.to_string(),
        index: u64::from(index),
        len: t.len as u64,
        address: t.base.wrapping_add(u64::from(index) * u64::from(t.elem)),
        elem_bytes: t.elem,
    }
}

/// A buffer a warp can access: [`Global`] or [`Shared`]. Sealed.
pub trait Memory: sealed::Sealed {
    /// The element type.
    type Elem: Element;
    #[doc(hidden)]
    fn load_lanes(&self, w: &mut Warp<'_>, idx: U32x32) -> <Self::Elem as Element>::Lanes;
    #[doc(hidden)]
    fn store_lanes(&self, w: &mut Warp<'_>, idx: U32x32, v: <Self::Elem as Element>::Lanes);
    #[doc(hidden)]
    fn atomic_lanes(
        &self,
        w: &mut Warp<'_>,
        idx: U32x32,
        op: &dyn Fn(Self::Elem, usize) -> Self::Elem,
    ) -> <Self::Elem as Element>::Lanes
    where
        Self::Elem: AtomicElement;
}

/// Gather the active lanes' elements (inactive lanes read as zero).
#[inline(always)]
pub(crate) fn gather<T: Element, W: Words + ?Sized>(
    words: &W,
    base_byte: usize,
    a: &Access,
) -> T::Lanes {
    let size = T::SIZE as usize;
    if let (Some(first), true) = (a.contiguous_from, a.mask.is_full()) {
        let start = base_byte + first as usize * size;
        if T::SIZE == 4 {
            return T::pack_words(words.get32(start / 4));
        }
        return T::pack(std::array::from_fn(|l| {
            read_elem::<T, W>(words, start + l * size)
        }));
    }
    let idx = a.idx.to_array();
    if a.mask.is_full() {
        // A full warp at scattered indices (a column, a stride): no per-lane mask test.
        return T::pack(std::array::from_fn(|l| {
            read_elem::<T, W>(words, base_byte + idx[l] as usize * size)
        }));
    }
    T::pack(std::array::from_fn(|l| {
        if a.mask.contains(l as u32) {
            read_elem::<T, W>(words, base_byte + idx[l] as usize * size)
        } else {
            T::default()
        }
    }))
}

/// Scatter the active lanes' elements, lowest lane first (a later lane wins on a collision,
/// deterministically).
#[inline(always)]
pub(crate) fn scatter<T: Element, W: Words + ?Sized>(
    words: &W,
    base_byte: usize,
    a: &Access,
    v: T::Lanes,
) {
    let size = T::SIZE as usize;
    if let (Some(first), true) = (a.contiguous_from, a.mask.is_full())
        && T::SIZE == 4
    {
        words.set32((base_byte + first as usize * size) / 4, T::unpack_words(v));
        return;
    }
    let vals = T::unpack(v);
    if let (Some(first), true) = (a.contiguous_from, a.mask.is_full()) {
        let start = base_byte + first as usize * size;
        for (l, val) in vals.into_iter().enumerate() {
            write_elem::<T, W>(words, start + l * size, val);
        }
        return;
    }
    for l in a.mask.lanes() {
        write_elem::<T, W>(
            words,
            base_byte + a.index(l) as usize * size,
            vals[l as usize],
        );
    }
}

/// Atomic read-modify-write per active lane, lowest lane first; `op(old, lane)` gives the new
/// value. Returns the old values.
pub(crate) fn rmw<T: AtomicElement, W: Words + ?Sized>(
    words: &W,
    base_byte: usize,
    a: &Access,
    op: &dyn Fn(T, usize) -> T,
) -> T::Lanes {
    let mut old = [T::default(); WARP_SIZE];
    for l in a.mask.lanes() {
        let l = l as usize;
        let word = (base_byte + a.index(l as u32) as usize * 4) / 4;
        let prev = words.update(word, |bits| {
            op(T::from_words([bits, 0, 0, 0]), l).to_words()[0]
        });
        old[l] = T::from_words([prev, 0, 0, 0]);
    }
    T::pack(old)
}
