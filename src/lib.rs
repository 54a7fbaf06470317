//! # warpsim
//!
//! Run CUDA-style kernels on the CPU, faithfully and fast: every warp executes as a 32-lane SIMD
//! vector with predication masks, a block's warps advance in lockstep, blocks run in parallel on
//! CPU threads, and every launch can report what nvprof / Nsight Compute would (load/store
//! efficiency, sectors, bank conflicts, branch and warp-execution efficiency).
//!
//! ## The execution model
//!
//! A kernel is a plain function over a [`Block`]: it runs once per block of the grid. Every
//! per-thread variable is a *block-wide value* ([`F32s`], [`U32s`], … and the predicate
//! [`Pred`]): one 32-lane vector per warp. An operation on values applies to every warp of the
//! block that has an active lane, warp after warp, and counts as one warp instruction for each;
//! so the block's warps execute the kernel in lockstep, one instruction at a time, as the warps of
//! one SM do when the scheduler round-robins them.
//!
//! * **Divergence** is predication per warp: [`Block::if_`], [`Block::if_else`],
//!   [`Block::while_`] and [`Block::exit_if`] run each side under each warp's active mask, skip a
//!   side no thread takes and reconverge; a branch diverges in a warp when its lanes disagree.
//!   Bodies are `Fn` closures that return their results, merged per lane, so the unmasked
//!   mutation of an outer value is impossible.
//! * **Barriers** ([`Block::sync_threads`]) are program points: every warp is there already.
//!   Reaching one in a branch that only part of the block took is an error.
//! * **Memory** ([`Global`], [`Shared`]) is accessed with one element index per thread; each
//!   warp's part of an access is one request, counted in sectors and lines (global) or
//!   wavefronts of the 32 banks (shared), computed from the addresses the active lanes use.
//! * **Uniform** values (the same for every thread: block indices, the kernel's scalar
//!   arguments, loop counters of uniform loops) are plain Rust, and cost nothing.
//!
//! Counting ([`Mode::Count`], the default) and checking ([`Mode::Check`]) are observers of the
//! executor; [`Mode::Fast`] runs without them. Results and counters are the same for any number
//! of CPU threads.
//!
//! ```
//! use warpsim::*;
//!
//! /// Sum of each 256-element block of `x` into `out[blockIdx.x]`: the shared-memory tree with
//! /// sequential addressing (stride halving).
//! fn block_sum(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
//!     let s = b.shared::<f32>(256);
//!     let t = b.thread_idx().x;
//!     let i = b.global_idx_x();
//!     let v = b.if_else(i.lt(n), |b| b.load(x, i), |_| F32s::ZERO);
//!     b.store(&s, t, v);
//!     b.sync_threads();
//!     let mut stride = b.block_dim().x / 2;
//!     while stride > 0 {
//!         b.if_(t.lt(stride), |b| {
//!             let sum = b.load(&s, t) + b.load(&s, t + stride);
//!             b.store(&s, t, sum);
//!         });
//!         b.sync_threads();
//!         stride /= 2;
//!     }
//!     b.if_(t.eq(0), |b| {
//!         let total = b.load(&s, t);
//!         b.store(out, b.block_idx().x, total);
//!     });
//! }
//!
//! let dev = Device::default();
//! let n = 1000u32;
//! let x = dev.alloc_from("x", &vec![1.0f32; n as usize]);
//! let blocks = n.div_ceil(256);
//! let out = dev.alloc_zeroed::<f32>("out", blocks as usize);
//! let cfg = LaunchConfig::new(blocks, 256).name("block_sum");
//! let report = dev.launch(&cfg, |b: &mut Block<'_>| block_sum(b, &x, &out, n))?;
//! assert_eq!(out.to_vec().iter().sum::<f32>(), 1000.0);
//! let m = report.metrics().unwrap();
//! assert_eq!(m.shared_ld_bank_conflicts, 0);
//! assert!(m.divergent_branches > 0); // the strides below 32
//! # Ok::<(), warpsim::Error>(())
//! ```
//!
//! ## Map of the crate, from the bottom layer up
//! * [`lanes`]: one warp's registers: 32-lane vectors ([`F32x32`], [`U32x32`], …) and
//!   [`Mask`]s, with the semantics of every operation.
//! * [`values`]: block-wide values ([`F32s`], [`U32s`], [`Pred`], …), their operations and
//!   [`Merge`].
//! * [`memory`]: [`Global`] and [`Shared`] memory, elements, and the coalescing and bank
//!   arithmetic.
//! * [`metrics`], [`count`] and [`check`]: the counters, the counting observer and check mode.
//! * [`block`]: the executor behind the [`Block`] context: predication, barriers, intrinsics,
//!   memory instructions.
//! * [`launch`]: [`Device`], [`LaunchConfig`], [`Device::launch`].
//! * [`predict`]: the timing model, a launch's predicted time on the profile's GPU.
//! * [`profile`]: device [`Profile`]s and occupancy; [`error`]: the [`Error`] type;
//!   [`geometry`]: [`Dim3`] and thread numbering.
//! * [`kernels`]: the source documents' kernels with their CPU references.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod block;
pub mod check;
pub mod count;
pub mod cuda;
pub mod error;
pub mod geometry;
pub mod lanes;
pub mod launch;
pub mod memory;
pub mod metrics;
pub mod predict;
pub mod profile;
pub mod site;
pub mod values;

#[path = "../kernels/mod.rs"]
pub mod kernels;

pub use block::{Block, BlockOrder, Shuffle, ThreadIdx, WarpOrder};
pub use error::{AccessFault, AccessKind, Error, Space};
pub use geometry::Dim3;
pub use lanes::{F32x32, F64x32, I32x32, Lanes, Mask, U32x32, U64x32, WARP_SIZE};
pub use launch::{Device, LaunchConfig, LaunchReport, Mode};
pub use memory::{AtomicBits, AtomicElement, Element, Global, Memory, Shared};
pub use metrics::{AccessSample, Counters, LineCounters, MetricValue, Metrics, Samples, WaveRuns};
pub use profile::{Occupancy, Profile};
pub use values::{F32s, F64s, I32s, Merge, Pred, U32s, U64s};

/// The README's examples, run as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
