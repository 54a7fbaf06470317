//! Parameter packs (`template <typename... Ts> __device__ void f(Ts... xs)`): a variadic
//! template is instantiated for a number of elements as the ordinary template C++ makes of it,
//! with the pack's elements as parameters of their own (`Ts#0`, `Ts#1` and `xs#0`, `xs#1`),
//! each expansion (`g(xs...)`, `h<Ts...>()`, `{xs...}`) replaced by its elements and each
//! `sizeof...` by the count. Template arguments are then deduced and given as for any template.

use super::Lowerer;
use crate::cuda::diag::Diagnostic;
use crate::cuda::front::ast::*;
use crate::cuda::ir::Site;

/// The refusal of a pack expansion where warpsim does not expand it.
pub fn unexpanded(l: &Lowerer<'_>, site: Site) -> Diagnostic {
    l.unsupported(
        site,
        "a pack expansion `...` here",
        Some("expand a pack in a call's arguments (`f(args...)`), template arguments or a braced list, in a variadic function or kernel template"),
    )
}

/// The refusal of a variadic template that is called where warpsim does not instantiate one.
pub fn uninstantiated(l: &Lowerer<'_>, site: Site) -> Diagnostic {
    l.unsupported(
        site,
        "a variadic member function, lambda or specialization",
        Some("make it a variadic function or kernel template outside the struct"),
    )
}

/// Whether `f` is a variadic template.
pub fn is_variadic(f: &Function) -> bool {
    f.template
        .iter()
        .any(|p| matches!(p, TemplateParam::Pack(..)))
}

/// How many elements the pack of variadic `f` has in a call with `args` arguments and
/// `explicit` explicit template arguments: the arguments past the parameters before its
/// function parameter pack (the last parameter), else the explicit arguments past the
/// template's other parameters. `None`: the call cannot call `f`.
pub fn pack_len(f: &Function, args: usize, explicit: usize) -> Option<usize> {
    match f.params.iter().position(|p| p.pack) {
        Some(i) if i + 1 == f.params.len() => args.checked_sub(i),
        Some(_) => None,
        None => explicit.checked_sub(f.template.len() - 1),
    }
}

/// Variadic template `f` with `n` elements in its pack, or where it is none that warpsim can
/// instantiate, what is not supported there.
pub fn instantiate(f: &Function, n: usize) -> Result<Function, (Site, String)> {
    let packs: Vec<&TemplateParam> = f
        .template
        .iter()
        .filter(|p| matches!(p, TemplateParam::Pack(..)))
        .collect();
    if packs.len() > 1 {
        return Err((
            f.site,
            "a template with more than one parameter pack".to_string(),
        ));
    }
    if f.params.iter().filter(|p| p.pack).count() > 1 {
        return Err((
            f.site,
            "a function with more than one function parameter pack".to_string(),
        ));
    }
    let mut names: Vec<String> = packs.iter().map(|p| p.name().to_string()).collect();
    names.extend(f.params.iter().filter(|p| p.pack).map(|p| p.name.clone()));
    let ex = Expander {
        n,
        packs: &names,
        at: None,
    };
    let mut g = f.clone();
    g.template = f
        .template
        .iter()
        .flat_map(|p| match p {
            TemplateParam::Pack(name, ty) => (0..n)
                .map(|i| {
                    let name = element(name, i);
                    match ty {
                        None => TemplateParam::Type(name, None),
                        Some(t) => TemplateParam::Value(name, t.clone(), None),
                    }
                })
                .collect(),
            p => vec![p.clone()],
        })
        .collect();
    g.params = f
        .params
        .iter()
        .flat_map(|p| {
            if !p.pack {
                return vec![p.clone()];
            }
            (0..n)
                .map(|i| {
                    let mut q = p.clone();
                    q.pack = false;
                    q.name = element(&p.name, i);
                    Expander { at: Some(i), ..ex }.ty(&mut q.ty);
                    q.written = p.written.replace("...", "");
                    q
                })
                .collect()
        })
        .collect();
    ex.ty(&mut g.ret);
    ex.stmts(&mut g.body);
    for (_, args) in &mut g.inits {
        ex.exprs(args);
    }
    Ok(g)
}

/// The name of element `i` of pack `name`.
fn element(name: &str, i: usize) -> String {
    format!("{name}#{i}")
}

/// Expands the packs `packs` to `n` elements; inside a pattern, names element `at`.
#[derive(Clone, Copy)]
struct Expander<'a> {
    n: usize,
    packs: &'a [String],
    at: Option<usize>,
}

impl Expander<'_> {
    fn rename(&self, name: &mut String) {
        if let Some(i) = self.at
            && self.packs.contains(name)
        {
            *name = element(name, i);
        }
    }

    /// A list that expansions add elements to (a pattern inside a pattern is left, for the
    /// lowering to refuse).
    fn exprs(&self, list: &mut Vec<Expr>) {
        let mut out = Vec::with_capacity(list.len());
        for mut e in std::mem::take(list) {
            match e.kind {
                ExprKind::PackExpansion(pattern) if self.at.is_none() => {
                    for i in 0..self.n {
                        let mut p = (*pattern).clone();
                        Expander {
                            at: Some(i),
                            ..*self
                        }
                        .expr(&mut p);
                        out.push(p);
                    }
                }
                _ => {
                    self.expr(&mut e);
                    out.push(e);
                }
            }
        }
        *list = out;
    }

    fn targs(&self, list: &mut Vec<TemplateArg>) {
        let mut out = Vec::with_capacity(list.len());
        for a in std::mem::take(list) {
            match a {
                TemplateArg::Type(TypeExpr::Expansion(pattern)) if self.at.is_none() => {
                    for i in 0..self.n {
                        let mut p = (*pattern).clone();
                        Expander {
                            at: Some(i),
                            ..*self
                        }
                        .ty(&mut p);
                        out.push(TemplateArg::Type(p));
                    }
                }
                TemplateArg::Expr(e) => {
                    let mut one = vec![e];
                    self.exprs(&mut one);
                    out.extend(one.into_iter().map(TemplateArg::Expr));
                }
                TemplateArg::Type(mut t) => {
                    self.ty(&mut t);
                    out.push(TemplateArg::Type(t));
                }
            }
        }
        *list = out;
    }

    fn ty(&self, t: &mut TypeExpr) {
        match t {
            TypeExpr::Name(n) => self.rename(n),
            TypeExpr::Template(_, args) => self.targs(args),
            TypeExpr::Pointer(inner) | TypeExpr::Ref(inner) | TypeExpr::Expansion(inner) => {
                self.ty(inner)
            }
            TypeExpr::Array(inner, size) => {
                self.ty(inner);
                if let Some(size) = size {
                    self.expr(size);
                }
            }
            TypeExpr::Typeof(e) => self.expr(e),
            TypeExpr::Auto | TypeExpr::Struct(_) => {}
        }
    }

    fn expr(&self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Ident(n) => self.rename(n),
            ExprKind::SizeofPack(n) if self.packs.contains(n) => {
                e.kind = ExprKind::Int(crate::cuda::front::preprocess::IntLiteral {
                    unsigned: true,
                    longs: 1,
                    ..crate::cuda::front::preprocess::IntLiteral::int(self.n as u64)
                });
            }
            ExprKind::Unary(_, x)
            | ExprKind::IncDec(_, _, x)
            | ExprKind::Member(x, _, _)
            | ExprKind::SizeofExpr(x)
            | ExprKind::PackExpansion(x) => self.expr(x),
            ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Comma(a, b)
            | ExprKind::Index(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Cond(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Call(f, targs, args) => {
                self.expr(f);
                self.targs(targs);
                self.exprs(args);
            }
            ExprKind::Cast(t, x) => {
                self.ty(t);
                self.expr(x);
            }
            ExprKind::SizeofType(t) | ExprKind::Alignof(t) => self.ty(t),
            ExprKind::InitList(items) => self.exprs(items),
            ExprKind::StmtExpr(stmts) => self.stmts(stmts),
            ExprKind::Lambda(f, captures) => {
                for p in &mut f.params {
                    self.ty(&mut p.ty);
                }
                self.ty(&mut f.ret);
                self.stmts(&mut f.body);
                for (_, init) in &mut captures.named {
                    if let Some(init) = init {
                        self.expr(init);
                    }
                }
            }
            ExprKind::Int(_)
            | ExprKind::Float(..)
            | ExprKind::Char(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Null
            | ExprKind::This
            | ExprKind::SizeofPack(_)
            | ExprKind::Unsupported(..) => {}
        }
    }

    fn stmts(&self, stmts: &mut [Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Decl(decls) => {
                for d in decls {
                    self.ty(&mut d.ty);
                    if let Some(init) = &mut d.init {
                        self.expr(init);
                    }
                }
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::Block(b) => self.stmts(b),
            StmtKind::If(c, a, b) => {
                self.expr(c);
                self.stmt(a);
                if let Some(b) = b {
                    self.stmt(b);
                }
            }
            StmtKind::For(init, c, step, body) => {
                if let Some(init) = init {
                    self.stmt(init);
                }
                if let Some(c) = c {
                    self.expr(c);
                }
                if let Some(step) = step {
                    self.expr(step);
                }
                self.stmt(body);
            }
            StmtKind::While(c, body) | StmtKind::DoWhile(body, c) => {
                self.expr(c);
                self.stmt(body);
            }
            StmtKind::Switch(c, b) => {
                self.expr(c);
                self.stmts(b);
            }
            StmtKind::Case(v, b) => {
                if let Some(v) = v {
                    self.expr(v);
                }
                self.stmts(b);
            }
            StmtKind::Typedef(_, t) => self.ty(t),
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Empty
            | StmtKind::Unsupported(..) => {}
        }
    }
}
