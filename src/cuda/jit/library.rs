//! The C math library for compiled code: the helpers it calls with a warp's lanes, computing
//! each lane as the interpreter does ([`crate::cuda::ir::library`]).
//!
//! Called from compiled code (`helper!`s): they must not panic (a panic cannot unwind
//! through compiled frames), and a code that names no function leaves the lanes as they are.
//! `n` is how many lanes to compute from the first: 1 for a value the same in every lane.

use crate::cuda::ir::library;

helper! {
    /// `lanes[l] = f(lanes[l])` for the library function of `code` ([`library::code`]), `float`.
    fn float_lanes(code: u32, n: u32, lanes: &mut [f32; 32]) {
        if let Some(op) = library::op(code) {
            for x in lanes.iter_mut().take(n as usize) {
                *x = library::float(op, *x);
            }
        }
    }
}

helper! {
    /// The same on `double` lanes.
    fn double_lanes(code: u32, n: u32, lanes: &mut [f64; 32]) {
        if let Some(op) = library::op(code) {
            for x in lanes.iter_mut().take(n as usize) {
                *x = library::double(op, *x);
            }
        }
    }
}

helper! {
    /// `x[l] = f(x[l], y[l])` for the library function of two values of `code`
    /// ([`library::code2`]), `float`.
    fn float2_lanes(code: u32, n: u32, x: &mut [f32; 32], y: &[f32; 32]) {
        if let Some(op) = library::op2(code) {
            for (a, &b) in x.iter_mut().zip(y).take(n as usize) {
                *a = library::float2(op, *a, b);
            }
        }
    }
}

helper! {
    /// The same on `double` lanes.
    fn double2_lanes(code: u32, n: u32, x: &mut [f64; 32], y: &[f64; 32]) {
        if let Some(op) = library::op2(code) {
            for (a, &b) in x.iter_mut().zip(y).take(n as usize) {
                *a = library::double2(op, *a, b);
            }
        }
    }
}
