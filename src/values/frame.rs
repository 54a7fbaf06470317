//! The register file of the running block, and the drivers every value operation goes through.
//!
//! A block runs on one CPU thread, so the values of the block that thread is running live in a
//! thread-local [`Frame`]: rows of 32 lanes (one row per warp for a 32-bit value, two for a
//! 64-bit one), the current per-warp active masks, and the instruction tally. Value handles are
//! small `Copy` descriptors ([`R32`], [`R64`]): either an affine form `a + b·warp + c·lane` that
//! needs no storage (thread indices, uniform constants and what is computed from them by `+`,
//! `-` and multiplication by a uniform), or a [`Slot`] of rows.
//!
//! Slots are allocated on a stack. The executor reclaims what a divergent construct allocated
//! when the construct ends, after moving its result down ([`compact`](super::compact)); that is why a
//! handle carries a generation: a handle that outlived its construct (smuggled out through a
//! `Cell`, say) no longer matches its row and is reported instead of reading another value.
//! Generations are unique per thread and block, so a handle from another block or thread never
//! matches either.
//!
//! Every operation is one warp instruction for each warp with an active lane; it computes the
//! warps that have one and leaves the rows of the others unwritten (no lane of them can be
//! observed: see the module documentation of [`crate::values`]).

use crate::lanes::{IOTA, U32x32};
use crate::site::Site;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};

/// Most warps a block can have (1024 threads).
pub(crate) const MAX_WARPS: usize = 32;

/// Per-warp lane masks of a block: entry `w` is warp `w`'s mask (bit `l` is lane `l`).
pub(crate) type Masks = [u32; MAX_WARPS];

/// Rows of a frame-resident value and the generation that proves the handle current.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub row: u32,
    pub generation: u64,
}

/// A block-wide 32-bit value: `a + b·warp + c·lane` (wrapping), or rows of a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum R32 {
    Aff { a: u32, b: u32, c: u32 },
    Slot(Slot),
}

/// A block-wide 64-bit value: `a + b·warp + c·lane` (wrapping), or two rows per warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum R64 {
    Aff { a: u64, b: u64, c: u64 },
    Slot(Slot),
}

impl R32 {
    /// The uniform value `v`.
    pub const fn uniform(v: u32) -> R32 {
        R32::Aff { a: v, b: 0, c: 0 }
    }
    /// The value, if every lane of every warp holds the same one.
    pub fn as_uniform(self) -> Option<u32> {
        match self {
            R32::Aff { a, b: 0, c: 0 } => Some(a),
            _ => None,
        }
    }
}

impl R64 {
    /// The uniform value `v`.
    pub const fn uniform(v: u64) -> R64 {
        R64::Aff { a: v, b: 0, c: 0 }
    }
    /// The value, if every lane of every warp holds the same one.
    pub fn as_uniform(self) -> Option<u64> {
        match self {
            R64::Aff { a, b: 0, c: 0 } => Some(a),
            _ => None,
        }
    }
}

/// Instruction counts of one source site (see [`Frame::tally`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OpTally {
    pub ops: u64,
    pub lane_ops: u64,
}

/// The running block's values and masks.
pub(crate) struct Frame {
    pub rows: Vec<U32x32>,
    /// Generation of the slot starting at each row (0: none).
    gens: Vec<u64>,
    /// Rows in use.
    pub top: usize,
    /// This thread's generations are `id << 40 | n`.
    id: u64,
    /// First generation of the running block.
    block_gen: u64,
    next_gen: u64,
    /// Warps of the block.
    pub warps: usize,
    /// Lanes executing now.
    pub active: Masks,
    /// Lanes that exist and have not exited.
    pub live: Masks,
    /// Lanes that exist (a partial last warp has fewer than 32).
    pub exists: Masks,
    /// Warps with an active lane, and active lanes in all: one operation's tally.
    active_warps: u32,
    active_lanes: u32,
    /// Whether operations are tallied.
    pub counting: bool,
    /// Tally by source site when per-line attribution is on (site 0 otherwise).
    pub tallies: Vec<OpTally>,
    /// The source locations seen, when per-line attribution is on.
    pub sites: Option<Sites>,
    /// Whether a block is running on this thread.
    pub running: bool,
    /// Slots of `threadIdx` components stored as rows.
    index: [Option<Slot>; 3],
    /// Scratch for compaction: the result's slots, and where they moved.
    pub found: Vec<(Slot, usize)>,
    pub moves: Vec<(Slot, Slot)>,
}

/// Source locations and their index in [`Frame::tallies`] (index 0 is "no location").
#[derive(Default)]
pub(crate) struct Sites {
    index: std::collections::HashMap<usize, usize, std::hash::BuildHasherDefault<PtrHasher>>,
    locs: Vec<Option<Site>>,
}

impl Sites {
    /// The index of `site`, added if new.
    #[inline]
    pub fn index(&mut self, site: Site) -> usize {
        if self.locs.is_empty() {
            self.locs.push(None);
        }
        let next = self.locs.len();
        let i = *self.index.entry(site.key()).or_insert(next);
        if i == next {
            self.locs.push(Some(site));
        }
        i
    }

    /// The location of index `i`.
    pub fn location(&self, i: usize) -> Option<Site> {
        self.locs.get(i).copied().flatten()
    }
}

/// Hashing of a location's address (no protection against chosen keys is needed).
#[derive(Default)]
pub(crate) struct PtrHasher(u64);

impl std::hash::Hasher for PtrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_usize(&mut self, v: usize) {
        self.0 = (v as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

/// What operations that need no rows (on uniform and affine values) ask of the running block:
/// kept apart from the frame so that reading it is one thread-local load.
#[derive(Clone, Copy, Default)]
pub(crate) struct Hot {
    pub running: bool,
    pub counting: bool,
    pub warps: u8,
}

/// Source of per-thread frame ids: generations differ between threads.
static NEXT_FRAME: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static FRAME: RefCell<Frame> = const { RefCell::new(Frame::new()) };
    static HOT: Cell<Hot> = const {
        Cell::new(Hot {
            running: false,
            counting: false,
            warps: 0,
        })
    };
}

/// The running block's [`Hot`] state.
#[inline(always)]
pub(crate) fn hot() -> Hot {
    HOT.with(Cell::get)
}

/// Count one instruction at `site` for an operation that reads no rows; the frame is touched
/// only when the launch counts.
#[inline(always)]
pub(crate) fn tally_light(site: Site) -> Hot {
    let h = hot();
    if !h.running {
        outside_kernel();
    }
    if h.counting {
        with(|fr| fr.tally(site));
    }
    h
}

/// Run `f` on this thread's frame.
///
/// # Panics
/// If no block is running on this thread: block-wide values exist only inside a kernel.
#[inline(always)]
pub(crate) fn with<R>(f: impl FnOnce(&mut Frame) -> R) -> R {
    // The body is a closure of its own so that `LocalKey::with` stays small enough to inline:
    // the thread-local is then read directly instead of through its accessor function.
    FRAME.with(
        #[inline(never)]
        |c| {
            let mut fr = c.borrow_mut();
            if !fr.running {
                outside_kernel();
            }
            f(&mut fr)
        },
    )
}

/// Run `f` on this thread's frame whether or not a block runs (the executor's own use).
pub(crate) fn with_any<R>(f: impl FnOnce(&mut Frame) -> R) -> R {
    FRAME.with(|c| f(&mut c.borrow_mut()))
}

#[cold]
fn outside_kernel() -> ! {
    panic!(
        "a block-wide value was used outside a kernel; values exist only while the block that \
         computed them runs"
    )
}

#[cold]
#[inline(never)]
fn stale() -> ! {
    panic!(
        "a block-wide value was used after the if_/if_else/while_ body that computed it ended; \
         values leave a body only as its result (return them from the closure)"
    )
}

impl Frame {
    const fn new() -> Frame {
        Frame {
            rows: Vec::new(),
            gens: Vec::new(),
            top: 0,
            // Taken from `NEXT_FRAME` when the first block starts.
            id: 0,
            block_gen: 0,
            next_gen: 0,
            warps: 0,
            active: [0; MAX_WARPS],
            live: [0; MAX_WARPS],
            exists: [0; MAX_WARPS],
            active_warps: 0,
            active_lanes: 0,
            counting: false,
            tallies: Vec::new(),
            sites: None,
            running: false,
            index: [None; 3],
            found: Vec::new(),
            moves: Vec::new(),
        }
    }

    /// Start a block of `exists` lanes per warp (`warps` warps).
    pub fn begin_block(&mut self, exists: &Masks, warps: usize, counting: bool, lines: bool) {
        self.top = 0;
        self.next_gen += 1;
        if self.tallies.is_empty() {
            self.tallies.push(OpTally::default());
        }
        if self.id == 0 || self.next_gen >= 1 << 40 {
            // A fresh id keeps generations unique once the counter would reach the id bits.
            self.id = NEXT_FRAME.fetch_add(1, Ordering::Relaxed);
            self.next_gen = 1;
        }
        self.block_gen = self.id << 40 | self.next_gen;
        self.warps = warps;
        self.exists = *exists;
        self.live = *exists;
        self.counting = counting;
        if lines {
            self.sites.get_or_insert_with(Sites::default);
        } else {
            self.sites = None;
        }
        self.set_active(exists);
        self.index = [None; 3];
        self.running = true;
        HOT.with(|h| {
            h.set(Hot {
                running: true,
                counting,
                warps: warps as u8,
            })
        });
    }

    /// The block ended (or failed).
    pub fn end_block(&mut self) {
        self.running = false;
        HOT.with(|h| h.set(Hot::default()));
    }

    /// Set the active masks (zero for warps the block does not have: every mask array keeps
    /// that invariant, so whole-array operations need no bound).
    #[inline]
    pub fn set_active(&mut self, m: &Masks) {
        self.active = *m;
        self.active_warps = m.iter().map(|&b| u32::from(b != 0)).sum();
        if self.counting {
            self.active_lanes = m.iter().map(|b| b.count_ones()).sum();
        }
    }

    /// The active lanes where `cond` holds, and whether there is any.
    #[inline]
    pub fn taken(&self, cond: &Masks) -> (Masks, u32) {
        let taken: Masks = std::array::from_fn(|w| self.active[w] & cond[w]);
        let any = taken.iter().fold(0, |a, &b| a | b);
        (taken, any)
    }

    /// Whether every warp of the block has an active lane.
    #[inline]
    pub fn all_active(&self) -> bool {
        self.active_warps as usize == self.warps
    }

    /// Whether any lane of the block is active.
    #[inline]
    pub fn any_active(&self) -> bool {
        self.active_warps != 0
    }

    /// Count one warp instruction for every warp with an active lane, at `site`.
    #[inline(always)]
    pub fn tally(&mut self, site: Site) {
        if self.counting {
            self.tally_at(site);
        }
    }

    fn tally_at(&mut self, site: Site) {
        let i = self.site_index(site);
        let t = &mut self.tallies[i];
        t.ops += u64::from(self.active_warps);
        t.lane_ops += u64::from(self.active_lanes);
    }

    /// The tally index of `site` (0 unless per-line attribution is on).
    #[inline]
    pub fn site_index(&mut self, site: Site) -> usize {
        match &mut self.sites {
            None => 0,
            Some(sites) => {
                let i = sites.index(site);
                if i >= self.tallies.len() {
                    self.tallies.resize(i + 1, OpTally::default());
                }
                i
            }
        }
    }

    /// A new slot of `per_warp` rows for each warp.
    #[inline(always)]
    pub fn alloc(&mut self, per_warp: usize) -> Slot {
        let row = self.top;
        let end = row + per_warp * self.warps;
        if end > self.rows.len() {
            self.grow(end);
        }
        self.top = end;
        self.next_gen += 1;
        let generation = self.id << 40 | self.next_gen;
        self.gens[row] = generation;
        Slot {
            row: row as u32,
            generation,
        }
    }

    #[cold]
    fn grow(&mut self, end: usize) {
        let len = end.next_power_of_two().max(256);
        self.rows.resize(len, U32x32::ZERO);
        self.gens.resize(len, 0);
    }

    /// The first row of `s`, which must be current: allocated in this block, not freed (its
    /// rows end at or below the top) and not moved (its row still has its generation).
    #[inline(always)]
    pub fn check(&self, s: Slot, per_warp: usize) -> usize {
        let row = s.row as usize;
        let current = s.generation >= self.block_gen
            && row + per_warp * self.warps <= self.top
            && self.gens[row] == s.generation;
        if !current {
            stale();
        }
        row
    }

    /// Stack position, for [`Frame::compact_found`].
    #[inline]
    pub fn mark(&self) -> usize {
        self.top
    }

    /// Free every slot above `mark` except those recorded in `self.found` (a construct's
    /// result), which move down to start at `mark`; the moves are left in `self.moves` as
    /// (old slot, new slot).
    pub fn compact_found(&mut self, mark: usize) {
        self.moves.clear();
        let mut found = std::mem::take(&mut self.found);
        // Slots below the mark belong to an enclosing scope and stay where they are.
        found.retain(|(s, _)| s.row as usize >= mark);
        found.sort_by_key(|(s, _)| s.row);
        found.dedup();
        let mut at = mark;
        for &(slot, per_warp) in &found {
            let from = self.check(slot, per_warp);
            let n = per_warp * self.warps;
            // Earlier slots were moved from rows below `from`, so `at <= from`.
            if from != at {
                self.rows.copy_within(from..from + n, at);
                self.gens[from] = 0;
            }
            self.next_gen += 1;
            let generation = self.id << 40 | self.next_gen;
            self.gens[at] = generation;
            self.moves.push((
                slot,
                Slot {
                    row: at as u32,
                    generation,
                },
            ));
            at += n;
        }
        found.clear();
        self.found = found;
        self.top = at;
    }

    /// Allocate the slots of `threadIdx` components that have no affine form, at the bottom
    /// of a fresh block's frame.
    pub fn set_index_rows(&mut self, k: usize, rows: &[U32x32]) {
        let s = self.alloc(1);
        let r = s.row as usize;
        self.rows[r..r + rows.len()].copy_from_slice(rows);
        self.index[k] = Some(s);
    }

    /// Component `k` of `threadIdx` for a shape without an affine form.
    pub fn index_rows(&self, k: usize) -> R32 {
        R32::Slot(self.index[k].expect("index rows are set at block start"))
    }

    /// The end of a divergent construct: the lanes that were active before it, less those that
    /// exited inside it.
    #[inline]
    pub fn reconverge(&mut self, outer: &Masks) {
        let m: Masks = std::array::from_fn(|w| outer[w] & self.live[w]);
        self.set_active(&m);
    }

    /// Threads in `gone` exit for good.
    pub fn exit(&mut self, gone: &Masks) {
        for (l, g) in self.live.iter_mut().zip(gone).take(self.warps) {
            *l &= !g;
        }
        let m: Masks = std::array::from_fn(|w| self.active[w] & !gone[w]);
        self.set_active(&m);
    }

    /// Drop every slot above `mark`.
    #[inline]
    pub fn release(&mut self, mark: usize) {
        self.top = mark;
    }

    /// A reader of `v`'s per-warp lanes; `v`'s slot must lie below `limit` rows.
    #[inline]
    pub fn src32(&self, v: R32) -> Src32 {
        match v {
            R32::Aff { a, b, c } => Src32::Aff { a, b, c },
            R32::Slot(s) => Src32::Rows(self.check(s, 1)),
        }
    }

    /// A reader of `v`'s per-warp lanes.
    #[inline]
    pub fn src64(&self, v: R64) -> Src64 {
        match v {
            R64::Aff { a, b, c } => Src64::Aff {
                a,
                b,
                lanes: crate::lanes::U64x32::from_fn(|l| (l as u64).wrapping_mul(c)),
            },
            R64::Slot(s) => Src64::Rows(self.check(s, 2)),
        }
    }

    /// Store warp `w`'s lanes of a 64-bit slot.
    #[inline(always)]
    pub fn put64(&mut self, s: Slot, w: usize, v: crate::lanes::U64x32) {
        let r = s.row as usize + 2 * w;
        let [lo, hi] = v.to_rows();
        self.rows[r] = lo;
        self.rows[r + 1] = hi;
    }

    /// Warps with an active lane, in order.
    #[inline]
    pub fn active_warps(&self) -> impl Iterator<Item = usize> + 'static {
        let active = self.active;
        (0..self.warps).filter(move |&w| active[w] != 0)
    }

    /// The source location of site index `i`, when per-line attribution is on.
    pub fn location(&self, i: usize) -> Option<Site> {
        self.sites.as_ref().and_then(|s| s.location(i))
    }
}

/// Where an operand's lanes come from.
#[derive(Clone, Copy)]
pub(crate) enum Src32 {
    /// `a + b·warp + c·lane`.
    Aff {
        a: u32,
        b: u32,
        c: u32,
    },
    Rows(usize),
}

impl Src32 {
    #[inline(always)]
    pub fn get(&self, rows: &[U32x32], w: usize) -> U32x32 {
        match *self {
            Src32::Aff { a, b, c } => lane_steps(c) + a.wrapping_add(b.wrapping_mul(w as u32)),
            Src32::Rows(r) => rows[r + w],
        }
    }
}

/// `c·lane` for each lane (no multiplication for the common steps 0 and 1).
#[inline(always)]
pub(crate) fn lane_steps(c: u32) -> U32x32 {
    match c {
        0 => U32x32::ZERO,
        1 => IOTA,
        _ => IOTA * c,
    }
}

/// Where a 64-bit operand's lanes come from.
#[derive(Clone, Copy)]
#[expect(
    clippy::large_enum_variant,
    reason = "a reader made once per operation, on the stack; the lane offsets are precomputed"
)]
pub(crate) enum Src64 {
    Aff {
        a: u64,
        b: u64,
        lanes: crate::lanes::U64x32,
    },
    Rows(usize),
}

impl Src64 {
    #[inline(always)]
    pub fn get(&self, rows: &[U32x32], w: usize) -> crate::lanes::U64x32 {
        match *self {
            Src64::Aff { a, b, lanes } => lanes + a.wrapping_add(b.wrapping_mul(w as u64)),
            Src64::Rows(r) => {
                crate::lanes::U64x32::from_rows([rows[r + 2 * w], rows[r + 2 * w + 1]])
            }
        }
    }
}
