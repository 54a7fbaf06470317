//! The C math library on one value, as both tiers compute it (the interpreter lane by lane, the
//! compiled tier through a helper it calls): defined once, so the tiers give the same bits.

use super::{Arith, BinOp, MathFn, Round, UnOp, directed};

/// The library's functions of one floating-point value, by their code (their index here).
const LIBRARY: [UnOp; 37] = [
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
    UnOp::SqrtRounded(Round::Down),
    UnOp::SqrtRounded(Round::Up),
    UnOp::SqrtRounded(Round::Zero),
    UnOp::NarrowRounded(Round::Down),
    UnOp::NarrowRounded(Round::Up),
    UnOp::NarrowRounded(Round::Zero),
];

/// `op`'s code, where it is one of the library's functions.
pub fn code(op: UnOp) -> Option<u32> {
    LIBRARY.iter().position(|&o| o == op).map(|i| i as u32)
}

/// The function of a code ([`code`]).
pub fn op(code: u32) -> Option<UnOp> {
    LIBRARY.get(code as usize).copied()
}

/// The library's functions on one floating-point type: `$name(op, x)` is `op(x)`, and `x`
/// itself for an operation that is not the library's; `libm` names the type's functions
/// where Rust's floats have none; `directed` is a directed `double` result in the type.
macro_rules! on {
    ($(#[$doc:meta])* $name:ident, $t:ident, libm: [$erf:ident, $erfc:ident, $lgamma:ident,
     $tgamma:ident, $exp10:ident, $frexp:ident], log: $log:expr, logb: $logb:expr,
     directed: $directed:expr) => {
        $(#[$doc])*
        pub fn $name(op: UnOp, x: $t) -> $t {
            use std::$t::consts::{FRAC_1_SQRT_2, PI};
            let UnOp::Math(f) = op else {
                return match op {
                    UnOp::Exp => x.exp(),
                    UnOp::Exp2 => x.exp2(),
                    UnOp::Log => $log(x),
                    UnOp::Log2 => x.log2(),
                    UnOp::Log10 => x.log10(),
                    UnOp::Sin => x.sin(),
                    UnOp::Cos => x.cos(),
                    UnOp::Tan => x.tan(),
                    UnOp::Tanh => x.tanh(),
                    UnOp::Round => x.round(),
                    UnOp::SqrtRounded(r) => $directed(directed::sqrt(x.into(), r), r),
                    UnOp::NarrowRounded(r) => $directed(directed::narrow(x.into(), r), r),
                    _ => x,
                };
            };
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
                MathFn::Erf => libm::$erf(x),
                MathFn::Erfc => libm::$erfc(x),
                MathFn::Lgamma => libm::$lgamma(x),
                MathFn::Tgamma => libm::$tgamma(x),
                MathFn::Expm1 => x.exp_m1(),
                MathFn::Log1p => x.ln_1p(),
                MathFn::Exp10 => libm::$exp10(x),
                MathFn::SinPi => (x * PI).sin(),
                MathFn::CosPi => (x * PI).cos(),
                MathFn::Logb => $logb(x),
                MathFn::NormCdf => 0.5 * libm::$erfc(-x * FRAC_1_SQRT_2),
                MathFn::FrexpFrac => libm::$frexp(x).0,
            }
        }
    };
}

on!(
    /// `op(x)` on a `float`, as the C library's `f`-suffixed function computes it (`x` itself
    /// for an operation that is not the library's).
    float, f32,
    libm: [erff, erfcf, lgammaf, tgammaf, exp10f, frexpf],
    log: super::gpu_math::logf,
    logb: |x: f32| logb(f64::from(x)) as f32,
    directed: directed::float
);
on!(
    /// `op(x)` on a `double` (`x` itself for an operation that is not the library's).
    double, f64,
    libm: [erf, erfc, lgamma, tgamma, exp10, frexp],
    log: f64::ln,
    logb: logb,
    directed: |x: f64, _| x
);

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

/// The library's functions of two floating-point values (`fmodf` is `%` on floats), by their
/// code (their index here).
const LIBRARY2: [BinOp; 20] = [
    BinOp::Pow,
    BinOp::Atan2,
    BinOp::Hypot,
    BinOp::CopySign,
    BinOp::Fdim,
    BinOp::Remainder,
    BinOp::Ldexp,
    BinOp::Rem,
    BinOp::Rounded(Arith::Add, Round::Down),
    BinOp::Rounded(Arith::Add, Round::Up),
    BinOp::Rounded(Arith::Add, Round::Zero),
    BinOp::Rounded(Arith::Sub, Round::Down),
    BinOp::Rounded(Arith::Sub, Round::Up),
    BinOp::Rounded(Arith::Sub, Round::Zero),
    BinOp::Rounded(Arith::Mul, Round::Down),
    BinOp::Rounded(Arith::Mul, Round::Up),
    BinOp::Rounded(Arith::Mul, Round::Zero),
    BinOp::Rounded(Arith::Div, Round::Down),
    BinOp::Rounded(Arith::Div, Round::Up),
    BinOp::Rounded(Arith::Div, Round::Zero),
];

/// `op`'s code, where it is one of the library's functions of two values.
pub fn code2(op: BinOp) -> Option<u32> {
    LIBRARY2.iter().position(|&o| o == op).map(|i| i as u32)
}

/// The function of two values of a code ([`code2`]).
pub fn op2(code: u32) -> Option<BinOp> {
    LIBRARY2.get(code as usize).copied()
}

/// `op(x, y)` on `float`s (`x` itself for an operation that is not the library's): `powf`,
/// `atan2f` and `fmodf` in `float`, the others in `double` (a `float`'s operands are exact
/// there; rounding the result to `float` gives the `float` function's result but for a
/// last-bit double rounding).
pub fn float2(op: BinOp, x: f32, y: f32) -> f32 {
    match op {
        BinOp::Pow => x.powf(y),
        BinOp::Atan2 => x.atan2(y),
        BinOp::Rem => x % y,
        BinOp::Rounded(a, r) => directed::float(directed::arith(a, r, x.into(), y.into()), r),
        _ => double2(op, f64::from(x), f64::from(y)) as f32,
    }
}

/// `op(x, y)` on `double`s (`x` itself for an operation that is not the library's).
pub fn double2(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Pow => x.powf(y),
        BinOp::Atan2 => x.atan2(y),
        BinOp::Rem => x % y,
        BinOp::Hypot => x.hypot(y),
        BinOp::CopySign => x.copysign(y),
        BinOp::Fdim => libm::fdim(x, y),
        BinOp::Remainder => libm::remainder(x, y),
        BinOp::Ldexp => libm::ldexp(x, y.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32),
        BinOp::Rounded(a, r) => directed::arith(a, r, x, y),
        _ => x,
    }
}
