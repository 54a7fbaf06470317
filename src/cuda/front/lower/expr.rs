//! Lowering of expressions: values and places (lvalues), C's conversions, operators with the
//! integer promotions and usual arithmetic conversions, pointer arithmetic into [`PtrVal`]s,
//! memory and local-array accesses, and the choice between a branch-free form and a branch
//! for `&&`, `||` and `?:` (a right side or an arm that has side effects or may fault — a
//! load, a call, an assignment — is evaluated under an `If`, as C's short-circuit demands).

use super::consts;
use super::types::{Ty, is_integer, promote, same_width_other, usual};
use super::{ArgIn, Constant, Lowerer, Place, PtrVal, R, Sym, TArg, Val, bool_const};
use crate::cuda::front::ast::{self, Binary, ExprKind, Unary};
use crate::cuda::ir::{BinOp, CmpOp, Op, Operand, Scalar, Site, Stmt, UnOp, VarId};

/// The most elements an array inside a struct variable may have to be indexed at run time
/// (a struct kernel parameter's larger arrays are read from its bytes).
pub const MAX_PICK: usize = 256;

/// Builtin values that are not variables.
const BUILTIN_DIMS: [&str; 4] = ["threadIdx", "blockIdx", "blockDim", "gridDim"];

/// Calls that are pure (no side effects, cannot fault) for the `&&`/`?:` decision.
const PURE_CALLS: &[&str] = &[
    "sqrtf",
    "sqrt",
    "rsqrtf",
    "expf",
    "exp",
    "exp2f",
    "exp2",
    "logf",
    "log",
    "log2f",
    "log2",
    "log10f",
    "log10",
    "fabsf",
    "fabs",
    "fminf",
    "fmin",
    "fmaxf",
    "fmax",
    "floorf",
    "floor",
    "ceilf",
    "ceil",
    "truncf",
    "trunc",
    "roundf",
    "round",
    "sinf",
    "sin",
    "cosf",
    "cos",
    "tanf",
    "tan",
    "tanhf",
    "tanh",
    "powf",
    "pow",
    "atan2f",
    "atan2",
    "min",
    "max",
    "abs",
    "__fdividef",
    "__expf",
    "__logf",
    "__sinf",
    "__cosf",
    "__powf",
    "fmaf",
    "fma",
    "__popc",
    "__popcll",
    "__clz",
    "__ffs",
    "__brev",
    "__mulhi",
    "__umulhi",
    "rintf",
    "make_float2",
    "make_float4",
    "make_int2",
    "make_int4",
    "make_uint2",
    "make_uint4",
    "make_double2",
    "__float_as_int",
    "__int_as_float",
    "__float_as_uint",
    "__uint_as_float",
];

impl Lowerer<'_> {
    // ------------------------------------------------------------------ conversions

    /// Convert a scalar operand from `from` to `to` with C's rules. Same-width integer
    /// conversions are free bit reinterpretations; constants fold.
    pub fn convert(&mut self, op: Operand, from: Scalar, to: Scalar, site: Site) -> Operand {
        if from == to {
            return op;
        }
        if let Operand::Const(c) = op {
            return Operand::Const(consts::convert(
                crate::cuda::ir::Const { ty: from, ..c },
                to,
            ));
        }
        if to == Scalar::Bool {
            return self.cmp(
                CmpOp::Ne,
                from,
                op,
                Operand::Const(consts::int(from, 0)),
                site,
            );
        }
        // Same bits for 32- and 64-bit integers; a char or short lives sign- or zero-extended
        // in its lane, so `(unsigned char)c` converts.
        if same_width_other(from) == Some(to) && from.size() >= 4 {
            return self.assign(to, Op::Bitcast { src: op, from }, site);
        }
        self.assign(to, Op::Convert { src: op, from }, site)
    }

    /// Convert a value to type `ty` (assignment, argument passing, return).
    pub fn convert_val(&mut self, v: Val, ty: &Ty, site: Site) -> R<Val> {
        match (v, ty) {
            (Val::Scalar(op, from), Ty::Scalar(to)) => {
                Ok(Val::Scalar(self.convert(op, from, *to, site), *to))
            }
            (Val::Agg(t, leaves), _) if t == *ty => Ok(Val::Agg(t, leaves)),
            (Val::Ptr(p), Ty::Pointer(to))
                if (p.pointee == Ty::Texture) != (**to == Ty::Texture) =>
            {
                Err(self.texture_misuse(site))
            }
            (Val::Ptr(mut p), Ty::Pointer(to)) => {
                p.pointee = (**to).clone();
                Ok(Val::Ptr(p))
            }
            (Val::Ptr(mut p), Ty::Array(to, _)) => {
                p.pointee = (**to).clone();
                Ok(Val::Ptr(p))
            }
            (Val::Group(g), Ty::Group(_)) => Ok(Val::Group(g)),
            (Val::Closure(c), Ty::Closure(d)) if c == *d => Ok(Val::Closure(c)),
            (Val::Scalar(Operand::Const(c), s), Ty::Pointer(to))
                if c.bits == 0 && !s.is_float() =>
            {
                Ok(Val::Ptr(PtrVal::at(
                    crate::cuda::ir::Base::Null,
                    (**to).clone(),
                )))
            }
            (Val::Str(text), Ty::Pointer(_) | Ty::Array(..)) => {
                let p = self.string_storage(&text, site)?;
                self.convert_val(Val::Ptr(p), ty, site)
            }
            (v, ty) => {
                if let Some(c) = self.conversion(&v, ty, site)? {
                    return Ok(c);
                }
                // A converting constructor (`__half h = 1.0f;`, a `float` passed for a `__half`).
                if self.ctors(ty).iter().any(|f| f.takes(1)) {
                    return self.construct(ty, vec![ArgIn::Val(v)], site);
                }
                let from = self.val_ty(&v);
                Err(self.err(
                    site,
                    format!(
                        "cannot convert `{}` to `{}`",
                        from.show(&self.structs),
                        ty.show(&self.structs)
                    ),
                    None,
                ))
            }
        }
    }

    /// The type of a value.
    pub fn val_ty(&self, v: &Val) -> Ty {
        match v {
            Val::Scalar(_, s) => Ty::Scalar(*s),
            Val::Agg(t, _) => t.clone(),
            Val::Ptr(p) => Ty::Pointer(Box::new(p.pointee.clone())),
            Val::Group(g) => Ty::Group(*g),
            Val::Closure(c) => Ty::Closure(*c),
            Val::Str(_) => Ty::Pointer(Box::new(Ty::Scalar(Scalar::I8))),
            Val::Void => Ty::Void,
        }
    }

    /// The type of a place.
    pub fn place_ty(&self, p: &Place) -> Ty {
        match p {
            Place::Reg { ty, .. }
            | Place::Mem { ty, .. }
            | Place::Local { ty, .. }
            | Place::Pick { ty, .. }
            | Place::Pointers { ty, .. } => ty.clone(),
            Place::Ptr(k) => Ty::Pointer(Box::new(self.ptrs[*k].pointee.clone())),
            Place::Alias(t, _) => Ty::Pointer(Box::new(self.place_ty(t))),
            Place::Group(g) => Ty::Group(*g),
            Place::Closure(c) => Ty::Closure(*c),
        }
    }

    /// The scalar leaves of a value.
    pub fn leaves_of(&self, v: Val) -> Vec<Operand> {
        match v {
            Val::Scalar(op, _) => vec![op],
            Val::Agg(_, l) => l,
            _ => Vec::new(),
        }
    }

    // ------------------------------------------------------------------ operations

    /// `a op b` in type `ty`, folded when both are constants.
    pub fn binop(&mut self, op: BinOp, ty: Scalar, a: Operand, b: Operand, site: Site) -> Operand {
        if let (Operand::Const(x), Operand::Const(y)) = (a, b)
            && let Some(c) = consts::binary(op, ty, x, y)
        {
            return Operand::Const(c);
        }
        self.assign(ty, Op::Binary { op, a, b }, site)
    }

    /// A unary operation, folded on constants.
    pub fn unop(&mut self, op: UnOp, ty: Scalar, a: Operand, site: Site) -> Operand {
        if let Operand::Const(x) = a
            && let Some(c) = consts::unary(op, ty, x)
        {
            return Operand::Const(c);
        }
        let rty = if op == UnOp::LogicalNot {
            Scalar::Bool
        } else {
            ty
        };
        self.assign(rty, Op::Unary { op, a }, site)
    }

    /// A comparison of two operands of type `of`.
    pub fn cmp(&mut self, op: CmpOp, of: Scalar, a: Operand, b: Operand, site: Site) -> Operand {
        if let (Operand::Const(x), Operand::Const(y)) = (a, b) {
            return Operand::Const(consts::compare(op, of, x, y));
        }
        self.assign(Scalar::Bool, Op::Cmp { op, of, a, b }, site)
    }

    /// `a && b` (`is_and`) or `a || b` of two `Bool`s, both evaluated.
    pub fn logic(&mut self, is_and: bool, a: Operand, b: Operand, site: Site) -> Operand {
        match (a, b) {
            (Operand::Const(c), other) | (other, Operand::Const(c)) => {
                let t = consts::truthy(c);
                match (is_and, t) {
                    (true, true) | (false, false) => other,
                    (true, false) => bool_const(false),
                    (false, true) => bool_const(true),
                }
            }
            _ => self.assign(
                Scalar::Bool,
                if is_and {
                    Op::And { a, b }
                } else {
                    Op::Or { a, b }
                },
                site,
            ),
        }
    }

    /// `!a` of a `Bool`.
    pub fn not(&mut self, a: Operand, site: Site) -> Operand {
        self.unop(UnOp::LogicalNot, Scalar::Bool, a, site)
    }

    // ------------------------------------------------------------------ entry points

    /// Evaluate an expression for its side effects only.
    pub fn discard(&mut self, e: &ast::Expr) -> R<()> {
        match &e.kind {
            ExprKind::Call(f, targs, args) => {
                self.call(f, targs, args, e.site, true)?;
            }
            ExprKind::IncDec(inc, _, x) => {
                self.incdec(*inc, true, x, e.site)?;
            }
            ExprKind::Comma(a, b) => {
                self.discard(a)?;
                self.discard(b)?;
            }
            ExprKind::Cast(ast::TypeExpr::Name(n), x) if n == "void" => self.discard(x)?,
            _ => {
                self.rvalue(e)?;
            }
        }
        Ok(())
    }

    /// Evaluate an expression that must be a scalar.
    pub fn scalar(&mut self, e: &ast::Expr) -> R<(Operand, Scalar)> {
        match self.rvalue(e)? {
            Val::Scalar(op, s) => Ok((op, s)),
            v => {
                let t = self.val_ty(&v);
                Err(self.err(
                    e.site,
                    format!("a number is needed here, not a `{}`", t.show(&self.structs)),
                    None,
                ))
            }
        }
    }

    /// Evaluate an integer expression (an index, a shift amount).
    pub fn integer(&mut self, e: &ast::Expr) -> R<(Operand, Scalar)> {
        let (op, s) = self.scalar(e)?;
        if s.is_float() {
            return Err(self.err(
                e.site,
                "an integer is needed here, not a floating-point value",
                None,
            ));
        }
        if s == Scalar::Bool {
            return Ok((self.convert(op, s, Scalar::I32, e.site), Scalar::I32));
        }
        Ok((op, s))
    }

    /// A condition as a `Bool` (a non-`Bool` is compared with zero: one operation).
    pub fn truth_expr(&mut self, e: &ast::Expr) -> R<Operand> {
        let v = self.rvalue(e)?;
        self.truth(v, e.site)
    }

    /// A value as a `Bool`.
    pub fn truth(&mut self, v: Val, site: Site) -> R<Operand> {
        match v {
            Val::Scalar(op, Scalar::Bool) => Ok(op),
            Val::Scalar(op, s) => Ok(self.convert(op, s, Scalar::Bool, site)),
            Val::Ptr(p) => {
                let a = self.ptr_address(&p, site);
                Ok(self.cmp(
                    CmpOp::Ne,
                    Scalar::U64,
                    a,
                    Operand::Const(consts::int(Scalar::U64, 0)),
                    site,
                ))
            }
            _ => Err(self.unsupported(
                site,
                "a pointer or aggregate as a condition",
                Some("compare explicitly"),
            )),
        }
    }

    /// Whether evaluating `e` has no side effects and cannot fault (so it may be evaluated
    /// even when C would not evaluate it).
    fn is_pure(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => !matches!(
                self.lookup(n),
                Some(Sym::Place(Place::Mem { .. } | Place::Local { .. }))
            ),
            ExprKind::Int(..)
            | ExprKind::Float(..)
            | ExprKind::Char(_)
            | ExprKind::Bool(_)
            | ExprKind::SizeofType(_)
            | ExprKind::SizeofExpr(_)
            | ExprKind::Alignof(_) => true,
            ExprKind::Unary(u, x) => !matches!(u, Unary::Deref | Unary::AddrOf) && self.is_pure(x),
            ExprKind::Binary(_, a, b) => self.is_pure(a) && self.is_pure(b),
            ExprKind::Cond(c, a, b) => self.is_pure(c) && self.is_pure(a) && self.is_pure(b),
            ExprKind::Cast(_, x) => self.is_pure(x),
            ExprKind::Member(x, _, arrow) => !arrow && self.is_pure(x),
            ExprKind::Call(f, _, args) => {
                matches!(&f.kind, ExprKind::Ident(n) if PURE_CALLS.contains(&n.as_str())
                    || super::builtins::is_rounding_intrinsic(n))
                    && args.iter().all(|a| self.is_pure(a))
            }
            _ => false,
        }
    }

    /// The type of `x`, which is not evaluated (`sizeof x`, `decltype(x)`); a name of a type
    /// is that type (`sizeof(T)`, where the grammar cannot tell `T` from a variable).
    pub fn type_of(&mut self, x: &ast::Expr) -> R<Ty> {
        // The variable being declared, in its own initializer:
        // `float (*p)[4] = reinterpret_cast<decltype(p)>(s);`.
        if let ExprKind::Ident(n) = &x.kind
            && let Some((_, t)) = self.declaring.last().filter(|(d, _)| d == n)
        {
            let t = t.clone();
            return self.ty(&t, x.site);
        }
        if let ExprKind::Ident(n) = &x.kind
            && self.lookup(n).is_none()
            && self.is_type_name(n)
        {
            return self.ty(&ast::TypeExpr::Name(n.clone()), x.site);
        }
        let mut ty = Ty::Void;
        self.sub_block(|l| {
            if let Some((name, c)) = l.host_constant_root(x)? {
                ty = l.host_constant_at(x, &name, &c.0)?.0;
                return Ok(());
            }
            ty = if is_lvalue_like(x) {
                match l.place(x) {
                    Ok(p) => l.place_ty(&p),
                    Err(_) => {
                        let v = l.rvalue(x)?;
                        l.val_ty(&v)
                    }
                }
            } else {
                let v = l.rvalue(x)?;
                l.val_ty(&v)
            };
            Ok(())
        })?;
        Ok(ty)
    }

    // ------------------------------------------------------------------ rvalues

    /// Evaluate an expression.
    pub fn rvalue(&mut self, e: &ast::Expr) -> R<Val> {
        let site = e.site;
        match &e.kind {
            ExprKind::Int(l) => {
                let s = l.scalar();
                Ok(Val::Scalar(
                    Operand::Const(consts::int(s, i128::from(l.value))),
                    s,
                ))
            }
            ExprKind::Float(v, f32) => {
                let s = if *f32 { Scalar::F32 } else { Scalar::F64 };
                Ok(Val::Scalar(Operand::Const(consts::float(s, *v)), s))
            }
            ExprKind::Char(v) => Ok(Val::Scalar(
                Operand::Const(consts::int(Scalar::I8, i128::from(*v))),
                Scalar::I8,
            )),
            ExprKind::Bool(b) => Ok(Val::Scalar(bool_const(*b), Scalar::Bool)),
            ExprKind::Str(s) => Ok(Val::Str(s.clone())),
            ExprKind::Null => Ok(Val::Scalar(
                Operand::Const(consts::int(Scalar::I64, 0)),
                Scalar::I64,
            )),
            ExprKind::Unsupported(what, help) => {
                if what == "a syntax error" {
                    return Err(self.err(site, "syntax error", help.clone()));
                }
                Err(self.unsupported(site, what, help.as_deref()))
            }
            ExprKind::Ident(name) => self.ident(name, site),
            ExprKind::Lambda(f, c) => self.closure(f, c),
            ExprKind::This => match self.this_place(site)? {
                Place::Mem { ptr, ty } => Ok(Val::Ptr(PtrVal { pointee: ty, ..ptr })),
                _ => Err(self.unsupported(
                    site,
                    "`this` as a value for an object held in registers",
                    Some("use the fields by name, `this->x` or `*this`"),
                )),
            },
            ExprKind::Index(..) | ExprKind::Member(_, _, false)
                if let Some(v) = self.host_constant_value(e).transpose() =>
            {
                v
            }
            ExprKind::Member(a, f, arrow) if let Some(v) = self.static_through(a, f, *arrow) => {
                Ok(v)
            }
            ExprKind::Member(a, f, true)
                if matches!(a.kind, ExprKind::This)
                    && let Some(p) = self.this_pointer(f) =>
            {
                let p = self.through_reference(p, site)?;
                self.read(&p, site)
            }
            ExprKind::Member(a, f, false) => {
                // A pointer field read before anything was assigned to it (a struct loaded from
                // memory) is the field's bytes, as before struct variables carried pointers.
                if let Some(p) = self.field_pointer(a, f)
                    && !matches!(p, Place::Ptr(k) if self.ptrs[k].base.is_none() && !self.ptrs[k].reference)
                {
                    let p = self.through_reference(p, site)?;
                    return self.read(&p, site);
                }
                if let ExprKind::Ident(n) = &a.kind
                    && self.lookup(n).is_none()
                {
                    let v = self.rvalue(a)?;
                    return self.member_val(v, f, site);
                }
                if is_lvalue_like(a) {
                    let p = self.place(a)?;
                    let fp = self.member_place(p, f, site)?;
                    return self.read(&fp, site);
                }
                let v = self.rvalue(a)?;
                self.member_val(v, f, site)
            }
            // `v[i]` of a struct: its `operator[]`.
            ExprKind::Index(a, i) if self.is_struct(a) => {
                let args = vec![ArgIn::Expr(a), ArgIn::Expr(i)];
                match self.operator("operator[]", args, site)? {
                    Some(v) => Ok(v),
                    None => {
                        let t = self.arg_ty(&ArgIn::Expr(a))?;
                        Err(self.err(
                            site,
                            format!("`{}` has no operator[]", t.show(&self.structs)),
                            None,
                        ))
                    }
                }
            }
            ExprKind::Member(..) | ExprKind::Index(..) => {
                let p = self.place(e)?;
                self.read(&p, site)
            }
            ExprKind::Unary(Unary::Deref, _) => {
                let p = self.place(e)?;
                self.read(&p, site)
            }
            ExprKind::Unary(Unary::AddrOf, x) => {
                // A compile-time constant (`const unsigned one = 1; (char *)&one`): declared
                // again as a variable when the kernel is lowered again.
                if let ExprKind::Ident(name) = &x.kind
                    && let Some(Sym::Const(_)) = self.lookup(name)
                    && let Some(at) = self.const_declared_at.get(name)
                {
                    self.retry_addressed = Some(*at);
                }
                let p = self.place(x)?;
                self.address_of_place(p, site).map(Val::Ptr)
            }
            ExprKind::Unary(u, x) => {
                let (op, s) = match self.rvalue(x)? {
                    Val::Scalar(op, s) => (op, s),
                    v @ Val::Agg(..) => {
                        let name = match u {
                            Unary::Neg => "operator-",
                            Unary::Plus => "operator+",
                            Unary::BitNot => "operator~",
                            _ => "operator!",
                        };
                        let t = self.val_ty(&v);
                        return match self.operator(name, vec![ArgIn::Val(v)], site)? {
                            Some(r) => Ok(r),
                            None => Err(self.err(
                                site,
                                format!("no `{name}` for `{}`", t.show(&self.structs)),
                                None,
                            )),
                        };
                    }
                    Val::Ptr(p) if *u == Unary::Not => {
                        let a = self.ptr_address(&p, site);
                        let z = Operand::Const(consts::int(Scalar::U64, 0));
                        return Ok(Val::Scalar(
                            self.cmp(CmpOp::Eq, Scalar::U64, a, z, site),
                            Scalar::Bool,
                        ));
                    }
                    v => {
                        let t = self.val_ty(&v);
                        return Err(self.err(
                            x.site,
                            format!("a number is needed here, not a `{}`", t.show(&self.structs)),
                            None,
                        ));
                    }
                };
                match u {
                    Unary::Plus => {
                        let t = promote(s);
                        Ok(Val::Scalar(self.convert(op, s, t, site), t))
                    }
                    Unary::Neg => {
                        let t = promote(s);
                        let a = self.convert(op, s, t, site);
                        Ok(Val::Scalar(self.unop(UnOp::Neg, t, a, site), t))
                    }
                    Unary::BitNot => {
                        if s.is_float() {
                            return Err(self.err(site, "`~` needs an integer", None));
                        }
                        let t = promote(s);
                        let a = self.convert(op, s, t, site);
                        Ok(Val::Scalar(self.unop(UnOp::Not, t, a, site), t))
                    }
                    Unary::Not => {
                        // `!x` of a non-bool compares with zero directly: one operation.
                        let r = if s == Scalar::Bool {
                            self.not(op, site)
                        } else {
                            self.cmp(CmpOp::Eq, s, op, Operand::Const(consts::int(s, 0)), site)
                        };
                        Ok(Val::Scalar(r, Scalar::Bool))
                    }
                    Unary::Deref | Unary::AddrOf => unreachable!("handled above"),
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, site),
            ExprKind::Assign(op, a, b) => self.assign_expr(*op, a, b, site),
            ExprKind::IncDec(inc, prefix, x) => self.incdec(*inc, *prefix, x, site),
            ExprKind::Cond(c, a, b) => self.conditional(c, a, b, site),
            ExprKind::Comma(a, b) => {
                self.discard(a)?;
                self.rvalue(b)
            }
            ExprKind::StmtExpr(stmts) => self.statement_expression(stmts),
            ExprKind::PackExpansion(_) => Err(super::packs::unexpanded(self, site)),
            ExprKind::SizeofPack(name) => Err(self.unknown(site, "parameter pack", name)),
            ExprKind::Call(f, targs, args) => self.call(f, targs, args, site, false),
            ExprKind::Cast(ast::TypeExpr::Name(n), _)
                if !self.is_type_name(n) && self.lookup(n).is_some() =>
            {
                // The grammar cannot tell `(a) - b`, `(a) * b`, `(a) & b`, `(a) && b` from casts
                // without knowing that `a` is no type, and the tree it builds has the wrong
                // precedence too (`(a) - b * c`): say so rather than guess.
                Err(self.err(
                    site,
                    format!("`({n})` reads as a cast here, but `{n}` is a variable"),
                    Some(format!(
                        "the parser takes `({n})` followed by `-`, `+`, `*`, `&` or `&&` for a \
                         cast: drop the parentheses around `{n}` (in a macro too)"
                    )),
                ))
            }
            ExprKind::Cast(t, x) => {
                let ty = self.ty(t, site)?;
                if let ExprKind::InitList(items) = &x.kind {
                    return self.init_list(items, &ty, site);
                }
                if ty == Ty::Void {
                    self.discard(x)?;
                    return Ok(Val::Void);
                }
                let v = self.rvalue(x)?;
                match (&v, &ty) {
                    (Val::Ptr(p), Ty::Scalar(to)) if is_integer(*to) => {
                        // `(uintptr_t)p`: its address, as an alignment test reads it.
                        let a = self.ptr_address(p, site);
                        Ok(Val::Scalar(self.convert(a, Scalar::U64, *to, site), *to))
                    }
                    (Val::Scalar(Operand::Const(c), _), Ty::Pointer(_)) if c.bits == 0 => {
                        self.convert_val(v, &ty, site)
                    }
                    (Val::Scalar(..), Ty::Pointer(_)) => Err(self.unsupported(
                        site,
                        "casting an integer to a pointer",
                        Some("every pointer must point into a kernel parameter's buffer or shared memory"),
                    )),
                    (Val::Scalar(..), Ty::Vector(s, n)) => {
                        // `make_float4(v)`-style broadcast is not C; a cast to a vector is an error.
                        let _ = (s, n);
                        Err(self.err(site, "cannot cast a number to a vector type", Some("use make_float4(..) & co".into())))
                    }
                    _ => self.convert_val(v, &ty, site),
                }
            }
            ExprKind::SizeofType(t) => {
                let ty = self.ty(t, site)?;
                Ok(size_t(ty.size(&self.structs)))
            }
            // `sizeof(a)` of a parameter `int a[4]`: a pointer's size.
            ExprKind::SizeofExpr(x)
                if matches!(&x.kind, ExprKind::Ident(n)
                    if self.frames.last().is_some_and(|f| f.array_params.contains(n))) =>
            {
                Ok(size_t(8))
            }
            ExprKind::Alignof(t) => {
                let ty = self.ty(t, site)?;
                Ok(size_t(ty.align(&self.structs)))
            }
            // `sizeof(S<int>)`: the grammar reads a struct template's name with arguments as
            // an expression (as it would `S<int>()`, whose size is the same).
            ExprKind::SizeofExpr(x)
                if matches!(&x.kind, ExprKind::Call(f, targs, args)
                    if args.is_empty() && !targs.is_empty() && matches!(f.kind, ExprKind::Ident(_))) =>
            {
                let ExprKind::Call(f, targs, _) = &x.kind else {
                    unreachable!("matched above")
                };
                let ExprKind::Ident(n) = &f.kind else {
                    unreachable!("matched above")
                };
                let n = self.canon(n);
                match self.struct_instance(&n, targs, site)? {
                    Some(ty) => Ok(size_t(ty.size(&self.structs))),
                    // A function template's call.
                    None => Ok(size_t(self.type_of(x)?.size(&self.structs))),
                }
            }
            ExprKind::SizeofExpr(x) => Ok(size_t(self.type_of(x)?.size(&self.structs))),
            ExprKind::InitList(_) => {
                Err(self.err(site, "an initializer list needs a declared type here", None))
            }
        }
    }

    fn ident(&mut self, name: &str, site: Site) -> R<Val> {
        if let Some(sym) = self.lookup(name).cloned() {
            return match sym {
                Sym::Const(c) => Ok(Val::Scalar(Operand::Const(c), c.ty)),
                Sym::Place(p) => self.read(&p, site),
            };
        }
        match self.targ(name) {
            Some(TArg::Value(c)) => return Ok(Val::Scalar(Operand::Const(*c), c.ty)),
            Some(TArg::Type(_)) => {
                return Err(self.err(site, format!("`{name}` is a type, not a value"), None));
            }
            None => {}
        }
        let n = self.canon(name);
        if let Some(k) = BUILTIN_DIMS.iter().position(|b| *b == n) {
            use crate::cuda::ir::{Axis, Builtin};
            let mk: fn(Axis) -> Builtin = match k {
                0 => Builtin::ThreadIdx,
                1 => Builtin::BlockIdx,
                2 => Builtin::BlockDim,
                _ => Builtin::GridDim,
            };
            let leaves = [Axis::X, Axis::Y, Axis::Z]
                .map(|a| Operand::Builtin(mk(a)))
                .to_vec();
            return Ok(Val::Agg(Ty::Vector(Scalar::U32, 3), leaves));
        }
        match n.as_str() {
            "warpSize" => {
                return Ok(Val::Scalar(
                    Operand::Const(consts::int(Scalar::I32, 32)),
                    Scalar::I32,
                ));
            }
            "NULL" | "nullptr" => {
                return Ok(Val::Scalar(
                    Operand::Const(consts::int(Scalar::I64, 0)),
                    Scalar::I64,
                ));
            }
            _ => {}
        }
        if let Some(v) = math_constant(&n) {
            return Ok(v);
        }
        // First: a `const` device variable is a constant in a constant expression.
        if let Some(c) = self.global(&n, site)? {
            return Ok(Val::Scalar(Operand::Const(c), c.ty));
        }
        if let Some(p) = self.device_global(&n, site)? {
            return self.read(&p, site);
        }
        if let Some(v) = self.host_constant_value(&ast::Expr {
            kind: ExprKind::Ident(n.clone()),
            site,
            span: (0, 0),
        })? {
            return Ok(v);
        }
        if let Some((scope, member)) = super::classes::split_scope(&n)
            && let Some(v) = self.static_member(scope, member, site)?
        {
            return Ok(v);
        }
        // `Opt<float>::Put`: an enumerator of a struct template is the same in every instance.
        if n.contains('<') {
            let mut bare = String::new();
            let mut depth = 0;
            for ch in n.chars() {
                match ch {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ if depth == 0 => bare.push(ch),
                    _ => {}
                }
            }
            if let Some(c) = self.global(&bare, site)? {
                return Ok(Val::Scalar(Operand::Const(c), c.ty));
            }
        }
        if self.m.ast.functions.iter().any(|f| f.name == n)
            || self.m.ast.host_functions.contains(&n)
        {
            return Err(self.unsupported(
                site,
                &format!("using the function `{n}` as a value (function pointers)"),
                Some("call the function directly"),
            ));
        }
        Err(self.unknown(site, "identifier", &n))
    }

    /// The file-scope constant ([`Lowerer::host_constant`]) that `e` reads an element or
    /// member of, or is (`tbl[2]`, `cfg.dims[1]`, `pts[k].x`): its name and value.
    fn host_constant_root(&mut self, e: &ast::Expr) -> R<Option<(String, Constant)>> {
        match &e.kind {
            ExprKind::Ident(n) => Ok(self.host_constant(n)?.map(|c| (n.clone(), c))),
            ExprKind::Index(a, _) | ExprKind::Member(a, _, false) => self.host_constant_root(a),
            _ => Ok(None),
        }
    }

    /// What an element or member chain `e` of host constant `name` (of type `root`)
    /// designates: its type and byte offset. Its indices must be constants.
    fn host_constant_at(&mut self, e: &ast::Expr, name: &str, root: &Ty) -> R<(Ty, u32)> {
        match &e.kind {
            ExprKind::Index(a, i) => {
                let (t, at) = self.host_constant_at(a, name, root)?;
                let Ty::Array(elem, n) = t else {
                    let shown = t.show(&self.structs);
                    return Err(self.err(e.site, format!("cannot index a `{shown}`"), None));
                };
                let Operand::Const(k) = self.integer(i)?.0 else {
                    return Err(self.host_constant_misuse(
                        e.site,
                        name,
                        "an element at a run-time index",
                    ));
                };
                let (k, n) = (consts::as_int(k), n.unwrap_or(0));
                if !(0..i128::from(n)).contains(&k) {
                    return Err(self.err(
                        i.site,
                        format!("index {k} is outside `{name}`, which has {n} elements here"),
                        None,
                    ));
                }
                Ok(((*elem).clone(), at + k as u32 * elem.size(&self.structs)))
            }
            ExprKind::Member(a, f, false) => {
                let (t, at) = self.host_constant_at(a, name, root)?;
                let (fty, off, _) = self.field(&t, false, f, e.site)?;
                Ok((fty, at + off))
            }
            _ => Ok((root.clone(), 0)),
        }
    }

    /// The value of `e` when it reads a host constant ([`Lowerer::host_constant_root`]): its
    /// leaves are constants, as nvcc folds them.
    fn host_constant_value(&mut self, e: &ast::Expr) -> R<Option<Val>> {
        let Some((name, c)) = self.host_constant_root(e)? else {
            return Ok(None);
        };
        let (ty, at) = self.host_constant_at(e, &name, &c.0)?;
        if let Ty::Array(..) = ty {
            return Err(self.host_constant_misuse(e.site, &name, "the array as a whole"));
        }
        let leaves: Vec<Operand> = ty
            .leaves(&self.structs)
            .into_iter()
            .map(|(off, s)| {
                let from = (at + off) as usize;
                let mut raw = [0u8; 8];
                raw[..s.size() as usize].copy_from_slice(&c.1[from..from + s.size() as usize]);
                let bits = u64::from_le_bytes(raw);
                Operand::Const(if s.is_float() {
                    crate::cuda::ir::Const { ty: s, bits }
                } else {
                    consts::int(s, i128::from(bits))
                })
            })
            .collect();
        Ok(Some(match ty {
            Ty::Scalar(s) => Val::Scalar(leaves[0], s),
            t => Val::Agg(t, leaves),
        }))
    }

    /// Field `f` of a value of type `ty` (a group handle's members are methods): its type,
    /// byte offset and leaves.
    fn field(
        &self,
        ty: &Ty,
        group: bool,
        f: &str,
        site: Site,
    ) -> R<(Ty, u32, std::ops::Range<usize>)> {
        if group {
            return Err(self.err(
                site,
                format!("`.{f}` of a group handle must be called: `.{f}()`"),
                None,
            ));
        }
        ty.member(&self.structs, f).ok_or_else(|| {
            self.err(
                site,
                format!("`{}` has no member `{f}`", ty.show(&self.structs)),
                None,
            )
        })
    }

    /// `v.f` of an rvalue aggregate.
    fn member_val(&mut self, v: Val, f: &str, site: Site) -> R<Val> {
        let ty = self.val_ty(&v);
        if let Some(path) = ty.member_path(&self.structs, f)
            && path.len() > 1
        {
            let mut v = v;
            for step in &path {
                v = self.member_val(v, step, site)?;
            }
            return Ok(v);
        }
        // A union's member is its bytes read as the member's type: from a copy in per-thread
        // memory, as from a variable.
        if let Ty::Struct(i) = ty
            && self.structs.list[i].union
        {
            let p = self.temp_place(v, site);
            let m = self.member_place(p, f, site)?;
            return self.read(&m, site);
        }
        let (fty, _, range) = self.field(&ty, matches!(v, Val::Group(_)), f, site)?;
        let leaves = self.leaves_of(v);
        let sel: Vec<Operand> = leaves[range].to_vec();
        Ok(match fty {
            Ty::Scalar(s) => Val::Scalar(sel[0], s),
            t => Val::Agg(t, sel),
        })
    }

    // ------------------------------------------------------------------ places

    /// The place an lvalue expression designates.
    pub fn place(&mut self, e: &ast::Expr) -> R<Place> {
        let site = e.site;
        if matches!(e.kind, ExprKind::Index(..) | ExprKind::Member(_, _, false))
            && let Some((name, _)) = self.host_constant_root(e)?
        {
            return Err(self.host_constant_misuse(site, &name, "its address, or an assignment"));
        }
        match &e.kind {
            ExprKind::Ident(name) => match self.lookup(name).cloned() {
                Some(Sym::Place(p)) => Ok(p),
                Some(Sym::Const(_)) => Err(self.err(
                    site,
                    format!("`{name}` is a constant and cannot be assigned"),
                    None,
                )),
                None => {
                    let n = self.canon(name);
                    if BUILTIN_DIMS.contains(&n.as_str()) || n == "warpSize" {
                        return Err(self.err(site, format!("`{n}` is read-only"), None));
                    }
                    if let Some(p) = self.device_global(&n, site)? {
                        return Ok(p);
                    }
                    // A const global or template parameter: not assignable, but report well.
                    self.ident(name, site)?;
                    Err(self.err(site, format!("`{name}` cannot be assigned"), None))
                }
            },
            _ if self.is_call_like(e) => match self.call_place(e)? {
                Ok(p) => Ok(p),
                Err((_, by_ref)) => Err(self.unsupported(
                    site,
                    if by_ref {
                        "assigning through, or taking the address of, a reference returned by a function with several `return`s"
                    } else {
                        "assigning to, or taking the address of, the value a function returns"
                    },
                    Some("have the function take the value to store, or return a pointer and write through it"),
                )),
            },
            ExprKind::Index(a, i) => {
                let (idx, ity) = self.integer(i)?;
                if is_lvalue_like(a) {
                    let p = self.place(a)?;
                    return match p {
                        Place::Mem {
                            ty: Ty::Array(..), ..
                        }
                        | Place::Local {
                            ty: Ty::Array(..), ..
                        } => self.index_place(p, idx, site),
                        // A pick compares its index with each element's.
                        Place::Reg {
                            ty: Ty::Array(..), ..
                        }
                        | Place::Pick {
                            ty: Ty::Array(..), ..
                        }
                        | Place::Pointers { .. } => {
                            let idx = self.convert(idx, ity, Scalar::I64, site);
                            self.index_place(p, idx, site)
                        }
                        Place::Alias(t, within) => match (idx, within) {
                            (_, Some(w)) => {
                                let (array, at) = *w;
                                let idx = self.convert(idx, ity, Scalar::I64, site);
                                let k = self.binop(BinOp::Add, Scalar::I64, at, idx, site);
                                self.index_place(array, k, site)
                            }
                            (Operand::Const(c), None) if consts::as_int(c) == 0 => Ok(*t),
                            _ => Err(self.alias_misuse(site)),
                        },
                        Place::Ptr(_) => {
                            let Val::Ptr(ptr) = self.read(&p, site)? else {
                                unreachable!("a pointer place reads as a pointer")
                            };
                            self.deref_index(ptr, idx, site)
                        }
                        other => {
                            let t = self.place_ty(&other);
                            let shown = t.show(&self.structs);
                            Err(self.err(site, format!("cannot index a `{shown}`"), None))
                        }
                    };
                }
                match self.rvalue(a)? {
                    Val::Ptr(ptr) => self.deref_index(ptr, idx, site),
                    Val::Str(text) => {
                        let ptr = self.string_storage(&text, site)?;
                        self.deref_index(ptr, idx, site)
                    }
                    v => {
                        let t = self.val_ty(&v);
                        Err(self.err(
                            site,
                            format!("cannot index a `{}`", t.show(&self.structs)),
                            None,
                        ))
                    }
                }
            }
            ExprKind::Member(a, f, true) if matches!(a.kind, ExprKind::This) => {
                if let Some(k @ Place::Ptr(r)) = self.this_pointer(f)
                    && self.ptrs[r].reference
                {
                    return self.referent(r, site).or(Ok(k));
                }
                let p = self.this_place(site)?;
                self.member_place(p, f, site)
            }
            ExprKind::Unary(Unary::Deref, x) if matches!(x.kind, ExprKind::This) => {
                self.this_place(site)
            }
            ExprKind::Member(a, f, arrow) => {
                let field = if *arrow {
                    // `p->f` of a pointer parameter given `&s`: `s.f`.
                    self.field_pointers_of(e, &[]).and_then(|fields| {
                        let (_, idx) = fields.iter().find(|(rest, _)| rest.is_empty())?;
                        Some(Place::Ptr(*idx))
                    })
                } else {
                    self.field_pointer(a, f)
                };
                if let Some(p) = field {
                    return self.through_reference(p, site);
                }
                if *arrow
                    && matches!(a.kind, ExprKind::This)
                    && let Some(p) = self.this_pointer(f)
                {
                    return self.through_reference(p, site);
                }
                let p = if *arrow && let Some(t) = self.alias_target(a) {
                    t
                } else if *arrow {
                    match self.rvalue(a)? {
                        Val::Ptr(ptr) => {
                            let ty = ptr.pointee.clone();
                            Place::Mem { ptr, ty }
                        }
                        _ => return Err(self.err(site, "`->` needs a pointer", None)),
                    }
                } else {
                    self.place(a)?
                };
                let m = self.member_place(p, f, site)?;
                // An array of pointer fields: the pointer variables the object carries for it.
                let ty = self.place_ty(&m);
                if matches!(ty, Ty::Array(..))
                    && matches!(ty.innermost(), Ty::Pointer(_))
                    && let Some(fields) = self.field_pointers_of(e, &[])
                {
                    let ptrs = fields.iter().map(|(_, k)| *k).collect();
                    return Ok(Place::Pointers { ptrs, ty });
                }
                Ok(m)
            }
            ExprKind::Unary(Unary::Deref, x) if let Some(t) = self.alias_target(x) => Ok(t),
            ExprKind::Unary(Unary::Deref, x) => match self.rvalue(x)? {
                Val::Ptr(ptr) => {
                    let ty = ptr.pointee.clone();
                    Ok(Place::Mem { ptr, ty })
                }
                _ => Err(self.err(site, "`*` needs a pointer", None)),
            },
            ExprKind::Cast(_, x) if is_lvalue_like(x) => self.place(x),
            ExprKind::Unsupported(what, help) => Err(self.unsupported(site, what, help.as_deref())),
            _ => Err(self.err(
                site,
                "this expression cannot be assigned or have its address taken",
                None,
            )),
        }
    }

    /// The address of the object at `p` (`&x`, what a reference member is bound to).
    pub fn address_of_place(&mut self, p: Place, site: Site) -> R<PtrVal> {
        match p {
            Place::Mem { ptr, ty } => Ok(PtrVal { pointee: ty, ..ptr }),
            Place::Local { arrays, index, ty } => {
                self.local_pointer(&arrays, &index, &ty, ty.clone(), site)
            }
            // A variable in registers: declared again as addressable (an array of one
            // element) when the kernel is lowered again.
            Place::Reg { vars, .. }
                if let Some(at) = vars.first().and_then(|v| self.declared_at.get(v)) =>
            {
                self.retry_addressed = Some(*at);
                Err(self.unsupported(
                    site,
                    "taking the address of this variable",
                    Some("pass it by reference or by value"),
                ))
            }
            _ => Err(self.unsupported(
                site,
                "taking the address of a local variable",
                Some(
                    "only addresses in global or shared memory exist in warpsim (`&a[i]`, `&s[0]`)",
                ),
            )),
        }
    }

    /// `a.f` when it names a pointer field of a struct whose pointer fields are pointer
    /// variables (`args.x`, `args.in.y`): that field's pointer variable.
    fn field_pointer(&self, a: &ast::Expr, f: &str) -> Option<Place> {
        let fields = self.field_pointers_of(a, &[f.to_string()])?;
        fields
            .iter()
            .find(|(rest, _)| rest.is_empty())
            .map(|(_, idx)| Place::Ptr(*idx))
    }

    /// `obj.n` or `ptr->n` for a static data member `n` of the object's struct: its value.
    fn static_through(&mut self, a: &ast::Expr, f: &str, arrow: bool) -> Option<Val> {
        // Most member names are fields: only a name some struct declares static is looked at.
        let m = self.m;
        if !m
            .ast
            .structs
            .iter()
            .any(|s| s.statics.iter().any(|v| v.name == f))
        {
            return None;
        }
        let ty = if matches!(a.kind, ExprKind::This) {
            let this = self.frames.last()?.this.clone()?;
            self.place_ty(&this)
        } else {
            match self.arg_ty(&ArgIn::Expr(a)).ok()? {
                Ty::Pointer(t) if arrow => *t,
                t if !arrow => t,
                _ => return None,
            }
        };
        let Ty::Struct(i) = ty else { return None };
        self.static_value(i, f)
    }

    /// `this->f` when it names a pointer field of an object that carries its pointers.
    fn this_pointer(&self, f: &str) -> Option<Place> {
        let this = self.frames.last()?.this.as_ref()?;
        let fields = self.pointers_of_place(this)?;
        fields
            .iter()
            .find(|(path, _)| *path == [f])
            .map(|(_, idx)| Place::Ptr(*idx))
    }

    /// Whether `e` is a call: of a function, or of a struct's `operator[]` (`v[i]`).
    pub fn is_call_like(&mut self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Call(..) => true,
            ExprKind::Index(a, _) => self.is_struct(a),
            _ => false,
        }
    }

    /// Whether `e` is a struct (lowered into a block that is dropped; an error is "no").
    fn is_struct(&mut self, e: &ast::Expr) -> bool {
        if let ExprKind::Ident(n) = &e.kind
            && let Some(Sym::Place(p)) = self.lookup(n)
        {
            return matches!(self.place_ty(p), Ty::Struct(_));
        }
        matches!(self.type_of(e), Ok(Ty::Struct(_)))
    }

    /// A pointer to a variable used other than as `*p`, `p->f` or `p[0]`.
    fn alias_misuse(&self, site: Site) -> crate::cuda::Diagnostic {
        self.unsupported(
            site,
            "this use of a pointer to a local variable",
            Some("a pointer parameter given `&x` can be read and written through (`*p`, `p->f`, `p[0]`)"),
        )
    }

    /// The refusal of an array of pointers held as pointer variables used as a whole (read,
    /// assigned, passed on as a pointer to its first element).
    fn pointers_whole(&self, site: Site) -> crate::cuda::Diagnostic {
        self.unsupported(
            site,
            "this use of an array of pointers in a struct (warpsim holds each pointer as a buffer of its own)",
            Some("index it down to one pointer (`s.ptrs[i]`) and use that"),
        )
    }

    /// A texture object read or written as memory.
    pub fn texture_misuse(&self, site: Site) -> crate::cuda::Diagnostic {
        self.err(
            site,
            "a texture object is read with tex1Dfetch, tex1D, tex2D or tex3D, not as memory",
            Some("fetch from it: `tex2D<float>(tex, x, y)`".to_string()),
        )
    }

    /// `ptr[idx]`.
    fn deref_index(&mut self, ptr: PtrVal, idx: Operand, site: Site) -> R<Place> {
        let ty = ptr.pointee.clone();
        let size = ty.size(&self.structs);
        if size == 0 {
            return Err(self.err(
                site,
                format!("cannot index a `{} *`", ty.show(&self.structs)),
                Some("cast it to a typed pointer first".into()),
            ));
        }
        Ok(Place::Mem {
            ptr: ptr.plus(idx, i64::from(size)),
            ty,
        })
    }

    /// A constant index into an array of `n` elements held in variables.
    fn constant_index(&self, c: crate::cuda::ir::Const, n: u32, site: Site) -> R<usize> {
        let k = consts::as_int(c);
        if !(0..i128::from(n)).contains(&k) {
            return Err(self.err(
                site,
                format!("index {k} is out of bounds of an array of {n} elements"),
                None,
            ));
        }
        Ok(k as usize)
    }

    /// A pick costs a compare and a select per element at every access: beyond
    /// [`MAX_PICK`] elements a kernel would crawl, so it is refused.
    fn pick_limit(&self, n: usize, site: Site) -> R<()> {
        if n <= MAX_PICK {
            return Ok(());
        }
        Err(self.unsupported(
            site,
            &format!(
                "an array of {n} elements inside a struct variable, indexed at run time (warpsim \
                 picks among the elements, practical up to {MAX_PICK})"
            ),
            Some("pass the array in global or __constant__ memory and index it through a pointer"),
        ))
    }

    /// Stop the thread when a picked element's index is outside its `n` choices (C leaves it
    /// undefined; a GPU would read or write some other variable's local memory).
    fn pick_bounds(&mut self, index: Operand, n: usize, site: Site) {
        let fits = self.cmp(
            CmpOp::Lt,
            Scalar::U64,
            index,
            Operand::Const(consts::int(Scalar::U64, n as i128)),
            site,
        );
        self.emit(Stmt::If {
            cond: fits,
            then: Vec::new(),
            els: vec![Stmt::Trap {
                message: format!(
                    "an index out of bounds of an array of {n} elements held in a struct \
                     variable"
                ),
                site,
            }],
            varying: false,
            site,
        });
    }

    /// For each choice of a pick, whether the index selects it.
    fn pick_hits(&mut self, index: Operand, n: usize, site: Site) -> Vec<Operand> {
        (0..n)
            .map(|k| {
                self.cmp(
                    CmpOp::Eq,
                    Scalar::I64,
                    index,
                    Operand::Const(consts::int(Scalar::I64, k as i128)),
                    site,
                )
            })
            .collect()
    }

    /// Element `idx` of an array place.
    pub fn index_place(&mut self, p: Place, idx: Operand, site: Site) -> R<Place> {
        match p {
            Place::Mem {
                ptr,
                ty: Ty::Array(elem, _),
            } => {
                let size = elem.size(&self.structs);
                Ok(Place::Mem {
                    ptr: ptr.plus(idx, i64::from(size)),
                    ty: *elem,
                })
            }
            Place::Local {
                arrays,
                mut index,
                ty: Ty::Array(elem, _),
            } => {
                let mut stride = 1i64;
                let mut t = &*elem;
                while let Ty::Array(inner, Some(n)) = t {
                    stride *= i64::from(*n);
                    t = inner;
                }
                index.push((idx, stride));
                Ok(Place::Local {
                    arrays,
                    index,
                    ty: *elem,
                })
            }
            // An array member of a struct held in variables (a local struct, a struct
            // parameter): each element's leaves are variables of their own; a constant index
            // names them, another one picks among them at run time.
            Place::Reg {
                ty: Ty::Array(elem, Some(n)),
                vars,
            } => {
                let per = elem.leaf_count(&self.structs);
                if per == 0 {
                    return Err(self.unsupported(site, "an array of empty structs", None));
                }
                let elems: Vec<Vec<VarId>> = vars.chunks(per).map(<[_]>::to_vec).collect();
                match idx {
                    Operand::Const(c) => {
                        let k = self.constant_index(c, n, site)?;
                        Ok(Place::Reg {
                            ty: *elem,
                            vars: elems[k].clone(),
                        })
                    }
                    index => {
                        let array = Ty::Array(elem.clone(), Some(n));
                        if let Some(p) =
                            self.param_bytes_element(&vars[..1], None, &array, index, site)
                        {
                            return Ok(p);
                        }
                        self.pick_limit(elems.len(), site)?;
                        Ok(Place::Pick {
                            index,
                            choices: elems,
                            ty: *elem,
                        })
                    }
                }
            }
            // An array inside a picked element: a constant index narrows every choice, another
            // one multiplies the choices.
            Place::Pick {
                index,
                choices,
                ty: Ty::Array(elem, Some(n)),
            } => {
                let per = elem.leaf_count(&self.structs);
                if per == 0 {
                    return Err(self.unsupported(site, "an array of empty structs", None));
                }
                let part = |c: &[VarId], k: usize| c[k * per..(k + 1) * per].to_vec();
                match idx {
                    Operand::Const(c) => {
                        let k = self.constant_index(c, n, site)?;
                        Ok(Place::Pick {
                            index,
                            choices: choices.iter().map(|c| part(c, k)).collect(),
                            ty: *elem,
                        })
                    }
                    inner => {
                        let array = Ty::Array(elem.clone(), Some(n));
                        let first: Vec<VarId> = choices.iter().map(|c| c[0]).collect();
                        if let Some(p) =
                            self.param_bytes_element(&first, Some(index), &array, inner, site)
                        {
                            return Ok(p);
                        }
                        // Each index within its own dimension: the combined one would not tell.
                        self.pick_bounds(inner, n as usize, site);
                        let index = self.assign(
                            Scalar::I64,
                            Op::Offset {
                                offset: inner,
                                index: vec![(index, i64::from(n))],
                            },
                            site,
                        );
                        self.pick_limit(choices.len() * n as usize, site)?;
                        let choices = choices
                            .iter()
                            .flat_map(|c| (0..n as usize).map(move |k| part(c, k)))
                            .collect();
                        Ok(Place::Pick {
                            index,
                            choices,
                            ty: *elem,
                        })
                    }
                }
            }
            Place::Pointers {
                ptrs,
                ty: Ty::Array(elem, Some(n)),
            } => {
                let per = ptrs.len() / n as usize;
                match (idx, &*elem) {
                    (Operand::Const(c), _) => {
                        let k = self.constant_index(c, n, site)?;
                        let part = ptrs[k * per..(k + 1) * per].to_vec();
                        Ok(match *elem {
                            Ty::Pointer(_) => Place::Ptr(part[0]),
                            ty => Place::Pointers { ptrs: part, ty },
                        })
                    }
                    (index, Ty::Pointer(_)) => self.picked_pointer(&ptrs, index, site),
                    _ => Err(self.unsupported(
                        site,
                        "an array of pointers in a struct indexed at run time other than in its last dimension",
                        Some("index its outer dimensions with constants (`s.ptrs[0][i]`), or branch on the index"),
                    )),
                }
            }
            other => {
                let t = self.place_ty(&other);
                Err(self.err(
                    site,
                    format!("cannot index a `{}`", t.show(&self.structs)),
                    None,
                ))
            }
        }
    }

    /// Element `index` (known only at run time) of an array of pointers held as pointer
    /// variables: a pointer of its own, its buffer and offset picked among theirs (each a buffer
    /// of its own, as warpsim holds pointers).
    fn picked_pointer(&mut self, ptrs: &[usize], index: Operand, site: Site) -> R<Place> {
        self.pick_limit(ptrs.len(), site)?;
        self.pick_bounds(index, ptrs.len(), site);
        let hits = self.pick_hits(index, ptrs.len(), site);
        let pointee = self.ptrs[ptrs[0]].pointee.clone();
        let mut chosen: Option<(Operand, Operand)> = None;
        for (k, hit) in ptrs.iter().zip(hits).rev() {
            let Val::Ptr(p) = self.read(&Place::Ptr(*k), site)? else {
                unreachable!("a pointer variable reads as a pointer")
            };
            if p.local.is_some() {
                return Err(self.unsupported(
                    site,
                    "picking at run time among pointers into a thread's own arrays",
                    None,
                ));
            }
            let base = match p.base {
                crate::cuda::ir::Base::Var(v) => Operand::Var(v),
                b => Operand::Const(consts::int(
                    Scalar::U32,
                    i128::from(b.encode().expect("not a Var")),
                )),
            };
            let addr = p.addr();
            let offset = self.assign(
                Scalar::I64,
                Op::Offset {
                    offset: addr.offset,
                    index: addr.index,
                },
                site,
            );
            chosen = Some(match chosen {
                None => (base, offset),
                Some((b, o)) => (
                    self.select(Scalar::U32, hit, base, b, site),
                    self.select(Scalar::I64, hit, offset, o, site),
                ),
            });
        }
        let (base, offset) = chosen.expect("an array has elements");
        let buffer = self.new_var("picked.buffer", Scalar::U32);
        self.assign_to(buffer, Scalar::U32, Op::Copy { src: base }, site);
        let k = self.new_ptr("picked pointer", pointee, site);
        self.set_base(k, crate::cuda::ir::Base::Var(buffer), site)?;
        let off = self.ptrs[k].off;
        self.assign_to(off, Scalar::I64, Op::Copy { src: offset }, site);
        Ok(Place::Ptr(k))
    }

    /// Field `f` of a struct/vector place.
    pub fn member_place(&mut self, p: Place, f: &str, site: Site) -> R<Place> {
        let ty = self.place_ty(&p);
        // A member of an anonymous struct or union member: through it.
        if let Some(path) = ty.member_path(&self.structs, f)
            && path.len() > 1
        {
            let mut p = p;
            for step in &path {
                p = self.member_place(p, step, site)?;
            }
            return Ok(p);
        }
        let (fty, off, range) = self.field(&ty, matches!(p, Place::Group(_)), f, site)?;
        if let Ty::Struct(i) = ty
            && self.structs.list[i].union
        {
            return self.union_member(p, fty, site);
        }
        // A reference member is a pointer variable of an object that carries its pointers
        // (`Lowerer::through_reference`); here the object is not one (it is in memory, or an
        // element of an array), and a pointer stored in memory is not followed.
        if let Ty::Struct(i) = ty
            && self.structs.list[i].refs.iter().any(|r| r == f)
        {
            return Err(self.unsupported(
                site,
                &format!(
                    "the reference member `{f}` of a `{}` in memory or in an array",
                    ty.show(&self.structs)
                ),
                Some("keep the object in a variable, a parameter or a temporary (`S(x).get()`)"),
            ));
        }
        match p {
            Place::Reg { vars, .. } => Ok(Place::Reg {
                ty: fty,
                vars: vars[range].to_vec(),
            }),
            Place::Pick { index, choices, .. } => Ok(Place::Pick {
                index,
                choices: choices.iter().map(|c| c[range.clone()].to_vec()).collect(),
                ty: fty,
            }),
            Place::Mem { mut ptr, .. } => {
                ptr.disp += i64::from(off);
                ptr.pointee = fty.clone();
                Ok(Place::Mem { ptr, ty: fty })
            }
            Place::Local { arrays, index, .. } => {
                // Its elements through a pointer into the struct's per-thread arrays, as
                // `(&s)->a[i]` reads them.
                if matches!(fty, Ty::Array(..)) {
                    let arrays = &arrays[range];
                    let ptr = self.local_pointer(arrays, &index, &fty, fty.clone(), site)?;
                    return Ok(Place::Mem { ptr, ty: fty });
                }
                Ok(Place::Local {
                    arrays: arrays[range].to_vec(),
                    index,
                    ty: fty,
                })
            }
            Place::Ptr(_)
            | Place::Alias(..)
            | Place::Group(_)
            | Place::Closure(_)
            | Place::Pointers { .. } => Err(self.err(site, format!("`.{f}` needs a struct"), None)),
        }
    }

    /// The member of type `fty` of the union at `p`: the union's bytes, read and written as
    /// `fty` (through a pointer into per-thread memory for a union there), so that a member
    /// other than the one last written is the bytes reinterpreted, as on the GPU.
    fn union_member(&mut self, p: Place, fty: Ty, site: Site) -> R<Place> {
        match p {
            Place::Mem { mut ptr, .. } => {
                ptr.pointee = fty.clone();
                Ok(Place::Mem { ptr, ty: fty })
            }
            Place::Local { arrays, index, ty } => {
                let ptr = self.local_pointer(&arrays, &index, &ty, fty.clone(), site)?;
                Ok(Place::Mem { ptr, ty: fty })
            }
            // Every variable, parameter and temporary holding a union lives in per-thread
            // memory (`Ty::has_union`).
            _ => Err(self.unsupported(
                site,
                "a member of this union (a union held in registers)",
                Some("copy the union into a local variable first"),
            )),
        }
    }

    // ------------------------------------------------------------------ reads and writes

    /// Read a place (a memory place is one load per scalar, or one for an aligned vector).
    pub fn read(&mut self, p: &Place, site: Site) -> R<Val> {
        match p {
            Place::Closure(c) => Ok(Val::Closure(*c)),
            Place::Pointers { .. } => Err(self.pointers_whole(site)),
            Place::Reg { ty, vars } => Ok(match ty {
                Ty::Scalar(s) => Val::Scalar(Operand::Var(vars[0]), *s),
                t => Val::Agg(t.clone(), vars.iter().map(|v| Operand::Var(*v)).collect()),
            }),
            Place::Ptr(k) => {
                let pv = &self.ptrs[*k];
                let Some(base) = pv.base else {
                    return Err(self.err(
                        site,
                        format!("pointer `{}` is used before it is assigned", pv.name),
                        None,
                    ));
                };
                Ok(Val::Ptr(PtrVal {
                    base,
                    offset: Operand::Var(pv.off),
                    disp: 0,
                    terms: Vec::new(),
                    pointee: pv.pointee.clone(),
                    local: pv.local.clone(),
                }))
            }
            Place::Group(g) => Ok(Val::Group(*g)),
            // The pointer's value: one into the variable's local array, or (a variable in
            // registers) the variable declared again as addressable when the kernel is lowered
            // again.
            Place::Alias(t, None) => match &**t {
                Place::Local { arrays, index, ty } if !matches!(ty, Ty::Array(..)) => Ok(Val::Ptr(
                    self.local_pointer(arrays, index, ty, ty.clone(), site)?,
                )),
                Place::Reg { vars, .. }
                    if let Some(at) = vars.first().and_then(|v| self.declared_at.get(v)) =>
                {
                    self.retry_addressed = Some(*at);
                    Err(self.alias_misuse(site))
                }
                _ => Err(self.alias_misuse(site)),
            },
            Place::Alias(_, Some(_)) => Err(self.alias_misuse(site)),
            Place::Mem {
                ty: Ty::Texture, ..
            } => Err(self.texture_misuse(site)),
            Place::Mem { ptr, ty } => {
                if let Ty::Array(elem, _) = ty {
                    return Ok(Val::Ptr(PtrVal {
                        pointee: (**elem).clone(),
                        ..ptr.clone()
                    }));
                }
                let leaves = self.load(ptr, ty, site)?;
                Ok(match ty {
                    Ty::Scalar(s) => Val::Scalar(leaves[0], *s),
                    t => Val::Agg(t.clone(), leaves),
                })
            }
            Place::Pick { index, choices, ty } => {
                if let Ty::Array(..) = ty {
                    return Err(self.unsupported(
                        site,
                        "a pointer to an array inside a struct variable",
                        Some("index the array directly"),
                    ));
                }
                self.pick_bounds(*index, choices.len(), site);
                let hits = self.pick_hits(*index, choices.len(), site);
                let leaves = ty.leaves(&self.structs);
                let mut out = Vec::new();
                for (j, (_, s)) in leaves.into_iter().enumerate() {
                    let mut acc = Operand::Var(choices[0][j]);
                    for (c, hit) in choices.iter().zip(&hits).skip(1) {
                        let (a, b) = (Operand::Var(c[j]), acc);
                        acc = self.assign(s, Op::Select { cond: *hit, a, b }, site);
                    }
                    out.push(acc);
                }
                Ok(match ty {
                    Ty::Scalar(s) => Val::Scalar(out[0], *s),
                    t => Val::Agg(t.clone(), out),
                })
            }
            Place::Local { arrays, index, ty } => {
                // An array decays to a pointer to its first element.
                if let Ty::Array(elem, _) = ty {
                    let p = self.local_pointer(arrays, index, ty, (**elem).clone(), site)?;
                    return Ok(Val::Ptr(p));
                }
                let idx = self.local_index(index, site);
                let leaves = ty.leaves(&self.structs);
                let mut out = Vec::new();
                for (a, (_, s)) in arrays.iter().zip(leaves) {
                    let dst = self.temp(s);
                    self.emit(Stmt::LocalLoad {
                        dst,
                        array: *a,
                        index: idx,
                        site,
                    });
                    out.push(Operand::Var(dst));
                }
                Ok(match ty {
                    Ty::Scalar(s) => Val::Scalar(out[0], *s),
                    t => Val::Agg(t.clone(), out),
                })
            }
        }
    }

    /// A pointer to the characters of a string literal used as data (`const char *s = "ab";`,
    /// `(uint8_t *)"key"`, `"ab"[i]`) and its terminating 0: a per-thread `char` array that
    /// holds them from here on.
    pub fn string_storage(&mut self, text: &str, site: Site) -> R<PtrVal> {
        let bytes: Vec<u8> = text.bytes().chain([0]).collect();
        let elem = Ty::Scalar(Scalar::I8);
        let arrays = self.new_local("string literal", &elem, bytes.len() as u32, site)?;
        for (k, b) in bytes.iter().enumerate() {
            self.emit(Stmt::LocalStore {
                array: arrays[0],
                index: Operand::Const(consts::int(Scalar::I64, k as i128)),
                value: Operand::Const(consts::int(Scalar::I8, i128::from(*b as i8))),
                site,
            });
        }
        self.local_pointer(&arrays, &[], &elem, elem.clone(), site)
    }

    /// The element index of a local-array access.
    fn local_index(&mut self, index: &[(Operand, i64)], site: Site) -> Operand {
        let mut konst = 0i128;
        let mut terms = Vec::new();
        for (op, scale) in index {
            match op {
                Operand::Const(c) => konst += consts::as_int(*c) * i128::from(*scale),
                _ => terms.push((*op, *scale)),
            }
        }
        match terms.as_slice() {
            [] => Operand::Const(consts::int(Scalar::I64, konst)),
            [(op, 1)] if konst == 0 => *op,
            _ => {
                if konst != 0 {
                    terms.push((Operand::Const(consts::int(Scalar::I64, konst)), 1));
                }
                self.assign(
                    Scalar::I64,
                    Op::Offset {
                        offset: Operand::Const(consts::int(Scalar::I64, 0)),
                        index: terms,
                    },
                    site,
                )
            }
        }
    }

    /// The elements of per-thread arrays that a pointer into them designates as a `ty`
    /// ([`super::LocalTarget`]): its byte offset in elements, and the leaves of the element
    /// that `ty` covers.
    fn local_place(&mut self, ptr: &PtrVal, ty: &Ty, site: Site) -> R<Place> {
        let target = ptr.local.as_ref().expect("a pointer into local arrays");
        let size = i64::from(target.elem.size(&self.structs).max(1));
        let misfit = |l: &Self| l.local_misfit(ptr, ty, site);
        let Some((index, within)) = self.local_offset(ptr, size, site) else {
            return Err(misfit(self));
        };
        // `ty` is the element, a sub-array of elements, or leaves of the element.
        let mut inner = ty;
        while let Ty::Array(t, _) = inner {
            inner = t;
        }
        if *inner == target.elem && within == 0 {
            return Ok(Place::Local {
                arrays: target.arrays.clone(),
                index,
                ty: ty.clone(),
            });
        }
        if matches!(ty, Ty::Array(..)) {
            return Err(misfit(self));
        }
        let leaves = target.elem.leaves(&self.structs);
        let mut arrays = Vec::new();
        for (at, s) in ty.leaves(&self.structs) {
            match leaves.iter().position(|l| *l == (at + within, s)) {
                Some(j) => arrays.push(target.arrays[j]),
                None => return Err(misfit(self)),
            }
        }
        Ok(Place::Local {
            arrays,
            index,
            ty: ty.clone(),
        })
    }

    /// The refusal of an access as `ty` through a pointer into per-thread arrays that does not
    /// fit their elements (misaligned, or partly a `bool`).
    fn local_misfit(&self, ptr: &PtrVal, ty: &Ty, site: Site) -> crate::cuda::Diagnostic {
        let target = ptr.local.as_ref().expect("a pointer into local arrays");
        self.unsupported(
            site,
            &format!(
                "reading or writing a local array of `{}` as `{}` through a pointer, at a \
                 misaligned byte or across a `bool`",
                target.elem.show(&self.structs),
                ty.show(&self.structs)
            ),
            Some("access a local array through pointers of its element type, in whole elements"),
        )
    }

    /// Whether a pointer into per-thread arrays may point inside an element at a byte known
    /// only at run time: a term steps by part of an element (`reinterpret_cast<float *>(buf)[i]`
    /// of a `uint4 buf[4]`), or a pointer variable's offset counts in a smaller pointee (a
    /// `float *` moved along a `float4`).
    fn steps_within_elements(&self, ptr: &PtrVal) -> bool {
        let target = ptr.local.as_ref().expect("a pointer into local arrays");
        let size = i64::from(target.elem.size(&self.structs).max(1));
        let part = |step: i64| step % size != 0;
        ptr.terms
            .iter()
            .any(|(op, scale)| !matches!(op, Operand::Const(_)) && part(*scale))
            || (!matches!(ptr.offset, Operand::Const(_))
                && part(i64::from(ptr.pointee.size(&self.structs).max(1))))
    }

    /// For a pointer into per-thread arrays that [`Self::steps_within_elements`]: a pointer to
    /// the start of the element it points into, and each byte within the element where an
    /// aligned `ty` fits, with whether the pointer is there. A pointer elsewhere (misaligned
    /// for `ty`, or `ty` reaching into the next element) stops the thread.
    fn local_slots(
        &mut self,
        ptr: &PtrVal,
        ty: &Ty,
        site: Site,
    ) -> R<(PtrVal, Vec<(u32, Operand)>)> {
        let target = ptr.local.clone().expect("a pointer into local arrays");
        let size = target.elem.size(&self.structs).max(1);
        let (span, align) = (ty.size(&self.structs), ty.align(&self.structs).max(1));
        let n = if span <= size {
            ((size - span) / align + 1) as usize
        } else {
            0
        };
        if n == 0 || n > MAX_PICK {
            return Err(self.unsupported(
                site,
                &format!(
                    "reading or writing a local array of `{}` as `{}` at a byte known only at \
                     run time",
                    target.elem.show(&self.structs),
                    ty.show(&self.structs)
                ),
                Some(
                    "access a local array through pointers of its element type, in whole elements",
                ),
            ));
        }
        let mut index = ptr.terms.clone();
        if ptr.disp != 0 {
            index.push((
                Operand::Const(consts::int(Scalar::I64, i128::from(ptr.disp))),
                1,
            ));
        }
        let offset = ptr.offset;
        let bytes = self.assign(Scalar::I64, Op::Offset { offset, index }, site);
        // Unsigned: a negative offset is an element far out of bounds, not one before.
        let bytes = self.convert(bytes, Scalar::I64, Scalar::U64, site);
        let u64c = |k: u32| Operand::Const(consts::int(Scalar::U64, i128::from(k)));
        let elem = self.binop(BinOp::Div, Scalar::U64, bytes, u64c(size), site);
        let within = self.binop(BinOp::Rem, Scalar::U64, bytes, u64c(size), site);
        let slot = self.binop(BinOp::Div, Scalar::U64, within, u64c(align), site);
        let back = self.binop(BinOp::Mul, Scalar::U64, slot, u64c(align), site);
        let aligned = self.cmp(CmpOp::Eq, Scalar::U64, back, within, site);
        let slot = self.assign(
            Scalar::U64,
            Op::Select {
                cond: aligned,
                a: slot,
                b: u64c(n as u32),
            },
            site,
        );
        let fits = self.cmp(CmpOp::Lt, Scalar::U64, slot, u64c(n as u32), site);
        self.emit(Stmt::If {
            cond: fits,
            then: Vec::new(),
            els: vec![Stmt::Trap {
                message: format!(
                    "a `{}` accessed through a pointer into a local array of `{}`, at a byte \
                     misaligned for it or reaching into the next element",
                    ty.show(&self.structs),
                    target.elem.show(&self.structs)
                ),
                site,
            }],
            varying: false,
            site,
        });
        let elem = self.convert(elem, Scalar::U64, Scalar::I64, site);
        let mut start = PtrVal::at(crate::cuda::ir::Base::Null, ty.clone());
        start.local = Some(target);
        let start = start.plus(elem, i64::from(size));
        let slots = (0..n as u32)
            .map(|k| {
                let hit = self.cmp(CmpOp::Eq, Scalar::U64, slot, u64c(k), site);
                (k * align, hit)
            })
            .collect();
        Ok((start, slots))
    }

    /// Where a pointer into per-thread arrays of `size`-byte elements points: the index in
    /// whole elements, and the byte within the element (constant terms folded in); `None`
    /// where a term steps by part of an element.
    fn local_offset(
        &mut self,
        ptr: &PtrVal,
        size: i64,
        site: Site,
    ) -> Option<(Vec<(Operand, i64)>, u32)> {
        let mut disp = i128::from(ptr.disp);
        let mut index = Vec::new();
        for &(op, scale) in &ptr.terms {
            match op {
                Operand::Const(c) => disp += consts::as_int(c) * i128::from(scale),
                _ if scale % size == 0 => index.push((op, scale / size)),
                _ => return None,
            }
        }
        match ptr.offset {
            Operand::Const(c) => disp += consts::as_int(c),
            // A pointer variable's offset, a multiple of the element's size by construction
            // (every term is checked when it is assigned).
            off => {
                let s = Operand::Const(consts::int(Scalar::I64, i128::from(size)));
                let op = Op::Binary {
                    op: BinOp::Div,
                    a: off,
                    b: s,
                };
                index.push((self.assign(Scalar::I64, op, site), 1));
            }
        }
        let whole = disp.div_euclid(i128::from(size));
        if whole != 0 {
            index.push((Operand::Const(consts::int(Scalar::I64, whole)), 1));
        }
        Some((index, disp.rem_euclid(i128::from(size)) as u32))
    }

    /// A scalar read through a pointer into per-thread arrays whose element's leaves it does
    /// not coincide with (`*(char *)&word`, `*reinterpret_cast<unsigned *>(&half2)`): the bytes
    /// of the leaves it covers, little-endian as on the GPU, as `s`. `None` where the bytes are
    /// not all a leaf's, or not aligned for `s`.
    fn local_bytes(&mut self, ptr: &PtrVal, s: Scalar, site: Site) -> R<Option<Operand>> {
        let target = ptr.local.as_ref().expect("a pointer into local arrays");
        let size = i64::from(target.elem.size(&self.structs).max(1));
        if s == Scalar::Bool {
            return Ok(None);
        }
        let Some((index, within)) = self.local_offset(ptr, size, site) else {
            return Ok(None);
        };
        // Misaligned on the GPU (a fault): left to the caller's refusal.
        if !within.is_multiple_of(s.size()) {
            return Ok(None);
        }
        let (start, end) = (within, within + s.size());
        let leaves = target.elem.leaves(&self.structs);
        let mut covered = 0;
        let mut bits = Operand::Const(consts::int(Scalar::U64, 0));
        for (j, &(at, leaf)) in leaves.iter().enumerate() {
            let leaf_end = at + leaf.size();
            if leaf_end <= start || at >= end {
                continue;
            }
            if leaf == Scalar::Bool {
                return Ok(None);
            }
            covered += leaf_end.min(end) - at.max(start);
            let place = Place::Local {
                arrays: vec![target.arrays[j]],
                index: index.clone(),
                ty: Ty::Scalar(leaf),
            };
            let Val::Scalar(v, _) = self.read(&place, site)? else {
                return Ok(None);
            };
            // The leaf's bits as an unsigned number, placed at its byte in the value.
            let unsigned = unsigned_of(leaf.size());
            let v = if leaf.is_float() {
                self.assign(unsigned, Op::Bitcast { src: v, from: leaf }, site)
            } else {
                self.convert(v, leaf, unsigned, site)
            };
            let v = self.convert(v, unsigned, Scalar::U64, site);
            let shift = |k: u32| Operand::Const(consts::int(Scalar::U64, i128::from(8 * k)));
            let v = if at >= start {
                self.binop(BinOp::Shl, Scalar::U64, v, shift(at - start), site)
            } else {
                self.binop(BinOp::Shr, Scalar::U64, v, shift(start - at), site)
            };
            bits = self.binop(BinOp::Or, Scalar::U64, bits, v, site);
        }
        if covered != s.size() {
            return Ok(None);
        }
        let unsigned = unsigned_of(s.size());
        let v = self.convert(bits, Scalar::U64, unsigned, site);
        Ok(Some(if s.is_float() {
            self.assign(
                s,
                Op::Bitcast {
                    src: v,
                    from: unsigned,
                },
                site,
            )
        } else {
            self.convert(v, unsigned, s, site)
        }))
    }

    /// A value of type `ty` (its `leaves`) written through a pointer into per-thread arrays into
    /// the bytes of the element's leaves it covers, little-endian as on the GPU (the rest of each
    /// leaf kept); only where `cond` holds, when given. `false` where a byte is a `bool`'s or
    /// a scalar is misaligned.
    fn store_bytes(
        &mut self,
        ptr: &PtrVal,
        ty: &Ty,
        leaves: &[Operand],
        cond: Option<Operand>,
        site: Site,
    ) -> R<bool> {
        let target = ptr.local.clone().expect("a pointer into local arrays");
        let size = i64::from(target.elem.size(&self.structs).max(1));
        let elem_leaves = target.elem.leaves(&self.structs);
        for ((at, s), value) in ty.leaves(&self.structs).into_iter().zip(leaves) {
            let mut p = ptr.clone();
            p.disp += i64::from(at);
            let Some((index, within)) = self.local_offset(&p, size, site) else {
                return Ok(false);
            };
            if s == Scalar::Bool || !within.is_multiple_of(s.size()) {
                return Ok(false);
            }
            let (start, end) = (within, within + s.size());
            if end > size as u32 {
                return Ok(false);
            }
            // The value's bits as a `U64`, its first byte at bit 0.
            let unsigned = unsigned_of(s.size());
            let bits = if s.is_float() {
                self.assign(
                    unsigned,
                    Op::Bitcast {
                        src: *value,
                        from: s,
                    },
                    site,
                )
            } else {
                self.convert(*value, s, unsigned, site)
            };
            let bits = self.convert(bits, unsigned, Scalar::U64, site);
            for (j, &(leaf_at, leaf)) in elem_leaves.iter().enumerate() {
                let leaf_end = leaf_at + leaf.size();
                if leaf_end <= start || leaf_at >= end {
                    continue;
                }
                if leaf == Scalar::Bool {
                    return Ok(false);
                }
                let place = Place::Local {
                    arrays: vec![target.arrays[j]],
                    index: index.clone(),
                    ty: Ty::Scalar(leaf),
                };
                let Val::Scalar(old, _) = self.read(&place, site)? else {
                    unreachable!("a scalar place reads as a scalar")
                };
                let lu = unsigned_of(leaf.size());
                let old_bits = if leaf.is_float() {
                    self.assign(
                        lu,
                        Op::Bitcast {
                            src: old,
                            from: leaf,
                        },
                        site,
                    )
                } else {
                    self.convert(old, leaf, lu, site)
                };
                let old_bits = self.convert(old_bits, lu, Scalar::U64, site);
                // The bytes of the leaf that the value covers, and the value moved onto them.
                let (lo, hi) = (leaf_at.max(start), leaf_end.min(end));
                let ones = if hi - lo == 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * (hi - lo))) - 1
                };
                let mask = ones << (8 * (lo - leaf_at));
                let shift = |k: u32| Operand::Const(consts::int(Scalar::U64, i128::from(8 * k)));
                let moved = if leaf_at >= start {
                    self.binop(BinOp::Shr, Scalar::U64, bits, shift(leaf_at - start), site)
                } else {
                    self.binop(BinOp::Shl, Scalar::U64, bits, shift(start - leaf_at), site)
                };
                let m = |k: u64| Operand::Const(consts::int(Scalar::U64, i128::from(k)));
                let moved = self.binop(BinOp::And, Scalar::U64, moved, m(mask), site);
                let kept = self.binop(BinOp::And, Scalar::U64, old_bits, m(!mask), site);
                let new_bits = self.binop(BinOp::Or, Scalar::U64, kept, moved, site);
                let new_bits = self.convert(new_bits, Scalar::U64, lu, site);
                let new = if leaf.is_float() {
                    self.assign(
                        leaf,
                        Op::Bitcast {
                            src: new_bits,
                            from: lu,
                        },
                        site,
                    )
                } else {
                    self.convert(new_bits, lu, leaf, site)
                };
                let new = match cond {
                    Some(c) => self.assign(
                        leaf,
                        Op::Select {
                            cond: c,
                            a: new,
                            b: old,
                        },
                        site,
                    ),
                    None => new,
                };
                self.store_local(&[target.arrays[j]], &index, &[new], site);
            }
        }
        Ok(true)
    }

    /// A pointer to what per-thread `arrays` (leaves of the elements of one declaration, a
    /// field's when `ty` is one) hold at `index` (counted in that declaration's elements): it
    /// points into the declaration's element, at the byte where `ty` starts, so that `&v.x`
    /// steps on to `v.y` as in memory.
    fn local_pointer(
        &self,
        arrays: &[u32],
        index: &[(Operand, i64)],
        ty: &Ty,
        pointee: Ty,
        site: Site,
    ) -> R<PtrVal> {
        let found = arrays.first().and_then(|a| {
            let (group, elem) = self.local_groups.get(a)?;
            let leaf = group.iter().position(|g| g == a)?;
            let at = elem.leaves(&self.structs).get(leaf)?.0;
            let from = ty.leaves(&self.structs).first()?.0;
            Some((group.clone(), elem.clone(), at - from))
        });
        let Some((group, elem, start)) = found else {
            return Err(self.unsupported(site, "a pointer to a local object without fields", None));
        };
        let size = i64::from(elem.size(&self.structs));
        let mut p = PtrVal::at(crate::cuda::ir::Base::Null, pointee);
        p.disp = i64::from(start);
        p.local = Some(super::LocalTarget {
            arrays: group,
            elem,
        });
        for (op, scale) in index {
            p = p.plus(*op, scale * size);
        }
        Ok(p)
    }

    /// `local[index] = leaves` for each leaf's array.
    pub(super) fn store_local(
        &mut self,
        arrays: &[u32],
        index: &[(Operand, i64)],
        leaves: &[Operand],
        site: Site,
    ) {
        let idx = self.local_index(index, site);
        for (a, leaf) in arrays.iter().zip(leaves) {
            self.emit(Stmt::LocalStore {
                array: *a,
                index: idx,
                value: *leaf,
                site,
            });
        }
    }

    /// Memory loads of a value of type `ty` at `ptr`: its leaves.
    pub fn load(&mut self, ptr: &PtrVal, ty: &Ty, site: Site) -> R<Vec<Operand>> {
        if ptr.local.is_some() && self.steps_within_elements(ptr) {
            let (start, slots) = self.local_slots(ptr, ty, site)?;
            let kinds = ty.leaves(&self.structs);
            let mut out: Vec<Operand> = Vec::new();
            for (at, hit) in slots {
                let mut p = start.clone();
                p.disp = i64::from(at);
                let leaves = self.load(&p, ty, site)?;
                out = if out.is_empty() {
                    leaves
                } else {
                    let mut picked = Vec::new();
                    for ((a, b), (_, s)) in leaves.into_iter().zip(out).zip(&kinds) {
                        picked.push(self.assign(*s, Op::Select { cond: hit, a, b }, site));
                    }
                    picked
                };
            }
            return Ok(out);
        }
        if ptr.local.is_some() {
            let p = match self.local_place(ptr, ty, site) {
                Ok(p) => p,
                // Each scalar of `ty` from the bytes it covers (a `__half2` read as an
                // `unsigned`, or the reverse).
                Err(e) => {
                    let mut leaves = Vec::new();
                    for (at, s) in ty.leaves(&self.structs) {
                        let mut p = ptr.clone();
                        p.disp += i64::from(at);
                        match self.local_bytes(&p, s, site)? {
                            Some(v) => leaves.push(v),
                            None => return Err(e),
                        }
                    }
                    return Ok(leaves);
                }
            };
            let v = self.read(&p, site)?;
            return Ok(self.leaves_of(v));
        }
        match ty {
            Ty::Scalar(s) => {
                let dst = self.temp(*s);
                self.emit(Stmt::Load {
                    dst: vec![dst],
                    ty: *s,
                    addr: ptr.addr(),
                    site,
                });
                Ok(vec![Operand::Var(dst)])
            }
            Ty::Vector(s, n) if ty.is_vector_access() => {
                let dst: Vec<VarId> = (0..*n).map(|_| self.temp(*s)).collect();
                self.emit(Stmt::Load {
                    dst: dst.clone(),
                    ty: *s,
                    addr: ptr.addr(),
                    site,
                });
                Ok(dst.into_iter().map(Operand::Var).collect())
            }
            Ty::Vector(s, n) => {
                let mut out = Vec::new();
                for k in 0..*n {
                    let mut p = ptr.clone();
                    p.disp += i64::from(k * s.size());
                    out.extend(self.load(&p, &Ty::Scalar(*s), site)?);
                }
                Ok(out)
            }
            Ty::Struct(_) if let Some((v, leaves)) = self.struct_as_vector(ty) => {
                let Ty::Vector(bits, _) = v else {
                    unreachable!("a vector")
                };
                let words = self.load(ptr, &v, site)?;
                Ok(words
                    .into_iter()
                    .zip(leaves)
                    .map(|(w, s)| self.bitcast(w, bits, s, site))
                    .collect())
            }
            // A union as its words.
            Ty::Struct(i) if let Some((w, n)) = self.structs.words(*i) => {
                self.load(ptr, &Ty::Array(Box::new(Ty::Scalar(w)), Some(n)), site)
            }
            Ty::Struct(i) => {
                // Field by field, as nvcc compiles a struct copy.
                let fields = self.structs.list[*i].fields.clone();
                let mut out = Vec::new();
                for (_, fty, off) in fields {
                    let mut p = ptr.clone();
                    p.disp += i64::from(off);
                    out.extend(self.load(&p, &fty, site)?);
                }
                Ok(out)
            }
            Ty::Array(elem, Some(n)) => {
                let mut out = Vec::new();
                let size = elem.size(&self.structs);
                for k in 0..*n {
                    let mut p = ptr.clone();
                    p.disp += i64::from(k * size);
                    out.extend(self.load(&p, elem, site)?);
                }
                Ok(out)
            }
            other => Err(self.unsupported(
                site,
                &format!("loading a `{}` from memory", other.show(&self.structs)),
                Some("pointers stored in memory cannot be followed; pass each buffer as a kernel parameter"),
            )),
        }
    }

    /// The vector a struct is accessed as, and its leaves' types: nvcc moves a struct aligned
    /// to its size (8 or 16 bytes: `__align__(16)`) in one vector access of its words, as a
    /// `uint4` (`LDG.E.128`; alignedTypes shows the difference), whatever the fields' types,
    /// here when they are all 4 or all 8 bytes.
    fn struct_as_vector(&self, ty: &Ty) -> Option<(Ty, Vec<Scalar>)> {
        let leaves: Vec<Scalar> = ty
            .leaves(&self.structs)
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        let bits = match leaves.first()?.size() {
            4 => Scalar::U32,
            8 => Scalar::U64,
            _ => return None,
        };
        let size = ty.size(&self.structs);
        let v = Ty::Vector(bits, leaves.len() as u32);
        (matches!(size, 8 | 16)
            && ty.align(&self.structs) >= size
            && leaves.iter().all(|s| s.size() == bits.size())
            && bits.size() * leaves.len() as u32 == size
            && v.is_vector_access())
        .then_some((v, leaves))
    }

    /// `x` of type `from` as the same bits of type `to` (a free reinterpretation).
    fn bitcast(&mut self, x: Operand, from: Scalar, to: Scalar, site: Site) -> Operand {
        if from == to {
            return x;
        }
        self.assign(to, Op::Bitcast { src: x, from }, site)
    }

    /// Memory stores of the leaves of a value of type `ty` at `ptr`.
    fn store(&mut self, ptr: &PtrVal, ty: &Ty, leaves: &[Operand], site: Site) -> R<()> {
        if ptr.local.is_some() && self.steps_within_elements(ptr) {
            let (start, slots) = self.local_slots(ptr, ty, site)?;
            for (at, hit) in slots {
                let mut p = start.clone();
                p.disp = i64::from(at);
                if !self.store_bytes(&p, ty, leaves, Some(hit), site)? {
                    return Err(self.local_misfit(&p, ty, site));
                }
            }
            return Ok(());
        }
        if ptr.local.is_some() {
            return match self.local_place(ptr, ty, site) {
                Ok(Place::Local { arrays, index, .. }) => {
                    self.store_local(&arrays, &index, leaves, site);
                    Ok(())
                }
                Ok(_) => unreachable!("local_place gives local elements"),
                // Into the bytes of the leaves it covers (a `float` into a `uint4`'s `.y`).
                Err(e) => match self.store_bytes(ptr, ty, leaves, None, site)? {
                    true => Ok(()),
                    false => Err(e),
                },
            };
        }
        match ty {
            Ty::Scalar(s) => {
                self.emit(Stmt::Store {
                    ty: *s,
                    addr: ptr.addr(),
                    values: vec![leaves[0]],
                    site,
                });
                Ok(())
            }
            Ty::Vector(s, _) if ty.is_vector_access() => {
                self.emit(Stmt::Store {
                    ty: *s,
                    addr: ptr.addr(),
                    values: leaves.to_vec(),
                    site,
                });
                Ok(())
            }
            Ty::Vector(s, n) => {
                for k in 0..*n {
                    let mut p = ptr.clone();
                    p.disp += i64::from(k * s.size());
                    self.store(
                        &p,
                        &Ty::Scalar(*s),
                        &leaves[k as usize..k as usize + 1],
                        site,
                    )?;
                }
                Ok(())
            }
            Ty::Struct(_) if let Some((v, scalars)) = self.struct_as_vector(ty) => {
                let Ty::Vector(bits, _) = v else {
                    unreachable!("a vector")
                };
                let words: Vec<Operand> = leaves
                    .iter()
                    .zip(scalars)
                    .map(|(&x, s)| self.bitcast(x, s, bits, site))
                    .collect();
                self.store(ptr, &v, &words, site)
            }
            Ty::Struct(i) if let Some((w, n)) = self.structs.words(*i) => self.store(
                ptr,
                &Ty::Array(Box::new(Ty::Scalar(w)), Some(n)),
                leaves,
                site,
            ),
            Ty::Struct(i) => {
                let fields = self.structs.list[*i].fields.clone();
                let mut at = 0;
                for (_, fty, off) in fields {
                    let n = fty.leaf_count(&self.structs);
                    let mut p = ptr.clone();
                    p.disp += i64::from(off);
                    self.store(&p, &fty, &leaves[at..at + n], site)?;
                    at += n;
                }
                Ok(())
            }
            Ty::Array(elem, Some(n)) => {
                let size = elem.size(&self.structs);
                let per = elem.leaf_count(&self.structs);
                for k in 0..*n as usize {
                    let mut p = ptr.clone();
                    p.disp += (k as i64) * i64::from(size);
                    self.store(&p, elem, &leaves[k * per..(k + 1) * per], site)?;
                }
                Ok(())
            }
            other => Err(self.unsupported(
                site,
                &format!("storing a `{}` to memory", other.show(&self.structs)),
                None,
            )),
        }
    }

    /// Write a value (converted to the place's type) to a place; returns what was stored.
    pub fn write(&mut self, p: &Place, v: Val, site: Site) -> R<Val> {
        let ty = self.place_ty(p);
        if ty == Ty::Texture {
            return Err(self.texture_misuse(site));
        }
        let v = self.convert_val(v, &ty, site)?;
        self.note_parameter_write(p, site);
        match p {
            Place::Pointers { .. } => Err(self.pointers_whole(site)),
            Place::Reg { vars, ty } => {
                let leaves = self.leaves_of(v);
                if vars.len() == 1 && self.retarget(leaves[0], vars[0]) {
                    return Ok(match ty {
                        Ty::Scalar(s) => Val::Scalar(Operand::Var(vars[0]), *s),
                        t => Val::Agg(t.clone(), vec![Operand::Var(vars[0])]),
                    });
                }
                for (var, leaf) in vars.iter().zip(&leaves) {
                    if *leaf != Operand::Var(*var) {
                        let s = self.vars[var.0 as usize].ty;
                        self.assign_to(*var, s, Op::Copy { src: *leaf }, site);
                    }
                }
                Ok(match ty {
                    Ty::Scalar(s) => Val::Scalar(Operand::Var(vars[0]), *s),
                    t => Val::Agg(t.clone(), vars.iter().map(|v| Operand::Var(*v)).collect()),
                })
            }
            Place::Ptr(k) => {
                let Val::Ptr(ptr) = v else {
                    return Err(self.err(site, "a pointer is needed here", None));
                };
                self.set_target(*k, &ptr, site)?;
                let pv = self.ptrs[*k].clone();
                let mut index = ptr.terms.clone();
                if ptr.disp != 0 {
                    index.push((
                        Operand::Const(consts::int(Scalar::I64, i128::from(ptr.disp))),
                        1,
                    ));
                }
                if index.is_empty() {
                    if !self.retarget(ptr.offset, pv.off) && ptr.offset != Operand::Var(pv.off) {
                        self.assign_to(pv.off, Scalar::I64, Op::Copy { src: ptr.offset }, site);
                    }
                } else {
                    self.assign_to(
                        pv.off,
                        Scalar::I64,
                        Op::Offset {
                            offset: ptr.offset,
                            index,
                        },
                        site,
                    );
                }
                self.read(p, site)
            }
            Place::Mem { ptr, ty } => {
                if matches!(ty, Ty::Array(..)) {
                    return Err(self.err(site, "cannot assign to an array", None));
                }
                let leaves = self.leaves_of(v.clone());
                self.store(ptr, ty, &leaves, site)?;
                Ok(v)
            }
            Place::Local { arrays, index, ty } => {
                if matches!(ty, Ty::Array(..)) {
                    return Err(self.err(site, "cannot assign to an array", None));
                }
                let leaves = self.leaves_of(v.clone());
                self.store_local(arrays, index, &leaves, site);
                Ok(v)
            }
            Place::Pick { index, choices, ty } => {
                if matches!(ty, Ty::Array(..)) {
                    return Err(self.err(site, "cannot assign to an array", None));
                }
                self.pick_bounds(*index, choices.len(), site);
                let hits = self.pick_hits(*index, choices.len(), site);
                let leaves = self.leaves_of(v.clone());
                for (c, hit) in choices.iter().zip(hits) {
                    for (var, leaf) in c.iter().zip(&leaves) {
                        let s = self.vars[var.0 as usize].ty;
                        let (a, b) = (*leaf, Operand::Var(*var));
                        self.assign_to(*var, s, Op::Select { cond: hit, a, b }, site);
                    }
                }
                Ok(v)
            }
            Place::Alias(..) => Err(self.alias_misuse(site)),
            Place::Group(_) => Err(self.err(site, "a group handle cannot be reassigned", None)),
            Place::Closure(_) => {
                Err(self.err(site, "a lambda variable cannot be reassigned", None))
            }
        }
    }

    /// Note an assignment to a struct kernel parameter held in variables: one whose bytes an
    /// access reads ([`super::ParamBytes`]) must not change.
    fn note_parameter_write(&mut self, p: &Place, site: Site) {
        let written: &[VarId] = match p {
            Place::Reg { vars, .. } => vars,
            Place::Pick { choices, .. } => choices.first().map_or(&[], Vec::as_slice),
            Place::Mem { .. } => &[],
            _ => return,
        };
        let bytes = match p {
            Place::Mem { ptr, .. } => Some(ptr.base),
            _ => None,
        };
        for pb in &mut self.param_structs {
            let hit = written.iter().any(|v| pb.vars.contains(v))
                || pb
                    .slot
                    .is_some_and(|s| bytes == Some(crate::cuda::ir::Base::Param(s)));
            if pb.written_at.is_none() && hit {
                pb.written_at = Some(site);
            }
        }
    }

    /// An element of an array in a struct kernel parameter held in variables, at run-time
    /// index `idx`, read from the parameter's bytes ([`super::ParamBytes`]): where picking it
    /// would compare the index with more than [`MAX_PICK`] elements. `first` is the first leaf
    /// of each choice the array is in (one for an array named directly; those of a pick over
    /// structs holding it, `outer` choosing among them), `array` its type.
    fn param_bytes_element(
        &mut self,
        first: &[VarId],
        outer: Option<Operand>,
        array: &Ty,
        idx: Operand,
        site: Site,
    ) -> Option<Place> {
        let Ty::Array(elem, Some(n)) = array else {
            return None;
        };
        let mut total = first.len() * *n as usize;
        let mut inner = &**elem;
        while let Ty::Array(t, Some(m)) = inner {
            total *= *m as usize;
            inner = t;
        }
        // A pointer is a buffer of its own, not bytes.
        if total <= MAX_PICK || super::has_pointers(inner, &self.structs) {
            return None;
        }
        let lead = elem.leaves(&self.structs).first()?.0;
        let start = first.first()?;
        let k = self
            .param_structs
            .iter()
            .position(|pb| pb.vars.contains(start))?;
        let pb = &self.param_structs[k];
        let at = |v: &VarId| -> Option<i64> {
            let leaf = pb.vars.iter().position(|x| x == v)?;
            Some(i64::from(pb.offsets[leaf]) - i64::from(lead))
        };
        let starts: Vec<i64> = first.iter().map(at).collect::<Option<_>>()?;
        // The choices of a pick must be one array's elements, equally spaced.
        let stride = starts.get(1).map_or(0, |s| s - starts[0]);
        if starts.windows(2).any(|w| w[1] - w[0] != stride) {
            return None;
        }
        let slot = match pb.slot {
            Some(slot) => slot,
            None => {
                let slot = self.next_slot;
                self.next_slot += 1;
                let pb = &mut self.param_structs[k];
                pb.slot = Some(slot);
                pb.read_at = site;
                slot
            }
        };
        let base = PtrVal::at(crate::cuda::ir::Base::Param(slot), (**elem).clone());
        let mut ptr = base.plus(
            Operand::Const(consts::int(Scalar::I64, i128::from(starts[0]))),
            1,
        );
        if let Some(o) = outer {
            ptr = ptr.plus(o, stride);
        }
        let size = i64::from(elem.size(&self.structs));
        Some(Place::Mem {
            ptr: ptr.plus(idx, size),
            ty: (**elem).clone(),
        })
    }

    /// A buffer's name for messages.
    /// `v` with the program's variables it reads copied as they are now (a value evaluated
    /// before something that may change them; the lowering's temporaries keep their values).
    fn settle(&mut self, v: Val, site: Site) -> Val {
        // A pointer's offset may be a pointer variable's own.
        let pointer = matches!(v, Val::Ptr(_));
        let copy = |l: &mut Self, o: Operand| match o {
            Operand::Var(x) if pointer || l.declared_at.contains_key(&x) => {
                let ty = l.vars[x.0 as usize].ty;
                l.assign(ty, Op::Copy { src: o }, site)
            }
            other => other,
        };
        match v {
            Val::Scalar(o, s) => Val::Scalar(copy(self, o), s),
            Val::Agg(ty, leaves) => {
                Val::Agg(ty, leaves.into_iter().map(|o| copy(self, o)).collect())
            }
            Val::Ptr(mut p) => {
                p.offset = copy(self, p.offset);
                p.terms = p
                    .terms
                    .into_iter()
                    .map(|(o, k)| (copy(self, o), k))
                    .collect();
                Val::Ptr(p)
            }
            other => other,
        }
    }

    pub fn base_name(&self, b: crate::cuda::ir::Base) -> String {
        match b {
            crate::cuda::ir::Base::Param(i) => format!("parameter {i}"),
            crate::cuda::ir::Base::Shared(i) => {
                format!("shared `{}`", self.shared[i as usize].name)
            }
            crate::cuda::ir::Base::DynamicShared => "extern __shared__ memory".into(),
            crate::cuda::ir::Base::Global(i) => format!("`{}`", self.globals[i as usize].0.name),
            crate::cuda::ir::Base::Null => "no buffer (a null pointer)".into(),
            crate::cuda::ir::Base::Var(_) => "a buffer chosen at run time".into(),
        }
    }

    /// Make the statement that just computed temporary `src` write `dst` instead (so
    /// `x = a + b` is one operation into `x`, not an operation and a copy).
    fn retarget(&mut self, src: Operand, dst: VarId) -> bool {
        let Operand::Var(t) = src else { return false };
        if !self.vars[t.0 as usize].name.starts_with("$t")
            || self.vars[t.0 as usize].ty != self.vars[dst.0 as usize].ty
        {
            return false;
        }
        let Some(last) = self.current_block().last_mut() else {
            return false;
        };
        let slot = match last {
            Stmt::Assign(a) if a.dst == t => &mut a.dst,
            Stmt::Load { dst: d, .. } if d.len() == 1 && d[0] == t => &mut d[0],
            Stmt::LocalLoad { dst: d, .. } if *d == t => d,
            Stmt::Shfl { dst: d, .. } if *d == t => d,
            Stmt::Vote { dst: d, .. } if *d == t => d,
            Stmt::Atomic { dst: Some(d), .. } if *d == t => d,
            Stmt::Sync { dst: Some(d), .. } if *d == t => d,
            _ => return false,
        };
        *slot = dst;
        if self.exact.remove(&t) {
            self.exact.insert(dst);
        }
        true
    }

    // ------------------------------------------------------------------ operators

    /// Arithmetic on two scalars with the usual arithmetic conversions.
    pub fn arith(
        &mut self,
        op: Binary,
        a: (Operand, Scalar),
        b: (Operand, Scalar),
        site: Site,
    ) -> R<Val> {
        let (ao, at) = a;
        let (bo, bt) = b;
        let bin = match op {
            Binary::Add => BinOp::Add,
            Binary::Sub => BinOp::Sub,
            Binary::Mul => BinOp::Mul,
            Binary::Div => BinOp::Div,
            Binary::Rem => BinOp::Rem,
            Binary::BitAnd => BinOp::And,
            Binary::BitOr => BinOp::Or,
            Binary::BitXor => BinOp::Xor,
            Binary::Shl => BinOp::Shl,
            Binary::Shr => BinOp::Shr,
            Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge | Binary::Eq | Binary::Ne => {
                let t = usual(at, bt);
                let x = self.convert(ao, at, t, site);
                let y = self.convert(bo, bt, t, site);
                let c = match op {
                    Binary::Lt => CmpOp::Lt,
                    Binary::Le => CmpOp::Le,
                    Binary::Gt => CmpOp::Gt,
                    Binary::Ge => CmpOp::Ge,
                    Binary::Eq => CmpOp::Eq,
                    _ => CmpOp::Ne,
                };
                return Ok(Val::Scalar(self.cmp(c, t, x, y, site), Scalar::Bool));
            }
            Binary::LogAnd | Binary::LogOr => unreachable!("handled by the caller"),
        };
        let integer_only = matches!(
            bin,
            BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr
        );
        if integer_only && (at.is_float() || bt.is_float()) {
            return Err(self.err(site, "bitwise operators and shifts need integers", None));
        }
        let t = if matches!(bin, BinOp::Shl | BinOp::Shr) {
            promote(at)
        } else {
            usual(at, bt)
        };
        let x = self.convert(ao, at, t, site);
        let y = self.convert(bo, bt, t, site);
        Ok(Val::Scalar(self.binop(bin, t, x, y, site), t))
    }

    fn binary(&mut self, op: Binary, a: &ast::Expr, b: &ast::Expr, site: Site) -> R<Val> {
        if matches!(op, Binary::LogAnd | Binary::LogOr) {
            return self.short_circuit(op == Binary::LogAnd, a, b, site);
        }
        let va = self.rvalue(a)?;
        let vb = self.rvalue(b)?;
        match (va, vb) {
            (Val::Scalar(x, xt), Val::Scalar(y, yt)) => self.arith(op, (x, xt), (y, yt), site),
            (Val::Ptr(p), Val::Scalar(i, it))
                if matches!(op, Binary::Add | Binary::Sub) && is_integer(it) =>
            {
                self.ptr_add(p, i, op == Binary::Sub, site)
            }
            (Val::Scalar(i, it), Val::Ptr(p)) if op == Binary::Add && is_integer(it) => {
                self.ptr_add(p, i, false, site)
            }
            (Val::Ptr(p), Val::Ptr(q)) if op == Binary::Sub => {
                // `p - q`: the distance in elements.
                let size = i64::from(p.pointee.size(&self.structs).max(1));
                let (a, b) = (self.ptr_address(&p, site), self.ptr_address(&q, site));
                let d = self.binop(BinOp::Sub, Scalar::I64, a, b, site);
                let n = self.binop(
                    BinOp::Div,
                    Scalar::I64,
                    d,
                    Operand::Const(consts::int(Scalar::I64, i128::from(size))),
                    site,
                );
                Ok(Val::Scalar(n, Scalar::I64))
            }
            (x @ (Val::Ptr(_) | Val::Scalar(..)), y @ (Val::Ptr(_) | Val::Scalar(..)))
                if compare_op(op).is_some() =>
            {
                // Pointers compare as addresses; an integer they meet must be 0 (`NULL`).
                let (a, b) = (self.address_of(x, site)?, self.address_of(y, site)?);
                let c = compare_op(op).expect("checked by the guard");
                Ok(Val::Scalar(
                    self.cmp(c, Scalar::U64, a, b, site),
                    Scalar::Bool,
                ))
            }
            (Val::Ptr(_), _) | (_, Val::Ptr(_)) => Err(self.unsupported(
                site,
                "this operator on pointers",
                Some("pointers can be offset, subtracted and compared"),
            )),
            (x, y) => {
                let (tx, ty) = (self.val_ty(&x), self.val_ty(&y));
                let name = format!("operator{}", binary_spelling(op));
                if let Some(v) = self.operator(&name, vec![ArgIn::Val(x), ArgIn::Val(y)], site)? {
                    return Ok(v);
                }
                Err(self.err(
                    site,
                    format!(
                        "no `{name}` for `{}` and `{}`",
                        tx.show(&self.structs),
                        ty.show(&self.structs)
                    ),
                    Some("CUDA defines no arithmetic on vector types: define the operator (as helper_math.h does) or operate on the fields (.x, .y, ...)".into()),
                ))
            }
        }
    }

    /// A pointer's address (`U64`, not a counted operation: addresses are formed as C spells
    /// them, see [`crate::cuda::ir::Addr`]).
    pub fn ptr_address(&mut self, p: &PtrVal, site: Site) -> Operand {
        let mut index = vec![(p.offset, 1)];
        index.extend(p.terms.iter().copied());
        if p.disp != 0 {
            index.push((
                Operand::Const(consts::int(Scalar::I64, i128::from(p.disp))),
                1,
            ));
        }
        self.assign(
            Scalar::U64,
            Op::Offset {
                offset: Operand::Builtin(crate::cuda::ir::Builtin::BaseAddress(p.base)),
                index,
            },
            site,
        )
    }

    /// An operand of a pointer comparison as an address: a pointer's, or the integer 0.
    fn address_of(&mut self, v: Val, site: Site) -> R<Operand> {
        match v {
            Val::Ptr(p) => Ok(self.ptr_address(&p, site)),
            Val::Scalar(Operand::Const(c), s) if c.bits == 0 && !s.is_float() => {
                Ok(Operand::Const(consts::int(Scalar::U64, 0)))
            }
            _ => Err(self.unsupported(
                site,
                "comparing a pointer with a number other than 0",
                Some("compare with NULL, or compare indexes"),
            )),
        }
    }

    /// `p + i` / `p - i`: an address, not a counted operation.
    fn ptr_add(&mut self, p: PtrVal, i: Operand, sub: bool, site: Site) -> R<Val> {
        let size = i64::from(p.pointee.size(&self.structs));
        if size == 0 {
            return Err(self.err(
                site,
                "arithmetic on a `void *`",
                Some("cast it to a typed pointer first".into()),
            ));
        }
        Ok(Val::Ptr(p.plus(i, if sub { -size } else { size })))
    }

    /// `a && b`, `a || b`: one `And`/`Or` when `b` is pure, else a branch.
    fn short_circuit(&mut self, is_and: bool, a: &ast::Expr, b: &ast::Expr, site: Site) -> R<Val> {
        let x = self.truth_expr(a)?;
        if let Operand::Const(c) = x {
            let t = consts::truthy(c);
            if t != is_and {
                return Ok(Val::Scalar(bool_const(t), Scalar::Bool));
            }
            let y = self.truth_expr(b)?;
            return Ok(Val::Scalar(y, Scalar::Bool));
        }
        if self.is_pure(b) {
            let y = self.truth_expr(b)?;
            return Ok(Val::Scalar(self.logic(is_and, x, y, site), Scalar::Bool));
        }
        let r = self.temp(Scalar::Bool);
        self.assign_to(r, Scalar::Bool, Op::Copy { src: x }, site);
        let rhs = self.sub_block(|l| {
            let y = l.truth_expr(b)?;
            l.assign_to(r, Scalar::Bool, Op::Copy { src: y }, b.site);
            Ok(())
        })?;
        let (then, els) = if is_and {
            (rhs, Vec::new())
        } else {
            (Vec::new(), rhs)
        };
        self.emit(Stmt::If {
            cond: x,
            then,
            els,
            varying: false,
            site,
        });
        Ok(Val::Scalar(Operand::Var(r), Scalar::Bool))
    }

    /// Whether two arms are pointers into different buffers (then `?:` assigns a pointer
    /// variable in each branch, rather than selecting an offset).
    fn two_buffers(&mut self, a: &ast::Expr, b: &ast::Expr) -> R<bool> {
        let mut bases = (None, None);
        self.sub_block(|l| {
            if let Val::Ptr(p) = l.rvalue(a)? {
                bases.0 = Some(p.base);
            }
            if let Val::Ptr(q) = l.rvalue(b)? {
                bases.1 = Some(q.base);
            }
            Ok(())
        })?;
        Ok(matches!(bases, (Some(x), Some(y)) if x != y)
            || matches!(bases, (Some(_), None) | (None, Some(_))))
    }

    /// `c ? a : b`: a `Select` when both arms are pure, else a branch.
    fn conditional(&mut self, c: &ast::Expr, a: &ast::Expr, b: &ast::Expr, site: Site) -> R<Val> {
        let cond = self.truth_expr(c)?;
        if let Operand::Const(k) = cond {
            return self.rvalue(if consts::truthy(k) { a } else { b });
        }
        if self.is_pure(a) && self.is_pure(b) && !self.two_buffers(a, b)? {
            let va = self.rvalue(a)?;
            let vb = self.rvalue(b)?;
            let ty = self.common_ty(&va, &vb, site)?;
            let va = self.convert_val(va, &ty, site)?;
            let vb = self.convert_val(vb, &ty, site)?;
            return match (va, vb) {
                (Val::Scalar(x, s), Val::Scalar(y, _)) => {
                    Ok(Val::Scalar(self.select(s, cond, x, y, site), s))
                }
                (Val::Agg(t, xs), Val::Agg(_, ys)) => {
                    let leaves = t.leaves(&self.structs);
                    let out = xs
                        .iter()
                        .zip(&ys)
                        .zip(leaves)
                        .map(|((x, y), (_, s))| self.select(s, cond, *x, *y, site))
                        .collect();
                    Ok(Val::Agg(t, out))
                }
                _ => Err(self.unsupported(site, "`?:` on these operands", None)),
            };
        }
        // Evaluate each arm under its branch, then convert both to the common type.
        let mut va = Val::Void;
        let mut vb = Val::Void;
        let mut then = self.sub_block(|l| {
            va = l.rvalue(a)?;
            Ok(())
        })?;
        let mut els = self.sub_block(|l| {
            vb = l.rvalue(b)?;
            Ok(())
        })?;
        let ty = self.common_ty(&va, &vb, site)?;
        let result = match &ty {
            Ty::Pointer(p) => Place::Ptr(self.new_ptr("?:", (**p).clone(), site)),
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Struct(_) => {
                let vars = ty
                    .leaves(&self.structs)
                    .iter()
                    .map(|(_, s)| self.temp(*s))
                    .collect();
                Place::Reg {
                    ty: ty.clone(),
                    vars,
                }
            }
            Ty::Void => Place::Reg {
                ty: Ty::Void,
                vars: Vec::new(),
            },
            _ => return Err(self.unsupported(site, "`?:` on these operands", None)),
        };
        if ty != Ty::Void {
            for (block, v) in [(&mut then, va), (&mut els, vb)] {
                let mut b = std::mem::take(block);
                let r = self.sub_block(|l| {
                    l.current_block().append(&mut b);
                    l.write(&result, v, site)?;
                    Ok(())
                })?;
                *block = r;
            }
        }
        self.emit(Stmt::If {
            cond,
            then,
            els,
            varying: false,
            site,
        });
        if ty == Ty::Void {
            return Ok(Val::Void);
        }
        self.read(&result, site)
    }

    pub fn select(
        &mut self,
        s: Scalar,
        cond: Operand,
        a: Operand,
        b: Operand,
        site: Site,
    ) -> Operand {
        if a == b {
            return a;
        }
        self.assign(s, Op::Select { cond, a, b }, site)
    }

    /// The type both arms of `?:` convert to.
    fn common_ty(&self, a: &Val, b: &Val, site: Site) -> R<Ty> {
        match (a, b) {
            (Val::Scalar(_, x), Val::Scalar(_, y)) => Ok(Ty::Scalar(usual(*x, *y))),
            (Val::Ptr(p), Val::Ptr(_))
            | (Val::Ptr(p), Val::Scalar(..))
            | (Val::Scalar(..), Val::Ptr(p)) => Ok(Ty::Pointer(Box::new(p.pointee.clone()))),
            _ => {
                let (x, y) = (self.val_ty(a), self.val_ty(b));
                if x == y {
                    Ok(x)
                } else {
                    Err(self.err(
                        site,
                        format!(
                            "`?:` arms of types `{}` and `{}`",
                            x.show(&self.structs),
                            y.show(&self.structs)
                        ),
                        None,
                    ))
                }
            }
        }
    }

    fn assign_expr(
        &mut self,
        op: Option<Binary>,
        a: &ast::Expr,
        b: &ast::Expr,
        site: Site,
    ) -> R<Val> {
        // C++17: the right operand of an assignment is evaluated before the left (`a[i++] = i`,
        // `a[j] += ++j`); its variables hold its value only until the left side changes them.
        let rhs = match &b.kind {
            ast::ExprKind::InitList(_) => None,
            _ => {
                let v = self.rvalue(b)?;
                Some(if changes_nothing(a) {
                    v
                } else {
                    self.settle(v, site)
                })
            }
        };
        let p = self.place(a)?;
        let ty = self.place_ty(&p);
        let v = match (op, rhs) {
            (None, Some(v)) => {
                if let Some(done) = self.copy_assigned(&p, v.clone(), site)? {
                    return Ok(done);
                }
                v
            }
            (_, None) => {
                let ast::ExprKind::InitList(items) = &b.kind else {
                    unreachable!("evaluated above")
                };
                if op.is_some() {
                    return Err(self.err(site, "invalid operands to a compound assignment", None));
                }
                self.init_list(items, &ty, b.site)?
            }
            (Some(op), Some(rhs)) if matches!(ty, Ty::Struct(_) | Ty::Vector(..)) => {
                let name = format!("operator{}=", binary_spelling(op));
                if self
                    .operator(
                        &name,
                        vec![ArgIn::Place(p.clone()), ArgIn::Val(rhs.clone())],
                        site,
                    )?
                    .is_some()
                {
                    // `operator+=` wrote the place itself (by reference or through `this`).
                    return self.read(&p, site);
                }
                let old = self.read(&p, site)?;
                let name = format!("operator{}", binary_spelling(op));
                match self.operator(&name, vec![ArgIn::Val(old), ArgIn::Val(rhs)], site)? {
                    Some(v) => v,
                    None => {
                        return Err(self.err(
                            site,
                            format!("no `{name}=` or `{name}` for `{}`", ty.show(&self.structs)),
                            None,
                        ));
                    }
                }
            }
            (Some(op), Some(rhs)) => {
                let old = self.read(&p, site)?;
                match (old, rhs) {
                    (Val::Scalar(x, xt), Val::Scalar(y, yt)) => {
                        self.arith(op, (x, xt), (y, yt), site)?
                    }
                    (Val::Ptr(ptr), Val::Scalar(i, it))
                        if matches!(op, Binary::Add | Binary::Sub) && is_integer(it) =>
                    {
                        self.ptr_add(ptr, i, op == Binary::Sub, site)?
                    }
                    _ => {
                        return Err(self.err(
                            site,
                            "invalid operands to a compound assignment",
                            None,
                        ));
                    }
                }
            }
        };
        let written = self.write(&p, v, site)?;
        if op.is_none() {
            self.assign_pointers(a, b, site)?;
        }
        Ok(written)
    }

    /// `a = b` of structs whose pointer fields are pointer variables: `a`'s take `b`'s values
    /// (`b` a struct that carries them, or a call that returned one).
    fn assign_pointers(&mut self, a: &ast::Expr, b: &ast::Expr, site: Site) -> R<()> {
        let Some(dst) = self.field_pointers_of(a, &[]) else {
            return Ok(());
        };
        // `s.r = v` of a reference member wrote what it refers to.
        if dst
            .iter()
            .any(|(path, k)| path.is_empty() && self.ptrs[*k].reference)
        {
            return Ok(());
        }
        // C++ deletes the copy assignment of a struct with a reference member: a reference is
        // bound once.
        if let Some((path, _)) = dst.iter().find(|(_, k)| self.ptrs[*k].reference) {
            let t = self.type_of(a)?;
            return Err(self.err(
                site,
                format!(
                    "assigning a `{}` would rebind its reference member `{}`",
                    t.show(&self.structs),
                    path.join(".")
                ),
                Some("give the struct an `operator=` that assigns what the reference refers to, or use a pointer member".into()),
            ));
        }
        match self.pointers_of_value(b) {
            Some(src) => self.copy_pointers(&dst, &src, site),
            None => Ok(()),
        }
    }

    fn incdec(&mut self, inc: bool, prefix: bool, x: &ast::Expr, site: Site) -> R<Val> {
        let p = self.place(x)?;
        let old = self.read(&p, site)?;
        // A postfix result is the old value: keep it if the variable is about to change.
        let old = match (&old, prefix, &p) {
            (Val::Scalar(Operand::Var(v), s), false, Place::Reg { .. }) => {
                let t = self.temp(*s);
                self.assign_to(
                    t,
                    *s,
                    Op::Copy {
                        src: Operand::Var(*v),
                    },
                    site,
                );
                Val::Scalar(Operand::Var(t), *s)
            }
            // A pointer variable's old offset, for `*p++ = x` to store where `p` pointed.
            (Val::Ptr(ptr), false, Place::Ptr(_)) if matches!(ptr.offset, Operand::Var(_)) => {
                let offset = self.assign(Scalar::I64, Op::Copy { src: ptr.offset }, site);
                Val::Ptr(PtrVal {
                    offset,
                    ..ptr.clone()
                })
            }
            _ => old,
        };
        let new = match old.clone() {
            Val::Scalar(o, s) => {
                let one = (Operand::Const(consts::int(Scalar::I32, 1)), Scalar::I32);
                self.arith(
                    if inc { Binary::Add } else { Binary::Sub },
                    (o, s),
                    one,
                    site,
                )?
            }
            Val::Ptr(ptr) => {
                self.ptr_add(ptr, Operand::Const(consts::int(Scalar::I64, 1)), !inc, site)?
            }
            _ => return Err(self.err(site, "++/-- needs a number or a pointer", None)),
        };
        let written = self.write(&p, new, site)?;
        Ok(if prefix { written } else { old })
    }
}

/// Whether an expression may designate a place.
pub fn is_lvalue_like(e: &ast::Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Ident(_)
            | ExprKind::Index(..)
            | ExprKind::Member(..)
            | ExprKind::Unary(Unary::Deref, _)
    )
}

/// Whether evaluating `e` cannot change a variable: no assignment, `++`/`--` or call in it.
fn changes_nothing(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Assign(..)
        | ExprKind::IncDec(..)
        | ExprKind::Call(..)
        | ExprKind::Lambda(..)
        | ExprKind::StmtExpr(..) => false,
        ExprKind::Unary(_, x) | ExprKind::Member(x, _, _) | ExprKind::Cast(_, x) => {
            changes_nothing(x)
        }
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Comma(a, b) => {
            changes_nothing(a) && changes_nothing(b)
        }
        ExprKind::Cond(c, a, b) => changes_nothing(c) && changes_nothing(a) && changes_nothing(b),
        ExprKind::InitList(items) => items.iter().all(changes_nothing),
        ExprKind::Unsupported(..) => false,
        _ => true,
    }
}

/// The comparison a binary operator is, if it is one.
fn compare_op(op: Binary) -> Option<CmpOp> {
    Some(match op {
        Binary::Lt => CmpOp::Lt,
        Binary::Le => CmpOp::Le,
        Binary::Gt => CmpOp::Gt,
        Binary::Ge => CmpOp::Ge,
        Binary::Eq => CmpOp::Eq,
        Binary::Ne => CmpOp::Ne,
        _ => return None,
    })
}

/// The C spelling of a binary operator, for `operator+` & co.
fn binary_spelling(op: Binary) -> &'static str {
    match op {
        Binary::Add => "+",
        Binary::Sub => "-",
        Binary::Mul => "*",
        Binary::Div => "/",
        Binary::Rem => "%",
        Binary::Shl => "<<",
        Binary::Shr => ">>",
        Binary::BitAnd => "&",
        Binary::BitOr => "|",
        Binary::BitXor => "^",
        Binary::Lt => "<",
        Binary::Le => "<=",
        Binary::Gt => ">",
        Binary::Ge => ">=",
        Binary::Eq => "==",
        Binary::Ne => "!=",
        Binary::LogAnd => "&&",
        Binary::LogOr => "||",
    }
}

fn size_t(v: u32) -> Val {
    Val::Scalar(
        Operand::Const(consts::int(Scalar::U64, i128::from(v))),
        Scalar::U64,
    )
}

/// Constants from `<float.h>`, `<limits.h>` and `math_constants.h`, whose headers are skipped
/// (`<math.h>`'s are macros the preprocessor defines).
fn math_constant(n: &str) -> Option<Val> {
    let f = |v: f64| {
        Some(Val::Scalar(
            Operand::Const(consts::float(Scalar::F64, v)),
            Scalar::F64,
        ))
    };
    let f32c = |v: f64| {
        Some(Val::Scalar(
            Operand::Const(consts::float(Scalar::F32, v)),
            Scalar::F32,
        ))
    };
    let i = |s: Scalar, v: i128| Some(Val::Scalar(Operand::Const(consts::int(s, v)), s));
    match n {
        "CUDART_PI_F" => f32c(std::f64::consts::PI),
        "CUDART_PI" => f(std::f64::consts::PI),
        "CUDART_INF_F" | "INFINITY" => f32c(f64::INFINITY),
        "CUDART_NAN_F" | "NAN" => f32c(f64::NAN),
        "FLT_MAX" => f32c(f64::from(f32::MAX)),
        "FLT_MIN" => f32c(f64::from(f32::MIN_POSITIVE)),
        "FLT_EPSILON" => f32c(f64::from(f32::EPSILON)),
        "DBL_MAX" => f(f64::MAX),
        "INT_MAX" => i(Scalar::I32, i128::from(i32::MAX)),
        "INT_MIN" => i(Scalar::I32, i128::from(i32::MIN)),
        "UINT_MAX" => i(Scalar::U32, i128::from(u32::MAX)),
        "LLONG_MAX" | "LONG_MAX" => i(Scalar::I64, i128::from(i64::MAX)),
        "LLONG_MIN" | "LONG_MIN" => i(Scalar::I64, i128::from(i64::MIN)),
        "ULLONG_MAX" | "ULONG_MAX" => i(Scalar::U64, i128::from(u64::MAX)),
        "CHAR_BIT" => i(Scalar::I32, 8),
        "SCHAR_MAX" | "CHAR_MAX" => i(Scalar::I32, i128::from(i8::MAX)),
        "SCHAR_MIN" | "CHAR_MIN" => i(Scalar::I32, i128::from(i8::MIN)),
        "UCHAR_MAX" => i(Scalar::I32, i128::from(u8::MAX)),
        "SHRT_MAX" => i(Scalar::I32, i128::from(i16::MAX)),
        "SHRT_MIN" => i(Scalar::I32, i128::from(i16::MIN)),
        "USHRT_MAX" => i(Scalar::I32, i128::from(u16::MAX)),
        "DBL_MIN" => f(f64::MIN_POSITIVE),
        "DBL_EPSILON" => f(f64::EPSILON),
        _ => None,
    }
}

/// The unsigned integer type of `bytes` bytes.
fn unsigned_of(bytes: u32) -> Scalar {
    match bytes {
        1 => Scalar::U8,
        2 => Scalar::U16,
        4 => Scalar::U32,
        _ => Scalar::U64,
    }
}
