//! Lowering: one `__global__` function of the [`ast`] (with its template arguments) into an
//! [`ir::Kernel`]: names resolved, types checked with C's promotions and conversions,
//! `__device__` functions inlined (recursion rejected), templates instantiated, constants
//! folded, structured control flow built, and finally uniformity decided by
//! [`crate::cuda::analysis::uniformity`].
//!
//! This module holds the lowering's state, types, statements and function calls; expressions
//! are in [`self::expr`] and CUDA's built-in functions in [`self::builtins`].
//!
//! Every value is a per-thread scalar [`ir::Var`] (aggregates are split into their scalar
//! leaves); a pointer is a [`Base`] fixed here plus an `I64` byte-offset variable, and a pointer
//! variable that would point into two different buffers is rejected.

use std::collections::{HashMap, HashSet};

mod builtins;
mod classes;
pub(crate) mod consts;
mod expr;
mod packs;
mod structs;
pub(crate) mod types;

use self::types::{Group, Structs, Ty, scalar_type, vector_type};
use crate::cuda::diag::Diagnostic;
use crate::cuda::front::Unit;
use crate::cuda::front::ast::{self, Function, StmtKind, TemplateArg, TypeExpr};
use crate::cuda::ir::{self, Base, Const, Op, Operand, Scalar, Site, Stmt, VarId};

/// Lowering results.
pub type R<T> = Result<T, Diagnostic>;

/// A pointer value: `base` + `offset` + `disp` + Σ value × scale, pointing at a `pointee`.
#[derive(Clone, Debug, PartialEq)]
pub struct PtrVal {
    /// The buffer.
    pub base: Base,
    /// The pointer's byte offset (an `I64` variable or constant).
    pub offset: Operand,
    /// A constant byte displacement (struct fields, constant indexes).
    pub disp: i64,
    /// Scaled element indexes.
    pub terms: Vec<(Operand, i64)>,
    /// What it points at.
    pub pointee: Ty,
    /// The per-thread arrays it points into instead of a buffer (`base` is then
    /// [`Base::Null`]): see [`LocalTarget`].
    pub local: Option<LocalTarget>,
}

/// What a pointer into per-thread arrays (`float *p = buf + 2`, `&v[i]`) points into.
///
/// Local arrays live in variables, one array per scalar leaf of their element type, not in
/// memory: such a pointer's byte offset counts in elements of `elem` laid end to end, and a
/// load or store through it becomes an element access of `arrays` (`Lowerer::local_place`).
#[derive(Clone, Debug, PartialEq)]
pub struct LocalTarget {
    /// The arrays, one per scalar leaf of `elem` ([`ir::Kernel::locals`] indexes).
    pub arrays: Vec<u32>,
    /// The element type the offset counts in.
    pub elem: Ty,
}

impl PtrVal {
    /// A pointer to the start of `base`.
    pub fn at(base: Base, pointee: Ty) -> PtrVal {
        PtrVal {
            base,
            offset: Operand::Const(consts::int(Scalar::I64, 0)),
            disp: 0,
            terms: Vec::new(),
            pointee,
            local: None,
        }
    }

    /// The pointer `self + index × scale` (a constant index folds into `disp`).
    pub fn plus(mut self, index: Operand, scale: i64) -> PtrVal {
        match index {
            Operand::Const(c) => self.disp += consts::as_int(c) as i64 * scale,
            _ => self.terms.push((index, scale)),
        }
        self
    }

    /// The IR address of this pointer.
    pub fn addr(&self) -> ir::Addr {
        let mut index = self.terms.clone();
        let offset = match self.offset {
            Operand::Const(c) => Operand::Const(consts::int(
                Scalar::I64,
                consts::as_int(c) + i128::from(self.disp),
            )),
            op => {
                if self.disp != 0 {
                    index.push((
                        Operand::Const(consts::int(Scalar::I64, i128::from(self.disp))),
                        1,
                    ));
                }
                op
            }
        };
        ir::Addr {
            base: self.base,
            offset,
            index,
        }
    }
}

/// A value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A scalar.
    Scalar(Operand, Scalar),
    /// A vector or struct: its leaves in order.
    Agg(Ty, Vec<Operand>),
    /// A pointer.
    Ptr(PtrVal),
    /// A cooperative-groups handle.
    Group(Group),
    /// A lambda (index into [`Lowerer::closures`]).
    Closure(usize),
    /// A string literal (only `printf` takes one).
    Str(String),
    /// `void`.
    Void,
}

/// Where a value lives (an lvalue).
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// Variables: one per scalar leaf of `ty`.
    Reg {
        /// The type.
        ty: Ty,
        /// The leaves.
        vars: Vec<VarId>,
    },
    /// A pointer variable (index into the pointer table).
    Ptr(usize),
    /// Memory of type `ty` at `ptr`.
    Mem {
        /// The address.
        ptr: PtrVal,
        /// The type there.
        ty: Ty,
    },
    /// Elements of local arrays (one array per scalar leaf of the element type), at an element
    /// index made of scaled terms.
    Local {
        /// The arrays.
        arrays: Vec<u32>,
        /// The element index terms.
        index: Vec<(Operand, i64)>,
        /// The type of what is designated.
        ty: Ty,
    },
    /// An element of an array held in variables (an array member of a struct variable or
    /// parameter) at an index known only at run time: one of `choices` (each the leaves of one
    /// element), read through a chain of selects and written by a select into every choice.
    Pick {
        /// The element index (`I64`).
        index: Operand,
        /// Each element's leaves.
        choices: Vec<Vec<VarId>>,
        /// The element type.
        ty: Ty,
    },
    /// A pointer parameter of an inlined function given the address of a variable (`f(&x)`),
    /// or a pointer parameter or variable given the address of an element of an array held in
    /// variables (`&s.a[i]` of a struct variable or parameter): `*p`, `p->f` and `p[0]` name
    /// the variable or element, and with the array and the element's index (`I64`), `p[k]`
    /// names element `i + k`; the pointer has no other use.
    Alias(Box<Place>, Option<Box<(Place, Operand)>>),
    /// A cooperative-groups handle variable.
    Group(Group),
    /// A variable holding a lambda.
    Closure(usize),
    /// An array of pointers held as pointer variables, one per element in memory order: an
    /// array of pointer fields of a struct variable or parameter that carries its pointers
    /// (`args.buffers[k]`, [`types::Ty::pointer_fields`]).
    Pointers {
        /// The pointer variables.
        ptrs: Vec<usize>,
        /// The array's type.
        ty: Ty,
    },
}

/// A name in scope.
#[derive(Clone, Debug)]
pub enum Sym {
    /// A variable, array, reference or handle.
    Place(Place),
    /// A compile-time constant (template value parameter, `const` with a constant value).
    Const(Const),
}

/// A pointer variable: the buffer it points into is fixed by its first assignment.
#[derive(Clone, Debug)]
pub struct PtrVar {
    /// The source name.
    pub name: String,
    /// The buffer (unknown until assigned; [`Base::Var`] of `base_var` for a pointer into
    /// several).
    pub base: Option<Base>,
    /// The variable holding the buffer of a pointer into several buffers.
    pub base_var: Option<VarId>,
    /// Where the first assignment was.
    pub base_site: Site,
    /// Its byte offset.
    pub off: VarId,
    /// What it points at.
    pub pointee: Ty,
    /// The per-thread arrays it points into (its `base` is then [`Base::Null`]).
    pub local: Option<LocalTarget>,
    /// Whether it holds a reference member (`T &r;` of a struct): set once, by a constructor's
    /// member initializer, and dereferenced wherever the member is named.
    pub reference: bool,
}

/// A template argument, resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum TArg {
    /// A type.
    Type(Ty),
    /// A value.
    Value(Const),
}

/// One function being lowered (the kernel, or an inlined call).
#[derive(Clone)]
struct Frame {
    scope_start: usize,
    tenv: HashMap<String, TArg>,
    ret: Option<(Place, Ty)>,
    ns: String,
    /// The object of a member function.
    this: Option<Place>,
    /// For a lambda: the scopes where it was written (it sees their variables), with the
    /// serial number of the innermost, to tell that they still exist, and the lambda.
    captures: Option<(usize, usize, u64, usize)>,
    /// Whether the return type is deduced from the first `return` (`auto`, a lambda's).
    deduce_ret: bool,
    /// The pointer fields of the struct this function returns, when its `return`s name
    /// struct variables that carry them (pointer variables of the call's own).
    ret_pointers: Option<PointerFields>,
    /// For a function returning a reference (`T &operator[](int)`): `Some` while its one
    /// `return` has not named a place warpsim can keep, then `Some(Some(place))`.
    ret_place: Option<Option<Place>>,
    /// The parameters declared as arrays (`int a[4]`): pointers, whatever they are bound to.
    array_params: Vec<String>,
    /// Whether `return e;` copies `e` into the caller's object: `None` where the function
    /// returns a reference; `Some(Some(v))` where every `return` names local variable `v`,
    /// which is the caller's object itself (the named return value optimization g++ and nvcc
    /// make).
    elided: Option<Option<String>>,
    /// The struct whose members it sees by name: a member function's, a struct being laid out.
    class: Option<classes::Class>,
}

/// What `break`/`continue` leave.
#[derive(Clone, Copy, Debug)]
pub enum Flow {
    /// A loop.
    Loop,
    /// A switch lowered as a loop; `cont` is the flag a `continue` inside sets.
    Switch(Option<VarId>),
}

/// The lowering's state for one kernel.
pub struct Lowerer<'m> {
    pub(crate) m: &'m Unit,
    pub(crate) structs: Structs,
    pub(crate) vars: Vec<ir::Var>,
    pub(crate) shared: Vec<ir::SharedArray>,
    shared_keys: HashMap<(Site, String), u32>,
    pub(crate) locals: Vec<ir::LocalArray>,
    pub(crate) ptrs: Vec<PtrVar>,
    scopes: Vec<HashMap<String, Sym>>,
    frames: Vec<Frame>,
    blocks: Vec<Vec<Stmt>>,
    pub(crate) flow: Vec<Flow>,
    inline_stack: Vec<String>,
    globals_in_progress: Vec<String>,
    /// File-scope `const`/`constexpr` arrays and structs of the host evaluated so far, by
    /// name: their types and bytes ([`Lowerer::host_constant`]).
    host_constants: HashMap<String, Constant>,
    /// How many constant expressions are being evaluated ([`Lowerer::const_eval`]): in one, a
    /// `const` device variable with an initializer (`__device__ constexpr int n = 4;`) is its
    /// value, as it is to nvcc in an array bound or a template argument.
    const_depth: u32,
    /// The kernel's texture parameters ([`Base::Param`] slots): the textures a fetch reads.
    texture_params: Vec<u32>,
    /// The results of `__fadd_rn`, `__fmul_rn` and the other IEEE-arithmetic intrinsics
    /// rounded to nearest: never fused ([`ir::contract`]).
    pub(crate) exact: HashSet<VarId>,
    /// The `__constant__`/`__device__` variables used so far, with their types.
    pub(crate) globals: Vec<(ir::GlobalVar, Ty)>,
    /// Pointer variables (by creation order) that hold their buffer in a variable.
    dynamic: HashSet<usize>,
    /// A pointer variable found to point into two buffers: lower again with it dynamic.
    retry: Option<usize>,
    /// The declarations of variables whose address is taken (`int *p = &x`): held in a local
    /// array of one element, which a pointer can point into.
    addressed: HashSet<Site>,
    /// A variable found to have its address taken: lower again with it addressable.
    retry_addressed: Option<Site>,
    /// The declaration of each variable that a declaration made.
    declared_at: HashMap<VarId, Site>,
    /// The declaration of each local compile-time constant by name (`const int one = 1`),
    /// the latest of a name: `&one` makes it a variable when the kernel is lowered again.
    const_declared_at: HashMap<String, Site>,
    /// Each per-thread array's group: the arrays of one declaration (one per scalar leaf of
    /// the element type) and that element type.
    pub(crate) local_groups: HashMap<u32, (Vec<u32>, Ty)>,
    /// The lambdas written so far, with the scopes they see.
    /// Each with the copies of what it captures by value, by name.
    pub(crate) closures: Vec<(Function, (usize, usize, u64), Captured)>,
    /// A serial number per open scope (parallel to `scopes`).
    scope_ids: Vec<u64>,
    next_scope_id: u64,
    /// Struct values whose pointer fields are pointer variables (struct kernel parameters,
    /// the device-function parameters they are passed to, local struct variables).
    field_pointers: Vec<FieldPointers>,
    /// The pointer fields of the struct the last inlined call returned ([`Frame::ret_pointers`]).
    returned_pointers: Option<PointerFields>,
    /// The last inlined call that returned a reference, with the place it refers to when
    /// warpsim could name it (its function has one `return`, of a place): the call's site.
    pub(crate) returned_ref: Option<(Site, Option<Place>)>,
    /// The variables whose declarations are being lowered, innermost last, with their
    /// declared types: an initializer may name its variable in `decltype`.
    declaring: Vec<(String, TypeExpr)>,
    /// The names bound as references anywhere in the kernel (`int &r = a[i];`, `float &x`
    /// parameters): `decltype(r)` of one is a reference, `__typeof__(r)` not, and the two
    /// read alike once parsed, so either is refused.
    ref_names: std::collections::HashSet<String>,
    /// Typedefs being resolved inside one another.
    typedef_depth: u32,
    /// The struct instances whose base classes are being resolved.
    resolving_bases: Vec<String>,
    /// Blocks being lowered inside one another, inlined functions' included
    /// ([`ir::MAX_STATEMENT_NESTING`]).
    nesting: u32,
    /// The statement being lowered.
    at: Site,
    /// The kernel's struct parameters held in variables, whose arrays a run-time index may
    /// read from the parameter's bytes.
    pub(crate) param_structs: Vec<ParamBytes>,
    /// The next buffer slot after the kernel's parameters' and their pointer fields'.
    next_slot: u32,
}

/// A struct kernel parameter held in variables, one per scalar leaf. An element of an array in
/// it at an index known only at run time is one of its leaves, picked by comparing the index
/// with each element's; beyond [`expr::MAX_PICK`] elements it is read instead from a read-only
/// copy of the parameter's bytes bound as buffer `slot`, as the GPU reads its parameter bank at
/// a run-time offset (`LDC`).
pub struct ParamBytes {
    /// The parameter's index.
    pub param: usize,
    /// Its leaves' variables.
    pub vars: Vec<VarId>,
    /// Each leaf's byte offset in the struct.
    pub offsets: Vec<u32>,
    /// The buffer slot of its bytes, once an access reads them.
    pub slot: Option<u32>,
    /// The first access that read them.
    pub read_at: Site,
    /// The first assignment to one of its leaves, if any.
    pub written_at: Option<Site>,
}

/// The value of a constant array or struct ([`Lowerer::host_constant`]): its type and bytes.
pub type Constant = std::rc::Rc<(Ty, Vec<u8>)>;

/// The copies a lambda holds of what it captures by value, by name.
pub type Captured = HashMap<String, Sym>;

/// Pointer fields: each one's path of member names (`["in", "x"]`) and pointer variable.
pub type PointerFields = Vec<(Vec<String>, usize)>;

/// The pointer fields of a struct variable (its other fields are its `Place::Reg` leaves).
pub struct FieldPointers {
    /// The variable's name.
    pub name: String,
    /// The scope it was bound in ([`Lowerer::scope_ids`]): it counts while that is open.
    pub scope: u64,
    /// Its binding.
    pub place: Place,
    /// Its pointer fields.
    pub fields: PointerFields,
}

/// Lower kernel `name` (`"reduce<256>"`, `"k<float, 4>"`) of a parsed unit.
pub fn lower_kernel(m: &Unit, name: &str) -> R<ir::Kernel> {
    // Pointer variables that turn out to point into several buffers hold their buffer in a
    // variable, and variables whose address is taken live in a local array: lower again with
    // those known, until none is found late.
    let mut dynamic = HashSet::new();
    let mut addressed = HashSet::new();
    loop {
        let mut l = Lowerer::new(m, name);
        l.dynamic = dynamic.clone();
        l.addressed = addressed.clone();
        match lower_with(&mut l, m, name) {
            Err(_) if l.retry.is_some_and(|k| dynamic.insert(k)) => continue,
            Err(_) if l.retry_addressed.is_some_and(|s| addressed.insert(s)) => continue,
            r => return r,
        }
    }
}

fn lower_with(l: &mut Lowerer<'_>, m: &Unit, name: &str) -> R<ir::Kernel> {
    let (name, signature) = split_signature(name);
    let (base, targs_text) = split_template_name(name);
    let kernels: Vec<&Function> = m
        .ast
        .functions
        .iter()
        .filter(|f| f.global && f.name == base)
        .collect();
    // The primary template (or plain kernel) is chosen first; an explicit specialization for
    // its arguments replaces it below.
    let primaries: Vec<&Function> = kernels
        .iter()
        .copied()
        .filter(|f| f.specialization.is_none())
        .collect();
    if let (None, Some(g)) = (primaries.first(), kernels.first()) {
        return Err(l.unsupported(
            g.site,
            &format!("an explicit specialization of kernel template `{base}` without the template's definition"),
            Some("define the primary template (warpsim deduces which instance a specialization is from it)"),
        ));
    }
    // An overload named with its parameter types is the one declared with them (compared
    // without spaces); else, as when the types are macros the device pass expanded, the last.
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    let chosen = signature.and_then(|sig| {
        let sig = squeeze(sig);
        primaries.iter().copied().find(|f| {
            let params: Vec<&str> = f.params.iter().map(|p| p.written.as_str()).collect();
            squeeze(&params.join(",")) == sig
        })
    });
    let Some(mut f) = chosen.or(primaries.last().copied()) else {
        return Err(not_found(m, base));
    };
    // A variadic kernel's pack has the template arguments past its other parameters.
    let instance;
    if packs::is_variadic(f)
        && let Some(n) = targs_text
            .map_or(0, |t| split_args(t).len())
            .checked_sub(f.template.len() - 1)
    {
        instance = packs::instantiate(f, n).map_err(|(at, what)| l.unsupported(at, &what, None))?;
        f = &instance;
    }
    // Template arguments.
    let mut tenv = HashMap::new();
    let mut shown_args = Vec::new();
    if !f.template.is_empty() || targs_text.is_some() {
        let args = targs_text.map(split_args).unwrap_or_default();
        if args.len() != f.template.len() {
            return Err(l.err(
                f.site,
                format!(
                    "kernel `{}` has {} template parameter(s) ({}), {} given",
                    f.name,
                    f.template.len(),
                    f.template
                        .iter()
                        .map(|p| p.name().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    args.len()
                ),
                Some(format!(
                    "name an instantiation: --kernel '{}<{}>'",
                    f.name,
                    f.template
                        .iter()
                        .map(|p| match p {
                            ast::TemplateParam::Type(..) | ast::TemplateParam::Pack(_, None) => {
                                "float".to_string()
                            }
                            ast::TemplateParam::Pack(_, Some(_)) => "256".to_string(),
                            ast::TemplateParam::Value(..) => "256".to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            ));
        }
        for (p, a) in f.template.iter().zip(&args) {
            let v = l.parse_targ(p, a, f.site)?;
            shown_args.push(match &v {
                TArg::Type(t) => t.show(&l.structs),
                TArg::Value(c) => consts::as_int(*c).to_string(),
            });
            tenv.insert(p.name().to_string(), v);
        }
    }
    if !f.template.is_empty() {
        for g in kernels.iter().filter(|g| g.specialization.is_some()) {
            if l.specializes(f, g)?.is_some_and(|args| args == tenv) {
                f = g;
                tenv.clear();
                break;
            }
        }
    }
    l.inline_stack = vec![f.name.clone()];
    if let Some(site) = f.syntax_error {
        return Err(l.syntax_error(site));
    }
    let ns = f
        .name
        .rfind("::")
        .map_or(String::new(), |i| f.name[..i + 2].to_string());
    l.frames.push(Frame {
        scope_start: 0,
        tenv,
        ret: None,
        ns,
        this: None,
        captures: None,
        deduce_ret: false,
        ret_pointers: None,
        ret_place: None,
        array_params: Vec::new(),
        elided: Some(None),
        class: None,
    });
    // Parameters.
    let mut params = Vec::new();
    let mut hidden = 0;
    for (i, p) in f.params.iter().enumerate() {
        let ty = l.ty(&p.ty, p.site)?;
        let kind = match &ty {
            Ty::Pointer(pointee) | Ty::Array(pointee, _) => {
                if **pointee == Ty::Texture {
                    l.texture_params.push(i as u32);
                }
                let idx = l.new_ptr(&p.name, (**pointee).clone(), p.site);
                l.set_base(idx, Base::Param(i as u32), p.site)?;
                let off = l.ptrs[idx].off;
                l.bind(&p.name, Sym::Place(Place::Ptr(idx)));
                ir::ParamKind::Pointer {
                    elem: if **pointee == Ty::Void {
                        ir::TypeName::Void
                    } else {
                        pointee.type_name(&l.structs)
                    },
                    offset: off,
                    is_const: p.is_const,
                }
            }
            Ty::Scalar(s) => {
                let var = l.new_var(&p.name, *s);
                let reg = Place::Reg {
                    ty: ty.clone(),
                    vars: vec![var],
                };
                // A parameter whose address is taken (`&n`, a reference member bound to it):
                // a copy in a per-thread array of one element, as a local variable's.
                l.declared_at.insert(var, p.site);
                let place = if l.addressed.contains(&p.site) {
                    let arrays = l.new_local(&p.name, &ty, 1, p.site)?;
                    l.store_local(&arrays, &[], &[Operand::Var(var)], p.site);
                    Place::Local {
                        arrays,
                        index: Vec::new(),
                        ty: ty.clone(),
                    }
                } else {
                    reg
                };
                l.bind(&p.name, Sym::Place(place));
                ir::ParamKind::Scalar { ty: *s, var }
            }
            Ty::Struct(_) | Ty::Vector(..) => {
                let leaves = ty.leaves(&l.structs);
                let vars: Vec<VarId> = leaves
                    .iter()
                    .enumerate()
                    .map(|(k, (_, s))| l.new_var(&format!("{}.{k}", p.name), *s))
                    .collect();
                let fields = leaves
                    .iter()
                    .zip(&vars)
                    .map(|((o, s), v)| (*o, *s, *v))
                    .collect();
                let place = if ty.has_union(&l.structs) {
                    // A union's members are its bytes read through pointers of their types: a
                    // copy in per-thread memory.
                    let arrays = l.new_local(&p.name, &ty, 1, p.site)?;
                    let leaves: Vec<Operand> = vars.iter().map(|v| Operand::Var(*v)).collect();
                    l.store_local(&arrays, &[], &leaves, p.site);
                    Place::Local {
                        arrays,
                        index: Vec::new(),
                        ty: ty.clone(),
                    }
                } else {
                    l.param_structs.push(ParamBytes {
                        param: i,
                        vars: vars.clone(),
                        offsets: leaves.iter().map(|(o, _)| *o).collect(),
                        slot: None,
                        read_at: p.site,
                        written_at: None,
                    });
                    Place::Reg {
                        ty: ty.clone(),
                        vars,
                    }
                };
                l.bind(&p.name, Sym::Place(place.clone()));
                // Its pointer fields are pointer variables of their own, into buffers the
                // launch binds after the parameters'.
                let mut pointers = Vec::new();
                let mut named = Vec::new();
                for (path, at, pointee) in ty.pointer_fields(&l.structs) {
                    let name = format!("{}.{}", p.name, path.join("."));
                    let idx = l.new_ptr(&name, pointee.clone(), p.site);
                    l.ptrs[idx].reference = ty.is_reference_field(&l.structs, &path);
                    let buffer = (f.params.len() + hidden) as u32;
                    hidden += 1;
                    l.set_base(idx, Base::Param(buffer), p.site)?;
                    pointers.push(ir::FieldPointer {
                        name,
                        at,
                        elem: if pointee == Ty::Void {
                            ir::TypeName::Void
                        } else {
                            pointee.type_name(&l.structs)
                        },
                        buffer,
                        offset: l.ptrs[idx].off,
                    });
                    named.push((path, idx));
                }
                l.carry_pointers(&p.name, named);
                ir::ParamKind::Struct {
                    name: ty.show(&l.structs),
                    size: ty.size(&l.structs),
                    fields,
                    pointers,
                    bytes: None,
                }
            }
            other => {
                return Err(l.err(
                    p.site,
                    format!("a kernel parameter of type `{}` is not supported", other.show(&l.structs)),
                    Some("kernel parameters are scalars, pointers to global memory or structs of scalars".into()),
                ));
            }
        };
        params.push(ir::Param {
            name: p.name.clone(),
            kind,
        });
    }
    l.next_slot = (f.params.len() + hidden) as u32;
    l.open_scope();
    l.body(&f.body)?;
    let body = l.blocks.pop().unwrap_or_default();
    // A parameter read from its bytes is read-only: a write would leave them behind.
    for pb in &l.param_structs {
        let Some(slot) = pb.slot else { continue };
        if let Some(at) = pb.written_at {
            return Err(l.unsupported(
                at,
                &format!(
                    "assigning to the parameter `{}`, whose array is indexed at run time (at line {}) beyond {} elements",
                    f.params[pb.param].name,
                    pb.read_at.line,
                    expr::MAX_PICK
                ),
                Some("copy what the kernel changes into a local variable, or pass the array in global or __constant__ memory"),
            ));
        }
        if let ir::ParamKind::Struct { bytes, .. } = &mut params[pb.param].kind {
            *bytes = Some(slot);
        }
    }
    let mut display = if shown_args.is_empty() {
        f.name.clone()
    } else {
        format!("{}<{}>", f.name, shown_args.join(", "))
    };
    if kernels
        .iter()
        .filter(|g| g.specialization.is_none())
        .count()
        > 1
    {
        // Overloads keep apart in reports as in Nsight's: by their parameter types (a
        // template's explicit specializations are no overloads).
        let types: Vec<&str> = f.params.iter().map(|p| p.written.as_str()).collect();
        display = format!("{display}({})", types.join(", "));
    }
    let mut k = ir::Kernel {
        name: display,
        params,
        vars: std::mem::take(&mut l.vars),
        shared: std::mem::take(&mut l.shared),
        locals: std::mem::take(&mut l.locals),
        globals: std::mem::take(&mut l.globals)
            .into_iter()
            .map(|(g, _)| g)
            .collect(),
        body,
        files: m.sources.files.iter().map(|f| f.name.clone()).collect(),
        site: f.site,
    };
    if m.fmad {
        ir::contract::contract(&mut k, &l.exact);
    }
    crate::cuda::analysis::uniformity::analyze(&mut k);
    crate::cuda::analysis::unroll::analyze(&mut k.body);
    crate::cuda::analysis::barriers::analyze(&mut k.body);
    Ok(k)
}

/// The bytes of file-scope `__constant__`/`__device__` variable `name` as its initializer
/// leaves them, and whether it is `__constant__` (`None`: no such variable).
pub fn global_init(m: &Unit, name: &str) -> R<Option<(Vec<u8>, bool)>> {
    let mut l = Lowerer::new(m, "");
    if l.device_global(name, Site::default())?.is_none() && l.texture_reference(name)?.is_none() {
        return Ok(None);
    }
    Ok(l.globals.pop().map(|(g, _)| (g.init, g.constant)))
}

/// `"k(float *, int)"` → `("k", Some("float *, int"))`: an overloaded kernel's name as a
/// whole program registers it; `"k<T>"` → `("k<T>", None)`.
fn split_signature(name: &str) -> (&str, Option<&str>) {
    let Some(inner) = name.trim_end().strip_suffix(')') else {
        return (name, None);
    };
    let mut depth = 0;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => return (&name[..i], Some(&inner[i + 1..])),
            '(' => depth -= 1,
            _ => {}
        }
    }
    (name, None)
}

/// `name<a, b>` into `name` and `a, b`.
pub fn split_template_name(name: &str) -> (&str, Option<&str>) {
    match (name.find('<'), name.rfind('>')) {
        (Some(i), Some(j)) if j > i => (name[..i].trim(), Some(&name[i + 1..j])),
        _ => (name.trim(), None),
    }
}

/// A type as the host compiler spells it in a kernel's name (`float*`, `unsigned int`,
/// `TensorListMetadata<3>`, `Pair<float, 2>*`): pointers, and struct templates' instances with
/// their arguments (an integer is a value).
pub(super) fn type_of_text(text: &str) -> TypeExpr {
    let t = text.trim();
    if let Some(inner) = t.strip_suffix('*') {
        return TypeExpr::Pointer(Box::new(type_of_text(inner)));
    }
    // `char[3]`.
    if let Some(rest) = t.strip_suffix(']')
        && let Some((inner, n)) = rest.rsplit_once('[')
        && let Some(l) = crate::cuda::front::preprocess::parse_int(n.trim())
    {
        let size = ast::Expr {
            kind: ast::ExprKind::Int(l),
            site: Site::default(),
            span: (0, 0),
        };
        return TypeExpr::Array(Box::new(type_of_text(inner)), Some(Box::new(size)));
    }
    let t = t
        .trim_start_matches("const ")
        .trim_end_matches(" const")
        .trim_start_matches("struct ")
        .trim_start_matches("class ");
    // A member of a template instance (`Word<char>::Rebind<long>`): the instance stays text.
    if let Some((scope, member)) = classes::split_scope(t)
        && scope.contains('<')
    {
        return match type_of_text(member) {
            TypeExpr::Template(m, args) => TypeExpr::Template(format!("{scope}::{m}"), args),
            _ => TypeExpr::Name(t.to_string()),
        };
    }
    // (Not a lambda's `main()::<lambda(int)>`, which `unknown` explains.)
    if let (name, Some(args)) = split_template_name(t)
        && t.ends_with('>')
        && !name.ends_with(':')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    {
        let args = split_args(args)
            .iter()
            .map(|a| {
                let (neg, digits) = a
                    .strip_prefix('-')
                    .map_or((false, a.as_str()), |d| (true, d));
                let e = |kind| ast::Expr {
                    kind,
                    site: Site::default(),
                    span: (0, 0),
                };
                match (
                    a.as_str(),
                    crate::cuda::front::preprocess::parse_int(digits),
                ) {
                    ("true" | "false", _) => TemplateArg::Expr(e(ast::ExprKind::Bool(a == "true"))),
                    (_, Some(l)) => {
                        let int = e(ast::ExprKind::Int(l));
                        TemplateArg::Expr(if neg {
                            e(ast::ExprKind::Unary(ast::Unary::Neg, Box::new(int)))
                        } else {
                            int
                        })
                    }
                    _ => TemplateArg::Type(type_of_text(a)),
                }
            })
            .collect();
        return TypeExpr::Template(name.to_string(), args);
    }
    let norm = t.split_whitespace().collect::<Vec<_>>().join(" ");
    TypeExpr::Name(match norm.as_str() {
        "unsigned" => "unsigned int".into(),
        _ => norm,
    })
}

/// Split template arguments at top-level commas.
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn not_found(m: &Unit, name: &str) -> Diagnostic {
    let names: Vec<String> = m
        .ast
        .functions
        .iter()
        .filter(|f| f.global)
        .map(|f| f.name.clone())
        .collect();
    if let Some((site, msg)) = m.ast.syntax_errors.first() {
        let mut d = m.sources.error(
            *site,
            format!("no __global__ function `{name}` was found; the file has a {msg}"),
            Some(if names.is_empty() {
                "fix the syntax error (this file has no kernel that parses)".to_string()
            } else {
                format!("kernels found: {}", names.join(", "))
            }),
        );
        d.message = d.message.replace("a syntax error", "syntax error");
        return d;
    }
    let device = m.ast.functions.iter().any(|f| !f.global && f.name == name);
    Diagnostic {
        severity: crate::cuda::diag::Severity::Error,
        file: m.sources.name(0).to_string(),
        line: 0,
        col: 0,
        message: if device {
            format!("`{name}` is a __device__ function, not a kernel")
        } else {
            format!("no __global__ function `{name}` in this file")
        },
        source_line: String::new(),
        help: Some(if names.is_empty() {
            "the file defines no __global__ function".into()
        } else {
            format!("kernels: {}", names.join(", "))
        }),
    }
}

impl<'m> Lowerer<'m> {
    /// A lowering of `entry` (the kernel, or nothing) in `m`.
    fn new(m: &'m Unit, entry: &str) -> Lowerer<'m> {
        Lowerer {
            m,
            structs: Structs::default(),
            vars: Vec::new(),
            shared: Vec::new(),
            shared_keys: HashMap::new(),
            locals: Vec::new(),
            ptrs: Vec::new(),
            scopes: vec![HashMap::new()],
            frames: Vec::new(),
            blocks: vec![Vec::new()],
            flow: Vec::new(),
            inline_stack: vec![entry.to_string()],
            globals_in_progress: Vec::new(),
            host_constants: HashMap::new(),
            const_depth: 0,
            texture_params: Vec::new(),
            exact: HashSet::new(),
            globals: Vec::new(),
            dynamic: HashSet::new(),
            retry: None,
            addressed: HashSet::new(),
            retry_addressed: None,
            const_declared_at: HashMap::new(),
            declared_at: HashMap::new(),
            local_groups: HashMap::new(),
            closures: Vec::new(),
            scope_ids: vec![0],
            next_scope_id: 1,
            field_pointers: Vec::new(),
            returned_pointers: None,
            returned_ref: None,
            declaring: Vec::new(),
            ref_names: std::collections::HashSet::new(),
            typedef_depth: 0,
            resolving_bases: Vec::new(),
            nesting: 0,
            at: Site::default(),
            param_structs: Vec::new(),
            next_slot: 0,
        }
    }

    /// The [`Place::Alias`] a pointer parameter given `e` is bound as, when `e` is the address
    /// of a variable held in registers or a local array element (`&x`, `&v.y`, `&a[i]`), or a
    /// parameter bound to one.
    fn variable_address(&mut self, e: &ast::Expr) -> Option<Place> {
        match &e.kind {
            _ if let Some(p) = self.element_address(e) => Some(p),
            ast::ExprKind::Unary(ast::Unary::AddrOf, x) if expr::is_lvalue_like(x) => {
                // Decide on a lowering that is dropped, so that an address in memory is lowered
                // once, as any other argument (its index computations count once).
                let names_variable = |l: &Self, p: &Place| match p {
                    Place::Reg { .. } | Place::Pick { .. } => true,
                    Place::Local { .. } => !matches!(l.place_ty(p), Ty::Array(..)),
                    _ => false,
                };
                let mut variable = false;
                let _ = self.sub_block(|l| {
                    let p = l.place(x)?;
                    variable = names_variable(l, &p);
                    Ok(())
                });
                if !variable {
                    return None;
                }
                let p = self.place(x).ok()?;
                Some(Place::Alias(Box::new(self.freeze(p, e.site)), None))
            }
            ast::ExprKind::Ident(n) => match self.lookup(n) {
                Some(Sym::Place(p @ Place::Alias(..))) => Some(p.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The [`Place::Alias`] of the pointer `e` when it is `&a[i]`, `a + i` or `a` (decayed) and
    /// `a` is an array held in variables (an array member of a struct variable or parameter),
    /// which the pointer can step through.
    fn element_address(&mut self, e: &ast::Expr) -> Option<Place> {
        let (a, i) = match &e.kind {
            ast::ExprKind::Unary(ast::Unary::AddrOf, x) => match &x.kind {
                ast::ExprKind::Index(a, i) => (&**a, Some(&**i)),
                _ => return None,
            },
            ast::ExprKind::Binary(ast::Binary::Add, a, i) => (&**a, Some(&**i)),
            _ => (e, None),
        };
        if !expr::is_lvalue_like(a) {
            return None;
        }
        let index = |l: &mut Self, i: &ast::Expr| -> Option<Operand> {
            let (at, ity) = l.integer(i).ok()?;
            let at = l.convert(at, ity, Scalar::I64, e.site);
            Some(l.assign(Scalar::I64, Op::Copy { src: at }, e.site))
        };
        // Such a pointer moved on (`p + 4`, `&p[i]`, `p`): the same array, further on.
        if let ast::ExprKind::Ident(n) = &a.kind
            && let Some(Sym::Place(Place::Alias(_, Some(w)))) = self.lookup(n).cloned()
        {
            let (array, base) = *w;
            let at = match i {
                Some(i) => {
                    let k = index(self, i)?;
                    self.binop(ir::BinOp::Add, Scalar::I64, base, k, e.site)
                }
                None => base,
            };
            let target = self.index_place(array.clone(), at, e.site).ok()?;
            return Some(Place::Alias(Box::new(target), Some(Box::new((array, at)))));
        }
        let mut in_variables = false;
        let _ = self.sub_block(|l| {
            let p = l.place(a)?;
            in_variables = matches!(
                p,
                Place::Reg {
                    ty: Ty::Array(..),
                    ..
                } | Place::Pick {
                    ty: Ty::Array(..),
                    ..
                }
            );
            Ok(())
        });
        if !in_variables {
            return None;
        }
        let array = self.place(a).ok()?;
        let array = self.freeze(array, e.site);
        let at = match i {
            Some(i) => index(self, i)?,
            None => Operand::Const(consts::int(Scalar::I64, 0)),
        };
        let target = self.index_place(array.clone(), at, e.site).ok()?;
        Some(Place::Alias(Box::new(target), Some(Box::new((array, at)))))
    }

    /// `p` with its run-time indices copied as they are now: a place bound to a parameter
    /// names the element the call's arguments chose, even if the callee changes the index
    /// variable (`g(i, &a[i])` with `i` a reference).
    fn freeze(&mut self, p: Place, site: Site) -> Place {
        let copy = |l: &mut Self, o: Operand| match o {
            Operand::Var(v) => {
                let ty = l.vars[v.0 as usize].ty;
                l.assign(ty, Op::Copy { src: o }, site)
            }
            other => other,
        };
        match p {
            Place::Pick { index, choices, ty } => Place::Pick {
                index: copy(self, index),
                choices,
                ty,
            },
            Place::Local { arrays, index, ty } => Place::Local {
                arrays,
                index: index.into_iter().map(|(o, k)| (copy(self, o), k)).collect(),
                ty,
            },
            Place::Mem { mut ptr, ty } => {
                ptr.offset = copy(self, ptr.offset);
                ptr.terms = ptr
                    .terms
                    .into_iter()
                    .map(|(o, k)| (copy(self, o), k))
                    .collect();
                Place::Mem { ptr, ty }
            }
            other => other,
        }
    }

    /// The variable a pointer parameter bound to `&x` names, if `e` is one.
    pub fn alias_target(&self, e: &ast::Expr) -> Option<Place> {
        match &e.kind {
            ast::ExprKind::Ident(n) => match self.lookup(n) {
                Some(Sym::Place(Place::Alias(t, _))) => Some((**t).clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// Note that the struct variable `name`, as bound now, has these pointer fields.
    fn carry_pointers(&mut self, name: &str, fields: PointerFields) {
        if let Some(Sym::Place(place)) = self.lookup(name).cloned() {
            self.carry_pointers_at(name.to_string(), place, fields);
        }
    }

    /// Note that the struct at `place` (variable `name`, or a constructor's value) has these
    /// pointer fields.
    pub fn carry_pointers_at(&mut self, name: String, place: Place, fields: PointerFields) {
        if fields.is_empty() {
            return;
        }
        self.field_pointers.push(FieldPointers {
            name,
            scope: self.scope_ids.last().copied().unwrap_or(0),
            place,
            fields,
        });
    }

    /// A fresh pointer variable (`name.path`) for each pointer field of struct type `ty`.
    pub fn pointer_variables(&mut self, name: &str, ty: &Ty, site: Site) -> PointerFields {
        if !matches!(ty, Ty::Struct(_)) {
            return Vec::new();
        }
        ty.pointer_fields(&self.structs)
            .into_iter()
            .map(|(path, _, pointee)| {
                let k = self.new_ptr(&format!("{name}.{}", path.join(".")), pointee, site);
                self.ptrs[k].reference = ty.is_reference_field(&self.structs, &path);
                (path, k)
            })
            .collect()
    }

    /// The pointer fields under `prefix` (paths relative to it) of the struct variable at the
    /// root of `e` (`args`, `args.in`), if its pointer fields are pointer variables.
    pub fn field_pointers_of(&self, e: &ast::Expr, prefix: &[String]) -> Option<PointerFields> {
        let mut path = prefix.to_vec();
        let mut e = e;
        let root = loop {
            match &e.kind {
                ast::ExprKind::Member(x, g, false) => {
                    path.insert(0, g.clone());
                    e = x;
                }
                // `p->f` of a pointer bound to `&s` (which carries `s`'s pointers): `s.f`.
                ast::ExprKind::Member(x, g, true) if self.alias_target(x).is_some() => {
                    path.insert(0, g.clone());
                    e = x;
                }
                ast::ExprKind::Ident(n) => break n,
                _ => return None,
            }
        };
        let Some(Sym::Place(current)) = self.lookup(root) else {
            return None;
        };
        // Only a binding of a scope this function sees (not a caller's same-named one).
        let start = self.frames.last().map_or(0, |f| f.scope_start);
        let visible = &self.scope_ids[start.min(self.scope_ids.len())..];
        let entry =
            self.field_pointers.iter().rev().find(|fp| {
                fp.name == *root && fp.place == *current && visible.contains(&fp.scope)
            })?;
        let under: Vec<_> = entry
            .fields
            .iter()
            .filter_map(|(p, idx)| {
                let rest = p.strip_prefix(path.as_slice())?;
                Some((rest.to_vec(), *idx))
            })
            .collect();
        (!under.is_empty()).then_some(under)
    }

    /// The pointer fields of the struct variable at `place`, if it carries them (a member
    /// function's object).
    pub fn pointers_of_place(&self, place: &Place) -> Option<PointerFields> {
        self.field_pointers
            .iter()
            .rev()
            .find(|fp| fp.place == *place)
            .map(|fp| fp.fields.clone())
    }

    /// Open a scope.
    fn open_scope(&mut self) {
        self.scopes.push(HashMap::new());
        self.scope_ids.push(self.next_scope_id);
        self.next_scope_id += 1;
    }

    /// Close scopes down to `len`.
    fn close_scopes(&mut self, len: usize) {
        self.scopes.truncate(len);
        self.scope_ids.truncate(len);
    }

    /// A lambda written here: it sees the current function's scopes as they are, and copies,
    /// made now, of what it captures by value.
    pub fn closure(&mut self, f: &Function, captures: &ast::Captures) -> R<Val> {
        let start = self.frames.last().map_or(0, |f| f.scope_start);
        let end = self.scopes.len();
        let id = self.scope_ids.last().copied().unwrap_or(0);
        if captures.this_copy {
            return Err(self.unsupported(
                f.site,
                "capturing `*this` by value",
                Some("capture `this`, or copy the members the lambda uses into variables and capture those"),
            ));
        }
        let mut named: Vec<(String, Option<&ast::Expr>)> = captures
            .named
            .iter()
            .map(|(n, e)| (n.clone(), e.as_ref()))
            .collect();
        if captures.all {
            let mut used = Vec::new();
            names_in(&f.body, &mut used);
            for n in used {
                if !captures.by_ref.contains(&n) && named.iter().all(|(m, _)| *m != n) {
                    named.push((n, None));
                }
            }
        }
        // The fields a member function sees by name are reached through `this`, which a
        // lambda captures as a pointer.
        let this_vars: Vec<VarId> = match self.frames.last().and_then(|f| f.this.clone()) {
            Some(Place::Reg { vars, .. }) => vars,
            _ => Vec::new(),
        };
        let mut copies = HashMap::new();
        for (name, init) in named {
            let sym = match init {
                Some(e) => {
                    let v = self.rvalue(e)?;
                    Sym::Place(self.temp_place(v, e.site))
                }
                None => match self.lookup(&name).cloned() {
                    Some(Sym::Place(p @ Place::Reg { .. })) if !matches!(&p, Place::Reg { vars, .. } if vars.iter().all(|v| this_vars.contains(v))) =>
                    {
                        let v = self.read(&p, f.site)?;
                        Sym::Place(self.temp_place(v, f.site))
                    }
                    Some(Sym::Place(Place::Ptr(k))) => {
                        let pointee = self.ptrs[k].pointee.clone();
                        let own = self.new_ptr(&name, pointee, f.site);
                        let v = self.read(&Place::Ptr(k), f.site)?;
                        self.write(&Place::Ptr(own), v, f.site)?;
                        Sym::Place(Place::Ptr(own))
                    }
                    // A variable in per-thread memory (one holding a union, or whose address
                    // is taken): a copy of its value.
                    Some(Sym::Place(p @ Place::Local { .. }))
                        if !matches!(self.place_ty(&p), Ty::Array(..)) =>
                    {
                        let v = self.read(&p, f.site)?;
                        Sym::Place(self.temp_place(v, f.site))
                    }
                    Some(Sym::Place(p @ (Place::Local { .. } | Place::Pick { .. }))) => {
                        let t = self.place_ty(&p);
                        return Err(self.unsupported(
                            f.site,
                            &format!("capturing `{name}` (a `{}`) by value", t.show(&self.structs)),
                            Some("capture it by reference (`[&]`, `[&name]`) and copy what the lambda must keep into a variable"),
                        ));
                    }
                    // Constants, buffers, handles and lambdas are the same either way.
                    _ => continue,
                },
            };
            copies.insert(name, sym);
        }
        self.closures.push((f.clone(), (start, end, id), copies));
        Ok(Val::Closure(self.closures.len() - 1))
    }

    /// Call lambda `c`.
    pub fn call_closure(&mut self, c: usize, args: Vec<ArgIn<'_>>, site: Site) -> R<Val> {
        let (f, (start, end, id), _) = self.closures[c].clone();
        if end > self.scope_ids.len() || self.scope_ids[end - 1] != id {
            return Err(self.unsupported(
                site,
                "calling a lambda after the scope it was written in has ended",
                Some("call it where it is written, or pass it down to the functions it calls"),
            ));
        }
        if f.params.len() != args.len() {
            return Err(self.err(
                site,
                format!(
                    "the lambda takes {} argument(s), {} given",
                    f.params.len(),
                    args.len()
                ),
                None,
            ));
        }
        self.inline_captured(&f, args, Some((start, end, id, c)), site)
    }

    /// A new pointer variable (its buffer set by its first assignment).
    pub fn new_ptr(&mut self, name: &str, pointee: Ty, site: Site) -> usize {
        let off = self.new_var(name, Scalar::I64);
        let idx = self.ptrs.len();
        let base_var = self
            .dynamic
            .contains(&idx)
            .then(|| self.new_var(&format!("{name}.buffer"), Scalar::U32));
        self.ptrs.push(PtrVar {
            name: name.to_string(),
            base: base_var.map(Base::Var),
            base_var,
            base_site: site,
            off,
            pointee,
            local: None,
            reference: false,
        });
        idx
    }

    /// Pointer variable `k` now points where `ptr` does: into a buffer ([`Self::set_base`]), or
    /// into per-thread arrays, the same ones at every assignment (they are variables, not
    /// memory a buffer number could name).
    pub fn set_target(&mut self, k: usize, ptr: &PtrVal, site: Site) -> R<()> {
        let pv = &self.ptrs[k];
        match (&ptr.local, &pv.local) {
            (None, None) => return self.set_base(k, ptr.base, site),
            (Some(t), Some(had)) if t == had => return Ok(()),
            (Some(t), None) if pv.base.is_none() => {
                let t = t.clone();
                let pv = &mut self.ptrs[k];
                pv.local = Some(t);
                pv.base = Some(Base::Null);
                pv.base_site = site;
                return Ok(());
            }
            _ => {}
        }
        Err(self.unsupported(
            site,
            &format!(
                "pointer `{}` pointing into a local array and elsewhere (another local array, memory or null)",
                pv.name
            ),
            Some("use one pointer per array: a pointer into a local array must point into that array only"),
        ))
    }

    /// Pointer variable `k` now points into `base`: a buffer fixed at lowering time, or (for a
    /// variable that points into several) the value of its buffer variable.
    pub fn set_base(&mut self, k: usize, base: Base, site: Site) -> R<()> {
        let pv = self.ptrs[k].clone();
        if let Some(bv) = pv.base_var {
            let src = match base {
                Base::Var(v) => Operand::Var(v),
                b => Operand::Const(consts::int(
                    Scalar::U32,
                    i128::from(b.encode().expect("not a Var")),
                )),
            };
            if src != Operand::Var(bv) {
                self.assign_to(bv, Scalar::U32, Op::Copy { src }, site);
            }
            return Ok(());
        }
        match pv.base {
            None => {
                self.ptrs[k].base = Some(base);
                self.ptrs[k].base_site = site;
                Ok(())
            }
            Some(b) if b != base => {
                self.retry = Some(k);
                Err(self.err(
                    site,
                    format!(
                        "pointer `{}` points into two buffers ({} and {})",
                        pv.name,
                        self.base_name(b),
                        self.base_name(base)
                    ),
                    None,
                ))
            }
            Some(_) => Ok(()),
        }
    }

    // ------------------------------------------------------------------ diagnostics

    /// An error at `site`.
    pub fn err(&self, site: Site, msg: impl Into<String>, help: Option<String>) -> Diagnostic {
        self.m.sources.error(site, msg, help)
    }

    /// An unsupported construct.
    pub fn unsupported(&self, site: Site, what: &str, help: Option<&str>) -> Diagnostic {
        self.err(
            site,
            format!("{what} is not supported by warpsim"),
            help.map(str::to_string),
        )
    }

    fn syntax_error(&self, site: Site) -> Diagnostic {
        let msg = self
            .m
            .ast
            .syntax_errors
            .iter()
            .find(|(s, _)| *s == site)
            .map_or("syntax error".to_string(), |(_, m)| m.clone());
        self.err(
            site,
            msg,
            Some("the code must compile with nvcc; check the line and the one before it".into()),
        )
    }

    /// The refusal of WMMA where `name` is one of its names and the file included `mma.h`
    /// (which declares none of them: a kernel meets them as unknown names).
    fn wmma(&self, site: Site, name: &str) -> Option<Diagnostic> {
        let included = self
            .m
            .sources
            .files
            .iter()
            .any(|f| f.name == "<warpsim>/mma.h");
        let short = name.rsplit("::").next().unwrap_or(name);
        (included && (name.contains("wmma") || WMMA_NAMES.contains(&short))).then(|| {
            self.err(
                site,
                "WMMA / tensor cores are not supported by warpsim",
                Some("write the matrix product with ordinary arithmetic (a tiled loop over shared memory); the program's other kernels run".into()),
            )
        })
    }

    /// An unknown name: mentions the headers that were not found.
    pub fn unknown(&self, site: Site, what: &str, name: &str) -> Diagnostic {
        // The host names a lambda's type `main()::<lambda(int)>` (a kernel template given a
        // `__device__` lambda, nvcc's --extended-lambda): its body is host code's.
        if name.contains("<lambda") || name.contains("{lambda") {
            return self.unsupported(
                site,
                "a lambda written in host code as a kernel's argument (`--extended-lambda`)",
                Some("pass a struct with a __device__ operator() (a functor) instead; lambdas written inside device code are supported"),
            );
        }
        // Streams and events in a kernel are for launching from it.
        if matches!(
            name,
            "cudaStream_t" | "cudaEvent_t" | "cudaGraph_t" | "cudaGraphExec_t"
        ) {
            return self.unsupported(
                site,
                &format!("`{name}` in device code (dynamic parallelism)"),
                Some("launch kernels from the host; warpsim runs one kernel per launch"),
            );
        }
        if let Some(e) = self.wmma(site, name) {
            return e;
        }
        let help = self.m.missing.first().map(|h| {
            format!(
                "`{name}` may be declared in \"{}\" ({}:{}), which was not found; put the header beside the .cu file",
                h.name,
                self.m.sources.name(h.site.file),
                h.site.line
            )
        });
        let msg = if self.m.missing.is_empty() {
            format!("unknown {what} `{name}`")
        } else {
            let names: Vec<String> = self
                .m
                .missing
                .iter()
                .map(|h| format!("\"{}\"", h.name))
                .collect();
            format!(
                "unknown {what} `{name}` (missing header {})",
                names.join(", ")
            )
        };
        self.err(site, msg, help)
    }

    // ------------------------------------------------------------------ emitting

    /// Append a statement to the current block.
    pub fn emit(&mut self, s: Stmt) {
        self.blocks.last_mut().expect("a block is open").push(s);
    }

    /// Lower into a fresh block and return it.
    pub fn sub_block(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<Vec<Stmt>> {
        self.nested(|l| {
            l.blocks.push(Vec::new());
            let r = f(l);
            let b = l.blocks.pop().unwrap_or_default();
            r.map(|_| b)
        })
    }

    /// Lower one level deeper, or refuse code nested past [`ir::MAX_STATEMENT_NESTING`]
    /// (the parser refuses a function nested that deep; inlined functions add up).
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.nesting >= ir::MAX_STATEMENT_NESTING {
            return Err(self.err(
                self.at,
                format!(
                    "statements nested more than {0} deep once device functions are inlined \
                     into the kernel; warpsim allows {0}",
                    ir::MAX_STATEMENT_NESTING
                ),
                Some(
                    "flatten the code: combine conditions with `&&`, leave early with \
                     `return`, `break` or `continue`"
                        .into(),
                ),
            ));
        }
        self.nesting += 1;
        let r = f(self);
        self.nesting -= 1;
        r
    }

    /// The statements of the current block so far (for retargeting the last one).
    pub fn current_block(&mut self) -> &mut Vec<Stmt> {
        self.blocks.last_mut().expect("a block is open")
    }

    /// A new variable.
    pub fn new_var(&mut self, name: &str, ty: Scalar) -> VarId {
        self.vars.push(ir::Var {
            name: name.to_string(),
            ty,
            uniform: true,
        });
        VarId(self.vars.len() as u32 - 1)
    }

    /// A new temporary.
    pub fn temp(&mut self, ty: Scalar) -> VarId {
        let n = format!("$t{}", self.vars.len());
        self.new_var(&n, ty)
    }

    /// Emit `dst = op` into a new temporary of type `ty` and return it.
    pub fn assign(&mut self, ty: Scalar, op: Op, site: Site) -> Operand {
        let dst = self.temp(ty);
        self.assign_to(dst, ty, op, site);
        Operand::Var(dst)
    }

    /// Emit `dst = op`.
    pub fn assign_to(&mut self, dst: VarId, ty: Scalar, op: Op, site: Site) {
        self.emit(Stmt::Assign(ir::Assign {
            dst,
            ty,
            op,
            varying: false,
            site,
        }));
    }

    // ------------------------------------------------------------------ scopes

    /// Bind a name in the innermost scope.
    pub fn bind(&mut self, name: &str, s: Sym) {
        if !name.is_empty() {
            self.scopes
                .last_mut()
                .expect("a scope is open")
                .insert(name.to_string(), s);
        }
    }

    /// Look a name up in the current function's scopes (and, in a lambda, in the scopes it
    /// was written in).
    pub fn lookup(&self, name: &str) -> Option<&Sym> {
        let f = self.frames.last();
        let start = f.map_or(0, |f| f.scope_start);
        self.scopes[start..]
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| {
                let (a, b, _, c) = f.and_then(|f| f.captures)?;
                self.closures[c].2.get(name).or_else(|| {
                    self.scopes[a..b.min(start)]
                        .iter()
                        .rev()
                        .find_map(|s| s.get(name))
                })
            })
    }

    /// Whether `name` is a template type parameter or a typedef (so `name(x)` is a cast).
    pub fn names_type(&self, name: &str) -> bool {
        matches!(self.targ(name), Some(TArg::Type(_)))
            || self.scope_declares_type(name)
            || self
                .m
                .ast
                .typedefs
                .iter()
                .any(|(n, _)| *n == self.canon(name))
    }

    /// The object of the member function being lowered.
    pub fn this_place(&self, site: Site) -> R<Place> {
        self.frames
            .last()
            .and_then(|f| f.this.clone())
            .ok_or_else(|| self.err(site, "`this` outside a member function", None))
    }

    /// Whether `name` names a type: a template type parameter, a typedef, a struct, a scalar
    /// or vector type.
    pub fn is_type_name(&self, name: &str) -> bool {
        let n = self.canon(name);
        self.names_type(name)
            || scalar_type(&n).is_some()
            || vector_type(&n).is_some()
            || self.m.ast.structs.iter().any(|s| s.name == n)
    }

    /// A template argument of the current function.
    pub fn targ(&self, name: &str) -> Option<&TArg> {
        self.frames.last().and_then(|f| f.tenv.get(name))
    }

    fn push_scope(&mut self) {
        self.open_scope();
    }

    fn pop_scope(&mut self) {
        let n = self.scopes.len() - 1;
        self.close_scopes(n);
    }

    /// A name with namespace aliases resolved and `::` prefixes normalised.
    pub fn canon(&self, name: &str) -> String {
        let mut n = name.trim_start_matches("::").to_string();
        for (alias, target) in &self.m.ast.aliases {
            if let Some(rest) = n.strip_prefix(&format!("{alias}::")) {
                n = format!("{}::{rest}", target.trim_start_matches("::"));
            }
        }
        n
    }

    // ------------------------------------------------------------------ types

    /// Resolve a written type.
    pub fn ty(&mut self, t: &TypeExpr, site: Site) -> R<Ty> {
        match t {
            TypeExpr::Name(n) => self.named_ty(n, site),
            TypeExpr::Struct(n) => self.struct_ty(n, site),
            TypeExpr::Template(n, args) => {
                let n = self.canon(n);
                let short = n.trim_start_matches("cooperative_groups::");
                if let Some(t) = self.struct_instance(&n, args, site)? {
                    return Ok(t);
                }
                if let Some(t) = self.alias_instance(&n, args, site)? {
                    return Ok(t);
                }
                if let Some(t) = self.type_transform(&n, args, site)? {
                    return Ok(t);
                }
                if short == "block_tile_memory" {
                    // Scratch space for tiles of several warps: warpsim needs none.
                    return Ok(Ty::Group(Group::Block));
                }
                if short == "thread_block_tile" {
                    let size = match args.first() {
                        Some(TemplateArg::Expr(e)) => self.const_int(e)?,
                        Some(TemplateArg::Type(TypeExpr::Name(nm))) => self.const_name(nm, site)?,
                        _ => return Err(self.err(site, "thread_block_tile needs a size", None)),
                    };
                    return self.tile(size as u32, site).map(Ty::Group);
                }
                Err(self.wmma(site, &n).unwrap_or_else(|| {
                    self.unsupported(site, &format!("the template type `{n}<...>`"), None)
                }))
            }
            TypeExpr::Pointer(inner) => Ok(Ty::Pointer(Box::new(self.ty(inner, site)?))),
            TypeExpr::Array(inner, size) => {
                let elem = self.ty(inner, site)?;
                let n = match size {
                    Some(e) => {
                        let v = self.const_int(e)?;
                        if v <= 0 || v > 1 << 24 {
                            return Err(self.err(
                                e.site,
                                format!("array size {v} is out of range"),
                                None,
                            ));
                        }
                        Some(v as u32)
                    }
                    None => None,
                };
                Ok(Ty::Array(Box::new(elem), n))
            }
            TypeExpr::Ref(inner) => self.ty(inner, site),
            TypeExpr::Auto => Err(self.err(site, "`auto` needs an initializer", None)),
            TypeExpr::Typeof(e) => match &e.kind {
                ast::ExprKind::Ident(n) if self.ref_names.contains(n) => Err(self.unsupported(
                    e.site,
                    "`decltype` or `__typeof__` of a name declared as a reference",
                    Some("write the type (`T &` for decltype's reference)"),
                )),
                _ => self.type_of(e),
            },
            TypeExpr::Expansion(_) => Err(packs::unexpanded(self, site)),
        }
    }

    /// The type a `<type_traits>` transformation names (`std::make_unsigned<T>::type`,
    /// `std::conditional_t<c, A, B>`, `std::enable_if<c, T>::type`, ...), or `None` where `name`
    /// is none.
    fn type_transform(&mut self, name: &str, args: &[TemplateArg], site: Site) -> R<Option<Ty>> {
        let name = name.trim_start_matches("::").trim_start_matches("cuda::");
        let Some(name) = name.strip_prefix("std::") else {
            return Ok(None);
        };
        let Some(transform) = name
            .strip_suffix("::type")
            .or_else(|| name.strip_suffix("_t"))
        else {
            return Ok(None);
        };
        let ty = |i: usize, l: &mut Self| match args.get(i) {
            Some(TemplateArg::Type(t)) => l.ty(t, site),
            _ => Err(l.err(site, format!("`std::{transform}` needs a type here"), None)),
        };
        let cond = |l: &mut Self| match args.first() {
            Some(TemplateArg::Expr(e)) => l.const_int(e).map(|v| v != 0),
            // A template's value parameter, a constant (`Select<IS_WIDE, A, B>`).
            Some(TemplateArg::Type(TypeExpr::Name(n))) => l.const_name(n, site).map(|v| v != 0),
            // `std::is_integral<T>::value` reads as a type here.
            Some(TemplateArg::Type(TypeExpr::Template(n, a))) => {
                let n = n.trim_start_matches("::").trim_start_matches("cuda::");
                match l.type_trait(n.trim_start_matches("std::"), a, site)? {
                    Some(v) => Ok(v),
                    None => Err(l.err(site, format!("`std::{transform}` needs a condition"), None)),
                }
            }
            _ => Err(l.err(site, format!("`std::{transform}` needs a condition"), None)),
        };
        let t = match transform {
            "make_unsigned" | "make_signed" => {
                let unsigned = transform == "make_unsigned";
                match ty(0, self)? {
                    Ty::Scalar(s) if !s.is_float() && s != Scalar::Bool => {
                        Ty::Scalar(types::with_signedness(s, !unsigned))
                    }
                    _ => {
                        return Err(self.err(
                            site,
                            format!("`std::{transform}` needs an integer type"),
                            None,
                        ));
                    }
                }
            }
            "remove_const" | "remove_volatile" | "remove_cv" | "remove_reference"
            | "remove_cvref" | "decay" | "type_identity" => ty(0, self)?,
            "remove_pointer" => match ty(0, self)? {
                Ty::Pointer(t) => *t,
                t => t,
            },
            "add_pointer" => Ty::Pointer(Box::new(ty(0, self)?)),
            // Raw storage of `len` bytes aligned to `align`: 4-byte words where the alignment
            // allows (any scalar of a thread's own array reads as whole words), so that a copy
            // of it is the wide accesses nvcc makes (16 bytes aligned to 16: one 16-byte load,
            // as HeCBench axpby's `load_store` copies 4 floats).
            "aligned_storage" => {
                let int = |i: usize, l: &mut Self| match args.get(i) {
                    Some(TemplateArg::Expr(e)) => l.const_int(e),
                    Some(TemplateArg::Type(TypeExpr::Name(n))) => l.const_name(n, site),
                    _ => Err(l.err(site, "`std::aligned_storage` needs constant sizes", None)),
                };
                let len = int(0, self)?;
                // The default alignment: the largest that suits the size, up to 16.
                let align = match args.len() {
                    1 => (1..=16)
                        .rev()
                        .find(|a: &i128| a.count_ones() == 1 && len % a == 0)
                        .unwrap_or(1),
                    _ => int(1, self)?,
                };
                if !(1..=1 << 24).contains(&len)
                    || !(1..=4096).contains(&align)
                    || align.count_ones() != 1
                {
                    return Err(self.err(
                        site,
                        format!("`std::aligned_storage<{len}, {align}>`: the size must be positive and the alignment a power of two up to 4096"),
                        None,
                    ));
                }
                let name = format!("std::aligned_storage<{len}, {align}>::type");
                let i = match self.structs.find(&name) {
                    Some(i) => i,
                    None => {
                        let (w, s) = [(4, Scalar::U32), (2, Scalar::U16)]
                            .into_iter()
                            .find(|(w, _)| *w <= align && len % w == 0)
                            .unwrap_or((1, Scalar::U8));
                        let data = Ty::Array(Box::new(Ty::Scalar(s)), Some((len / w) as u32));
                        self.structs.add(
                            &name,
                            vec![("__data".to_string(), data)],
                            Some(align as u32),
                            None,
                            Vec::new(),
                            false,
                        )
                    }
                };
                Ty::Struct(i)
            }
            "conditional" => {
                let i = if cond(self)? { 1 } else { 2 };
                ty(i, self)?
            }
            "enable_if" => {
                if !cond(self)? {
                    return Err(self.unsupported(
                        site,
                        "`std::enable_if` with a false condition (choosing an overload by \
                         substitution failure)",
                        Some("choose with `if constexpr` or a template specialization instead"),
                    ));
                }
                if args.len() > 1 {
                    ty(1, self)?
                } else {
                    Ty::Void
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(t))
    }

    /// A tile size check: a power of two up to a block of 1024 threads (tiles of more than 32
    /// threads span warps).
    pub fn tile(&self, size: u32, site: Site) -> R<Group> {
        if !size.is_power_of_two() || size > 1024 {
            return Err(self.err(
                site,
                format!("thread_block_tile<{size}>: the size must be a power of two up to 1024"),
                None,
            ));
        }
        Ok(Group::Tile(size))
    }

    fn const_name(&mut self, n: &str, site: Site) -> R<i128> {
        let e = ast::Expr {
            kind: ast::ExprKind::Ident(n.to_string()),
            site,
            span: (0, 0),
        };
        self.const_int(&e)
    }

    fn named_ty(&mut self, n: &str, site: Site) -> R<Ty> {
        if n.is_empty() {
            return Err(self.err(site, "a type is missing here", None));
        }
        if let Some(TArg::Type(t)) = self.targ(n) {
            return Ok(t.clone());
        }
        if let Some(s) = scalar_type(n.trim_start_matches("std::")) {
            return Ok(Ty::Scalar(s));
        }
        // A member type of the struct being lowered (`Word` inside `Storage<T>`), or of the
        // struct a qualified name names (`Load<float>::Storage`, `T::Word`).
        let found = if n.contains("::") {
            self.qualified_type(n, site)?
        } else {
            self.scope_type(n, site)?
        };
        if let Some(t) = found {
            return Ok(t);
        }
        let n = self.canon(n);
        if let Some(s) = scalar_type(&n) {
            return Ok(Ty::Scalar(s));
        }
        if n == "void" {
            return Ok(Ty::Void);
        }
        if let Some((s, k)) = vector_type(&n) {
            return Ok(Ty::Vector(s, k));
        }
        if n == "dim3" || n == "uint3" {
            return Ok(Ty::Vector(Scalar::U32, 3));
        }
        let short = n.trim_start_matches("cooperative_groups::");
        match short {
            "thread_block" => return Ok(Ty::Group(Group::Block)),
            "grid_group" | "multi_grid_group" => return Ok(Ty::Group(Group::Grid)),
            "coalesced_group" => return Ok(Ty::Group(Group::Tile(32))),
            "thread_group" => return Ok(Ty::Group(Group::Block)),
            _ => {}
        }
        if let Some((_, t)) = self
            .m
            .ast
            .typedefs
            .iter()
            .rev()
            .find(|(name, _)| *name == n)
        {
            // `typedef struct S {..} S;` names the struct itself (resolving the name again
            // would find this typedef again, for ever).
            let t = match t {
                TypeExpr::Name(m) if self.canon(m) == n => TypeExpr::Struct(n.clone()),
                t => t.clone(),
            };
            // Typedefs naming each other in a circle never end.
            if self.typedef_depth > 64 {
                return Err(self.err(
                    site,
                    format!("the typedef `{n}` names itself through other typedefs"),
                    None,
                ));
            }
            self.typedef_depth += 1;
            let r = self.ty(&t, site);
            self.typedef_depth -= 1;
            return r;
        }
        if n == "cudaTextureObject_t" {
            return Ok(Ty::Pointer(Box::new(Ty::Texture)));
        }
        if matches!(n.as_str(), "cudaSurfaceObject_t" | "texture" | "surface") {
            return Err(self.surface_or_reference(&n, site));
        }
        self.struct_ty(&n, site)
    }

    /// A surface, which warpsim refuses, or a texture reference (`texture<float, 2> tex;`)
    /// used other than as a fetch's first argument (type `name`).
    fn surface_or_reference(&self, name: &str, site: Site) -> crate::cuda::Diagnostic {
        if name == "texture" {
            return self.err(
                site,
                "a texture reference is read only by tex1Dfetch, tex1D, tex2D and tex3D",
                Some("fetch through it (`tex2D(ref, x, y)`), or pass a texture object".into()),
            );
        }
        self.unsupported(
            site,
            "surfaces (texture objects and texture references are supported)",
            Some("read the data through a texture object or a pointer parameter"),
        )
    }

    /// A file-scope texture reference (`texture<uchar4, 2, cudaReadModeNormalizedFloat> t;`)
    /// as one of the kernel's globals ([`ir::GlobalVar::texture`], 8 bytes for the handle of
    /// the texture object bound to it): its index, its dimensions and the type its fetches
    /// return (`None` when `name` is no texture reference).
    pub fn texture_reference(&mut self, name: &str) -> R<Option<(u32, u8, Ty)>> {
        let Some(d) = self
            .m
            .ast
            .globals
            .iter()
            .rev()
            .find_map(|g| match &g.decl.ty {
                TypeExpr::Template(t, _) if t == "texture" && g.decl.name == name => {
                    Some(g.decl.clone())
                }
                _ => None,
            })
        else {
            return Ok(None);
        };
        let TypeExpr::Template(_, targs) = &d.ty else {
            unreachable!("found as a template type")
        };
        // `cudaTextureType1D` … and the read modes are macros and enumerators of the runtime's
        // headers, which the device pass does not read.
        let named = |l: &mut Self, a: Option<&TemplateArg>, names: &[&str], first: i128| {
            let n = match a {
                None => return Ok(first),
                Some(TemplateArg::Type(TypeExpr::Name(n))) => n,
                Some(TemplateArg::Expr(e)) => match &e.kind {
                    ast::ExprKind::Ident(n) => n,
                    _ => return l.const_int(e),
                },
                Some(TemplateArg::Type(_)) => {
                    return Err(l.err(
                        d.site,
                        format!("a type where texture reference `{name}` takes a constant"),
                        None,
                    ));
                }
            };
            match names.iter().position(|x| x == n) {
                Some(i) => Ok(i as i128 + first),
                None => l.const_name(n, d.site),
            }
        };
        let (texel, dims, mode) = self.file_scope(|l| {
            let texel = match targs.first() {
                Some(TemplateArg::Type(t)) => l.ty(t, d.site)?,
                _ => {
                    return Err(l.err(
                        d.site,
                        format!("texture reference `{name}` names no texel type"),
                        Some("declare it as `texture<float, 2> name;`".into()),
                    ));
                }
            };
            let types = [
                "cudaTextureType1D",
                "cudaTextureType2D",
                "cudaTextureType3D",
            ];
            let dims = named(l, targs.get(1), &types, 1)?;
            let modes = ["cudaReadModeElementType", "cudaReadModeNormalizedFloat"];
            let mode = named(l, targs.get(2), &modes, 0)?;
            Ok((texel, dims, mode))
        })?;
        if !(1..=3).contains(&dims) || !(0..=1).contains(&mode) {
            return Err(self.unsupported(
                d.site,
                &format!("texture reference `{name}` of dimension {dims} and read mode {mode}"),
                Some("declare a 1-, 2- or 3-dimensional reference read as its elements or as normalized floats"),
            ));
        }
        let fetched = match (texel, mode) {
            (Ty::Scalar(s), 1) if s.size() < 4 && !s.is_float() => Ty::Scalar(Scalar::F32),
            (Ty::Vector(s, k), 1) if s.size() < 4 && !s.is_float() => Ty::Vector(Scalar::F32, k),
            (t, 1) => {
                return Err(self.err(
                    d.site,
                    format!(
                        "texture reference `{name}` reads `{}` as normalized floats, which only \
                         8- and 16-bit integers give",
                        t.show(&self.structs)
                    ),
                    Some("read it with cudaReadModeElementType".into()),
                ));
            }
            (t, _) => t,
        };
        let idx = match self.globals.iter().position(|(g, _)| g.name == name) {
            Some(i) => i,
            None => {
                self.globals.push((
                    ir::GlobalVar {
                        name: name.to_string(),
                        init: vec![0; 8],
                        constant: false,
                        texture: true,
                        site: d.site,
                    },
                    Ty::Pointer(Box::new(Ty::Texture)),
                ));
                self.globals.len() - 1
            }
        };
        Ok(Some((idx as u32, dims as u8, fetched)))
    }

    /// Parse one textual template argument of the kernel name.
    fn parse_targ(&mut self, p: &ast::TemplateParam, text: &str, site: Site) -> R<TArg> {
        match p {
            ast::TemplateParam::Pack(..) => Err(packs::uninstantiated(self, site)),
            ast::TemplateParam::Type(..) => self.ty(&type_of_text(text), site).map(TArg::Type),
            ast::TemplateParam::Value(name, ty, _) => {
                let ty = self.ty(ty, site)?;
                let t = text.trim();
                let v = match t {
                    "true" => Some(1),
                    "false" => Some(0),
                    _ => {
                        let (neg, body) = t.strip_prefix('-').map_or((false, t), |b| (true, b));
                        crate::cuda::front::preprocess::parse_int(body).map(|l| {
                            if neg {
                                -(l.value as i128)
                            } else {
                                l.value as i128
                            }
                        })
                    }
                };
                let v = match v {
                    Some(v) => v,
                    None => self.const_name(t, site).map_err(|_| {
                        self.err(
                            site,
                            format!("template argument `{t}` for `{name}` is not an integer"),
                            None,
                        )
                    })?,
                };
                let s = ty.scalar().unwrap_or(Scalar::I32);
                Ok(TArg::Value(consts::int(s, v)))
            }
        }
    }

    /// Evaluate a constant integer expression (array sizes, template arguments, case labels).
    pub fn const_int(&mut self, e: &ast::Expr) -> R<i128> {
        let c = self.const_eval(e)?;
        if c.ty.is_float() {
            return Err(self.err(e.site, "an integer constant is needed here", None));
        }
        Ok(consts::as_int(c))
    }

    /// Evaluate a constant expression; the code it would emit is dropped.
    pub fn const_eval(&mut self, e: &ast::Expr) -> R<Const> {
        let mut out = None;
        self.const_depth += 1;
        let r = self.sub_block(|l| {
            out = Some(l.scalar(e)?);
            Ok(())
        });
        self.const_depth -= 1;
        r?;
        match out {
            Some((Operand::Const(c), _)) => Ok(c),
            _ => Err(self.err(
                e.site,
                "a compile-time constant is needed here",
                Some(
                    "use literals, #define'd values, template parameters or const variables".into(),
                ),
            )),
        }
    }

    /// The last file-scope declaration of `name`.
    fn file_global(&self, name: &str) -> Option<ast::VarDecl> {
        let g = self
            .m
            .ast
            .globals
            .iter()
            .rev()
            .find(|g| g.decl.name == name)?;
        Some(g.decl.clone())
    }

    /// The value of a file-scope name: an enumerator or a `const` with a constant initializer.
    pub fn global(&mut self, name: &str, site: Site) -> R<Option<Const>> {
        let Some(d) = self.file_global(name) else {
            return Ok(None);
        };
        if (d.quals.constant || d.quals.device || d.quals.shared) && !self.folds(&d) {
            return Ok(None); // device memory: see `device_global`
        }
        if let TypeExpr::Template(t, _) = &d.ty
            && (t == "texture" || t == "surface")
        {
            return Err(self.surface_or_reference(t, site));
        }
        if !d.quals.is_const || d.init.is_none() {
            return Err(self.err(
                site,
                format!("`{name}` is a file-scope (host) variable; device code cannot use it"),
                Some(
                    "make it `const` with a constant value, or pass it as a kernel parameter"
                        .into(),
                ),
            ));
        }
        if self.globals_in_progress.iter().any(|g| g == name) {
            return Err(self.err(
                site,
                format!("`{name}` is defined in terms of itself"),
                None,
            ));
        }
        self.globals_in_progress.push(name.to_string());
        // File-scope constants see no locals.
        let v = self.file_scope(|l| {
            let ty = l.ty(&d.ty, d.site)?;
            let init = d.init.as_ref().expect("checked above");
            Ok(match ty {
                Ty::Scalar(s) => Some(consts::convert(l.const_eval(init)?, s)),
                // Arrays and structs are read element by element: `host_constant`.
                Ty::Array(..) | Ty::Struct(_) | Ty::Vector(..) => None,
                _ => Some(l.const_eval(init)?),
            })
        });
        self.globals_in_progress.pop();
        v
    }

    /// Whether device variable `d` is read as its value here: a `const` one with an
    /// initializer, in a constant expression.
    fn folds(&self, d: &ast::VarDecl) -> bool {
        self.const_depth > 0 && d.quals.is_const && !d.quals.shared && d.init.is_some()
    }

    /// A file-scope `const`/`constexpr` array or struct that `name` names as a constant: one
    /// of the host (`constexpr int widths[3] = {8, 16, 32};`), or, in a constant expression,
    /// a `const` device variable. Its type and bytes; `None` when `name` is no such variable.
    /// nvcc lets device code use the host's only where its value is known at compile time
    /// (`widths[2]`, `cfg.n`); warpsim reads those from the bytes, and refuses the rest
    /// ([`Lowerer::host_constant_misuse`]).
    pub fn host_constant(&mut self, name: &str) -> R<Option<Constant>> {
        if self.lookup(name).is_some() || self.targ(name).is_some() {
            return Ok(None);
        }
        let name = self.canon(name);
        let Some(d) = self.file_global(&name) else {
            return Ok(self.static_constant(&name));
        };
        let host = !(d.quals.constant || d.quals.device || d.quals.shared);
        if !(host && d.quals.is_const && d.init.is_some() || self.folds(&d)) {
            return Ok(None);
        }
        if let Some(c) = self.host_constants.get(&name) {
            return Ok(Some(c.clone()));
        }
        if self.globals_in_progress.contains(&name) {
            return Err(self.err(
                d.site,
                format!("`{name}` is defined in terms of itself"),
                None,
            ));
        }
        self.globals_in_progress.push(name.clone());
        let v = self.file_scope(|l| {
            let ty = l.ty(&d.ty, d.site)?;
            l.constant_bytes(&name, ty, d.init.as_ref().expect("checked above"))
        });
        self.globals_in_progress.pop();
        let v = v?;
        if let Some(c) = &v {
            self.host_constants.insert(name, c.clone());
        }
        Ok(v)
    }

    /// The value of constant `name` of type `ty` initialized by `init`, when `ty` is an array
    /// or a struct: its type (an unsized array's size from `init`) and bytes.
    fn constant_bytes(&mut self, name: &str, ty: Ty, init: &ast::Expr) -> R<Option<Constant>> {
        let ty = sized_by_init(ty, Some(init));
        if !matches!(ty, Ty::Array(..) | Ty::Struct(_) | Ty::Vector(..)) {
            return Ok(None);
        }
        if ty.leaf_count(&self.structs) == 0 || has_pointers(&ty, &self.structs) {
            return Err(self.unsupported(
                init.site,
                &format!("`{name}`, a constant of pointers or of no size, in device code"),
                Some("declare it `__constant__` or `__device__`, or pass the values as kernel parameters"),
            ));
        }
        let mut bytes = vec![0u8; ty.size(&self.structs) as usize];
        self.init_bytes(&ty, init, &mut bytes, 0)?;
        Ok(Some(std::rc::Rc::new((ty, bytes))))
    }

    /// A static data member of a struct that is an array or a struct (`static constexpr int
    /// w[2] = {N, 2 * N};`), laid out with its struct: named `S<3>::w` anywhere, or bare in its
    /// struct's member functions and member declarations.
    fn static_constant(&mut self, name: &str) -> Option<Constant> {
        if let Some((scope, member)) = name.rsplit_once("::") {
            let Ok(Some(Ty::Struct(i))) = self.struct_named_text(scope, self.at) else {
                return None;
            };
            let key = format!("{}::{member}", self.structs.list[i].name);
            return self.host_constants.get(&key).cloned();
        }
        // The structs whose members are being lowered: one being laid out, or the struct of
        // a member function, which sees its struct's name as a type.
        let mut owners: Vec<String> = self.globals_in_progress.iter().rev().cloned().collect();
        if let Some(f) = self.frames.last() {
            owners.extend(f.tenv.iter().filter_map(|(short, v)| {
                match v {
                    TArg::Type(Ty::Struct(i)) => self.structs.list[*i]
                        .def
                        .filter(|d| self.m.ast.structs[*d].name == *short)
                        .map(|_| self.structs.list[*i].name.clone()),
                    _ => None,
                }
            }));
        }
        owners
            .iter()
            .find_map(|o| self.host_constants.get(&format!("{o}::{name}")).cloned())
    }

    /// The refusal of a use of host constant `name` whose value is not known at compile time
    /// (an element at a run-time index, its address, the array as a whole), which nvcc refuses
    /// too ("identifier is undefined in device code").
    pub fn host_constant_misuse(&self, site: Site, name: &str, what: &str) -> Diagnostic {
        self.err(
            site,
            format!(
                "`{name}` is a file-scope constant of the host, which device code reads only \
                 where the value is known at compile time, as with nvcc: not {what}"
            ),
            Some(
                "declare it `__constant__` or `__device__ constexpr`: device memory can be \
                 indexed at run time and have its address taken"
                    .into(),
            ),
        )
    }

    /// A file-scope `__constant__`, `__device__` or `__shared__` variable as a place in memory
    /// (`None` when `name` is no such variable).
    pub fn device_global(&mut self, name: &str, site: Site) -> R<Option<Place>> {
        let Some(g) = self.m.ast.globals.iter().rev().find(|g| {
            g.decl.name == name
                && (g.decl.quals.constant || g.decl.quals.device || g.decl.quals.shared)
        }) else {
            return Ok(None);
        };
        let d = g.decl.clone();
        if d.quals.shared {
            let ty = self.file_scope(|l| l.ty(&d.ty, d.site))?;
            return self.shared_place(&d, ty).map(Some);
        }
        let idx = match self.globals.iter().position(|(g, _)| g.name == name) {
            Some(i) => i,
            None => {
                let (init, ty) = self.file_scope(|l| {
                    let ty = sized_by_init(l.ty(&d.ty, d.site)?, d.init.as_ref());
                    let mut bytes = vec![0u8; ty.size(&l.structs) as usize];
                    if let Some(e) = &d.init {
                        l.init_bytes(&ty, e, &mut bytes, 0)?;
                    } else if let Some(data) = crate::cuda::front::curand::global_init(name)
                        && data.len() == bytes.len()
                    {
                        bytes.copy_from_slice(data);
                    }
                    Ok((bytes, ty))
                })?;
                if init.is_empty() {
                    return Err(self.err(
                        d.site,
                        format!("`{name}` has no size"),
                        Some("give the array a size".into()),
                    ));
                }
                self.globals.push((
                    ir::GlobalVar {
                        name: name.to_string(),
                        init,
                        constant: d.quals.constant,
                        texture: false,
                        site: d.site,
                    },
                    ty,
                ));
                self.globals.len() - 1
            }
        };
        let _ = site;
        let ty = self.globals[idx].1.clone();
        let ptr = PtrVal::at(Base::Global(idx as u32), ty.clone());
        Ok(Some(Place::Mem { ptr, ty }))
    }

    /// Run `f` as file-scope code: no locals, no template arguments.
    fn file_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let saved_frames = std::mem::take(&mut self.frames);
        self.frames.push(Frame {
            scope_start: self.scopes.len(),
            tenv: HashMap::new(),
            ret: None,
            ns: String::new(),
            this: None,
            captures: None,
            deduce_ret: false,
            ret_pointers: None,
            ret_place: None,
            array_params: Vec::new(),
            elided: Some(None),
            class: None,
        });
        let r = f(self);
        self.frames = saved_frames;
        r
    }

    /// Write the value of constant initializer `e` for a `ty` at byte `at` of `out`.
    fn init_bytes(&mut self, ty: &Ty, e: &ast::Expr, out: &mut [u8], at: usize) -> R<()> {
        let items: Vec<ast::Expr> = match &e.kind {
            ast::ExprKind::InitList(items) => items.clone(),
            _ => vec![e.clone()],
        };
        match ty {
            Ty::Scalar(s) => {
                let Some(first) = items.first() else {
                    return Ok(());
                };
                if let ast::ExprKind::InitList(_) = first.kind {
                    return self.init_bytes(ty, first, out, at);
                }
                let c = consts::convert(self.const_eval(first)?, *s);
                let n = s.size() as usize;
                out[at..at + n].copy_from_slice(&c.bits.to_le_bytes()[..n]);
                Ok(())
            }
            Ty::Array(elem, _) => {
                let size = elem.size(&self.structs) as usize;
                let count = (out.len() - at).checked_div(size).unwrap_or(0);
                for (k, item) in items.iter().enumerate().take(count) {
                    self.init_bytes(elem, item, out, at + k * size)?;
                }
                Ok(())
            }
            Ty::Vector(s, n) => {
                let size = s.size() as usize;
                for (k, item) in items.iter().enumerate().take(*n as usize) {
                    self.init_bytes(&Ty::Scalar(*s), item, out, at + k * size)?;
                }
                Ok(())
            }
            Ty::Struct(i) => {
                if self.structs.list[*i].union && items.len() > 1 {
                    return Err(self.union_values(*i, items.len(), e.site));
                }
                let fields = self.structs.list[*i].fields.clone();
                for ((_, fty, off), item) in fields.iter().zip(&items) {
                    self.init_bytes(fty, item, out, at + *off as usize)?;
                }
                Ok(())
            }
            _ => Err(self.unsupported(e.site, "an initializer of this type", None)),
        }
    }

    // ------------------------------------------------------------------ statements

    /// Lower a function body; a `return` as its last statement needs no `Return`.
    fn body(&mut self, stmts: &[ast::Stmt]) -> R<()> {
        for (i, s) in stmts.iter().enumerate() {
            let tail = i + 1 == stmts.len();
            match &s.kind {
                StmtKind::Return(v) if tail => self.ret(v.as_ref(), s.site, true)?,
                _ => self.stmt(s)?,
            }
        }
        Ok(())
    }

    fn stmts(&mut self, stmts: &[ast::Stmt]) -> R<()> {
        for s in stmts {
            self.stmt(s)?;
        }
        Ok(())
    }

    /// A GNU statement expression `({ ...; e; })`: its statements, in their own scope, then the
    /// value of the last when it is an expression statement (else `void`).
    pub fn statement_expression(&mut self, stmts: &[ast::Stmt]) -> R<Val> {
        if let Some(at) = stmts.iter().find_map(|s| jump_out(s, false, false)) {
            return Err(self.unsupported(
                at,
                "a `return`, `break` or `continue` that leaves a statement expression `({ ... })`",
                Some("leave after the statement expression, testing its value"),
            ));
        }
        self.push_scope();
        let r = match stmts.split_last() {
            Some((last, init)) => self.stmts(init).and_then(|()| {
                let value = match &last.kind {
                    StmtKind::Expr(e) => Some(e.clone()),
                    StmtKind::Decl(decls) => self.product_read_as_declaration(decls, last.site),
                    _ => None,
                };
                let Some(e) = value else {
                    return self.stmt(last).map(|()| Val::Void);
                };
                let outer = std::mem::replace(&mut self.at, last.site);
                let v = self.rvalue(&e);
                self.at = outer;
                v
            }),
            None => Ok(Val::Void),
        };
        self.pop_scope();
        r
    }

    /// The expression statement `a * b;` or `a & b;` that the grammar reads as a declaration of
    /// `b` (as a `a *` or `a &`), where `a` is a variable here and no type.
    fn product_read_as_declaration(&self, decls: &[ast::VarDecl], site: Site) -> Option<ast::Expr> {
        let [d] = decls else { return None };
        let (op, a) = match &d.ty {
            TypeExpr::Pointer(a) => (ast::Binary::Mul, a),
            TypeExpr::Ref(a) => (ast::Binary::BitAnd, a),
            _ => return None,
        };
        let TypeExpr::Name(a) = &**a else { return None };
        if d.init.is_some()
            || d.quals != ast::Quals::default()
            || self.lookup(a).is_none()
            || self.is_type_name(a)
        {
            return None;
        }
        let name = |n: &str, site| ast::Expr {
            kind: ast::ExprKind::Ident(n.to_string()),
            site,
            span: (0, 0),
        };
        Some(ast::Expr {
            kind: ast::ExprKind::Binary(
                op,
                Box::new(name(a, site)),
                Box::new(name(&d.name, d.site)),
            ),
            site,
            span: (0, 0),
        })
    }

    /// Lower a statement in its own scope into a block (a `{ .. }`'s statements directly: the
    /// block is one level of nesting).
    fn scoped_block(&mut self, s: &ast::Stmt) -> R<Vec<Stmt>> {
        self.sub_block(|l| {
            l.push_scope();
            let r = match &s.kind {
                StmtKind::Block(b) => l.stmts(b),
                _ => l.stmt(s),
            };
            l.pop_scope();
            r
        })
    }

    fn stmt(&mut self, s: &ast::Stmt) -> R<()> {
        let outer = std::mem::replace(&mut self.at, s.site);
        let r = self.stmt_at(s);
        self.at = outer;
        r
    }

    fn stmt_at(&mut self, s: &ast::Stmt) -> R<()> {
        let site = s.site;
        match &s.kind {
            StmtKind::Empty => Ok(()),
            StmtKind::Typedef(name, t) => {
                let ty = self.ty(t, site)?;
                if let Some(f) = self.frames.last_mut() {
                    f.tenv.insert(name.clone(), TArg::Type(ty));
                }
                Ok(())
            }
            StmtKind::Unsupported(what, help) => {
                if what == "a syntax error" {
                    return Err(self.syntax_error(site));
                }
                Err(self.unsupported(site, what, help.as_deref()))
            }
            StmtKind::Decl(decls) => {
                if let Some(e) = self.product_read_as_declaration(decls, site) {
                    return self.discard(&e);
                }
                for d in decls {
                    self.declare(d)?;
                }
                Ok(())
            }
            StmtKind::Expr(e) => match self.disguised_declaration(e) {
                Some(d) => self.declare(&d),
                None => self.discard(e),
            },
            StmtKind::Block(b) => self.nested(|l| {
                l.push_scope();
                let r = l.stmts(b);
                l.pop_scope();
                r
            }),
            StmtKind::If(c, then, els) => {
                let cond = self.truth_expr(c)?;
                if let Operand::Const(k) = cond {
                    // A constant condition (template parameters, `if constexpr`): only the
                    // branch taken exists, as after nvcc's folding.
                    let taken = if consts::truthy(k) {
                        Some(&**then)
                    } else {
                        els.as_deref()
                    };
                    if let Some(t) = taken {
                        let b = self.scoped_block(t)?;
                        for st in b {
                            self.emit(st);
                        }
                    }
                    return Ok(());
                }
                let then = self.scoped_block(then)?;
                let els = match els {
                    Some(e) => self.scoped_block(e)?,
                    None => Vec::new(),
                };
                self.emit(Stmt::If {
                    cond,
                    then,
                    els,
                    varying: false,
                    site,
                });
                Ok(())
            }
            StmtKind::For(init, cond, step, body) => {
                self.push_scope();
                let r = self.for_loop(init.as_deref(), cond.as_ref(), step.as_ref(), body, site);
                self.pop_scope();
                r
            }
            StmtKind::While(cond, body) => self.for_loop(None, Some(cond), None, body, site),
            StmtKind::DoWhile(body, cond) => {
                self.flow.push(Flow::Loop);
                let b = self.scoped_block(body);
                self.flow.pop();
                let b = b?;
                let step = self.sub_block(|l| {
                    let c = l.truth_expr(cond)?;
                    match c {
                        Operand::Const(k) if consts::truthy(k) => {}
                        Operand::Const(_) => l.emit(Stmt::Break),
                        c => l.emit(Stmt::If {
                            cond: c,
                            then: Vec::new(),
                            els: vec![Stmt::Break],
                            varying: false,
                            site: cond.site,
                        }),
                    }
                    Ok(())
                })?;
                self.emit(Stmt::Loop {
                    body: b,
                    step,
                    varying: false,
                    unrolled: false,
                    barrier_free_after: false,
                    site,
                });
                Ok(())
            }
            StmtKind::Switch(cond, body) => self.switch(cond, body, site),
            StmtKind::Case(..) => Err(self.err(site, "`case` outside a switch", None)),
            StmtKind::Break => {
                if self.flow.is_empty() {
                    return Err(self.err(site, "`break` outside a loop or switch", None));
                }
                self.emit(Stmt::Break);
                Ok(())
            }
            StmtKind::Continue => self.lower_continue(site),
            StmtKind::Return(v) => self.ret(v.as_ref(), site, false),
        }
    }

    /// A declaration the grammar read as an expression: `T (*p)[N][M] = init;`, a pointer to
    /// an array, parses as `T(*p)[N][M] = init`, an indexed functional cast assigned to. C++
    /// takes it as a declaration where `T` is a type.
    fn disguised_declaration(&mut self, e: &ast::Expr) -> Option<ast::VarDecl> {
        use ast::ExprKind as E;
        let (mut lhs, init) = match &e.kind {
            E::Assign(None, l, r) => (&**l, Some((**r).clone())),
            _ => (e, None),
        };
        let mut dims = Vec::new();
        while let E::Index(a, i) = &lhs.kind {
            dims.push(i.clone());
            lhs = a;
        }
        let (ty, declarator) = match &lhs.kind {
            E::Cast(t, x) => (t.clone(), &**x),
            E::Call(f, targs, args) if targs.is_empty() && args.len() == 1 => match &f.kind {
                E::Ident(n) => (TypeExpr::Name(n.clone()), &args[0]),
                _ => return None,
            },
            _ => return None,
        };
        let E::Unary(ast::Unary::Deref, x) = &declarator.kind else {
            return None;
        };
        let E::Ident(name) = &x.kind else {
            return None;
        };
        if dims.is_empty() || self.sub_block(|l| l.ty(&ty, e.site).map(|_| ())).is_err() {
            return None;
        }
        let ty = dims
            .into_iter()
            .fold(ty, |t, n| TypeExpr::Array(Box::new(t), Some(n)));
        Some(ast::VarDecl {
            name: name.clone(),
            ty: TypeExpr::Pointer(Box::new(ty)),
            quals: ast::Quals::default(),
            init,
            site: x.site,
        })
    }

    fn ret(&mut self, v: Option<&ast::Expr>, site: Site, tail: bool) -> R<()> {
        let deduce = self.frames.last().is_some_and(|f| f.deduce_ret);
        let ret = self.frames.last().and_then(|f| f.ret.clone());
        match (v, ret) {
            (Some(e), Some((place, ty))) => {
                let val = match (self.returned_place(e)?, &e.kind) {
                    // A reference's place is kept for the caller; its value is the call's.
                    (Some(Ok(at)), _) => {
                        let v = self.read(&at, e.site)?;
                        if let Some(f) = self.frames.last_mut() {
                            f.ret_place = Some(Some(at));
                        }
                        v
                    }
                    (Some(Err(v)), _) => v,
                    (None, ast::ExprKind::InitList(items)) => self.init_list(items, &ty, e.site)?,
                    (None, _) if self.returns_copy(e) => self.copied(&ty, e, e.site)?,
                    (None, _) => self.rvalue(e)?,
                };
                let val = self.convert_val(val, &ty, e.site)?;
                self.write(&place, val, site)?;
                self.return_pointers(e, site)?;
            }
            (Some(e), None) if deduce => {
                // The first `return` of a deduced return type: a place of its value's type.
                let val = if self.returns_copy(e) {
                    self.copy_of(e, e.site)?
                } else {
                    self.rvalue(e)?
                };
                let place = self.temp_place(val.clone(), site);
                let ty = self.val_ty(&val);
                if let Some(f) = self.frames.last_mut() {
                    f.ret = Some((place, ty));
                }
            }
            (Some(e), None) => {
                // `return f();` of a void function still evaluates f().
                self.discard(e)?;
            }
            (None, Some(_)) => {
                return Err(self.err(site, "this function must return a value", None));
            }
            (None, None) => {}
        }
        if !tail {
            self.emit(Stmt::Return);
        }
        Ok(())
    }

    /// Whether `return e;` copies `e` into the caller's object (else `e` is that object or a
    /// reference is returned).
    fn returns_copy(&self, e: &ast::Expr) -> bool {
        match self.frames.last().and_then(|f| f.elided.as_ref()) {
            None => false,
            Some(Some(v)) => !matches!(&e.kind, ast::ExprKind::Ident(n) if n == v),
            Some(None) => true,
        }
    }

    /// The place `return e;` refers to in a function that returns a reference warpsim follows
    /// (its run-time indices as they are at the `return`): `Err` with the value of a call
    /// that returned none; `None` where `e` is to be lowered as a value.
    fn returned_place(&mut self, e: &ast::Expr) -> R<Option<Result<Place, Val>>> {
        if self
            .frames
            .last()
            .and_then(|f| f.ret_place.as_ref())
            .is_none()
        {
            return Ok(None);
        }
        let p = match &e.kind {
            ast::ExprKind::Call(..) => match self.call_place(e)? {
                Ok(p) => p,
                Err((v, _)) => return Ok(Some(Err(v))),
            },
            // Decide on a lowering that is dropped: an expression that is no place is returned
            // by value.
            _ if expr::is_lvalue_like(e) && self.sub_block(|l| l.place(e).map(|_| ())).is_ok() => {
                self.place(e)?
            }
            _ => return Ok(None),
        };
        Ok(Some(Ok(self.freeze(p, e.site))))
    }

    fn for_loop(
        &mut self,
        init: Option<&ast::Stmt>,
        cond: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        body: &ast::Stmt,
        site: Site,
    ) -> R<()> {
        if let Some(i) = init {
            self.stmt(i)?;
        }
        let mut check = Vec::new();
        if let Some(c) = cond {
            let mut never = false;
            check = self.sub_block(|l| {
                let op = l.truth_expr(c)?;
                match op {
                    Operand::Const(k) if consts::truthy(k) => {}
                    Operand::Const(_) => never = true,
                    op => l.emit(Stmt::If {
                        cond: op,
                        then: Vec::new(),
                        els: vec![Stmt::Break],
                        varying: false,
                        site: c.site,
                    }),
                }
                Ok(())
            })?;
            if never {
                return Ok(());
            }
        }
        self.flow.push(Flow::Loop);
        let b = self.scoped_block(body);
        self.flow.pop();
        check.extend(b?);
        let step = match step {
            Some(e) => self.sub_block(|l| l.discard(e))?,
            None => Vec::new(),
        };
        self.emit(Stmt::Loop {
            body: check,
            step,
            varying: false,
            unrolled: false,
            barrier_free_after: false,
            site,
        });
        Ok(())
    }

    fn lower_continue(&mut self, site: Site) -> R<()> {
        match self.flow.last().copied() {
            None => Err(self.err(site, "`continue` outside a loop", None)),
            Some(Flow::Loop) => {
                self.emit(Stmt::Continue);
                Ok(())
            }
            Some(Flow::Switch(flag)) => {
                let Some(flag) = flag else {
                    return Err(self.err(
                        site,
                        "`continue` in this switch has no enclosing loop",
                        None,
                    ));
                };
                self.assign_to(
                    flag,
                    Scalar::Bool,
                    Op::Copy {
                        src: bool_const(true),
                    },
                    site,
                );
                self.emit(Stmt::Break);
                Ok(())
            }
        }
    }

    /// `switch`: a one-pass loop over the sections; a section runs when a `matched` flag is
    /// set (by its label, or by an earlier section falling through); `break` leaves the loop.
    fn switch(&mut self, cond: &ast::Expr, body: &[ast::Stmt], site: Site) -> R<()> {
        let (v, vt) = self.scalar(cond)?;
        if vt.is_float() {
            return Err(self.err(cond.site, "switch on a floating-point value", None));
        }
        let pt = self::types::promote(vt);
        let v = self.convert(v, vt, pt, cond.site);
        let mut sections: Vec<(Option<Const>, &[ast::Stmt], Site)> = Vec::new();
        for s in body {
            match &s.kind {
                StmtKind::Case(label, stmts) => {
                    let c = match label {
                        Some(e) => Some(consts::convert(self.const_eval(e)?, pt)),
                        None => None,
                    };
                    sections.push((c, stmts, s.site));
                }
                _ if sections.is_empty() => {} // unreachable code before the first label
                _ => {
                    return Err(self.err(
                        s.site,
                        "a statement between case labels that the grammar did not attach",
                        None,
                    ));
                }
            }
        }
        let has_continue = body.iter().any(contains_continue);
        let cont = has_continue.then(|| {
            let f = self.temp(Scalar::Bool);
            self.assign_to(
                f,
                Scalar::Bool,
                Op::Copy {
                    src: bool_const(false),
                },
                site,
            );
            f
        });
        // `default` matches when no label does.
        let any = if sections.iter().any(|s| s.0.is_none()) {
            let mut any = bool_const(false);
            for (c, _, s) in &sections {
                if let Some(c) = c {
                    let eq = self.cmp(ir::CmpOp::Eq, pt, v, Operand::Const(*c), *s);
                    any = self.logic(false, any, eq, *s);
                }
            }
            Some(any)
        } else {
            None
        };
        let matched = self.temp(Scalar::Bool);
        self.assign_to(
            matched,
            Scalar::Bool,
            Op::Copy {
                src: bool_const(false),
            },
            site,
        );
        self.flow.push(Flow::Switch(cont));
        let b = self.sub_block(|l| {
            for (c, stmts, s) in &sections {
                let hit = match c {
                    Some(c) => l.cmp(ir::CmpOp::Eq, pt, v, Operand::Const(*c), *s),
                    None => l.not(any.expect("computed with a default"), *s),
                };
                let m = l.logic(false, Operand::Var(matched), hit, *s);
                l.assign_to(matched, Scalar::Bool, Op::Copy { src: m }, *s);
                if stmts.is_empty() {
                    continue;
                }
                let then = l.sub_block(|l| {
                    l.push_scope();
                    let r = l.stmts(stmts);
                    l.pop_scope();
                    r
                })?;
                l.emit(Stmt::If {
                    cond: Operand::Var(matched),
                    then,
                    els: Vec::new(),
                    varying: false,
                    site: *s,
                });
            }
            l.emit(Stmt::Break);
            Ok(())
        });
        self.flow.pop();
        self.emit(Stmt::Loop {
            body: b?,
            step: Vec::new(),
            varying: false,
            unrolled: false,
            barrier_free_after: false,
            site,
        });
        if let Some(f) = cont {
            let then = self.sub_block(|l| l.lower_continue(site))?;
            self.emit(Stmt::If {
                cond: Operand::Var(f),
                then,
                els: Vec::new(),
                varying: false,
                site,
            });
        }
        Ok(())
    }

    // ------------------------------------------------------------------ declarations

    fn declare(&mut self, d: &ast::VarDecl) -> R<()> {
        self.declaring.push((d.name.clone(), d.ty.clone()));
        let r = self.declare_now(d);
        self.declaring.pop();
        r
    }

    fn declare_now(&mut self, d: &ast::VarDecl) -> R<()> {
        let site = d.site;
        if d.quals.is_static && !d.quals.shared || d.quals.constant {
            return Err(self.unsupported(
                site,
                "a `static` or `__constant__` variable inside a function",
                Some("use a local variable, or pass the data as a kernel parameter"),
            ));
        }
        // `auto x = e;`, `auto *p = e;`: the initializer's type (a pointer's, for `auto *`).
        let auto = match &d.ty {
            TypeExpr::Auto => true,
            TypeExpr::Pointer(t) => **t == TypeExpr::Auto,
            _ => false,
        };
        if auto {
            let Some(init) = &d.init else {
                return Err(self.err(site, "`auto` needs an initializer", None));
            };
            let v = self.copy_of(init, site)?;
            let ty = self.val_ty(&v);
            if d.ty != TypeExpr::Auto && !matches!(ty, Ty::Pointer(_)) {
                return Err(self.err(site, "`auto *` needs a pointer initializer", None));
            }
            return self.declare_with(d, ty, Some(v));
        }
        if let TypeExpr::Ref(inner) = &d.ty {
            let Some(init) = &d.init else {
                return Err(self.err(site, "a reference needs an initializer", None));
            };
            self.ref_names.insert(d.name.clone());
            // `const auto &r = e;` takes the initializer's type, as `auto` does.
            if **inner != TypeExpr::Auto {
                self.ty(&d.ty, site)?;
            }
            // A `const` reference to what is not an object (`x.lower()`, `a + b`) binds a
            // temporary holding its value, as C++ does; one to a function's reference result
            // reads it as of the declaration.
            if d.quals.is_const && !expr::is_lvalue_like(init) {
                let v = self.rvalue(init)?;
                let ty = self.val_ty(&v);
                return self.declare_with(d, ty, Some(v));
            }
            let p = self.place(init)?;
            self.bind(&d.name, Sym::Place(p));
            return Ok(());
        }
        let ty = self.ty(&d.ty, site)?;
        // `S *p = &s;` of a struct variable whose pointer fields are pointer variables (no
        // memory holds them for `p` to point into): `p` names `s`, as a pointer parameter given
        // `&s` does.
        if let (Ty::Pointer(_), Some(init)) = (&ty, &d.init)
            && let ast::ExprKind::Unary(ast::Unary::AddrOf, x) = &init.kind
            && let Some(fields) = self.field_pointers_of(x, &[])
        {
            let target = self.place(x)?;
            self.bind(&d.name, Sym::Place(Place::Alias(Box::new(target), None)));
            self.carry_pointers(&d.name, fields);
            return Ok(());
        }
        // `const T *p = &s.a[i];` (or `= s.a`) of an array held in variables: `p[k]` names its
        // elements.
        if let (Ty::Pointer(pointee), Some(init)) = (&ty, &d.init)
            && **pointee != Ty::Void
            && let Some(alias) = self.element_address(init)
        {
            self.bind(&d.name, Sym::Place(alias));
            return Ok(());
        }
        // `char s[] = "abc";` is `char s[] = {'a', 'b', 'c', 0};`.
        if let (Ty::Array(elem, _), Some(init)) = (&ty, &d.init)
            && let ast::ExprKind::Str(text) = &init.kind
            && matches!(**elem, Ty::Scalar(Scalar::I8 | Scalar::U8))
        {
            let chars = text
                .bytes()
                .chain([0])
                .map(|b| ast::Expr {
                    kind: ast::ExprKind::Char(i64::from(b)),
                    ..init.clone()
                })
                .collect();
            let init = ast::Expr {
                kind: ast::ExprKind::InitList(chars),
                ..init.clone()
            };
            return self.declare(&ast::VarDecl {
                init: Some(init),
                ..d.clone()
            });
        }
        let ty = sized_by_init(ty, d.init.as_ref());
        if let (true, Ty::Group(g)) = (d.quals.shared, &ty) {
            self.bind(&d.name, Sym::Place(Place::Group(*g)));
            return Ok(());
        }
        if d.quals.shared {
            return self.declare_shared(d, ty);
        }
        // `const int n = 4;` with a constant value is a compile-time constant, as in C++.
        if d.quals.is_const
            && let Ty::Scalar(s) = ty
            && let Some(init) = &d.init
            && !matches!(init.kind, ast::ExprKind::InitList(_))
        {
            let v = self.rvalue(init)?;
            if let Val::Scalar(Operand::Const(c), _) = v
                && !self.addressed.contains(&site)
            {
                self.bind(&d.name, Sym::Const(consts::convert(c, s)));
                self.const_declared_at.insert(d.name.clone(), site);
                return Ok(());
            }
            return self.declare_with(d, ty, Some(v));
        }
        let v = match &d.init {
            Some(e) => match (&e.kind, &ty) {
                (ast::ExprKind::InitList(items), Ty::Array(..)) => {
                    let items = items.clone();
                    self.declare_with(d, ty.clone(), None)?;
                    return self.init_array(&d.name, &items, site);
                }
                (ast::ExprKind::InitList(items), _) => Some(self.init_list(items, &ty, e.site)?),
                _ => Some(self.copied(&ty, e, site)?),
            },
            // `S s;` runs a default constructor, if `S` has one.
            None if matches!(ty, Ty::Struct(_)) && self.has_default_ctor(&ty) => {
                Some(self.construct(&ty, Vec::new(), site)?)
            }
            // `S s;` of a struct with default member initializers.
            None if matches!(ty, Ty::Struct(i) if self.has_defaults(i)) => {
                Some(self.default_value(&ty, site)?)
            }
            None => None,
        };
        self.declare_with(d, ty.clone(), v)?;
        self.own_pointers(&d.name, &ty, d.init.as_ref(), site)
    }

    /// A struct variable `name` of type `ty` with pointer fields gets a pointer variable for
    /// each, so that its fields can be indexed and handed on (`v.p[i]`, `f(v)`), starting as
    /// those of `init` where it names a struct that carries them or calls a function that
    /// returns one.
    fn own_pointers(&mut self, name: &str, ty: &Ty, init: Option<&ast::Expr>, site: Site) -> R<()> {
        let own = self.pointer_variables(name, ty, site);
        if own.is_empty() {
            return Ok(());
        }
        // `S s(a, b);`, `S s{a, b};` of a struct with constructors, and `S s;` of one with a
        // default constructor, ran one.
        let constructed = match init {
            None => self.has_default_ctor(ty),
            Some(e) => matches!(e.kind, ast::ExprKind::InitList(_)) && self.has_ctor(ty),
        };
        let src = if constructed {
            self.returned_pointers.take()
        } else {
            init.and_then(|e| self.pointers_of_value(e))
        };
        if let Some(src) = src {
            self.copy_pointers(&own, &src, site)?;
        }
        self.carry_pointers(name, own);
        Ok(())
    }

    /// The pointer fields of the struct value `e` (just lowered): a struct variable's that
    /// carries them, or those a call returned.
    fn pointers_of_value(&mut self, e: &ast::Expr) -> Option<PointerFields> {
        match &e.kind {
            ast::ExprKind::Call(..) => self.returned_pointers.take(),
            _ => self.field_pointers_of(e, &[]),
        }
    }

    /// Each pointer field of `dst` takes the value of `src`'s at the same path.
    fn copy_pointers(&mut self, dst: &PointerFields, src: &PointerFields, site: Site) -> R<()> {
        for (path, k) in dst {
            if let Some((_, from)) = src.iter().find(|(p, _)| p == path) {
                let v = self.read(&Place::Ptr(*from), site)?;
                self.write(&Place::Ptr(*k), v, site)?;
            }
        }
        Ok(())
    }

    /// `return e;` of a struct that carries pointer fields: the call's returned pointers
    /// take their values.
    fn return_pointers(&mut self, e: &ast::Expr, site: Site) -> R<()> {
        let Some(src) = self.field_pointers_of(e, &[]) else {
            return Ok(());
        };
        let own = match self.frames.last().and_then(|f| f.ret_pointers.clone()) {
            Some(own) => own,
            None => {
                let mut own = Vec::new();
                for (path, idx) in &src {
                    let pointee = self.ptrs[*idx].pointee.clone();
                    let k = self.new_ptr("return", pointee, site);
                    self.ptrs[k].reference = self.ptrs[*idx].reference;
                    own.push((path.clone(), k));
                }
                if let Some(f) = self.frames.last_mut() {
                    f.ret_pointers = Some(own.clone());
                }
                own
            }
        };
        self.copy_pointers(&own, &src, site)
    }

    fn declare_with(&mut self, d: &ast::VarDecl, ty: Ty, init: Option<Val>) -> R<()> {
        let site = d.site;
        match &ty {
            Ty::Group(g) => {
                let g = match init {
                    Some(Val::Group(g)) => g,
                    None => *g,
                    Some(_) => return Err(self.err(site, "a group handle must come from cg::this_thread_block() or cg::tiled_partition", None)),
                };
                self.bind(&d.name, Sym::Place(Place::Group(g)));
            }
            Ty::Closure(_) => {
                let Some(Val::Closure(c)) = init else {
                    return Err(self.err(site, "a lambda variable needs a lambda", None));
                };
                self.bind(&d.name, Sym::Place(Place::Closure(c)));
            }
            Ty::Pointer(pointee) => {
                let idx = self.new_ptr(&d.name, (**pointee).clone(), site);
                if let Some(v) = init {
                    let v = self.convert_val(v, &ty, site)?;
                    self.write(&Place::Ptr(idx), v, site)?;
                }
                self.bind(&d.name, Sym::Place(Place::Ptr(idx)));
            }
            Ty::Array(elem, n) => {
                let Some(n) = n else {
                    return Err(self.err(site, "a local array needs a size", None));
                };
                let mut base = (**elem).clone();
                let mut count = *n;
                while let Ty::Array(inner, Some(k)) = base {
                    count *= k;
                    base = *inner;
                }
                let arrays = self.new_local(&d.name, &base, count, site)?;
                self.bind(
                    &d.name,
                    Sym::Place(Place::Local {
                        arrays,
                        index: Vec::new(),
                        ty: ty.clone(),
                    }),
                );
                if init.is_some() {
                    return Err(self.err(site, "initialize a local array with `= {..}`", None));
                }
            }
            // A variable whose address is taken, or one holding a union (whose members are
            // its bytes read and written through pointers of their types): an array of one
            // element.
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Struct(_)
                if self.addressed.contains(&site) || ty.has_union(&self.structs) =>
            {
                let arrays = self.new_local(&d.name, &ty, 1, site)?;
                let place = Place::Local {
                    arrays,
                    index: Vec::new(),
                    ty: ty.clone(),
                };
                if let Some(v) = init {
                    let v = self.convert_val(v, &ty, site)?;
                    self.write(&place, v, site)?;
                }
                self.bind(&d.name, Sym::Place(place));
            }
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Struct(_) => {
                let leaves = ty.leaves(&self.structs);
                let vars: Vec<VarId> = leaves
                    .iter()
                    .enumerate()
                    .map(|(k, (_, s))| {
                        let n = if leaves.len() == 1 {
                            d.name.clone()
                        } else {
                            format!("{}.{k}", d.name)
                        };
                        self.new_var(&n, *s)
                    })
                    .collect();
                self.declared_at.extend(vars.iter().map(|v| (*v, site)));
                let place = Place::Reg {
                    ty: ty.clone(),
                    vars,
                };
                if let Some(v) = init {
                    let v = self.convert_val(v, &ty, site)?;
                    self.write(&place, v, site)?;
                }
                self.bind(&d.name, Sym::Place(place));
            }
            Ty::Void => return Err(self.err(site, "a variable cannot be void", None)),
            Ty::Texture => return Err(self.texture_misuse(site)),
        }
        Ok(())
    }

    /// Per-thread arrays of `count` elements of type `elem`, one per scalar leaf.
    fn new_local(&mut self, name: &str, elem: &Ty, count: u32, site: Site) -> R<Vec<u32>> {
        let leaves = elem.leaves(&self.structs);
        if leaves.is_empty() {
            return Err(self.unsupported(site, "an array of this element type", None));
        }
        let arrays: Vec<u32> = leaves
            .iter()
            .enumerate()
            .map(|(k, (_, s))| {
                self.locals.push(ir::LocalArray {
                    name: if leaves.len() == 1 {
                        name.to_string()
                    } else {
                        format!("{name}.{k}")
                    },
                    ty: *s,
                    len: count,
                });
                self.locals.len() as u32 - 1
            })
            .collect();
        for a in &arrays {
            self.local_groups.insert(*a, (arrays.clone(), elem.clone()));
        }
        Ok(arrays)
    }

    /// `T a[n] = {..}`: element stores at constant indexes.
    fn init_array(&mut self, name: &str, items: &[ast::Expr], site: Site) -> R<()> {
        let Some(Sym::Place(p @ Place::Local { .. })) = self.lookup(name).cloned() else {
            return Err(self.err(site, "array initializer", None));
        };
        self.init_place(p, items, site)
    }

    fn init_place(&mut self, p: Place, items: &[ast::Expr], site: Site) -> R<()> {
        for (k, item) in items.iter().enumerate() {
            let ep = self.index_place(
                p.clone(),
                Operand::Const(consts::int(Scalar::I32, k as i128)),
                site,
            )?;
            let ty = self.place_ty(&ep);
            let v = match (&item.kind, &ty) {
                (ast::ExprKind::InitList(sub), Ty::Array(..)) => {
                    self.init_place(ep, sub, item.site)?;
                    continue;
                }
                (ast::ExprKind::InitList(sub), _) => self.init_list(sub, &ty, item.site)?,
                _ => self.copied(&ty, item, item.site)?,
            };
            let v = self.convert_val(v, &ty, item.site)?;
            self.write(&ep, v, item.site)?;
        }
        Ok(())
    }

    /// `{a, b, ..}` for a vector or struct.
    pub fn init_list(&mut self, items: &[ast::Expr], ty: &Ty, site: Site) -> R<Val> {
        match ty {
            Ty::Scalar(s) => match items.first() {
                Some(e) => {
                    let (op, t) = self.scalar(e)?;
                    Ok(Val::Scalar(self.convert(op, t, *s, site), *s))
                }
                None => Ok(Val::Scalar(Operand::Const(consts::int(*s, 0)), *s)),
            },
            Ty::Struct(i)
                if {
                    let short = self.structs.list[*i]
                        .def
                        .map(|d| self.m.ast.structs[d].name.clone())
                        .unwrap_or_default();
                    !self.methods(*i, &short).is_empty()
                } =>
            {
                // A struct with constructors: `S s{a, b}` and `S s(a, b)` call one.
                self.construct(ty, items.iter().map(ArgIn::Expr).collect(), site)
            }
            Ty::Struct(i) if self.structs.list[*i].union => {
                self.union_value(ty, items.iter().map(ArgIn::Expr).collect(), site)
            }
            Ty::Struct(i) if !self.structs.list[*i].refs.is_empty() => {
                Err(self.aggregate_with_reference(*i, site))
            }
            Ty::Vector(..) | Ty::Struct(_) => {
                let mut leaves = Vec::new();
                let parts: Vec<Ty> = match ty {
                    Ty::Vector(s, n) => (0..*n).map(|_| Ty::Scalar(*s)).collect(),
                    Ty::Struct(i) => self.structs.list[*i]
                        .fields
                        .iter()
                        .map(|f| f.1.clone())
                        .collect(),
                    _ => unreachable!("matched above"),
                };
                for (k, pt) in parts.iter().enumerate() {
                    let v = match items.get(k) {
                        Some(e) => match &e.kind {
                            ast::ExprKind::InitList(sub) => self.init_list(sub, pt, e.site)?,
                            _ => {
                                let v = self.copied(pt, e, e.site)?;
                                self.convert_val(v, pt, e.site)?
                            }
                        },
                        // Fields the list leaves out take their default member initializers.
                        None => match ty {
                            Ty::Struct(i) => self.field_default(*i, k, site)?,
                            _ => self.zero(pt, site)?,
                        },
                    };
                    leaves.extend(self.leaves_of(v));
                }
                Ok(Val::Agg(ty.clone(), leaves))
            }
            _ => Err(self.unsupported(site, "this initializer list", None)),
        }
    }

    /// Whether struct `i`, or a struct among its fields, has default member initializers.
    fn has_defaults(&self, i: usize) -> bool {
        let s = &self.structs.list[i];
        s.def
            .is_some_and(|d| !self.m.ast.structs[d].defaults.is_empty())
            || s.fields.iter().any(|(_, t, _)| match t {
                Ty::Struct(j) => self.has_defaults(*j),
                _ => false,
            })
    }

    /// The value field `k` of struct `i` takes where nothing else sets it: its default member
    /// initializer (`int a = 5;`, `float b{2.5f};`), else its type's [`Self::default_value`].
    fn field_default(&mut self, i: usize, k: usize, site: Site) -> R<Val> {
        let (name, ty, _) = self.structs.list[i].fields[k].clone();
        let m = self.m;
        let init = self.structs.list[i].def.and_then(|d| {
            m.ast.structs[d]
                .defaults
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, e)| e)
        });
        match init {
            Some(e) => match &e.kind {
                ast::ExprKind::InitList(items) => self.init_list(items, &ty, e.site),
                _ => {
                    let v = self.rvalue(e)?;
                    self.convert_val(v, &ty, e.site)
                }
            },
            None => self.default_value(&ty, site),
        }
    }

    /// A value of type `ty` where no initializer gives one: a struct's fields with default
    /// member initializers take them, the rest is zero.
    fn default_value(&mut self, ty: &Ty, site: Site) -> R<Val> {
        match ty {
            Ty::Struct(i) if self.has_defaults(*i) => {
                let mut leaves = Vec::new();
                for k in 0..self.structs.list[*i].fields.len() {
                    let v = self.field_default(*i, k, site)?;
                    leaves.extend(self.leaves_of(v));
                }
                Ok(Val::Agg(ty.clone(), leaves))
            }
            _ => self.zero(ty, site),
        }
    }

    /// The zero value of a type.
    pub fn zero(&mut self, ty: &Ty, site: Site) -> R<Val> {
        match ty {
            Ty::Scalar(s) => Ok(Val::Scalar(Operand::Const(consts::int(*s, 0)), *s)),
            Ty::Vector(..) | Ty::Struct(_) => {
                let leaves = ty
                    .leaves(&self.structs)
                    .iter()
                    .map(|(_, s)| Operand::Const(consts::int(*s, 0)))
                    .collect();
                Ok(Val::Agg(ty.clone(), leaves))
            }
            _ => Err(self.unsupported(site, "a zero value of this type", None)),
        }
    }

    fn declare_shared(&mut self, d: &ast::VarDecl, ty: Ty) -> R<()> {
        let p = self.shared_place(d, ty)?;
        self.bind(&d.name, Sym::Place(p));
        Ok(())
    }

    /// The memory of a `__shared__` declaration: a static array (one per declaration, however
    /// often an inlined function declares it) or the launch's dynamic shared memory.
    fn shared_place(&mut self, d: &ast::VarDecl, ty: Ty) -> R<Place> {
        let site = d.site;
        if d.init.is_some() {
            return Err(self.err(
                site,
                "__shared__ variables cannot have an initializer",
                Some("assign it in the kernel, then __syncthreads()".into()),
            ));
        }
        let unsized_array = matches!(ty, Ty::Array(_, None));
        let base = if d.quals.is_extern || unsized_array {
            if !unsized_array {
                return Err(self.err(
                    site,
                    "extern __shared__ must be an unsized array: `extern __shared__ float s[];`",
                    None,
                ));
            }
            Base::DynamicShared
        } else {
            let bytes = ty.size(&self.structs);
            let key = (site, format!("{:?}", ty));
            let idx = match self.shared_keys.get(&key) {
                Some(i) => *i,
                None => {
                    self.shared.push(ir::SharedArray {
                        name: d.name.clone(),
                        bytes,
                        align: ty.align(&self.structs),
                        site,
                    });
                    let i = self.shared.len() as u32 - 1;
                    self.shared_keys.insert(key, i);
                    i
                }
            };
            Base::Shared(idx)
        };
        let ptr = PtrVal::at(base, ty.clone());
        Ok(Place::Mem { ptr, ty })
    }

    /// The error for `what`, a part of the grid-wide cooperative groups warpsim lacks.
    pub fn grid_group(&self, site: Site, what: &str) -> Diagnostic {
        self.unsupported(
            site,
            what,
            Some(
                "a grid group has thread_rank, size, num_threads, block_rank, num_blocks, \
                 block_index, dim_blocks, is_valid and sync (in a cooperative launch); for \
                 several devices, launch on each",
            ),
        )
    }

    // ------------------------------------------------------------------ calls

    /// Call a user `__device__` function by inlining it (`name` as written, namespace
    /// aliases resolved); `None` when no user function has this name.
    pub fn call_user(
        &mut self,
        name: &str,
        targs: &[TemplateArg],
        args: Vec<ArgIn<'_>>,
        site: Site,
    ) -> R<Option<Val>> {
        let ns = self.frames.last().map_or(String::new(), |f| f.ns.clone());
        let m = self.m;
        // As C++ looks a name up: in the caller's namespace, then in each enclosing one
        // (`warps::f` called in `A::kernels` is `A::kernels::warps::f`, else `A::warps::f`,
        // else `warps::f`); the innermost that declares it hides the others. `::f` is the
        // global namespace's.
        let (scopes, name): (Vec<&str>, &str) = match name.strip_prefix("::") {
            Some(name) => (vec![""], name),
            None => (enclosing(&ns).collect(), name),
        };
        let mut found: Vec<&Function> = Vec::new();
        for scope in scopes {
            let full = format!("{scope}{name}");
            found = m.ast.functions.iter().filter(|f| f.name == full).collect();
            if !found.is_empty() {
                break;
            }
        }
        // A variadic template is a candidate as its instance for this call's pack.
        let mut instances = Vec::new();
        for f in &found {
            if packs::is_variadic(f)
                && let Some(n) = packs::pack_len(f, args.len(), targs.len())
            {
                let g = packs::instantiate(f, n)
                    .map_err(|(at, what)| self.unsupported(at, &what, None))?;
                instances.push(g);
            }
        }
        let mut cands: Vec<&Function> = found
            .into_iter()
            .filter(|f| !packs::is_variadic(f))
            .chain(&instances)
            .collect();
        if cands.is_empty() {
            return Ok(None);
        }
        if cands.iter().all(|f| f.global) {
            return Err(self.unsupported(
                site,
                &format!("calling the kernel `{name}` from device code (dynamic parallelism)"),
                Some("launch kernels from the host"),
            ));
        }
        cands.retain(|f| !f.global && f.takes(args.len()));
        // Explicit specializations take no part in overload resolution: the primary template
        // is chosen, and its specialization for the deduced arguments replaces it when inlined.
        // Where the template is only declared (`template <typename T> T f(T);` and then its
        // specializations), they are the candidates: those for the explicit arguments given.
        let (specs, primaries): (Vec<&Function>, Vec<&Function>) =
            cands.into_iter().partition(|f| f.specialization.is_some());
        cands = primaries;
        if cands.is_empty() {
            for f in specs {
                let given = f.specialization.as_deref().unwrap_or_default();
                if given.is_empty() || self.same_targs(given, targs, site)? {
                    cands.push(f);
                }
            }
        }
        // The program's overloads add to the built-in ones (helper_math.h's
        // `make_float3(float)`, `fminf(float3, float3)`): with none that can take these
        // arguments, the built-in function is called.
        // (An argument typed only by its parameter, `{1, 2}` or a local array, fits any.)
        let arg_tys: Vec<Option<Ty>> = args.iter().map(|a| self.arg_ty(a).ok()).collect();
        let mut viable = Vec::new();
        for f in cands {
            if self.viable(f, &arg_tys, site) {
                viable.push(f);
            }
        }
        if viable.is_empty() {
            return Ok(None);
        }
        let f = self.overload(&viable, &args)?;
        self.inline(f, targs, args, None, site).map(Some)
    }

    /// Whether `f`'s parameters can take arguments of types `arg_tys`: numbers convert to
    /// numbers, and to structs with a constructor of one parameter, and pointers to pointers;
    /// vectors and structs must be the same (a parameter whose type depends on a template
    /// parameter takes anything).
    fn viable(&mut self, f: &Function, arg_tys: &[Option<Ty>], site: Site) -> bool {
        f.params.iter().zip(arg_tys).all(|(p, at)| {
            let Some(at) = at else {
                return true;
            };
            // (Resolved in the caller, `T` would be the caller's own `T`.)
            if dependent(&p.ty, &f.template) {
                return true;
            }
            let pt = match &p.ty {
                TypeExpr::Ref(inner) => (**inner).clone(),
                t => t.clone(),
            };
            let Ok(pt) = self.ty(&pt, site) else {
                return true;
            };
            // An array parameter is a pointer (`float3 colors[16]`).
            let pt = match pt {
                Ty::Array(e, _) => Ty::Pointer(e),
                t => t,
            };
            match (&pt, at) {
                // A group parameter (`cg::thread_group`) takes any group; passing it decides.
                (Ty::Scalar(_), Ty::Scalar(_))
                | (Ty::Pointer(_), Ty::Pointer(_))
                | (Ty::Group(_), Ty::Group(_)) => true,
                // A converting constructor: `__half2float(s)` of a `short`.
                (Ty::Struct(_), Ty::Scalar(_)) => self.ctors(&pt).iter().any(|c| c.takes(1)),
                (Ty::Scalar(_) | Ty::Pointer(_), _) | (_, Ty::Scalar(_) | Ty::Pointer(_)) => false,
                (a, b) => a == b,
            }
        })
    }

    /// The type an argument has (an expression is lowered into a block that is dropped).
    pub fn arg_ty(&mut self, a: &ArgIn<'_>) -> R<Ty> {
        match a {
            ArgIn::Val(v) => Ok(self.val_ty(v)),
            ArgIn::Place(p) => Ok(self.place_ty(p)),
            ArgIn::Expr(e) => {
                let mut t = Ty::Void;
                self.sub_block(|l| {
                    // `&x` of a local variable is no value, nor is a parameter given one, but
                    // their type is a pointer to x's.
                    if let ast::ExprKind::Unary(ast::Unary::AddrOf, x) = &e.kind
                        && expr::is_lvalue_like(x)
                    {
                        let p = l.place(x)?;
                        t = Ty::Pointer(Box::new(l.place_ty(&p)));
                        return Ok(());
                    }
                    if let Some(p) = l.alias_target(e) {
                        t = Ty::Pointer(Box::new(l.place_ty(&p)));
                        return Ok(());
                    }
                    let v = l.rvalue(e)?;
                    t = l.val_ty(&v);
                    Ok(())
                })?;
                Ok(t)
            }
        }
    }

    /// The best of several functions for `args`: parameter types equal to the arguments',
    /// then of the same kind.
    pub fn overload<'f>(&mut self, cands: &[&'f Function], args: &[ArgIn<'_>]) -> R<&'f Function> {
        if cands.len() == 1 {
            return Ok(cands[0]);
        }
        let mut arg_tys = Vec::new();
        for a in args {
            arg_tys.push(self.arg_ty(a)?);
        }
        // C++ prefers a function that is no template where the conversions tie.
        let mut best = ((i32::MIN, false), cands[0]);
        for f in cands {
            let mut score = 0;
            for (p, at) in f.params.iter().zip(&arg_tys) {
                // A type that depends on the callee's template parameters is deduced from the
                // argument: an exact match.
                if dependent(&p.ty, &f.template) {
                    score += 2;
                    continue;
                }
                let pt = match &p.ty {
                    TypeExpr::Ref(inner) => (**inner).clone(),
                    t => t.clone(),
                };
                // An array argument matches a pointer to its elements (it decays).
                let decay = |t: &Ty| match t {
                    Ty::Array(e, _) => Ty::Pointer(e.clone()),
                    t => t.clone(),
                };
                match self.ty(&pt, p.site) {
                    Ok(t) if t == *at || decay(&t) == decay(at) => score += 2,
                    Ok(Ty::Scalar(a)) if matches!(at, Ty::Scalar(b) if a.is_float() == b.is_float()) => {
                        score += 1
                    }
                    _ => {}
                }
            }
            let rank = (score, f.template.is_empty());
            if rank > best.0 {
                best = (rank, f);
            }
        }
        Ok(best.1)
    }

    /// Whether two template argument lists name the same types and values.
    fn same_targs(&mut self, a: &[TemplateArg], b: &[TemplateArg], site: Site) -> R<bool> {
        if a.len() != b.len() {
            return Ok(false);
        }
        for (x, y) in a.iter().zip(b) {
            let same = match (x, y) {
                (TemplateArg::Type(tx), TemplateArg::Type(ty)) => {
                    self.ty(tx, site)? == self.ty(ty, site)?
                }
                (TemplateArg::Expr(ex), TemplateArg::Expr(ey)) => {
                    consts::as_int(self.const_eval(ex)?) == consts::as_int(self.const_eval(ey)?)
                }
                _ => false,
            };
            if !same {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Inline a call of `f`; a member function's `owner` is its struct and, unless the
    /// function is static, the object (`this`).
    pub fn inline(
        &mut self,
        f: &Function,
        targs: &[TemplateArg],
        args: Vec<ArgIn<'_>>,
        owner: Option<(usize, Option<Place>)>,
        site: Site,
    ) -> R<Val> {
        self.inline_full(f, targs, args, owner, None, site)
    }

    /// Inline a lambda, which sees the scopes `captures` names.
    fn inline_captured(
        &mut self,
        f: &Function,
        args: Vec<ArgIn<'_>>,
        captures: Option<(usize, usize, u64, usize)>,
        site: Site,
    ) -> R<Val> {
        self.inline_full(f, &[], args, None, captures, site)
    }

    fn inline_full(
        &mut self,
        f: &Function,
        targs: &[TemplateArg],
        args: Vec<ArgIn<'_>>,
        owner: Option<(usize, Option<Place>)>,
        captures: Option<(usize, usize, u64, usize)>,
        site: Site,
    ) -> R<Val> {
        if let Some(s) = f.syntax_error {
            return Err(self.syntax_error(s));
        }
        if packs::is_variadic(f) {
            return Err(packs::uninstantiated(self, f.site));
        }
        // A member function sees its struct's template arguments, and the struct's own name;
        // a lambda the members its function sees.
        let mut tenv = HashMap::new();
        let this = owner.as_ref().and_then(|(i, p)| p.clone().map(|p| (p, *i)));
        let class = match &owner {
            Some((i, _)) => self.class_of(*i),
            None if captures.is_some() => self.frames.last().and_then(|f| f.class.clone()),
            None => None,
        };
        if let Some((i, _)) = owner {
            for (k, v) in self.structs.list[i].tenv.clone() {
                tenv.insert(k, v);
            }
            if let Some(def) = self.structs.list[i].def {
                let short = self.m.ast.structs[def].name.clone();
                tenv.insert(short, TArg::Type(Ty::Struct(i)));
            }
        }
        // Template arguments: explicit ones, then deduced from the arguments.
        for (p, a) in f.template.iter().zip(targs) {
            let v = self.targ_value(p, a, site)?;
            tenv.insert(p.name().to_string(), v);
        }
        // Evaluate the arguments in the caller, then the default arguments of the parameters
        // left: a reference parameter binds a place. A struct whose pointer fields are pointer
        // variables passes them on.
        let given = args.len().min(f.params.len());
        let defaults = f.params[given..].iter().filter_map(|p| p.default.as_ref());
        let args: Vec<ArgIn<'_>> = args.into_iter().chain(defaults.map(ArgIn::Expr)).collect();
        let mut vals: Vec<Result<Val, Place>> = Vec::new();
        let mut carried = Vec::new();
        for (p, a) in f.params.iter().zip(args) {
            carried.push(match &a {
                // `f(&s)`: the pointer parameter names `s`, pointer fields and all.
                ArgIn::Expr(ast::Expr {
                    kind: ast::ExprKind::Unary(ast::Unary::AddrOf, x),
                    ..
                }) if matches!(p.ty, TypeExpr::Pointer(_)) => self.field_pointers_of(x, &[]),
                ArgIn::Expr(e) => self.field_pointers_of(e, &[]),
                _ => None,
            });
            let by_ref = matches!(p.ty, TypeExpr::Ref(_));
            vals.push(match (a, by_ref) {
                (ArgIn::Expr(e), by_ref) if matches!(e.kind, ast::ExprKind::InitList(_)) => {
                    // `f({a, b})`: the list initializes the parameter's type.
                    let ast::ExprKind::InitList(items) = &e.kind else {
                        unreachable!("matched above")
                    };
                    let pt = match &p.ty {
                        TypeExpr::Ref(inner) => (**inner).clone(),
                        t => t.clone(),
                    };
                    let ty = self.ty(&pt, p.site)?;
                    let v = self.init_list(items, &ty, e.site)?;
                    if by_ref {
                        Err(self.temp_place(v, e.site))
                    } else {
                        Ok(v)
                    }
                }
                (ArgIn::Expr(e), true) if self.is_call_like(e) => Err(self.call_object(e)?),
                (ArgIn::Expr(e), true) => match self.place(e) {
                    Ok(pl) => Err(self.freeze(pl, site)),
                    // A temporary bound to a `const T &`.
                    Err(_) => {
                        let v = self.rvalue(e)?;
                        Err(self.temp_place(v, e.site))
                    }
                },
                // A local array passed to a pointer parameter: the parameter names the array
                // (the call is inlined, so the callee indexes the caller's registers).
                (ArgIn::Expr(e), false)
                    if matches!(p.ty, TypeExpr::Pointer(_) | TypeExpr::Array(..))
                        && matches!(e.kind, ast::ExprKind::Ident(_))
                        && matches!(
                            self.place(e),
                            Ok(Place::Local {
                                ty: Ty::Array(..),
                                ..
                            })
                        ) =>
                {
                    Err(self.place(e)?)
                }
                // The address of a variable (or such a pointer passed on), or an array held in
                // variables, to a pointer parameter: the parameter names the variable.
                (ArgIn::Expr(e), false)
                    if matches!(p.ty, TypeExpr::Pointer(_) | TypeExpr::Array(..))
                        && let Some(alias) = self.variable_address(e) =>
                {
                    Err(alias)
                }
                (ArgIn::Expr(e), false) => {
                    // A by-value parameter of a struct with a copy constructor is a copy.
                    let of_template = f
                        .template
                        .iter()
                        .any(|t| p.ty == TypeExpr::Name(t.name().to_string()));
                    let ty = if of_template {
                        self.arg_ty(&ArgIn::Expr(e)).ok()
                    } else {
                        self.ty(&p.ty, p.site).ok()
                    };
                    match ty {
                        Some(ty) => Ok(self.copied(&ty, e, site)?),
                        None => Ok(self.rvalue(e)?),
                    }
                }
                (ArgIn::Val(v), true) => Err(self.temp_place(v, site)),
                (ArgIn::Val(v), false) => Ok(v),
                (ArgIn::Place(pl), true) => Err(pl),
                (ArgIn::Place(pl), false) => Ok(self.read(&pl, site)?),
            });
        }
        // Deduction sees the explicit arguments.
        self.frames.push(Frame {
            scope_start: self.scopes.len(),
            tenv: tenv.clone(),
            ret: None,
            ns: String::new(),
            this: None,
            captures: None,
            deduce_ret: false,
            ret_pointers: None,
            ret_place: None,
            array_params: Vec::new(),
            elided: Some(None),
            class: class.clone(),
        });
        let deduced = self.deduce_all(f, &vals, site);
        self.frames.pop();
        for (k, v) in deduced? {
            tenv.insert(k, v);
        }
        // A function template's explicit specialization for these arguments is what runs.
        let m = self.m;
        let mut f = f;
        if owner.is_none() && !f.template.is_empty() {
            for g in m.ast.functions.iter().filter(|g| {
                g.name == f.name
                    && g.global == f.global
                    && g.specialization.is_some()
                    && g.params.len() == f.params.len()
            }) {
                if self.specializes(f, g)?.is_some_and(|args| args == tenv) {
                    f = g;
                    tenv.clear();
                    break;
                }
            }
        }
        // Overloads share a name: the definition's site tells them apart.
        let key = format!("{}@{:?}{:?}", f.name, f.site, {
            let mut v: Vec<_> = tenv.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
            v.sort();
            v
        });
        if self
            .inline_stack
            .iter()
            .any(|k| *k == key || *k == f.name && tenv.is_empty())
        {
            return Err(self.err(
                site,
                format!("recursive call of `{}`", f.name),
                Some("warpsim inlines every __device__ function, so recursion is not supported; rewrite it as a loop".into()),
            ));
        }
        if self.inline_stack.len() > 64 {
            return Err(self.err(site, "device functions nested too deeply", None));
        }
        let ns = f
            .name
            .rfind("::")
            .map_or(String::new(), |i| f.name[..i + 2].to_string());
        // The new frame: parameter names resolve in the callee's template environment.
        self.frames.push(Frame {
            scope_start: self.scopes.len(),
            tenv,
            ret: None,
            ns,
            this: this.as_ref().map(|(p, _)| p.clone()),
            captures,
            deduce_ret: f.ret == TypeExpr::Auto,
            ret_pointers: None,
            // Only a function with one `return` refers to one place.
            ret_place: (matches!(f.ret, TypeExpr::Ref(_)) && returns(&f.body).len() == 1)
                .then_some(None),
            array_params: f
                .params
                .iter()
                .filter(|p| matches!(p.ty, TypeExpr::Array(..)))
                .map(|p| p.name.clone())
                .collect(),
            elided: (!matches!(f.ret, TypeExpr::Ref(_))).then(|| elided_local(f)),
            class,
        });
        self.open_scope();
        self.inline_stack.push(key);
        let r = self.inline_body(f, vals, carried, this, site);
        self.inline_stack.pop();
        self.close_scopes(self.frames.last().map_or(1, |fr| fr.scope_start));
        let frame = self.frames.pop();
        self.returned_ref = matches!(f.ret, TypeExpr::Ref(_)).then(|| {
            (
                site,
                frame.as_ref().and_then(|f| f.ret_place.clone().flatten()),
            )
        });
        self.returned_pointers = frame.and_then(|f| f.ret_pointers);
        r
    }

    /// Lower the call `e` once: the place it refers to when it returns a reference warpsim can
    /// follow (`Acc &first() { return a; }`), else its value, with whether it was a reference.
    pub fn call_place(&mut self, e: &ast::Expr) -> R<Result<Place, (Val, bool)>> {
        self.returned_ref = None;
        let v = self.rvalue(e)?;
        Ok(match self.returned_ref.take() {
            Some((site, Some(p))) if site == e.site => Ok(p),
            Some((site, None)) if site == e.site => Err((v, true)),
            _ => Err((v, false)),
        })
    }

    /// The object a member function is called on, or a reference parameter is bound to, when
    /// `e` is a call: what its reference refers to, or a temporary holding its value; a
    /// reference warpsim cannot follow is refused, as the callee could change it.
    pub fn call_object(&mut self, e: &ast::Expr) -> R<Place> {
        self.returned_pointers = None;
        match self.call_place(e)? {
            Ok(p) => Ok(p),
            Err((v, false)) => {
                // A temporary struct (`S(x).get()`) carries the pointer fields the call gave it.
                let p = self.temp_place(v, e.site);
                if let Some(own) = self.returned_pointers.take() {
                    self.carry_pointers_at(String::new(), p.clone(), own);
                }
                Ok(p)
            }
            Err((_, true)) => Err(self.unsupported(
                e.site,
                "using the reference returned by a function with several `return`s as an object",
                Some("give the function a single `return` of the element, or return a pointer and use `->`"),
            )),
        }
    }

    /// The template arguments of `f` that explicit specialization `g` is for: its explicit
    /// ones, the rest deduced from its parameter and return types as a call's are
    /// (`template <> int f(long long)` is `f<long long>`, `template <> T get<int>()` too
    /// deduced from nothing); `None` when `g` specializes no instance of `f`.
    fn specializes(&mut self, f: &Function, g: &Function) -> R<Option<HashMap<String, TArg>>> {
        let given = g.specialization.as_deref().unwrap_or_default();
        if given.len() > f.template.len() || g.params.len() != f.params.len() {
            return Ok(None);
        }
        self.file_scope(|l| {
            let mut args = HashMap::new();
            for (p, a) in f.template.iter().zip(given) {
                args.insert(p.name().to_string(), l.targ_value(p, a, g.site)?);
            }
            let strip = |t: &TypeExpr| match t {
                TypeExpr::Ref(inner) => (**inner).clone(),
                t => t.clone(),
            };
            // The specialization's types, as the arguments' types a call deduces from.
            let mut pairs = Vec::new();
            for (fp, gp) in f.params.iter().zip(&g.params).map(|(a, b)| (&a.ty, &b.ty)) {
                pairs.push((fp, l.ty(&strip(gp), g.site)?));
            }
            if g.ret != TypeExpr::Auto {
                pairs.push((&f.ret, l.ty(&strip(&g.ret), g.site)?));
            }
            for p in &f.template[given.len()..] {
                let found = pairs.iter().find_map(|(pt, at)| {
                    deduce(pt, at, p.name(), &l.structs).filter(|t| {
                        matches!(
                            (p, t),
                            (ast::TemplateParam::Type(..), TArg::Type(_))
                                | (ast::TemplateParam::Value(..), TArg::Value(_))
                        )
                    })
                });
                let t = match (found, p) {
                    (Some(TArg::Value(c)), ast::TemplateParam::Value(_, ty, _)) => {
                        let s = l.ty(ty, g.site)?.scalar().unwrap_or(Scalar::I32);
                        TArg::Value(consts::convert(c, s))
                    }
                    (Some(t), _) => t,
                    (None, _) => return Ok(None),
                };
                args.insert(p.name().to_string(), t);
            }
            // With those arguments the template's parameters are the specialization's.
            l.frames.last_mut().expect("file scope has a frame").tenv = args.clone();
            for (fp, (_, at)) in f.params.iter().zip(&pairs) {
                if l.ty(&strip(&fp.ty), g.site)? != *at {
                    return Ok(None);
                }
            }
            Ok(Some(args))
        })
    }

    /// The value of parameter `p`'s default argument `d`, which sees the parameters before it
    /// as given in `earlier` (`typename U = T`, `int M = N * 2`).
    pub fn default_targ(
        &mut self,
        p: &ast::TemplateParam,
        d: &TemplateArg,
        earlier: impl IntoIterator<Item = (String, TArg)>,
        site: Site,
    ) -> R<TArg> {
        self.file_scope(|l| {
            l.frames
                .last_mut()
                .expect("file scope has a frame")
                .tenv
                .extend(earlier);
            l.targ_value(p, d, site)
        })
    }

    /// The value of a template argument for parameter `p`.
    fn targ_value(&mut self, p: &ast::TemplateParam, a: &TemplateArg, site: Site) -> R<TArg> {
        Ok(match (p, a) {
            (ast::TemplateParam::Pack(..), _) => return Err(packs::uninstantiated(self, site)),
            (ast::TemplateParam::Type(..), TemplateArg::Type(t)) => TArg::Type(self.ty(t, site)?),
            (ast::TemplateParam::Value(_, ty, _), arg) => {
                let e = match arg {
                    TemplateArg::Expr(e) => e.clone(),
                    TemplateArg::Type(t) => match type_as_expr(t, site) {
                        Some(e) => e,
                        None => {
                            return Err(self.err(
                                site,
                                "a value template argument is needed",
                                None,
                            ));
                        }
                    },
                };
                let c = self.const_eval(&e)?;
                let s = self.ty(ty, site)?.scalar().unwrap_or(Scalar::I32);
                TArg::Value(consts::convert(c, s))
            }
            (ast::TemplateParam::Type(..), TemplateArg::Expr(e)) => {
                // A name the parser could not tell from a type: `f<T>` with `T` a type.
                if let ast::ExprKind::Ident(n) = &e.kind {
                    return Ok(TArg::Type(self.ty(&TypeExpr::Name(n.clone()), site)?));
                }
                return Err(self.err(site, "a type template argument is needed", None));
            }
        })
    }

    /// Template parameters of `f` deduced from the arguments' types, as C++ does
    /// (\[temp.deduct.call\]): each parameter's type against its argument's, part by part; the
    /// first pair that deduces a parameter gives it. A value parameter converts to its type.
    fn deduce_all(
        &mut self,
        f: &Function,
        vals: &[Result<Val, Place>],
        site: Site,
    ) -> R<Vec<(String, TArg)>> {
        let mut out = Vec::new();
        for p in &f.template {
            if self.targ(p.name()).is_some() {
                continue;
            }
            let tn = p.name();
            let mut found = None;
            for (fp, a) in f.params.iter().zip(vals) {
                let at = match a {
                    Ok(v) => self.val_ty(v),
                    Err(p) => self.place_ty(p),
                };
                // A type parameter deduces a type, a value parameter a value.
                found = deduce(&fp.ty, &at, tn, &self.structs).filter(|t| {
                    matches!(
                        (p, t),
                        (ast::TemplateParam::Type(..), TArg::Type(_))
                            | (ast::TemplateParam::Value(..), TArg::Value(_))
                    )
                });
                if found.is_some() {
                    break;
                }
            }
            let t = match (found, p) {
                (Some(TArg::Value(c)), ast::TemplateParam::Value(_, ty, _)) => {
                    let s = self.ty(ty, site)?.scalar().unwrap_or(Scalar::I32);
                    TArg::Value(consts::convert(c, s))
                }
                (Some(t), _) => t,
                (None, _) if p.default().is_some() => continue,
                (None, _) => {
                    return Err(self.err(
                        site,
                        format!("cannot deduce template parameter `{tn}` of `{}`", f.name),
                        Some(format!("give the template arguments: {}<...>(...)", f.name)),
                    ));
                }
            };
            out.push((tn.to_string(), t));
        }
        // The parameters neither given nor deduced take their defaults, which see the others.
        for p in &f.template {
            if self.targ(p.name()).is_some() || out.iter().any(|(n, _)| n == p.name()) {
                continue;
            }
            let Some(d) = p.default() else { continue };
            let known = self
                .frames
                .last()
                .map(|fr| fr.tenv.clone())
                .unwrap_or_default()
                .into_iter()
                .chain(out.iter().cloned());
            let t = self.default_targ(p, &d, known.collect::<Vec<_>>(), site)?;
            out.push((p.name().to_string(), t));
        }
        Ok(out)
    }

    /// A place holding `v` (a temporary bound to a reference parameter, or a `this`).
    pub fn temp_place(&mut self, v: Val, site: Site) -> Place {
        let ty = self.val_ty(&v);
        match v {
            Val::Scalar(op, s) => {
                let t = self.temp(s);
                self.assign_to(t, s, Op::Copy { src: op }, site);
                Place::Reg { ty, vars: vec![t] }
            }
            // A union's members are its bytes read through pointers of their types: in
            // per-thread memory.
            Val::Agg(_, leaves) if ty.has_union(&self.structs) => {
                let arrays = self.new_local("temp", &ty, 1, site);
                let arrays = arrays.expect("a union has bytes");
                self.store_local(&arrays, &[], &leaves, site);
                Place::Local {
                    arrays,
                    index: Vec::new(),
                    ty,
                }
            }
            Val::Agg(_, leaves) => {
                let vars: Vec<VarId> = ty
                    .leaves(&self.structs)
                    .iter()
                    .map(|(_, s)| self.temp(*s))
                    .collect();
                for (v, l) in vars.iter().zip(&leaves) {
                    let s = self.vars[v.0 as usize].ty;
                    self.assign_to(*v, s, Op::Copy { src: *l }, site);
                }
                Place::Reg { ty, vars }
            }
            Val::Group(g) => Place::Group(g),
            Val::Closure(c) => Place::Closure(c),
            Val::Ptr(p) => Place::Mem {
                ty: p.pointee.clone(),
                ptr: p,
            },
            Val::Str(_) | Val::Void => Place::Reg {
                ty: Ty::Void,
                vars: Vec::new(),
            },
        }
    }

    /// What reference member `k` (a pointer variable, [`PtrVar::reference`]) refers to.
    pub fn referent(&mut self, k: usize, site: Site) -> R<Place> {
        let pv = &self.ptrs[k];
        if pv.base.is_none() && pv.local.is_none() {
            return Err(self.err(
                site,
                format!("the reference member `{}` is not bound to an object", pv.name),
                Some("bind it in the constructor's member initializer list (`S(T &t) : r(t) {}`), which is where warpsim binds reference members".into()),
            ));
        }
        let Val::Ptr(ptr) = self.read(&Place::Ptr(k), site)? else {
            unreachable!("a pointer variable reads as a pointer")
        };
        Ok(Place::Mem {
            ty: ptr.pointee.clone(),
            ptr,
        })
    }

    /// The refusal of struct `i`, which has a reference member, initialized member by member
    /// (`A a{x};`, `A(x)` without a constructor).
    pub fn aggregate_with_reference(&self, i: usize, site: Site) -> Diagnostic {
        let l = &self.structs.list[i];
        self.unsupported(
            site,
            &format!(
                "initializing `{}` member by member, which binds its reference member `{}`",
                l.name, l.refs[0]
            ),
            Some("give it a constructor that binds the reference (`S(T &x) : r(x) {}`)"),
        )
    }

    /// `p`, or what it refers to where it is a reference member's pointer variable.
    pub fn through_reference(&mut self, p: Place, site: Site) -> R<Place> {
        match p {
            Place::Ptr(k) if self.ptrs[k].reference => self.referent(k, site),
            p => Ok(p),
        }
    }

    /// A constructor's member initializer `r(x)` of reference member `k`: it holds the address
    /// of `x`, in whatever memory warpsim can point into (global, shared, `__device__`, a
    /// thread's own variables and arrays).
    fn bind_reference(&mut self, k: usize, values: &[ast::Expr], site: Site) -> R<()> {
        let name = self.ptrs[k].name.clone();
        let [x] = values else {
            return Err(self.err(
                site,
                format!(
                    "the reference member `{name}` is bound to one object: `{}(x)`",
                    name.rsplit('.').next().unwrap_or(&name)
                ),
                None,
            ));
        };
        let target = if self.is_call_like(x) {
            match self.call_place(x)? {
                Ok(p) => p,
                Err((_, by_ref)) => {
                    return Err(self.unsupported(
                        x.site,
                        &format!(
                            "binding the reference member `{name}` to {}",
                            if by_ref {
                                "the reference a function with several `return`s returns"
                            } else {
                                "the value a function returns (a temporary, gone after the constructor)"
                            }
                        ),
                        Some("bind it to a variable, an array element or shared or global memory"),
                    ));
                }
            }
        } else if expr::is_lvalue_like(x) || matches!(x.kind, ast::ExprKind::Cast(..)) {
            self.place(x)?
        } else {
            return Err(self.temporary_reference(&name, x.site));
        };
        // A reference parameter given a value (`S s(a + 1)`) names a temporary of the caller.
        if let Place::Reg { vars, .. } = &target
            && vars
                .first()
                .is_some_and(|v| !self.declared_at.contains_key(v))
        {
            return Err(self.temporary_reference(&name, x.site));
        }
        let ptr = self.address_of_place(target, x.site)?;
        let pointee = self.ptrs[k].pointee.clone();
        self.write(&Place::Ptr(k), Val::Ptr(PtrVal { pointee, ..ptr }), site)?;
        Ok(())
    }

    /// The refusal of reference member `name` bound to a temporary.
    fn temporary_reference(&self, name: &str, site: Site) -> Diagnostic {
        self.unsupported(
            site,
            &format!("binding the reference member `{name}` to a temporary value (gone once the constructor's call ends)"),
            Some("bind it to a variable, an array element or shared or global memory"),
        )
    }

    /// Field `name` of the object at `p`: a pointer field is its pointer variable where the
    /// object carries them.
    fn field_place(&mut self, p: &Place, name: &str, site: Site) -> R<Place> {
        let pointers = self.pointers_of_place(p);
        match pointers.iter().flatten().find(|(path, _)| *path == [name]) {
            Some((_, idx)) => Ok(Place::Ptr(*idx)),
            None => self.member_place(p.clone(), name, site),
        }
    }

    fn inline_body(
        &mut self,
        f: &Function,
        args: Vec<Result<Val, Place>>,
        carried: Vec<Option<PointerFields>>,
        this: Option<(Place, usize)>,
        site: Site,
    ) -> R<Val> {
        // A member function sees its object's fields by name (parameters shadow them), a
        // pointer field as its pointer variable where the object carries them, and the
        // members of anonymous struct and union members as its own.
        // Reference members are named once bound: after a constructor's member initializers.
        let mut refs = Vec::new();
        if let Some((p, i)) = &this {
            let mut todo = vec![(p.clone(), *i)];
            while let Some((p, i)) = todo.pop() {
                for name in Ty::Struct(i).field_names(&self.structs) {
                    let fp = self.field_place(&p, &name, site)?;
                    match Ty::Struct(i).member(&self.structs, &name) {
                        Some((Ty::Struct(j), ..)) if ast::is_anonymous(&name) => todo.push((fp, j)),
                        _ if let Place::Ptr(k) = fp
                            && self.ptrs[k].reference =>
                        {
                            refs.push((name, k))
                        }
                        _ => self.bind(&name, Sym::Place(fp)),
                    }
                }
            }
        }
        for (p, a) in f.params.iter().zip(args) {
            if matches!(p.ty, TypeExpr::Ref(_)) {
                self.ref_names.insert(p.name.clone());
            }
            match a {
                Err(place) => self.bind(&p.name, Sym::Place(place)),
                Ok(v) => {
                    let ty = self.ty(&p.ty, p.site)?;
                    let ty = match ty {
                        Ty::Array(e, _) => Ty::Pointer(e),
                        t => t,
                    };
                    // An array argument to a pointer parameter: the parameter names the array.
                    let d = ast::VarDecl {
                        name: p.name.clone(),
                        ty: TypeExpr::Auto,
                        quals: ast::Quals::default(),
                        init: None,
                        site: p.site,
                    };
                    let v = self.convert_val(v, &ty, site)?;
                    self.declare_with(&d, ty, Some(v))?;
                }
            }
        }
        for (p, fields) in f.params.iter().zip(carried) {
            let Some(fields) = fields else { continue };
            // A copy of the struct gets pointers of its own, starting where the caller's are; a
            // reference, or a pointer to it, shares them.
            let fields = if matches!(p.ty, TypeExpr::Ref(_) | TypeExpr::Pointer(_)) {
                fields
            } else {
                let mut own = Vec::new();
                for (path, idx) in fields {
                    let pointee = self.ptrs[idx].pointee.clone();
                    let k = self.new_ptr(&format!("{}.{}", p.name, path.join(".")), pointee, site);
                    self.ptrs[k].reference = self.ptrs[idx].reference;
                    let v = self.read(&Place::Ptr(idx), site)?;
                    self.write(&Place::Ptr(k), v, site)?;
                    own.push((path, k));
                }
                own
            };
            self.carry_pointers(&p.name, fields);
        }
        // A constructor's member initializers; the fields it leaves out that have a default
        // member initializer take that first.
        if let Some((p, _)) = &this {
            if let Ty::Struct(i) = self.place_ty(p)
                && self.has_defaults(i)
            {
                for k in 0..self.structs.list[i].fields.len() {
                    let (name, ty, _) = self.structs.list[i].fields[k].clone();
                    let m = self.m;
                    let direct = self.structs.list[i]
                        .def
                        .is_some_and(|d| m.ast.structs[d].defaults.iter().any(|(n, _)| *n == name));
                    let nested = matches!(ty, Ty::Struct(j) if self.has_defaults(j));
                    if !(direct || nested) || f.inits.iter().any(|(n, _)| *n == name) {
                        continue;
                    }
                    let fp = self.field_place(p, &name, site)?;
                    let v = self.field_default(i, k, site)?;
                    self.write(&fp, v, site)?;
                }
            }
            for (field, values) in &f.inits {
                // A base class's initializer (`: Base<T>(x)`) constructs its subobject.
                if let Ty::Struct(i) = self.place_ty(p)
                    && !Ty::Struct(i).field_names(&self.structs).contains(field)
                    && let Some(base @ Ty::Struct(b)) = self.struct_named_text(field, site)?
                    && self.structs.list[i].bases.contains(&b)
                {
                    let args = values.iter().map(ArgIn::Expr).collect();
                    let v = self.construct(&base, args, site)?;
                    if !self.structs.list[b].fields.is_empty() {
                        let bp = self.base_place(p.clone(), &[b], site)?;
                        self.write(&bp, v, site)?;
                    }
                    continue;
                }
                let fp = self.field_place(p, field, site)?;
                if let Place::Ptr(k) = fp
                    && self.ptrs[k].reference
                {
                    self.bind_reference(k, values, site)?;
                    continue;
                }
                let v = match values.as_slice() {
                    [] => {
                        let t = self.place_ty(&fp);
                        self.zero(&t, site)?
                    }
                    [one] => {
                        let t = self.place_ty(&fp);
                        self.copied(&t, one, site)?
                    }
                    many => {
                        let t = self.place_ty(&fp);
                        self.init_list(many, &t, site)?
                    }
                };
                self.write(&fp, v, site)?;
            }
        }
        // A parameter of the same name hides a reference member, as it hides any field.
        for (name, k) in refs {
            if !f.params.iter().any(|q| q.name == name) {
                let r = self.referent(k, site)?;
                self.bind(&name, Sym::Place(r));
            }
        }
        // `auto` (and a lambda without `-> T`): the first `return` decides.
        let rty = if f.ret == TypeExpr::Auto {
            Ty::Void
        } else {
            self.ty(&f.ret, f.site)?
        };
        let ret = match &rty {
            Ty::Void | Ty::Closure(_) | Ty::Texture => None,
            Ty::Pointer(pointee) => {
                let k = self.new_ptr(&format!("{}.ret", f.name), (**pointee).clone(), f.site);
                Some((Place::Ptr(k), rty.clone()))
            }
            Ty::Scalar(_) | Ty::Vector(..) | Ty::Struct(_) => {
                let vars = rty
                    .leaves(&self.structs)
                    .iter()
                    .map(|(_, s)| self.new_var(&format!("{}.ret", f.name), *s))
                    .collect();
                Some((
                    Place::Reg {
                        ty: rty.clone(),
                        vars,
                    },
                    rty.clone(),
                ))
            }
            Ty::Group(g) => {
                // A function returning a handle (rare): only a constant one works.
                Some((Place::Group(*g), rty.clone()))
            }
            Ty::Array(..) => {
                return Err(self.err(f.site, "a function cannot return an array", None));
            }
        };
        // A function returning a reference (`T &operator[](int)`, `T const &lower() const`)
        // gives its value here: reads are the same; an assignment through the call is refused
        // where it is written.
        self.frames.last_mut().expect("pushed by inline").ret = ret;
        let body = self.sub_block(|l| l.body(&f.body))?;
        self.emit(Stmt::Inline { body });
        match self.frames.last().and_then(|fr| fr.ret.clone()) {
            None => Ok(Val::Void),
            Some((p, _)) => self.read(&p, site),
        }
    }
}

/// An argument of a call: an expression to lower, or what the lowering already holds (an
/// operator's operands, a `this`).
pub enum ArgIn<'e> {
    /// An expression of the call.
    Expr(&'e ast::Expr),
    /// A value.
    Val(Val),
    /// A place (for a reference parameter).
    Place(Place),
}

/// Whether type `t` names one of the template parameters `params` (`T`, `T *`, `Box<T>`,
/// `T[N]`, `typename T::value_type`).
fn dependent(t: &TypeExpr, params: &[ast::TemplateParam]) -> bool {
    let named = |n: &str| {
        params.iter().any(|p| {
            n == p.name()
                || n.strip_prefix(p.name())
                    .is_some_and(|r| r.starts_with("::"))
        })
    };
    let in_expr = |e: &ast::Expr| matches!(&e.kind, ast::ExprKind::Ident(n) if named(n));
    match t {
        TypeExpr::Name(n) => named(n),
        TypeExpr::Template(_, args) => args.iter().any(|a| match a {
            TemplateArg::Type(t) => dependent(t, params),
            TemplateArg::Expr(e) => in_expr(e),
        }),
        TypeExpr::Pointer(inner) | TypeExpr::Ref(inner) => dependent(inner, params),
        TypeExpr::Array(inner, size) => {
            dependent(inner, params) || size.as_deref().is_some_and(in_expr)
        }
        TypeExpr::Auto | TypeExpr::Struct(_) | TypeExpr::Expansion(_) => false,
        // (What it names may have a dependent type.)
        TypeExpr::Typeof(_) => true,
    }
}

/// Deduce template type parameter `tn` from a parameter type and an argument type.
/// Template parameter `tn` deduced from a parameter's type `param` (P) and its argument's type
/// `arg` (A), matched part by part: `T`, `T *`, `T &`, `const T &` (`const` is not part of a
/// [`TypeExpr`]), `T (&)[N]` and `T[N]` against arrays (the bound gives `N`), `T *` and `T []`
/// against an array (it decays to a pointer), `Box<T, N>` against an instance of `Box`.
fn deduce(param: &TypeExpr, arg: &Ty, tn: &str, structs: &types::Structs) -> Option<TArg> {
    let names_tn = |e: &ast::Expr| matches!(&e.kind, ast::ExprKind::Ident(n) if n == tn);
    match (param, arg) {
        (TypeExpr::Name(n), t) if n == tn => Some(TArg::Type(t.clone())),
        (TypeExpr::Ref(inner), t) => deduce(inner, t, tn, structs),
        (TypeExpr::Pointer(inner) | TypeExpr::Array(inner, _), Ty::Pointer(t)) => {
            deduce(inner, t, tn, structs)
        }
        (TypeExpr::Array(_, Some(size)), Ty::Array(_, Some(n))) if names_tn(size) => {
            Some(TArg::Value(consts::int(Scalar::U64, i128::from(*n))))
        }
        (TypeExpr::Pointer(inner) | TypeExpr::Array(inner, _), Ty::Array(t, _)) => {
            deduce(inner, t, tn, structs)
        }
        // `Box<T, N>` against an instance of `Box`: its arguments, position by position.
        (TypeExpr::Template(name, targs), Ty::Struct(i))
            if structs.list[*i].name.starts_with(&format!("{name}<")) =>
        {
            targs
                .iter()
                .zip(&structs.list[*i].tenv)
                .find_map(|(ta, (_, v))| match (ta, v) {
                    (TemplateArg::Type(TypeExpr::Name(n)), TArg::Value(c)) if n == tn => {
                        Some(TArg::Value(*c))
                    }
                    (TemplateArg::Type(t), TArg::Type(vt)) => deduce(t, vt, tn, structs),
                    (TemplateArg::Expr(e), TArg::Value(c)) if names_tn(e) => Some(TArg::Value(*c)),
                    _ => None,
                })
        }
        _ => None,
    }
}

/// What `nvcuda::wmma` declares, as a kernel names it after `using namespace nvcuda::wmma`.
const WMMA_NAMES: &[&str] = &[
    "fragment",
    "matrix_a",
    "matrix_b",
    "accumulator",
    "row_major",
    "col_major",
    "layout_t",
    "mem_row_major",
    "mem_col_major",
    "load_matrix_sync",
    "store_matrix_sync",
    "fill_fragment",
    "mma_sync",
];

/// The names `stmts` mention, in order of first mention (what a `[=]` lambda captures).
fn names_in(stmts: &[ast::Stmt], out: &mut Vec<String>) {
    fn expr(e: &ast::Expr, out: &mut Vec<String>) {
        use ast::ExprKind as E;
        match &e.kind {
            E::Ident(n) if !out.contains(n) => out.push(n.clone()),
            E::Unary(_, x) | E::Member(x, _, _) | E::Cast(_, x) | E::SizeofExpr(x) => expr(x, out),
            E::IncDec(_, _, x) => expr(x, out),
            E::Binary(_, a, b) | E::Assign(_, a, b) | E::Index(a, b) | E::Comma(a, b) => {
                expr(a, out);
                expr(b, out);
            }
            E::Cond(c, a, b) => {
                expr(c, out);
                expr(a, out);
                expr(b, out);
            }
            E::Call(f, _, args) => {
                expr(f, out);
                args.iter().for_each(|a| expr(a, out));
            }
            E::InitList(items) => items.iter().for_each(|a| expr(a, out)),
            E::StmtExpr(b) => names_in(b, out),
            E::Lambda(f, c) => {
                names_in(&f.body, out);
                c.named
                    .iter()
                    .filter_map(|(_, e)| e.as_ref())
                    .for_each(|e| expr(e, out));
            }
            _ => {}
        }
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Decl(ds) => ds
                .iter()
                .filter_map(|d| d.init.as_ref())
                .for_each(|e| expr(e, out)),
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Case(Some(e), _) => {
                expr(e, out);
                if let StmtKind::Case(_, b) = &s.kind {
                    names_in(b, out);
                }
            }
            StmtKind::Block(b) | StmtKind::Case(None, b) => names_in(b, out),
            StmtKind::If(c, a, b) => {
                expr(c, out);
                names_in(std::slice::from_ref(a), out);
                if let Some(b) = b {
                    names_in(std::slice::from_ref(b), out);
                }
            }
            StmtKind::For(init, c, step, body) => {
                if let Some(i) = init {
                    names_in(std::slice::from_ref(i), out);
                }
                c.iter().chain(step).for_each(|e| expr(e, out));
                names_in(std::slice::from_ref(body), out);
            }
            StmtKind::While(c, body) | StmtKind::DoWhile(body, c) => {
                expr(c, out);
                names_in(std::slice::from_ref(body), out);
            }
            StmtKind::Switch(c, b) => {
                expr(c, out);
                names_in(b, out);
            }
            _ => {}
        }
    }
}

/// The namespaces a name written in namespace `ns` (`A::B::`) is looked up in, innermost
/// first: `A::B::`, `A::`, ``.
fn enclosing(ns: &str) -> impl Iterator<Item = &str> {
    let inner = ns.strip_suffix("::").unwrap_or(ns);
    let cuts: Vec<usize> = inner.match_indices("::").map(|(i, _)| i + 2).collect();
    std::iter::once(ns)
        .chain(cuts.into_iter().rev().map(move |i| &ns[..i]))
        .chain((!ns.is_empty()).then_some(""))
}

/// The `return` statements of `stmts` (those of lambdas in it aside), with their values.
fn returns(stmts: &[ast::Stmt]) -> Vec<Option<&ast::Expr>> {
    let mut out = Vec::new();
    each_stmt(stmts, &mut |s| {
        if let StmtKind::Return(v) = &s.kind {
            out.push(v.as_ref());
        }
    });
    out
}

/// Calls `f` on each statement of `stmts` and each statement nested in them.
fn each_stmt<'s>(stmts: &'s [ast::Stmt], f: &mut impl FnMut(&'s ast::Stmt)) {
    for s in stmts {
        f(s);
        match &s.kind {
            StmtKind::Block(b) | StmtKind::Case(_, b) | StmtKind::Switch(_, b) => each_stmt(b, f),
            StmtKind::If(_, a, b) => {
                each_stmt(std::slice::from_ref(a), f);
                if let Some(b) = b {
                    each_stmt(std::slice::from_ref(b), f);
                }
            }
            StmtKind::For(init, _, _, body) => {
                if let Some(i) = init {
                    each_stmt(std::slice::from_ref(i), f);
                }
                each_stmt(std::slice::from_ref(body), f);
            }
            StmtKind::While(_, body) | StmtKind::DoWhile(body, _) => {
                each_stmt(std::slice::from_ref(body), f)
            }
            _ => {}
        }
    }
}

/// The local variable of `f` that every `return` of its names (`S r; ..; return r;`), whose
/// copy into the caller's object g++ and nvcc elide: not a parameter, a field or a static.
fn elided_local(f: &Function) -> Option<String> {
    let rs = returns(&f.body);
    let Some(Some(ast::Expr {
        kind: ast::ExprKind::Ident(name),
        ..
    })) = rs.first()
    else {
        return None;
    };
    let names = |e: &Option<&ast::Expr>| matches!(e, Some(ast::Expr { kind: ast::ExprKind::Ident(n), .. }) if n == name);
    let mut local = false;
    each_stmt(&f.body, &mut |s| {
        if let StmtKind::Decl(ds) = &s.kind {
            local |= ds.iter().any(|d| d.name == *name && !d.quals.is_static);
        }
    });
    (local && rs.iter().all(names)).then(|| name.clone())
}

/// Where `s` has a `return`, or a `break` or `continue` not inside a loop (or, for `break`, a
/// `switch`) of its own: a jump out of the statements `s` is one of.
fn jump_out(s: &ast::Stmt, in_loop: bool, in_switch: bool) -> Option<Site> {
    let any = |b: &[ast::Stmt], in_loop, in_switch| {
        b.iter().find_map(|s| jump_out(s, in_loop, in_switch))
    };
    match &s.kind {
        StmtKind::Return(_) => Some(s.site),
        StmtKind::Break if !in_loop && !in_switch => Some(s.site),
        StmtKind::Continue if !in_loop => Some(s.site),
        StmtKind::Block(b) | StmtKind::Case(_, b) => any(b, in_loop, in_switch),
        StmtKind::Switch(_, b) => any(b, in_loop, true),
        StmtKind::If(_, a, b) => jump_out(a, in_loop, in_switch)
            .or_else(|| b.as_deref().and_then(|b| jump_out(b, in_loop, in_switch))),
        StmtKind::For(_, _, _, body) | StmtKind::While(_, body) | StmtKind::DoWhile(body, _) => {
            jump_out(body, true, in_switch)
        }
        _ => None,
    }
}

/// Whether a statement has a `continue` that is not inside a nested loop.
fn contains_continue(s: &ast::Stmt) -> bool {
    match &s.kind {
        StmtKind::Continue => true,
        StmtKind::Block(b) | StmtKind::Case(_, b) => b.iter().any(contains_continue),
        StmtKind::If(_, a, b) => {
            contains_continue(a) || b.as_deref().is_some_and(contains_continue)
        }
        StmtKind::Switch(_, b) => b.iter().any(contains_continue),
        _ => false,
    }
}

/// A `bool` constant.
pub fn bool_const(v: bool) -> Operand {
    Operand::Const(consts::int(Scalar::Bool, i128::from(v)))
}

/// An array declared without a size (`float m[] = {1, 2, 3};`) takes its size from its
/// initialiser list, as C gives it.
/// A template argument the parser read as a type that is an expression to C++: a name (`N`)
/// or an element of a named array (`sizes[2]`, `grid[1][0]`, read as array types).
fn type_as_expr(t: &TypeExpr, site: Site) -> Option<ast::Expr> {
    let kind = match t {
        TypeExpr::Name(n) => ast::ExprKind::Ident(n.clone()),
        TypeExpr::Array(inner, Some(i)) => {
            ast::ExprKind::Index(Box::new(type_as_expr(inner, site)?), i.clone())
        }
        _ => return None,
    };
    Some(ast::Expr {
        kind,
        site,
        span: (0, 0),
    })
}

/// Whether a value of type `ty` holds a pointer.
fn has_pointers(ty: &Ty, structs: &Structs) -> bool {
    match ty {
        Ty::Pointer(_) => true,
        Ty::Array(t, _) => has_pointers(t, structs),
        Ty::Struct(i) => structs.list[*i]
            .fields
            .iter()
            .any(|(_, t, _)| has_pointers(t, structs)),
        _ => false,
    }
}

fn sized_by_init(ty: Ty, init: Option<&ast::Expr>) -> Ty {
    match (ty, init.map(|e| &e.kind)) {
        (Ty::Array(elem, None), Some(ast::ExprKind::InitList(items))) => {
            Ty::Array(elem, Some(items.len() as u32))
        }
        (ty, _) => ty,
    }
}
