//! The block context: what a kernel sees, and the executor behind it.
//!
//! A kernel is a plain function over a [`Block`]: it runs once per block, and every per-thread
//! value it computes is block-wide ([`crate::values`]): one 32-lane vector per warp. Each
//! operation runs for all the block's warps at once, warp after warp, skipping warps with no
//! active lane, so the warps of a block advance in lockstep, one instruction at a time. Then:
//!
//! * **predication** is per warp: every warp has an active mask. Lane-varying control flow is
//!   written with [`Block::if_`], [`Block::if_else`], [`Block::while_`] and [`Block::exit_if`],
//!   which run each side under its masks, skip a side no lane of any warp takes, and reconverge
//!   afterwards. Bodies are `Fn` closures: they can read outer values but not assign them, so a
//!   value computed under a mask leaves the construct only as its result, merged per lane. A
//!   branch is counted, and can diverge, per warp, exactly as a GPU counts it;
//! * a **barrier** ([`Block::sync_threads`]) is a program point, not a suspension: every warp
//!   is there already. It must be reached by every thread that has not exited; reaching it in a
//!   branch that only part of the block took is an error ([`Error::BarrierMisuse`]);
//! * **warp intrinsics** (shuffles, votes, `sync_warp`) act within each warp, with CUDA
//!   semantics;
//! * **memory** ([`Block::load`], [`Block::store`], the atomics) takes one element index per
//!   thread; only active lanes access, fault and count. Each warp's part of an access is one
//!   request, coalesced and banked as on a GPU (see [`crate::memory`]).
//!
//! Uniform control flow (the same for every thread of the block: `while stride > 0`) is plain
//! Rust; so is everything computed from [`Block::block_idx`], [`Block::block_dim`] and the
//! kernel's scalar arguments. Warp-uniform control flow that depends on the warp
//! (`if warp_id == 0`) is a branch on a block-wide value that is uniform within each warp, so it
//! never diverges.
//!
//! Counting and checking observe the executor: when a launch counts ([`crate::Mode::Count`]),
//! every operation reports to the counting observer ([`crate::count`]); in check mode also to
//! the checker ([`crate::check`]). In fast mode neither exists, and an operation costs one test
//! of an empty option.
//!
//! Warps of a block execute each operation in order (round-robin) unless the launch asks for
//! another [`WarpOrder`]: reversed, or a seeded permutation per operation, which changes which
//! warp's store wins when warps store to one address and, with
//! [`WarpOrder::Interleaved`], lets a shared-memory load see a word as it was before another
//! warp's store in the same barrier interval (see [`crate::memory::shared`]).

mod access;
pub(crate) mod grid;
mod intrinsics;
mod prefetch;

pub(crate) use access::AtomicVal;
pub(crate) use intrinsics::ShflOp;
pub use intrinsics::Shuffle;

use crate::check::{BlockCheck, Ctx as CheckCtx, LaunchCheck};
use crate::count::Count;
use crate::error::Error;
use crate::geometry::{BlockShape, Component, Dim3};
use crate::memory::Element;
use crate::memory::shared::{Arena, BankGeometry, Shared};
use crate::profile::Profile;
use crate::site::Site;
use crate::values::frame::{self, Frame, MAX_WARPS, Masks, R32};
use crate::values::{Merge, Pred, U32s, compact};
use rand::seq::SliceRandom;
use rand::{SeedableRng, rngs::SmallRng};

/// The order in which a block's warps execute each operation (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WarpOrder {
    /// Warp 0, 1, 2, … (the default).
    #[default]
    RoundRobin,
    /// The last warp first.
    Reverse,
    /// A new seeded permutation for every operation; the seed is mixed with the block index, so
    /// a block's schedule does not depend on which CPU thread runs it.
    Random(u64),
    /// As `Random`, and a shared-memory load of a word another warp stored in the same barrier
    /// interval may see the word's earlier value, as if it had run before that store (a seeded
    /// choice per load; see [`crate::memory::shared`]).
    Interleaved(u64),
}

/// The order in which a launch's blocks run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockOrder {
    /// In parallel on the device's CPU threads (the default).
    #[default]
    Parallel,
    /// One after another in linear order, on the calling thread.
    Sequential,
    /// One after another, last block first.
    Reverse,
    /// One after another in a seeded random order.
    Random(u64),
}

/// What every block of a launch shares.
pub(crate) struct LaunchCtx {
    pub name: String,
    pub grid: Dim3,
    pub shape: BlockShape,
    pub profile: Profile,
    pub counting: bool,
    pub lines: bool,
    pub checking: bool,
    pub check: Option<LaunchCheck>,
    pub warp_order: WarpOrder,
    pub dynamic_shared: u32,
    pub shared_limit: usize,
    /// Blocks in the first wave: as many as the profile's SMs hold at once.
    pub wave_blocks: u64,
    /// A cooperative launch's grid barrier (every block runs at once).
    pub grid_barrier: Option<grid::GridBarrier>,
    /// Source positions of [`crate::site::Site::Table`] sites (a CUDA kernel's).
    pub sites: crate::site::SiteTable,
}

impl LaunchCtx {
    /// Check mode, a cooperative launch whose blocks have all reached a `grid.sync()` or their
    /// end: compare their global accesses since the last one
    /// ([`crate::check::LaunchCheck::merge_phase`]).
    pub fn merge_check_phase(&self) {
        if let Some(l) = &self.check {
            l.merge_phase(|b| CheckCtx {
                kernel: &self.name,
                block: Dim3::from_linear(u64::from(b), self.grid),
                grid: self.grid,
                shape: &self.shape,
                interval: 0,
                launch: l,
                sites: &self.sites,
            });
        }
    }

    pub fn bank_geometry(&self) -> BankGeometry {
        BankGeometry {
            banks: self.profile.shared_banks,
            request_lanes: self.profile.shared_request_lanes,
        }
    }
}

/// What a block needs besides its values; one per worker, reused from block to block.
pub(crate) struct BlockState {
    pub idx: Dim3,
    pub arena: Arena,
    pub count: Option<Count>,
    pub check: Option<BlockCheck>,
    /// Barriers passed so far: the number of the current barrier interval, from 1.
    pub interval: u64,
    /// Per-operation warp permutations ([`WarpOrder::Random`] and `Interleaved`).
    rng: Option<SmallRng>,
    order: [u8; MAX_WARPS],
    /// Check mode, the CUDA interpreter: the current access's element indices per warp where
    /// one does not fit 32 bits (a pointer before its buffer, a 64-bit index), for the report
    /// (the access itself sees them as an index past every buffer); empty otherwise.
    pub wide: Vec<[i64; crate::lanes::WARP_SIZE]>,
    /// Where the global loads last started, to prefetch their next rows.
    strides: prefetch::Strides,
}

impl BlockState {
    pub fn new(ctx: &LaunchCtx) -> BlockState {
        BlockState {
            idx: Dim3::default(),
            arena: Arena::new(
                ctx.shared_limit,
                ctx.dynamic_shared as usize,
                matches!(ctx.warp_order, WarpOrder::Interleaved(_)),
            ),
            count: ctx.counting.then(|| {
                let warps = ctx.grid.count().saturating_mul(ctx.shape.warps as u64);
                Count::new(
                    ctx.shape.warps,
                    warps <= crate::metrics::Samples::MAX_MAP_WARPS,
                    ctx.wave_blocks,
                )
            }),
            check: ctx.checking.then(BlockCheck::default),
            interval: 1,
            rng: None,
            order: std::array::from_fn(|i| i as u8),
            wide: Vec::new(),
            strides: prefetch::Strides::new(),
        }
    }

    /// Prepare for block `idx`.
    pub fn reset(&mut self, ctx: &LaunchCtx, idx: Dim3) {
        self.idx = idx;
        self.interval = 1;
        let seed = block_seed(idx);
        self.arena.reset(match ctx.warp_order {
            WarpOrder::Interleaved(s) => s.rotate_left(17) ^ seed,
            _ => 0,
        });
        let n = ctx.shape.warps;
        self.order = std::array::from_fn(|i| i as u8);
        self.rng = None;
        match ctx.warp_order {
            WarpOrder::RoundRobin => {}
            WarpOrder::Reverse => self.order[..n].reverse(),
            WarpOrder::Random(s) | WarpOrder::Interleaved(s) => {
                self.rng = Some(SmallRng::seed_from_u64(s ^ seed));
            }
        }
        if let Some(c) = &mut self.check {
            c.reset();
        }
    }

    /// The order of warps for the next operation.
    pub fn warp_order(&mut self, warps: usize) -> &[u8] {
        if let Some(rng) = &mut self.rng {
            self.order[..warps].shuffle(rng);
        }
        &self.order[..warps]
    }
}

/// Rows per warp a `while_` loop may allocate before its temporaries are freed.
const COMPACT_ROWS_PER_WARP: usize = 32;

/// A block's seed for schedules: its index mixed, so that it does not depend on the CPU thread.
fn block_seed(b: Dim3) -> u64 {
    (u64::from(b.x) | u64::from(b.y) << 32) ^ u64::from(b.z).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Unwinds the block with `Error`; caught by the launch.
pub(crate) struct Fault(pub Error);

/// Stop the block with `e`.
pub(crate) fn fault(e: Error) -> ! {
    std::panic::panic_any(Fault(e))
}

/// The threads of one block of a running kernel: the context every kernel function receives.
///
/// See the [module documentation](crate::block) for the model and [`crate::Device::launch`] for
/// a complete example.
pub struct Block<'a> {
    pub(crate) launch: &'a LaunchCtx,
    pub(crate) st: &'a mut BlockState,
    /// Nesting of divergent constructs.
    depth: u32,
}

/// Per-warp `a & b`.
#[inline]
fn and(a: &Masks, b: &Masks) -> Masks {
    std::array::from_fn(|w| a[w] & b[w])
}

/// Whether any warp has a lane in `m`.
#[inline]
fn any(m: &Masks) -> bool {
    m.iter().any(|&b| b != 0)
}

impl<'a> Block<'a> {
    pub(crate) fn new(launch: &'a LaunchCtx, st: &'a mut BlockState) -> Block<'a> {
        Block {
            launch,
            st,
            depth: 0,
        }
    }

    // ----- indices -------------------------------------------------------------------------

    /// `threadIdx` of every thread.
    #[inline]
    pub fn thread_idx(&self) -> ThreadIdx {
        let c = |c: &Component, k: usize| match c {
            Component::Affine(r) => U32s(*r),
            // Shapes without an affine form keep their index rows at the bottom of the frame.
            Component::Rows(_) => U32s(frame::with(|fr| fr.index_rows(k))),
        };
        let s = &self.launch.shape;
        ThreadIdx {
            x: c(&s.x, 0),
            y: c(&s.y, 1),
            z: c(&s.z, 2),
        }
    }

    /// `blockIdx` (uniform).
    #[inline]
    pub fn block_idx(&self) -> Dim3 {
        self.st.idx
    }

    /// `blockDim` (uniform).
    #[inline]
    pub fn block_dim(&self) -> Dim3 {
        self.launch.shape.block
    }

    /// `gridDim` (uniform).
    #[inline]
    pub fn grid_dim(&self) -> Dim3 {
        self.launch.grid
    }

    /// `warpSize`.
    pub const WARP_SIZE: u32 = 32;

    /// Each thread's lane, `0..32` (`threadIdx.x % 32` for 1-D blocks; costs no instruction).
    #[inline]
    pub fn lane_id(&self) -> U32s {
        U32s(R32::Aff { a: 0, b: 0, c: 1 })
    }

    /// Each thread's warp within the block (`threadIdx.x / 32` for 1-D blocks; costs no
    /// instruction). Uniform within each warp: a branch on it never diverges.
    #[inline]
    pub fn warp_id(&self) -> U32s {
        U32s(R32::Aff { a: 0, b: 1, c: 0 })
    }

    /// Warps in the block.
    #[inline]
    pub fn warps(&self) -> u32 {
        self.launch.shape.warps as u32
    }

    /// Each thread's linear index within the block (`x + y*bx + z*bx*by`; no instruction).
    #[inline]
    pub fn linear_tid(&self) -> U32s {
        U32s(R32::Aff { a: 0, b: 32, c: 1 })
    }

    /// `blockIdx.x * blockDim.x + threadIdx.x` per thread: the usual 1-D global index (one
    /// instruction, the multiply-add).
    #[track_caller]
    #[inline]
    pub fn global_idx_x(&self) -> U32s {
        self.thread_idx().x + self.block_idx().x * self.launch.shape.block.x
    }

    /// `blockIdx.y * blockDim.y + threadIdx.y` per thread (one instruction).
    #[track_caller]
    #[inline]
    pub fn global_idx_y(&self) -> U32s {
        self.thread_idx().y + self.block_idx().y * self.launch.shape.block.y
    }

    /// The threads executing now (no instruction; see [`Block::activemask`] for the intrinsic).
    #[inline]
    pub fn active(&self) -> Pred {
        Pred::from_masks(frame::with(|fr| fr.active))
    }

    /// The kernel's name.
    pub fn kernel_name(&self) -> &str {
        &self.launch.name
    }

    // ----- bookkeeping -----------------------------------------------------------------------

    /// Count one instruction for every warp with an active lane (barrier-free intrinsics,
    /// memory instructions).
    #[inline(always)]
    pub(crate) fn count_instr(&mut self, fr: &mut Frame, site: Site) {
        if let Some(c) = &mut self.st.count {
            let s = fr.site_index(site);
            c.instr(s, &fr.active, fr.warps);
        }
    }

    /// Count one instruction for the executing lanes, then stop counting until
    /// [`Block::resume_counting`] gets the returned counters back: a warp that the interpreter
    /// serves in several passes still issues the instruction once.
    pub(crate) fn count_once_and_pause(&mut self, site: Site) -> Option<Count> {
        frame::with(|fr| self.count_instr(fr, site));
        self.st.count.take()
    }

    /// Count again, after [`Block::count_once_and_pause`].
    pub(crate) fn resume_counting(&mut self, count: Option<Count>) {
        self.st.count = count;
    }

    /// A lane-varying branch on `cond`: the taken lanes, counted.
    #[inline]
    pub(crate) fn branch(&mut self, fr: &mut Frame, site: Site, cond: &Pred) -> Masks {
        let taken = fr.taken(&cond.bits).0;
        if let Some(c) = &mut self.st.count {
            let s = fr.site_index(site);
            c.branch(s, site, &fr.active, &taken, fr.warps);
        }
        taken
    }

    /// Run `f` on the checker, with the running block's context (check mode only).
    #[inline]
    pub(crate) fn with_check(&mut self, f: impl FnOnce(&mut BlockCheck, &CheckCtx<'_>)) {
        let launch = self.launch;
        if let (Some(c), Some(l)) = (&mut self.st.check, &launch.check) {
            let cx = CheckCtx {
                kernel: &launch.name,
                block: self.st.idx,
                grid: launch.grid,
                shape: &launch.shape,
                interval: self.st.interval,
                launch: l,
                sites: &launch.sites,
            };
            f(c, &cx);
        }
    }

    /// The thread index of `lane` of warp `warp`.
    pub(crate) fn thread_of(&self, warp: u32, lane: u32) -> Dim3 {
        self.launch.shape.thread(warp, lane)
    }

    fn misuse(&self, site: Site, warp: u32, reason: impl Into<String>) -> ! {
        fault(Error::BarrierMisuse {
            kernel: self.launch.name.clone(),
            block: self.st.idx,
            warp,
            reason: reason.into(),
            location: self.launch.sites.position(site).map(|p| p.to_string()),
        })
    }

    /// Run `body` with the active masks `m`, then restore `outer` less the lanes that exited.
    #[inline]
    fn under<R>(&mut self, m: &Masks, outer: &Masks, body: impl FnOnce(&mut Self) -> R) -> R {
        frame::with(|fr| fr.set_active(m));
        self.depth += 1;
        let r = body(self);
        self.depth -= 1;
        frame::with(|fr| fr.reconverge(outer));
        r
    }

    /// Free everything the construct that started at `mark` allocated, except its result,
    /// which moves down to `mark`.
    fn keep<R: Merge>(mark: usize, mut r: R) -> R {
        frame::with(|fr| compact(fr, mark, &mut r));
        r
    }

    // ----- predication -----------------------------------------------------------------------

    /// `if (cond) { then }`: runs `then` for the active threads where `cond` holds (skipped if
    /// there are none), then reconverges. One branch per warp with an active lane.
    ///
    /// ```
    /// # use warpsim::*;
    /// # let dev = Device::default();
    /// let out = dev.alloc_zeroed::<u32>("out", 32);
    /// dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
    ///     let t = b.thread_idx().x;
    ///     b.if_(t.lt(4), |b| b.store(&out, t, t * 10));
    /// })
    /// .unwrap();
    /// assert_eq!(&out.to_vec()[..6], [0, 10, 20, 30, 0, 0]);
    /// ```
    #[track_caller]
    #[inline]
    pub fn if_(&mut self, cond: Pred, then: impl Fn(&mut Block<'a>)) {
        let site = Site::here();
        let entered = frame::with(|fr| {
            let (taken, any) = fr.taken(&cond.bits);
            if let Some(c) = &mut self.st.count {
                let s = fr.site_index(site);
                c.branch(s, site, &fr.active, &taken, fr.warps);
            }
            (any != 0).then(|| {
                let saved = (fr.active, fr.mark());
                fr.set_active(&taken);
                saved
            })
        });
        if let Some((outer, mark)) = entered {
            self.depth += 1;
            then(self);
            self.depth -= 1;
            frame::with(|fr| {
                fr.reconverge(&outer);
                fr.release(mark);
            });
        }
    }

    /// `cond ? then : otherwise` with bodies: runs each side for its threads (a side without
    /// threads is skipped) and merges the two results per lane.
    ///
    /// ```
    /// # use warpsim::*;
    /// # let dev = Device::default();
    /// let out = dev.alloc_zeroed::<i32>("out", 32);
    /// dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
    ///     let t = b.thread_idx().x;
    ///     let v = b.if_else(t.lt(16), |_| I32s::splat(1), |_| I32s::splat(-1));
    ///     b.store(&out, t, v);
    /// })
    /// .unwrap();
    /// assert_eq!(out.to_vec()[15..17], [1, -1]);
    /// ```
    #[track_caller]
    #[inline]
    pub fn if_else<R: Merge>(
        &mut self,
        cond: Pred,
        then: impl Fn(&mut Block<'a>) -> R,
        otherwise: impl Fn(&mut Block<'a>) -> R,
    ) -> R {
        let site = Site::here();
        let (outer, taken, mark) = frame::with(|fr| {
            let taken = self.branch(fr, site, &cond);
            (fr.active, taken, fr.mark())
        });
        let not_taken = std::array::from_fn(|w| outer[w] & !taken[w]);
        let (t, f) = (any(&taken), any(&not_taken));
        let r = match (t, f) {
            (true, false) => self.under(&taken, &outer, then),
            (false, true) => self.under(&not_taken, &outer, otherwise),
            (false, false) => R::default(),
            (true, true) => {
                let a = self.under(&taken, &outer, then);
                let b = self.under(&not_taken, &outer, otherwise);
                R::merge(&Pred::from_masks(taken), a, b)
            }
        };
        Self::keep(mark, r)
    }

    /// A loop whose condition differs per thread: `while (cond(state)) state = body(state);`.
    ///
    /// Each iteration evaluates `cond` (one branch per warp) for the threads still looping;
    /// threads whose condition fails leave the loop with their state and wait; `body` runs for
    /// the others and its result becomes their new state. The loop ends when no thread remains,
    /// then the block reconverges. Returns every thread's final state.
    ///
    /// ```
    /// # use warpsim::*;
    /// # let dev = Device::default();
    /// let out = dev.alloc_zeroed::<u32>("out", 32);
    /// dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
    ///     let t = b.thread_idx().x;
    ///     // Thread t counts to t.
    ///     let n = b.while_(U32s::ZERO, |_, n| n.lt(t), |_, n| *n + 1);
    ///     b.store(&out, t, n);
    /// })
    /// .unwrap();
    /// assert_eq!(out.to_vec(), (0..32).collect::<Vec<u32>>());
    /// ```
    #[track_caller]
    pub fn while_<S: Merge>(
        &mut self,
        init: S,
        cond: impl Fn(&mut Block<'a>, &S) -> Pred,
        body: impl Fn(&mut Block<'a>, &S) -> S,
    ) -> S {
        let site = Site::here();
        let (outer, base) = frame::with(|fr| (fr.active, fr.mark()));
        let mut state = init;
        // Whether a thread has left the loop: until one has, the body's result is every
        // looping thread's new state and no merge is needed.
        let mut left = false;
        self.depth += 1;
        loop {
            let c = cond(self, &state);
            let go = frame::with(|fr| {
                let go = self.branch(fr, site, &c);
                left |= go != fr.active;
                // What earlier iterations allocated and the state no longer holds is freed
                // now and then, not every iteration: the state's rows move down when they do.
                if fr.mark() - base > COMPACT_ROWS_PER_WARP * fr.warps {
                    compact(fr, base, &mut state);
                }
                fr.set_active(&go);
                go
            });
            if !any(&go) {
                break;
            }
            let next = body(self, &state);
            self.next_iteration();
            state = if left {
                // Threads that left keep their state: merge under the loop's entry masks.
                let go = frame::with(|fr| {
                    let go = and(&go, &fr.live);
                    fr.reconverge(&outer);
                    go
                });
                let merged = S::merge(&Pred::from_masks(go), next, state);
                frame::with(|fr| fr.set_active(&go));
                merged
            } else {
                next
            };
        }
        self.depth -= 1;
        frame::with(|fr| {
            fr.reconverge(&outer);
            compact(fr, base, &mut state);
        });
        state
    }

    /// A loop's iteration ended and the active threads go round again: their warps' batches of
    /// loads end there ([`crate::Counters::gld_batches`]; the iterations of a loop that is not
    /// unrolled run one after another).
    pub(crate) fn next_iteration(&mut self) {
        if let Some(c) = &mut self.st.count {
            frame::with(|fr| c.end_batches(&fr.active, fr.warps));
        }
    }

    /// `if (cond) return;` per thread: the active threads where `cond` holds leave the kernel
    /// for good (one branch per warp). The rest carry on; exited threads do not take part in
    /// barriers.
    #[track_caller]
    pub fn exit_if(&mut self, cond: Pred) {
        let site = Site::here();
        frame::with(|fr| {
            let gone = self.branch(fr, site, &cond);
            if any(&gone) {
                fr.exit(&gone);
            }
        });
    }

    /// `return;` for every active thread (inside a branch body: the threads that took it).
    pub fn exit(&mut self) {
        frame::with(|fr| {
            let gone = fr.active;
            fr.exit(&gone);
        });
    }

    // ----- barriers ---------------------------------------------------------------------------

    /// `__syncthreads()`: every thread of the block that has not exited must reach it.
    ///
    /// In lockstep every warp is here already, so the barrier orders nothing in warpsim's own
    /// execution; it is counted, it starts a new barrier interval for check mode's race
    /// detection, and reaching it while only part of the block executes (in a branch some
    /// threads did not take) stops the launch with [`Error::BarrierMisuse`].
    #[track_caller]
    pub fn sync_threads(&mut self) {
        self.barrier(Site::here(), None, &[0; MAX_WARPS]);
    }

    /// `__syncthreads_count(pred)`: a barrier that returns how many threads of the block had
    /// `pred` set (uniform: plain Rust).
    #[track_caller]
    pub fn sync_threads_count(&mut self, pred: Pred) -> u32 {
        self.barrier(Site::here(), Some(&pred), &[0; MAX_WARPS]).0
    }

    /// `__syncthreads_and(pred)`: a barrier that returns whether every thread had `pred` set.
    #[track_caller]
    pub fn sync_threads_and(&mut self, pred: Pred) -> bool {
        let (count, total) = self.barrier(Site::here(), Some(&pred), &[0; MAX_WARPS]);
        count == total
    }

    /// `__syncthreads_or(pred)`: a barrier that returns whether any thread had `pred` set.
    #[track_caller]
    pub fn sync_threads_or(&mut self, pred: Pred) -> bool {
        self.barrier(Site::here(), Some(&pred), &[0; MAX_WARPS]).0 > 0
    }

    /// `grid.sync()` (cooperative groups' `this_grid().sync()`): a barrier for every thread
    /// of the launch, after which each block sees what every other wrote before it.
    ///
    /// Only in a cooperative launch ([`crate::LaunchConfig::cooperative`]), whose blocks all run
    /// at once, each on a CPU thread of its own. Elsewhere, inside a divergent branch, or where
    /// a GPU would hang (another block finished without reaching it), it stops the launch with
    /// [`Error::BarrierMisuse`].
    #[track_caller]
    pub fn sync_grid(&mut self) {
        self.sync_grid_at(Site::here());
    }

    /// [`Block::sync_grid`] at `site`.
    pub(crate) fn sync_grid_at(&mut self, site: Site) {
        self.barrier(site, None, &[0; MAX_WARPS]);
        let launch = self.launch;
        let Some(barrier) = &launch.grid_barrier else {
            self.misuse(
                site,
                0,
                "grid.sync() in a launch that is not cooperative: only a cooperative launch \
                 (cudaLaunchCooperativeKernel, LaunchConfig::cooperative) has every block \
                 resident at once; on a GPU this one would hang or fail",
            )
        };
        if let (Some(c), Some(l)) = (&mut self.st.check, &launch.check) {
            c.on_grid_sync(l, self.st.idx.linear_in(launch.grid));
        }
        match barrier.wait(|| launch.merge_check_phase()) {
            Ok(()) => {}
            // Another block failed; its error is the launch's.
            Err(grid::Stuck::Failed) => std::panic::resume_unwind(Box::new(grid::Aborted)),
            Err(grid::Stuck::Finished(b)) => self.misuse(
                site,
                0,
                format!(
                    "grid.sync() waits for block {}, which finished without reaching it (every \
                     other block is waiting): on a GPU the launch would hang; every block must \
                     reach each grid.sync()",
                    Dim3::from_linear(b, launch.grid)
                ),
            ),
        }
    }

    /// The barrier: (threads with `pred`, threads arrived). Threads in `finishing` will exit
    /// without reaching another barrier: like exited ones, the barrier does not wait for them.
    pub(crate) fn barrier(
        &mut self,
        site: Site,
        pred: Option<&Pred>,
        finishing: &Masks,
    ) -> (u32, u32) {
        let (active, live, diverged, result) = frame::with(|fr| {
            let n = fr.warps;
            let live: Masks = std::array::from_fn(|w| fr.live[w] & !finishing[w]);
            let diverged = (0..n).find(|&w| fr.active[w] != live[w]);
            if diverged.is_none()
                && let Some(c) = &mut self.st.count
            {
                let s = fr.site_index(site);
                c.barrier(s, &fr.active, n);
            }
            let result = pred.map_or((0, 0), |p| {
                (0..n).fold((0, 0), |(c, t), w| {
                    let a = fr.active[w];
                    (c + (p.bits[w] & a).count_ones(), t + a.count_ones())
                })
            });
            (fr.active, live, diverged, result)
        });
        if let Some(w) = diverged {
            self.misuse(
                site,
                w as u32,
                format!(
                    "__syncthreads() reached while only part of the block executes (lanes \
                     {:#010x} of warp {w} are in another branch or loop iteration); a barrier \
                     must be reached by every thread that has not exited: move it out of the \
                     divergent branch",
                    live[w] & !active[w]
                ),
            );
        }
        // Threads that exited take no part (compute-sanitizer's synccheck agrees on an H200).
        self.st.interval += 1;
        result
    }

    // ----- shared memory ------------------------------------------------------------------------

    /// Declare a static shared array of `len` elements (`__shared__ T a[len];`).
    ///
    /// Arrays are laid out in the order the block declares them; the contents start zeroed. An
    /// array that does not fit the profile's shared memory per block stops the launch with
    /// [`Error::SharedMemory`].
    pub fn shared<T: Element>(&mut self, len: usize) -> Shared<T> {
        match self.st.arena.declare(len, T::SIZE) {
            Ok(offset) => Shared::new(offset, len, "__shared__"),
            Err(reason) => fault(Error::SharedMemory {
                kernel: self.launch.name.clone(),
                block: self.st.idx,
                reason,
            }),
        }
    }

    /// The launch's dynamic shared memory (`extern __shared__ T a[];`), as many whole elements
    /// as [`crate::LaunchConfig::dynamic_shared`] bytes hold.
    pub fn dynamic_shared<T: Element>(&self) -> Shared<T> {
        Shared::new(
            0,
            self.st.arena.dynamic_bytes() / T::SIZE as usize,
            "extern __shared__",
        )
    }
}

/// `threadIdx`: one block-wide value per dimension.
#[derive(Clone, Copy, Debug)]
pub struct ThreadIdx {
    /// `threadIdx.x` per thread.
    pub x: U32s,
    /// `threadIdx.y` per thread.
    pub y: U32s,
    /// `threadIdx.z` per thread.
    pub z: U32s,
}
