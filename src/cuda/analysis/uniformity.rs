//! Uniformity: which variables hold the same value in every thread, which operations are
//! therefore free, and which branches and loops can diverge. Decided on the lowered
//! [`Kernel`] by a fixpoint, after lowering, so the front-end can emit statements without
//! knowing yet how later assignments (in loops) will turn out.
//!
//! The rules:
//! * `threadIdx`, the lane and the linear thread index are varying; constants, parameters,
//!   `blockIdx`, `blockDim`, `gridDim` are uniform. Loads, atomics, shuffles and votes give
//!   varying values; `__syncthreads_count/and/or` give uniform ones.
//! * An assignment with a varying operand makes its variable varying.
//! * Varying control: the sides of an `if` on a varying condition, the body of a loop some
//!   thread can leave early (a `break`, `continue` or `return` under varying control), and
//!   the rest of a loop or function body after such an exit, are *varying regions*. An
//!   assignment inside a varying region makes its variable varying when the variable is
//!   assigned more than once and is also used outside that region (then threads that did
//!   and did not execute the assignment disagree). A variable that lives entirely inside the
//!   region (a loop counter declared in a branch, an inlined function's parameters) is
//!   uniform among the threads that execute the region, as in the Rust kernels, where such
//!   values are plain Rust.
//! * A `return` from the kernel itself never creates a region: threads that leave are gone.
//!
//! Then an operation is counted (`varying: true`) when an operand is varying, or when it
//! writes a varying variable from inside a varying region; an `if` is varying when its
//! condition is; a loop when some thread can leave it early.

use std::collections::HashMap;

use crate::cuda::ir::{Base, Builtin, Kernel, Operand, Stmt, VarId};

/// Decide uniformity and set every `varying` flag and [`crate::cuda::ir::Var::uniform`].
pub fn analyze(k: &mut Kernel) {
    let mut st = State {
        varying: vec![false; k.vars.len()],
        local_varying: vec![false; k.locals.len()],
        loop_varying: HashMap::new(),
        ..State::default()
    };
    // Monotone: flags only go from uniform to varying, so this ends.
    for _ in 0..(k.vars.len() + k.locals.len() + 64) {
        st.begin();
        st.block(&k.body, &mut Vec::new(), Target::Kernel);
        if !st.finish() {
            break;
        }
    }
    for (v, var) in k.vars.iter_mut().enumerate() {
        var.uniform = !st.varying[v];
    }
    st.loop_counter = 0;
    st.region_counter = 0;
    let mut chain = Vec::new();
    st.mark(&mut k.body, &mut chain);
}

/// Where a `return` goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Kernel,
    Inline,
}

#[derive(Default)]
struct State {
    varying: Vec<bool>,
    local_varying: Vec<bool>,
    /// Loops (by their order in the walk) that some thread can leave early.
    loop_varying: HashMap<u32, bool>,
    loop_counter: u32,
    region_counter: u32,
    /// Per variable: the common prefix of the region chains of every access.
    lca: HashMap<VarId, Vec<u32>>,
    /// Per variable: the region chain of each assignment.
    assigns: HashMap<VarId, Vec<Vec<u32>>>,
    /// Loops entered (their index and chain length at their body's start).
    loops: Vec<(u32, usize)>,
    /// Chain lengths at the start of each enclosing inlined body.
    inlines: Vec<usize>,
    changed: bool,
}

/// Which early exits a statement contains that depend on the thread.
#[derive(Clone, Copy, Default)]
struct Exits {
    /// A `break`/`continue` of the enclosing loop.
    loop_exit: bool,
    /// A `return` out of an inlined function.
    ret: bool,
}

impl State {
    fn begin(&mut self) {
        self.lca.clear();
        self.assigns.clear();
        self.loop_counter = 0;
        self.region_counter = 0;
        self.changed = false;
    }

    /// Apply the region rule; whether anything changed in this round.
    fn finish(&mut self) -> bool {
        let assigns = std::mem::take(&mut self.assigns);
        for (v, chains) in &assigns {
            if self.varying[v.0 as usize] || chains.len() < 2 {
                continue;
            }
            let lca = self.lca.get(v).cloned().unwrap_or_default();
            if chains.iter().any(|c| *c != lca) {
                self.varying[v.0 as usize] = true;
                self.changed = true;
            }
        }
        self.changed
    }

    fn op_varying(&self, op: &Operand) -> bool {
        match op {
            Operand::Var(v) | Operand::Builtin(Builtin::BaseAddress(Base::Var(v))) => {
                self.varying[v.0 as usize]
            }
            Operand::Const(_) => false,
            Operand::Builtin(b) => matches!(
                b,
                Builtin::ThreadIdx(_) | Builtin::LaneId | Builtin::LinearTid
            ),
        }
    }

    fn read(&mut self, op: &Operand, chain: &[u32]) {
        if let Some(v) = op.var() {
            let e = self.lca.entry(v).or_insert_with(|| chain.to_vec());
            let n = e.iter().zip(chain).take_while(|(a, b)| a == b).count();
            e.truncate(n);
        }
    }

    fn set_varying(&mut self, v: VarId) {
        if !self.varying[v.0 as usize] {
            self.varying[v.0 as usize] = true;
            self.changed = true;
        }
    }

    fn write(&mut self, v: VarId, varying: bool, chain: &[u32]) {
        self.read(&Operand::Var(v), chain);
        self.assigns.entry(v).or_default().push(chain.to_vec());
        if varying {
            self.set_varying(v);
        }
    }

    fn block(&mut self, stmts: &[Stmt], chain: &mut Vec<u32>, target: Target) -> Exits {
        let depth = chain.len();
        let mut all = Exits::default();
        for s in stmts {
            let e = self.stmt(s, chain, target);
            // After a thread-dependent exit, the rest runs under varying control (except
            // after a return from the kernel: those threads are gone).
            let taints =
                e.loop_exit || (e.ret && (target == Target::Inline || !self.loops.is_empty()));
            if taints {
                self.region_counter += 1;
                chain.push(self.region_counter);
            }
            all.loop_exit |= e.loop_exit;
            all.ret |= e.ret;
        }
        chain.truncate(depth);
        all
    }

    fn stmt(&mut self, s: &Stmt, chain: &mut Vec<u32>, target: Target) -> Exits {
        match s {
            Stmt::Assign(a) => {
                let ops = a.op.operands();
                let v = ops.iter().any(|o| self.op_varying(o));
                for o in &ops {
                    self.read(o, chain);
                }
                self.write(a.dst, v, chain);
                Exits::default()
            }
            Stmt::Load { dst, addr, .. } => {
                for o in addr.operands() {
                    self.read(&o, chain);
                }
                for d in dst {
                    self.write(*d, true, chain);
                }
                Exits::default()
            }
            Stmt::Texture { dst, coords, .. } => {
                for o in coords {
                    self.read(o, chain);
                }
                for d in dst {
                    self.write(*d, true, chain);
                }
                Exits::default()
            }
            Stmt::Store { addr, values, .. } => {
                for o in addr.operands() {
                    self.read(&o, chain);
                }
                for v in values {
                    self.read(v, chain);
                }
                Exits::default()
            }
            Stmt::Atomic {
                dst, addr, a, b, ..
            } => {
                for o in addr.operands() {
                    self.read(&o, chain);
                }
                self.read(a, chain);
                if let Some(b) = b {
                    self.read(b, chain);
                }
                if let Some(d) = dst {
                    self.write(*d, true, chain);
                }
                Exits::default()
            }
            Stmt::If {
                cond, then, els, ..
            } => {
                self.read(cond, chain);
                let varying = self.op_varying(cond);
                let depth = chain.len();
                if varying {
                    self.region_counter += 1;
                    chain.push(self.region_counter);
                }
                let a = self.block(then, chain, target);
                chain.truncate(depth);
                if varying {
                    self.region_counter += 1;
                    chain.push(self.region_counter);
                }
                let b = self.block(els, chain, target);
                chain.truncate(depth);
                // Exits inside a varying side are thread-dependent.
                Exits {
                    loop_exit: a.loop_exit || b.loop_exit,
                    ret: a.ret || b.ret,
                }
            }
            Stmt::Loop { body, step, .. } => {
                let id = self.loop_counter;
                self.loop_counter += 1;
                let was = self.loop_varying.get(&id).copied().unwrap_or(false);
                let depth = chain.len();
                if was {
                    self.region_counter += 1;
                    chain.push(self.region_counter);
                }
                self.loops.push((id, chain.len()));
                let e1 = self.block(body, chain, target);
                let e2 = self.block(step, chain, target);
                self.loops.pop();
                chain.truncate(depth);
                if (e1.loop_exit || e2.loop_exit || e1.ret || e2.ret) && !was {
                    self.loop_varying.insert(id, true);
                    self.changed = true;
                }
                Exits {
                    loop_exit: false,
                    ret: e1.ret || e2.ret,
                }
            }
            Stmt::Break | Stmt::Continue => {
                let start = self.loops.last().map_or(0, |l| l.1);
                Exits {
                    loop_exit: chain.len() > start,
                    ret: false,
                }
            }
            Stmt::Return => {
                let start = match target {
                    Target::Inline => self.inlines.last().copied().unwrap_or(0),
                    Target::Kernel => 0,
                };
                let varying = chain.len() > start;
                // A return inside loops makes them varying too (threads leave them).
                if varying {
                    for (id, s) in self.loops.clone() {
                        if chain.len() > s && !self.loop_varying.get(&id).copied().unwrap_or(false)
                        {
                            self.loop_varying.insert(id, true);
                            self.changed = true;
                        }
                    }
                }
                Exits {
                    loop_exit: false,
                    ret: varying,
                }
            }
            Stmt::Inline { body } => {
                self.inlines.push(chain.len());
                let saved = std::mem::take(&mut self.loops);
                self.block(body, chain, Target::Inline);
                self.loops = saved;
                self.inlines.pop();
                Exits::default()
            }
            Stmt::Sync { pred, dst, .. } => {
                if let Some(p) = pred {
                    self.read(p, chain);
                }
                if let Some(d) = dst {
                    self.write(*d, false, chain);
                }
                Exits::default()
            }
            Stmt::SyncWarp { mask, .. } => {
                self.read(mask, chain);
                Exits::default()
            }
            Stmt::Fence { .. } => Exits::default(),
            Stmt::Shfl {
                dst,
                mask,
                value,
                lane,
                width,
                ..
            } => {
                for o in mask.iter().chain([value, lane, width]) {
                    self.read(o, chain);
                }
                self.write(*dst, true, chain);
                Exits::default()
            }
            Stmt::Vote { dst, mask, arg, .. } => {
                for o in [mask, arg].into_iter().flatten() {
                    self.read(o, chain);
                }
                self.write(*dst, true, chain);
                Exits::default()
            }
            Stmt::Printf { args, .. } => {
                for (o, _) in args {
                    self.read(o, chain);
                }
                Exits::default()
            }
            Stmt::LocalLoad {
                dst, array, index, ..
            } => {
                self.read(index, chain);
                let v = self.local_varying[*array as usize] || self.op_varying(index);
                self.write(*dst, v, chain);
                Exits::default()
            }
            Stmt::LocalStore {
                array,
                index,
                value,
                ..
            } => {
                self.read(index, chain);
                self.read(value, chain);
                let v = self.op_varying(index) || self.op_varying(value) || !chain.is_empty();
                if v && !self.local_varying[*array as usize] {
                    self.local_varying[*array as usize] = true;
                    self.changed = true;
                }
                Exits::default()
            }
            Stmt::Trap { .. } => Exits::default(),
        }
    }

    /// Set the flags, walking exactly as the last round did.
    fn mark(&mut self, stmts: &mut [Stmt], chain: &mut Vec<u32>) {
        for s in stmts {
            match s {
                Stmt::Assign(a) => {
                    let ops = a.op.operands();
                    let v = ops.iter().any(|o| self.op_varying(o));
                    a.varying = v || (self.varying[a.dst.0 as usize] && !chain.is_empty());
                }
                Stmt::If {
                    cond,
                    then,
                    els,
                    varying,
                    ..
                } => {
                    *varying = self.op_varying(cond);
                    let depth = chain.len();
                    if *varying {
                        chain.push(0);
                    }
                    self.mark(then, chain);
                    self.mark(els, chain);
                    chain.truncate(depth);
                }
                Stmt::Loop {
                    body,
                    step,
                    varying,
                    ..
                } => {
                    let id = self.loop_counter;
                    self.loop_counter += 1;
                    *varying = self.loop_varying.get(&id).copied().unwrap_or(false);
                    let depth = chain.len();
                    if *varying {
                        chain.push(0);
                    }
                    self.mark(body, chain);
                    self.mark(step, chain);
                    chain.truncate(depth);
                }
                Stmt::Inline { body } => self.mark(body, chain),
                _ => {}
            }
        }
    }
}
