//! Structs beyond their fields: layouts of struct templates (`SharedMemory<float>`), member
//! functions, constructors, conversion operators (`operator T *()`) and overloaded operators
//! (`operator+` as a member or a free function, as `helper_math.h` defines them for `float3`).
//!
//! A member function is inlined like any `__device__` function, with its object as `this`: the
//! object's fields are bound by name in the callee's scope (its parameters shadow them), so a
//! method reads and writes the fields of a value in registers or of a struct in memory alike.

use super::types::Ty;
use super::{ArgIn, Lowerer, Place, R, TArg, Val};
use crate::cuda::front::ast::{Function, TemplateArg, TypeExpr};
use crate::cuda::ir::{Operand, Site};

impl<'m> Lowerer<'m> {
    /// The (non-template) struct called `n` at file scope, laid out at first use.
    pub fn struct_ty(&mut self, n: &str, site: Site) -> R<Ty> {
        if crate::cuda::front::ast::is_anonymous(n) {
            return self.anonymous_ty(n, site);
        }
        if let Some(i) = self.structs.find(n) {
            return Ok(Ty::Struct(i));
        }
        let Some(def) = self
            .m
            .ast
            .structs
            .iter()
            .rposition(|s| s.name == n && s.specialization.is_empty() && s.owner.is_none())
        else {
            return Err(self.unknown(site, "type", n));
        };
        if !self.m.ast.structs[def].template.is_empty() {
            return Err(self.err(
                site,
                format!("`{n}` is a struct template: give its template arguments (`{n}<float>`)"),
                None,
            ));
        }
        self.lay_out(def, Vec::new(), n.to_string()).map(Ty::Struct)
    }

    /// The anonymous struct or union called `n`, laid out at first use with the template
    /// arguments where it is written (a member of a struct template, a local of a function
    /// template may name them): one layout for each set of them.
    fn anonymous_ty(&mut self, n: &str, site: Site) -> R<Ty> {
        let mut tenv: Vec<(String, TArg)> = self
            .frames
            .last()
            .map(|f| f.tenv.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        tenv.sort_by(|a, b| a.0.cmp(&b.0));
        let name = if tenv.is_empty() {
            n.to_string()
        } else {
            let shown: Vec<String> = tenv
                .iter()
                .map(|(k, v)| match v {
                    TArg::Type(t) => format!("{k} = {}", t.show(&self.structs)),
                    TArg::Value(c) => format!("{k} = {}", super::consts::as_int(*c)),
                })
                .collect();
            format!("{n} [{}]", shown.join(", "))
        };
        if let Some(i) = self.structs.find(&name) {
            return Ok(Ty::Struct(i));
        }
        let Some(def) = self.m.ast.structs.iter().position(|s| s.name == n) else {
            return Err(self.unknown(site, "type", n));
        };
        self.lay_out(def, tenv, name).map(Ty::Struct)
    }

    /// The arguments of struct template definition `def` (named `n`) given `args`, the
    /// parameters `args` leave out taking their defaults, and the instance's name
    /// (`Box<int, 3, 0>`): after `env`, the arguments of the struct it is declared in.
    pub(super) fn template_args(
        &mut self,
        n: &str,
        def: usize,
        args: &[TemplateArg],
        env: &[(String, TArg)],
        site: Site,
    ) -> R<(Vec<(String, TArg)>, String)> {
        let params = self.m.ast.structs[def].template.clone();
        let least = params
            .iter()
            .rposition(|p| p.default().is_none())
            .map_or(0, |k| k + 1);
        if args.len() < least || args.len() > params.len() {
            let takes = if least == params.len() {
                least.to_string()
            } else {
                format!("{least} to {}", params.len())
            };
            return Err(self.err(
                site,
                format!(
                    "`{n}` takes {takes} template argument(s), {} given",
                    args.len()
                ),
                None,
            ));
        }
        let mut tenv = env.to_vec();
        let mut shown = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let v = match (args.get(k), p.default()) {
                (Some(a), _) => self.targ_value(p, a, site)?,
                (None, Some(d)) => self.default_targ(p, &d, tenv.clone(), site)?,
                (None, None) => unreachable!("counted above"),
            };
            shown.push(match &v {
                TArg::Type(t) => t.show(&self.structs),
                TArg::Value(c) => super::consts::as_int(*c).to_string(),
            });
            tenv.push((p.name().to_string(), v));
        }
        Ok((tenv, format!("{n}<{}>", shown.join(", "))))
    }

    /// `n<args>` as the instance's name (`Pick<float>`).
    pub(super) fn instance_name(&mut self, n: &str, args: &[TemplateArg], site: Site) -> R<String> {
        let mut shown = Vec::new();
        for a in args {
            shown.push(match a {
                TemplateArg::Type(t) => self.ty(t, site)?.show(&self.structs),
                TemplateArg::Expr(e) => super::consts::as_int(self.const_eval(e)?).to_string(),
            });
        }
        Ok(format!("{n}<{}>", shown.join(", ")))
    }

    /// Lay out struct definition `def` with template arguments `tenv`, called `name`: its base
    /// classes' subobjects first, then its fields.
    pub(super) fn lay_out(
        &mut self,
        def: usize,
        tenv: Vec<(String, TArg)>,
        name: String,
    ) -> R<usize> {
        let d = self.m.ast.structs[def].clone();
        // Its fields would be whole integers: refuse rather than keep 9 in a 3-bit field.
        if let Some(at) = d.bitfield {
            return Err(self.unsupported(
                at,
                &format!("the bit-field in `{name}`"),
                Some("use whole integer fields, or pack the bits into one with shifts and masks"),
            ));
        }
        if self.globals_in_progress.contains(&name) {
            return Err(self.err(d.site, format!("struct `{name}` contains itself"), None));
        }
        self.globals_in_progress.push(name.clone());
        let class = super::classes::Class {
            def,
            name: name.clone(),
            tenv: tenv.clone(),
            instance: None,
        };
        let laid = self.in_class(Some(&class), |l| {
            // Base classes first: their static members are the struct's too (its own hide
            // them).
            let bases = l.base_types(&class, d.site)?;
            for &b in &bases {
                for (k, v) in l.statics_of(b) {
                    let frame = l.frames.last_mut().expect("pushed by file_scope");
                    frame.tenv.insert(k.clone(), v.clone());
                    if let Some(class) = &mut frame.class {
                        class.tenv.push((k, v));
                    }
                }
            }
            // Static data members next: fields' array bounds may name them. One whose value
            // is not a scalar constant is left out (its uses are then unknown names).
            let mut statics = Vec::new();
            for s in &d.statics {
                let value = match (l.ty(&s.ty, s.site), &s.init) {
                    (Ok(Ty::Scalar(t)), Some(init)) => l
                        .const_eval(init)
                        .ok()
                        .map(|c| super::consts::convert(c, t)),
                    // An array or struct (`static constexpr int w[2] = {N, 2 * N};`): a
                    // constant of the instance, read as file-scope ones are.
                    (Ok(t), Some(init)) => {
                        if let Ok(Some(c)) = l.constant_bytes(&s.name, t, init) {
                            l.host_constants.insert(format!("{name}::{}", s.name), c);
                        }
                        None
                    }
                    _ => None,
                };
                if let Some(c) = value {
                    let frame = l.frames.last_mut().expect("pushed by file_scope");
                    frame.tenv.insert(s.name.clone(), TArg::Value(c));
                    if let Some(class) = &mut frame.class {
                        class.tenv.push((s.name.clone(), TArg::Value(c)));
                    }
                    statics.push((s.name.clone(), TArg::Value(c)));
                }
            }
            // Base subobjects, named by their struct; an empty base takes no room (C++'s empty
            // base optimization).
            let mut fields = Vec::new();
            for &b in &bases {
                if !l.structs.list[b].fields.is_empty() {
                    fields.push((l.structs.list[b].name.clone(), Ty::Struct(b)));
                }
            }
            for (fname, fty) in &d.fields {
                let t = match fty {
                    // A pointer field to a struct being laid out: only its size matters.
                    TypeExpr::Pointer(_) if l.names_struct_in_progress(fty) => {
                        Ty::Pointer(Box::new(Ty::Void))
                    }
                    // A reference member is the address of what it is bound to, as C++ keeps
                    // it: 8 bytes in the object, dereferenced wherever it is named.
                    TypeExpr::Ref(inner) => Ty::Pointer(Box::new(l.ty(inner, d.site)?)),
                    _ => l.ty(fty, d.site)?,
                };
                fields.push((fname.clone(), t));
            }
            let align = match &d.align {
                Some(e) => {
                    let a = l.const_int(e)?;
                    if !(1..=4096).contains(&a) || (a as u64).count_ones() != 1 {
                        return Err(l.err(
                            e.site,
                            format!("alignment {a} is not a power of two up to 4096"),
                            None,
                        ));
                    }
                    Some(a as u32)
                }
                None => None,
            };
            Ok((fields, bases, align, statics))
        });
        self.globals_in_progress.pop();
        let (fields, bases, align, statics) = laid?;
        if d.union {
            self.check_union_members(&d, &name, &fields)?;
        }
        // Member functions see the statics as they see the template's arguments.
        let mut tenv = tenv;
        for &b in &bases {
            tenv.extend(self.statics_of(b));
        }
        tenv.extend(statics);
        let i = self
            .structs
            .add(&name, fields, align, Some(def), tenv, d.union);
        self.structs.list[i].bases = bases;
        self.structs.list[i].refs = d
            .fields
            .iter()
            .filter(|(_, t)| matches!(t, TypeExpr::Ref(_)))
            .map(|(n, _)| n.clone())
            .collect();
        Ok(i)
    }

    /// Refuse a union member whose bytes the union's words cannot hold: a pointer (pointers
    /// are the buffers they point into, not bytes), a `bool`, a member with a constructor or a
    /// default member initializer (which of them runs would have to be tracked).
    fn check_union_members(
        &self,
        d: &crate::cuda::front::ast::StructDef,
        name: &str,
        fields: &[(String, Ty)],
    ) -> R<()> {
        if let Some((f, _)) = d.defaults.first() {
            return Err(self.unsupported(
                d.site,
                &format!("a default member initializer (`{f}`) in the union `{name}`"),
                Some("initialize the union where it is declared (`U u = {x};`)"),
            ));
        }
        for (f, t) in fields {
            let mut inner = t;
            while let Ty::Array(e, _) = inner {
                inner = e;
            }
            let why = if matches!(inner, Ty::Pointer(_))
                || !inner.pointer_fields(&self.structs).is_empty()
            {
                "is or holds a pointer"
            } else if matches!(inner, Ty::Struct(_)) && self.has_ctor(inner) {
                "has a constructor"
            } else if matches!(inner, Ty::Group(_) | Ty::Closure(_) | Ty::Texture) {
                "has no bytes"
            } else if t
                .leaves(&self.structs)
                .iter()
                .any(|(_, s)| *s == crate::cuda::ir::Scalar::Bool)
            {
                // A bool is a value, not a byte, in the words: other members' bytes would
                // have to be read as one.
                "is or holds a `bool`"
            } else {
                continue;
            };
            return Err(self.unsupported(
                d.site,
                &format!("the member `{f}` of the union `{name}`, which {why}"),
                Some("keep pointers, `bool`s and objects with constructors out of unions; a union of integers and floating-point values (and structs and arrays of them) works"),
            ));
        }
        Ok(())
    }

    /// `S::name` for a static data member `name` of struct (or instance, typedef) `S`.
    pub fn static_member(&mut self, scope: &str, name: &str, site: Site) -> R<Option<Val>> {
        let Some(Ty::Struct(i)) = self.struct_named_text(scope, site)? else {
            return Ok(None);
        };
        Ok(self.static_value(i, name))
    }

    /// The value of struct `i`'s static data member `name` (its enumerators among them, and
    /// its base classes'), if it has one.
    pub fn static_value(&self, i: usize, name: &str) -> Option<Val> {
        self.statics_of(i)
            .into_iter()
            .rev()
            .find_map(|(k, v)| match v {
                TArg::Value(c) if k == name => Some(Val::Scalar(Operand::Const(c), c.ty)),
                _ => None,
            })
    }

    /// The static data members of struct `i` with a value, its base classes' first.
    pub(super) fn statics_of(&self, i: usize) -> Vec<(String, TArg)> {
        let l = &self.structs.list[i];
        let Some(def) = l.def else {
            return Vec::new();
        };
        let mut out: Vec<(String, TArg)> =
            l.bases.iter().flat_map(|&b| self.statics_of(b)).collect();
        let own = &self.m.ast.structs[def].statics;
        out.extend(
            l.tenv
                .iter()
                .filter(|(k, _)| own.iter().any(|s| s.name == *k))
                .cloned(),
        );
        out
    }

    /// Whether a pointer type points at a struct whose layout is being computed.
    fn names_struct_in_progress(&self, t: &TypeExpr) -> bool {
        match t {
            TypeExpr::Pointer(inner) => self.names_struct_in_progress(inner),
            TypeExpr::Name(n) | TypeExpr::Struct(n) | TypeExpr::Template(n, _) => self
                .globals_in_progress
                .iter()
                .any(|g| g == n || g.starts_with(&format!("{n}<"))),
            _ => false,
        }
    }

    /// The member functions of struct `i` called `name`: in its definition, or defined outside
    /// it as `S::name`.
    pub fn methods(&self, i: usize, name: &str) -> Vec<&'m Function> {
        let Some(def) = self.structs.list[i].def else {
            return Vec::new();
        };
        let m = self.m;
        let d = &m.ast.structs[def];
        // An explicit specialization for this instance (`template <> int I<int>::get()`)
        // replaces the template's member.
        let instance = Ty::Struct(i).show(&self.structs).replace(' ', "");
        let special = format!("{instance}::{name}");
        let specialized: Vec<&Function> = m
            .ast
            .functions
            .iter()
            .filter(|f| f.name == special)
            .collect();
        if !specialized.is_empty() {
            return specialized;
        }
        let outside = format!("{}::{name}", d.name);
        d.methods
            .iter()
            .filter(|f| f.name == name)
            .chain(m.ast.functions.iter().filter(|f| f.name == outside))
            .collect()
    }

    /// The struct (template instance, typedef) a callee names, if any: `S`, `S<float>`.
    pub fn struct_named(&mut self, name: &str, targs: &[TemplateArg], site: Site) -> R<Option<Ty>> {
        if !targs.is_empty() {
            return self.struct_instance(name, targs, site);
        }
        if let Some(TArg::Type(t @ Ty::Struct(_))) = self.targ(name) {
            return Ok(Some(t.clone()));
        }
        let member = if name.contains("::") {
            self.qualified_type(name, site)?
        } else {
            self.scope_type(name, site)?
        };
        if let Some(t @ Ty::Struct(_)) = member {
            return Ok(Some(t));
        }
        let canon = self.canon(name);
        if self
            .m
            .ast
            .structs
            .iter()
            .any(|s| s.name == canon && s.template.is_empty() && s.owner.is_none())
        {
            return self.struct_ty(&canon, site).map(Some);
        }
        if let Some((_, t)) = self.m.ast.typedefs.iter().rev().find(|(n, _)| *n == canon) {
            let t = t.clone();
            if let Ok(ty @ Ty::Struct(_)) = self.ty(&t, site) {
                return Ok(Some(ty));
            }
        }
        Ok(None)
    }

    /// The struct a spelled name (`S`, `S<float, 4>`, `S<int *, 2>`) names, if any.
    pub fn struct_named_text(&mut self, text: &str, site: Site) -> R<Option<Ty>> {
        match super::type_of_text(text) {
            TypeExpr::Template(base, targs) => self.struct_named(&base, &targs, site),
            _ => self.struct_named(super::split_template_name(text).0, &[], site),
        }
    }

    /// `obj.name(args)`: a member function of `obj`'s struct.
    pub fn call_method(
        &mut self,
        obj: Place,
        name: &str,
        targs: &[TemplateArg],
        args: Vec<ArgIn<'_>>,
        site: Site,
    ) -> R<Val> {
        let ty = self.place_ty(&obj);
        let Ty::Struct(i) = ty else {
            return Err(self.err(
                site,
                format!(
                    "`.{name}()` needs a struct, not a `{}`",
                    ty.show(&self.structs)
                ),
                None,
            ));
        };
        // A base class's member function runs on the object's base subobject.
        let (i, obj) = match self.method_class(i, name) {
            Some(path) if !path.is_empty() => {
                let obj = self.base_place(obj, &path, site)?;
                (path[path.len() - 1], obj)
            }
            _ => (i, obj),
        };
        let cands: Vec<&Function> = self
            .methods(i, name)
            .into_iter()
            .filter(|f| f.takes(args.len()))
            .collect();
        if cands.is_empty() {
            return Err(self.err(
                site,
                format!(
                    "`{}` has no member function `{name}` taking {} argument(s)",
                    self.structs.list[i].name,
                    args.len()
                ),
                Some("only member functions marked __device__ exist in device code".into()),
            ));
        }
        // Which objects are const is not tracked: overloads told apart only by it would be
        // chosen at random.
        if cands.iter().any(|a| {
            cands.iter().any(|b| {
                a.is_const != b.is_const
                    && a.params
                        .iter()
                        .map(|p| &p.ty)
                        .eq(b.params.iter().map(|p| &p.ty))
            })
        }) {
            return Err(self.unsupported(
                site,
                &format!("calling `{name}`, which has overloads that differ only in `const`"),
                Some("give the const and non-const member functions different names"),
            ));
        }
        let f = self.overload(&cands, &args)?;
        let this = (!f.is_static).then_some(obj);
        self.inline(f, targs, args, Some((i, this)), site)
    }

    /// `S::name(args)`: a static member function.
    pub fn call_static(
        &mut self,
        ty: &Ty,
        name: &str,
        targs: &[TemplateArg],
        args: Vec<ArgIn<'_>>,
        site: Site,
    ) -> R<Option<Val>> {
        let Ty::Struct(i) = *ty else {
            return Ok(None);
        };
        let i = self
            .method_class(i, name)
            .and_then(|path| path.last().copied())
            .unwrap_or(i);
        let cands: Vec<&Function> = self
            .methods(i, name)
            .into_iter()
            .filter(|f| f.takes(args.len()))
            .collect();
        if cands.is_empty() {
            return Ok(None);
        }
        let f = self.overload(&cands, &args)?;
        let declared_static = self.structs.list[i].def.is_some_and(|d| {
            self.m.ast.structs[d]
                .static_methods
                .iter()
                .any(|m| m == name)
        });
        if !f.is_static && !declared_static {
            return Err(self.err(
                site,
                format!("`{name}` is not a static member function: call it on an object"),
                None,
            ));
        }
        self.inline(f, targs, args, Some((i, None)), site).map(Some)
    }

    /// The constructors of type `ty` (none for a type other than a struct).
    pub fn ctors(&self, ty: &Ty) -> Vec<&'m Function> {
        let Ty::Struct(i) = *ty else {
            return Vec::new();
        };
        let short = self.structs.list[i]
            .def
            .map(|d| self.m.ast.structs[d].name.clone())
            .unwrap_or_default();
        self.methods(i, &short)
    }

    /// Whether struct type `ty` has a constructor.
    pub fn has_ctor(&self, ty: &Ty) -> bool {
        !self.ctors(ty).is_empty()
    }

    /// Whether struct type `ty` has a constructor that takes no arguments.
    pub fn has_default_ctor(&self, ty: &Ty) -> bool {
        self.ctors(ty).iter().any(|f| f.takes(0))
    }

    /// Whether copying a value of type `ty` runs code of the program's: `Some(true)` where its
    /// struct declares a copy constructor (`for_assign`: a copy-assignment operator),
    /// `Some(false)` where only members' (or array elements') types do.
    fn user_copy(&mut self, ty: &Ty, for_assign: bool) -> Option<bool> {
        let Ty::Struct(i) = *ty else {
            return None;
        };
        let own = if for_assign {
            self.methods(i, "operator=")
        } else {
            self.ctors(ty)
        };
        if own.iter().any(|f| {
            f.takes(1)
                && f.params.first().is_some_and(|p| {
                    let inner = match &p.ty {
                        TypeExpr::Ref(inner) => inner,
                        t => t,
                    };
                    self.ty(inner, p.site).ok().as_ref() == Some(ty)
                })
        }) {
            return Some(true);
        }
        let fields: Vec<Ty> = self.structs.list[i]
            .fields
            .iter()
            .map(|f| f.1.clone())
            .collect();
        fields
            .iter()
            .any(|t| {
                let t = match t {
                    Ty::Array(e, _) => e,
                    t => t,
                };
                self.user_copy(t, for_assign).is_some()
            })
            .then_some(false)
    }

    /// `e` copied into a new object of its type `ty` (`S b = a;`, a by-value parameter), where
    /// the copy runs the struct's copy constructor: `None` for a copy of the bits.
    pub fn copy_constructed(
        &mut self,
        ty: &Ty,
        e: &crate::cuda::front::ast::Expr,
        site: Site,
    ) -> R<Option<Val>> {
        // A prvalue initializes the object itself (C++17).
        if !super::expr::is_lvalue_like(e) && !self.is_call_like(e) {
            return Ok(None);
        }
        let Some(own) = self.user_copy(ty, false) else {
            return Ok(None);
        };
        if self.is_call_like(e) {
            // A call returning a value initializes the object itself; one returning a
            // reference is copied from what it refers to.
            return match self.call_place(e)? {
                Ok(p) if self.place_ty(&p) == *ty && own => {
                    self.construct(ty, vec![ArgIn::Place(p)], site).map(Some)
                }
                Ok(_) | Err((_, true)) => Err(self.unsupported(
                    site,
                    &format!("copying the reference a function returns into a `{}`, which has a copy constructor", ty.show(&self.structs)),
                    Some("copy the object it refers to"),
                )),
                Err((v, false)) => Ok(Some(v)),
            };
        }
        if self.arg_ty(&ArgIn::Expr(e))? != *ty {
            return Ok(None);
        }
        if !own {
            return Err(self.member_copy(ty, site));
        }
        self.construct(ty, vec![ArgIn::Expr(e)], site).map(Some)
    }

    /// The value of `e` copy-initializing an object of type `ty` (`S b = a;`, a list's
    /// element, a by-value parameter, `return a;`): by the struct's copy constructor where one
    /// runs, else `e`'s value.
    pub fn copied(&mut self, ty: &Ty, e: &crate::cuda::front::ast::Expr, site: Site) -> R<Val> {
        match self.copy_constructed(ty, e, site)? {
            Some(v) => Ok(v),
            None => self.rvalue(e),
        }
    }

    /// The value of `e` copied into a new object of its own type (`auto b = a;`, `return a;`
    /// of a deduced return type): by its struct's copy constructor where one runs.
    pub fn copy_of(&mut self, e: &crate::cuda::front::ast::Expr, site: Site) -> R<Val> {
        if super::expr::is_lvalue_like(e) || self.is_call_like(e) {
            let ty = self.arg_ty(&ArgIn::Expr(e))?;
            if matches!(ty, Ty::Struct(_)) {
                return self.copied(&ty, e, site);
            }
        }
        self.rvalue(e)
    }

    /// `a = b` of a struct with a copy-assignment operator: `None` where it copies the bits.
    pub fn copy_assigned(&mut self, p: &Place, v: Val, site: Site) -> R<Option<Val>> {
        let ty = self.place_ty(p);
        match self.user_copy(&ty, true) {
            None => Ok(None),
            Some(false) => Err(self.member_copy(&ty, site)),
            Some(true) => {
                self.operator(
                    "operator=",
                    vec![ArgIn::Place(p.clone()), ArgIn::Val(v)],
                    site,
                )?;
                self.read(p, site).map(Some)
            }
        }
    }

    /// The refusal of an implicit copy that would run members' copy constructors or operators.
    fn member_copy(&self, ty: &Ty, site: Site) -> crate::cuda::Diagnostic {
        self.unsupported(
            site,
            &format!("copying a `{}`, whose members have their own copy constructor or `operator=`", ty.show(&self.structs)),
            Some("give the struct its own copy constructor and `operator=`, or copy the members one by one"),
        )
    }

    /// `S(args)` or `S{args}`: a struct value, by its constructor if it has one, else field by
    /// field (missing fields zero).
    pub fn construct(&mut self, ty: &Ty, args: Vec<ArgIn<'_>>, site: Site) -> R<Val> {
        let Ty::Struct(i) = *ty else {
            return Err(self.err(
                site,
                format!("`{}` is not a struct", ty.show(&self.structs)),
                None,
            ));
        };
        let all = self.ctors(ty);
        let ctors: Vec<&Function> = all
            .iter()
            .copied()
            .filter(|f| f.takes(args.len()))
            .collect();
        if !ctors.is_empty() {
            let f = self.overload(&ctors, &args)?;
            let zero = self.zero(ty, site)?;
            let place = self.temp_place(zero, site);
            // Pointer fields are pointer variables of the value's own, which the constructor
            // sets and the variable it initializes takes, as from a call that returns it.
            let own = self.pointer_variables(&self.structs.list[i].name.clone(), ty, site);
            self.carry_pointers_at(String::new(), place.clone(), own.clone());
            self.inline(f, &[], args, Some((i, Some(place.clone()))), site)?;
            self.returned_pointers = (!own.is_empty()).then_some(own);
            return self.read(&place, site);
        }
        if !all.is_empty() {
            return Err(self.err(
                site,
                format!(
                    "`{}` has no constructor taking {} argument(s)",
                    self.structs.list[i].name,
                    args.len()
                ),
                None,
            ));
        }
        if self.structs.list[i].union {
            return self.union_value(ty, args, site);
        }
        if !self.structs.list[i].refs.is_empty() {
            return Err(self.aggregate_with_reference(i, site));
        }
        let fields: Vec<Ty> = self.structs.list[i]
            .fields
            .iter()
            .map(|f| f.1.clone())
            .collect();
        if args.len() > fields.len() {
            return Err(self.err(
                site,
                format!(
                    "`{}` has {} field(s), {} value(s) given",
                    self.structs.list[i].name,
                    fields.len(),
                    args.len()
                ),
                None,
            ));
        }
        let mut leaves = Vec::new();
        let mut args = args.into_iter();
        for ft in fields {
            let v = match args.next() {
                Some(ArgIn::Expr(e)) => {
                    let v = self.copied(&ft, e, site)?;
                    self.convert_val(v, &ft, site)?
                }
                Some(a) => {
                    let v = self.arg_val(a, site)?;
                    self.convert_val(v, &ft, site)?
                }
                None => self.zero(&ft, site)?,
            };
            leaves.extend(self.leaves_of(v));
        }
        Ok(Val::Agg(ty.clone(), leaves))
    }

    /// A union initialized by `args` (`U u = {x};`, `U{x}`): its first member takes the value,
    /// the rest of its bytes are zero; no value: all zero.
    pub fn union_value(&mut self, ty: &Ty, args: Vec<ArgIn<'_>>, site: Site) -> R<Val> {
        let Ty::Struct(i) = *ty else {
            unreachable!("a union is a struct type")
        };
        if args.len() > 1 {
            return Err(self.union_values(i, args.len(), site));
        }
        let zero = self.zero(ty, site)?;
        let (Some(a), Some((first, fty, _))) = (
            args.into_iter().next(),
            self.structs.list[i].fields.first().cloned(),
        ) else {
            return Ok(zero);
        };
        let v = match a {
            ArgIn::Expr(e) if let crate::cuda::front::ast::ExprKind::InitList(sub) = &e.kind => {
                self.init_list(sub, &fty, e.site)?
            }
            ArgIn::Expr(e) => {
                let v = self.copied(&fty, e, site)?;
                self.convert_val(v, &fty, site)?
            }
            a => {
                let v = self.arg_val(a, site)?;
                self.convert_val(v, &fty, site)?
            }
        };
        let place = self.temp_place(zero, site);
        let member = self.member_place(place.clone(), &first, site)?;
        self.write(&member, v, site)?;
        self.read(&place, site)
    }

    /// The refusal of `n` values for union `i`, which one initializes.
    pub fn union_values(&self, i: usize, n: usize, site: Site) -> crate::cuda::Diagnostic {
        self.err(
            site,
            format!(
                "the union `{}` is initialized by one value (its first member's), {n} given",
                self.structs.list[i].name
            ),
            None,
        )
    }

    /// An argument's value.
    pub fn arg_val(&mut self, a: ArgIn<'_>, site: Site) -> R<Val> {
        match a {
            ArgIn::Expr(e) => self.rvalue(e),
            ArgIn::Val(v) => Ok(v),
            ArgIn::Place(p) => self.read(&p, site),
        }
    }

    /// A struct value converted by one of its conversion operators to `to`, if it has one.
    pub fn conversion(&mut self, v: &Val, to: &Ty, site: Site) -> R<Option<Val>> {
        let Val::Agg(Ty::Struct(i), _) = v else {
            return Ok(None);
        };
        let i = *i;
        let mut chosen = None;
        for f in self.methods(i, "operator cast") {
            let env = self.structs.list[i].tenv.clone();
            let ret = self.file_scope(|l| {
                l.frames
                    .last_mut()
                    .expect("pushed by file_scope")
                    .tenv
                    .extend(env);
                l.ty(&f.ret, f.site)
            })?;
            let fits = ret == *to
                || matches!((&ret, to), (Ty::Pointer(_), Ty::Pointer(t)) if **t == Ty::Void)
                || matches!((&ret, to), (Ty::Scalar(_), Ty::Scalar(_)));
            if fits {
                chosen = Some(f);
                if ret == *to {
                    break;
                }
            }
        }
        let Some(f) = chosen else {
            return Ok(None);
        };
        let place = self.temp_place(v.clone(), site);
        let r = self.inline(f, &[], Vec::new(), Some((i, Some(place))), site)?;
        self.convert_val(r, to, site).map(Some)
    }

    /// An overloaded operator (`"operator+"`) applied to `args`: a member function of the first
    /// operand's struct, or a free function; `None` when the program defines none that fits.
    pub fn operator(&mut self, op: &str, mut args: Vec<ArgIn<'_>>, site: Site) -> R<Option<Val>> {
        let Some(first) = args.first() else {
            return Ok(None);
        };
        if let Ty::Struct(i) = self.arg_ty(first)? {
            let cands: Vec<&Function> = self
                .methods(i, op)
                .into_iter()
                .filter(|f| f.params.len() + 1 == args.len())
                .collect();
            if !cands.is_empty() {
                let this = match args.remove(0) {
                    ArgIn::Place(p) => p,
                    ArgIn::Val(v) => self.temp_place(v, site),
                    ArgIn::Expr(e) => {
                        if super::expr::is_lvalue_like(e) {
                            self.place(e)?
                        } else {
                            let v = self.rvalue(e)?;
                            self.temp_place(v, site)
                        }
                    }
                };
                let f = self.overload(&cands, &args)?;
                return self
                    .inline(f, &[], args, Some((i, Some(this))), site)
                    .map(Some);
            }
        }
        let free = self
            .m
            .ast
            .functions
            .iter()
            .any(|f| f.name == op && f.params.len() == args.len() && !f.global);
        if !free {
            return Ok(None);
        }
        self.call_user(op, &[], args, site)
    }
}
