//! Analyses of a lowered kernel that every tier relies on.

pub(crate) mod uniformity;
