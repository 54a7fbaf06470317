//! Fresh definitions: assignments that need no merge with the old value under a mask.
//!
//! Every tier relies on it the same way: a fresh definition writes every lane, executing or
//! not, because no lane can read what it overwrote.

use crate::cuda::ir::{Addr, Kernel, Op, Operand, Stmt};

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
    fn vars(o: &Operand, out: &mut Vec<u32>) {
        if let Some(v) = o.var() {
            out.push(v.0);
        }
    }
    fn addr(a: &Addr, out: &mut Vec<u32>) {
        a.operands().for_each(|o| vars(&o, out));
    }
    /// (variables read, variables written) by `s` itself, not its nested statements.
    fn effects(s: &Stmt) -> (Vec<u32>, Vec<u32>) {
        let (mut r, mut w) = (Vec::new(), Vec::new());
        match s {
            Stmt::Assign(a) => {
                w.push(a.dst.0);
                match &a.op {
                    Op::Copy { src } | Op::Convert { src, .. } | Op::Bitcast { src, .. } => {
                        vars(src, &mut r)
                    }
                    Op::Unary { a, .. } => vars(a, &mut r),
                    Op::Binary { a, b, .. }
                    | Op::Cmp { a, b, .. }
                    | Op::And { a, b }
                    | Op::Or { a, b } => {
                        vars(a, &mut r);
                        vars(b, &mut r);
                    }
                    Op::Fma { a, b, c }
                    | Op::Select {
                        cond: a,
                        a: b,
                        b: c,
                    } => [a, b, c].into_iter().for_each(|o| vars(o, &mut r)),
                    Op::Offset { offset, index } => {
                        vars(offset, &mut r);
                        index.iter().for_each(|(o, _)| vars(o, &mut r));
                    }
                }
            }
            Stmt::Load { dst, addr: a, .. } => {
                w.extend(dst.iter().map(|d| d.0));
                addr(a, &mut r);
            }
            Stmt::Store {
                addr: a, values, ..
            } => {
                addr(a, &mut r);
                values.iter().for_each(|o| vars(o, &mut r));
            }
            Stmt::Atomic {
                dst,
                addr: at,
                a,
                b,
                ..
            } => {
                w.extend(dst.map(|d| d.0));
                addr(at, &mut r);
                vars(a, &mut r);
                b.iter().for_each(|o| vars(o, &mut r));
            }
            Stmt::If { cond, .. } => vars(cond, &mut r),
            Stmt::Sync { pred, dst, .. } => {
                pred.iter().for_each(|o| vars(o, &mut r));
                w.extend(dst.map(|d| d.0));
            }
            Stmt::SyncWarp { mask, .. } => vars(mask, &mut r),
            Stmt::Fence { .. } => {}
            Stmt::Shfl {
                dst,
                mask,
                value,
                lane,
                width,
                ..
            } => {
                w.push(dst.0);
                mask.iter()
                    .chain([value, lane, width])
                    .for_each(|o| vars(o, &mut r));
            }
            Stmt::Vote { dst, mask, arg, .. } => {
                w.push(dst.0);
                mask.iter().chain(arg.iter()).for_each(|o| vars(o, &mut r));
            }
            Stmt::Printf { args, .. } => args.iter().for_each(|(o, _)| vars(o, &mut r)),
            Stmt::LocalLoad { dst, index, .. } => {
                w.push(dst.0);
                vars(index, &mut r);
            }
            Stmt::LocalStore { index, value, .. } => {
                vars(index, &mut r);
                vars(value, &mut r);
            }
            Stmt::Loop { .. }
            | Stmt::Break
            | Stmt::Continue
            | Stmt::Return
            | Stmt::Inline { .. }
            | Stmt::Trap { .. } => {}
        }
        (r, w)
    }
    fn walk(list: &[Stmt], path: &mut Vec<u32>, next: &mut u32, seen: &mut [Seen]) {
        for s in list {
            let (reads, writes) = effects(s);
            for v in reads.iter().chain(&writes) {
                let e = &mut seen[*v as usize];
                let common = e.common.get_or_insert_with(|| path.clone());
                let shared = common
                    .iter()
                    .zip(path.iter())
                    .take_while(|(a, b)| a == b)
                    .count();
                common.truncate(shared);
                if e.first.is_none() {
                    let clean = writes.contains(v) && !reads.contains(v);
                    e.first = Some((path.clone(), s as *const Stmt as usize, clean));
                }
            }
            let mut child = |body: &[Stmt], path: &mut Vec<u32>, next: &mut u32| {
                *next += 1;
                path.push(*next);
                walk(body, path, next, seen);
                path.pop();
            };
            match s {
                Stmt::If { then, els, .. } => {
                    child(then, path, next);
                    child(els, path, next);
                }
                Stmt::Loop { body, step, .. } => {
                    child(body, path, next);
                    child(step, path, next);
                }
                Stmt::Inline { body } => child(body, path, next),
                _ => {}
            }
        }
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
