//! The per-block scheduler and the block barrier.
//!
//! A block runs on one CPU thread. Each of its warps is one future (the kernel called on that
//! warp's [`Warp`]); the scheduler polls them in turn with a no-op waker. A warp runs until it
//! waits at `sync_threads` or finishes. The barrier completes when every warp that has not
//! exited has arrived: the last one to arrive releases it and carries on, and the others see the
//! new generation the next time they are polled. If a whole pass over the warps changes nothing
//! (no warp finished, arrived or left, no barrier completed) and warps remain, the block can never
//! finish: that is returned as [`Error::Deadlock`] instead of hanging.
//!
//! The order in which warps are polled is round-robin by default; [`WarpOrder`] can reverse it or
//! shuffle it per pass (seeded), which changes the interleaving of warps between barriers and
//! exposes kernels whose result depends on it. Faults raised inside the block (out-of-bounds
//! accesses, barrier misuse, panics in kernel code) unwind to here and become the block's error.

use crate::error::Error;
use crate::launch::{Dim3, LaunchCtx};
use crate::memory::shared::Arena;
use crate::metrics::Counters;
use crate::tally;
use crate::warp::{Fault, Warp};
use rand::seq::SliceRandom;
use rand::{SeedableRng, rngs::SmallRng};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Waker};

/// The order in which a block's warps are polled (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WarpOrder {
    /// Warp 0, 1, 2, … each pass (the default).
    #[default]
    RoundRobin,
    /// The last warp first each pass.
    Reverse,
    /// A new seeded shuffle each pass; the seed is mixed with the block index, so a block's
    /// schedule does not depend on which CPU thread runs it.
    Random(u64),
    /// As `Random`, and at instruction granularity within a barrier interval: a shared-memory
    /// load of a word another warp stored in the interval may see the word's earlier value, as if
    /// it had run before that store (a seeded choice per load; see
    /// [`crate::memory::shared`]).
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

/// The block barrier: arrivals, exits and the generation that releases waiters.
pub(crate) struct Barrier {
    pub generation: Cell<u64>,
    waiting: Cell<u32>,
    exited: Cell<u32>,
    all: Cell<u32>,
    count: Cell<u32>,
    total: Cell<u32>,
    /// (threads with the predicate, threads) of the last completed barrier.
    pub result: Cell<(u32, u32)>,
    /// Warps that had exited when the last barrier completed (check mode reports them).
    pub exited_at_release: Cell<u32>,
}

impl Barrier {
    fn new() -> Barrier {
        Barrier {
            generation: Cell::new(0),
            waiting: Cell::new(0),
            exited: Cell::new(0),
            all: Cell::new(0),
            count: Cell::new(0),
            total: Cell::new(0),
            result: Cell::new((0, 0)),
            exited_at_release: Cell::new(0),
        }
    }

    fn reset(&self, warps: u32) {
        self.waiting.set(0);
        self.exited.set(0);
        self.all.set(if warps >= 32 {
            u32::MAX
        } else {
            (1 << warps) - 1
        });
        self.count.set(0);
        self.total.set(0);
    }

    /// Warp `warp` arrives with `count` of its `total` threads holding the predicate; returns
    /// the generation it waits to see change.
    pub fn arrive(&self, warp: u32, count: u32, total: u32) -> u64 {
        let generation = self.generation.get();
        self.waiting.set(self.waiting.get() | 1 << warp);
        self.count.set(self.count.get() + count);
        self.total.set(self.total.get() + total);
        self.try_release();
        generation
    }

    /// Warp `warp` no longer waits at the barrier of `generation` (its barrier future was
    /// dropped); nothing to undo if that barrier already completed.
    pub fn withdraw(&self, warp: u32, generation: u64, count: u32, total: u32) {
        if self.generation.get() == generation && self.waiting.get() & 1 << warp != 0 {
            self.waiting.set(self.waiting.get() & !(1 << warp));
            self.count.set(self.count.get() - count);
            self.total.set(self.total.get() - total);
        }
    }

    /// Warp `warp` has no thread left.
    pub fn warp_exited(&self, warp: u32) {
        self.exited.set(self.exited.get() | 1 << warp);
        self.try_release();
    }

    fn try_release(&self) {
        let waiting = self.waiting.get();
        if waiting != 0 && waiting | self.exited.get() == self.all.get() {
            self.result.set((self.count.get(), self.total.get()));
            self.exited_at_release.set(self.exited.get());
            self.count.set(0);
            self.total.set(0);
            self.waiting.set(0);
            self.generation.set(self.generation.get() + 1);
        }
    }

    fn stamp(&self) -> (u64, u32, u32) {
        (self.generation.get(), self.waiting.get(), self.exited.get())
    }
}

/// What a block needs besides its warps; one per worker, reused from block to block.
pub(crate) struct BlockState {
    pub idx: Cell<Dim3>,
    pub barrier: Barrier,
    pub arena: Arena,
    /// Check-mode record of the block's shared-memory accesses.
    pub check: RefCell<crate::check::BlockCheck>,
}

impl BlockState {
    pub fn new(ctx: &LaunchCtx) -> BlockState {
        BlockState {
            idx: Cell::new(Dim3::default()),
            barrier: Barrier::new(),
            arena: Arena::new(
                ctx.shared_limit,
                ctx.dynamic_shared as usize,
                matches!(ctx.warp_order, WarpOrder::Interleaved(_)),
            ),
            check: RefCell::new(crate::check::BlockCheck::default()),
        }
    }
}

thread_local! {
    /// Set while a block runs on this thread: panics there are reported, not printed.
    static IN_BLOCK: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic inside a block happened.
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keep panics inside blocks (which become [`Error`]s) off stderr; others print as before.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_BLOCK.with(Cell::get) {
                PANIC_AT.with(|p| *p.borrow_mut() = info.location().map(ToString::to_string));
            } else {
                previous(info);
            }
        }));
    });
}

/// Counters of the blocks one worker ran.
#[derive(Default)]
pub(crate) struct Totals {
    pub counters: Counters,
    /// Divergent branches by warp index within the block.
    pub divergent_by_warp: Vec<u64>,
}

impl Totals {
    pub fn merge(mut self, other: Totals) -> Totals {
        self.counters += &other.counters;
        if self.divergent_by_warp.len() < other.divergent_by_warp.len() {
            self.divergent_by_warp
                .resize(other.divergent_by_warp.len(), 0);
        }
        for (a, b) in self
            .divergent_by_warp
            .iter_mut()
            .zip(&other.divergent_by_warp)
        {
            *a += b;
        }
        self
    }
}

/// Run block `idx` to completion, adding its counters to `acc`. `warps` is scratch space
/// reused from block to block.
pub(crate) fn run_block<'a, F>(
    ctx: &'a LaunchCtx,
    st: &'a BlockState,
    kernel: &F,
    idx: Dim3,
    warps: &mut Vec<Warp<'a>>,
    acc: &mut Totals,
) -> Result<(), Error>
where
    F: AsyncFn(&mut Warp<'_>),
{
    install_panic_hook();
    st.idx.set(idx);
    st.arena.reset(match ctx.warp_order {
        WarpOrder::Interleaved(seed) => seed.rotate_left(17) ^ block_seed(idx),
        _ => 0,
    });
    st.barrier.reset(ctx.warps_per_block);
    if ctx.check {
        st.check.borrow_mut().reset();
    }
    IN_BLOCK.with(|b| b.set(true));
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        warps.clear();
        warps.extend((0..ctx.warps_per_block).map(|i| Warp::new(ctx, st, i)));
        let mut initial = [0u32; 32];
        for (m, w) in initial.iter_mut().zip(warps.iter()) {
            *m = w.active.0;
        }
        let result = {
            // One pinned stack slot per possible warp (a block has at most 32): no heap
            // allocation per block.
            let mut slots = warps.iter_mut();
            macro_rules! pinned {
                ($name:ident; $($f:ident)*) => {
                    $(let $f = std::pin::pin!(slots.next().map(|w| kernel(w)));)*
                    let mut $name = [$($f),*];
                };
            }
            pinned!(futures; f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15
                f16 f17 f18 f19 f20 f21 f22 f23 f24 f25 f26 f27 f28 f29 f30 f31);
            poll_block(
                ctx,
                st,
                &mut futures[..ctx.warps_per_block as usize],
                &initial,
            )
        };
        if ctx.counting {
            acc.divergent_by_warp.resize(warps.len(), 0);
            for (w, d) in warps.iter().zip(&mut acc.divergent_by_warp) {
                acc.counters += &w.counters;
                *d += w.counters.divergent_branches;
            }
        }
        if ctx.check {
            crate::check::end_block(ctx, st);
        }
        result
    }));
    IN_BLOCK.with(|b| b.set(false));
    if ctx.counting {
        let (ops, lane_ops) = tally::take();
        acc.counters.warp_instructions += ops;
        acc.counters.thread_instructions += lane_ops;
        tally::set_active(0);
    }
    match outcome {
        Ok(r) => r,
        Err(payload) => Err(match payload.downcast::<Fault>() {
            Ok(fault) => fault.0,
            Err(other) => Error::KernelPanic {
                kernel: ctx.name.clone(),
                block: idx,
                message: other
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| other.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(non-string panic payload)".to_string()),
                location: PANIC_AT.with(|p| p.borrow_mut().take()),
            },
        }),
    }
}

fn poll_block<Fut: Future<Output = ()>>(
    ctx: &LaunchCtx,
    st: &BlockState,
    futures: &mut [Pin<&mut Option<Fut>>],
    initial: &[u32; 32],
) -> Result<(), Error> {
    let n = futures.len();
    let mut cx = Context::from_waker(Waker::noop());
    let mut order: [usize; 32] = std::array::from_fn(|i| i);
    let order = &mut order[..n];
    let mut rng = match ctx.warp_order {
        WarpOrder::Random(seed) | WarpOrder::Interleaved(seed) => {
            Some(SmallRng::seed_from_u64(seed ^ block_seed(st.idx.get())))
        }
        WarpOrder::Reverse => {
            order.reverse();
            None
        }
        WarpOrder::RoundRobin => None,
    };
    let (mut done, mut started) = (0u32, 0u32);
    let all = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    while done != all {
        if let Some(rng) = rng.as_mut() {
            order.shuffle(rng);
        }
        let before = st.barrier.stamp();
        let mut finished = false;
        for &i in order.iter() {
            let bit = 1u32 << i;
            if done & bit != 0 {
                continue;
            }
            if started & bit == 0 {
                started |= bit;
                if ctx.counting {
                    tally::set_active(initial[i]);
                }
            }
            let ready = match futures[i].as_mut().as_pin_mut() {
                Some(f) => f.poll(&mut cx).is_ready(),
                None => true,
            };
            if ready {
                futures[i].set(None);
                done |= bit;
                finished = true;
                st.barrier.warp_exited(i as u32);
            }
        }
        if done != all && !finished && st.barrier.stamp() == before {
            let (_, waiting, exited) = before;
            let warps =
                |f: &dyn Fn(u32) -> bool| (0..n as u32).filter(|&i| f(1 << i)).collect::<Vec<_>>();
            return Err(Error::Deadlock {
                kernel: ctx.name.clone(),
                block: st.idx.get(),
                waiting: warps(&|b| waiting & b != 0),
                blocked: warps(&|b| done & b == 0 && (waiting | exited) & b == 0),
                exited: warps(&|b| exited & b != 0),
            });
        }
    }
    Ok(())
}

fn block_seed(b: Dim3) -> u64 {
    (u64::from(b.x) | u64::from(b.y) << 32) ^ u64::from(b.z).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}
