//! Shared memory and the bank counter.
//!
//! Each block has an arena of 4-byte words, private to the block and zeroed before it starts (so
//! results never depend on which block ran before on the same CPU thread). A kernel declares
//! static arrays with [`crate::Block::shared`], in the order it reaches them, like `__shared__`
//! variables; the launch's dynamic size is [`crate::Block::dynamic_shared`] (`extern
//! __shared__`), placed at offset 0; static arrays follow it, each aligned to 16 bytes.
//!
//! **Banks.** Shared memory has 32 banks of 4 bytes (16 on sm_13): word `w` is in bank
//! `w % banks`. One warp-level access is served in *wavefronts*: the largest number of distinct
//! words any one bank must deliver (lanes reading the same word share it: a broadcast). The
//! ideal is the fewest wavefronts that many distinct words could need, `ceil(words / banks)`:
//! 1 for 4-byte elements, 2 for 8-byte and 4 for 16-byte elements of a full warp. *Bank
//! conflicts* are wavefronts minus ideal, and the access is an *n-way* conflict with
//! `n = ceil(wavefronts / ideal)`. On sm_13 each half-warp is a separate request.

use super::{Element, Memory, Place, PlaceKind, Target, WarpAccess, WarpIdx, sealed};
use crate::error::Space;
use crate::lanes::{Mask, WARP_SIZE};
use rand::{RngExt, SeedableRng, rngs::SmallRng};
use std::marker::PhantomData;

/// Static arrays and dynamic size are 16-byte aligned, as nvcc aligns `float4` arrays.
const ALIGN: usize = 16;

/// Words past the profile's limit that no array holds (always zero): a warp's row of elements
/// of up to 8 bytes whose first lane is inside an array can be read whole, the compiled tier
/// dropping the lanes past the array that do not execute.
pub(crate) const SLACK_WORDS: usize = 64;

/// A block's shared memory: the words and the static declarations made so far.
pub(crate) struct Arena {
    pub words: Vec<u32>,
    /// Instruction-granularity exploration ([`crate::WarpOrder::Interleaved`]), when on.
    pub interleave: Option<Interleave>,
    /// Bytes in use: the dynamic part plus the static arrays declared so far.
    used: usize,
    /// The highest `used` since the words were last zeroed.
    dirty: usize,
    dynamic: usize,
    /// End of the last static array (bytes the block uses).
    end: usize,
    /// Static arrays declared so far.
    declared: usize,
    /// The profile's limit in bytes (the words hold [`SLACK_WORDS`] more).
    limit: usize,
}

impl Arena {
    /// An arena of `limit` bytes whose first `dynamic` bytes are the launch's dynamic part.
    pub fn new(limit: usize, dynamic: usize, interleave: bool) -> Arena {
        let words = limit.div_ceil(4) + SLACK_WORDS;
        Arena {
            words: vec![0; words],
            interleave: interleave.then(|| Interleave::new(words)),
            used: dynamic.next_multiple_of(ALIGN),
            dirty: dynamic,
            dynamic,
            end: dynamic,
            declared: 0,
            limit,
        }
    }

    /// Forget the static arrays and zero every word the previous block used; `seed` seeds this
    /// block's interleaving choices.
    pub fn reset(&mut self, seed: u64) {
        if let Some(il) = &mut self.interleave {
            il.reset(seed);
        }
        let dirty = self.dirty.div_ceil(4).min(self.words.len());
        self.words[..dirty].fill(0);
        self.used = self.dynamic.next_multiple_of(ALIGN);
        self.dirty = self.dynamic;
        self.end = self.dynamic;
        self.declared = 0;
    }

    /// Bytes of shared memory the block uses (dynamic plus static).
    pub fn bytes_used(&self) -> usize {
        self.end
    }

    /// A new static array of `len` elements of `elem` bytes: its byte offset.
    pub fn declare(&mut self, len: usize, elem: u32) -> Result<usize, String> {
        let offset = self.used;
        let end = len
            .checked_mul(elem as usize)
            .and_then(|b| b.checked_add(offset))
            .unwrap_or(usize::MAX);
        if end > self.limit {
            return Err(format!(
                "static shared array #{} ({len} × {elem} bytes) needs {end} bytes of shared \
                 memory in all, over the profile's limit of {} bytes per block; use smaller \
                 arrays or another profile",
                self.declared, self.limit
            ));
        }
        self.declared += 1;
        self.used = end.next_multiple_of(ALIGN);
        self.dirty = self.dirty.max(end);
        self.end = end;
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
/// Obtained from [`crate::Block::shared`] or [`crate::Block::dynamic_shared`]; `Copy`, so
/// branch bodies can capture it.
pub struct Shared<T: Element> {
    view: SharedView,
    _elem: PhantomData<fn() -> T>,
}

/// A shared array, untyped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SharedView {
    /// Byte offset of element 0 in the arena.
    pub offset: usize,
    /// Elements.
    pub len: usize,
    pub name: &'static str,
}

impl<T: Element> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for Shared<T> {}

impl<T: Element> std::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("name", &self.view.name)
            .field("offset", &self.view.offset)
            .field("len", &self.view.len)
            .finish()
    }
}

impl<T: Element> Shared<T> {
    pub(crate) fn new(offset: usize, len: usize, name: &'static str) -> Self {
        Shared {
            view: SharedView { offset, len, name },
            _elem: PhantomData,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.view.len
    }

    /// True if the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.view.len == 0
    }

    /// Byte offset of element 0 in the block's shared memory (what decides its banks).
    pub fn offset(&self) -> usize {
        self.view.offset
    }

    /// The same bytes viewed as elements of `U`; a misaligned view faults when accessed.
    pub fn cast<U: Element>(&self) -> Shared<U> {
        Shared::new(
            self.view.offset,
            self.view.len * T::SIZE as usize / U::SIZE as usize,
            self.view.name,
        )
    }

    /// The elements from `start` on (`&a[start]` as a new array); an out-of-range start gives
    /// an empty view.
    pub fn offset_by(&self, start: usize) -> Shared<T> {
        let start = start.min(self.view.len);
        Shared::new(
            self.view.offset + start * T::SIZE as usize,
            self.view.len - start,
            self.view.name,
        )
    }
}

/// The target of a shared array at byte `offset` with `len` elements of `elem` bytes.
pub(crate) fn target(offset: usize, len: usize, name: &str, elem: u32) -> Target<'_> {
    Target {
        constant: false,
        space: Space::Shared,
        name,
        len,
        base: offset as u64,
        elem,
    }
}

impl<T: Element> sealed::Sealed for Shared<T> {}

impl<T: Element> Memory for Shared<T> {
    type Elem = T;
    #[inline]
    fn place(&self) -> Place<'_> {
        Place(PlaceKind::Shared(
            self.view.offset,
            self.view.len,
            self.view.name,
        ))
    }
}

/// Instruction-granularity exploration of one block's shared memory.
///
/// The block's warps execute each instruction one after another, so a load always sees every
/// store another warp made earlier in program order. On a GPU the load may have executed before
/// some of those stores, until a barrier orders them. With [`crate::WarpOrder::Interleaved`]
/// each word remembers its value from before the barrier interval's first store, and a load of a
/// word another warp stored in the same interval returns, by a seeded coin flip, that earlier
/// value: as if the load had been scheduled before the store.
pub(crate) struct Interleave {
    rng: SmallRng,
    words: Vec<Before>,
    dirty: Vec<u32>,
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
            rng: SmallRng::seed_from_u64(0),
            words: vec![Before::default(); words],
            dirty: Vec::new(),
        }
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        for &i in &self.dirty {
            self.words[i as usize] = Before::default();
        }
        self.dirty.clear();
    }

    /// The words of lane `l`'s element.
    fn element_words(t: &Target<'_>, a: &WarpAccess<'_>, l: u32) -> std::ops::Range<usize> {
        let first = t.address(a.idx.lane(l)) as usize / 4;
        first..first + (t.elem as usize).div_ceil(4)
    }

    /// Before warp `a.warp` stores: remember the words' values from before the interval.
    pub fn before_store(
        &mut self,
        cells: &[u32],
        interval: u64,
        t: &Target<'_>,
        a: &WarpAccess<'_>,
    ) {
        for l in a.lanes() {
            for i in Self::element_words(t, a, l) {
                if self.words[i].interval != interval {
                    if self.words[i].interval == 0 {
                        self.dirty.push(i as u32);
                    }
                    self.words[i] = Before {
                        interval,
                        writer: a.warp,
                        value: cells[i],
                    };
                }
            }
        }
    }

    /// After warp `a.warp` loaded `got[l]` (each lane's element words): maybe replace words
    /// another warp stored in this interval by their earlier values.
    pub fn on_load(
        &mut self,
        interval: u64,
        t: &Target<'_>,
        a: &WarpAccess<'_>,
        got: &mut [[u32; 4]; 32],
    ) {
        for l in a.lanes() {
            for (k, i) in Self::element_words(t, a, l).enumerate() {
                let b = self.words[i];
                if b.interval == interval && b.writer != a.warp && self.rng.random::<bool>() {
                    got[l as usize][k] = b.value;
                }
            }
        }
    }
}

/// Banks and lanes per request of the running profile.
#[derive(Clone, Copy)]
pub(crate) struct BankGeometry {
    pub banks: u32,
    pub request_lanes: u32,
}

/// (wavefronts, ideal wavefronts) of each request of one warp's access: one request per warp,
/// or per half-warp where the profile serves 16 lanes at a time.
pub(crate) fn wavefronts(
    g: BankGeometry,
    t: &Target<'_>,
    a: &WarpAccess<'_>,
    mut each: impl FnMut(u64, u64),
) {
    // Request sizes and bank counts are powers of two up to 32 (the launch refuses other
    // profiles): shifts, not divisions, on this per-access path.
    let lanes = g.request_lanes.clamp(1, 32);
    let group_bits = if lanes >= 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    };
    for group in 0..(WARP_SIZE as u32) >> lanes.trailing_zeros() {
        let mask = a.mask & (group_bits << (group * lanes));
        if mask != 0 {
            let (wf, ideal) = group_wavefronts(g.banks, t, a, mask);
            each(wf, ideal);
        }
    }
}

/// (wavefronts, ideal) for the lanes of `mask`.
#[inline(always)]
fn group_wavefronts(banks: u32, t: &Target<'_>, a: &WarpAccess<'_>, mask: u32) -> (u64, u64) {
    let words_per = t.elem.div_ceil(4) as usize;
    let banks = banks as usize;
    // ceil(k / banks) for k distinct consecutive words.
    let spread = |k: usize| ((k + banks - 1) >> banks.trailing_zeros()) as u64;
    if t.elem >= 4 && Mask(mask).is_contiguous() && a.idx.contiguous(mask).is_some() {
        // A run of k consecutive words puts ceil(k / banks) words in the busiest bank.
        let wf = spread(mask.count_ones() as usize * words_per);
        return (wf, wf);
    }
    // (1- and 2-byte elements share words: the general path below finds the distinct words.)
    if let WarpIdx::Affine { start, step } = a.idx
        && t.elem >= 4
        && step != 0
        && a.idx.increasing(mask)
        && t.base.is_multiple_of(4)
    {
        // Distinct elements at a constant stride: every word is distinct, so the busiest bank
        // is found by counting, without sorting.
        let ideal = spread(mask.count_ones() as usize * words_per);
        if step == 1 && words_per == 1 && banks >= WARP_SIZE {
            // At most 32 consecutive words, some lanes idle: no two in one bank.
            return (ideal, ideal);
        }
        let first = (t.base / 4) as usize + start as usize * words_per;
        let stride = step as usize * words_per;
        let bank = banks - 1;
        let mut per_bank = [0u8; 32];
        for l in Mask(mask).lanes() {
            let w = first + l as usize * stride;
            for k in 0..words_per {
                per_bank[(w + k) & bank] += 1;
            }
        }
        let wf = u64::from(*per_bank.iter().max().unwrap_or(&1));
        return (wf, ideal);
    }
    sorted_wavefronts(banks, t, a, mask, words_per)
}

/// [`group_wavefronts`] for any indices: the distinct words, sorted, counted per bank. Out of
/// line, so that the common paths above stay small.
#[inline(never)]
fn sorted_wavefronts(
    banks: usize,
    t: &Target<'_>,
    a: &WarpAccess<'_>,
    mask: u32,
    words_per: usize,
) -> (u64, u64) {
    let mut words = [0u32; 128];
    let mut n = 0;
    for l in Mask(mask).lanes() {
        let first = t.address(a.idx.lane(l)) as usize / 4;
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
            per_bank[w as usize & (banks - 1)] += 1;
        }
    }
    let wf = u64::from(*per_bank.iter().max().unwrap_or(&1));
    (wf, (distinct as u64).div_ceil(banks as u64))
}
