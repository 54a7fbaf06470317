//! The only `unsafe` in warpsim: calling a compiled block function.
//!
//! Everything the compiled code touches is handed to it through [`Ctx`]: the buffers (each a
//! pointer and its length in bytes), the block's shared memory, the scratch frame of varying
//! variables, the per-warp live masks and the thread-index tables. The translator
//! (`translate.rs`) emits a bounds check before every access to a buffer (per warp for a
//! contiguous row, per lane otherwise) and addresses the frame, masks and tables only at
//! offsets derived from the block shape it was compiled for, which [`Entry::call`] checks
//! against the sizes given. A failed check returns a status instead of touching memory.

use super::{Ctx, Status};

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
}

impl Entry {
    /// Run one block. The slices must have the sizes the function was compiled for; they are
    /// checked here, once, before the call.
    pub fn call(
        &self,
        ctx: &mut Ctx,
        frame: &mut [u8],
        alive: &mut [u32],
        tables: &[u32],
        bufs: &[super::Buf],
        uniforms: &[u64],
    ) -> Status {
        assert!(frame.len() >= self.frame_bytes, "frame too small");
        assert_eq!(alive.len(), self.warps * 32, "one mask row per warp");
        assert_eq!(
            tables.len(),
            self.warps * 32 * super::TABLES,
            "index tables"
        );
        assert_eq!(bufs.len(), self.bufs, "one entry per buffer slot");
        assert_eq!(
            uniforms.len(),
            self.uniforms,
            "one value per uniform parameter"
        );
        ctx.frame = frame.as_mut_ptr();
        ctx.alive = alive.as_mut_ptr();
        ctx.tables = tables.as_ptr();
        ctx.bufs = bufs.as_ptr();
        ctx.uniforms = uniforms.as_ptr();
        // SAFETY: `addr` is a function the translator emitted with the signature
        // `extern "C" fn(*mut Ctx) -> u32`, in executable memory that is never freed. It reads
        // and writes only: `ctx`'s fields; `frame`, `alive`, `tables`, `bufs` and `uniforms`
        // within the sizes asserted above; each buffer's `len` bytes from its `ptr`, after a
        // bounds check; and it reads the byte at `ctx.fired`, an `AtomicBool` the caller
        // borrows for the call (a plain byte load of an atomic flag, set by another thread). Each `Buf` points at memory that outlives the call: a global
        // allocation (words behind `AtomicU32`, so writes through a shared reference are
        // allowed) or the block's shared-memory arena, borrowed mutably by the caller. The
        // code never unwinds and calls no Rust code.
        let f: extern "C" fn(*mut Ctx) -> u32 = unsafe { std::mem::transmute(self.addr) };
        Status::from(f(ctx))
    }
}
