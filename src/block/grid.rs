//! The grid barrier of a cooperative launch (`grid.sync()`, [`crate::Block::sync_grid`]).
//!
//! A cooperative launch (`cudaLaunchCooperativeKernel`, [`crate::LaunchConfig::cooperative`])
//! promises that all its blocks are resident at once, so a block may wait for every other.
//! warpsim keeps that promise by running each block of such a launch on a CPU thread of its
//! own; this barrier is where they wait. A block that finishes without reaching a barrier the
//! others wait at would hang a GPU: here the barrier notices when every block still running is
//! waiting and at least one has finished, and the waiters stop with an error naming it. A block
//! that fails (a fault, the watchdog) releases the waiters too: its own error ends the launch.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Why a block cannot pass the grid barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stuck {
    /// Another block failed: its error is the launch's.
    Failed,
    /// Every block still running waits here, and the block with this linear index (the first
    /// of those) finished without reaching the barrier: a GPU would wait forever.
    Finished(u64),
}

/// The panic payload that stops a block waiting at the barrier when another block failed
/// (the launch reports that block's error, not this).
pub(crate) struct Aborted;

/// The barrier every block of a cooperative launch passes at each `grid.sync()`.
#[derive(Debug)]
pub(crate) struct GridBarrier {
    blocks: u64,
    state: Mutex<State>,
    moved: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// Barriers completed so far.
    generation: u64,
    /// Blocks waiting at the current one.
    waiting: u64,
    /// Blocks that finished, and the first of them by linear index.
    finished: u64,
    first_finished: Option<u64>,
    failed: bool,
    /// Once seen, a hang stays the verdict (the waiters that report it then fail too).
    hung: Option<Stuck>,
}

impl State {
    /// Why waiters cannot pass, if they cannot.
    fn stuck(&mut self, blocks: u64) -> Option<Stuck> {
        if self.hung.is_none()
            && !self.failed
            && self.finished > 0
            && self.waiting + self.finished == blocks
        {
            self.hung = Some(Stuck::Finished(self.first_finished.unwrap_or_default()));
        }
        self.hung.or(self.failed.then_some(Stuck::Failed))
    }
}

impl GridBarrier {
    /// A barrier for a launch of `blocks` blocks.
    pub fn new(blocks: u64) -> GridBarrier {
        GridBarrier {
            blocks,
            state: Mutex::new(State::default()),
            moved: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait until every block has arrived; the last to arrive runs `last` first.
    pub fn wait(&self, last: impl FnOnce()) -> Result<(), Stuck> {
        let mut s = self.lock();
        if s.failed {
            return Err(Stuck::Failed);
        }
        s.waiting += 1;
        if s.waiting == self.blocks {
            last();
            s.waiting = 0;
            s.generation += 1;
            self.moved.notify_all();
            return Ok(());
        }
        let generation = s.generation;
        loop {
            if s.generation != generation {
                return Ok(());
            }
            if let Some(stuck) = s.stuck(self.blocks) {
                self.moved.notify_all();
                return Err(stuck);
            }
            s = self.moved.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Block `block` has finished (`failed`: with an error); no barrier waits for it now.
    pub fn depart(&self, block: u64, failed: bool) {
        let mut s = self.lock();
        s.finished += 1;
        s.first_finished = Some(s.first_finished.map_or(block, |b| b.min(block)));
        s.failed |= failed;
        self.moved.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn blocks_pass_together_and_each_sees_the_others_work() {
        let barrier = GridBarrier::new(8);
        let written = AtomicU64::new(0);
        std::thread::scope(|s| {
            for b in 0..8 {
                let (barrier, written) = (&barrier, &written);
                s.spawn(move || {
                    for round in 1..=3 {
                        written.fetch_add(1, Ordering::SeqCst);
                        barrier.wait(|| {}).unwrap();
                        assert!(written.load(Ordering::SeqCst) >= 8 * round);
                        barrier.wait(|| {}).unwrap();
                    }
                    barrier.depart(b, false);
                });
            }
        });
        assert_eq!(written.load(Ordering::SeqCst), 24);
    }

    #[test]
    fn a_block_that_finishes_early_is_named_once_the_rest_wait() {
        let barrier = GridBarrier::new(4);
        let stuck: Vec<_> = std::thread::scope(|s| {
            let waiters: Vec<_> = (0..3)
                .map(|_| s.spawn(|| barrier.wait(|| {})))
                .collect::<Vec<_>>();
            barrier.depart(3, false);
            waiters.into_iter().map(|w| w.join().unwrap()).collect()
        });
        assert_eq!(stuck, vec![Err(Stuck::Finished(3)); 3]);
    }

    #[test]
    fn a_failed_block_releases_the_waiters_and_stops_later_arrivals() {
        let barrier = GridBarrier::new(3);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| barrier.wait(|| {}));
            barrier.depart(2, true);
            assert_eq!(waiter.join().unwrap(), Err(Stuck::Failed));
        });
        assert_eq!(barrier.wait(|| {}), Err(Stuck::Failed));
    }

    #[test]
    fn finishing_after_the_last_barrier_is_no_error() {
        let barrier = GridBarrier::new(2);
        std::thread::scope(|s| {
            let other = s.spawn(|| {
                barrier.wait(|| {}).unwrap();
                barrier.depart(1, false);
            });
            barrier.wait(|| {}).unwrap();
            other.join().unwrap();
            barrier.depart(0, false);
        });
    }
}
