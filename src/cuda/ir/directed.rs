//! IEEE arithmetic rounded in a direction (CUDA's `_rd`, `_ru` and `_rz` intrinsics), exact,
//! on `double`s; `float` results are the `double` result rounded again in the same direction,
//! which is the `float` operation's own result (a directed rounding of a directed rounding to a
//! finer format is the coarser one of the exact value), and a `float` operation's operands are
//! exact in `double`.
//!
//! Each operation is computed to nearest, then moved to its neighbour where the exact result
//! lies beyond it in the direction asked. Which side it lies on is found exactly: the rounding
//! error of a sum (Knuth's two-sum), or the residual of a product, quotient or square root by
//! one fused multiply-add on operands scaled near 1, where it cannot underflow. Overflow to
//! infinity and underflow to zero are sides too (a finite result beyond the largest `double`
//! rounds down to it; an exact result below the least one up to it).

use super::{Arith, Round};
use std::cmp::Ordering;

/// `nearest` (the exact result rounded to nearest), or its neighbour in direction `round` where
/// the exact result lies on that side of it (`side`: the exact result against `nearest`).
macro_rules! step {
    ($nearest:expr, $side:expr, $round:expr) => {{
        let r = $nearest;
        match ($round, $side) {
            (Round::Up, Ordering::Greater) => r.next_up(),
            (Round::Down, Ordering::Less) => r.next_down(),
            (Round::Zero, Ordering::Less) if r > 0.0 => r.next_down(),
            (Round::Zero, Ordering::Greater) if r < 0.0 => r.next_up(),
            _ => r,
        }
    }};
}

/// `a op b` rounded in direction `round`.
pub fn arith(op: Arith, round: Round, a: f64, b: f64) -> f64 {
    let (nearest, side) = match op {
        Arith::Add => return sum(a, b, round),
        Arith::Sub => return sum(a, -b, round),
        Arith::Mul => product(a, b),
        Arith::Div => quotient(a, b),
    };
    step!(nearest, side, round)
}

/// The square root of `a` rounded in direction `round`.
pub fn sqrt(a: f64, round: Round) -> f64 {
    let r = a.sqrt();
    if !(a > 0.0 && a.is_finite()) {
        // ±0, ∞, NaN and negative operands: exact (or NaN).
        return r;
    }
    // a = m × 2^e with e even and m in [0.5, 2): √a = √m × 2^(e/2).
    let (m, e) = libm::frexp(a);
    let (m, e) = if e % 2 != 0 { (m * 2.0, e - 1) } else { (m, e) };
    let rs = libm::ldexp(r, -e / 2);
    let residual = (-rs).mul_add(rs, m);
    step!(r, sign(residual), round)
}

/// `x` rounded to a `float` in direction `round` (as a `double`; a `float` value converts to
/// `float` exactly).
pub fn narrow(x: f64, round: Round) -> f64 {
    let r = x as f32;
    let side = x.partial_cmp(&f64::from(r)).unwrap_or(Ordering::Equal);
    f64::from(step!(r, side, round))
}

/// A `float` operation rounded in direction `round`: the `double` one, rounded again.
pub fn float(x: f64, round: Round) -> f32 {
    narrow(x, round) as f32
}

/// `a + b` rounded in direction `round`.
fn sum(a: f64, b: f64, round: Round) -> f64 {
    let s = a + b;
    if s == 0.0 {
        // Exact. A zero sum is −0 toward −∞ unless both are +0 (IEEE 754 §6.3), else as to
        // nearest.
        let both_plus = a.to_bits() == 0 && b.to_bits() == 0;
        return if round == Round::Down && !both_plus {
            -0.0
        } else {
            s
        };
    }
    let side = if !s.is_finite() {
        overflowed(s, a.is_finite() && b.is_finite())
    } else {
        // Two-sum: s + error is a + b exactly.
        let bb = s - a;
        sign((a - (s - bb)) + (b - bb))
    };
    step!(s, side, round)
}

/// `a × b` to nearest and the side of it the exact product lies on.
fn product(a: f64, b: f64) -> (f64, Ordering) {
    let r = a * b;
    let side = edge(r, a, b).unwrap_or_else(|| {
        // a × b = ma × mb × 2^(ea + eb), ma and mb in [0.5, 1): compare with r scaled alike.
        let (ma, ea) = libm::frexp(a);
        let (mb, eb) = libm::frexp(b);
        let rs = libm::ldexp(r, -(ea + eb));
        sign(ma.mul_add(mb, -rs))
    });
    (r, side)
}

/// `a / b` to nearest and the side of it the exact quotient lies on.
fn quotient(a: f64, b: f64) -> (f64, Ordering) {
    let q = a / b;
    let side = edge(q, a, b).unwrap_or_else(|| {
        // a / b = (ma / mb) × 2^(ea - eb): ma - qs × mb has the sign of ma / mb - qs times
        // mb's.
        let (ma, ea) = libm::frexp(a);
        let (mb, eb) = libm::frexp(b);
        let qs = libm::ldexp(q, eb - ea);
        let side = sign((-qs).mul_add(mb, ma));
        if mb < 0.0 { side.reverse() } else { side }
    });
    (q, side)
}

/// The side of `r`, a product's or quotient's result to nearest, where it needs no residual:
/// exact (an operand infinite, NaN or zero, or a division by zero), or overflowed to infinity
/// or underflowed to zero.
fn edge(r: f64, a: f64, b: f64) -> Option<Ordering> {
    if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
        Some(Ordering::Equal)
    } else if r.is_infinite() || r == 0.0 {
        Some(overflowed(r, true))
    } else {
        None
    }
}

/// The side of `r` (infinite, or zero) that the exact result lies on where it overflowed to
/// infinity or underflowed to zero from finite, nonzero operands (`from_finite`); exact
/// otherwise.
fn overflowed(r: f64, from_finite: bool) -> Ordering {
    match (from_finite, r.is_infinite(), r.is_sign_positive()) {
        (false, ..) => Ordering::Equal,
        (true, true, true) | (true, false, false) => Ordering::Less,
        (true, true, false) | (true, false, true) => Ordering::Greater,
    }
}

/// The sign of `x` as an ordering against zero.
fn sign(x: f64) -> Ordering {
    x.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUNDS: [Round; 3] = [Round::Down, Round::Up, Round::Zero];

    /// The exact result of a `float` operation on small integers scaled by powers of two,
    /// in `f64` (exact for these operands), against the directed `float` results.
    #[test]
    fn float_results_bracket_the_exact_result() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let (x, y) = (next(), next());
            // Operands of up to 24 bits at exponents within a few dozen: sums and products
            // are exact in f64.
            let a = ((x & 0xff_ffff) as f64 - 8_388_608.0) * 2f64.powi((x >> 40) as i32 % 20 - 10);
            let b = ((y & 0xff_ffff) as f64 - 8_388_608.0) * 2f64.powi((y >> 40) as i32 % 20 - 10);
            let (a, b) = (a as f32 as f64, b as f32 as f64);
            for (op, exact) in [
                (Arith::Add, a + b),
                (Arith::Sub, a - b),
                (Arith::Mul, a * b),
            ] {
                let [down, up, zero] = ROUNDS.map(|r| float(arith(op, r, a, b), r) as f64);
                assert!(
                    down <= exact && exact <= up,
                    "{op:?} {a} {b}: {down} {exact} {up}"
                );
                let exact32 = exact as f32 as f64 == exact;
                assert_eq!(down == up, exact32, "{op:?} {a} {b}");
                if !exact32 {
                    assert_eq!((down as f32).next_up() as f64, up, "{op:?} {a} {b}");
                }
                assert_eq!(zero, if exact < 0.0 { up } else { down }, "{op:?} {a} {b}");
            }
        }
    }

    /// `double` sums and products of integers scaled by small powers of two, against their
    /// exact value in `i128` (scaled by 2^16: every operand and result is then an integer).
    #[test]
    fn double_results_bracket_the_exact_result() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let scaled = |x: f64| (x * 65536.0) as i128;
        for _ in 0..20_000 {
            let (x, y, e) = (next(), next(), next());
            let (ea, eb) = ((e & 15) as i32 - 8, ((e >> 8) & 15) as i32 - 8);
            for (op, bits) in [(Arith::Add, 53), (Arith::Sub, 53), (Arith::Mul, 40)] {
                let ma = (x >> (64 - bits)) as i64 - (1 << (bits - 1));
                let mb = (y >> (64 - bits)) as i64 - (1 << (bits - 1));
                let (a, b) = (ma as f64 * 2f64.powi(ea), mb as f64 * 2f64.powi(eb));
                let exact = match op {
                    Arith::Add => scaled(a) + scaled(b),
                    Arith::Sub => scaled(a) - scaled(b),
                    _ => (i128::from(ma) * i128::from(mb)) << (ea + eb + 16),
                };
                let [down, up, zero] = ROUNDS.map(|r| arith(op, r, a, b));
                let (d, u) = (scaled(down), scaled(up));
                assert!(d <= exact && exact <= u, "{op:?} {a} {b}: {down} {up}");
                assert_eq!(d == u, d == exact, "{op:?} {a} {b}");
                if d != u {
                    assert_eq!(down.next_up(), up, "{op:?} {a} {b}");
                }
                assert_eq!(zero, if exact < 0 { up } else { down }, "{op:?} {a} {b}");
            }
        }
    }

    #[test]
    fn edges() {
        let (max, tiny) = (f64::MAX, f64::from_bits(1));
        assert_eq!(arith(Arith::Add, Round::Down, max, max), max);
        assert_eq!(arith(Arith::Add, Round::Up, max, max), f64::INFINITY);
        assert_eq!(arith(Arith::Mul, Round::Zero, -max, 2.0), -max);
        assert_eq!(arith(Arith::Mul, Round::Up, tiny, 0.5), tiny);
        assert_eq!(arith(Arith::Mul, Round::Down, tiny, 0.5), 0.0);
        assert_eq!(arith(Arith::Mul, Round::Down, -tiny, 0.5), -tiny);
        assert_eq!(
            arith(Arith::Div, Round::Up, 1.0, 3.0),
            (1.0f64 / 3.0).next_up()
        );
        assert_eq!(arith(Arith::Div, Round::Down, 1.0, 3.0), 1.0 / 3.0);
        assert_eq!(
            arith(Arith::Div, Round::Down, -1.0, 3.0),
            (-1.0f64 / 3.0).next_down()
        );
        assert_eq!(arith(Arith::Div, Round::Zero, 1.0, -3.0), -1.0 / 3.0);
        assert!(arith(Arith::Sub, Round::Down, 3.0, 3.0).is_sign_negative());
        assert!(arith(Arith::Sub, Round::Up, 3.0, 3.0).is_sign_positive());
        assert!(arith(Arith::Add, Round::Down, 0.0, 0.0).is_sign_positive());
        // √2 = 1.41421356237309504880…, to nearest 1.41421356237309514547…
        assert_eq!(sqrt(2.0, Round::Up), 2f64.sqrt());
        assert_eq!(sqrt(2.0, Round::Down), 2f64.sqrt().next_down());
        assert_eq!(sqrt(4.0, Round::Up), 2.0);
        assert_eq!(narrow(1e300, Round::Down), f64::from(f32::MAX));
        assert_eq!(narrow(1e300, Round::Up), f64::INFINITY);
        assert_eq!(narrow(-1e-300, Round::Zero), -0.0);
        assert_eq!(narrow(-1e-300, Round::Down), -f64::from(f32::from_bits(1)));
        assert_eq!(narrow(0.1, Round::Up), f64::from(0.1f32));
        assert_eq!(narrow(0.1, Round::Down), f64::from(0.1f32.next_down()));
    }
}
