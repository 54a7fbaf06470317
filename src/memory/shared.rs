//! Shared memory and the bank counter.
//!
//! Each block has an arena of 4-byte words, private to the block and zeroed before it starts (so
//! results never depend on which block ran before on the same CPU thread). A kernel declares
//! static arrays with [`crate::Warp::shared`]: every warp makes the same declarations in the same
//! order and gets the same arrays, like `__shared__` variables. The launch's dynamic size is
//! [`crate::Warp::dynamic_shared`] (`extern __shared__`), placed at offset 0; static arrays
//! follow it, each aligned to 16 bytes.
//!
//! **Banks.** Shared memory has 32 banks of 4 bytes (16 on sm_13): word `w` is in bank
//! `w % banks`. One warp-level access is served in *wavefronts*: the largest number of distinct
//! words any one bank must deliver (lanes reading the same word share it: a broadcast). The
//! ideal is the fewest wavefronts that many distinct words could need, `ceil(words / banks)`:
//! 1 for 4-byte elements, 2 for 8-byte and 4 for 16-byte elements of a full warp. *Bank
//! conflicts* are wavefronts minus ideal, and the access is an *n-way* conflict with
//! `n = ceil(wavefronts / ideal)`. On sm_13 each half-warp is a separate request.

use super::{Access, AtomicElement, Element, Memory, Target, gather, rmw, scatter, sealed};
use crate::error::{AccessKind, Error, Space};
use crate::lanes::U32x32;
use crate::metrics::Counters;
use crate::warp::Warp;
use rand::{RngExt, SeedableRng, rngs::SmallRng};
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;

/// Static arrays and dynamic size are 16-byte aligned, as nvcc aligns `float4` arrays.
const ALIGN: usize = 16;

/// A block's shared memory: the words and the static declarations made so far.
pub(crate) struct Arena {
    words: Vec<Cell<u32>>,
    /// Instruction-granularity exploration ([`crate::WarpOrder::Interleaved`]), when on.
    interleave: Option<Interleave>,
    /// Bytes in use: the dynamic part plus the static arrays declared so far.
    used: Cell<usize>,
    /// The highest `used` since the words were last zeroed.
    dirty: Cell<usize>,
    dynamic: usize,
    statics: RefCell<Vec<StaticArray>>,
}

#[derive(Clone, Copy)]
struct StaticArray {
    offset: usize,
    len: usize,
    elem: u32,
}

impl Arena {
    /// An arena of `limit` bytes whose first `dynamic` bytes are the launch's dynamic part.
    pub fn new(limit: usize, dynamic: usize, interleave: bool) -> Arena {
        let words = limit.div_ceil(4);
        Arena {
            words: (0..words).map(|_| Cell::new(0)).collect(),
            interleave: interleave.then(|| Interleave::new(words)),
            used: Cell::new(dynamic.next_multiple_of(ALIGN)),
            dirty: Cell::new(dynamic),
            dynamic,
            statics: RefCell::new(Vec::new()),
        }
    }

    /// Forget the static arrays and zero every word the previous block used; `seed` seeds this
    /// block's interleaving choices.
    pub fn reset(&self, seed: u64) {
        if let Some(il) = &self.interleave {
            il.reset(seed);
        }
        let dirty = self.dirty.get().div_ceil(4).min(self.words.len());
        for w in &self.words[..dirty] {
            w.set(0);
        }
        self.used.set(self.dynamic.next_multiple_of(ALIGN));
        self.dirty.set(self.dynamic);
        self.statics.borrow_mut().clear();
    }

    /// Bytes of shared memory the block uses (dynamic plus static).
    pub fn bytes_used(&self) -> usize {
        let statics = self.statics.borrow();
        statics
            .last()
            .map_or(self.dynamic, |s| s.offset + s.len * s.elem as usize)
    }

    /// The `k`-th static array of the block, declared now if this is the first warp to reach it.
    pub fn declare(&self, k: usize, len: usize, elem: u32) -> Result<usize, String> {
        let mut statics = self.statics.borrow_mut();
        if let Some(s) = statics.get(k) {
            if s.len != len || s.elem != elem {
                return Err(format!(
                    "static shared array #{k} was declared as {} elements of {} bytes by an \
                     earlier warp and as {len} elements of {elem} bytes now; every warp must \
                     declare the same arrays in the same order",
                    s.len, s.elem
                ));
            }
            return Ok(s.offset);
        }
        let offset = self.used.get();
        let end = len
            .checked_mul(elem as usize)
            .and_then(|b| b.checked_add(offset))
            .unwrap_or(usize::MAX);
        if end > self.words.len() * 4 {
            return Err(format!(
                "static shared array #{k} ({len} × {elem} bytes) needs {end} bytes of shared \
                 memory in all, over the profile's limit of {} bytes per block; use smaller \
                 arrays or another profile",
                self.words.len() * 4
            ));
        }
        statics.push(StaticArray { offset, len, elem });
        self.used.set(end.next_multiple_of(ALIGN));
        self.dirty.set(self.dirty.get().max(end));
        Ok(offset)
    }

    /// Words in the arena.
    pub fn words_len(&self) -> usize {
        self.words.len()
    }

    pub fn dynamic_bytes(&self) -> usize {
        self.dynamic
    }
}

/// A typed view of a block's shared memory (`__shared__ T a[len]`).
///
/// Obtained from [`crate::Warp::shared`] or [`crate::Warp::dynamic_shared`]; `Copy`, so branch
/// bodies can capture it.
pub struct Shared<'a, T: Element> {
    arena: &'a Arena,
    /// Byte offset of element 0 in the arena.
    offset: usize,
    len: usize,
    name: &'static str,
    _elem: PhantomData<fn() -> T>,
}

impl<T: Element> Clone for Shared<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for Shared<'_, T> {}

impl<T: Element> std::fmt::Debug for Shared<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("name", &self.name)
            .field("offset", &self.offset)
            .field("len", &self.len)
            .finish()
    }
}

impl<'a, T: Element> Shared<'a, T> {
    pub(crate) fn new(arena: &'a Arena, offset: usize, len: usize, name: &'static str) -> Self {
        Shared {
            arena,
            offset,
            len,
            name,
            _elem: PhantomData,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Byte offset of element 0 in the block's shared memory (what decides its banks).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The same bytes viewed as elements of `U`; a misaligned view faults when accessed.
    pub fn cast<U: Element>(&self) -> Shared<'a, U> {
        Shared::new(
            self.arena,
            self.offset,
            self.len * T::SIZE as usize / U::SIZE as usize,
            self.name,
        )
    }

    fn target(&self) -> Target<'static> {
        Target {
            space: Space::Shared,
            name: self.name,
            len: self.len,
            base: self.offset as u64,
            elem: T::SIZE,
        }
    }
}

impl<T: Element> sealed::Sealed for Shared<'_, T> {}

impl<T: Element> Memory for Shared<'_, T> {
    type Elem = T;

    #[inline]
    fn load_lanes(&self, w: &mut Warp<'_>, idx: U32x32) -> T::Lanes {
        let t = self.target();
        let Some(a) = w.begin_access(&t, idx, AccessKind::Load) else {
            return T::Lanes::default();
        };
        let banks = w.bank_geometry();
        if let Some(c) = w.counters() {
            let (wf, ideal) = count_banks(c, banks, &t, &a);
            c.shared_ld_requests += 1;
            c.shared_ld_wavefronts += wf;
            c.shared_ld_ideal += ideal;
        }
        let v = gather::<T, _>(&self.arena.words[..], self.offset, &a);
        match &self.arena.interleave {
            Some(il) if T::SIZE >= 4 => il.on_load::<T>(v, w, self.offset, &a),
            _ => v,
        }
    }

    #[inline]
    fn store_lanes(&self, w: &mut Warp<'_>, idx: U32x32, v: T::Lanes) {
        let t = self.target();
        let Some(a) = w.begin_access(&t, idx, AccessKind::Store) else {
            return;
        };
        let banks = w.bank_geometry();
        if let Some(c) = w.counters() {
            let (wf, ideal) = count_banks(c, banks, &t, &a);
            c.shared_st_requests += 1;
            c.shared_st_wavefronts += wf;
            c.shared_st_ideal += ideal;
        }
        if let Some(il) = &self.arena.interleave {
            il.before_store(&self.arena.words, w, self.offset, T::SIZE, &a);
        }
        scatter::<T, _>(&self.arena.words[..], self.offset, &a, v);
    }

    fn atomic_lanes(&self, w: &mut Warp<'_>, idx: U32x32, op: &dyn Fn(T, usize) -> T) -> T::Lanes
    where
        T: AtomicElement,
    {
        let t = self.target();
        let Some(a) = w.begin_access(&t, idx, AccessKind::Atomic) else {
            return T::Lanes::default();
        };
        if let Some(c) = w.counters() {
            c.atomic_requests += 1;
        }
        rmw::<T, _>(&self.arena.words[..], self.offset, &a, op)
    }
}

/// Instruction-granularity exploration of one block's shared memory.
///
/// Warps run from barrier to barrier without preemption, so a load always sees every store
/// another warp made earlier in the interval. On a GPU the load may have executed before some of
/// those stores. With [`crate::WarpOrder::Interleaved`] each word remembers its value from before
/// the interval's first store, and a load of a word another warp stored in the same interval
/// returns, by a seeded coin flip, that earlier value: as if the load had been scheduled before
/// the store.
struct Interleave {
    rng: RefCell<SmallRng>,
    words: RefCell<Vec<Before>>,
    dirty: RefCell<Vec<u32>>,
}

/// A word's value before the first store of a barrier interval.
#[derive(Clone, Copy, Default)]
struct Before {
    /// The interval, numbered from 1 (0: not stored in any yet).
    interval: u64,
    /// The warp that stored first.
    writer: u32,
    value: u32,
}

impl Interleave {
    fn new(words: usize) -> Interleave {
        Interleave {
            rng: RefCell::new(SmallRng::seed_from_u64(0)),
            words: RefCell::new(vec![Before::default(); words]),
            dirty: RefCell::new(Vec::new()),
        }
    }

    fn reset(&self, seed: u64) {
        *self.rng.borrow_mut() = SmallRng::seed_from_u64(seed);
        let mut words = self.words.borrow_mut();
        for &i in self.dirty.borrow().iter() {
            words[i as usize] = Before::default();
        }
        self.dirty.borrow_mut().clear();
    }

    /// The words of lane `l`'s element.
    fn element_words(base: usize, size: u32, a: &Access, l: u32) -> std::ops::Range<usize> {
        let first = (base + a.index(l) as usize * size as usize) / 4;
        first..first + (size as usize).div_ceil(4)
    }

    fn before_store(&self, cells: &[Cell<u32>], w: &Warp<'_>, base: usize, size: u32, a: &Access) {
        let interval = w.block.barrier.generation.get() + 1;
        let mut words = self.words.borrow_mut();
        for l in a.mask.lanes() {
            for i in Self::element_words(base, size, a, l) {
                if words[i].interval != interval {
                    if words[i].interval == 0 {
                        self.dirty.borrow_mut().push(i as u32);
                    }
                    words[i] = Before {
                        interval,
                        writer: w.warp_id(),
                        value: cells[i].get(),
                    };
                }
            }
        }
    }

    fn on_load<T: Element>(&self, v: T::Lanes, w: &Warp<'_>, base: usize, a: &Access) -> T::Lanes {
        let interval = w.block.barrier.generation.get() + 1;
        let words = self.words.borrow();
        let mut rng = self.rng.borrow_mut();
        let mut vals = T::unpack(v);
        let mut changed = false;
        for l in a.mask.lanes() {
            let mut parts = vals[l as usize].to_words();
            for (k, i) in Self::element_words(base, T::SIZE, a, l).enumerate() {
                let b = words[i];
                if b.interval == interval && b.writer != w.warp_id() && rng.random::<bool>() {
                    parts[k] = b.value;
                    changed = true;
                }
            }
            vals[l as usize] = T::from_words(parts);
        }
        if changed { T::pack(vals) } else { v }
    }
}

/// Banks and lanes per request of the running profile.
#[derive(Clone, Copy)]
pub(crate) struct BankGeometry {
    pub banks: u32,
    pub request_lanes: u32,
}

/// Wavefronts and ideal wavefronts of one access; records its n-way degree per request.
fn count_banks(c: &mut Counters, g: BankGeometry, t: &Target<'_>, a: &Access) -> (u64, u64) {
    let (mut wavefronts, mut ideal) = (0, 0);
    let group_bits = if g.request_lanes >= 32 {
        u32::MAX
    } else {
        (1u32 << g.request_lanes) - 1
    };
    for group in 0..32 / g.request_lanes.max(1) {
        let shift = group * g.request_lanes;
        let mask = a.mask.0 & (group_bits << shift);
        if mask == 0 {
            continue;
        }
        let (wf, id) = group_wavefronts(g.banks, t, a, mask);
        wavefronts += wf;
        ideal += id;
        c.shared_conflict_ways[wf.div_ceil(id).clamp(1, 32) as usize - 1] += 1;
    }
    (wavefronts, ideal)
}

/// (wavefronts, ideal) for the lanes of `mask`.
fn group_wavefronts(banks: u32, t: &Target<'_>, a: &Access, mask: u32) -> (u64, u64) {
    let words_per = t.elem.div_ceil(4) as usize;
    let banks = banks as usize;
    if a.contiguous_from.is_some() && t.elem >= 4 {
        // A run of k consecutive words puts ceil(k / banks) words in the busiest bank.
        let k = mask.count_ones() as usize * words_per;
        let wf = k.div_ceil(banks) as u64;
        return (wf, wf);
    }
    let mut words = [0u32; 128];
    let mut n = 0;
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let first = (t.base as usize + a.index(l as u32) as usize * t.elem as usize) / 4;
        for k in 0..words_per {
            words[n] = (first + k) as u32;
            n += 1;
        }
    }
    let words = &mut words[..n];
    words.sort_unstable();
    let mut per_bank = [0u8; 32];
    let mut distinct = 0;
    for (i, &w) in words.iter().enumerate() {
        if i == 0 || w != words[i - 1] {
            distinct += 1;
            per_bank[w as usize % banks] += 1;
        }
    }
    let wf = u64::from(*per_bank.iter().max().unwrap_or(&1));
    (wf, (distinct as u64).div_ceil(banks as u64))
}

/// Fault for a failed static declaration.
pub(crate) fn declaration_error(w: &Warp<'_>, reason: String) -> Error {
    Error::SharedMemory {
        kernel: w.launch.name.clone(),
        block: w.block_idx(),
        reason,
    }
}
