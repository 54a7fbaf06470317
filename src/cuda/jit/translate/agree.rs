//! Lane-varying branches that a whole warp takes alike, found from two of its lanes.
//!
//! A lane-varying `if` costs a warp its condition's 32 lanes, the masks of both sides and, on
//! the side that runs, stores under a mask. Yet most such branches in the documents' kernels
//! go one way for whole warps: a reduction tree's `if (t < s)` holds in every lane of the low
//! warps and in none of the others; a bounds check holds everywhere but at the edge. Where the
//! condition compares values whose lanes step evenly (lane `l` holds `x0 + l × k`,
//! [`super::lane_steps`]), the warp's first and last lanes decide it: unless a sequence wraps
//! around, the difference of two of them is linear in the lane, so it changes sign at most once
//! and is zero in one lane at most, or in all. `&&`, `||` and `!` of such comparisons combine
//! their answers.
//!
//! So an assignment to such a `bool` also defines two scalars, its *test*: whether the warp's
//! 32 lanes agree, and lane 0's value. A branch on it looks at the test first: a warp whose
//! lanes agree runs it as a uniform branch (one side under the unchanged mask: with every lane,
//! plain stores); another one runs it lane by lane as before. All 32 lanes agree or not,
//! whatever the mask, so the side taken is the current mask or none.
//!
//! A test exists where the assignment writes its formula into all 32 lanes (a fresh definition
//! or a full mask); elsewhere, and at each warp's start in a region, it says "not known". Both
//! sides of a small `if` are compiled twice, for warps that agree and for the others
//! ([`COPY_LIMIT`], [`COPY_DEPTH`]); a larger one only lets agreeing warps skip an empty side.
//!
//! Where the block's shape alone decides a condition (thread indices and constants:
//! [`fixed_by_shape`]) and every warp's lanes agree on it, nothing is left to test: each warp's
//! value is known when compiling ([`by_warp`]), and the branch is compiled once, as a uniform
//! one.

use super::{Known, S, Size, Step, Tx, V, size};
use crate::cuda::analysis::shape::fixed_by_shape;
use crate::cuda::ir::{Assign, CmpOp, Const, Kernel, Op, Operand, Site, Stmt, UnOp};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I8, I32, I64};
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::Variable;

/// Statements (nested ones included) of an `if` whose sides are compiled twice.
const COPY_LIMIT: usize = 64;

/// How deep such copies nest (each level doubles the code inside it).
const COPY_DEPTH: usize = 2;

/// Per variable, whether it has a test computed where it is assigned: a lane-varying `bool`
/// that only assignments write (a load, shuffle, vote or atomic gives lanes no formula
/// describes), unless the block's shape fixes its test ([`by_warp`]).
pub(super) fn tested(k: &Kernel, kept_as_lane0: &[bool], by_warp: &[Option<u32>]) -> Vec<bool> {
    fn walk(list: &[Stmt], ok: &mut [bool]) {
        for s in list {
            if !matches!(s, Stmt::Assign(_)) {
                for v in s.writes() {
                    ok[v.0 as usize] = false;
                }
            }
            for c in s.children() {
                walk(c, ok);
            }
        }
    }
    let mut ok: Vec<bool> = k
        .vars
        .iter()
        .zip(kept_as_lane0)
        .zip(by_warp)
        .map(|((v, &lane0), fixed)| v.ty == S::Bool && !v.uniform && !lane0 && fixed.is_none())
        .collect();
    walk(&k.body, &mut ok);
    ok
}

/// Per `bool` variable that the block's shape fixes ([`fixed_by_shape`]) with one value in
/// all the threads of each warp: that value, warp `w`'s in bit `w`.
pub(super) fn by_warp(k: &Kernel, block: [u32; 3], fresh: &[usize]) -> Vec<Option<u32>> {
    let threads = block.iter().map(|&d| d as usize).product::<usize>();
    if threads > 32 * 32 {
        return vec![None; k.vars.len()];
    }
    fixed_by_shape(k, block, fresh)
        .into_iter()
        .zip(&k.vars)
        .map(|(fixed, var)| {
            let lanes = fixed.filter(|_| var.ty == S::Bool)?;
            let mut bits = 0;
            for (w, warp) in lanes.chunks(32).enumerate() {
                let value = warp[0].bits != 0;
                if warp.iter().any(|c| (c.bits != 0) != value) {
                    return None;
                }
                bits |= u32::from(value) << w;
            }
            Some(bits)
        })
        .collect()
}

/// Statements in `list`, nested ones included.
fn weight(list: &[&Stmt]) -> usize {
    let mut to = Size::default();
    for s in list {
        size(std::slice::from_ref(*s), 0, &mut to);
    }
    to.stmts
}

impl Tx<'_, '_> {
    /// A test that says "not known" for `v` (at the entry, and where a warp's part of a region
    /// starts).
    pub(super) fn forget_test(&mut self, v: usize) {
        if let Some([agree, value]) = self.tests[v] {
            let z = self.b.ins().iconst(I8, 0);
            self.b.def_var(agree, z);
            self.b.def_var(value, z);
        }
    }

    /// At assignment `a` (before it writes): define its destination's test, if it has one.
    pub(super) fn define_test(&mut self, a: &Assign) {
        let Some([agree, value]) = self.tests[a.dst.0 as usize] else {
            return;
        };
        let every_lane =
            self.layout.fresh[a.dst.0 as usize] == self.at || self.known == Known::Full;
        let test = if every_lane {
            self.test_of(&a.op)
        } else {
            None
        };
        let [x, y] = test.unwrap_or_else(|| {
            let z = self.b.ins().iconst(I8, 0);
            [z, z]
        });
        self.b.def_var(agree, x);
        self.b.def_var(value, y);
    }

    /// The value of a `bool` operand in the current warp, where the block's shape fixes it
    /// with one value in every lane of each warp ([`by_warp`]).
    pub(super) fn warp_value(&mut self, o: &Operand) -> Option<Value> {
        let bits = self.layout.by_warp[o.var()?.0 as usize]?;
        let every = u32::MAX >> (32 - self.warps);
        Some(match bits {
            0 => self.b.ins().iconst(I8, 0),
            b if b == every => self.b.ins().iconst(I8, 1),
            b => {
                let w = self.warp.expect("inside a region");
                let b = self.b.ins().iconst(I32, i64::from(b));
                let mine = self.b.ins().ushr(b, w);
                let mine = self.b.ins().band_imm_s(mine, 1);
                self.b.ins().ireduce(I8, mine)
            }
        })
    }

    /// The test of a `bool` operand, `[agree, value]` (`I8`s).
    pub(super) fn warp_test(&mut self, o: &Operand) -> Option<[Value; 2]> {
        match o {
            Operand::Const(c) => {
                let one = self.b.ins().iconst(I8, 1);
                let v = self.b.ins().iconst(I8, i64::from(c.bits != 0));
                Some([one, v])
            }
            Operand::Var(v) if self.k.vars[v.0 as usize].uniform => {
                let one = self.b.ins().iconst(I8, 1);
                let x = self.b.use_var(self.uvar[v.0 as usize]);
                Some([one, self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)])
            }
            // Every warp agrees, on the value the shape gives it.
            Operand::Var(_) if let Some(x) = self.warp_value(o) => {
                let one = self.b.ins().iconst(I8, 1);
                Some([one, x])
            }
            Operand::Var(v) => {
                let [a, b]: [Variable; 2] = self.tests[v.0 as usize]?;
                Some([self.b.use_var(a), self.b.use_var(b)])
            }
            Operand::Builtin(_) => None,
        }
    }

    /// The test of an operation's result, where one can be had.
    fn test_of(&mut self, op: &Op) -> Option<[Value; 2]> {
        match op {
            Op::Cmp { op, of, a, b } => self.compare_test(*op, *of, a, b),
            Op::Convert { src, from } => {
                let zero = Operand::Const(Const { ty: *from, bits: 0 });
                self.compare_test(CmpOp::Ne, *from, src, &zero)
            }
            Op::Copy { src } => self.warp_test(src),
            Op::Unary {
                op: UnOp::LogicalNot,
                a,
            } if self.type_of(a) == S::Bool => {
                let [agree, v] = self.warp_test(a)?;
                Some([agree, self.b.ins().bxor_imm_u(v, 1)])
            }
            Op::And { a, b } | Op::Or { a, b } => {
                let and = matches!(op, Op::And { .. });
                let [ua, va] = self.warp_test(a)?;
                let [ub, vb] = self.warp_test(b)?;
                // Both agree, or one agrees on the value that decides (false for `&&`).
                let (da, db) = if and {
                    (
                        self.b.ins().bxor_imm_u(va, 1),
                        self.b.ins().bxor_imm_u(vb, 1),
                    )
                } else {
                    (va, vb)
                };
                let both = self.b.ins().band(ua, ub);
                let a_decides = self.b.ins().band(ua, da);
                let b_decides = self.b.ins().band(ub, db);
                let one = self.b.ins().bor(a_decides, b_decides);
                let agree = self.b.ins().bor(both, one);
                let value = if and {
                    self.b.ins().band(va, vb)
                } else {
                    self.b.ins().bor(va, vb)
                };
                Some([agree, value])
            }
            _ => None,
        }
    }

    /// The test of `a op b` (of 32-bit integers whose lanes step evenly).
    fn compare_test(&mut self, op: CmpOp, of: S, a: &Operand, b: &Operand) -> Option<[Value; 2]> {
        if !matches!(of, S::I32 | S::U32) {
            return None;
        }
        let (sa, sb) = (self.step(a)?, self.step(b)?);
        let signed = of.is_signed();
        let (a0, a31, wa) = self.ends(a, sa, signed);
        let (b0, b31, wb) = self.ends(b, sb, signed);
        let first = self.b.ins().isub(a0, b0);
        let last = self.b.ins().isub(a31, b31);
        let (agree, value) = match op {
            CmpOp::Eq | CmpOp::Ne => {
                // No lane's difference is zero (both ends on one side), or all are.
                let same = self.b.ins().icmp(IntCC::Equal, first, last);
                let lo = self.b.ins().smin(first, last);
                let hi = self.b.ins().smax(first, last);
                let above = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, lo, 0);
                let below = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, hi, 0);
                let apart = self.b.ins().bor(above, below);
                let cc = if op == CmpOp::Eq {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                (
                    self.b.ins().bor(same, apart),
                    self.b.ins().icmp_imm_s(cc, first, 0),
                )
            }
            _ => {
                let cc = match op {
                    CmpOp::Lt => IntCC::SignedLessThan,
                    CmpOp::Le => IntCC::SignedLessThanOrEqual,
                    CmpOp::Gt => IntCC::SignedGreaterThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                let p0 = self.b.ins().icmp_imm_s(cc, first, 0);
                let p31 = self.b.ins().icmp_imm_s(cc, last, 0);
                (self.b.ins().icmp(IntCC::Equal, p0, p31), p0)
            }
        };
        let mut agree = agree;
        for w in [wa, wb].into_iter().flatten() {
            agree = self.b.ins().band(agree, w);
        }
        Some([agree, value])
    }

    /// Lanes 0 and 31 of `o` (step `s`) as exact 64-bit numbers (C's extension for `signed`),
    /// and, where they differ, whether lane 31 is exact: no lane between wrapped around.
    fn ends(&mut self, o: &Operand, s: Step, signed: bool) -> (Value, Value, Option<Value>) {
        let saved = std::mem::replace(&mut self.lane0, true);
        let x = match self.operand(o, S::U32) {
            V::U(x) => x,
            V::L(l) => self.b.ins().extractlane(l[0], 0),
        };
        self.lane0 = saved;
        let extend = |b: &mut cranelift_frontend::FunctionBuilder<'_>, x: Value| {
            if signed {
                b.ins().sextend(I64, x)
            } else {
                b.ins().uextend(I64, x)
            }
        };
        let first = extend(&mut self.b, x);
        if s.constant() == Some(0) {
            return (first, first, None);
        }
        let span = match s.constant() {
            Some(c) => self.b.ins().iconst(I64, 31 * c),
            None => {
                let k = self.step_value(s);
                let k = self.b.ins().sextend(I64, k);
                self.b.ins().imul_imm_s(k, 31)
            }
        };
        let last = self.b.ins().iadd(first, span);
        let narrow = self.b.ins().ireduce(I32, last);
        let back = extend(&mut self.b, narrow);
        let exact = self.b.ins().icmp(IntCC::Equal, back, last);
        (first, last, Some(exact))
    }

    /// A lane-varying `if` on `cond` whose test is `[agree, value]`: warps whose lanes agree
    /// take it as a uniform branch, the others lane by lane.
    pub(super) fn split_if(
        &mut self,
        [agree, value]: [Value; 2],
        cond: &Operand,
        then: &[&Stmt],
        els: &[&Stmt],
        site: Site,
    ) -> Result<(), String> {
        let copy = self.copies < COPY_DEPTH && weight(then) + weight(els) <= COPY_LIMIT;
        let fast = if copy {
            agree
        } else if els.is_empty() {
            let no = self.b.ins().bxor_imm_u(value, 1);
            self.b.ins().band(agree, no)
        } else if then.is_empty() {
            self.b.ins().band(agree, value)
        } else {
            let c = self.operand(cond, S::Bool);
            return self.branch(c, then, els, true, site);
        };
        let [alike, apart, join] = self.blocks();
        let entry = self.known;
        self.b.ins().brif(fast, alike, &[], apart, &[]);
        self.b.switch_to_block(alike);
        if copy {
            self.copies += 1;
            self.branch(V::U(value), then, els, true, site)?;
            self.copies -= 1;
        } else {
            // The side that runs is empty.
            self.branch(V::U(value), &[], &[], true, site)?;
        }
        let after = self.known;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(apart);
        self.known = entry;
        let c = self.operand(cond, S::Bool);
        self.branch(c, then, els, true, site)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.known = self.known.join(after);
        Ok(())
    }
}
