//! The translator: a lowered [`Kernel`] to one Cranelift function per block shape.
//!
//! Data structures: [`Item`] is the block-level plan (warp regions between barriers, uniform
//! `if`s and loops around them); [`Tx`] emits code, holding per IR variable either one scalar
//! Cranelift variable (uniform; or affine: a varying integer kept as its lane 0, its other
//! lanes a known step apart, [`affine_vars`]) or one per 128-bit chunk of the warp (varying),
//! the current warp's masks, and the buffer table. Values are [`V`]: a scalar or a warp of
//! chunks.
//!
//! Never do: touch a buffer without a check emitted just before (see `enter.rs`'s safety
//! contract); write the lanes of a varying variable outside the current mask; let a uniform
//! value depend on the order warps run in.

use super::{Access, Buf, Compiled, Ctx, Entry, FaultSite, Shape, TABLES};
use crate::cuda::ir::{
    Addr, AtomicOp, Axis, Base, BinOp, Builtin, CmpOp, Const, FpTest, Kernel, Op, Operand,
    ParamKind, Scalar, ShflKind, Site, Stmt, SyncKind, UnOp, VarId, VoteKind, WarpReduce, library,
    texture,
};
use crate::error::AccessKind;
use crate::memory::shared::SLACK_WORDS;
use Scalar as S;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{
    F32, F32X4, F64, F64X2, I8, I8X16, I16X8, I32, I32X4, I64, I64X2,
};
use cranelift_codegen::ir::{
    self, AbiParam, ConstantData, Endianness, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind, Type, UserFuncName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use std::collections::HashMap;
use std::mem::offset_of;
use std::time::Instant;

mod agree;
mod count;
mod local;
mod queue;

/// The calling convention of the helpers compiled code calls (`helper!`), where it is not
/// the platform's own.
const HELPER_CONV: Option<CallConv> = if cfg!(target_arch = "x86_64") {
    Some(CallConv::WindowsFastcall)
} else {
    None
};

/// An operation on one chunk of each input, giving one chunk.
type VectorOp<'a> = dyn Fn(&mut FunctionBuilder<'_>, &[Value]) -> Value + 'a;

/// Whether the CPU fuses multiply-add (the code generator emits `fma` as one instruction
/// only then).
fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU blends bytes by a mask in one instruction (SSE4.1's `pblendvb`, which the
/// code generator needs for `blendv`).
fn has_blend() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Chunks of 32-bit lanes per warp.
const C32: usize = 8;

/// Compile `k` for `shape`, or say why it runs on the interpreter.
pub(super) fn compile(k: &Kernel, shape: Shape) -> Result<Compiled, String> {
    let start = Instant::now();
    let threads = shape.block.iter().map(|&d| d as usize).product::<usize>();
    let warps = threads.div_ceil(32);
    // Cranelift's time and memory grow faster than the code (a 1,000-case switch, loops nested
    // hundreds deep, a thousand parameters): such kernels run on the interpreter.
    let mut total = Size::default();
    size(&k.body, 0, &mut total);
    let Size {
        stmts,
        depth,
        branches,
    } = total;
    if stmts > MAX_STATEMENTS
        || depth > MAX_DEPTH
        || branches > MAX_BRANCHES
        || k.params.len() > MAX_PARAMS
    {
        return Err(format!(
            "the kernel is larger than the compiled tier takes ({stmts} statements nested {depth} \
             deep, {branches} ifs, {} parameters; at most {MAX_STATEMENTS}, {MAX_DEPTH}, \
             {MAX_BRANCHES} and {MAX_PARAMS})",
            k.params.len()
        ));
    }
    // Built-ins refused wherever they are read, at block level too.
    let refused = |o: &Operand| match o {
        Operand::Builtin(Builtin::Clock) => Some("clock()"),
        Operand::Builtin(Builtin::BaseAddress(Base::Var(_))) => {
            Some("the address of a pointer that picks its buffer per thread")
        }
        _ => None,
    };
    let what = std::cell::Cell::new(None);
    let find = |s: &Stmt| {
        what.set(s.reads().iter().find_map(refused));
        what.get().is_some()
    };
    if k.body.iter().any(|s| contains(s, &find)) {
        return Err(format!(
            "{} is not compiled yet",
            what.get().unwrap_or_default()
        ));
    }
    let mut regions = Vec::new();
    let fresh = crate::cuda::analysis::fresh_definitions(k);
    let steps = lane_steps(k, shape, &fresh);
    let order = Order {
        k,
        shape,
        fresh: &fresh,
        steps: &steps,
    };
    let items = plan(&order, &k.body, At::KERNEL, &mut regions)?;
    for r in &regions {
        for s in &r.stmts {
            supported(k, s)?;
        }
    }
    let (tables, exists) = tables(shape, warps);
    let by_warp = agree::by_warp(k, shape.block, &fresh);
    let layout = Layout::new(k, &regions, warps, fresh, steps, by_warp);
    if layout.local_bytes.len() > MAX_LOCAL_BYTES {
        return Err(format!(
            "per-thread arrays of {} bytes for the block (at most {MAX_LOCAL_BYTES})",
            layout.local_bytes.len()
        ));
    }
    // Cranelift reports what it cannot lower as an error, but a panic in a code generator
    // must not take the launch down: the kernel then runs on the interpreter.
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        build(k, shape, warps, &exists, &items, &regions, &layout)
    }))
    .map_err(|_| "the code generator failed on this kernel".to_string())??;
    let count_slots = built.count.as_ref().map_or(0, |c| c.slots());
    let (count_sites, accesses, runs) = built
        .count
        .map_or_else(Default::default, |c| (c.sites, c.accesses, c.runs));
    Ok(Compiled {
        entry: Entry {
            addr: built.addr,
            frame_bytes: layout.frame_bytes,
            warps,
            bufs: slots(k),
            uniforms: layout.params.len(),
            // Code with nothing to count (no site) is given nothing to count in.
            tally_words: count_slots * super::count::SITE_FIELDS,
            memo_words: super::count::memo_words(accesses.len()),
            run_words: runs.len() * super::count::RUN_FIELDS,
            sites: built.sites.len(),
        },
        tables,
        exists,
        locals: layout.local_bytes.clone(),
        printfs: built.printfs,
        sites: built.sites,
        count_sites,
        accesses,
        runs: runs.into(),
        lines: shape.lines,
        compile_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

/// The largest kernel the compiled tier translates: statements, nesting of statements,
/// parameters. (Cranelift's register allocation grows much faster than the code: for kernels of
/// inlined half conversions, `tests/data/programs/real/fp16.cu`'s and parts of it, compiling
/// took 7 s at 2,300 statements, 24 s at 3,300 and 75 s at 6,600, where the interpreter runs
/// each program in under a second; curand.cu's Philox kernel, 1,450, compiles in a fraction of
/// one.)
const MAX_STATEMENTS: usize = 2_000;
const MAX_DEPTH: usize = 64;
/// The largest stack frame compiled code may have (its spills; helpers it calls need the rest).
const MAX_FRAME_BYTES: usize = 256 << 10;
/// Bytes of per-thread arrays a block may have on the compiled tier (each CPU thread holds
/// them; larger ones run on the interpreter).
const MAX_LOCAL_BYTES: usize = 16 << 20;
const MAX_BRANCHES: usize = 256;
const MAX_PARAMS: usize = 256;

/// What decides whether a kernel is too large to compile.
#[derive(Default)]
struct Size {
    /// Statements, nested ones included.
    stmts: usize,
    /// How deep they nest.
    depth: usize,
    /// `if`s among them.
    branches: usize,
}

/// Add `stmts`, nested `depth` deep, to `to`.
fn size(stmts: &[Stmt], depth: usize, to: &mut Size) {
    for s in stmts {
        to.stmts += 1;
        to.depth = to.depth.max(depth + 1);
        to.branches += usize::from(matches!(s, Stmt::If { .. }));
        for list in s.children() {
            size(list, depth + 1, to);
        }
    }
}

/// Buffer slots: the launch's buffers (parameters, then struct parameters' pointer fields),
/// the globals, the static shared arrays, the dynamic shared memory.
fn slots(k: &Kernel) -> usize {
    buffers(k) + k.globals.len() + k.shared.len() + 1
}

/// Buffers the launch binds ([`Base::Param`] slots).
pub(crate) fn buffers(k: &Kernel) -> usize {
    let fields: usize = k
        .params
        .iter()
        .map(|p| match &p.kind {
            ParamKind::Struct {
                pointers, bytes, ..
            } => pointers.len() + usize::from(bytes.is_some()),
            _ => 0,
        })
        .sum();
    k.params.len() + fields
}

/// Whether slot `slot` is read through the constant cache (no global load, never written): a
/// `__constant__` variable or a struct parameter's bytes.
fn constant_slot(k: &Kernel, slot: usize) -> bool {
    k.is_parameter_bytes(slot)
        || slot
            .checked_sub(buffers(k))
            .and_then(|g| k.globals.get(g))
            .is_some_and(|g| g.constant)
}

fn slot(k: &Kernel, base: Base) -> Option<usize> {
    let p = buffers(k);
    Some(match base {
        Base::Param(i) => i as usize,
        Base::Global(i) => p + i as usize,
        Base::Shared(i) => p + k.globals.len() + i as usize,
        Base::DynamicShared => p + k.globals.len() + k.shared.len(),
        Base::Null | Base::Var(_) => return None,
    })
}

/// The index tables and the masks of the threads that exist.
fn tables(shape: Shape, warps: usize) -> (Vec<u32>, Vec<u32>) {
    let [bx, by, bz] = shape.block;
    let n = (bx * by * bz) as usize;
    let mut t = vec![0u32; warps * 32 * TABLES];
    let mut exists = vec![0u32; warps * 32];
    for w in 0..warps {
        for l in 0..32 {
            let lin = w * 32 + l;
            let row = w * 32 * TABLES + l;
            let lin32 = lin as u32;
            t[row] = lin32 % bx;
            t[row + 32] = lin32 / bx % by;
            t[row + 64] = lin32 / (bx * by);
            t[row + 96] = lin32;
            exists[w * 32 + l] = if lin < n { u32::MAX } else { 0 };
        }
    }
    (t, exists)
}

// ----- the block-level plan ----------------------------------------------------------------

/// Statements run warp by warp.
pub(super) struct Region<'k> {
    stmts: Vec<&'k Stmt>,
    /// Whether a block-level loop encloses it (it may run more than once).
    in_loop: bool,
    /// Whether a block-level `if` or loop encloses it (it may not run, or run again): then it
    /// cannot be where a variable's frame rows start.
    guarded: bool,
    /// An `if` whose condition each warp evaluates after the statements, for the
    /// [`Item::Decided`] that follows.
    decides: Option<&'k Stmt>,
    /// Whether the statements end an inlined call's body: its `return`s leave the call.
    call_tail: bool,
}

/// The block-level structure: regions, and the uniform control flow around barriers.
enum Item {
    Region(usize),
    /// A `__syncthreads()` (counted; the regions around it are what orders the block).
    Barrier(Site),
    /// Assignments of uniform values only: run once for the block.
    Uniform(usize),
    If {
        cond: Operand,
        then: Vec<Item>,
        els: Vec<Item>,
    },
    /// An `if` with a barrier inside whose condition depends on the thread, run for the block
    /// on the side its threads took (the region before it decides, [`Region::decides`]); taken
    /// by part of the block, a side's barrier would be reached by part of it: the
    /// interpreter's fault, raised before either side runs.
    Decided {
        then: Vec<Item>,
        els: Vec<Item>,
        site: Site,
    },
    Loop {
        body: Vec<Item>,
        step: Vec<Item>,
        unrolled: bool,
        site: Site,
    },
    Break,
    Continue,
}

fn contains(s: &Stmt, f: &dyn Fn(&Stmt) -> bool) -> bool {
    f(s) || s
        .children()
        .iter()
        .any(|l| l.iter().any(|s| contains(s, f)))
}

/// Whether `s` has a `break` or `continue` that leaves it (not inside a loop of its own).
fn escapes(s: &Stmt) -> bool {
    match s {
        Stmt::Break | Stmt::Continue => true,
        Stmt::If { then, els, .. } => then.iter().chain(els).any(escapes),
        Stmt::Inline { body } => body.iter().any(escapes),
        _ => false,
    }
}

/// Whether `s` has a `break`, `continue` or `return` inside a branch on a varying condition (at
/// any depth): one that can take some lanes of a warp and leave others.
fn escapes_varying(k: &Kernel, s: &Stmt) -> bool {
    match s {
        // Varying by the flag or by the condition's value: what the translator branches on.
        Stmt::If {
            varying,
            cond,
            then,
            els,
            ..
        } if *varying || !same_in_every_lane(k, cond) => then.iter().chain(els).any(|s| {
            contains(s, &|s| {
                matches!(s, Stmt::Break | Stmt::Continue | Stmt::Return)
            })
        }),
        _ => s
            .children()
            .iter()
            .any(|l| l.iter().any(|s| escapes_varying(k, s))),
    }
}

/// The variables `s` assigns where a warp that runs `s` may not: inside a branch on a varying
/// condition or a loop some lanes leave early, or in an inlined function some lanes return from
/// early.
fn skippable_writes(k: &Kernel, s: &Stmt, out: &mut Vec<VarId>) {
    let skippable = match s {
        Stmt::If { varying, cond, .. } => *varying || !same_in_every_lane(k, cond),
        Stmt::Loop { varying, .. } => *varying,
        Stmt::Inline { body } => body.iter().any(|s| escapes_varying(k, s)),
        _ => false,
    };
    if skippable {
        visit_vars(s, &mut |v, write| {
            if write && !out.contains(&v) {
                out.push(v);
            }
        });
        return;
    }
    for list in s.children() {
        for s in list {
            skippable_writes(k, s, out);
        }
    }
}

/// A loop's exit test: `if (c) {} else { break; }` (or `if (c) { break; }`) on a varying
/// condition, directly in the body, with nothing before or after it in the loop that leaves
/// (no `break`, `continue` or `return` elsewhere): a `for` or `while` loop's own test.
struct ExitTest<'k> {
    /// Its index in the body, and its site.
    at: usize,
    site: Site,
    cond: &'k Operand,
    /// The condition's value that breaks.
    leave_when: bool,
}

fn exit_test<'k>(k: &Kernel, body: &'k [Stmt], step: &[Stmt]) -> Option<ExitTest<'k>> {
    let leaves = |s: &Stmt| {
        contains(s, &|s| {
            matches!(s, Stmt::Break | Stmt::Continue | Stmt::Return)
        })
    };
    let at = body.iter().position(leaves)?;
    let Stmt::If {
        cond,
        then,
        els,
        site,
        ..
    } = &body[at]
    else {
        return None;
    };
    let leave_when = match (then.as_slice(), els.as_slice()) {
        ([Stmt::Break], []) => true,
        ([], [Stmt::Break]) => false,
        _ => return None,
    };
    let rest_stays = !body[at + 1..].iter().chain(step).any(leaves);
    (rest_stays && !same_in_every_lane(k, cond)).then_some(ExitTest {
        at,
        site: *site,
        cond,
        leave_when,
    })
}

/// A comparison of an affine integer with a bound the same in every lane ([`Tx::ordered`]).
struct Ordered<'o> {
    var: VarId,
    /// Its lanes' step.
    step: i64,
    bound: &'o Operand,
    of: Scalar,
    /// The comparison `var` op `bound` that keeps a lane in the loop.
    stays: CmpOp,
}

/// How many statements of a loop's body and step read `v`.
fn reads(body: &[Stmt], step: &[Stmt], v: VarId) -> usize {
    let mut n = 0;
    for s in body.iter().chain(step) {
        visit_vars(s, &mut |x, write| n += usize::from(x == v && !write));
    }
    n
}

/// Whether the translator holds `o` as one scalar (a constant, a uniform variable, a
/// built-in of the block).
fn same_in_every_lane(k: &Kernel, o: &Operand) -> bool {
    match o {
        Operand::Const(_) => true,
        Operand::Var(v) => k.vars[v.0 as usize].uniform,
        Operand::Builtin(b) => !matches!(
            b,
            Builtin::ThreadIdx(_) | Builtin::LinearTid | Builtin::LaneId
        ),
    }
}

/// Whether `s` has a `return` from the function it is in (the kernel, or an inlined call's own
/// body), not from a call it makes.
fn exits(s: &Stmt) -> bool {
    match s {
        Stmt::Return => true,
        Stmt::If { then, els, .. } => then.iter().chain(els).any(exits),
        Stmt::Loop { body, step, .. } => body.iter().chain(step).any(exits),
        _ => false,
    }
}

fn is_sync(s: &Stmt) -> bool {
    matches!(s, Stmt::Sync { .. })
}

/// Why a barrier under control flow that depends on the thread, where the plan cannot decide
/// it at run time, sends the kernel to the interpreter.
const THREAD_DEPENDENT_BARRIER: &str =
    "a barrier under control flow that depends on the thread is not compiled";

/// Where [`plan`] plans a list of statements.
#[derive(Clone, Copy)]
struct At {
    /// Inside a block-level loop.
    in_loop: bool,
    /// Inside a block-level `if` or loop ([`Region::guarded`]).
    guarded: bool,
    /// Nothing runs after the list in the kernel.
    tail: bool,
    /// The innermost block-level loop's `break`s end their threads: nothing follows the loop.
    breaks_finish: bool,
}

impl At {
    const KERNEL: At = At {
        in_loop: false,
        guarded: false,
        tail: true,
        breaks_finish: false,
    };
    const LOOP: At = At {
        in_loop: true,
        guarded: true,
        tail: false,
        breaks_finish: false,
    };

    /// The sides of a block-level `if` here, `tail` where nothing follows the `if`.
    fn inside(self, tail: bool) -> At {
        At {
            guarded: true,
            tail,
            ..self
        }
    }
}

fn plan<'k>(
    order: &Order<'_>,
    stmts: &'k [Stmt],
    at: At,
    regions: &mut Vec<Region<'k>>,
) -> Result<Vec<Item>, String> {
    let At {
        in_loop, guarded, ..
    } = at;
    let k = order.k;
    let mut items = Vec::new();
    let mut run: Vec<&'k Stmt> = Vec::new();
    let flush = |run: &mut Vec<&'k Stmt>, items: &mut Vec<Item>, regions: &mut Vec<Region<'k>>| {
        if !run.is_empty() {
            let uniform = run
                .iter()
                .all(|s| matches!(s, Stmt::Assign(a) if k.vars[a.dst.0 as usize].uniform));
            regions.push(Region {
                stmts: std::mem::take(run),
                in_loop,
                guarded,
                decides: None,
                call_tail: false,
            });
            let r = regions.len() - 1;
            items.push(if uniform {
                Item::Uniform(r)
            } else {
                Item::Region(r)
            });
        }
    };
    // A `break` that finishes its threads stays in its region, as a `return` would.
    let leaves = |s: &Stmt| {
        if at.breaks_finish {
            contains(s, &|s| matches!(s, Stmt::Continue)) && escapes(s)
        } else {
            escapes(s)
        }
    };
    let block_level =
        |s: &Stmt| contains(s, &is_sync) || (in_loop && leaves(s)) || order.iteration_major(s);
    let last = stmts.len().saturating_sub(1);
    for (i, s) in stmts.iter().enumerate() {
        // Whether nothing runs after `s` in the kernel.
        let tail = at.tail && i == last;
        if !block_level(s) {
            run.push(s);
            continue;
        }
        flush(&mut run, &mut items, regions);
        match s {
            Stmt::Sync {
                kind: SyncKind::Plain,
                site,
                ..
            } => items.push(Item::Barrier(*site)),
            Stmt::Sync {
                kind: SyncKind::Grid,
                ..
            } => return Err("grid.sync() is not compiled yet".into()),
            Stmt::Sync { .. } => {
                return Err("__syncthreads_count/and/or is not compiled yet".into());
            }
            Stmt::Break => items.push(Item::Break),
            Stmt::Continue => items.push(Item::Continue),
            Stmt::If {
                cond,
                then,
                els,
                varying: false,
                ..
            } => items.push(Item::If {
                cond: *cond,
                then: plan(order, then, at.inside(tail), regions)?,
                els: plan(order, els, at.inside(tail), regions)?,
            }),
            Stmt::If {
                cond: Operand::Var(_),
                then,
                els,
                varying: true,
                site,
            } if !exits(s) && (in_loop || !escapes(s)) => {
                // The region that decides comes first: regions are numbered in program order.
                regions.push(Region {
                    stmts: Vec::new(),
                    in_loop,
                    guarded,
                    decides: Some(s),
                    call_tail: false,
                });
                let decides = regions.len() - 1;
                let then = plan(order, then, at.inside(tail), regions)?;
                let els = plan(order, els, at.inside(tail), regions)?;
                // A side without a barrier of its own (one only under a further `if` or in a
                // loop) might let part of the block through, where the interpreter runs on. A
                // side that leaves the loop is checked with the loop ([`escapes_meet_barriers`]).
                if !then
                    .iter()
                    .chain(&els)
                    .any(|i| matches!(i, Item::Barrier(_) | Item::Break | Item::Continue))
                {
                    return Err("a barrier under a branch that depends on the thread, only \
                                inside a further branch or loop there, is not compiled"
                        .into());
                }
                items.push(Item::Region(decides));
                items.push(Item::Decided {
                    then,
                    els,
                    site: *site,
                });
            }
            Stmt::Loop {
                body,
                step,
                varying: false,
                unrolled,
                site,
                ..
            } => items.push(Item::Loop {
                body: plan(order, body, At::LOOP, regions)?,
                step: plan(order, step, At::LOOP, regions)?,
                unrolled: *unrolled,
                site: *site,
            }),
            // A loop some threads may leave before others (its test reads memory: lavaMD's
            // `k < 1 + box[bx].nn`, asta's `lmem[1] < m`), with a barrier inside: each of its
            // exits is decided for the block at run time, as an `if` with a barrier is. Where
            // the threads disagree, those that stay reach a barrier of the loop while the others
            // wait at its end: the interpreter's fault too. Unless no barrier follows the loop
            // (`barrier_free_after`): then the leavers are done, and where nothing at all
            // follows it, a `break` ends its threads as a `return` would (their barriers wait
            // no more for them, as on the interpreter); with code after it, it stays there.
            Stmt::Loop {
                body,
                step,
                varying: true,
                unrolled,
                barrier_free_after,
                site,
            } if !exits(s) && (!barrier_free_after || tail) => {
                let inner = At {
                    breaks_finish: *barrier_free_after,
                    ..At::LOOP
                };
                let body = plan(order, body, inner, regions)?;
                let step = plan(order, step, inner, regions)?;
                let finish = *barrier_free_after;
                if !escapes_meet_barriers(&body, &[], &[&step, &body], finish)
                    || !escapes_meet_barriers(&step, &[], &[&body], finish)
                {
                    return Err(THREAD_DEPENDENT_BARRIER.into());
                }
                items.push(Item::Loop {
                    body,
                    step,
                    unrolled: *unrolled,
                    site: *site,
                });
            }
            // A call whose `return`s all come after its last block-level statement (`return
            // s[0];` after a reduction's barriers): the rest runs as a region of its own that
            // keeps them to the call. Returns of the calls it makes are theirs.
            Stmt::Inline { body } => {
                let cut = body.iter().rposition(block_level).map_or(0, |i| i + 1);
                if body[..cut].iter().any(exits) {
                    return Err(THREAD_DEPENDENT_BARRIER.into());
                }
                let call = At { tail: false, ..at };
                items.extend(plan(order, &body[..cut], call, regions)?);
                let tail = &body[cut..];
                if tail.iter().any(exits) {
                    regions.push(Region {
                        stmts: tail.iter().collect(),
                        in_loop,
                        guarded,
                        decides: None,
                        call_tail: true,
                    });
                    items.push(Item::Region(regions.len() - 1));
                } else {
                    items.extend(plan(order, tail, call, regions)?);
                }
            }
            _ => return Err(THREAD_DEPENDENT_BARRIER.into()),
        }
    }
    flush(&mut run, &mut items, regions);
    Ok(items)
}

/// Whether, at every exit of a loop decided at run time in `items` ([`Item::Decided`] with a
/// `break` or `continue` on a side), the threads that do not take it are sure to reach a
/// barrier before they leave the iteration (`continue`) or the loop (`break`): then threads
/// that disagree there are a misused barrier on both tiers. `within` is what follows `items` in
/// the iteration, `beyond` the rest of the loop (its step, the next iteration).
fn escapes_meet_barriers(
    items: &[Item],
    within: &[&[Item]],
    beyond: &[&[Item]],
    breaks_finish: bool,
) -> bool {
    items.iter().enumerate().all(|(i, it)| {
        let (decided, then, els) = match it {
            Item::Decided { then, els, .. } => (true, then, els),
            Item::If { then, els, .. } => (false, then, els),
            _ => return true,
        };
        let within: Vec<&[Item]> = std::iter::once(&items[i + 1..])
            .chain(within.iter().copied())
            .collect();
        let whole: Vec<&[Item]> = within.iter().chain(beyond).copied().collect();
        let stays_meets = |leaving: &[Item], staying: &[Item]| {
            if leaving.iter().any(|i| matches!(i, Item::Break)) {
                // Threads that finish are no barrier's concern: those that stay go on alone.
                !breaks_finish && reaches_barrier(staying, &whole)
            } else if leaving.iter().any(|i| matches!(i, Item::Continue)) {
                reaches_barrier(staying, &within)
            } else {
                true
            }
        };
        (!decided || (stays_meets(then, els) && stays_meets(els, then)))
            && escapes_meet_barriers(then, &within, beyond, breaks_finish)
            && escapes_meet_barriers(els, &within, beyond, breaks_finish)
    })
}

/// Whether every path through `items`, then `after`, meets a barrier before a `break` or
/// `continue` (a loop inside may run no iteration: what follows it decides).
fn reaches_barrier(items: &[Item], after: &[&[Item]]) -> bool {
    for (i, it) in items.iter().enumerate() {
        match it {
            Item::Region(_) | Item::Uniform(_) | Item::Loop { .. } => {}
            Item::Barrier(_) => return true,
            Item::Break | Item::Continue => return false,
            Item::If { then, els, .. } | Item::Decided { then, els, .. } => {
                let rest: Vec<&[Item]> = std::iter::once(&items[i + 1..])
                    .chain(after.iter().copied())
                    .collect();
                return reaches_barrier(then, &rest) && reaches_barrier(els, &rest);
            }
        }
    }
    after
        .split_first()
        .is_some_and(|(next, more)| reaches_barrier(next, more))
}

/// What the plan knows of a kernel's variables, to choose the order a loop runs in.
struct Order<'a> {
    k: &'a Kernel,
    shape: Shape,
    /// Per variable, its fresh definition ([`crate::cuda::analysis::fresh_definitions`]).
    fresh: &'a [usize],
    /// Per variable, its step from lane to lane ([`lane_steps`]).
    steps: &'a [Option<Step>],
}

impl Order<'_> {
    /// Whether `s` is a loop the block runs iteration by iteration (each iteration a region
    /// of its own, run warp by warp) rather than each warp running all of it in turn: a
    /// uniform loop that accesses global memory, stores to it in no row the compiler knows to
    /// be strided, and whose iterations share no per-thread value (every varying variable it
    /// assigns is defined afresh inside it). A tile's rows are then read and written in order
    /// across the block (`for (j = 0; j < 32; j += 8) … in[(y + j) * width + x]`), as the Rust
    /// API and a GPU's warps in step touch them, instead of each warp's rows a stride of rows
    /// apart: at 4096² the padded transpose ran 2× slower warp by warp, its DRAM traffic out
    /// of order. A loop with a strided store (the naive transpose's `odata[x * height + y]`)
    /// stays warp by warp, where its stores can wait ([`queue`]). Any order of the warps
    /// between barriers is CUDA's; each warp's own order is kept.
    fn iteration_major(&self, s: &Stmt) -> bool {
        let Stmt::Loop {
            varying: false,
            body,
            step,
            ..
        } = s
        else {
            return false;
        };
        let mut inside = std::collections::HashSet::new();
        let (mut global, mut strided) = (false, false);
        let mut written = Vec::new();
        let mut walk = vec![body.as_slice(), step.as_slice()];
        while let Some(list) = walk.pop() {
            for s in list {
                inside.insert(s as *const Stmt as usize);
                written.extend(s.writes());
                walk.extend(s.children());
                let addr = match s {
                    Stmt::Load { addr, .. } | Stmt::Atomic { addr, .. } => addr,
                    Stmt::Store {
                        addr, ty, values, ..
                    } => {
                        strided |= self.strided(addr, i64::from(ty.size()) * values.len() as i64);
                        addr
                    }
                    _ => continue,
                };
                global |= matches!(addr.base, Base::Param(_) | Base::Global(_) | Base::Var(_));
            }
        }
        global
            && !strided
            && written.iter().all(|v| {
                self.k.vars[v.0 as usize].uniform || inside.contains(&self.fresh[v.0 as usize])
            })
    }

    /// Whether the compiler knows the lanes of `addr` to be a row at a step other than one
    /// element of `bytes` (a step it cannot tell is not known to be one).
    fn strided(&self, addr: &Addr, bytes: i64) -> bool {
        let step = addr
            .index
            .iter()
            .try_fold(Step::known(0), |acc, (o, scale)| {
                acc.add(operand_step(self.k, self.shape, self.steps, o)?.scale(*scale))
            });
        step.is_some_and(|s| s.constant() != Some(bytes))
    }
}

/// Whether the compiled tier handles `s` (inside a region); `Err` names what it does not.
fn supported(k: &Kernel, s: &Stmt) -> Result<(), String> {
    let addr = |a: &Addr| -> Result<(), String> {
        if slot(k, a.base).is_none() && a.base != Base::Null {
            return Err("a pointer that selects its buffer at run time".into());
        }
        Ok(())
    };
    match s {
        Stmt::Assign(a) => op_supported(&a.op),
        Stmt::Load { addr: a, .. } | Stmt::Store { addr: a, .. } => addr(a),
        Stmt::If { then, els, .. } => then.iter().chain(els).try_for_each(|s| supported(k, s)),
        Stmt::Loop { body, step, .. } => body.iter().chain(step).try_for_each(|s| supported(k, s)),
        Stmt::Inline { body } => body.iter().try_for_each(|s| supported(k, s)),
        Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::Fence { .. } | Stmt::Trap { .. } => {
            Ok(())
        }
        Stmt::Atomic {
            ty, op, addr: a, ..
        } => {
            addr(a)?;
            if ty.size() < 4 || ty.is_float() && !op.takes_floats() {
                return Err(format!("an atomic {op:?} on `{ty}`"));
            }
            Ok(())
        }
        Stmt::Sync { .. } => Err("a barrier inside a branch".into()),
        Stmt::SyncWarp { .. } | Stmt::Vote { .. } => Ok(()),
        Stmt::Shfl { width, .. } => same_for_all(k, width, "a shuffle's width"),
        Stmt::Printf { args, .. } if args.len() > super::print::MAX_ARGS => Err(format!(
            "a printf of more than {} arguments is not compiled",
            super::print::MAX_ARGS
        )),
        Stmt::Printf { .. } => Ok(()),
        Stmt::LocalLoad { .. } | Stmt::LocalStore { .. } => Ok(()),
        Stmt::Texture { .. } => Ok(()),
    }
}

/// Refuse an operand the compiled tier needs the same in every thread (a shuffle's width)
/// when it is not uniform.
fn same_for_all(k: &Kernel, o: &Operand, what: &str) -> Result<(), String> {
    match o {
        Operand::Const(_) => Ok(()),
        Operand::Var(v) if k.vars[v.0 as usize].uniform => Ok(()),
        _ => Err(format!("{what} that differs between threads")),
    }
}

fn op_supported(op: &Op) -> Result<(), String> {
    let no = |what: String| Err(format!("{what} is not compiled yet"));
    match op {
        Op::Unary { op, .. } => match op {
            UnOp::Test(FpTest::Ilogb | FpTest::FrexpExp) => no(format!("{op:?}")),
            _ => Ok(()),
        },
        Op::Fma { .. } if !has_fma() => no("fmaf without the CPU's FMA instructions".into()),
        _ => Ok(()),
    }
}

// ----- frame layout --------------------------------------------------------------------------

/// Where each variable lives and how each region treats it.
pub(super) struct Layout {
    /// Per varying variable: the byte offset of warp 0's row in the frame.
    frame_off: Vec<Option<usize>>,
    frame_bytes: usize,
    /// Per region: the varying variables it references, and for each whether it loads the
    /// value from the frame (else starts from zero) and whether it stores it back.
    refs: Vec<Vec<(VarId, bool, bool)>>,
    /// Per region: the uniform variables it assigns that hold a value before it or after it
    /// (each warp starts from the value before; the block keeps one warp's).
    uniform_writes: Vec<Vec<VarId>>,
    /// Per region: those of its uniform variables that outlive it (read elsewhere, or read
    /// before they are defined in a region a block-level loop runs again) and that a warp may
    /// skip the assignments of ([`skippable_writes`]).
    skipped_writes: Vec<Vec<VarId>>,
    /// Varying variables whose frame rows start zeroed (first used under a block-level `if` or
    /// loop).
    zeroed: Vec<VarId>,
    /// Variables the launch passes values to, in order (`None`: a struct's placeholder).
    params: Vec<Option<VarId>>,
    /// Per variable, its fresh definition ([`crate::cuda::analysis::fresh_definitions`]).
    fresh: Vec<usize>,
    /// Per variable, its step from lane to lane ([`lane_steps`]).
    steps: Vec<Option<Step>>,
    /// Per `bool` variable, its value in each warp where the block's shape fixes it
    /// ([`agree::by_warp`]).
    by_warp: Vec<Option<u32>>,
    /// Per per-thread array, the byte offset of warp 0's rows in the frame ([`local`]); all
    /// of them lie in `local_bytes`, zeroed at each block's start.
    locals: Vec<usize>,
    local_bytes: std::ops::Range<usize>,
}

/// Every variable `s` and its nested statements read (`false`) or assign (`true`).
fn visit_vars(s: &Stmt, f: &mut dyn FnMut(VarId, bool)) {
    for o in s.reads() {
        if let Some(v) = o.var() {
            f(v, false)
        }
    }
    for v in s.writes() {
        f(v, true)
    }
    for list in s.children() {
        for s in list {
            visit_vars(s, f)
        }
    }
}

impl Layout {
    fn new(
        k: &Kernel,
        regions: &[Region<'_>],
        warps: usize,
        fresh: Vec<usize>,
        steps: Vec<Option<Step>>,
        by_warp: Vec<Option<u32>>,
    ) -> Layout {
        let n = k.vars.len();
        let mut frame_off = vec![None; n];
        let mut frame_bytes = 0;
        // Per variable: the regions referencing it, in order.
        let mut used_in: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut per_region: Vec<Vec<(VarId, bool)>> = Vec::new();
        let mut uniform_writes = Vec::new();
        let mut skipped_writes = Vec::new();
        // Reads of each variable in the whole kernel, and in the region at hand.
        let mut reads = vec![0usize; n];
        for s in &k.body {
            visit_vars(s, &mut |v, write| {
                reads[v.0 as usize] += usize::from(!write)
            });
        }
        for (r, region) in regions.iter().enumerate() {
            let mut vars: Vec<(VarId, bool)> = Vec::new();
            let mut uw: Vec<VarId> = Vec::new();
            let mut here: HashMap<VarId, usize> = HashMap::new();
            let mut visit = |v: VarId, write: bool| {
                if k.vars[v.0 as usize].uniform {
                    if write && !uw.contains(&v) {
                        uw.push(v);
                    }
                    *here.entry(v).or_default() += usize::from(!write);
                    return;
                }
                match vars.iter_mut().find(|(x, _)| *x == v) {
                    Some(e) => e.1 |= write,
                    None => vars.push((v, write)),
                }
            };
            for s in &region.stmts {
                visit_vars(s, &mut visit);
            }
            // A decision reads its condition alone.
            if let Some(Stmt::If { cond, .. }) = region.decides
                && let Some(v) = cond.var()
            {
                visit(v, false);
            }
            for (v, _) in &vars {
                used_in[v.0 as usize].push(r);
            }
            per_region.push(vars);
            let mut skippable = Vec::new();
            for s in &region.stmts {
                skippable_writes(k, s, &mut skippable);
            }
            // As a varying value outlives its region (below).
            let outlives = |v: &VarId| {
                reads[v.0 as usize] > here.get(v).copied().unwrap_or(0)
                    || (region.in_loop && fresh[v.0 as usize] == 0)
            };
            skipped_writes.push(
                uw.iter()
                    .copied()
                    .filter(|v| skippable.contains(v) && outlives(v))
                    .collect(),
            );
            // One the region defines afresh and alone reads (an inlined call's parameter) has
            // no value to take in or hand on: carried through the warps, it would be live
            // from the kernel's entry to the region's end.
            let defines = |v: &VarId| {
                let at = fresh[v.0 as usize];
                at != 0
                    && region
                        .stmts
                        .iter()
                        .any(|s| contains(s, &|s| std::ptr::addr_eq(s, at as *const Stmt)))
            };
            uw.retain(|v| outlives(v) || !defines(v));
            uniform_writes.push(uw);
        }
        let mut zeroed = Vec::new();
        for (v, regs) in used_in.iter().enumerate() {
            // A value outlives its region when another region reads it, or when a block-level
            // loop runs the region again and the region may read it before defining it.
            let shared =
                regs.len() > 1 || (regs.iter().any(|&r| regions[r].in_loop) && fresh[v] == 0);
            if shared {
                let bytes = if k.vars[v].ty.is_wide() { 8 } else { 4 };
                frame_off[v] = Some(frame_bytes);
                frame_bytes += warps * 32 * bytes;
                if regions[regs[0]].guarded {
                    zeroed.push(VarId(v as u32));
                }
            }
        }
        let first_local = frame_bytes;
        let locals = k
            .locals
            .iter()
            .map(|a| {
                let at = frame_bytes;
                frame_bytes += warps * a.len as usize * local::row_bytes(a.ty);
                at
            })
            .collect();
        let refs = per_region
            .iter()
            .enumerate()
            .map(|(r, vars)| {
                vars.iter()
                    .map(|&(v, write)| {
                        let regs = &used_in[v.0 as usize];
                        let in_frame = frame_off[v.0 as usize].is_some();
                        let first = regs[0] == r && !regions[r].guarded;
                        let load = in_frame && !first;
                        let store = in_frame && (write || first);
                        (v, load, store)
                    })
                    .collect()
            })
            .collect();
        Layout {
            frame_off,
            frame_bytes,
            refs,
            uniform_writes,
            skipped_writes,
            zeroed,
            params: k.param_vars(),
            fresh,
            steps,
            by_warp,
            locals,
            local_bytes: first_local..frame_bytes,
        }
    }
}

// ----- code generation -----------------------------------------------------------------------

/// A value: one scalar for the block, or a warp of 128-bit chunks.
#[derive(Clone)]
enum V {
    U(Value),
    L(Vec<Value>),
}

/// Masks of the 32 lanes of a warp, one `i32x4` of all-ones or zeros per four lanes.
type Mask = [Variable; C32];

/// What code generation knows of the current mask where it emits code: every lane (then the
/// mask is a constant and its tests fold away), every lane or none (after a `break`,
/// `continue` or `return` that the whole warp takes), or nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Known {
    Full,
    AllOrNone,
    Unknown,
}

impl Known {
    /// What holds where two paths meet.
    fn join(self, o: Known) -> Known {
        match (self, o) {
            (Known::Full, Known::Full) => Known::Full,
            (Known::Unknown, _) | (_, Known::Unknown) => Known::Unknown,
            _ => Known::AllOrNone,
        }
    }
}

/// The 128-bit vector of a type's lanes (a `bool` is a 32-bit lane of all ones or zeros).
fn lane_ty(s: Scalar) -> Type {
    scalar_ty(s)
        .by(per_chunk(s) as u32)
        .expect("lanes of 32 or 64 bits make a 128-bit vector")
}

/// A type's scalar as compiled code holds it (narrow integers and `bool` in 32 bits).
fn scalar_ty(s: Scalar) -> Type {
    match s {
        Scalar::F32 => F32,
        Scalar::F64 => F64,
        Scalar::I64 | Scalar::U64 => I64,
        _ => I32,
    }
}

fn chunks(s: Scalar) -> usize {
    if s.is_wide() { 16 } else { C32 }
}

struct Tx<'a, 'k> {
    b: FunctionBuilder<'a>,
    k: &'k Kernel,
    layout: &'k Layout,
    ctx: Value,
    uvar: Vec<Variable>,
    lvar: Vec<Vec<Variable>>,
    buf_ptr: Vec<Value>,
    buf_len: Vec<Value>,
    block_idx: [Value; 3],
    shape: Shape,
    warps: usize,
    /// The warp being run (inside a region).
    warp: Option<Value>,
    cur: Mask,
    alive: Mask,
    /// What is known of `cur` here.
    known: Known,
    /// Whether `alive` is every lane all through (whole warps, no thread leaves early).
    alive_full: bool,
    /// The all-lanes chunk (a constant in the entry block).
    ones: Value,
    /// Per enclosing loop inside the region: lanes that continued.
    conts: Vec<Mask>,
    /// Per enclosing inlined call: lanes that returned.
    rets: Vec<Mask>,
    /// Per enclosing block-level loop: (continue target, exit).
    block_loops: Vec<(ir::Block, ir::Block)>,
    /// The taken and other lanes the last region's decision found, for its
    /// [`Item::Decided`].
    decided: Option<[Variable; 2]>,
    /// A loop's exit test (its statement's address) and the block its full-warp iterations
    /// hand over to, right after it ([`Tx::while_full`]).
    resume: Option<(usize, ir::Block)>,
    /// Built-in index rows loaded for the current warp.
    rows: HashMap<usize, Vec<Value>>,
    /// Inside a region, the uniform variables a warp may skip the assignments of
    /// ([`Layout::skipped_writes`]), each with whether the running warp has assigned it yet.
    assigned: Vec<(VarId, Variable)>,
    sites: Sites,
    fma: bool,
    /// Whether lanes merge under a mask by one blend instruction ([`has_blend`]).
    blend: bool,
    /// The calling convention of the helpers compiled code calls.
    call_conv: CallConv,
    /// The statement being translated (its address).
    at: usize,
    /// Whether a thread can leave the kernel early (then a warp may be without threads).
    exits: bool,
    /// The threads that exist, per lane of each warp (all ones or zero).
    exists: &'a [u32],
    /// Per variable, `Some(step)` when it is kept as its lane 0 alone (in its `uvar`): a
    /// varying 32-bit integer with a known step ([`affine_vars`]).
    affine: Vec<Option<Step>>,
    /// Whether operands are read as their lane 0 (evaluating an affine variable's definition).
    lane0: bool,
    /// While a grid-stride loop runs with every lane staying ([`Tx::while_full`]) on a test
    /// `i < n` (unsigned, `i` affine): lane 0 of `i` as tested, `n`, and `i`'s step. Every
    /// lane of that `i` is below that `n`, none wrapped.
    bounded: Option<(Value, Value, i64)>,
    /// Per variable, its test where it has one ([`agree`]): whether the warp's lanes agree,
    /// and lane 0's value.
    tests: Vec<Option<[Variable; 2]>>,
    /// How deep the code being emitted lies in sides compiled twice ([`agree`]).
    copies: usize,
    /// Counting code: what it counts ([`count`]).
    count: Option<count::Counting>,
    /// Where strided global stores wait to be written thread by thread ([`queue`]).
    queue: Option<queue::Queue>,
    /// The `printf`s translated so far ([`super::Compiled::printfs`]).
    printfs: Vec<(String, Vec<Scalar>)>,
    /// The block every fault jumps to, made at the first: it returns [`super::Status::Fault`]
    /// (one epilogue for the function, not one per access that can fault).
    fault_exit: Option<ir::Block>,
}

fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Vector bitcasts keep lane order (little-endian lanes).
fn lanes_le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

fn vmem() -> MemFlagsData {
    MemFlagsData::new()
        .with_notrap()
        .with_endianness(Endianness::Little)
}

/// The sites of a kernel's checks (with what they access), traps and loops, by
/// [`FaultSite::site`].
type Sites = Vec<(Site, Option<Access>)>;

/// What [`build`] made: the function's address, its fault sites, what it counts.
struct Built {
    addr: usize,
    sites: Sites,
    count: Option<count::Counting>,
    printfs: Vec<(String, Vec<Scalar>)>,
}

/// Build and compile the function.
fn build(
    k: &Kernel,
    shape: Shape,
    warps: usize,
    exists: &[u32],
    items: &[Item],
    regions: &[Region<'_>],
    layout: &Layout,
) -> Result<Built, String> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| format!("cranelift setting {k}: {e}"))
    };
    set(&mut flags, "opt_level", "speed")?;
    // The IR verifier re-checks every function (a third of compile time): off, as in
    // wasmtime, unless asked for (`WARPSIM_JIT_VERIFY`, which CI sets for the tier tests) or
    // in a debug build; a translator bug then stops at the IR instead of in code generation.
    let verify = cfg!(debug_assertions) || std::env::var_os("WARPSIM_JIT_VERIFY").is_some();
    set(
        &mut flags,
        "enable_verifier",
        if verify { "true" } else { "false" },
    )?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    let isa = cranelift_native::builder()
        .map_err(|e| format!("this CPU is not supported by the compiler: {e}"))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let mut ctx = module.make_context();
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(I64));
    sig.returns.push(AbiParam::new(I32));
    let id = module
        .declare_function("block", Linkage::Local, &sig)
        .map_err(|e| e.to_string())?;
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    let target = module.target_config();
    let call_conv = module.isa().default_call_conv();
    let (sites, count, printfs) = {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let ctxp = b.block_params(entry)[0];
        let mut mask = || std::array::from_fn(|_| b.declare_var(I32X4));
        let cur = mask();
        let alive = mask();
        let uvar: Vec<Variable> = k
            .vars
            .iter()
            .map(|v| b.declare_var(scalar_ty(v.ty)))
            .collect();
        let affine = affine_vars(k, layout);
        let lvar: Vec<Vec<Variable>> = k
            .vars
            .iter()
            .zip(&affine)
            .map(|(v, a)| {
                if v.uniform || a.is_some() {
                    Vec::new()
                } else {
                    (0..chunks(v.ty))
                        .map(|_| b.declare_var(lane_ty(v.ty)))
                        .collect()
                }
            })
            .collect();
        let lane0: Vec<bool> = affine.iter().map(Option::is_some).collect();
        let tests = agree::tested(k, &lane0, &layout.by_warp)
            .into_iter()
            .map(|t| t.then(|| [b.declare_var(I8), b.declare_var(I8)]))
            .collect();
        let mut tx = Tx {
            b,
            k,
            layout,
            ctx: ctxp,
            uvar,
            lvar,
            buf_ptr: Vec::new(),
            buf_len: Vec::new(),
            block_idx: [ctxp; 3],
            shape,
            warps,
            warp: None,
            cur,
            alive,
            known: Known::Unknown,
            alive_full: false,
            ones: ctxp,
            conts: Vec::new(),
            rets: Vec::new(),
            block_loops: Vec::new(),
            decided: None,
            resume: None,
            rows: HashMap::new(),
            assigned: Vec::new(),
            sites: Vec::new(),
            fma: has_fma(),
            blend: has_blend(),
            call_conv,
            at: 0,
            // A `return`, or a `break` that finishes its threads (in a region of its own).
            exits: k.body.iter().any(exits)
                || regions.iter().any(|r| r.stmts.iter().any(|s| escapes(s))),
            exists,
            affine,
            lane0: false,
            bounded: None,
            tests,
            copies: 0,
            count: shape.count.then(|| {
                // Only loads make batches to end; without one there may be no counting site,
                // and then no step record to write.
                let loads = k
                    .body
                    .iter()
                    .any(|s| contains(s, &|s| matches!(s, Stmt::Load { .. })));
                count::Counting::new(shape.lines, loads)
            }),
            queue: None,
            printfs: Vec::new(),
            fault_exit: None,
        };
        tx.prologue();
        tx.items(items, regions)?;
        let ok = tx.b.ins().iconst(I32, 0);
        tx.b.ins().return_(&[ok]);
        if let Some(exit) = tx.fault_exit {
            tx.b.switch_to_block(exit);
            tx.b.set_cold_block(exit);
            let one = tx.b.ins().iconst(I32, 1);
            tx.b.ins().return_(&[one]);
        }
        tx.b.seal_all_blocks();
        tx.b.finalize(target);
        (tx.sites, tx.count, tx.printfs)
    };
    let dump = std::env::var_os("WARPSIM_JIT_DUMP").is_some();
    ctx.set_disasm(dump);
    module
        .define_function(id, &mut ctx)
        .map_err(|e| format!("code generation: {e:?}"))?;
    if dump && let Some(c) = ctx.compiled_code() {
        eprintln!("{}", c.vcode.clone().unwrap_or_default());
    }
    // Compiled code has no stack probe: a frame that could overrun a CPU thread's stack (2 MiB
    // for the pool's) would crash the process, so such a kernel runs on the interpreter.
    let frame = ctx
        .compiled_code()
        .and_then(|c| c.buffer.frame_layout())
        .map_or(0, |l| l.frame_to_fp_offset as usize);
    if frame > MAX_FRAME_BYTES {
        return Err(format!(
            "its compiled stack frame would take {} KiB (at most {} KiB)",
            frame >> 10,
            MAX_FRAME_BYTES >> 10
        ));
    }
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(|e| e.to_string())?;
    let addr = module.get_finalized_function(id) as usize;
    // The code stays for the life of the process (the cache hands it out by address).
    std::mem::forget(module);
    Ok(Built {
        addr,
        sites,
        count,
        printfs,
    })
}

impl Tx<'_, '_> {
    fn load_ctx(&mut self, ty: Type, off: usize) -> Value {
        self.b
            .ins()
            .load(ty, MemFlagsData::trusted(), self.ctx, off as i32)
    }

    /// Buffers, block index, parameters, zeroed frame rows, the count arrays.
    fn prologue(&mut self) {
        self.ones = self.vconst(I32X4, [0xff; 16]);
        self.alive_full = !self.exits && self.shape.block.iter().product::<u32>() % 32 == 0;
        self.count_prologue();
        let bufs = self.load_ctx(I64, offset_of!(Ctx, bufs));
        for s in 0..slots(self.k) {
            let at = (s * size_of::<Buf>()) as i32;
            let p = self.b.ins().load(I64, MemFlagsData::trusted(), bufs, at);
            let l = self
                .b
                .ins()
                .load(I64, MemFlagsData::trusted(), bufs, at + 8);
            self.buf_ptr.push(p);
            self.buf_len.push(l);
        }
        self.queue_prologue();
        let bi = offset_of!(Ctx, block_idx);
        self.block_idx = std::array::from_fn(|a| self.load_ctx(I32, bi + 4 * a));
        for (v, var) in self.k.vars.iter().enumerate() {
            self.forget_test(v);
            let z = self.zero(scalar_ty(var.ty));
            self.b.def_var(self.uvar[v], z);
            if !var.uniform {
                let lz = self.zero(lane_ty(var.ty));
                for c in 0..self.lvar[v].len() {
                    self.b.def_var(self.lvar[v][c], lz);
                }
            }
        }
        let uni = self.load_ctx(I64, offset_of!(Ctx, uniforms));
        for (i, v) in self.layout.params.clone().iter().enumerate() {
            let Some(v) = v else { continue };
            let ty = scalar_ty(self.k.vars[v.0 as usize].ty);
            let x = self
                .b
                .ins()
                .load(ty, MemFlagsData::trusted(), uni, (i * 8) as i32);
            self.b.def_var(self.uvar[v.0 as usize], x);
        }
        let frame = self.load_ctx(I64, offset_of!(Ctx, frame));
        for v in self.layout.zeroed.clone() {
            let off = self.layout.frame_off[v.0 as usize].expect("in the frame");
            let bytes = if self.k.vars[v.0 as usize].ty.is_wide() {
                8
            } else {
                4
            };
            let z = self.zero(I32X4);
            for at in (0..self.warps * 32 * bytes).step_by(16) {
                self.b.ins().store(vmem(), z, frame, (off + at) as i32);
            }
        }
        let z = self.zero(I32X4);
        self.set_mask(self.cur, [z; C32]);
        self.set_mask(self.alive, [z; C32]);
    }

    fn zero(&mut self, ty: Type) -> Value {
        match ty {
            F32 => self.b.ins().f32const(0.0),
            F64 => self.b.ins().f64const(0.0),
            I32 | I64 | I8 => self.b.ins().iconst(ty, 0),
            _ => {
                let z = self.b.ins().iconst(I32, 0);
                let v = self.b.ins().splat(I32X4, z);
                self.cast(ty, v)
            }
        }
    }

    /// Reinterpret a vector's bits.
    fn cast(&mut self, ty: Type, v: Value) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            v
        } else {
            self.b.ins().bitcast(ty, lanes_le(), v)
        }
    }

    /// `N` new blocks.
    fn blocks<const N: usize>(&mut self) -> [ir::Block; N] {
        std::array::from_fn(|_| self.b.create_block())
    }

    /// Per lane, `if_true` where the mask chunk `mask` (all ones or zeros per 32-bit lane) is
    /// set, else `if_false` (chunks of any lane type): one byte blend where the CPU has it,
    /// instead of three logic operations.
    fn merge(&mut self, mask: Value, if_true: Value, if_false: Value) -> Value {
        let ty = self.b.func.dfg.value_type(if_true);
        if !self.blend {
            let m = self.cast(ty, mask);
            return self.b.ins().bitselect(m, if_true, if_false);
        }
        let [m, t, f] = [mask, if_true, if_false].map(|v| self.cast(I8X16, v));
        let r = self.b.ins().blendv(m, t, f);
        self.cast(ty, r)
    }

    /// Lanes `4c .. 4c + 4` of a warp's lane numbers.
    fn iota(&mut self, c: usize) -> Value {
        let mut bytes = [0u8; 16];
        for l in 0..4 {
            bytes[4 * l..4 * l + 4].copy_from_slice(&((4 * c + l) as u32).to_le_bytes());
        }
        self.vconst(I32X4, bytes)
    }

    fn vconst(&mut self, ty: Type, bytes: [u8; 16]) -> Value {
        let c = self
            .b
            .func
            .dfg
            .constants
            .insert(ConstantData::from(bytes.to_vec()));
        let v = self.b.ins().vconst(I8X16, c);
        self.cast(ty, v)
    }

    // ----- block level --------------------------------------------------------------------

    fn items(&mut self, items: &[Item], regions: &[Region<'_>]) -> Result<(), String> {
        for it in items {
            match it {
                Item::Region(r) => self.region(*r, &regions[*r])?,
                Item::Barrier(site) => self.count_barrier(*site),
                Item::Uniform(r) => {
                    for s in &regions[*r].stmts {
                        self.stmt(s)?;
                    }
                }
                Item::If { cond, then, els } => {
                    let c = self.operand(cond, Scalar::Bool);
                    let c = self.uniform(c, "a barrier's branch condition")?;
                    let [t, e, j] = self.blocks();
                    self.b.ins().brif(c, t, &[], e, &[]);
                    self.b.switch_to_block(t);
                    self.items(then, regions)?;
                    self.b.ins().jump(j, &[]);
                    self.b.switch_to_block(e);
                    self.items(els, regions)?;
                    self.b.ins().jump(j, &[]);
                    self.b.switch_to_block(j);
                }
                Item::Decided { then, els, site } => {
                    let [t, o] = self.decided.take().ok_or("a branch before its decision")?;
                    let (t, o) = (self.b.use_var(t), self.b.use_var(o));
                    let taken = self.b.ins().icmp_imm_s(IntCC::NotEqual, t, 0);
                    let other = self.b.ins().icmp_imm_s(IntCC::NotEqual, o, 0);
                    let both = self.b.ins().band(taken, other);
                    let [bad, ok, th, not_then, el, j] = self.blocks();
                    self.b.ins().brif(both, bad, &[], ok, &[]);
                    self.b.switch_to_block(bad);
                    let (lane, z) = (self.b.ins().iconst(I32, 0), self.b.ins().iconst(I64, 0));
                    self.fault(*site, None, lane, u32::MAX, z);
                    self.b.switch_to_block(ok);
                    self.b.ins().brif(taken, th, &[], not_then, &[]);
                    self.b.switch_to_block(th);
                    self.items(then, regions)?;
                    self.b.ins().jump(j, &[]);
                    self.b.switch_to_block(not_then);
                    // No thread left to take either side: neither runs.
                    self.b.ins().brif(other, el, &[], j, &[]);
                    self.b.switch_to_block(el);
                    self.items(els, regions)?;
                    self.b.ins().jump(j, &[]);
                    self.b.switch_to_block(j);
                }
                Item::Loop {
                    body,
                    step,
                    unrolled,
                    site,
                } => {
                    let [head, st, exit] = self.blocks();
                    self.b.ins().jump(head, &[]);
                    self.b.switch_to_block(head);
                    self.block_loops.push((st, exit));
                    self.items(body, regions)?;
                    self.b.ins().jump(st, &[]);
                    self.b.switch_to_block(st);
                    self.items(step, regions)?;
                    if !unrolled {
                        self.end_batches();
                    }
                    self.watchdog(*site);
                    self.b.ins().jump(head, &[]);
                    self.block_loops.pop();
                    self.b.switch_to_block(exit);
                }
                Item::Break | Item::Continue => {
                    let (st, exit) = *self.block_loops.last().ok_or("break outside a loop")?;
                    let to = if matches!(it, Item::Break) { exit } else { st };
                    self.b.ins().jump(to, &[]);
                    // What follows is unreachable; give it a block of its own.
                    let dead = self.b.create_block();
                    self.b.switch_to_block(dead);
                }
            }
        }
        Ok(())
    }

    /// An inlined call's body (or its tail, [`Region::call_tail`]): a `return` takes lanes out
    /// until the body ends.
    fn call(&mut self, body: &[&Stmt]) -> Result<(), String> {
        let was_full = self.known == Known::Full;
        let entry = self.get_mask(self.cur);
        let ret = self.new_mask();
        self.clear(ret);
        self.rets.push(ret);
        self.stmts(body)?;
        self.rets.pop();
        let alive = self.get_mask(self.alive);
        let n = self.and(entry, alive, false);
        self.set_mask(self.cur, n);
        // A `return` of the call leaves `alive` as it was.
        if was_full {
            self.set_full();
        }
        Ok(())
    }

    /// A decision's condition in one warp ([`Item::Decided`]): counted as the branch it is,
    /// its taken and other lanes added to the block's.
    fn decide(&mut self, s: &Stmt, [taken_all, other_all]: [Variable; 2]) {
        let Stmt::If { cond, site, .. } = s else {
            unreachable!("a decision is an `if`")
        };
        let any = self.any_cur();
        let [go, done] = self.blocks();
        self.b.ins().brif(any, go, &[], done, &[]);
        self.b.switch_to_block(go);
        self.count_instr(*site);
        self.flush_counts();
        let entry = self.cur_bits();
        let (taken, lanes) = match self.operand(cond, Scalar::Bool) {
            V::U(c) => {
                let z = self.b.ins().iconst(I32, 0);
                (self.b.ins().select(c, entry, z), false)
            }
            V::L(l) => {
                let m = self.get_mask(self.cur);
                let l: [Value; C32] = l.try_into().expect("eight chunks");
                let t = self.and(m, l, false);
                (self.bits(&t), true)
            }
        };
        self.count_branch(*site, entry, lanes.then_some(taken));
        let other = self.b.ins().band_not(entry, taken);
        for (acc, x) in [(taken_all, taken), (other_all, other)] {
            let a = self.b.use_var(acc);
            let a = self.b.ins().bor(a, x);
            self.b.def_var(acc, a);
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    fn uniform(&mut self, v: V, what: &str) -> Result<Value, String> {
        match v {
            V::U(x) => Ok(x),
            V::L(_) => Err(format!("{what} differs between threads")),
        }
    }

    /// One region, warp by warp.
    fn region(&mut self, r: usize, region: &Region<'_>) -> Result<(), String> {
        let layout = self.layout;
        let uw = &layout.uniform_writes[r];
        let entry_vals: Vec<Value> = uw
            .iter()
            .map(|v| self.b.use_var(self.uvar[v.0 as usize]))
            .collect();
        let carry: Vec<Variable> = uw
            .iter()
            .zip(&entry_vals)
            .map(|(v, &e)| {
                let c = self.b.declare_var(scalar_ty(self.k.vars[v.0 as usize].ty));
                self.b.def_var(c, e);
                c
            })
            .collect();
        let live_any = self.b.declare_var(I8);
        let z8 = self.b.ins().iconst(I8, 0);
        self.b.def_var(live_any, z8);
        // The uniform variables some warp may skip the assignments of, each with whether a
        // warp that still has threads has assigned it.
        let found: Vec<Variable> = layout.skipped_writes[r]
            .iter()
            .map(|_| {
                let f = self.b.declare_var(I8);
                self.b.def_var(f, z8);
                f
            })
            .collect();
        // A decision's taken and other lanes, of all the warps.
        let decision = region.decides.map(|_| {
            let z = self.b.ins().iconst(I32, 0);
            [(); 2].map(|_| {
                let v = self.b.declare_var(I32);
                self.b.def_var(v, z);
                v
            })
        });
        let latch = self.b.create_block();
        let warps = self.warp_loop();
        let w = warps.w;
        for (v, &e) in uw.iter().zip(&entry_vals) {
            self.b.def_var(self.uvar[v.0 as usize], e);
        }
        self.warp = Some(w);
        self.assigned = layout.skipped_writes[r]
            .iter()
            .map(|&v| {
                let a = self.b.declare_var(I8);
                let no = self.b.ins().iconst(I8, 0);
                self.b.def_var(a, no);
                (v, a)
            })
            .collect();
        let used = tables_used(&region.stmts);
        self.load_rows(w, &used);
        // The live lanes of this warp: all of them when every warp is whole and no thread
        // leaves early (a constant the code generator folds), else the stored masks.
        let alive_p = self.load_ctx(I64, offset_of!(Ctx, alive));
        let row = self.b.ins().imul_imm_s(w, 128);
        let row = self.b.ins().uextend(I64, row);
        let alive_row = self.b.ins().iadd(alive_p, row);
        let whole = self.alive_full;
        let ones = self.ones;
        let m: [Value; C32] = std::array::from_fn(|c| {
            if whole {
                ones
            } else {
                self.b.ins().load(I32X4, vmem(), alive_row, (c * 16) as i32)
            }
        });
        self.set_mask(self.alive, m);
        self.set_mask(self.cur, m);
        // A call's tail returns from the call alone: the live lanes stay as they were.
        let returns = !region.call_tail && region.stmts.iter().any(|s| exits(s) || escapes(s));
        if self.exits {
            // A warp whose threads have all left skips the region.
            let any = self.any_cur();
            let run = self.b.create_block();
            self.b.ins().brif(any, run, &[], latch, &[]);
            self.b.switch_to_block(run);
        }
        let frame = self.load_ctx(I64, offset_of!(Ctx, frame));
        for &(v, load, _) in &layout.refs[r] {
            let ty = self.k.vars[v.0 as usize].ty;
            // A test holds for the warp that defined it.
            self.forget_test(v.0 as usize);
            if self.affine[v.0 as usize].is_some() {
                // Its lane 0 alone, in the first word of its row.
                let x = if load {
                    let base = self.frame_row(frame, v, w);
                    self.b.ins().load(I32, vmem(), base, 0)
                } else {
                    self.zero(I32)
                };
                self.b.def_var(self.uvar[v.0 as usize], x);
                continue;
            }
            let vars = self.lvar[v.0 as usize].clone();
            if load {
                let base = self.frame_row(frame, v, w);
                for (c, var) in vars.iter().enumerate() {
                    let x = self
                        .b
                        .ins()
                        .load(lane_ty(ty), vmem(), base, (c * 16) as i32);
                    self.b.def_var(*var, x);
                }
            } else {
                let z = self.zero(lane_ty(ty));
                for var in &vars {
                    self.b.def_var(*var, z);
                }
            }
        }
        if region.call_tail {
            self.call(&region.stmts)?;
        } else {
            self.stmts(&region.stmts)?;
        }
        if let (Some(s), Some(acc)) = (region.decides, decision) {
            self.decide(s, acc);
        }
        // The warp's part ends: its waiting stores are written.
        self.flush();
        for &(v, _, store) in &layout.refs[r] {
            if store {
                let base = self.frame_row(frame, v, w);
                if self.affine[v.0 as usize].is_some() {
                    let x = self.b.use_var(self.uvar[v.0 as usize]);
                    self.b.ins().store(vmem(), x, base, 0);
                    continue;
                }
                for (c, var) in self.lvar[v.0 as usize].clone().iter().enumerate() {
                    let x = self.b.use_var(*var);
                    self.b.ins().store(vmem(), x, base, (c * 16) as i32);
                }
            }
        }
        if returns {
            for c in 0..C32 {
                let m = self.b.use_var(self.alive[c]);
                self.b.ins().store(vmem(), m, alive_row, (c * 16) as i32);
            }
        }
        // The block keeps the uniform values of a warp that still has threads (one whose
        // threads have all left may have stopped before a later assignment). Of a variable
        // some warp may skip the assignments of, that of such a warp that assigned it here: a
        // warp whose threads all skipped it (`if (t < 32) v = …;`, read after a barrier by the
        // threads that ran it) holds the value from before; failing one, any as before.
        let live = if self.exits {
            self.any_of(self.alive)
        } else {
            self.b.ins().iconst(I8, 1)
        };
        let assigned = std::mem::take(&mut self.assigned);
        for (v, &c) in uw.iter().zip(&carry) {
            let now = self.b.use_var(self.uvar[v.0 as usize]);
            let flags = found.iter().zip(&assigned).find(|(_, (a, _))| a == v);
            let take = match flags {
                Some((&fv, &(_, av))) => {
                    let (f, a) = (self.b.use_var(fv), self.b.use_var(av));
                    let live_a = self.b.ins().band(live, a);
                    let none = self.b.ins().icmp_imm_s(IntCC::Equal, f, 0);
                    let first = self.b.ins().band(live, none);
                    let f = self.b.ins().bor(f, live_a);
                    self.b.def_var(fv, f);
                    self.b.ins().bor(live_a, first)
                }
                None if self.exits => live,
                None => {
                    self.b.def_var(c, now);
                    continue;
                }
            };
            let old = self.b.use_var(c);
            let x = self.b.ins().select(take, now, old);
            self.b.def_var(c, x);
        }
        let la = self.b.use_var(live_any);
        let la = self.b.ins().bor(la, live);
        self.b.def_var(live_any, la);
        self.b.ins().jump(latch, &[]);
        self.b.switch_to_block(latch);
        self.next_warp(warps);
        self.warp = None;
        self.decided = decision;
        // Between regions (block level) nothing is known of a warp's lanes.
        self.known = Known::Unknown;
        for (v, c) in uw.iter().zip(&carry) {
            let x = self.b.use_var(*c);
            self.b.def_var(self.uvar[v.0 as usize], x);
        }
        if !self.exits {
            return Ok(());
        }
        // No thread left: the block is done.
        let la = self.b.use_var(live_any);
        let [done, go] = self.blocks();
        self.b.ins().brif(la, go, &[], done, &[]);
        self.b.switch_to_block(done);
        let ok = self.b.ins().iconst(I32, 0);
        self.b.ins().return_(&[ok]);
        self.b.switch_to_block(go);
        Ok(())
    }

    /// Open a loop over the block's warps; the code that follows is its body, for warp
    /// [`WarpLoop::w`], until [`Tx::next_warp`].
    fn warp_loop(&mut self) -> WarpLoop {
        let var = self.b.declare_var(I32);
        let z = self.b.ins().iconst(I32, 0);
        self.b.def_var(var, z);
        let [head, body, exit] = self.blocks();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let w = self.b.use_var(var);
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, w, self.warps as i64);
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        WarpLoop { var, w, head, exit }
    }

    /// Close a loop over the warps: on to the next warp; the code that follows runs after the
    /// last.
    fn next_warp(&mut self, l: WarpLoop) {
        let w1 = self.b.ins().iadd_imm_s(l.w, 1);
        self.b.def_var(l.var, w1);
        self.b.ins().jump(l.head, &[]);
        self.b.switch_to_block(l.exit);
    }

    fn frame_row(&mut self, frame: Value, v: VarId, w: Value) -> Value {
        let off = self.layout.frame_off[v.0 as usize].expect("in the frame");
        let bytes = if self.k.vars[v.0 as usize].ty.is_wide() {
            256
        } else {
            128
        };
        let row = self.b.ins().imul_imm_s(w, bytes);
        let row = self.b.ins().uextend(I64, row);
        let base = self.b.ins().iadd(frame, row);
        self.b.ins().iadd_imm_s(base, off as i64)
    }

    // ----- masks ---------------------------------------------------------------------------

    fn get_mask(&mut self, m: Mask) -> [Value; C32] {
        if (m == self.cur && self.known == Known::Full) || (m == self.alive && self.alive_full) {
            return [self.ones; C32];
        }
        std::array::from_fn(|c| self.b.use_var(m[c]))
    }

    /// Whether a mask is every lane, as a constant.
    fn is_full(&self, v: &[Value]) -> bool {
        v.iter().all(|&x| x == self.ones)
    }

    fn set_mask(&mut self, m: Mask, v: [Value; C32]) {
        for c in 0..C32 {
            self.b.def_var(m[c], v[c]);
        }
        if m == self.cur {
            self.known = if self.is_full(&v) {
                Known::Full
            } else {
                Known::Unknown
            };
            self.cur_changed(&v);
        }
    }

    /// `cur` is every lane here (by construction): define it so, and know it.
    fn set_full(&mut self) {
        self.set_mask(self.cur, [self.ones; C32]);
    }

    /// No lane.
    fn clear(&mut self, m: Mask) {
        let z = self.zero(I32X4);
        self.set_mask(m, [z; C32]);
    }

    /// `m |= add`.
    fn or_into(&mut self, m: Mask, add: [Value; C32]) {
        let a = self.get_mask(m);
        let n = std::array::from_fn(|i| {
            if a[i] == self.ones || add[i] == self.ones {
                self.ones
            } else {
                self.b.ins().bor(a[i], add[i])
            }
        });
        self.set_mask(m, n);
    }

    /// `a & b`, or `a & !b` when `not`.
    fn and(&mut self, a: [Value; C32], b: [Value; C32], not: bool) -> [Value; C32] {
        std::array::from_fn(|i| match (a[i] == self.ones, not) {
            (true, false) => b[i],
            (true, true) => self.b.ins().bnot(b[i]),
            (false, false) if b[i] == self.ones => a[i],
            (false, false) => self.b.ins().band(a[i], b[i]),
            (false, true) => self.b.ins().band_not(a[i], b[i]),
        })
    }

    fn new_mask(&mut self) -> Mask {
        std::array::from_fn(|_| self.b.declare_var(I32X4))
    }

    fn any_of(&mut self, m: Mask) -> Value {
        let v = self.get_mask(m);
        self.any(&v)
    }

    fn any(&mut self, v: &[Value]) -> Value {
        if self.is_full(v) {
            return self.b.ins().iconst(I8, 1);
        }
        // Counting code takes a mask's bits when it becomes the current one: the same bits
        // (computed once) say whether any lane is set.
        if self.count.is_some()
            && let Ok(v) = <&[Value; C32]>::try_from(v)
        {
            let bits = self.bits(v);
            return self.b.ins().icmp_imm_s(IntCC::NotEqual, bits, 0);
        }
        let mut acc = v[0];
        for &x in &v[1..] {
            acc = self.b.ins().bor(acc, x);
        }
        self.b.ins().vany_true(acc)
    }

    fn any_cur(&mut self) -> Value {
        if self.known == Known::AllOrNone {
            // Lane 0 says for all.
            let c = self.b.use_var(self.cur[0]);
            let l = self.b.ins().extractlane(c, 0);
            return self.b.ins().icmp_imm_s(IntCC::NotEqual, l, 0);
        }
        if self.count.is_some() {
            let bits = self.cur_bits();
            return self.b.ins().icmp_imm_s(IntCC::NotEqual, bits, 0);
        }
        self.any_of(self.cur)
    }

    /// The 32 lanes of a mask as bits of an `i32`.
    fn bits(&mut self, v: &[Value; C32]) -> Value {
        if self.is_full(v) {
            return self.b.ins().iconst(I32, -1);
        }
        // Narrowed with signed saturation (which keeps each lane's sign) to two vectors of 16
        // bytes, whose sign bits are the lanes': 10 instructions instead of 8 per-chunk masks
        // shifted into place.
        let x: [Value; C32] = std::array::from_fn(|c| self.cast(I32X4, v[c]));
        let h: [Value; 4] = std::array::from_fn(|i| self.b.ins().snarrow(x[2 * i], x[2 * i + 1]));
        let lo = self.b.ins().snarrow(h[0], h[1]);
        let hi = self.b.ins().snarrow(h[2], h[3]);
        let lo = self.b.ins().vhigh_bits(I32, lo);
        let hi = self.b.ins().vhigh_bits(I32, hi);
        let hi = self.b.ins().ishl_imm_s(hi, 16);
        self.b.ins().bor(lo, hi)
    }

    /// A 32-bit-lane mask widened for 64-bit lanes.
    fn widen_mask(&mut self, m: &[Value]) -> Vec<Value> {
        m.iter()
            .flat_map(|&x| {
                let lo = self.b.ins().swiden_low(x);
                let hi = self.b.ins().swiden_high(x);
                [lo, hi]
            })
            .collect()
    }

    /// `m` in the shape of a value of type `ty`.
    fn mask_for(&mut self, ty: Scalar, m: &[Value; C32]) -> Vec<Value> {
        if ty.is_wide() {
            self.widen_mask(m)
        } else {
            m.to_vec()
        }
    }

    // ----- statements ----------------------------------------------------------------------

    /// A statement list; after a construct that may leave no lane running, the rest is
    /// skipped (as the interpreter skips it).
    fn stmts(&mut self, list: &[&Stmt]) -> Result<(), String> {
        let end = self.b.create_block();
        // Paths that jump to the end carry no lane (every lane or none, for `known`).
        let mut empty_edge = false;
        for s in list {
            self.stmt(s)?;
            match s {
                Stmt::Break | Stmt::Continue | Stmt::Return => break,
                Stmt::If { .. } | Stmt::Loop { .. } | Stmt::Inline { .. }
                    if self.known != Known::Full =>
                {
                    empty_edge = true;
                    let any = self.any_cur();
                    let next = self.b.create_block();
                    self.b.ins().brif(any, next, &[], end, &[]);
                    self.b.switch_to_block(next);
                    if self.known == Known::AllOrNone {
                        self.set_full();
                    }
                }
                _ => {}
            }
            // Where a loop's full-warp iterations hand over ([`Tx::while_full`]).
            if let Some((_, resume)) = self
                .resume
                .take_if(|(at, _)| *at == *s as *const Stmt as usize)
            {
                self.b.ins().jump(resume, &[]);
                self.b.switch_to_block(resume);
                self.known = Known::Unknown;
            }
        }
        self.flush_counts();
        self.b.ins().jump(end, &[]);
        self.b.switch_to_block(end);
        if empty_edge {
            self.known = self.known.join(Known::AllOrNone);
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        self.at = s as *const Stmt as usize;
        // A lane-varying branch is an instruction under the mask it is evaluated with.
        if let Stmt::If {
            varying: true,
            site,
            ..
        } = s
        {
            self.count_instr(*site);
        }
        // Counted instructions are added under the mask they ran with: before it changes.
        if matches!(
            s,
            Stmt::If { .. }
                | Stmt::Loop { .. }
                | Stmt::Break
                | Stmt::Continue
                | Stmt::Return
                | Stmt::Inline { .. }
                | Stmt::Trap { .. }
        ) {
            self.flush_counts();
        }
        match s {
            Stmt::Assign(a) => {
                if a.varying && a.op.is_instruction(a.ty) {
                    self.count_instr(a.site);
                }
                // An affine variable's definition computes its lane 0 alone.
                self.lane0 = self.affine[a.dst.0 as usize].is_some();
                let v = self.eval(&a.op, a.ty);
                self.lane0 = false;
                self.define_test(a);
                self.assign(a.dst, v?)?;
            }
            Stmt::Load {
                dst,
                ty,
                addr,
                site,
                ..
            } => self.load(dst, *ty, addr, *site)?,
            Stmt::Store {
                ty,
                addr,
                values,
                site,
            } => self.store(*ty, addr, values, *site)?,
            Stmt::If {
                cond,
                then,
                els,
                varying,
                site,
            } => {
                let then: Vec<&Stmt> = then.iter().collect();
                let els: Vec<&Stmt> = els.iter().collect();
                if *varying && let Some(c) = self.warp_value(cond) {
                    // The shape decides: each warp takes it with every lane or none.
                    self.branch(V::U(c), &then, &els, true, *site)?;
                } else if *varying && let Some(test) = self.warp_test(cond) {
                    self.split_if(test, cond, &then, &els, *site)?;
                } else {
                    let c = self.operand(cond, Scalar::Bool);
                    self.branch(c, &then, &els, *varying, *site)?;
                }
            }
            Stmt::Loop {
                body,
                step,
                unrolled,
                site,
                ..
            } => {
                let was_full = self.known == Known::Full;
                // Lanes leave only all together: each iteration starts with every lane.
                let clean = was_full && !escapes_varying(self.k, s) && !exits(s);
                let entry = self.get_mask(self.cur);
                let cont = self.new_mask();
                self.clear(cont);
                self.conts.push(cont);
                let [head, exit] = self.blocks();
                if was_full && let Some(test) = exit_test(self.k, body, step) {
                    self.while_full(&test, (body, step, *unrolled), *site, exit)?;
                }
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(head);
                if clean {
                    self.set_full();
                } else {
                    self.known = Known::Unknown;
                }
                let body: Vec<&Stmt> = body.iter().collect();
                self.stmts(&body)?;
                let at_end = self.known;
                let c = self.get_mask(cont);
                self.or_into(self.cur, c);
                if clean {
                    self.known = at_end.join(Known::AllOrNone);
                }
                self.clear(cont);
                let step: Vec<&Stmt> = step.iter().collect();
                self.stmts(&step)?;
                let any = self.any_cur();
                let back = self.b.create_block();
                self.b.ins().brif(any, back, &[], exit, &[]);
                self.b.switch_to_block(back);
                if !unrolled {
                    self.end_batches();
                }
                self.watchdog(*site);
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(exit);
                self.conts.pop();
                let alive = self.get_mask(self.alive);
                let mut n = self.and(entry, alive, false);
                if let Some(r) = self.rets.last().copied() {
                    let r = self.get_mask(r);
                    n = self.and(n, r, true);
                }
                self.set_mask(self.cur, n);
                // Lanes that left the loop all meet again after it (none returned).
                if was_full && !contains(s, &|s| matches!(s, Stmt::Return)) {
                    self.set_full();
                }
            }
            // A `break` of a block-level loop that nothing follows ([`At::breaks_finish`]):
            // its lanes are done, as at a `return`.
            Stmt::Break if self.conts.is_empty() => self.finish_lanes(),
            Stmt::Break => self.leave(),
            Stmt::Continue => {
                let cont = *self.conts.last().ok_or("continue outside a loop")?;
                let m = self.get_mask(self.cur);
                self.or_into(cont, m);
                self.leave();
            }
            Stmt::Return => match self.rets.last().copied() {
                Some(ret) => {
                    let m = self.get_mask(self.cur);
                    self.or_into(ret, m);
                    self.leave();
                }
                None => self.finish_lanes(),
            },
            Stmt::Inline { body } => {
                let body: Vec<&Stmt> = body.iter().collect();
                self.call(&body)?;
            }
            Stmt::Fence { site } => self.count_instr(*site),
            // A warp runs in lockstep here: `__syncwarp` orders nothing more (fast mode checks
            // no member masks); a mask that differs between lanes is checked as the
            // interpreter checks it.
            Stmt::SyncWarp { site, mask } => {
                self.count_instr(*site);
                self.lane_masks_agree(Some(mask), *site);
            }
            Stmt::Shfl {
                dst,
                ty,
                kind,
                mask,
                value,
                lane,
                width,
                site,
            } => {
                self.count_instr(*site);
                self.shuffle(*dst, *ty, *kind, mask.as_ref(), value, lane, width, *site)?;
                self.lane_masks_agree(mask.as_ref(), *site);
            }
            Stmt::Vote {
                dst,
                kind,
                mask,
                arg,
                site,
            } => {
                self.count_instr(*site);
                self.vote(*dst, *kind, mask.as_ref(), arg.as_ref(), *site)?;
            }
            Stmt::Atomic {
                dst,
                ty,
                op,
                addr,
                a,
                b,
                site,
            } => self.atomic(*dst, *ty, *op, addr, a, b.as_ref(), *site)?,
            Stmt::LocalLoad {
                dst,
                array,
                index,
                site,
            } => {
                self.count_instr(*site);
                let v = if self.k.vars[dst.0 as usize].uniform {
                    self.local_load_uniform(*array, index, *site)
                } else {
                    self.local_load(*array, index, *site)
                };
                self.assign(*dst, v)?;
            }
            Stmt::LocalStore {
                array,
                index,
                value,
                site,
            } => {
                self.count_instr(*site);
                self.local_store(*array, index, value, *site);
            }
            Stmt::Trap { site, .. } => {
                let m = self.get_mask(self.cur);
                let any = self.any(&m);
                let bits = self.bits(&m);
                let lane = self.b.ins().ctz(bits);
                let [f, go] = self.blocks();
                self.b.ins().brif(any, f, &[], go, &[]);
                self.b.switch_to_block(f);
                let z = self.b.ins().iconst(I64, 0);
                self.fault(*site, None, lane, u32::MAX, z);
                self.b.switch_to_block(go);
            }
            Stmt::Printf { format, args, site } => {
                self.count_instr(*site);
                self.printf(format, args);
            }
            Stmt::Texture {
                dst,
                ty,
                texture,
                fetch,
                coords,
                site,
            } => {
                self.count_instr(*site);
                for (d, v) in dst.iter().zip(self.texture(*texture, *fetch, coords, *ty)) {
                    self.assign(*d, v)?;
                }
            }
            other => return Err(format!("{other:?} inside a region")),
        }
        Ok(())
    }

    /// An `if` on `c`: one scalar for the warp (a uniform branch, or a lane-varying one that
    /// [`Tx::split_if`] found the same in every lane), or its lanes.
    fn branch(
        &mut self,
        c: V,
        then: &[&Stmt],
        els: &[&Stmt],
        varying: bool,
        site: Site,
    ) -> Result<(), String> {
        if varying && self.count.is_some() {
            let m = self.get_mask(self.cur);
            let entry = self.cur_bits();
            // One value for the warp takes it with every lane or none.
            let taken = match &c {
                V::U(_) => None,
                V::L(l) => {
                    let l: [Value; C32] = l.clone().try_into().expect("eight chunks");
                    let t = self.and(m, l, false);
                    Some(self.bits(&t))
                }
            };
            self.count_branch(site, entry, taken);
        }
        match c {
            V::U(c) => {
                let [t, e, j] = self.blocks();
                let entry = self.known;
                self.b.ins().brif(c, t, &[], e, &[]);
                self.b.switch_to_block(t);
                self.stmts(then)?;
                let after_then = self.known;
                self.b.ins().jump(j, &[]);
                self.b.switch_to_block(e);
                self.known = entry;
                self.stmts(els)?;
                self.b.ins().jump(j, &[]);
                self.b.switch_to_block(j);
                self.known = self.known.join(after_then);
            }
            V::L(c) => {
                // Lanes that leave neither side all meet again: then the mask after it is
                // every lane, and the lanes of each path need not be merged (merges that
                // nothing reads would still cost their moves).
                let meet = self.known == Known::Full
                    && !then.iter().chain(els).any(|s| escapes(s) || exits(s));
                let entry = self.get_mask(self.cur);
                let c: [Value; C32] = c.try_into().expect("eight chunks");
                let taken = self.and(entry, c, false);
                let other = self.and(entry, c, true);
                let after = (!meet).then(|| {
                    let m = self.new_mask();
                    self.clear(m);
                    m
                });
                for (side, body) in [(taken, then), (other, els)] {
                    let join = self.b.create_block();
                    if !body.is_empty() {
                        let any = self.any(&side);
                        let run = self.b.create_block();
                        let skip = self.b.create_block();
                        self.b.ins().brif(any, run, &[], skip, &[]);
                        self.b.switch_to_block(run);
                        self.set_mask(self.cur, side);
                        self.stmts(body)?;
                        if let Some(after) = after {
                            let done = self.get_mask(self.cur);
                            self.or_into(after, done);
                        }
                        self.b.ins().jump(join, &[]);
                        self.b.switch_to_block(skip);
                    }
                    if let Some(after) = after {
                        self.or_into(after, side);
                    }
                    self.b.ins().jump(join, &[]);
                    self.b.switch_to_block(join);
                }
                match after {
                    Some(after) => {
                        let a = self.get_mask(after);
                        self.set_mask(self.cur, a);
                    }
                    None => self.set_full(),
                }
            }
        }
        Ok(())
    }

    /// The executing lanes leave the kernel.
    fn finish_lanes(&mut self) {
        let m = self.get_mask(self.cur);
        let a = self.get_mask(self.alive);
        let n = self.and(a, m, true);
        self.set_mask(self.alive, n);
        self.leave();
    }

    /// The executing lanes leave (`break`, `continue`, `return`): none is left, and if all
    /// of them were executing, every lane or none is.
    fn leave(&mut self) {
        let was = self.known;
        self.clear(self.cur);
        if was != Known::Unknown {
            self.known = Known::AllOrNone;
        }
    }

    /// A varying loop entered by the whole warp, run while every lane stays: the iterations
    /// before the first lane leaves know the mask is full, so they merge nothing under it and
    /// keep no mask live (a grid-stride loop's sum and mask together filled the vector
    /// registers: the sum was spilled every iteration). At the first iteration whose exit test
    /// lets a lane go, the warp hands over to the loop's general code right after that test,
    /// with the lanes that stay, as if it had run the test there; if none stays, it leaves the
    /// loop. Counting code counts what the general code would: the test (and a condition
    /// decided on lane 0) on both paths, as a branch of the whole warp.
    fn while_full(
        &mut self,
        test: &ExitTest<'_>,
        (body, step, unrolled): (&[Stmt], &[Stmt], bool),
        site: Site,
        exit: ir::Block,
    ) -> Result<(), String> {
        let [head, run, bail, resume] = self.blocks();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        self.set_full();
        // The test's condition, when the statement before it computes it for the test alone
        // from an affine integer: then lane 0 decides while every lane stays, and its lanes
        // are made only when one may leave.
        let def = test.at.checked_sub(1).and_then(|d| match &body[d] {
            Stmt::Assign(a)
                if Operand::Var(a.dst) == *test.cond && reads(body, step, a.dst) == 1 =>
            {
                self.layout.fresh[a.dst.0 as usize]
                    .eq(&(&body[d] as *const Stmt as usize))
                    .then_some(a)
            }
            _ => None,
        });
        let scalar = def.and_then(|a| self.ordered(a, test.leave_when));
        let before: Vec<&Stmt> = body[..test.at - usize::from(scalar.is_some())]
            .iter()
            .collect();
        self.stmts(&before)?;
        self.flush_counts();
        let any_leave = match &scalar {
            Some(c) => {
                let all = self.all_stay(c);
                self.b.ins().bxor_imm_s(all, 1)
            }
            None => {
                let leave = self.leaving(test);
                self.any(&leave)
            }
        };
        self.b.ins().brif(any_leave, bail, &[], run, &[]);
        self.b.switch_to_block(run);
        self.set_full();
        // Counted as the general code counts them: the condition decided on lane 0, and the
        // test, a branch every lane stays past.
        if let Some(a) = def.filter(|_| scalar.is_some())
            && a.varying
            && a.op.is_instruction(a.ty)
        {
            self.count_instr(a.site);
        }
        let test_site = test.site;
        // The general code counts a lane-varying test as a branch.
        let counted =
            self.count.is_some() && matches!(&body[test.at], Stmt::If { varying: true, .. });
        if counted {
            self.count_instr(test_site);
            // Every lane stays: the branch goes one way for the warp.
            let entry = self.cur_bits();
            self.count_branch(test_site, entry, None);
        }
        // An index bounded by the test: its accesses are checked against the bound, once for
        // the loop, instead of per warp and iteration ([`Tx::affine_row`]).
        let outer = self.bounded.take();
        if let Some(c) = &scalar
            && c.of == S::U32
            && c.stays == CmpOp::Lt
            && c.step > 0
            && let V::U(n) = self.operand(c.bound, c.of)
        {
            let x0 = self.b.use_var(self.uvar[c.var.0 as usize]);
            self.bounded = Some((x0, n, c.step));
        }
        let after: Vec<&Stmt> = body[test.at + 1..].iter().chain(step).collect();
        let done = self.stmts(&after);
        self.bounded = outer;
        done?;
        self.flush_counts();
        if !unrolled {
            self.end_batches();
        }
        self.watchdog(site);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(bail);
        if scalar.is_some() {
            self.stmt(&body[test.at - 1])?;
        }
        let leave = self.leaving(test);
        let stay = self.and([self.ones; C32], leave, true);
        // The general code resumes after the test: count it here, under every lane.
        if counted {
            self.count_instr(test_site);
            self.flush_counts();
            let entry = self.cur_bits();
            let taken = self.bits(if test.leave_when { &leave } else { &stay });
            self.count_branch(test_site, entry, Some(taken));
        }
        self.set_mask(self.cur, stay);
        let any_stay = self.any(&stay);
        self.b.ins().brif(any_stay, resume, &[], exit, &[]);
        self.resume = Some((&body[test.at] as *const Stmt as usize, resume));
        // The general code follows; its entry is reached from here only through `resume`.
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
        self.set_full();
        Ok(())
    }

    /// The lanes an exit test lets go, the whole warp executing it.
    fn leaving(&mut self, test: &ExitTest<'_>) -> [Value; C32] {
        let c = match self.operand(test.cond, Scalar::Bool) {
            V::L(c) => c.try_into().expect("eight chunks"),
            V::U(c) => {
                let c = self.b.ins().uextend(I32, c);
                let c = self.b.ins().ineg(c);
                [self.b.ins().splat(I32X4, c); C32]
            }
        };
        self.and([self.ones; C32], c, !test.leave_when)
    }

    /// An exit test's comparison whose lanes are in order: `a` compares an affine integer
    /// (lanes a constant step apart) with a value the same in every lane (`i < n`), as the
    /// comparison that keeps a lane (the test breaks where `a` is `leave_when`).
    fn ordered<'o>(&self, a: &'o crate::cuda::ir::Assign, leave_when: bool) -> Option<Ordered<'o>> {
        let Op::Cmp { op, of, a: x, b: y } = &a.op else {
            return None;
        };
        let affine = |o: &Operand| match o {
            Operand::Var(v) => self.affine[v.0 as usize]
                .and_then(Step::constant)
                .map(|s| (*v, s)),
            _ => None,
        };
        let ((var, step), bound, op) = match (affine(x), affine(y)) {
            (Some(l), _) if same_in_every_lane(self.k, y) => (l, y, *op),
            (_, Some(l)) if same_in_every_lane(self.k, x) => (l, x, op.swapped()),
            _ => return None,
        };
        let ok = matches!(of, S::I32 | S::U32) && step != 0 && !matches!(op, CmpOp::Eq | CmpOp::Ne);
        ok.then_some(Ordered {
            var,
            step,
            bound,
            of: *of,
            stays: if leave_when { op.negated() } else { op },
        })
    }

    /// Whether every lane of an ordered comparison holds (`I8`), from lane 0 alone: lanes that
    /// do not wrap are in order, so the first or the last lane decides; where they may wrap,
    /// the answer is no (and the caller finds the lanes one by one).
    fn all_stay(&mut self, c: &Ordered<'_>) -> Value {
        let x0 = self.b.use_var(self.uvar[c.var.0 as usize]);
        let n = match self.operand(c.bound, c.of) {
            V::U(n) => n,
            V::L(_) => unreachable!("a bound the same in every lane"),
        };
        let span = 31 * c.step;
        let (min, max, [lt, le, gt, ge]) = if c.of.is_signed() {
            (
                i64::from(i32::MIN),
                i64::from(i32::MAX),
                [
                    IntCC::SignedLessThan,
                    IntCC::SignedLessThanOrEqual,
                    IntCC::SignedGreaterThan,
                    IntCC::SignedGreaterThanOrEqual,
                ],
            )
        } else {
            (
                0,
                i64::from(u32::MAX),
                [
                    IntCC::UnsignedLessThan,
                    IntCC::UnsignedLessThanOrEqual,
                    IntCC::UnsignedGreaterThan,
                    IntCC::UnsignedGreaterThanOrEqual,
                ],
            )
        };
        // No lane wraps: lane 31 is `x0 + span` exactly.
        let (cc, limit) = if c.step > 0 {
            (le, max - span)
        } else {
            (ge, min - span)
        };
        // The limit's 32 bits, as `iconst` takes them.
        let limit = self.b.ins().iconst(I32, i64::from(limit as u32 as i32));
        let no_wrap = self.b.ins().icmp(cc, x0, limit);
        let last = self.b.ins().iadd_imm_s(x0, span);
        let (lo, hi) = if c.step > 0 { (x0, last) } else { (last, x0) };
        let holds = match c.stays {
            CmpOp::Lt => self.b.ins().icmp(lt, hi, n),
            CmpOp::Le => self.b.ins().icmp(le, hi, n),
            CmpOp::Gt => self.b.ins().icmp(gt, lo, n),
            CmpOp::Ge => self.b.ins().icmp(ge, lo, n),
            CmpOp::Eq | CmpOp::Ne => unreachable!("refused by `ordered`"),
        };
        self.b.ins().band(no_wrap, holds)
    }

    /// At a loop's back edge: stop with [`super::Status::Timeout`] once the watchdog fired.
    fn watchdog(&mut self, site: Site) {
        let flag = self.load_ctx(I64, offset_of!(Ctx, fired));
        let fired = self.b.ins().load(I8, mem(), flag, 0);
        let [stop, go] = self.blocks();
        self.b.ins().brif(fired, stop, &[], go, &[]);
        self.b.set_cold_block(stop);
        self.b.switch_to_block(stop);
        if self.warp.is_some() {
            self.flush();
        }
        let idx = self.sites.len() as i64;
        self.sites.push((site, None));
        let s = self.b.ins().iconst(I32, idx);
        let at = offset_of!(Ctx, fault) + offset_of!(FaultSite, site);
        self.b
            .ins()
            .store(MemFlagsData::trusted(), s, self.ctx, at as i32);
        let two = self.b.ins().iconst(I32, 2);
        self.b.ins().return_(&[two]);
        self.b.switch_to_block(go);
    }

    /// Record a fault and leave the block function (through [`Tx::fault_exit`]).
    fn fault(&mut self, site: Site, access: Option<Access>, lane: Value, slot: u32, byte: Value) {
        let idx = self.sites.len() as i64;
        self.sites.push((site, access));
        let f = offset_of!(Ctx, fault);
        let s = self.b.ins().iconst(I32, idx);
        self.b.ins().store(
            MemFlagsData::trusted(),
            s,
            self.ctx,
            (f + offset_of!(FaultSite, site)) as i32,
        );
        // Warp 0 for a fault at block level.
        let w = match self.warp {
            Some(w) => w,
            None => self.b.ins().iconst(I32, 0),
        };
        self.b.ins().store(
            MemFlagsData::trusted(),
            w,
            self.ctx,
            (f + offset_of!(FaultSite, warp)) as i32,
        );
        self.b.ins().store(
            MemFlagsData::trusted(),
            lane,
            self.ctx,
            (f + offset_of!(FaultSite, lane)) as i32,
        );
        let sl = self.b.ins().iconst(I32, i64::from(slot));
        self.b.ins().store(
            MemFlagsData::trusted(),
            sl,
            self.ctx,
            (f + offset_of!(FaultSite, slot)) as i32,
        );
        self.b.ins().store(
            MemFlagsData::trusted(),
            byte,
            self.ctx,
            (f + offset_of!(FaultSite, byte)) as i32,
        );
        let exit = *self.fault_exit.get_or_insert_with(|| self.b.create_block());
        self.b.ins().jump(exit, &[]);
    }

    /// Note an access outside its buffer within the buffer's slack in [`Ctx::outside`], unless
    /// the block noted one at this site before; continues where it is.
    fn outside(&mut self, site: Site, access: Option<Access>, lane: Value, slot: u32, byte: Value) {
        let idx = self.sites.len();
        self.sites.push((site, access));
        let entries = self.load_ctx(I64, offset_of!(Ctx, outside));
        let at = (idx * size_of::<FaultSite>()) as i32;
        let field = |f: usize| at + f as i32;
        let seen = self.b.ins().load(
            I32,
            MemFlagsData::trusted(),
            entries,
            field(offset_of!(FaultSite, site)),
        );
        let [record, done] = self.blocks();
        self.b.ins().brif(seen, done, &[], record, &[]);
        self.b.switch_to_block(record);
        let w = match self.warp {
            Some(w) => w,
            None => self.b.ins().iconst(I32, 0),
        };
        let mark = self.b.ins().iconst(I32, idx as i64 + 1);
        let sl = self.b.ins().iconst(I32, i64::from(slot));
        let t = MemFlagsData::trusted();
        for (v, f) in [
            (mark, offset_of!(FaultSite, site)),
            (w, offset_of!(FaultSite, warp)),
            (lane, offset_of!(FaultSite, lane)),
            (sl, offset_of!(FaultSite, slot)),
            (byte, offset_of!(FaultSite, byte)),
        ] {
            self.b.ins().store(t, v, entries, field(f));
        }
        let one = self.b.ins().iconst(I32, 1);
        self.b
            .ins()
            .store(t, one, self.ctx, offset_of!(Ctx, outside_any) as i32);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// `dst = v` for the executing lanes (all of them for a uniform variable).
    fn assign(&mut self, dst: VarId, v: V) -> Result<(), String> {
        let var = &self.k.vars[dst.0 as usize];
        let ty = var.ty;
        if var.uniform {
            let x = self.uniform(v, &format!("the value assigned to `{}`", var.name))?;
            self.b.def_var(self.uvar[dst.0 as usize], x);
            if let Some(&(_, a)) = self.assigned.iter().find(|(v, _)| *v == dst) {
                let yes = self.b.ins().iconst(I8, 1);
                self.b.def_var(a, yes);
            }
            return Ok(());
        }
        if self.affine[dst.0 as usize].is_some() {
            // Evaluated in lane-0 mode; each of its definitions writes every lane (its fresh
            // one and those that restart it: `Uses::restarts`).
            let x = match v {
                V::U(x) => x,
                V::L(l) => self.b.ins().extractlane(l[0], 0),
            };
            self.b.def_var(self.uvar[dst.0 as usize], x);
            return Ok(());
        }
        let lanes = self.lanes(v, ty);
        if self.layout.fresh[dst.0 as usize] == self.at || self.known == Known::Full {
            for (c, var) in self.lvar[dst.0 as usize].clone().iter().enumerate() {
                self.b.def_var(*var, lanes[c]);
            }
            return Ok(());
        }
        let m = self.get_mask(self.cur);
        let m = self.mask_for(ty, &m);
        for (c, var) in self.lvar[dst.0 as usize].clone().iter().enumerate() {
            let old = self.b.use_var(*var);
            let x = self.merge(m[c], lanes[c], old);
            self.b.def_var(*var, x);
        }
        Ok(())
    }

    // ----- values --------------------------------------------------------------------------

    /// A value as a warp of chunks of type `ty` (a `bool` as all-ones or zero lanes).
    fn lanes(&mut self, v: V, ty: Scalar) -> Vec<Value> {
        match v {
            V::L(l) => l,
            V::U(x) => {
                let x = if ty == Scalar::Bool {
                    self.b.ins().ineg(x)
                } else {
                    x
                };
                let s = self.b.ins().splat(lane_ty(ty), x);
                vec![s; chunks(ty)]
            }
        }
    }

    fn constant(&mut self, c: Const) -> Value {
        match c.ty {
            Scalar::F32 => self.b.ins().f32const(f32::from_bits(c.bits as u32)),
            Scalar::F64 => self.b.ins().f64const(f64::from_bits(c.bits)),
            Scalar::Bool => self.b.ins().iconst(I32, i64::from(c.bits != 0)),
            t if t.is_wide() => self.b.ins().iconst(I64, c.bits as i64),
            _ => self.b.ins().iconst(I32, i64::from(c.bits as u32)),
        }
    }

    /// An operand's value; `ty` is its type (for constants and builtins it is their own).
    fn operand(&mut self, o: &Operand, _ty: Scalar) -> V {
        match *o {
            Operand::Const(c) => V::U(self.constant(c)),
            Operand::Var(v) => {
                let i = v.0 as usize;
                let ty = self.k.vars[i].ty;
                if self.k.vars[i].uniform {
                    V::U(self.b.use_var(self.uvar[i]))
                } else if let Some(step) = self.affine[i] {
                    let x = self.b.use_var(self.uvar[i]);
                    if self.lane0 {
                        V::U(x)
                    } else {
                        V::L(self.affine_lanes(x, step))
                    }
                } else {
                    let l = self.lvar[i].iter().map(|&x| self.b.use_var(x)).collect();
                    self.lane0_of(l, ty)
                }
            }
            Operand::Builtin(b) => {
                let v = self.builtin(b);
                match v {
                    V::L(l) => self.lane0_of(l, Scalar::U32),
                    u => u,
                }
            }
        }
    }

    /// A warp of lanes, or in [`Tx::lane0`] mode its lane 0.
    fn lane0_of(&mut self, l: Vec<Value>, ty: Scalar) -> V {
        if !self.lane0 {
            return V::L(l);
        }
        let x = self.b.ins().extractlane(l[0], 0);
        V::U(self.lane_scalar(x, ty))
    }

    /// A lane's value as a uniform one (a `bool` lane, all ones when true, as 1).
    fn lane_scalar(&mut self, x: Value, ty: Scalar) -> Value {
        if ty == Scalar::Bool {
            self.b.ins().band_imm_s(x, 1)
        } else {
            x
        }
    }

    /// The 32 lanes `x + l × step` (mod 2^32) of an affine variable ([`affine_vars`]).
    fn affine_lanes(&mut self, x: Value, step: Step) -> Vec<Value> {
        let s = self.b.ins().splat(I32X4, x);
        if step.constant() == Some(0) {
            return vec![s; C32];
        }
        // Lanes 0–3, then four lanes' step at a time: two vectors to keep, not eight
        // constants (the register allocator spills constants rather than load them again).
        let (first, four) = match step.constant() {
            Some(k) => {
                let mut bytes = [0u8; 16];
                for l in 0..4 {
                    let d = (l as i64).wrapping_mul(k) as u32;
                    bytes[4 * l..4 * l + 4].copy_from_slice(&d.to_le_bytes());
                }
                let first = self.vconst(I32X4, bytes);
                let four = self.b.ins().iconst(I32, k.wrapping_mul(4));
                (first, self.b.ins().splat(I32X4, four))
            }
            None => {
                let k = self.step_value(step);
                let k = self.b.ins().splat(I32X4, k);
                let iota = self.iota(0);
                let first = self.b.ins().imul(iota, k);
                (first, self.b.ins().ishl_imm_s(k, 2))
            }
        };
        let mut at = self.b.ins().iadd(s, first);
        (0..C32)
            .map(|c| {
                if c > 0 {
                    at = self.b.ins().iadd(at, four);
                }
                at
            })
            .collect()
    }

    fn builtin(&mut self, b: Builtin) -> V {
        let axis = |a: Axis| match a {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        };
        match b {
            Builtin::ThreadIdx(a) => self.row(axis(a)),
            Builtin::LinearTid => self.row(3),
            Builtin::LaneId => {
                let v = (0..C32)
                    .map(|c| {
                        let mut bytes = [0u8; 16];
                        for l in 0..4 {
                            bytes[4 * l..4 * l + 4]
                                .copy_from_slice(&((4 * c + l) as u32).to_le_bytes());
                        }
                        self.vconst(I32X4, bytes)
                    })
                    .collect();
                V::L(v)
            }
            Builtin::BlockIdx(a) => V::U(self.block_idx[axis(a)]),
            Builtin::BlockDim(a) => V::U(
                self.b
                    .ins()
                    .iconst(I32, i64::from(self.shape.block[axis(a)])),
            ),
            Builtin::GridDim(a) => {
                let off = offset_of!(Ctx, grid_dim) + 4 * axis(a);
                V::U(self.load_ctx(I32, off))
            }
            Builtin::WarpSize => V::U(self.b.ins().iconst(I32, 32)),
            // A buffer's address is the launch's (its slot's), a null pointer's 0.
            Builtin::BaseAddress(base) => V::U(match slot(self.k, base) {
                Some(s) => {
                    let bufs = self.load_ctx(I64, offset_of!(Ctx, bufs));
                    let at = s * size_of::<Buf>() + offset_of!(Buf, address);
                    self.b
                        .ins()
                        .load(I64, MemFlagsData::trusted(), bufs, at as i32)
                }
                None => self.b.ins().iconst(I64, 0),
            }),
            Builtin::Clock => unreachable!("refused by `compile`"),
        }
    }

    /// Table `t` ([`TABLES`]) of the current warp.
    fn row(&mut self, t: usize) -> V {
        if let Some(v) = self.rows.get(&t) {
            return V::L(v.clone());
        }
        unreachable!("the region's rows are loaded at its start")
    }

    /// Load the index tables `used` for warp `w` (at the start of a region's warp, so the rows
    /// dominate every use).
    fn load_rows(&mut self, w: Value, used: &[usize]) {
        self.rows.clear();
        for &t in used {
            let v = self.load_row(w, t);
            self.rows.insert(t, v);
        }
    }

    fn load_row(&mut self, w: Value, t: usize) -> Vec<Value> {
        // The tables and the pointer to them stay put while the block runs, and `w` is a warp
        // of the block: pure loads, which Cranelift drops where unused (a row whose lane 0
        // alone is read) and places at their uses.
        let fixed = MemFlagsData::trusted().with_readonly().with_can_move();
        let tables = self
            .b
            .ins()
            .load(I64, fixed, self.ctx, offset_of!(Ctx, tables) as i32);
        let off = self.b.ins().imul_imm_s(w, (32 * 4 * TABLES) as i64);
        let off = self.b.ins().uextend(I64, off);
        let base = self.b.ins().iadd(tables, off);
        let flags = vmem().with_readonly().with_can_move();
        (0..C32)
            .map(|c| {
                self.b
                    .ins()
                    .load(I32X4, flags, base, (t * 128 + c * 16) as i32)
            })
            .collect()
    }
}

/// The index tables a region reads (built-ins of the thread).
fn tables_used(stmts: &[&Stmt]) -> Vec<usize> {
    let mut used = Vec::new();
    let mut note = |o: &Operand| {
        let t = match o {
            Operand::Builtin(Builtin::ThreadIdx(Axis::X)) => 0,
            Operand::Builtin(Builtin::ThreadIdx(Axis::Y)) => 1,
            Operand::Builtin(Builtin::ThreadIdx(Axis::Z)) => 2,
            Operand::Builtin(Builtin::LinearTid) => 3,
            _ => return,
        };
        if !used.contains(&t) {
            used.push(t);
        }
    };
    for s in stmts {
        for_operands(s, &mut note);
    }
    used
}

/// Every operand `s` reads, nested statements included.
fn for_operands(s: &Stmt, f: &mut dyn FnMut(&Operand)) {
    for o in s.reads() {
        f(&o)
    }
    for list in s.children() {
        for s in list {
            for_operands(s, f)
        }
    }
}

/// A step from lane to lane within a warp: `c`, or `c × by` where `by` is the same in every
/// lane and for the whole block (a parameter the kernel never assigns, `blockIdx`, `gridDim`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Step {
    c: i64,
    by: Option<Operand>,
}

impl Step {
    fn known(k: i64) -> Step {
        Step { c: k, by: None }
    }

    /// The step as a number, when it is one at compile time.
    fn constant(self) -> Option<i64> {
        if self.by.is_none() || self.c == 0 {
            Some(self.c)
        } else {
            None
        }
    }

    fn scale(self, k: i64) -> Step {
        Step {
            c: self.c.wrapping_mul(k),
            by: self.by,
        }
    }

    fn add(self, o: Step) -> Option<Step> {
        if self.c == 0 {
            Some(o)
        } else if o.c == 0 {
            Some(self)
        } else {
            (self.by == o.by).then_some(Step {
                c: self.c + o.c,
                by: self.by,
            })
        }
    }
}

/// An operand's step from lane to lane within a warp, when the compiler can tell: 0 for a
/// value the same in every lane, `k` when lane `l` holds `v0 + l × k` (mod 2^32).
fn operand_step(k: &Kernel, shape: Shape, steps: &[Option<Step>], o: &Operand) -> Option<Step> {
    let [bx, by, _] = shape.block.map(i64::from);
    let known = |s| Some(Step::known(s));
    match o {
        Operand::Const(_) => known(0),
        Operand::Var(v) if k.vars[v.0 as usize].uniform => known(0),
        Operand::Var(v) => steps[v.0 as usize],
        Operand::Builtin(b) => match b {
            Builtin::ThreadIdx(Axis::X) if bx % 32 == 0 || (by == 1 && shape.block[2] == 1) => {
                known(1)
            }
            Builtin::ThreadIdx(Axis::Y) if bx % 32 == 0 => known(0),
            Builtin::ThreadIdx(Axis::Z) if (bx * by) % 32 == 0 => known(0),
            Builtin::ThreadIdx(_) => None,
            Builtin::LinearTid | Builtin::LaneId => known(1),
            _ => known(0),
        },
    }
}

/// An assignment, where it is.
struct Def<'k> {
    /// Its statement's address (what `fresh` holds).
    at: usize,
    assign: &'k crate::cuda::ir::Assign,
    /// The loops around it (their addresses, outermost first).
    loops: Vec<usize>,
    /// The loop whose `step` list holds it directly.
    step_of: Option<usize>,
    /// The statement list holding it directly (the list's address).
    list: usize,
}

/// What [`lane_steps`] needs to know of a kernel's statements.
struct Uses<'k> {
    /// Per variable, how many statements assign it.
    defs: Vec<u32>,
    /// Every assignment, in program order.
    assigns: Vec<Def<'k>>,
    /// Per variable, the loops around every statement reading it (the outermost ones all its
    /// reads share; `None` while nothing reads it).
    read_in: Vec<Option<Vec<usize>>>,
}

impl<'k> Uses<'k> {
    fn of(k: &'k Kernel) -> Uses<'k> {
        let mut u = Uses {
            defs: vec![0; k.vars.len()],
            assigns: Vec::new(),
            read_in: vec![None; k.vars.len()],
        };
        u.list(&k.body, &mut Vec::new(), None);
        u
    }

    fn list(&mut self, list: &'k [Stmt], loops: &mut Vec<usize>, step_of: Option<usize>) {
        for s in list {
            for v in s.writes() {
                self.defs[v.0 as usize] += 1;
            }
            for o in s.reads() {
                if let Some(v) = o.var() {
                    crate::cuda::analysis::share_prefix(&mut self.read_in[v.0 as usize], loops);
                }
            }
            match s {
                Stmt::Assign(assign) => self.assigns.push(Def {
                    at: s as *const Stmt as usize,
                    assign,
                    loops: loops.clone(),
                    step_of,
                    list: list.as_ptr() as usize,
                }),
                Stmt::Loop { body, step, .. } => {
                    loops.push(s as *const Stmt as usize);
                    self.list(body, loops, None);
                    self.list(step, loops, loops.last().copied());
                    loops.pop();
                }
                _ => {
                    for l in s.children() {
                        self.list(l, loops, None);
                    }
                }
            }
        }
    }

    /// For a loop's induction variable `v` — assigned twice: once freshly outside the loop,
    /// once in the loop's `step` as `v + d` or `v - d` — and read only inside that loop: the
    /// update's other operand `d`. Lanes that left the loop may then be stepped too (no one
    /// reads them again), so every lane stays a fixed step from lane 0.
    fn induction(&self, v: usize, fresh: usize) -> Option<&'k Operand> {
        if self.defs[v] != 2 {
            return None;
        }
        let (init, update) = {
            let mut it = self.assigns.iter().filter(|d| d.assign.dst.0 as usize == v);
            (it.next()?, it.next()?)
        };
        let l = update.step_of?;
        let read_inside = self.read_in[v].as_ref().is_none_or(|r| r.contains(&l));
        if init.at != fresh || init.loops.contains(&l) || !read_inside {
            return None;
        }
        let Op::Binary { op, a: x, b: y } = &update.assign.op else {
            return None;
        };
        let me = Operand::Var(VarId(v as u32));
        match op {
            BinOp::Add if *x == me && *y != me => Some(y),
            BinOp::Add if *y == me && *x != me => Some(x),
            BinOp::Sub if *x == me && *y != me => Some(y),
            _ => None,
        }
    }

    /// Whether every statement that writes `v` is an assignment, and every one but its fresh
    /// one `fresh` lies directly in the fresh one's statement list and does not read `v`
    /// (`x = blockIdx.y * 32 + threadIdx.x` after a barrier). Each then writes every lane as
    /// the fresh one does: the lanes that do not execute the list never read `v`, since all
    /// its uses lie within that list.
    fn restarts(&self, v: usize, fresh: usize) -> bool {
        let defs: Vec<&Def<'_>> = self
            .assigns
            .iter()
            .filter(|d| d.assign.dst.0 as usize == v)
            .collect();
        let Some((first, rest)) = defs.split_first().filter(|(d, _)| d.at == fresh) else {
            return false;
        };
        let me = Operand::Var(VarId(v as u32));
        defs.len() == self.defs[v] as usize
            && rest
                .iter()
                .all(|d| d.list == first.list && !d.assign.op.operands().contains(&me))
    }
}

/// Per variable, its step from lane to lane when the compiler can tell: a varying 32-bit
/// integer whose definitions write every lane (its fresh one, and any that restart it:
/// [`Uses::restarts`]), each built from thread indices, uniform values and steps by `+`, `-`,
/// `*` and `<<` by constants, and `*` by a value fixed for the block ([`Step`]), to one step;
/// or a loop's induction variable ([`Uses::induction`]) stepped by a value the same in every
/// lane.
fn lane_steps(k: &Kernel, shape: Shape, fresh: &[usize]) -> Vec<Option<Step>> {
    let uses = Uses::of(k);
    let defs = &uses.defs;
    // A 32-bit integer the same in every lane and all through the block.
    let fixed = |o: &Operand| match o {
        Operand::Var(v) => {
            let var = &k.vars[v.0 as usize];
            var.uniform && defs[v.0 as usize] == 0 && matches!(var.ty, S::I32 | S::U32)
        }
        Operand::Builtin(b) => matches!(b, Builtin::BlockIdx(_) | Builtin::GridDim(_)),
        Operand::Const(_) => false,
    };
    // Per variable, what a loop's induction variable is stepped by.
    let induction: Vec<Option<&Operand>> = (0..k.vars.len())
        .map(|v| uses.induction(v, fresh[v]))
        .collect();
    let restarted: Vec<bool> = (0..k.vars.len())
        .map(|v| defs[v] > 1 && uses.restarts(v, fresh[v]))
        .collect();
    let mut steps: Vec<Option<Step>> = vec![None; k.vars.len()];
    for _ in 0..4 {
        for &Def { at, assign: a, .. } in &uses.assigns {
            let v = a.dst.0 as usize;
            let var = &k.vars[v];
            let int32 = matches!(var.ty, S::I32 | S::U32);
            let restart = restarted[v] && fresh[v] != at;
            if var.uniform || !int32 || (fresh[v] != at && !restart) {
                continue;
            }
            let st = |o: &Operand| operand_step(k, shape, &steps, o);
            if defs[v] != 1 && !restarted[v] {
                let same = induction[v].is_some_and(|d| st(d).and_then(Step::constant) == Some(0));
                if !same {
                    continue;
                }
            }
            let konst = |o: &Operand| match o {
                Operand::Const(c) if !c.ty.is_float() => Some(c.bits as i64),
                _ => None,
            };
            // `x × y` where `y` is fixed for the block.
            let by = |x: &Operand, y: &Operand| {
                if !fixed(y) {
                    return None;
                }
                match st(x)?.constant()? {
                    0 => Some(Step::known(0)),
                    c => Some(Step { c, by: Some(*y) }),
                }
            };
            let step = match &a.op {
                Op::Copy { src } => st(src),
                Op::Convert { src, from } | Op::Bitcast { src, from }
                    if matches!(from, S::I32 | S::U32) =>
                {
                    st(src)
                }
                Op::Binary { op, a: x, b: y } => match op {
                    BinOp::Add => st(x).zip(st(y)).and_then(|(p, q)| p.add(q)),
                    BinOp::Sub => st(x).zip(st(y)).and_then(|(p, q)| p.add(q.scale(-1))),
                    BinOp::Mul => match (konst(x), konst(y)) {
                        (Some(c), _) => st(y).map(|s| s.scale(c)),
                        (_, Some(c)) => st(x).map(|s| s.scale(c)),
                        // The same in every lane, times the same in every lane.
                        _ if st(x).and_then(Step::constant) == Some(0)
                            && st(y).and_then(Step::constant) == Some(0) =>
                        {
                            Some(Step::known(0))
                        }
                        _ => by(x, y).or_else(|| by(y, x)),
                    },
                    BinOp::Shl => konst(y)
                        .filter(|c| (0..31).contains(c))
                        .and_then(|c| st(x).map(|s| s.scale(1 << c))),
                    _ => None,
                },
                _ => None,
            }
            .filter(|s| s.c.abs() < 1 << 24);
            // A restart at another step leaves the variable without one (until the next pass
            // reaches its fresh definition: what reads it in between has the fresh one's).
            if !restart {
                steps[v] = step;
            } else if step != steps[v] {
                steps[v] = None;
            }
        }
    }
    steps
}

/// Per variable, `Some(step)` when code keeps it as its lane 0 alone, every other lane being
/// `lane 0 + l × step` (mod 2^32): a varying variable with a known step ([`lane_steps`]) whose
/// frame rows need not start zeroed (there, a lane never written reads as zero).
fn affine_vars(k: &Kernel, layout: &Layout) -> Vec<Option<Step>> {
    layout
        .steps
        .iter()
        .enumerate()
        .map(|(v, s)| s.filter(|_| !k.vars[v].uniform && !layout.zeroed.contains(&VarId(v as u32))))
        .collect()
}

/// The 64-bit type an index of type `t` extends to (C's sign or zero extension).
fn index_ty(t: Scalar) -> Scalar {
    if t.is_signed() {
        Scalar::I64
    } else {
        Scalar::U64
    }
}

/// Whether a type's elements are narrower than its lanes (loaded and stored as 8 or 16 bits).
fn narrow(ty: Scalar) -> bool {
    matches!(
        ty,
        Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16 | Scalar::Bool
    )
}

/// Lanes per 128-bit chunk.
fn per_chunk(ty: Scalar) -> usize {
    if ty.is_wide() { 2 } else { 4 }
}

impl Tx<'_, '_> {
    /// An operand's step from lane to lane, when the compiler can tell.
    fn step(&self, o: &Operand) -> Option<Step> {
        operand_step(self.k, self.shape, &self.layout.steps, o)
    }

    /// A step's value (`I32`, mod 2^32).
    fn step_value(&mut self, s: Step) -> Value {
        match s.by {
            Some(by) if s.c != 0 => {
                let saved = std::mem::replace(&mut self.lane0, false);
                let x = match self.operand(&by, Scalar::U32) {
                    V::U(x) => x,
                    V::L(_) => unreachable!("a step's factor is the same in every lane"),
                };
                self.lane0 = saved;
                self.b.ins().imul_imm_s(x, s.c)
            }
            _ => self.b.ins().iconst(I32, s.c),
        }
    }

    fn type_of(&self, o: &Operand) -> Scalar {
        match o {
            Operand::Var(v) => self.k.vars[v.0 as usize].ty,
            Operand::Const(c) => c.ty,
            Operand::Builtin(Builtin::BaseAddress(_)) => Scalar::U64,
            Operand::Builtin(Builtin::Clock) => Scalar::I64,
            Operand::Builtin(_) => Scalar::U32,
        }
    }

    fn get(&mut self, o: &Operand) -> (V, Scalar) {
        let t = self.type_of(o);
        (self.operand(o, t), t)
    }

    /// A C library function of each lane, of one value or two ([`library::code`],
    /// [`library::code2`]), computed by the helper the interpreter's function is
    /// (`super::library`): the lanes go through the stack, the result in the first's place.
    fn library(&mut self, code: u32, ty: Scalar, args: &[V]) -> V {
        let uniform = args.iter().all(|a| matches!(a, V::U(_)));
        let mut ptrs = Vec::new();
        for a in args {
            let lanes = self.lanes(a.clone(), ty);
            let slot = self.spill(&lanes);
            ptrs.push(self.b.ins().stack_addr(I64, slot, 0));
        }
        let helper = match (args.len(), ty.is_wide()) {
            (1, false) => super::library::float_lanes as *const (),
            (1, true) => super::library::double_lanes as *const (),
            (_, false) => super::library::float2_lanes as *const (),
            (_, true) => super::library::double2_lanes as *const (),
        };
        let c = self.b.ins().iconst(I32, i64::from(code));
        // A value the same in every lane is computed once (lane 0).
        let n = self.b.ins().iconst(I32, if uniform { 1 } else { 32 });
        let mut call = vec![c, n];
        call.extend(&ptrs);
        self.call_rust(helper, &call);
        let out: Vec<Value> = (0..chunks(ty))
            .map(|c| {
                self.b
                    .ins()
                    .load(lane_ty(ty), vmem(), ptrs[0], (c * 16) as i32)
            })
            .collect();
        if uniform {
            V::U(self.b.ins().extractlane(out[0], 0))
        } else {
            V::L(out)
        }
    }

    /// A texture fetch's channels for the warp: the coordinates' lanes go through the stack to
    /// [`super::texture::fetch_lanes`], which samples every lane.
    fn texture(
        &mut self,
        base: Base,
        fetch: texture::Fetch,
        coords: &[Operand],
        ty: Scalar,
    ) -> Vec<V> {
        const ROW: i32 = 128;
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (7 * ROW) as u32,
            4,
        ));
        let p = self.b.ins().stack_addr(I64, ss, 0);
        for d in 0..3 {
            let lanes = match coords.get(d) {
                Some(c) => {
                    let (v, t) = self.get(c);
                    self.lanes(v, t)
                }
                None => vec![self.zero(I32X4); 8],
            };
            for (i, &x) in lanes.iter().enumerate() {
                self.b
                    .ins()
                    .store(vmem(), x, p, d as i32 * ROW + (i * 16) as i32);
            }
        }
        let textures = self.load_ctx(I64, std::mem::offset_of!(Ctx, textures));
        let fetch = match fetch {
            texture::Fetch::Index => 0,
            texture::Fetch::Coords(n) => i64::from(n),
        };
        let args = [
            textures,
            self.b
                .ins()
                .iconst(I32, i64::from(base.encode().expect("a texture's buffer"))),
            self.b.ins().iconst(I32, fetch),
            self.b.ins().iconst(I32, i64::from(ty.size())),
            self.b.ins().iconst(I32, i64::from(ty.is_signed())),
            p,
        ];
        let out = self.b.ins().iadd_imm_s(p, i64::from(3 * ROW));
        let mut call = args.to_vec();
        call.push(out);
        self.call_rust(super::texture::fetch_lanes as *const (), &call);
        (0..4)
            .map(|k| {
                V::L(
                    (0..chunks(ty))
                        .map(|i| {
                            self.b
                                .ins()
                                .load(lane_ty(ty), vmem(), out, k * ROW + (i * 16) as i32)
                        })
                        .collect(),
                )
            })
            .collect()
    }

    /// The warp's `printf` (inside a region): its executing lanes' arguments, each zero-extended
    /// to 64 bits (a `bool` as 0 or 1), go to [`super::print::print`].
    fn printf(&mut self, format: &str, args: &[(Operand, Scalar)]) {
        use super::print::MAX_ARGS;
        let id = self.printfs.len() as i64;
        self.printfs
            .push((format.to_string(), args.iter().map(|(_, t)| *t).collect()));
        let m = self.get_mask(self.cur);
        let bits = self.bits(&m);
        let [call, done] = self.blocks();
        self.b.ins().brif(bits, call, &[], done, &[]);
        self.b.switch_to_block(call);
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (MAX_ARGS * 256) as u32,
            4,
        ));
        let p = self.b.ins().stack_addr(I64, ss, 0);
        for (i, (o, ty)) in args.iter().enumerate() {
            let v = self.operand(o, *ty);
            let lanes = self.lanes(v, *ty);
            let at = (i * 256) as i32;
            if ty.is_wide() {
                for (c, &x) in lanes.iter().enumerate() {
                    self.b.ins().store(vmem(), x, p, at + (c * 16) as i32);
                }
                continue;
            }
            for (c, &x) in lanes.iter().enumerate() {
                let x = match ty {
                    Scalar::F32 => self.b.ins().bitcast(I32X4, lanes_le(), x),
                    Scalar::Bool => {
                        let one = self.vconst(I32X4, bytemuck::cast([1u32; 4]));
                        self.b.ins().band(x, one)
                    }
                    _ => x,
                };
                let lo = self.b.ins().uwiden_low(x);
                let hi = self.b.ins().uwiden_high(x);
                self.b.ins().store(vmem(), lo, p, at + (c * 32) as i32);
                self.b.ins().store(vmem(), hi, p, at + (c * 32 + 16) as i32);
            }
        }
        // The rest zero: the helper is handed all of them.
        let zero = self.zero(I64X2);
        for off in (args.len() * 256..MAX_ARGS * 256).step_by(16) {
            self.b.ins().store(vmem(), zero, p, off as i32);
        }
        let prints = self.load_ctx(I64, std::mem::offset_of!(Ctx, prints));
        let id = self.b.ins().iconst(I32, id);
        let w = self.warp.expect("inside a region");
        let n = self.b.ins().iconst(I32, args.len() as i64);
        self.call_rust(
            super::print::print as *const (),
            &[prints, id, w, bits, p, n],
        );
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// Call the Rust function at `f` (a `helper!`, in [`HELPER_CONV`]), which returns nothing,
    /// with `args` (its parameters have their types).
    fn call_rust(&mut self, f: *const (), args: &[Value]) {
        let mut sig = ir::Signature::new(HELPER_CONV.unwrap_or(self.call_conv));
        for &a in args {
            sig.params
                .push(AbiParam::new(self.b.func.dfg.value_type(a)));
        }
        let sig = self.b.import_signature(sig);
        let f = self.b.ins().iconst(I64, f as usize as i64);
        self.b.ins().call_indirect(sig, f, args);
    }

    /// Apply a scalar operation lane by lane (for what has no vector instruction): `f` gets
    /// one scalar per input (a `bool` as 0 or 1) and returns the output lane.
    fn scalarize(
        &mut self,
        ins: &[(V, Scalar)],
        out: Scalar,
        f: &mut dyn FnMut(&mut Self, &[Value]) -> Value,
    ) -> V {
        if ins.iter().all(|(v, _)| matches!(v, V::U(_))) {
            let args: Vec<Value> = ins
                .iter()
                .map(|(v, _)| match v {
                    V::U(x) => *x,
                    V::L(_) => unreachable!(),
                })
                .collect();
            return V::U(f(self, &args));
        }
        let mut outs: Vec<Value> = (0..chunks(out)).map(|_| self.zero(lane_ty(out))).collect();
        for l in 0..32 {
            let args: Vec<Value> = ins
                .iter()
                .map(|(v, t)| match v {
                    V::U(x) => *x,
                    V::L(c) => {
                        let p = per_chunk(*t);
                        let x = self.b.ins().extractlane(c[l / p], (l % p) as u8);
                        if *t == Scalar::Bool {
                            self.b.ins().band_imm_s(x, 1)
                        } else {
                            x
                        }
                    }
                })
                .collect();
            let r = f(self, &args);
            let r = if out == Scalar::Bool {
                self.b.ins().ineg(r)
            } else {
                r
            };
            let p = per_chunk(out);
            outs[l / p] = self.b.ins().insertlane(outs[l / p], r, (l % p) as u8);
        }
        V::L(outs)
    }

    /// Apply `vector` chunk by chunk when every input is a warp of the output's chunk shape
    /// (uniform inputs splatted), else `scalar` lane by lane.
    fn lanewise(
        &mut self,
        ins: &[(V, Scalar)],
        out: Scalar,
        vector: Option<&VectorOp<'_>>,
        scalar: &mut dyn FnMut(&mut Self, &[Value]) -> Value,
    ) -> V {
        let uniform = ins.iter().all(|(v, _)| matches!(v, V::U(_)));
        match vector {
            Some(vf) if !uniform && ins.iter().all(|(_, t)| chunks(*t) == chunks(out)) => {
                let lanes: Vec<Vec<Value>> =
                    ins.iter().map(|(v, t)| self.lanes(v.clone(), *t)).collect();
                V::L(
                    (0..chunks(out))
                        .map(|c| {
                            let args: Vec<Value> = lanes.iter().map(|l| l[c]).collect();
                            vf(&mut self.b, &args)
                        })
                        .collect(),
                )
            }
            _ => self.scalarize(ins, out, scalar),
        }
    }

    fn eval(&mut self, op: &Op, ty: Scalar) -> Result<V, String> {
        Ok(match op {
            Op::Copy { src } => self.operand(src, ty),
            Op::Convert { src, from } => {
                let x = self.operand(src, *from);
                self.convert(x, *from, ty)
            }
            Op::Bitcast { src, from } => {
                let x = self.operand(src, *from);
                match (x, *from) {
                    (x, Scalar::Bool) => {
                        let one = |b: &mut FunctionBuilder<'_>, a: &[Value]| {
                            let m = b.ins().iconst(I32, 1);
                            let m = b.ins().splat(I32X4, m);
                            b.ins().band(a[0], m)
                        };
                        self.lanewise(&[(x, Scalar::Bool)], ty, Some(&one), &mut |_, a| a[0])
                    }
                    (V::U(x), _) if scalar_ty(*from) != scalar_ty(ty) => {
                        V::U(self.b.ins().bitcast(scalar_ty(ty), MemFlagsData::new(), x))
                    }
                    (V::L(c), _) => {
                        V::L(c.into_iter().map(|x| self.cast(lane_ty(ty), x)).collect())
                    }
                    (x, _) => x,
                }
            }
            Op::Unary { op, a } => {
                let (x, t) = self.get(a);
                self.unary(*op, ty, x, t)?
            }
            Op::Binary { op, a, b } => {
                let (x, _) = self.get(a);
                let (y, tb) = self.get(b);
                self.binary(*op, ty, x, y, tb)?
            }
            Op::Fma {
                a,
                b,
                c,
                negate_product,
                negate_addend,
            } => {
                let mut ins = Vec::with_capacity(3);
                for (o, negate) in [(a, *negate_product), (b, false), (c, *negate_addend)] {
                    let (x, t) = self.get(o);
                    let x = self.convert(x, t, ty);
                    let x = if negate {
                        // The sign flipped as bits, as the interpreter flips it: Cranelift
                        // would fuse an `fneg` into x86's FNMADD, which passes a NaN operand on
                        // with its sign unchanged, and the tiers would disagree on NaN signs.
                        let f = |b: &mut FunctionBuilder<'_>, a: &[Value]| flip_sign(b, a[0]);
                        self.lanewise(&[(x, ty)], ty, Some(&f), &mut |tx, a| {
                            flip_sign(&mut tx.b, a[0])
                        })
                    } else {
                        x
                    };
                    ins.push((x, ty));
                }
                if !self.fma {
                    return Err("fmaf without the CPU's FMA instructions".into());
                }
                let f = |b: &mut FunctionBuilder<'_>, a: &[Value]| b.ins().fma(a[0], a[1], a[2]);
                self.lanewise(&ins, ty, Some(&f), &mut |tx, a| {
                    tx.b.ins().fma(a[0], a[1], a[2])
                })
            }
            Op::Cmp { op, of, a, b } => {
                let (x, _) = self.get(a);
                let (y, _) = self.get(b);
                self.compare(*op, *of, x, y)
            }
            Op::Select { cond, a, b } => {
                let (c, _) = self.get(cond);
                let (x, _) = self.get(a);
                let (y, _) = self.get(b);
                match (c, x, y) {
                    (V::U(c), V::U(x), V::U(y)) => V::U(self.b.ins().select(c, x, y)),
                    (c, x, y) => {
                        let c = self.lanes(c, Scalar::Bool);
                        let c: [Value; C32] = c.try_into().expect("eight chunks");
                        let m = self.mask_for(ty, &c);
                        let (x, y) = (self.lanes(x, ty), self.lanes(y, ty));
                        V::L(
                            (0..chunks(ty))
                                .map(|i| self.merge(m[i], x[i], y[i]))
                                .collect(),
                        )
                    }
                }
            }
            Op::And { a, b } | Op::Or { a, b } => {
                let and = matches!(op, Op::And { .. });
                let (x, _) = self.get(a);
                let (y, _) = self.get(b);
                let ins = [(x, Scalar::Bool), (y, Scalar::Bool)];
                let f = move |b: &mut FunctionBuilder<'_>, a: &[Value]| {
                    if and {
                        b.ins().band(a[0], a[1])
                    } else {
                        b.ins().bor(a[0], a[1])
                    }
                };
                self.lanewise(&ins, Scalar::Bool, Some(&f), &mut |tx, a| {
                    if and {
                        tx.b.ins().band(a[0], a[1])
                    } else {
                        tx.b.ins().bor(a[0], a[1])
                    }
                })
            }
            Op::Offset { offset, index } => self.offset(offset, index),
        })
    }

    /// `offset + Σ value × scale` as `I64`.
    fn offset(&mut self, offset: &Operand, index: &[(Operand, i64)]) -> V {
        let (mut acc, _) = self.get(offset);
        for (o, scale) in index {
            let (x, t) = self.get(o);
            let x = self.convert(x, t, index_ty(t));
            let s = self.b.ins().iconst(I64, *scale);
            let term = match x {
                V::U(x) => V::U(self.b.ins().imul(x, s)),
                V::L(c) => {
                    let s = self.b.ins().splat(I64X2, s);
                    V::L(c.into_iter().map(|x| self.b.ins().imul(x, s)).collect())
                }
            };
            acc = match (acc, term) {
                (V::U(a), V::U(t)) => V::U(self.b.ins().iadd(a, t)),
                (a, t) => {
                    let (a, t) = (self.lanes(a, Scalar::I64), self.lanes(t, Scalar::I64));
                    V::L(
                        a.iter()
                            .zip(&t)
                            .map(|(&a, &t)| self.b.ins().iadd(a, t))
                            .collect(),
                    )
                }
            };
        }
        acc
    }

    /// C's conversion from `from` to `to` (see [`Op::Convert`]).
    fn convert(&mut self, x: V, from: Scalar, to: Scalar) -> V {
        if from == to {
            return x;
        }
        // Vector forms of the common cases.
        let vector: Option<&VectorOp<'_>> = match (from, to) {
            (S::I32 | S::I16 | S::I8, S::F32) => Some(&|b, a| b.ins().fcvt_from_sint(F32X4, a[0])),
            (S::F32, S::I32) => Some(&|b, a| b.ins().fcvt_to_sint_sat(I32X4, a[0])),
            (S::F32, S::U32) => Some(&|b, a| b.ins().fcvt_to_uint_sat(I32X4, a[0])),
            (S::I32 | S::U32 | S::I16 | S::U16 | S::I8 | S::U8, S::U32 | S::I32) => {
                Some(&|_, a| a[0])
            }
            (S::I32 | S::U32 | S::I16 | S::U16 | S::I8 | S::U8, S::Bool) => Some(&|b, a| {
                let z = b.ins().iconst(I32, 0);
                let z = b.ins().splat(I32X4, z);
                b.ins().icmp(IntCC::NotEqual, a[0], z)
            }),
            (S::F32, S::Bool) => Some(&|b, a| {
                let z = b.ins().f32const(0.0);
                let z = b.ins().splat(F32X4, z);
                b.ins().fcmp(FloatCC::NotEqual, a[0], z)
            }),
            _ => None,
        };
        if let (Some(vf), V::L(c)) = (vector, &x)
            && chunks(from) == chunks(to)
        {
            return V::L(c.iter().map(|&v| vf(&mut self.b, &[v])).collect());
        }
        self.scalarize(&[(x, from)], to, &mut |tx, a| {
            tx.convert_scalar(a[0], from, to)
        })
    }

    /// A 32-bit lane holding a narrow type keeps its low bits, sign- or zero-extended.
    fn fit(&mut self, x: Value, to: Scalar) -> Value {
        match to {
            Scalar::I8 => {
                let s = self.b.ins().ishl_imm_s(x, 24);
                self.b.ins().sshr_imm_s(s, 24)
            }
            Scalar::U8 => self.b.ins().band_imm_s(x, 0xff),
            Scalar::I16 => {
                let s = self.b.ins().ishl_imm_s(x, 16);
                self.b.ins().sshr_imm_s(s, 16)
            }
            Scalar::U16 => self.b.ins().band_imm_s(x, 0xffff),
            _ => x,
        }
    }

    /// [`Tx::convert`] of one scalar (a `bool` as 0 or 1).
    fn convert_scalar(&mut self, x: Value, from: Scalar, to: Scalar) -> Value {
        if to == S::Bool {
            let c = match from {
                S::F32 => {
                    let z = self.b.ins().f32const(0.0);
                    self.b.ins().fcmp(FloatCC::NotEqual, x, z)
                }
                S::F64 => {
                    let z = self.b.ins().f64const(0.0);
                    self.b.ins().fcmp(FloatCC::NotEqual, x, z)
                }
                _ => self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0),
            };
            return self.b.ins().uextend(I32, c);
        }
        let from = if from == S::Bool { S::U32 } else { from };
        match (from.is_float(), to.is_float()) {
            (false, false) => match (from.is_wide(), to.is_wide()) {
                (false, false) => self.fit(x, to),
                (false, true) if from.is_signed() => self.b.ins().sextend(I64, x),
                (false, true) => self.b.ins().uextend(I64, x),
                (true, false) => {
                    let r = self.b.ins().ireduce(I32, x);
                    self.fit(r, to)
                }
                (true, true) => x,
            },
            (false, true) => {
                let ft = scalar_ty(to);
                if from.is_signed() {
                    self.b.ins().fcvt_from_sint(ft, x)
                } else {
                    self.b.ins().fcvt_from_uint(ft, x)
                }
            }
            (true, false) => {
                let it = if to.is_wide() { I64 } else { I32 };
                let r = if to.is_signed() {
                    self.b.ins().fcvt_to_sint_sat(it, x)
                } else {
                    self.b.ins().fcvt_to_uint_sat(it, x)
                };
                self.fit(r, to)
            }
            (true, true) => {
                if to == S::F64 {
                    self.b.ins().fpromote(F64, x)
                } else {
                    self.b.ins().fdemote(F32, x)
                }
            }
        }
    }

    fn unary(&mut self, op: UnOp, ty: Scalar, x: V, xt: Scalar) -> Result<V, String> {
        let float = ty.is_float();
        if let Some(code) = library::code(op).filter(|_| float) {
            let x = self.convert(x, xt, ty);
            return Ok(self.library(code, ty, &[x]));
        }
        Ok(match op {
            UnOp::LogicalNot => {
                if xt == S::Bool {
                    let f = |b: &mut FunctionBuilder<'_>, a: &[Value]| b.ins().bnot(a[0]);
                    return Ok(
                        self.lanewise(&[(x, S::Bool)], S::Bool, Some(&f), &mut |tx, a| {
                            tx.b.ins().bxor_imm_s(a[0], 1)
                        }),
                    );
                }
                let nz = self.convert(x, xt, S::Bool);
                let f = |b: &mut FunctionBuilder<'_>, a: &[Value]| b.ins().bnot(a[0]);
                self.lanewise(&[(nz, S::Bool)], S::Bool, Some(&f), &mut |tx, a| {
                    tx.b.ins().bxor_imm_s(a[0], 1)
                })
            }
            UnOp::Popc | UnOp::Clz | UnOp::Ffs => {
                let wide = xt.is_wide();
                self.scalarize(&[(x, xt)], S::I32, &mut |tx, a| {
                    let r = match op {
                        UnOp::Popc => tx.b.ins().popcnt(a[0]),
                        UnOp::Clz => tx.b.ins().clz(a[0]),
                        _ => {
                            let t = tx.b.ins().ctz(a[0]);
                            let t1 = tx.b.ins().iadd_imm_s(t, 1);
                            let z = tx.b.ins().iconst(if wide { I64 } else { I32 }, 0);
                            let is0 = tx.b.ins().icmp_imm_s(IntCC::Equal, a[0], 0);
                            tx.b.ins().select(is0, z, t1)
                        }
                    };
                    if wide { tx.b.ins().ireduce(I32, r) } else { r }
                })
            }
            UnOp::Test(t) => {
                if xt == S::Bool {
                    return Ok(V::U(
                        self.b.ins().iconst(I32, i64::from(t == FpTest::IsFinite)),
                    ));
                }
                self.scalarize(&[(x, xt)], S::I32, &mut |tx, a| {
                    let x = a[0];
                    let c = match t {
                        FpTest::IsNan => tx.b.ins().fcmp(FloatCC::Unordered, x, x),
                        FpTest::IsInf | FpTest::IsFinite => {
                            let abs = tx.b.ins().fabs(x);
                            let inf = if xt == S::F64 {
                                tx.b.ins().f64const(f64::INFINITY)
                            } else {
                                tx.b.ins().f32const(f32::INFINITY)
                            };
                            let cc = if t == FpTest::IsInf {
                                FloatCC::Equal
                            } else {
                                FloatCC::LessThan
                            };
                            tx.b.ins().fcmp(cc, abs, inf)
                        }
                        _ => {
                            let it = if xt == S::F64 { I64 } else { I32 };
                            let bits = tx.b.ins().bitcast(it, MemFlagsData::new(), x);
                            tx.b.ins().icmp_imm_s(IntCC::SignedLessThan, bits, 0)
                        }
                    };
                    tx.b.ins().uextend(I32, c)
                })
            }
            _ => {
                type F = fn(&mut FunctionBuilder<'_>, &[Value]) -> Value;
                let f: F = match (op, float) {
                    (UnOp::Neg, true) => |b, a| b.ins().fneg(a[0]),
                    (UnOp::Neg, false) => |b, a| b.ins().ineg(a[0]),
                    (UnOp::Not, _) => |b, a| b.ins().bnot(a[0]),
                    (UnOp::Abs, true) => |b, a| b.ins().fabs(a[0]),
                    (UnOp::Abs, false) => |b, a| b.ins().iabs(a[0]),
                    (UnOp::Sqrt, _) => |b, a| b.ins().sqrt(a[0]),
                    (UnOp::Floor, _) => |b, a| b.ins().floor(a[0]),
                    (UnOp::Ceil, _) => |b, a| b.ins().ceil(a[0]),
                    (UnOp::Trunc, _) => |b, a| b.ins().trunc(a[0]),
                    (UnOp::Rint, _) => |b, a| b.ins().nearest(a[0]),
                    (UnOp::Brev, _) => |b, a| b.ins().bitrev(a[0]),
                    (UnOp::Rsqrt, _) => |b, a| {
                        let s = b.ins().sqrt(a[0]);
                        let ty = b.func.dfg.value_type(a[0]);
                        let one = match ty {
                            F32 => b.ins().f32const(1.0),
                            F64 => b.ins().f64const(1.0),
                            F32X4 => {
                                let o = b.ins().f32const(1.0);
                                b.ins().splat(F32X4, o)
                            }
                            _ => {
                                let o = b.ins().f64const(1.0);
                                b.ins().splat(F64X2, o)
                            }
                        };
                        b.ins().fdiv(one, s)
                    },
                    _ => return Err(format!("{op:?} is not compiled yet")),
                };
                let vector = !(op == UnOp::Brev || op == UnOp::Abs && ty.is_wide() && !float);
                let vf = |b: &mut FunctionBuilder<'_>, a: &[Value]| f(b, a);
                self.lanewise(
                    &[(x, ty)],
                    ty,
                    if vector { Some(&vf) } else { None },
                    &mut |tx, a| f(&mut tx.b, a),
                )
            }
        })
    }

    fn binary(&mut self, op: BinOp, ty: Scalar, x: V, y: V, yt: Scalar) -> Result<V, String> {
        let float = ty.is_float();
        if let Some(code) = library::code2(op).filter(|_| float) {
            let y = self.convert(y, yt, ty);
            return Ok(self.library(code, ty, &[x, y]));
        }
        let signed = ty.is_signed();
        let bits = if ty.is_wide() { 64 } else { 32 };
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            // The amount, read as unsigned in the value's width.
            let amt = self.convert(
                y,
                yt,
                if ty.is_wide() {
                    Scalar::U64
                } else {
                    Scalar::U32
                },
            );
            return Ok(match amt {
                V::U(k) => {
                    let lim = self.b.ins().iconst(scalar_ty(ty), bits - 1);
                    let big = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThan, k, bits - 1);
                    let k1 = self.b.ins().umin(k, lim);
                    let arith = op == BinOp::Shr && signed;
                    let f = move |b: &mut FunctionBuilder<'_>, a: &[Value]| match op {
                        BinOp::Shl => b.ins().ishl(a[0], k1),
                        _ if arith => b.ins().sshr(a[0], k1),
                        _ => b.ins().ushr(a[0], k1),
                    };
                    let r = self.lanewise(&[(x, ty)], ty, Some(&f), &mut |tx, a| f(&mut tx.b, a));
                    if arith {
                        r
                    } else {
                        let z = self.zero(scalar_ty(ty));
                        match r {
                            V::U(r) => V::U(self.b.ins().select(big, z, r)),
                            V::L(c) => {
                                let zv = self.zero(lane_ty(ty));
                                V::L(
                                    c.into_iter()
                                        .map(|r| self.b.ins().select(big, zv, r))
                                        .collect(),
                                )
                            }
                        }
                    }
                }
                amt @ V::L(_) => {
                    let at = if ty.is_wide() {
                        Scalar::U64
                    } else {
                        Scalar::U32
                    };
                    self.scalarize(&[(x, ty), (amt, at)], ty, &mut |tx, a| {
                        let lim = tx.b.ins().iconst(scalar_ty(ty), bits - 1);
                        let big =
                            tx.b.ins()
                                .icmp_imm_s(IntCC::UnsignedGreaterThan, a[1], bits - 1);
                        let k = tx.b.ins().umin(a[1], lim);
                        match op {
                            BinOp::Shr if signed => tx.b.ins().sshr(a[0], k),
                            _ => {
                                let r = if op == BinOp::Shl {
                                    tx.b.ins().ishl(a[0], k)
                                } else {
                                    tx.b.ins().ushr(a[0], k)
                                };
                                let z = tx.b.ins().iconst(scalar_ty(ty), 0);
                                tx.b.ins().select(big, z, r)
                            }
                        }
                    })
                }
            });
        }
        if matches!(op, BinOp::Div | BinOp::Rem) && !float {
            return Ok(self.divide(op == BinOp::Rem, ty, x, y));
        }
        type F = fn(&mut FunctionBuilder<'_>, &[Value]) -> Value;
        let f: F = match (op, float, signed) {
            (BinOp::Add, true, _) => |b, a| b.ins().fadd(a[0], a[1]),
            (BinOp::Sub, true, _) => |b, a| b.ins().fsub(a[0], a[1]),
            (BinOp::Mul, true, _) => |b, a| b.ins().fmul(a[0], a[1]),
            (BinOp::Div, true, _) => |b, a| b.ins().fdiv(a[0], a[1]),
            (BinOp::Add, false, _) => |b, a| b.ins().iadd(a[0], a[1]),
            (BinOp::Sub, false, _) => |b, a| b.ins().isub(a[0], a[1]),
            (BinOp::Mul, false, _) => |b, a| b.ins().imul(a[0], a[1]),
            (BinOp::And, false, _) => |b, a| b.ins().band(a[0], a[1]),
            (BinOp::Or, false, _) => |b, a| b.ins().bor(a[0], a[1]),
            (BinOp::Xor, false, _) => |b, a| b.ins().bxor(a[0], a[1]),
            (BinOp::Min, false, true) => |b, a| b.ins().smin(a[0], a[1]),
            (BinOp::Min, false, false) => |b, a| b.ins().umin(a[0], a[1]),
            (BinOp::Max, false, true) => |b, a| b.ins().smax(a[0], a[1]),
            (BinOp::Max, false, false) => |b, a| b.ins().umax(a[0], a[1]),
            (BinOp::MulHi, false, true) => |b, a| b.ins().smulhi(a[0], a[1]),
            (BinOp::MulHi, false, false) => |b, a| b.ins().umulhi(a[0], a[1]),
            (BinOp::NthSet, false, _) => |b, a| nth_set(b, a[0], a[1]),
            // C's fminf/fmaxf: a NaN operand gives the other one.
            (BinOp::Min | BinOp::Max, true, _) => {
                if op == BinOp::Min {
                    |b, a| nan_aware(b, a, true, false)
                } else {
                    |b, a| nan_aware(b, a, false, false)
                }
            }
            _ => return Err(format!("{op:?} on `{ty}` is not compiled yet")),
        };
        // x86 has no 64-bit lane multiply, min or max before AVX-512, nor a high multiply or
        // a population count of 32-bit lanes.
        let scalar_only = matches!(op, BinOp::MulHi | BinOp::NthSet)
            || ty.is_wide() && !float && matches!(op, BinOp::Mul | BinOp::Min | BinOp::Max);
        let vector = !scalar_only;
        let vf = |b: &mut FunctionBuilder<'_>, a: &[Value]| f(b, a);
        Ok(self.lanewise(
            &[(x, ty), (y, ty)],
            ty,
            if vector { Some(&vf) } else { None },
            &mut |tx, a| f(&mut tx.b, a),
        ))
    }

    /// Integer division and remainder as warpsim defines them: by zero, `/` gives all ones
    /// (`-1` signed) and `%` the dividend; `MIN / -1` wraps. An unsigned divisor the same for
    /// the block that is a power of two is a shift or a mask.
    fn divide(&mut self, rem: bool, ty: Scalar, x: V, y: V) -> V {
        let signed = ty.is_signed();
        let st = scalar_ty(ty);
        let mut scalar = move |tx: &mut Self, a: &[Value]| -> Value {
            let (n, d) = (a[0], a[1]);
            let zero = tx.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
            if signed {
                let min = if st == I64 {
                    i64::MIN
                } else {
                    i64::from(i32::MIN)
                };
                let is_min = tx.b.ins().icmp_imm_s(IntCC::Equal, n, min);
                let neg1 = tx.b.ins().icmp_imm_s(IntCC::Equal, d, -1);
                let ovf = tx.b.ins().band(is_min, neg1);
                let bad = tx.b.ins().bor(zero, ovf);
                let one = tx.b.ins().iconst(st, 1);
                let safe = tx.b.ins().select(bad, one, d);
                if rem {
                    let r = tx.b.ins().srem(n, safe);
                    tx.b.ins().select(zero, n, r)
                } else {
                    let q = tx.b.ins().sdiv(n, safe);
                    let q = tx.b.ins().select(ovf, n, q);
                    let m1 = tx.b.ins().iconst(st, -1);
                    tx.b.ins().select(zero, m1, q)
                }
            } else {
                let one = tx.b.ins().iconst(st, 1);
                let safe = tx.b.ins().select(zero, one, d);
                if rem {
                    let r = tx.b.ins().urem(n, safe);
                    tx.b.ins().select(zero, n, r)
                } else {
                    let q = tx.b.ins().udiv(n, safe);
                    let m1 = tx.b.ins().iconst(st, -1);
                    tx.b.ins().select(zero, m1, q)
                }
            }
        };
        match (&x, &y) {
            (V::L(_), V::U(d)) if !signed && !ty.is_wide() => {
                let d = *d;
                // A power of two: one vector operation; else lane by lane.
                let pc = self.b.ins().popcnt(d);
                let pow2 = self.b.ins().icmp_imm_s(IntCC::Equal, pc, 1);
                let out: Vec<Variable> = (0..C32).map(|_| self.b.declare_var(I32X4)).collect();
                let [fast, slow, join] = self.blocks();
                self.b.ins().brif(pow2, fast, &[], slow, &[]);
                self.b.switch_to_block(fast);
                let xl = self.lanes(x.clone(), ty);
                let r: Vec<Value> = if rem {
                    let m = self.b.ins().iadd_imm_s(d, -1);
                    let m = self.b.ins().splat(I32X4, m);
                    xl.iter().map(|&v| self.b.ins().band(v, m)).collect()
                } else {
                    let k = self.b.ins().ctz(d);
                    xl.iter().map(|&v| self.b.ins().ushr(v, k)).collect()
                };
                for (o, v) in out.iter().zip(r) {
                    self.b.def_var(*o, v);
                }
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(slow);
                let V::L(r) = self.scalarize(&[(x, ty), (y, ty)], ty, &mut scalar) else {
                    unreachable!("a warp operand gives a warp")
                };
                for (o, v) in out.iter().zip(r) {
                    self.b.def_var(*o, v);
                }
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                V::L(out.iter().map(|&o| self.b.use_var(o)).collect())
            }
            _ => self.scalarize(&[(x, ty), (y, ty)], ty, &mut scalar),
        }
    }

    fn compare(&mut self, op: CmpOp, of: Scalar, x: V, y: V) -> V {
        let ic = |signed: bool| match op {
            CmpOp::Lt if signed => IntCC::SignedLessThan,
            CmpOp::Le if signed => IntCC::SignedLessThanOrEqual,
            CmpOp::Gt if signed => IntCC::SignedGreaterThan,
            CmpOp::Ge if signed => IntCC::SignedGreaterThanOrEqual,
            CmpOp::Lt => IntCC::UnsignedLessThan,
            CmpOp::Le => IntCC::UnsignedLessThanOrEqual,
            CmpOp::Gt => IntCC::UnsignedGreaterThan,
            CmpOp::Ge => IntCC::UnsignedGreaterThanOrEqual,
            CmpOp::Eq => IntCC::Equal,
            CmpOp::Ne => IntCC::NotEqual,
        };
        let fc = match op {
            CmpOp::Lt => FloatCC::LessThan,
            CmpOp::Le => FloatCC::LessThanOrEqual,
            CmpOp::Gt => FloatCC::GreaterThan,
            CmpOp::Ge => FloatCC::GreaterThanOrEqual,
            CmpOp::Eq => FloatCC::Equal,
            CmpOp::Ne => FloatCC::NotEqual,
        };
        if of == S::Bool {
            // As 0 and 1 (false < true).
            let cc = ic(false);
            return self.scalarize(&[(x, S::Bool), (y, S::Bool)], S::Bool, &mut |tx, a| {
                let c = tx.b.ins().icmp(cc, a[0], a[1]);
                tx.b.ins().uextend(I32, c)
            });
        }
        let cc = ic(of.is_signed());
        let float = of.is_float();
        let scalar = &mut |tx: &mut Self, a: &[Value]| {
            let c = if float {
                tx.b.ins().fcmp(fc, a[0], a[1])
            } else {
                tx.b.ins().icmp(cc, a[0], a[1])
            };
            tx.b.ins().uextend(I32, c)
        };
        if of.is_wide() || matches!((&x, &y), (V::U(_), V::U(_))) {
            return self.scalarize(&[(x, of), (y, of)], S::Bool, scalar);
        }
        let (a, b) = (self.lanes(x, of), self.lanes(y, of));
        V::L(
            a.iter()
                .zip(&b)
                .map(|(&a, &b)| {
                    if float {
                        self.b.ins().fcmp(fc, a, b)
                    } else {
                        self.b.ins().icmp(cc, a, b)
                    }
                })
                .collect(),
        )
    }
}

/// The lane of set bit number `k` (from 0) of the 32-bit mask `m`, 32 when it has fewer (a
/// coalesced group's rank to its lane): a binary search on the set bits of the window's low
/// half, the window narrowing from 32 bits to one, without branches.
fn nth_set(b: &mut FunctionBuilder<'_>, m: Value, k: Value) -> Value {
    let total = b.ins().popcnt(m);
    let fewer = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, k, total);
    let (mut x, mut n, mut pos) = (m, k, b.ins().iconst(I32, 0));
    for half in [16, 8, 4, 2, 1] {
        let low = b.ins().band_imm_s(x, (1i64 << half) - 1);
        let c = b.ins().popcnt(low);
        // Past the low half's set bits: the bit is in the high half.
        let high = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, n, c);
        let (n2, x2, pos2) = (
            b.ins().isub(n, c),
            b.ins().ushr_imm_s(x, half),
            b.ins().iadd_imm_s(pos, half),
        );
        n = b.ins().select(high, n2, n);
        x = b.ins().select(high, x2, x);
        pos = b.ins().select(high, pos2, pos);
    }
    let none = b.ins().iconst(I32, 32);
    b.ins().select(fewer, none, pos)
}

/// `fminf`/`fmaxf` (`min` true or false) as the interpreter computes them. Its vector form
/// (the `wide` crate on x86): `y` unless `x` is strictly smaller (larger) or `y` is NaN.
/// Its scalar form (Rust's `f32::min`, for atomics, `scalar`): `x` unless `y` is strictly
/// smaller (larger) or `x` is NaN. They differ only for NaNs and zeros of both signs.
fn nan_aware(b: &mut FunctionBuilder<'_>, a: &[Value], min: bool, scalar: bool) -> Value {
    let (x, y) = if scalar { (a[1], a[0]) } else { (a[0], a[1]) };
    // Pick `x` where `x` beats `y`, else `y`; where `y` is NaN, `x`.
    let ty = b.func.dfg.value_type(x);
    let cc = if min {
        FloatCC::LessThan
    } else {
        FloatCC::GreaterThan
    };
    let beats = b.ins().fcmp(cc, x, y);
    let yn = b.ins().fcmp(FloatCC::Unordered, y, y);
    if ty.is_vector() {
        let beats = b.ins().bitcast(ty, lanes_le(), beats);
        let yn = b.ins().bitcast(ty, lanes_le(), yn);
        let r = b.ins().bitselect(beats, x, y);
        b.ins().bitselect(yn, x, r)
    } else {
        let r = b.ins().select(beats, x, y);
        b.ins().select(yn, x, r)
    }
}

/// A loop over the block's warps ([`Tx::warp_loop`]).
#[derive(Clone, Copy)]
struct WarpLoop {
    var: Variable,
    /// The warp index, in the loop's body.
    w: Value,
    head: ir::Block,
    exit: ir::Block,
}

/// A warp's access found to be an affine row ([`Tx::affine_row`]).
struct Row {
    /// Whether it is one, inside its buffer and aligned (`I8`).
    ok: Value,
    /// Whether it is one, aligned, and its first byte is from 0 to 2^62 (`I8`).
    starts: Value,
    /// Whether the lanes are a row, wherever it lies (`I8`): what counting needs, its cost
    /// depending only on the executing lanes, the step and the start.
    row: Value,
    /// Whether the step is one element (`I8`).
    unit: Value,
    /// The step in elements, where known at compile time.
    known: Option<i64>,
    /// Lane 0's address, and its byte offset in the buffer.
    addr: Value,
    byte0: Value,
    /// Bytes from one lane's element to the next (`I64`).
    step: Value,
}

/// A varying index term's lanes: a warp of values, or an affine variable's lane 0 and step
/// ([`affine_vars`]), its lanes made only where a path needs them.
enum Lanes {
    Warp(Vec<Value>),
    Affine(Value, Step),
}

/// Where the lane-by-lane path ([`Tx::per_lane`]) finds a term's lanes: spilled to the stack,
/// or (an affine variable's) computed per lane from lane 0 and the step (`I32`s).
enum TermLanes {
    Spilled(ir::StackSlot),
    Affine(Value, Value),
}

/// An address split for code generation: a uniform byte offset and the varying terms.
struct Parts {
    /// The uniform part of the byte offset (`I64`).
    uniform: Value,
    /// Varying terms: the lanes of a type, and their scale in bytes.
    terms: Vec<(Lanes, Scalar, i64)>,
    /// Per term, its step from lane to lane when the compiler can tell ([`lane_steps`]), and
    /// then its lane 0 where the term is an affine variable ([`affine_vars`]).
    steps: Vec<Option<(Step, Option<Value>)>>,
}

impl Tx<'_, '_> {
    fn parts(&mut self, a: &Addr) -> Parts {
        let mut terms = Vec::new();
        let mut steps = Vec::new();
        let mut uniform = match self.affine_term(&a.offset) {
            Some(l) => {
                terms.push((l, self.type_of(&a.offset), 1));
                steps.push(self.term_step(&a.offset));
                self.b.ins().iconst(I64, 0)
            }
            None => {
                let (off, ot) = self.get(&a.offset);
                match off {
                    V::U(x) => x,
                    V::L(c) => {
                        terms.push((Lanes::Warp(c), ot, 1));
                        steps.push(self.term_step(&a.offset));
                        self.b.ins().iconst(I64, 0)
                    }
                }
            }
        };
        for (o, scale) in &a.index {
            if let Some(l) = self.affine_term(o) {
                terms.push((l, self.type_of(o), *scale));
                steps.push(self.term_step(o));
                continue;
            }
            let (x, t) = self.get(o);
            match x {
                V::U(x) => {
                    let wide = self.convert_scalar(x, t, index_ty(t));
                    let term = self.b.ins().imul_imm_s(wide, *scale);
                    uniform = self.b.ins().iadd(uniform, term);
                }
                V::L(c) => {
                    let c = if t == Scalar::Bool {
                        let one = self.b.ins().iconst(I32, 1);
                        let one = self.b.ins().splat(I32X4, one);
                        c.iter().map(|&v| self.b.ins().band(v, one)).collect()
                    } else {
                        c
                    };
                    terms.push((Lanes::Warp(c), t, *scale));
                    steps.push(self.term_step(o));
                }
            }
        }
        Parts {
            uniform,
            terms,
            steps,
        }
    }

    /// An affine variable's lanes, not yet made.
    fn affine_term(&mut self, o: &Operand) -> Option<Lanes> {
        let Operand::Var(v) = *o else { return None };
        let step = self.affine[v.0 as usize]?;
        Some(Lanes::Affine(self.b.use_var(self.uvar[v.0 as usize]), step))
    }

    /// A term's lanes as a warp of values.
    fn warp_of(&mut self, l: &Lanes) -> Vec<Value> {
        match *l {
            Lanes::Warp(ref c) => c.clone(),
            Lanes::Affine(x, step) => self.affine_lanes(x, step),
        }
    }

    /// An index term's step, and its lane 0 where the term is an affine variable.
    fn term_step(&mut self, o: &Operand) -> Option<(Step, Option<Value>)> {
        let step = self.step(o)?;
        let lane0 = match *o {
            Operand::Var(v) if self.affine[v.0 as usize].is_some() => {
                Some(self.b.use_var(self.uvar[v.0 as usize]))
            }
            _ => None,
        };
        Some((step, lane0))
    }

    /// A warp value spilled to a stack slot, lane `l` at `l × lane bytes`.
    fn spill(&mut self, c: &[Value]) -> ir::StackSlot {
        let ss =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 256, 4));
        let p = self.b.ins().stack_addr(I64, ss, 0);
        for (i, &v) in c.iter().enumerate() {
            self.b.ins().store(vmem(), v, p, (i * 16) as i32);
        }
        ss
    }

    /// The byte offset of lane `l` (`I64`), from its terms' lanes.
    fn lane_byte(&mut self, p: &Parts, lanes: &[TermLanes], l: Value) -> Value {
        let mut byte = p.uniform;
        for ((_, t, scale), from) in p.terms.iter().zip(lanes) {
            let x = match *from {
                TermLanes::Spilled(ss) => {
                    let base = self.b.ins().stack_addr(I64, ss, 0);
                    let lb = if t.is_wide() { 3 } else { 2 };
                    let li = self.b.ins().uextend(I64, l);
                    let at = self.b.ins().ishl_imm_s(li, lb);
                    let at = self.b.ins().iadd(base, at);
                    self.b.ins().load(scalar_ty(*t).as_int(), mem(), at, 0)
                }
                // Lane 0 plus `l` steps, mod 2^32 (as [`Tx::affine_lanes`] makes them).
                TermLanes::Affine(x0, k) => {
                    let d = self.b.ins().imul(l, k);
                    self.b.ins().iadd(x0, d)
                }
            };
            let x = if t.is_wide() {
                x
            } else if t.is_signed() {
                self.b.ins().sextend(I64, x)
            } else {
                self.b.ins().uextend(I64, x)
            };
            let term = self.b.ins().imul_imm_s(x, *scale);
            byte = self.b.ins().iadd(byte, term);
        }
        byte
    }

    /// Branch to a fault unless `[byte, byte + size)` is inside slot `slot`'s buffer and
    /// aligned to `size`; continues in the block where it is.
    fn check(
        &mut self,
        slot: Option<usize>,
        byte: Value,
        (access, size): (AccessKind, i64),
        site: Site,
        lane: Value,
    ) {
        let ok = match slot {
            Some(s) => {
                let len = self.buf_len[s];
                let lim = self.b.ins().iadd_imm_s(len, -size);
                let nonneg = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, byte, 0);
                let fits = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, byte, lim);
                let low = self.b.ins().band_imm_s(byte, size - 1);
                let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
                let ok = self.b.ins().band(nonneg, fits);
                self.b.ins().band(ok, aligned)
            }
            None => self.b.ins().iconst(I8, 0),
        };
        let [go, bad] = self.blocks();
        self.b.ins().brif(ok, go, &[], bad, &[]);
        self.b.switch_to_block(bad);
        let access = Some((access, size as u32));
        if let Some(s) = slot {
            // Within the buffer's slack (a tolerant launch's padding), aligned: noted, and
            // the access goes on.
            let bufs = self.load_ctx(I64, offset_of!(Ctx, bufs));
            let at = s * size_of::<Buf>() + offset_of!(Buf, slack);
            let slack = self
                .b
                .ins()
                .load(I64, MemFlagsData::trusted(), bufs, at as i32);
            let lo = self.b.ins().ineg(slack);
            let above = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, byte, lo);
            let end = self.b.ins().iadd(self.buf_len[s], slack);
            let end = self.b.ins().iadd_imm_s(end, -size);
            let below = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, byte, end);
            let low = self.b.ins().band_imm_s(byte, size - 1);
            let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
            let within = self.b.ins().band(above, below);
            let within = self.b.ins().band(within, aligned);
            let [note, stop] = self.blocks();
            self.b.ins().brif(within, note, &[], stop, &[]);
            self.b.switch_to_block(note);
            self.outside(site, access, lane, s as u32, byte);
            self.b.ins().jump(go, &[]);
            self.b.switch_to_block(stop);
        }
        self.fault(
            site,
            access,
            lane,
            slot.map_or(u32::MAX, |s| s as u32),
            byte,
        );
        self.b.switch_to_block(go);
    }

    /// Lane by lane over the executing lanes: check the access, then `each(lane, address)`.
    fn per_lane(
        &mut self,
        p: &Parts,
        slot: Option<usize>,
        (access, size): (AccessKind, i64),
        site: Site,
        each: &mut dyn FnMut(&mut Self, Value, Value),
    ) {
        let lanes: Vec<TermLanes> = p
            .terms
            .iter()
            .map(|(l, _, _)| match *l {
                Lanes::Warp(ref c) => TermLanes::Spilled(self.spill(c)),
                Lanes::Affine(x0, step) => TermLanes::Affine(x0, self.step_value(step)),
            })
            .collect();
        let m = self.get_mask(self.cur);
        let bits = self.bits(&m);
        self.lane_loop(bits, &mut |tx, m, l| {
            let byte = tx.lane_byte(p, &lanes, l);
            tx.check(slot, byte, (access, size), site, l);
            // Without a buffer (a null pointer) the check always faults: nothing to access.
            if let Some(s) = slot {
                let addr = tx.b.ins().iadd(tx.buf_ptr[s], byte);
                each(tx, l, addr);
            }
            let m1 = tx.b.ins().iadd_imm_s(m, -1);
            tx.b.ins().band(m, m1)
        });
    }

    /// A loop over a set of lanes (32 bits): `body(left, lane)` runs for the lowest lane `left`
    /// holds and returns the lanes left after it; the code that follows runs when none is.
    fn lane_loop(&mut self, lanes: Value, body: &mut dyn FnMut(&mut Self, Value, Value) -> Value) {
        let left = self.b.declare_var(I32);
        self.b.def_var(left, lanes);
        let [head, each, done] = self.blocks();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let m = self.b.use_var(left);
        self.b.ins().brif(m, each, &[], done, &[]);
        self.b.switch_to_block(each);
        let l = self.b.ins().ctz(m);
        let rest = body(self, m, l);
        self.b.def_var(left, rest);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(done);
    }

    /// Whether the access is an affine row (lane `l` at `first + l × step` elements) inside
    /// its buffer and aligned, checked once for the warp: 32-bit index terms scaled by
    /// multiples of the element size, or one 64-bit term (scaled by at most 16 elements).
    fn affine_row(&mut self, p: &Parts, slot: usize, size: i64) -> Option<Row> {
        // A 64-bit index of a field (`img[i].x`, elements `scale / size` fields apart).
        if let [(Lanes::Warp(c), t, scale)] = p.terms.as_slice()
            && t.is_wide()
            && scale % size == 0
            && (1..=16).contains(&(scale / size).abs())
        {
            return Some(self.wide_row(c, p, slot, (size, scale / size)));
        }
        if p.terms.is_empty()
            || p.terms
                .iter()
                .any(|(_, t, scale)| t.is_wide() || scale % size != 0)
        {
            return None;
        }
        // An index below a loop's bound in every lane ([`Tx::bounded`]).
        let mut bounded = None;
        // Several terms (`tile[y][x]`) are summed in 32 bits, as element indices, where no
        // lane's sum can overflow: each term's lanes within a bound checked here.
        let (c, t, fits32, known, lane0) = match p.terms.as_slice() {
            [(l, t, scale)] if *scale == size => {
                if let Lanes::Affine(x, k) = l
                    && *t == S::U32
                    && let Some((x0, n, step)) = self.bounded
                    && *x == x0
                    && k.constant() == Some(step)
                {
                    bounded = Some(n);
                }
                let (step, lane0) = p.steps[0].unzip();
                // An affine variable's lanes are not needed: lane 0 and the step say it all.
                let c = match l {
                    Lanes::Warp(c) => c.clone(),
                    Lanes::Affine(..) => Vec::new(),
                };
                (c, *t, None, step, lane0.flatten())
            }
            terms => {
                let weight: i64 = terms.iter().map(|(_, _, s)| (s / size).abs()).sum();
                let bound = i64::from(i32::MAX) / weight.max(1);
                let mut sum: Option<Vec<Value>> = None;
                let mut inside: Option<Value> = None;
                for (l, t, scale) in terms {
                    let c = &self.warp_of(l);
                    let b = self.b.ins().iconst(I32, bound);
                    let hi = self.b.ins().splat(I32X4, b);
                    let nb = self.b.ins().iconst(I32, -bound);
                    let lo = self.b.ins().splat(I32X4, nb);
                    let m = self.b.ins().iconst(I32, scale / size);
                    let m = self.b.ins().splat(I32X4, m);
                    let mut scaled = Vec::new();
                    for &x in c {
                        let ok = if t.is_signed() {
                            let a = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, x, hi);
                            let b = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, x, lo);
                            self.b.ins().band(a, b)
                        } else {
                            self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, x, hi)
                        };
                        inside = Some(match inside {
                            None => ok,
                            Some(i) => self.b.ins().band(i, ok),
                        });
                        scaled.push(self.b.ins().imul(x, m));
                    }
                    sum = Some(match sum {
                        None => scaled,
                        Some(acc) => acc
                            .iter()
                            .zip(&scaled)
                            .map(|(&a, &b)| self.b.ins().iadd(a, b))
                            .collect(),
                    });
                }
                let inside = self.b.ins().vall_true(inside.expect("a term"));
                let known = p
                    .steps
                    .iter()
                    .zip(terms)
                    .try_fold(Step::known(0), |acc, (k, (_, _, scale))| {
                        acc.add(k.as_ref()?.0.scale(scale / size))
                    });
                (sum.expect("a term"), S::I32, Some(inside), known, None)
            }
        };
        let signed = t.is_signed();
        let ext = |tx: &mut Self, v: Value| {
            if signed {
                tx.b.ins().sextend(I64, v)
            } else {
                tx.b.ins().uextend(I64, v)
            }
        };
        let t0 = match lane0 {
            Some(x) => x,
            None => self.b.ins().extractlane(c[0], 0),
        };
        let (affine, k64) = match known {
            // The step is known: every lane is where it leads (mod 2^32).
            Some(k) => {
                let k = match k.constant() {
                    Some(k) => self.b.ins().iconst(I64, k),
                    None => {
                        let k = self.step_value(k);
                        self.b.ins().sextend(I64, k)
                    }
                };
                (self.b.ins().iconst(I8, 1), k)
            }
            None => {
                let t1 = self.b.ins().extractlane(c[0], 1);
                let k = self.b.ins().isub(t1, t0);
                let s0 = self.b.ins().splat(I32X4, t0);
                let sk = self.b.ins().splat(I32X4, k);
                let mut all = None;
                for (i, &x) in c.iter().enumerate() {
                    let iota = self.iota(i);
                    let want = self.b.ins().imul(iota, sk);
                    let want = self.b.ins().iadd(s0, want);
                    let eq = self.b.ins().icmp(IntCC::Equal, x, want);
                    all = Some(match all {
                        None => eq,
                        Some(a) => self.b.ins().band(a, eq),
                    });
                }
                let first = ext(self, t0);
                let second = ext(self, t1);
                let affine = self.b.ins().vall_true(all.expect("eight chunks"));
                (affine, self.b.ins().isub(second, first))
            }
        };
        // In 64 bits the last lane must be where the step leads: no 32-bit wrap-around.
        let first = ext(self, t0);
        let last = match lane0 {
            // An affine variable's lane 31, from its lane 0 (mod 2^32).
            Some(x) => {
                let k = self.b.ins().ireduce(I32, k64);
                let span = self.b.ins().imul_imm_s(k, 31);
                self.b.ins().iadd(x, span)
            }
            None => self.b.ins().extractlane(c[7], 3),
        };
        let last = ext(self, last);
        let span = self.b.ins().imul_imm_s(k64, 31);
        let want_last = self.b.ins().iadd(first, span);
        let no_wrap = self.b.ins().icmp(IntCC::Equal, last, want_last);
        let mut row = self.b.ins().band(affine, no_wrap);
        if let Some(f) = fits32 {
            row = self.b.ins().band(row, f);
        }
        let known = known.and_then(Step::constant);
        // An unsigned index at a step that does not go down, from a constant offset that is
        // not negative (`sdata[t + s]`), starts at no negative byte: no check at run time.
        let nonneg = !signed && known.is_some_and(|k| k >= 0) && self.nonneg_const(p.uniform);
        Some(self.row_from(p, slot, size, (first, k64), row, (known, nonneg, bounded)))
    }

    /// A row of one 64-bit index term (`in[(size_t)y * n + x]`): whether its lanes are one is
    /// told at run time, each lane against lane 0 plus its number of steps, lanes 0 and 31 and
    /// the step within ±2^40 (so that no lane nor byte offset below wraps around).
    /// `per`: elements of `size` bytes per index step (at most 16 either way, so that the
    /// bounds below keep byte offsets far from wrapping).
    fn wide_row(&mut self, c: &[Value], p: &Parts, slot: usize, (size, per): (i64, i64)) -> Row {
        let t0 = self.b.ins().extractlane(c[0], 0);
        let t1 = self.b.ins().extractlane(c[0], 1);
        let k = self.b.ins().isub(t1, t0);
        // Chunk i holds lanes 2i and 2i + 1: where chunk 0's lanes lead, two steps on per chunk
        // (chunk 0 itself is lanes 0 and 1, which define the step).
        let mut want = c[0];
        let k2 = self.b.ins().imul_imm_s(k, 2);
        let k2 = self.b.ins().splat(I64X2, k2);
        let mut all = None;
        for &x in &c[1..] {
            want = self.b.ins().iadd(want, k2);
            let eq = self.b.ins().icmp(IntCC::Equal, x, want);
            all = Some(match all {
                None => eq,
                Some(a) => self.b.ins().band(a, eq),
            });
        }
        let mut row = self.b.ins().vall_true(all.expect("sixteen chunks"));
        let last = self.b.ins().extractlane(c[15], 1);
        // The step too: one near 2^64 / 31 wraps lane 31 back near lane 0, the lanes between
        // anywhere, yet every lane where (wrapping) steps lead.
        for x in [t0, k, last] {
            // -2^40 ≤ x < 2^40, as one unsigned comparison (no absolute value to overflow).
            let biased = self.b.ins().iadd_imm_s(x, 1 << 40);
            let near = self
                .b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThan, biased, 1 << 41);
            row = self.b.ins().band(row, near);
        }
        let (t0, k) = if per == 1 {
            (t0, k)
        } else {
            (
                self.b.ins().imul_imm_s(t0, per),
                self.b.ins().imul_imm_s(k, per),
            )
        };
        self.row_from(p, slot, size, (t0, k), row, (None, false, None))
    }

    /// The row whose lane 0 is element `first` and whose lanes are `k` elements apart (both
    /// `I64`), if `row`: checked against buffer `slot` and for alignment. `known`: the step,
    /// where known; `nonneg`: its first byte is known not to be negative; `below`: its lanes
    /// are a row below this loop bound ([`Tx::bounded`]), checked against the bound instead.
    fn row_from(
        &mut self,
        p: &Parts,
        slot: usize,
        size: i64,
        (first, k64): (Value, Value),
        row: Value,
        (known, nonneg, below): (Option<i64>, bool, Option<Value>),
    ) -> Row {
        let scaled = self.b.ins().imul_imm_s(first, size);
        let byte0 = self.b.ins().iadd(p.uniform, scaled);
        let step = self.b.ins().imul_imm_s(k64, size);
        let span = self.b.ins().imul_imm_s(step, 31);
        let byte31 = self.b.ins().iadd(byte0, span);
        let (lo, hi) = match known {
            Some(k) if k >= 0 => (byte0, byte31),
            Some(_) => (byte31, byte0),
            None => (
                self.b.ins().smin(byte0, byte31),
                self.b.ins().smax(byte0, byte31),
            ),
        };
        let (lo, fits, row) = match below {
            // Lanes that are a row below a loop's bound `n` lie in `[uniform, uniform + n ×
            // size)`: inside the buffer if that is, a check the same all through the loop
            // (where it fails, the lanes are checked one by one, as for any row not `ok`).
            Some(n) => {
                let n = self.b.ins().uextend(I64, n);
                let span = self.b.ins().imul_imm_s(n, size);
                let end = self.b.ins().iadd(p.uniform, span);
                let len = self.buf_len[slot];
                let fits = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, end, len);
                (p.uniform, fits, self.b.ins().iconst(I8, 1))
            }
            None => {
                let lim = self.b.ins().iadd_imm_s(self.buf_len[slot], -size);
                let fits = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, hi, lim);
                (lo, fits, row)
            }
        };
        // The lanes' parts span under 2^48 bytes (their indices are 32-bit or within ±2^40): a
        // first byte from 0 to 2^62 (one unsigned compare) keeps the last from wrapping past
        // 2^63, where it would compare as negative (a uniform offset near 2^63).
        let nonneg = if nonneg {
            self.b.ins().iconst(I8, 1)
        } else {
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThan, lo, 1 << 62)
        };
        // The lanes' part is whole elements: the uniform part alone decides the alignment
        // (and stays out of a loop that does not assign it).
        let low = self.b.ins().band_imm_s(p.uniform, size - 1);
        let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
        let starts = self.b.ins().band(row, nonneg);
        let starts = self.b.ins().band(starts, aligned);
        let ok = self.b.ins().band(starts, fits);
        let unit = self.b.ins().icmp_imm_s(IntCC::Equal, k64, 1);
        let addr = self.b.ins().iadd(self.buf_ptr[slot], byte0);
        Row {
            ok,
            starts,
            row,
            unit,
            known,
            addr,
            byte0,
            step,
        }
    }

    /// One vector load per chunk of a unit-step row at `addr` into `out` (lanes outside the
    /// mask read elements that the masked assignment then drops); a row of narrow elements is
    /// loaded 16 bytes at a time and widened to its lanes' 32 bits.
    fn load_chunks(&mut self, ty: Scalar, out: &[Variable], addr: Value) {
        if !narrow(ty) {
            for (c, var) in out.iter().enumerate() {
                let x = self
                    .b
                    .ins()
                    .load(lane_ty(ty), vmem(), addr, (c * 16) as i32);
                self.b.def_var(*var, x);
            }
            return;
        }
        let signed = matches!(ty, Scalar::I8 | Scalar::I16);
        let widen = |tx: &mut Self, x: Value| {
            if signed {
                [tx.b.ins().swiden_low(x), tx.b.ins().swiden_high(x)]
            } else {
                [tx.b.ins().uwiden_low(x), tx.b.ins().uwiden_high(x)]
            }
        };
        let bytes = ty.size() as usize;
        let mut lanes = Vec::with_capacity(C32);
        for v in 0..2 * bytes {
            let vt = if bytes == 1 { I8X16 } else { I16X8 };
            let x = self.b.ins().load(vt, vmem(), addr, (v * 16) as i32);
            let halves = if bytes == 1 {
                widen(self, x).to_vec()
            } else {
                vec![x]
            };
            for h in halves {
                lanes.extend(widen(self, h));
            }
        }
        let zero = self.zero(I32X4);
        for (var, x) in out.iter().zip(lanes) {
            // A `bool` lane is all ones or zeros, whatever non-zero byte it was.
            let x = if ty == Scalar::Bool {
                self.b.ins().icmp(IntCC::NotEqual, x, zero)
            } else {
                x
            };
            self.b.def_var(*var, x);
        }
    }

    /// Store a unit-step row of narrow elements (`vals`: their 32-bit lanes) at `addr`, each
    /// lane truncated to the element's width as a scalar store truncates.
    fn store_narrow_row(&mut self, ty: Scalar, vals: &[Value], addr: Value) {
        let keep = match ty {
            Scalar::Bool => 1,
            Scalar::I8 | Scalar::U8 => 0xff,
            _ => 0xffff,
        };
        let keep = self.b.ins().iconst(I32, keep);
        let keep = self.b.ins().splat(I32X4, keep);
        // Kept to the element's bits, no lane exceeds the unsigned narrowing's maximum.
        let lanes: Vec<Value> = vals
            .iter()
            .map(|&v| {
                let v = self.cast(I32X4, v);
                self.b.ins().band(v, keep)
            })
            .collect();
        let halves: Vec<Value> = lanes
            .chunks(2)
            .map(|p| self.b.ins().unarrow(p[0], p[1]))
            .collect();
        let rows = if ty.size() == 1 {
            halves
                .chunks(2)
                .map(|p| self.b.ins().unarrow(p[0], p[1]))
                .collect()
        } else {
            halves
        };
        for (v, x) in rows.into_iter().enumerate() {
            self.b.ins().store(vmem(), x, addr, (v * 16) as i32);
        }
    }

    /// Whether `row` is a unit-step row of shared memory whose executing lanes are inside its
    /// array, though lanes after them are not (`sdata[t + s]` in a tree's last warp): its
    /// first lane is inside, so the whole row lies within the arena's [`SLACK_WORDS`] past
    /// any array, and can be loaded as a row (the lanes past the array read bytes that the
    /// masked assignment drops).
    fn partial_row(&mut self, row: &Row, slot: usize, size: i64) -> Value {
        // A row of 8-byte lanes spans 256 bytes; it starts at most at the array's end.
        const _: () = assert!(SLACK_WORDS * 4 >= 32 * 8);
        let bits = self.cur_bits();
        // The last executing lane is 31 - clz (-1 without one).
        let lz = self.b.ins().clz(bits);
        let lz = self.b.ins().uextend(I64, lz);
        let back = self.b.ins().imul_imm_s(lz, -size);
        let end = self.b.ins().iadd(row.byte0, back);
        let end = self.b.ins().iadd_imm_s(end, 31 * size);
        // Without an executing lane the row starts at most at the array's end.
        let lim = self.b.ins().iadd_imm_s(self.buf_len[slot], -size);
        let inside = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, end, lim);
        let ok = self.b.ins().band(row.starts, row.unit);
        self.b.ins().band(ok, inside)
    }

    /// Whether `v` is a constant from zero to 2^62 (an unsigned 32-bit index of at most 16
    /// bytes an element lies less than 2^36 bytes on: its byte offset cannot wrap from there).
    fn nonneg_const(&self, v: Value) -> bool {
        let dfg = &self.b.func.dfg;
        match dfg.value_def(v) {
            ir::ValueDef::Result(inst, _) => matches!(
                dfg.insts[inst],
                ir::InstructionData::UnaryImm { opcode: ir::Opcode::Iconst, imm }
                    if (0..=1 << 62).contains(&imm.bits())
            ),
            _ => false,
        }
    }

    /// Whether every lane of the mask is set.
    fn all(&mut self, m: &[Value; C32]) -> Value {
        if self.is_full(m) {
            return self.b.ins().iconst(I8, 1);
        }
        let mut acc = m[0];
        for &x in &m[1..] {
            acc = self.b.ins().band(acc, x);
        }
        self.b.ins().vall_true(acc)
    }

    /// Read one scalar of type `ty` at `addr` into its lane form.
    fn read(&mut self, ty: Scalar, addr: Value, at: i32) -> Value {
        let ins = self.b.ins();
        match ty {
            Scalar::I8 => ins.sload8(I32, mem(), addr, at),
            Scalar::U8 => ins.uload8(I32, mem(), addr, at),
            Scalar::Bool => {
                let b = ins.uload8(I32, mem(), addr, at);
                let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, b, 0);
                let nz = self.b.ins().uextend(I32, nz);
                self.b.ins().ineg(nz)
            }
            Scalar::I16 => ins.sload16(I32, mem(), addr, at),
            Scalar::U16 => ins.uload16(I32, mem(), addr, at),
            t => ins.load(scalar_ty(t), mem(), addr, at),
        }
    }

    fn write(&mut self, ty: Scalar, v: Value, addr: Value, at: i32) {
        match ty {
            Scalar::I8 | Scalar::U8 => {
                self.b.ins().istore8(mem(), v, addr, at);
            }
            Scalar::Bool => {
                let one = self.b.ins().band_imm_s(v, 1);
                self.b.ins().istore8(mem(), one, addr, at);
            }
            Scalar::I16 | Scalar::U16 => {
                self.b.ins().istore16(mem(), v, addr, at);
            }
            _ => {
                self.b.ins().store(mem(), v, addr, at);
            }
        }
    }

    fn load(&mut self, dst: &[VarId], ty: Scalar, addr: &Addr, site: Site) -> Result<(), String> {
        let n = dst.len();
        let size = i64::from(ty.size()) * n as i64;
        let slot = slot(self.k, addr.base);
        let p = self.parts(addr);
        let lane_bytes = if ty.is_wide() { 8 } else { 4 };
        let out: Vec<Vec<Variable>> = (0..n)
            .map(|_| {
                (0..chunks(ty))
                    .map(|_| self.b.declare_var(lane_ty(ty)))
                    .collect()
            })
            .collect();
        let join = self.b.create_block();
        let row = match slot {
            Some(s) if n == 1 && (size == lane_bytes || narrow(ty)) => self.affine_row(&p, s, size),
            _ => None,
        };
        let counted_row = row.as_ref().map(|r| (r.row, r.byte0, r.step, r.known));
        if let Some(row) = row {
            let [affine, unit, strided, slow] = self.blocks();
            self.b.ins().brif(row.ok, affine, &[], slow, &[]);
            self.b.switch_to_block(affine);
            // A step known at compile time leaves the other path unreachable (and removed).
            match row.known {
                Some(1) => self.b.ins().jump(unit, &[]),
                Some(_) => self.b.ins().jump(strided, &[]),
                None => self.b.ins().brif(row.unit, unit, &[], strided, &[]),
            };
            self.b.switch_to_block(unit);
            self.load_chunks(ty, &out[0], row.addr);
            self.b.ins().jump(join, &[]);
            // Thirty-two loads at a fixed step.
            self.b.switch_to_block(strided);
            let per = per_chunk(ty);
            let mut a = row.addr;
            for var in &out[0] {
                let mut v = self.zero(lane_ty(ty));
                for l in 0..per {
                    let x = self.read(ty, a, 0);
                    v = self.b.ins().insertlane(v, x, l as u8);
                    a = self.b.ins().iadd(a, row.step);
                }
                self.b.def_var(*var, v);
            }
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(slow);
            if matches!(addr.base, Base::Shared(_) | Base::DynamicShared)
                && matches!(row.known, Some(1) | None)
            {
                let ok = self.partial_row(&row, slot.expect("a row has a buffer"), size);
                let [partial, rest] = self.blocks();
                self.b.ins().brif(ok, partial, &[], rest, &[]);
                self.b.switch_to_block(partial);
                self.load_chunks(ty, &out[0], row.addr);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(rest);
            }
        }
        // Lanes that do not execute read as zero (deterministic, whatever the stack held).
        let zero = self.zero(I32X4);
        let slots: Vec<ir::StackSlot> = (0..n)
            .map(|_| self.spill(&vec![zero; chunks(ty)]))
            .collect();
        let size1 = i64::from(ty.size());
        self.per_lane(&p, slot, (AccessKind::Load, size), site, &mut |tx, l, a| {
            let li = tx.b.ins().uextend(I64, l);
            let at = tx.b.ins().imul_imm_s(li, lane_bytes);
            for (c, ss) in slots.iter().enumerate() {
                let v = tx.read(ty, a, (c as i64 * size1) as i32);
                let base = tx.b.ins().stack_addr(I64, *ss, 0);
                let to = tx.b.ins().iadd(base, at);
                tx.b.ins().store(mem(), v, to, 0);
            }
        });
        for (ss, vars) in slots.iter().zip(&out) {
            let base = self.b.ins().stack_addr(I64, *ss, 0);
            for (c, var) in vars.iter().enumerate() {
                let x = self
                    .b
                    .ins()
                    .load(lane_ty(ty), vmem(), base, (c * 16) as i32);
                self.b.def_var(*var, x);
            }
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.count_instr(site);
        self.count_access(&p, slot, (AccessKind::Load, size), site, counted_row);
        for (d, vars) in dst.iter().zip(&out) {
            let v = V::L(vars.iter().map(|&x| self.b.use_var(x)).collect());
            // A `bool` component is loaded as its lane form already; other narrow types too.
            self.assign(*d, v)?;
        }
        Ok(())
    }

    fn store(
        &mut self,
        ty: Scalar,
        addr: &Addr,
        values: &[Operand],
        site: Site,
    ) -> Result<(), String> {
        let n = values.len();
        let size = i64::from(ty.size()) * n as i64;
        let slot = slot(self.k, addr.base);
        let p = self.parts(addr);
        let lane_bytes = if ty.is_wide() { 8 } else { 4 };
        let vals: Vec<Vec<Value>> = values
            .iter()
            .map(|o| {
                let (v, _) = self.get(o);
                self.lanes(v, ty)
            })
            .collect();
        let join = self.b.create_block();
        let shared = slot.is_some_and(|s| s >= buffers(self.k) + self.k.globals.len());
        let row = match slot {
            Some(s) if n == 1 && (size == lane_bytes || narrow(ty)) => self.affine_row(&p, s, size),
            _ => None,
        };
        let counted_row = row.as_ref().map(|r| (r.row, r.byte0, r.step, r.known));
        // Stores to a buffer only written may wait ([`queue`]); any other store to it writes
        // the waiting ones first.
        let waits = if shared { None } else { self.may_wait(slot) };
        if let Some(row) = row {
            let m = self.get_mask(self.cur);
            let full = self.all(&m);
            let [affine, unit, strided, slow] = self.blocks();
            // Global memory is written lane by lane under a partial mask (other blocks may
            // write the neighbouring words); a block's shared memory is its own, so a unit-step
            // row there is read, merged under the mask and written whole (narrow elements only
            // under a full mask).
            let go = if shared && !narrow(ty) {
                row.ok
            } else {
                self.b.ins().band(row.ok, full)
            };
            self.b.ins().brif(go, affine, &[], slow, &[]);
            self.b.switch_to_block(affine);
            // A step known at compile time leaves the other path unreachable (and removed).
            match row.known {
                Some(1) => self.b.ins().jump(unit, &[]),
                Some(_) => self.b.ins().jump(strided, &[]),
                None => self.b.ins().brif(row.unit, unit, &[], strided, &[]),
            };
            self.b.switch_to_block(unit);
            if waits.is_some() {
                self.flush();
            }
            if narrow(ty) {
                self.store_narrow_row(ty, &vals[0], row.addr);
            } else {
                let mw = self.mask_for(ty, &m);
                let full_mask = self.is_full(&m);
                for (c, &v) in vals[0].iter().enumerate() {
                    let v = if shared && !full_mask {
                        let old = self
                            .b
                            .ins()
                            .load(lane_ty(ty), vmem(), row.addr, (c * 16) as i32);
                        self.merge(mw[c], v, old)
                    } else {
                        v
                    };
                    self.b.ins().store(vmem(), v, row.addr, (c * 16) as i32);
                }
            }
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(strided);
            if shared {
                let each = self.b.create_block();
                self.b.ins().brif(full, each, &[], slow, &[]);
                self.b.switch_to_block(each);
            }
            if let Some(apart) = waits.filter(|_| per_chunk(ty) == 4 && !narrow(ty)) {
                let [queued, now] = self.blocks();
                self.b.ins().brif(apart, queued, &[], now, &[]);
                self.b.switch_to_block(queued);
                self.enqueue(&vals[0], row.addr, row.step);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(now);
            }
            let per = per_chunk(ty);
            let mut a = row.addr;
            for &v in &vals[0] {
                for l in 0..per {
                    let x = self.b.ins().extractlane(v, l as u8);
                    self.write(ty, x, a, 0);
                    a = self.b.ins().iadd(a, row.step);
                }
            }
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(slow);
        }
        if waits.is_some() {
            self.flush();
        }
        let spilled: Vec<ir::StackSlot> = vals.iter().map(|c| self.spill(c)).collect();
        let size1 = i64::from(ty.size());
        self.per_lane(
            &p,
            slot,
            (AccessKind::Store, size),
            site,
            &mut |tx, l, a| {
                let li = tx.b.ins().uextend(I64, l);
                let at = tx.b.ins().imul_imm_s(li, lane_bytes);
                for (c, ss) in spilled.iter().enumerate() {
                    let base = tx.b.ins().stack_addr(I64, *ss, 0);
                    let from = tx.b.ins().iadd(base, at);
                    let v = tx.b.ins().load(scalar_ty(ty), mem(), from, 0);
                    tx.write(ty, v, a, (c as i64 * size1) as i32);
                }
            },
        );
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.count_instr(site);
        self.count_access(&p, slot, (AccessKind::Store, size), site, counted_row);
        Ok(())
    }
}

impl Tx<'_, '_> {
    /// A shuffle within the warp: each executing lane reads the value another lane's register
    /// holds (the interpreter's source lanes, [`crate::block`]'s `ShflOp::source`), or 0 where
    /// that lane does not take part (inactive, or outside the lane's member mask), as an sm_90
    /// GPU returns.
    #[allow(clippy::too_many_arguments)]
    fn shuffle(
        &mut self,
        dst: VarId,
        ty: Scalar,
        kind: ShflKind,
        mask: Option<&Operand>,
        value: &Operand,
        lane: &Operand,
        width: &Operand,
        site: Site,
    ) -> Result<(), String> {
        let (w, wt) = self.get(width);
        let w = self.uniform(w, "a shuffle's width")?;
        let w = self.convert_scalar(w, wt, S::U32);
        // A width CUDA does not define stops the block; the interpreter names it.
        let pc = self.b.ins().popcnt(w);
        let pow2 = self.b.ins().icmp_imm_s(IntCC::Equal, pc, 1);
        let small = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, w, 32);
        let ok = self.b.ins().band(pow2, small);
        let [go, bad] = self.blocks();
        self.b.ins().brif(ok, go, &[], bad, &[]);
        self.b.switch_to_block(bad);
        let (zero, z64) = (self.b.ins().iconst(I32, 0), self.b.ins().iconst(I64, 0));
        self.fault(site, None, zero, u32::MAX, z64);
        self.b.switch_to_block(go);
        let (v, _) = self.get(value);
        let missing = self.shape.block.iter().product::<u32>() % 32;
        // The lanes taking part: executing, and named by the member mask (per lane: a mask
        // may differ between lanes, each group shuffling among its own).
        let active = self.get_mask(self.cur);
        let everyone = self.is_full(&active);
        let active = self.bits(&active);
        let full_mask = match mask {
            None => true,
            Some(Operand::Const(c)) => c.bits as u32 == u32::MAX,
            Some(_) => false,
        };
        let member = match mask {
            None => None,
            Some(m) => {
                let (m, mt) = self.get(m);
                Some(self.convert(m, mt, S::U32))
            }
        };
        let vals = match v {
            V::L(vals) => vals,
            // Every lane holds the same value and takes part: a shuffle returns it (but 0 from
            // a lane past the block's last thread, below).
            V::U(_) if missing == 0 && everyone && full_mask => return self.assign(dst, v),
            u => self.lanes(u, ty),
        };
        let member: Vec<Value> = match member {
            None => vec![active],
            Some(V::U(m)) => vec![self.b.ins().band(m, active)],
            Some(l) => {
                let chunks = self.lanes(l, S::U32);
                let av = self.b.ins().splat(I32X4, active);
                chunks.iter().map(|&c| self.b.ins().band(c, av)).collect()
            }
        };
        let (x, xt) = self.get(lane);
        let x = self.convert(x, xt, S::U32);
        let x = self.lanes(x, S::U32);
        let wm1 = self.b.ins().iadd_imm_s(w, -1);
        let wm1v = self.b.ins().splat(I32X4, wm1);
        let wv = self.b.ins().splat(I32X4, w);
        let shift = self.b.ins().ctz(w);
        let mut src = Vec::new();
        for (c, &x) in x.iter().enumerate() {
            let l = self.iota(c);
            let s = match kind {
                ShflKind::Idx => {
                    let seg = self.b.ins().band_not(l, wm1v);
                    let off = self.b.ins().band(x, wm1v);
                    self.b.ins().bor(seg, off)
                }
                ShflKind::Up => {
                    let pos = self.b.ins().band(l, wm1v);
                    let ok = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, pos, x);
                    let from = self.b.ins().isub(l, x);
                    self.b.ins().bitselect(ok, from, l)
                }
                ShflKind::Down => {
                    // `pos + x < w` without overflow: `x < w - pos`.
                    let pos = self.b.ins().band(l, wm1v);
                    let room = self.b.ins().isub(wv, pos);
                    let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, x, room);
                    let from = self.b.ins().iadd(l, x);
                    self.b.ins().bitselect(ok, from, l)
                }
                ShflKind::Xor => {
                    let s = self.b.ins().bxor(l, x);
                    let sseg = self.b.ins().ushr(s, shift);
                    let lseg = self.b.ins().ushr(l, shift);
                    let later = self.b.ins().icmp(IntCC::UnsignedGreaterThan, sseg, lseg);
                    let m31 = self.b.ins().iconst(I32, 31);
                    let m31 = self.b.ins().splat(I32X4, m31);
                    let s = self.b.ins().band(s, m31);
                    self.b.ins().bitselect(later, l, s)
                }
            };
            src.push(s);
        }
        let slot = self.spill(&vals);
        let base = self.b.ins().stack_addr(I64, slot, 0);
        let lane_bytes = if ty.is_wide() { 8 } else { 4 };
        let per = per_chunk(ty);
        let mut out: Vec<Value> = (0..chunks(ty)).map(|_| self.zero(lane_ty(ty))).collect();
        for l in 0..32 {
            let i = self.b.ins().extractlane(src[l / 4], (l % 4) as u8);
            // Within the 32 lanes by construction; masked so that no value can leave them.
            let i = self.b.ins().band_imm_s(i, 31);
            let i = self.b.ins().uextend(I64, i);
            let at = self.b.ins().imul_imm_s(i, lane_bytes);
            let at = self.b.ins().iadd(base, at);
            let x = self.b.ins().load(scalar_ty(ty), mem(), at, 0);
            // Whether the source lane takes part, by this lane's member mask.
            let part = match member.as_slice() {
                [m] => *m,
                chunks => self.b.ins().extractlane(chunks[l / 4], (l % 4) as u8),
            };
            let i32_ = self.b.ins().ireduce(I32, i);
            let bit = self.b.ins().ushr(part, i32_);
            let bit = self.b.ins().band_imm_s(bit, 1);
            let zero = self.zero(scalar_ty(ty));
            let x = self.b.ins().select(bit, x, zero);
            out[l / per] = self.b.ins().insertlane(out[l / per], x, (l % per) as u8);
        }
        if missing != 0 {
            // In the partial last warp, a source lane past the block's last thread holds no
            // register: it yields 0, as in the interpreter.
            let w = self.warp.expect("inside a region");
            let last = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, w, self.warps as i64 - 1);
            let (some, all) = (
                self.b.ins().iconst(I32, i64::from(missing)),
                self.b.ins().iconst(I32, 32),
            );
            let n = self.b.ins().select(last, some, all);
            let n = self.b.ins().splat(I32X4, n);
            let exists: [Value; C32] =
                std::array::from_fn(|c| self.b.ins().icmp(IntCC::UnsignedLessThan, src[c], n));
            let exists = self.mask_for(ty, &exists);
            for (c, m) in exists.into_iter().enumerate() {
                let z = self.zero(lane_ty(ty));
                out[c] = self.merge(m, out[c], z);
            }
        }
        self.assign(dst, V::L(out))
    }

    /// `__ballot_sync`, `__any_sync`, `__all_sync`, `__activemask`, `__reduce_*_sync`,
    /// `__match_any_sync` (and the legacy forms, whose member mask is the executing lanes).
    fn vote(
        &mut self,
        dst: VarId,
        kind: VoteKind,
        mask: Option<&Operand>,
        arg: Option<&Operand>,
        site: Site,
    ) -> Result<(), String> {
        let m = self.get_mask(self.cur);
        let active = self.bits(&m);
        let ty = self.k.vars[dst.0 as usize].ty;
        // Ballots and votes read the value's truth; reductions and matches its 32 bits.
        let truth = match arg {
            Some(a) if matches!(kind, VoteKind::Ballot | VoteKind::Any | VoteKind::All) => {
                let (v, t) = self.get(a);
                let p = self.convert(v, t, S::Bool);
                let p = self.lanes(p, S::Bool);
                let p: [Value; C32] = p.try_into().expect("eight chunks");
                Some(self.bits(&p))
            }
            _ => None,
        };
        let words = match kind {
            VoteKind::Reduce(_) | VoteKind::MatchAny => Some(self.words(arg.expect("a value"))),
            _ => None,
        };
        // The vote of the executing lanes a member mask names (`named`).
        let mut one = |tx: &mut Self, named: Value| -> V {
            let pred = truth.map_or(named, |t| tx.b.ins().band(t, named));
            let r = match kind {
                VoteKind::ActiveMask => active,
                VoteKind::Ballot => pred,
                VoteKind::Any => {
                    let c = tx.b.ins().icmp_imm_s(IntCC::NotEqual, pred, 0);
                    tx.b.ins().uextend(I32, c)
                }
                VoteKind::All => {
                    let c = tx.b.ins().icmp(IntCC::Equal, pred, named);
                    tx.b.ins().uextend(I32, c)
                }
                VoteKind::Reduce(op) => {
                    let x = words.as_ref().expect("words to combine");
                    tx.warp_reduce(op, ty == S::I32, x, named)
                }
                VoteKind::MatchAny => {
                    return V::L(tx.match_any(words.as_ref().expect("words to match"), named));
                }
            };
            if ty == S::Bool {
                let c = tx.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
                V::U(tx.b.ins().uextend(I32, c))
            } else {
                V::U(r)
            }
        };
        let r = match self.member_mask(mask) {
            None => one(self, active),
            Some(V::U(member)) => {
                let named = self.b.ins().band(active, member);
                one(self, named)
            }
            Some(V::L(masks)) => {
                let out = self.mask_groups(&masks, active, site, Some((ty, &mut one)));
                V::L(out)
            }
        };
        let lanes = self.lanes(r, ty);
        self.assign(dst, V::L(lanes))
    }

    /// A warp intrinsic's member mask as 32 bits, one for the warp (`V::U`) or per lane;
    /// `None` for the legacy intrinsics (the executing lanes).
    fn member_mask(&mut self, mask: Option<&Operand>) -> Option<V> {
        let (v, t) = self.get(mask?);
        Some(match self.convert(v, t, S::U32) {
            V::L(l) => V::L(self.lanes(V::L(l), S::U32)),
            u => u,
        })
    }

    /// Fault where a member mask differs between lanes that it names (the interpreter's
    /// check; shuffles and `__syncwarp` compute nothing from the mask in fast mode).
    fn lane_masks_agree(&mut self, mask: Option<&Operand>, site: Site) {
        if let Some(V::L(masks)) = self.member_mask(mask) {
            let m = self.get_mask(self.cur);
            let active = self.bits(&m);
            self.mask_groups(&masks, active, site, None);
        }
    }

    /// A member mask that differs between lanes (`masks`, 32 bits per lane), as the
    /// interpreter's passes: the executing lanes (`active`) grouped by the mask they pass,
    /// `each` run per group with the executing lanes its mask names, its value kept in the
    /// group's lanes (of type `ty`). Faults where a lane's mask names an executing lane that
    /// passes another one: the threads a mask names must pass the same mask (the interpreter's
    /// re-run of the block names them). A mask the same in every lane is one group.
    #[allow(clippy::type_complexity)]
    fn mask_groups(
        &mut self,
        masks: &[Value],
        active: Value,
        site: Site,
        mut each: Option<(Scalar, &mut dyn FnMut(&mut Self, Value) -> V)>,
    ) -> Vec<Value> {
        let masks: Vec<Value> = masks.iter().map(|&c| self.cast(I32X4, c)).collect();
        let spilled = self.spill(&masks);
        let out: Vec<Variable> = match &each {
            Some((ty, _)) => (0..chunks(*ty))
                .map(|_| {
                    let var = self.b.declare_var(lane_ty(*ty));
                    let z = self.zero(lane_ty(*ty));
                    self.b.def_var(var, z);
                    var
                })
                .collect(),
            None => Vec::new(),
        };
        // Group by group: the first lane left, and its mask.
        self.lane_loop(active, &mut |tx, left, l| {
            let li = tx.b.ins().uextend(I64, l);
            let at = tx.b.ins().ishl_imm_s(li, 2);
            let base = tx.b.ins().stack_addr(I64, spilled, 0);
            let at = tx.b.ins().iadd(base, at);
            let m = tx.b.ins().load(I32, mem(), at, 0);
            let sm = tx.b.ins().splat(I32X4, m);
            let same: [Value; C32] =
                std::array::from_fn(|c| tx.b.ins().icmp(IntCC::Equal, masks[c], sm));
            let same = tx.bits(&same);
            let group = tx.b.ins().band(same, active);
            let named = tx.b.ins().band(m, active);
            let stray = tx.b.ins().band_not(named, group);
            let [bad, go] = tx.blocks();
            tx.b.ins().brif(stray, bad, &[], go, &[]);
            tx.b.switch_to_block(bad);
            let z64 = tx.b.ins().iconst(I64, 0);
            tx.fault(site, None, l, u32::MAX, z64);
            tx.b.switch_to_block(go);
            if let Some((ty, f)) = &mut each {
                let v = f(tx, named);
                let v = tx.lanes(v, *ty);
                let g = tx.lanes_of_bits(group);
                let g = tx.mask_for(*ty, &g);
                for (c, var) in out.iter().enumerate() {
                    let old = tx.b.use_var(*var);
                    let x = tx.merge(g[c], v[c], old);
                    tx.b.def_var(*var, x);
                }
            }
            tx.b.ins().band_not(left, group)
        });
        out.iter().map(|&var| self.b.use_var(var)).collect()
    }

    /// The lanes of a 32-bit lane mask, as eight chunks of all-ones or zero lanes.
    fn lanes_of_bits(&mut self, bits: Value) -> [Value; C32] {
        let all = self.b.ins().splat(I32X4, bits);
        let zero = self.vconst(I32X4, [0; 16]);
        std::array::from_fn(|c| {
            let mut b = [0u8; 16];
            for l in 0..4 {
                b[4 * l..4 * l + 4].copy_from_slice(&(1u32 << (4 * c + l)).to_le_bytes());
            }
            let bit = self.vconst(I32X4, b);
            let has = self.b.ins().band(all, bit);
            self.b.ins().icmp(IntCC::NotEqual, has, zero)
        })
    }

    /// An operand's 32 bits per lane (what warp reductions and matches compare).
    fn words(&mut self, a: &Operand) -> Vec<Value> {
        let (v, t) = self.get(a);
        let v = self.convert(v, t, S::U32);
        self.lanes(v, S::U32)
    }

    /// `__match_any_sync`: per lane named in `named`, the named lanes whose 32-bit value in
    /// `x` equals its own; 0 in the others. Each lane's value is compared with the whole warp's
    /// (32 splats, eight compares each): a rare intrinsic, kept simple.
    fn match_any(&mut self, x: &[Value], named: Value) -> Vec<Value> {
        let x: Vec<Value> = x.iter().map(|&c| self.cast(I32X4, c)).collect();
        let zero = self.b.ins().iconst(I32, 0);
        let mut out = vec![self.b.ins().splat(I32X4, zero); C32];
        for l in 0..32 {
            let own = self.b.ins().extractlane(x[l / 4], (l % 4) as u8);
            let own = self.b.ins().splat(I32X4, own);
            let same: [Value; C32] =
                std::array::from_fn(|c| self.b.ins().icmp(IntCC::Equal, x[c], own));
            let same = self.bits(&same);
            let same = self.b.ins().band(same, named);
            let member = self.b.ins().ushr_imm_s(named, l as i64);
            let member = self.b.ins().band_imm_s(member, 1);
            let r = self.b.ins().select(member, same, zero);
            out[l / 4] = self.b.ins().insertlane(out[l / 4], r, (l % 4) as u8);
        }
        out
    }

    /// `__reduce_OP_sync`: the 32-bit lanes `x` of the lanes in `named` combined by `op`
    /// (`signed`: min and max compare as `int`), 0 where it names none. Lanes outside take
    /// the operation's identity, the eight chunks combine lane by lane, then their four lanes.
    fn warp_reduce(&mut self, op: WarpReduce, signed: bool, x: &[Value], named: Value) -> Value {
        let identity = match (op, signed) {
            (WarpReduce::Min, true) => i64::from(i32::MAX),
            (WarpReduce::Max, true) => i64::from(i32::MIN),
            (WarpReduce::Min, false) | (WarpReduce::And, _) => -1,
            _ => 0,
        };
        let combine = |b: &mut FunctionBuilder<'_>, x: Value, y: Value| match (op, signed) {
            (WarpReduce::Add, _) => b.ins().iadd(x, y),
            (WarpReduce::Min, true) => b.ins().smin(x, y),
            (WarpReduce::Min, false) => b.ins().umin(x, y),
            (WarpReduce::Max, true) => b.ins().smax(x, y),
            (WarpReduce::Max, false) => b.ins().umax(x, y),
            (WarpReduce::And, _) => b.ins().band(x, y),
            (WarpReduce::Or, _) => b.ins().bor(x, y),
            (WarpReduce::Xor, _) => b.ins().bxor(x, y),
        };
        let id = self.b.ins().iconst(I32, identity);
        let id = self.b.ins().splat(I32X4, id);
        let member = self.lanes_of_bits(named);
        let mut acc = None;
        for (&chunk, &member) in x.iter().zip(&member) {
            let chunk = self.cast(I32X4, chunk);
            let y = self.b.ins().bitselect(member, chunk, id);
            acc = Some(match acc {
                None => y,
                Some(a) => combine(&mut self.b, a, y),
            });
        }
        let acc = acc.expect("eight chunks");
        let l: [Value; 4] = std::array::from_fn(|i| self.b.ins().extractlane(acc, i as u8));
        let lo = combine(&mut self.b, l[0], l[1]);
        let hi = combine(&mut self.b, l[2], l[3]);
        let r = combine(&mut self.b, lo, hi);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, named, 0);
        let zero = self.b.ins().iconst(I32, 0);
        self.b.ins().select(none, zero, r)
    }

    /// An atomic read-modify-write per executing lane, in lane order: a compare-and-swap loop
    /// on the element's bits, so every operation (float ones too) is the interpreter's.
    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        dst: Option<VarId>,
        ty: Scalar,
        op: AtomicOp,
        addr: &Addr,
        a: &Operand,
        b: Option<&Operand>,
        site: Site,
    ) -> Result<(), String> {
        let size = i64::from(ty.size());
        let slot = slot(self.k, addr.base);
        let p = self.parts(addr);
        let (x, _) = self.get(a);
        let x = self.lanes(x, ty);
        let y = match b {
            Some(b) => {
                let (y, _) = self.get(b);
                self.lanes(y, ty)
            }
            None => x.clone(),
        };
        let (xs, ys) = (self.spill(&x), self.spill(&y));
        let olds = self.spill(&x);
        let int = if ty.is_wide() { I64 } else { I32 };
        self.per_lane(
            &p,
            slot,
            (AccessKind::Atomic, size),
            site,
            &mut |tx, l, at| {
                let li = tx.b.ins().uextend(I64, l);
                let off = tx.b.ins().imul_imm_s(li, size);
                let lane = |tx: &mut Self, ss: ir::StackSlot| {
                    let base = tx.b.ins().stack_addr(I64, ss, 0);
                    tx.b.ins().iadd(base, off)
                };
                let (xa, ya, oa) = (lane(tx, xs), lane(tx, ys), lane(tx, olds));
                let xv = tx.b.ins().load(int, mem(), xa, 0);
                let yv = tx.b.ins().load(int, mem(), ya, 0);
                let first = tx.b.ins().atomic_load(int, mem(), at);
                let old = tx.b.declare_var(int);
                tx.b.def_var(old, first);
                let (retry, done) = (tx.b.create_block(), tx.b.create_block());
                tx.b.ins().jump(retry, &[]);
                tx.b.switch_to_block(retry);
                let o = tx.b.use_var(old);
                let new = tx.atomic_value(op, ty, o, xv, yv);
                let seen = tx.b.ins().atomic_cas(mem(), at, o, new);
                let same = tx.b.ins().icmp(IntCC::Equal, seen, o);
                tx.b.def_var(old, seen);
                tx.b.ins().brif(same, done, &[], retry, &[]);
                tx.b.switch_to_block(done);
                tx.b.ins().store(mem(), o, oa, 0);
            },
        );
        self.count_instr(site);
        self.count_access(&p, slot, (AccessKind::Atomic, size), site, None);
        if let Some(d) = dst {
            let base = self.b.ins().stack_addr(I64, olds, 0);
            let v: Vec<Value> = (0..chunks(ty))
                .map(|c| {
                    self.b
                        .ins()
                        .load(lane_ty(ty), vmem(), base, (c * 16) as i32)
                })
                .collect();
            self.assign(d, V::L(v))?;
        }
        Ok(())
    }

    /// The value an atomic stores, from the old value and the operands (bits of `ty`).
    fn atomic_value(&mut self, op: AtomicOp, ty: Scalar, old: Value, x: Value, y: Value) -> Value {
        let int = if ty.is_wide() { I64 } else { I32 };
        if ty.is_float() {
            let ft = scalar_ty(ty);
            let f = |tx: &mut Self, v: Value| tx.b.ins().bitcast(ft, MemFlagsData::new(), v);
            let (o, a, b) = (f(self, old), f(self, x), f(self, y));
            let r = match op {
                AtomicOp::Add => self.b.ins().fadd(o, a),
                AtomicOp::Sub => self.b.ins().fsub(o, a),
                AtomicOp::Min => nan_aware(&mut self.b, &[o, a], true, true),
                AtomicOp::Max => nan_aware(&mut self.b, &[o, a], false, true),
                AtomicOp::Cas => {
                    let eq = self.b.ins().fcmp(FloatCC::Equal, o, a);
                    self.b.ins().select(eq, b, o)
                }
                _ => a,
            };
            return self.b.ins().bitcast(int, MemFlagsData::new(), r);
        }
        let signed = ty.is_signed();
        match op {
            AtomicOp::Add => self.b.ins().iadd(old, x),
            AtomicOp::Sub => self.b.ins().isub(old, x),
            AtomicOp::Min if signed => self.b.ins().smin(old, x),
            AtomicOp::Min => self.b.ins().umin(old, x),
            AtomicOp::Max if signed => self.b.ins().smax(old, x),
            AtomicOp::Max => self.b.ins().umax(old, x),
            AtomicOp::Exch => x,
            AtomicOp::And => self.b.ins().band(old, x),
            AtomicOp::Or => self.b.ins().bor(old, x),
            AtomicOp::Xor => self.b.ins().bxor(old, x),
            AtomicOp::Cas => {
                let eq = self.b.ins().icmp(IntCC::Equal, old, x);
                self.b.ins().select(eq, y, old)
            }
            AtomicOp::Inc => {
                let cc = if signed {
                    IntCC::SignedGreaterThanOrEqual
                } else {
                    IntCC::UnsignedGreaterThanOrEqual
                };
                let wrap = self.b.ins().icmp(cc, old, x);
                let next = self.b.ins().iadd_imm_s(old, 1);
                let zero = self.b.ins().iconst(int, 0);
                self.b.ins().select(wrap, zero, next)
            }
            AtomicOp::Dec => {
                let cc = if signed {
                    IntCC::SignedGreaterThan
                } else {
                    IntCC::UnsignedGreaterThan
                };
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, old, 0);
                let above = self.b.ins().icmp(cc, old, x);
                let reset = self.b.ins().bor(zero, above);
                let prev = self.b.ins().iadd_imm_s(old, -1);
                self.b.ins().select(reset, x, prev)
            }
        }
    }
}

/// `-x` for a float or a vector of floats, as an exclusive or of the sign bits.
fn flip_sign(b: &mut FunctionBuilder<'_>, x: Value) -> Value {
    let ty = b.func.dfg.value_type(x);
    let (int, lane, bit) = match ty {
        F32 => (I32, I32, i64::from(i32::MIN)),
        F64 => (I64, I64, i64::MIN),
        F32X4 => (I32X4, I32, i64::from(i32::MIN)),
        _ => (I64X2, I64, i64::MIN),
    };
    let flags = MemFlagsData::new().with_endianness(Endianness::Little);
    let bits = b.ins().bitcast(int, flags, x);
    let mut mask = b.ins().iconst(lane, bit);
    if int.is_vector() {
        mask = b.ins().splat(int, mask);
    }
    let flipped = b.ins().bxor(bits, mask);
    b.ins().bitcast(ty, flags, flipped)
}
