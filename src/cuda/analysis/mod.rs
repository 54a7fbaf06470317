//! Analyses of a lowered kernel that every tier relies on.

mod fresh;
pub(crate) mod uniformity;
pub(crate) mod unroll;

pub(crate) use fresh::fresh_definitions;
