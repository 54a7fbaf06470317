//! Running a lowered kernel on the block-lockstep engine.
//!
//! The executor walks a [`Kernel`]'s statements once per block, and every leaf is one
//! block-wide operation of [`crate::Block`]: an assignment is one value operation, a load or
//! store one memory instruction, and so on. Variables hold block-wide values (`bool`s as
//! predicates); an assignment made while only part of the block executes changes only the
//! executing lanes, as C's semantics require.
//!
//! Control flow follows the SIMT rules with masks: a varying `if` runs each side under its
//! lanes; `break`, `continue` and `return` take the executing lanes out until their loop,
//! iteration or inlined call ends; a loop ends when none of the lanes that entered it is left.
//! A uniform `if` or loop is plain control flow, as in a Rust kernel.
//!
//! Counting follows the IR's `varying` flags: a varying assignment is one warp instruction per
//! warp with an executing lane (a copy or a same-width integer reinterpretation is free), a
//! varying branch one branch; memory instructions, barriers, shuffles and votes always count.

use crate::block::{AtomicVal, Block, ShflOp, fault};
use crate::cuda::ir::{
    Addr, AtomicOp, Axis, Base, BinOp, Builtin, CmpOp, Const, FpTest, Kernel, Op, Operand,
    SHARED_WINDOW, Scalar, ShflKind, Stmt, SyncKind, UnOp, VoteKind, WarpReduce, library, texture,
};
use crate::error::{AccessFault, AccessKind, Error, Space};
use crate::lanes::{F32x32, F64x32, I32x32, Mask, U32x32, U64x32, WARP_SIZE};
use crate::memory::{Element, Parts, PlaceKind};
use crate::site::Site;
use crate::values::frame::{self, Frame, MAX_WARPS, Masks, R32, R64, Slot, Src32, Src64};
use crate::values::{
    self as v, Pred, Row32, Row64, U32s, U64s, bin32_in, bin64_in, cmp32_in, cmp64_in, narrow_in,
    select32, select64, un32_in, un64_in, widen_in,
};
use std::sync::Mutex;

mod printf;
pub use printf::Printed;
pub(crate) use printf::format as format_printf;

/// Where a printed line goes in the launch's output: block (linear), warp, the warp's `printf`
/// count so far, lane.
pub(crate) type PrintKey = (u64, u32, usize, u32);

/// A block-wide value of any scalar type.
///
/// Small and `Copy`: a `bool` per thread is a predicate of 128 bytes, kept in the frame (one
/// row holds every warp's mask) so that moving values around costs little.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Val {
    /// A 32-bit lane per thread (integers up to 32 bits sign- or zero-extended, `float`).
    W(R32),
    /// A 64-bit lane per thread.
    D(R64),
    /// The same `bool` for every thread.
    B(bool),
    /// A `bool` per thread: the masks in row 0 of the slot.
    P(Slot),
}

/// `p` as a value.
fn keep(fr: &mut Frame, p: Pred) -> Val {
    let s = fr.alloc(1);
    fr.rows[s.row as usize] = U32x32::from_array(p.bits);
    Val::P(s)
}

/// Lanes in `p` from `a`, the others from `b` (two values of one type).
fn merge(fr: &mut Frame, p: &Pred, a: Val, b: Val) -> Val {
    match (a, b) {
        (Val::W(a), Val::W(b)) => Val::W(select32(fr, p, a, b)),
        (Val::D(a), Val::D(b)) => Val::D(select64(fr, p, a, b)),
        (Val::B(x), Val::B(y)) if x == y => Val::B(x),
        (a, b) => {
            let (x, y) = (pred_of(fr, a), pred_of(fr, b));
            keep(fr, (x & *p) | (y & !*p))
        }
    }
}

/// A `bool` value as a predicate (a number is true where it is not zero).
fn pred_of(fr: &Frame, v: Val) -> Pred {
    match v {
        Val::B(b) => Pred::splat(b),
        Val::P(s) => Pred::from_masks(fr.rows[fr.check(s, 1)].to_array()),
        Val::W(r) => cmp32_in::<U32x32>(fr, r, R32::uniform(0), |a, b| a.ne(b)),
        Val::D(d) => cmp64_in::<U64x32>(fr, d, R64::uniform(0), |a, b| a.ne(b)),
    }
}

impl Val {
    fn w(self) -> R32 {
        match self {
            Val::W(r) => r,
            _ => unreachable!("the lowering types every operand"),
        }
    }
    fn d(self) -> R64 {
        match self {
            Val::D(r) => r,
            _ => unreachable!("the lowering types every operand"),
        }
    }
}

/// What every block of a launch shares.
pub(crate) struct Plan<'a> {
    /// Per parameter: what a pointer parameter points into, a buffer or an address in none.
    params: Vec<Option<Result<&'a crate::Global<u8>, u64>>>,
    /// The texture objects the launch binds (parameters and texture references).
    textures: &'a crate::cuda::jit::texture::Textures,
    /// Per [`Kernel::globals`] entry: its memory.
    globals: Vec<&'a crate::Global<u8>>,
    /// Per variable: the address of its fresh definition
    /// ([`crate::cuda::analysis::fresh_definitions`]), or 0.
    fresh: Vec<usize>,
    /// The launch's watchdog flag and its limit in seconds, when it has one.
    watchdog: Option<(&'a std::sync::atomic::AtomicBool, f64)>,
    /// Where a launch that tolerates accesses a little outside a buffer notes them.
    outside: Option<&'a Outside>,
}

/// The accesses outside their buffer, within its allocation's padding, that a tolerant launch
/// went on after: per block (linear index), the first at each site.
pub(crate) type Outside = Mutex<Vec<(u64, crate::error::AccessFault)>>;

/// One block's execution of a kernel.
pub(crate) struct Exec<'k, 'b, 'a> {
    k: &'k Kernel,
    b: &'b mut Block<'a>,
    plan: &'k Plan<'k>,
    vars: Vec<Val>,
    locals: Vec<Vec<Val>>,
    /// Byte offsets of the static shared arrays in the block's arena.
    shared: Vec<usize>,
    /// The enclosing loops, innermost last.
    loops: Vec<LoopLanes>,
    /// Per enclosing inlined call: lanes that returned.
    calls: Vec<Masks>,
    printed: &'k Mutex<Vec<(PrintKey, Printed)>>,
    printf_seq: usize,
    /// Statements the block has executed: its `clock()`.
    ticks: u64,
    /// The statement executing (its address), for [`Plan::fresh`].
    cur: usize,
    /// Sites at which the block noted an access outside ([`Plan::outside`]).
    noted: Vec<Site>,
}

/// Per-warp `a & !b`.
fn minus(a: &Masks, b: &Masks) -> Masks {
    std::array::from_fn(|w| a[w] & !b[w])
}

fn or(a: &Masks, b: &Masks) -> Masks {
    std::array::from_fn(|w| a[w] | b[w])
}

fn any(m: &Masks) -> bool {
    m.iter().any(|&x| x != 0)
}

/// The site of a statement.
fn site(s: crate::cuda::ir::Site) -> Site {
    Site::packed(s.file, s.line, s.col)
}

/// The value of a constant.
fn constant(c: Const) -> Val {
    match c.ty {
        Scalar::Bool => Val::B(c.bits != 0),
        t if t.is_wide() => Val::D(R64::uniform(c.bits)),
        _ => Val::W(R32::uniform(c.bits as u32)),
    }
}

/// What an enclosing loop holds back while it runs.
struct LoopLanes {
    /// Lanes that broke out of it.
    broke: Masks,
    /// Lanes that continued this iteration.
    cont: Masks,
    /// Whether no barrier follows it ([`Stmt::Loop`]'s flag): lanes that broke out count as
    /// exited at a barrier inside.
    barrier_free_after: bool,
}

/// Rows of a frame compacted at a loop's back edge once it allocated this many per warp.
const COMPACT_ROWS_PER_WARP: usize = 64;

impl<'k, 'b, 'a> Exec<'k, 'b, 'a> {
    /// Run `k` on block `b`.
    pub(crate) fn run(
        k: &'k Kernel,
        b: &'b mut Block<'a>,
        plan: &'k Plan<'k>,
        args: &[Val],
        printed: &'k Mutex<Vec<(PrintKey, Printed)>>,
    ) {
        let mut shared = Vec::with_capacity(k.shared.len());
        for s in &k.shared {
            match b.st.arena.declare(s.bytes as usize, 1) {
                Ok(off) => shared.push(off),
                Err(reason) => fault(Error::SharedMemory {
                    kernel: b.launch.name.clone(),
                    block: b.st.idx,
                    reason: format!("`{}`: {reason}", s.name),
                }),
            }
        }
        let mut vars = vec![Val::W(R32::uniform(0)); k.vars.len()];
        for (v, var) in vars.iter_mut().zip(&k.vars) {
            *v = match var.ty {
                Scalar::Bool => Val::B(false),
                t if t.is_wide() => Val::D(R64::uniform(0)),
                _ => Val::W(R32::uniform(0)),
            };
        }
        for (v, a) in k.param_vars().into_iter().zip(args) {
            if let Some(v) = v {
                vars[v.0 as usize] = *a;
            }
        }
        let locals = k
            .locals
            .iter()
            .map(|l| {
                let zero = if l.ty.is_wide() {
                    Val::D(R64::uniform(0))
                } else if l.ty == Scalar::Bool {
                    Val::B(false)
                } else {
                    Val::W(R32::uniform(0))
                };
                vec![zero; l.len as usize]
            })
            .collect();
        let mut e = Exec {
            k,
            b,
            plan,
            vars,
            locals,
            shared,
            loops: Vec::new(),
            calls: Vec::new(),
            printed,
            printf_seq: 0,
            ticks: 0,
            cur: 0,
            noted: Vec::new(),
        };
        e.block(&k.body);
    }

    /// Whether any lane executes.
    fn running(&self) -> bool {
        frame::with(|fr| fr.any_active())
    }

    /// Run statements until none is left or no lane executes.
    fn block(&mut self, stmts: &[Stmt]) {
        if !self.running() {
            return;
        }
        for s in stmts {
            self.stmt(s);
            // Only control flow deactivates lanes: after `break`, `continue` and `return` no
            // lane of this statement list runs on; after a construct, maybe none does.
            match s {
                Stmt::Break | Stmt::Continue | Stmt::Return => return,
                Stmt::If { .. } | Stmt::Loop { .. } | Stmt::Inline { .. } if !self.running() => {
                    return;
                }
                _ => {}
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.cur = s as *const Stmt as usize;
        self.ticks += 1;
        match s {
            Stmt::Assign(a) => {
                let uniform = self.k.vars[a.dst.0 as usize].uniform;
                let st = site(a.site);
                let r = self.eval(&a.op, a.ty, a.varying, st);
                self.assign(a.dst.0, r, uniform);
            }
            Stmt::Load {
                dst,
                ty,
                addr,
                site: s,
            } => self.each_base(addr, |e, a| e.load(dst, *ty, a, site(*s))),
            Stmt::Store {
                ty,
                addr,
                values,
                site: s,
            } => self.each_base(addr, |e, a| e.store(*ty, a, values, site(*s))),
            Stmt::Atomic {
                dst,
                ty,
                op,
                addr,
                a,
                b,
                site: s,
            } => self.each_base(addr, |e, ad| {
                e.atomic(*dst, *ty, *op, ad, a, b.as_ref(), site(*s))
            }),
            Stmt::If {
                cond,
                then,
                els,
                varying,
                site: s,
            } => self.if_(cond, then, els, *varying, site(*s)),
            Stmt::Loop {
                body,
                step,
                unrolled,
                barrier_free_after,
                site: s,
                ..
            } => self.loop_(body, step, *unrolled, *barrier_free_after, site(*s)),
            Stmt::Break => {
                let active = frame::with(|fr| fr.active);
                if let Some(l) = self.loops.last_mut() {
                    l.broke = or(&l.broke, &active);
                }
                frame::with(|fr| fr.set_active(&[0; MAX_WARPS]));
            }
            Stmt::Continue => {
                let active = frame::with(|fr| fr.active);
                if let Some(l) = self.loops.last_mut() {
                    l.cont = or(&l.cont, &active);
                }
                frame::with(|fr| fr.set_active(&[0; MAX_WARPS]));
            }
            Stmt::Return => match self.calls.last_mut() {
                Some(ret) => {
                    let active = frame::with(|fr| fr.active);
                    *ret = or(ret, &active);
                    frame::with(|fr| fr.set_active(&[0; MAX_WARPS]));
                }
                None => self.b.exit(),
            },
            Stmt::Inline { body } => {
                let entry = frame::with(|fr| fr.active);
                self.calls.push([0; MAX_WARPS]);
                self.block(body);
                self.calls.pop();
                frame::with(|fr| fr.reconverge(&entry));
            }
            Stmt::Sync {
                kind,
                pred,
                dst,
                site: s,
            } => {
                if *kind == SyncKind::Grid {
                    self.b.sync_grid_at(site(*s));
                    return;
                }
                let p = pred.as_ref().map(|p| self.pred(p));
                // Lanes that left a loop after which no barrier comes run on to their exit.
                let finishing = self
                    .loops
                    .iter()
                    .filter(|l| l.barrier_free_after)
                    .fold([0; MAX_WARPS], |m, l| or(&m, &l.broke));
                let (count, total) = self.b.barrier(site(*s), p.as_ref(), &finishing);
                if let Some(d) = dst {
                    let r = match kind {
                        SyncKind::Count => count,
                        SyncKind::And => u32::from(count == total),
                        SyncKind::Or => u32::from(count > 0),
                        SyncKind::Plain | SyncKind::Grid => 0,
                    };
                    let val = if self.k.vars[d.0 as usize].ty == Scalar::Bool {
                        Val::B(r != 0)
                    } else {
                        Val::W(R32::uniform(r))
                    };
                    self.assign(d.0, val, true);
                }
            }
            Stmt::Fence { site: s } => self.b.thread_fence_at(site(*s)),
            Stmt::SyncWarp { mask, site: s } => {
                let st = site(*s);
                self.per_mask(st, Some(mask), "__syncwarp's mask", |x, m| {
                    x.b.sync_warp_at(st, m);
                    Val::B(false)
                });
            }
            Stmt::Shfl {
                dst,
                ty,
                kind,
                mask,
                value,
                lane,
                width,
                site: s,
            } => {
                let w = self.uniform_u32(width, "the shuffle's width");
                let op = match kind {
                    ShflKind::Idx => ShflOp::Idx,
                    ShflKind::Up => ShflOp::Up,
                    ShflKind::Down => ShflOp::Down,
                    ShflKind::Xor => ShflOp::Xor,
                };
                let st = site(*s);
                let r = self.per_mask(st, mask.as_ref(), "the shuffle's mask", |x, m| {
                    let src = U32s(x.get(lane).w());
                    match x.get(value) {
                        Val::D(d) => Val::D(x.b.shfl_at(st, op, m, U64s(d), src, w).0),
                        Val::W(r) => Val::W(x.b.shfl_at(st, op, m, U32s(r), src, w).0),
                        b @ (Val::B(_) | Val::P(_)) => {
                            let bits = frame::with(|fr| {
                                let p = pred_of(fr, b);
                                bool_to_int(fr, &p)
                            });
                            let r = x.b.shfl_at(st, op, m, U32s(bits), src, w).0;
                            frame::with(|fr| {
                                let p = nonzero(fr, r);
                                keep(fr, p)
                            })
                        }
                    }
                });
                let _ = ty;
                self.assign(dst.0, r, false);
            }
            Stmt::Vote {
                dst,
                kind,
                mask,
                arg,
                site: s,
            } => {
                let st = site(*s);
                let r = self.per_mask(st, mask.as_ref(), "the vote's mask", |x, m| match kind {
                    VoteKind::Ballot => {
                        let p = x.pred(arg.as_ref().expect("a predicate"));
                        Val::W(x.b.ballot_at(st, m, p).0)
                    }
                    VoteKind::Any | VoteKind::All => {
                        let p = x.pred(arg.as_ref().expect("a predicate"));
                        let (name, f): (_, fn(u32, u32) -> bool) = if *kind == VoteKind::Any {
                            ("__any_sync", |p, _| p != 0)
                        } else {
                            ("__all_sync", |p, m| p == m)
                        };
                        let r = x.b.vote(st, m, p, name, f);
                        Val::W(frame::with(|fr| bool_to_int(fr, &r)))
                    }
                    VoteKind::ActiveMask => Val::W(x.b.activemask_at(st).0),
                    VoteKind::MatchAny => {
                        let v = U32s(x.get(arg.as_ref().expect("a value")).w());
                        Val::W(x.b.match_any_at(st, m, v).0)
                    }
                    VoteKind::Reduce(op) => {
                        let v = U32s(x.get(arg.as_ref().expect("a value")).w());
                        let signed = x.k.vars[dst.0 as usize].ty == Scalar::I32;
                        let (name, f): (_, fn(u32, u32) -> u32) = match (op, signed) {
                            (WarpReduce::Add, _) => ("__reduce_add_sync", u32::wrapping_add),
                            (WarpReduce::Min, false) => ("__reduce_min_sync", u32::min),
                            (WarpReduce::Min, true) => {
                                ("__reduce_min_sync", |a, b| (a as i32).min(b as i32) as u32)
                            }
                            (WarpReduce::Max, false) => ("__reduce_max_sync", u32::max),
                            (WarpReduce::Max, true) => {
                                ("__reduce_max_sync", |a, b| (a as i32).max(b as i32) as u32)
                            }
                            (WarpReduce::And, _) => ("__reduce_and_sync", |a, b| a & b),
                            (WarpReduce::Or, _) => ("__reduce_or_sync", |a, b| a | b),
                            (WarpReduce::Xor, _) => ("__reduce_xor_sync", |a, b| a ^ b),
                        };
                        Val::W(x.b.reduce_at(st, m, v, name, f).0)
                    }
                });
                let r = if self.k.vars[dst.0 as usize].ty == Scalar::Bool {
                    frame::with(|fr| {
                        let p = nonzero(fr, r.w());
                        keep(fr, p)
                    })
                } else {
                    r
                };
                self.assign(dst.0, r, false);
            }
            Stmt::Printf {
                format,
                args,
                site: s,
            } => self.printf(format, args, site(*s)),
            Stmt::Texture {
                dst,
                ty,
                texture,
                fetch,
                coords,
                site: s,
            } => self.texture(dst, *ty, *texture, *fetch, coords, site(*s)),
            Stmt::LocalLoad {
                dst,
                array,
                index,
                site: s,
            } => {
                let idx = self.get(index);
                let st = site(*s);
                let r = self.local_load(*array as usize, idx, st);
                self.assign(dst.0, r, false);
            }
            Stmt::LocalStore {
                array,
                index,
                value,
                site: s,
            } => {
                let (idx, val) = (self.get(index), self.get(value));
                self.local_store(*array as usize, idx, val, site(*s));
            }
            Stmt::Trap { message, site: s } => {
                let (w, l) = frame::with(|fr| {
                    let w = (0..fr.warps).find(|&w| fr.active[w] != 0).unwrap_or(0);
                    (w as u32, fr.active[w].trailing_zeros())
                });
                let pos = self.b.launch.sites.position(site(*s));
                fault(Error::KernelPanic {
                    kernel: self.b.launch.name.clone(),
                    block: self.b.st.idx,
                    message: format!("{message} (thread {})", self.b.thread_of(w, l)),
                    location: pos.map(|p| p.to_string()),
                });
            }
        }
    }

    // ----- values ------------------------------------------------------------------------------

    /// An operand's value.
    #[inline]
    fn get(&self, o: &Operand) -> Val {
        match *o {
            Operand::Var(v) => self.vars[v.0 as usize],
            Operand::Const(c) => constant(c),
            Operand::Builtin(b) => self.builtin(b),
        }
    }

    fn builtin(&self, b: Builtin) -> Val {
        let pick = |d: crate::Dim3, a: Axis| match a {
            Axis::X => d.x,
            Axis::Y => d.y,
            Axis::Z => d.z,
        };
        Val::W(match b {
            Builtin::ThreadIdx(a) => {
                let t = self.b.thread_idx();
                match a {
                    Axis::X => t.x.0,
                    Axis::Y => t.y.0,
                    Axis::Z => t.z.0,
                }
            }
            Builtin::BlockIdx(a) => R32::uniform(pick(self.b.block_idx(), a)),
            Builtin::BlockDim(a) => R32::uniform(pick(self.b.block_dim(), a)),
            Builtin::GridDim(a) => R32::uniform(pick(self.b.grid_dim(), a)),
            Builtin::WarpSize => R32::uniform(WARP_SIZE as u32),
            Builtin::LaneId => self.b.lane_id().0,
            Builtin::LinearTid => self.b.linear_tid().0,
            Builtin::BaseAddress(base) => return Val::D(self.base_address(base)),
            Builtin::Clock => return Val::D(R64::uniform(self.ticks)),
        })
    }

    /// The address of a pointer's buffer (see [`Builtin::BaseAddress`]).
    fn base_address(&self, base: Base) -> R64 {
        let Base::Var(v) = base else {
            return R64::uniform(self.static_address(base));
        };
        let r = self.vars[v.0 as usize].w();
        if let Some(b) = r.as_uniform() {
            return R64::uniform(self.static_address(Base::decode(b)));
        }
        frame::with(|fr| {
            let src = fr.src32(r);
            let dst = fr.alloc(2);
            for w in 0..fr.warps {
                if fr.active[w] == 0 {
                    continue;
                }
                let lanes = src.get(&fr.rows, w).to_array();
                let a = lanes.map(|b| self.static_address(Base::decode(b)));
                fr.put64(dst, w, U64x32::from_array(a));
            }
            R64::Slot(dst)
        })
    }

    /// The address of a buffer named at lowering time.
    fn static_address(&self, base: Base) -> u64 {
        match base {
            Base::Param(i) => match self.plan.params.get(i as usize).copied().flatten() {
                Some(Ok(g)) => g.address(),
                Some(Err(address)) => address,
                None => 0,
            },
            Base::Shared(i) => SHARED_WINDOW + self.shared[i as usize] as u64,
            Base::DynamicShared => SHARED_WINDOW,
            Base::Global(i) => self.plan.globals[i as usize].address(),
            Base::Null | Base::Var(_) => 0,
        }
    }

    /// Run a memory access once per buffer its pointer points into: once for a buffer named at
    /// lowering time or the same for every thread, else once per buffer under the lanes that
    /// point into it (each part is a request of its own).
    fn each_base(&mut self, addr: &Addr, mut f: impl FnMut(&mut Self, &Addr)) {
        let Base::Var(v) = addr.base else {
            return f(self, addr);
        };
        let at = |b: u32| Addr {
            base: Base::decode(b),
            ..addr.clone()
        };
        let r = self.vars[v.0 as usize].w();
        if let Some(b) = r.as_uniform() {
            return f(self, &at(b));
        }
        let (groups, entry) = frame::with(|fr| {
            let src = fr.src32(r);
            let mut groups: Vec<(u32, Masks)> = Vec::new();
            for w in 0..fr.warps {
                let lanes = src.get(&fr.rows, w).to_array();
                for l in Mask(fr.active[w]).lanes() {
                    let b = lanes[l as usize];
                    let k = match groups.iter().position(|(g, _)| *g == b) {
                        Some(k) => k,
                        None => {
                            groups.push((b, [0; MAX_WARPS]));
                            groups.len() - 1
                        }
                    };
                    groups[k].1[w] |= 1 << l;
                }
            }
            (groups, fr.active)
        });
        for (b, masks) in groups {
            frame::with(|fr| fr.set_active(&masks));
            f(self, &at(b));
        }
        frame::with(|fr| fr.set_active(&entry));
    }

    /// A `bool` operand as a predicate.
    fn pred(&self, o: &Operand) -> Pred {
        let v = self.get(o);
        frame::with(|fr| pred_of(fr, v))
    }

    /// An operand that must be uniform (a mask, a width): its value.
    fn uniform_u32(&self, o: &Operand, what: &str) -> u32 {
        match self.get(o) {
            Val::W(r) => r.as_uniform(),
            Val::D(d) => d.as_uniform().map(|x| x as u32),
            Val::B(b) => Some(u32::from(b)),
            Val::P(_) => None,
        }
        .unwrap_or_else(|| {
            fault(Error::InvalidArgument {
                kernel: self.b.launch.name.clone(),
                block: self.b.st.idx,
                warp: 0,
                reason: format!(
                    "{what} differs between threads; warpsim needs it the same for the whole block"
                ),
            })
        })
    }

    /// The member masks of a warp intrinsic, as passes: the lanes each pass executes and each
    /// warp's mask for them. `None` is the warp's executing lanes (the legacy intrinsics
    /// without `_sync`). One pass when the lanes of each warp pass one mask (it may differ
    /// between warps: `__ballot_sync`'s result); several when lanes pass different masks, as
    /// after `labeled_partition`, where every lane a mask names must pass that same mask.
    fn mask_passes(&self, mask: Option<&Operand>, what: &str) -> Vec<(Masks, Masks)> {
        let active = frame::with(|fr| fr.active);
        let Some(o) = mask else {
            return vec![(active, active)];
        };
        let v = self.get(o);
        if let Val::W(r) = v
            && let Some(m) = r.as_uniform()
        {
            return vec![(active, [m; MAX_WARPS])];
        }
        let lanes = match v {
            Val::W(r) => r,
            Val::D(d) => frame::with(|fr| {
                narrow_in::<U64x32, U32x32>(fr, d, |x| {
                    U32x32::from_array(x.to_array().map(|v| v as u32))
                })
            }),
            Val::B(b) => return vec![(active, [u32::from(b); MAX_WARPS])],
            Val::P(_) => {
                let p = frame::with(|fr| pred_of(fr, v));
                return vec![(active, std::array::from_fn(|w| u32::from(p.bits[w] != 0)))];
            }
        };
        frame::with(|fr| {
            let src = fr.src32(lanes);
            let mut passes: Vec<(Masks, Masks)> = Vec::new();
            for (w, &executing) in active.iter().enumerate().take(fr.warps) {
                let vals = src.get(&fr.rows, w).to_array();
                let mut distinct: Vec<u32> = Vec::new();
                for l in Mask(executing).lanes() {
                    let m = vals[l as usize];
                    let named = Mask(m & executing);
                    if let Some(j) = named.lanes().find(|&j| vals[j as usize] != m) {
                        fault(Error::InvalidArgument {
                            kernel: self.b.launch.name.clone(),
                            block: self.b.st.idx,
                            warp: w as u32,
                            reason: format!(
                                "{what} differs between the lanes of warp {w} ({m:#010x} in lane \
                                 {l}, which names lane {j}, whose mask is {:#010x}); the threads a \
                                 mask names must pass the same mask",
                                vals[j as usize]
                            ),
                        });
                    }
                    let k = distinct.iter().position(|&d| d == m).unwrap_or_else(|| {
                        distinct.push(m);
                        distinct.len() - 1
                    });
                    if passes.len() <= k {
                        passes.push(([0; MAX_WARPS], [0; MAX_WARPS]));
                    }
                    passes[k].0[w] |= 1 << l;
                    passes[k].1[w] = m;
                }
            }
            if passes.is_empty() {
                passes.push((active, [0; MAX_WARPS]));
            }
            passes
        })
    }

    /// Run a warp intrinsic once per pass of [`Exec::mask_passes`], counted as the one
    /// instruction the warp issues, and merge the passes' results.
    fn per_mask(
        &mut self,
        site: Site,
        mask: Option<&Operand>,
        what: &str,
        mut f: impl FnMut(&mut Self, &Masks) -> Val,
    ) -> Val {
        let passes = self.mask_passes(mask, what);
        if let [(_, m)] = passes.as_slice() {
            return f(self, m);
        }
        let active = frame::with(|fr| fr.active);
        let paused = self.b.count_once_and_pause(site);
        let mut merged: Option<Val> = None;
        for (lanes, m) in &passes {
            frame::with(|fr| fr.active = *lanes);
            let r = f(self, m);
            frame::with(|fr| fr.active = active);
            // Merged under all the executing lanes (a selection computes only active lanes).
            merged = Some(match merged {
                None => r,
                Some(acc) => frame::with(|fr| merge(fr, &Pred::from_masks(*lanes), r, acc)),
            });
        }
        self.b.resume_counting(paused);
        merged.expect("at least one pass")
    }

    /// `dst = r` for the executing lanes (all of them for a uniform variable).
    fn assign(&mut self, dst: u32, r: Val, uniform: bool) {
        let old = self.vars[dst as usize];
        self.vars[dst as usize] = if uniform || self.plan.fresh[dst as usize] == self.cur {
            r
        } else {
            frame::with(|fr| {
                if fr.active == fr.live {
                    return r;
                }
                let p = Pred::from_masks(fr.active);
                // Lanes that do not execute keep their value: select under the live lanes.
                let active = fr.active;
                fr.active = fr.live;
                let v = merge(fr, &p, r, old);
                fr.active = active;
                v
            })
        };
    }

    /// An operation's value; counted when `varying`.
    fn eval(&mut self, op: &Op, ty: Scalar, varying: bool, st: Site) -> Val {
        let counted = varying && op.is_instruction(ty);
        let r = match op {
            Op::Copy { src } => self.get(src),
            Op::Convert { src, from } => {
                let x = self.get(src);
                frame::with(|fr| convert(fr, x, *from, ty))
            }
            Op::Bitcast { src, .. } => match self.get(src) {
                b @ (Val::B(_) | Val::P(_)) => Val::W(frame::with(|fr| {
                    let p = pred_of(fr, b);
                    bool_to_int(fr, &p)
                })),
                x => x,
            },
            Op::Unary { op, a } => {
                let x = self.get(a);
                frame::with(|fr| unary(fr, *op, ty, x))
            }
            Op::Binary { op, a, b } => {
                let (x, y) = (self.get(a), self.get(b));
                frame::with(|fr| binary(fr, *op, ty, x, y))
            }
            Op::Fma {
                a,
                b,
                c,
                negate_product,
                negate_addend,
            } => {
                let (x, y, z) = (self.get(a), self.get(b), self.get(c));
                frame::with(|fr| {
                    let x = if *negate_product {
                        unary(fr, UnOp::Neg, ty, x)
                    } else {
                        x
                    };
                    let z = if *negate_addend {
                        unary(fr, UnOp::Neg, ty, z)
                    } else {
                        z
                    };
                    fma(fr, ty, x, y, z)
                })
            }
            Op::Cmp { op, of, a, b } => {
                let (x, y) = (self.get(a), self.get(b));
                frame::with(|fr| {
                    let p = compare(fr, *op, *of, x, y);
                    keep(fr, p)
                })
            }
            Op::Select { cond, a, b } => {
                let c = self.pred(cond);
                let (x, y) = (self.get(a), self.get(b));
                frame::with(|fr| merge(fr, &c, x, y))
            }
            Op::And { a, b } => {
                let p = self.pred(a) & self.pred(b);
                frame::with(|fr| keep(fr, p))
            }
            Op::Or { a, b } => {
                let p = self.pred(a) | self.pred(b);
                frame::with(|fr| keep(fr, p))
            }
            Op::Offset { offset, index } => Val::D(self.byte_offset(offset, index)),
        };
        if counted {
            frame::with(|fr| fr.tally(st));
        }
        r
    }

    // ----- control flow ----------------------------------------------------------------------------

    fn if_(&mut self, cond: &Operand, then: &[Stmt], els: &[Stmt], varying: bool, st: Site) {
        let c = self.get(cond);
        if !varying {
            let uniform = match c {
                Val::B(b) => Some(b),
                Val::P(_) => {
                    let (any, all) = frame::with(|fr| {
                        let p = pred_of(fr, c);
                        let t = fr.taken(&p.bits);
                        (t.1 != 0, t.0 == fr.active)
                    });
                    (any == all).then_some(any)
                }
                Val::W(r) => r.as_uniform().map(|x| x != 0),
                Val::D(d) => d.as_uniform().map(|x| x != 0),
            };
            if let Some(taken) = uniform {
                self.block(if taken { then } else { els });
                return;
            }
        }
        let p = frame::with(|fr| pred_of(fr, c));
        let (entry, taken) = frame::with(|fr| {
            let entry = fr.active;
            let taken = if varying {
                self.b.branch(fr, st, &p)
            } else {
                fr.taken(&p.bits).0
            };
            (entry, taken)
        });
        let other = minus(&entry, &taken);
        let mut after = [0; MAX_WARPS];
        for (side, body) in [(taken, then), (other, els)] {
            if any(&side) && !body.is_empty() {
                frame::with(|fr| fr.set_active(&side));
                self.block(body);
                let done = frame::with(|fr| fr.active);
                after = or(&after, &done);
            } else {
                after = or(&after, &side);
            }
        }
        frame::with(|fr| {
            let m: Masks = std::array::from_fn(|w| after[w] & fr.live[w]);
            fr.set_active(&m)
        });
    }

    fn loop_(
        &mut self,
        body: &[Stmt],
        step: &[Stmt],
        unrolled: bool,
        barrier_free_after: bool,
        st: Site,
    ) {
        let (entry, base) = frame::with(|fr| (fr.active, fr.mark()));
        self.loops.push(LoopLanes {
            broke: [0; MAX_WARPS],
            cont: [0; MAX_WARPS],
            barrier_free_after,
        });
        loop {
            self.block(body);
            // Lanes that continued rejoin for the step.
            let cont = self.loops.last().expect("a loop").cont;
            frame::with(|fr| {
                let m: Masks = std::array::from_fn(|w| (fr.active[w] | cont[w]) & fr.live[w]);
                fr.set_active(&m)
            });
            self.loops.last_mut().expect("a loop").cont = [0; MAX_WARPS];
            self.block(step);
            if !self.running() {
                break;
            }
            if !unrolled {
                self.b.next_iteration();
            }
            self.watchdog(st);
            self.compact(base);
        }
        self.loops.pop();
        let returned = self.calls.last().copied().unwrap_or([0; MAX_WARPS]);
        frame::with(|fr| {
            let m: Masks = std::array::from_fn(|w| entry[w] & fr.live[w] & !returned[w]);
            fr.set_active(&m)
        });
    }

    /// Stop the block if the launch has run past its time limit (checked at every loop's back
    /// edge).
    fn watchdog(&self, st: Site) {
        if let Some((fired, seconds)) = self.plan.watchdog
            && fired.load(std::sync::atomic::Ordering::Relaxed)
        {
            fault(Error::Timeout {
                kernel: self.b.launch.name.clone(),
                block: self.b.st.idx,
                seconds,
                looping: true,
                location: self.b.launch.sites.position(st).map(|p| p.to_string()),
            });
        }
    }

    /// Free what the loop's earlier iterations allocated and no variable holds any more,
    /// once it is a fair amount.
    fn compact(&mut self, base: usize) {
        frame::with(|fr| {
            if fr.mark() - base <= COMPACT_ROWS_PER_WARP * fr.warps {
                return;
            }
            let mut found = std::mem::take(&mut fr.found);
            for v in &self.vars {
                match v {
                    Val::W(R32::Slot(s)) | Val::P(s) => found.push((*s, 1)),
                    Val::D(R64::Slot(s)) => found.push((*s, 2)),
                    _ => {}
                }
            }
            for arr in &self.locals {
                for v in arr {
                    match v {
                        Val::W(R32::Slot(s)) | Val::P(s) => found.push((*s, 1)),
                        Val::D(R64::Slot(s)) => found.push((*s, 2)),
                        _ => {}
                    }
                }
            }
            fr.found = found;
            fr.compact_found(base);
            if fr.moves.is_empty() {
                return;
            }
            let moved = |s: &mut crate::values::frame::Slot| {
                if let Some((_, to)) = fr.moves.iter().find(|(from, _)| from == s) {
                    *s = *to;
                }
            };
            let mut fix = |v: &mut Val| match v {
                Val::W(R32::Slot(s)) | Val::D(R64::Slot(s)) | Val::P(s) => moved(s),
                _ => {}
            };
            self.vars.iter_mut().for_each(&mut fix);
            self.locals.iter_mut().flatten().for_each(&mut fix);
        });
    }

    // ----- memory ------------------------------------------------------------------------------------

    /// The place (buffer) `addr` is in, typed for elements of `size` bytes, and every lane's
    /// element index in it (free: see [`Addr`]).
    fn place(
        &mut self,
        addr: &Addr,
        size: u32,
        access: AccessKind,
        st: Site,
    ) -> (PlaceKind<'k>, R32) {
        self.b.st.wide.clear();
        let place = match addr.base {
            Base::Param(i) => match self.plan.params.get(i as usize).copied().flatten() {
                Some(Ok(g)) => g.place_sized(size),
                Some(Err(address)) => {
                    let name = self.k.buffer_name(i);
                    let what = if address == 0 {
                        format!("`{name}`, a null pointer")
                    } else {
                        format!("`{name}`, which points at {address:#x}")
                    };
                    self.no_buffer(what, address, addr, size, access, st)
                }
                None => unreachable!("the launch binds every pointer parameter"),
            },
            Base::Shared(i) => {
                let a = &self.k.shared[i as usize];
                PlaceKind::Shared(self.shared[i as usize], (a.bytes / size) as usize, &a.name)
            }
            Base::DynamicShared => PlaceKind::Shared(
                0,
                self.b.st.arena.dynamic_bytes() / size as usize,
                "extern __shared__",
            ),
            Base::Global(i) => self.plan.globals[i as usize].place_sized(size),
            Base::Null => self.no_buffer("a null pointer".into(), 0, addr, size, access, st),
            Base::Var(_) => unreachable!("each_base resolves a buffer held in a variable"),
        };
        if self.plan.outside.is_some()
            && let PlaceKind::Global(alloc, off, len) = place
        {
            let bytes = self.byte_offset(&addr.offset, &addr.index);
            return self.tolerant(bytes, size, (alloc, off, len), access, st);
        }
        // `a[i]` through an unmoved pointer: the index is the element index (a negative one
        // reads as an index past every buffer, and faults as out of bounds).
        if let [(i, scale)] = addr.index[..]
            && scale == i64::from(size)
            && self.is_zero(&addr.offset)
            && let Val::W(r) = self.get(&i)
        {
            return (place, r);
        }
        let bytes = self.byte_offset(&addr.offset, &addr.index);
        let idx = self.index(bytes, size, &place, access, st);
        (place, idx)
    }

    /// A global access in a launch that tolerates accesses a little outside a buffer: lanes
    /// outside `len` elements of `size` bytes at byte `off` of `alloc`'s words, but inside its
    /// words (its padding) and aligned, are noted once per site and block, and the access goes
    /// on through the whole of the words; any other lane is checked as always.
    fn tolerant(
        &mut self,
        bytes: R64,
        size: u32,
        (alloc, off, len): (&'k crate::memory::global::Allocation, usize, usize),
        access: AccessKind,
        st: Site,
    ) -> (PlaceKind<'k>, R32) {
        let s = i64::from(size);
        let place = PlaceKind::Global(alloc, off, len);
        let end = len as i64 * s;
        let Some((w, l, at)) = first_lane(bytes, |o| o < 0 || o + s > end) else {
            let idx = self.index(bytes, size, &place, access, st);
            return (place, idx);
        };
        let (lo, hi) = (-(off as i64), (alloc.padded_bytes() - off) as i64);
        if first_lane(bytes, |o| o < lo || o + s > hi || o % s != 0).is_some() {
            let idx = self.index(bytes, size, &place, access, st);
            return (place, idx);
        }
        if let Some(outside) = self.plan.outside
            && !self.noted.contains(&st)
        {
            self.noted.push(st);
            let f = self.place_fault(&place, (w, l), at, size, access, st);
            let linear = self.b.st.idx.linear_in(self.b.launch.grid);
            outside
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((linear, *f));
        }
        // The same lanes through the whole of the words, from their first byte.
        let shifted = match bytes {
            R64::Aff { a, b, c } => R64::Aff {
                a: a.wrapping_add(off as u64),
                b,
                c,
            },
            _ => frame::with(|fr| {
                let src = fr.src64(bytes);
                let dst = fr.alloc(2);
                for w in 0..fr.warps {
                    let x = src.get(&fr.rows, w).to_array();
                    fr.put64(
                        dst,
                        w,
                        U64x32::from_array(x.map(|v| v.wrapping_add(off as u64))),
                    );
                }
                R64::Slot(dst)
            }),
        };
        let whole = PlaceKind::Global(alloc, 0, alloc.padded_bytes() / size as usize);
        let idx = self.index(shifted, size, &whole, access, st);
        (whole, idx)
    }

    /// An access through a pointer that points into no buffer (`what`, at `address`): the
    /// first executing lane faults at the address it used.
    fn no_buffer(
        &self,
        what: String,
        address: u64,
        addr: &Addr,
        size: u32,
        access: AccessKind,
        st: Site,
    ) -> ! {
        let bytes = self.byte_offset(&addr.offset, &addr.index);
        let (w, l) = Self::first_active();
        let offset =
            frame::with(|fr| fr.src64(bytes).get(&fr.rows, w as usize).to_array()[l as usize]);
        fault(Error::InvalidAddress(Box::new(AccessFault {
            kernel: self.b.launch.name.clone(),
            block: self.b.st.idx,
            thread: self.b.thread_of(w, l),
            space: Space::Global,
            access,
            buffer: what,
            index: (offset as i64).div_euclid(i64::from(size)) as u64,
            len: 0,
            address: address.wrapping_add(offset),
            elem_bytes: size,
            location: self.b.launch.sites.position(st).map(|p| p.to_string()),
        })))
    }

    /// Whether an operand is zero for every thread.
    fn is_zero(&self, o: &Operand) -> bool {
        match *o {
            Operand::Const(c) => c.bits == 0,
            Operand::Var(v) => match self.vars[v.0 as usize] {
                Val::D(d) => d.as_uniform() == Some(0),
                Val::W(w) => w.as_uniform() == Some(0),
                _ => false,
            },
            Operand::Builtin(_) => false,
        }
    }

    /// The type of an operand.
    fn ty_of(&self, o: &Operand) -> Scalar {
        match o {
            Operand::Var(v) => self.k.vars[v.0 as usize].ty,
            Operand::Const(c) => c.ty,
            Operand::Builtin(_) => Scalar::U32,
        }
    }

    /// `offset + Σ value × scale`: C's implicit address arithmetic, per thread, uncounted.
    fn byte_offset(&self, offset: &Operand, index: &[(Operand, i64)]) -> R64 {
        // Affine terms give an affine offset: the common case of indexes built from
        // `threadIdx` and uniform values, computed without touching the lanes.
        let warps = usize::from(frame::hot().warps);
        let affine = |o: &Operand| match self.get(o) {
            Val::W(w) => v::aff_widen32(w, self.ty_of(o).is_signed(), warps),
            Val::D(d @ R64::Aff { .. }) => Some(d),
            _ => None,
        };
        let mut acc = affine(offset);
        for (o, scale) in index {
            acc = acc.and_then(|a| {
                v::aff_add64(a, v::aff_mul64(affine(o)?, R64::uniform(*scale as u64))?)
            });
        }
        acc.unwrap_or_else(|| self.byte_offset_lanes(offset, index))
    }

    /// [`Exec::byte_offset`] lane by lane.
    #[inline(never)]
    fn byte_offset_lanes(&self, offset: &Operand, index: &[(Operand, i64)]) -> R64 {
        let term = |o: &Operand| (self.get(o), self.ty_of(o).is_signed());
        let terms: Vec<((Val, bool), i64)> = std::iter::once((term(offset), 1))
            .chain(index.iter().map(|(o, s)| (term(o), *s)))
            .collect();
        frame::with(|fr| {
            let srcs: Vec<(LaneSrc, i64)> = terms
                .iter()
                .map(|&((v, signed), scale)| (LaneSrc::new(fr, v, signed), scale))
                .collect();
            let dst = fr.alloc(2);
            for w in 0..fr.warps {
                if fr.active[w] == 0 {
                    continue;
                }
                let mut sum = [0u64; WARP_SIZE];
                for (src, scale) in &srcs {
                    let x = src.lanes(fr, w);
                    for (s, x) in sum.iter_mut().zip(x) {
                        *s = s.wrapping_add((x as u64).wrapping_mul(*scale as u64));
                    }
                }
                fr.put64(dst, w, U64x32::from_array(sum));
            }
            R64::Slot(dst)
        })
    }

    /// Byte offsets to element indices of `size` bytes. An offset out of the 32-bit element
    /// range (negative, or past 16 GiB of 4-byte elements) faults as out of bounds, reported
    /// with its own index; a misaligned one stops the block.
    fn index(
        &mut self,
        off: R64,
        size: u32,
        place: &PlaceKind<'_>,
        access: AccessKind,
        st: Site,
    ) -> R32 {
        let s = i64::from(size);
        let warps = frame::hot().warps as i64;
        if let R64::Aff { a, b, c } = off {
            let (a, b, c) = (a as i64, b as i64, c as i64);
            if a % s == 0 && b % s == 0 && c % s == 0 {
                let (ia, ib, ic) = (a / s, b / s, c / s);
                let ends = |k: i64, n: i64| {
                    if k < 0 {
                        (k.saturating_mul(n), 0)
                    } else {
                        (0, k.saturating_mul(n))
                    }
                };
                let (bl, bh) = ends(ib, warps.max(1) - 1);
                let (cl, ch) = ends(ic, 31);
                let (lo, hi) = (
                    ia.saturating_add(bl).saturating_add(cl),
                    ia.saturating_add(bh).saturating_add(ch),
                );
                if lo >= 0 && hi <= i64::from(u32::MAX) {
                    return R32::Aff {
                        a: ia as u32,
                        b: ib as u32,
                        c: ic as u32,
                    };
                }
            }
        }
        if let Some((w, l, offset)) = first_lane(off, |o| o % s != 0) {
            let at = (w, l);
            fault(Error::Misaligned(
                self.place_fault(place, at, offset, size, access, st),
            ));
        }
        let wild = std::cell::Cell::new(false);
        let idx = frame::with(|fr| {
            narrow_in::<U64x32, U32x32>(fr, off, |x| {
                U32x32::from_array(x.to_array().map(|v| {
                    let i = v as i64 / s;
                    u32::try_from(i).unwrap_or_else(|_| {
                        wild.set(true);
                        u32::MAX
                    })
                }))
            })
        });
        if wild.get() {
            if self.b.st.check.is_none() {
                self.wild_index(place, off, size, access, st);
            } else {
                // Check mode reports every bad lane itself, and goes on: with these indices.
                self.b.st.wide = frame::with(|fr| {
                    let src = fr.src64(off);
                    (0..fr.warps)
                        .map(|w| src.get(&fr.rows, w).to_array().map(|o| o as i64 / s))
                        .collect()
                });
            }
        }
        idx
    }

    /// An offset out of the 32-bit element range (`x - 4` as a pointer, a 64-bit index): if
    /// the lane the bounds check would name first has one, report its own index and address
    /// (narrowed, it would read as 2^32 − 1).
    #[cold]
    fn wild_index(&self, place: &PlaceKind<'_>, off: R64, size: u32, access: AccessKind, st: Site) {
        let len = match *place {
            PlaceKind::Global(_, _, len) | PlaceKind::Shared(_, len, _) => len as i64,
        };
        let s = i64::from(size);
        let Some((w, l, offset)) = first_lane(off, |o| !(0..len).contains(&(o / s))) else {
            return;
        };
        if u32::try_from(offset / s).is_err() {
            let at = (w, l);
            fault(Error::OutOfBounds(
                self.place_fault(place, at, offset, size, access, st),
            ));
        }
    }

    /// The fault report for lane `lane` of warp `warp` accessing `place` at byte `offset`.
    fn place_fault(
        &self,
        place: &PlaceKind<'_>,
        (warp, lane): (u32, u32),
        offset: i64,
        size: u32,
        access: AccessKind,
        st: Site,
    ) -> Box<AccessFault> {
        let (space, name, base, len) = match *place {
            PlaceKind::Global(alloc, off, len) => (
                Space::Global,
                alloc.name.as_str(),
                alloc.address_at(off),
                len,
            ),
            PlaceKind::Shared(off, len, name) => (Space::Shared, name, off as u64, len),
        };
        Box::new(AccessFault {
            kernel: self.b.launch.name.clone(),
            block: self.b.st.idx,
            thread: self.b.thread_of(warp, lane),
            space,
            access,
            buffer: name.to_string(),
            index: offset.div_euclid(i64::from(size)) as u64,
            len: len as u64,
            address: base.wrapping_add(offset as u64),
            elem_bytes: size,
            location: self.b.launch.sites.position(st).map(|p| p.to_string()),
        })
    }

    /// One load instruction of `dst.len()` consecutive components of type `ty` (a vector type
    /// is one access of its whole size, as on a GPU).
    fn load(&mut self, dst: &[crate::cuda::ir::VarId], ty: Scalar, addr: &Addr, st: Site) {
        let n = dst.len() as u32;
        let (place, idx) = self.place(addr, ty.size() * n, AccessKind::Load, st);
        fn get<T: Element>(b: &mut Block<'_>, st: Site, place: &PlaceKind<'_>, idx: R32) -> Parts {
            T::parts(b.load_typed::<T>(st, place, idx))
        }
        let parts = match (ty.size() * n, n) {
            (1, _) => get::<u8>(self.b, st, &place, idx),
            (2, _) => get::<u16>(self.b, st, &place, idx),
            (4, _) => get::<u32>(self.b, st, &place, idx),
            (8, 1) => get::<u64>(self.b, st, &place, idx),
            (8, _) => get::<[f32; 2]>(self.b, st, &place, idx),
            (16, _) => get::<[f32; 4]>(self.b, st, &place, idx),
            (bytes, _) => self.unsupported(&format!("a {bytes}-byte load")),
        };
        match (ty, n) {
            // The common case without building anything.
            (Scalar::F32 | Scalar::I32 | Scalar::U32, 1) => {
                self.assign(dst[0].0, Val::W(parts.r32[0]), false)
            }
            (Scalar::F64 | Scalar::I64 | Scalar::U64, 1) => {
                self.assign(dst[0].0, Val::D(parts.r64), false)
            }
            _ => {
                let vals: Vec<Val> = frame::with(|fr| split(fr, ty, n, &parts));
                for (d, v) in dst.iter().zip(vals) {
                    self.assign(d.0, v, false);
                }
            }
        }
    }

    /// A texture fetch: every executing lane samples the texture object bound to `base`
    /// ([`texture::fetch`]); one warp instruction, not a global load.
    fn texture(
        &mut self,
        dst: &[crate::cuda::ir::VarId],
        ty: Scalar,
        base: Base,
        fetch: texture::Fetch,
        coords: &[Operand],
        st: Site,
    ) {
        let Some((memory, t)) = self.plan.textures.get(base) else {
            unreachable!("the launch binds a texture object to every texture it fetches from")
        };
        let coords: Vec<R32> = coords.iter().map(|c| self.get(c).w()).collect();
        let slots = frame::with(|fr| {
            fr.tally(st);
            let out: Vec<Slot> = dst.iter().map(|_| fr.alloc(1)).collect();
            for w in fr.active_warps() {
                let mut lanes = [[0u32; WARP_SIZE]; 3];
                for (row, &c) in lanes.iter_mut().zip(&coords) {
                    *row = fr.src32(c).get(&fr.rows, w).to_array();
                }
                let got = texture::fetch_warp(
                    t,
                    fetch,
                    &lanes,
                    (ty.size(), ty.is_signed()),
                    fr.active[w],
                    &mut |at, bytes| memory.read_bytes(at as usize, bytes),
                );
                for (s, g) in out.iter().zip(got) {
                    fr.rows[s.row as usize + w] = U32x32::from_array(g);
                }
            }
            out
        });
        for (d, s) in dst.iter().zip(slots) {
            self.assign(d.0, Val::W(R32::Slot(s)), false);
        }
    }

    /// One store instruction of `values.len()` consecutive components of type `ty`.
    fn store(&mut self, ty: Scalar, addr: &Addr, values: &[Operand], st: Site) {
        let n = values.len() as u32;
        let (place, idx) = self.place(addr, ty.size() * n, AccessKind::Store, st);
        let parts = match (ty, values) {
            // The common case without building anything.
            (Scalar::F32 | Scalar::I32 | Scalar::U32, [v]) => Parts::words([self.get(v).w(); 4]),
            (Scalar::F64 | Scalar::I64 | Scalar::U64, [v]) => Parts::wide(self.get(v).d()),
            _ => {
                let vals: Vec<Val> = values.iter().map(|v| self.get(v)).collect();
                frame::with(|fr| join(fr, ty, &vals))
            }
        };
        match (ty.size() * n, n) {
            (1, _) => self.b.store_typed::<u8>(st, &place, idx, parts),
            (2, _) => self.b.store_typed::<u16>(st, &place, idx, parts),
            (4, _) => self.b.store_typed::<u32>(st, &place, idx, parts),
            (8, 1) => self.b.store_typed::<u64>(st, &place, idx, parts),
            (8, _) => self.b.store_typed::<[f32; 2]>(st, &place, idx, parts),
            (16, _) => self.b.store_typed::<[f32; 4]>(st, &place, idx, parts),
            (bytes, _) => self.unsupported(&format!("a {bytes}-byte store")),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        dst: Option<crate::cuda::ir::VarId>,
        ty: Scalar,
        op: AtomicOp,
        addr: &Addr,
        a: &Operand,
        b: Option<&Operand>,
        st: Site,
    ) {
        let (place, idx) = self.place(addr, ty.size(), AccessKind::Atomic, st);
        let x = self.get(a);
        let y = b.map_or(x, |b| self.get(b));
        let (x, y) = match (x, y) {
            (Val::W(x), Val::W(y)) => (AtomicVal::W(x), AtomicVal::W(y)),
            (Val::D(x), Val::D(y)) => (AtomicVal::D(x), AtomicVal::D(y)),
            _ => self.unsupported(&format!("an atomic on `{ty}`")),
        };
        if ty.is_float() && !op.takes_floats() {
            self.unsupported(&format!("{op:?} on `{ty}`"));
        }
        // `$t` computes, `$e` is an element of its size.
        macro_rules! run {
            ($t:ty, $e:ty) => {{
                let f = move |o: u64, x: u64, y: u64| -> u64 {
                    let t = <$t as AtomicNum>::from_bits;
                    AtomicNum::to_bits(atomic_op(op, t(o), t(x), t(y)))
                };
                self.b.atomic_bits::<$e>(st, &place, idx, [x, y], f)
            }};
        }
        let old = match ty {
            Scalar::I32 => run!(i32, u32),
            Scalar::U32 => run!(u32, u32),
            Scalar::F32 => run!(f32, u32),
            Scalar::I64 => run!(i64, u64),
            Scalar::U64 => run!(u64, u64),
            Scalar::F64 => run!(f64, u64),
            _ => self.unsupported(&format!("an atomic on `{ty}`")),
        };
        if let Some(d) = dst {
            let v = match old {
                AtomicVal::W(r) => Val::W(r),
                AtomicVal::D(r) => Val::D(r),
            };
            self.assign(d.0, v, false);
        }
    }

    fn unsupported(&self, what: &str) -> ! {
        fault(Error::InvalidArgument {
            kernel: self.b.launch.name.clone(),
            block: self.b.st.idx,
            warp: 0,
            reason: format!("{what} is not supported by warpsim"),
        })
    }

    // ----- per-thread arrays ---------------------------------------------------------------------

    fn local_load(&mut self, array: usize, idx: Val, st: Site) -> Val {
        frame::with(|fr| fr.tally(st));
        let len = self.locals[array].len();
        if let Some(i) = uniform_index(idx) {
            return *self.locals[array]
                .get(i)
                .unwrap_or_else(|| self.local_oob(array, i, Self::first_active(), st));
        }
        let idx = index_r32(idx);
        let arr = self.locals[array].clone();
        frame::with(|fr| {
            self.check_local(fr, array, idx, len, st);
            let mut acc = arr[0];
            for (k, v) in arr.iter().enumerate().skip(1) {
                let p = cmp32_in::<U32x32>(fr, idx, R32::uniform(k as u32), |a, b| a.eq(b));
                acc = merge(fr, &p, *v, acc);
            }
            acc
        })
    }

    fn local_store(&mut self, array: usize, idx: Val, val: Val, st: Site) {
        frame::with(|fr| fr.tally(st));
        let len = self.locals[array].len();
        if let Some(i) = uniform_index(idx) {
            if i >= len {
                self.local_oob(array, i, Self::first_active(), st);
            }
            let old = self.locals[array][i];
            let v = self.masked(old, val);
            self.locals[array][i] = v;
            return;
        }
        let idx = index_r32(idx);
        frame::with(|fr| self.check_local(fr, array, idx, len, st));
        for k in 0..len {
            let p = frame::with(|fr| {
                cmp32_in::<U32x32>(fr, idx, R32::uniform(k as u32), |a, b| a.eq(b))
            });
            let old = self.locals[array][k];
            let v = frame::with(|fr| {
                let p = p & Pred::from_masks(fr.active);
                let active = fr.active;
                fr.active = fr.live;
                let r = merge(fr, &p, val, old);
                fr.active = active;
                r
            });
            self.locals[array][k] = v;
        }
    }

    /// `new` for the executing lanes, `old` for the others.
    fn masked(&self, old: Val, new: Val) -> Val {
        frame::with(|fr| {
            if fr.active == fr.live {
                return new;
            }
            let p = Pred::from_masks(fr.active);
            let active = fr.active;
            fr.active = fr.live;
            let r = merge(fr, &p, new, old);
            fr.active = active;
            r
        })
    }

    fn check_local(&self, fr: &Frame, array: usize, idx: R32, len: usize, st: Site) {
        let src = fr.src32(idx);
        for w in 0..fr.warps {
            if fr.active[w] == 0 {
                continue;
            }
            let lanes = src.get(&fr.rows, w).to_array();
            if let Some(l) = Mask(fr.active[w])
                .lanes()
                .find(|&l| lanes[l as usize] as usize >= len)
            {
                self.local_oob(array, lanes[l as usize] as usize, (w as u32, l), st);
            }
        }
    }

    /// Index `i` past per-thread array `array`, by lane `lane` of warp `warp`.
    fn local_oob(&self, array: usize, i: usize, (warp, lane): (u32, u32), st: Site) -> ! {
        let a = &self.k.locals[array];
        fault(Error::KernelPanic {
            kernel: self.b.launch.name.clone(),
            block: self.b.st.idx,
            message: format!(
                "index {i} out of bounds of the per-thread array `{}` of {} elements (thread {})",
                a.name,
                a.len,
                self.b.thread_of(warp, lane)
            ),
            location: self.b.launch.sites.position(st).map(|p| p.to_string()),
        })
    }

    /// The first executing thread (for faults every executing thread makes).
    fn first_active() -> (u32, u32) {
        frame::with(|fr| {
            let w = (0..fr.warps).find(|&w| fr.active[w] != 0).unwrap_or(0);
            (w as u32, fr.active[w].trailing_zeros() % 32)
        })
    }

    // ----- printf ------------------------------------------------------------------------------------

    fn printf(&mut self, format: &str, args: &[(Operand, Scalar)], st: Site) {
        let vals: Vec<(Val, Scalar)> = args.iter().map(|(o, t)| (self.get(o), *t)).collect();
        frame::with(|fr| fr.tally(st));
        let lanes: Vec<Vec<u64>> = frame::with(|fr| {
            vals.iter()
                .map(|(v, _)| {
                    let mut all = Vec::with_capacity(fr.warps * 32);
                    for w in 0..fr.warps {
                        match v {
                            Val::W(r) => {
                                all.extend(fr.src32(*r).get(&fr.rows, w).to_array().map(u64::from))
                            }
                            Val::D(d) => all.extend(fr.src64(*d).get(&fr.rows, w).to_array()),
                            b @ (Val::B(_) | Val::P(_)) => {
                                let p = pred_of(fr, *b);
                                all.extend((0..32).map(|l| u64::from(p.bits[w] >> l & 1)))
                            }
                        }
                    }
                    all
                })
                .collect()
        });
        let active = frame::with(|fr| fr.active);
        let block = self.b.st.idx;
        let linear = block.linear_in(self.b.launch.grid);
        let seq = self.printf_seq;
        self.printf_seq += 1;
        let mut out = Vec::new();
        for (w, m) in active.iter().enumerate().take(MAX_WARPS) {
            for l in Mask(*m).lanes() {
                let t = w * 32 + l as usize;
                let args: Vec<(u64, Scalar)> = vals
                    .iter()
                    .zip(&lanes)
                    .map(|((_, ty), v)| (v[t], *ty))
                    .collect();
                out.push((
                    (linear, w as u32, seq, l),
                    Printed {
                        block,
                        thread: self.b.thread_of(w as u32, l),
                        text: printf::format(format, &args),
                    },
                ));
            }
        }
        self.printed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(out);
    }
}

// ----- scalar semantics ------------------------------------------------------------------------------

/// The uniform element index of a local-array access, if it is one.
fn uniform_index(v: Val) -> Option<usize> {
    match v {
        Val::W(r) => r.as_uniform().map(|x| x as usize),
        Val::D(d) => d
            .as_uniform()
            .map(|x| usize::try_from(x).unwrap_or(usize::MAX)),
        Val::B(b) => Some(usize::from(b)),
        Val::P(_) => None,
    }
}

fn index_r32(v: Val) -> R32 {
    match v {
        Val::W(r) => r,
        Val::D(d) => frame::with(|fr| {
            narrow_in::<U64x32, U32x32>(fr, d, |x| {
                U32x32::from_array(x.to_array().map(|v| u32::try_from(v).unwrap_or(u32::MAX)))
            })
        }),
        b @ (Val::B(_) | Val::P(_)) => frame::with(|fr| {
            let p = pred_of(fr, b);
            bool_to_int(fr, &p)
        }),
    }
}

/// A predicate as 0/1 lanes.
fn bool_to_int(fr: &mut Frame, p: &Pred) -> R32 {
    if let Some(all) = (0..fr.warps).try_fold(None, |acc: Option<bool>, w| {
        let bits = p.bits[w] & fr.exists[w];
        let v = if bits == fr.exists[w] {
            true
        } else if bits == 0 {
            false
        } else {
            return None;
        };
        match acc {
            Some(a) if a != v => None,
            _ => Some(Some(v)),
        }
    }) {
        return R32::uniform(u32::from(all.unwrap_or(false)));
    }
    select32(fr, p, R32::uniform(1), R32::uniform(0))
}

/// Lanes of a 32-bit value that are not zero.
fn nonzero(fr: &mut Frame, r: R32) -> Pred {
    cmp32_in::<U32x32>(fr, r, R32::uniform(0), |a, b| a.ne(b))
}

/// One operand's lanes as 64-bit integers (extended by the operand's type), for per-lane
/// address arithmetic.
enum LaneSrc {
    W(Src32, bool),
    D(Src64),
    P(Masks),
}

impl LaneSrc {
    fn new(fr: &Frame, v: Val, signed: bool) -> LaneSrc {
        match v {
            Val::W(r) => LaneSrc::W(fr.src32(r), signed),
            Val::D(d) => LaneSrc::D(fr.src64(d)),
            b @ (Val::B(_) | Val::P(_)) => LaneSrc::P(pred_of(fr, b).bits),
        }
    }

    fn lanes(&self, fr: &Frame, w: usize) -> [i64; WARP_SIZE] {
        match self {
            LaneSrc::W(s, true) => s.get(&fr.rows, w).to_array().map(|x| i64::from(x as i32)),
            LaneSrc::W(s, false) => s.get(&fr.rows, w).to_array().map(i64::from),
            LaneSrc::D(s) => s.get(&fr.rows, w).to_array().map(|x| x as i64),
            LaneSrc::P(bits) => std::array::from_fn(|l| i64::from(bits[w] >> l & 1)),
        }
    }
}

/// Split a load's parts into the values of its `n` components of type `ty`: component `k`
/// is at byte `k × size` of the loaded words (little-endian, as on a GPU).
fn split(fr: &mut Frame, ty: Scalar, n: u32, parts: &Parts) -> Vec<Val> {
    let size = ty.size();
    if size == 8 && n == 1 {
        return vec![Val::D(parts.r64)];
    }
    (0..n)
        .map(|k| {
            if size == 8 {
                let (lo, hi) = (parts.r32[2 * k as usize], parts.r32[2 * k as usize + 1]);
                let l = widen_in::<U32x32, U64x32>(fr, lo, |x| x.to_u64());
                let h = widen_in::<U32x32, U64x32>(fr, hi, |x| x.to_u64());
                return Val::D(bin64_in::<U64x32, U64x32>(fr, l, h, |a, b| a | (b << 32)));
            }
            let byte = k * size;
            let word = parts.r32[(byte / 4) as usize];
            let shift = (byte % 4) * 8;
            // A lone sub-word component arrives zero-extended already.
            let r = if size == 4 || n == 1 {
                word
            } else {
                let mask = (1u32 << (8 * size)) - 1;
                un32_in::<U32x32, U32x32>(fr, word, move |x| (x >> shift) & mask)
            };
            match ty {
                Scalar::Bool => {
                    let p = nonzero(fr, r);
                    keep(fr, p)
                }
                Scalar::I8 => Val::W(un32_in::<I32x32, I32x32>(fr, r, |x| (x << 24) >> 24)),
                Scalar::I16 => Val::W(un32_in::<I32x32, I32x32>(fr, r, |x| (x << 16) >> 16)),
                _ => Val::W(r),
            }
        })
        .collect()
}

/// A store's components as the words of one access.
fn join(fr: &mut Frame, ty: Scalar, vals: &[Val]) -> Parts {
    let size = ty.size();
    if size == 8 && vals.len() == 1 {
        return Parts::wide(vals[0].d());
    }
    let mut words = [R32::uniform(0); 4];
    if size == 8 {
        for (k, v) in vals.iter().enumerate() {
            let d = v.d();
            words[2 * k] = narrow_in::<U64x32, U32x32>(fr, d, |x| x.to_u32());
            words[2 * k + 1] = narrow_in::<U64x32, U32x32>(fr, d, |x| (x >> 32).to_u32());
        }
        return Parts::words(words);
    }
    let per_word = (4 / size) as usize;
    for (w, chunk) in vals.chunks(per_word).enumerate() {
        let mut acc: Option<R32> = None;
        for (k, v) in chunk.iter().enumerate() {
            let r = match *v {
                Val::W(r) => r,
                b @ (Val::B(_) | Val::P(_)) => {
                    let p = pred_of(fr, b);
                    bool_to_int(fr, &p)
                }
                Val::D(d) => narrow_in::<U64x32, U32x32>(fr, d, |x| x.to_u32()),
            };
            if per_word == 1 || vals.len() == 1 {
                acc = Some(r);
                continue;
            }
            let (shift, mask) = (8 * size * k as u32, (1u32 << (8 * size)) - 1);
            let part = un32_in::<U32x32, U32x32>(fr, r, move |x| (x & mask) << shift);
            acc = Some(match acc {
                None => part,
                Some(a) => bin32_in::<U32x32, U32x32, U32x32>(fr, a, part, |a, b| a | b),
            });
        }
        words[w] = acc.unwrap_or(R32::uniform(0));
    }
    Parts::words(words)
}

/// The value of an atomic's new word.
fn atomic_op<T: AtomicNum>(op: AtomicOp, o: T, x: T, y: T) -> T {
    match op {
        AtomicOp::Add => o.atomic_add(x),
        AtomicOp::Sub => o.atomic_sub(x),
        AtomicOp::Min => o.atomic_min(x),
        AtomicOp::Max => o.atomic_max(x),
        AtomicOp::Exch => x,
        AtomicOp::And => o.atomic_and(x),
        AtomicOp::Or => o.atomic_or(x),
        AtomicOp::Xor => o.atomic_xor(x),
        AtomicOp::Cas => {
            if o == x {
                y
            } else {
                o
            }
        }
        AtomicOp::Inc => o.atomic_inc(x),
        AtomicOp::Dec => o.atomic_dec(x),
    }
}

/// The numbers atomics work on, 4 or 8 bytes, as bits. The bitwise and wrapping operations
/// are defined for floats too (as no-ops) but never reach them: the executor rejects them
/// first ([`AtomicOp::takes_floats`]).
trait AtomicNum: Copy + PartialEq {
    fn from_bits(b: u64) -> Self;
    fn to_bits(self) -> u64;
    fn atomic_add(self, x: Self) -> Self;
    fn atomic_sub(self, x: Self) -> Self;
    fn atomic_min(self, x: Self) -> Self;
    fn atomic_max(self, x: Self) -> Self;
    fn atomic_and(self, x: Self) -> Self;
    fn atomic_or(self, x: Self) -> Self;
    fn atomic_xor(self, x: Self) -> Self;
    fn atomic_inc(self, x: Self) -> Self;
    fn atomic_dec(self, x: Self) -> Self;
}

macro_rules! atomic_int {
    ($t:ty) => {
        impl AtomicNum for $t {
            fn from_bits(b: u64) -> $t {
                b as $t
            }
            fn to_bits(self) -> u64 {
                // Sign bits above the element's width are dropped where the bits are stored.
                self as u64
            }
            fn atomic_add(self, x: $t) -> $t {
                self.wrapping_add(x)
            }
            fn atomic_sub(self, x: $t) -> $t {
                self.wrapping_sub(x)
            }
            fn atomic_min(self, x: $t) -> $t {
                Ord::min(self, x)
            }
            fn atomic_max(self, x: $t) -> $t {
                Ord::max(self, x)
            }
            fn atomic_and(self, x: $t) -> $t {
                self & x
            }
            fn atomic_or(self, x: $t) -> $t {
                self | x
            }
            fn atomic_xor(self, x: $t) -> $t {
                self ^ x
            }
            fn atomic_inc(self, x: $t) -> $t {
                if self >= x { 0 } else { self + 1 }
            }
            fn atomic_dec(self, x: $t) -> $t {
                if self == 0 || self > x { x } else { self - 1 }
            }
        }
    };
}
atomic_int!(i32);
atomic_int!(u32);
atomic_int!(i64);
atomic_int!(u64);

macro_rules! atomic_float {
    ($t:ty, $bits:ty) => {
        impl AtomicNum for $t {
            fn from_bits(b: u64) -> $t {
                <$t>::from_bits(b as $bits)
            }
            fn to_bits(self) -> u64 {
                u64::from(<$t>::to_bits(self))
            }
            fn atomic_add(self, x: $t) -> $t {
                self + x
            }
            fn atomic_sub(self, x: $t) -> $t {
                self - x
            }
            fn atomic_min(self, x: $t) -> $t {
                <$t>::min(self, x)
            }
            fn atomic_max(self, x: $t) -> $t {
                <$t>::max(self, x)
            }
            fn atomic_and(self, _: $t) -> $t {
                self
            }
            fn atomic_or(self, _: $t) -> $t {
                self
            }
            fn atomic_xor(self, _: $t) -> $t {
                self
            }
            fn atomic_inc(self, _: $t) -> $t {
                self
            }
            fn atomic_dec(self, _: $t) -> $t {
                self
            }
        }
    };
}
atomic_float!(f32, u32);
atomic_float!(f64, u64);

/// `(to) x` with C's conversion rules.
fn convert(fr: &mut Frame, x: Val, from: Scalar, to: Scalar) -> Val {
    use Scalar::*;
    if to == Bool {
        let p = match x {
            b @ (Val::B(_) | Val::P(_)) => return b,
            Val::W(r) if from == F32 => cmp32_in::<F32x32>(fr, r, R32::uniform(0), |a, b| a.ne(b)),
            Val::W(r) => nonzero(fr, r),
            Val::D(d) if from == F64 => cmp64_in::<F64x32>(fr, d, R64::uniform(0), |a, b| a.ne(b)),
            Val::D(d) => cmp64_in::<U64x32>(fr, d, R64::uniform(0), |a, b| a.ne(b)),
        };
        return keep(fr, p);
    }
    let x = match x {
        Val::B(b) => Val::W(R32::uniform(u32::from(b))),
        Val::P(_) => {
            let p = pred_of(fr, x);
            Val::W(bool_to_int(fr, &p))
        }
        other => other,
    };
    // Narrowing to 8 or 16 bits keeps the low bits, sign- or zero-extended in the lane.
    let fit = |fr: &mut Frame, r: R32| -> R32 {
        match to {
            I8 => un32_in::<I32x32, I32x32>(fr, r, |x| (x << 24) >> 24),
            U8 => un32_in::<U32x32, U32x32>(fr, r, |x| x & 0xff),
            I16 => un32_in::<I32x32, I32x32>(fr, r, |x| (x << 16) >> 16),
            U16 => un32_in::<U32x32, U32x32>(fr, r, |x| x & 0xffff),
            _ => r,
        }
    };
    match (x, from.is_float(), from.is_wide(), to) {
        // 32-bit sources.
        (Val::W(r), false, false, F32) if from.is_signed() || from == Bool => {
            Val::W(un32_in::<I32x32, F32x32>(fr, r, |x| x.to_f32()))
        }
        (Val::W(r), false, false, F32) => Val::W(un32_in::<U32x32, F32x32>(fr, r, |x| x.to_f32())),
        (Val::W(r), false, false, F64) if from.is_signed() => {
            Val::D(widen_in::<I32x32, F64x32>(fr, r, |x| {
                F64x32::from_array(x.to_array().map(f64::from))
            }))
        }
        (Val::W(r), false, false, F64) => Val::D(widen_in::<U32x32, F64x32>(fr, r, |x| {
            F64x32::from_array(x.to_array().map(f64::from))
        })),
        (Val::W(r), false, false, I64 | U64) => {
            let signed = from.is_signed();
            Val::D(v::aff_widen32(r, signed, fr.warps).unwrap_or_else(|| {
                if signed {
                    widen_in::<I32x32, U64x32>(fr, r, |x| {
                        U64x32::from_array(x.to_array().map(|v| v as i64 as u64))
                    })
                } else {
                    widen_in::<U32x32, U64x32>(fr, r, |x| x.to_u64())
                }
            }))
        }
        (Val::W(r), false, false, _) => Val::W(fit(fr, r)),
        // float.
        (Val::W(r), true, false, F64) => Val::D(widen_in::<F32x32, F64x32>(fr, r, |x| x.to_f64())),
        (Val::W(r), true, false, I64) => Val::D(widen_in::<F32x32, U64x32>(fr, r, |x| {
            U64x32::from_array(x.to_array().map(|v| v as i64 as u64))
        })),
        (Val::W(r), true, false, U64) => Val::D(widen_in::<F32x32, U64x32>(fr, r, |x| {
            U64x32::from_array(x.to_array().map(|v| v as u64))
        })),
        (Val::W(r), true, false, F32) => Val::W(r),
        (Val::W(r), true, false, t) if t.is_signed() => {
            let i = un32_in::<F32x32, I32x32>(fr, r, |x| x.to_i32());
            Val::W(fit(fr, i))
        }
        (Val::W(r), true, false, _) => {
            let u = un32_in::<F32x32, U32x32>(fr, r, |x| x.to_u32());
            Val::W(fit(fr, u))
        }
        // 64-bit sources.
        (Val::D(d), true, true, F32) => Val::W(narrow_in::<F64x32, F32x32>(fr, d, |x| x.to_f32())),
        (Val::D(d), true, true, F64) => Val::D(d),
        (Val::D(d), true, true, I64) => Val::D(un64_in::<F64x32, U64x32>(fr, d, |x| {
            U64x32::from_array(x.to_array().map(|v| v as i64 as u64))
        })),
        (Val::D(d), true, true, U64) => Val::D(un64_in::<F64x32, U64x32>(fr, d, |x| {
            U64x32::from_array(x.to_array().map(|v| v as u64))
        })),
        (Val::D(d), true, true, t) if t.is_signed() => {
            let r = narrow_in::<F64x32, I32x32>(fr, d, |x| {
                I32x32::from_array(x.to_array().map(|v| v as i32))
            });
            Val::W(fit(fr, r))
        }
        (Val::D(d), true, true, _) => {
            let r = narrow_in::<F64x32, U32x32>(fr, d, |x| {
                U32x32::from_array(x.to_array().map(|v| v as u32))
            });
            Val::W(fit(fr, r))
        }
        (Val::D(d), false, true, F32) if from == I64 => {
            Val::W(narrow_in::<U64x32, F32x32>(fr, d, |x| {
                F32x32::from_array(x.to_array().map(|v| v as i64 as f32))
            }))
        }
        (Val::D(d), false, true, F32) => Val::W(narrow_in::<U64x32, F32x32>(fr, d, |x| {
            F32x32::from_array(x.to_array().map(|v| v as f32))
        })),
        (Val::D(d), false, true, F64) if from == I64 => {
            Val::D(un64_in::<U64x32, F64x32>(fr, d, |x| {
                F64x32::from_array(x.to_array().map(|v| v as i64 as f64))
            }))
        }
        (Val::D(d), false, true, F64) => Val::D(un64_in::<U64x32, F64x32>(fr, d, |x| {
            F64x32::from_array(x.to_array().map(|v| v as f64))
        })),
        (Val::D(d), false, true, I64 | U64) => Val::D(d),
        (Val::D(d), false, true, _) => {
            let r = match d {
                R64::Aff { a, b, c } => R32::Aff {
                    a: a as u32,
                    b: b as u32,
                    c: c as u32,
                },
                _ => narrow_in::<U64x32, U32x32>(fr, d, |x| x.to_u32()),
            };
            Val::W(fit(fr, r))
        }
        (x, ..) => x,
    }
}

/// A unary operation on a value of type `ty`.
fn unary(fr: &mut Frame, op: UnOp, ty: Scalar, x: Val) -> Val {
    use Scalar::*;
    if op == UnOp::LogicalNot {
        let p = match x {
            Val::B(b) => return Val::B(!b),
            Val::P(_) => !pred_of(fr, x),
            Val::W(r) if ty == F32 => cmp32_in::<F32x32>(fr, r, R32::uniform(0), |a, b| a.eq(b)),
            Val::W(r) => cmp32_in::<U32x32>(fr, r, R32::uniform(0), |a, b| a.eq(b)),
            Val::D(d) => cmp64_in::<U64x32>(fr, d, R64::uniform(0), |a, b| a.eq(b)),
        };
        return keep(fr, p);
    }
    if let UnOp::Test(t) = op {
        return Val::W(match x {
            Val::D(d) => narrow_in::<U64x32, U32x32>(fr, d, move |v| {
                U32x32::from_array(v.to_array().map(|b| fp_test(t, f64::from_bits(b)) as u32))
            }),
            Val::W(r) => un32_in::<U32x32, U32x32>(fr, r, move |v| {
                v.map_each(|b| fp_test(t, f64::from(f32::from_bits(b))) as u32)
            }),
            // A `bool` is a number that is neither NaN nor infinite.
            Val::B(_) | Val::P(_) => R32::uniform(u32::from(t == FpTest::IsFinite)),
        });
    }
    if matches!(op, UnOp::Popc | UnOp::Clz | UnOp::Ffs) {
        // The result is an `int`; the operand keeps its own width.
        let bits = move |x: u64, width: u32| match op {
            UnOp::Popc => x.count_ones(),
            UnOp::Clz => x.leading_zeros() - (64 - width),
            _ if x == 0 => 0,
            _ => x.trailing_zeros() + 1,
        };
        return Val::W(match x {
            Val::D(d) => narrow_in::<U64x32, U32x32>(fr, d, move |v| {
                U32x32::from_array(v.to_array().map(|x| bits(x, 64)))
            }),
            Val::W(r) => {
                un32_in::<U32x32, U32x32>(fr, r, move |v| v.map_each(|x| bits(u64::from(x), 32)))
            }
            b @ (Val::B(_) | Val::P(_)) => {
                let p = pred_of(fr, b);
                bool_to_int(fr, &p)
            }
        });
    }
    macro_rules! f32op {
        ($f:expr) => {
            Val::W(un32_in::<F32x32, F32x32>(fr, x.w(), $f))
        };
    }
    macro_rules! f64op {
        ($f:expr) => {
            Val::D(un64_in::<F64x32, F64x32>(fr, x.d(), $f))
        };
    }
    match (ty, op) {
        (F32, UnOp::Neg) => f32op!(|x| -x),
        (F32, UnOp::Abs) => f32op!(|x| x.abs()),
        (F32, UnOp::Sqrt) => f32op!(|x| x.sqrt()),
        (F32, UnOp::Rsqrt) => f32op!(|x| x.map_each(|v| 1.0 / v.sqrt())),
        (F32, op) if library::code(op).is_some() => {
            f32op!(move |x| x.map_each(|v| library::float(op, v)))
        }
        (F32, UnOp::Floor) => f32op!(|x| x.floor()),
        (F32, UnOp::Ceil) => f32op!(|x| x.map_each(f32::ceil)),
        (F32, UnOp::Trunc) => f32op!(|x| x.map_each(f32::trunc)),
        (F32, UnOp::Rint) => f32op!(|x| x.map_each(f32::round_ties_even)),
        (F64, UnOp::Neg) => f64op!(|x| -x),
        (F64, UnOp::Abs) => f64op!(|x| x.abs()),
        (F64, UnOp::Sqrt) => f64op!(|x| x.sqrt()),
        (F64, UnOp::Rsqrt) => f64op!(|x| x.map_each(|v| 1.0 / v.sqrt())),
        (F64, op) if library::code(op).is_some() => {
            f64op!(move |x| x.map_each(|v| library::double(op, v)))
        }
        (F64, UnOp::Floor) => f64op!(|x| x.floor()),
        (F64, UnOp::Ceil) => f64op!(|x| x.map_each(f64::ceil)),
        (F64, UnOp::Trunc) => f64op!(|x| x.map_each(f64::trunc)),
        (F64, UnOp::Rint) => f64op!(|x| x.map_each(f64::round_ties_even)),
        (I64 | U64, op) => Val::D(un64_in::<U64x32, U64x32>(fr, x.d(), move |v| match op {
            UnOp::Neg => U64x32::ZERO - v,
            UnOp::Not => !v,
            UnOp::Abs => v.map_each(|x| (x as i64).wrapping_abs() as u64),
            UnOp::Brev => v.map_each(u64::reverse_bits),
            _ => v,
        })),
        (_, UnOp::Neg) => match x.w() {
            a @ R32::Aff { .. } => Val::W(v::aff_sub32(R32::uniform(0), a).expect("affine")),
            r => Val::W(un32_in::<I32x32, I32x32>(fr, r, |x| -x)),
        },
        (_, UnOp::Not) => Val::W(un32_in::<U32x32, U32x32>(fr, x.w(), |x| !x)),
        (_, UnOp::Abs) => Val::W(un32_in::<I32x32, I32x32>(fr, x.w(), |x| x.abs())),
        (_, UnOp::Brev) => Val::W(un32_in::<U32x32, U32x32>(fr, x.w(), |x| x.brev())),
        (_, op) => {
            unreachable!("the front-end converts an integer operand of {op:?} to floating point")
        }
    }
}

/// A test of a floating-point value (a `float` widened exactly to `double`).
fn fp_test(t: FpTest, x: f64) -> i32 {
    match t {
        FpTest::IsNan => i32::from(x.is_nan()),
        FpTest::IsInf => i32::from(x.is_infinite()),
        FpTest::IsFinite => i32::from(x.is_finite()),
        FpTest::SignBit => i32::from(x.is_sign_negative()),
        FpTest::Ilogb => libm::ilogb(x),
        FpTest::FrexpExp => libm::frexp(x).1,
    }
}

/// A binary operation on values of type `ty`.
fn binary(fr: &mut Frame, op: BinOp, ty: Scalar, x: Val, y: Val) -> Val {
    use Scalar::*;
    match ty {
        F32 => {
            let (a, b) = (x.w(), y.w());
            Val::W(match op {
                BinOp::Add => bin32_in::<F32x32, F32x32, F32x32>(fr, a, b, |x, y| x + y),
                BinOp::Sub => bin32_in::<F32x32, F32x32, F32x32>(fr, a, b, |x, y| x - y),
                BinOp::Mul => bin32_in::<F32x32, F32x32, F32x32>(fr, a, b, |x, y| x * y),
                BinOp::Div => bin32_in::<F32x32, F32x32, F32x32>(fr, a, b, |x, y| x / y),
                BinOp::Rem => bin32_in::<F32x32, F32x32, F32x32>(fr, a, b, |x, y| x % y),
                BinOp::Min => bin32_in::<F32x32, F32x32, F32x32>(fr, a, b, |x, y| x.min(y)),
                BinOp::Max => bin32_in::<F32x32, F32x32, F32x32>(fr, a, b, |x, y| x.max(y)),
                op if library::code2(op).is_some() => {
                    bin32_in::<F32x32, F32x32, F32x32>(fr, a, b, move |x, y| {
                        x.zip_each(y, |p, q| library::float2(op, p, q))
                    })
                }
                _ => a,
            })
        }
        F64 => {
            let (a, b) = (x.d(), y.d());
            Val::D(match op {
                BinOp::Add => bin64_in::<F64x32, F64x32>(fr, a, b, |x, y| x + y),
                BinOp::Sub => bin64_in::<F64x32, F64x32>(fr, a, b, |x, y| x - y),
                BinOp::Mul => bin64_in::<F64x32, F64x32>(fr, a, b, |x, y| x * y),
                BinOp::Div => bin64_in::<F64x32, F64x32>(fr, a, b, |x, y| x / y),
                BinOp::Rem => bin64_in::<F64x32, F64x32>(fr, a, b, |x, y| x % y),
                BinOp::Min => bin64_in::<F64x32, F64x32>(fr, a, b, |x, y| x.min(y)),
                BinOp::Max => bin64_in::<F64x32, F64x32>(fr, a, b, |x, y| x.max(y)),
                op if library::code2(op).is_some() => {
                    bin64_in::<F64x32, F64x32>(fr, a, b, move |x, y| {
                        x.zip_each(y, |p, q| library::double2(op, p, q))
                    })
                }
                _ => a,
            })
        }
        I64 | U64 => Val::D(binary64(fr, op, ty == I64, x.d(), y.d())),
        _ => Val::W(binary32(fr, op, ty.is_signed(), x.w(), y.w())),
    }
}

fn binary32(fr: &mut Frame, op: BinOp, signed: bool, a: R32, b: R32) -> R32 {
    match op {
        BinOp::Add => v::aff_add32(a, b)
            .unwrap_or_else(|| bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x + y)),
        BinOp::Sub => v::aff_sub32(a, b)
            .unwrap_or_else(|| bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x - y)),
        BinOp::Mul => v::aff_mul32(a, b)
            .unwrap_or_else(|| bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x * y)),
        BinOp::Div | BinOp::Rem => {
            let rem = op == BinOp::Rem;
            if signed {
                v::div32_in::<I32x32>(fr, a, b, rem)
            } else {
                v::div32_in::<U32x32>(fr, a, b, rem)
            }
        }
        BinOp::And => bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x & y),
        BinOp::Or => bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x | y),
        BinOp::Xor => bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x ^ y),
        BinOp::Shl => match b.as_uniform() {
            Some(k) if k < 32 => v::aff_mul32(a, R32::uniform(1 << k))
                .unwrap_or_else(|| un32_in::<U32x32, U32x32>(fr, a, move |x| x << k)),
            _ => bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, s| x << s),
        },
        BinOp::Shr if signed => match b.as_uniform() {
            Some(k) => un32_in::<I32x32, I32x32>(fr, a, move |x| x >> k),
            None => bin32_in::<I32x32, U32x32, I32x32>(fr, a, b, |x, s| x >> s),
        },
        BinOp::Shr => match b.as_uniform() {
            Some(k) => un32_in::<U32x32, U32x32>(fr, a, move |x| x >> k),
            None => bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, s| x >> s),
        },
        BinOp::Min if signed => bin32_in::<I32x32, I32x32, I32x32>(fr, a, b, |x, y| x.min(y)),
        BinOp::Max if signed => bin32_in::<I32x32, I32x32, I32x32>(fr, a, b, |x, y| x.max(y)),
        BinOp::Min => bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x.min(y)),
        BinOp::Max => bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x.max(y)),
        BinOp::MulHi if signed => bin32_in::<I32x32, I32x32, I32x32>(fr, a, b, |x, y| {
            x.zip_each(y, |p, q| ((i64::from(p) * i64::from(q)) >> 32) as i32)
        }),
        BinOp::MulHi => bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| {
            x.zip_each(y, |p, q| ((u64::from(p) * u64::from(q)) >> 32) as u32)
        }),
        BinOp::NthSet => {
            bin32_in::<U32x32, U32x32, U32x32>(fr, a, b, |x, y| x.zip_each(y, nth_set))
        }
        BinOp::Pow
        | BinOp::Atan2
        | BinOp::Hypot
        | BinOp::CopySign
        | BinOp::Fdim
        | BinOp::Remainder
        | BinOp::Ldexp
        | BinOp::Rounded(..) => a,
    }
}

/// The lane of set bit number `k` of `m` (32 when there are fewer).
fn nth_set(mut m: u32, k: u32) -> u32 {
    for _ in 0..k {
        if m == 0 {
            return 32;
        }
        m &= m - 1;
    }
    if m == 0 { 32 } else { m.trailing_zeros() }
}

fn binary64(fr: &mut Frame, op: BinOp, signed: bool, a: R64, b: R64) -> R64 {
    let s = |x: u64| x as i64;
    match op {
        BinOp::Add => {
            v::aff_add64(a, b).unwrap_or_else(|| bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x + y))
        }
        BinOp::Sub => {
            v::aff_sub64(a, b).unwrap_or_else(|| bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x - y))
        }
        BinOp::Mul => {
            v::aff_mul64(a, b).unwrap_or_else(|| bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x * y))
        }
        BinOp::Div if signed => bin64_in::<U64x32, U64x32>(fr, a, b, move |x, y| {
            x.zip_each(y, |p, q| {
                if q == 0 {
                    u64::MAX
                } else {
                    s(p).wrapping_div(s(q)) as u64
                }
            })
        }),
        BinOp::Rem if signed => bin64_in::<U64x32, U64x32>(fr, a, b, move |x, y| {
            x.zip_each(y, |p, q| {
                if q == 0 {
                    p
                } else {
                    s(p).wrapping_rem(s(q)) as u64
                }
            })
        }),
        BinOp::Div => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x / y),
        BinOp::Rem => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x % y),
        BinOp::And => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x & y),
        BinOp::Or => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x | y),
        BinOp::Xor => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x ^ y),
        BinOp::Shl => match b.as_uniform() {
            Some(k) if k < 64 => v::aff_mul64(a, R64::uniform(1 << k))
                .unwrap_or_else(|| un64_in::<U64x32, U64x32>(fr, a, move |x| x << k as u32)),
            _ => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| {
                x.zip_each(y, |p, q| p.checked_shl(q as u32).unwrap_or(0))
            }),
        },
        BinOp::Shr if signed => bin64_in::<U64x32, U64x32>(fr, a, b, move |x, y| {
            x.zip_each(y, |p, q| (s(p) >> q.min(63)) as u64)
        }),
        BinOp::Shr => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| {
            x.zip_each(y, |p, q| p.checked_shr(q as u32).unwrap_or(0))
        }),
        BinOp::Min if signed => bin64_in::<U64x32, U64x32>(fr, a, b, move |x, y| {
            x.zip_each(y, |p, q| s(p).min(s(q)) as u64)
        }),
        BinOp::Max if signed => bin64_in::<U64x32, U64x32>(fr, a, b, move |x, y| {
            x.zip_each(y, |p, q| s(p).max(s(q)) as u64)
        }),
        BinOp::Min => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x.min(y)),
        BinOp::Max => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| x.max(y)),
        BinOp::MulHi if signed => bin64_in::<U64x32, U64x32>(fr, a, b, move |x, y| {
            x.zip_each(y, |p, q| {
                ((i128::from(s(p)) * i128::from(s(q))) >> 64) as u64
            })
        }),
        BinOp::MulHi => bin64_in::<U64x32, U64x32>(fr, a, b, |x, y| {
            x.zip_each(y, |p, q| ((u128::from(p) * u128::from(q)) >> 64) as u64)
        }),
        // `NthSet` is lowered on 32-bit masks only.
        BinOp::Pow
        | BinOp::Atan2
        | BinOp::NthSet
        | BinOp::Hypot
        | BinOp::CopySign
        | BinOp::Fdim
        | BinOp::Remainder
        | BinOp::Ldexp
        | BinOp::Rounded(..) => a,
    }
}

fn fma(fr: &mut Frame, ty: Scalar, a: Val, b: Val, c: Val) -> Val {
    match ty {
        Scalar::F64 => Val::D(fma64(fr, a.d(), b.d(), c.d())),
        _ => Val::W(fma32(fr, a.w(), b.w(), c.w())),
    }
}

/// `a * b + c` rounded once, per lane.
fn fma32(fr: &mut Frame, a: R32, b: R32, c: R32) -> R32 {
    let (sa, sb, sc) = (fr.src32(a), fr.src32(b), fr.src32(c));
    let dst = fr.alloc(1);
    for w in 0..fr.warps {
        if fr.active[w] != 0 {
            let g = |s: &Src32| F32x32::from_row(s.get(&fr.rows, w));
            let r = g(&sa).mul_add(g(&sb), g(&sc));
            fr.rows[dst.row as usize + w] = r.to_row();
        }
    }
    R32::Slot(dst)
}

fn fma64(fr: &mut Frame, a: R64, b: R64, c: R64) -> R64 {
    let (sa, sb, sc) = (fr.src64(a), fr.src64(b), fr.src64(c));
    let dst = fr.alloc(2);
    for w in 0..fr.warps {
        if fr.active[w] != 0 {
            let g = |s: &Src64| F64x32::from_u64(s.get(&fr.rows, w));
            let r = g(&sa).mul_add(g(&sb), g(&sc));
            fr.put64(dst, w, r.to_u64());
        }
    }
    R64::Slot(dst)
}

/// Compare values of type `of`.
fn compare(fr: &mut Frame, op: CmpOp, of: Scalar, x: Val, y: Val) -> Pred {
    use Scalar::*;
    macro_rules! by {
        ($drv:ident, $lane:ty, $a:expr, $b:expr) => {
            match op {
                CmpOp::Lt => $drv::<$lane>(fr, $a, $b, |p, q| p.lt(q)),
                CmpOp::Le => $drv::<$lane>(fr, $a, $b, |p, q| p.le(q)),
                CmpOp::Gt => $drv::<$lane>(fr, $a, $b, |p, q| p.gt(q)),
                CmpOp::Ge => $drv::<$lane>(fr, $a, $b, |p, q| p.ge(q)),
                CmpOp::Eq => $drv::<$lane>(fr, $a, $b, |p, q| p.eq(q)),
                CmpOp::Ne => $drv::<$lane>(fr, $a, $b, |p, q| p.ne(q)),
            }
        };
    }
    if let (Val::B(_) | Val::P(_), Val::B(_) | Val::P(_)) = (x, y) {
        let (a, b) = (pred_of(fr, x), pred_of(fr, y));
        return match op {
            CmpOp::Eq => !(a ^ b),
            CmpOp::Ne => a ^ b,
            // Booleans order false < true.
            CmpOp::Lt => !a & b,
            CmpOp::Gt => a & !b,
            CmpOp::Le => !a | b,
            CmpOp::Ge => a | !b,
        };
    }
    match (of, x, y) {
        (F32, Val::W(a), Val::W(b)) => by!(cmp32_in, F32x32, a, b),
        (F64, Val::D(a), Val::D(b)) => by!(cmp64_in, F64x32, a, b),
        (I64, Val::D(a), Val::D(b)) => {
            // Signed 64-bit order: flip the sign bits and compare unsigned.
            let flip =
                |fr: &mut Frame, d: R64| un64_in::<U64x32, U64x32>(fr, d, |x| x ^ (1u64 << 63));
            let (a, b) = (flip(fr, a), flip(fr, b));
            by!(cmp64_in, U64x32, a, b)
        }
        (_, Val::D(a), Val::D(b)) => by!(cmp64_in, U64x32, a, b),
        (t, Val::W(a), Val::W(b)) => {
            let signed = t.is_signed();
            let fast = match op {
                CmpOp::Lt => v::Cmp::Lt,
                CmpOp::Le => v::Cmp::Le,
                CmpOp::Gt => v::Cmp::Gt,
                CmpOp::Ge => v::Cmp::Ge,
                CmpOp::Eq => v::Cmp::Eq,
                CmpOp::Ne => v::Cmp::Ne,
            };
            match v::cmp32_affine(a, b, fast, signed, fr.warps) {
                Some(p) => p,
                None if signed => by!(cmp32_in, I32x32, a, b),
                None => by!(cmp32_in, U32x32, a, b),
            }
        }
        _ => Pred::FALSE,
    }
}

impl<'a> Plan<'a> {
    /// The plan of a launch of `k` with `params` bound to its pointer parameters.
    pub(crate) fn new(
        k: &Kernel,
        params: Vec<Option<Result<&'a crate::Global<u8>, u64>>>,
        textures: &'a crate::cuda::jit::texture::Textures,
        globals: Vec<&'a crate::Global<u8>>,
        watchdog: Option<(&'a std::sync::atomic::AtomicBool, f64)>,
        outside: Option<&'a Outside>,
    ) -> Plan<'a> {
        Plan {
            params,
            textures,
            globals,
            fresh: crate::cuda::analysis::fresh_definitions(k),
            watchdog,
            outside,
        }
    }
}

/// The first executing lane, in warp and lane order (the order the bounds check names lanes
/// in), whose byte offset in `off` is `bad`: its warp, lane and offset.
fn first_lane(off: R64, bad: impl Fn(i64) -> bool) -> Option<(u32, u32, i64)> {
    frame::with(|fr| {
        let src = fr.src64(off);
        (0..fr.warps).find_map(|w| {
            let lanes = src.get(&fr.rows, w).to_array();
            Mask(fr.active[w])
                .lanes()
                .find(|&l| bad(lanes[l as usize] as i64))
                .map(|l| (w as u32, l, lanes[l as usize] as i64))
        })
    })
}
