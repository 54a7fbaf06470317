//! Which loops threads leave for good as far as barriers go: once a thread is out of one, it
//! reaches no barrier before the kernel ends.
//!
//! Since Volta a block's barrier waits for the threads that have not exited. A loop with
//! `__syncthreads()` in its body that threads leave after different numbers of iterations
//! (Barnes–Hut's tree building: `while (i < n) { ...; __syncthreads(); }`, then the kernel's
//! end) runs on the GPU when nothing after the loop reaches a barrier: the threads that left
//! run on to their exit and each barrier inside waits for those still looping. warpsim runs a
//! block in lockstep, the threads that left waiting at the loop's end, so at a barrier inside
//! a loop flagged here they count as exited (their code after the loop runs later, which is
//! one of the orders the GPU allows: nothing orders it against the barrier). A barrier that
//! part of the block reaches anywhere else stays misuse: on a GPU it pairs with another
//! barrier instruction or hangs.

use crate::cuda::ir::Stmt;

/// Set every loop's `barrier_free_after` flag in `body`, a kernel's statements.
pub(crate) fn analyze(body: &mut [Stmt]) {
    walk(body, false);
}

/// Flag the loops in `body`, after which a barrier can be reached when `after` holds.
fn walk(body: &mut [Stmt], after: bool) {
    // Whether a barrier can be reached after the statement at hand, walking backwards.
    let mut tail = after;
    for s in body.iter_mut().rev() {
        let reaches = has_barrier(s);
        match s {
            Stmt::Loop {
                body,
                step,
                barrier_free_after,
                ..
            } => {
                *barrier_free_after = !tail;
                // Inside, the next iteration comes after each statement.
                let inside = tail || reaches;
                walk(body, inside);
                walk(step, inside);
            }
            Stmt::If { then, els, .. } => {
                walk(then, tail);
                walk(els, tail);
            }
            Stmt::Inline { body } => walk(body, tail),
            _ => {}
        }
        tail |= reaches;
    }
}

/// Whether `s` is or contains a block-wide barrier.
fn has_barrier(s: &Stmt) -> bool {
    matches!(s, Stmt::Sync { .. }) || s.children().iter().any(|l| l.iter().any(has_barrier))
}
