//! Counting on the compiled tier: what compiled code adds up itself, what it hands to the
//! helper here, and how both reach the launch's counter ([`crate::count::Count`]), so that a
//! compiled launch counts exactly what the interpreter counts.
//!
//! A worker's counter holds, across the blocks it runs, a [`Pending`] (layouts below): per
//! counting site the branches, divergent branches, barriers and global load batches of its
//! warps (added inline, per warp, from the warp's mask); per run of instructions under one
//! mask ([`Run`]) the warps that ran it and their lanes, from which its instructions (and the
//! requests of its shared accesses of cost one) are added up at the end; per memory instruction
//! its requests and what they cost, with the memo (below); per branch step and warp index the
//! divergent branches. These are sums, added to the counter once, when the worker is done
//! ([`crate::count::Deferred`]). Per block there is the step record: per warp its steps
//! taken, its divergent branches, the site of each step no earlier block reached (the first
//! warp to reach a step names its line), and the loads of its current batch (a load starts a
//! batch or joins it; a global store, a barrier and a loop's back edge end it); the block's
//! end reads the few words the counter needs per block ([`Pending::end_block`]). A block that
//! stops (a fault, the watchdog) ends the launch with an error: what it counted is dropped
//! with the launch.
//!
//! A memory instruction's cost depends on the lanes' addresses (sectors, lines, bank
//! conflicts). The compiled code calls [`access`] with the lanes' byte offsets, which builds
//! the interpreter's view of the access and counts it with the interpreter's own code. Where
//! the lanes are a row (lane `l` at `first + l × step` bytes), the cost depends only on the
//! executing lanes, the step and where the row starts within 128 bytes (whole sectors, lines
//! and bank rows shift together; buffers stay put during a launch), so [`access`] hands its
//! result back for the compiled code to remember (the memo, per memory instruction, kept from
//! block to block) and the next warp with the same lanes, step and start adds it without a
//! call. A warp whose access could become the launch's costliest sample (costlier than the one
//! kept, or as costly and earlier) still calls, so the samples stay the interpreter's; a shared
//! access that costs one wavefront whatever its lanes is counted with the instructions and, if
//! it could become the sample, noted for later instead ([`unit_word`]).
//!
//! The helper is called from compiled code (a `helper!`): it must not panic (a panic cannot
//! unwind through compiled frames and would abort), so it looks everything up with `get` and
//! ignores what it cannot find.

use crate::count::Count;
use crate::error::{AccessKind, Space};
use crate::lanes::U32x32;
use crate::memory::shared::BankGeometry;
use crate::memory::{Target, WarpAccess, WarpIdx};
use crate::metrics::Counters;
use crate::site::Site;

/// Branch steps per warp whose site and divergence the compiled code records.
pub(crate) const MAX_STEPS: usize = crate::metrics::Samples::MAX_STEPS;

/// The `u64` counters per counting site, in this order: warp instructions, thread
/// instructions, branches, divergent branches, barriers, global load batches.
pub(crate) const SITE_FIELDS: usize = 6;

/// What a run of instructions under one mask adds, per warp that runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunAdd {
    /// An instruction, and its lanes, at this slot of the counts.
    Instruction(u32),
    /// A request of this memory instruction, one that costs one wavefront whatever its lanes
    /// (`CountedAccess::unit`).
    Request(usize),
}

/// A run of instructions under one mask: what it adds (each so many times) per warp that runs
/// it, and whether its mask is every lane. The compiled code adds the warps that run it and
/// their lanes ([`RUN_FIELDS`] words per run); [`Pending`] adds up the rest from them when the
/// worker is done.
#[derive(Debug)]
pub(crate) struct Run {
    pub adds: Vec<(RunAdd, u64)>,
    pub full: bool,
}

/// `u64`s per run: the warps that ran it and (unless its mask is every lane) their lanes.
pub(crate) const RUN_FIELDS: usize = 2;

/// The `u64` counters per memory instruction (first in its part of the memo):
/// requests, sectors (shared: wavefronts), lines (shared: ideal wavefronts), bytes, then
/// requests by conflict degree.
pub(crate) const ACCESS_FIELDS: usize = 4 + 32;

/// The memo's head: the cost, block and warp of the costliest access sampled so far, global
/// then shared (cost 0: none); then, global and shared, the least cost of an access of the
/// running block that may become the sample ([`NEED`]).
pub(crate) const MEMO_BEST: usize = 8;

/// Where in the memo's head the least costs are: an access that costs less cannot become the
/// sample (one compare on the memo's hit path; one that costs as much is looked at closer).
pub(crate) const NEED: usize = 6;

/// Where in the memo's head the shared sample's cost, block and warp are.
pub(crate) const SHARED_BEST: usize = 3;

/// `u64`s a memo entry remembers: the lanes and start it holds (0: none; else the mask, and
/// the start's offset within 128 bytes plus one above bit 32), the sample cost, what
/// [`ACCESS_FIELDS`] 1, 2 and 3 add, two conflict degrees (`index << 32 | requests`), and the
/// step in bytes.
pub(crate) const REMEMBERED: usize = 8;

/// Entries per memory instruction: room for a reduction's tree steps and a tile's rows (each
/// a lane pattern and start of its own). A key has two places: first entry `lanes executing ^
/// key >> 34` (its count of lanes, 1 to 32, against its start's word within 128 bytes plus
/// one: distinct for a tile's 32 row starts and a tree's halving lane counts), else entry
/// `(key × crate::count::HASH) >> 58` (the top six bits of the product), which a key takes
/// when another holds its first. Both places index the entries unchecked: their six bits need
/// exactly 64.
pub(crate) const ENTRIES: usize = 64;
const _: () = assert!(ENTRIES == 64, "the memo's places are six bits");

/// Places in a memory instruction's table of whole rows: a global load or store whose lanes
/// are all executing, of a step the compiled code knows and elements of a multiple of four
/// bytes, costs what the word its row starts at within 128 bytes says (the memo's reasoning,
/// with the lanes and step fixed), so that word indexes the table directly. A place holds its
/// cost plus one (0: not known yet), the rows that hit it, and what one row adds to
/// [`ACCESS_FIELDS`] 1, 2 and 3 ([`TABLE_WORDS`] apart); the hits are multiplied out when
/// the worker is done. A hit is an index, a compare and an add, where the memo builds and
/// compares a key and adds four counts.
pub(crate) const TABLE_PLACES: usize = 32;

/// `u64`s a place of the table of whole rows takes (five used, eight for a shift).
pub(crate) const TABLE_WORDS: usize = 8;

/// `u64`s of a memory instruction's part of the memo: its counts, the entries, then the
/// table of whole rows.
pub(crate) const MEMO_FIELDS: usize =
    ACCESS_FIELDS + ENTRIES * REMEMBERED + TABLE_PLACES * TABLE_WORDS;

/// Where in a memory instruction's part of the memo its table of whole rows begins.
pub(crate) const TABLE_AT: usize = ACCESS_FIELDS + ENTRIES * REMEMBERED;

/// `u64`s of a memo for `accesses` memory instructions: the head, then a part each.
pub(crate) fn memo_words(accesses: usize) -> usize {
    MEMO_BEST + accesses * MEMO_FIELDS
}

/// What [`access`] hands back: whether what follows is to be remembered (1 or 0), what to
/// remember ([`REMEMBERED`]), then the memo's head as it is now.
pub(crate) const OUT_WORDS: usize = 1 + REMEMBERED + MEMO_BEST;

/// Words (`u64`) of a block's step record for `warps` warps: per warp its branch steps taken,
/// then per warp its divergent branches, then per step and warp (`k × warps + w`) the
/// counting site plus one of a step no earlier block reached (0: none, or a step an earlier
/// block reached; see [`known_word`]); then per warp the loads of its current batch (see
/// [`batch_word`]); then per warp the global loads and stores it has left to sample (see
/// [`wave_word`]); then the steps an earlier block reached; then the block's noted sample
/// (see [`unit_word`]); last, per warp, its sampled rows (see [`rows_word`]).
pub(crate) fn step_words(warps: usize) -> usize {
    rows_word(warps) + warps * crate::WaveRuns::ACCESSES as usize * ROW_WORDS
}

/// Where in the step record warp 0's sampled rows are: per warp, its samples for
/// [`crate::WaveRuns`] in their order, [`ROW_WORDS`] each: lane 0's byte offset, the step in
/// bytes, and the memory instruction with the lanes above bit 32 (lanes 0: none, or shown to
/// [`sample`] where it happened). The compiled code notes a row here instead of calling a
/// helper (a call would keep its live vectors on the stack); [`Pending::end_block`] shows the
/// rows to the counter and clears them.
pub(crate) fn rows_word(warps: usize) -> usize {
    unit_word(warps) + NOTE_WORDS
}

/// Words of a sampled row ([`rows_word`]).
pub(crate) const ROW_WORDS: usize = 3;

/// Where in the step record the block's noted sample is: an access of cost one (a shared
/// access that costs one wavefront whatever its lanes) that could become the costliest shared
/// sample, noted rather than shown to [`access`] where it happens: its warp plus one (0: none),
/// its memory instruction, its lanes, lane 0's byte offset and the step in bytes.
/// The helper sees it at its next call, or [`Pending::end_block`] shows it.
pub(crate) fn unit_word(warps: usize) -> usize {
    known_word(warps) + 1
}

/// Words of a noted sample ([`unit_word`]).
pub(crate) const NOTE_WORDS: usize = 5;

/// What compiled code hands [`access`] on its stack: room for what it hands back
/// ([`OUT_WORDS`]), then the block's noted sample ([`NOTE_WORDS`]).
pub(crate) const CALL_WORDS: usize = OUT_WORDS + NOTE_WORDS;

/// Where in the step record the count of steps is whose sites no warp of the block reports:
/// [`crate::count::Count::known_steps`], set when the block starts (`u64::MAX` once it reaches
/// [`MAX_STEPS`]: no step is recorded past it).
pub(crate) fn known_word(warps: usize) -> usize {
    wave_word(warps) + warps
}

/// Where in the step record warp 0's wave word is: the global loads and stores the warp has
/// left to sample for [`crate::WaveRuns`]. While it is not zero, the compiled code notes every
/// such access of the warp as a row ([`rows_word`]) or shows its lanes to [`sample`], and
/// counts the word down.
pub(crate) fn wave_word(warps: usize) -> usize {
    batch_word(warps) + warps
}

/// Where in the step record warp 0's batch word is: the global loads of the warp's current
/// batch (0: its next load starts one; [`crate::Counters::gld_batches`]).
pub(crate) fn batch_word(warps: usize) -> usize {
    2 * warps + MAX_STEPS * warps
}

/// `u64`s of the divergent branches by step for `warps` warps: per step and warp
/// (`k × warps + w`), summed over blocks; a last row takes the steps past [`MAX_STEPS`], which
/// are not told apart.
pub(crate) fn div_words(warps: usize) -> usize {
    (MAX_STEPS + 1) * warps
}

/// A memory instruction of the compiled code, as [`access`] is told about it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CountedAccess {
    /// Its counting site.
    pub site: u32,
    /// Its buffer slot.
    pub slot: u32,
    pub kind: AccessKind,
    /// Bytes per lane.
    pub size: u32,
    /// Whether it costs one wavefront whatever its lanes ([`super::Shape::warp_banks`]): the
    /// compiled code then adds only its requests, each one wavefront, one ideal and of degree 1.
    pub unit: bool,
}

/// What the interpreter knows of a buffer slot ([`Target`] without the element size).
#[derive(Clone, Copy)]
pub(crate) struct SlotTarget<'a> {
    pub space: Space,
    pub constant: bool,
    pub name: &'a str,
    /// The address of its first byte (a device address, or the offset in shared memory).
    pub base: u64,
    pub bytes: u64,
}

/// Where a compiled block's counts go: the counter (which the helpers add to and sample
/// into), and what they need to know of the code.
pub(crate) struct Sink<'a> {
    pub count: &'a mut Count,
    /// Per counting site of the compiled code: the counter's site index and the site.
    pub sites: &'a [(usize, Site)],
    /// The compiled code's memory instructions ([`super::Compiled::accesses`]).
    pub accesses: &'a [CountedAccess],
    /// Per buffer slot.
    pub slots: &'a [SlotTarget<'a>],
    pub banks: BankGeometry,
    /// The memory instructions of the noted samples shown to the counter ([`replay`]), each
    /// a request the compiled code counted too.
    pub replayed: Vec<usize>,
}

/// What a worker's compiled blocks count (layouts above), kept in its counter from block to
/// block and added to it when the worker is done.
pub(crate) struct Pending {
    /// Per counting site: the counter's site index and the site (lent to the [`Sink`] while
    /// a block runs).
    pub sites: Vec<(usize, Site)>,
    /// Per memory instruction: the counter's site index, the memory space and access kind
    /// (`None`: an unknown buffer slot), and whether it costs one wavefront whatever its lanes.
    adds: Vec<(Option<usize>, Option<Space>, AccessKind, bool)>,
    warps: usize,
    /// Whether the code counts per line: its branches add to their sites as they are taken
    /// (else [`Pending::end_block`] adds the block's to the one slot).
    lines: bool,
    /// [`SITE_FIELDS`] per counting slot.
    pub tally: Vec<u64>,
    /// The code's runs (shared with it), and [`RUN_FIELDS`] per run: what they counted.
    runs: std::sync::Arc<[Run]>,
    pub run_counts: Vec<u64>,
    /// The block's step record ([`step_words`]).
    pub steps: Vec<u64>,
    /// [`div_words`].
    pub div: Vec<u64>,
    /// [`memo_words`].
    pub memo: Vec<u64>,
    /// Whether the step record's wave words were set for the running block.
    wave_set: bool,
}

impl Pending {
    /// Nothing counted yet, for code of `tally_words` counts and `runs` with `accesses` on
    /// `slots`, counting at `sites` (per line or not), in blocks of `warps` warps.
    pub fn new(
        (sites, lines): (Vec<(usize, Site)>, bool),
        (accesses, slots): (&[CountedAccess], &[SlotTarget<'_>]),
        (tally_words, runs): (usize, &std::sync::Arc<[Run]>),
        warps: usize,
    ) -> Pending {
        let adds = accesses
            .iter()
            .map(|a| {
                let index = sites.get(a.site as usize).map(|&(i, _)| i);
                let space = slots.get(a.slot as usize).map(|t| t.space);
                (index, space, a.kind, a.unit)
            })
            .collect();
        Pending {
            sites,
            adds,
            warps,
            lines,
            tally: vec![0; tally_words],
            runs: std::sync::Arc::clone(runs),
            run_counts: vec![0; runs.len() * RUN_FIELDS],
            steps: vec![0; step_words(warps)],
            div: vec![0; div_words(warps)],
            memo: vec![0; memo_words(accesses.len())],
            wave_set: false,
        }
    }

    /// The block the sink's counter is running starts: its warps' samples of the first wave,
    /// the steps whose sites it need not report, and the least costs of a sample. The memo's
    /// head holds the costliest samples so far: the helper hands them back, and the compiled
    /// code writes a noted sample there itself (the one the counter keeps when
    /// [`Pending::end_block`] shows it the note).
    pub fn begin_block(&mut self, sink: &Sink<'_>) {
        let (warps, count) = (self.warps, &*sink.count);
        let left = if count.in_wave() {
            crate::WaveRuns::ACCESSES
        } else {
            0
        };
        // Past the first wave the words stay zero: the compiled code counts them down to it.
        if left != 0 || self.wave_set {
            self.steps[wave_word(warps)..][..warps].fill(u64::from(left));
            self.wave_set = left != 0;
        }
        // Compiled code compares a step with this word alone: none to record, none reached.
        let known = count.known_steps();
        self.steps[known_word(warps)] = if known < MAX_STEPS {
            known as u64
        } else {
            u64::MAX
        };
        let block = count.block();
        for (best, need) in [(0, NEED), (SHARED_BEST, NEED + 1)] {
            self.memo[need] = need_of(&self.memo[best..best + 2], block);
        }
    }

    /// Whether no access of cost one in block `linear` can become the costliest shared sample:
    /// the sample so far cost one or more and came from an earlier block (the sample only gets
    /// costlier or earlier, whatever the block samples meanwhile).
    pub fn unit_later(&self, linear: u64) -> bool {
        self.memo[SHARED_BEST] != 0 && self.memo[SHARED_BEST + 1] < linear
    }

    /// The block ended: add up its warps' branches (unless they were added per line), tell
    /// the counter its warps' divergence and the sites of the steps no earlier block reached,
    /// and clear the step record for the next block (a block that stopped is only cleared).
    pub fn end_block(&mut self, mut sink: Option<&mut Sink<'_>>) {
        let warps = self.warps;
        if self.wave_set {
            self.sample_rows(sink.as_deref_mut());
        }
        let note = unit_word(warps);
        if let Some(sink) = sink.as_deref_mut() {
            if self.steps[note] != 0 {
                let noted: [u64; NOTE_WORDS] = std::array::from_fn(|k| self.steps[note + k]);
                replay(sink, noted);
            }
            for id in sink.replayed.drain(..) {
                if let Some(r) = self.memo.get_mut(MEMO_BEST + id * MEMO_FIELDS) {
                    *r = r.wrapping_sub(1);
                }
            }
        }
        self.steps[note] = 0;
        let known = (self.steps[known_word(warps)] as usize).min(MAX_STEPS);
        let (steps, rest) = self.steps.split_at_mut(batch_word(warps));
        // The next block's warps start without a batch.
        rest[..warps].fill(0);
        let (taken, rest) = steps.split_at_mut(warps);
        let (divergent, record) = rest.split_at_mut(warps);
        let Some(sink) = sink else {
            taken.fill(0);
            divergent.fill(0);
            for k in known..MAX_STEPS {
                record[k * warps..][..warps].fill(0);
            }
            return;
        };
        let (mut branches, mut diverged) = (0, 0);
        for (w, (t, d)) in taken.iter_mut().zip(divergent.iter_mut()).enumerate() {
            let (t, d) = (std::mem::take(t), std::mem::take(d));
            branches += t;
            diverged += d;
            // Mostly none: every step the warp took was reached by an earlier block.
            if t > known as u64 {
                reached(sink, record, (w, warps), known..(t as usize).min(MAX_STEPS));
            }
            if d != 0 {
                sink.count.diverged(w, d);
            }
        }
        if !self.lines
            && let Some(t) = self.tally.get_mut(..SITE_FIELDS)
        {
            t[2] += branches;
            t[3] += diverged;
        }
    }

    /// Show the block's sampled rows ([`rows_word`]) to the counter (none if the block
    /// stopped), each warp's in their order, and clear them.
    fn sample_rows(&mut self, mut sink: Option<&mut Sink<'_>>) {
        let (warps, sampled) = (self.warps, crate::WaveRuns::ACCESSES as usize);
        for w in 0..warps {
            let left = self.steps.get(wave_word(warps) + w).copied().unwrap_or(0);
            let taken = sampled.saturating_sub(left as usize);
            let first = rows_word(warps) + w * sampled * ROW_WORDS;
            let Some(rows) = self.steps.get_mut(first..first + taken * ROW_WORDS) else {
                continue;
            };
            for row in rows.chunks_exact_mut(ROW_WORDS) {
                let [byte0, step, id] = [row[0], row[1], std::mem::take(&mut row[2])];
                let (access, lanes) = (id as u32, (id >> 32) as u32);
                let Some(sink) = sink.as_deref_mut() else {
                    continue;
                };
                let Some(t) = sink.slot_of(access).filter(|_| lanes != 0) else {
                    continue;
                };
                // The compiled code checked every executing lane: inside the buffer.
                let at = |l: u32| {
                    let offset = (byte0 as i64).wrapping_add(i64::from(l) * step as i64);
                    t.base.wrapping_add(offset as u64)
                };
                sink.count
                    .wave_sample(w as u32, lanes, at, Some(step as i64));
            }
        }
    }
}

/// The least cost of an access of block `block` that may become the sample whose cost and
/// block `sample` begins with: a sample from an earlier block is kept over any access as
/// costly.
fn need_of(sample: &[u64], block: u64) -> u64 {
    sample[0] + u64::from(sample[0] != 0 && sample[1] < block)
}

/// Tell the counter the sites of warp `w`'s steps `steps` (of `warps` warps), which no
/// earlier block reached, and clear them from the step record's rows `record`.
#[cold]
fn reached(
    sink: &mut Sink<'_>,
    record: &mut [u64],
    (w, warps): (usize, usize),
    steps: std::ops::Range<usize>,
) {
    for k in steps {
        // Cleared: the next block may know this step.
        let site = record.get_mut(k * warps + w).map_or(0, std::mem::take);
        if let Some(&(_, at)) = (site as usize)
            .checked_sub(1)
            .and_then(|s| sink.sites.get(s))
        {
            sink.count.step_site(k, w, at);
        }
    }
}

impl crate::count::Deferred for Pending {
    fn add_to(mut self: Box<Self>, count: &mut Count) {
        for (run, n) in self
            .runs
            .iter()
            .zip(self.run_counts.chunks_exact(RUN_FIELDS))
        {
            let warps = n[0];
            let lanes = if run.full { 32 * warps } else { n[1] };
            for &(add, times) in &run.adds {
                match add {
                    RunAdd::Instruction(s) => {
                        let at = s as usize * SITE_FIELDS;
                        if let Some(c) = self.tally.get_mut(at..at + 2) {
                            c[0] += warps * times;
                            c[1] += lanes * times;
                        }
                    }
                    // Wrapping: the blocks' ends took off the requests of the samples they
                    // replayed (`Pending::end_block`), which may have gone below zero so far.
                    RunAdd::Request(a) => {
                        if let Some(r) = self.memo.get_mut(MEMO_BEST + a * MEMO_FIELDS) {
                            *r = r.wrapping_add(warps * times);
                        }
                    }
                }
            }
        }
        for (s, c) in self.tally.chunks_exact(SITE_FIELDS).enumerate() {
            if let Some(&(index, _)) = self.sites.get(s)
                && c.iter().any(|&x| x != 0)
            {
                let to = count.at(index);
                to.warp_instructions += c[0];
                to.thread_instructions += c[1];
                to.branches += c[2];
                to.divergent_branches += c[3];
                to.barriers += c[4];
                to.gld_batches += c[5];
            }
        }
        let parts = self.memo.get_mut(MEMO_BEST..).unwrap_or_default();
        for (&(index, space, kind, unit), e) in
            self.adds.iter().zip(parts.chunks_exact_mut(MEMO_FIELDS))
        {
            let (c, rest) = e.split_at_mut(ACCESS_FIELDS);
            for place in rest[TABLE_AT - ACCESS_FIELDS..].chunks_exact(TABLE_WORDS) {
                let hits = place[1];
                c[0] = c[0].wrapping_add(hits);
                for f in 1..4 {
                    c[f] += hits * place[1 + f];
                }
            }
            let Some(index) = index.filter(|_| c[0] != 0) else {
                continue;
            };
            if unit {
                let requests = c[0];
                for f in [1, 2, 4] {
                    c[f] = requests;
                }
            }
            let to = count.at(index);
            if let Some((fields, bytes)) = space.and_then(|sp| row_counters(to, sp, kind)) {
                for (f, n) in fields.into_iter().zip(&c[..3]) {
                    *f += n;
                }
                if let Some(b) = bytes {
                    *b += c[3];
                }
            }
            for (w, n) in to.shared_conflict_ways.iter_mut().zip(&c[4..]) {
                *w += n;
            }
        }
        count.add_steps(&self.div[..MAX_STEPS * self.warps]);
    }
}

helper! {
    /// Count warp `warp`'s part of memory instruction `access` (an index into
    /// [`Sink::accesses`]): the lanes of `mask`, at `lanes[l]` bytes into the buffer; hand back
    /// in `call` what the compiled code may remember ([`OUT_WORDS`]). The block's noted sample,
    /// if any (the last [`NOTE_WORDS`] of `call`, see [`unit_word`]), was earlier: it is shown
    /// first (the compiled code then clears its note).
    fn access(
        sink: &mut Sink<'_>,
        lanes: &[i64; 32],
        access: u32,
        warp: u32,
        mask: u32,
        call: &mut [u64; CALL_WORDS],
    ) {
        let Some((out, note)) = call.split_first_chunk_mut::<OUT_WORDS>() else {
            return;
        };
        if let Ok(note) = <[u64; NOTE_WORDS]>::try_from(&*note) {
            replay(sink, note);
        }
        out[0] = 0;
        if let Some(a) = sink.accesses.get(access as usize).copied() {
            count(sink, lanes, a, warp, mask, out);
        }
        out[1 + REMEMBERED..].copy_from_slice(&sink.best());
    }
}

/// Show the block's noted sample ([`unit_word`]: none if its first word is 0) to the counter,
/// which counts it (the compiled code counted it already: [`Pending::end_block`] takes it
/// back) and keeps it as the sample if it is.
fn replay(sink: &mut Sink<'_>, [warp, id, mask, byte0, step]: [u64; NOTE_WORDS]) {
    let (Some(w), Some(a)) = (warp.checked_sub(1), sink.accesses.get(id as usize).copied()) else {
        return;
    };
    let lanes = std::array::from_fn(|l| (byte0 as i64).wrapping_add(l as i64 * step as i64));
    count(sink, &lanes, a, w as u32, mask as u32, &mut [0; OUT_WORDS]);
    sink.replayed.push(id as usize);
}

helper! {
    /// Sample warp `warp`'s part of memory instruction `access` for the first wave
    /// ([`crate::WaveRuns`]): the lanes of `mask`, at `lanes[l]` bytes into the buffer. The
    /// compiled code calls it for those of a warp's first global loads and stores in a block of
    /// the first wave (see [`wave_word`]) whose lanes it does not know to be a row (it notes a
    /// row instead: [`rows_word`]), before it counts them.
    fn sample(
        sink: &mut Sink<'_>,
        lanes: &[i64; 32],
        access: u32,
        warp: u32,
        mask: u32,
    ) {
        let Some(t) = sink.slot_of(access) else {
            return;
        };
        // The compiled code checked every executing lane: inside the buffer.
        let step = lanes[1].wrapping_sub(lanes[0]);
        let row = (0..32).all(|l| lanes[l] == lanes[0].wrapping_add(l as i64 * step));
        sink.count.wave_sample(
            warp,
            mask,
            |l| t.base.wrapping_add(lanes[l as usize] as u64),
            row.then_some(step),
        );
    }
}

/// [`access`]'s work: count with the interpreter's code, and say what to remember for a row.
fn count(
    sink: &mut Sink<'_>,
    lanes: &[i64; 32],
    a: CountedAccess,
    warp: u32,
    mask: u32,
    out: &mut [u64; OUT_WORDS],
) {
    let (Some(t), Some(&(index, site))) = (
        sink.slots.get(a.slot as usize),
        sink.sites.get(a.site as usize),
    ) else {
        return;
    };
    let elem = a.size.max(1);
    let target = Target {
        space: t.space,
        constant: t.constant,
        name: t.name,
        len: (t.bytes / u64::from(elem)) as usize,
        base: t.base,
        elem,
    };
    // The compiled code checked every executing lane: inside the buffer and aligned (element
    // sizes are powers of two).
    let shift = elem.trailing_zeros();
    let idx: [u32; 32] = std::array::from_fn(|l| (lanes[l] as u64 >> shift) as u32);
    // Lanes at a fixed step take the counter's fast paths, as the interpreter's do.
    let step = idx[1].wrapping_sub(idx[0]);
    let affine = (0..32u32).all(|l| idx[l as usize] == idx[0].wrapping_add(l.wrapping_mul(step)));
    let rows = U32x32::from_array(idx);
    let w = WarpAccess {
        warp,
        mask,
        idx: if affine {
            WarpIdx::Affine {
                start: idx[0],
                step,
            }
        } else {
            WarpIdx::Lanes(&rows)
        },
    };
    let before = *sink.count.at(index);
    sink.count
        .access(index, site, a.kind, &target, &w, sink.banks);
    // A row costs what its lanes, step and start say: remember it.
    let row_step = lanes[1].wrapping_sub(lanes[0]);
    let row = (0..32).all(|l| lanes[l] == lanes[0].wrapping_add((l as i64).wrapping_mul(row_step)));
    if !row || t.constant || a.kind == AccessKind::Atomic {
        return;
    }
    let (mut after, mut was) = (*sink.count.at(index), before);
    let (Some((now, now_bytes)), Some((then, then_bytes))) = (
        row_counters(&mut after, t.space, a.kind),
        row_counters(&mut was, t.space, a.kind),
    ) else {
        return;
    };
    let (x, y) = (*now[1] - *then[1], *now[2] - *then[2]);
    let bytes = now_bytes.zip(then_bytes).map_or(0, |(n, t)| *n - *t);
    // The sample's cost: sectors, or wavefronts.
    let cost = x;
    let mut ways = (0..32).filter_map(|i| {
        let n = after.shared_conflict_ways[i] - before.shared_conflict_ways[i];
        (n > 0).then_some((i as u64) << 32 | n)
    });
    let (w1, w2) = (ways.next().unwrap_or(0), ways.next().unwrap_or(0));
    if ways.next().is_some() {
        return;
    }
    let start = (lanes[0] & 127) as u64 + 1;
    out[0] = 1;
    out[1..1 + REMEMBERED].copy_from_slice(&[
        u64::from(mask) | start << 32,
        cost,
        x,
        y,
        bytes,
        w1,
        w2,
        row_step as u64,
    ]);
}

/// The counters a remembered row adds to, by memory space and kind (none for atomics, which
/// are not remembered): requests, sectors (shared memory: wavefronts), lines (ideal
/// wavefronts), and bytes (global memory only).
type RowCounters<'c> = ([&'c mut u64; 3], Option<&'c mut u64>);

fn row_counters(c: &mut Counters, space: Space, kind: AccessKind) -> Option<RowCounters<'_>> {
    Some(match (space, kind) {
        (_, AccessKind::Atomic) => return None,
        (Space::Global, AccessKind::Load) => (
            [&mut c.gld_requests, &mut c.gld_sectors, &mut c.gld_lines],
            Some(&mut c.gld_bytes),
        ),
        (Space::Global, AccessKind::Store) => (
            [&mut c.gst_requests, &mut c.gst_sectors, &mut c.gst_lines],
            Some(&mut c.gst_bytes),
        ),
        (Space::Shared, AccessKind::Load) => (
            [
                &mut c.shared_ld_requests,
                &mut c.shared_ld_wavefronts,
                &mut c.shared_ld_ideal,
            ],
            None,
        ),
        (Space::Shared, AccessKind::Store) => (
            [
                &mut c.shared_st_requests,
                &mut c.shared_st_wavefronts,
                &mut c.shared_st_ideal,
            ],
            None,
        ),
    })
}

impl<'a> Sink<'a> {
    /// The buffer slot memory instruction `access` (an index into [`Sink::accesses`]) uses.
    fn slot_of(&self, access: u32) -> Option<SlotTarget<'a>> {
        let a = self.accesses.get(access as usize)?;
        self.slots.get(a.slot as usize).copied()
    }

    /// The memo's head ([`MEMO_BEST`]) for the running block.
    pub fn best(&self) -> [u64; MEMO_BEST] {
        let key = |r: &Option<crate::count::RawAccess>| {
            r.as_ref()
                .map_or([0; 3], |r| [r.key.0.0, r.key.1, u64::from(r.key.2)])
        };
        let (g, s) = (
            key(&self.count.samples.worst_global),
            key(&self.count.samples.worst_shared),
        );
        // A sample from an earlier block is kept over any access as costly.
        let block = self.count.block();
        [
            g[0],
            g[1],
            g[2],
            s[0],
            s[1],
            s[2],
            need_of(&g, block),
            need_of(&s, block),
        ]
    }
}
