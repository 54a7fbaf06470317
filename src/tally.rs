//! The thread-local tally of arithmetic instructions.
//!
//! Lane arithmetic (`a + b` on [`crate::F32x32`]) has no handle on the warp that executes it, yet
//! a counting launch must count it as a warp instruction weighted by the active lanes. A block
//! runs entirely on one CPU thread, one warp at a time, so the warp that is running publishes
//! its active mask here whenever it changes, and each operation adds to two thread-local
//! counters that the scheduler collects when the block ends. With counting off the published
//! mask stays 0 and an operation costs one thread-local load and a predictable branch.

use std::cell::Cell;

thread_local! {
    /// The running warp's active mask when counting, 0 otherwise.
    static ACTIVE: Cell<u32> = const { Cell::new(0) };
    /// Warp instructions tallied since the last [`take`].
    static OPS: Cell<u64> = const { Cell::new(0) };
    /// Active lanes summed over those instructions.
    static LANE_OPS: Cell<u64> = const { Cell::new(0) };
}

/// Tally one warp instruction of the running warp.
#[inline(always)]
pub(crate) fn op() {
    let m = ACTIVE.with(Cell::get);
    if m != 0 {
        OPS.with(|o| o.set(o.get() + 1));
        LANE_OPS.with(|l| l.set(l.get() + u64::from(m.count_ones())));
    }
}

/// Publish the running warp's active mask (0 stops tallying).
#[inline(always)]
pub(crate) fn set_active(mask: u32) {
    ACTIVE.with(|a| a.set(mask));
}

/// Take the tallied (warp instructions, thread instructions) and reset them.
pub(crate) fn take() -> (u64, u64) {
    (OPS.with(|o| o.replace(0)), LANE_OPS.with(|l| l.replace(0)))
}
