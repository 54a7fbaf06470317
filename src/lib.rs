//! # warpsim
//!
//! Run CUDA-style kernels on the CPU, faithfully and fast: each warp executes as a 32-lane SIMD
//! vector with predication masks, blocks run in parallel on CPU threads, and every launch can
//! report what nvprof / Nsight Compute would (load/store efficiency, sectors, bank conflicts,
//! branch and warp-execution efficiency).
//!
//! ```
//! use warpsim::*;
//!
//! /// Sum of each 256-element block of `x` into `out[blockIdx.x]`: the shared-memory tree with
//! /// sequential addressing (stride halving).
//! async fn block_sum(w: &mut Warp<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
//!     let s = w.shared::<f32>(256);
//!     let t = w.thread_idx().x;
//!     let i = w.global_idx_x();
//!     let v = w.if_else(i.lt(n), |w| w.load(x, i), |_| F32x32::ZERO);
//!     w.store(&s, t, v);
//!     w.sync_threads().await;
//!     let mut stride = w.block_dim().x / 2;
//!     while stride > 0 {
//!         w.if_(t.lt(stride), |w| {
//!             let sum = w.load(&s, t) + w.load(&s, t + stride);
//!             w.store(&s, t, sum);
//!         });
//!         w.sync_threads().await;
//!         stride /= 2;
//!     }
//!     w.if_(t.eq(0), |w| {
//!         let total = w.load(&s, t);
//!         w.store(out, U32x32::splat(w.block_idx().x), total);
//!     });
//! }
//!
//! let dev = Device::default();
//! let n = 1000u32;
//! let x = dev.alloc_from("x", &vec![1.0f32; n as usize]);
//! let blocks = n.div_ceil(256);
//! let out = dev.alloc_zeroed::<f32>("out", blocks as usize);
//! let cfg = LaunchConfig::new(blocks, 256).name("block_sum");
//! let report = dev.launch(&cfg, async |w: &mut Warp<'_>| block_sum(w, &x, &out, n).await)?;
//! assert_eq!(out.to_vec().iter().sum::<f32>(), 1000.0);
//! let m = report.metrics().unwrap();
//! assert_eq!(m.shared_ld_bank_conflicts, 0);
//! assert!(m.divergent_branches > 0); // the strides below 32
//! # Ok::<(), warpsim::Error>(())
//! ```
//!
//! ## Map of the crate
//! * [`lanes`]: lane vectors ([`F32x32`], [`U32x32`], …) and [`Mask`]s.
//! * [`warp`]: the [`Warp`] context: indices, predication, barriers, intrinsics, memory access.
//! * [`scheduler`]: how a block's warps are run and how the barrier works.
//! * [`launch`]: [`Device`], [`LaunchConfig`], [`Device::launch`].
//! * [`memory`]: [`Global`] and [`Shared`] memory with the coalescing and bank counters.
//! * [`metrics`]: [`Counters`] and [`Metrics`].
//! * [`profile`]: device [`Profile`]s and occupancy.
//! * [`error`]: the [`Error`] type.
//! * [`check`]: check mode.
//! * [`kernels`]: the source documents' kernels with their CPU references.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod check;
pub mod error;
pub mod lanes;
pub mod launch;
pub mod memory;
pub mod metrics;
pub mod profile;
pub mod scheduler;
mod tally;
pub mod warp;

#[path = "../kernels/mod.rs"]
pub mod kernels;

pub use error::{AccessFault, AccessKind, Error, Space};
pub use lanes::{F32x32, F64x32, I32x32, Lanes, Mask, Merge, U32x32, U64x32, WARP_SIZE};
pub use launch::{Device, Dim3, LaunchConfig, LaunchReport, Mode};
pub use memory::{AtomicBits, AtomicElement, Element, Global, Memory, Shared};
pub use metrics::{Counters, MetricValue, Metrics};
pub use profile::{Occupancy, Profile};
pub use scheduler::WarpOrder;
pub use warp::{ThreadIdx, Warp};

/// The README's examples, run as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
