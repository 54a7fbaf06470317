//! Stores that wait: a warp's strided global stores written thread by thread.
//!
//! A warp's store whose lanes are a row with a large step (the naive transpose's
//! `odata[x * height + y]`) puts one element into each of 32 rows of memory. Written as the
//! warp instruction comes, every such store visits 32 cache lines, and the next store of the
//! same warp visits them again; where the rows lie a power of two apart they share one L1 set
//! and are evicted in between. A thread's own stores, written together, land in one line (PoCL
//! runs each work-item's body to its end, which is why it led here: `examples/transpose_orders.rs`
//! measures the orders).
//!
//! So such a store may wait in the block's queue (up to [`QUEUE`] of them) until the warp's
//! part of the region ends, when the queue is written lane by lane: each lane's stores in its
//! own order, lane after lane. Nothing can tell the difference, which is what allows it:
//! * the buffer is written and never read in the kernel (no load or atomic names it, none goes
//!   through a pointer chosen at run time), and at run time shares no byte with any other
//!   buffer of the launch: nothing reads it before the launch ends;
//! * the queued stores have one step, and their first lanes lie less than a step apart, so no
//!   two lanes write the same byte: each byte is written by one lane, in that lane's order;
//! * any other store to the buffer writes the queue first, and so does a loop stopped by the
//!   watchdog. A fault re-runs the block on the interpreter, which writes it all again.

use super::{C32, Tx, vmem};
use crate::cuda::ir::{Base, Kernel, Stmt};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value};
use cranelift_frontend::Variable;

/// Stores a queue holds (the transposes' unrolled loop makes four).
pub(super) const QUEUE: usize = 4;

/// Bytes of a queued store's lanes (32 of 4 bytes).
const ROW: usize = 128;

/// The queue of a translation: where it is and what it holds.
pub(super) struct Queue {
    /// Per buffer slot whose stores may wait ([`queueable`]): whether it shares no byte with
    /// another buffer of the launch (`I8`, computed at entry).
    pub apart: Vec<Option<Value>>,
    /// The queue's memory: [`QUEUE`] rows of lanes, then each store's lane-0 address.
    pub at: Value,
    /// Stores queued (`I32`), their step in bytes, their lowest and highest lane-0 address.
    pub n: Variable,
    pub step: Variable,
    pub lo: Variable,
    pub hi: Variable,
}

/// Per buffer slot, whether its stores may wait: a global buffer that `k` only writes (no load
/// or atomic names it, none goes through a pointer chosen at run time), with a store that may
/// be a strided row of 4-byte lanes (its address varies from lane to lane). Without one there
/// would be nothing to queue, only queues to write.
pub(super) fn queueable(k: &Kernel, slots: usize, globals: usize) -> Vec<bool> {
    #[derive(Default)]
    struct Seen {
        read: Vec<Option<usize>>,
        rows: Vec<Option<usize>>,
    }
    fn walk(list: &[Stmt], seen: &mut Seen, k: &Kernel) {
        for s in list {
            match s {
                Stmt::Load { addr, .. } | Stmt::Atomic { addr, .. } => {
                    seen.read.push(super::slot(k, addr.base));
                    if matches!(addr.base, Base::Var(_)) {
                        seen.read.push(None);
                    }
                }
                Stmt::Store {
                    ty, addr, values, ..
                } if values.len() == 1 && ty.size() == 4 => {
                    let mut terms = addr.index.iter().map(|(o, _)| o).chain([&addr.offset]);
                    if !terms.all(|o| super::same_in_every_lane(k, o)) {
                        seen.rows.push(super::slot(k, addr.base));
                    }
                }
                _ => {}
            }
            for c in s.children() {
                walk(c, seen, k);
            }
        }
    }
    let mut seen = Seen::default();
    walk(&k.body, &mut seen, k);
    let mut waits = vec![false; slots];
    if seen.read.contains(&None) {
        return waits;
    }
    for (s, w) in waits.iter_mut().enumerate().take(globals) {
        *w = !super::constant_slot(k, s)
            && !seen.read.contains(&Some(s))
            && seen.rows.contains(&Some(s));
    }
    waits
}

impl Tx<'_, '_> {
    /// At entry: the queue (empty), and which of the buffers that may wait share no byte with
    /// another global buffer.
    pub(super) fn queue_prologue(&mut self) {
        let slots = super::slots(self.k);
        let globals = super::buffers(self.k) + self.k.globals.len();
        let waits = queueable(self.k, slots, globals);
        if !waits.contains(&true) {
            return;
        }
        let mut apart = vec![None; slots];
        for s in (0..globals).filter(|&s| waits[s]) {
            let (p, l) = (self.buf_ptr[s], self.buf_len[s]);
            let end = self.b.ins().iadd(p, l);
            let mut ok = self.b.ins().iconst(cranelift_codegen::ir::types::I8, 1);
            for t in (0..globals).filter(|&t| t != s) {
                let (q, m) = (self.buf_ptr[t], self.buf_len[t]);
                let q_end = self.b.ins().iadd(q, m);
                // Empty buffers (null pointers) share nothing.
                let before = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, q_end, p);
                let after = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, q);
                let empty = self.b.ins().icmp_imm_s(IntCC::Equal, m, 0);
                let own = self.b.ins().icmp_imm_s(IntCC::Equal, l, 0);
                let no = self.b.ins().bor(before, after);
                let no = self.b.ins().bor(no, empty);
                let no = self.b.ins().bor(no, own);
                ok = self.b.ins().band(ok, no);
            }
            apart[s] = Some(ok);
        }
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (QUEUE * (ROW + 8)) as u32,
            4,
        ));
        let at = self.b.ins().stack_addr(I64, ss, 0);
        let [n, step, lo, hi] = [I32, I64, I64, I64].map(|t| self.b.declare_var(t));
        for v in [n, step, lo, hi] {
            let t = if v == n { I32 } else { I64 };
            let z = self.b.ins().iconst(t, 0);
            self.b.def_var(v, z);
        }
        self.queue = Some(Queue {
            apart,
            at,
            n,
            step,
            lo,
            hi,
        });
    }

    /// Whether stores to buffer slot `slot` may wait (then [`Tx::flush`] before any that does
    /// not), and if so whether they may at run time (`I8`).
    pub(super) fn may_wait(&self, slot: Option<usize>) -> Option<Value> {
        let q = self.queue.as_ref()?;
        q.apart.get(slot?).copied().flatten()
    }

    /// Queue a warp's store of 4-byte lanes `vals` (8 chunks) at lane 0's address `a0`, lane
    /// `l` at `a0 + l × step`, writing the queue first if it is full or the store could write
    /// a byte another lane of the queue writes.
    pub(super) fn enqueue(&mut self, vals: &[Value], a0: Value, step: Value) {
        let q = self.queue.as_ref().expect("a queue");
        let (at, nv, stepv, lov, hiv) = (q.at, q.n, q.step, q.lo, q.hi);
        let n = self.b.use_var(nv);
        let (lo, hi, qstep) = (
            self.b.use_var(lov),
            self.b.use_var(hiv),
            self.b.use_var(stepv),
        );
        let lo1 = self.b.ins().umin(lo, a0);
        let hi1 = self.b.ins().umax(hi, a0);
        let span = self.b.ins().isub(hi1, lo1);
        let mag = self.b.ins().iabs(step);
        let room = self.b.ins().iadd_imm_s(mag, -4);
        // A lane's 4 bytes and another lane's, `k` steps away, stay apart while the first
        // lanes lie at most a step less 4 bytes apart.
        let fits = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, span, room);
        let same = self.b.ins().icmp(IntCC::Equal, step, qstep);
        let not_full = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, n, QUEUE as i64);
        let joins = self.b.ins().band(fits, same);
        let joins = self.b.ins().band(joins, not_full);
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        let joins = self.b.ins().bor(joins, empty);
        let [put, first] = self.blocks();
        self.b.ins().brif(joins, put, &[], first, &[]);
        self.b.switch_to_block(first);
        self.flush();
        self.b.ins().jump(put, &[]);
        self.b.switch_to_block(put);
        let n = self.b.use_var(nv);
        let i = self.b.ins().uextend(I64, n);
        let off = self.b.ins().imul_imm_s(i, ROW as i64);
        let row = self.b.ins().iadd(at, off);
        for (c, &v) in vals.iter().enumerate() {
            let v = self.cast(I32X4, v);
            self.b.ins().store(vmem(), v, row, (c * 16) as i32);
        }
        let i8 = self.b.ins().ishl_imm_s(i, 3);
        let ap = self.b.ins().iadd(at, i8);
        self.b
            .ins()
            .store(MemFlagsData::trusted(), a0, ap, (QUEUE * ROW) as i32);
        let first_one = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        let (lo, hi) = (self.b.use_var(lov), self.b.use_var(hiv));
        let lo1 = self.b.ins().umin(lo, a0);
        let hi1 = self.b.ins().umax(hi, a0);
        let lo1 = self.b.ins().select(first_one, a0, lo1);
        let hi1 = self.b.ins().select(first_one, a0, hi1);
        self.b.def_var(lov, lo1);
        self.b.def_var(hiv, hi1);
        self.b.def_var(stepv, step);
        let n1 = self.b.ins().iadd_imm_s(n, 1);
        self.b.def_var(nv, n1);
    }

    /// Write the queued stores, lane after lane (each lane's in the order they came), and
    /// empty the queue.
    pub(super) fn flush(&mut self) {
        let Some(q) = self.queue.as_ref() else {
            return;
        };
        let (at, nv, stepv) = (q.at, q.n, q.step);
        let n = self.b.use_var(nv);
        let [go, done] = self.blocks();
        self.b.ins().brif(n, go, &[], done, &[]);
        self.b.switch_to_block(go);
        let step = self.b.use_var(stepv);
        let addrs: Vec<Value> = (0..QUEUE)
            .map(|e| {
                self.b.ins().load(
                    I64,
                    MemFlagsData::trusted(),
                    at,
                    (QUEUE * ROW + e * 8) as i32,
                )
            })
            .collect();
        let has: Vec<Value> = (0..QUEUE)
            .map(|e| {
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThan, n, e as i64)
            })
            .collect();
        // A loop over the 8 chunks of 4 lanes; `off` is the chunk's first lane times the step.
        let (c_var, off_var) = (self.b.declare_var(I64), self.b.declare_var(I64));
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(c_var, zero);
        self.b.def_var(off_var, zero);
        let [head, body] = self.blocks();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let c = self.b.use_var(c_var);
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, c, C32 as i64);
        self.b.ins().brif(more, body, &[], done, &[]);
        self.b.switch_to_block(body);
        let off = self.b.use_var(off_var);
        let c16 = self.b.ins().ishl_imm_s(c, 4);
        let chunk = self.b.ins().iadd(at, c16);
        let rows: Vec<Value> = (0..QUEUE)
            .map(|e| self.b.ins().load(I32X4, vmem(), chunk, (e * ROW) as i32))
            .collect();
        let mut lane_off = off;
        for l in 0..4u8 {
            for e in 0..QUEUE {
                let [yes, next] = self.blocks();
                self.b.ins().brif(has[e], yes, &[], next, &[]);
                self.b.switch_to_block(yes);
                let x = self.b.ins().extractlane(rows[e], l);
                let a = self.b.ins().iadd(addrs[e], lane_off);
                self.b.ins().store(super::mem(), x, a, 0);
                self.b.ins().jump(next, &[]);
                self.b.switch_to_block(next);
            }
            lane_off = self.b.ins().iadd(lane_off, step);
        }
        let c1 = self.b.ins().iadd_imm_s(c, 1);
        self.b.def_var(c_var, c1);
        self.b.def_var(off_var, lane_off);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(done);
        let z = self.b.ins().iconst(I32, 0);
        self.b.def_var(nv, z);
    }
}
