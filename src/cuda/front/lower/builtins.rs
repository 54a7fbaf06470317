//! Calls: user `__device__` functions (inlined by [`super`]) and CUDA's built-ins —
//! barriers, warp shuffles and votes, atomics, `__ldg`, the math library with CUDA's device
//! overloads, integer intrinsics, `make_float4` & co, device `printf`, `assert`, and the
//! basics of cooperative groups (`this_thread_block`, `tiled_partition<n>`, `sync`,
//! `thread_rank`, tile shuffles). Each built-in becomes the IR statement or operation that
//! the executor runs as the corresponding [`crate::Block`] operation.

use super::consts;
use super::types::{Group, Ty, promote, scalar_type, usual, vector_type};
use super::{ArgIn, Lowerer, Place, R, Val, bool_const};
use crate::cuda::front::ast::{self, ExprKind, TemplateArg};
use crate::cuda::ir::{
    Arith, AtomicOp, Axis, Base, BinOp, Builtin, CmpOp, FpTest, MathFn, Op, Operand, Round, Scalar,
    ShflKind, Site, Stmt, SyncKind, UnOp, VarId, VoteKind, WarpReduce, texture,
};

const FULL: u32 = 0xffff_ffff;

fn u32c(v: u32) -> Operand {
    Operand::Const(consts::int(Scalar::U32, i128::from(v)))
}

fn u64c(v: u64) -> Operand {
    Operand::Const(consts::int(Scalar::U64, i128::from(v)))
}

/// Math functions of one argument: name, operation, type (`None`: overloaded on the
/// argument, `float` stays `float`, integers become `double`).
const UNARY_MATH: &[(&str, UnOp, Option<Scalar>)] = &[
    ("sqrtf", UnOp::Sqrt, Some(Scalar::F32)),
    ("sqrt", UnOp::Sqrt, None),
    ("rsqrtf", UnOp::Rsqrt, Some(Scalar::F32)),
    ("rsqrt", UnOp::Rsqrt, None),
    ("expf", UnOp::Exp, Some(Scalar::F32)),
    ("__expf", UnOp::Exp, Some(Scalar::F32)),
    ("exp", UnOp::Exp, None),
    ("exp2f", UnOp::Exp2, Some(Scalar::F32)),
    ("exp2", UnOp::Exp2, None),
    ("logf", UnOp::Log, Some(Scalar::F32)),
    ("__logf", UnOp::Log, Some(Scalar::F32)),
    ("log", UnOp::Log, None),
    ("log2f", UnOp::Log2, Some(Scalar::F32)),
    ("__log2f", UnOp::Log2, Some(Scalar::F32)),
    ("log2", UnOp::Log2, None),
    ("log10f", UnOp::Log10, Some(Scalar::F32)),
    ("__log10f", UnOp::Log10, Some(Scalar::F32)),
    ("log10", UnOp::Log10, None),
    ("fabsf", UnOp::Abs, Some(Scalar::F32)),
    ("fabs", UnOp::Abs, None),
    ("floorf", UnOp::Floor, Some(Scalar::F32)),
    ("floor", UnOp::Floor, None),
    ("ceilf", UnOp::Ceil, Some(Scalar::F32)),
    ("ceil", UnOp::Ceil, None),
    ("truncf", UnOp::Trunc, Some(Scalar::F32)),
    ("trunc", UnOp::Trunc, None),
    ("roundf", UnOp::Round, Some(Scalar::F32)),
    ("round", UnOp::Round, None),
    ("rintf", UnOp::Rint, Some(Scalar::F32)),
    ("nearbyintf", UnOp::Rint, Some(Scalar::F32)),
    ("rint", UnOp::Rint, None),
    ("sinf", UnOp::Sin, Some(Scalar::F32)),
    ("__sinf", UnOp::Sin, Some(Scalar::F32)),
    ("sin", UnOp::Sin, None),
    ("cosf", UnOp::Cos, Some(Scalar::F32)),
    ("__cosf", UnOp::Cos, Some(Scalar::F32)),
    ("cos", UnOp::Cos, None),
    ("tanf", UnOp::Tan, Some(Scalar::F32)),
    ("__tanf", UnOp::Tan, Some(Scalar::F32)),
    ("tan", UnOp::Tan, None),
    ("tanhf", UnOp::Tanh, Some(Scalar::F32)),
    ("tanh", UnOp::Tanh, None),
    ("asinf", UnOp::Math(MathFn::Asin), Some(Scalar::F32)),
    ("asin", UnOp::Math(MathFn::Asin), None),
    ("acosf", UnOp::Math(MathFn::Acos), Some(Scalar::F32)),
    ("acos", UnOp::Math(MathFn::Acos), None),
    ("atanf", UnOp::Math(MathFn::Atan), Some(Scalar::F32)),
    ("atan", UnOp::Math(MathFn::Atan), None),
    ("sinhf", UnOp::Math(MathFn::Sinh), Some(Scalar::F32)),
    ("sinh", UnOp::Math(MathFn::Sinh), None),
    ("coshf", UnOp::Math(MathFn::Cosh), Some(Scalar::F32)),
    ("cosh", UnOp::Math(MathFn::Cosh), None),
    ("asinhf", UnOp::Math(MathFn::Asinh), Some(Scalar::F32)),
    ("asinh", UnOp::Math(MathFn::Asinh), None),
    ("acoshf", UnOp::Math(MathFn::Acosh), Some(Scalar::F32)),
    ("acosh", UnOp::Math(MathFn::Acosh), None),
    ("atanhf", UnOp::Math(MathFn::Atanh), Some(Scalar::F32)),
    ("atanh", UnOp::Math(MathFn::Atanh), None),
    ("cbrtf", UnOp::Math(MathFn::Cbrt), Some(Scalar::F32)),
    ("cbrt", UnOp::Math(MathFn::Cbrt), None),
    ("erff", UnOp::Math(MathFn::Erf), Some(Scalar::F32)),
    ("erf", UnOp::Math(MathFn::Erf), None),
    ("erfcf", UnOp::Math(MathFn::Erfc), Some(Scalar::F32)),
    ("erfc", UnOp::Math(MathFn::Erfc), None),
    ("lgammaf", UnOp::Math(MathFn::Lgamma), Some(Scalar::F32)),
    ("lgamma", UnOp::Math(MathFn::Lgamma), None),
    ("tgammaf", UnOp::Math(MathFn::Tgamma), Some(Scalar::F32)),
    ("tgamma", UnOp::Math(MathFn::Tgamma), None),
    ("expm1f", UnOp::Math(MathFn::Expm1), Some(Scalar::F32)),
    ("expm1", UnOp::Math(MathFn::Expm1), None),
    ("log1pf", UnOp::Math(MathFn::Log1p), Some(Scalar::F32)),
    ("log1p", UnOp::Math(MathFn::Log1p), None),
    ("exp10f", UnOp::Math(MathFn::Exp10), Some(Scalar::F32)),
    ("exp10", UnOp::Math(MathFn::Exp10), None),
    ("sinpif", UnOp::Math(MathFn::SinPi), Some(Scalar::F32)),
    ("sinpi", UnOp::Math(MathFn::SinPi), None),
    ("cospif", UnOp::Math(MathFn::CosPi), Some(Scalar::F32)),
    ("cospi", UnOp::Math(MathFn::CosPi), None),
    ("logbf", UnOp::Math(MathFn::Logb), Some(Scalar::F32)),
    ("logb", UnOp::Math(MathFn::Logb), None),
    ("normcdff", UnOp::Math(MathFn::NormCdf), Some(Scalar::F32)),
    ("normcdf", UnOp::Math(MathFn::NormCdf), None),
    ("__exp10f", UnOp::Math(MathFn::Exp10), Some(Scalar::F32)),
];

/// An intrinsic's name without its `__` and rounding mode (`__fadd_rd`: `fadd`), and the mode
/// (`None`: `_rn`, to nearest).
fn rounding_mode(name: &str) -> Option<(&str, Option<Round>)> {
    let (stem, mode) = name.strip_prefix("__")?.rsplit_once("_r")?;
    let round = match mode {
        "n" => None,
        "d" => Some(Round::Down),
        "u" => Some(Round::Up),
        "z" => Some(Round::Zero),
        _ => return None,
    };
    Some((stem, round))
}

/// Whether `name` is an intrinsic of arithmetic or conversion in a rounding mode (pure: no
/// side effects, no faults).
pub(super) fn is_rounding_intrinsic(name: &str) -> bool {
    rounded_intrinsic(name).is_some() || conversion_intrinsic(name).is_some()
}

/// The intrinsics of IEEE arithmetic in a rounding mode.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RoundedFn {
    Arith(Arith),
    Sqrt,
    /// `1 / x`.
    Rcp,
    /// `a × b + c`.
    Fma,
}

/// What an intrinsic of IEEE arithmetic in a rounding mode names (`__fadd_rd`, `__dsqrt_ru`,
/// `__frcp_rz`, `__fmaf_rn`, …): the operation, its type, its direction (`None`: to nearest,
/// the plain operation).
fn rounded_intrinsic(name: &str) -> Option<(RoundedFn, Scalar, Option<Round>)> {
    let (stem, round) = rounding_mode(name)?;
    let (f, t) = match stem {
        "fmaf" => (RoundedFn::Fma, Scalar::F32),
        "fma" => (RoundedFn::Fma, Scalar::F64),
        _ => {
            let t = match stem.as_bytes().first()? {
                b'f' => Scalar::F32,
                b'd' => Scalar::F64,
                _ => return None,
            };
            let f = match &stem[1..] {
                "add" => RoundedFn::Arith(Arith::Add),
                "sub" => RoundedFn::Arith(Arith::Sub),
                "mul" => RoundedFn::Arith(Arith::Mul),
                "div" => RoundedFn::Arith(Arith::Div),
                "sqrt" => RoundedFn::Sqrt,
                "rcp" => RoundedFn::Rcp,
                _ => return None,
            };
            (f, t)
        }
    };
    Some((f, t, round))
}

/// What a conversion intrinsic in a rounding mode names (`__float2int_rd`, `__ll2float_ru`,
/// `__double2float_rz`, …): from, to, and the direction (`None`: to nearest).
fn conversion_intrinsic(name: &str) -> Option<(Scalar, Scalar, Option<Round>)> {
    let (stem, round) = rounding_mode(name)?;
    let (from, to) = stem.split_once('2')?;
    let ty = |t: &str| match t {
        "float" => Some(Scalar::F32),
        "double" => Some(Scalar::F64),
        "int" => Some(Scalar::I32),
        "uint" => Some(Scalar::U32),
        "ll" => Some(Scalar::I64),
        "ull" => Some(Scalar::U64),
        _ => None,
    };
    let (from, to) = (ty(from)?, ty(to)?);
    // Float to integer, integer to float, and `double` to `float`.
    (from.is_float() != to.is_float() || (from, to) == (Scalar::F64, Scalar::F32))
        .then_some((from, to, round))
}

/// Math functions of two arguments.
const BINARY_MATH: &[(&str, BinOp, Option<Scalar>)] = &[
    ("powf", BinOp::Pow, Some(Scalar::F32)),
    ("__powf", BinOp::Pow, Some(Scalar::F32)),
    ("pow", BinOp::Pow, None),
    ("atan2f", BinOp::Atan2, Some(Scalar::F32)),
    ("atan2", BinOp::Atan2, None),
    ("fminf", BinOp::Min, Some(Scalar::F32)),
    ("fmin", BinOp::Min, None),
    ("fmaxf", BinOp::Max, Some(Scalar::F32)),
    ("fmax", BinOp::Max, None),
    ("fmodf", BinOp::Rem, Some(Scalar::F32)),
    ("fmod", BinOp::Rem, None),
    ("__fdividef", BinOp::Div, Some(Scalar::F32)),
    ("fdividef", BinOp::Div, Some(Scalar::F32)),
    ("hypotf", BinOp::Hypot, Some(Scalar::F32)),
    ("hypot", BinOp::Hypot, None),
    ("copysignf", BinOp::CopySign, Some(Scalar::F32)),
    ("copysign", BinOp::CopySign, None),
    ("fdimf", BinOp::Fdim, Some(Scalar::F32)),
    ("fdim", BinOp::Fdim, None),
    ("remainderf", BinOp::Remainder, Some(Scalar::F32)),
    ("remainder", BinOp::Remainder, None),
];

/// `ldexpf(x, n)` and `scalbnf(x, n)`: a float and an `int`.
const LDEXP: &[(&str, Option<Scalar>)] = &[
    ("ldexpf", Some(Scalar::F32)),
    ("ldexp", None),
    ("scalbnf", Some(Scalar::F32)),
    ("scalbn", None),
];

/// Tests of a floating-point value, with an `int` result.
const FP_TESTS: &[(&str, FpTest)] = &[
    ("isnan", FpTest::IsNan),
    ("__isnan", FpTest::IsNan),
    ("__isnanf", FpTest::IsNan),
    ("isinf", FpTest::IsInf),
    ("__isinf", FpTest::IsInf),
    ("__isinff", FpTest::IsInf),
    ("isfinite", FpTest::IsFinite),
    ("__finite", FpTest::IsFinite),
    ("__finitef", FpTest::IsFinite),
    ("signbit", FpTest::SignBit),
    ("__signbit", FpTest::SignBit),
    ("__signbitf", FpTest::SignBit),
    ("ilogbf", FpTest::Ilogb),
    ("ilogb", FpTest::Ilogb),
];

impl Lowerer<'_> {
    /// Lower a call expression; `discard` when its value is unused.
    pub fn call(
        &mut self,
        f: &ast::Expr,
        targs: &[TemplateArg],
        args: &[ast::Expr],
        site: Site,
        discard: bool,
    ) -> R<Val> {
        match &f.kind {
            ExprKind::Ident(name) => {
                let n = self.canon(name);
                let exprs = || args.iter().map(ArgIn::Expr).collect::<Vec<_>>();
                if let Some(super::Sym::Place(Place::Closure(c))) = self.lookup(name) {
                    let c = *c;
                    return self.call_closure(c, exprs(), site);
                }
                // `f(x)` of a functor object: its `operator()`.
                if let Some(super::Sym::Place(p)) = self.lookup(name)
                    && let Ty::Struct(i) = self.place_ty(p)
                    && !self.methods(i, "operator()").is_empty()
                {
                    let p = p.clone();
                    return self.call_method(p, "operator()", targs, exprs(), site);
                }
                // `S(args)`, `S<T>()`: a struct value.
                if let Some(ty) = self.struct_named(&n, targs, site)? {
                    return self.construct(&ty, exprs(), site);
                }
                // `S::f(args)`: a static member function.
                if let Some((owner, method)) = n.rsplit_once("::")
                    && let Some(ty) = self.struct_named_text(owner, site)?
                    && let Some(v) = self.call_static(&ty, method, targs, exprs(), site)?
                {
                    return Ok(v);
                }
                // `g(x)` inside a member function: a member function of the same object first,
                // as C++ looks names up in the class before the namespace.
                if !name.starts_with("::")
                    && let Some(this) = self.frames.last().and_then(|f| f.this.clone())
                    && let Ty::Struct(i) = self.place_ty(&this)
                    && self.method_class(i, &n).is_some()
                {
                    return self.call_method(this, &n, targs, exprs(), site);
                }
                let written = if name.starts_with("::") {
                    format!("::{n}")
                } else {
                    n.clone()
                };
                if let Some(v) = self.call_user(&written, targs, exprs(), site)? {
                    return Ok(v);
                }
                // `T(x)` where `T` names a type (a template parameter, a typedef, `size_t`) and
                // no function of the program: a cast. (`(size_t)(x)` parses as this call too.)
                if targs.is_empty()
                    && args.len() == 1
                    && (self.names_type(name) || scalar_type(&self.canon(name)).is_some())
                {
                    let cast = ast::Expr {
                        kind: ExprKind::Cast(
                            ast::TypeExpr::Name(name.clone()),
                            Box::new(args[0].clone()),
                        ),
                        site,
                        span: f.span,
                    };
                    return self.rvalue(&cast);
                }
                self.builtin(&n, targs, args, site, discard)
            }
            ExprKind::Member(obj, method, arrow) => {
                let exprs = args.iter().map(ArgIn::Expr).collect::<Vec<_>>();
                let place = if matches!(obj.kind, ExprKind::This) {
                    // `this->f()` and `(*this).f()` alike.
                    self.this_place(site)?
                } else if *arrow && let Some(t) = self.alias_target(obj) {
                    // `p->f()` with `p` a pointer parameter given `&x`: on `x`.
                    t
                } else if *arrow {
                    match self.rvalue(obj)? {
                        Val::Ptr(ptr) => Place::Mem {
                            ty: ptr.pointee.clone(),
                            ptr,
                        },
                        _ => return Err(self.err(site, "`->` needs a pointer", None)),
                    }
                } else if self.is_call_like(obj) {
                    // `w.first().add(1)`, `v[i].add(1)`: on what the returned reference names.
                    self.call_object(obj)?
                } else if super::expr::is_lvalue_like(obj) {
                    match self.place(obj) {
                        Ok(p) => p,
                        Err(_) => {
                            let v = self.rvalue(obj)?;
                            self.temp_place(v, site)
                        }
                    }
                } else {
                    let v = self.rvalue(obj)?;
                    self.temp_place(v, site)
                };
                match place {
                    Place::Group(g) => self.group_method(g, method, args, site),
                    p => {
                        // A struct inside one that carries its pointer fields (`e.name.ptr()`):
                        // the method sees those under the object's path as its own.
                        // Found by the object's name: struct variables whose fields are all
                        // pointers have places alike, which only their names tell apart.
                        let carried = self.field_pointers_of(obj, &[]);
                        let Some(fields) = carried else {
                            return self.call_method(p, method, targs, exprs, site);
                        };
                        let at = self.field_pointers.len();
                        self.field_pointers.push(super::FieldPointers {
                            name: String::new(),
                            scope: self.scope_ids.last().copied().unwrap_or(0),
                            place: p.clone(),
                            fields,
                        });
                        let r = self.call_method(p, method, targs, exprs, site);
                        // Bindings the call made stay; only this one goes.
                        self.field_pointers.remove(at);
                        r
                    }
                }
            }
            ExprKind::Unsupported(what, help) => {
                Err(self.unsupported(f.site, what, help.as_deref()))
            }
            ExprKind::Lambda(l, caps) => {
                let Val::Closure(c) = self.closure(l, caps)? else {
                    unreachable!("a lambda is a closure")
                };
                self.call_closure(c, args.iter().map(ArgIn::Expr).collect(), site)
            }
            _ => Err(self.unsupported(
                site,
                "calling through a function pointer",
                Some("call the function by name"),
            )),
        }
    }

    fn args_scalar(&mut self, args: &[ast::Expr]) -> R<Vec<(Operand, Scalar)>> {
        args.iter().map(|a| self.scalar(a)).collect()
    }

    fn arity(
        &self,
        name: &str,
        args: &[ast::Expr],
        range: std::ops::RangeInclusive<usize>,
        site: Site,
    ) -> R<()> {
        if range.contains(&args.len()) {
            return Ok(());
        }
        let want = if range.start() == range.end() {
            range.start().to_string()
        } else {
            format!("{} to {}", range.start(), range.end())
        };
        Err(self.err(
            site,
            format!("`{name}` takes {want} argument(s), {} given", args.len()),
            None,
        ))
    }

    /// An argument converted to `to`.
    fn arg_as(&mut self, e: &ast::Expr, to: Scalar) -> R<Operand> {
        let (op, s) = self.scalar(e)?;
        Ok(self.convert(op, s, to, e.site))
    }

    /// An argument as a 32-bit word: a number, or a `char4`/`uchar4`/`short2`/`ushort2` packed
    /// lane 0 lowest (as `__dp4a`'s vector overloads take them), signed as its lanes are.
    fn packed_word(&mut self, e: &ast::Expr) -> R<(Operand, Scalar)> {
        let (lane, leaves) = match self.rvalue(e)? {
            Val::Agg(Ty::Vector(s, k), leaves) if s.size() * k == 4 => (s, leaves),
            Val::Scalar(op, s) => return Ok((op, s)),
            _ => return self.scalar(e),
        };
        let bits = 8 * lane.size();
        let mut word = Operand::Const(consts::int(Scalar::U32, 0));
        for (j, leaf) in leaves.into_iter().enumerate() {
            let x = self.convert(leaf, lane, Scalar::U32, e.site);
            let x = self.binop(BinOp::And, Scalar::U32, x, u32c((1 << bits) - 1), e.site);
            let x = self.binop(BinOp::Shl, Scalar::U32, x, u32c(bits * j as u32), e.site);
            word = self.binop(BinOp::Or, Scalar::U32, word, x, e.site);
        }
        let signed = if lane.is_signed() {
            Scalar::I32
        } else {
            Scalar::U32
        };
        Ok((self.convert(word, Scalar::U32, signed, e.site), signed))
    }

    /// `tex2D<T>(t, x, y)` and the other fetches: `T` a scalar or a 2- or 4-component vector
    /// of 8-, 16- or 32-bit components, `t` a texture parameter of the kernel; or `tex2D(r, x,
    /// y)` through a file-scope texture reference `r` of as many dimensions (`tex1Dfetch` a 1-D
    /// one), which returns its texel type (as normalized floats where it says so).
    fn texture(
        &mut self,
        short: &str,
        fetch: texture::Fetch,
        targs: &[TemplateArg],
        args: &[ast::Expr],
        site: Site,
    ) -> R<Val> {
        let coords = match fetch {
            texture::Fetch::Index => 1,
            texture::Fetch::Coords(n) => usize::from(n),
        };
        self.arity(short, args, coords + 1..=coords + 1, site)?;
        let reference = match &args[0].kind {
            ast::ExprKind::Ident(n) if self.lookup(n).is_none() => self.texture_reference(n)?,
            _ => None,
        };
        let (texture, ty) = match reference {
            Some((global, dims, ty)) => {
                if coords != usize::from(dims) {
                    let with = match dims {
                        1 => "tex1Dfetch or tex1D".to_string(),
                        n => format!("tex{n}D"),
                    };
                    return Err(self.err(
                        site,
                        format!("`{short}` fetches from a {dims}-dimensional texture reference"),
                        Some(format!("fetch with {with}")),
                    ));
                }
                if !targs.is_empty() {
                    return Err(self.err(
                        site,
                        format!("`{short}` through a texture reference takes no template argument"),
                        Some("the reference's declaration says what a fetch returns".into()),
                    ));
                }
                (Base::Global(global), ty)
            }
            None => self.texture_object(short, targs, &args[0], site)?,
        };
        let (s, k) = match ty {
            Ty::Scalar(s) => (s, 1),
            Ty::Vector(s, k) if k != 3 => (s, k),
            _ => (Scalar::Bool, 0),
        };
        if k == 0 || s == Scalar::Bool || s.size() > 4 {
            return Err(self.err(
                site,
                format!(
                    "`{short}` returns `{}`, which no texture holds",
                    ty.show(&self.structs)
                ),
                Some("fetch a scalar, or a 2- or 4-component vector of 8-, 16- or 32-bit values (float4, uchar4, int2 …)".into()),
            ));
        }
        let at = if fetch == texture::Fetch::Index {
            Scalar::I32
        } else {
            Scalar::F32
        };
        let mut operands = Vec::new();
        for a in &args[1..] {
            operands.push(self.arg_as(a, at)?);
        }
        let dst: Vec<VarId> = (0..k).map(|_| self.temp(s)).collect();
        self.emit(Stmt::Texture {
            dst: dst.clone(),
            ty: s,
            texture,
            fetch,
            coords: operands,
            site,
        });
        Ok(match ty {
            Ty::Scalar(s) => Val::Scalar(Operand::Var(dst[0]), s),
            t => Val::Agg(t, dst.into_iter().map(Operand::Var).collect()),
        })
    }

    /// A fetch's texture object `handle` (a texture parameter of the kernel) and the type the
    /// fetch returns (its template argument).
    fn texture_object(
        &mut self,
        short: &str,
        targs: &[TemplateArg],
        handle: &ast::Expr,
        site: Site,
    ) -> R<(Base, Ty)> {
        let p = match self.rvalue(handle)? {
            Val::Ptr(p) if p.pointee == Ty::Texture => p,
            _ => {
                return Err(self.err(
                    handle.site,
                    format!(
                        "`{short}` reads a texture object (a `cudaTextureObject_t`) or a texture \
                         reference"
                    ),
                    None,
                ));
            }
        };
        let ty = match targs {
            [TemplateArg::Type(t)] => self.ty(t, site)?,
            _ => {
                return Err(self.unsupported(
                    site,
                    &format!("`{short}` without its result type"),
                    Some(&format!("name the texel type: `{short}<float>(…)`")),
                ));
            }
        };
        match p.base {
            Base::Param(i)
                if self.texture_params.contains(&i) && p.disp == 0 && p.terms.is_empty() =>
            {
                Ok((Base::Param(i), ty))
            }
            _ => Err(self.unsupported(
                handle.site,
                "a texture object that is not one of the kernel's parameters as passed (one in a struct, an array or a variable chosen at run time)",
                Some("pass each texture object as a `cudaTextureObject_t` kernel parameter"),
            )),
        }
    }

    /// A pointer argument (atomics, `__ldg`).
    fn ptr_arg(&mut self, e: &ast::Expr, what: &str) -> R<super::PtrVal> {
        match self.rvalue(e)? {
            Val::Ptr(p) => Ok(p),
            _ => Err(self.err(
                e.site,
                format!("{what} needs the address of global or shared memory (`&a[i]`, `p + i`)"),
                None,
            )),
        }
    }

    /// `a` converted from `from` to `to` rounded in direction `round` (`None`: to nearest) where
    /// the result is not exact: to an integer, the value rounded to one first (C's conversion
    /// then truncates it, saturating); to a `float` or `double`, through a directed `double`
    /// (exact from 32-bit integers; a 64-bit one is two exact halves and one directed sum) and,
    /// to a `float`, a directed rounding of that.
    fn convert_rounded(
        &mut self,
        a: Operand,
        (from, to): (Scalar, Scalar),
        round: Option<Round>,
        site: Site,
    ) -> Operand {
        use Scalar::{F32, F64};
        if !to.is_float() {
            let op = match round {
                None => UnOp::Rint,
                Some(Round::Down) => UnOp::Floor,
                Some(Round::Up) => UnOp::Ceil,
                Some(Round::Zero) => UnOp::Trunc,
            };
            let rounded = self.unop(op, from, a, site);
            return self.convert(rounded, from, to, site);
        }
        let Some(r) = round else {
            return self.convert(a, from, to, site);
        };
        let d = match from {
            Scalar::I64 | Scalar::U64 => {
                let half = if from == Scalar::I64 {
                    Scalar::I32
                } else {
                    Scalar::U32
                };
                let shift = Operand::Const(consts::int(from, 32));
                let hi = self.binop(BinOp::Shr, from, a, shift, site);
                let hi = self.convert(hi, from, half, site);
                let hi = self.convert(hi, half, F64, site);
                let hi = self.binop(
                    BinOp::Mul,
                    F64,
                    hi,
                    Operand::Const(consts::float(F64, 4294967296.0)),
                    site,
                );
                let lo = self.convert(a, from, Scalar::U32, site);
                let lo = self.convert(lo, Scalar::U32, F64, site);
                self.binop(BinOp::Rounded(Arith::Add, r), F64, hi, lo, site)
            }
            _ => self.convert(a, from, F64, site),
        };
        if to == F64 {
            return d;
        }
        let narrowed = self.unop(UnOp::NarrowRounded(r), F64, d, site);
        self.convert(narrowed, F64, F32, site)
    }

    /// An intrinsic of IEEE arithmetic in a rounding mode ([`rounded_intrinsic`]).
    fn rounded(
        &mut self,
        name: &str,
        (f, t, round): (RoundedFn, Scalar, Option<Round>),
        args: &[ast::Expr],
        site: Site,
    ) -> R<Val> {
        let n = match f {
            RoundedFn::Fma => 3,
            RoundedFn::Sqrt | RoundedFn::Rcp => 1,
            RoundedFn::Arith(_) => 2,
        };
        self.arity(name, args, n..=n, site)?;
        let v = args
            .iter()
            .map(|a| self.arg_as(a, t))
            .collect::<R<Vec<_>>>()?;
        let one = Operand::Const(consts::float(t, 1.0));
        let r = match (f, round) {
            (RoundedFn::Arith(op), None) => {
                let op = match op {
                    Arith::Add => BinOp::Add,
                    Arith::Sub => BinOp::Sub,
                    Arith::Mul => BinOp::Mul,
                    Arith::Div => BinOp::Div,
                };
                let r = self.binop(op, t, v[0], v[1], site);
                if let Some(v) = r.var() {
                    self.exact.insert(v);
                }
                r
            }
            (RoundedFn::Arith(op), Some(r)) => {
                self.binop(BinOp::Rounded(op, r), t, v[0], v[1], site)
            }
            (RoundedFn::Rcp, None) => self.binop(BinOp::Div, t, one, v[0], site),
            (RoundedFn::Rcp, Some(r)) => {
                self.binop(BinOp::Rounded(Arith::Div, r), t, one, v[0], site)
            }
            (RoundedFn::Sqrt, None) => self.unop(UnOp::Sqrt, t, v[0], site),
            (RoundedFn::Sqrt, Some(r)) => self.unop(UnOp::SqrtRounded(r), t, v[0], site),
            (RoundedFn::Fma, None) => {
                let (a, b, c) = (v[0], v[1], v[2]);
                self.assign(t, Op::fma(a, b, c), site)
            }
            (RoundedFn::Fma, Some(r)) if t == Scalar::F32 => {
                // The product is exact in `double`; one directed sum there, rounded again in
                // the same direction to `float`, is the directed `float` result.
                let [a, b, c] = [0, 1, 2].map(|i| self.convert(v[i], t, Scalar::F64, site));
                let p = self.binop(BinOp::Mul, Scalar::F64, a, b, site);
                let sum = BinOp::Rounded(Arith::Add, r);
                let s = self.binop(sum, Scalar::F64, p, c, site);
                let s = self.unop(UnOp::NarrowRounded(r), Scalar::F64, s, site);
                self.convert(s, Scalar::F64, t, site)
            }
            (RoundedFn::Fma, Some(_)) => {
                return Err(self.unsupported(
                    site,
                    &format!("`{name}` (a `double` fma rounded other than to nearest)"),
                    Some("use `__fma_rn`, or `__dadd_rd`-style intrinsics on the product"),
                ));
            }
        };
        Ok(Val::Scalar(r, t))
    }

    fn builtin(
        &mut self,
        n: &str,
        targs: &[TemplateArg],
        args: &[ast::Expr],
        site: Site,
        discard: bool,
    ) -> R<Val> {
        let short = n
            .trim_start_matches("cooperative_groups::")
            .trim_start_matches("cuda::")
            .trim_start_matches("std::");
        if let Some(member) = short.strip_prefix("numeric_limits::") {
            self.arity(short, args, 0..=0, site)?;
            let s = self.scalar_targ(short, targs, site)?;
            return numeric_limit(s, member)
                .ok_or_else(|| self.unsupported(site, &format!("`std::{short}<{s}>`"), None));
        }
        if let Some(v) = self.type_trait(short, targs, site)? {
            self.arity(short, args, 0..=0, site)?;
            return Ok(Val::Scalar(bool_const(v), Scalar::Bool));
        }
        // Math.
        if let Some((_, op, ty)) = UNARY_MATH.iter().find(|(name, ..)| *name == short) {
            self.arity(short, args, 1..=1, site)?;
            let (a, at) = self.scalar(&args[0])?;
            let t = ty.unwrap_or(if at == Scalar::F32 {
                Scalar::F32
            } else {
                Scalar::F64
            });
            let a = self.convert(a, at, t, site);
            return Ok(Val::Scalar(self.unop(*op, t, a, site), t));
        }
        if let Some((_, op, ty)) = BINARY_MATH.iter().find(|(name, ..)| *name == short) {
            self.arity(short, args, 2..=2, site)?;
            let v = self.args_scalar(args)?;
            let t = ty.unwrap_or(if v[0].1 == Scalar::F32 && v[1].1 == Scalar::F32 {
                Scalar::F32
            } else {
                Scalar::F64
            });
            let a = self.convert(v[0].0, v[0].1, t, site);
            let b = self.convert(v[1].0, v[1].1, t, site);
            return Ok(Val::Scalar(self.binop(*op, t, a, b, site), t));
        }
        if let Some((f, t, round)) = rounded_intrinsic(short) {
            return self.rounded(short, (f, t, round), args, site);
        }
        if let Some((from, to, round)) = conversion_intrinsic(short) {
            self.arity(short, args, 1..=1, site)?;
            let a = self.arg_as(&args[0], from)?;
            return Ok(Val::Scalar(
                self.convert_rounded(a, (from, to), round, site),
                to,
            ));
        }
        if let Some((_, ty)) = LDEXP.iter().find(|(name, _)| *name == short) {
            self.arity(short, args, 2..=2, site)?;
            let v = self.args_scalar(args)?;
            let t = ty.unwrap_or(if v[0].1 == Scalar::F32 {
                Scalar::F32
            } else {
                Scalar::F64
            });
            let x = self.convert(v[0].0, v[0].1, t, site);
            let n = self.convert(v[1].0, v[1].1, Scalar::I32, site);
            let n = self.convert(n, Scalar::I32, t, site);
            return Ok(Val::Scalar(self.binop(BinOp::Ldexp, t, x, n, site), t));
        }
        if let Some((_, test)) = FP_TESTS.iter().find(|(name, _)| *name == short) {
            self.arity(short, args, 1..=1, site)?;
            let (a, at) = self.scalar(&args[0])?;
            let t = if at == Scalar::F32 {
                Scalar::F32
            } else {
                Scalar::F64
            };
            let a = self.convert(a, at, t, site);
            return Ok(Val::Scalar(
                self.unop(UnOp::Test(*test), Scalar::I32, a, site),
                Scalar::I32,
            ));
        }
        match short {
            // The functions that also write through pointers.
            "sincosf" | "__sincosf" | "sincos" | "sincospif" | "sincospi" => {
                self.arity(short, args, 3..=3, site)?;
                let (x, t) = self.float_arg(&args[0], short.ends_with('f'), site)?;
                let (sin, cos) = if short.contains("pi") {
                    (UnOp::Math(MathFn::SinPi), UnOp::Math(MathFn::CosPi))
                } else {
                    (UnOp::Sin, UnOp::Cos)
                };
                let s = self.unop(sin, t, x, site);
                let c = self.unop(cos, t, x, site);
                self.write_out(&args[1], Val::Scalar(s, t), short, site)?;
                self.write_out(&args[2], Val::Scalar(c, t), short, site)?;
                return Ok(Val::Void);
            }
            "modff" | "modf" => {
                self.arity(short, args, 2..=2, site)?;
                let (x, t) = self.float_arg(&args[0], short == "modff", site)?;
                let whole = self.unop(UnOp::Trunc, t, x, site);
                // The fraction keeps the sign of `x`; an infinite `x` has fraction 0. (Stored
                // last: storing a value just computed may rename it.)
                let frac = self.binop(BinOp::Sub, t, x, whole, site);
                let inf = self.unop(UnOp::Test(FpTest::IsInf), Scalar::I32, x, site);
                let inf = self.convert(inf, Scalar::I32, Scalar::Bool, site);
                let zero = Operand::Const(super::consts::float(t, 0.0));
                let zero = self.binop(BinOp::CopySign, t, zero, x, site);
                let frac = self.assign(
                    t,
                    Op::Select {
                        cond: inf,
                        a: zero,
                        b: frac,
                    },
                    site,
                );
                self.write_out(&args[1], Val::Scalar(whole, t), short, site)?;
                return Ok(Val::Scalar(frac, t));
            }
            "frexpf" | "frexp" => {
                self.arity(short, args, 2..=2, site)?;
                let (x, t) = self.float_arg(&args[0], short == "frexpf", site)?;
                let e = self.unop(UnOp::Test(FpTest::FrexpExp), Scalar::I32, x, site);
                self.write_out(&args[1], Val::Scalar(e, Scalar::I32), short, site)?;
                let frac = self.unop(UnOp::Math(MathFn::FrexpFrac), t, x, site);
                return Ok(Val::Scalar(frac, t));
            }
            "min" | "max" | "umin" | "umax" | "llmin" | "llmax" | "ullmin" | "ullmax" => {
                self.arity(short, args, 2..=2, site)?;
                let v = self.args_scalar(args)?;
                let t = usual(v[0].1, v[1].1);
                let a = self.convert(v[0].0, v[0].1, t, site);
                let b = self.convert(v[1].0, v[1].1, t, site);
                let op = if short.ends_with("min") {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                return Ok(Val::Scalar(self.binop(op, t, a, b, site), t));
            }
            "abs" | "llabs" | "labs" => {
                self.arity(short, args, 1..=1, site)?;
                let (a, at) = self.scalar(&args[0])?;
                let t = promote(at);
                let a = self.convert(a, at, t, site);
                return Ok(Val::Scalar(self.unop(UnOp::Abs, t, a, site), t));
            }
            "fmaf" | "fma" => {
                self.arity(short, args, 3..=3, site)?;
                let v = self.args_scalar(args)?;
                let t = if short == "fma" {
                    if v.iter().all(|x| x.1 == Scalar::F32) {
                        Scalar::F32
                    } else {
                        Scalar::F64
                    }
                } else {
                    Scalar::F32
                };
                let a = self.convert(v[0].0, v[0].1, t, site);
                let b = self.convert(v[1].0, v[1].1, t, site);
                let c = self.convert(v[2].0, v[2].1, t, site);
                return Ok(Val::Scalar(self.assign(t, Op::fma(a, b, c), site), t));
            }
            "__saturatef" => {
                self.arity(short, args, 1..=1, site)?;
                let a = self.arg_as(&args[0], Scalar::F32)?;
                let lo = self.binop(
                    BinOp::Max,
                    Scalar::F32,
                    a,
                    Operand::Const(consts::float(Scalar::F32, 0.0)),
                    site,
                );
                let r = self.binop(
                    BinOp::Min,
                    Scalar::F32,
                    lo,
                    Operand::Const(consts::float(Scalar::F32, 1.0)),
                    site,
                );
                return Ok(Val::Scalar(r, Scalar::F32));
            }
            // `nan("")`: the GPU's quiet NaN whatever the tag.
            "nan" | "nanf" if matches!(args, [a] if matches!(a.kind, ExprKind::Str(_))) => {
                let t = if short == "nanf" {
                    Scalar::F32
                } else {
                    Scalar::F64
                };
                let bits = if t == Scalar::F32 {
                    0x7fff_ffff
                } else {
                    0x7fff_ffff_ffff_ffff
                };
                return Ok(Val::Scalar(
                    Operand::Const(crate::cuda::ir::Const { ty: t, bits }),
                    t,
                ));
            }
            "__fdividef_rcp" => {
                self.arity(short, args, 1..=1, site)?;
                let a = self.arg_as(&args[0], Scalar::F32)?;
                let r = self.binop(
                    BinOp::Div,
                    Scalar::F32,
                    Operand::Const(consts::float(Scalar::F32, 1.0)),
                    a,
                    site,
                );
                return Ok(Val::Scalar(r, Scalar::F32));
            }
            // Integer intrinsics.
            "__popc" | "__popcll" | "__clz" | "__clzll" | "__ffs" | "__ffsll" => {
                self.arity(short, args, 1..=1, site)?;
                let wide = short.ends_with("ll");
                let at = match short {
                    "__popc" => Scalar::U32,
                    "__popcll" => Scalar::U64,
                    _ if wide => Scalar::I64,
                    _ => Scalar::I32,
                };
                let a = self.arg_as(&args[0], at)?;
                let op = match &short[..5] {
                    "__pop" => UnOp::Popc,
                    "__clz" => UnOp::Clz,
                    _ => UnOp::Ffs,
                };
                return Ok(Val::Scalar(
                    self.assign(Scalar::I32, Op::Unary { op, a }, site),
                    Scalar::I32,
                ));
            }
            "__brev" | "__brevll" => {
                self.arity(short, args, 1..=1, site)?;
                let t = if short == "__brev" {
                    Scalar::U32
                } else {
                    Scalar::U64
                };
                let a = self.arg_as(&args[0], t)?;
                return Ok(Val::Scalar(self.unop(UnOp::Brev, t, a, site), t));
            }
            "__mulhi" | "__umulhi" | "__mul64hi" | "__umul64hi" => {
                self.arity(short, args, 2..=2, site)?;
                let t = match short {
                    "__mulhi" => Scalar::I32,
                    "__umulhi" => Scalar::U32,
                    "__mul64hi" => Scalar::I64,
                    _ => Scalar::U64,
                };
                let a = self.arg_as(&args[0], t)?;
                let b = self.arg_as(&args[1], t)?;
                return Ok(Val::Scalar(self.binop(BinOp::MulHi, t, a, b, site), t));
            }
            // Dot products of packed bytes (sm_61): `int` arguments are signed, `unsigned`
            // ones unsigned; `__dp2a` takes `a`'s halves against two of `b`'s bytes.
            "__dp4a" | "__dp2a_lo" | "__dp2a_hi" => {
                self.arity(short, args, 3..=3, site)?;
                let (a, s) = self.packed_word(&args[0])?;
                let t = if s.is_signed() || s.is_float() {
                    Scalar::I32
                } else {
                    Scalar::U32
                };
                let a = self.convert(a, s, t, site);
                let (b, bs) = self.packed_word(&args[1])?;
                let b = self.convert(b, bs, t, site);
                let mut acc = self.arg_as(&args[2], t)?;
                // Bits `at..at + width` of `x`, extended as `t` is.
                let field = |l: &mut Self, x: Operand, at: u32, width: u32| {
                    let up = l.binop(BinOp::Shl, t, x, u32c(32 - at - width), site);
                    l.binop(BinOp::Shr, t, up, u32c(32 - width), site)
                };
                let terms: Vec<(u32, u32, u32)> = match short {
                    "__dp4a" => (0..4).map(|k| (8 * k, 8, 8 * k)).collect(),
                    "__dp2a_lo" => vec![(0, 16, 0), (16, 16, 8)],
                    _ => vec![(0, 16, 16), (16, 16, 24)],
                };
                for (at, width, b_at) in terms {
                    let x = field(self, a, at, width);
                    let y = field(self, b, b_at, 8);
                    let p = self.binop(BinOp::Mul, t, x, y, site);
                    acc = self.binop(BinOp::Add, t, acc, p, site);
                }
                return Ok(Val::Scalar(acc, t));
            }
            // The low 32 bits of the product of the operands' low 24 bits (sign-extended from
            // bit 23 for `__mul24`, as PTX's `mul24.lo.s32` takes them).
            "__mul24" | "__umul24" => {
                self.arity(short, args, 2..=2, site)?;
                let t = if short == "__mul24" {
                    Scalar::I32
                } else {
                    Scalar::U32
                };
                let mut v = [Operand::Const(consts::int(t, 0)); 2];
                for (x, arg) in v.iter_mut().zip(args) {
                    let a = self.arg_as(arg, t)?;
                    let up = self.binop(BinOp::Shl, t, a, u32c(8), site);
                    *x = self.binop(BinOp::Shr, t, up, u32c(8), site);
                }
                return Ok(Val::Scalar(self.binop(BinOp::Mul, t, v[0], v[1], site), t));
            }
            // `(a + b) >> 1` and `(a + b + 1) >> 1` without the sum overflowing: computed in
            // 64 bits, as the GPU's halving add keeps the carry.
            "__hadd" | "__rhadd" | "__uhadd" | "__urhadd" => {
                self.arity(short, args, 2..=2, site)?;
                let (t, wide) = if short.starts_with("__u") {
                    (Scalar::U32, Scalar::U64)
                } else {
                    (Scalar::I32, Scalar::I64)
                };
                let a = self.arg_as(&args[0], t)?;
                let a = self.convert(a, t, wide, site);
                let b = self.arg_as(&args[1], t)?;
                let b = self.convert(b, t, wide, site);
                let mut sum = self.binop(BinOp::Add, wide, a, b, site);
                let one = Operand::Const(consts::int(wide, 1));
                if short.contains("rh") {
                    sum = self.binop(BinOp::Add, wide, sum, one, site);
                }
                let half = self.binop(BinOp::Shr, wide, sum, one, site);
                return Ok(Val::Scalar(self.convert(half, wide, t, site), t));
            }
            // `|x - y| + z`, unsigned (`__sad` takes signed `x` and `y`).
            "__sad" | "__usad" => {
                self.arity(short, args, 3..=3, site)?;
                let (t, wide) = if short == "__sad" {
                    (Scalar::I32, Scalar::I64)
                } else {
                    (Scalar::U32, Scalar::I64)
                };
                let x = self.arg_as(&args[0], t)?;
                let x = self.convert(x, t, wide, site);
                let y = self.arg_as(&args[1], t)?;
                let y = self.convert(y, t, wide, site);
                let (hi, lo) = (
                    self.binop(BinOp::Max, wide, x, y, site),
                    self.binop(BinOp::Min, wide, x, y, site),
                );
                let d = self.binop(BinOp::Sub, wide, hi, lo, site);
                let d = self.convert(d, wide, Scalar::U32, site);
                let z = self.arg_as(&args[2], Scalar::U32)?;
                return Ok(Val::Scalar(
                    self.binop(BinOp::Add, Scalar::U32, d, z, site),
                    Scalar::U32,
                ));
            }
            // Bytes of `y:x` (x's lowest is byte 0, y's highest byte 7) picked by the low three
            // bits of each of the selector's four low nibbles.
            "__byte_perm" => {
                self.arity(short, args, 3..=3, site)?;
                let both = self.funnel(&args[0], &args[1], site)?;
                let s = self.arg_as(&args[2], Scalar::U32)?;
                let mut r = Operand::Const(consts::int(Scalar::U32, 0));
                for n in 0..4 {
                    let nibble = self.binop(BinOp::Shr, Scalar::U32, s, u32c(4 * n), site);
                    let pick = self.binop(BinOp::And, Scalar::U32, nibble, u32c(7), site);
                    let at = self.binop(BinOp::Mul, Scalar::U32, pick, u32c(8), site);
                    let at = self.convert(at, Scalar::U32, Scalar::U64, site);
                    let byte = self.binop(BinOp::Shr, Scalar::U64, both, at, site);
                    let byte = self.convert(byte, Scalar::U64, Scalar::U32, site);
                    let byte = self.binop(BinOp::And, Scalar::U32, byte, u32c(0xff), site);
                    let byte = self.binop(BinOp::Shl, Scalar::U32, byte, u32c(8 * n), site);
                    r = self.binop(BinOp::Or, Scalar::U32, r, byte, site);
                }
                return Ok(Val::Scalar(r, Scalar::U32));
            }
            // `hi:lo` shifted by `shift & 31` (`_lc`/`_rc`: by `min(shift, 32)`); the left
            // shifts give the high word, the right shifts the low one.
            "__funnelshift_l" | "__funnelshift_lc" | "__funnelshift_r" | "__funnelshift_rc" => {
                self.arity(short, args, 3..=3, site)?;
                let both = self.funnel(&args[0], &args[1], site)?;
                let s = self.arg_as(&args[2], Scalar::U32)?;
                let s = if short.ends_with('c') {
                    self.binop(BinOp::Min, Scalar::U32, s, u32c(32), site)
                } else {
                    self.binop(BinOp::And, Scalar::U32, s, u32c(31), site)
                };
                let s = self.convert(s, Scalar::U32, Scalar::U64, site);
                let shifted = if short.contains("_l") {
                    let up = self.binop(BinOp::Shl, Scalar::U64, both, s, site);
                    self.binop(BinOp::Shr, Scalar::U64, up, u64c(32), site)
                } else {
                    self.binop(BinOp::Shr, Scalar::U64, both, s, site)
                };
                return Ok(Val::Scalar(
                    self.convert(shifted, Scalar::U64, Scalar::U32, site),
                    Scalar::U32,
                ));
            }
            // Reciprocals and norms: a `float` one computed in `double` and rounded once (the
            // GPU's are within an ulp or two; a correctly rounded result is within that).
            "__frsqrt_rn" | "rcbrtf" | "rcbrt" | "rhypotf" | "rhypot" | "norm3df" | "norm3d"
            | "rnorm3df" | "rnorm3d" => {
                let arity = match short {
                    "__frsqrt_rn" | "rcbrtf" | "rcbrt" => 1,
                    "rhypotf" | "rhypot" => 2,
                    _ => 3,
                };
                self.arity(short, args, arity..=arity, site)?;
                let single = short.ends_with('f') || short == "__frsqrt_rn";
                let mut xs = Vec::with_capacity(arity);
                let mut t = Scalar::F32;
                for arg in args {
                    let (x, xt) = self.float_arg(arg, single, site)?;
                    t = xt;
                    xs.push(self.convert(x, xt, Scalar::F64, site));
                }
                let d = Scalar::F64;
                let r = match short.trim_start_matches("__f").trim_end_matches('f') {
                    "rsqrt_rn" => self.unop(UnOp::Sqrt, d, xs[0], site),
                    "rcbrt" => self.unop(UnOp::Math(MathFn::Cbrt), d, xs[0], site),
                    "rhypot" => self.binop(BinOp::Hypot, d, xs[0], xs[1], site),
                    _ => {
                        let mut sum = Operand::Const(consts::float(d, 0.0));
                        for x in xs {
                            let sq = self.binop(BinOp::Mul, d, x, x, site);
                            sum = self.binop(BinOp::Add, d, sum, sq, site);
                        }
                        self.unop(UnOp::Sqrt, d, sum, site)
                    }
                };
                let r = if short.starts_with("norm") {
                    r
                } else {
                    let one = Operand::Const(consts::float(d, 1.0));
                    self.binop(BinOp::Div, d, one, r, site)
                };
                return Ok(Val::Scalar(self.convert(r, d, t, site), t));
            }
            // The next representable value after `x` towards `y`: one step of `x`'s bits away
            // from or towards zero, the smallest subnormal (signed as `y`) from zero.
            "nextafterf" | "nextafter" => {
                self.arity(short, args, 2..=2, site)?;
                let (x, t) = self.float_arg(&args[0], short.ends_with('f'), site)?;
                let y = self.arg_as(&args[1], t)?;
                let i = if t == Scalar::F32 {
                    Scalar::I32
                } else {
                    Scalar::I64
                };
                let bits = self.assign(i, Op::Bitcast { src: x, from: t }, site);
                let zero = Operand::Const(consts::float(t, 0.0));
                let up = self.cmp(CmpOp::Gt, t, y, x, site);
                let positive = self.cmp(CmpOp::Gt, t, x, zero, site);
                let up = self.convert(up, Scalar::Bool, Scalar::I32, site);
                let positive = self.convert(positive, Scalar::Bool, Scalar::I32, site);
                let away = self.cmp(CmpOp::Eq, Scalar::I32, up, positive, site);
                let one = Operand::Const(consts::int(i, 1));
                let minus = Operand::Const(consts::int(i, -1));
                let step = self.select(i, away, one, minus, site);
                let stepped = self.binop(BinOp::Add, i, bits, step, site);
                let stepped = self.assign(
                    t,
                    Op::Bitcast {
                        src: stepped,
                        from: i,
                    },
                    site,
                );
                let tiny = Operand::Const(crate::cuda::ir::Const { ty: t, bits: 1 });
                let tiny = self.binop(BinOp::CopySign, t, tiny, y, site);
                let at_zero = self.cmp(CmpOp::Eq, t, x, zero, site);
                let r = self.select(t, at_zero, tiny, stepped, site);
                let same = self.cmp(CmpOp::Eq, t, x, y, site);
                let r = self.select(t, same, y, r, site);
                // A NaN operand: `x + y` is NaN.
                let nan = self.binop(BinOp::Add, t, x, y, site);
                let unordered = self.cmp(CmpOp::Ne, t, nan, nan, site);
                return Ok(Val::Scalar(self.select(t, unordered, nan, r, site), t));
            }
            // Rounded to an integer (`rint`: to nearest even; `round`: halves away from zero),
            // then converted to `long` / `long long` (64 bits on Linux, as on the GPU).
            "lrintf" | "llrintf" | "lrint" | "llrint" | "lroundf" | "llroundf" | "lround"
            | "llround" => {
                self.arity(short, args, 1..=1, site)?;
                let (x, t) = self.float_arg(&args[0], short.ends_with('f'), site)?;
                let op = if short.contains("rint") {
                    UnOp::Rint
                } else {
                    UnOp::Round
                };
                let r = self.unop(op, t, x, site);
                return Ok(Val::Scalar(
                    self.convert(r, t, Scalar::I64, site),
                    Scalar::I64,
                ));
            }
            // Conversions and reinterpretations.
            "__float_as_int"
            | "__float_as_uint"
            | "__int_as_float"
            | "__uint_as_float"
            | "__double_as_longlong"
            | "__longlong_as_double" => {
                self.arity(short, args, 1..=1, site)?;
                let (from, to) = match short {
                    "__float_as_int" => (Scalar::F32, Scalar::I32),
                    "__float_as_uint" => (Scalar::F32, Scalar::U32),
                    "__int_as_float" => (Scalar::I32, Scalar::F32),
                    "__uint_as_float" => (Scalar::U32, Scalar::F32),
                    "__double_as_longlong" => (Scalar::F64, Scalar::I64),
                    _ => (Scalar::I64, Scalar::F64),
                };
                let a = self.arg_as(&args[0], from)?;
                if let Operand::Const(c) = a {
                    return Ok(Val::Scalar(
                        Operand::Const(crate::cuda::ir::Const {
                            ty: to,
                            bits: bitcast_bits(c, to),
                        }),
                        to,
                    ));
                }
                return Ok(Val::Scalar(
                    self.assign(to, Op::Bitcast { src: a, from }, site),
                    to,
                ));
            }
            "__float2double" => {
                self.arity(short, args, 1..=1, site)?;
                let a = self.arg_as(&args[0], Scalar::F32)?;
                let d = self.convert(a, Scalar::F32, Scalar::F64, site);
                return Ok(Val::Scalar(d, Scalar::F64));
            }
            // Barriers.
            "__syncthreads" => {
                self.arity(short, args, 0..=0, site)?;
                self.emit(Stmt::Sync {
                    kind: SyncKind::Plain,
                    pred: None,
                    dst: None,
                    site,
                });
                return Ok(Val::Void);
            }
            "__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or" => {
                self.arity(short, args, 1..=1, site)?;
                let p = self.truth_expr(&args[0])?;
                let dst = self.temp(Scalar::I32);
                let kind = match short {
                    "__syncthreads_count" => SyncKind::Count,
                    "__syncthreads_and" => SyncKind::And,
                    _ => SyncKind::Or,
                };
                self.emit(Stmt::Sync {
                    kind,
                    pred: Some(p),
                    dst: Some(dst),
                    site,
                });
                return Ok(Val::Scalar(Operand::Var(dst), Scalar::I32));
            }
            "__syncwarp" => {
                self.arity(short, args, 0..=1, site)?;
                let mask = match args.first() {
                    Some(a) => self.arg_as(a, Scalar::U32)?,
                    None => u32c(FULL),
                };
                self.emit(Stmt::SyncWarp { mask, site });
                return Ok(Val::Void);
            }
            "__threadfence" | "__threadfence_system" => {
                self.arity(short, args, 0..=0, site)?;
                self.emit(Stmt::Fence { site });
                return Ok(Val::Void);
            }
            "__threadfence_block" => {
                // Within a block, warpsim's lockstep order already is the program's order.
                self.arity(short, args, 0..=0, site)?;
                return Ok(Val::Void);
            }
            // Shuffles and votes.
            "__shfl_sync" | "__shfl_up_sync" | "__shfl_down_sync" | "__shfl_xor_sync" => {
                self.arity(short, args, 3..=4, site)?;
                let kind = match short {
                    "__shfl_sync" => ShflKind::Idx,
                    "__shfl_up_sync" => ShflKind::Up,
                    "__shfl_down_sync" => ShflKind::Down,
                    _ => ShflKind::Xor,
                };
                let mask = self.arg_as(&args[0], Scalar::U32)?;
                let width = match args.get(3) {
                    Some(w) => self.arg_as(w, Scalar::I32)?,
                    None => Operand::Const(consts::int(Scalar::I32, 32)),
                };
                let lane = if kind == ShflKind::Idx || kind == ShflKind::Xor {
                    self.arg_as(&args[2], Scalar::I32)?
                } else {
                    self.arg_as(&args[2], Scalar::U32)?
                };
                return self.shfl(kind, Some(mask), &args[1], lane, width, site);
            }
            "__shfl" | "__shfl_up" | "__shfl_down" | "__shfl_xor" | "__ballot" | "__any"
            | "__all" => {
                // The warp-synchronous intrinsics of CUDA 8 and before: nvcc accepts them for
                // devices before Volta, where they act on the warp's executing lanes.
                if self.m.arch >= 700 {
                    return Err(self.err(
                        site,
                        format!(
                            "`{short}` (without _sync) is not available on sm_70 and later (nvcc \
                             refuses it there too)"
                        ),
                        Some(format!(
                            "use `{short}_sync(0xffffffff, ...)`, or run on a pre-Volta profile \
                             (--device sm_61)"
                        )),
                    ));
                }
                if let Some(kind) = match short {
                    "__shfl" => Some(ShflKind::Idx),
                    "__shfl_up" => Some(ShflKind::Up),
                    "__shfl_down" => Some(ShflKind::Down),
                    "__shfl_xor" => Some(ShflKind::Xor),
                    _ => None,
                } {
                    self.arity(short, args, 2..=3, site)?;
                    let width = match args.get(2) {
                        Some(w) => self.arg_as(w, Scalar::I32)?,
                        None => Operand::Const(consts::int(Scalar::I32, 32)),
                    };
                    let lane_ty = if matches!(kind, ShflKind::Idx | ShflKind::Xor) {
                        Scalar::I32
                    } else {
                        Scalar::U32
                    };
                    let lane = self.arg_as(&args[1], lane_ty)?;
                    return self.shfl(kind, None, &args[0], lane, width, site);
                }
                self.arity(short, args, 1..=1, site)?;
                let (kind, dst_ty) = match short {
                    "__ballot" => (VoteKind::Ballot, Scalar::U32),
                    "__any" => (VoteKind::Any, Scalar::I32),
                    _ => (VoteKind::All, Scalar::I32),
                };
                let arg = self.truth_expr(&args[0])?;
                let dst = self.temp(dst_ty);
                self.emit(Stmt::Vote {
                    dst,
                    kind,
                    mask: None,
                    arg: Some(arg),
                    site,
                });
                return Ok(Val::Scalar(Operand::Var(dst), dst_ty));
            }
            "__ballot_sync" | "__any_sync" | "__all_sync" | "__activemask" | "__match_any_sync" => {
                let (kind, dst_ty) = match short {
                    "__ballot_sync" => (VoteKind::Ballot, Scalar::U32),
                    "__any_sync" => (VoteKind::Any, Scalar::I32),
                    "__all_sync" => (VoteKind::All, Scalar::I32),
                    "__activemask" => (VoteKind::ActiveMask, Scalar::U32),
                    _ => (VoteKind::MatchAny, Scalar::U32),
                };
                let (mask, arg) = if kind == VoteKind::ActiveMask {
                    self.arity(short, args, 0..=0, site)?;
                    (None, None)
                } else {
                    self.arity(short, args, 2..=2, site)?;
                    let mask = self.arg_as(&args[0], Scalar::U32)?;
                    let arg = if kind == VoteKind::MatchAny {
                        let (v, vt) = self.scalar(&args[1])?;
                        let t = promote(vt);
                        self.convert(v, vt, t, site)
                    } else {
                        self.truth_expr(&args[1])?
                    };
                    (Some(mask), Some(arg))
                };
                let dst = self.temp(dst_ty);
                self.emit(Stmt::Vote {
                    dst,
                    kind,
                    mask,
                    arg,
                    site,
                });
                return Ok(Val::Scalar(Operand::Var(dst), dst_ty));
            }
            "__reduce_add_sync" | "__reduce_min_sync" | "__reduce_max_sync"
            | "__reduce_and_sync" | "__reduce_or_sync" | "__reduce_xor_sync" => {
                self.arity(short, args, 2..=2, site)?;
                if self.m.arch < 800 {
                    return Err(self.err(
                        site,
                        format!("`{short}` needs sm_80 or later (nvcc refuses it before)"),
                        Some(
                            "guard it with `#if __CUDA_ARCH__ >= 800`, or run on a later profile"
                                .into(),
                        ),
                    ));
                }
                let op = match &short[9..short.len() - 5] {
                    "add" => WarpReduce::Add,
                    "min" => WarpReduce::Min,
                    "max" => WarpReduce::Max,
                    "and" => WarpReduce::And,
                    "or" => WarpReduce::Or,
                    _ => WarpReduce::Xor,
                };
                let mask = self.arg_as(&args[0], Scalar::U32)?;
                let (v, vt) = self.scalar(&args[1])?;
                // The overloads take `unsigned` or (add, min, max) `int`.
                let t = if vt.is_signed()
                    && matches!(op, WarpReduce::Add | WarpReduce::Min | WarpReduce::Max)
                {
                    Scalar::I32
                } else {
                    Scalar::U32
                };
                let arg = self.convert(v, vt, t, site);
                let dst = self.temp(t);
                self.emit(Stmt::Vote {
                    dst,
                    kind: VoteKind::Reduce(op),
                    mask: Some(mask),
                    arg: Some(arg),
                    site,
                });
                return Ok(Val::Scalar(Operand::Var(dst), t));
            }
            "__lane_id" => return Ok(Val::Scalar(Operand::Builtin(Builtin::LaneId), Scalar::U32)),
            "clock" | "clock64" => {
                self.arity(short, args, 0..=0, site)?;
                return Ok(Val::Scalar(Operand::Builtin(Builtin::Clock), Scalar::I64));
            }
            // Memory.
            "__ldg" | "__ldcg" | "__ldca" | "__ldcs" | "__ldlu" | "__ldcv" => {
                self.arity(short, args, 1..=1, site)?;
                let p = self.ptr_arg(&args[0], short)?;
                let ty = p.pointee.clone();
                let place = super::Place::Mem { ptr: p, ty };
                return self.read(&place, site);
            }
            // Stores with a cache hint: plain stores (warpsim has no caches to hint).
            "__stcs" | "__stcg" | "__stwb" | "__stwt" => {
                self.arity(short, args, 2..=2, site)?;
                let p = self.ptr_arg(&args[0], short)?;
                let ty = p.pointee.clone();
                let place = super::Place::Mem { ptr: p, ty };
                let v = self.rvalue(&args[1])?;
                self.write(&place, v, site)?;
                return Ok(Val::Void);
            }
            _ if short.starts_with("atomic") => return self.atomic(short, args, site, discard),
            _ if short.starts_with("make_") => {
                let tn = &short[5..];
                let Some((s, k)) = vector_type(tn) else {
                    return Err(self.unknown(site, "function", short));
                };
                self.arity(short, args, k as usize..=k as usize, site)?;
                let mut leaves = Vec::new();
                for a in args {
                    leaves.push(self.arg_as(a, s)?);
                }
                return Ok(Val::Agg(Ty::Vector(s, k), leaves));
            }
            "printf" => return self.printf(args, site),
            "assert" => {
                self.arity(short, args, 1..=1, site)?;
                let c = self.truth_expr(&args[0])?;
                let text = self
                    .m
                    .text
                    .get(args[0].span.0..args[0].span.1)
                    .unwrap_or("")
                    .trim()
                    .to_string();
                let trap = Stmt::Trap {
                    message: format!("assertion `{text}` failed"),
                    site,
                };
                match c {
                    Operand::Const(k) if consts::truthy(k) => {}
                    Operand::Const(_) => self.emit(trap),
                    c => self.emit(Stmt::If {
                        cond: c,
                        then: Vec::new(),
                        els: vec![trap],
                        varying: false,
                        site,
                    }),
                }
                return Ok(Val::Void);
            }
            "memcpy" | "memset" | "__builtin_memcpy" | "__builtin_memset" => {
                self.arity(short, args, 3..=3, site)?;
                return self.mem_op(short.ends_with("memcpy"), args, site);
            }
            "__trap" | "abort" => {
                self.emit(Stmt::Trap {
                    message: "__trap() called".into(),
                    site,
                });
                return Ok(Val::Void);
            }
            "__brkpt" | "__nanosleep" | "__prof_trigger" => return Ok(Val::Void),
            // Cooperative groups.
            "this_thread_block" => return Ok(Val::Group(Group::Block)),
            "tiled_partition" => {
                let size = match targs.first() {
                    Some(TemplateArg::Expr(e)) => self.const_int(e)?,
                    Some(TemplateArg::Type(ast::TypeExpr::Name(nm))) => {
                        let e = ast::Expr {
                            kind: ExprKind::Ident(nm.clone()),
                            site,
                            span: (0, 0),
                        };
                        self.const_int(&e)?
                    }
                    _ if args.len() == 2 => self.const_int(&args[1])?,
                    _ => {
                        return Err(self.err(
                            site,
                            "tiled_partition needs a constant size: tiled_partition<32>(block)",
                            None,
                        ));
                    }
                };
                return self.tile(size as u32, site).map(Val::Group);
            }
            "coalesced_threads" => {
                self.arity(short, args, 0..=0, site)?;
                let m = self.active_mask(site);
                return Ok(Val::Group(Group::Coalesced(m)));
            }
            "labeled_partition" | "binary_partition" => {
                self.arity(short, args, 2..=2, site)?;
                let within = match self.rvalue(&args[0])? {
                    Val::Group(Group::Coalesced(m)) => Operand::Var(m),
                    Val::Group(_) => Operand::Var(self.active_mask(site)),
                    _ => return Err(self.err(site, format!("cg::{short} needs a group"), None)),
                };
                let (v, vt) = self.scalar(&args[1])?;
                let label = if short == "binary_partition" {
                    let b = self.convert(v, vt, Scalar::Bool, site);
                    self.convert(b, Scalar::Bool, Scalar::U32, site)
                } else {
                    let t = promote(vt);
                    self.convert(v, vt, t, site)
                };
                let m = self.temp(Scalar::U32);
                self.emit(Stmt::Vote {
                    dst: m,
                    kind: VoteKind::MatchAny,
                    mask: Some(within),
                    arg: Some(label),
                    site,
                });
                return Ok(Val::Group(Group::Coalesced(m)));
            }
            "this_grid" => return Ok(Val::Group(Group::Grid)),
            "this_multi_grid" => {
                return Err(
                    self.grid_group(site, "multi-device cooperative groups (this_multi_grid)")
                );
            }
            "sync" => {
                self.arity(short, args, 1..=1, site)?;
                let Val::Group(g) = self.rvalue(&args[0])? else {
                    return Err(self.err(site, "cg::sync needs a group", None));
                };
                return self.group_method(g, "sync", &[], site);
            }
            "reduce" => {
                self.arity(short, args, 3..=3, site)?;
                let Val::Group(g) = self.rvalue(&args[0])? else {
                    return Err(self.err(
                        site,
                        "cg::reduce needs a group as its first argument",
                        None,
                    ));
                };
                let op = self.reduce_op(&args[2])?;
                let (v, vt) = self.scalar(&args[1])?;
                let t = if vt.is_float() { vt } else { promote(vt) };
                let v = self.convert(v, vt, t, site);
                let r = self.group_reduce(g, v, t, op, site)?;
                return Ok(Val::Scalar(r, t));
            }
            "inclusive_scan" | "exclusive_scan" => {
                return Err(self.unsupported(
                    site,
                    &format!("cg::{short}"),
                    Some("write the reduction with tile.shfl_down(v, offset) in a loop"),
                ));
            }
            _ => {}
        }
        if short.starts_with("__cvta") || short == "__isShared" || short == "__isGlobal" {
            return Err(self.unsupported(
                site,
                &format!("raw address conversions (`{short}`), as used with inline PTX"),
                Some(
                    "index the __shared__ array or the pointer in C; warpsim has no raw addresses",
                ),
            ));
        }
        if let Some(fetch) = texture_fetch(short) {
            return self.texture(short, fetch, targs, args, site);
        }
        if short.starts_with("tex") || short.starts_with("surf") {
            return Err(self.unsupported(
                site,
                &format!("`{short}` (of the texture and surface functions, warpsim has tex1Dfetch, tex1D, tex2D and tex3D)"),
                Some("fetch with tex1D/tex2D/tex3D, or read the data through a pointer parameter"),
            ));
        }
        if short.starts_with("cuda") || matches!(short, "malloc" | "free" | "memcpy" | "memset") {
            return Err(self.unsupported(
                site,
                &format!("calling `{short}` in device code"),
                Some("allocate and copy on the host; pass buffers as kernel parameters"),
            ));
        }
        if short == "__globaltimer" {
            return Err(self.unsupported(
                site,
                "the global nanosecond timer",
                Some("use clock64(), which counts the block's work in warpsim"),
            ));
        }
        if self.m.ast.host_functions.iter().any(|h| h == n) {
            return Err(self.err(
                site,
                format!("`{n}` is a host function and cannot be called from device code"),
                Some("declare it `__device__` (or `__host__ __device__`)".to_string()),
            ));
        }
        let overloads = self.m.ast.functions.iter().filter(|f| f.name == n).count();
        if overloads > 0 {
            return Err(self.err(
                site,
                format!(
                    "no overload of `{n}` takes these {} argument(s) ({overloads} declared)",
                    args.len()
                ),
                Some("check the number and types of the arguments".into()),
            ));
        }
        Err(self.unknown(site, "function", n))
    }

    /// The argument of a C math function that also writes through a pointer, in the
    /// function's type: `float` for its `f` form (`single`) and C++'s `float` overload,
    /// else `double`.
    fn float_arg(&mut self, arg: &ast::Expr, single: bool, site: Site) -> R<(Operand, Scalar)> {
        let (a, at) = self.scalar(arg)?;
        let t = if single || at == Scalar::F32 {
            Scalar::F32
        } else {
            Scalar::F64
        };
        Ok((self.convert(a, at, t, site), t))
    }

    /// Two 32-bit arguments as one 64-bit word, `hi:lo` (the funnel shifts' and
    /// `__byte_perm`'s operand).
    fn funnel(&mut self, lo: &ast::Expr, hi: &ast::Expr, site: Site) -> R<Operand> {
        let lo = self.arg_as(lo, Scalar::U32)?;
        let lo = self.convert(lo, Scalar::U32, Scalar::U64, site);
        let hi = self.arg_as(hi, Scalar::U32)?;
        let hi = self.convert(hi, Scalar::U32, Scalar::U64, site);
        let hi = self.binop(BinOp::Shl, Scalar::U64, hi, u64c(32), site);
        Ok(self.binop(BinOp::Or, Scalar::U64, hi, lo, site))
    }

    /// Store `v` where an output argument (`&s`, or a pointer) of `name` points.
    fn write_out(&mut self, arg: &ast::Expr, v: Val, name: &str, site: Site) -> R<()> {
        let place = match &arg.kind {
            ExprKind::Unary(ast::Unary::AddrOf, inner) => self.place(inner)?,
            _ => {
                let p = self.ptr_arg(arg, name)?;
                let ty = p.pointee.clone();
                Place::Mem { ptr: p, ty }
            }
        };
        self.write(&place, v, site)?;
        Ok(())
    }

    /// A shuffle of a value: a scalar is one shuffle; a vector or struct (as cooperative groups
    /// allow) one shuffle per scalar field.
    fn shfl(
        &mut self,
        kind: ShflKind,
        mask: Option<Operand>,
        value: &ast::Expr,
        lane: Operand,
        width: Operand,
        site: Site,
    ) -> R<Val> {
        let v = self.rvalue(value)?;
        let one = |l: &mut Self, v: Operand, vt: Scalar| {
            let t = if vt.is_float() { vt } else { promote(vt) };
            let v = l.convert(v, vt, t, site);
            let dst = l.temp(t);
            l.emit(Stmt::Shfl {
                dst,
                ty: t,
                kind,
                mask,
                value: v,
                lane,
                width,
                site,
            });
            (Operand::Var(dst), t, vt)
        };
        match v {
            Val::Scalar(v, vt) => {
                let (r, t, _) = one(self, v, vt);
                Ok(Val::Scalar(r, t))
            }
            Val::Agg(ty, leaves) => {
                let kinds = ty.leaves(&self.structs);
                let mut out = Vec::new();
                for (leaf, (_, s)) in leaves.into_iter().zip(kinds) {
                    let (r, t, vt) = one(self, leaf, s);
                    out.push(self.convert(r, t, vt, site));
                }
                Ok(Val::Agg(ty, out))
            }
            other => {
                let t = self.val_ty(&other);
                Err(self.err(
                    value.site,
                    format!("a shuffle of a `{}`", t.show(&self.structs)),
                    None,
                ))
            }
        }
    }

    fn atomic(&mut self, name: &str, args: &[ast::Expr], site: Site, discard: bool) -> R<Val> {
        let base = name.trim_end_matches("_block").trim_end_matches("_system");
        let op = match base {
            "atomicAdd" => AtomicOp::Add,
            "atomicSub" => AtomicOp::Sub,
            "atomicMin" => AtomicOp::Min,
            "atomicMax" => AtomicOp::Max,
            "atomicExch" => AtomicOp::Exch,
            "atomicAnd" => AtomicOp::And,
            "atomicOr" => AtomicOp::Or,
            "atomicXor" => AtomicOp::Xor,
            "atomicCAS" => AtomicOp::Cas,
            "atomicInc" => AtomicOp::Inc,
            "atomicDec" => AtomicOp::Dec,
            _ => return Err(self.unknown(site, "function", name)),
        };
        let n = if op == AtomicOp::Cas { 3 } else { 2 };
        self.arity(name, args, n..=n, site)?;
        let p = self.ptr_arg(&args[0], name)?;
        let Ty::Scalar(ty) = p.pointee else {
            return Err(self.err(site, format!("{name} needs a pointer to a number"), None));
        };
        let supported = match ty {
            Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64 => {
                !matches!(op, AtomicOp::Inc | AtomicOp::Dec) || ty == Scalar::U32
            }
            Scalar::F32 | Scalar::F64 => op.takes_floats(),
            _ => false,
        };
        if !supported {
            return Err(self.unsupported(
                site,
                &format!("`{name}` on `{ty}`"),
                Some(
                    "atomics work on 4- and 8-byte integers (atomicInc/atomicDec on `unsigned \
                     int`), and atomicAdd/Sub/Min/Max/Exch/CAS on `float` and `double`",
                ),
            ));
        }
        let limit_ty = if matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
            Scalar::U32
        } else {
            ty
        };
        let a = self.arg_as(&args[1], limit_ty)?;
        let b = if op == AtomicOp::Cas {
            Some(self.arg_as(&args[2], ty)?)
        } else {
            None
        };
        if p.local.is_some() {
            return Err(self.unsupported(
                site,
                "an atomic operation on a local variable",
                Some("atomics work on global and shared memory; a local variable belongs to one thread, so assign to it"),
            ));
        }
        let dst = (!discard).then(|| self.temp(ty));
        self.emit(Stmt::Atomic {
            dst,
            ty,
            op,
            addr: p.addr(),
            a,
            b,
            site,
        });
        Ok(match dst {
            Some(d) => Val::Scalar(Operand::Var(d), ty),
            None => Val::Void,
        })
    }

    /// Device `printf`: string-literal arguments folded into the format (their `%` doubled),
    /// `float` promoted to `double` and small integers to `int`, as C's varargs do.
    fn printf(&mut self, args: &[ast::Expr], site: Site) -> R<Val> {
        let Some(first) = args.first() else {
            return Err(self.err(site, "printf needs a format string", None));
        };
        let Val::Str(format) = self.rvalue(first)? else {
            return Err(self.err(first.site, "printf's format must be a string literal", None));
        };
        let mut vals = Vec::new();
        for a in &args[1..] {
            vals.push((self.rvalue(a)?, a.site));
        }
        // Walk the conversions, pairing each with its argument.
        let mut out = String::new();
        let mut out_args = Vec::new();
        let chars: Vec<char> = format.chars().collect();
        let mut i = 0;
        let mut next = vals.into_iter();
        while i < chars.len() {
            let c = chars[i];
            if c != '%' {
                out.push(c);
                i += 1;
                continue;
            }
            if chars.get(i + 1) == Some(&'%') {
                out.push_str("%%");
                i += 2;
                continue;
            }
            let start = i;
            i += 1;
            while i < chars.len() && !chars[i].is_ascii_alphabetic() {
                i += 1;
            }
            while i < chars.len() && matches!(chars[i], 'l' | 'h' | 'z' | 'j' | 't' | 'L') {
                i += 1;
            }
            let conv = chars.get(i).copied().unwrap_or('d');
            i += 1;
            let spec: String = chars[start..i.min(chars.len())].iter().collect();
            let Some((v, asite)) = next.next() else {
                return Err(self.err(site, format!("printf: `{spec}` has no argument"), None));
            };
            match v {
                Val::Str(s) if conv == 's' => out.push_str(&s.replace('%', "%%")),
                Val::Str(_) => {
                    return Err(self.err(asite, "printf: a string argument needs %s", None));
                }
                Val::Scalar(op, s) => {
                    let t = match s {
                        Scalar::F32 => Scalar::F64,
                        Scalar::Bool | Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16 => {
                            Scalar::I32
                        }
                        s => s,
                    };
                    let op = self.convert(op, s, t, asite);
                    out.push_str(&spec);
                    out_args.push((op, t));
                }
                _ => {
                    return Err(self.unsupported(
                        asite,
                        "printing this value",
                        Some("print numbers or string literals"),
                    ));
                }
            }
        }
        self.emit(Stmt::Printf {
            format: out,
            args: out_args,
            site,
        });
        Ok(Val::Scalar(
            Operand::Const(consts::int(Scalar::I32, 0)),
            Scalar::I32,
        ))
    }

    /// A cooperative-groups member function.
    pub fn group_method(
        &mut self,
        g: Group,
        method: &str,
        args: &[ast::Expr],
        site: Site,
    ) -> R<Val> {
        use crate::cuda::ir::Axis;
        let dims = |mk: fn(Axis) -> Builtin| {
            Val::Agg(
                Ty::Vector(Scalar::U32, 3),
                [Axis::X, Axis::Y, Axis::Z]
                    .map(|a| Operand::Builtin(mk(a)))
                    .to_vec(),
            )
        };
        match (g, method) {
            (Group::Grid, "thread_rank") => {
                let block = self.linear_block(site);
                let Val::Scalar(size, _) = self.group_method(Group::Block, "size", &[], site)?
                else {
                    unreachable!("size is a scalar")
                };
                let b = self.convert(block, Scalar::U32, Scalar::U64, site);
                let s = self.convert(size, Scalar::U32, Scalar::U64, site);
                let t = self.convert(
                    Operand::Builtin(Builtin::LinearTid),
                    Scalar::U32,
                    Scalar::U64,
                    site,
                );
                let first = self.binop(BinOp::Mul, Scalar::U64, b, s, site);
                Ok(Val::Scalar(self.binop(BinOp::Add, Scalar::U64, first, t, site), Scalar::U64))
            }
            (Group::Grid, "size" | "num_threads") => {
                let blocks = self.grid_blocks(site);
                let Val::Scalar(size, _) = self.group_method(Group::Block, "size", &[], site)?
                else {
                    unreachable!("size is a scalar")
                };
                let b = self.convert(blocks, Scalar::U32, Scalar::U64, site);
                let s = self.convert(size, Scalar::U32, Scalar::U64, site);
                Ok(Val::Scalar(self.binop(BinOp::Mul, Scalar::U64, b, s, site), Scalar::U64))
            }
            (Group::Grid, "block_rank") => Ok(Val::Scalar(self.linear_block(site), Scalar::U32)),
            (Group::Grid, "num_blocks") => Ok(Val::Scalar(self.grid_blocks(site), Scalar::U32)),
            (Group::Grid, "block_index") => Ok(dims(Builtin::BlockIdx)),
            (Group::Grid, "dim_blocks") => Ok(dims(Builtin::GridDim)),
            (Group::Grid, "is_valid") => Ok(Val::Scalar(super::bool_const(true), Scalar::Bool)),
            (Group::Grid, "sync") => {
                self.emit(Stmt::Sync {
                    kind: SyncKind::Grid,
                    pred: None,
                    dst: None,
                    site,
                });
                Ok(Val::Void)
            }
            (Group::Grid, _) => Err(self.grid_group(site, &format!("grid group method `{method}`"))),
            (Group::Coalesced(m), "size" | "num_threads") => {
                let n = self.unop(UnOp::Popc, Scalar::I32, Operand::Var(m), site);
                Ok(Val::Scalar(self.convert(n, Scalar::I32, Scalar::U32, site), Scalar::U32))
            }
            (Group::Coalesced(m), "thread_rank") => {
                let below = self.lanes_below(site);
                let mine = self.binop(BinOp::And, Scalar::U32, Operand::Var(m), below, site);
                let n = self.unop(UnOp::Popc, Scalar::I32, mine, site);
                Ok(Val::Scalar(self.convert(n, Scalar::I32, Scalar::U32, site), Scalar::U32))
            }
            (Group::Coalesced(_), "meta_group_rank") => Ok(Val::Scalar(u32c(0), Scalar::U32)),
            (Group::Coalesced(_), "meta_group_size") => Ok(Val::Scalar(u32c(1), Scalar::U32)),
            (Group::Coalesced(m), "sync") => {
                self.emit(Stmt::SyncWarp {
                    mask: Operand::Var(m),
                    site,
                });
                Ok(Val::Void)
            }
            (Group::Coalesced(m), "shfl") => {
                // The source is a rank among the group's threads: the lane of that set bit.
                self.arity(method, args, 2..=2, site)?;
                let rank = self.arg_as(&args[1], Scalar::U32)?;
                let lane = self.binop(BinOp::NthSet, Scalar::U32, Operand::Var(m), rank, site);
                let width = Operand::Const(consts::int(Scalar::I32, 32));
                self.shfl(ShflKind::Idx, Some(Operand::Var(m)), &args[0], lane, width, site)
            }
            (Group::Coalesced(m), "any" | "all" | "ballot" | "match_any") => {
                self.arity(method, args, 1..=1, site)?;
                let (kind, t) = match method {
                    "any" => (VoteKind::Any, Scalar::I32),
                    "all" => (VoteKind::All, Scalar::I32),
                    "ballot" => (VoteKind::Ballot, Scalar::U32),
                    _ => (VoteKind::MatchAny, Scalar::U32),
                };
                let arg = if kind == VoteKind::MatchAny {
                    let (v, vt) = self.scalar(&args[0])?;
                    let pt = promote(vt);
                    self.convert(v, vt, pt, site)
                } else {
                    self.truth_expr(&args[0])?
                };
                let dst = self.temp(t);
                self.emit(Stmt::Vote {
                    dst,
                    kind,
                    mask: Some(Operand::Var(m)),
                    arg: Some(arg),
                    site,
                });
                Ok(Val::Scalar(Operand::Var(dst), t))
            }
            (Group::Tile(n), "sync") if n > 32 => {
                // A tile of several warps: its threads meet at a barrier (the whole block must
                // reach it, as warpsim's barriers are block-wide).
                self.emit(Stmt::Sync {
                    kind: SyncKind::Plain,
                    pred: None,
                    dst: None,
                    site,
                });
                Ok(Val::Void)
            }
            (Group::Tile(n), "thread_rank") if n > 32 => Ok(Val::Scalar(
                self.binop(
                    BinOp::And,
                    Scalar::U32,
                    Operand::Builtin(Builtin::LinearTid),
                    u32c(n - 1),
                    site,
                ),
                Scalar::U32,
            )),
            (Group::Tile(n), "shfl" | "shfl_down" | "shfl_up" | "shfl_xor" | "any" | "all"
                | "ballot" | "match_any") if n > 32 => Err(self.err(
                site,
                format!("`{method}` on a tile of {n} threads: CUDA has warp operations on tiles of at most 32"),
                None,
            )),
            (Group::Block, "sync") | (Group::Block, "barrier_wait") => {
                self.emit(Stmt::Sync {
                    kind: SyncKind::Plain,
                    pred: None,
                    dst: None,
                    site,
                });
                Ok(Val::Void)
            }
            (Group::Block, "thread_rank") => Ok(Val::Scalar(
                Operand::Builtin(Builtin::LinearTid),
                Scalar::U32,
            )),
            (Group::Block, "size" | "num_threads") => {
                let xy = self.binop(
                    BinOp::Mul,
                    Scalar::U32,
                    Operand::Builtin(Builtin::BlockDim(Axis::X)),
                    Operand::Builtin(Builtin::BlockDim(Axis::Y)),
                    site,
                );
                let xyz = self.binop(
                    BinOp::Mul,
                    Scalar::U32,
                    xy,
                    Operand::Builtin(Builtin::BlockDim(Axis::Z)),
                    site,
                );
                Ok(Val::Scalar(xyz, Scalar::U32))
            }
            (Group::Block, "thread_index") => Ok(dims(Builtin::ThreadIdx)),
            (Group::Block, "group_index") => Ok(dims(Builtin::BlockIdx)),
            (Group::Block, "group_dim" | "dim_threads") => Ok(dims(Builtin::BlockDim)),
            (Group::Tile(_), "sync") => {
                self.emit(Stmt::SyncWarp {
                    mask: u32c(FULL),
                    site,
                });
                Ok(Val::Void)
            }
            (Group::Tile(n), "thread_rank") => {
                let lane = Operand::Builtin(Builtin::LaneId);
                if n == 32 {
                    return Ok(Val::Scalar(lane, Scalar::U32));
                }
                Ok(Val::Scalar(
                    self.binop(BinOp::And, Scalar::U32, lane, u32c(n - 1), site),
                    Scalar::U32,
                ))
            }
            (Group::Tile(n), "size" | "num_threads") => Ok(Val::Scalar(u32c(n), Scalar::U32)),
            (Group::Tile(n), "meta_group_rank") => {
                let r = self.binop(
                    BinOp::Div,
                    Scalar::U32,
                    Operand::Builtin(Builtin::LinearTid),
                    u32c(n),
                    site,
                );
                Ok(Val::Scalar(r, Scalar::U32))
            }
            (Group::Tile(n), "meta_group_size") => {
                let Val::Scalar(total, _) = self.group_method(Group::Block, "size", &[], site)?
                else {
                    unreachable!("size is a scalar")
                };
                let t = self.binop(BinOp::Add, Scalar::U32, total, u32c(n - 1), site);
                Ok(Val::Scalar(
                    self.binop(BinOp::Div, Scalar::U32, t, u32c(n), site),
                    Scalar::U32,
                ))
            }
            (Group::Tile(n), "shfl" | "shfl_down" | "shfl_up" | "shfl_xor") => {
                self.arity(method, args, 2..=2, site)?;
                let kind = match method {
                    "shfl" => ShflKind::Idx,
                    "shfl_down" => ShflKind::Down,
                    "shfl_up" => ShflKind::Up,
                    _ => ShflKind::Xor,
                };
                let lane_ty = if matches!(kind, ShflKind::Idx | ShflKind::Xor) {
                    Scalar::I32
                } else {
                    Scalar::U32
                };
                let lane = self.arg_as(&args[1], lane_ty)?;
                let width = Operand::Const(consts::int(Scalar::I32, i128::from(n)));
                self.shfl(kind, Some(u32c(FULL)), &args[0], lane, width, site)
            }
            (Group::Tile(_), "any" | "all" | "ballot") => {
                self.arity(method, args, 1..=1, site)?;
                let p = self.truth_expr(&args[0])?;
                let (kind, t) = match method {
                    "any" => (VoteKind::Any, Scalar::I32),
                    "all" => (VoteKind::All, Scalar::I32),
                    _ => (VoteKind::Ballot, Scalar::U32),
                };
                let dst = self.temp(t);
                self.emit(Stmt::Vote {
                    dst,
                    kind,
                    mask: Some(u32c(FULL)),
                    arg: Some(p),
                    site,
                });
                Ok(Val::Scalar(Operand::Var(dst), t))
            }
            (Group::Tile(_), "match_any") => {
                self.arity(method, args, 1..=1, site)?;
                let (v, vt) = self.scalar(&args[0])?;
                let t = promote(vt);
                let v = self.convert(v, vt, t, site);
                let dst = self.temp(Scalar::U32);
                self.emit(Stmt::Vote {
                    dst,
                    kind: VoteKind::MatchAny,
                    mask: Some(u32c(FULL)),
                    arg: Some(v),
                    site,
                });
                Ok(Val::Scalar(Operand::Var(dst), Scalar::U32))
            }
            (g, m) => {
                let ty = Ty::Group(g).show(&self.structs);
                let _ = CmpOp::Eq;
                Err(self.unsupported(site, &format!("`{ty}::{m}()`"), Some("supported: sync, thread_rank, size, meta_group_rank, shfl, shfl_down, shfl_up, shfl_xor, any, all, ballot")))
            }
        }
    }
}

/// A reduction's operation: `cg::plus<T>()` & co.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// `cg::plus`.
    Plus,
    /// `cg::less` (the minimum).
    Less,
    /// `cg::greater` (the maximum).
    Greater,
    /// `cg::bit_and`.
    BitAnd,
    /// `cg::bit_or`.
    BitOr,
    /// `cg::bit_xor`.
    BitXor,
    /// A lambda of two arguments.
    Closure(usize),
    /// A `__device__` function of two arguments (its index in the unit's functions).
    Function(usize),
    /// A functor: struct `i`'s `operator()` of two arguments, on an object without fields.
    Functor(usize),
}

impl Lowerer<'_> {
    /// The executing lanes of each warp, as a `U32` variable.
    fn active_mask(&mut self, site: Site) -> crate::cuda::ir::VarId {
        let m = self.temp(Scalar::U32);
        self.emit(Stmt::Vote {
            dst: m,
            kind: VoteKind::ActiveMask,
            mask: None,
            arg: None,
            site,
        });
        m
    }

    /// The lanes below this thread's: `(1 << lane) - 1`.
    fn lanes_below(&mut self, site: Site) -> Operand {
        let bit = self.binop(
            BinOp::Shl,
            Scalar::U32,
            u32c(1),
            Operand::Builtin(Builtin::LaneId),
            site,
        );
        self.binop(BinOp::Sub, Scalar::U32, bit, u32c(1), site)
    }

    /// The block's linear index in the grid.
    fn linear_block(&mut self, site: Site) -> Operand {
        let (x, y, z) = (
            Operand::Builtin(Builtin::BlockIdx(Axis::X)),
            Operand::Builtin(Builtin::BlockIdx(Axis::Y)),
            Operand::Builtin(Builtin::BlockIdx(Axis::Z)),
        );
        let (gx, gy) = (
            Operand::Builtin(Builtin::GridDim(Axis::X)),
            Operand::Builtin(Builtin::GridDim(Axis::Y)),
        );
        let zy = self.binop(BinOp::Mul, Scalar::U32, z, gy, site);
        let zy = self.binop(BinOp::Add, Scalar::U32, zy, y, site);
        let r = self.binop(BinOp::Mul, Scalar::U32, zy, gx, site);
        self.binop(BinOp::Add, Scalar::U32, r, x, site)
    }

    /// Blocks in the grid.
    fn grid_blocks(&mut self, site: Site) -> Operand {
        let xy = self.binop(
            BinOp::Mul,
            Scalar::U32,
            Operand::Builtin(Builtin::GridDim(Axis::X)),
            Operand::Builtin(Builtin::GridDim(Axis::Y)),
            site,
        );
        self.binop(
            BinOp::Mul,
            Scalar::U32,
            xy,
            Operand::Builtin(Builtin::GridDim(Axis::Z)),
            site,
        )
    }

    /// The operation of `cg::reduce`'s third argument.
    fn reduce_op(&mut self, e: &ast::Expr) -> R<ReduceOp> {
        if let ExprKind::Lambda(l, caps) = &e.kind {
            let Val::Closure(c) = self.closure(l, caps)? else {
                unreachable!("a lambda is a closure")
            };
            return Ok(ReduceOp::Closure(c));
        }
        if let ExprKind::Ident(n) = &e.kind
            && let Some(super::Sym::Place(Place::Closure(c))) = self.lookup(n)
        {
            return Ok(ReduceOp::Closure(*c));
        }
        // A function named as the operation: `cg::reduce(tile, v, add)`.
        if let ExprKind::Ident(n) = &e.kind {
            let n = self.canon(n);
            let two = |f: &ast::Function| f.name == n && f.params.len() == 2;
            if let Some(i) = self.m.ast.functions.iter().position(two) {
                return Ok(ReduceOp::Function(i));
            }
        }
        // A functor object: `Add add; cg::reduce(tile, v, add)`.
        if let ExprKind::Ident(n) = &e.kind
            && let Some(super::Sym::Place(p)) = self.lookup(n)
            && let Ty::Struct(i) = self.place_ty(p)
            && self
                .methods(i, "operator()")
                .iter()
                .any(|f| f.params.len() == 2)
        {
            return Ok(ReduceOp::Functor(i));
        }
        // The operation's type: `cg::plus<float>()` and `cg::plus<float>{}` alike.
        let none: &[TemplateArg] = &[];
        let (name, targs) = match &e.kind {
            ExprKind::Call(f, targs, args) if args.is_empty() => match &f.kind {
                ExprKind::Ident(n) => (self.canon(n), &targs[..]),
                _ => (String::new(), none),
            },
            ExprKind::Cast(ast::TypeExpr::Name(n), inner) if matches!(&inner.kind, ExprKind::InitList(v) if v.is_empty()) => {
                (self.canon(n), none)
            }
            ExprKind::Cast(ast::TypeExpr::Template(n, targs), inner) if matches!(&inner.kind, ExprKind::InitList(v) if v.is_empty()) => {
                (self.canon(n), &targs[..])
            }
            _ => (String::new(), none),
        };
        let short = name.rsplit("::").next().unwrap_or("");
        let builtin = matches!(
            short,
            "plus" | "less" | "greater" | "bit_and" | "bit_or" | "bit_xor"
        );
        // A functor of the program's own: `Max()`, `Max{}`, `AddT<float>{}`.
        if !builtin
            && !name.is_empty()
            && let Ok(Some(Ty::Struct(i))) = self.struct_named(&name, targs, e.site)
            && self
                .methods(i, "operator()")
                .iter()
                .any(|f| f.params.len() == 2)
        {
            return Ok(ReduceOp::Functor(i));
        }
        Ok(match short {
            "plus" => ReduceOp::Plus,
            "less" => ReduceOp::Less,
            "greater" => ReduceOp::Greater,
            "bit_and" => ReduceOp::BitAnd,
            "bit_or" => ReduceOp::BitOr,
            "bit_xor" => ReduceOp::BitXor,
            _ => {
                return Err(self.unsupported(
                    e.site,
                    "this reduction operation",
                    Some("use cg::plus<T>(), cg::less<T>(), cg::greater<T>(), cg::bit_and/or/xor<T>(), a lambda, a __device__ function of two arguments, or a functor struct with a __device__ operator()"),
                ));
            }
        })
    }

    /// `op(a, b)` in type `t`.
    fn reduce_step(
        &mut self,
        op: ReduceOp,
        t: Scalar,
        a: Operand,
        b: Operand,
        site: Site,
    ) -> R<Operand> {
        let bin = match op {
            ReduceOp::Closure(_) | ReduceOp::Function(_) | ReduceOp::Functor(_) => {
                let args = vec![ArgIn::Val(Val::Scalar(a, t)), ArgIn::Val(Val::Scalar(b, t))];
                let v = match op {
                    ReduceOp::Closure(c) => self.call_closure(c, args, site)?,
                    ReduceOp::Function(f) => {
                        let f = &self.m.ast.functions[f];
                        self.inline(f, &[], args, None, site)?
                    }
                    ReduceOp::Functor(i) => {
                        let f = self
                            .methods(i, "operator()")
                            .into_iter()
                            .find(|f| f.params.len() == 2)
                            .expect("checked by reduce_op");
                        self.inline(f, &[], args, Some((i, None)), site)?
                    }
                    _ => unreachable!("a call"),
                };
                let v = self.convert_val(v, &Ty::Scalar(t), site)?;
                let Val::Scalar(r, _) = v else {
                    unreachable!("converted to a scalar")
                };
                return Ok(r);
            }
            ReduceOp::Plus => BinOp::Add,
            ReduceOp::Less => BinOp::Min,
            ReduceOp::Greater => BinOp::Max,
            ReduceOp::BitAnd => BinOp::And,
            ReduceOp::BitOr => BinOp::Or,
            ReduceOp::BitXor => BinOp::Xor,
        };
        Ok(self.binop(bin, t, a, b, site))
    }

    /// `cg::reduce(group, v, op)` of a value `v` of type `t`: every thread of the group gets
    /// `op` over the group's values.
    /// `cg::reduce` as the one `__reduce_OP_sync` that cooperative groups use on sm_80 and
    /// later for a 4-byte integer and a built-in operation within a warp; `None` where they
    /// fall back to shuffles.
    fn redux(
        &mut self,
        g: Group,
        v: Operand,
        t: Scalar,
        op: ReduceOp,
        site: Site,
    ) -> Option<Operand> {
        let op = match op {
            ReduceOp::Plus => WarpReduce::Add,
            ReduceOp::Less => WarpReduce::Min,
            ReduceOp::Greater => WarpReduce::Max,
            ReduceOp::BitAnd => WarpReduce::And,
            ReduceOp::BitOr => WarpReduce::Or,
            ReduceOp::BitXor => WarpReduce::Xor,
            ReduceOp::Closure(_) | ReduceOp::Function(_) | ReduceOp::Functor(_) => return None,
        };
        if self.m.arch < 800 || !matches!(t, Scalar::I32 | Scalar::U32) {
            return None;
        }
        let mask = match g {
            Group::Coalesced(m) => Operand::Var(m),
            Group::Tile(32) => u32c(FULL),
            Group::Tile(n) if n < 32 => {
                // The lanes of this thread's tile.
                let first = self.binop(
                    BinOp::And,
                    Scalar::U32,
                    Operand::Builtin(Builtin::LaneId),
                    u32c(!(n - 1)),
                    site,
                );
                self.binop(BinOp::Shl, Scalar::U32, u32c((1 << n) - 1), first, site)
            }
            _ => return None,
        };
        let dst = self.temp(t);
        self.emit(Stmt::Vote {
            dst,
            kind: VoteKind::Reduce(op),
            mask: Some(mask),
            arg: Some(v),
            site,
        });
        Some(Operand::Var(dst))
    }

    fn group_reduce(
        &mut self,
        g: Group,
        v: Operand,
        t: Scalar,
        op: ReduceOp,
        site: Site,
    ) -> R<Operand> {
        if let Some(r) = self.redux(g, v, t, op, site) {
            return Ok(r);
        }
        let acc = self.temp(t);
        self.assign_to(acc, t, Op::Copy { src: v }, site);
        match g {
            Group::Tile(n) if n <= 32 => {
                // A butterfly within the tile: log2(n) exchanges.
                let mut k = n / 2;
                while k > 0 {
                    let other = self.temp(t);
                    self.emit(Stmt::Shfl {
                        dst: other,
                        ty: t,
                        kind: ShflKind::Xor,
                        mask: Some(u32c(FULL)),
                        value: Operand::Var(acc),
                        lane: Operand::Const(consts::int(Scalar::I32, i128::from(k))),
                        width: Operand::Const(consts::int(Scalar::I32, i128::from(n))),
                        site,
                    });
                    let r =
                        self.reduce_step(op, t, Operand::Var(acc), Operand::Var(other), site)?;
                    self.assign_to(acc, t, Op::Copy { src: r }, site);
                    k /= 2;
                }
            }
            Group::Coalesced(m) => {
                // Any subset of the warp: combine the members' values in lane order.
                let mut first = true;
                for lane in 0..32u32 {
                    let x = self.temp(t);
                    self.emit(Stmt::Shfl {
                        dst: x,
                        ty: t,
                        kind: ShflKind::Idx,
                        mask: Some(Operand::Var(m)),
                        value: v,
                        lane: Operand::Const(consts::int(Scalar::I32, i128::from(lane))),
                        width: Operand::Const(consts::int(Scalar::I32, 32)),
                        site,
                    });
                    let bit =
                        self.binop(BinOp::Shr, Scalar::U32, Operand::Var(m), u32c(lane), site);
                    let bit = self.binop(BinOp::And, Scalar::U32, bit, u32c(1), site);
                    let member = self.convert(bit, Scalar::U32, Scalar::Bool, site);
                    let combined = if first {
                        Operand::Var(x)
                    } else {
                        self.reduce_step(op, t, Operand::Var(acc), Operand::Var(x), site)?
                    };
                    let next = self.assign(
                        t,
                        Op::Select {
                            cond: member,
                            a: combined,
                            b: Operand::Var(acc),
                        },
                        site,
                    );
                    self.assign_to(acc, t, Op::Copy { src: next }, site);
                    first = false;
                }
            }
            Group::Tile(n) => {
                // A tile of several warps: each warp reduces, then the tile's warps combine
                // through shared memory between two barriers (as CUDA's own implementation
                // does, in its block_tile_memory).
                let w = self.group_reduce(Group::Tile(32), v, t, op, site)?;
                let size = t.size();
                self.shared.push(crate::cuda::ir::SharedArray {
                    name: "cg::reduce".into(),
                    bytes: 32 * size,
                    align: size,
                    site,
                });
                let base = crate::cuda::ir::Base::Shared(self.shared.len() as u32 - 1);
                let at = |slot: Operand| crate::cuda::ir::Addr {
                    base,
                    offset: Operand::Const(consts::int(Scalar::I64, 0)),
                    index: vec![(slot, i64::from(size))],
                };
                let warp = self.binop(
                    BinOp::Shr,
                    Scalar::U32,
                    Operand::Builtin(Builtin::LinearTid),
                    u32c(5),
                    site,
                );
                let leader = self.cmp(
                    CmpOp::Eq,
                    Scalar::U32,
                    Operand::Builtin(Builtin::LaneId),
                    u32c(0),
                    site,
                );
                let store = Stmt::Store {
                    ty: t,
                    addr: at(warp),
                    values: vec![w],
                    site,
                };
                self.emit(Stmt::If {
                    cond: leader,
                    then: vec![store],
                    els: Vec::new(),
                    varying: false,
                    site,
                });
                let barrier = Stmt::Sync {
                    kind: SyncKind::Plain,
                    pred: None,
                    dst: None,
                    site,
                };
                self.emit(barrier.clone());
                let per_tile = n / 32;
                let first = self.binop(BinOp::Div, Scalar::U32, warp, u32c(per_tile), site);
                let first = self.binop(BinOp::Mul, Scalar::U32, first, u32c(per_tile), site);
                for k in 0..per_tile {
                    let slot = self.binop(BinOp::Add, Scalar::U32, first, u32c(k), site);
                    let x = self.temp(t);
                    self.emit(Stmt::Load {
                        dst: vec![x],
                        ty: t,
                        addr: at(slot),
                        site,
                    });
                    let r = if k == 0 {
                        Operand::Var(x)
                    } else {
                        self.reduce_step(op, t, Operand::Var(acc), Operand::Var(x), site)?
                    };
                    self.assign_to(acc, t, Op::Copy { src: r }, site);
                }
                self.emit(barrier);
            }
            Group::Block | Group::Grid => {
                return Err(self.unsupported(
                    site,
                    "cg::reduce over a whole block or grid",
                    Some("reduce within tiles of 32 threads (cg::tiled_partition<32>)"),
                ));
            }
        }
        Ok(Operand::Var(acc))
    }
}

impl Lowerer<'_> {
    /// `memcpy(dst, src, n)` / `memset(dst, byte, n)` with a constant `n`: the bytes as the
    /// scalars of the two places (locals, registers or memory), which must line up.
    fn mem_op(&mut self, copy: bool, args: &[ast::Expr], site: Site) -> R<Val> {
        let n = self.const_int(&args[2]).map_err(|_| {
            self.unsupported(
                args[2].site,
                "memcpy/memset of a size known only at run time",
                Some("copy element by element in a loop"),
            )
        })?;
        let n = u32::try_from(n).map_err(|_| self.err(args[2].site, "a negative size", None))?;
        let dst = self.mem_place(&args[0], n)?;
        let dt = self.place_ty(&dst);
        let dl = dt.leaves(&self.structs);
        let leaves: Vec<Operand> = if copy {
            let src = self.mem_place(&args[1], n)?;
            let st = self.place_ty(&src);
            let sl = st.leaves(&self.structs);
            let lined_up = dl.len() == sl.len()
                && dl
                    .iter()
                    .zip(&sl)
                    .all(|(a, b)| a.0 == b.0 && a.1.size() == b.1.size());
            if !lined_up {
                return Err(self.unsupported(
                    site,
                    &format!(
                        "memcpy between a `{}` and a `{}`, whose fields do not line up",
                        dt.show(&self.structs),
                        st.show(&self.structs)
                    ),
                    Some("copy field by field"),
                ));
            }
            let from = self.read_leaves(&src, site)?;
            from.into_iter()
                .zip(dl.iter().zip(&sl))
                .map(|(o, ((_, d), (_, s)))| {
                    if d == s {
                        o
                    } else {
                        self.assign(*d, Op::Bitcast { src: o, from: *s }, site)
                    }
                })
                .collect()
        } else {
            let byte = self.const_int(&args[1]).map_err(|_| {
                self.unsupported(
                    args[1].site,
                    "memset with a value known only at run time",
                    None,
                )
            })? as u8;
            dl.iter()
                .map(|(_, s)| {
                    let bits = u64::from_le_bytes([byte; 8]);
                    let raw = if s.size() == 8 {
                        bits
                    } else {
                        bits & ((1u64 << (8 * s.size())) - 1)
                    };
                    Operand::Const(crate::cuda::ir::Const { ty: *s, bits: raw })
                })
                .collect()
        };
        self.write_leaves(&dst, &leaves, site)?;
        Ok(Val::Void)
    }

    /// Every scalar of a place, arrays element by element.
    fn read_leaves(&mut self, p: &Place, site: Site) -> R<Vec<Operand>> {
        if let Ty::Array(_, Some(n)) = self.place_ty(p)
            && matches!(p, Place::Local { .. } | Place::Reg { .. })
        {
            let mut out = Vec::new();
            for k in 0..n {
                let e = self.index_place(p.clone(), u32c(k), site)?;
                out.extend(self.read_leaves(&e, site)?);
            }
            return Ok(out);
        }
        if let Place::Mem { ptr, ty } = p {
            return self.load(ptr, ty, site);
        }
        let v = self.read(p, site)?;
        Ok(self.leaves_of(v))
    }

    /// Write every scalar of a place, arrays element by element.
    fn write_leaves(&mut self, p: &Place, leaves: &[Operand], site: Site) -> R<()> {
        let ty = self.place_ty(p);
        if let Ty::Array(elem, Some(n)) = &ty {
            let per = elem.leaf_count(&self.structs);
            for k in 0..*n {
                let e = self.index_place(p.clone(), u32c(k), site)?;
                let at = k as usize * per;
                self.write_leaves(&e, &leaves[at..at + per], site)?;
            }
            return Ok(());
        }
        let v = match ty {
            Ty::Scalar(s) => Val::Scalar(leaves[0], s),
            t => Val::Agg(t, leaves.to_vec()),
        };
        self.write(p, v, site)?;
        Ok(())
    }

    /// The `n` bytes a memcpy/memset argument designates: `&x`, a local array, or memory
    /// through a pointer.
    fn mem_place(&mut self, e: &ast::Expr, n: u32) -> R<Place> {
        let p = match &e.kind {
            ExprKind::Unary(ast::Unary::AddrOf, x) => self.place(x)?,
            ExprKind::Ident(_) => match self.place(e) {
                Ok(p @ (Place::Local { .. } | Place::Mem { .. })) => p,
                _ => self.pointee_place(e, n)?,
            },
            _ => self.pointee_place(e, n)?,
        };
        let size = self.place_ty(&p).size(&self.structs);
        if size != n {
            return Err(self.unsupported(
                e.site,
                &format!(
                    "memcpy/memset of {n} bytes over a `{}` of {size}",
                    self.place_ty(&p).show(&self.structs)
                ),
                Some("copy whole variables or arrays"),
            ));
        }
        Ok(p)
    }

    /// The memory a pointer argument points at, as `n` bytes of its pointee type.
    fn pointee_place(&mut self, e: &ast::Expr, n: u32) -> R<Place> {
        let Val::Ptr(mut ptr) = self.rvalue(e)? else {
            return Err(self.err(e.site, "memcpy/memset needs a pointer or an array", None));
        };
        if ptr.pointee == Ty::Void {
            ptr.pointee = Ty::Scalar(Scalar::U8);
        }
        let size = ptr.pointee.size(&self.structs).max(1);
        let ty = if size == n {
            ptr.pointee.clone()
        } else {
            Ty::Array(Box::new(ptr.pointee.clone()), Some(n / size))
        };
        Ok(Place::Mem { ptr, ty })
    }
}

/// The bits of a constant reinterpreted as type `to` (same size).
fn bitcast_bits(c: crate::cuda::ir::Const, to: Scalar) -> u64 {
    let raw = match c.ty.size() {
        4 => c.bits & 0xffff_ffff,
        _ => c.bits,
    };
    match to {
        Scalar::I32 => raw as u32 as i32 as i64 as u64,
        _ => raw,
    }
}

/// The fetch a texture function makes, for those warpsim has.
fn texture_fetch(name: &str) -> Option<texture::Fetch> {
    Some(match name {
        "tex1Dfetch" => texture::Fetch::Index,
        "tex1D" => texture::Fetch::Coords(1),
        "tex2D" => texture::Fetch::Coords(2),
        "tex3D" => texture::Fetch::Coords(3),
        _ => return None,
    })
}

impl Lowerer<'_> {
    /// The arithmetic type that is the only template argument of `what` (`numeric_limits<T>`).
    fn scalar_targ(&mut self, what: &str, targs: &[TemplateArg], site: Site) -> R<Scalar> {
        match targs {
            [TemplateArg::Type(t)] => match self.ty(t, site)? {
                Ty::Scalar(s) => Ok(s),
                other => Err(self.unsupported(
                    site,
                    &format!("`std::{what}` of the type `{other:?}`"),
                    Some("warpsim knows it for the arithmetic types"),
                )),
            },
            _ => Err(self.err(site, format!("`std::{what}` needs one type"), None)),
        }
    }

    /// The value of a `<type_traits>` predicate (`is_same<A, B>::value`, `is_same_v<A, B>`,
    /// `is_integral_v<T>`, ...), or `None` where `name` is none.
    pub(super) fn type_trait(
        &mut self,
        name: &str,
        targs: &[TemplateArg],
        site: Site,
    ) -> R<Option<bool>> {
        let Some(trait_name) = name
            .strip_suffix("::value")
            .or_else(|| name.strip_suffix("_v"))
        else {
            return Ok(None);
        };
        const TRAITS: [&str; 7] = [
            "is_same",
            "is_integral",
            "is_floating_point",
            "is_arithmetic",
            "is_signed",
            "is_unsigned",
            "is_pointer",
        ];
        if !TRAITS.contains(&trait_name) {
            return Ok(None);
        }
        let types = targs
            .iter()
            .map(|t| match t {
                TemplateArg::Type(t) => self.ty(t, site),
                TemplateArg::Expr(e) => {
                    Err(self.err(e.site, format!("`std::{trait_name}` takes types"), None))
                }
            })
            .collect::<R<Vec<Ty>>>()?;
        let value = match (trait_name, types.as_slice()) {
            ("is_same", [a, b]) => a == b,
            ("is_integral", [t]) => matches!(t, Ty::Scalar(s) if !s.is_float()),
            ("is_floating_point", [t]) => matches!(t, Ty::Scalar(s) if s.is_float()),
            ("is_arithmetic", [t]) => matches!(t, Ty::Scalar(_)),
            ("is_signed", [t]) => matches!(t, Ty::Scalar(s) if s.is_signed() || s.is_float()),
            ("is_unsigned", [t]) => {
                matches!(t, Ty::Scalar(s) if !s.is_signed() && !s.is_float())
            }
            ("is_pointer", [t]) => matches!(t, Ty::Pointer(_)),
            _ => {
                return Err(self.err(
                    site,
                    format!("`std::{trait_name}` has the wrong number of types"),
                    None,
                ));
            }
        };
        Ok(Some(value))
    }
}

/// `std::numeric_limits<s>::member` (a constant: `max()`, `digits`, ...), or `None` for a member
/// warpsim does not know.
fn numeric_limit(s: Scalar, member: &str) -> Option<Val> {
    let float = |v: f64| Some(Val::Scalar(Operand::Const(consts::float(s, v)), s));
    let int = |v: i128| Some(Val::Scalar(Operand::Const(consts::int(s, v)), s));
    let int_member = |v: i128| {
        Some(Val::Scalar(
            Operand::Const(consts::int(Scalar::I32, v)),
            Scalar::I32,
        ))
    };
    let bool_member = |v: bool| Some(Val::Scalar(bool_const(v), Scalar::Bool));
    let double = s == Scalar::F64;
    let pick = |f: f32, d: f64| if double { d } else { f64::from(f) };
    // Value bits of an integer type (`bool` has one).
    let bits = if s == Scalar::Bool {
        1
    } else {
        8 * i128::from(s.size()) - i128::from(s.is_signed())
    };
    let (int_min, int_max) = match s {
        Scalar::Bool => (0, 1),
        _ if s.is_signed() => (-(1 << bits), (1 << bits) - 1),
        _ => (0, (1 << bits) - 1),
    };
    match member {
        "is_specialized" | "is_bounded" => bool_member(true),
        "is_signed" => bool_member(s.is_signed() || s.is_float()),
        "is_integer" | "is_exact" => bool_member(!s.is_float()),
        "has_infinity" | "has_quiet_NaN" | "has_signaling_NaN" | "is_iec559" => {
            bool_member(s.is_float())
        }
        "is_modulo" => bool_member(!s.is_float() && !s.is_signed() && s != Scalar::Bool),
        "radix" => int_member(2),
        "digits" if s.is_float() => int_member(if double { 53 } else { 24 }),
        "digits" => int_member(bits),
        "digits10" if s.is_float() => int_member(if double { 15 } else { 6 }),
        // floor(digits * log10(2)).
        "digits10" => int_member(bits * 30103 / 100_000),
        "max_digits10" => int_member(match s {
            Scalar::F64 => 17,
            Scalar::F32 => 9,
            _ => 0,
        }),
        "min_exponent" if s.is_float() => int_member(if double { -1021 } else { -125 }),
        "max_exponent" if s.is_float() => int_member(if double { 1024 } else { 128 }),
        "min_exponent10" if s.is_float() => int_member(if double { -307 } else { -37 }),
        "max_exponent10" if s.is_float() => int_member(if double { 308 } else { 38 }),
        "min" if s.is_float() => float(pick(f32::MIN_POSITIVE, f64::MIN_POSITIVE)),
        "max" if s.is_float() => float(pick(f32::MAX, f64::MAX)),
        "lowest" if s.is_float() => float(pick(f32::MIN, f64::MIN)),
        "epsilon" if s.is_float() => float(pick(f32::EPSILON, f64::EPSILON)),
        "round_error" if s.is_float() => float(0.5),
        "infinity" if s.is_float() => float(f64::INFINITY),
        "quiet_NaN" if s.is_float() => float(f64::NAN),
        "denorm_min" if s.is_float() => float(pick(f32::from_bits(1), f64::from_bits(1))),
        "min" | "lowest" => int(int_min),
        "max" => int(int_max),
        "epsilon" | "round_error" | "infinity" | "quiet_NaN" | "denorm_min" => int(0),
        _ => None,
    }
}
