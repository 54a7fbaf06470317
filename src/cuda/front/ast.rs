//! The front-end's syntax tree: the parts of CUDA C++ that device code uses, with every node's
//! original [`Site`]. `parse` builds it from the tree-sitter tree; constructs the
//! lowering does not support are kept as `Unsupported` nodes, so that they are reported only
//! when a kernel really reaches them (host code is never looked at).

use crate::cuda::ir::Site;

/// A type as written (before template substitution and name resolution).
#[derive(Clone, Debug, PartialEq)]
pub enum TypeExpr {
    /// A named type: `float`, `unsigned int`, `long long`, `float4`, `innerStruct`, `T`,
    /// `cg::thread_block` (primitive names normalised: `unsigned` is `unsigned int`).
    Name(String),
    /// `name<args>`: `cg::thread_block_tile<32>`.
    Template(String, Vec<TemplateArg>),
    /// `T *`.
    Pointer(Box<TypeExpr>),
    /// `T name[n]` (`None`: `[]`).
    Array(Box<TypeExpr>, Option<Box<Expr>>),
    /// `T &` (parameters, reference variables and members, return types).
    Ref(Box<TypeExpr>),
    /// `auto`.
    Auto,
    /// An anonymous struct (`typedef struct { .. } Name;`): the struct's name given by parse.
    Struct(String),
    /// `decltype(e)`, GNU `__typeof__(e)`/`typeof(e)`: the type of `e`, which is not evaluated
    /// (a `decltype` that names a reference is `Ref` of this; `e` may also name a type, as
    /// `__typeof__(int)` does).
    Typeof(Box<Expr>),
    /// `pattern...` in a template argument list (`f<Ts...>`): expanded when the variadic
    /// template it is in is instantiated.
    Expansion(Box<TypeExpr>),
}

/// A template argument as written.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateArg {
    /// A type.
    Type(TypeExpr),
    /// An expression (a constant).
    Expr(Expr),
}

/// Declaration qualifiers that matter to the lowering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quals {
    /// `const` (or `constexpr`).
    pub is_const: bool,
    /// `__shared__`.
    pub shared: bool,
    /// `extern`.
    pub is_extern: bool,
    /// `static`.
    pub is_static: bool,
    /// `__constant__`.
    pub constant: bool,
    /// `__device__` (on a variable).
    pub device: bool,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it starts.
    pub site: Site,
    /// Its byte range in the preprocessed text (for `assert` messages).
    pub span: (usize, usize),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    /// `-x`.
    Neg,
    /// `+x`.
    Plus,
    /// `~x`.
    BitNot,
    /// `!x`.
    Not,
    /// `*p`.
    Deref,
    /// `&x`.
    AddrOf,
}

/// Binary operators (`&&`, `||` and `,` included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    LogAnd,
    LogOr,
}

/// The kinds of expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A name (`x`, `threadIdx`, `cg::this_thread_block`: qualified names joined by `::`).
    Ident(String),
    /// An integer literal.
    Int(crate::cuda::front::preprocess::IntLiteral),
    /// A floating literal: value, whether it is a `float` (`f` suffix).
    Float(f64, bool),
    /// A character literal.
    Char(i64),
    /// A string literal (adjacent literals concatenated, escapes resolved).
    Str(String),
    /// `true`/`false`.
    Bool(bool),
    /// `nullptr`/`NULL`.
    Null,
    /// `op x`.
    Unary(Unary, Box<Expr>),
    /// `a op b`.
    Binary(Binary, Box<Expr>, Box<Expr>),
    /// `a = b` or `a op= b`.
    Assign(Option<Binary>, Box<Expr>, Box<Expr>),
    /// `++x`, `x++`, `--x`, `x--`: (increment, prefix).
    IncDec(bool, bool, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a, b`.
    Comma(Box<Expr>, Box<Expr>),
    /// A call: callee, explicit template arguments, arguments.
    Call(Box<Expr>, Vec<TemplateArg>, Vec<Expr>),
    /// `a[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `a.f` (false) or `a->f` (true).
    Member(Box<Expr>, String, bool),
    /// `(T) x`, `static_cast<T>(x)`, `reinterpret_cast<T>(x)`, `T(x)`.
    Cast(TypeExpr, Box<Expr>),
    /// `sizeof(T)`.
    SizeofType(TypeExpr),
    /// `sizeof x`.
    SizeofExpr(Box<Expr>),
    /// `alignof(T)`.
    Alignof(TypeExpr),
    /// `{a, b, ..}`.
    InitList(Vec<Expr>),
    /// `this` (in a member function).
    This,
    /// A GNU statement expression `({ stmt; ...; e; })`: the statements run in their own
    /// scope and the value is the last one's when it is an expression statement (else `void`).
    StmtExpr(Vec<Stmt>),
    /// `pattern...` in a call's arguments, a braced list or template arguments: expanded when
    /// the variadic template it is in is instantiated.
    PackExpansion(Box<Expr>),
    /// `sizeof...(pack)`.
    SizeofPack(String),
    /// A lambda: its parameters, body and (trailing or `auto`) return type, as a function
    /// named `lambda`, and what it captures by value; it sees the other variables in scope
    /// where it is written by reference.
    Lambda(Box<Function>, Captures),
    /// A construct the lowering rejects, with what it is and what to use instead.
    Unsupported(String, Option<String>),
}

/// One declared variable.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// Its name.
    pub name: String,
    /// Its type (pointer and array declarators applied).
    pub ty: TypeExpr,
    /// Qualifiers of the whole declaration.
    pub quals: Quals,
    /// `= init`, `(args)` or `{..}`.
    pub init: Option<Expr>,
    /// Where the name is.
    pub site: Site,
}

/// What a lambda captures by value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Captures {
    /// `[=]`: every variable it names that is not captured by reference (`[=, &j]`).
    pub all: bool,
    /// Captured by value by name (`[k]`), with an initializer (`[k = e]`) or not.
    pub named: Vec<(String, Option<Expr>)>,
    /// Captured by reference by name (`[=, &j]`).
    pub by_ref: Vec<String>,
    /// `[*this]`: the object, by value.
    pub this_copy: bool,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Where it starts.
    pub site: Site,
}

/// The kinds of statements.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// Declarations.
    Decl(Vec<VarDecl>),
    /// An expression statement.
    Expr(Expr),
    /// `{ .. }`.
    Block(Vec<Stmt>),
    /// `if (c) a else b`.
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `for (init; cond; step) body`.
    For(Option<Box<Stmt>>, Option<Expr>, Option<Expr>, Box<Stmt>),
    /// `while (c) body`.
    While(Expr, Box<Stmt>),
    /// `do body while (c);`.
    DoWhile(Box<Stmt>, Expr),
    /// `switch (c) { .. }`.
    Switch(Expr, Vec<Stmt>),
    /// `case v:` (`None`: `default:`) and the statements up to the next label.
    Case(Option<Expr>, Vec<Stmt>),
    /// `break;`.
    Break,
    /// `continue;`.
    Continue,
    /// `return [e];`.
    Return(Option<Expr>),
    /// `;`.
    Empty,
    /// `typedef T Name;` or `using Name = T;` inside a function.
    Typedef(String, TypeExpr),
    /// A construct the lowering rejects: what it is, and what to use instead.
    Unsupported(String, Option<String>),
}

/// A template parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateParam {
    /// `typename T` / `class T`, with its default (`typename T = float`).
    Type(String, Option<TypeExpr>),
    /// `int N`, `unsigned int blockSize`, with its default (`int N = 4`).
    Value(String, TypeExpr, Option<Expr>),
    /// A parameter pack: `typename... Ts` (no type) or `int... Ns`.
    Pack(String, Option<TypeExpr>),
}

impl TemplateParam {
    /// The parameter's name.
    pub fn name(&self) -> &str {
        match self {
            TemplateParam::Type(n, _) | TemplateParam::Value(n, ..) | TemplateParam::Pack(n, _) => {
                n
            }
        }
    }

    /// Its default argument, which may name the parameters before it.
    pub fn default(&self) -> Option<TemplateArg> {
        match self {
            TemplateParam::Type(_, t) => t.clone().map(TemplateArg::Type),
            TemplateParam::Value(_, _, e) => e.clone().map(TemplateArg::Expr),
            TemplateParam::Pack(..) => None,
        }
    }
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name (may be empty).
    pub name: String,
    /// Its type.
    pub ty: TypeExpr,
    /// `const` on the parameter or its pointee.
    pub is_const: bool,
    /// The type as written (for `--list`).
    pub written: String,
    /// Its default argument (`bool b = true`).
    pub default: Option<Expr>,
    /// A function parameter pack (`Ts... xs`, `const Ts &... xs`): `ty` is its pattern.
    pub pack: bool,
    /// Where it is.
    pub site: Site,
}

/// A `__global__` or `__device__` function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Its name (qualified by its namespaces: `ns::f`).
    pub name: String,
    /// `__global__`.
    pub global: bool,
    /// `__device__` (or `__host__ __device__`).
    pub device: bool,
    /// Template parameters (empty when not a template).
    pub template: Vec<TemplateParam>,
    /// The return type.
    pub ret: TypeExpr,
    /// The parameters.
    pub params: Vec<Param>,
    /// The body.
    pub body: Vec<Stmt>,
    /// Where the name is.
    pub site: Site,
    /// The first syntax error inside the definition, if any.
    pub syntax_error: Option<Site>,
    /// `static` (a static member function has no `this`).
    pub is_static: bool,
    /// A `const` member function (`int f() const`).
    pub is_const: bool,
    /// A constructor's member initializers: `: x(0), y(a)`.
    pub inits: Vec<(String, Vec<Expr>)>,
    /// An explicit specialization (declared after `template <>`): its explicit template
    /// arguments, `[int]` for `f<int>(int)`, none for `f(int)`, where they are deduced from its
    /// type. `None`: not a specialization.
    pub specialization: Option<Vec<TemplateArg>>,
}

impl Function {
    /// Whether a call with `n` arguments can call it: its parameters from the first without a
    /// default argument on have one each.
    pub fn takes(&self, n: usize) -> bool {
        n <= self.params.len() && self.params[n..].iter().all(|p| p.default.is_some())
    }
}

/// A struct definition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StructDef {
    /// Its name (a typedef's for anonymous structs).
    pub name: String,
    /// Template parameters (empty when not a template).
    pub template: Vec<TemplateParam>,
    /// A specialization's template arguments (`template <> struct S<float>`; with
    /// [`StructDef::template`] not empty, a partial specialization).
    pub specialization: Vec<TemplateArg>,
    /// Member functions with device code: methods, operators (`operator+`), constructors (named
    /// as the struct) and conversions (`operator cast`, the target type as the return type).
    pub methods: Vec<Function>,
    /// Member functions declared `static` here and defined outside (where `static` is not
    /// written again).
    pub static_methods: Vec<String>,
    /// Fields: name and type (an anonymous struct or union member has an [`anonymous_name`],
    /// its type's; a reference member's type is [`TypeExpr::Ref`]).
    pub fields: Vec<(String, TypeExpr)>,
    /// Static data members with a value (`static constexpr int size = 4;`), in order: constants
    /// of each instance, named bare inside the struct and `S::size` outside.
    pub statics: Vec<VarDecl>,
    /// `__align__(n)`/`alignas(n)`: the alignment's expression.
    pub align: Option<Expr>,
    /// Fields' default member initializers (`int a = 5;`): name and value.
    pub defaults: Vec<(String, Expr)>,
    /// Whether it is a `union`.
    pub union: bool,
    /// Where its first bit-field's width is (`unsigned a : 3;`), if it has one.
    pub bitfield: Option<Site>,
    /// Where it is.
    pub site: Site,
    /// Member types: `typedef T Type;`, `using Word = unsigned;`, a member enum's name.
    pub typedefs: Vec<(String, TypeExpr)>,
    /// Base classes (`struct S : Base<T> {}`), in order.
    pub bases: Vec<TypeExpr>,
    /// The struct it is declared in (index into [`Unit::structs`]), for a nested struct: it is
    /// named through that struct (`Outer<T>::Inner`) and sees its members and template
    /// arguments.
    pub owner: Option<usize>,
    /// Whether it has a body: a class template's primary declared without one (`template <int
    /// A> struct Impl;`, defined only by specializations) gives its parameters only.
    pub defined: bool,
    /// Where a partial specialization's pattern has a `const` or `volatile` argument
    /// (`template <typename T> struct S<const T>`), if it does.
    pub cv_pattern: Option<Site>,
}

/// The name of an anonymous struct or union (`union { float f; int i; } u;`, or a member
/// `union { .. };` whose members are named through the struct around it), defined at `line`
/// and `col`, at byte `at` of the preprocessed text: no identifier has this form.
pub fn anonymous_name(kind: &str, line: u32, col: u32, at: usize) -> String {
    format!("(anonymous {kind} at line {line}:{col}, byte {at})")
}

/// Whether a struct's or field's name is one [`anonymous_name`] made.
pub fn is_anonymous(name: &str) -> bool {
    name.starts_with("(anonymous ")
}

/// A file-scope variable (`const int N = 4;`, `__constant__ float c[16];`, enumerators).
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalVar {
    /// The declaration.
    pub decl: VarDecl,
}

/// One translation unit's device-relevant declarations, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Unit {
    /// `__global__` and `__device__` functions (member functions are their structs').
    pub functions: Vec<Function>,
    /// Struct definitions.
    pub structs: Vec<StructDef>,
    /// `typedef T Name;`.
    pub typedefs: Vec<(String, TypeExpr)>,
    /// Alias templates (`template <typename T> using Ptr = T *;`): name, parameters, type.
    pub alias_templates: Vec<(String, Vec<TemplateParam>, TypeExpr)>,
    /// File-scope variables and enumerators.
    pub globals: Vec<GlobalVar>,
    /// Names of host functions (calling one from a kernel is an error).
    pub host_functions: Vec<String>,
    /// Namespace aliases: `namespace cg = cooperative_groups;`.
    pub aliases: Vec<(String, String)>,
    /// Syntax errors (ERROR/MISSING nodes) anywhere, in file order.
    pub syntax_errors: Vec<(Site, String)>,
    /// The first syntax error in a top-level item that declares a kernel.
    pub kernel_syntax_error: Option<(Site, String)>,
}
