//! The counting observer: what a counting launch ([`crate::Mode::Count`]) adds up.
//!
//! The executor reports every instruction it executes; this observer turns the reports into the
//! [`Counters`] of [`crate::metrics`], per warp exactly as a GPU's counters do: an instruction is
//! one warp instruction for each warp with an active lane, a branch is evaluated (and may
//! diverge) per warp, a memory instruction is one request per warp whose lanes access, costing
//! the sectors, lines or wavefronts of that warp's addresses. Arithmetic is tallied by the
//! values themselves ([`crate::values`]) and added when the block ends.
//!
//! Counts are kept per source site when the launch attributes them to lines (see
//! [`crate::LaunchConfig::lines`]), in one bucket otherwise; they are integers summed per block
//! and then over blocks, so they do not depend on the number of CPU threads.

use crate::error::{AccessKind, Space};
use crate::memory::global::coalesce;
use crate::memory::shared::{BankGeometry, wavefronts};
use crate::memory::{Target, WarpAccess, WarpIdx};
use crate::metrics::Counters;
use crate::site::Site;
use crate::values::frame::{Frame, Masks};

/// Counters of the blocks one worker ran, by site index of the worker's frame.
pub(crate) struct Count {
    pub sites: Vec<Counters>,
    /// Divergent branches by warp index within the block, summed over blocks.
    pub divergent_by_warp: Vec<u64>,
    /// What the pictures are drawn from (see [`crate::metrics::Samples`]).
    pub samples: RawSamples,
    /// What a tier adds up in a layout of its own across this counter's blocks (the compiled
    /// tier's counts and memo: `cuda::jit::count`), added to the rest by [`Count::finish`].
    pub deferred: Option<Box<dyn Deferred>>,
    /// The running block (linear index), each warp's branch step and divergent branches.
    block: u64,
    steps: Vec<usize>,
    block_div: Vec<u32>,
    /// The latest block that is the first to reach a step ([`Count::known_steps`]).
    latest_first: u64,
    /// Per warp of the running block, the global loads of its current batch (0: its next
    /// load starts one; see [`Counters::gld_batches`]).
    batch: Vec<u32>,
    /// Blocks of the first wave ([`crate::WaveRuns`]): those with a lower linear index.
    wave_blocks: u64,
    /// Per warp of the running block, the global loads and stores it has left to sample (all
    /// zero outside the first wave).
    wave_left: Vec<u32>,
    /// The sectors the sampled accesses of this counter's blocks touched: per 64 sectors, a
    /// bit each ([`crate::WaveRuns::of`]); complete after [`Count::finish`].
    pub wave: WaveChunks,
    /// Columns sampled lately whose lanes lie whole chunks apart ([`Column`]): their lanes
    /// touch the same sector of each chunk, so the warps of a tile's column (the same chunks,
    /// other sectors) add their bits here and the chunks are touched once per column.
    columns: [Column; COLUMNS],
    /// The entry of [`Count::columns`] the next new column takes.
    next_column: usize,
}

/// Entries of [`Count::columns`].
const COLUMNS: usize = 4;

/// A sampled column: lane `l` of `mask` touches sectors `bits` of chunk
/// `chunk + l × chunks`.
#[derive(Clone, Copy, Default)]
struct Column {
    chunk: u64,
    chunks: u64,
    mask: u32,
    bits: u64,
}

/// The multiplier of a multiplicative hash (2^64 / φ), whose top bits pick a table's entry:
/// [`WaveChunks`]'s, and the compiled tier's memo's.
pub(crate) const HASH: u64 = 0x9E37_79B9_7F4A_7C15;

/// Counts a tier adds up in a layout of its own while a worker runs its blocks.
pub(crate) trait Deferred: std::any::Any {
    /// Add them to `count`.
    fn add_to(self: Box<Self>, count: &mut Count);
}

/// Sectors by chunk of 64: chunk number → bits. An open-addressing table (chunk + 1 and its
/// bits; 0: none) kept at most half full, probed from the top bits of a multiplicative hash:
/// a first wave's sample touches a chunk many times (a column of a tile touches 32 chunks that
/// the tile's other rows touch again), and a general hash map's lookups and merges had cost
/// more than the rest of the sampling.
#[derive(Default)]
pub(crate) struct WaveChunks {
    slots: Vec<(u64, u64)>,
    len: usize,
}

impl WaveChunks {
    /// Sectors `bits` of chunk `chunk` are touched.
    #[inline]
    pub fn touch(&mut self, chunk: u64, bits: u64) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = self.first(chunk);
        loop {
            let e = &mut self.slots[at];
            if e.0 == chunk + 1 {
                e.1 |= bits;
                return;
            }
            if e.0 == 0 {
                *e = (chunk + 1, bits);
                self.len += 1;
                return;
            }
            at = (at + 1) & mask;
        }
    }

    /// Where `chunk`'s probe starts.
    fn first(&self, chunk: u64) -> usize {
        (chunk.wrapping_mul(HASH) >> (64 - self.slots.len().ilog2())) as usize
    }

    #[cold]
    fn grow(&mut self) {
        self.resize((2 * self.slots.len()).max(256));
    }

    /// `size` slots (a power of two, at least twice the chunks held), the chunks put back.
    fn resize(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); size]);
        self.len = 0;
        for (key, bits) in old {
            if key != 0 {
                self.touch(key - 1, bits);
            }
        }
    }

    /// Add another's chunks.
    pub fn merge(&mut self, mut other: WaveChunks) {
        // Into a table no smaller: slots taken in order then land apart (a smaller table's
        // probes would start next to each other, and each go to the end of one long run).
        if other.slots.len() > self.slots.len() {
            std::mem::swap(self, &mut other);
        }
        if other.len == 0 {
            return;
        }
        let need = (2 * (self.len + other.len)).next_power_of_two();
        if need > self.slots.len() {
            self.resize(need);
        }
        for (key, bits) in other.slots {
            if key != 0 {
                self.touch(key - 1, bits);
            }
        }
    }

    /// The chunks and their bits, by chunk.
    pub fn sorted(self) -> Vec<(u64, u64)> {
        let mut chunks: Vec<(u64, u64)> = self
            .slots
            .into_iter()
            .filter(|&(key, _)| key != 0)
            .map(|(key, bits)| (key - 1, bits))
            .collect();
        chunks.sort_unstable();
        chunks
    }
}

/// [`crate::metrics::Samples`] as the workers collect them, merged deterministically.
#[derive(Default)]
pub(crate) struct RawSamples {
    pub worst_global: Option<RawAccess>,
    pub worst_shared: Option<RawAccess>,
    /// The blocks with a divergent branch and their divergent branches per warp (`None`: the
    /// grid is too large to map).
    pub by_block: Option<DivergenceRuns>,
    pub steps: Vec<Vec<u64>>,
    /// Per step, the first warp (lowest block, linear, then warp) that reached it and its
    /// branch's site.
    pub step_sites: Vec<((u64, u32), Site)>,
}

/// The blocks with a divergent branch, as runs of consecutive blocks whose warps diverged
/// alike: a kernel's blocks mostly do (a reduction's every block diverges in its last warp), and
/// a row per block costs a large grid megabytes of copies and page faults per launch.
#[derive(Default)]
pub(crate) struct DivergenceRuns {
    /// First block (linear) and blocks, one per run.
    runs: Vec<(u64, u64)>,
    /// Per run, the divergent branches of each warp of its blocks (a row of `warps`).
    rows: Vec<u32>,
}

impl DivergenceRuns {
    /// Block `block` diverged `row[w]` times in warp `w`.
    fn push(&mut self, block: u64, row: &[u32]) {
        let last = self.rows.len().checked_sub(row.len());
        if let (Some((first, n)), Some(last)) = (self.runs.last_mut(), last)
            && *first + *n == block
            && self.rows[last..] == *row
        {
            *n += 1;
            return;
        }
        self.runs.push((block, 1));
        self.rows.extend_from_slice(row);
    }

    /// The map `[block × warps + warp]` of `blocks` blocks (empty if no block diverged).
    pub fn dense(&self, blocks: u64, warps: usize) -> Vec<u32> {
        if self.runs.is_empty() || warps == 0 {
            return Vec::new();
        }
        let mut map = vec![0; blocks as usize * warps];
        for (&(first, n), row) in self.runs.iter().zip(self.rows.chunks_exact(warps)) {
            let at = first as usize * warps;
            if let Some(cells) = map.get_mut(at..at + n as usize * warps) {
                for cell in cells.chunks_exact_mut(warps) {
                    cell.copy_from_slice(row);
                }
            }
        }
        map
    }
}

/// One warp's access, kept while it is the costliest seen.
pub(crate) struct RawAccess {
    /// Cost, then the lowest block and warp first.
    pub key: (std::cmp::Reverse<u64>, u64, u32),
    pub site: Site,
    pub space: Space,
    pub kind: AccessKind,
    pub buffer: String,
    pub elem: u32,
    pub addresses: [Option<u64>; 32],
    pub sectors: u64,
    pub lines: u64,
    pub wavefronts: (u64, u64),
}

impl RawSamples {
    /// Keep the better of two candidates.
    fn keep(mine: &mut Option<RawAccess>, other: Option<RawAccess>) {
        if let Some(o) = other
            && mine.as_ref().is_none_or(|m| o.key < m.key)
        {
            *mine = Some(o);
        }
    }

    pub fn merge(&mut self, other: RawSamples) {
        Self::keep(&mut self.worst_global, other.worst_global);
        Self::keep(&mut self.worst_shared, other.worst_shared);
        match (&mut self.by_block, other.by_block) {
            (Some(mine), Some(theirs)) => {
                mine.runs.extend(theirs.runs);
                mine.rows.extend(theirs.rows);
            }
            (mine @ None, theirs) => *mine = theirs,
            _ => {}
        }
        if self.steps.len() < other.steps.len() {
            self.steps.resize(other.steps.len(), Vec::new());
        }
        for (a, b) in self.steps.iter_mut().zip(other.steps) {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        for (k, s) in other.step_sites.into_iter().enumerate() {
            match self.step_sites.get_mut(k) {
                Some(mine) if s.0 < mine.0 => *mine = s,
                Some(_) => {}
                None => self.step_sites.push(s),
            }
        }
    }
}

impl Count {
    /// A counter for blocks of `warps` warps; `map` whether to keep the per-block divergence
    /// map; the first `wave_blocks` blocks are the first wave.
    pub fn new(warps: usize, map: bool, wave_blocks: u64) -> Count {
        Count {
            sites: vec![Counters::default()],
            divergent_by_warp: vec![0; warps],
            samples: RawSamples {
                by_block: map.then(Default::default),
                ..RawSamples::default()
            },
            deferred: None,
            block: 0,
            steps: vec![0; warps],
            block_div: vec![0; warps],
            latest_first: 0,
            batch: vec![0; warps],
            wave_blocks,
            wave_left: vec![0; warps],
            wave: WaveChunks::default(),
            columns: [Column::default(); COLUMNS],
            next_column: 0,
        }
    }

    /// Block `linear` starts.
    pub fn begin_block(&mut self, linear: u64) {
        self.block = linear;
        self.steps.fill(0);
        self.batch.fill(0);
        let left = if self.in_wave() {
            crate::WaveRuns::ACCESSES
        } else {
            0
        };
        self.wave_left.fill(left);
    }

    /// The running block (linear index).
    pub fn block(&self) -> u64 {
        self.block
    }

    /// Whether the running block is in the first wave (its warps' first global accesses are
    /// sampled).
    pub fn in_wave(&self) -> bool {
        self.block < self.wave_blocks
    }

    /// Sample a warp's memory instruction for the first wave ([`crate::WaveRuns`]): its
    /// sectors, if it is a global load or store and the warp has samples left.
    #[inline]
    pub fn wave(&mut self, kind: AccessKind, t: &Target<'_>, a: &WarpAccess<'_>) {
        // Most warps have none left (every warp past the first wave): look at that first.
        let left = self.wave_left.get(a.warp as usize).is_some_and(|&n| n > 0);
        if left && t.space == Space::Global && !t.constant && kind != AccessKind::Atomic {
            let row = match a.idx {
                WarpIdx::Affine { start, step }
                    if start.checked_add(step.saturating_mul(31)).is_some() =>
                {
                    Some(i64::from(step) * i64::from(t.elem))
                }
                _ => None,
            };
            self.wave_sample(a.warp, a.mask, |l| t.address(a.idx.lane(l)), row);
        }
    }

    /// Sample a warp's global load or store for the first wave, if the warp has samples left:
    /// the lanes of `mask`, lane `l` at byte address `address(l)`; `row`: the lanes' step in
    /// bytes, where lane `l` is `l` steps after lane 0 (without wrapping).
    #[inline]
    pub fn wave_sample(
        &mut self,
        warp: u32,
        mask: u32,
        address: impl Fn(u32) -> u64,
        row: Option<i64>,
    ) {
        let Some(left) = self.wave_left.get_mut(warp as usize) else {
            return;
        };
        if *left == 0 || mask == 0 {
            return;
        }
        *left -= 1;
        // The executing lanes' sectors (accesses are aligned: an element lies in one sector).
        let address = &address;
        let lanes = || {
            let mut m = mask;
            std::iter::from_fn(move || {
                (m != 0).then(|| {
                    let l = m.trailing_zeros();
                    m &= m - 1;
                    address(l) >> 5
                })
            })
        };
        match row {
            // A full row of elements at most a sector apart touches every sector from its
            // first lane's to its last lane's: add them a chunk at a time.
            Some(step) if mask == u32::MAX && (0..=32).contains(&step) => {
                let (first, last) = (address(0) >> 5, address(31) >> 5);
                for chunk in first >> 6..=last >> 6 {
                    let lo = if chunk == first >> 6 { first & 63 } else { 0 };
                    let hi = if chunk == last >> 6 { last & 63 } else { 63 };
                    let bits = (u64::MAX >> (63 - hi)) & (u64::MAX << lo);
                    self.wave.touch(chunk, bits);
                }
                return;
            }
            // Lanes whole chunks apart: the same sector of each chunk.
            Some(step) if step != 0 && step % (64 * 32) == 0 => {
                let lane = mask.trailing_zeros();
                let first = address(lane) >> 5;
                // The chunk lane 0 would touch (the address wraps as the lanes' do).
                let l0 = u64::from(lane);
                let chunks = (step / (64 * 32)) as u64;
                let column = Column {
                    chunk: (first >> 6).wrapping_sub(l0.wrapping_mul(chunks)),
                    chunks,
                    mask,
                    bits: 1 << (first & 63),
                };
                self.column(column);
                return;
            }
            // Lanes a chunk (64 sectors) or more apart share none (a column of a matrix).
            Some(step) if step.unsigned_abs() >= 64 * 32 => {
                for s in lanes() {
                    self.wave.touch(s >> 6, 1 << (s & 63));
                }
                return;
            }
            _ => {}
        }
        // Neighbouring lanes mostly share a chunk: gather its bits before adding them.
        let (mut chunk, mut bits) = (0, 0u64);
        for s in lanes() {
            if s >> 6 != chunk && bits != 0 {
                self.wave.touch(chunk, bits);
                bits = 0;
            }
            chunk = s >> 6;
            bits |= 1 << (s & 63);
        }
        if bits != 0 {
            self.wave.touch(chunk, bits);
        }
    }

    /// Sample a column whose lanes lie whole chunks apart: its bits join an entry of
    /// [`Count::columns`] with the same lanes and chunks, else it takes one, and the column
    /// there before touches its chunks.
    fn column(&mut self, c: Column) {
        let same = |e: &Column| (e.chunk, e.chunks, e.mask) == (c.chunk, c.chunks, c.mask);
        if let Some(e) = self.columns.iter_mut().find(|e| same(e)) {
            e.bits |= c.bits;
            return;
        }
        let at = self.next_column;
        self.next_column = (at + 1) % COLUMNS;
        let held = std::mem::replace(&mut self.columns[at], c);
        self.touch_column(held);
    }

    /// A column's chunks are touched (an entry of [`Count::columns`] leaves it).
    fn touch_column(&mut self, c: Column) {
        let mut m = c.mask;
        while m != 0 {
            let l = u64::from(m.trailing_zeros());
            m &= m - 1;
            self.wave
                .touch(c.chunk.wrapping_add(l.wrapping_mul(c.chunks)), c.bits);
        }
    }

    /// The counters of counter site `site`.
    #[inline]
    pub fn at(&mut self, site: usize) -> &mut Counters {
        if site >= self.sites.len() {
            self.sites.resize(site + 1, Counters::default());
        }
        &mut self.sites[site]
    }

    /// One instruction of every warp with an active lane.
    #[inline]
    pub fn instr(&mut self, site: usize, active: &Masks, warps: usize) {
        let c = self.at(site);
        for &m in &active[..warps] {
            if m != 0 {
                c.warp_instructions += 1;
                c.thread_instructions += u64::from(m.count_ones());
            }
        }
    }

    /// A branch: per warp with an active lane, one instruction and one branch, divergent when
    /// both sides have lanes; the warp's next step.
    #[inline]
    pub fn branch(&mut self, site: usize, at: Site, active: &Masks, taken: &Masks, warps: usize) {
        self.instr(site, active, warps);
        for w in 0..warps {
            if active[w] == 0 {
                continue;
            }
            let divergent = taken[w] != 0 && taken[w] != active[w];
            let c = self.at(site);
            c.branches += 1;
            if divergent {
                c.divergent_branches += 1;
                self.diverged(w, 1);
            }
            let k = self.steps[w];
            self.steps[w] += 1;
            self.step(k, w, at, u64::from(divergent));
        }
    }

    /// Warp `w` of the running block diverged `n` more times.
    #[inline]
    pub fn diverged(&mut self, w: usize, n: u64) {
        self.divergent_by_warp[w] += n;
        let d = &mut self.block_div[w];
        *d = d.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
    }

    /// Warp `w` of the running block evaluated its `k`-th lane-varying branch, at `at`,
    /// diverging `divergent` times (0 or 1).
    #[inline]
    pub fn step(&mut self, k: usize, w: usize, at: Site, divergent: u64) {
        if k >= crate::metrics::Samples::MAX_STEPS {
            return;
        }
        let warps = self.block_div.len();
        let s = &mut self.samples;
        if s.steps.len() <= k {
            s.steps.resize(k + 1, vec![0; warps]);
        }
        s.steps[k][w] += divergent;
        self.step_site(k, w, at);
    }

    /// Warp `w` of the running block reached its `k`-th step at `at` (`k` below
    /// [`crate::metrics::Samples::MAX_STEPS`]): the step's site is the first warp's to reach it.
    /// A warp reaches its steps in order, so step `k - 1` is known when `k` is reported.
    #[inline]
    pub fn step_site(&mut self, k: usize, w: usize, at: Site) {
        let key = (self.block, w as u32);
        let s = &mut self.samples;
        match s.step_sites.get_mut(k) {
            Some(first) if key < first.0 => *first = (key, at),
            Some(_) => return,
            None => s.step_sites.push((key, at)),
        }
        self.latest_first = self.latest_first.max(self.block);
    }

    /// How many steps, from the first, no warp of the running block can be the first to reach
    /// (each was reached by a block run before and earlier in the grid): the sites of the
    /// steps past them must be reported ([`Count::step_site`]).
    pub fn known_steps(&self) -> usize {
        let sites = &self.samples.step_sites;
        // Blocks mostly run in the grid's order: then every step known is known from earlier.
        if self.block > self.latest_first {
            return sites.len();
        }
        sites
            .iter()
            .position(|&((b, _), _)| b >= self.block)
            .unwrap_or(sites.len())
    }

    /// Divergent branches by step and warp that a tier summed over blocks: `rows[k × warps +
    /// w]`, for the steps whose sites are reported.
    pub fn add_steps(&mut self, rows: &[u64]) {
        let warps = self.block_div.len();
        let s = &mut self.samples;
        let reached = s.step_sites.len();
        if s.steps.len() < reached {
            s.steps.resize(reached, vec![0; warps]);
        }
        for (step, row) in s.steps.iter_mut().zip(rows.chunks_exact(warps)) {
            step.iter_mut().zip(row).for_each(|(a, b)| *a += b);
        }
    }

    /// Add what a tier deferred ([`Count::deferred`]): call before reading the counter.
    pub fn finish(&mut self) {
        if let Some(d) = self.deferred.take() {
            d.add_to(self);
        }
        for c in std::mem::take(&mut self.columns) {
            self.touch_column(c);
        }
    }

    /// A barrier: one instruction and one barrier per arriving warp.
    pub fn barrier(&mut self, site: usize, active: &Masks, warps: usize) {
        self.instr(site, active, warps);
        let n = active[..warps].iter().filter(|&&m| m != 0).count() as u64;
        self.at(site).barriers += n;
        self.batch.fill(0);
    }

    /// The batches of the warps with an active lane end (a loop's next iteration).
    pub fn end_batches(&mut self, active: &Masks, warps: usize) {
        for (b, &m) in self.batch.iter_mut().zip(&active[..warps]) {
            if m != 0 {
                *b = 0;
            }
        }
    }

    /// Where warp `w`'s global memory instruction at `site` falls in its batches of loads
    /// ([`Counters::gld_batches`]): a load joins the warp's batch or starts one, a store or an
    /// atomic ends it. Told of every access of a warp with an active lane.
    #[inline]
    pub fn batch(&mut self, site: usize, w: u32, kind: AccessKind, t: &Target<'_>) {
        if t.space != Space::Global || t.constant {
            return;
        }
        let Some(b) = self.batch.get_mut(w as usize) else {
            return;
        };
        if kind != AccessKind::Load {
            *b = 0;
        } else if *b == 0 || *b >= Counters::LOAD_BATCH {
            *b = 1;
            self.at(site).gld_batches += 1;
        } else {
            *b += 1;
        }
    }

    /// One warp's request of a memory instruction (none if no lane of it accesses).
    #[inline]
    pub fn access(
        &mut self,
        site: usize,
        at: Site,
        kind: AccessKind,
        t: &Target<'_>,
        a: &WarpAccess<'_>,
        banks: BankGeometry,
    ) {
        let block = self.block;
        if site >= self.sites.len() {
            self.sites.resize(site + 1, Counters::default());
        }
        let c = &mut self.sites[site];
        let (global, shared) = (
            &mut self.samples.worst_global,
            &mut self.samples.worst_shared,
        );
        let sample =
            |best: &mut Option<RawAccess>, cost: u64, sectors: u64, lines: u64, wf: (u64, u64)| {
                let key = (std::cmp::Reverse(cost), block, a.warp);
                if best.as_ref().is_none_or(|b| key < b.key) {
                    *best = Some(RawAccess {
                        key,
                        site: at,
                        space: t.space,
                        kind,
                        buffer: t.name.to_string(),
                        elem: t.elem,
                        addresses: std::array::from_fn(|l| {
                            (a.mask >> l & 1 != 0).then(|| t.address(a.idx.lane(l as u32)))
                        }),
                        sectors,
                        lines,
                        wavefronts: wf,
                    });
                }
            };
        if a.mask != 0 {
            let bytes = u64::from(a.mask.count_ones() * t.elem);
            match (t.space, kind) {
                // Constant memory goes through the constant cache: no global transaction.
                (Space::Global, AccessKind::Load) if t.constant => {}
                (Space::Global, AccessKind::Load) => {
                    let (sectors, lines) = coalesce(t, a);
                    sample(global, sectors, sectors, lines, (0, 0));
                    c.gld_requests += 1;
                    c.gld_sectors += sectors;
                    c.gld_lines += lines;
                    c.gld_bytes += bytes;
                }
                (Space::Global, AccessKind::Store) => {
                    let (sectors, lines) = coalesce(t, a);
                    sample(global, sectors, sectors, lines, (0, 0));
                    c.gst_requests += 1;
                    c.gst_sectors += sectors;
                    c.gst_lines += lines;
                    c.gst_bytes += bytes;
                }
                (Space::Global, AccessKind::Atomic) => {
                    c.atomic_requests += 1;
                    c.atomic_sectors += coalesce(t, a).0;
                }
                (Space::Shared, AccessKind::Atomic) => c.atomic_requests += 1,
                (Space::Shared, load_or_store) => {
                    let load = load_or_store == AccessKind::Load;
                    let mut total = (0, 0);
                    wavefronts(banks, t, a, |wf, ideal| {
                        total = (total.0 + wf, total.1 + ideal);
                        if load {
                            c.shared_ld_wavefronts += wf;
                            c.shared_ld_ideal += ideal;
                        } else {
                            c.shared_st_wavefronts += wf;
                            c.shared_st_ideal += ideal;
                        }
                        // No conflict is the common case: skip the division (slow on many CPUs).
                        let ways = if wf <= ideal { 1 } else { wf.div_ceil(ideal) };
                        c.shared_conflict_ways[ways.clamp(1, 32) as usize - 1] += 1;
                    });
                    sample(shared, total.0, 0, 0, total);
                    if load {
                        c.shared_ld_requests += 1;
                    } else {
                        c.shared_st_requests += 1;
                    }
                }
            }
        }
    }

    /// The block ended: add its warps and the arithmetic its values tallied.
    pub fn end_block(&mut self, fr: &mut Frame, warps: usize) {
        self.sites[0].warps_launched += warps as u64;
        if self.block_div.iter().any(|&d| d != 0) {
            if let Some(map) = &mut self.samples.by_block {
                map.push(self.block, &self.block_div);
            }
            self.block_div.fill(0);
        }
        for (i, t) in fr.tallies.iter_mut().enumerate() {
            if t.ops != 0 {
                let t = std::mem::take(t);
                let c = self.at(i);
                c.warp_instructions += t.ops;
                c.thread_instructions += t.lane_ops;
            }
        }
    }

    /// The counters by source location (`None`: not attributed), dropping empty sites.
    pub fn by_location(&self, fr: &Frame) -> Vec<(Option<Site>, Counters)> {
        self.sites
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != Counters::default())
            .map(|(i, c)| (fr.location(i), *c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{DivergenceRuns, WaveChunks};

    /// Runs of blocks that diverged alike give the map a row per block gives: consecutive
    /// blocks with equal rows share a run, a gap or another row starts one, and runs from
    /// workers merged out of order land at their blocks.
    #[test]
    fn divergence_runs_make_the_dense_map() {
        let warps = 3;
        let row = |b: u64| -> [u32; 3] { [(b / 4 % 2) as u32, 0, u32::from(b.is_multiple_of(7))] };
        let diverged = |b: u64| b % 11 != 5 && row(b) != [0; 3];
        let (mut a, mut b) = (DivergenceRuns::default(), DivergenceRuns::default());
        let mut want = vec![0; 60 * warps];
        for block in (30..60).chain(0..30) {
            if diverged(block) {
                let to = if block < 30 { &mut a } else { &mut b };
                to.push(block, &row(block));
                want[block as usize * warps..][..warps].copy_from_slice(&row(block));
            }
        }
        assert!(b.runs.len() < 30, "consecutive blocks alike share runs");
        b.runs.extend(a.runs);
        b.rows.extend(a.rows);
        assert_eq!(b.dense(60, warps), want);
        assert!(DivergenceRuns::default().dense(60, warps).is_empty());
    }

    /// Touches and merges keep every chunk once, its bits or-ed, through the tables' growth
    /// (a merge of a larger table into a smaller one included).
    #[test]
    fn wave_chunks_hold_the_union() {
        let (mut a, mut b) = (WaveChunks::default(), WaveChunks::default());
        let mut want = std::collections::BTreeMap::new();
        for i in 0..5000u64 {
            let (chunk, bits) = (i * 7 % 3001, 1 << (i % 64));
            let t = if i % 3 == 0 { &mut a } else { &mut b };
            t.touch(chunk, bits);
            *want.entry(chunk).or_insert(0) |= bits;
        }
        a.touch(u64::MAX - 1, 1);
        want.insert(u64::MAX - 1, 1);
        assert!(a.slots.len() < b.slots.len());
        a.merge(b);
        assert_eq!(a.len, want.len());
        assert!(2 * a.len <= a.slots.len());
        assert_eq!(a.sorted(), want.into_iter().collect::<Vec<_>>());
    }
}
