//! Constant folding with C's semantics: integer arithmetic wraps in its type, conversions
//! truncate, saturate or extend as C (and the IR) define them, comparisons give `bool`.
//! Folding is what turns template parameters and `#define`d sizes into compile-time
//! decisions (`if (blockSize >= 512)` disappears), as nvcc does.

use crate::cuda::ir::{BinOp, CmpOp, Const, Scalar, UnOp};

/// A constant of type `ty` from an integer value (wrapped to the type).
pub fn int(ty: Scalar, v: i128) -> Const {
    let bits = match ty {
        Scalar::Bool => u64::from(v != 0),
        Scalar::I8 => v as i8 as i64 as u64,
        Scalar::U8 => v as u8 as u64,
        Scalar::I16 => v as i16 as i64 as u64,
        Scalar::U16 => v as u16 as u64,
        Scalar::I32 => v as i32 as i64 as u64,
        Scalar::U32 => v as u32 as u64,
        Scalar::I64 => v as i64 as u64,
        Scalar::U64 => v as u64,
        Scalar::F32 => (v as f32).to_bits() as u64,
        Scalar::F64 => (v as f64).to_bits(),
    };
    Const { ty, bits }
}

/// A floating constant of type `ty` (`F32` rounds).
pub fn float(ty: Scalar, v: f64) -> Const {
    match ty {
        Scalar::F32 => Const {
            ty,
            bits: u64::from((v as f32).to_bits()),
        },
        Scalar::F64 => Const {
            ty,
            bits: v.to_bits(),
        },
        _ => convert(
            Const {
                ty: Scalar::F64,
                bits: v.to_bits(),
            },
            ty,
        ),
    }
}

/// The integer value of an integer constant (sign-extended for signed types).
pub fn as_int(c: Const) -> i128 {
    match c.ty {
        Scalar::F32 => f32::from_bits(c.bits as u32) as i128,
        Scalar::F64 => f64::from_bits(c.bits) as i128,
        s if s.is_signed() => c.bits as i64 as i128,
        _ => c.bits as i128,
    }
}

/// The value of a constant as `f64`.
pub fn as_f64(c: Const) -> f64 {
    match c.ty {
        Scalar::F32 => f64::from(f32::from_bits(c.bits as u32)),
        Scalar::F64 => f64::from_bits(c.bits),
        _ => as_int(c) as f64,
    }
}

/// Whether a constant is non-zero.
pub fn truthy(c: Const) -> bool {
    if c.ty.is_float() {
        as_f64(c) != 0.0
    } else {
        c.bits != 0
    }
}

/// C's conversion of a constant to `to`.
pub fn convert(c: Const, to: Scalar) -> Const {
    if c.ty == to {
        return c;
    }
    if to == Scalar::Bool {
        return int(Scalar::Bool, i128::from(truthy(c)));
    }
    if to.is_float() {
        return if c.ty.is_float() {
            float(to, as_f64(c))
        } else {
            let v = as_int(c);
            match to {
                Scalar::F32 => Const {
                    ty: to,
                    bits: u64::from((v as f32).to_bits()),
                },
                _ => Const {
                    ty: to,
                    bits: (v as f64).to_bits(),
                },
            }
        };
    }
    if c.ty.is_float() {
        // Truncate toward zero, saturate, NaN gives 0 (Rust's `as` does exactly that).
        let f = as_f64(c);
        let v: i128 = match to {
            Scalar::I8 => f as i8 as i128,
            Scalar::U8 => f as u8 as i128,
            Scalar::I16 => f as i16 as i128,
            Scalar::U16 => f as u16 as i128,
            Scalar::I32 => f as i32 as i128,
            Scalar::U32 => f as u32 as i128,
            Scalar::I64 => f as i64 as i128,
            _ => f as u64 as i128,
        };
        return int(to, v);
    }
    int(to, as_int(c))
}

/// Fold `a op b` in type `ty` (both already of that type); `None` when it must run (division
/// by zero, transcendental functions).
pub fn binary(op: BinOp, ty: Scalar, a: Const, b: Const) -> Option<Const> {
    if ty.is_float() {
        let (x, y) = (as_f64(a), as_f64(b));
        let v = match (op, ty) {
            (BinOp::Add, Scalar::F32) => f64::from(x as f32 + y as f32),
            (BinOp::Sub, Scalar::F32) => f64::from(x as f32 - y as f32),
            (BinOp::Mul, Scalar::F32) => f64::from(x as f32 * y as f32),
            (BinOp::Div, Scalar::F32) => f64::from(x as f32 / y as f32),
            (BinOp::Add, _) => x + y,
            (BinOp::Sub, _) => x - y,
            (BinOp::Mul, _) => x * y,
            (BinOp::Div, _) => x / y,
            (BinOp::Min, _) => x.min(y),
            (BinOp::Max, _) => x.max(y),
            _ => return None,
        };
        return Some(float(ty, v));
    }
    let bits = ty.size() * 8;
    let (x, y) = (as_int(a), as_int(b));
    let v = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div if y == 0 => return None,
        BinOp::Div => x / y,
        BinOp::Rem if y == 0 => return None,
        BinOp::Rem => x % y,
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::Shl if y < 0 || y >= i128::from(bits) => 0,
        BinOp::Shl => x << y,
        BinOp::Shr if y < 0 || y >= i128::from(bits) => {
            if ty.is_signed() && x < 0 {
                -1
            } else {
                0
            }
        }
        BinOp::Shr => x >> y,
        BinOp::Min => x.min(y),
        BinOp::Max => x.max(y),
        _ => return None,
    };
    Some(int(ty, v))
}

/// Fold a comparison of two constants of type `of`.
pub fn compare(op: CmpOp, of: Scalar, a: Const, b: Const) -> Const {
    let r = if of.is_float() {
        let (x, y) = (as_f64(a), as_f64(b));
        match op {
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
        }
    } else {
        let (x, y) = (as_int(a), as_int(b));
        match op {
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
        }
    };
    int(Scalar::Bool, i128::from(r))
}

/// Fold a unary operation, when it is simple.
pub fn unary(op: UnOp, ty: Scalar, a: Const) -> Option<Const> {
    Some(match op {
        UnOp::Neg if ty.is_float() => float(ty, -as_f64(a)),
        UnOp::Neg => int(ty, -as_int(a)),
        UnOp::Not if !ty.is_float() => int(ty, !as_int(a)),
        UnOp::LogicalNot => int(Scalar::Bool, i128::from(!truthy(a))),
        UnOp::Abs if ty.is_float() => float(ty, as_f64(a).abs()),
        UnOp::Abs => int(ty, as_int(a).abs()),
        _ => return None,
    })
}
