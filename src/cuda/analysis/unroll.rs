//! Which loops nvcc unrolls completely: a `for` whose trip count is known when the kernel
//! compiles and is at most [`MAX_UNROLLED`].
//!
//! The counting tiers batch a warp's global loads ([`crate::Counters::gld_batches`]): loads
//! with no store between them can be in flight together, but only where the compiler sees
//! them as straight-line code. The iterations of an unrolled loop are (the transposes'
//! `for (j = 0; j < 32; j += 8)`: four loads issued back to back); the iterations of any other
//! loop run one after another, each waiting for its loads before the next issues its own (a
//! grid-stride loop `for (i = t; i < n; i += stride) sum += x[i]` — an H100 keeps about one of
//! its loads per warp in flight). So the back edge of a loop that is not unrolled ends the
//! warp's batch.
//!
//! The trip count is known when the loop is `for (i = c0; i CMP k; i = i OP d)` with `c0`, `k`
//! and `d` constants (the front-end folds macros and `constexpr` values into them), `i` set
//! right before the loop and assigned nowhere in its body: the form the front-end lowers to
//! `i = c0; loop { t = i CMP k; if t {} else { break } … } step { i = i OP d }`. The loop is
//! run on constants here, with C's arithmetic.

use crate::cuda::front::lower::consts;
use crate::cuda::ir::{Op, Operand, Stmt, VarId};

/// The longest loop counted as unrolled. An assumption: nvcc unrolls small loops of known trip
/// count completely, and the documents' are 4 to 16 iterations; where its limit lies was not
/// measured.
pub(crate) const MAX_UNROLLED: u32 = 32;

/// Set every loop's `unrolled` flag in `body`, nested loops included.
pub(crate) fn analyze(body: &mut [Stmt]) {
    for i in 0..body.len() {
        let (before, rest) = body.split_at_mut(i);
        match &mut rest[0] {
            Stmt::Loop {
                body: b,
                step,
                unrolled,
                ..
            } => {
                *unrolled = trip_count(before.last(), b, step).is_some();
                analyze(b);
                analyze(step);
            }
            Stmt::If { then, els, .. } => {
                analyze(then);
                analyze(els);
            }
            Stmt::Inline { body } => analyze(body),
            _ => {}
        }
    }
}

/// The loop's trip count when it is known and at most [`MAX_UNROLLED`]; `before` is the
/// statement right before the loop.
fn trip_count(before: Option<&Stmt>, body: &[Stmt], step: &[Stmt]) -> Option<u32> {
    // The index, stepped by a constant.
    let [
        Stmt::Assign(
            next @ crate::cuda::ir::Assign {
                op:
                    Op::Binary {
                        op,
                        a: Operand::Var(a),
                        b: Operand::Const(d),
                    },
                ..
            },
        ),
    ] = step
    else {
        return None;
    };
    let (i, ty) = (next.dst, next.ty);
    if *a != i {
        return None;
    }
    // Set to a constant right before the loop.
    let Some(Stmt::Assign(init)) = before else {
        return None;
    };
    let Op::Copy {
        src: Operand::Const(c0),
    } = init.op
    else {
        return None;
    };
    if init.dst != i {
        return None;
    }
    // The check first: `t = i CMP k` (either side), then `if t {} else { break }`.
    let [
        Stmt::Assign(check),
        Stmt::If {
            cond, then, els, ..
        },
        rest @ ..,
    ] = body
    else {
        return None;
    };
    let Op::Cmp { op: cmp, of, a, b } = check.op else {
        return None;
    };
    let index_first = match (a, b) {
        (Operand::Var(v), Operand::Const(_)) if v == i => true,
        (Operand::Const(_), Operand::Var(v)) if v == i => false,
        _ => return None,
    };
    let bound = if index_first { b } else { a };
    let Operand::Const(k) = bound else {
        return None;
    };
    let breaks = matches!(els.as_slice(), [Stmt::Break]) && then.is_empty();
    if *cond != Operand::Var(check.dst) || !breaks || of != ty || writes(rest, i) {
        return None;
    }
    let mut v = c0;
    for n in 0..=MAX_UNROLLED {
        let (x, y) = if index_first { (v, k) } else { (k, v) };
        if !consts::truthy(consts::compare(cmp, of, x, y)) {
            return Some(n);
        }
        v = consts::binary(*op, ty, v, *d)?;
    }
    None
}

/// Whether any statement of `body`, nested ones included, assigns `v`.
fn writes(body: &[Stmt], v: VarId) -> bool {
    body.iter()
        .any(|s| s.writes().contains(&v) || s.children().into_iter().any(|b| writes(b, v)))
}

#[cfg(test)]
mod tests {
    use crate::cuda::ir::Stmt;
    use crate::cuda::{Module, Options};

    /// The `unrolled` flags of the kernel's loops, outermost first, in order.
    fn flags(src: &str) -> Vec<bool> {
        fn walk(body: &[Stmt], out: &mut Vec<bool>) {
            for s in body {
                if let Stmt::Loop { unrolled, .. } = s {
                    out.push(*unrolled);
                }
                for b in s.children() {
                    walk(b, out);
                }
            }
        }
        let m = Module::from_source("k.cu", src, &Options::default()).unwrap();
        let k = m.lower("k").unwrap();
        let mut out = Vec::new();
        walk(&k.body, &mut out);
        out
    }

    #[test]
    fn loops_of_known_trip_count_unroll() {
        let src = r"
            #define TILE 32
            __global__ void k(float *o, int n) {
                for (int j = 0; j < TILE; j += 8) o[j] = 0;          // 4: unrolled
                for (unsigned k = 1; k <= 3u; k++) o[k] = 1;          // 3: unrolled
                for (int s = 16; s > 0; s >>= 1) o[s] = 2;            // 5: unrolled
                for (int i = 7; 0 <= i; --i) o[i] = 3;                // 8, bound first
                for (int i = 0; i < n; i++) o[i] = 4;                 // bound not constant
                for (int i = 0; i < 64; i++) o[i] = 5;                // too long
                for (int i = 0; i < 8; i++) { o[i] = 6; i += 0; }     // index assigned
                for (int i = threadIdx.x; i < 8; i++) o[i] = 7;       // start not constant
                int w = 0;
                while (w < 4) { o[w] = 8; w++; }                      // not a `for` step
            }";
        assert_eq!(
            flags(src),
            [true, true, true, true, false, false, false, false, false]
        );
    }
}
