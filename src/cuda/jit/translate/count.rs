//! Counting code: what a counting launch's compiled code adds up, exactly as the interpreter
//! counts it ([`crate::count`]). Instructions are added per warp from its mask (a run of
//! instructions under one mask at once, when the mask next changes), and so are the requests
//! of a shared access that costs one wavefront whatever its lanes; a lane-varying branch adds
//! its divergence and the warp's step (per line, its branch too); a barrier its arriving warps;
//! any other memory instruction adds what the memo remembers for its lanes (a global row of
//! every lane and a known step: one hit on its start's place of a table), or (a miss, or an
//! access that could become the costliest sample) calls [`super::super::count::access`] with
//! its lanes' byte offsets. An access of cost one that could become the sample is noted for
//! later rather than shown to the helper where it happens: a call, even on a cold path, makes
//! the code generator keep every vector live across it on the stack, in the hot path too.
//! Layouts: [`super::super::count`].

use super::super::count::{
    self as counts, ACCESS_FIELDS, CALL_WORDS, CountedAccess, ENTRIES, MAX_STEPS, MEMO_BEST,
    MEMO_FIELDS, NEED, NOTE_WORDS, OUT_WORDS, REMEMBERED, ROW_WORDS, RUN_FIELDS, Run, RunAdd,
    SITE_FIELDS, TABLE_AT, TABLE_WORDS, batch_word, known_word, rows_word, unit_word, wave_word,
};
use super::{C32, Ctx, Known, Parts, Tx};
use crate::cuda::ir::{Scalar, Site};
use crate::error::AccessKind;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I8, I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{
    Block, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::Variable;
use std::collections::HashMap;
use std::mem::offset_of;

/// Where in the memo's head the costliest shared sample's cost, block and warp are.
const SHARED_BEST: i32 = (counts::SHARED_BEST * 8) as i32;

/// The counting state of a translation.
pub(super) struct Counting {
    /// The sites counted at, by the index the step record and memory instructions name them
    /// with, and that index of each.
    pub sites: Vec<Site>,
    index: HashMap<Site, u32>,
    /// Memory instructions, by the index the helper is called with.
    pub accesses: Vec<CountedAccess>,
    /// Whether counts are kept per line (else every site adds to one slot of the counts).
    lines: bool,
    /// What was counted since the mask last changed: (what it adds to, how many times).
    pending: Vec<(RunAdd, u64)>,
    /// Per run of instructions under one mask (a place where the mask changes after counts
    /// under it): what each warp that runs it adds, and whether its mask is every lane.
    pub runs: Vec<Run>,
    /// The current mask's lanes as bits (`I32`), defined wherever the mask is.
    cur_bits: Option<Variable>,
    /// Whether the kernel loads from memory (else there are no load batches to end).
    loads: bool,
}

impl Counting {
    pub fn new(lines: bool, loads: bool) -> Counting {
        Counting {
            loads,
            sites: Vec::new(),
            index: HashMap::new(),
            accesses: Vec::new(),
            lines,
            pending: Vec::new(),
            runs: Vec::new(),
            cur_bits: None,
        }
    }

    fn site(&mut self, site: Site) -> u32 {
        let next = self.sites.len() as u32;
        *self.index.entry(site).or_insert_with(|| {
            self.sites.push(site);
            next
        })
    }

    /// The slot of the counts a site adds to: its own per line, else one for all.
    fn slot(&mut self, site: Site) -> u32 {
        let s = self.site(site);
        if self.lines { s } else { 0 }
    }

    /// One more of `p` under the current mask.
    fn pend(&mut self, p: RunAdd) {
        match self.pending.iter_mut().find(|(q, _)| *q == p) {
            Some(q) => q.1 += 1,
            None => self.pending.push((p, 1)),
        }
    }

    /// Slots of the counts ([`super::super::count::SITE_FIELDS`] `u64`s each).
    pub fn slots(&self) -> usize {
        if self.lines {
            self.sites.len()
        } else {
            usize::from(!self.sites.is_empty())
        }
    }
}

impl Tx<'_, '_> {
    /// Declare the current mask's bits (at entry, before the mask is first set).
    pub(super) fn count_prologue(&mut self) {
        let Some(c) = &mut self.count else {
            return;
        };
        c.cur_bits = Some(self.b.declare_var(I32));
    }

    /// The current mask changed to `v` (counting code keeps its bits).
    pub(super) fn cur_changed(&mut self, v: &[Value; C32]) {
        if let Some(var) = self.count.as_ref().and_then(|c| c.cur_bits) {
            let bits = self.bits(v);
            self.b.def_var(var, bits);
        }
    }

    /// The current mask's lanes as bits (`I32`).
    pub(super) fn cur_bits(&mut self) -> Value {
        match self.count.as_ref().and_then(|c| c.cur_bits) {
            Some(var) => self.b.use_var(var),
            None => {
                let m = self.get_mask(self.cur);
                self.bits(&m)
            }
        }
    }

    /// One instruction at `site` for each warp with an executing lane (inside a region: block
    /// level runs only uniform assignments, which are not instructions that count).
    pub(super) fn count_instr(&mut self, site: Site) {
        let (Some(c), Some(_)) = (self.count.as_mut(), self.warp) else {
            return;
        };
        let s = RunAdd::Instruction(c.slot(site));
        c.pend(s);
    }

    /// Add what was counted under the current mask: call before the mask changes. The warps
    /// that run it (and their lanes) are added to the run's two words; what the run adds to
    /// is added up from them when the worker is done ([`Run`]), so a run adds two words
    /// however many instructions and requests it holds (a full mask's run one: its lanes are
    /// 32 per warp).
    pub(super) fn flush_counts(&mut self) {
        let full = self.known == Known::Full;
        let r = match self.count.as_mut() {
            Some(c) if !c.pending.is_empty() => {
                let adds = std::mem::take(&mut c.pending);
                c.runs.push(Run { adds, full });
                c.runs.len() - 1
            }
            _ => return,
        };
        let runs = self.load_ctx(I64, offset_of!(Ctx, runs));
        let at = (r * RUN_FIELDS * 8) as i32;
        if full {
            let one = self.b.ins().iconst(I64, 1);
            self.add_at(runs, at, one);
        } else {
            let bits = self.cur_bits();
            let (issued, lanes) = self.issued(bits);
            self.add_at(runs, at, issued);
            self.add_at(runs, at + 8, lanes);
        }
    }

    /// Whether a warp with lanes `bits` issues an instruction (0 or 1), and its lanes (`I64`s).
    fn issued(&mut self, bits: Value) -> (Value, Value) {
        let pop = self.b.ins().popcnt(bits);
        let lanes = self.b.ins().uextend(I64, pop);
        let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, bits, 0);
        (self.b.ins().uextend(I64, nz), lanes)
    }

    /// The block's counts per site (their address).
    fn tally(&mut self) -> Value {
        self.load_ctx(I64, offset_of!(Ctx, tally))
    }

    /// Counter `field` of counting site `s` (in `tally`) += `x`.
    fn add_count(&mut self, tally: Value, s: u32, field: usize, x: Value) {
        let off = ((s as usize * SITE_FIELDS + field) * 8) as i32;
        self.add_at(tally, off, x);
    }

    /// The step record's address plus `8 × index` bytes (the `index`-th word).
    fn step_addr(&mut self, steps: Value, index: Value) -> Value {
        let i = self.b.ins().uextend(I64, index);
        let off = self.b.ins().ishl_imm_s(i, 3);
        self.b.ins().iadd(steps, off)
    }

    /// The address of warp `w`'s word in row `row` of `warps`-word rows from `base`.
    fn row_word(&mut self, base: Value, row: Value, w: Value) -> Value {
        let w64 = self.b.ins().uextend(I64, w);
        let kw = self.b.ins().imul_imm_s(row, self.warps as i64);
        let i = self.b.ins().iadd(kw, w64);
        let off = self.b.ins().ishl_imm_s(i, 3);
        self.b.ins().iadd(base, off)
    }

    /// The word `at` words past `p` += `x`, or `= x`.
    fn step_word(&mut self, p: Value, at: usize, x: Value, add: bool) {
        let at = (at * 8) as i32;
        let new = if add {
            let old = self.b.ins().load(I64, MemFlagsData::trusted(), p, at);
            self.b.ins().iadd(old, x)
        } else {
            x
        };
        self.b.ins().store(MemFlagsData::trusted(), new, p, at);
    }

    /// A lane-varying branch of the warp: `entry` its executing lanes, `taken` those that
    /// take it (both as bits; `None` where they are all of `entry` or none: it cannot
    /// diverge). Its instruction is counted with those before it (see [`Tx::count_instr`]);
    /// per line, the branch and its divergence are added at its site, else the block's end
    /// adds up its warps' (`Pending::end_block`).
    pub(super) fn count_branch(&mut self, site: Site, entry: Value, taken: Option<Value>) {
        let Some(c) = self.count.as_mut() else {
            return;
        };
        let (s, slot, lines) = (c.site(site), c.slot(site), c.lines);
        // Used where the branch is (a first use of the condition's lanes in a block of its own
        // would have the code generator compute them again after it for the branch itself).
        let div = taken.map(|taken| {
            let some = self.b.ins().icmp_imm_s(IntCC::NotEqual, taken, 0);
            let part = self.b.ins().icmp(IntCC::NotEqual, taken, entry);
            let div = self.b.ins().band(some, part);
            self.b.ins().uextend(I64, div)
        });
        if lines {
            let (issued, _) = self.issued(entry);
            let tally = self.tally();
            self.add_count(tally, slot, 2, issued);
            if let Some(div) = div {
                self.add_count(tally, slot, 3, div);
            }
        }
        let w = self.warp.expect("inside a region");
        let warps = self.warps;
        // Loaded here rather than kept in a register throughout (as are the other arrays).
        let steps = self.load_ctx(I64, offset_of!(Ctx, steps));
        let wp = self.step_addr(steps, w);
        let flags = MemFlagsData::trusted();
        // The warp takes a step (a warp with a lane executing); a divergent one adds to the
        // block's divergent branches and to the step's (steps past the record share a last
        // row, not told apart). Branching on the divergence here also keeps the condition's
        // lanes computed once, here.
        let [same, step, check, done] = self.blocks();
        let diverged = div.map(|div| {
            let diverged = self.b.create_block();
            self.b.ins().brif(div, diverged, &[], same, &[]);
            diverged
        });
        if diverged.is_none() {
            self.b.ins().jump(same, &[]);
        }
        self.b.switch_to_block(same);
        self.b.ins().brif(entry, step, &[], done, &[]);
        self.b.switch_to_block(step);
        let k = self.b.ins().load(I64, flags, wp, 0);
        self.b.ins().jump(check, &[k.into()]);
        // Laid out after the path of a warp that does not diverge.
        if let Some(diverged) = diverged {
            self.b.switch_to_block(diverged);
            let one = self.b.ins().iconst(I64, 1);
            self.step_word(wp, warps, one, true);
            let k = self.b.ins().load(I64, flags, wp, 0);
            let last = self.b.ins().iconst(I64, MAX_STEPS as i64);
            let row = self.b.ins().umin(k, last);
            let rows = self.load_ctx(I64, offset_of!(Ctx, div));
            let at = self.row_word(rows, row, w);
            self.add_at(at, 0, one);
            self.b.ins().jump(check, &[k.into()]);
        }
        self.b.switch_to_block(check);
        let k = self.b.append_block_param(check, I64);
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        self.b.ins().store(flags, k1, wp, 0);
        // A step no earlier block reached: record its site (the first warp to reach it names
        // its line; `Pending::end_block` tells the counter). Past the record, the known word
        // is `u64::MAX` (`Pending::begin_block`): one comparison in the hot path.
        let known = self
            .b
            .ins()
            .load(I64, flags, steps, (known_word(warps) * 8) as i32);
        let new = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, k, known);
        let [record, within] = self.blocks();
        self.b.ins().brif(new, within, &[], done, &[]);
        self.b.set_cold_block(within);
        self.b.switch_to_block(within);
        let inside = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, k, MAX_STEPS as i64);
        self.b.ins().brif(inside, record, &[], done, &[]);
        self.b.set_cold_block(record);
        self.b.switch_to_block(record);
        let ip = self.row_word(steps, k, w);
        let site1 = self.b.ins().iconst(I64, i64::from(s) + 1);
        self.step_word(ip, 2 * warps, site1, false);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// The warp's batch of loads ends (inside a region), or every warp's (at block level): a
    /// loop goes round again, or a barrier.
    pub(super) fn end_batches(&mut self) {
        if !self.count.as_ref().is_some_and(|c| c.loads) {
            return;
        }
        let steps = self.load_ctx(I64, offset_of!(Ctx, steps));
        let zero = self.b.ins().iconst(I64, 0);
        let first = batch_word(self.warps);
        match self.warp {
            Some(w) => {
                let p = self.step_addr(steps, w);
                self.step_word(p, first, zero, false);
            }
            None => {
                for w in 0..self.warps {
                    self.step_word(steps, first + w, zero, false);
                }
            }
        }
    }

    /// The warp's global load joins its batch or starts one (counted at slot `s`).
    fn batch_load(&mut self, s: u32) {
        let w = self.warp.expect("inside a region");
        let steps = self.load_ctx(I64, offset_of!(Ctx, steps));
        let p = self.step_addr(steps, w);
        let at = (batch_word(self.warps) * 8) as i32;
        let n = self.b.ins().load(I64, MemFlagsData::trusted(), p, at);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        let full = self.b.ins().icmp_imm_s(
            IntCC::UnsignedGreaterThanOrEqual,
            n,
            i64::from(crate::Counters::LOAD_BATCH),
        );
        let starts = self.b.ins().bor(none, full);
        let one = self.b.ins().iconst(I64, 1);
        let more = self.b.ins().iadd_imm_s(n, 1);
        let next = self.b.ins().select(starts, one, more);
        self.b.ins().store(MemFlagsData::trusted(), next, p, at);
        let started = self.b.ins().uextend(I64, starts);
        let tally = self.tally();
        self.add_count(tally, s, 5, started);
    }

    /// A barrier, at block level: one instruction and one barrier per warp with live lanes.
    pub(super) fn count_barrier(&mut self, site: Site) {
        self.end_batches();
        let Some(c) = self.count.as_mut() else {
            return;
        };
        let s = c.slot(site);
        if !self.exits {
            // The live lanes are the threads that exist, known now.
            let (warps, threads) = self.exists.chunks(32).fold((0, 0), |(w, t), row| {
                let n = row.iter().filter(|&&m| m != 0).count() as i64;
                (w + i64::from(n > 0), t + n)
            });
            let tally = self.tally();
            for (field, n) in [(0, warps), (1, threads), (4, warps)] {
                let x = self.b.ins().iconst(I64, n);
                self.add_count(tally, s, field, x);
            }
            return;
        }
        let alive_p = self.load_ctx(I64, offset_of!(Ctx, alive));
        let warps = self.warp_loop();
        let w = warps.w;
        let row = self.b.ins().imul_imm_s(w, 128);
        let row = self.b.ins().uextend(I64, row);
        let row = self.b.ins().iadd(alive_p, row);
        let m: [Value; C32] = std::array::from_fn(|c| {
            self.b
                .ins()
                .load(I32X4, super::vmem(), row, (c * 16) as i32)
        });
        let bits = self.bits(&m);
        let (issued, lanes) = self.issued(bits);
        let tally = self.tally();
        self.add_count(tally, s, 0, issued);
        self.add_count(tally, s, 1, lanes);
        self.add_count(tally, s, 4, issued);
        self.next_warp(warps);
    }

    /// The warp's part of a memory instruction at `site` on buffer slot `slot` (the access
    /// has been checked): its cost depends on the lanes' addresses, which the helper is
    /// shown, unless the memo knows it. `row`: where the access was tried as a row (whether
    /// it is one, lane 0's byte offset, the step in bytes).
    pub(super) fn count_access(
        &mut self,
        p: &Parts,
        slot: Option<usize>,
        (kind, size): (AccessKind, i64),
        site: Site,
        row: Option<(Value, Value, Value, Option<i64>)>,
    ) {
        let Some(c) = self.count.as_mut() else {
            return;
        };
        // Without a buffer the access faulted before it got here.
        let Some(slot) = slot else {
            return;
        };
        let s = c.site(site);
        let batch_slot = c.slot(site);
        let a = c.accesses.len();
        let buffers = super::buffers(self.k);
        let shared = slot >= buffers + self.k.globals.len();
        // The step in elements, where known (lanes that all use one address: 0).
        let known = match row {
            Some((_, _, _, known)) => known,
            None => p.terms.is_empty().then_some(0),
        };
        // One wavefront whatever the lanes: 4-byte elements at an odd step or one address, a
        // warp's request served at once by 32 banks (distinct banks, or one word).
        let unit = shared
            && size == 4
            && kind != AccessKind::Atomic
            && self.shape.warp_banks
            && known.is_some_and(|k| k == 0 || k % 2 != 0);
        c.accesses.push(CountedAccess {
            site: s,
            slot: slot as u32,
            kind,
            size: size as u32,
            unit,
        });
        // This instruction's part of the memo: its counts, then its entries.
        let counts = access_counts(a);
        let entries = counts + (ACCESS_FIELDS * 8) as i32;
        // Read through the constant cache: no global load.
        let constant = super::constant_slot(self.k, slot);
        let best = if shared { SHARED_BEST } else { 0 };
        let bits = self.cur_bits();
        let w = self.warp.expect("inside a region");
        let [call, done] = self.blocks();
        // Lanes that all use one address are a row of step 0.
        let row = row
            .map(|(ok, byte0, step, _)| (ok, byte0, step))
            .or_else(|| {
                p.terms.is_empty().then(|| {
                    let ok = self.b.ins().iconst(I8, 1);
                    let step = self.b.ins().iconst(I64, 0);
                    (ok, p.uniform, step)
                })
            });
        if unit {
            // Requests alone, added with the instructions under this mask: the sink makes
            // wavefronts, ideal ones and the degree of conflict (one each) of them. Whether the
            // lanes' row stays inside the array does not matter: the executing lanes' banks
            // are distinct (or their word one) anyway.
            if let Some(c) = self.count.as_mut() {
                c.pend(RunAdd::Request(a));
            }
            // Read where it is tested: a value kept from entry costs its spill and reloads at
            // every access.
            let later = self.load_ctx(I8, offset_of!(Ctx, unit_later));
            let (_, byte0, step) = row.expect("a unit access's lanes are a row");
            let [some, check, log] = self.blocks();
            // A warp whose access could become the costliest sample (none of cost one or more
            // from an earlier block) notes it for the helper's next call or the block's end,
            // without a call here (a call would make the code keep every live vector on the
            // stack around it).
            self.b.ins().brif(later, done, &[], some, &[]);
            self.b.set_cold_block(some);
            self.b.switch_to_block(some);
            self.b.ins().brif(bits, check, &[], done, &[]);
            self.b.set_cold_block(check);
            self.b.switch_to_block(check);
            let memo = self.load_ctx(I64, offset_of!(Ctx, memo));
            let one = self.b.ins().iconst(I64, 1);
            let skip = self.not_the_sample(memo, best, one, w);
            self.b.ins().brif(skip, done, &[], log, &[]);
            self.b.set_cold_block(log);
            self.b.switch_to_block(log);
            self.note_unit_sample(memo, a, (w, bits), (byte0, step));
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
            return;
        }
        let first = self.b.create_block();
        self.b.ins().brif(bits, first, &[], done, &[]);
        self.b.switch_to_block(first);
        if !shared && !constant {
            if kind == AccessKind::Load {
                self.batch_load(batch_slot);
            } else {
                self.end_batches();
            }
        }
        let memo = self.load_ctx(I64, offset_of!(Ctx, memo));
        // A warp of the first wave that has global loads and stores left to sample notes
        // each of them (a row: where it starts, its step; other lanes go to the sampling
        // helper), then counts it as any other.
        let sampled = !shared && !constant && kind != AccessKind::Atomic;
        if sampled {
            let wave_at = (wave_word(self.warps) * 8) as i32;
            let steps = self.load_ctx(I64, offset_of!(Ctx, steps));
            let wp = self.step_addr(steps, w);
            let left = self.b.ins().load(I64, MemFlagsData::trusted(), wp, wave_at);
            let [sample, go] = self.blocks();
            self.b.ins().brif(left, sample, &[], go, &[]);
            self.b.set_cold_block(sample);
            self.b.switch_to_block(sample);
            let one_less = self.b.ins().iadd_imm_s(left, -1);
            self.step_word(wp, wave_word(self.warps), one_less, false);
            let lanes_one_by_one = self.b.create_block();
            if let Some((ok, byte0, step)) = row {
                let by_row = self.b.create_block();
                self.b.ins().brif(ok, by_row, &[], lanes_one_by_one, &[]);
                self.b.switch_to_block(by_row);
                // The warp's row `ACCESSES - left` (left counts down from `ACCESSES` to 1).
                let sampled = i64::from(crate::WaveRuns::ACCESSES);
                let w64 = self.b.ins().uextend(I64, w);
                let next = self.b.ins().iadd_imm_s(w64, 1);
                let end = self.b.ins().imul_imm_s(next, sampled);
                let k = self.b.ins().isub(end, left);
                let off = self.b.ins().imul_imm_s(k, (ROW_WORDS * 8) as i64);
                let at = self.b.ins().iadd(steps, off);
                let lanes = self.b.ins().uextend(I64, bits);
                let lanes = self.b.ins().ishl_imm_s(lanes, 32);
                let id = self.b.ins().bor_imm_s(lanes, a as i64);
                let base = (rows_word(self.warps) * 8) as i32;
                let flags = MemFlagsData::trusted();
                for (k, x) in [byte0, step, id].into_iter().enumerate() {
                    self.b.ins().store(flags, x, at, base + 8 * k as i32);
                }
                self.b.ins().jump(go, &[]);
            } else {
                self.b.ins().jump(lanes_one_by_one, &[]);
            }
            self.b.switch_to_block(lanes_one_by_one);
            let sink = self.load_ctx(I64, offset_of!(Ctx, sink));
            let id = self.b.ins().iconst(I32, a as i64);
            let lanes = self.lane_offsets(p);
            self.call_rust(counts::sample as *const (), &[sink, lanes, id, w, bits]);
            self.b.ins().jump(go, &[]);
            self.b.switch_to_block(go);
        }
        // Whole rows of a known step index the instruction's table by where they start.
        let tabled = !shared && !constant && kind != AccessKind::Atomic && size % 4 == 0;
        let whole = (tabled && known.is_some())
            .then_some(row)
            .flatten()
            .map(|(ok, byte0, _)| {
                let all = self.b.ins().icmp_imm_s(IntCC::Equal, bits, -1);
                let whole = self.b.ins().band(ok, all);
                let word = self.b.ins().band_imm_s(byte0, 127 & !3);
                let off = self.b.ins().imul_imm_s(word, (TABLE_WORDS * 8 / 4) as i64);
                (whole, self.b.ins().iadd(memo, off))
            });
        let table = counts + (TABLE_AT * 8) as i32;
        if let Some((ok, byte0, step)) = row {
            // The memo: the same lanes at the same start within 128 bytes cost the same.
            let [probe, hit, add] = self.blocks();
            if let Some((whole, place)) = whole {
                let [look, counted, memo_only] = self.blocks();
                self.b.ins().brif(whole, look, &[], memo_only, &[]);
                self.b.switch_to_block(memo_only);
                self.b.ins().brif(ok, probe, &[], call, &[]);
                self.b.switch_to_block(look);
                let flags = MemFlagsData::trusted();
                let known = self.b.ins().load(I64, flags, place, table);
                // 0 (not known yet) wraps to the most: never cheaper.
                let cost = self.b.ins().iadd_imm_s(known, -1);
                let need = (NEED * 8) as i32;
                let need = self.b.ins().load(I64, flags, memo, need);
                let cheaper = self.b.ins().icmp(IntCC::UnsignedLessThan, cost, need);
                self.b.ins().brif(cheaper, counted, &[], probe, &[]);
                self.b.switch_to_block(counted);
                let one = self.b.ins().iconst(I64, 1);
                self.add_at(place, table + 8, one);
                self.b.ins().jump(done, &[]);
            } else {
                self.b.ins().brif(ok, probe, &[], call, &[]);
            }
            self.b.switch_to_block(probe);
            let start = self.b.ins().band_imm_s(byte0, 127);
            let start = self.b.ins().iadd_imm_s(start, 1);
            let start = self.b.ins().ishl_imm_s(start, 32);
            let lanes = self.b.ins().uextend(I64, bits);
            let key = self.b.ins().bor(lanes, start);
            let flags = MemFlagsData::trusted();
            // Two places a key may be in (see `ENTRIES`): the first, then the second.
            let found = self.b.declare_var(I64);
            let second = self.b.create_block();
            for (way, miss) in [(0, second), (1, call)] {
                let e = self.memo_entry(memo, key, way);
                let held = self.b.ins().load(I64, flags, e, entries);
                let held_step = self.b.ins().load(I64, flags, e, entries + 7 * 8);
                let same = self.b.ins().icmp(IntCC::Equal, key, held);
                let same_step = self.b.ins().icmp(IntCC::Equal, step, held_step);
                let same = self.b.ins().band(same, same_step);
                self.b.def_var(found, e);
                self.b.ins().brif(same, hit, &[], miss, &[]);
                if way == 0 {
                    self.b.switch_to_block(second);
                }
            }
            self.b.switch_to_block(hit);
            let e = self.b.use_var(found);
            let cost = self.b.ins().load(I64, flags, e, entries + 8);
            let need = (NEED + usize::from(shared)) * 8;
            let need = self.b.ins().load(I64, flags, memo, need as i32);
            let cheaper = self.b.ins().icmp(IntCC::UnsignedLessThan, cost, need);
            let closer = self.b.create_block();
            self.b.ins().brif(cheaper, add, &[], closer, &[]);
            self.b.set_cold_block(closer);
            self.b.switch_to_block(closer);
            let skip = self.not_the_sample(memo, best, cost, w);
            self.b.ins().brif(skip, add, &[], call, &[]);
            self.b.switch_to_block(add);
            let one = self.b.ins().iconst(I64, 1);
            self.add_at(memo, counts, one);
            // Sectors and lines, or wavefronts and ideal ones; bytes count for global memory
            // only, conflict degrees for shared memory only.
            let fields: &[i32] = if shared { &[1, 2] } else { &[1, 2, 3] };
            for &f in fields {
                let x = self.b.ins().load(I64, flags, e, entries + 8 * (f + 1));
                self.add_at(memo, counts + 8 * f, x);
            }
            // Requests by conflict degree: two (degree << 32 | requests) remembered.
            let degrees: &[i32] = if shared { &[5, 6] } else { &[] };
            for &f in degrees {
                let x = self.b.ins().load(I64, flags, e, entries + 8 * f);
                let degree = self.b.ins().ushr_imm_s(x, 32);
                let n = self.b.ins().band_imm_s(x, 0xffff_ffff);
                let at = self.b.ins().ishl_imm_s(degree, 3);
                let at = self.b.ins().iadd(memo, at);
                self.add_at(at, counts + 8 * 4, n);
            }
            self.b.ins().jump(done, &[]);
        } else {
            self.b.ins().jump(call, &[]);
        }
        self.call_helper(p, a, (w, bits), (entries, call, done), whole, table);
        self.b.switch_to_block(done);
    }

    /// Warp `w`'s access (lanes `bits`, lane 0 at `byte0`, `step` bytes apart) of memory
    /// instruction `a`, of cost one, could become the costliest shared sample: note it for
    /// `Pending::end_block`, which shows it to the helper, unless the block noted a lower
    /// warp's (the first access of the lowest warp is the sample among equals), and make the
    /// memo's head say so.
    fn note_unit_sample(
        &mut self,
        memo: Value,
        a: usize,
        (w, bits): (Value, Value),
        (byte0, step): (Value, Value),
    ) {
        let flags = MemFlagsData::trusted();
        let steps = self.load_ctx(I64, offset_of!(Ctx, steps));
        let at = (unit_word(self.warps) * 8) as i32;
        // The word holds the noted warp plus one (0: none).
        let noted = self.b.ins().load(I64, flags, steps, at);
        let w64 = self.b.ins().uextend(I64, w);
        let w1 = self.b.ins().iadd_imm_s(w64, 1);
        let lower = self.b.ins().icmp(IntCC::UnsignedLessThan, w1, noted);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, noted, 0);
        let take = self.b.ins().bor(lower, none);
        let kept = self.b.ins().select(take, w1, noted);
        let [write, head] = self.blocks();
        self.b.ins().brif(take, write, &[], head, &[]);
        self.b.switch_to_block(write);
        let id = self.b.ins().iconst(I64, a as i64);
        let mask = self.b.ins().uextend(I64, bits);
        for (k, x) in [w1, id, mask, byte0, step].into_iter().enumerate() {
            self.b.ins().store(flags, x, steps, at + (k * 8) as i32);
        }
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let warp = self.b.ins().iadd_imm_s(kept, -1);
        let one = self.b.ins().iconst(I64, 1);
        let linear = self.load_ctx(I64, offset_of!(Ctx, linear));
        for (k, x) in [one, linear, warp].into_iter().enumerate() {
            self.b
                .ins()
                .store(flags, x, memo, SHARED_BEST + (k * 8) as i32);
        }
        // A sample of this block: an access as costly may still replace it.
        self.b
            .ins()
            .store(flags, one, memo, ((NEED + 1) * 8) as i32);
    }

    /// Block `call`: show warp `w`'s access (lanes `bits`) of memory instruction `a` to the
    /// helper, keep the memo's head and what to remember (at `entries`; a whole row, where
    /// `whole` says so, also at its place, `table` bytes on), then go to `done`.
    fn call_helper(
        &mut self,
        p: &Parts,
        a: usize,
        (w, bits): (Value, Value),
        (entries, call, done): (i32, Block, Block),
        whole: Option<(Value, Value)>,
        table: i32,
    ) {
        self.b.set_cold_block(call);
        self.b.switch_to_block(call);
        let memo = self.load_ctx(I64, offset_of!(Ctx, memo));
        let lanes = self.lane_offsets(p);
        // Written before the call: the helper gets it as a reference to initialised words,
        // the block's noted sample (see `note_unit_sample`) last, which the helper shows first.
        let flags = MemFlagsData::trusted();
        let out = self.stack_words(CALL_WORDS);
        let zero = self.b.ins().iconst(I64, 0);
        for k in 0..OUT_WORDS {
            self.b.ins().store(flags, zero, out, (k * 8) as i32);
        }
        let steps = self.load_ctx(I64, offset_of!(Ctx, steps));
        let note = (unit_word(self.warps) * 8) as i32;
        for k in 0..NOTE_WORDS {
            let x = self.b.ins().load(I64, flags, steps, note + (k * 8) as i32);
            self.b
                .ins()
                .store(flags, x, out, ((OUT_WORDS + k) * 8) as i32);
        }
        self.b.ins().store(flags, zero, steps, note);
        let id = self.b.ins().iconst(I32, a as i64);
        let sink = self.load_ctx(I64, offset_of!(Ctx, sink));
        self.call_rust(
            counts::access as *const (),
            &[sink, lanes, id, w, bits, out],
        );
        // What the helper hands back: the memo's head, and what to remember.
        for k in 0..MEMO_BEST {
            let x = self
                .b
                .ins()
                .load(I64, flags, out, ((1 + REMEMBERED + k) * 8) as i32);
            self.b.ins().store(flags, x, memo, (k * 8) as i32);
        }
        let keep = self.b.ins().load(I64, flags, out, 0);
        let remember = self.b.create_block();
        self.b.ins().brif(keep, remember, &[], done, &[]);
        self.b.switch_to_block(remember);
        // In the first place unless another key holds it, else in the second.
        let key = self.b.ins().load(I64, flags, out, 8);
        let first = self.memo_entry(memo, key, 0);
        let held = self.b.ins().load(I64, flags, first, entries);
        let free = self.b.ins().icmp_imm_s(IntCC::Equal, held, 0);
        let mine = self.b.ins().icmp(IntCC::Equal, held, key);
        let take = self.b.ins().bor(free, mine);
        let other = self.memo_entry(memo, key, 1);
        let e = self.b.ins().select(take, first, other);
        for k in 0..REMEMBERED {
            let x = self.b.ins().load(I64, flags, out, ((1 + k) * 8) as i32);
            self.b.ins().store(flags, x, e, entries + (k * 8) as i32);
        }
        let Some((whole, place)) = whole else {
            self.b.ins().jump(done, &[]);
            return;
        };
        let fill = self.b.create_block();
        self.b.ins().brif(whole, fill, &[], done, &[]);
        self.b.switch_to_block(fill);
        // The cost plus one, then (after the hits) sectors, lines and bytes.
        let cost = self.b.ins().load(I64, flags, out, 2 * 8);
        let known = self.b.ins().iadd_imm_s(cost, 1);
        self.b.ins().store(flags, known, place, table);
        for f in 1..4 {
            let x = self.b.ins().load(I64, flags, out, (2 + f) * 8);
            self.b.ins().store(flags, x, place, table + (1 + f) * 8);
        }
        self.b.ins().jump(done, &[]);
    }

    /// Every lane's byte offset into the access's buffer (as `lane_byte` computes it for one
    /// lane), in 32 `i64`s on the stack: their address.
    fn lane_offsets(&mut self, p: &Parts) -> Value {
        let uniform = self.b.ins().splat(I64X2, p.uniform);
        let mut bytes = [uniform; 16];
        for (lanes, t, scale) in &p.terms {
            let chunks = &self.warp_of(lanes);
            // x86 has no 64-bit lane multiply below AVX-512: a power of two shifts instead, and
            // only another scale is made a vector to multiply by.
            let factor = (scale.count_ones() != 1).then(|| {
                let sc = self.b.ins().iconst(I64, *scale);
                self.b.ins().splat(I64X2, sc)
            });
            let wide: Vec<Value> = if t.is_wide() {
                chunks.clone()
            } else {
                chunks
                    .iter()
                    .flat_map(|&x| {
                        let x = narrow_lanes(&mut self.b, x, *t);
                        if t.is_signed() {
                            [self.b.ins().swiden_low(x), self.b.ins().swiden_high(x)]
                        } else {
                            [self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x)]
                        }
                    })
                    .collect()
            };
            for (acc, x) in bytes.iter_mut().zip(wide) {
                let term = match factor {
                    Some(sc) => self.b.ins().imul(x, sc),
                    None => self
                        .b
                        .ins()
                        .ishl_imm_s(x, i64::from(scale.trailing_zeros())),
                };
                *acc = self.b.ins().iadd(*acc, term);
            }
        }
        let lanes = self.stack_words(32);
        for (c, &x) in bytes.iter().enumerate() {
            self.b.ins().store(super::vmem(), x, lanes, (c * 16) as i32);
        }
        lanes
    }

    /// The address of `words` fresh `u64`s on the stack.
    fn stack_words(&mut self, words: usize) -> Value {
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (words * 8) as u32,
            4,
        ));
        self.b.ins().stack_addr(I64, ss, 0)
    }

    /// Whether warp `w`'s access of `cost` cannot become the costliest sample kept at `best` in
    /// the memo's head: cheaper than it, or as costly and later (`I8`).
    fn not_the_sample(&mut self, memo: Value, best: i32, cost: Value, w: Value) -> Value {
        let flags = MemFlagsData::trusted();
        let linear = self.load_ctx(I64, offset_of!(Ctx, linear));
        let top = self.b.ins().load(I64, flags, memo, best);
        let top_block = self.b.ins().load(I64, flags, memo, best + 8);
        let top_warp = self.b.ins().load(I64, flags, memo, best + 16);
        let cheaper = self.b.ins().icmp(IntCC::UnsignedLessThan, cost, top);
        let as_costly = self.b.ins().icmp(IntCC::Equal, cost, top);
        let later_block = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThan, linear, top_block);
        let same_block = self.b.ins().icmp(IntCC::Equal, linear, top_block);
        let w64 = self.b.ins().uextend(I64, w);
        let later_warp = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, w64, top_warp);
        let later = self.b.ins().band(same_block, later_warp);
        let later = self.b.ins().bor(later_block, later);
        let later = self.b.ins().band(as_costly, later);
        self.b.ins().bor(cheaper, later)
    }

    /// `memo` plus the offset of `key`'s first (`way` 0) or second place among a memory
    /// instruction's entries (see [`ENTRIES`]).
    fn memo_entry(&mut self, memo: Value, key: Value, way: u8) -> Value {
        let i = if way == 0 {
            let lanes = self.b.ins().ireduce(I32, key);
            let n = self.b.ins().popcnt(lanes);
            let n = self.b.ins().uextend(I64, n);
            let start = self.b.ins().ushr_imm_s(key, 34);
            self.b.ins().bxor(n, start)
        } else {
            let h = self.b.ins().imul_imm_s(key, crate::count::HASH as i64);
            self.b
                .ins()
                .ushr_imm_s(h, 64 - ENTRIES.trailing_zeros() as i64)
        };
        let off = self.b.ins().imul_imm_s(i, (REMEMBERED * 8) as i64);
        self.b.ins().iadd(memo, off)
    }

    /// `*(p + off) += x` (`u64`s).
    fn add_at(&mut self, p: Value, off: i32, x: Value) {
        let flags = MemFlagsData::trusted();
        let old = self.b.ins().load(I64, flags, p, off);
        let new = self.b.ins().iadd(old, x);
        self.b.ins().store(flags, new, p, off);
    }
}

/// The offset of memory instruction `a`'s counts in the memo.
fn access_counts(a: usize) -> i32 {
    ((MEMO_BEST + a * MEMO_FIELDS) * 8) as i32
}

/// 32-bit lanes holding values of the narrow type `t` reduced to its bits, extended again
/// (as a lane's value is read back from memory at its width).
fn narrow_lanes(b: &mut cranelift_frontend::FunctionBuilder<'_>, x: Value, t: Scalar) -> Value {
    let bits = match t {
        Scalar::I8 | Scalar::U8 | Scalar::Bool => 8,
        Scalar::I16 | Scalar::U16 => 16,
        _ => return x,
    };
    let up = b.ins().ishl_imm_s(x, 32 - bits);
    if t.is_signed() {
        b.ins().sshr_imm_s(up, 32 - bits)
    } else {
        b.ins().ushr_imm_s(up, 32 - bits)
    }
}
