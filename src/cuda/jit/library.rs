//! The C math library for compiled code: the helpers it calls with a warp's lanes, computing
//! each lane as the interpreter does ([`crate::cuda::ir::library`]).
//!
//! Called from compiled code (`extern "C"`): they must not panic (a panic cannot unwind
//! through compiled frames), and a code that names no function leaves the lanes as they are.

use crate::cuda::ir::library;

/// `lanes[l] = f(lanes[l])` for the library function of `code` ([`library::code`]), `float`.
pub(crate) extern "C" fn float_lanes(code: u32, lanes: &mut [f32; 32]) {
    if let Some(op) = library::op(code) {
        for x in lanes {
            *x = library::float(op, *x);
        }
    }
}

/// The same on `double` lanes.
pub(crate) extern "C" fn double_lanes(code: u32, lanes: &mut [f64; 32]) {
    if let Some(op) = library::op(code) {
        for x in lanes {
            *x = library::double(op, *x);
        }
    }
}

/// `x[l] = f(x[l], y[l])` for the library function of two values of `code`
/// ([`library::code2`]), `float`.
pub(crate) extern "C" fn float2_lanes(code: u32, x: &mut [f32; 32], y: &[f32; 32]) {
    if let Some(op) = library::op2(code) {
        for (a, &b) in x.iter_mut().zip(y) {
            *a = library::float2(op, *a, b);
        }
    }
}

/// The same on `double` lanes.
pub(crate) extern "C" fn double2_lanes(code: u32, x: &mut [f64; 32], y: &[f64; 32]) {
    if let Some(op) = library::op2(code) {
        for (a, &b) in x.iter_mut().zip(y) {
            *a = library::double2(op, *a, b);
        }
    }
}
