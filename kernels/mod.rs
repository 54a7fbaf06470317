//! The source documents' kernels, each next to its CPU reference.
