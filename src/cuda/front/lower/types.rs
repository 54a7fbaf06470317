//! The lowering's types: C's scalar types, CUDA's vector types (`float4`, `int2`, …), structs
//! with C's layout rules, pointers, arrays and cooperative-groups handles; sizes, alignments,
//! the flattening of aggregates into scalar leaves, and C's integer promotions and usual
//! arithmetic conversions.

use crate::cuda::ir::{Scalar, TypeName};

/// A cooperative-groups handle (no run-time value: every use is resolved when lowering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// `cg::thread_block`.
    Block,
    /// `cg::thread_block_tile<n>` (also `coalesced_group` of a full warp: 32).
    Tile(u32),
    /// `cg::grid_group`: every thread of the launch (`grid.sync()` in a cooperative launch).
    Grid,
    /// `cg::coalesced_group`: the threads of a warp whose mask the variable holds (the
    /// executing lanes where it was made, or a `labeled_partition` of them).
    Coalesced(crate::cuda::ir::VarId),
}

/// A resolved type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// `void`.
    Void,
    /// A scalar.
    Scalar(Scalar),
    /// `float4` & co: `n` components.
    Vector(Scalar, u32),
    /// A struct of [`Structs`].
    Struct(usize),
    /// A pointer to global or shared memory.
    Pointer(Box<Ty>),
    /// `T[n]` (`None`: `extern __shared__ T s[]`).
    Array(Box<Ty>, Option<u32>),
    /// A cooperative-groups handle.
    Group(Group),
    /// A lambda (index into the lowering's closures): a value that exists at lowering only.
    Closure(usize),
    /// What a texture object (`cudaTextureObject_t`, lowered as a pointer to this) points at:
    /// texels that only `tex1Dfetch`, `tex1D`, `tex2D` and `tex3D` read.
    Texture,
}

/// One struct's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The struct's name (with template arguments for an instance: `S<float>`).
    pub name: String,
    /// Its definition (index into the unit's structs), for member functions.
    pub def: Option<usize>,
    /// The template arguments of an instance of a struct template.
    pub tenv: Vec<(String, super::TArg)>,
    /// Fields: name, type, byte offset; a base class's subobject first, named by its struct
    /// (an empty base has none).
    pub fields: Vec<(String, Ty, u32)>,
    /// Its base classes (indices into [`Structs::list`]), in order.
    pub bases: Vec<usize>,
    /// Size in bytes (a multiple of `align`).
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Whether it is a union: every field at offset 0, its value held as [`Structs::words`].
    pub union: bool,
    /// Its reference members (`T &r;`), held as pointer fields (`Ty::Pointer` of `T`) that
    /// every use dereferences, as C++ keeps them.
    pub refs: Vec<String>,
}

/// The structs of a translation unit, laid out.
#[derive(Clone, Debug, Default)]
pub struct Structs {
    /// Layouts, by index.
    pub list: Vec<Layout>,
}

/// The vector type called `name`: component type and count.
pub fn vector_type(name: &str) -> Option<(Scalar, u32)> {
    let n = name.chars().last()?.to_digit(10)?;
    if !(1..=4).contains(&n) {
        return None;
    }
    let s = match &name[..name.len() - 1] {
        "float" => Scalar::F32,
        "double" => Scalar::F64,
        "int" => Scalar::I32,
        "uint" => Scalar::U32,
        "char" => Scalar::I8,
        "uchar" => Scalar::U8,
        "short" => Scalar::I16,
        "ushort" => Scalar::U16,
        "long" | "longlong" => Scalar::I64,
        "ulong" | "ulonglong" => Scalar::U64,
        _ => return None,
    };
    Some((s, n))
}

/// The scalar type called `name` (`unsigned int`, `size_t`, `uint32_t`, …), glibc's
/// `<sys/types.h>` names among them (`uint`, `ulong`, `u_int32_t`, …: nvcc's device code sees
/// them through the host headers).
pub fn scalar_type(name: &str) -> Option<Scalar> {
    Some(match name {
        "bool" | "_Bool" => Scalar::Bool,
        "char" | "signed char" | "int8_t" => Scalar::I8,
        "unsigned char" | "uint8_t" | "uchar" | "u_char" | "u_int8_t" => Scalar::U8,
        "short" | "short int" | "signed short" | "int16_t" => Scalar::I16,
        "unsigned short" | "unsigned short int" | "uint16_t" | "ushort" | "u_short"
        | "u_int16_t" => Scalar::U16,
        "int" | "int32_t" | "signed" | "signed int" => Scalar::I32,
        "unsigned int" | "unsigned" | "uint32_t" | "uint" | "u_int" | "u_int32_t" => Scalar::U32,
        "long" | "long int" | "long long" | "long long int" | "signed long" | "int64_t"
        | "ptrdiff_t" | "intptr_t" | "ssize_t" | "clock_t" | "off_t" | "time_t" | "quad_t" => {
            Scalar::I64
        }
        "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "uint64_t"
        | "size_t"
        | "uintptr_t"
        | "ulong"
        | "u_long"
        | "u_int64_t"
        | "u_quad_t" => Scalar::U64,
        "float" => Scalar::F32,
        "double" => Scalar::F64,
        _ => return None,
    })
}

impl Ty {
    /// Size in bytes (unsized arrays and handles: 0).
    pub fn size(&self, structs: &Structs) -> u32 {
        match self {
            Ty::Void | Ty::Group(_) | Ty::Closure(_) | Ty::Texture => 0,
            Ty::Scalar(s) => s.size(),
            Ty::Vector(s, n) => {
                let raw = s.size() * n;
                raw.next_multiple_of(self.align(structs))
            }
            Ty::Struct(i) => structs.list[*i].size,
            Ty::Pointer(_) => 8,
            Ty::Array(t, n) => t.size(structs) * n.unwrap_or(0),
        }
    }

    /// Alignment in bytes (CUDA's: `float2` 8, `float4` 16, `float3` 4, …).
    pub fn align(&self, structs: &Structs) -> u32 {
        match self {
            Ty::Void | Ty::Group(_) | Ty::Closure(_) | Ty::Texture => 1,
            Ty::Scalar(s) => s.size(),
            Ty::Vector(s, n) => match n {
                2 | 4 => (s.size() * n).min(16),
                _ => s.size(),
            },
            Ty::Struct(i) => structs.list[*i].align,
            Ty::Pointer(_) => 8,
            Ty::Array(t, _) => t.align(structs),
        }
    }

    /// Whether a value of this type is one memory instruction of several components (an
    /// aligned `float2`/`float4`/`int4`/`uchar4`…, at most 16 bytes).
    pub fn is_vector_access(&self) -> bool {
        matches!(self, Ty::Vector(s, n) if matches!(n, 2 | 4) && s.size() * n <= 16)
    }

    /// The scalar type, when this is one.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The scalar leaves of an aggregate, in memory order: `(byte offset, type)`.
    pub fn leaves(&self, structs: &Structs) -> Vec<(u32, Scalar)> {
        let mut out = Vec::new();
        self.push_leaves(structs, 0, &mut out);
        out
    }

    fn push_leaves(&self, structs: &Structs, at: u32, out: &mut Vec<(u32, Scalar)>) {
        match self {
            Ty::Scalar(s) => out.push((at, *s)),
            Ty::Vector(s, n) => {
                for k in 0..*n {
                    out.push((at + k * s.size(), *s));
                }
            }
            Ty::Struct(i) => match structs.words(*i) {
                Some((w, n)) => {
                    for k in 0..n {
                        out.push((at + k * w.size(), w));
                    }
                }
                None => {
                    for (_, t, off) in &structs.list[*i].fields {
                        t.push_leaves(structs, at + off, out);
                    }
                }
            },
            Ty::Array(t, n) => {
                let step = t.size(structs);
                for k in 0..n.unwrap_or(0) {
                    t.push_leaves(structs, at + k * step, out);
                }
            }
            Ty::Void | Ty::Pointer(_) | Ty::Group(_) | Ty::Closure(_) | Ty::Texture => {}
        }
    }

    /// The pointer fields of a struct, nested structs' too, and the elements of its arrays of
    /// pointers (`void *a[3][48]`: `["a", "[0]", "[5]"]`, in memory order; not pointers in
    /// arrays of structs): each one's path of member names and indexes, byte offset and pointee
    /// type.
    pub fn pointer_fields(&self, structs: &Structs) -> Vec<(Vec<String>, u32, Ty)> {
        let mut out = Vec::new();
        if let Ty::Struct(i) = self {
            for (name, t, off) in &structs.list[*i].fields {
                match t {
                    Ty::Pointer(pointee) => {
                        out.push((vec![name.clone()], *off, (**pointee).clone()))
                    }
                    Ty::Struct(_) => {
                        for (mut path, at, pointee) in t.pointer_fields(structs) {
                            path.insert(0, name.clone());
                            out.push((path, off + at, pointee));
                        }
                    }
                    Ty::Array(..) if matches!(t.innermost(), Ty::Pointer(_)) => {
                        let mut elems = vec![(vec![name.clone()], *off, t)];
                        while let Some((_, _, Ty::Array(e, Some(n)))) = elems.first() {
                            let (e, n, step) = (&**e, *n, e.size(structs));
                            elems = elems
                                .into_iter()
                                .flat_map(|(path, at, _)| {
                                    (0..n).map(move |k| {
                                        let mut path = path.clone();
                                        path.push(format!("[{k}]"));
                                        (path, at + k * step, e)
                                    })
                                })
                                .collect();
                        }
                        for (path, at, e) in elems {
                            if let Ty::Pointer(pointee) = e {
                                out.push((path, at, (**pointee).clone()));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// The element type of an array of arrays (itself for any other type).
    pub fn innermost(&self) -> &Ty {
        match self {
            Ty::Array(e, _) => e.innermost(),
            t => t,
        }
    }

    /// Whether the pointer field at `path` ([`Ty::pointer_fields`]) is a reference member.
    pub fn is_reference_field(&self, structs: &Structs, path: &[String]) -> bool {
        let mut ty = self;
        for (k, step) in path.iter().enumerate() {
            let Ty::Struct(i) = ty else { return false };
            let layout = &structs.list[*i];
            if k + 1 == path.len() {
                return layout.refs.contains(step);
            }
            match layout.fields.iter().find(|f| f.0 == *step) {
                Some((_, t, _)) => ty = t,
                None => return false,
            }
        }
        false
    }

    /// Whether a value of this type holds a union (itself, a field's or an element's type),
    /// which lives in memory or per-thread arrays only, where its bytes are reinterpreted.
    pub fn has_union(&self, structs: &Structs) -> bool {
        match self {
            Ty::Struct(i) => {
                let l = &structs.list[*i];
                l.union || l.fields.iter().any(|(_, t, _)| t.has_union(structs))
            }
            Ty::Array(t, _) => t.has_union(structs),
            _ => false,
        }
    }

    /// The number of scalar leaves.
    pub fn leaf_count(&self, structs: &Structs) -> usize {
        self.leaves(structs).len()
    }

    /// A field of a struct or a vector component: its type, byte offset and the range of
    /// leaves it occupies.
    pub fn member(
        &self,
        structs: &Structs,
        name: &str,
    ) -> Option<(Ty, u32, std::ops::Range<usize>)> {
        match self {
            Ty::Vector(s, n) => {
                let k = match name {
                    "x" => 0,
                    "y" => 1,
                    "z" => 2,
                    "w" => 3,
                    _ => return None,
                };
                (k < *n).then(|| (Ty::Scalar(*s), k * s.size(), k as usize..k as usize + 1))
            }
            // A union's members all span its words, from byte 0.
            Ty::Struct(i) if structs.list[*i].union => {
                let t = structs.list[*i]
                    .fields
                    .iter()
                    .find(|f| f.0 == name)?
                    .1
                    .clone();
                Some((t, 0, 0..self.leaf_count(structs)))
            }
            Ty::Struct(i) => {
                let mut first = 0;
                let mut inherited = None;
                for (fname, t, off) in &structs.list[*i].fields {
                    let count = t.leaf_count(structs);
                    if fname == name {
                        return Some((t.clone(), *off, first..first + count));
                    }
                    // A base subobject's members are the struct's, where its own do not hide
                    // them.
                    if inherited.is_none()
                        && let Ty::Struct(b) = t
                        && structs.list[*i].bases.contains(b)
                        && *fname == structs.list[*b].name
                        && let Some((ft, at, leaves)) = t.member(structs, name)
                    {
                        inherited = Some((ft, off + at, first + leaves.start..first + leaves.end));
                    }
                    first += count;
                }
                inherited
            }
            _ => None,
        }
    }

    /// The fields to go through to reach member `name` of a struct (or vector): `[name]`, or
    /// the anonymous struct and union members it is in first, as C11 and C++ find it.
    pub fn member_path(&self, structs: &Structs, name: &str) -> Option<Vec<String>> {
        if self.member(structs, name).is_some() {
            return Some(vec![name.to_string()]);
        }
        let Ty::Struct(i) = self else {
            return None;
        };
        structs.list[*i].fields.iter().find_map(|(f, t, _)| {
            if !crate::cuda::front::ast::is_anonymous(f) {
                return None;
            }
            let mut path = t.member_path(structs, name)?;
            path.insert(0, f.clone());
            Some(path)
        })
    }

    /// The names of a struct's fields, its base classes' included (not their subobjects).
    pub fn field_names(&self, structs: &Structs) -> Vec<String> {
        let Ty::Struct(i) = self else {
            return Vec::new();
        };
        let l = &structs.list[*i];
        let mut out = Vec::new();
        for (fname, t, _) in &l.fields {
            match t {
                Ty::Struct(b) if l.bases.contains(b) && *fname == structs.list[*b].name => {
                    out.extend(t.field_names(structs));
                }
                _ => out.push(fname.clone()),
            }
        }
        out
    }

    /// The name a message shows.
    pub fn show(&self, structs: &Structs) -> String {
        match self {
            Ty::Void => "void".into(),
            Ty::Scalar(s) => s.to_string(),
            Ty::Vector(..) => self.type_name(structs).to_string(),
            Ty::Struct(i) => structs.list[*i].name.clone(),
            Ty::Pointer(t) => format!("{} *", t.show(structs)),
            Ty::Array(t, Some(n)) => format!("{}[{n}]", t.show(structs)),
            Ty::Array(t, None) => format!("{}[]", t.show(structs)),
            Ty::Group(Group::Block) => "cg::thread_block".into(),
            Ty::Group(Group::Tile(n)) => format!("cg::thread_block_tile<{n}>"),
            Ty::Group(Group::Grid) => "cg::grid_group".into(),
            Ty::Group(Group::Coalesced(_)) => "cg::coalesced_group".into(),
            Ty::Closure(_) => "a lambda".into(),
            Ty::Texture => "texels".into(),
        }
    }

    /// The IR's description of a pointee type (for `--list` and argument parsing).
    pub fn type_name(&self, structs: &Structs) -> TypeName {
        match self {
            Ty::Scalar(s) => TypeName::Scalar(*s),
            Ty::Vector(s, n) => TypeName::Vector(*s, *n),
            Ty::Struct(i) => {
                let l = &structs.list[*i];
                let mut fields = Vec::new();
                match structs.words(*i) {
                    Some((w, n)) => fields.push((l.name.clone(), 0, w, n)),
                    None => flatten_fields(structs, *i, "", 0, &mut fields),
                }
                TypeName::Struct {
                    name: l.name.clone(),
                    size: l.size,
                    fields,
                }
            }
            Ty::Array(t, _) => t.type_name(structs),
            Ty::Texture => TypeName::Texture,
            _ => TypeName::Void,
        }
    }
}

/// Fields of a struct for [`TypeName::Struct`]: nested structs flattened with dotted names,
/// vectors as arrays of their component.
fn flatten_fields(
    structs: &Structs,
    i: usize,
    prefix: &str,
    at: u32,
    out: &mut Vec<(String, u32, Scalar, u32)>,
) {
    for (name, t, off) in &structs.list[i].fields {
        let full = format!("{prefix}{name}");
        let mut t = t.clone();
        let mut count = 1;
        while let Ty::Array(inner, n) = t {
            count *= n.unwrap_or(0);
            t = *inner;
        }
        match t {
            Ty::Scalar(s) => out.push((full, at + off, s, count)),
            Ty::Vector(s, n) => out.push((full, at + off, s, n * count)),
            // A union as the words that hold it.
            Ty::Struct(j) if let Some((w, n)) = structs.words(j) => {
                out.push((full, at + off, w, n * count))
            }
            Ty::Struct(j) if count == 1 => {
                flatten_fields(structs, j, &format!("{full}."), at + off, out)
            }
            _ => {}
        }
    }
}

impl Structs {
    /// Lay out a struct with C's rules (each field at the next multiple of its alignment, the
    /// size rounded up to the largest alignment), or a union (every field at offset 0, the
    /// size the largest field's rounded up to the largest alignment), and return its index.
    pub fn add(
        &mut self,
        name: &str,
        fields: Vec<(String, Ty)>,
        align: Option<u32>,
        def: Option<usize>,
        tenv: Vec<(String, super::TArg)>,
        union: bool,
    ) -> usize {
        let mut off = 0u32;
        let mut end = 0u32;
        let mut max_align = align.unwrap_or(1);
        let mut laid = Vec::new();
        for (n, t) in fields {
            let a = t.align(self);
            max_align = max_align.max(a);
            if !union {
                off = off.next_multiple_of(a);
            }
            let size = t.size(self);
            laid.push((n, t, off));
            end = end.max(off + size);
            if !union {
                off += size;
            }
        }
        self.list.push(Layout {
            name: name.to_string(),
            def,
            tenv,
            fields: laid,
            bases: Vec::new(),
            size: end.next_multiple_of(max_align).max(1),
            align: max_align,
            union,
            refs: Vec::new(),
        });
        self.list.len() - 1
    }

    /// The words that hold a value of union `i` (`None` for a struct): each an unsigned
    /// integer of its alignment (at most 8 bytes), so that every member's scalars lie within
    /// one word each, and as many as its size takes. Reading a member other than the one last
    /// written reads these bytes as its type, as on the GPU.
    pub fn words(&self, i: usize) -> Option<(Scalar, u32)> {
        let l = &self.list[i];
        if !l.union {
            return None;
        }
        let w = match l.align.min(8) {
            1 => Scalar::U8,
            2 => Scalar::U16,
            4 => Scalar::U32,
            _ => Scalar::U64,
        };
        Some((w, l.size / w.size()))
    }

    /// The index of the struct called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.list.iter().rposition(|l| l.name == name)
    }
}

/// C's conversion rank of an integer type (bool lowest).
fn rank(s: Scalar) -> u8 {
    match s {
        Scalar::Bool => 0,
        Scalar::I8 | Scalar::U8 => 1,
        Scalar::I16 | Scalar::U16 => 2,
        Scalar::I32 | Scalar::U32 => 3,
        Scalar::I64 | Scalar::U64 => 4,
        Scalar::F32 => 5,
        Scalar::F64 => 6,
    }
}

/// C's integer promotion: types narrower than `int` become `int`.
pub fn promote(s: Scalar) -> Scalar {
    if rank(s) < 3 { Scalar::I32 } else { s }
}

/// C's usual arithmetic conversions: the common type of a binary operation.
pub fn usual(a: Scalar, b: Scalar) -> Scalar {
    if a == Scalar::F64 || b == Scalar::F64 {
        return Scalar::F64;
    }
    if a == Scalar::F32 || b == Scalar::F32 {
        return Scalar::F32;
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    if a.is_signed() == b.is_signed() {
        return if rank(a) >= rank(b) { a } else { b };
    }
    let (u, s) = if a.is_signed() { (b, a) } else { (a, b) };
    if rank(u) >= rank(s) {
        u
    } else {
        // The signed type is wider, so it holds every value of the unsigned one.
        s
    }
}

/// The unsigned or signed type of the same width.
pub fn same_width_other(s: Scalar) -> Option<Scalar> {
    Some(match s {
        Scalar::I8 => Scalar::U8,
        Scalar::U8 => Scalar::I8,
        Scalar::I16 => Scalar::U16,
        Scalar::U16 => Scalar::I16,
        Scalar::I32 => Scalar::U32,
        Scalar::U32 => Scalar::I32,
        Scalar::I64 => Scalar::U64,
        Scalar::U64 => Scalar::I64,
        _ => return None,
    })
}

/// Whether `s` is an integer type (bool included).
pub fn is_integer(s: Scalar) -> bool {
    !s.is_float()
}

/// The integer type of `s`'s size that is signed or not (`make_signed`, `make_unsigned`).
pub fn with_signedness(s: Scalar, signed: bool) -> Scalar {
    match (s.size(), signed) {
        (1, true) => Scalar::I8,
        (1, false) => Scalar::U8,
        (2, true) => Scalar::I16,
        (2, false) => Scalar::U16,
        (4, true) => Scalar::I32,
        (4, false) => Scalar::U32,
        (8, true) => Scalar::I64,
        _ => Scalar::U64,
    }
}
