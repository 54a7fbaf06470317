//! The front-end: CUDA C source to the [IR](crate::cuda::ir).
//!
//! Stages, each a module: [`preprocess`] (directives, macros, includes) → `parse` (the
//! `tree-sitter-cuda` grammar into the `ast`) → `lower` (names, types, templates, inlining:
//! one kernel into an [`crate::cuda::ir::Kernel`]). [`curand`] holds the data of the shipped
//! `curand_kernel.h` that the lowering supplies.

pub(crate) mod ast;
pub mod curand;
pub(crate) mod lower;
pub(crate) mod parse;
pub mod preprocess;
pub mod split;

use crate::cuda::source::Sources;
use preprocess::MissingHeader;

/// A parsed translation unit, as the lowering sees it.
#[derive(Clone, Debug)]
pub struct Unit {
    /// Device declarations.
    pub ast: ast::Unit,
    /// The files read.
    pub sources: Sources,
    /// Local headers that were not found.
    pub missing: Vec<MissingHeader>,
    /// The preprocessed text (byte spans of the AST index it).
    pub text: String,
    /// `__CUDA_ARCH__` of the device code (`900` for sm_90).
    pub arch: u32,
    /// Whether products are fused into sums (nvcc's `--fmad`).
    pub fmad: bool,
}
