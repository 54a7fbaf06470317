//! The lowered form of a CUDA C kernel: typed, resolved, structured, ready to execute.
//!
//! The front-end ([`super::lower`]) turns one `__global__` function (with its template
//! arguments and every `__device__` function it calls, inlined) into a [`Kernel`]; the executor
//! ([`super::exec`]) runs it on the block-wide operations of [`crate::Block`], once per block,
//! without looking at source text or syntax trees again.
//!
//! # The model
//!
//! * **Variables** ([`VarId`]) are the kernel's per-thread scalars after lowering: every local
//!   variable, parameter copy and temporary is one variable of a [`Scalar`] type. Vectors
//!   (`float4`) and structs held in registers are split into one variable per component/field;
//!   a pointer is a [`Base`] fixed at lowering time plus a byte-offset variable (`I64`).
//! * **Statements** ([`Stmt`]) are structured control flow whose leaves are single operations:
//!   each [`Op`] computes one value from operands that are variables or constants, so executing
//!   an op is one block-wide operation.
//! * **Uniformity** is decided at lowering time, as warpsim counts at the level of the source:
//!   a variable is *uniform* when every assignment to it is uniform and made under uniform
//!   control flow (computed from constants, scalar parameters, `blockIdx`, `blockDim`,
//!   `gridDim`, `warpSize` and other uniform variables); everything else is *varying*. Each
//!   operation and branch carries `varying`: a varying operation is one warp instruction per
//!   warp with an active lane (counted like an operation on a Rust kernel's block-wide value),
//!   a uniform one is free (like plain Rust arithmetic on a `u32`); a branch or loop on a
//!   varying condition is a lane-varying branch (counted, may diverge), on a uniform condition
//!   it is plain control flow. Loads, stores, atomics, barriers, shuffles and votes are always
//!   counted.
//! * **Source sites** ([`Site`]) give file, line and column of every counted operation, for
//!   per-line counters, check-mode findings and error messages.

use std::fmt;

/// A per-thread scalar type (C's types after lowering; `char` is `I8`, `bool` is `Bool`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `bool` (0 or 1 in a 32-bit lane).
    Bool,
    /// `signed char`, `char`.
    I8,
    /// `unsigned char`.
    U8,
    /// `short`.
    I16,
    /// `unsigned short`.
    U16,
    /// `int`.
    I32,
    /// `unsigned int`.
    U32,
    /// `long`, `long long` (64-bit).
    I64,
    /// `unsigned long`, `unsigned long long`, `size_t`.
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl Scalar {
    /// Size in bytes in memory.
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }
    /// Whether the type is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }
    /// Whether the type is a signed integer.
    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }
    /// Whether values of the type occupy a 64-bit lane (the others occupy a 32-bit lane).
    pub fn is_wide(self) -> bool {
        matches!(self, Scalar::I64 | Scalar::U64 | Scalar::F64)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "char",
            Scalar::U8 => "unsigned char",
            Scalar::I16 => "short",
            Scalar::U16 => "unsigned short",
            Scalar::I32 => "int",
            Scalar::U32 => "unsigned int",
            Scalar::I64 => "long long",
            Scalar::U64 => "unsigned long long",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        })
    }
}

/// A variable: one per-thread scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// A constant: the value's bits in a `u64` (integers sign- or zero-extended from their type,
/// `f32` as `f32::to_bits`, `f64` as `f64::to_bits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Const {
    pub ty: Scalar,
    pub bits: u64,
}

/// What an operation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Var(VarId),
    Const(Const),
    /// A built-in index (`threadIdx.x`, `blockIdx.y`, …), of type `U32`.
    Builtin(Builtin),
}

/// CUDA's built-in variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    ThreadIdx(Axis),
    BlockIdx(Axis),
    BlockDim(Axis),
    GridDim(Axis),
    /// `warpSize` (32).
    WarpSize,
    /// The lane within the warp (`threadIdx.x % 32` for 1-D blocks; cooperative groups'
    /// `thread_rank()` of a 32-thread tile).
    LaneId,
    /// The block's linear thread index (`thread_block::thread_rank()`).
    LinearTid,
}

/// An axis of a 3-D index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
    Z,
}

/// Where a source construct is: file (index into [`Kernel::files`]), line and column (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Site {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// What a pointer points into; fixed at lowering time for every pointer value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// The buffer passed as kernel parameter `n` (a pointer parameter).
    Param(u32),
    /// Static `__shared__` array `n` of [`Kernel::shared`].
    Shared(u32),
    /// The launch's dynamic shared memory (`extern __shared__`).
    DynamicShared,
}

/// A memory location: `base` plus a byte offset (an `I64` operand).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub base: Base,
    pub offset: Operand,
}

/// Pure operations of one or two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// C's `/`: truncating for integers (by zero: `MAX`/`-1` as warpsim defines it).
    Div,
    /// C's `%`.
    Rem,
    And,
    Or,
    Xor,
    /// `<<` (amounts of the bit width or more give 0).
    Shl,
    /// `>>` (arithmetic for signed types).
    Shr,
    Min,
    Max,
    /// `powf`/`pow`.
    Pow,
    /// `atan2f`.
    Atan2,
    /// `__mulhi`/`__umulhi`: the high half of the product.
    MulHi,
}

/// Comparisons; the result is `Bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    /// `~` on integers.
    Not,
    /// `!` (result `Bool`).
    LogicalNot,
    Abs,
    Sqrt,
    Rsqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Tanh,
    Floor,
    Ceil,
    Trunc,
    Round,
    /// `__popc`/`__popcll`.
    Popc,
    /// `__clz`/`__clzll`.
    Clz,
    /// `__ffs`/`__ffsll`.
    Ffs,
    /// `__brev`/`__brevll`.
    Brev,
}

/// One computation; `dst` gets a value of type `ty` (except comparisons: `Bool`).
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `dst = src` (same type).
    Copy { src: Operand },
    /// `dst = (ty) src`: conversion with C's rules (float→int truncates and saturates, NaN
    /// gives 0; int narrowing wraps; to `Bool` is `!= 0`).
    Convert { src: Operand, from: Scalar },
    /// Reinterpret the bits (`__float_as_int`, `__int_as_float`, …; same size).
    Bitcast { src: Operand, from: Scalar },
    Unary { op: UnOp, a: Operand },
    Binary { op: BinOp, a: Operand, b: Operand },
    /// `a * b + c` rounded once (`fmaf`, `__fmaf_rn`).
    Fma { a: Operand, b: Operand, c: Operand },
    /// Compare `a` and `b`, both of type `of`; `dst` is `Bool`.
    Cmp {
        op: CmpOp,
        of: Scalar,
        a: Operand,
        b: Operand,
    },
    /// `cond ? a : b` with both sides already evaluated (no side effects); `cond` is `Bool`.
    Select { cond: Operand, a: Operand, b: Operand },
    /// `&&` / `||` of two `Bool`s whose right side has no side effects (so both are evaluated).
    And { a: Operand, b: Operand },
    Or { a: Operand, b: Operand },
}

/// A `Stmt::Assign` and what it costs.
#[derive(Clone, Debug, PartialEq)]
pub struct Assign {
    pub dst: VarId,
    /// The result type (`Bool` for comparisons, `And`, `Or`, `LogicalNot`).
    pub ty: Scalar,
    pub op: Op,
    /// Whether the operation depends on the thread (counted as a warp instruction).
    pub varying: bool,
    pub site: Site,
}

/// Read-modify-write atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    Exch,
    And,
    Or,
    Xor,
    /// `atomicCAS(addr, compare, value)`.
    Cas,
    /// `atomicInc(addr, limit)`: `old >= limit ? 0 : old + 1`.
    Inc,
    /// `atomicDec(addr, limit)`: `(old == 0 || old > limit) ? limit : old - 1`.
    Dec,
}

/// `__syncthreads` and its reducing forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKind {
    Plain,
    /// `__syncthreads_count(pred)`: `dst` (U32/I32) gets the count.
    Count,
    /// `__syncthreads_and(pred)`.
    And,
    /// `__syncthreads_or(pred)`.
    Or,
}

/// Shuffles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflKind {
    /// `__shfl_sync(mask, v, srcLane, width)`: `lane` is the source lane (per thread).
    Idx,
    /// `__shfl_up_sync(mask, v, delta, width)`.
    Up,
    /// `__shfl_down_sync(mask, v, delta, width)`.
    Down,
    /// `__shfl_xor_sync(mask, v, laneMask, width)`.
    Xor,
}

/// Warp votes and masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteKind {
    /// `__ballot_sync(mask, pred)` → `U32`.
    Ballot,
    /// `__any_sync(mask, pred)` → `I32` (0 or 1).
    Any,
    /// `__all_sync(mask, pred)` → `I32` (0 or 1).
    All,
    /// `__activemask()` → `U32` (no operands).
    ActiveMask,
    /// `__match_any_sync(mask, value)` → `U32`.
    MatchAny,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// One computation into a variable. Under divergent control flow only the active lanes
    /// change (C's semantics: the other threads did not execute the assignment).
    Assign(Assign),
    /// `dst = *addr`: one memory instruction reading `dst.len()` consecutive components of
    /// type `ty` (1, or 2 and 4 for the aligned vector types `float2`, `int4`, …: one 8- or
    /// 16-byte access, as a GPU makes it). Struct copies are lowered field by field, as nvcc
    /// compiles them. `volatile` and `__ldg` loads are plain loads here.
    Load {
        dst: Vec<VarId>,
        ty: Scalar,
        addr: Addr,
        site: Site,
    },
    /// `*addr = value`: one memory instruction writing `values.len()` components (1, 2, 4).
    Store {
        ty: Scalar,
        addr: Addr,
        values: Vec<Operand>,
        site: Site,
    },
    /// `dst = atomicOp(addr, a[, b])` (`b` is the value for CAS, the limit is `a` for
    /// Inc/Dec); `dst` may be `None` when the old value is unused.
    Atomic {
        dst: Option<VarId>,
        ty: Scalar,
        op: AtomicOp,
        addr: Addr,
        a: Operand,
        b: Option<Operand>,
        site: Site,
    },
    /// `if (cond) then else els`; `cond` is `Bool`. A uniform `if` is plain control flow.
    If {
        cond: Operand,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
        varying: bool,
        site: Site,
    },
    /// A loop: `body` runs until a `Break` (the front-end lowers `while (c)` to
    /// `Loop { body: [.. c ..; If(!c) { Break }; body..], step: [] }` and `for` likewise, the
    /// increment in `step`, which also runs after a `Continue`). `varying` is whether any
    /// `Break`/`Continue`/`Return` inside depends on the thread (then the loop's condition
    /// checks are counted branches); `site` is the loop statement's.
    Loop {
        body: Vec<Stmt>,
        step: Vec<Stmt>,
        varying: bool,
        site: Site,
    },
    /// Leave the innermost `Loop` (lanes that break wait at the loop's end).
    Break,
    /// Go to the innermost `Loop`'s `step`.
    Continue,
    /// Leave the innermost `Inline` (an inlined `__device__` function), or the kernel (the
    /// thread exits) outside any `Inline`.
    Return,
    /// An inlined function call's body: `Return` inside ends it for the lanes that return.
    Inline { body: Vec<Stmt> },
    /// `__syncthreads()` and its forms; `dst` and `pred` are set for `Count`/`And`/`Or`.
    Sync {
        kind: SyncKind,
        pred: Option<Operand>,
        dst: Option<VarId>,
        site: Site,
    },
    /// `__syncwarp(mask)` (also cooperative groups' `tile.sync()`).
    SyncWarp { mask: Operand, site: Site },
    /// A shuffle of `value` (type `ty`); `lane` is the source lane, delta or lane mask.
    Shfl {
        dst: VarId,
        ty: Scalar,
        kind: ShflKind,
        mask: Operand,
        value: Operand,
        lane: Operand,
        width: Operand,
        site: Site,
    },
    /// A vote; `arg` is the predicate (`Bool`) or the value (`MatchAny`), absent for
    /// `ActiveMask`.
    Vote {
        dst: VarId,
        kind: VoteKind,
        mask: Option<Operand>,
        arg: Option<Operand>,
        site: Site,
    },
    /// Device `printf(format, args...)`: printed after the launch, in block, warp, lane order.
    /// The format is C's; string-literal arguments are folded into it by the front-end (their
    /// `%` doubled), so `args` are scalars, each with its type after C's default argument
    /// promotions (`float` is passed as `F64`).
    Printf {
        format: String,
        args: Vec<(Operand, Scalar)>,
        site: Site,
    },
    /// A per-thread array element read: `dst = local[index]` (`index` an `I64` element index).
    LocalLoad {
        dst: VarId,
        array: u32,
        index: Operand,
        site: Site,
    },
    /// `local[index] = value`.
    LocalStore {
        array: u32,
        index: Operand,
        value: Operand,
        site: Site,
    },
    /// `__trap()`, `assert(false)`: the thread stops the launch with an error.
    Trap { message: String, site: Site },
}

/// A kernel parameter as the launch passes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

/// What a parameter is.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A scalar passed by value; the launch's value is assigned to `var`, a uniform
    /// variable.
    Scalar { ty: Scalar, var: VarId },
    /// A pointer to global memory ([`Base::Param`] of this parameter's index) whose pointee is
    /// `elem` (for `--arg` parsing and `--list`); `offset` is its byte-offset variable (zero at
    /// the start), `is_const` whether it was declared `const T*`.
    Pointer {
        elem: TypeName,
        offset: VarId,
        is_const: bool,
    },
    /// A struct passed by value: one scalar variable per field, in declaration order, with
    /// the byte offset of each field (the launch gets the struct's bytes).
    Struct {
        name: String,
        size: u32,
        fields: Vec<(u32, Scalar, VarId)>,
    },
}

/// A type as the source names it, for messages, `--list` and argument parsing.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeName {
    Scalar(Scalar),
    /// `float2`, `int4`, …: `n` components of `Scalar`.
    Vector(Scalar, u32),
    /// A struct from the file, with its size in bytes and its fields (name, byte offset,
    /// element type, number of elements for array fields).
    Struct {
        name: String,
        size: u32,
        fields: Vec<(String, u32, Scalar, u32)>,
    },
    /// `void` (a `void*` parameter).
    Void,
}

impl TypeName {
    /// Size in bytes (1 for `void`).
    pub fn size(&self) -> u32 {
        match self {
            TypeName::Scalar(s) => s.size(),
            TypeName::Vector(s, n) => s.size() * n,
            TypeName::Struct { size, .. } => *size,
            TypeName::Void => 1,
        }
    }
}

impl fmt::Display for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeName::Scalar(s) => write!(f, "{s}"),
            TypeName::Vector(s, n) => {
                let base = match s {
                    Scalar::F32 => "float",
                    Scalar::F64 => "double",
                    Scalar::I32 => "int",
                    Scalar::U32 => "uint",
                    Scalar::I8 => "char",
                    Scalar::U8 => "uchar",
                    Scalar::I16 => "short",
                    Scalar::U16 => "ushort",
                    Scalar::I64 => "longlong",
                    Scalar::U64 => "ulonglong",
                    Scalar::Bool => "bool",
                };
                write!(f, "{base}{n}")
            }
            TypeName::Struct { name, .. } => write!(f, "{name}"),
            TypeName::Void => write!(f, "void"),
        }
    }
}

/// A static `__shared__` array: `bytes` bytes, aligned to `align`.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedArray {
    pub name: String,
    pub bytes: u32,
    pub align: u32,
    pub site: Site,
}

/// A per-thread array of `len` scalars (`float buf[8];`).
#[derive(Clone, Debug, PartialEq)]
pub struct LocalArray {
    pub name: String,
    pub ty: Scalar,
    pub len: u32,
}

/// A variable's declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// The source name (temporaries: `$t3`).
    pub name: String,
    pub ty: Scalar,
    /// Whether the variable is uniform (see the module documentation).
    pub uniform: bool,
}

/// One kernel (one template instantiation), lowered.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The name with template arguments (`reduce<256>`).
    pub name: String,
    pub params: Vec<Param>,
    pub vars: Vec<Var>,
    pub shared: Vec<SharedArray>,
    pub locals: Vec<LocalArray>,
    pub body: Vec<Stmt>,
    /// Source file names ([`Site::file`] indexes this).
    pub files: Vec<String>,
    /// The kernel's definition.
    pub site: Site,
}
