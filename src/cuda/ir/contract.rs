//! FMA contraction as nvcc makes it by default (`--fmad=true`): a `float` or `double` product
//! added or subtracted becomes one fused multiply-add, rounded once.
//!
//! The rule, measured on an H200 with nvcc 13 (`tests/data/programs/real/fma.cu`, its
//! expected bits recorded from the GPU):
//!
//! * `a * b + c`, `c + a * b`, `a * b - c`, `c - a * b` and `-(a * b) + c` are fused, whether
//!   written in one expression or through a variable assigned once (`float t = a * b; … t + c`,
//!   also where the sum is under a branch or in a loop, or in an inlined function), and
//!   `x = a * b; x += c`.
//! * A product is fused only where every use of it is such a sum, at most four of them: a
//!   product that is also stored, compared, multiplied or passed on stays a rounded multiply,
//!   and so do the sums that read it (nvcc keeps the multiply it needs anyway).
//! * A sum of two products fuses one of them, the one with fewer uses; for `+` with as many,
//!   the one computed from earlier values (nvcc ranks operands in the order their values
//!   appear), for `-` the left one. The other becomes the sum's addend, a use that is not a
//!   sum, so it is never fused elsewhere.
//! * A product of two values computed from constants alone (`k * 1.25` where an inlined call's
//!   parameter `k` was given a literal) is a constant to nvcc, folded before it fuses: never
//!   fused, so the sum that reads it fuses its other operand (`lin(a, 1, b)` in `fma.cu`).
//! * `__fmul_rn`, `__fadd_rn` and the other intrinsics of IEEE arithmetic are never fused
//!   (the front-end names their results in `exact`).
//! * Equal products of values that cannot change (`a * b` written twice, or through an inlined
//!   call's parameters) are one product to nvcc where the first comes before the other on every
//!   path: their uses are counted together (`fma_shared.cu`: one `a * b` in twenty patterns is
//!   never fused).
//!
//! Not modelled: nvcc fuses a product with other uses where the sum is far from it (more than
//! 500 instructions), and contracts `__half` arithmetic.

use std::collections::{HashMap, HashSet};

use super::{Assign, BinOp, Kernel, Op, Operand, Scalar, Stmt, UnOp, Var, VarId};

/// The most uses a product may have and still be fused (nvcc's NVPTX back end).
const MAX_USES: u32 = 4;

/// Fuse the kernel's products into the sums that use them; `exact` holds the results of the
/// IEEE-arithmetic intrinsics (never fused).
pub fn contract(k: &mut Kernel, exact: &HashSet<VarId>) {
    Facts::new(&k.body, exact).adjacent(&mut k.body, &HashMap::new());
    let mut facts = Facts::new(&k.body, exact);
    facts.classify(&k.body, &HashMap::new());
    facts.count(&k.body);
    // Decide every sum, then mark the products that are some sum's addend as not fusable;
    // repeat until nothing changes (the set only grows).
    let decisions = loop {
        let mut ranks = Ranks::new(k);
        let mut decisions = Vec::new();
        let mut addends = HashSet::new();
        decide(&k.body, &facts, &mut ranks, &mut decisions, &mut addends);
        let before = facts.blocked.len();
        facts.blocked.extend(addends);
        if facts.blocked.len() == before {
            break decisions;
        }
    };
    let mut rewrite = Rewrite {
        facts: &facts,
        decisions: &decisions,
        next: 0,
        captured: HashMap::new(),
        vars: &mut k.vars,
    };
    rewrite.list(&mut k.body);
}

/// The operands of a product that may be fused.
fn product(a: &Assign, exact: &HashSet<VarId>) -> Option<(Operand, Operand)> {
    match a.op {
        Op::Binary {
            op: BinOp::Mul,
            a: x,
            b: y,
        } if a.ty.is_float() && !exact.contains(&a.dst) => Some((x, y)),
        _ => None,
    }
}

/// A sum that may take a product: its operation (`Add` or `Sub`) and operands.
fn sum(a: &Assign, exact: &HashSet<VarId>) -> Option<(BinOp, Operand, Operand)> {
    match a.op {
        Op::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            a: x,
            b: y,
        } if a.ty.is_float() && !exact.contains(&a.dst) => Some((op, x, y)),
        _ => None,
    }
}

/// A copy or negation of a variable (`float u = t;`, `-t`).
fn alias(a: &Assign) -> Option<(VarId, bool)> {
    match a.op {
        Op::Copy {
            src: Operand::Var(v),
        } => Some((v, false)),
        Op::Unary {
            op: UnOp::Neg,
            a: Operand::Var(v),
        } if a.ty.is_float() => Some((v, true)),
        _ => None,
    }
}

/// A variable that holds a product: the product's own, or a copy or negation of it.
#[derive(Clone, Copy)]
struct Held {
    /// The products equal to it are fused together or not at all: the first of them.
    root: VarId,
    /// The multiply it comes from.
    origin: VarId,
    /// Whether it holds the product negated.
    negated: bool,
}

/// What the kernel does with each variable.
#[derive(Default)]
struct Facts {
    /// How many statements assign each variable.
    defs: HashMap<VarId, u32>,
    /// Variables assigned inside a loop.
    looped: HashSet<VarId>,
    /// What each copy (`float x = a;`, an inlined call's parameter) copies.
    copies: HashMap<VarId, Operand>,
    /// The multiplies that may be fused (their result assigned once), with their operands.
    products: HashMap<VarId, (Operand, Operand, Scalar)>,
    /// The variables that hold a product.
    held: HashMap<VarId, Held>,
    /// How many times each root's products are read (copies and negations aside).
    uses: HashMap<VarId, u32>,
    /// Roots read other than as an operand of a sum: never fused.
    blocked: HashSet<VarId>,
    /// The results of the IEEE-arithmetic intrinsics.
    exact: HashSet<VarId>,
    /// Variables assigned once a value computed from constants alone (an inlined call's
    /// parameter given a literal, `(float)k` of it): nvcc folds them, so a product of two of
    /// them is a constant to it, not a multiply to fuse.
    constant: HashSet<VarId>,
}

impl Facts {
    /// The facts of `body` that do not depend on which products are fused: how often each
    /// variable is assigned, where, and what copies it.
    fn new(body: &[Stmt], exact: &HashSet<VarId>) -> Facts {
        let mut f = Facts {
            exact: exact.clone(),
            ..Facts::default()
        };
        f.assignments(body, false);
        let mut assigns = Vec::new();
        collect_assigns(body, &mut assigns);
        // Until nothing changes: a constant may be computed from constants defined later in
        // the list (an inner scope's).
        loop {
            let before = f.constant.len();
            for a in &assigns {
                let pure = matches!(
                    a.op,
                    Op::Copy { .. }
                        | Op::Convert { .. }
                        | Op::Bitcast { .. }
                        | Op::Unary { .. }
                        | Op::Binary { .. }
                );
                if pure
                    && f.defs.get(&a.dst) == Some(&1)
                    && a.op.operands().into_iter().all(|o| f.is_constant(o))
                {
                    f.constant.insert(a.dst);
                }
            }
            if f.constant.len() == before {
                break f;
            }
        }
    }

    /// Whether `o` is a constant, or a variable nvcc would fold to one.
    fn is_constant(&self, o: Operand) -> bool {
        match o {
            Operand::Const(_) => true,
            Operand::Var(v) => self.constant.contains(&v),
            _ => false,
        }
    }

    /// `x = a * b; x = x ± c` (and `x = c + x`): the product's only use is the next
    /// statement, which overwrites it; fused unless an equal product comes before it (nvcc
    /// would compute the product once, for both).
    fn adjacent(&self, body: &mut Vec<Stmt>, equal: &HashMap<String, VarId>) {
        let mut equal = equal.clone();
        let mut i = 0;
        while i < body.len() {
            if let Stmt::Assign(p) = &body[i]
                && let Some((a, b)) = product(p, &self.exact)
            {
                let key = self.key(p.ty, a, b);
                let earlier = key.as_ref().is_some_and(|k| equal.contains_key(k));
                if let Some(k) = key {
                    equal.entry(k).or_insert(p.dst);
                }
                if !earlier
                    && i + 1 < body.len()
                    && let Stmt::Assign(s) = &body[i + 1]
                    && s.dst == p.dst
                    && s.ty == p.ty
                    && let Some((op, x, y)) = sum(s, &self.exact)
                {
                    let t = Operand::Var(p.dst);
                    let fused = match (x == t, y == t) {
                        (true, false) => Some((y, false, op == BinOp::Sub)),
                        (false, true) => Some((x, op == BinOp::Sub, false)),
                        _ => None,
                    };
                    if let Some((c, negate_product, negate_addend)) = fused {
                        let Stmt::Assign(s) = &mut body[i + 1] else {
                            unreachable!()
                        };
                        s.op = Op::Fma {
                            a,
                            b,
                            c,
                            negate_product,
                            negate_addend,
                        };
                        body.remove(i);
                        continue;
                    }
                }
            }
            for child in children_mut(&mut body[i]) {
                self.adjacent(child, &equal);
            }
            i += 1;
        }
    }

    /// What identifies a product of stable operands, whichever way round they are written.
    fn key(&self, ty: Scalar, x: Operand, y: Operand) -> Option<String> {
        // A stable copy of a stable value is that value (an inlined call's parameters).
        let value = |mut o: Operand| {
            while let Some(&src) = o.var().and_then(|v| self.copies.get(&v))
                && self.stable(o)
                && self.stable(src)
                && src != o
            {
                o = src;
            }
            o
        };
        let (x, y) = (value(x), value(y));
        (self.stable(x) && self.stable(y)).then(|| {
            let (x, y) = (format!("{x:?}"), format!("{y:?}"));
            if x <= y {
                format!("{ty:?}{x}{y}")
            } else {
                format!("{ty:?}{y}{x}")
            }
        })
    }

    fn assignments(&mut self, body: &[Stmt], looped: bool) {
        for s in body {
            for v in s.writes() {
                *self.defs.entry(v).or_default() += 1;
                if looped {
                    self.looped.insert(v);
                }
            }
            if let Stmt::Assign(a) = s
                && let Op::Copy { src } = a.op
            {
                self.copies.insert(a.dst, src);
            }
            let looped = looped || matches!(s, Stmt::Loop { .. });
            for child in s.children() {
                self.assignments(child, looped);
            }
        }
    }

    /// Whether every read of `o` sees one value: a constant, a built-in, a parameter, or a
    /// variable assigned once outside loops.
    fn stable(&self, o: Operand) -> bool {
        match o.var() {
            None => true,
            Some(v) => match self.defs.get(&v) {
                None => true,
                Some(1) => !self.looped.contains(&v),
                Some(_) => false,
            },
        }
    }

    /// Find the products and the variables that hold them, in program order; equal products
    /// of stable operands share a root where the first comes before the other on every path
    /// (nvcc computes them once): `equal` holds those of the enclosing statement lists.
    fn classify(&mut self, body: &[Stmt], equal: &HashMap<String, VarId>) {
        let mut equal = equal.clone();
        for s in body {
            if let Stmt::Assign(a) = s
                && self.defs.get(&a.dst) == Some(&1)
            {
                if let Some((x, y)) = product(a, &self.exact)
                    && !(self.is_constant(x) && self.is_constant(y))
                {
                    let mut root = a.dst;
                    if let Some(key) = self.key(a.ty, x, y) {
                        root = *equal.entry(key).or_insert(a.dst);
                    }
                    self.products.insert(a.dst, (x, y, a.ty));
                    let origin = a.dst;
                    self.held.insert(
                        a.dst,
                        Held {
                            root,
                            origin,
                            negated: false,
                        },
                    );
                } else if let Some((v, negate)) = alias(a)
                    && let Some(h) = self.held.get(&v).copied()
                {
                    self.held.insert(
                        a.dst,
                        Held {
                            negated: h.negated != negate,
                            ..h
                        },
                    );
                }
            }
            for child in s.children() {
                self.classify(child, &equal);
            }
        }
    }

    /// Count the uses of each root's products and block those read other than by a sum.
    fn count(&mut self, body: &[Stmt]) {
        for s in body {
            let (summed, aliasing) = match s {
                Stmt::Assign(a) => (
                    sum(a, &self.exact).map(|(_, x, y)| (x, y)),
                    alias(a).is_some() && self.held.contains_key(&a.dst),
                ),
                _ => (None, false),
            };
            if !aliasing {
                for o in s.reads() {
                    let Some(h) = o.var().and_then(|v| self.held.get(&v)).copied() else {
                        continue;
                    };
                    *self.uses.entry(h.root).or_default() += 1;
                    // An operand of a sum, once, as itself (not its buffer's address).
                    let as_sum = matches!(o, Operand::Var(_))
                        && summed.is_some_and(|(x, y)| (x == o) != (y == o));
                    if !as_sum {
                        self.blocked.insert(h.root);
                    }
                }
            }
            for child in s.children() {
                self.count(child);
            }
        }
    }

    /// The product an operand holds, if it may be fused.
    fn fusable(&self, o: Operand) -> Option<Held> {
        let h = *self
            .held
            .get(&o.var().filter(|_| matches!(o, Operand::Var(_)))?)?;
        let uses = self.uses.get(&h.root).copied().unwrap_or(0);
        ((1..=MAX_USES).contains(&uses) && !self.blocked.contains(&h.root)).then_some(h)
    }
}

/// The order in which values appear, as nvcc ranks the operands of `+`: constants first,
/// then parameters, then every value loaded or received in program order; a computed value
/// ranks one above its highest operand (a negation not above it).
struct Ranks {
    of: HashMap<VarId, u32>,
    next: u32,
}

impl Ranks {
    fn new(k: &Kernel) -> Ranks {
        let of: HashMap<VarId, u32> = k
            .param_vars()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, v)| (v, 2 + i as u32))
            .collect();
        let next = 2 + of.len() as u32;
        Ranks { of, next }
    }

    fn rank(&self, o: Operand) -> u32 {
        match o {
            Operand::Const(_) => 0,
            Operand::Builtin(_) if o.var().is_none() => 1,
            _ => o.var().and_then(|v| self.of.get(&v).copied()).unwrap_or(1),
        }
    }

    fn define(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign(a) => {
                let top =
                    a.op.operands()
                        .into_iter()
                        .map(|o| self.rank(o))
                        .max()
                        .unwrap_or(0);
                let step = match a.op {
                    Op::Copy { .. } | Op::Bitcast { .. } | Op::Unary { op: UnOp::Neg, .. } => 0,
                    _ => 1,
                };
                self.of.insert(a.dst, top + step);
            }
            _ => {
                for v in s.writes() {
                    self.next += 1;
                    self.of.insert(v, self.next);
                }
            }
        }
    }
}

/// What one sum becomes: the product it fuses, and whether that is its left operand.
type Decision = Option<(Held, bool)>;

/// Decide every sum in program order (the order [`Rewrite`] meets them in).
fn decide(
    body: &[Stmt],
    facts: &Facts,
    ranks: &mut Ranks,
    out: &mut Vec<Decision>,
    addends: &mut HashSet<VarId>,
) {
    for s in body {
        if let Stmt::Assign(a) = s
            && let Some((op, x, y)) = sum(a, &facts.exact)
        {
            // A sum met before its product (a loop reading the last iteration's) keeps the
            // product.
            let mut ready = |o: Operand| {
                let h = facts.fusable(o)?;
                if o.var().is_some_and(|v| ranks.of.contains_key(&v)) {
                    Some(h)
                } else {
                    addends.insert(h.root);
                    None
                }
            };
            let pick = match (ready(x), ready(y)) {
                (Some(p), Some(q)) => {
                    let (up, uq) = (facts.uses[&p.root], facts.uses[&q.root]);
                    let left = match up.cmp(&uq) {
                        std::cmp::Ordering::Less => true,
                        std::cmp::Ordering::Greater => false,
                        std::cmp::Ordering::Equal => {
                            op == BinOp::Sub || ranks.rank(x) <= ranks.rank(y)
                        }
                    };
                    addends.insert(if left { q.root } else { p.root });
                    Some(if left { (p, true) } else { (q, false) })
                }
                (Some(p), None) => Some((p, true)),
                (None, Some(q)) => Some((q, false)),
                (None, None) => None,
            };
            out.push(pick);
        }
        ranks.define(s);
        for child in s.children() {
            decide(child, facts, ranks, out, addends);
        }
    }
}

/// Rewrites the decided sums into fused multiply-adds and removes the products they took.
struct Rewrite<'a> {
    facts: &'a Facts,
    decisions: &'a [Decision],
    next: usize,
    /// For each fused multiply, its operands as the sums read them (copies where an operand
    /// variable may change between the product and a sum).
    captured: HashMap<VarId, (Operand, Operand)>,
    vars: &'a mut Vec<Var>,
}

impl Rewrite<'_> {
    fn list(&mut self, body: &mut Vec<Stmt>) {
        let mut out = Vec::with_capacity(body.len());
        for mut s in std::mem::take(body) {
            if let Stmt::Assign(a) = &mut s {
                let fused = self.facts.fusable(Operand::Var(a.dst)).is_some();
                if let Some((op, x, y)) = sum(a, &self.facts.exact) {
                    let d = self.decisions[self.next];
                    self.next += 1;
                    if let Some((h, left)) = d {
                        let (pa, pb) = self.captured[&h.origin];
                        let sub = op == BinOp::Sub;
                        let (c, negate_product, negate_addend) = if left {
                            (y, h.negated, sub)
                        } else {
                            (x, h.negated != sub, false)
                        };
                        a.op = Op::Fma {
                            a: pa,
                            b: pb,
                            c,
                            negate_product,
                            negate_addend,
                        };
                    }
                } else if fused && self.facts.products.contains_key(&a.dst) {
                    // Every use of the product is fused, so it goes; its operands are kept
                    // where they may change before a sum reads them.
                    let (x, y, ty) = self.facts.products[&a.dst];
                    let site = a.site;
                    let mut keep = |o: Operand| {
                        if self.facts.stable(o) {
                            return o;
                        }
                        let v = o.var().expect("a constant is stable");
                        let copy = VarId(self.vars.len() as u32);
                        let name = format!("{}.fma", self.vars[v.0 as usize].name);
                        self.vars.push(Var {
                            name,
                            ty,
                            uniform: false,
                        });
                        out.push(Stmt::Assign(Assign {
                            dst: copy,
                            ty,
                            op: Op::Copy { src: o },
                            varying: false,
                            site,
                        }));
                        Operand::Var(copy)
                    };
                    let x = keep(x);
                    let y = keep(y);
                    self.captured.insert(a.dst, (x, y));
                    continue;
                } else if fused {
                    // A copy or negation of a fused product: the sums read the product.
                    continue;
                }
            }
            for child in children_mut(&mut s) {
                self.list(child);
            }
            out.push(s);
        }
        *body = out;
    }
}

/// The statement lists nested in a statement, to change.
fn children_mut(s: &mut Stmt) -> Vec<&mut Vec<Stmt>> {
    match s {
        Stmt::If { then, els, .. } => vec![then, els],
        Stmt::Loop { body, step, .. } => vec![body, step],
        Stmt::Inline { body } => vec![body],
        _ => Vec::new(),
    }
}

/// Every assignment in `body`, nested ones included, in program order.
fn collect_assigns<'a>(body: &'a [Stmt], out: &mut Vec<&'a Assign>) {
    for s in body {
        if let Stmt::Assign(a) = s {
            out.push(a);
        }
        for child in s.children() {
            collect_assigns(child, out);
        }
    }
}
