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

mod ast;
mod builtins;
mod consts;
pub mod diag;
mod exec;
mod expr;
mod launch;
mod lower;
pub mod module;
mod parse;
pub mod preprocess;
pub mod print;
mod printf;
mod source;
mod types;
mod uniformity;

pub use diag::{Diagnostic, Severity};
pub use launch::{Arg, CudaReport, Printed, launch};
pub use module::{KernelInfo, Module};

/// The scalar or vector type a C spelling names (`float`, `unsigned int`, `uint32_t`, `float4`),
/// for tools that describe buffers by type.
pub fn type_by_name(name: &str) -> Option<ir::TypeName> {
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    types::scalar_type(&name)
        .map(ir::TypeName::Scalar)
        .or_else(|| types::vector_type(&name).map(|(s, n)| ir::TypeName::Vector(s, n)))
}
