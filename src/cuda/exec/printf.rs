//! Device `printf`: C's format language over one thread's arguments.
//!
//! The front-end has already applied C's default argument promotions (so a `float` arrives as
//! a `double`) and folded string-literal arguments into the format, so every argument is a
//! scalar: its bits and its type. Conversions follow C99: `%d %i %u %o %x %X %c %e %E %f %F
//! %g %G %a %A %p %%`, the flags `- + space # 0`, width and precision (also `*`), and the
//! length modifiers (`hh h l ll z j t`), which narrow an integer argument as C would. A
//! conversion with no argument left prints as written, as CUDA's `printf` does.

use crate::Dim3;
use crate::cuda::ir::Scalar;

/// One line a thread printed with `printf`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    /// The printing thread's block.
    pub block: Dim3,
    /// The printing thread's index within the block.
    pub thread: Dim3,
    /// The text as `printf` formatted it (with its own newlines, if the format has them).
    pub text: String,
}

/// One argument: its bits (as an IR constant holds them) and its type.
pub(crate) type PrintfArg = (u64, Scalar);

/// Format `format` with `args`.
pub(crate) fn format(format: &str, args: &[PrintfArg]) -> String {
    let mut out = String::with_capacity(format.len() + 16);
    let mut args = args.iter();
    let mut chars = format.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if let Some(&(_, '%')) = chars.peek() {
            chars.next();
            out.push('%');
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&(_, f)) = chars.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            chars.next();
        }
        spec.width = number(&mut chars, &mut args);
        if let Some(w) = spec.width.filter(|w| *w < 0) {
            // A negative `*` width means left-justified.
            spec.left = true;
            spec.width = Some(-w);
        }
        if let Some(&(_, '.')) = chars.peek() {
            chars.next();
            spec.precision = Some(number(&mut chars, &mut args).unwrap_or(0)).filter(|p| *p >= 0);
        }
        // A GPU's printf buffer holds 1 MiB by default: no field is wider than a few pages
        // (and Rust's formatting takes precisions up to 65535 only).
        spec.width = spec.width.map(|w| w.min(MAX_FIELD));
        spec.precision = spec.precision.map(|p| p.min(MAX_FIELD));
        let mut bits = 0u32;
        while let Some(&(_, m)) = chars.peek() {
            bits = match m {
                'h' if bits == 16 => 8,
                'h' => 16,
                'l' | 'j' | 'z' | 't' | 'L' | 'q' => 64,
                _ => break,
            };
            chars.next();
        }
        let Some((end, conv)) = chars.next() else {
            out.push_str(&format[start..]);
            break;
        };
        let Some(&(value, ty)) = args.next() else {
            // Nothing left to print: keep the directive as written.
            out.push_str(&format[start..end + conv.len_utf8()]);
            continue;
        };
        let body = spec.convert(conv, value, ty, bits);
        match body {
            Some(b) => spec.pad(&mut out, b),
            None => out.push_str(&format[start..end + conv.len_utf8()]),
        }
    }
    out
}

/// The widest field and the longest precision printed.
const MAX_FIELD: i64 = 4096;

/// A width or precision: digits, or `*` (taken from the next argument).
fn number<'a>(
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
    args: &mut impl Iterator<Item = &'a PrintfArg>,
) -> Option<i64> {
    if let Some(&(_, '*')) = chars.peek() {
        chars.next();
        return args.next().map(|&(v, t)| signed(v, t));
    }
    let mut n: Option<i64> = None;
    while let Some(&(_, d)) = chars.peek() {
        let Some(d) = d.to_digit(10) else { break };
        n = Some(
            n.unwrap_or(0)
                .saturating_mul(10)
                .saturating_add(i64::from(d)),
        );
        chars.next();
    }
    n
}

/// An integer argument's value as a signed number.
fn signed(v: u64, t: Scalar) -> i64 {
    match t.size() {
        1 => v as i8 as i64,
        2 => v as i16 as i64,
        4 if t.is_signed() => v as i32 as i64,
        4 => i64::from(v as u32),
        _ => v as i64,
    }
}

/// An argument as a `double` (floating arguments are promoted to `F64`).
fn float(v: u64, t: Scalar) -> f64 {
    match t {
        Scalar::F64 => f64::from_bits(v),
        Scalar::F32 => f64::from(f32::from_bits(v as u32)),
        t if t.is_signed() => signed(v, t) as f64,
        _ => v as f64,
    }
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<i64>,
    precision: Option<i64>,
}

/// A converted value: sign or prefix, then digits (zero padding goes between them).
struct Body {
    prefix: String,
    digits: String,
    /// Whether `0` pads (not for strings, characters, infinities and NaNs).
    numeric: bool,
}

impl Spec {
    fn convert(&self, conv: char, v: u64, t: Scalar, bits: u32) -> Option<Body> {
        // The length modifier narrows integers as C reads them; without one, `%d` reads an int.
        let width = if bits == 0 { 32 } else { bits };
        let uint = || {
            let x = if t.is_float() {
                float(v, t) as i64 as u64
            } else {
                v
            };
            if width >= 64 {
                x
            } else {
                x & ((1u64 << width) - 1)
            }
        };
        let int = || {
            let x = uint();
            if width >= 64 {
                x as i64
            } else {
                ((x << (64 - width)) as i64) >> (64 - width)
            }
        };
        let sign = |neg: bool| {
            if neg {
                "-"
            } else if self.plus {
                "+"
            } else if self.space {
                " "
            } else {
                ""
            }
            .to_string()
        };
        let digits = |s: String| match self.precision {
            // An explicit precision is a minimum number of digits; `%.0d` of 0 prints nothing.
            Some(0) if s == "0" => String::new(),
            Some(p) => format!("{s:0>p$}", p = p as usize),
            None => s,
        };
        let body = |prefix: String, digits: String| Body {
            prefix,
            digits,
            numeric: true,
        };
        Some(match conv {
            'd' | 'i' => {
                let x = int();
                body(sign(x < 0), digits(x.unsigned_abs().to_string()))
            }
            'u' => body(String::new(), digits(uint().to_string())),
            'o' => {
                let mut d = digits(format!("{:o}", uint()));
                if self.alt && !d.starts_with('0') {
                    d.insert(0, '0');
                }
                body(String::new(), d)
            }
            'x' | 'X' => {
                let x = uint();
                let mut d = digits(format!("{x:x}"));
                let mut p = if self.alt && x != 0 {
                    "0x".to_string()
                } else {
                    String::new()
                };
                if conv == 'X' {
                    d = d.to_uppercase();
                    p = p.to_uppercase();
                }
                body(p, d)
            }
            'p' => body("0x".into(), format!("{v:x}")),
            'c' => Body {
                prefix: String::new(),
                digits: char::from(v as u8).to_string(),
                numeric: false,
            },
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => {
                let x = float(v, t);
                let neg = x.is_sign_negative() && !x.is_nan();
                let upper = conv.is_ascii_uppercase();
                if !x.is_finite() {
                    let s = if x.is_nan() { "nan" } else { "inf" };
                    return Some(Body {
                        prefix: sign(neg),
                        digits: if upper { s.to_uppercase() } else { s.into() },
                        numeric: false,
                    });
                }
                let p = self.precision.unwrap_or(6) as usize;
                let d = match conv.to_ascii_lowercase() {
                    'f' => fixed(x.abs(), p, self.alt),
                    'e' => exponent(x.abs(), p, self.alt),
                    'g' => general(x.abs(), p, self.alt),
                    _ => hex_float(x.abs(), self.precision.map(|p| p as usize)),
                };
                let (pre, d) = if conv.eq_ignore_ascii_case(&'a') {
                    (format!("{}0x", sign(neg)), d)
                } else {
                    (sign(neg), d)
                };
                body(
                    if upper { pre.to_uppercase() } else { pre },
                    if upper { d.to_uppercase() } else { d },
                )
            }
            's' => return None,
            _ => return None,
        })
    }

    fn pad(&self, out: &mut String, b: Body) {
        let len = b.prefix.chars().count() + b.digits.chars().count();
        let width = self.width.unwrap_or(0).max(0) as usize;
        let fill = width.saturating_sub(len);
        if self.left {
            out.push_str(&b.prefix);
            out.push_str(&b.digits);
            out.extend(std::iter::repeat_n(' ', fill));
        } else if self.zero && b.numeric && (self.precision.is_none() || !is_int_digits(&b)) {
            out.push_str(&b.prefix);
            out.extend(std::iter::repeat_n('0', fill));
            out.push_str(&b.digits);
        } else {
            out.extend(std::iter::repeat_n(' ', fill));
            out.push_str(&b.prefix);
            out.push_str(&b.digits);
        }
    }
}

/// Whether a body is an integer's digits (C ignores `0` for integers with a precision).
fn is_int_digits(b: &Body) -> bool {
    b.digits.chars().all(|c| c.is_ascii_hexdigit())
}

/// `%f`.
fn fixed(x: f64, p: usize, alt: bool) -> String {
    let mut s = format!("{x:.p$}");
    if alt && p == 0 {
        s.push('.');
    }
    s
}

/// `%e`: at least two exponent digits, as C prints them.
fn exponent(x: f64, p: usize, alt: bool) -> String {
    let s = format!("{x:.p$e}");
    let (mant, exp) = s.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let mut mant = mant.to_string();
    if alt && p == 0 {
        mant.push('.');
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", exp.abs())
}

/// `%g`: `%e` or `%f` by the exponent, trailing zeros removed unless `#`.
fn general(x: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let exp = if x == 0.0 {
        0
    } else {
        // The exponent after rounding to `p` significant digits.
        let s = format!("{x:.prec$e}", prec = p - 1);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let s = if exp < -4 || exp >= p as i32 {
        exponent(x, p - 1, alt)
    } else {
        fixed(x, (p as i32 - 1 - exp).max(0) as usize, alt)
    };
    if alt {
        return s;
    }
    let (mant, tail) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (&s[..], ""),
    };
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.')
    } else {
        mant
    };
    format!("{mant}{tail}")
}

/// `%a` (without its `0x`): `h.hhhp±d`.
fn hex_float(x: f64, precision: Option<usize>) -> String {
    if x == 0.0 {
        let frac = precision
            .filter(|&p| p > 0)
            .map_or(String::new(), |p| format!(".{}", "0".repeat(p)));
        return format!("0{frac}p+0");
    }
    let bits = x.to_bits();
    let (mut lead, mut exp, mut mant) = if bits >> 52 & 0x7ff == 0 {
        (0u64, -1022i64, bits & ((1 << 52) - 1))
    } else {
        (
            1u64,
            (bits >> 52 & 0x7ff) as i64 - 1023,
            bits & ((1 << 52) - 1),
        )
    };
    let mut digits = 13;
    if let Some(p) = precision.filter(|&p| p < 13) {
        // Round the 52-bit fraction to `p` hex digits, half to even.
        let drop = 4 * (13 - p) as u32;
        let rem = mant & ((1 << drop) - 1);
        mant >>= drop;
        let half = 1u64 << (drop - 1);
        if rem > half || (rem == half && mant & 1 == 1) {
            mant += 1;
            if mant >> (4 * p) != 0 {
                mant &= (1 << (4 * p)) - 1;
                lead += 1;
                if lead == 2 {
                    lead = 1;
                    exp += 1;
                }
            }
        }
        digits = p;
    }
    let mut frac = if digits == 0 {
        String::new()
    } else {
        format!("{mant:0digits$x}")
    };
    if precision.is_none() {
        frac = frac.trim_end_matches('0').to_string();
    }
    let dot = if frac.is_empty() { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{lead}{dot}{frac}p{sign}{}", exp.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i32) -> PrintfArg {
        (v as i64 as u64, Scalar::I32)
    }
    fn d(v: f64) -> PrintfArg {
        (v.to_bits(), Scalar::F64)
    }

    #[test]
    fn integers_follow_c() {
        assert_eq!(
            format(
                "%d|%5d|%-5d|%05d|%+d|% d",
                &[i(-3), i(42), i(42), i(-42), i(7), i(7)]
            ),
            "-3|   42|42   |-0042|+7| 7"
        );
        assert_eq!(
            format(
                "%u %x %X %#x %o %#o",
                &[i(-1), i(255), i(255), i(255), i(8), i(8)]
            ),
            "4294967295 ff FF 0xff 10 010"
        );
        assert_eq!(
            format("%.3d|%8.3d|%.0d", &[i(5), i(-5), i(0)]),
            "005|    -005|"
        );
        assert_eq!(
            format(
                "%lld %llu",
                &[(u64::MAX, Scalar::I64), (u64::MAX, Scalar::U64)]
            ),
            "-1 18446744073709551615"
        );
        assert_eq!(format("%hhd %hu", &[i(257), i(-1)]), "1 65535");
        assert_eq!(format("%c%c", &[i(72), i(105)]), "Hi");
    }

    #[test]
    fn fields_are_bounded() {
        // Absurd widths and precisions neither panic nor print gigabytes.
        assert_eq!(
            format("%.1000000000f", &[d(1.0)]).len(),
            2 + MAX_FIELD as usize
        );
        assert_eq!(format("%1000000000d", &[i(7)]).len(), MAX_FIELD as usize);
        assert_eq!(format("%*d", &[i(i32::MIN), i(7)]).trim_end(), "7");
    }

    #[test]
    fn floats_follow_c() {
        assert_eq!(
            format(
                "%f %.2f %8.3f %-8.1f|",
                &[d(1.5), d(1.23456), d(-2.0), d(0.25)]
            ),
            "1.500000 1.23   -2.000 0.2     |"
        );
        assert_eq!(
            format("%e %.2E", &[d(12345.678), d(0.000123)]),
            "1.234568e+04 1.23E-04"
        );
        assert_eq!(
            format(
                "%g %g %g %g",
                &[d(100000.0), d(1000000.0), d(0.0001), d(0.00001)]
            ),
            "100000 1e+06 0.0001 1e-05"
        );
        assert_eq!(
            format("%g %#g %G", &[d(1.5), d(1.5), d(1e-10)]),
            "1.5 1.50000 1E-10"
        );
        assert_eq!(
            format(
                "%f %F %e",
                &[d(f64::INFINITY), d(f64::NAN), d(f64::NEG_INFINITY)]
            ),
            "inf NAN -inf"
        );
        assert_eq!(
            format("%a %.1a %A", &[d(1.0), d(1.96875), d(0.5)]),
            "0x1p+0 0x1.0p+1 0X1P-1"
        );
        assert_eq!(
            format("%010.3f|%+.1f", &[d(-1.23456), d(2.25)]),
            "-00001.235|+2.2"
        );
    }

    #[test]
    fn star_widths_percent_and_missing_arguments() {
        assert_eq!(
            format("%*d|%-*d|%.*f", &[i(4), i(7), i(3), i(1), i(2), d(1.0)]),
            "   7|1  |1.00"
        );
        assert_eq!(format("100%% %d %d", &[i(1)]), "100% 1 %d");
        assert_eq!(format("tail %", &[]), "tail %");
    }
}
