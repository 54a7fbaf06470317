//! Class scopes: the names a struct declares for its members — member typedefs and `using`
//! aliases, nested structs and member templates, enumerators and static data members — found
//! from inside the struct (its layout, its member functions, the structs nested in it) and
//! through it from outside (`typename Load<float, 4>::Storage`, `T::Word`), in its base
//! classes too; partial specializations of struct templates; alias templates.
//!
//! A nested struct of a struct template is instantiated per instance of the enclosing one
//! (`Outer<float>::Inner`) and sees its template arguments, as C++ has it.

use super::types::Ty;
use super::{Lowerer, Place, R, TArg};
use crate::cuda::front::ast::{self, ExprKind, TemplateArg, TemplateParam, TypeExpr};
use crate::cuda::ir::Site;
use std::collections::HashMap;

/// A struct instance as a scope: its definition, its name (`Outer<float>::Inner`) and its
/// template arguments (an enclosing struct's too) and static members, with its index once it
/// is laid out (not while its own layout is computed).
#[derive(Clone, Debug)]
pub struct Class {
    /// The definition (index into the unit's structs).
    pub def: usize,
    /// The instance's name.
    pub name: String,
    /// Its template arguments and static members.
    pub tenv: Vec<(String, TArg)>,
    /// Its layout's index.
    pub instance: Option<usize>,
}

/// `scope` and `member` of `scope::member`, split at the last `::` outside template
/// arguments (`Box<ns::T>::value` is `Box<ns::T>` and `value`).
pub fn split_scope(n: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let bytes = n.as_bytes();
    let mut at = None;
    for k in 0..bytes.len() {
        match bytes[k] {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b':' if depth == 0 && k > 0 && bytes[k - 1] == b':' => at = Some(k - 1),
            _ => {}
        }
    }
    at.filter(|&k| k > 0).map(|k| (&n[..k], &n[k + 2..]))
}

impl<'m> Lowerer<'m> {
    /// Struct instance `i` as a scope (`None` for a struct warpsim made, which has no
    /// definition).
    pub fn class_of(&self, i: usize) -> Option<Class> {
        let l = &self.structs.list[i];
        Some(Class {
            def: l.def?,
            name: l.name.clone(),
            tenv: l.tenv.clone(),
            instance: Some(i),
        })
    }

    /// The class a nested struct's class is declared in: its name is the nested one's scope,
    /// its template arguments among the nested one's.
    fn enclosing(&self, c: &Class) -> Option<Class> {
        let owner = self.m.ast.structs[c.def].owner?;
        let (name, _) = split_scope(&c.name)?;
        let instance = self.structs.find(name);
        Some(Class {
            def: owner,
            name: name.to_string(),
            tenv: instance.map_or_else(|| c.tenv.clone(), |i| self.structs.list[i].tenv.clone()),
            instance,
        })
    }

    /// The class whose members the code being lowered sees by name.
    pub(super) fn current_class(&self) -> Option<Class> {
        self.frames.last().and_then(|f| f.class.clone())
    }

    /// Run `f` in the scope of class `c` (or at file scope): its template arguments and
    /// members by name, its own name for the instance.
    pub fn in_class<T>(&mut self, c: Option<&Class>, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let c = c.cloned();
        self.file_scope(|l| {
            if let Some(c) = c {
                let short = l.m.ast.structs[c.def].name.clone();
                let frame = l.frames.last_mut().expect("pushed by file_scope");
                frame.tenv.extend(c.tenv.iter().cloned());
                if let Some(i) = c.instance {
                    frame.tenv.insert(short, TArg::Type(Ty::Struct(i)));
                }
                frame.class = Some(c);
            }
            f(l)
        })
    }

    /// The type a bare name names as a member of the class being lowered or of one enclosing
    /// it (`None` where none declares it).
    pub fn scope_type(&mut self, name: &str, site: Site) -> R<Option<Ty>> {
        let mut c = self.current_class();
        while let Some(cl) = c {
            if let Some(t) = self.member_type(&cl, name, site)? {
                return Ok(Some(t));
            }
            c = self.enclosing(&cl);
        }
        Ok(None)
    }

    /// Whether a name names a member type: bare, of the class being lowered, of one enclosing
    /// it or of their base classes; qualified, of the struct its scope names (`S<int>::Word`,
    /// `T::Word`). Bases are seen as written (not through a typedef).
    pub fn scope_declares_type(&self, name: &str) -> bool {
        if let Some((scope, member)) = split_scope(name) {
            let base = super::split_template_name(scope).0;
            if let Some(TArg::Type(Ty::Struct(i))) = self.targ(base) {
                return self.structs.list[*i]
                    .def
                    .is_some_and(|d| self.declares_type(d, member, 0));
            }
            return self
                .m
                .ast
                .structs
                .iter()
                .enumerate()
                .any(|(d, s)| s.name == base && self.declares_type(d, member, 0));
        }
        let mut c = self.current_class();
        while let Some(cl) = c {
            if self.declares_type(cl.def, name, 0) {
                return true;
            }
            c = self.enclosing(&cl);
        }
        false
    }

    fn declares_type(&self, def: usize, name: &str, depth: u32) -> bool {
        let structs = &self.m.ast.structs;
        let d = &structs[def];
        depth < 16
            && (d.typedefs.iter().any(|(n, _)| n == name)
                || structs
                    .iter()
                    .any(|s| s.owner == Some(def) && s.name == name)
                || d.bases.iter().any(|b| {
                    let (TypeExpr::Name(n) | TypeExpr::Template(n, _)) = b else {
                        return false;
                    };
                    structs
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.name == *n && s.owner.is_none())
                        .any(|(k, _)| self.declares_type(k, name, depth + 1))
                }))
    }

    /// Member type `name` of class `c`: a member typedef, a nested struct (not a template),
    /// or one of a base class; `None` where it has none.
    pub fn member_type(&mut self, c: &Class, name: &str, site: Site) -> R<Option<Ty>> {
        let m = self.m;
        let d = &m.ast.structs[c.def];
        if let Some((_, t)) = d.typedefs.iter().rev().find(|(n, _)| n == name) {
            if self.typedef_depth > 64 {
                return Err(self.err(
                    site,
                    format!("the member type `{name}` names itself through other types"),
                    None,
                ));
            }
            self.typedef_depth += 1;
            let r = self.in_class(Some(c), |l| l.ty(t, site));
            self.typedef_depth -= 1;
            return r.map(Some);
        }
        if m.ast
            .structs
            .iter()
            .any(|s| s.owner == Some(c.def) && s.name == name && s.template.is_empty())
        {
            return self.instance_in(Some(c), name, &[], site);
        }
        for b in self.base_types(c, site)? {
            if let Some(bc) = self.class_of(b)
                && let Some(t) = self.member_type(&bc, name, site)?
            {
                return Ok(Some(t));
            }
        }
        Ok(None)
    }

    /// The struct instances class `c` derives from, in order (none while they are being
    /// resolved: the names in a base class's name are not its members).
    pub fn base_types(&mut self, c: &Class, site: Site) -> R<Vec<usize>> {
        if let Some(i) = c.instance {
            return Ok(self.structs.list[i].bases.clone());
        }
        if self.resolving_bases.contains(&c.name) {
            return Ok(Vec::new());
        }
        let bases = self.m.ast.structs[c.def].bases.clone();
        let mut out = Vec::new();
        self.resolving_bases.push(c.name.clone());
        let resolved: R<Vec<Ty>> = bases
            .iter()
            .map(|b| self.in_class(Some(c), |l| l.ty(b, site)))
            .collect();
        self.resolving_bases.pop();
        for t in resolved? {
            match t {
                Ty::Struct(i) => out.push(i),
                t => {
                    return Err(self.err(
                        site,
                        format!(
                            "`{}` is not a struct, so it cannot be a base class",
                            t.show(&self.structs)
                        ),
                        None,
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The type a qualified name names as a member of a struct (`Load<float>::Storage`,
    /// `T::Word`, `S::Kind`): `None` where its scope is no struct or has no such member type.
    pub fn qualified_type(&mut self, n: &str, site: Site) -> R<Option<Ty>> {
        let Some((scope, member)) = split_scope(n) else {
            return Ok(None);
        };
        let Some(Ty::Struct(i)) = self.struct_named_text(scope, site)? else {
            return Ok(None);
        };
        let Some(c) = self.class_of(i) else {
            return Ok(None);
        };
        self.member_type(&c, member, site)
    }

    /// The instance of struct template `n` with `args` as a member template of the class
    /// being lowered or one enclosing it (`IsMultiple<int>` inside `Word<T>`), of the struct
    /// a qualified name's scope names (`Outer<T>::Rebind<int>`), or at file scope.
    pub fn struct_instance(&mut self, n: &str, args: &[TemplateArg], site: Site) -> R<Option<Ty>> {
        if let Some((scope, member)) = split_scope(n)
            && let Some(Ty::Struct(i)) = self.struct_named_text(scope, site)?
            && let Some(c) = self.class_of(i)
        {
            return self.instance_in(Some(&c), member, args, site);
        }
        let mut c = self.current_class();
        while let Some(cl) = c {
            if self
                .m
                .ast
                .structs
                .iter()
                .any(|s| s.owner == Some(cl.def) && s.name == n)
            {
                return self.instance_in(Some(&cl), n, args, site);
            }
            c = self.enclosing(&cl);
        }
        self.instance_in(None, n, args, site)
    }

    /// The instance of the struct (template) `n` declared in class `owner` (`None`: at file
    /// scope) with `args`: an explicit specialization for them, else the one partial
    /// specialization that matches them, else the primary template; `None` when `owner`
    /// declares no struct `n`.
    pub fn instance_in(
        &mut self,
        owner: Option<&Class>,
        n: &str,
        args: &[TemplateArg],
        site: Site,
    ) -> R<Option<Ty>> {
        let m = self.m;
        let owner_def = owner.map(|c| c.def);
        let defs: Vec<usize> = (0..m.ast.structs.len())
            .filter(|&d| m.ast.structs[d].name == n && m.ast.structs[d].owner == owner_def)
            .collect();
        if defs.is_empty() {
            return Ok(None);
        }
        let prefix = owner.map_or(String::new(), |c| format!("{}::", c.name));
        let env: Vec<(String, TArg)> = owner.map_or(Vec::new(), |c| c.tenv.clone());
        let primaries = || {
            defs.iter()
                .copied()
                .filter(|&d| m.ast.structs[d].specialization.is_empty())
        };
        // A definition over a declaration.
        let primary = primaries()
            .rfind(|&d| m.ast.structs[d].defined)
            .or_else(|| primaries().next_back());
        if let Some(p) = primary
            && m.ast.structs[p].template.is_empty()
        {
            if !args.is_empty() {
                return Err(self.err(
                    site,
                    format!("`{n}` is not a template: it takes no template arguments"),
                    None,
                ));
            }
            let name = format!("{prefix}{n}");
            if let Some(i) = self.structs.find(&name) {
                return Ok(Some(Ty::Struct(i)));
            }
            return self.lay_out(p, env, name).map(|i| Some(Ty::Struct(i)));
        }
        // The primary template's parameters, with the defaults of those `args` leave out, and
        // the instance's name: what a specialization is matched against.
        let full = match primary {
            Some(def) => {
                Some(self.template_args(&format!("{prefix}{n}"), def, args, &env, site)?)
            }
            None => None,
        };
        let explicit: Vec<usize> = defs
            .iter()
            .copied()
            .filter(|&d| {
                let s = &m.ast.structs[d];
                !s.specialization.is_empty() && s.template.is_empty()
            })
            .collect();
        for d in explicit {
            let spec = m.ast.structs[d].specialization.clone();
            let name = match (primary, &full) {
                (Some(def), Some((tenv, name))) => {
                    let theirs = self.in_class(owner, |l| {
                        l.template_args(n, def, &spec, &env, site).map(|a| a.0)
                    })?;
                    (theirs == *tenv).then(|| name.clone())
                }
                _ => match self.same_targs(&spec, args, site)? {
                    true => Some(format!("{prefix}{}", self.instance_name(n, args, site)?)),
                    false => None,
                },
            };
            if let Some(name) = name {
                if let Some(i) = self.structs.find(&name) {
                    return Ok(Some(Ty::Struct(i)));
                }
                return self.lay_out(d, env, name).map(|i| Some(Ty::Struct(i)));
            }
        }
        let Some((tenv, name)) = full else {
            return Ok(None);
        };
        if let Some(i) = self.structs.find(&name) {
            return Ok(Some(Ty::Struct(i)));
        }
        let given: Vec<TArg> = tenv[env.len()..].iter().map(|(_, v)| v.clone()).collect();
        let mut matched = Vec::new();
        for d in defs.iter().copied().filter(|&d| {
            let s = &m.ast.structs[d];
            !s.specialization.is_empty() && !s.template.is_empty()
        }) {
            if let Some(bound) = self.match_partial(d, owner, &given, site)? {
                matched.push((d, bound));
            }
        }
        // A partial specialization for `const T` or `volatile T` (warpsim's types carry no
        // cv-qualifiers) matches what the primary template does: where it only derives from
        // the primary's instance for `T` (`template <typename T> struct A<const T> : A<T> {}`)
        // it means the same; else which one C++ takes is unknown here.
        let mut cv = None;
        matched.retain(|(d, _)| {
            let s = &m.ast.structs[*d];
            let Some(at) = s.cv_pattern else {
                return true;
            };
            let forwards = s.fields.is_empty()
                && s.methods.is_empty()
                && s.typedefs.is_empty()
                && s.statics.is_empty()
                && s.bases == [TypeExpr::Template(n.to_string(), s.specialization.clone())];
            if !forwards {
                cv.get_or_insert(at);
            }
            false
        });
        if let Some(at) = cv {
            return Err(self.unsupported(
                at,
                &format!("a partial specialization of `{n}` for a `const` or `volatile` type (warpsim's types do not carry them)"),
                Some("specialize for the unqualified type"),
            ));
        }
        if matched.len() > 1 {
            return Err(self.unsupported(
                site,
                &format!("choosing between the {} partial specializations of `{n}` that match `{name}` (the most specialized one)", matched.len()),
                Some("make the partial specializations match disjoint arguments"),
            ));
        }
        if let Some((d, bound)) = matched.pop() {
            let mut tenv = env;
            tenv.extend(bound);
            return self.lay_out(d, tenv, name).map(|i| Some(Ty::Struct(i)));
        }
        let def = primary.expect("`full` is computed from it");
        if !m.ast.structs[def].defined {
            return Err(self.err(
                site,
                format!("`{name}` is declared but not defined: no specialization matches it"),
                None,
            ));
        }
        self.lay_out(def, tenv, name).map(|i| Some(Ty::Struct(i)))
    }

    /// The arguments for which partial specialization `d` is the instance of the primary
    /// template's arguments `given` (its parameters bound: `D` of `Impl<Kind::Direct, D>`
    /// for `Impl<Kind::Direct, 0>`), or `None` when it does not match them.
    fn match_partial(
        &mut self,
        d: usize,
        owner: Option<&Class>,
        given: &[TArg],
        site: Site,
    ) -> R<Option<Vec<(String, TArg)>>> {
        let s = &self.m.ast.structs[d];
        let (params, patterns) = (s.template.clone(), s.specialization.clone());
        if patterns.len() != given.len() {
            return Ok(None);
        }
        let param_named = |n: &str| params.iter().any(|p| p.name() == n);
        let mut bound: HashMap<String, TArg> = HashMap::new();
        let bind = |bound: &mut HashMap<String, TArg>, n: &str, v: TArg| match bound.get(n) {
            Some(old) => *old == v,
            None => {
                bound.insert(n.to_string(), v);
                true
            }
        };
        // A parameter alone binds to the argument; a type made of parameters (`T *`,
        // `Pair<T, U>`) is deduced part by part, as a call's argument is.
        for (pat, g) in patterns.iter().zip(given) {
            let alone = match pat {
                TemplateArg::Type(TypeExpr::Name(p)) if param_named(p) => Some(p),
                TemplateArg::Expr(ast::Expr {
                    kind: ExprKind::Ident(p),
                    ..
                }) if param_named(p) => Some(p),
                _ => None,
            };
            if let Some(p) = alone {
                if !bind(&mut bound, p, g.clone()) {
                    return Ok(None);
                }
                continue;
            }
            if let (TemplateArg::Type(t), TArg::Type(gt)) = (pat, g) {
                for p in &params {
                    if let TemplateParam::Type(..) | TemplateParam::Value(..) = p
                        && let Some(v) = super::deduce(t, gt, p.name(), &self.structs)
                        && !bind(&mut bound, p.name(), v)
                    {
                        return Ok(None);
                    }
                }
            }
        }
        if params.iter().any(|p| !bound.contains_key(p.name())) {
            return Ok(None);
        }
        // The pattern with its parameters bound must be the arguments.
        let env: Vec<(String, TArg)> = bound.clone().into_iter().collect();
        for (pat, g) in patterns.iter().zip(given) {
            let same = self.in_class(owner, |l| {
                l.frames
                    .last_mut()
                    .expect("pushed by file_scope")
                    .tenv
                    .extend(env.iter().cloned());
                Ok(match (pat, g) {
                    (TemplateArg::Type(TypeExpr::Name(n)), TArg::Value(c))
                    | (
                        TemplateArg::Expr(ast::Expr {
                            kind: ExprKind::Ident(n),
                            ..
                        }),
                        TArg::Value(c),
                    ) => {
                        let e = ast::Expr {
                            kind: ExprKind::Ident(n.clone()),
                            site,
                            span: (0, 0),
                        };
                        l.const_int(&e).ok() == Some(super::consts::as_int(*c))
                    }
                    (TemplateArg::Expr(e), TArg::Value(c)) => {
                        l.const_int(e).ok() == Some(super::consts::as_int(*c))
                    }
                    (TemplateArg::Type(t), TArg::Type(gt)) => {
                        l.ty(t, site).ok().as_ref() == Some(gt)
                    }
                    _ => false,
                })
            })?;
            if !same {
                return Ok(None);
            }
        }
        // In the parameters' order.
        Ok(Some(
            params
                .iter()
                .map(|p| (p.name().to_string(), bound[p.name()].clone()))
                .collect(),
        ))
    }

    /// The type alias template `n<args>` names (`Select<c, A, B>` of `template <bool C, class
    /// A, class B> using Select = ...`), `None` where `n` is no alias template.
    pub fn alias_instance(&mut self, n: &str, args: &[TemplateArg], site: Site) -> R<Option<Ty>> {
        let m = self.m;
        let Some((_, params, t)) = m.ast.alias_templates.iter().rev().find(|(a, ..)| a == n) else {
            return Ok(None);
        };
        if args.len() > params.len() {
            return Err(self.err(
                site,
                format!(
                    "`{n}` takes {} template argument(s), {} given",
                    params.len(),
                    args.len()
                ),
                None,
            ));
        }
        let mut env = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let v = match (args.get(k), p.default()) {
                (Some(a), _) => self.targ_value(p, a, site)?,
                (None, Some(d)) => self.default_targ(p, &d, env.clone(), site)?,
                (None, None) => {
                    return Err(self.err(
                        site,
                        format!("`{n}` needs a template argument for `{}`", p.name()),
                        None,
                    ));
                }
            };
            env.push((p.name().to_string(), v));
        }
        self.file_scope(|l| {
            l.frames
                .last_mut()
                .expect("pushed by file_scope")
                .tenv
                .extend(env);
            l.ty(t, site)
        })
        .map(Some)
    }

    /// Where a call of member function `name` on a struct `i` finds it: `i` itself (an empty
    /// chain), else the first base class that has it (searched depth first, as C++ does where
    /// the name is not ambiguous), as the chain of base classes down to it; `None` where none
    /// has it.
    pub fn method_class(&self, i: usize, name: &str) -> Option<Vec<usize>> {
        if !self.methods(i, name).is_empty() {
            return Some(Vec::new());
        }
        self.structs.list[i].bases.iter().find_map(|&b| {
            let mut chain = self.method_class(b, name)?;
            chain.insert(0, b);
            Some(chain)
        })
    }

    /// The base subobject at the end of the chain of base classes `chain` of the object at
    /// `p` (an empty base, which has no storage, as a temporary).
    pub fn base_place(&mut self, p: Place, chain: &[usize], site: Site) -> R<Place> {
        let mut p = p;
        for &b in chain {
            p = if self.structs.list[b].fields.is_empty() {
                let zero = self.zero(&Ty::Struct(b), site)?;
                self.temp_place(zero, site)
            } else {
                let name = self.structs.list[b].name.clone();
                self.member_place(p, &name, site)?
            };
        }
        Ok(p)
    }
}
