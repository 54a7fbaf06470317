//! The only `unsafe` in warpsim: calling a compiled block function.
//!
//! Everything the compiled code touches is handed to it through [`Ctx`]: the buffers (each a
//! pointer and its length in bytes), the block's shared memory, the scratch frame of varying
//! variables, the per-warp live masks and the thread-index tables. The translator
//! (`translate.rs`) emits a bounds check before every access to a buffer (per warp for a
//! contiguous row, per lane otherwise) and addresses the frame, masks and tables only at
//! offsets derived from the block shape it was compiled for, which [`Entry::call`] checks
//! against the sizes given. A failed check returns a status instead of touching memory.
//!
//! Counting code also adds to three count arrays, reads and writes the memo (its counts, entries
//! and head) and calls the counting helpers ([`super::count::access`] and the first wave's
//! samplers: safe Rust that never panics) with the [`super::count::Sink`] handed to
//! [`Entry::call`] and pointers to 32 lane offsets and to its initialised call words on its own
//! stack.

use super::count::{self, Sink};
use super::{Ctx, Status};

/// Where counting code counts: the arrays it adds to, and the sink its helpers add to.
pub(crate) struct Counts<'a, 'b> {
    pub pending: &'a mut count::Pending,
    pub sink: &'a mut Sink<'b>,
}

/// A compiled block function: `extern "C" fn(*mut Ctx) -> u32`, with the sizes it was
/// compiled for.
#[derive(Clone, Copy)]
pub(crate) struct Entry {
    /// The function's address in memory owned by the (leaked) JIT module: never freed.
    pub addr: usize,
    /// Bytes of the frame the function addresses.
    pub frame_bytes: usize,
    /// Warps of the block shape (each mask and table row is 32 `u32`s per warp).
    pub warps: usize,
    /// Buffer slots the function reads from `Ctx::bufs`.
    pub bufs: usize,
    /// Uniform values the function reads from `Ctx::uniforms`.
    pub uniforms: usize,
    /// `u64`s of the counts the function adds to (0: it does not count).
    pub tally_words: usize,
    /// `u64`s of its memo.
    pub memo_words: usize,
    /// `u64`s of its runs' counts.
    pub run_words: usize,
    /// Entries of [`Ctx::outside`] (one per site it records a fault or an access outside at).
    pub sites: usize,
}

impl Entry {
    /// Run one block. The slices must have the sizes the function was compiled for; they are
    /// checked here, once, before the call. Counting code needs `counts`.
    #[allow(clippy::too_many_arguments)]
    pub fn call(
        &self,
        ctx: &mut Ctx,
        (frame, alive, outside): (&mut [u8], &mut [u32], &mut [super::FaultSite]),
        tables: &[u32],
        bufs: &[super::Buf],
        uniforms: &[u64],
        counts: Option<&mut Counts<'_, '_>>,
    ) -> Status {
        assert!(frame.len() >= self.frame_bytes, "frame too small");
        assert_eq!(alive.len(), self.warps * 32, "one mask row per warp");
        assert_eq!(
            tables.len(),
            self.warps * 32 * super::TABLES,
            "index tables"
        );
        assert_eq!(bufs.len(), self.bufs, "one entry per buffer slot");
        assert_eq!(outside.len(), self.sites, "one entry per site");
        assert_eq!(
            uniforms.len(),
            self.uniforms,
            "one value per uniform parameter"
        );
        if self.tally_words > 0 {
            let c = counts.expect("counting code needs somewhere to count");
            let p = &mut *c.pending;
            assert_eq!(p.tally.len(), self.tally_words, "counts");
            assert_eq!(p.run_counts.len(), self.run_words, "runs");
            assert_eq!(p.steps.len(), count::step_words(self.warps), "step record");
            assert_eq!(p.div.len(), count::div_words(self.warps), "steps");
            assert_eq!(p.memo.len(), self.memo_words, "memo");
            ctx.tally = p.tally.as_mut_ptr();
            ctx.runs = p.run_counts.as_mut_ptr();
            ctx.steps = p.steps.as_mut_ptr();
            ctx.div = p.div.as_mut_ptr();
            ctx.memo = p.memo.as_mut_ptr();
            ctx.sink = std::ptr::from_mut::<Sink<'_>>(c.sink) as usize;
        }
        ctx.frame = frame.as_mut_ptr();
        ctx.outside = outside.as_mut_ptr();
        ctx.alive = alive.as_mut_ptr();
        ctx.tables = tables.as_ptr();
        ctx.bufs = bufs.as_ptr();
        ctx.uniforms = uniforms.as_ptr();
        // SAFETY: `addr` is a function the translator emitted with the signature `extern "C"
        // fn(*mut Ctx) -> u32`, in executable memory that is never freed. It reads and writes only:
        // `ctx`'s fields; `frame`, `alive`, `tables`, `bufs` and `uniforms` (and, when it counts,
        // `tally`, `runs`, `steps`, `div` and `memo`; `outside`, at the index of a site it
        // records) within the sizes asserted above; each buffer's `len` bytes from its `ptr`,
        // and the `slack` bytes before and after them, after a bounds check (a store that waits
        // in the queue, on the function's own stack, is checked before it is queued and
        // written at most once, later); and it reads the byte at `ctx.fired`, an `AtomicBool` the caller borrows
        // for the call (a plain byte load of an atomic flag, set by another thread). Each `Buf`
        // points at memory that outlives the call: a global allocation (words behind `AtomicU32`,
        // so writes through a shared reference are allowed; its `slack` never exceeds the
        // allocation's padding, words of the same allocation) or the block's shared-memory arena,
        // borrowed mutably by the caller. The code never unwinds. The Rust code it calls is a
        // `helper!` (`extern "win64"` on x86-64, else `extern "C"`: the convention the translator
        // declares for it, with its signature) and never panics: `count::access` and
        // `count::sample`, passing `ctx.sink` (the sink borrowed mutably above, which nothing
        // else uses during the call; the arrays above are not reachable from it), a pointer to 32
        // `i64`s and (`access`) to `count::CALL_WORDS` `u64`s in its own stack frame;
        // `print::print`, passing `ctx.prints` (the `Prints` `Compiled::run` borrows mutably for
        // the call and reaches by nothing else) and a pointer to `print::MAX_ARGS` rows of 32
        // `u64`s in its own stack frame; the math library's `library::*_lanes`, passing pointers
        // to rows of 32 lanes in its own stack frame; `texture::fetch_lanes`, passing
        // `ctx.textures` (the `Textures` `Compiled::run` borrows for the call, only read) and
        // pointers to 3 and 4 rows of 32 `u32`s in its own stack frame. Every pointer handed over
        // points at memory written before the call.
        let f: extern "C" fn(*mut Ctx) -> u32 = unsafe { std::mem::transmute(self.addr) };
        Status::from(f(ctx))
    }
}
