//! Launching a lowered CUDA kernel: binding arguments to parameters, choosing the tier that
//! runs it ([`Engine`]), running every block, collecting what the threads printed.
//!
//! Two tiers run a kernel: the interpreter (`exec/`), which runs every mode, and the compiled
//! tier (`jit/`), which runs fast and counting mode for the kernels it compiles (counting
//! through [`jit::count`]'s sink into the launch's counter). They never import each
//! other; this module picks one per launch and re-runs a block the compiled code stopped on
//! (a failed bounds check, a trap) on the interpreter, which names the fault exactly.

pub use super::exec::Printed;
use super::exec::{Exec, Outside, Plan, PrintKey, Val, format_printf};
use super::jit::count::SlotTarget;
use super::jit::{self, Buf, Compiled, Status};
use crate::block::{Block, fault};
use crate::cuda::ir::texture::Texture;
use crate::cuda::ir::{Base, Kernel, ParamKind, SHARED_WINDOW, Scalar, Stmt, TypeName};
use crate::error::{AccessFault, Error, Space};
use crate::memory::Element;
use crate::site::SiteTable;
use crate::values::frame::{self, R32, R64};
use crate::{Device, Global, LaunchConfig, LaunchReport};
use crate::{Mode, WarpOrder};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A kernel argument, as `cudaLaunchKernel` would pass it.
#[derive(Clone, Debug)]
pub enum Arg {
    /// An integer for a scalar parameter; it must fit the parameter's type (an integer also
    /// passes to a floating-point parameter, as C converts it).
    Int(i128),
    /// A number for a `float` or `double` parameter.
    Float(f64),
    /// A device buffer for a pointer parameter, of any element type: the kernel's pointee type
    /// decides how its bytes are read, as with a `cudaMalloc`ed pointer.
    Buffer(Global<u8>),
    /// A pointer that points into no device buffer: `NULL` (0), or an address no allocation
    /// holds (a host pointer passed by mistake). Passing it is fine; an access through it
    /// faults, naming the address.
    NoBuffer(u64),
    /// A struct passed by value: its bytes as C lays them out (little-endian). Its pointer
    /// fields, if any, point into no buffer (an access through one faults, naming its address):
    /// [`Arg::Struct`] binds them.
    Bytes(Vec<u8>),
    /// A struct passed by value with pointer fields: its bytes, and what each of the
    /// parameter's pointer fields ([`crate::cuda::ir::FieldPointer`], in order) points into,
    /// an [`Arg::Buffer`] or an [`Arg::NoBuffer`].
    Struct {
        /// The struct's bytes.
        bytes: Vec<u8>,
        /// One argument per pointer field.
        pointers: Vec<Arg>,
    },
    /// A texture object for a `cudaTextureObject_t` parameter: the memory it samples (texel
    /// (0, 0, 0) at its byte 0) and how.
    Texture {
        /// The texels.
        memory: Global<u8>,
        /// Their layout and sampling.
        texture: Texture,
    },
}

impl Arg {
    /// A buffer argument (`Arg::Buffer` of the buffer's bytes).
    pub fn buffer<T: Element>(g: &Global<T>) -> Arg {
        Arg::Buffer(g.cast::<u8>())
    }
}

/// Which tier runs a CUDA C kernel ([`LaunchConfig::engine`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The compiled tier where it applies (fast or counting mode, a kernel it compiles, the
    /// default warp order), else the interpreter.
    #[default]
    Auto,
    /// Always the interpreter.
    Interp,
    /// Always the compiled tier: a launch it cannot run is an error saying why.
    Jit,
}

/// Which tier ran a launch, and why when it was not the compiled one.
#[derive(Clone, Debug, PartialEq)]
pub enum Tier {
    /// The compiled tier.
    Compiled {
        /// Milliseconds the kernel's compilation took (at its first launch with this block
        /// shape).
        compile_ms: f64,
        /// Whether this launch took it from the cache (compiled by an earlier launch).
        cached: bool,
    },
    /// The interpreter, and why.
    Interpreted {
        /// Why the compiled tier did not run it.
        reason: String,
    },
}

/// What a launch of a CUDA kernel reports.
#[derive(Clone, Debug)]
pub struct CudaReport {
    /// The launch: counters, metrics, check-mode findings, time.
    pub launch: LaunchReport,
    /// What the threads printed, block by block (in linear block order), warp by warp; within
    /// a warp, `printf` statement by statement, lanes in order, as a GPU usually prints.
    pub printed: Vec<Printed>,
    /// The tier that ran it.
    pub tier: Tier,
    /// In a launch that tolerates accesses a little outside a buffer
    /// ([`LaunchConfig::tolerate_out_of_bounds`]): per source line that made one, the first
    /// of the lowest block that did, in line order.
    pub outside: Vec<AccessFault>,
}

impl CudaReport {
    /// Everything printed, concatenated (what the program's standard output would show).
    pub fn stdout(&self) -> String {
        self.printed.iter().map(|p| p.text.as_str()).collect()
    }
}

/// Launch a lowered kernel on `dev` with `args`, one per parameter in order.
///
/// The launch counts, checks and faults exactly as a Rust kernel's [`Device::launch`] does
/// (`cfg` picks the mode, the orders and per-line counters); every counted operation and every
/// error names its line in the `.cu` source. Arguments that do not match the parameters are an
/// [`Error::InvalidLaunch`] naming the parameter, before anything runs. Its `__constant__` and
/// `__device__` variables start from their initializers; a kernel that fetches through a
/// texture reference needs [`launch_with`], which binds one.
///
/// ```
/// use warpsim::cuda::{self, Arg, Module, Options};
/// use warpsim::{Device, LaunchConfig};
///
/// let module = Module::from_source(
///     "scale.cu",
///     "__global__ void scale(float *x, float k, int n) {
///          int i = blockIdx.x * blockDim.x + threadIdx.x;
///          if (i < n) x[i] *= k;
///      }",
///     &Options::default(),
/// )?;
/// let kernel = module.lower("scale")?;
/// let dev = Device::default();
/// let x = dev.alloc_from("x", &[1.0f32, 2.0, 3.0]);
/// let cfg = LaunchConfig::new(1, 32);
/// cuda::launch(&dev, &kernel, &cfg, &[Arg::buffer(&x), Arg::Float(2.0), Arg::Int(3)])?;
/// assert_eq!(x.to_vec(), [2.0, 4.0, 6.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn launch(
    dev: &Device,
    kernel: &Kernel,
    cfg: &LaunchConfig,
    args: &[Arg],
) -> Result<CudaReport, Error> {
    let globals: Vec<Global<u8>> = kernel
        .globals
        .iter()
        .map(|g| {
            if g.constant {
                dev.alloc_constant(&g.name, &g.init)
            } else {
                dev.alloc_from(&g.name, &g.init)
            }
        })
        .collect();
    launch_with(dev, kernel, cfg, args, &globals, &vec![None; globals.len()])
}

/// [`launch`] with the memory of the kernel's `__constant__` and `__device__` variables given:
/// `globals[k]` holds [`Kernel::globals`]`[k]` (a program keeps them from launch to launch),
/// and `references[k]` the [`Arg::Texture`] bound to it where it is a texture reference
/// ([`crate::cuda::ir::GlobalVar::texture`]; `None` where nothing is bound, and for every
/// other variable). A kernel that fetches through a texture reference bound to nothing is
/// refused ([`Error::InvalidLaunch`], naming the reference and the fetch's line).
///
/// # Panics
/// If `globals` and `references` do not have one entry per variable.
pub fn launch_with(
    dev: &Device,
    kernel: &Kernel,
    cfg: &LaunchConfig,
    args: &[Arg],
    globals: &[Global<u8>],
    references: &[Option<Arg>],
) -> Result<CudaReport, Error> {
    assert!(
        globals.len() == kernel.globals.len() && references.len() == kernel.globals.len(),
        "launch_with: one buffer and one texture binding per __constant__/__device__ variable of `{}`",
        kernel.name
    );
    let (vals, buffers, param_textures) = bind(dev, kernel, args, &cfg.name)?;
    let textures = jit::texture::Textures {
        params: param_textures,
        globals: bind_references(kernel, references, &cfg.name)?,
    };
    let watchdog = Watchdog::start(cfg);
    let outside: Outside = Mutex::new(Vec::new());
    let tolerant = cfg.tolerate_out_of_bounds && cfg.mode != crate::Mode::Check;
    let plan = Plan::new(
        kernel,
        buffers
            .iter()
            .map(|b| b.as_ref().map(|r| r.as_ref().map_err(|a| *a)))
            .collect(),
        &textures,
        globals.iter().collect(),
        cfg.timeout.map(|t| (watchdog.fired(), t.as_secs_f64())),
        tolerant.then_some(&outside),
    );
    let printed: Mutex<Vec<(PrintKey, Printed)>> = Mutex::new(Vec::new());
    let sites = SiteTable(kernel.files.clone());
    // A shape the device refuses is reported before anything is compiled for it.
    dev.validate(cfg)?;
    let p = dev.profile();
    let warp_banks = p.shared_banks == 32 && p.shared_request_lanes == 32;
    let (compiled, tier) = choose(kernel, cfg, dev.counts_lines(cfg), warp_banks)?;
    let reach = footprint(
        buffers
            .iter()
            .filter_map(|b| b.as_ref().and_then(|r| r.as_ref().ok()))
            .chain(globals.iter().filter(|g| !g.is_constant())),
    );
    let static_shared = kernel.shared.iter().map(|s| s.bytes).sum::<u32>();
    let launch = match compiled.as_deref() {
        Some(Ok(c)) => {
            let uniforms: Vec<u64> = vals.iter().map(bits).collect();
            // A pointer into no buffer keeps its address (comparisons read it); every access
            // through it faults.
            let mut bufs: Vec<Buf> = buffers
                .iter()
                .map(|b| match b {
                    Some(Ok(g)) => g.raw_slack(tolerant),
                    Some(Err(address)) => Buf {
                        address: *address,
                        ..Buf::NONE
                    },
                    None => Buf::NONE,
                })
                .collect();
            bufs.extend(globals.iter().map(|g| g.raw_slack(tolerant)));
            // What counting tells apart about each buffer slot (the shared ones per block).
            let targets: Vec<SlotTarget<'_>> = buffers
                .iter()
                .map(|b| b.as_ref().and_then(|r| r.as_ref().ok()))
                .chain(globals.iter().map(Some))
                .map(|g| SlotTarget {
                    space: Space::Global,
                    constant: g.is_some_and(|g| g.is_constant()),
                    name: g.map_or("", |g| g.name()),
                    base: g.map_or(0, |g| g.address()),
                    bytes: g.map_or(0, |g| g.raw().len),
                })
                .collect();
            let slots = std::sync::OnceLock::new();
            dev.launch_with_sites(cfg, sites, (Some(reach), static_shared), |b| {
                watchdog.between_blocks(b);
                let run = Run {
                    c,
                    kernel,
                    bufs: &bufs,
                    targets: &targets,
                    slots: &slots,
                    uniforms: &uniforms,
                    fired: watchdog.fired(),
                    limit: watchdog.seconds,
                    printed: &printed,
                    textures: &textures,
                    outside: &outside,
                };
                run.block(b, |b| Exec::run(kernel, b, &plan, &vals, &printed))
            })?
        }
        _ => dev.launch_with_sites(cfg, sites, (Some(reach), static_shared), |b| {
            watchdog.between_blocks(b);
            Exec::run(kernel, b, &plan, &vals, &printed);
        })?,
    };
    let mut printed = printed.into_inner().unwrap_or_else(|p| p.into_inner());
    printed.sort_by_key(|(key, _)| *key);
    Ok(CudaReport {
        launch,
        printed: printed.into_iter().map(|(_, p)| p).collect(),
        tier,
        outside: first_per_line(outside.into_inner().unwrap_or_else(|p| p.into_inner())),
    })
}

/// Per source line, the access of the lowest block (the first a block noted there): the
/// same for any thread count and on both tiers' blocks.
fn first_per_line(mut noted: Vec<(u64, AccessFault)>) -> Vec<AccessFault> {
    noted.sort_by(|(a, f), (b, g)| (a, &f.location).cmp(&(b, &g.location)));
    let mut out: Vec<AccessFault> = Vec::new();
    for (_, f) in noted {
        if !out.iter().any(|o| o.location == f.location) {
            out.push(f);
        }
    }
    out.sort_by(|a, b| a.location.cmp(&b.location));
    out
}

/// Bytes covered by `buffers` (pointer arguments into one allocation count once).
fn footprint<'a>(buffers: impl Iterator<Item = &'a Global<u8>>) -> u64 {
    let mut spans: Vec<(u64, u64)> = buffers
        .map(|g| (g.address(), g.address() + g.raw().len))
        .collect();
    spans.sort_unstable();
    let (mut total, mut reached) = (0, 0);
    for (start, end) in spans {
        let start = start.max(reached);
        if end > start {
            total += end - start;
            reached = end;
        }
    }
    total
}

/// What [`choose`] picks: the compiled kernel, where the compiled tier runs it, and the tier.
type Choice = (Option<std::sync::Arc<Result<Compiled, String>>>, Tier);

/// The compiled kernel for this launch (`lines`: whether it counts per line; `warp_banks`:
/// [`jit::Shape::warp_banks`]), if the compiled tier runs it, and the tier.
fn choose(
    kernel: &Kernel,
    cfg: &LaunchConfig,
    lines: bool,
    warp_banks: bool,
) -> Result<Choice, Error> {
    let refuse = |reason: &str| -> Result<Choice, Error> {
        if cfg.engine == Engine::Jit {
            return Err(Error::Unsupported {
                kernel: cfg.name.clone(),
                reason: format!(
                    "the compiled tier cannot run this launch: {reason} (--engine auto runs it \
                     on the interpreter)"
                ),
            });
        }
        Ok((
            None,
            Tier::Interpreted {
                reason: reason.to_string(),
            },
        ))
    };
    if cfg.engine == Engine::Interp {
        return refuse("the interpreter was asked for");
    }
    if cfg.mode == Mode::Check {
        return refuse("check mode runs on the interpreter");
    }
    if cfg.warp_order != WarpOrder::default() {
        return refuse("a warp order other than the default runs on the interpreter");
    }
    let shape = jit::Shape {
        block: [cfg.block.x, cfg.block.y, cfg.block.z],
        count: cfg.mode == Mode::Count,
        lines: cfg.mode == Mode::Count && lines,
        warp_banks: cfg.mode == Mode::Count && warp_banks,
    };
    let (c, fresh) = jit::compiled(kernel, shape);
    match c.as_ref() {
        Ok(k) => {
            let tier = Tier::Compiled {
                compile_ms: k.compile_ms,
                cached: !fresh,
            };
            Ok((Some(c.clone()), tier))
        }
        Err(reason) => refuse(reason),
    }
}

/// A launch value as the bits compiled code reads (the low bytes for 32-bit types).
fn bits(v: &Val) -> u64 {
    match v {
        Val::W(r) => r.as_uniform().map_or(0, u64::from),
        Val::D(d) => d.as_uniform().unwrap_or(0),
        Val::B(b) => u64::from(*b),
        Val::P(_) => 0,
    }
}

/// What every block of a compiled launch shares.
struct Run<'a> {
    c: &'a Compiled,
    kernel: &'a Kernel,
    bufs: &'a [Buf],
    /// Each buffer slot before the shared ones, as counting sees it.
    targets: &'a [SlotTarget<'a>],
    /// Every buffer slot as counting sees it, made at the launch's first counted block.
    slots: &'a std::sync::OnceLock<Vec<SlotTarget<'a>>>,
    uniforms: &'a [u64],
    fired: &'a AtomicBool,
    /// The time limit in seconds (for the message).
    limit: f64,
    /// The launch's printed lines.
    printed: &'a Mutex<Vec<(PrintKey, Printed)>>,
    /// The launch's texture objects.
    textures: &'a jit::texture::Textures,
    /// Where the blocks note accesses outside within a buffer's slack.
    outside: &'a Outside,
}

impl Run<'_> {
    /// Run one block on the compiled code; a block it stops on runs again on the interpreter
    /// (`interpret`), which reports the fault with its location.
    fn block(&self, b: &mut Block<'_>, interpret: impl FnOnce(&mut Block<'_>)) {
        // The buffer table of a block: the launch's, then this block's shared memory (one
        // vector per CPU thread, reused from block to block).
        thread_local! {
            static BUFS: std::cell::RefCell<Vec<Buf>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        BUFS.with_borrow_mut(|bufs| {
            bufs.clear();
            bufs.extend_from_slice(self.bufs);
            self.block_with(b, bufs, interpret)
        })
    }

    fn block_with(
        &self,
        b: &mut Block<'_>,
        bufs: &mut Vec<Buf>,
        interpret: impl FnOnce(&mut Block<'_>),
    ) {
        let kernel = self.kernel;
        for s in &kernel.shared {
            match b.st.arena.declare(s.bytes as usize, 1) {
                Ok(off) => bufs.push(Buf {
                    ptr: b.st.arena.words.as_mut_ptr() as usize + off,
                    len: u64::from(s.bytes),
                    address: SHARED_WINDOW + off as u64,
                    slack: 0,
                }),
                // The interpreter reports it.
                Err(_) => {
                    b.st.arena.reset(0);
                    return interpret(b);
                }
            }
        }
        bufs.push(Buf {
            ptr: b.st.arena.words.as_mut_ptr() as usize,
            len: b.st.arena.dynamic_bytes() as u64,
            address: SHARED_WINDOW,
            slack: 0,
        });
        let d = |d: crate::Dim3| [d.x, d.y, d.z];
        let c = self.c;
        let (block_idx, grid_dim) = (d(b.block_idx()), d(b.grid_dim()));
        // Per CPU thread, reused: what the block's `printf`s printed.
        thread_local! {
            static PRINTS: std::cell::RefCell<jit::print::Prints> =
                std::cell::RefCell::new(jit::print::Prints::default());
        }
        let (status, f, outside) = PRINTS.with_borrow_mut(|prints| {
            let run = if c.count_sites.is_empty() || b.st.count.is_none() {
                c.run(
                    (block_idx, grid_dim),
                    bufs,
                    self.uniforms,
                    self.fired,
                    None,
                    (prints, self.textures),
                )
            } else {
                self.counted(b, bufs, |counting| {
                    c.run(
                        (block_idx, grid_dim),
                        bufs,
                        self.uniforms,
                        self.fired,
                        Some(counting),
                        (prints, self.textures),
                    )
                })
            };
            // A block that faulted prints when the interpreter runs it again.
            if run.0 != Status::Fault && !prints.lines.is_empty() {
                self.printed(b, prints);
            }
            run
        });
        let (site, access) = c.sites.get(f.site as usize).copied().unwrap_or_default();
        // Formatted only for a block that stopped (it costs more than a small block runs).
        let location = |b: &Block<'_>| {
            b.launch
                .sites
                .position(crate::site::Site::packed(site.file, site.line, site.col))
                .map(|p| p.to_string())
        };
        for o in &outside {
            let (site, access) = c.sites.get(o.site as usize).copied().unwrap_or_default();
            let location = b
                .launch
                .sites
                .position(crate::site::Site::packed(site.file, site.line, site.col))
                .map(|p| p.to_string());
            if let Some(a) = access {
                let f = self.access_detail(b, bufs, o, a, location);
                let linear = b.st.idx.linear_in(b.launch.grid);
                self.outside
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((linear, *f));
            }
        }
        match status {
            Status::Done => {}
            Status::Timeout => fault(Error::Timeout {
                kernel: b.launch.name.clone(),
                block: b.st.idx,
                seconds: self.limit,
                looping: true,
                location: location(b),
            }),
            Status::Fault => {
                b.st.arena.reset(0);
                interpret(b);
                // The interpreter finished the block where the compiled code stopped (the
                // compiled code's writes before the fault changed what it read): report what
                // the compiled code saw.
                let location = location(b);
                let what = match access {
                    Some(a) => self.access_fault(b, bufs, &f, a, location),
                    None => Error::Unsupported {
                        kernel: b.launch.name.clone(),
                        reason: format!(
                            "the compiled code stopped block {} thread {}{}, where the \
                             interpreter's re-run of the block did not; run it with --engine \
                             interp",
                            b.st.idx,
                            b.thread_of(f.warp, f.lane),
                            location.map_or(String::new(), |l| format!(" at {l}"))
                        ),
                    },
                };
                fault(what)
            }
        }
    }

    /// Add what block `b`'s `printf`s printed to the launch's output, formatted as the
    /// interpreter formats it.
    fn printed(&self, b: &Block<'_>, prints: &jit::print::Prints) {
        let linear = b.st.idx.linear_in(b.launch.grid);
        let lines = prints.lines.iter().filter_map(|l| {
            let (format, types) = self.c.printfs.get(l.id as usize)?;
            let args: Vec<(u64, Scalar)> =
                l.args.iter().copied().zip(types.iter().copied()).collect();
            Some((
                (linear, l.warp, l.seq as usize, l.lane),
                Printed {
                    block: b.st.idx,
                    thread: b.thread_of(l.warp, l.lane),
                    text: format_printf(format, &args),
                },
            ))
        });
        let mut out = self.printed.lock().unwrap_or_else(|p| p.into_inner());
        out.extend(lines);
    }

    /// Run `f` with a sink for block `b`'s counts and the worker's pending counts (made at its
    /// first block, kept in its counter from block to block).
    fn counted<R>(
        &self,
        b: &mut Block<'_>,
        bufs: &[Buf],
        f: impl FnOnce((&mut jit::count::Sink<'_>, &mut jit::count::Pending)) -> R,
    ) -> R {
        // Every block lays out its shared memory alike: the first one's layout serves all.
        let slots = self.slots.get_or_init(|| {
            let arena = bufs.last().map_or(0, |d| d.ptr);
            let names = self
                .kernel
                .shared
                .iter()
                .map(|s| s.name.as_str())
                .chain(["extern __shared__"]);
            let shared = bufs[self.targets.len()..]
                .iter()
                .zip(names)
                .map(|(buf, name)| SlotTarget {
                    space: Space::Shared,
                    constant: false,
                    name,
                    base: (buf.ptr - arena) as u64,
                    bytes: buf.len,
                });
            self.targets.iter().copied().chain(shared).collect()
        });
        let banks = b.launch.bank_geometry();
        let count = b.st.count.as_mut().expect("a counting launch");
        // Out of the counter while the block runs: the compiled code writes it, the sink holds
        // the counter. The worker's first block makes it (a worker's counter serves one launch).
        let deferred: Option<Box<dyn std::any::Any>> = count.deferred.take().map(|d| d as _);
        let mut pending = match deferred.and_then(|d| d.downcast().ok()) {
            Some(p) => p,
            None => Box::new(self.c.pending(
                frame::with(|fr| {
                    self.c
                        .count_sites
                        .iter()
                        .map(|s| {
                            let at = crate::site::Site::packed(s.file, s.line, s.col);
                            (fr.site_index(at), at)
                        })
                        .collect()
                }),
                slots,
            )),
        };
        let sites = std::mem::take(&mut pending.sites);
        let mut sink = jit::count::Sink {
            count,
            sites: &sites,
            accesses: &self.c.accesses,
            slots,
            banks,
            replayed: Vec::new(),
        };
        let r = f((&mut sink, &mut pending));
        pending.sites = sites;
        count.deferred = Some(pending);
        r
    }

    /// The error of an access the compiled code found outside its buffer or misaligned.
    fn access_fault(
        &self,
        b: &Block<'_>,
        bufs: &[Buf],
        f: &jit::FaultSite,
        access: jit::Access,
        location: Option<String>,
    ) -> Error {
        let size = i64::from(access.1);
        let slot = f.slot as usize;
        let detail = self.access_detail(b, bufs, f, access, location);
        if f.byte.rem_euclid(size) != 0 {
            Error::Misaligned(detail)
        } else if bufs.get(slot).is_none_or(|d| d.ptr == 0) {
            Error::InvalidAddress(detail)
        } else {
            Error::OutOfBounds(detail)
        }
    }

    /// Who made an access the compiled code noted, where, at which address.
    fn access_detail(
        &self,
        b: &Block<'_>,
        bufs: &[Buf],
        f: &jit::FaultSite,
        (access, size): jit::Access,
        location: Option<String>,
    ) -> Box<AccessFault> {
        let k = self.kernel;
        let slot = f.slot as usize;
        let globals = self.targets.len();
        let shared = globals + k.shared.len();
        let (buffer, space, address) = if slot < globals {
            let name = if slot < globals - k.globals.len() {
                k.buffer_name(f.slot)
            } else {
                k.globals[slot - (globals - k.globals.len())].name.clone()
            };
            let address = bufs.get(slot).map_or(0, |d| d.address);
            let address = address.wrapping_add(f.byte as u64);
            (name, Space::Global, address)
        } else {
            let name = if slot < shared {
                k.shared[slot - globals].name.clone()
            } else {
                "extern __shared__".to_string()
            };
            let arena = bufs.last().map_or(0, |d| d.ptr);
            let at = bufs.get(slot).map_or(0, |d| d.ptr - arena) as u64;
            (name, Space::Shared, at.wrapping_add(f.byte as u64))
        };
        Box::new(AccessFault {
            kernel: b.launch.name.clone(),
            block: b.st.idx,
            thread: b.thread_of(f.warp, f.lane),
            space,
            access,
            buffer,
            index: f.byte.div_euclid(i64::from(size)) as u64,
            len: bufs.get(slot).map_or(0, |d| d.len / u64::from(size)),
            address,
            elem_bytes: size,
            location,
        })
    }
}

/// Raises a flag when a launch runs past its time limit; the tiers' loops check it, and the
/// launch before each block (a grid of a billion loop-free blocks must stop too). With
/// [`LaunchConfig::progress`] it also says on stderr how many blocks have started, first after
/// [`PROGRESS_AFTER`], then every [`PROGRESS_EVERY`].
struct Watchdog {
    fired: Arc<AtomicBool>,
    /// Blocks started so far.
    started: Arc<AtomicU64>,
    /// The limit in seconds (0 without one).
    seconds: f64,
    done: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How long a launch runs before [`LaunchConfig::progress`] first reports it.
pub const PROGRESS_AFTER: Duration = Duration::from_secs(3);
/// How often it reports again.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(10);

impl Watchdog {
    fn start(cfg: &LaunchConfig) -> Watchdog {
        let fired = Arc::new(AtomicBool::new(false));
        let started = Arc::new(AtomicU64::new(0));
        let done = Arc::new((Mutex::new(false), Condvar::new()));
        let limit = cfg.timeout;
        let report = cfg.progress.then(|| (cfg.name.clone(), cfg.grid.count()));
        let thread = (limit.is_some() || report.is_some()).then(|| {
            let (fired, started, done) =
                (Arc::clone(&fired), Arc::clone(&started), Arc::clone(&done));
            std::thread::spawn(move || {
                let t0 = std::time::Instant::now();
                let mut next_report = PROGRESS_AFTER;
                let (lock, cv) = &*done;
                let mut finished = lock.lock().unwrap_or_else(|p| p.into_inner());
                loop {
                    let now = t0.elapsed();
                    let wake = match (limit, &report) {
                        (Some(l), Some(_)) => l.min(next_report),
                        (Some(l), None) => l,
                        (None, _) => next_report,
                    };
                    let (f, _) = cv
                        .wait_timeout_while(finished, wake.saturating_sub(now), |f| !*f)
                        .unwrap_or_else(|p| p.into_inner());
                    finished = f;
                    if *finished {
                        return;
                    }
                    let now = t0.elapsed();
                    if limit.is_some_and(|l| now >= l) {
                        fired.store(true, Ordering::Relaxed);
                        return;
                    }
                    if let Some((name, total)) = &report
                        && now >= next_report
                    {
                        eprintln!(
                            "==warpsim== `{name}` has run {:.0} s: {} of {total} blocks started{}",
                            now.as_secs_f64(),
                            started.load(Ordering::Relaxed).min(*total),
                            if limit.is_none() && next_report == PROGRESS_AFTER {
                                " (--timeout SECONDS stops a kernel that does not finish)"
                            } else {
                                ""
                            }
                        );
                        next_report += PROGRESS_EVERY;
                    }
                }
            })
        });
        Watchdog {
            fired,
            started,
            seconds: limit.map_or(0.0, |t| t.as_secs_f64()),
            done,
            thread,
        }
    }

    fn fired(&self) -> &AtomicBool {
        &self.fired
    }

    /// Stop the launch at block `b`, before it starts, if the limit has passed.
    fn between_blocks(&self, b: &Block<'_>) {
        self.started.fetch_add(1, Ordering::Relaxed);
        if self.fired.load(Ordering::Relaxed) {
            fault(Error::Timeout {
                kernel: b.launch.name.clone(),
                block: b.st.idx,
                seconds: self.seconds,
                looping: false,
                location: None,
            });
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let (lock, cv) = &*self.done;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cv.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The values of a launch's parameters, then of its struct parameters' fields and of their
/// pointer fields' offsets; what its pointer parameters, then the pointer fields, point into
/// (a buffer, or an address in no buffer); and each texture parameter's texture object.
type Bound = (
    Vec<Val>,
    Vec<Option<Result<Global<u8>, u64>>>,
    Vec<jit::texture::Sampled>,
);

/// Why texture object `texture` over `memory` cannot be sampled, if it cannot.
fn unusable(texture: &Texture, memory: &Global<u8>) -> Option<String> {
    texture.invalid().or_else(|| {
        (texture.bytes() > memory.len() as u64).then(|| {
            format!(
                "a texture of {} bytes over memory of {}",
                texture.bytes(),
                memory.len()
            )
        })
    })
}

/// The texture objects bound to the kernel's texture references, by [`Kernel::globals`]
/// index: a reference the kernel fetches through must be bound to a usable one.
fn bind_references(
    kernel: &Kernel,
    references: &[Option<Arg>],
    launch_name: &str,
) -> Result<Vec<jit::texture::Sampled>, Error> {
    let mut out = Vec::with_capacity(kernel.globals.len());
    for (k, (g, bound)) in kernel.globals.iter().zip(references).enumerate() {
        if !g.texture {
            out.push(None);
            continue;
        }
        let at = |site: crate::cuda::ir::Site| {
            let file = kernel
                .files
                .get(site.file as usize)
                .map_or("", |f| f.as_str());
            format!("{file}:{}", site.line)
        };
        let wrong = |why: String| Error::InvalidLaunch {
            kernel: launch_name.to_string(),
            reason: format!(
                "texture reference `{}` (declared at {}, fetched at {}) {why}",
                g.name,
                at(g.site),
                fetch_site(&kernel.body, k as u32).map_or_else(|| "no line".into(), at)
            ),
        };
        match bound {
            Some(Arg::Texture { memory, texture }) => {
                if let Some(why) = unusable(texture, memory) {
                    return Err(wrong(format!("is bound to {why}")));
                }
                out.push(Some((memory.clone(), *texture)));
            }
            _ => {
                return Err(wrong(
                    "is bound to nothing: bind it (cudaBindTexture, cudaBindTexture2D or \
                     cudaBindTextureToArray) before the launch"
                        .into(),
                ));
            }
        }
    }
    Ok(out)
}

/// The site of the first fetch in `body` through texture reference `global`.
fn fetch_site(body: &[Stmt], global: u32) -> Option<crate::cuda::ir::Site> {
    body.iter().find_map(|s| match s {
        Stmt::Texture { texture, site, .. } if *texture == Base::Global(global) => Some(*site),
        other => other
            .children()
            .into_iter()
            .find_map(|c| fetch_site(c, global)),
    })
}

fn bind(dev: &Device, kernel: &Kernel, args: &[Arg], launch_name: &str) -> Result<Bound, Error> {
    let wrong = |reason: String| Error::InvalidLaunch {
        kernel: launch_name.to_string(),
        reason,
    };
    if args.len() != kernel.params.len() {
        let names: Vec<String> = kernel.params.iter().map(describe).collect();
        return Err(wrong(format!(
            "`{}` takes {} argument{} ({}), the launch passed {}",
            kernel.name,
            kernel.params.len(),
            if kernel.params.len() == 1 { "" } else { "s" },
            names.join(", "),
            args.len()
        )));
    }
    let mut vals = Vec::new();
    let mut fields = Vec::new();
    let mut buffers = Vec::new();
    let mut textures = vec![None; kernel.params.len()];
    // Struct parameters' pointer fields, bound after the parameters.
    let (mut field_offsets, mut field_buffers) = (Vec::new(), Vec::new());
    let mut param_bytes = Vec::new();
    for (p, a) in kernel.params.iter().zip(args) {
        let mismatch = || {
            wrong(format!(
                "argument `{}` is {}, the launch passed {}",
                p.name,
                describe(p),
                match a {
                    Arg::Int(_) => "an integer",
                    Arg::Float(_) => "a floating-point number",
                    Arg::Buffer(_) | Arg::NoBuffer(_) => "a pointer",
                    Arg::Bytes(_) | Arg::Struct { .. } => "struct bytes",
                    Arg::Texture { .. } => "a texture object",
                }
            ))
        };
        let is_texture = matches!(
            p.kind,
            ParamKind::Pointer {
                elem: TypeName::Texture,
                ..
            }
        );
        match (&p.kind, a) {
            (ParamKind::Pointer { .. }, Arg::Texture { memory, texture }) if is_texture => {
                if let Some(why) = unusable(texture, memory) {
                    return Err(wrong(format!("argument `{}` is {why}", p.name)));
                }
                vals.push(Val::D(R64::uniform(0)));
                buffers.push(Some(Ok(memory.clone())));
                textures[buffers.len() - 1] = Some((memory.clone(), *texture));
            }
            (ParamKind::Pointer { .. }, _) if is_texture => return Err(mismatch()),
            (ParamKind::Scalar { ty, .. }, Arg::Int(i)) => {
                vals.push(scalar(*ty, *i).ok_or_else(|| {
                    wrong(format!(
                        "argument `{}` ({ty}) cannot hold {i}: pass a value it holds, or declare \
                         the parameter wider",
                        p.name
                    ))
                })?);
                buffers.push(None);
            }
            (ParamKind::Scalar { ty, .. }, Arg::Float(x)) if ty.is_float() => {
                vals.push(float(*ty, *x));
                buffers.push(None);
            }
            (ParamKind::Pointer { .. }, Arg::Buffer(_) | Arg::NoBuffer(_)) => {
                let (offset, buffer) = pointer(a);
                vals.push(offset);
                buffers.push(Some(buffer));
            }
            (
                ParamKind::Struct {
                    size,
                    fields: fs,
                    name,
                    pointers,
                    bytes: copy,
                },
                Arg::Bytes(bytes) | Arg::Struct { bytes, .. },
            ) => {
                if bytes.len() != *size as usize {
                    return Err(wrong(format!(
                        "argument `{}` is a `{name}` of {size} bytes, the launch passed {} bytes",
                        p.name,
                        bytes.len()
                    )));
                }
                for &(offset, ty, _) in fs {
                    let at = offset as usize;
                    let mut raw = [0u8; 8];
                    raw[..ty.size() as usize].copy_from_slice(&bytes[at..at + ty.size() as usize]);
                    fields.push(from_bits(ty, u64::from_le_bytes(raw)));
                }
                let given = match a {
                    Arg::Struct {
                        pointers: given, ..
                    } => given.as_slice(),
                    _ => &[],
                };
                if !given.is_empty() && given.len() != pointers.len() {
                    return Err(wrong(format!(
                        "argument `{}` has {} pointer field(s), the launch bound {}",
                        p.name,
                        pointers.len(),
                        given.len()
                    )));
                }
                for (k, fp) in pointers.iter().enumerate() {
                    let at = fp.at as usize;
                    let address = u64::from_le_bytes(
                        bytes[at..at + 8]
                            .try_into()
                            .expect("a pointer field is 8 bytes"),
                    );
                    let field = given.get(k).unwrap_or(&Arg::NoBuffer(address)).clone();
                    if !matches!(field, Arg::Buffer(_) | Arg::NoBuffer(_)) {
                        return Err(wrong(format!(
                            "pointer field {k} of argument `{}` needs a buffer",
                            p.name
                        )));
                    }
                    let (offset, buffer) = pointer(&field);
                    field_offsets.push(offset);
                    field_buffers.push(Some(buffer));
                }
                if let Some(slot) = copy {
                    param_bytes.push((*slot, dev.alloc_constant(&p.name, bytes)));
                }
                vals.push(Val::D(R64::uniform(0)));
                buffers.push(None);
            }
            _ => return Err(mismatch()),
        }
    }
    vals.extend(fields);
    vals.extend(field_offsets);
    buffers.extend(field_buffers);
    // Struct parameters' bytes, read at run-time offsets: after every pointer field's slot.
    for (slot, g) in param_bytes {
        let slot = slot as usize;
        if buffers.len() <= slot {
            buffers.resize(slot + 1, None);
        }
        buffers[slot] = Some(Ok(g));
    }
    textures.resize(buffers.len(), None);
    Ok((vals, buffers, textures))
}

/// A pointer argument's offset value and what it points into. The pointer is the whole
/// allocation plus an offset, as on a GPU: a view into its middle (`d + 1` from the host) may be
/// indexed backwards.
fn pointer(a: &Arg) -> (Val, Result<Global<u8>, u64>) {
    match a {
        Arg::Buffer(g) => {
            let (whole, offset) = g.whole();
            (Val::D(R64::uniform(offset as u64)), Ok(whole))
        }
        Arg::NoBuffer(address) => (Val::D(R64::uniform(0)), Err(*address)),
        _ => unreachable!("only pointer arguments"),
    }
}

/// How a parameter reads in a message: `float *x`, `int n`.
fn describe(p: &crate::cuda::ir::Param) -> String {
    match &p.kind {
        ParamKind::Scalar { ty, .. } => format!("`{ty} {}`", p.name),
        ParamKind::Pointer {
            elem: TypeName::Texture,
            ..
        } => format!("`cudaTextureObject_t {}`", p.name),
        ParamKind::Pointer { elem, is_const, .. } => {
            let c = if *is_const { "const " } else { "" };
            format!("`{c}{elem} *{}`", p.name)
        }
        ParamKind::Struct { name, .. } => format!("`{name} {}`", p.name),
    }
}

/// An integer argument as a value of type `ty`, if it fits.
fn scalar(ty: Scalar, i: i128) -> Option<Val> {
    let fits = |lo: i128, hi: i128| (lo..=hi).contains(&i);
    let ok = match ty {
        Scalar::Bool => fits(0, 1),
        Scalar::I8 => fits(i8::MIN.into(), i8::MAX.into()),
        Scalar::U8 => fits(0, u8::MAX.into()),
        Scalar::I16 => fits(i16::MIN.into(), i16::MAX.into()),
        Scalar::U16 => fits(0, u16::MAX.into()),
        // C programs pass `-1` as an unsigned all-ones often enough: accept the signed range too.
        Scalar::I32 => fits(i32::MIN.into(), i32::MAX.into()),
        Scalar::U32 => fits(i32::MIN.into(), u32::MAX.into()),
        Scalar::I64 => fits(i64::MIN.into(), i64::MAX.into()),
        Scalar::U64 => fits(i64::MIN.into(), u64::MAX.into()),
        Scalar::F32 | Scalar::F64 => return Some(float(ty, i as f64)),
    };
    ok.then(|| from_bits(ty, i as u64))
}

fn float(ty: Scalar, x: f64) -> Val {
    match ty {
        Scalar::F32 => Val::W(R32::uniform((x as f32).to_bits())),
        _ => Val::D(R64::uniform(x.to_bits())),
    }
}

/// A uniform value from its bits (the low bytes for narrow types, sign-extended as the
/// executor holds them).
fn from_bits(ty: Scalar, bits: u64) -> Val {
    match ty {
        Scalar::Bool => Val::B(bits & 1 != 0),
        Scalar::I8 => Val::W(R32::uniform(bits as i8 as i32 as u32)),
        Scalar::U8 => Val::W(R32::uniform(u32::from(bits as u8))),
        Scalar::I16 => Val::W(R32::uniform(bits as i16 as i32 as u32)),
        Scalar::U16 => Val::W(R32::uniform(u32::from(bits as u16))),
        t if t.is_wide() => Val::D(R64::uniform(bits)),
        _ => Val::W(R32::uniform(bits as u32)),
    }
}
