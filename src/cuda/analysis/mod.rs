//! Analyses of a lowered kernel that every tier relies on.

pub(crate) mod barriers;
mod fresh;
pub(crate) mod shape;
pub(crate) mod uniformity;
pub(crate) mod unroll;

pub(crate) use fresh::fresh_definitions;

/// Narrow `common` to the longest prefix it shares with `path` (the first path it meets is
/// taken whole): what the enclosing statements of all a variable's occurrences share.
pub(crate) fn share_prefix<T: PartialEq + Clone>(common: &mut Option<Vec<T>>, path: &[T]) {
    let c = common.get_or_insert_with(|| path.to_vec());
    let n = c.iter().zip(path).take_while(|(a, b)| a == b).count();
    c.truncate(n);
}
