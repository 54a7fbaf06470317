//! The C math library on one value, as both tiers compute it (the interpreter lane by lane, the
//! compiled tier through a helper it calls): defined once, so the tiers give the same bits.

use super::{MathFn, UnOp};

/// The library's functions of one floating-point value, by their code (their index here).
const LIBRARY: [UnOp; 31] = [
    UnOp::Exp,
    UnOp::Exp2,
    UnOp::Log,
    UnOp::Log2,
    UnOp::Log10,
    UnOp::Sin,
    UnOp::Cos,
    UnOp::Tan,
    UnOp::Tanh,
    UnOp::Round,
    UnOp::Math(MathFn::Asin),
    UnOp::Math(MathFn::Acos),
    UnOp::Math(MathFn::Atan),
    UnOp::Math(MathFn::Sinh),
    UnOp::Math(MathFn::Cosh),
    UnOp::Math(MathFn::Asinh),
    UnOp::Math(MathFn::Acosh),
    UnOp::Math(MathFn::Atanh),
    UnOp::Math(MathFn::Cbrt),
    UnOp::Math(MathFn::Erf),
    UnOp::Math(MathFn::Erfc),
    UnOp::Math(MathFn::Lgamma),
    UnOp::Math(MathFn::Tgamma),
    UnOp::Math(MathFn::Expm1),
    UnOp::Math(MathFn::Log1p),
    UnOp::Math(MathFn::Exp10),
    UnOp::Math(MathFn::SinPi),
    UnOp::Math(MathFn::CosPi),
    UnOp::Math(MathFn::Logb),
    UnOp::Math(MathFn::NormCdf),
    UnOp::Math(MathFn::FrexpFrac),
];

/// `op`'s code, where it is one of the library's functions.
pub fn code(op: UnOp) -> Option<u32> {
    LIBRARY.iter().position(|&o| o == op).map(|i| i as u32)
}

/// The function of a code ([`code`]).
pub fn op(code: u32) -> Option<UnOp> {
    LIBRARY.get(code as usize).copied()
}

/// `op(x)` on a `float`, as the C library's `f`-suffixed function computes it (`x` itself for
/// an operation that is not the library's).
pub fn float(op: UnOp, x: f32) -> f32 {
    match op {
        UnOp::Exp => x.exp(),
        UnOp::Exp2 => x.exp2(),
        UnOp::Log => x.ln(),
        UnOp::Log2 => x.log2(),
        UnOp::Log10 => x.log10(),
        UnOp::Sin => x.sin(),
        UnOp::Cos => x.cos(),
        UnOp::Tan => x.tan(),
        UnOp::Tanh => x.tanh(),
        UnOp::Round => x.round(),
        UnOp::Math(f) => math32(f, x),
        _ => x,
    }
}

/// `op(x)` on a `double` (`x` itself for an operation that is not the library's).
pub fn double(op: UnOp, x: f64) -> f64 {
    match op {
        UnOp::Exp => x.exp(),
        UnOp::Exp2 => x.exp2(),
        UnOp::Log => x.ln(),
        UnOp::Log2 => x.log2(),
        UnOp::Log10 => x.log10(),
        UnOp::Sin => x.sin(),
        UnOp::Cos => x.cos(),
        UnOp::Tan => x.tan(),
        UnOp::Tanh => x.tanh(),
        UnOp::Round => x.round(),
        UnOp::Math(f) => math64(f, x),
        _ => x,
    }
}

/// A math function on a `float`, as the C library's `f`-suffixed function computes it.
fn math32(f: MathFn, x: f32) -> f32 {
    use std::f32::consts::{FRAC_1_SQRT_2, PI};
    match f {
        MathFn::Asin => x.asin(),
        MathFn::Acos => x.acos(),
        MathFn::Atan => x.atan(),
        MathFn::Sinh => x.sinh(),
        MathFn::Cosh => x.cosh(),
        MathFn::Asinh => x.asinh(),
        MathFn::Acosh => x.acosh(),
        MathFn::Atanh => x.atanh(),
        MathFn::Cbrt => x.cbrt(),
        MathFn::Erf => libm::erff(x),
        MathFn::Erfc => libm::erfcf(x),
        MathFn::Lgamma => libm::lgammaf(x),
        MathFn::Tgamma => libm::tgammaf(x),
        MathFn::Expm1 => x.exp_m1(),
        MathFn::Log1p => x.ln_1p(),
        MathFn::Exp10 => libm::exp10f(x),
        MathFn::SinPi => (x * PI).sin(),
        MathFn::CosPi => (x * PI).cos(),
        MathFn::Logb => logb(f64::from(x)) as f32,
        MathFn::NormCdf => 0.5 * libm::erfcf(-x * FRAC_1_SQRT_2),
        MathFn::FrexpFrac => libm::frexpf(x).0,
    }
}

/// A math function on a `double`.
fn math64(f: MathFn, x: f64) -> f64 {
    use std::f64::consts::{FRAC_1_SQRT_2, PI};
    match f {
        MathFn::Asin => x.asin(),
        MathFn::Acos => x.acos(),
        MathFn::Atan => x.atan(),
        MathFn::Sinh => x.sinh(),
        MathFn::Cosh => x.cosh(),
        MathFn::Asinh => x.asinh(),
        MathFn::Acosh => x.acosh(),
        MathFn::Atanh => x.atanh(),
        MathFn::Cbrt => x.cbrt(),
        MathFn::Erf => libm::erf(x),
        MathFn::Erfc => libm::erfc(x),
        MathFn::Lgamma => libm::lgamma(x),
        MathFn::Tgamma => libm::tgamma(x),
        MathFn::Expm1 => x.exp_m1(),
        MathFn::Log1p => x.ln_1p(),
        MathFn::Exp10 => libm::exp10(x),
        MathFn::SinPi => (x * PI).sin(),
        MathFn::CosPi => (x * PI).cos(),
        MathFn::Logb => logb(x),
        MathFn::NormCdf => 0.5 * libm::erfc(-x * FRAC_1_SQRT_2),
        MathFn::FrexpFrac => libm::frexp(x).0,
    }
}

/// `logb`: the exponent of `x` as a floating value (`-inf` for 0, `|x|` for inf and NaN).
fn logb(x: f64) -> f64 {
    if x == 0.0 {
        f64::NEG_INFINITY
    } else if !x.is_finite() {
        x.abs()
    } else {
        f64::from(libm::ilogb(x))
    }
}
