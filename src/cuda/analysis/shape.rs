//! Values a block's shape fixes: integers computed from thread indices and constants alone.
//!
//! `unsigned t = threadIdx.x;` then `bool low = t < 128;` holds in a block of 256 threads the
//! same value every time the kernel runs, lane by lane: nothing but the shape decides it. A
//! tier that compiles per block shape can then decide, before the kernel runs, which warps
//! take a branch on it with every lane and which with none (the documents' reduction trees:
//! `if (t < 128)`, `if (t < 32)`), instead of asking each warp at run time.
//!
//! A variable is fixed where its one assignment (no other statement writes it) is its fresh
//! definition ([`super::fresh_definitions`]: it writes every lane before anything reads it)
//! and computes an integer or `bool` from constants, `threadIdx`, `blockDim`, `warpSize`, the
//! lane and the linear thread index, and other fixed variables, with C's rules (the constant
//! folder's, [`consts`]). A division by zero leaves its result unfixed (it faults when it
//! runs).

use crate::cuda::front::lower::consts;
use crate::cuda::ir::{Axis, Builtin, Const, Kernel, Op, Operand, Scalar, Stmt};

/// Per variable, its value in every thread of a block of `block` threads (in linear thread
/// order: warp `w`'s lane `l` is thread `32w + l`), where the shape fixes it.
/// `fresh` is the kernel's [`super::fresh_definitions`].
pub(crate) fn fixed_by_shape(
    k: &Kernel,
    block: [u32; 3],
    fresh: &[usize],
) -> Vec<Option<Vec<Const>>> {
    let mut writes = vec![0u32; k.vars.len()];
    count_writes(&k.body, &mut writes);
    let mut fixed = vec![None; k.vars.len()];
    let inputs = Inputs {
        block,
        threads: block.iter().map(|&d| d as usize).product(),
        writes: &writes,
        fresh,
    };
    define(&k.body, &inputs, &mut fixed);
    fixed
}

/// What decides which assignments define a fixed variable, and the thread indices.
struct Inputs<'a> {
    block: [u32; 3],
    threads: usize,
    /// Per variable, the statements that write it.
    writes: &'a [u32],
    /// Per variable, its fresh definition's address.
    fresh: &'a [usize],
}

fn count_writes(list: &[Stmt], writes: &mut [u32]) {
    for s in list {
        for v in s.writes() {
            writes[v.0 as usize] += 1;
        }
        for c in s.children() {
            count_writes(c, writes);
        }
    }
}

/// In program order (a fresh definition comes before every read of its variable).
fn define(list: &[Stmt], sh: &Inputs<'_>, fixed: &mut [Option<Vec<Const>>]) {
    for s in list {
        if let Stmt::Assign(a) = s {
            let v = a.dst.0 as usize;
            let integer = !a.ty.is_float();
            if integer && sh.writes[v] == 1 && sh.fresh[v] == s as *const Stmt as usize {
                fixed[v] = (0..sh.threads)
                    .map(|t| eval(&a.op, a.ty, t, sh, fixed))
                    .collect();
            }
        }
        for c in s.children() {
            define(c, sh, fixed);
        }
    }
}

/// `op` in thread `t`, where its operands are fixed and C's rules give a value.
fn eval(
    op: &Op,
    ty: Scalar,
    t: usize,
    sh: &Inputs<'_>,
    fixed: &[Option<Vec<Const>>],
) -> Option<Const> {
    let get = |o: &Operand| operand(o, t, sh, fixed).filter(|c| !c.ty.is_float());
    match op {
        Op::Copy { src } => get(src),
        // Between integers of one size a bitcast is the conversion (it wraps).
        Op::Convert { src, .. } | Op::Bitcast { src, .. } => {
            get(src).map(|c| consts::convert(c, ty))
        }
        Op::Unary { op, a } => consts::unary(*op, ty, get(a)?),
        Op::Binary { op, a, b } => consts::binary(*op, ty, get(a)?, get(b)?),
        Op::Cmp { op, of, a, b } if !of.is_float() => {
            Some(consts::compare(*op, *of, get(a)?, get(b)?))
        }
        Op::Select { cond, a, b } => {
            if consts::truthy(get(cond)?) {
                get(a)
            } else {
                get(b)
            }
        }
        Op::And { a, b } => {
            let both = consts::truthy(get(a)?) && consts::truthy(get(b)?);
            Some(consts::int(Scalar::Bool, both.into()))
        }
        Op::Or { a, b } => {
            let either = consts::truthy(get(a)?) || consts::truthy(get(b)?);
            Some(consts::int(Scalar::Bool, either.into()))
        }
        _ => None,
    }
}

/// `o` in thread `t`, where the shape fixes it.
fn operand(o: &Operand, t: usize, sh: &Inputs<'_>, fixed: &[Option<Vec<Const>>]) -> Option<Const> {
    let [bx, by, bz] = sh.block;
    let t = t as u32;
    let u32 = |v: u32| Some(consts::int(Scalar::U32, v.into()));
    match o {
        Operand::Const(c) => Some(*c),
        Operand::Var(v) => fixed[v.0 as usize].as_ref().map(|lanes| lanes[t as usize]),
        Operand::Builtin(b) => match b {
            Builtin::ThreadIdx(Axis::X) => u32(t % bx),
            Builtin::ThreadIdx(Axis::Y) => u32(t / bx % by),
            Builtin::ThreadIdx(Axis::Z) => u32(t / (bx * by)),
            Builtin::BlockDim(Axis::X) => u32(bx),
            Builtin::BlockDim(Axis::Y) => u32(by),
            Builtin::BlockDim(Axis::Z) => u32(bz),
            Builtin::WarpSize => u32(32),
            Builtin::LaneId => u32(t % 32),
            Builtin::LinearTid => u32(t),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use crate::cuda::{Module, Options};

    /// The variables the shape fixes, by name, with their values in the first `n` threads.
    fn fixed(src: &str, block: [u32; 3], n: usize) -> Vec<(String, Vec<u64>)> {
        let m = Module::from_source("k.cu", src, &Options::default()).unwrap();
        let k = m.lower("k").unwrap();
        let fresh = super::super::fresh_definitions(&k);
        super::fixed_by_shape(&k, block, &fresh)
            .into_iter()
            .zip(&k.vars)
            .filter_map(|(f, v)| {
                Some((v.name.clone(), f?.iter().take(n).map(|c| c.bits).collect()))
            })
            .filter(|(name, _)| !name.starts_with('$'))
            .collect()
    }

    #[test]
    fn thread_indices_and_constants_fix_values() {
        let src = "__global__ void k(int *x, int n) {\n\
                   unsigned t = threadIdx.x + threadIdx.y * blockDim.x;\n\
                   bool low = t < 3;\n\
                   int lane = t % warpSize, third = 12 / (int)(t / 2);\n\
                   int loaded = x[t], bound = n - t, twice = t;\n\
                   twice += t;\n\
                   if (low) x[t] = lane + third + loaded + bound + twice;\n\
                   }\n";
        let got = fixed(src, [2, 2, 1], 4);
        // `third` divides by zero in threads 0 and 1; `loaded`, `bound` and `twice` depend on
        // memory, a parameter and a second assignment.
        let want = [
            ("t", vec![0, 1, 2, 3]),
            ("low", vec![1, 1, 1, 0]),
            ("lane", vec![0, 1, 2, 3]),
        ];
        let want: Vec<(String, Vec<u64>)> = want.into_iter().map(|(n, v)| (n.into(), v)).collect();
        assert_eq!(got, want);
    }
}
