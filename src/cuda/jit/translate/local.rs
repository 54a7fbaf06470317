//! Per-thread arrays (`float acc[8]` in a thread's registers or local memory on a GPU).
//!
//! Each array lives in the frame, per warp one row of 32 lanes per element (the lanes as the
//! array's variables hold them: 128 bytes, 256 for 64-bit types), zeroed at each block's start
//! as the interpreter starts them. An index the same in every lane, the usual case (a loop's
//! counter), reads or writes one row: vector loads, or a merge under the mask and vector stores
//! (the memory is the warp's own). An index that differs between lanes goes lane by lane. An
//! index past the array stops the block as a fault; the interpreter's re-run of the block
//! reports it. An index is read as the interpreter reads it: 32 bits, a 64-bit one saturated.

use super::{Tx, V, chunks, lane_ty, mem, scalar_ty, vmem};
use crate::cuda::ir::{Operand, Scalar, Site};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, Value};
use std::mem::offset_of;

/// Bytes of an element's row: the lanes of one warp as the array's type holds them.
pub(super) fn row_bytes(ty: Scalar) -> usize {
    chunks(ty) * 16
}

impl Tx<'_, '_> {
    /// `local[index]` for the executing lanes.
    pub(super) fn local_load(&mut self, array: u32, index: &Operand, site: Site) -> V {
        let ty = self.k.locals[array as usize].ty;
        let lane_bytes = if ty.is_wide() { 8 } else { 4 };
        match self.local_index(index) {
            Indexed::Uniform(i) => {
                let row = self.local_row(array, i, site);
                V::L(
                    (0..chunks(ty))
                        .map(|c| self.b.ins().load(lane_ty(ty), vmem(), row, (c * 16) as i32))
                        .collect(),
                )
            }
            Indexed::Lanes(idx) => {
                let zero = self.zero(lane_ty(ty));
                let out = self.spill(&vec![zero; chunks(ty)]);
                self.local_lanes(array, &idx, site, &mut |tx, l, at| {
                    let x = tx.b.ins().load(scalar_ty(ty), mem(), at, 0);
                    let to = tx.b.ins().stack_addr(I64, out, 0);
                    let off = tx.b.ins().imul_imm_s(l, lane_bytes);
                    let to = tx.b.ins().iadd(to, off);
                    tx.b.ins().store(mem(), x, to, 0);
                });
                let base = self.b.ins().stack_addr(I64, out, 0);
                V::L(
                    (0..chunks(ty))
                        .map(|c| {
                            self.b
                                .ins()
                                .load(lane_ty(ty), vmem(), base, (c * 16) as i32)
                        })
                        .collect(),
                )
            }
        }
    }

    /// `local[index]` into a uniform variable: the analysis found the index the same in every
    /// thread and every thread that runs writing the array alike, so the first executing
    /// lane's element is the value (lane 0 may have returned before the writes).
    pub(super) fn local_load_uniform(&mut self, array: u32, index: &Operand, site: Site) -> V {
        let ty = self.k.locals[array as usize].ty;
        let Indexed::Uniform(i) = self.local_index(index) else {
            return self.local_load(array, index, site);
        };
        let row = self.local_row(array, i, site);
        let m = self.get_mask(self.cur);
        let bits = self.bits(&m);
        // No lane runs: lane 31's element, which nothing reads.
        let bits = self.b.ins().bor_imm_u(bits, 1 << 31);
        let lane = self.b.ins().ctz(bits);
        let lane = self.b.ins().uextend(I64, lane);
        let lane_bytes = if ty.is_wide() { 8 } else { 4 };
        let off = self.b.ins().imul_imm_s(lane, lane_bytes);
        let at = self.b.ins().iadd(row, off);
        let x = self.b.ins().load(scalar_ty(ty), mem(), at, 0);
        V::U(self.lane_scalar(x, ty))
    }

    /// `local[index] = value` for the executing lanes.
    pub(super) fn local_store(&mut self, array: u32, index: &Operand, value: &Operand, site: Site) {
        let ty = self.k.locals[array as usize].ty;
        let lane_bytes = if ty.is_wide() { 8 } else { 4 };
        // The front-end converted the value to the element type.
        let (v, _) = self.get(value);
        let vals = self.lanes(v, ty);
        match self.local_index(index) {
            Indexed::Uniform(i) => {
                let row = self.local_row(array, i, site);
                let m = self.get_mask(self.cur);
                let full = self.is_full(&m);
                let mw = self.mask_for(ty, &m);
                for (c, &x) in vals.iter().enumerate() {
                    let x = if full {
                        x
                    } else {
                        let old = self.b.ins().load(lane_ty(ty), vmem(), row, (c * 16) as i32);
                        self.merge(mw[c], x, old)
                    };
                    self.b.ins().store(vmem(), x, row, (c * 16) as i32);
                }
            }
            Indexed::Lanes(idx) => {
                let from = self.spill(&vals);
                self.local_lanes(array, &idx, site, &mut |tx, l, at| {
                    let src = tx.b.ins().stack_addr(I64, from, 0);
                    let off = tx.b.ins().imul_imm_s(l, lane_bytes);
                    let src = tx.b.ins().iadd(src, off);
                    let x = tx.b.ins().load(scalar_ty(ty), mem(), src, 0);
                    tx.b.ins().store(mem(), x, at, 0);
                });
            }
        }
    }

    /// An index as the interpreter reads it (`U32` lanes, a 64-bit index saturated): one
    /// value for the warp, or its lanes spilled.
    fn local_index(&mut self, index: &Operand) -> Indexed {
        let (v, t) = self.get(index);
        let narrow = |tx: &mut Self, x: Value| -> Value {
            if t.is_wide() {
                let max = tx.b.ins().iconst(I64, i64::from(u32::MAX));
                let x = tx.b.ins().umin(x, max);
                tx.b.ins().ireduce(I32, x)
            } else {
                x
            }
        };
        match v {
            // A `bool` the same in every lane is 0 or 1 already (the front-end promotes a
            // `bool` subscript to `int`; nothing to narrow).
            V::U(x) => Indexed::Uniform(narrow(self, x)),
            V::L(lanes) => {
                let lanes = self.lanes(V::L(lanes), t);
                let slot = self.spill(&lanes);
                Indexed::Lanes(Spilled {
                    slot,
                    wide: t.is_wide(),
                    bool_lanes: t == Scalar::Bool,
                })
            }
        }
    }

    /// The row of element `i` of `array` for the current warp, checked: an index past the
    /// array with a lane executing stops the block.
    fn local_row(&mut self, array: u32, i: Value, site: Site) -> Value {
        let a = &self.k.locals[array as usize];
        let (len, row) = (i64::from(a.len), row_bytes(a.ty) as i64);
        let past = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i, len);
        let any = self.any_cur();
        let bad = self.b.ins().band(past, any);
        let [stop, go] = self.blocks();
        self.b.ins().brif(bad, stop, &[], go, &[]);
        self.b.set_cold_block(stop);
        self.b.switch_to_block(stop);
        let m = self.get_mask(self.cur);
        let bits = self.bits(&m);
        let lane = self.b.ins().ctz(bits);
        let z = self.b.ins().iconst(I64, 0);
        self.fault(site, None, lane, u32::MAX, z);
        self.b.switch_to_block(go);
        let base = self.local_base(array);
        let i = self.b.ins().uextend(I64, i);
        let off = self.b.ins().imul_imm_s(i, row);
        self.b.ins().iadd(base, off)
    }

    /// Where `array`'s rows for the current warp start.
    fn local_base(&mut self, array: u32) -> Value {
        let a = &self.k.locals[array as usize];
        let per_warp = i64::from(a.len) * row_bytes(a.ty) as i64;
        let off = self.layout.locals[array as usize] as i64;
        let frame = self.load_ctx(I64, offset_of!(super::Ctx, frame));
        let w = self.warp.expect("inside a region");
        let w = self.b.ins().uextend(I64, w);
        let at = self.b.ins().imul_imm_s(w, per_warp);
        let at = self.b.ins().iadd(frame, at);
        self.b.ins().iadd_imm_s(at, off)
    }

    /// For each executing lane `l` in turn (`I64`), the address of its element, checked.
    fn local_lanes(
        &mut self,
        array: u32,
        idx: &Spilled,
        site: Site,
        f: &mut dyn FnMut(&mut Self, Value, Value),
    ) {
        let a = &self.k.locals[array as usize];
        let (len, ty) = (i64::from(a.len), a.ty);
        let lane_bytes = if ty.is_wide() { 8 } else { 4 };
        let base = self.local_base(array);
        let m = self.get_mask(self.cur);
        let bits = self.bits(&m);
        let [head, body, done] = self.blocks();
        let left = self.b.append_block_param(head, I32);
        self.b.ins().jump(head, &[bits.into()]);
        self.b.switch_to_block(head);
        self.b.ins().brif(left, body, &[], done, &[]);
        self.b.switch_to_block(body);
        let lane = self.b.ins().ctz(left);
        let l = self.b.ins().uextend(I64, lane);
        let from = self.b.ins().stack_addr(I64, idx.slot, 0);
        let i = if idx.wide {
            let at = self.b.ins().ishl_imm_s(l, 3);
            let at = self.b.ins().iadd(from, at);
            let x = self.b.ins().load(I64, mem(), at, 0);
            let max = self.b.ins().iconst(I64, i64::from(u32::MAX));
            let x = self.b.ins().umin(x, max);
            self.b.ins().ireduce(I32, x)
        } else {
            let at = self.b.ins().ishl_imm_s(l, 2);
            let at = self.b.ins().iadd(from, at);
            let x = self.b.ins().load(I32, mem(), at, 0);
            // A `bool`'s lane is all ones for true.
            if idx.bool_lanes {
                self.b.ins().band_imm_s(x, 1)
            } else {
                x
            }
        };
        let past = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i, len);
        let [stop, go] = self.blocks();
        self.b.ins().brif(past, stop, &[], go, &[]);
        self.b.set_cold_block(stop);
        self.b.switch_to_block(stop);
        let z = self.b.ins().iconst(I64, 0);
        self.fault(site, None, lane, u32::MAX, z);
        self.b.switch_to_block(go);
        let i = self.b.ins().uextend(I64, i);
        let row = self.b.ins().imul_imm_s(i, row_bytes(ty) as i64);
        let at = self.b.ins().iadd(base, row);
        let in_row = self.b.ins().imul_imm_s(l, lane_bytes);
        let at = self.b.ins().iadd(at, in_row);
        f(self, l, at);
        let rest = self.b.ins().iadd_imm_s(left, -1);
        let rest = self.b.ins().band(left, rest);
        self.b.ins().jump(head, &[rest.into()]);
        self.b.switch_to_block(done);
    }
}

/// A per-thread array index ([`Tx::local_index`]).
enum Indexed {
    /// The same in every lane (`I32`).
    Uniform(Value),
    /// Lanes that differ, spilled as their type holds them.
    Lanes(Spilled),
}

struct Spilled {
    slot: cranelift_codegen::ir::StackSlot,
    wide: bool,
    bool_lanes: bool,
}
