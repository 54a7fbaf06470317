//! The warp context: what a kernel sees.
//!
//! A kernel is an `async fn` over a [`Warp`]: it runs once per warp, and every value it computes
//! per thread is a 32-lane vector. The warp carries
//!
//! * the **indices** CUDA gives a thread ([`Warp::thread_idx`], [`Warp::block_idx`],
//!   [`Warp::block_dim`], [`Warp::grid_dim`], [`Warp::lane_id`], [`Warp::warp_id`]);
//! * the **active mask**: the lanes executing the current instruction. Lane-varying control flow
//!   is written with [`Warp::if_`], [`Warp::if_else`], [`Warp::while_`] and [`Warp::exit_if`],
//!   which run each side under its mask, skip a side no lane takes, and reconverge afterwards.
//!   Bodies are `Fn` closures: they can read outer values but not assign them, so a value
//!   computed under a mask leaves the construct only as its result, merged per lane;
//! * **barriers**: [`Warp::sync_threads`] (and `_count`, `_and`, `_or`) are `async` and are
//!   awaited at the kernel's top level; a branch body is not `async`, so a barrier cannot be
//!   reached from divergent code. [`Warp::sync_warp`] is immediate: a warp runs in lockstep;
//! * **warp intrinsics** with CUDA semantics: shuffles, votes, `match_any_sync`;
//! * **memory**: [`Warp::load`], [`Warp::store`] and the atomics on [`crate::Global`] and
//!   [`crate::Shared`] buffers, one element index per lane; inactive lanes neither access nor
//!   fault nor count.

use crate::check::WarpCheck;
use crate::error::{AccessKind, Error};
use crate::lanes::{Lanes, Mask, Merge, U32x32, WARP_SIZE};
use crate::launch::{Dim3, LaunchCtx, WarpLanes};
use crate::memory::shared::{BankGeometry, Shared, declaration_error};
use crate::memory::{Access, AtomicBits, AtomicElement, Element, Memory, Target};
use crate::metrics::Counters;
use crate::scheduler::BlockState;
use crate::tally;
use std::task::Poll;

/// The per-lane thread index (`threadIdx`) of a warp's 32 lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThreadIdx {
    /// `threadIdx.x` per lane.
    pub x: U32x32,
    /// `threadIdx.y` per lane.
    pub y: U32x32,
    /// `threadIdx.z` per lane.
    pub z: U32x32,
}

/// One warp of a running block: the context every kernel function receives.
///
/// See the [module documentation](crate::warp) for the model and [`crate::Device::launch`] for a
/// complete example.
pub struct Warp<'a> {
    pub(crate) launch: &'a LaunchCtx,
    pub(crate) block: &'a BlockState,
    lanes: &'a WarpLanes,
    warp_id: u32,
    pub(crate) active: Mask,
    exited: Mask,
    /// Nesting of divergent constructs the warp is inside.
    depth: u32,
    counting: bool,
    pub(crate) counters: Counters,
    /// Static shared arrays this warp has declared so far.
    shared_declared: usize,
    pub(crate) check: Option<Box<WarpCheck>>,
}

/// A read-modify-write atomic: `op(old, v)` per active lane, in lane order; returns the old
/// values.
macro_rules! atomic {
    ($(#[$doc:meta])* $name:ident, $bound:ident, $op:expr) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<M: Memory>(
            &mut self,
            mem: &M,
            idx: U32x32,
            v: <M::Elem as Element>::Lanes,
        ) -> <M::Elem as Element>::Lanes
        where
            M::Elem: $bound,
        {
            let vals = M::Elem::unpack(v);
            self.note_site();
            mem.atomic_lanes(self, idx, &|old, l| $op(old, vals[l]))
        }
    };
}

/// A warp's pending arrival at the block barrier; dropping it withdraws the arrival.
struct Arrival<'b> {
    barrier: &'b crate::scheduler::Barrier,
    warp: u32,
    generation: u64,
    count: u32,
    total: u32,
}

impl Drop for Arrival<'_> {
    fn drop(&mut self) {
        self.barrier
            .withdraw(self.warp, self.generation, self.count, self.total);
    }
}

/// A warp's wait at the block barrier: arrives on the first poll, completes when the
/// barrier's generation moves on. Written by hand rather than as an `async fn` because every
/// warp awaits it at every barrier: one small state machine instead of three nested ones.
struct BarrierWait<'w, 'a, T> {
    warp: &'w mut Warp<'a>,
    pred: Mask,
    arrival: Option<Arrival<'a>>,
    /// The result from (threads with `pred`, threads arrived).
    finish: fn(u32, u32) -> T,
}

impl<'w, 'a, T> BarrierWait<'w, 'a, T> {
    fn new(warp: &'w mut Warp<'a>, pred: Mask, finish: fn(u32, u32) -> T) -> Self {
        BarrierWait {
            warp,
            pred,
            arrival: None,
            finish,
        }
    }
}

impl<T> Future for BarrierWait<'_, '_, T> {
    type Output = T;

    fn poll(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        let w = &mut *this.warp;
        let b: &crate::scheduler::Barrier = &w.block.barrier;
        let generation = match &this.arrival {
            Some(a) => a.generation,
            None => {
                if w.depth > 0 {
                    w.misuse("sync_threads reached inside a divergent branch or loop body; move the barrier to the kernel's top level");
                }
                if w.active.is_empty() {
                    // Every lane has exited: an exited warp does not take part in barriers.
                    return Poll::Ready((this.finish)(0, 0));
                }
                w.issue();
                if w.counting {
                    w.counters.barriers += 1;
                }
                if w.check.is_some() {
                    crate::check::on_barrier(w);
                }
                let (count, total) = ((this.pred & w.active).count(), w.active.count());
                let generation = b.arrive(w.warp_id, count, total);
                // Dropped before the barrier completes, the arrival is taken back.
                this.arrival = Some(Arrival {
                    barrier: b,
                    warp: w.warp_id,
                    generation,
                    count,
                    total,
                });
                generation
            }
        };
        if b.generation.get() == generation {
            return Poll::Pending;
        }
        // The barrier completed: dropping the arrival withdraws nothing.
        this.arrival = None;
        if w.counting {
            tally::set_active(w.active.0);
        }
        if w.check.is_some() {
            crate::check::after_barrier(w, b.exited_at_release.get());
        }
        let (count, total) = b.result.get();
        Poll::Ready((this.finish)(count, total))
    }
}

/// Unwinds the block with `Error`; caught by the scheduler.
pub(crate) struct Fault(pub Error);

impl<'a> Warp<'a> {
    pub(crate) fn new(launch: &'a LaunchCtx, block: &'a BlockState, warp_id: u32) -> Warp<'a> {
        let lanes = &launch.warp_lanes[warp_id as usize];
        Warp {
            launch,
            block,
            lanes,
            warp_id,
            active: lanes.exists,
            exited: Mask::NONE,
            depth: 0,
            counting: launch.counting,
            counters: Counters {
                warps_launched: 1,
                ..Counters::default()
            },
            shared_declared: 0,
            check: launch.check.then(|| Box::new(WarpCheck::default())),
        }
    }

    // ----- indices -------------------------------------------------------------------------

    /// `threadIdx` of each lane.
    #[inline]
    pub fn thread_idx(&self) -> ThreadIdx {
        ThreadIdx {
            x: self.lanes.x,
            y: self.lanes.y,
            z: self.lanes.z,
        }
    }

    /// `blockIdx` (uniform).
    #[inline]
    pub fn block_idx(&self) -> Dim3 {
        self.block.idx.get()
    }

    /// `blockDim` (uniform).
    #[inline]
    pub fn block_dim(&self) -> Dim3 {
        self.launch.block
    }

    /// `gridDim` (uniform).
    #[inline]
    pub fn grid_dim(&self) -> Dim3 {
        self.launch.grid
    }

    /// The lane number of each lane, `0..32` (`threadIdx.x % 32` for 1-D blocks).
    #[inline]
    pub fn lane_id(&self) -> U32x32 {
        U32x32::iota()
    }

    /// This warp's index within its block.
    #[inline]
    pub fn warp_id(&self) -> u32 {
        self.warp_id
    }

    /// Each lane's linear thread index within the block (`x + y*bx + z*bx*by`).
    #[inline]
    pub fn linear_tid(&self) -> U32x32 {
        self.lanes.linear
    }

    /// `blockIdx.x * blockDim.x + threadIdx.x` per lane: the usual 1-D global index.
    #[inline]
    pub fn global_idx_x(&self) -> U32x32 {
        self.lanes.x + self.block_idx().x * self.launch.block.x
    }

    /// `blockIdx.y * blockDim.y + threadIdx.y` per lane.
    #[inline]
    pub fn global_idx_y(&self) -> U32x32 {
        self.lanes.y + self.block_idx().y * self.launch.block.y
    }

    /// The lanes executing now (no instruction; see [`Warp::activemask`] for the intrinsic).
    #[inline]
    pub fn active_mask(&self) -> Mask {
        self.active
    }

    /// The thread index of `lane` (for reports).
    pub(crate) fn thread_of_lane(&self, lane: u32) -> Dim3 {
        let l = lane as usize & 31;
        Dim3::new(
            self.lanes.x.lane(l),
            self.lanes.y.lane(l),
            self.lanes.z.lane(l),
        )
    }

    // ----- bookkeeping -----------------------------------------------------------------------

    /// Count one warp instruction under the active mask.
    #[inline]
    fn issue(&mut self) {
        if self.counting && !self.active.is_empty() {
            self.counters.warp_instructions += 1;
            self.counters.thread_instructions += u64::from(self.active.count());
        }
    }

    #[inline]
    fn set_active(&mut self, m: Mask) {
        self.active = m;
        if self.counting {
            tally::set_active(m.0);
        }
    }

    /// The counters, when this launch counts.
    #[inline]
    pub(crate) fn counters(&mut self) -> Option<&mut Counters> {
        self.counting.then_some(&mut self.counters)
    }

    pub(crate) fn bank_geometry(&self) -> BankGeometry {
        BankGeometry {
            banks: self.launch.profile.shared_banks,
            request_lanes: self.launch.profile.shared_request_lanes,
        }
    }

    /// Stop the block with `e`.
    pub(crate) fn fault(&self, e: Error) -> ! {
        std::panic::panic_any(Fault(e))
    }

    fn misuse(&self, reason: impl Into<String>) -> ! {
        self.fault(Error::BarrierMisuse {
            kernel: self.launch.name.clone(),
            block: self.block_idx(),
            warp: self.warp_id,
            reason: reason.into(),
        })
    }

    /// Start a memory instruction: `None` if no lane is active, else the validated access.
    #[inline(always)]
    pub(crate) fn begin_access(
        &mut self,
        t: &Target<'_>,
        idx: U32x32,
        kind: AccessKind,
    ) -> Option<Access> {
        if self.active.is_empty() {
            return None;
        }
        if self.check.is_some() {
            return self.begin_checked_access(t, idx, kind);
        }
        let a = Access::new(self, t, idx, kind, self.active);
        self.issue();
        Some(a)
    }

    /// Check mode: bad lanes are reported and skipped instead of stopping the block.
    #[cold]
    fn begin_checked_access(
        &mut self,
        t: &Target<'_>,
        idx: U32x32,
        kind: AccessKind,
    ) -> Option<Access> {
        let bad = crate::check::memcheck(self, t, idx, kind);
        self.issue();
        let good = self.active & !bad;
        if good.is_empty() {
            return None;
        }
        let a = Access::new(self, t, idx, kind, good);
        crate::check::on_access(self, t, &a, kind);
        Some(a)
    }

    /// Remove lanes that exited from the warp; tell the block when none is left.
    fn retire(&mut self, lanes: Mask) {
        self.exited |= lanes;
        if (self.lanes.exists & !self.exited).is_empty() {
            self.block.barrier.warp_exited(self.warp_id);
        }
    }

    /// The warp's lanes that exist and have not exited.
    pub(crate) fn live_lanes(&self) -> Mask {
        self.lanes.exists & !self.exited
    }

    /// The warp's lanes that exist (a partial last warp has fewer than 32).
    pub(crate) fn exists_lanes(&self) -> Mask {
        self.lanes.exists
    }

    /// Check mode: remember the kernel source location of the access being made.
    #[inline(always)]
    #[track_caller]
    fn note_site(&mut self) {
        if let Some(c) = self.check.as_mut() {
            c.site = Some(std::panic::Location::caller());
        }
    }

    // ----- predication -----------------------------------------------------------------------

    /// Evaluate a lane-varying branch on `cond`: (taken, not taken) among the active lanes.
    #[inline]
    fn branch(&mut self, cond: Mask) -> (Mask, Mask) {
        let a = self.active;
        let (t, f) = (a & cond, a & !cond);
        if self.counting && !a.is_empty() {
            self.issue();
            self.counters.branches += 1;
            if !t.is_empty() && !f.is_empty() {
                self.counters.divergent_branches += 1;
            }
        }
        (t, f)
    }

    #[inline]
    fn run_under<R>(&mut self, mask: Mask, outer: Mask, body: impl FnOnce(&mut Self) -> R) -> R {
        self.depth += 1;
        self.set_active(mask);
        let r = body(self);
        self.depth -= 1;
        self.set_active(outer & !self.exited);
        r
    }

    /// `if (cond) { then }`: runs `then` for the active lanes where `cond` holds (skipped if
    /// there are none), then reconverges.
    ///
    /// ```
    /// # use warpsim::*;
    /// # let dev = Device::default();
    /// let out = dev.alloc_zeroed::<u32>("out", 32);
    /// dev.launch(&LaunchConfig::new(1, 32), async |w: &mut Warp<'_>| {
    ///     let t = w.thread_idx().x;
    ///     w.if_(t.lt(4), |w| w.store(&out, t, t * 10));
    /// })
    /// .unwrap();
    /// assert_eq!(&out.to_vec()[..6], [0, 10, 20, 30, 0, 0]);
    /// ```
    #[inline]
    pub fn if_(&mut self, cond: Mask, then: impl Fn(&mut Self)) {
        let outer = self.active;
        let (t, _) = self.branch(cond);
        if !t.is_empty() {
            self.run_under(t, outer, then);
        }
    }

    /// `cond ? then : otherwise` with bodies: runs each side for its lanes (a side without lanes
    /// is skipped) and merges the two results per lane.
    ///
    /// ```
    /// # use warpsim::*;
    /// # let dev = Device::default();
    /// let out = dev.alloc_zeroed::<i32>("out", 32);
    /// dev.launch(&LaunchConfig::new(1, 32), async |w: &mut Warp<'_>| {
    ///     let t = w.thread_idx().x;
    ///     let v = w.if_else(t.lt(16), |_| I32x32::splat(1), |_| I32x32::splat(-1));
    ///     w.store(&out, t, v);
    /// })
    /// .unwrap();
    /// assert_eq!(out.to_vec()[15..17], [1, -1]);
    /// ```
    #[inline]
    pub fn if_else<R: Merge>(
        &mut self,
        cond: Mask,
        then: impl Fn(&mut Self) -> R,
        otherwise: impl Fn(&mut Self) -> R,
    ) -> R {
        let outer = self.active;
        let (t, f) = self.branch(cond);
        match (t.is_empty(), f.is_empty()) {
            (false, false) => {
                let a = self.run_under(t, outer, then);
                let b = self.run_under(f, outer, otherwise);
                R::merge(t, a, b)
            }
            (false, true) => self.run_under(t, outer, then),
            (true, false) => self.run_under(f, outer, otherwise),
            (true, true) => R::default(),
        }
    }

    /// A loop whose condition differs per lane: `while (cond(state)) state = body(state);`.
    ///
    /// Each iteration evaluates `cond` (one branch) for the lanes still looping; lanes whose
    /// condition fails leave the loop with their state and wait; `body` runs for the others and
    /// its result becomes their new state. The loop ends when no lane remains, then the warp
    /// reconverges. Returns every lane's final state.
    ///
    /// ```
    /// # use warpsim::*;
    /// # let dev = Device::default();
    /// let out = dev.alloc_zeroed::<u32>("out", 32);
    /// dev.launch(&LaunchConfig::new(1, 32), async |w: &mut Warp<'_>| {
    ///     let t = w.thread_idx().x;
    ///     // Lane t counts to t.
    ///     let n = w.while_(U32x32::ZERO, |_, n| n.lt(t), |_, n| *n + 1);
    ///     w.store(&out, t, n);
    /// })
    /// .unwrap();
    /// assert_eq!(out.to_vec(), (0..32).collect::<Vec<u32>>());
    /// ```
    pub fn while_<S: Merge + Copy>(
        &mut self,
        init: S,
        cond: impl Fn(&mut Self, &S) -> Mask,
        body: impl Fn(&mut Self, &S) -> S,
    ) -> S {
        let outer = self.active;
        let mut state = init;
        self.depth += 1;
        loop {
            let c = cond(self, &state);
            let (go, _) = self.branch(c);
            if go.is_empty() {
                break;
            }
            self.set_active(go);
            let next = body(self, &state);
            state = S::merge(go, next, state);
            self.set_active(go & !self.exited);
        }
        self.depth -= 1;
        self.set_active(outer & !self.exited);
        state
    }

    /// `if (cond) return;` for each lane: the active lanes where `cond` holds leave the kernel
    /// for good (one branch). The rest of the warp carries on; a warp with no lane left counts
    /// as exited at barriers.
    pub fn exit_if(&mut self, cond: Mask) {
        let (t, f) = self.branch(cond);
        if !t.is_empty() {
            self.retire(t);
            self.set_active(f);
        }
    }

    /// `return;` for every active lane (inside a branch body: the lanes that took the branch).
    pub fn exit(&mut self) {
        let a = self.active;
        self.retire(a);
        self.set_active(Mask::NONE);
    }

    // ----- barriers ---------------------------------------------------------------------------

    /// `__syncthreads()`: wait until every warp of the block that has not exited arrives.
    ///
    /// Await it at the kernel's top level. Polled from inside a branch body it returns
    /// [`Error::BarrierMisuse`].
    pub fn sync_threads(&mut self) -> impl Future<Output = ()> {
        BarrierWait::new(self, Mask::NONE, |_, _| ())
    }

    /// `__syncthreads_count(pred)`: a barrier that returns how many threads of the block had
    /// `pred` set.
    pub fn sync_threads_count(&mut self, pred: Mask) -> impl Future<Output = u32> {
        BarrierWait::new(self, pred, |count, _| count)
    }

    /// `__syncthreads_and(pred)`: a barrier that returns whether every thread had `pred` set.
    pub fn sync_threads_and(&mut self, pred: Mask) -> impl Future<Output = bool> {
        BarrierWait::new(self, pred, |count, total| count == total)
    }

    /// `__syncthreads_or(pred)`: a barrier that returns whether any thread had `pred` set.
    pub fn sync_threads_or(&mut self, pred: Mask) -> impl Future<Output = bool> {
        BarrierWait::new(self, pred, |count, _| count > 0)
    }

    /// `__syncwarp(mask)`: a warp runs in lockstep, so this orders nothing in warpsim's own
    /// execution; it is counted, and check mode uses it to judge intra-warp hazards and to
    /// report a `mask` that names lanes not executing it.
    pub fn sync_warp(&mut self, mask: Mask) {
        self.issue();
        if self.check.is_some() {
            crate::check::on_sync_warp(self, mask);
        }
    }

    // ----- warp intrinsics -------------------------------------------------------------------

    fn check_width(&self, width: u32) -> u32 {
        if width == 0 || width > 32 || !width.is_power_of_two() {
            self.fault(Error::InvalidArgument {
                kernel: self.launch.name.clone(),
                block: self.block_idx(),
                warp: self.warp_id,
                reason: format!("shuffle width {width} is not a power of two between 1 and 32"),
            });
        }
        width
    }

    fn intrinsic(&mut self, mask: Mask, name: &'static str) {
        self.issue();
        if self.check.is_some() {
            crate::check::on_member_mask(self, mask, name);
        }
    }

    fn shuffle<V: Lanes>(
        &mut self,
        mask: Mask,
        v: V,
        name: &'static str,
        src: impl Fn(u32) -> u32,
    ) -> V {
        self.intrinsic(mask, name);
        let idx: [u8; WARP_SIZE] = std::array::from_fn(|l| src(l as u32) as u8);
        v.permute(&idx)
    }

    /// `__shfl_sync(mask, v, src, width)`: each lane reads `v` from lane `src % width` of its
    /// `width`-lane segment. A source lane that is inactive yields the value its register holds
    /// (in warpsim every lane computes, so this is deterministic; CUDA leaves it undefined).
    pub fn shfl_sync<V: Lanes>(&mut self, mask: Mask, v: V, src: U32x32, width: u32) -> V {
        let w = self.check_width(width);
        let s = src.to_array();
        self.shuffle(mask, v, "shfl_sync", |l| {
            (l & !(w - 1)) | (s[l as usize] & (w - 1))
        })
    }

    /// `__shfl_up_sync(mask, v, delta, width)`: lane `l` reads lane `l - delta` of its segment;
    /// lanes below `delta` in their segment keep their own value.
    pub fn shfl_up_sync<V: Lanes>(&mut self, mask: Mask, v: V, delta: u32, width: u32) -> V {
        let w = self.check_width(width);
        self.shuffle(mask, v, "shfl_up_sync", |l| {
            if l % w >= delta { l - delta } else { l }
        })
    }

    /// `__shfl_down_sync(mask, v, delta, width)`: lane `l` reads lane `l + delta` of its
    /// segment; lanes whose source would leave the segment keep their own value.
    pub fn shfl_down_sync<V: Lanes>(&mut self, mask: Mask, v: V, delta: u32, width: u32) -> V {
        let w = self.check_width(width);
        self.shuffle(mask, v, "shfl_down_sync", |l| {
            if u64::from(l % w) + u64::from(delta) < u64::from(w) {
                l + delta
            } else {
                l
            }
        })
    }

    /// `__shfl_xor_sync(mask, v, lane_mask, width)`: lane `l` reads lane `l ^ lane_mask`; a
    /// source in a later segment gives the lane its own value.
    pub fn shfl_xor_sync<V: Lanes>(&mut self, mask: Mask, v: V, lane_mask: u32, width: u32) -> V {
        let w = self.check_width(width);
        self.shuffle(mask, v, "shfl_xor_sync", |l| {
            let s = l ^ lane_mask;
            if s / w > l / w { l } else { s }
        })
    }

    /// `__ballot_sync(mask, pred)`: bit `i` set if lane `i` is active, named in `mask` and has
    /// `pred` set.
    pub fn ballot_sync(&mut self, mask: Mask, pred: Mask) -> u32 {
        self.intrinsic(mask, "ballot_sync");
        (pred & self.active & mask).0
    }

    /// `__any_sync(mask, pred)`: whether any active lane named in `mask` has `pred`.
    pub fn any_sync(&mut self, mask: Mask, pred: Mask) -> bool {
        self.intrinsic(mask, "any_sync");
        !(pred & self.active & mask).is_empty()
    }

    /// `__all_sync(mask, pred)`: whether every active lane named in `mask` has `pred`.
    pub fn all_sync(&mut self, mask: Mask, pred: Mask) -> bool {
        self.intrinsic(mask, "all_sync");
        let m = self.active & mask;
        (pred & m) == m
    }

    /// `__activemask()`: the lanes executing this instruction.
    pub fn activemask(&mut self) -> Mask {
        self.issue();
        self.active
    }

    /// `__match_any_sync(mask, v)`: for each lane, the lanes (active and in `mask`) whose `v`
    /// equals its own.
    pub fn match_any_sync(&mut self, mask: Mask, v: U32x32) -> U32x32 {
        self.intrinsic(mask, "match_any_sync");
        let m = self.active & mask;
        let a = v.to_array();
        U32x32::from_fn(|l| {
            if !m.contains(l as u32) {
                return 0;
            }
            m.lanes()
                .filter(|&k| a[k as usize] == a[l])
                .fold(0, |acc, k| acc | 1 << k)
        })
    }

    // ----- memory ------------------------------------------------------------------------------

    /// Load `mem[idx]` for each active lane (inactive lanes get zero).
    #[inline]
    #[track_caller]
    pub fn load<M: Memory>(&mut self, mem: &M, idx: U32x32) -> <M::Elem as Element>::Lanes {
        self.note_site();
        mem.load_lanes(self, idx)
    }

    /// Store `v` to `mem[idx]` for each active lane. Lanes storing to the same element: the
    /// highest lane wins.
    #[inline]
    #[track_caller]
    pub fn store<M: Memory>(&mut self, mem: &M, idx: U32x32, v: <M::Elem as Element>::Lanes) {
        self.note_site();
        mem.store_lanes(self, idx, v)
    }

    atomic!(
        /// `atomicAdd`: returns the old values. Lanes apply in lane order.
        atomic_add, AtomicElement, AtomicElement::add
    );
    atomic!(
        /// `atomicSub`: returns the old values.
        atomic_sub, AtomicElement, AtomicElement::sub
    );
    atomic!(
        /// `atomicMin`: returns the old values.
        atomic_min, AtomicElement, AtomicElement::min
    );
    atomic!(
        /// `atomicMax`: returns the old values.
        atomic_max, AtomicElement, AtomicElement::max
    );
    atomic!(
        /// `atomicExch`: stores `v`, returns the old values.
        atomic_exch, AtomicElement, |_, v| v
    );
    atomic!(
        /// `atomicAnd`: returns the old values.
        atomic_and, AtomicBits, AtomicBits::and
    );
    atomic!(
        /// `atomicOr`: returns the old values.
        atomic_or, AtomicBits, AtomicBits::or
    );
    atomic!(
        /// `atomicXor`: returns the old values.
        atomic_xor, AtomicBits, AtomicBits::xor
    );

    /// `atomicCAS`: where the element equals `compare`, store `v`; returns the old values.
    #[track_caller]
    pub fn atomic_cas<M: Memory>(
        &mut self,
        mem: &M,
        idx: U32x32,
        compare: <M::Elem as Element>::Lanes,
        v: <M::Elem as Element>::Lanes,
    ) -> <M::Elem as Element>::Lanes
    where
        M::Elem: AtomicBits,
    {
        let (cmp, vals) = (M::Elem::unpack(compare), M::Elem::unpack(v));
        self.note_site();
        mem.atomic_lanes(self, idx, &|old, l| {
            if old == cmp[l] { vals[l] } else { old }
        })
    }

    /// Declare a static shared array of `len` elements (`__shared__ T a[len];`).
    ///
    /// Every warp of the block makes the same declarations in the same order and gets the same
    /// arrays; the contents start zeroed. A declaration that does not fit the profile's shared
    /// memory per block, or that differs between warps, stops the launch with
    /// [`Error::SharedMemory`].
    pub fn shared<T: Element>(&mut self, len: usize) -> Shared<'a, T> {
        let k = self.shared_declared;
        self.shared_declared += 1;
        match self.block.arena.declare(k, len, T::SIZE) {
            Ok(offset) => Shared::new(&self.block.arena, offset, len, "__shared__"),
            Err(reason) => self.fault(declaration_error(self, reason)),
        }
    }

    /// The launch's dynamic shared memory (`extern __shared__ T a[];`), as many whole elements
    /// as [`crate::LaunchConfig::dynamic_shared`] bytes hold.
    pub fn dynamic_shared<T: Element>(&self) -> Shared<'a, T> {
        let arena = &self.block.arena;
        Shared::new(
            arena,
            0,
            arena.dynamic_bytes() / T::SIZE as usize,
            "extern __shared__",
        )
    }
}
