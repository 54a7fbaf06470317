//! CUDA C as written: read a `.cu` file, lower one of its kernels, launch it on a [`crate::Device`].
//!
//! # Code map
//!
//! The pipeline has three stages, each in its own folder:
//!
//! 1. **Front-end** (`front/`): a small preprocessor (`#define`, `#if`/`#ifdef`,
//!    `#include "local.h"`, `-D` definitions; system headers are recognised and skipped), then
//!    the `tree-sitter-cuda` grammar, then lowering (`front/lower/`): names resolved, types
//!    checked with C's promotions, `__device__` functions inlined, templates instantiated.
//! 2. **IR** ([`ir`]): the kernel as structured statements over per-thread scalar variables,
//!    each leaf one block-wide operation; `analysis/` decides what every tier relies on
//!    (uniformity).
//! 3. **Tiers** that run the IR, never importing each other: the interpreter (`exec/`) runs
//!    it on [`crate::Block`], so a `.cu` kernel counts, checks and faults exactly as a Rust
//!    kernel does — every mode, every kernel, the oracle; the compiled tier (`jit/`) translates
//!    it with Cranelift into native SIMD code (warps as vectors, regions between barriers run
//!    warp by warp) for fast and counting mode. [`launch()`] binds arguments, picks the tier ([`Engine`]: the
//!    compiled one where it applies, the reason in [`Tier`] where not) and runs it; a block the
//!    compiled code stops on (a failed bounds check, a trap) runs again on the interpreter,
//!    which names the fault.
//!
//! [`Module`] (`module.rs`) is the front-end's public face: a parsed translation unit that
//! lists and lowers its kernels. [`host`] runs whole programs: their host code built by the
//! system C++ compiler against warpsim's runtime (`runtime/`), their device work served here.
//!
//! # Invariants
//!
//! * `ir` imports nothing from the rest of `cuda`: it is the contract between the stages.
//! * `front` and `analysis` import `ir`; `exec` and `jit` import `ir`, `analysis` and the
//!   engine, never `front` and never each other.
//! * `launch` imports `exec` and `jit`; nothing below imports `launch`.
//! * `unsafe` exists only in `jit/enter.rs` (calling compiled code), each use with a
//!   `// SAFETY:` comment (`tests/safety.rs` checks it).
//! * `host` imports `front` (the split), [`Module`] and `launch`; nothing imports `host`.

pub mod ir;

mod analysis;
pub mod diag;
mod exec;
pub mod front;
pub mod host;
pub(crate) mod jit;
mod launch;
pub mod module;
mod source;

pub use diag::{Diagnostic, Severity};
pub use front::preprocess::{self, Options};
pub use ir::print;
pub use launch::{Arg, CudaReport, Engine, Printed, Tier, launch, launch_with};
pub use module::{KernelInfo, Module};

/// The scalar or vector type a C spelling names (`float`, `unsigned int`, `uint32_t`, `float4`),
/// for tools that describe buffers by type.
pub fn type_by_name(name: &str) -> Option<ir::TypeName> {
    use front::lower::types;
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    types::scalar_type(&name)
        .map(ir::TypeName::Scalar)
        .or_else(|| types::vector_type(&name).map(|(s, n)| ir::TypeName::Vector(s, n)))
}
