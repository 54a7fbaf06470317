//! Fresh definitions: assignments that need no merge with the old value under a mask.
//!
//! Every tier relies on it the same way: a fresh definition writes every lane, executing or
//! not, because no lane can read what it overwrote.

use crate::cuda::ir::{Base, Kernel, Stmt};

/// Per variable, the statement (by address) whose assignment needs no merge, 0 for none.
///
/// Under divergent control flow an assignment changes only the executing lanes, which costs a
/// select against the old value. That is wasted on a variable that every execution of some
/// statement list defines before anything reads it, and that nothing outside the list uses:
/// no lane can read the old value. Such a definition is *fresh*. The rule: the variable's
/// occurrences all lie within one list (nested statements included), and its first occurrence
/// in program order is a statement directly in that list that assigns it without reading it.
/// Temporaries and variables declared with an initialiser inside a branch or loop body are
/// fresh this way.
pub(crate) fn fresh_definitions(k: &Kernel) -> Vec<usize> {
    #[derive(Default)]
    struct Seen {
        /// The path (list ids from the root) shared by every occurrence.
        common: Option<Vec<u32>>,
        /// The first occurrence: its path, statement and whether it is a clean definition.
        first: Option<(Vec<u32>, usize, bool)>,
    }
    /// (variables read, variables written) by `s` itself, not its nested statements.
    fn effects(s: &Stmt) -> (Vec<u32>, Vec<u32>) {
        let reads = s
            .reads()
            .iter()
            .filter_map(|o| o.var())
            .map(|v| v.0)
            .collect();
        (reads, s.writes().iter().map(|v| v.0).collect())
    }
    fn walk(list: &[Stmt], path: &mut Vec<u32>, next: &mut u32, seen: &mut [Seen]) {
        for s in list {
            let (reads, writes) = effects(s);
            for v in reads.iter().chain(&writes) {
                let e = &mut seen[*v as usize];
                super::share_prefix(&mut e.common, path);
                if e.first.is_none() {
                    // A load or atomic through a pointer whose buffer is held per thread runs
                    // once per buffer, each time under the lanes that point into it: its
                    // destination must keep the lanes the other runs wrote.
                    let clean = writes.contains(v) && !reads.contains(v) && !per_buffer(s);
                    e.first = Some((path.clone(), s as *const Stmt as usize, clean));
                }
            }
            for body in s.children() {
                *next += 1;
                path.push(*next);
                walk(body, path, next, seen);
                path.pop();
            }
        }
    }
    fn per_buffer(s: &Stmt) -> bool {
        matches!(
            s,
            Stmt::Load { addr, .. } | Stmt::Atomic { addr, .. } if matches!(addr.base, Base::Var(_))
        )
    }
    let mut seen: Vec<Seen> = (0..k.vars.len()).map(|_| Seen::default()).collect();
    walk(&k.body, &mut vec![0], &mut 0, &mut seen);
    seen.into_iter()
        .map(|e| match (e.common, e.first) {
            (Some(common), Some((path, stmt, true))) if path == common => stmt,
            _ => 0,
        })
        .collect()
}
