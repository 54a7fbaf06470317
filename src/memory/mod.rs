//! Memory spaces: what a kernel can load from and store to.
//!
//! Two spaces exist, as on a GPU: [`Global`] memory, owned by a [`crate::Device`] and visible to
//! every block (one simulated device address space, allocations 256-byte aligned), and a block's
//! [`Shared`] memory, an arena private to the block. Both store 4-byte words: global memory as
//! relaxed atomics (blocks run on different CPU threads, and a kernel with a race must not be
//! able to cause undefined behaviour), shared memory as plain words owned by the CPU thread that
//! runs the block. Elements of 1, 2, 4, 8 and 16 bytes ([`Element`]) are laid over the words, so
//! a view can be reinterpreted as another element type and a misaligned access is visible, and
//! faults, exactly where it would on a GPU.
//!
//! This module knows storage and addresses, not execution: one warp's part of an access is a
//! `WarpIdx` (the element index of each lane) and a lane mask; the executor
//! ([`crate::block`]) validates it, tells the observers and moves the data with the functions
//! here. The counters of an access are pure functions of its addresses: coalescing into sectors
//! and lines in [`global`], banks and wavefronts in [`shared`].

pub mod global;
pub mod shared;

use crate::error::Space;
use crate::lanes::{IOTA, Mask, U32x32, WARP_SIZE};
use crate::values::frame::{R32, R64};
use crate::values::{F32s, F64s, I32s, Merge, U32s, U64s};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

pub use global::Global;
pub use shared::Shared;

/// Environment variable that, when set to a number of bytes, replaces `MemAvailable` as the
/// memory available (for tests, and machines without `/proc/meminfo`).
pub const MEMORY_ENV: &str = "WARPSIM_MEMORY_AVAILABLE";

/// Bytes of host memory available to this process, and where the figure comes from:
/// `WARPSIM_MEMORY_AVAILABLE` when set, otherwise `MemAvailable` from `/proc/meminfo`; `None`
/// when neither can be read. Device memory lives in host memory, so this bounds what can be
/// allocated.
pub fn available_host_memory() -> Option<(u64, &'static str)> {
    if let Ok(v) = std::env::var(MEMORY_ENV) {
        return v.trim().parse().ok().map(|b| (b, MEMORY_ENV));
    }
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut parts = line.split_whitespace().skip(1);
    let value: u64 = parts.next()?.parse().ok()?;
    let unit = match parts.next() {
        Some("kB") | None => 1024,
        Some(_) => return None,
    };
    Some((value * unit, "MemAvailable in /proc/meminfo"))
}

// ----- word storage --------------------------------------------------------------------------------

/// Words that can be read: global memory's atomics or a block's shared arena.
pub(crate) trait Words {
    fn get(&self, i: usize) -> u32;
    /// Words `i..i + 32`.
    fn row(&self, i: usize) -> U32x32;
    /// Copy words `i..i + 32` into `out`.
    #[inline(always)]
    fn row_into(&self, i: usize, out: &mut U32x32) {
        *out = self.row(i);
    }
}

/// Words that can be written.
pub(crate) trait WordsMut: Words {
    fn set(&mut self, i: usize, v: u32);
    /// Set words `i..i + 32`.
    fn set_row(&mut self, i: usize, v: U32x32);
    /// Replace word `i` by `f(old)` as one indivisible step; returns the old word.
    fn update(&mut self, i: usize, f: impl Fn(u32) -> u32) -> u32;
    /// Replace words `i` and `i + 1` (the low word first) by `f(old)` as one step indivisible
    /// against the other 8-byte updates; returns the old value.
    fn update64(&mut self, i: usize, f: impl Fn(u64) -> u64) -> u64;
}

/// Locks for 8-byte atomics on global memory, whose words are 4-byte atomics: an update holds
/// the lock its address picks (striped, so that atomics on different addresses rarely wait).
static WIDE_LOCKS: [std::sync::Mutex<()>; 64] = [const { std::sync::Mutex::new(()) }; 64];

/// Global memory's words, written through relaxed atomics.
pub(crate) struct Atomics<'a>(pub &'a [AtomicU32]);

impl Atomics<'_> {
    /// Ask the processor for word `i`'s cache line (a hint: nothing past the end, nothing off
    /// x86-64).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(w) = self.0.get(i) {
            safe_arch::prefetch_t0(w);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }
}

impl Words for Atomics<'_> {
    #[inline(always)]
    fn get(&self, i: usize) -> u32 {
        self.0[i].load(Relaxed)
    }
    #[inline(always)]
    fn row(&self, i: usize) -> U32x32 {
        let mut out = U32x32::ZERO;
        self.row_into(i, &mut out);
        out
    }
    #[inline(always)]
    fn row_into(&self, i: usize, out: &mut U32x32) {
        // Word by word into the destination: relaxed atomic loads do not vectorise, and
        // gathering them in a temporary first would cost a store-forwarding stall.
        let src: &[AtomicU32; WARP_SIZE] = self.0[i..i + WARP_SIZE].try_into().expect("32 words");
        for (d, s) in out.words_mut().iter_mut().zip(src) {
            *d = s.load(Relaxed);
        }
    }
}

impl WordsMut for Atomics<'_> {
    #[inline(always)]
    fn set(&mut self, i: usize, v: u32) {
        self.0[i].store(v, Relaxed);
    }
    #[inline(always)]
    fn set_row(&mut self, i: usize, v: U32x32) {
        let dst: &[AtomicU32; WARP_SIZE] = self.0[i..i + WARP_SIZE].try_into().expect("32 words");
        for (d, v) in dst.iter().zip(v.words()) {
            d.store(*v, Relaxed);
        }
    }
    #[inline]
    fn update(&mut self, i: usize, f: impl Fn(u32) -> u32) -> u32 {
        match self.0[i].fetch_update(Relaxed, Relaxed, |v| Some(f(v))) {
            Ok(v) | Err(v) => v,
        }
    }
    fn update64(&mut self, i: usize, f: impl Fn(u64) -> u64) -> u64 {
        let stripe = (std::ptr::from_ref(&self.0[i]) as usize / 8) % WIDE_LOCKS.len();
        // A poisoned lock only means another block faulted while holding it: the words are
        // whole either way (each is written by one store).
        let _guard = WIDE_LOCKS[stripe]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let old = u64::from(self.0[i].load(Relaxed)) | u64::from(self.0[i + 1].load(Relaxed)) << 32;
        let new = f(old);
        self.0[i].store(new as u32, Relaxed);
        self.0[i + 1].store((new >> 32) as u32, Relaxed);
        old
    }
}

impl Words for [u32] {
    #[inline(always)]
    fn get(&self, i: usize) -> u32 {
        self[i]
    }
    #[inline(always)]
    fn row(&self, i: usize) -> U32x32 {
        let mut out = U32x32::ZERO;
        self.row_into(i, &mut out);
        out
    }
    #[inline(always)]
    fn row_into(&self, i: usize, out: &mut U32x32) {
        let src: &[u32; WARP_SIZE] = self[i..i + WARP_SIZE].try_into().expect("32 words");
        *out.words_mut() = *src;
    }
}

impl WordsMut for [u32] {
    #[inline(always)]
    fn set(&mut self, i: usize, v: u32) {
        self[i] = v;
    }
    #[inline(always)]
    fn set_row(&mut self, i: usize, v: U32x32) {
        let dst: &mut [u32; WARP_SIZE] =
            (&mut self[i..i + WARP_SIZE]).try_into().expect("32 words");
        *dst = *v.words();
    }
    #[inline]
    fn update(&mut self, i: usize, f: impl Fn(u32) -> u32) -> u32 {
        let old = self[i];
        self[i] = f(old);
        old
    }
    fn update64(&mut self, i: usize, f: impl Fn(u64) -> u64) -> u64 {
        let old = u64::from(self[i]) | u64::from(self[i + 1]) << 32;
        let new = f(old);
        self[i] = new as u32;
        self[i + 1] = (new >> 32) as u32;
        old
    }
}

// ----- elements ------------------------------------------------------------------------------------

mod sealed {
    pub trait Sealed {}
}

/// How an element sits in the registers of a block-wide value.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// 1 or 2 bytes, zero-extended into a 32-bit lane.
    Narrow,
    /// 4 bytes in a 32-bit lane.
    Word,
    /// 8 bytes in a 64-bit lane.
    Wide,
    /// Two 4-byte components, each its own value (`float2`).
    Pair,
    /// Four 4-byte components (`float4`).
    Quad,
}

/// The register form of an element, untyped.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Parts {
    pub(crate) r32: [R32; 4],
    pub(crate) r64: R64,
}

impl Parts {
    pub(crate) fn words(r32: [R32; 4]) -> Parts {
        Parts {
            r32,
            r64: R64::uniform(0),
        }
    }
    pub(crate) fn wide(r64: R64) -> Parts {
        Parts {
            r32: [R32::uniform(0); 4],
            r64,
        }
    }
}

/// A type that can live in device memory: 1, 2, 4, 8 or 16 bytes, naturally aligned.
///
/// In registers an element is a block-wide value ([`Element::Vals`]): `u8` and `u16` widen to
/// [`U32s`] as they do in a GPU's 32-bit registers, `[f32; 2]` and `[f32; 4]` (CUDA's `float2`
/// and `float4`) become arrays of [`F32s`]. Sealed: the set matches what the coalescing and
/// bank counters model.
pub trait Element:
    sealed::Sealed + Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static
{
    /// Size in bytes (also the required alignment).
    const SIZE: u32;
    /// The register form: a block-wide value (or an array of them) per element.
    type Vals: Merge;
    #[doc(hidden)]
    const LAYOUT: Layout;
    /// The element from its words (sub-word types in the low bits of word 0).
    fn from_words(w: [u32; 4]) -> Self;
    /// The element as words.
    fn to_words(self) -> [u32; 4];
    #[doc(hidden)]
    fn vals(p: Parts) -> Self::Vals;
    #[doc(hidden)]
    fn parts(v: Self::Vals) -> Parts;
}

macro_rules! element {
    ($t:ty, $size:literal, $layout:ident, $vals:ty, $to:expr, $from:expr, $mk:expr, $un:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const SIZE: u32 = $size;
            type Vals = $vals;
            const LAYOUT: Layout = Layout::$layout;
            #[inline(always)]
            fn from_words(w: [u32; 4]) -> Self {
                $from(w)
            }
            #[inline(always)]
            fn to_words(self) -> [u32; 4] {
                $to(self)
            }
            #[inline(always)]
            fn vals(p: Parts) -> $vals {
                $mk(p)
            }
            #[inline(always)]
            fn parts(v: $vals) -> Parts {
                $un(v)
            }
        }
    };
}

element!(
    u8,
    1,
    Narrow,
    U32s,
    |v: u8| [u32::from(v), 0, 0, 0],
    |w: [u32; 4]| w[0] as u8,
    |p: Parts| U32s(p.r32[0]),
    |v: U32s| Parts::words([v.0; 4])
);
element!(
    u16,
    2,
    Narrow,
    U32s,
    |v: u16| [u32::from(v), 0, 0, 0],
    |w: [u32; 4]| w[0] as u16,
    |p: Parts| U32s(p.r32[0]),
    |v: U32s| Parts::words([v.0; 4])
);
element!(
    u32,
    4,
    Word,
    U32s,
    |v: u32| [v, 0, 0, 0],
    |w: [u32; 4]| w[0],
    |p: Parts| U32s(p.r32[0]),
    |v: U32s| Parts::words([v.0; 4])
);
element!(
    i32,
    4,
    Word,
    I32s,
    |v: i32| [v as u32, 0, 0, 0],
    |w: [u32; 4]| w[0] as i32,
    |p: Parts| I32s(p.r32[0]),
    |v: I32s| Parts::words([v.0; 4])
);
element!(
    f32,
    4,
    Word,
    F32s,
    |v: f32| [v.to_bits(), 0, 0, 0],
    |w: [u32; 4]| f32::from_bits(w[0]),
    |p: Parts| F32s(p.r32[0]),
    |v: F32s| Parts::words([v.0; 4])
);
element!(
    u64,
    8,
    Wide,
    U64s,
    |v: u64| [v as u32, (v >> 32) as u32, 0, 0],
    |w: [u32; 4]| u64::from(w[0]) | (u64::from(w[1]) << 32),
    |p: Parts| U64s(p.r64),
    |v: U64s| Parts::wide(v.0)
);
element!(
    f64,
    8,
    Wide,
    F64s,
    |v: f64| {
        let b = v.to_bits();
        [b as u32, (b >> 32) as u32, 0, 0]
    },
    |w: [u32; 4]| f64::from_bits(u64::from(w[0]) | (u64::from(w[1]) << 32)),
    |p: Parts| F64s(p.r64),
    |v: F64s| Parts::wide(v.0)
);
element!(
    [f32; 2],
    8,
    Pair,
    [F32s; 2],
    |v: [f32; 2]| [v[0].to_bits(), v[1].to_bits(), 0, 0],
    |w: [u32; 4]| [f32::from_bits(w[0]), f32::from_bits(w[1])],
    |p: Parts| [F32s(p.r32[0]), F32s(p.r32[1])],
    |v: [F32s; 2]| Parts::words([v[0].0, v[1].0, v[0].0, v[0].0])
);
element!(
    [f32; 4],
    16,
    Quad,
    [F32s; 4],
    |v: [f32; 4]| v.map(f32::to_bits),
    |w: [u32; 4]| w.map(f32::from_bits),
    |p: Parts| p.r32.map(F32s),
    |v: [F32s; 4]| Parts::words(v.map(|x| x.0))
);

/// Read the element at byte offset `byte` (a multiple of `T::SIZE`) of `words`.
#[inline(always)]
pub(crate) fn read_elem<T: Element, W: Words + ?Sized>(words: &W, byte: usize) -> T {
    T::from_words(read_words(words, byte, T::SIZE))
}

/// The words of the `size`-byte element at byte `byte` (sub-word elements shifted down).
#[inline(always)]
pub(crate) fn read_words<W: Words + ?Sized>(words: &W, byte: usize, size: u32) -> [u32; 4] {
    let i = byte / 4;
    match size {
        1 | 2 => {
            let v = words.get(i) >> ((byte % 4) * 8);
            [if size == 1 { v & 0xff } else { v & 0xffff }, 0, 0, 0]
        }
        4 => [words.get(i), 0, 0, 0],
        8 => [words.get(i), words.get(i + 1), 0, 0],
        _ => [
            words.get(i),
            words.get(i + 1),
            words.get(i + 2),
            words.get(i + 3),
        ],
    }
}

/// Write the element at byte offset `byte` (a multiple of `T::SIZE`) of `words`.
#[inline(always)]
pub(crate) fn write_elem<T: Element, W: WordsMut + ?Sized>(words: &mut W, byte: usize, v: T) {
    write_words(words, byte, T::SIZE, v.to_words());
}

/// Write the words of a `size`-byte element at byte `byte`.
#[inline(always)]
pub(crate) fn write_words<W: WordsMut + ?Sized>(
    words: &mut W,
    byte: usize,
    size: u32,
    w: [u32; 4],
) {
    let i = byte / 4;
    match size {
        1 | 2 => {
            let shift = (byte % 4) * 8;
            let field = if size == 1 { 0xffu32 } else { 0xffff } << shift;
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

// ----- buffers and one warp's access ---------------------------------------------------------------

/// What the counters, the checks and the fault report need to know about a buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target<'n> {
    pub space: Space,
    /// Constant memory (`__constant__`): read through the constant cache, not counted as global
    /// loads.
    pub constant: bool,
    pub name: &'n str,
    /// Elements in the view.
    pub len: usize,
    /// Address of element 0 (device address, or byte offset in shared memory).
    pub base: u64,
    pub elem: u32,
}

impl Target<'_> {
    /// The address of element `index`.
    pub fn address(&self, index: u32) -> u64 {
        self.base
            .wrapping_add(u64::from(index) * u64::from(self.elem))
    }
}

/// The element index each lane of one warp uses.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WarpIdx<'r> {
    /// Lane `l` uses `start + step·l` (wrapping); `step` 1 is the coalesced case.
    Affine { start: u32, step: u32 },
    /// Any indices (borrowed: a lane vector is 128 bytes).
    Lanes(&'r U32x32),
}

impl WarpIdx<'_> {
    /// Every lane's index.
    #[inline(always)]
    pub fn vector(&self) -> U32x32 {
        match *self {
            WarpIdx::Affine { start, step } => IOTA * step + start,
            WarpIdx::Lanes(v) => *v,
        }
    }

    /// Lane `l`'s index.
    #[inline(always)]
    pub fn lane(&self, l: u32) -> u32 {
        match *self {
            WarpIdx::Affine { start, step } => start.wrapping_add(step.wrapping_mul(l)),
            WarpIdx::Lanes(v) => v.lane(l as usize & 31),
        }
    }

    /// The lanes of `mask` whose index is not below `len`.
    #[inline(always)]
    pub fn out_of_bounds(&self, mask: u32, len: usize) -> u32 {
        let Ok(len) = u32::try_from(len) else {
            return 0;
        };
        mask & !self.vector().lt(len).0
    }

    /// `Some(first index)` when the lanes of `mask` use `first + l` for lane `l` without
    /// wrapping: one contiguous run of elements.
    #[inline(always)]
    pub fn contiguous(&self, mask: u32) -> Option<u32> {
        match *self {
            WarpIdx::Affine { start, step: 1 }
                if mask != 0
                    && u64::from(start) + u64::from(31 - mask.leading_zeros())
                        <= u64::from(u32::MAX) =>
            {
                Some(start)
            }
            _ => None,
        }
    }

    /// Whether the lanes of `mask` use increasing indices (an affine walk that does not wrap).
    #[inline(always)]
    pub fn increasing(&self, mask: u32) -> bool {
        match *self {
            WarpIdx::Affine { start, step } => {
                mask != 0
                    && u64::from(start) + u64::from(step) * u64::from(31 - mask.leading_zeros())
                        <= u64::from(u32::MAX)
            }
            WarpIdx::Lanes(_) => false,
        }
    }
}

/// One warp's part of a block's memory instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WarpAccess<'r> {
    pub warp: u32,
    /// The lanes that access (active and, in check mode, valid).
    pub mask: u32,
    pub idx: WarpIdx<'r>,
}

impl WarpAccess<'_> {
    /// Whether the access covers whole lanes `0..32` contiguously.
    #[inline(always)]
    pub fn full_run(&self) -> Option<u32> {
        if self.mask == u32::MAX {
            self.idx.contiguous(self.mask)
        } else {
            None
        }
    }

    /// The lanes, lowest first.
    #[inline]
    pub fn lanes(&self) -> impl Iterator<Item = u32> {
        Mask(self.mask).lanes()
    }
}

/// A buffer a kernel can access: [`Global`] or [`Shared`]. Sealed.
pub trait Memory: sealed::Sealed {
    /// The element type.
    type Elem: Element;
    #[doc(hidden)]
    fn place(&self) -> Place<'_>;
}

/// Where a buffer lives (for the executor).
#[doc(hidden)]
pub struct Place<'a>(pub(crate) PlaceKind<'a>);

pub(crate) enum PlaceKind<'a> {
    Global(&'a global::Allocation, usize, usize),
    /// Byte offset in the arena, elements, name.
    Shared(usize, usize, &'a str),
}
