//! CUDA C as written: read a `.cu` file, lower one of its kernels, launch it on a [`crate::Device`].
//!
//! The pipeline has three stages, each in its own module:
//!
//! 1. **Front-end**: a small preprocessor (`#define`, `#if`/`#ifdef`, `#include "local.h"`,
//!    `-D` definitions; system headers are recognised and skipped), then the `tree-sitter-cuda`
//!    grammar, then lowering: names resolved, types checked with C's promotions, `__device__`
//!    functions inlined, templates instantiated, uniformity decided.
//! 2. **IR** ([`ir`]): the kernel as structured statements over per-thread scalar variables,
//!    each leaf one block-wide operation.
//! 3. **Executor**: runs the IR on [`crate::Block`], so a `.cu` kernel counts, checks and
//!    faults exactly as a Rust kernel does.

pub mod ir;
