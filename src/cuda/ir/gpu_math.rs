//! CUDA's math functions as the GPU computes them, where they are not correctly rounded and
//! their code is plain arithmetic that the CPU can repeat bit for bit.
//!
//! Each is the instruction sequence nvcc 13 emits for sm_90 at default flags (read from
//! `cuobjdump -sass`), step by step: every `FFMA` a fused multiply-add rounded once, every
//! constant the instruction's own. Functions whose GPU code uses the hardware's approximate
//! units (`expf`'s `MUFU.EX2`) are not here: their bits are the chip's. Not yet compared with a
//! GPU's results over many operands (`logf` is checked to stay within CUDA's documented 1 ulp).

/// `logf(x)`: CUDA's, at most 1 ulp from the exact logarithm, and not always the correctly
/// rounded value a C library returns (Rodinia srad's `log(d_I[ei]) * 255`).
pub fn logf(x: f32) -> f32 {
    // Subnormals are scaled into the normal range first (the exponent corrected by -23).
    let (x, e) = if x >= f32::MIN_POSITIVE || x.is_nan() {
        (x, 0.0f32)
    } else {
        (x * 8_388_608.0, -23.0f32)
    };
    let bits = x.to_bits();
    // The exponent that brings the mantissa into [2/3, 4/3), and that mantissa minus one.
    let shift = bits.wrapping_sub(0x3f2a_aaab) & 0xff80_0000;
    let f = f32::from_bits(bits.wrapping_sub(shift)) - 1.0;
    let e = (shift as i32 as f32).mul_add(f32::EPSILON, e);
    // The polynomial, its leading coefficient a pair of half constants read as one float.
    let mut p = f.mul_add(-f32::from_bits(0x3e05_5027), f32::from_bits(0x3e10_39f6));
    for c in [
        0xbdf8_cdcc,
        0x3e0f_2955,
        0xbe2a_d8b9,
        0x3e4c_ed0b,
        0xbe7f_ff22,
        0x3eaa_aa78,
        0xbf00_0000,
    ] {
        p = f.mul_add(p, f32::from_bits(c));
    }
    let p = f * p;
    let mut r = e.mul_add(std::f32::consts::LN_2, f.mul_add(p, f));
    if bits >= 0x7f80_0000 {
        // Infinity, NaN and negative numbers: x * inf + inf.
        r = x.mul_add(f32::INFINITY, f32::INFINITY);
    }
    if x == 0.0 { f32::NEG_INFINITY } else { r }
}

#[cfg(test)]
mod tests {
    use super::logf;

    #[test]
    fn logf_is_within_an_ulp_of_the_exact_logarithm() {
        let mut worst = 0.0f64;
        let mut bits = 1u32;
        while bits < 0x7f80_0000 {
            let x = f32::from_bits(bits);
            let exact = f64::from(x).ln();
            let got = f64::from(logf(x));
            let ulp = f64::from(f32::from_bits((exact as f32).abs().to_bits() + 1))
                - f64::from((exact as f32).abs());
            if exact != 0.0 {
                worst = worst.max((got - exact).abs() / ulp);
            }
            bits += 997;
        }
        assert!(worst <= 1.0, "{worst} ulp");
        assert_eq!(logf(1.0), 0.0);
        assert_eq!(logf(0.0), f32::NEG_INFINITY);
        assert_eq!(logf(-0.0), f32::NEG_INFINITY);
        assert_eq!(logf(f32::INFINITY), f32::INFINITY);
        assert!(logf(-1.0).is_nan() && logf(f32::NAN).is_nan());
    }
}
