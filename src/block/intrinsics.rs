//! Warp intrinsics: `__syncwarp`, shuffles and votes, each acting within every warp.

use super::{Block, fault};
use crate::error::Error;
use crate::lanes::{Lanes, Mask, U32x32, U64x32, WARP_SIZE};
use crate::site::Site;
use crate::values::frame::{self, Frame, MAX_WARPS, Masks, R32, R64};
use crate::values::{F32s, F64s, I32s, Pred, U32s, U64s};

mod sealed {
    pub trait Sealed {}
}

/// The four shuffles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflOp {
    Idx,
    Up,
    Down,
    Xor,
}

impl ShflOp {
    /// The lane that lane `l` reads, with lane operand `x` (source lane, delta, lane mask), in
    /// segments of `w` lanes (a power of two).
    pub(crate) fn source(self, l: u32, x: u32, w: u32) -> u32 {
        match self {
            ShflOp::Idx => (l & !(w - 1)) | (x & (w - 1)),
            ShflOp::Up => {
                if l % w >= x {
                    l - x
                } else {
                    l
                }
            }
            ShflOp::Down => {
                if u64::from(l % w) + u64::from(x) < u64::from(w) {
                    l + x
                } else {
                    l
                }
            }
            ShflOp::Xor => {
                let s = l ^ x;
                if s / w > l / w { l } else { s & 31 }
            }
        }
    }
}

/// Values a shuffle can move between lanes: every block-wide value type. Sealed.
pub trait Shuffle: sealed::Sealed + Copy {
    #[doc(hidden)]
    fn repr(self) -> Repr;
    #[doc(hidden)]
    fn from_repr(r: Repr) -> Self;
}

/// A shuffled value, untyped.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Repr(ReprKind);

#[derive(Clone, Copy)]
enum ReprKind {
    W32(R32),
    W64(R64),
}

/// Lane `l` of warp `w`'s result is lane `src(w)[l]` of `v` where that lane takes part in the
/// shuffle (it executes it and `masks[w]` names it), else 0: what an sm_90 GPU returns for a
/// source lane that is inactive or outside the member mask (measured on an H200; PTX leaves it
/// undefined, and NVIDIA's `reduce7` relies on it). A lane past the block's last thread (in a
/// partial last warp) takes part in nothing.
fn shuffle(
    fr: &mut Frame,
    masks: &Masks,
    v: Repr,
    src: &dyn Fn(&Frame, usize) -> [u8; WARP_SIZE],
) -> Repr {
    let part: [u32; MAX_WARPS] = std::array::from_fn(|w| fr.active[w] & masks[w] & fr.exists[w]);
    let partial = (0..fr.warps).any(|w| fr.active[w] != 0 && part[w] != u32::MAX);
    match v.0 {
        ReprKind::W32(v) if partial || v.as_uniform().is_none() => {
            let s = fr.src32(v);
            let dst = fr.alloc(1);
            for (w, &p) in part.iter().enumerate().take(fr.warps) {
                if fr.active[w] != 0 {
                    let (idx, lanes) = (src(fr, w), s.get(&fr.rows, w));
                    fr.rows[dst.row as usize + w] = taking_part(lanes.permute(&idx), &idx, p);
                }
            }
            Repr(ReprKind::W32(R32::Slot(dst)))
        }
        ReprKind::W64(v) if partial || v.as_uniform().is_none() => {
            let s = fr.src64(v);
            let dst = fr.alloc(2);
            for (w, &p) in part.iter().enumerate().take(fr.warps) {
                if fr.active[w] != 0 {
                    let (idx, lanes): (_, U64x32) = (src(fr, w), s.get(&fr.rows, w));
                    fr.put64(dst, w, taking_part(lanes.permute(&idx), &idx, p));
                }
            }
            Repr(ReprKind::W64(R64::Slot(dst)))
        }
        // Every lane holds the same value and takes part: a shuffle returns it.
        _ => v,
    }
}

/// `r` with 0 in the lanes whose source lane (`idx`) is not among the lanes in `part`.
fn taking_part<T: Lanes>(r: T, idx: &[u8; WARP_SIZE], part: u32) -> T {
    if part == u32::MAX {
        return r;
    }
    let a = r.to_array();
    T::from_array(std::array::from_fn(|l| {
        if part >> (idx[l] & 31) & 1 == 1 {
            a[l]
        } else {
            T::Scalar::default()
        }
    }))
}

macro_rules! shuffle_impl {
    ($t:ident, $kind:ident) => {
        impl sealed::Sealed for $t {}
        impl Shuffle for $t {
            fn repr(self) -> Repr {
                Repr(ReprKind::$kind(self.0))
            }
            fn from_repr(r: Repr) -> $t {
                match r.0 {
                    ReprKind::$kind(v) => $t(v),
                    _ => unreachable!("a shuffle keeps the width of its value"),
                }
            }
        }
    };
}
shuffle_impl!(F32s, W32);
shuffle_impl!(I32s, W32);
shuffle_impl!(U32s, W32);
shuffle_impl!(F64s, W64);
shuffle_impl!(U64s, W64);

impl<'a> Block<'a> {
    /// `__syncwarp(mask)`: a warp runs in lockstep, so this orders nothing in warpsim's own
    /// execution; it is counted, and check mode uses it to judge intra-warp hazards and to
    /// report a `mask` that names threads not executing it.
    #[track_caller]
    pub fn sync_warp(&mut self, mask: Mask) {
        self.sync_warp_at(Site::here(), &[mask.0; MAX_WARPS]);
    }

    /// `__threadfence()`: the block's global accesses before it are ordered before those after
    /// it, as other blocks see them. Memory in warpsim is sequentially consistent, so this
    /// matters to check mode only: a fence followed by an atomic publishes the block's earlier
    /// accesses to every block whose atomic on the same address comes later (the single-pass
    /// reduction: `__threadfence(); if (atomicInc(&count, n) == n - 1) /* read the others' */`).
    #[track_caller]
    pub fn thread_fence(&mut self) {
        self.thread_fence_at(Site::here());
    }

    /// [`Block::thread_fence`] at `site`.
    pub(crate) fn thread_fence_at(&mut self, site: Site) {
        frame::with(|fr| self.count_instr(fr, site));
        if let Some(c) = &mut self.st.check {
            c.on_fence();
        }
    }

    /// `__syncwarp` with each warp's member mask.
    pub(crate) fn sync_warp_at(&mut self, site: Site, masks: &Masks) {
        self.intrinsic(site, masks, "__syncwarp");
        if let Some(c) = &mut self.st.check {
            frame::with(|fr| c.on_sync_warp(&fr.active));
        }
    }

    /// Count an intrinsic and check each warp's member mask.
    fn intrinsic(&mut self, site: Site, masks: &Masks, name: &'static str) {
        frame::with(|fr| self.count_instr(fr, site));
        let (active, live) = frame::with(|fr| (fr.active, fr.live));
        self.with_check(|c, cx| c.member_mask(cx, site, masks, &active, &live, name));
    }

    pub(crate) fn check_width(&self, width: u32) -> u32 {
        if width == 0 || width > 32 || !width.is_power_of_two() {
            let warp = frame::with(|fr| fr.active_warps().next().unwrap_or(0)) as u32;
            fault(Error::InvalidArgument {
                kernel: self.launch.name.clone(),
                block: self.st.idx,
                warp,
                reason: format!("shuffle width {width} is not a power of two between 1 and 32"),
            });
        }
        width
    }

    pub(crate) fn shuffle<V: Shuffle>(
        &mut self,
        site: Site,
        masks: &Masks,
        v: V,
        name: &'static str,
        src: &dyn Fn(&Frame, usize) -> [u8; WARP_SIZE],
    ) -> V {
        self.intrinsic(site, masks, name);
        if self.st.check.is_some() {
            // Which lanes read a lane that does not take part (they get 0).
            let readers: Vec<(usize, u32, u32)> = frame::with(|fr| {
                (0..fr.warps)
                    .filter_map(|w| {
                        let a = fr.active[w];
                        let part = a & masks[w] & fr.exists[w];
                        let idx = src(fr, w);
                        let (mut r, mut from) = (0u32, 0u32);
                        for (l, &s) in idx.iter().enumerate() {
                            if a >> l & 1 == 1 && part >> (s & 31) & 1 == 0 {
                                r |= 1 << l;
                                from |= 1 << (s & 31);
                            }
                        }
                        (r != 0).then_some((w, r, from))
                    })
                    .collect()
            });
            if !readers.is_empty() {
                self.with_check(|c, cx| c.shuffle_source(cx, site, masks, &readers, name));
            }
        }
        frame::with(|fr| V::from_repr(shuffle(fr, masks, v.repr(), src)))
    }

    /// `__shfl_sync(mask, v, src, width)`: each thread reads `v` from lane `src % width` of its
    /// `width`-lane segment. A source lane that is inactive, outside `mask` or past the block's
    /// last thread yields 0, as on an sm_90 GPU (CUDA leaves it undefined).
    #[track_caller]
    pub fn shfl_sync<V: Shuffle>(
        &mut self,
        mask: Mask,
        v: V,
        src: impl Into<U32s>,
        width: u32,
    ) -> V {
        self.shfl_at(
            Site::here(),
            ShflOp::Idx,
            &[mask.0; MAX_WARPS],
            v,
            src.into(),
            width,
        )
    }

    /// `__shfl_up_sync(mask, v, delta, width)`: lane `l` reads lane `l - delta` of its segment;
    /// lanes below `delta` in their segment keep their own value.
    #[track_caller]
    pub fn shfl_up_sync<V: Shuffle>(&mut self, mask: Mask, v: V, delta: u32, width: u32) -> V {
        self.shfl_at(
            Site::here(),
            ShflOp::Up,
            &[mask.0; MAX_WARPS],
            v,
            U32s::splat(delta),
            width,
        )
    }

    /// `__shfl_down_sync(mask, v, delta, width)`: lane `l` reads lane `l + delta` of its
    /// segment; lanes whose source would leave the segment keep their own value.
    #[track_caller]
    pub fn shfl_down_sync<V: Shuffle>(&mut self, mask: Mask, v: V, delta: u32, width: u32) -> V {
        self.shfl_at(
            Site::here(),
            ShflOp::Down,
            &[mask.0; MAX_WARPS],
            v,
            U32s::splat(delta),
            width,
        )
    }

    /// `__shfl_xor_sync(mask, v, lane_mask, width)`: lane `l` reads lane `l ^ lane_mask`; a
    /// source in a later segment gives the lane its own value.
    #[track_caller]
    pub fn shfl_xor_sync<V: Shuffle>(&mut self, mask: Mask, v: V, lane_mask: u32, width: u32) -> V {
        self.shfl_at(
            Site::here(),
            ShflOp::Xor,
            &[mask.0; MAX_WARPS],
            v,
            U32s::splat(lane_mask),
            width,
        )
    }

    /// A shuffle of `op` whose lane operand (source lane, delta or lane mask) is `x`, with
    /// each warp's member mask.
    pub(crate) fn shfl_at<V: Shuffle>(
        &mut self,
        site: Site,
        op: ShflOp,
        masks: &Masks,
        v: V,
        x: U32s,
        width: u32,
    ) -> V {
        let w = self.check_width(width);
        let name = match op {
            ShflOp::Idx => "__shfl_sync",
            ShflOp::Up => "__shfl_up_sync",
            ShflOp::Down => "__shfl_down_sync",
            ShflOp::Xor => "__shfl_xor_sync",
        };
        match x.0.as_uniform() {
            Some(x) => {
                let src: [u8; 32] = std::array::from_fn(|l| op.source(l as u32, x, w) as u8);
                self.shuffle(site, masks, v, name, &|_, _| src)
            }
            None => self.shuffle(site, masks, v, name, &|fr, k| {
                let xs = fr.src32(x.0).get(&fr.rows, k).to_array();
                std::array::from_fn(|l| op.source(l as u32, xs[l], w) as u8)
            }),
        }
    }

    /// A value uniform within each warp: `f(w)` for warp `w` (for the votes).
    fn per_warp(fr: &mut Frame, f: impl Fn(usize) -> u32) -> U32s {
        let dst = fr.alloc(1);
        for w in 0..fr.warps {
            if fr.active[w] != 0 {
                fr.rows[dst.row as usize + w] = U32x32::splat(f(w));
            }
        }
        U32s(R32::Slot(dst))
    }

    /// `__ballot_sync(mask, pred)`: in every thread of a warp, bit `i` set if lane `i` is
    /// active, named in `mask` and has `pred` set.
    #[track_caller]
    pub fn ballot_sync(&mut self, mask: Mask, pred: Pred) -> U32s {
        self.ballot_at(Site::here(), &[mask.0; MAX_WARPS], pred)
    }

    /// `__ballot_sync` with each warp's member mask.
    pub(crate) fn ballot_at(&mut self, site: Site, masks: &Masks, pred: Pred) -> U32s {
        self.intrinsic(site, masks, "__ballot_sync");
        frame::with(|fr| {
            let active = fr.active;
            Self::per_warp(fr, |w| pred.bits[w] & active[w] & masks[w])
        })
    }

    /// A vote: true in every active lane of a warp where `f(pred & active & mask, active &
    /// mask)` holds, with each warp's member mask.
    pub(crate) fn vote(
        &mut self,
        site: Site,
        masks: &Masks,
        pred: Pred,
        name: &'static str,
        f: fn(u32, u32) -> bool,
    ) -> Pred {
        self.intrinsic(site, masks, name);
        frame::with(|fr| {
            Pred::from_masks(std::array::from_fn(|w| {
                let m = fr.active[w] & masks[w];
                if w < fr.warps && f(pred.bits[w] & m, m) {
                    u32::MAX
                } else {
                    0
                }
            }))
        })
    }

    /// `__any_sync(mask, pred)`: in every thread of a warp, whether any active lane named in
    /// `mask` has `pred`.
    #[track_caller]
    pub fn any_sync(&mut self, mask: Mask, pred: Pred) -> Pred {
        self.vote(
            Site::here(),
            &[mask.0; MAX_WARPS],
            pred,
            "__any_sync",
            |p, _| p != 0,
        )
    }

    /// `__all_sync(mask, pred)`: in every thread of a warp, whether every active lane named in
    /// `mask` has `pred`.
    #[track_caller]
    pub fn all_sync(&mut self, mask: Mask, pred: Pred) -> Pred {
        self.vote(
            Site::here(),
            &[mask.0; MAX_WARPS],
            pred,
            "__all_sync",
            |p, m| p == m,
        )
    }

    /// `__activemask()`: the lanes of its warp executing this instruction, in every thread.
    #[track_caller]
    pub fn activemask(&mut self) -> U32s {
        self.activemask_at(Site::here())
    }

    pub(crate) fn activemask_at(&mut self, site: Site) -> U32s {
        frame::with(|fr| {
            self.count_instr(fr, site);
            let active = fr.active;
            Self::per_warp(fr, |w| active[w])
        })
    }

    /// `__match_any_sync(mask, v)`: for each thread, the lanes of its warp (active and in
    /// `mask`) whose `v` equals its own.
    #[track_caller]
    pub fn match_any_sync(&mut self, mask: Mask, v: U32s) -> U32s {
        self.match_any_at(Site::here(), &[mask.0; MAX_WARPS], v)
    }

    /// `__reduce_OP_sync` with each warp's member mask: `op` folds the values of the lanes
    /// that are active and in the mask; every such lane gets the result.
    pub(crate) fn reduce_at(
        &mut self,
        site: Site,
        masks: &Masks,
        v: U32s,
        name: &'static str,
        op: fn(u32, u32) -> u32,
    ) -> U32s {
        self.intrinsic(site, masks, name);
        frame::with(|fr| {
            let s = fr.src32(v.0);
            let active = fr.active;
            let lanes: Vec<[u32; WARP_SIZE]> = (0..fr.warps)
                .map(|w| s.get(&fr.rows, w).to_array())
                .collect();
            Self::per_warp(fr, |w| {
                Mask(active[w] & masks[w])
                    .lanes()
                    .map(|l| lanes[w][l as usize])
                    .reduce(op)
                    .unwrap_or(0)
            })
        })
    }

    /// `__match_any_sync` with each warp's member mask.
    pub(crate) fn match_any_at(&mut self, site: Site, masks: &Masks, v: U32s) -> U32s {
        self.intrinsic(site, masks, "__match_any_sync");
        frame::with(|fr| {
            let s = fr.src32(v.0);
            let dst = fr.alloc(1);
            for (w, &member) in masks.iter().enumerate().take(fr.warps) {
                let m = Mask(fr.active[w] & member);
                if fr.active[w] == 0 {
                    continue;
                }
                let a = s.get(&fr.rows, w).to_array();
                fr.rows[dst.row as usize + w] = U32x32::from_fn(|l| {
                    if !m.contains(l as u32) {
                        return 0;
                    }
                    m.lanes()
                        .filter(|&k| a[k as usize] == a[l])
                        .fold(0, |acc, k| acc | 1 << k)
                });
            }
            U32s(R32::Slot(dst))
        })
    }
}
