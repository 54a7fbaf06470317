//! Tier 2: a lowered kernel compiled to native SIMD code with Cranelift.
//!
//! # The model
//!
//! A block runs as a sequence of **warp regions**: the statements between two barriers, run
//! warp by warp (CUDA orders nothing between the warps of a block between barriers), each
//! warp a 32-lane value held as eight 128-bit vectors (sixteen for 64-bit types) in
//! registers. Inside a region, divergence is the interpreter's: a mask per warp, a varying
//! `if` runs each side under its lanes, `break`/`continue`/`return` take lanes out until their
//! loop, iteration or call ends, and a loop ends when none of its lanes is left; an assignment
//! changes only the executing lanes. Where code generation can tell that every lane of a whole
//! warp executes (a region's start, uniform loops and `break`s, a varying `if` whose sides
//! both rejoin), the mask is a constant there and its tests, merges and per-lane stores drop
//! out. A varying `if` on a comparison of values whose lanes step evenly (`if (t < s)`, a
//! bounds check) is first decided for the warp from its lanes 0 and 31: a warp whose lanes
//! agree takes it as a uniform branch (`translate/agree.rs`). Statements that contain a
//! `__syncthreads()` are block level: uniform `if`s and loops become plain control flow around
//! the regions. An `if` with a barrier whose condition depends on the thread (`if (amLast)`,
//! read from shared memory) is decided at run time: a region counts it per warp and gathers
//! the lanes that take each side; the block then runs the side all its threads took, or, taken
//! by part of the block with a barrier on the side's own path, stops where the interpreter
//! reports the barrier misused. A loop with a barrier whose exit test depends on the thread
//! (`k < 1 + box[bx].nn`, read from memory) is a block-level loop whose exits are decided so,
//! where the threads that stay are sure to reach a barrier before the loop's end (then threads
//! that disagree are the interpreter's fault too); where nothing follows the loop, a `break`
//! ends its threads instead, as a `return` would. An inlined call with a barrier is planned as part of the block;
//! `return`s after its last barrier (`return s[0];`) run in a region of their own that keeps
//! them to the call.
//!
//! Two loops run in an order of their own, each a schedule CUDA allows and each measured:
//! * A uniform loop that accesses global memory, stores in no row known to be strided, and
//!   carries no per-thread value from one iteration to the next runs **iteration by
//!   iteration** across the block (block level, each iteration a region): a tile's rows
//!   (`for (j = 0; j < 32; j += 8) … in[(y + j) * width + x]`) are then touched in order, as
//!   a GPU's warps in step touch them, not each warp's rows 8 apart (the padded transpose at
//!   4096²: 29 → 13 ms).
//! * A varying loop that the whole warp enters, whose only exit is its own test, runs **while
//!   every lane stays**: those iterations know the mask is full, merge nothing and
//!   keep no mask, and a test comparing an affine index with a uniform bound (`i < n`) is
//!   decided on lane 0 (an access at `x[i]` is then checked against `n` once for the loop,
//!   lane by lane where that fails); at the first iteration that lets a lane go, the warp
//!   continues in the loop's general code right after the test.
//!
//! Variables: a uniform variable is one scalar for the block (each warp computes it, as each
//! warp would on a GPU; the block keeps the value of a warp that is still live at the region's
//! end); a varying one lives in registers inside a region and in a frame row per warp between
//! regions, except a varying integer whose lanes are a known step apart, kept as its lane 0
//! (its other lanes made only where a vector of them is needed). Memory: every access is checked against its buffer (a slot in [`Ctx::bufs`]: a
//! global allocation, a static shared array, the dynamic shared memory), once per warp for a
//! row at a fixed step (one vector access per chunk when the elements are consecutive; a
//! global store only when every lane executes), lane by lane otherwise. A row is known from
//! the index's lane steps, or, for a 64-bit index (`in[(size_t)y * n + x]`, whose lanes a
//! 32-bit wrap-around could scatter), told at run time from its lanes. A warp's global store
//! at a larger step, to a buffer the kernel only writes and no other buffer of the launch
//! overlaps, is checked where it stands and then waits in a queue of the block (up to four)
//! until the warp's part of the region ends; the queue is written lane by lane, each thread's
//! stores together, as PoCL runs a work-item's body (`translate/queue.rs` says why nothing can
//! tell the difference; the naive transpose runs twice as fast). A failed check stops
//! the block with [`Status::Fault`]; the launch then re-runs that block on the interpreter,
//! which reports the fault with its full location (or, should the re-run not fault, the
//! launch reports the access the compiled code saw, in the same words).
//!
//! Outputs are the interpreter's for every kernel without a race between the warps of a
//! block (the tiers order warps differently between barriers, as CUDA allows):
//! `tests/tiers.rs` runs every kernel of the repository on both, `tests/tiers_random.rs`
//! random structured ones.
//!
//! What it compiles: fast and counting mode (check mode is the interpreter's; counting code
//! adds up exactly what the interpreter counts, per line too: [`count`]), the default warp
//! order, and the IR the documents'
//! kernels and most real ones use — integer and floating-point arithmetic with C's rules,
//! comparisons, conversions, loads and stores, divergent `if`s and loops with `break`,
//! `continue` and `return`, inlined calls, plain barriers, shuffles, votes (under any member
//! mask: one per block, per warp or per group of lanes), atomics,
//! per-thread arrays (in the frame, a row per element and warp: `translate/local.rs`), the C
//! math library (`expf`, `logf`, `sinf`, `tanhf`, `erff`, `powf`, `atan2f`, `fmodf`, …: a
//! helper computes each lane with the interpreter's own function, [`crate::cuda::ir::library`]),
//! `printf` (a helper keeps the executing lanes' arguments, the launch formats them:
//! [`print`](mod@print)), texture fetches (a helper samples each lane with the interpreter's
//! function: [`texture`](mod@texture)). Anything else (`ilogbf` and `frexpf`'s exponent, a `printf` of more than
//! [`print::MAX_ARGS`] arguments, `__syncthreads_count`, a barrier under a loop that threads
//! may leave apart otherwise, or only deeper inside a branch that depends on the thread, pointers that choose their
//! buffer at run time, per-thread arrays over 16 MiB a block) is refused by `compile` with the reason, and the launch runs on the
//! interpreter. Compiled code is cached per kernel, block shape and mode for the life of the
//! process and never freed. `WARPSIM_JIT_DUMP=1` prints each kernel's machine code on stderr
//! as it is compiled; `WARPSIM_JIT_VERIFY=1` runs Cranelift's IR verifier on it first (always
//! in debug builds).

/// `helper! { fn … }`: a Rust function the compiled code calls. On x86-64 it takes the Windows
/// convention (`extern "win64"`, which the translator calls it by: `translate::HELPER_CONV`),
/// where `xmm6`–`xmm15` are callee-saved: vectors live across a call on a cold path (a memo
/// miss's) may stay in those registers, where under System V, which saves none, the code
/// generator spills every one of them around the call, in the hot path too. It must not
/// panic: a panic cannot unwind through compiled frames.
macro_rules! helper {
    ($(#[$meta:meta])* fn $name:ident $($rest:tt)*) => {
        $(#[$meta])*
        #[cfg(target_arch = "x86_64")]
        pub(crate) extern "win64" fn $name $($rest)*
        $(#[$meta])*
        #[cfg(not(target_arch = "x86_64"))]
        pub(crate) extern "C" fn $name $($rest)*
    };
}

pub(crate) mod count;
#[allow(unsafe_code)]
mod enter;
mod library;
pub(crate) mod print;
pub(crate) mod texture;
mod translate;

use crate::cuda::ir::{Kernel, Site};
use std::sync::{Arc, Mutex};

pub(crate) use enter::Entry;

/// Per warp, the index tables the compiled code reads: `threadIdx.x`, `.y`, `.z` and the
/// linear thread index, each 32 `u32`s per warp.
pub(crate) const TABLES: usize = 4;

/// A buffer as compiled code sees it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Buf {
    /// The first byte's address (0 for a pointer into no buffer: every access faults).
    pub ptr: usize,
    /// Bytes accessible from `ptr`.
    pub len: u64,
    /// The device address of its first byte, what pointer comparisons and casts to integers
    /// read (shared memory's in its window, [`crate::cuda::ir::SHARED_WINDOW`]).
    pub address: u64,
    /// Bytes before `ptr` and after its `len` that an access may reach, noted in
    /// [`Ctx::outside`] rather than faulting: an allocation's padding, in a launch that
    /// tolerates accesses a little outside a buffer (0: every such access faults).
    pub slack: u64,
}

impl Buf {
    /// A pointer into no buffer.
    pub const NONE: Buf = Buf {
        ptr: 0,
        len: 0,
        address: 0,
        slack: 0,
    };
}

/// What a checked access does: load, store or atomic, and its size in bytes.
pub(crate) type Access = (crate::error::AccessKind, u32);

/// What a faulting access was: where, which lane, which buffer slot, which byte offset.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FaultSite {
    /// Index into [`Compiled::sites`].
    pub site: u32,
    /// The warp.
    pub warp: u32,
    /// The lane.
    pub lane: u32,
    /// The buffer slot.
    pub slot: u32,
    /// The byte offset from the buffer's start.
    pub byte: i64,
}

/// The block context compiled code reads (layout fixed: the translator addresses its fields).
#[repr(C)]
pub(crate) struct Ctx {
    pub bufs: *const Buf,
    pub frame: *mut u8,
    pub alive: *mut u32,
    pub tables: *const u32,
    pub uniforms: *const u64,
    pub block_idx: [u32; 3],
    pub grid_dim: [u32; 3],
    /// The address of the launch's watchdog flag (a byte, nonzero once the time is up).
    pub fired: usize,
    pub fault: FaultSite,
    /// One entry per site ([`Compiled::sites`]): the first access of the block at that site
    /// that went outside its buffer within the buffer's [`Buf::slack`] (`site` is the index
    /// plus 1 once set; 0: none).
    pub outside: *mut FaultSite,
    /// Nonzero once the block set an entry of `outside`.
    pub outside_any: u32,
    /// Counting code only ([`count::Pending`]): the counts per site ([`count::SITE_FIELDS`]
    /// each), the block's step record ([`count::step_words`]), the divergent branches by step
    /// ([`count::div_words`]), the memo ([`count::memo_words`]), the [`count::Sink`] the
    /// helpers are called with, and the block's linear index.
    pub tally: *mut u64,
    pub runs: *mut u64,
    pub steps: *mut u64,
    pub div: *mut u64,
    pub memo: *mut u64,
    pub sink: usize,
    pub linear: u64,
    /// Counting code only: [`count::Pending::unit_later`] for this block (0 or 1).
    pub unit_later: u8,
    /// The block's [`print::Prints`] (code without `printf` never reads it).
    pub prints: usize,
    /// The launch's [`texture::Textures`] (code without a texture fetch never reads it).
    pub textures: usize,
}

/// How a compiled block ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Every thread finished.
    Done,
    /// An access failed its check, or a thread trapped: [`Ctx::fault`] says where.
    Fault,
    /// A loop saw the watchdog's flag: [`Ctx::fault`] names the loop.
    Timeout,
}

impl From<u32> for Status {
    fn from(s: u32) -> Status {
        match s {
            0 => Status::Done,
            2 => Status::Timeout,
            _ => Status::Fault,
        }
    }
}

/// A kernel compiled for one block shape.
pub(crate) struct Compiled {
    entry: Entry,
    /// Index tables ([`TABLES`] rows per warp).
    tables: Vec<u32>,
    /// The initial live masks (threads that exist), per warp.
    exists: Vec<u32>,
    /// Source sites of the checked accesses (with what they access), traps and loops, by
    /// [`FaultSite::site`].
    pub sites: Vec<(Site, Option<Access>)>,
    /// Counting code only: the sites it counts at, by counting site (none: it counts
    /// nothing).
    pub count_sites: Vec<Site>,
    /// Counting code only: its memory instructions, by the index it calls
    /// [`count::access`] with.
    pub accesses: Vec<count::CountedAccess>,
    /// Counting code only: whether it counts per line.
    pub lines: bool,
    /// Counting code only: its runs of instructions under one mask, by the index it counts
    /// them at.
    pub runs: Arc<[count::Run]>,
    /// Milliseconds the translation and code generation took.
    pub compile_ms: f64,
    /// The frame's bytes of per-thread arrays (zeroed before each block).
    pub locals: std::ops::Range<usize>,
    /// Its `printf`s, by the id [`print::print`] is called with: the format and the
    /// arguments' types.
    pub printfs: Vec<(String, Vec<crate::cuda::ir::Scalar>)>,
}

impl Compiled {
    /// Run block `block_idx` of a grid of `grid_dim`: `bufs` per buffer slot, `uniforms` per
    /// value the launch binds ([`crate::cuda::ir::Kernel::param_vars`]); loops stop once
    /// `fired` is set. Counting code counts into the pending counts (made by
    /// [`Compiled::pending`]) and the sink (both of which it needs; other code ignores them);
    /// `printf`s go to `prints`; texture fetches sample `textures`.
    pub fn run(
        &self,
        (block_idx, grid_dim): ([u32; 3], [u32; 3]),
        bufs: &[Buf],
        uniforms: &[u64],
        fired: &std::sync::atomic::AtomicBool,
        counting: Option<(&mut count::Sink<'_>, &mut count::Pending)>,
        (prints, textures): (&mut print::Prints, &texture::Textures),
    ) -> (Status, FaultSite, Vec<FaultSite>) {
        /// Per CPU thread: the frame, the live masks, the accesses outside by site.
        type Scratch = (Vec<u8>, Vec<u32>, Vec<FaultSite>);
        thread_local! {
            static SCRATCH: std::cell::RefCell<Scratch> = const {
                std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new()))
            };
        }
        SCRATCH.with(|f| {
            let mut f = f.borrow_mut();
            let (frame, alive, outside) = &mut *f;
            outside.clear();
            outside.resize(self.sites.len(), FaultSite::default());
            if frame.len() < self.entry.frame_bytes {
                frame.resize(self.entry.frame_bytes, 0);
            }
            // Per-thread arrays start zeroed, as the interpreter starts them.
            frame[self.locals.clone()].fill(0);
            alive.clear();
            alive.extend_from_slice(&self.exists);
            let counting = counting.filter(|_| self.entry.tally_words > 0);
            let mut ctx = Ctx {
                bufs: std::ptr::null(),
                frame: std::ptr::null_mut(),
                alive: std::ptr::null_mut(),
                tables: std::ptr::null(),
                uniforms: std::ptr::null(),
                block_idx,
                grid_dim,
                fired: fired.as_ptr() as usize,
                fault: FaultSite::default(),
                outside: std::ptr::null_mut(),
                outside_any: 0,
                tally: std::ptr::null_mut(),
                runs: std::ptr::null_mut(),
                steps: std::ptr::null_mut(),
                div: std::ptr::null_mut(),
                memo: std::ptr::null_mut(),
                sink: 0,
                unit_later: 0,
                prints: {
                    prints.reset(self.entry.warps);
                    std::ptr::from_mut(prints) as usize
                },
                textures: std::ptr::from_ref(textures) as usize,
                linear: u64::from(block_idx[0])
                    + u64::from(grid_dim[0])
                        * (u64::from(block_idx[1])
                            + u64::from(grid_dim[1]) * u64::from(block_idx[2])),
            };
            let mut counts = counting.map(|(sink, pending)| {
                pending.begin_block(sink);
                ctx.unit_later = u8::from(pending.unit_later(ctx.linear));
                enter::Counts { pending, sink }
            });
            let status = self.entry.call(
                &mut ctx,
                (frame, alive, outside),
                &self.tables,
                bufs,
                uniforms,
                counts.as_mut(),
            );
            if let Some(c) = counts {
                c.pending
                    .end_block((status == Status::Done).then_some(&mut *c.sink));
            }
            let seen = if ctx.outside_any == 0 {
                Vec::new()
            } else {
                outside
                    .iter()
                    .filter(|o| o.site != 0)
                    .map(|o| FaultSite {
                        site: o.site - 1,
                        ..*o
                    })
                    .collect()
            };
            (status, ctx.fault, seen)
        })
    }

    /// Nothing counted yet by this code, at `sites` (per counting site, the counter's site
    /// index and the site), on buffer slots `slots`.
    pub fn pending(
        &self,
        sites: Vec<(usize, crate::site::Site)>,
        slots: &[count::SlotTarget<'_>],
    ) -> count::Pending {
        count::Pending::new(
            (sites, self.lines),
            (&self.accesses, slots),
            (self.entry.tally_words, &self.runs),
            self.entry.warps,
        )
    }
}

/// The block shape a kernel is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// `blockDim`.
    pub block: [u32; 3],
    /// Whether the code counts (a counting launch: [`crate::Mode::Count`]), and per line.
    pub count: bool,
    pub lines: bool,
    /// Whether shared memory serves a warp's request at once from 32 banks of 4 bytes (every
    /// profile from sm_50): then a warp's 4-byte access at an odd step of elements, or to one
    /// address, takes one wavefront whatever its lanes, and counting code adds it without the
    /// memo.
    pub warp_banks: bool,
}

/// Compiled kernels, by kernel and shape (a handful per process; compared by value).
type Cache = Vec<(Kernel, Shape, Arc<Result<Compiled, String>>)>;

static CACHE: Mutex<Cache> = Mutex::new(Vec::new());

/// The compiled form of `k` for `shape`, compiled at its first launch and cached (`true`
/// when compiled by this call); `Err` says why the kernel runs on the interpreter.
pub(crate) fn compiled(k: &Kernel, shape: Shape) -> (Arc<Result<Compiled, String>>, bool) {
    {
        let cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, _, c)) = cache.iter().find(|(ck, cs, _)| *cs == shape && ck == k) {
            return (Arc::clone(c), false);
        }
    }
    let c = Arc::new(translate::compile(k, shape));
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    cache.push((k.clone(), shape, Arc::clone(&c)));
    (c, true)
}
