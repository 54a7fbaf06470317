//! The lowered form of a CUDA C kernel: typed, resolved, structured, ready to execute.
//!
//! The front-end ([`super::Module::lower`]) turns one `__global__` function (with its template
//! arguments and every `__device__` function it calls, inlined) into a [`Kernel`]; the executor
//! behind [`crate::cuda::launch()`] runs it on the block-wide operations of [`crate::Block`], once per
//! block, without looking at source text or syntax trees again.
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

pub mod contract;
pub mod directed;
pub mod gpu_math;
pub mod library;
pub mod print;
pub mod texture;

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
    /// The constant's type.
    pub ty: Scalar,
    /// The value's bits.
    pub bits: u64,
}

/// What an operation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A variable.
    Var(VarId),
    /// A constant.
    Const(Const),
    /// A built-in index (`threadIdx.x`, `blockIdx.y`, …), of type `U32`.
    Builtin(Builtin),
}

/// CUDA's built-in variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `threadIdx`.
    ThreadIdx(Axis),
    /// `blockIdx`.
    BlockIdx(Axis),
    /// `blockDim`.
    BlockDim(Axis),
    /// `gridDim`.
    GridDim(Axis),
    /// `warpSize` (32).
    WarpSize,
    /// The lane within the warp (`threadIdx.x % 32` for 1-D blocks; cooperative groups'
    /// `thread_rank()` of a 32-thread tile).
    LaneId,
    /// The block's linear thread index (`thread_block::thread_rank()`).
    LinearTid,
    /// The address of a pointer's buffer (its element 0 as the launch binds it), of type
    /// `U64`: what pointer comparisons and casts to integers read. Shared memory sits in a
    /// window of its own ([`SHARED_WINDOW`]); a null pointer is 0.
    BaseAddress(Base),
    /// `clock()`/`clock64()` (`I64`): warpsim's clock ticks once per statement the block
    /// executes, so a time measured with it is the work between two readings, and a loop that
    /// waits for it ends.
    Clock,
}

/// How deep statements nest at most, counting bodies of `if`s, loops and `switch` sections,
/// once device functions are inlined (the front-end refuses deeper code, a few levels of its
/// own lowering aside): everything that walks statements may recurse. C asks compilers for 127
/// levels of blocks; 128 with expressions nested to their limit (500) parse and lower on a
/// 2 MiB stack (a Rust thread's), and run on one.
pub const MAX_STATEMENT_NESTING: u32 = 128;

/// Where shared memory appears in the generic address space (as on a GPU, a window apart from
/// global memory): the address of shared byte `k` is `SHARED_WINDOW + k`.
pub const SHARED_WINDOW: u64 = 0xffff_8000_0000_0000;

/// An axis of a 3-D index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

/// Where a source construct is: file (index into [`Kernel::files`]), line and column (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Site {
    /// Index into [`Kernel::files`].
    pub file: u32,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

/// What a pointer points into: fixed at lowering time for most pointers; a pointer variable
/// assigned pointers into different buffers holds its buffer in a variable ([`Base::Var`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// The buffer passed as kernel parameter `n` (a pointer parameter).
    Param(u32),
    /// Static `__shared__` array `n` of [`Kernel::shared`].
    Shared(u32),
    /// The launch's dynamic shared memory (`extern __shared__`).
    DynamicShared,
    /// `__constant__` or `__device__` variable `n` of [`Kernel::globals`].
    Global(u32),
    /// No buffer: a null pointer (an access through it faults).
    Null,
    /// The buffer whose [`Base::encode`] the `U32` variable holds (per thread).
    Var(VarId),
}

impl Base {
    /// The number a [`Base::Var`] variable holds for this buffer (`None` for `Var` itself).
    pub fn encode(self) -> Option<u32> {
        Some(match self {
            Base::Param(i) => i,
            Base::Shared(i) => 0x1_0000 + i,
            Base::DynamicShared => 0x2_0000,
            Base::Global(i) => 0x3_0000 + i,
            Base::Null => u32::MAX,
            Base::Var(_) => return None,
        })
    }

    /// The buffer a [`Base::Var`] variable's number names.
    pub fn decode(v: u32) -> Base {
        match v >> 16 {
            _ if v == u32::MAX => Base::Null,
            0 => Base::Param(v),
            1 => Base::Shared(v & 0xffff),
            2 => Base::DynamicShared,
            3 => Base::Global(v & 0xffff),
            _ => Base::Null,
        }
    }
}

/// A memory location: `base` plus a byte offset.
///
/// The byte offset is `offset + Σ value × scale` over `index`: `offset` is a pointer's byte
/// offset (its `I64` offset variable, or a constant that also holds struct field offsets), and
/// each `index` term is an element index that C scales implicitly (`a[i]` is the term
/// `(i, sizeof *a)`; `tile[y][x]` of a `float[32][33]` is `(y, 132), (x, 4)`). A term's value
/// is an integer operand of any integer type, sign- or zero-extended to 64 bits by its type.
///
/// Forming the address is never a counted instruction: C's scaling and the adding of a
/// pointer's offset exist only because of how C spells an element, so the executor turns an
/// `Addr` into (buffer, element index = byte offset / size of the accessed type) for free. The
/// source's own arithmetic on an index (`i + offset`, `y * width + x`) is separate `Assign`s
/// and is counted as usual.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addr {
    /// The buffer.
    pub base: Base,
    /// The pointer's byte offset (its `I64` offset variable, or a constant).
    pub offset: Operand,
    /// Implicitly scaled indexes: `(value, scale in bytes)`; the scale is negative for `p - k`.
    pub index: Vec<(Operand, i64)>,
}

impl Addr {
    /// Every operand the address reads: its buffer's variable (for [`Base::Var`]), the offset
    /// and the index terms.
    pub fn operands(&self) -> impl Iterator<Item = Operand> + '_ {
        let base = match self.base {
            Base::Var(v) => Some(Operand::Var(v)),
            _ => None,
        };
        base.into_iter()
            .chain(std::iter::once(self.offset))
            .chain(self.index.iter().map(|(o, _)| *o))
    }
}

impl Operand {
    /// The variable an operand reads, if any (a [`Builtin::BaseAddress`] of a [`Base::Var`]
    /// reads that variable).
    pub fn var(&self) -> Option<VarId> {
        match *self {
            Operand::Var(v) | Operand::Builtin(Builtin::BaseAddress(Base::Var(v))) => Some(v),
            _ => None,
        }
    }
}

/// Pure operations of one or two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// C's `/`: truncating for integers (by zero: `MAX`/`-1` as warpsim defines it).
    Div,
    /// C's `%` (`fmodf`/`fmod` on floating types).
    Rem,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `<<` (amounts of the bit width or more give 0).
    Shl,
    /// `>>` (arithmetic for signed types).
    Shr,
    /// `min`, `fminf`.
    Min,
    /// `max`, `fmaxf`.
    Max,
    /// `powf`/`pow`.
    Pow,
    /// `atan2f`.
    Atan2,
    /// `__mulhi`/`__umulhi`: the high half of the product.
    MulHi,
    /// `hypotf`.
    Hypot,
    /// `copysignf`.
    CopySign,
    /// `fdimf`: `x - y` when positive, else 0.
    Fdim,
    /// `remainderf`: IEEE remainder (the quotient rounded to nearest).
    Remainder,
    /// `ldexpf(x, n)`, with `n` converted to the floating type (exactly: it is an `int`).
    Ldexp,
    /// The lane of set bit number `b` (from 0) of mask `a`, 32 when `a` has fewer (`U32`; a
    /// coalesced group's rank to its lane).
    NthSet,
    /// `__fadd_rd`, `__dmul_ru`, `__fdiv_rz`, `__drcp_rd` (a division of 1) …: IEEE
    /// arithmetic rounded in a direction ([`directed`]).
    Rounded(Arith, Round),
}

/// The arithmetic CUDA's intrinsics round in a chosen direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

/// The rounding direction of CUDA's `_rd`, `_ru` and `_rz` intrinsics (`_rn`, to nearest
/// even, is the plain operation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Toward −∞ (`_rd`).
    Down,
    /// Toward +∞ (`_ru`).
    Up,
    /// Toward zero (`_rz`).
    Zero,
}

/// Comparisons; the result is `Bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
}

impl CmpOp {
    /// The comparison with its operands swapped (`a < b` is `b > a`).
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            eq => eq,
        }
    }

    /// The comparison that holds where this one does not, on integers (`!(a < b)` is `a >= b`).
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
        }
    }
}

/// Unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`.
    Neg,
    /// `~` on integers.
    Not,
    /// `!` (result `Bool`).
    LogicalNot,
    /// `abs`, `fabsf`.
    Abs,
    /// `sqrtf`.
    Sqrt,
    /// `rsqrtf`.
    Rsqrt,
    /// `expf`, `__expf`.
    Exp,
    /// `exp2f`.
    Exp2,
    /// `logf`, `__logf`.
    Log,
    /// `log2f`.
    Log2,
    /// `log10f`.
    Log10,
    /// `sinf`.
    Sin,
    /// `cosf`.
    Cos,
    /// `tanf`.
    Tan,
    /// `tanhf`.
    Tanh,
    /// `floorf`.
    Floor,
    /// `ceilf`.
    Ceil,
    /// `truncf`.
    Trunc,
    /// `roundf`: halfway cases away from zero.
    Round,
    /// `rintf`, `__float2int_rn`: to nearest, halfway cases to even.
    Rint,
    /// `__popc`/`__popcll`. Its result type `ty` is `I32`; the operand has its own integer
    /// type (`U32` or `U64`), as for `Clz` and `Ffs`.
    Popc,
    /// `__clz`/`__clzll` (result `I32`, operand of its own type).
    Clz,
    /// `__ffs`/`__ffsll` (result `I32`, operand of its own type).
    Ffs,
    /// `__brev`/`__brevll`.
    Brev,
    /// A function of the C math library (`asinf`, `erff`, `cbrtf` …).
    Math(MathFn),
    /// A test of a floating-point value; the result type `ty` is `I32`, the operand keeps its
    /// own type (as for `Popc`).
    Test(FpTest),
    /// `__fsqrt_rd`, `__dsqrt_ru`, …: the square root rounded in a direction ([`directed`]).
    SqrtRounded(Round),
    /// A `double` rounded to `float`'s precision and range in a direction, still a `double`
    /// (`__double2float_rd` is this, then the exact conversion to `float`; the identity on a
    /// `float`).
    NarrowRounded(Round),
}

/// The C math library's functions of one argument beyond [`UnOp`]'s own, evaluated as a
/// correctly rounded C library (`libm`) does: within CUDA's documented error bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum MathFn {
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    Cbrt,
    Erf,
    Erfc,
    Lgamma,
    Tgamma,
    Expm1,
    Log1p,
    Exp10,
    /// `sinpif(x)`: sin(πx).
    SinPi,
    /// `cospif(x)`: cos(πx).
    CosPi,
    Logb,
    /// `normcdff(x)`: the standard normal distribution function.
    NormCdf,
    /// `frexpf`'s fraction (the exponent is [`FpTest::FrexpExp`]).
    FrexpFrac,
}

/// Tests of a floating-point value, with an `int` result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FpTest {
    /// `isnan`.
    IsNan,
    /// `isinf`.
    IsInf,
    /// `isfinite`.
    IsFinite,
    /// `signbit`.
    SignBit,
    /// `ilogbf`.
    Ilogb,
    /// `frexpf`'s exponent.
    FrexpExp,
}

/// One computation; `dst` gets a value of type `ty` (except comparisons: `Bool`).
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `dst = src` (same type).
    Copy {
        /// The value copied.
        src: Operand,
    },
    /// `dst = (ty) src`: conversion with C's rules (float→int truncates and saturates, NaN
    /// gives 0; int narrowing wraps; to `Bool` is `!= 0`).
    Convert {
        /// The value converted.
        src: Operand,
        /// The operand's type.
        from: Scalar,
    },
    /// Reinterpret the bits (`__float_as_int`, `__int_as_float`, …; same size).
    Bitcast {
        /// The value reinterpreted.
        src: Operand,
        /// The operand's type.
        from: Scalar,
    },
    /// A unary operation.
    Unary {
        /// The operation.
        op: UnOp,
        /// The first operand.
        a: Operand,
    },
    /// A binary operation.
    Binary {
        /// The operation.
        op: BinOp,
        /// The first operand.
        a: Operand,
        /// The second operand.
        b: Operand,
    },
    /// `±(a * b) ± c` rounded once (`fmaf`, `__fmaf_rn`, and the sums nvcc contracts:
    /// [`contract`]). The negations are exact, as a GPU's FFMA applies them.
    Fma {
        /// The first operand.
        a: Operand,
        /// The second operand.
        b: Operand,
        /// The addend.
        c: Operand,
        /// Whether the product is negated (`c - a * b`).
        negate_product: bool,
        /// Whether the addend is negated (`a * b - c`).
        negate_addend: bool,
    },
    /// Compare `a` and `b`, both of type `of`; `dst` is `Bool`.
    Cmp {
        /// The operation.
        op: CmpOp,
        /// The operands' type.
        of: Scalar,
        /// The first operand.
        a: Operand,
        /// The second operand.
        b: Operand,
    },
    /// `cond ? a : b` with both sides already evaluated (no side effects); `cond` is `Bool`.
    Select {
        /// The condition (`Bool`).
        cond: Operand,
        /// The value where `cond` holds.
        a: Operand,
        /// The value where it does not.
        b: Operand,
    },
    /// `&&` / `||` of two `Bool`s whose right side has no side effects (so both are evaluated).
    And {
        /// The first operand.
        a: Operand,
        /// The second operand.
        b: Operand,
    },
    /// `a || b`.
    Or {
        /// The first operand.
        a: Operand,
        /// The second operand.
        b: Operand,
    },
    /// Pointer arithmetic: `dst` (`I64`) = `offset + Σ value × scale` over `index`, with the
    /// terms read as in [`Addr`]. Like [`Op::Copy`] and [`Op::Bitcast`] it is never counted
    /// (`p = a + i`, `&a[i]`, `p++` form addresses; see [`Addr`]). Also the element index of a
    /// [`Stmt::LocalLoad`]/[`Stmt::LocalStore`] of a multi-dimensional local array.
    Offset {
        /// The pointer's byte offset.
        offset: Operand,
        /// Implicitly scaled indexes, as in [`Addr::index`].
        index: Vec<(Operand, i64)>,
    },
}

/// A `Stmt::Assign` and what it costs.
#[derive(Clone, Debug, PartialEq)]
pub struct Assign {
    /// The variable that receives the result.
    pub dst: VarId,
    /// The result type (`Bool` for comparisons, `And`, `Or`, `LogicalNot`).
    pub ty: Scalar,
    /// The computation.
    pub op: Op,
    /// Whether the operation depends on the thread (counted as a warp instruction).
    pub varying: bool,
    /// Where it is in the source.
    pub site: Site,
}

/// Read-modify-write atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomicAdd`.
    Add,
    /// `atomicSub`.
    Sub,
    /// `atomicMin`.
    Min,
    /// `atomicMax`.
    Max,
    /// `atomicExch`.
    Exch,
    /// `atomicAnd`.
    And,
    /// `atomicOr`.
    Or,
    /// `atomicXor`.
    Xor,
    /// `atomicCAS(addr, compare, value)`.
    Cas,
    /// `atomicInc(addr, limit)`: `old >= limit ? 0 : old + 1`.
    Inc,
    /// `atomicDec(addr, limit)`: `(old == 0 || old > limit) ? limit : old - 1`.
    Dec,
}

impl AtomicOp {
    /// Whether the operation has a floating-point form (the others are integer-only).
    pub fn takes_floats(self) -> bool {
        matches!(
            self,
            AtomicOp::Add
                | AtomicOp::Sub
                | AtomicOp::Exch
                | AtomicOp::Min
                | AtomicOp::Max
                | AtomicOp::Cas
        )
    }
}

/// `__syncthreads` and its reducing forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKind {
    /// `__syncthreads()`.
    Plain,
    /// `__syncthreads_count(pred)`: `dst` (U32/I32) gets the count.
    Count,
    /// `__syncthreads_and(pred)`.
    And,
    /// `__syncthreads_or(pred)`.
    Or,
    /// `grid.sync()`: every thread of a cooperative launch ([`crate::Block::sync_grid`]).
    Grid,
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
    /// `__reduce_OP_sync(mask, value)` → the value's type (`U32` or `I32`, which decides
    /// whether min and max compare signed): the values of the lanes in `mask` combined.
    Reduce(WarpReduce),
}

/// The operation of `__reduce_OP_sync` (sm_80 and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpReduce {
    /// `__reduce_add_sync` (wrapping).
    Add,
    /// `__reduce_min_sync`.
    Min,
    /// `__reduce_max_sync`.
    Max,
    /// `__reduce_and_sync`.
    And,
    /// `__reduce_or_sync`.
    Or,
    /// `__reduce_xor_sync`.
    Xor,
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
        /// The variables loaded, one per component.
        dst: Vec<VarId>,
        /// The component type.
        ty: Scalar,
        /// The memory location.
        addr: Addr,
        /// Where it is in the source.
        site: Site,
    },
    /// `*addr = value`: one memory instruction writing `values.len()` components (1, 2, 4).
    Store {
        /// The component type.
        ty: Scalar,
        /// The memory location.
        addr: Addr,
        /// The components stored, in memory order.
        values: Vec<Operand>,
        /// Where it is in the source.
        site: Site,
    },
    /// `dst = atomicOp(addr, a[, b])` (`b` is the value for CAS, the limit is `a` for
    /// Inc/Dec); `dst` may be `None` when the old value is unused.
    Atomic {
        /// The variable that receives the old value, if it is used.
        dst: Option<VarId>,
        /// The type of the value.
        ty: Scalar,
        /// The operation.
        op: AtomicOp,
        /// The memory location.
        addr: Addr,
        /// The operand (the compare value for CAS, the limit for Inc/Dec).
        a: Operand,
        /// The new value for CAS.
        b: Option<Operand>,
        /// Where it is in the source.
        site: Site,
    },
    /// `if (cond) then else els`; `cond` is `Bool`. A uniform `if` is plain control flow.
    If {
        /// The condition (`Bool`).
        cond: Operand,
        /// The statements run where the condition holds.
        then: Vec<Stmt>,
        /// The statements run where it does not.
        els: Vec<Stmt>,
        /// Whether it depends on the thread (see the module documentation).
        varying: bool,
        /// Where it is in the source.
        site: Site,
    },
    /// A loop: `body` runs until a `Break` (the front-end lowers `while (c)` to
    /// `Loop { body: [.. c ..; If(!c) { Break }; body..], step: [] }` and `for` likewise, the
    /// increment in `step`, which also runs after a `Continue`; `do { } while (c)` puts the
    /// check in `step`, so a `Break` in `step` leaves the loop too). `varying` is whether any
    /// `Break`/`Continue`/`Return` inside depends on the thread (then the loop's condition
    /// checks are counted branches); `site` is the loop statement's.
    Loop {
        /// The statements.
        body: Vec<Stmt>,
        /// The statements run after each iteration (also after `continue`).
        step: Vec<Stmt>,
        /// Whether it depends on the thread (see the module documentation).
        varying: bool,
        /// Whether nvcc would unroll it completely: a `for` with a constant start, bound and
        /// step whose index nothing else assigns, of at most 32 iterations. Its iterations are
        /// then one straight line of code, which decides where load batches end
        /// ([`crate::Counters::gld_batches`]). Set after lowering, by an analysis.
        unrolled: bool,
        /// Whether no barrier can be reached once a thread has left the loop (up to the
        /// kernel's end): a barrier inside then waits only for the threads still looping, as on
        /// a GPU since Volta. Set after lowering, by an analysis (`analysis/barriers.rs`).
        barrier_free_after: bool,
        /// Where it is in the source.
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
    Inline {
        /// The function's body.
        body: Vec<Stmt>,
    },
    /// `__syncthreads()` and its forms; `dst` and `pred` are set for `Count`/`And`/`Or`.
    Sync {
        /// Which form.
        kind: SyncKind,
        /// The predicate of the reducing forms.
        pred: Option<Operand>,
        /// The variable that receives the count, `and` or `or`.
        dst: Option<VarId>,
        /// Where it is in the source.
        site: Site,
    },
    /// `__threadfence()` (and `__threadfence_system()`): the block's global accesses before it
    /// are ordered before those after it, as other blocks see them.
    Fence {
        /// Where it is in the source.
        site: Site,
    },
    /// `__syncwarp(mask)` (also cooperative groups' `tile.sync()`).
    SyncWarp {
        /// The member mask.
        mask: Operand,
        /// Where it is in the source.
        site: Site,
    },
    /// A shuffle of `value` (type `ty`); `lane` is the source lane, delta or lane mask.
    Shfl {
        /// The variable that receives the result.
        dst: VarId,
        /// Its type.
        ty: Scalar,
        /// Which form.
        kind: ShflKind,
        /// The member mask (`None`: the warp's executing lanes, as the legacy `__shfl` without
        /// `_sync` acts).
        mask: Option<Operand>,
        /// The value shuffled.
        value: Operand,
        /// The source lane, delta or lane mask.
        lane: Operand,
        /// The segment width (`warpSize` unless given).
        width: Operand,
        /// Where it is in the source.
        site: Site,
    },
    /// A vote; `arg` is the predicate (`Bool`) or the value (`MatchAny`), absent for
    /// `ActiveMask`.
    Vote {
        /// The variable that receives the result.
        dst: VarId,
        /// Which form.
        kind: VoteKind,
        /// The member mask (`None`: the warp's executing lanes, as `__activemask()` and the
        /// legacy votes without `_sync` act).
        mask: Option<Operand>,
        /// The predicate or value.
        arg: Option<Operand>,
        /// Where it is in the source.
        site: Site,
    },
    /// Device `printf(format, args...)`: printed after the launch, in block, warp, lane order.
    /// The format is C's; string-literal arguments are folded into it by the front-end (their
    /// `%` doubled), so `args` are scalars, each with its type after C's default argument
    /// promotions (`float` is passed as `F64`).
    Printf {
        /// The format string, C's syntax.
        format: String,
        /// The arguments, each with its type after promotion.
        args: Vec<(Operand, Scalar)>,
        /// Where it is in the source.
        site: Site,
    },
    /// A per-thread array element read: `dst = local[index]` (`index` an integer element index
    /// of any integer type, usually the `I64` of an [`Op::Offset`] or a constant).
    LocalLoad {
        /// The variable that receives the result.
        dst: VarId,
        /// The per-thread array ([`Kernel::locals`] index).
        array: u32,
        /// The element index.
        index: Operand,
        /// Where it is in the source.
        site: Site,
    },
    /// `local[index] = value`.
    LocalStore {
        /// The per-thread array ([`Kernel::locals`] index).
        array: u32,
        /// The element index.
        index: Operand,
        /// The value stored.
        value: Operand,
        /// Where it is in the source.
        site: Site,
    },
    /// A texture fetch (`tex2D<float4>(t, x, y)`): `dst` gets the first `dst.len()` channels
    /// ([`texture::fetch`]) of the texture object the launch binds to `texture`, each of type
    /// `ty`.
    Texture {
        /// The variables that receive the channels.
        dst: Vec<VarId>,
        /// Their type.
        ty: Scalar,
        /// Where the texture object is: a `cudaTextureObject_t` parameter ([`Base::Param`]) or
        /// a texture reference ([`Base::Global`], a [`GlobalVar::texture`]).
        texture: Base,
        /// Which fetch.
        fetch: texture::Fetch,
        /// The index (`I32`) or the coordinates (`F32`).
        coords: Vec<Operand>,
        /// Where it is in the source.
        site: Site,
    },
    /// `__trap()`, `assert(false)`: the thread stops the launch with an error.
    Trap {
        /// What to report.
        message: String,
        /// Where it is in the source.
        site: Site,
    },
}

impl Op {
    /// `a * b + c` rounded once.
    pub fn fma(a: Operand, b: Operand, c: Operand) -> Op {
        Op::Fma {
            a,
            b,
            c,
            negate_product: false,
            negate_addend: false,
        }
    }

    /// Whether computing a value of type `ty` this way is an instruction a counting launch
    /// counts: copies, bit reinterpretations, address arithmetic and conversions between
    /// integers of one width are free.
    pub fn is_instruction(&self, ty: Scalar) -> bool {
        let same_width_ints = |a: Scalar, b: Scalar| {
            !a.is_float()
                && !b.is_float()
                && a != Scalar::Bool
                && b != Scalar::Bool
                && a.size() == b.size()
        };
        match self {
            Op::Copy { .. } | Op::Bitcast { .. } | Op::Offset { .. } => false,
            Op::Convert { from, .. } => !same_width_ints(*from, ty),
            _ => true,
        }
    }

    /// Every operand the computation reads, in order.
    pub fn operands(&self) -> Vec<Operand> {
        match self {
            Op::Copy { src } | Op::Convert { src, .. } | Op::Bitcast { src, .. } => vec![*src],
            Op::Unary { a, .. } => vec![*a],
            Op::Binary { a, b, .. } | Op::Cmp { a, b, .. } | Op::And { a, b } | Op::Or { a, b } => {
                vec![*a, *b]
            }
            Op::Fma { a, b, c, .. } => vec![*a, *b, *c],
            Op::Select { cond, a, b } => vec![*cond, *a, *b],
            Op::Offset { offset, index } => std::iter::once(*offset)
                .chain(index.iter().map(|(o, _)| *o))
                .collect(),
        }
    }
}

impl Stmt {
    /// Every operand the statement itself reads (an `if`'s condition, not its branches'
    /// statements), in evaluation order.
    pub fn reads(&self) -> Vec<Operand> {
        match self {
            Stmt::Assign(a) => a.op.operands(),
            Stmt::Load { addr, .. } => addr.operands().collect(),
            Stmt::Store { addr, values, .. } => {
                addr.operands().chain(values.iter().copied()).collect()
            }
            Stmt::Atomic { addr, a, b, .. } => addr
                .operands()
                .chain(std::iter::once(*a))
                .chain(*b)
                .collect(),
            Stmt::If { cond, .. } => vec![*cond],
            Stmt::Sync { pred, .. } => pred.iter().copied().collect(),
            Stmt::SyncWarp { mask, .. } => vec![*mask],
            Stmt::Shfl {
                mask,
                value,
                lane,
                width,
                ..
            } => mask
                .iter()
                .copied()
                .chain([*value, *lane, *width])
                .collect(),
            Stmt::Vote { mask, arg, .. } => mask.iter().chain(arg.iter()).copied().collect(),
            Stmt::Printf { args, .. } => args.iter().map(|(o, _)| *o).collect(),
            Stmt::LocalLoad { index, .. } => vec![*index],
            Stmt::Texture { coords, .. } => coords.clone(),
            Stmt::LocalStore { index, value, .. } => vec![*index, *value],
            Stmt::Loop { .. }
            | Stmt::Break
            | Stmt::Continue
            | Stmt::Return
            | Stmt::Inline { .. }
            | Stmt::Fence { .. }
            | Stmt::Trap { .. } => Vec::new(),
        }
    }

    /// Every variable the statement itself assigns (not its nested statements').
    pub fn writes(&self) -> Vec<VarId> {
        match self {
            Stmt::Assign(a) => vec![a.dst],
            Stmt::Load { dst, .. } | Stmt::Texture { dst, .. } => dst.clone(),
            Stmt::Atomic { dst, .. } | Stmt::Sync { dst, .. } => dst.iter().copied().collect(),
            Stmt::Shfl { dst, .. } | Stmt::Vote { dst, .. } | Stmt::LocalLoad { dst, .. } => {
                vec![*dst]
            }
            _ => Vec::new(),
        }
    }

    /// The statement lists nested in it: an `if`'s branches, a loop's body and step, an
    /// inlined call's body.
    pub fn children(&self) -> Vec<&[Stmt]> {
        match self {
            Stmt::If { then, els, .. } => vec![then, els],
            Stmt::Loop { body, step, .. } => vec![body, step],
            Stmt::Inline { body } => vec![body],
            _ => Vec::new(),
        }
    }
}

/// A kernel parameter as the launch passes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The parameter's name.
    pub name: String,
    /// Which form.
    pub kind: ParamKind,
}

/// What a parameter is.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A scalar passed by value; the launch's value is assigned to `var`, a uniform
    /// variable.
    Scalar {
        /// The type of the value.
        ty: Scalar,
        /// The variable that holds it.
        var: VarId,
    },
    /// A pointer to global memory ([`Base::Param`] of this parameter's index) whose pointee is
    /// `elem` (for `--arg` parsing and `--list`); `offset` is its byte-offset variable (zero at
    /// the start), `is_const` whether it was declared `const T*`.
    Pointer {
        /// The pointee type.
        elem: TypeName,
        /// The pointer's byte-offset variable (zero at the start).
        offset: VarId,
        /// Whether it was declared `const T*`.
        is_const: bool,
    },
    /// A struct passed by value: one scalar variable per field, in declaration order, with
    /// the byte offset of each field (the launch gets the struct's bytes).
    Struct {
        /// The struct's name.
        name: String,
        /// Size in bytes.
        size: u32,
        /// Each scalar field: byte offset, type and the variable that holds it.
        fields: Vec<(u32, Scalar, VarId)>,
        /// Each pointer field, bound to a buffer of its own.
        pointers: Vec<FieldPointer>,
        /// The buffer slot ([`Base::Param`]) the launch binds to a read-only copy of the
        /// struct's bytes (constant memory, as the GPU's parameter bank), where the kernel reads
        /// an array of it at a run-time index from them.
        bytes: Option<u32>,
    },
}

/// A pointer field of a struct parameter (`struct Args { float *x; int n; }`): the launch
/// resolves the address in the struct's bytes to a buffer ([`crate::cuda::Arg::Struct`]) and
/// binds it as [`Base::Param`]`(buffer)`, numbered after the kernel's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldPointer {
    /// The field as the kernel names it (`args.in.x`).
    pub name: String,
    /// The field's byte offset in the struct.
    pub at: u32,
    /// The pointee type.
    pub elem: TypeName,
    /// The buffer slot it is bound to.
    pub buffer: u32,
    /// The pointer's byte-offset variable.
    pub offset: VarId,
}

/// A type as the source names it, for messages, `--list` and argument parsing.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeName {
    /// A scalar type.
    Scalar(Scalar),
    /// `float2`, `int4`, …: `n` components of `Scalar`.
    Vector(Scalar, u32),
    /// A struct from the file, with its size in bytes and its fields (name, byte offset,
    /// element type, number of elements for array fields).
    Struct {
        /// The struct's name.
        name: String,
        /// Size in bytes.
        size: u32,
        /// Fields: name, byte offset, element type, elements (1 for a scalar field).
        fields: Vec<(String, u32, Scalar, u32)>,
    },
    /// `void` (a `void*` parameter).
    Void,
    /// A texture object (`cudaTextureObject_t`): a [`ParamKind::Pointer`] whose buffer the
    /// launch binds with the texture's description.
    Texture,
}

impl TypeName {
    /// Size in bytes (1 for `void` and a texture).
    pub fn size(&self) -> u32 {
        match self {
            TypeName::Scalar(s) => s.size(),
            TypeName::Vector(s, n) => s.size() * n,
            TypeName::Struct { size, .. } => *size,
            TypeName::Void | TypeName::Texture => 1,
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
            TypeName::Texture => write!(f, "texel"),
        }
    }
}

/// A static `__shared__` array: `bytes` bytes, aligned to `align`.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedArray {
    /// The array's name.
    pub name: String,
    /// Size in bytes.
    pub bytes: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Where it is in the source.
    pub site: Site,
}

/// A `__constant__` or `__device__` variable the kernel uses: device memory that outlives the
/// launch (the program's copy, set with `cudaMemcpyToSymbol`; a lone launch gets a fresh copy
/// holding `init`).
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalVar {
    /// The variable's name.
    pub name: String,
    /// Its bytes as its initializer leaves them (zeros where it has none).
    pub init: Vec<u8>,
    /// Whether it is `__constant__` (read-only in device code).
    pub constant: bool,
    /// Whether it is a legacy texture reference (`texture<float, 2> t;`): its 8 bytes hold the
    /// handle of the texture object the program bound to it (0: none), which the launch binds
    /// for the kernel's fetches ([`Stmt::Texture`]).
    pub texture: bool,
    /// Where it is declared.
    pub site: Site,
}

/// A per-thread array of `len` scalars (`float buf[8];`).
#[derive(Clone, Debug, PartialEq)]
pub struct LocalArray {
    /// The array's name.
    pub name: String,
    /// The element type.
    pub ty: Scalar,
    /// Elements.
    pub len: u32,
}

/// A variable's declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// The source name (temporaries: `$t3`).
    pub name: String,
    /// Its type.
    pub ty: Scalar,
    /// Whether the variable is uniform (see the module documentation).
    pub uniform: bool,
}

/// One kernel (one template instantiation), lowered.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The name with template arguments (`reduce<256>`).
    pub name: String,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// Every variable, indexed by [`VarId`].
    pub vars: Vec<Var>,
    /// The static `__shared__` arrays.
    pub shared: Vec<SharedArray>,
    /// The per-thread arrays.
    pub locals: Vec<LocalArray>,
    /// The `__constant__` and `__device__` variables it uses.
    pub globals: Vec<GlobalVar>,
    /// The statements.
    pub body: Vec<Stmt>,
    /// Source file names ([`Site::file`] indexes this).
    pub files: Vec<String>,
    /// The kernel's definition.
    pub site: Site,
}

impl Kernel {
    /// The variables a launch's values are assigned to, in the order the launch binds them:
    /// each parameter (a scalar's variable, a pointer's offset; nothing for a struct), then
    /// every struct parameter's scalar fields, then their pointer fields' offsets.
    pub fn param_vars(&self) -> Vec<Option<VarId>> {
        let mut vars: Vec<Option<VarId>> = self
            .params
            .iter()
            .map(|p| match &p.kind {
                ParamKind::Scalar { var, .. } => Some(*var),
                ParamKind::Pointer { offset, .. } => Some(*offset),
                ParamKind::Struct { .. } => None,
            })
            .collect();
        let structs = || {
            self.params.iter().filter_map(|p| match &p.kind {
                ParamKind::Struct {
                    fields, pointers, ..
                } => Some((fields, pointers)),
                _ => None,
            })
        };
        vars.extend(structs().flat_map(|(f, _)| f.iter().map(|(_, _, v)| Some(*v))));
        vars.extend(structs().flat_map(|(_, p)| p.iter().map(|fp| Some(fp.offset))));
        vars
    }

    /// Whether buffer slot `slot` ([`Base::Param`]) holds a struct parameter's bytes, which
    /// are constant memory (read as the GPU's parameter bank, no global load).
    pub fn is_parameter_bytes(&self, slot: usize) -> bool {
        self.params.iter().any(
            |p| matches!(p.kind, ParamKind::Struct { bytes: Some(b), .. } if b as usize == slot),
        )
    }

    /// The name of what buffer slot `slot` ([`Base::Param`]) holds: a pointer parameter, a
    /// struct parameter's pointer field (`args.in.x`), or a struct parameter's bytes.
    pub fn buffer_name(&self, slot: u32) -> String {
        if let Some(p) = self.params.get(slot as usize) {
            return p.name.clone();
        }
        if let Some(p) = self
            .params
            .iter()
            .find(|p| matches!(p.kind, ParamKind::Struct { bytes: Some(b), .. } if b == slot))
        {
            return p.name.clone();
        }
        self.params
            .iter()
            .flat_map(|p| match &p.kind {
                ParamKind::Struct { pointers, .. } => pointers.as_slice(),
                _ => &[],
            })
            .find(|fp| fp.buffer == slot)
            .map_or(format!("param{slot}"), |fp| fp.name.clone())
    }
}
