//! Devices and launches.
//!
//! A [`Device`] is a simulated GPU: a [`Profile`] (limits, banks, caching), a device address space
//! for [`Global`] buffers, and the CPU threads blocks run on (rayon's global pool, or a pool of
//! its own from [`Device::with_threads`]). [`Device::launch`] checks the [`LaunchConfig`] against
//! the profile, then runs the kernel once for every block of the grid, blocks in parallel across
//! CPU threads in contiguous chunks, each block on one thread (see [`crate::block`]). It returns a
//! [`LaunchReport`] with the counters when the launch counts ([`Mode::Count`]), or the first
//! [`Error`] (lowest block).

use crate::block::grid::{Aborted, GridBarrier};
use crate::block::{Block, BlockOrder, BlockState, Fault, LaunchCtx, WarpOrder};
use crate::check::{LaunchCheck, Schedule};
use crate::count::{RawAccess, RawSamples, WaveChunks};
use crate::error::Error;
use crate::geometry::{BlockShape, Component, Dim3};
use crate::memory::{Element, Global};
use crate::metrics::{AccessSample, Counters, LineCounters, Metrics, Samples, WaveRuns};
use crate::profile::Profile;
use crate::site::{Site, SiteTable};
use crate::values::frame;
use rayon::prelude::*;
use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a launch does besides running the kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// No counters: the fastest way to run a kernel.
    Fast,
    /// Count every event of [`Counters`] (the default).
    #[default]
    Count,
    /// Count, and also look for hazards (races, uninitialised reads, barrier misuse); see
    /// [`crate::check`].
    Check,
}

/// Grid, block, shared memory and mode of one launch (`<<<grid, block, shared>>>`).
///
/// ```
/// use warpsim::{LaunchConfig, Mode};
/// let cfg = LaunchConfig::new(64, (32, 8)).name("transpose").mode(Mode::Fast);
/// assert_eq!(cfg.block.y, 8);
/// ```
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// The kernel's name, used in reports and errors.
    pub name: String,
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_shared: u32,
    /// Counting and checking.
    pub mode: Mode,
    /// The order in which each block's warps execute an instruction.
    pub warp_order: WarpOrder,
    /// The order in which blocks run.
    pub block_order: BlockOrder,
    /// Whether counters are also kept per source line ([`LaunchReport::lines`]).
    pub lines: bool,
    /// Which tier runs a CUDA C kernel ([`crate::cuda::launch`]; Rust kernels ignore it).
    pub engine: crate::cuda::Engine,
    /// Stop a CUDA C kernel still looping after this long with [`Error::Timeout`] (its
    /// loops check a watchdog at every iteration); `None`: no limit.
    pub timeout: Option<Duration>,
    /// Say on stderr how far a CUDA C launch has got once it has run a few seconds, and again
    /// every few more (the command line turns this on when stderr is a terminal).
    pub progress: bool,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every block runs at once, each on
    /// a CPU thread of its own, so blocks can wait for each other at `grid.sync()`
    /// ([`Block::sync_grid`]). As on a GPU, the grid may have no more blocks than the device
    /// holds at once (the profile's SMs times the blocks per SM that fit).
    pub cooperative: bool,
    /// Let a CUDA C kernel's access a little outside its buffer go on, as a GPU does where
    /// its memory is mapped: within the allocation's padding (its size, from 256 bytes to
    /// [`crate::memory::global::MAX_PAD`], on each side) a read gives 0 unless the kernel
    /// wrote there, and a write lands in the padding, never in another allocation; the first
    /// such access of each source line is reported in [`crate::cuda::CudaReport::outside`].
    /// An access farther out, or misaligned, faults as always; [`Mode::Check`] reports every
    /// one and ignores this. Rust kernels ignore it.
    pub tolerate_out_of_bounds: bool,
}

impl LaunchConfig {
    /// A launch of `grid` blocks of `block` threads, counting, named "kernel".
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig {
            name: "kernel".to_string(),
            grid: grid.into(),
            block: block.into(),
            dynamic_shared: 0,
            mode: Mode::default(),
            warp_order: WarpOrder::default(),
            block_order: BlockOrder::default(),
            lines: false,
            engine: crate::cuda::Engine::default(),
            timeout: None,
            progress: false,
            cooperative: false,
            tolerate_out_of_bounds: false,
        }
    }

    /// Set the name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Set the dynamic shared memory per block in bytes.
    pub fn dynamic_shared(mut self, bytes: u32) -> Self {
        self.dynamic_shared = bytes;
        self
    }

    /// Set the mode.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Also keep the counters per source line of the kernel ([`LaunchReport::lines`]); counting
    /// modes only.
    pub fn lines(mut self, on: bool) -> Self {
        self.lines = on;
        self
    }

    /// Stop a CUDA C kernel that runs longer than `limit` ([`LaunchConfig::timeout`]).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Choose the tier that runs a CUDA C kernel.
    pub fn engine(mut self, engine: crate::cuda::Engine) -> Self {
        self.engine = engine;
        self
    }

    /// Let accesses a little outside a buffer go on ([`LaunchConfig::tolerate_out_of_bounds`]).
    pub fn tolerate_out_of_bounds(mut self, on: bool) -> Self {
        self.tolerate_out_of_bounds = on;
        self
    }

    /// Make the launch cooperative ([`LaunchConfig::cooperative`]).
    pub fn cooperative(mut self, on: bool) -> Self {
        self.cooperative = on;
        self
    }

    /// Set the warp and block orders (see [`crate::check::explore`]).
    pub fn schedule(mut self, s: Schedule) -> Self {
        self.warp_order = s.warps;
        self.block_order = s.blocks;
        self
    }
}

/// The result of a successful launch.
#[derive(Clone, Debug)]
pub struct LaunchReport {
    /// The kernel's name.
    pub name: String,
    /// Grid.
    pub grid: Dim3,
    /// Block.
    pub block: Dim3,
    /// Shared memory per block, dynamic plus static, in bytes.
    pub shared_bytes: u32,
    /// The counters, unless the launch ran in [`Mode::Fast`].
    pub counters: Option<Counters>,
    /// Divergent branches by warp index within the block, summed over blocks (empty in
    /// [`Mode::Fast`]): which warps of a block diverge.
    pub divergent_by_warp: Vec<u64>,
    /// The counters per source line, in file and line order, when the launch asked for them
    /// ([`LaunchConfig::lines`]); they add up to [`LaunchReport::counters`].
    pub lines: Vec<LineCounters>,
    /// What the report's pictures are drawn from (empty in [`Mode::Fast`]).
    pub samples: Samples,
    /// What [`Mode::Check`] found, errors first (empty in the other modes).
    pub findings: Vec<crate::check::Finding>,
    /// Wall-clock time of the launch on the CPU.
    pub elapsed: Duration,
    /// The profile the launch ran under.
    pub profile: Profile,
    /// Bytes of global memory the launch can reach: a CUDA C kernel's buffer arguments and
    /// variables; a Rust kernel, which may capture any buffer, every live allocation of the
    /// device. The timing model ([`crate::predict`]) bounds DRAM traffic with it.
    pub footprint: u64,
}

impl LaunchReport {
    /// The derived metrics, unless the launch ran in [`Mode::Fast`].
    pub fn metrics(&self) -> Option<Metrics> {
        self.counters
            .as_ref()
            .map(|c| Metrics::new(c, &self.profile))
    }
}

/// A simulated GPU: a profile, an address space and CPU threads to run blocks on.
///
/// ```
/// use warpsim::*;
///
/// // out[i] = a[i] + b[i] for i < n, as a CUDA programmer writes it.
/// fn vector_add(b: &mut Block<'_>, x: &Global<f32>, y: &Global<f32>, out: &Global<f32>, n: u32) {
///     let i = b.global_idx_x();
///     b.if_(i.lt(n), |b| {
///         let s = b.load(x, i) + b.load(y, i);
///         b.store(out, i, s);
///     });
/// }
///
/// let dev = Device::default(); // sm_90
/// let n = 1000;
/// let a = dev.alloc_from("a", &vec![1.0f32; n]);
/// let b = dev.alloc_from("b", &vec![2.0f32; n]);
/// let out = dev.alloc_zeroed::<f32>("out", n);
/// let cfg = LaunchConfig::new((n as u32).div_ceil(256), 256).name("vector_add");
/// let report = dev.launch(&cfg, |blk: &mut Block<'_>| vector_add(blk, &a, &b, &out, n as u32))?;
/// assert!(out.to_vec().iter().all(|&x| x == 3.0));
/// let m = report.metrics().unwrap();
/// assert_eq!(m.gld_efficiency, 100.0);
/// assert_eq!(m.divergent_branches, 1); // the warp holding i = 992..1023
/// # Ok::<(), warpsim::Error>(())
/// ```
pub struct Device {
    profile: Profile,
    next_address: AtomicU64,
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Whether every counting launch keeps its counters per source line.
    lines: bool,
    /// Every allocation, for check mode's "nearest allocation" (some freed), and the length
    /// at which the freed are next dropped.
    allocations: Mutex<(
        Vec<std::sync::Weak<crate::memory::global::Allocation>>,
        usize,
    )>,
}

impl Default for Device {
    /// An sm_90 (H100) device on rayon's global thread pool.
    fn default() -> Device {
        Device::new(Profile::sm_90())
    }
}

/// Where the simulated address space starts (any nonzero multiple of 256 would do).
const FIRST_ADDRESS: u64 = 0x7f00_0000_0000;

impl Device {
    /// A device with `profile`, running blocks on rayon's global thread pool.
    pub fn new(profile: Profile) -> Device {
        Device {
            profile,
            next_address: AtomicU64::new(FIRST_ADDRESS),
            pool: None,
            lines: false,
            allocations: Mutex::new((Vec::new(), 0)),
        }
    }

    /// Keep the counters of every counting launch per source line, as if each asked for it with
    /// [`LaunchConfig::lines`] (for launches made by code you do not write, such as the
    /// catalogue's runs).
    pub fn with_lines(mut self, on: bool) -> Device {
        self.lines = on;
        self
    }

    /// Whether a counting launch of `cfg` keeps its counters per source line.
    pub(crate) fn counts_lines(&self, cfg: &LaunchConfig) -> bool {
        cfg.lines || self.lines
    }

    /// Run blocks on a pool of `threads` CPU threads of the device's own (0: rayon's default).
    ///
    /// Results and counters do not depend on the number of threads, with one exception: float
    /// atomics on global memory from different blocks add in the order the blocks happen to run,
    /// so their rounding can differ (as on a GPU).
    pub fn with_threads(mut self, threads: usize) -> Result<Device, Error> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::InvalidLaunch {
                kernel: String::new(),
                reason: format!("could not start {threads} CPU threads: {e}"),
            })?;
        self.pool = Some(Arc::new(pool));
        Ok(self)
    }

    /// The device's profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// CPU threads blocks run on.
    pub fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
    }

    /// Bytes of all live allocations.
    fn live_bytes(&self) -> u64 {
        let all = self.allocations.lock().unwrap_or_else(|p| p.into_inner());
        all.0
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .map(|a| a.bytes() as u64)
            .sum()
    }

    fn reserve(&self, bytes: usize) -> u64 {
        let size = (bytes.max(1) as u64).next_multiple_of(256);
        self.next_address.fetch_add(size, Ordering::Relaxed)
    }

    /// A zeroed buffer of `len` elements (`cudaMalloc` + `cudaMemset(0)`), named `name` in
    /// errors and reports.
    ///
    /// # Panics
    /// If `len` elements do not fit the address space (like `Vec::with_capacity`).
    pub fn alloc_zeroed<T: Element>(&self, name: &str, len: usize) -> Global<T> {
        self.alloc(name, len, false)
    }

    /// A buffer of `len` elements whose contents are undefined until written (`cudaMalloc`
    /// alone). warpsim zeroes it, but check mode reports every read of an element never written.
    pub fn alloc_uninit<T: Element>(&self, name: &str, len: usize) -> Global<T> {
        self.alloc(name, len, true)
    }

    fn alloc<T: Element>(&self, name: &str, len: usize, track_init: bool) -> Global<T> {
        self.alloc_at(
            name,
            self.reserve(len * T::SIZE as usize),
            len,
            track_init,
            false,
        )
    }

    /// Constant memory holding `data` (a `__constant__` variable): loads from it are not
    /// counted as global transactions, as a GPU serves them from its constant cache.
    pub(crate) fn alloc_constant(&self, name: &str, data: &[u8]) -> Global<u8> {
        let g = self.alloc_at(name, self.reserve(data.len()), data.len(), false, true);
        g.write_bytes(0, data);
        g
    }

    /// A buffer at device address `base`, which the caller keeps apart from every other
    /// allocation (managed memory lives at its host address).
    pub(crate) fn alloc_at<T: Element>(
        &self,
        name: &str,
        base: u64,
        len: usize,
        track_init: bool,
        constant: bool,
    ) -> Global<T> {
        let g = Global::new(name, base, len, track_init, constant);
        let mut all = self.allocations.lock().unwrap_or_else(|p| p.into_inner());
        // The freed are dropped once the list has doubled since the last sweep: each
        // allocation's share of the sweeps is constant, however many are live.
        if all.0.len() >= all.1 {
            all.0.retain(|a| a.strong_count() > 0);
            all.1 = (2 * all.0.len()).max(64);
        }
        all.0.push(g.allocation());
        g
    }

    /// A buffer holding a copy of `data` (`cudaMalloc` + `cudaMemcpy`).
    pub fn alloc_from<T: Element>(&self, name: &str, data: &[T]) -> Global<T> {
        let g = self.alloc_zeroed(name, data.len());
        g.copy_from_slice(data);
        g
    }

    pub(crate) fn validate(&self, cfg: &LaunchConfig) -> Result<(), Error> {
        let p = &self.profile;
        let (g, b) = (cfg.grid, cfg.block);
        let fail = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: cfg.name.clone(),
                reason: format!("{reason} ({})", crate::error::LIMITS),
            })
        };
        if b.count() == 0 || g.count() == 0 {
            return fail(format!(
                "grid {g} and block {b} must have no zero dimension"
            ));
        }
        // The bank counter works in powers of two (as every GPU has had).
        let pow2 = |v: u32| v.is_power_of_two() && v <= 32;
        if !pow2(p.shared_banks) || !pow2(p.shared_request_lanes) {
            return fail(format!(
                "profile {}: shared_banks ({}) and shared_request_lanes ({}) must be powers of \
                 two up to 32",
                p.name, p.shared_banks, p.shared_request_lanes
            ));
        }
        for (axis, (v, max)) in ["x", "y", "z"]
            .iter()
            .zip([b.x, b.y, b.z].into_iter().zip(p.max_block_dim))
        {
            if v > max {
                return fail(format!(
                    "block.{axis} = {v} exceeds {}'s limit of {max}",
                    p.name
                ));
            }
        }
        if b.count() > u64::from(p.max_threads_per_block) {
            return fail(format!(
                "block {b} has {} threads, over {}'s limit of {} per block",
                b.count(),
                p.name,
                p.max_threads_per_block
            ));
        }
        for (axis, (v, max)) in ["x", "y", "z"]
            .iter()
            .zip([g.x, g.y, g.z].into_iter().zip(p.max_grid_dim))
        {
            if v > max {
                return fail(format!(
                    "grid.{axis} = {v} exceeds {}'s limit of {max}",
                    p.name
                ));
            }
        }
        if g.count() == u64::MAX {
            return fail(format!(
                "grid {g} has {} blocks, more than a launch can number; use a smaller grid",
                u128::from(g.x) * u128::from(g.y) * u128::from(g.z)
            ));
        }
        let max_shared = p.smem_per_block_optin.max(p.smem_per_block);
        if cfg.dynamic_shared > max_shared {
            return fail(format!(
                "{} bytes of dynamic shared memory exceed {}'s limit of {max_shared} per block",
                cfg.dynamic_shared, p.name
            ));
        }
        Ok(())
    }

    /// Run `kernel` once for every block of `cfg`.
    ///
    /// The kernel is a closure over the [`Block`] (usually calling a function that takes the
    /// block and the buffers). Blocks run in parallel; the launch returns when all have
    /// finished, or the lowest failing block's [`Error`]. See [`Device`] for an example.
    pub fn launch<F>(&self, cfg: &LaunchConfig, kernel: F) -> Result<LaunchReport, Error>
    where
        F: Fn(&mut Block<'_>) + Sync,
    {
        self.launch_with_sites(cfg, SiteTable::default(), (None, 0), kernel)
    }

    /// [`Device::launch`] for a kernel whose operations name [`Site::Table`] sites, that
    /// can reach `footprint` bytes of global memory (`None`: any live allocation) and declares
    /// `static_shared` bytes of shared memory (0: as it runs).
    pub(crate) fn launch_with_sites<F>(
        &self,
        cfg: &LaunchConfig,
        sites: SiteTable,
        (footprint, static_shared): (Option<u64>, u32),
        kernel: F,
    ) -> Result<LaunchReport, Error>
    where
        F: Fn(&mut Block<'_>) + Sync,
    {
        self.validate(cfg)?;
        if frame::with_any(|fr| fr.running) {
            return Err(Error::InvalidLaunch {
                kernel: cfg.name.clone(),
                reason: "a kernel cannot launch another kernel (dynamic parallelism is not \
                         supported); launch it from host code after this launch returns"
                    .to_string(),
            });
        }
        let check = (cfg.mode == Mode::Check).then(|| {
            let all = self.allocations.lock().unwrap_or_else(|p| p.into_inner());
            LaunchCheck::new(
                all.0
                    .iter()
                    .filter_map(|a| a.upgrade())
                    .map(|a| (a.base, a.bytes() as u64, a.name.clone()))
                    .collect(),
                self.profile.compute_capability.0 >= 7,
                cfg.cooperative,
            )
        });
        let ctx = launch_ctx(cfg, &self.profile, check, sites, self.lines, static_shared);
        let blocks = cfg.grid.count();
        if cfg.cooperative && blocks > ctx.wave_blocks {
            return Err(Error::CooperativeLaunchTooLarge {
                kernel: cfg.name.clone(),
                blocks,
                resident: ctx.wave_blocks,
            });
        }
        let skip_from = AtomicU64::new(u64::MAX);
        let failure: Mutex<Option<(u64, Error)>> = Mutex::new(None);
        let start = Instant::now();
        // `ascending`: the blocks come in increasing order, so the first one skipped ends them.
        let run_range = |blocks: &mut dyn Iterator<Item = u64>, ascending: bool| {
            let mut st = BlockState::new(&ctx);
            let mut most_shared = 0;
            for b in blocks {
                // Blocks after a failed one are skipped (the launch has failed, and the lowest
                // failing block is the one it reports); those before it run, to find an earlier
                // failure. The rest are not even visited: a grid may hold 2^63 blocks.
                let skip = skip_from.load(Ordering::Relaxed);
                let failed = b >= skip
                    || run_block(&ctx, &mut st, &kernel, Dim3::from_linear(b, cfg.grid))
                        .map_err(|e| record_failure(&skip_from, &failure, b, e))
                        .is_err();
                if let Some(grid) = &ctx.grid_barrier {
                    grid.depart(b, failed);
                }
                most_shared = most_shared.max(st.arena.bytes_used() as u64);
                if b >= skip && (ascending || skip == 0) {
                    break;
                }
            }
            Totals::of(&mut st, most_shared)
        };
        // Check mode's findings about global memory depend on the order blocks finish in, so
        // it runs blocks one after another unless a schedule is given.
        let block_order = match cfg.block_order {
            BlockOrder::Parallel if ctx.checking => BlockOrder::Sequential,
            order => order,
        };
        let run = || match block_order {
            BlockOrder::Parallel => {
                // Contiguous chunks of blocks, a few per CPU thread for balance; each chunk
                // reuses one block state (shared memory, counters) for its blocks.
                let chunks = (rayon::current_num_threads() as u64 * 8).min(blocks).max(1);
                // In u128: `blocks * (c + 1)` passes 2^64 for grids over 2^60 blocks.
                let bound =
                    |c: u64| (u128::from(blocks) * u128::from(c) / u128::from(chunks)) as u64;
                (0..chunks)
                    .into_par_iter()
                    .map(|c| run_range(&mut (bound(c)..bound(c + 1)), true))
                    .reduce(Totals::default, Totals::merge)
            }
            BlockOrder::Sequential => run_range(&mut (0..blocks), true),
            BlockOrder::Reverse => run_range(&mut (0..blocks).rev(), false),
            BlockOrder::Random(seed) => {
                use rand::{SeedableRng, seq::SliceRandom};
                let mut order: Vec<u64> = (0..blocks).collect();
                order.shuffle(&mut rand::rngs::SmallRng::seed_from_u64(seed));
                run_range(&mut order.into_iter(), false)
            }
        };
        let totals = match &self.pool {
            // Blocks that wait for each other all run at once, whatever the pool.
            _ if ctx.grid_barrier.is_some() => std::thread::scope(|s| {
                let grid = ctx.grid_barrier.as_ref().expect("a cooperative launch");
                let mut threads = Vec::new();
                for b in 0..blocks {
                    let run_range = &run_range;
                    let thread = std::thread::Builder::new()
                        .spawn_scoped(s, move || run_range(&mut std::iter::once(b), true));
                    match thread {
                        Ok(t) => threads.push(t),
                        Err(e) => {
                            // The blocks started must not wait for those that cannot start.
                            (b..blocks).for_each(|b| grid.depart(b, true));
                            let reason = format!(
                                "a cooperative launch runs each of its {blocks} blocks on a CPU \
                                 thread of its own, and thread {b} could not start ({e}); use \
                                 fewer blocks"
                            );
                            let e = Error::InvalidLaunch {
                                kernel: cfg.name.clone(),
                                reason,
                            };
                            record_failure(&skip_from, &failure, b, e);
                            break;
                        }
                    }
                }
                threads
                    .into_iter()
                    .map(|t| t.join().unwrap_or_default())
                    .fold(Totals::default(), Totals::merge)
            }),
            // One block runs on the calling thread: handing it to the pool costs two thread
            // switches, more than a small kernel's whole run.
            _ if blocks == 1 => run_range(&mut (0..1), true),
            Some(pool) => pool.install(run),
            None => run(),
        };
        let elapsed = start.elapsed();
        if let Some((_, e)) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        if ctx.grid_barrier.is_some() {
            ctx.merge_check_phase();
        }
        let findings = ctx
            .check
            .as_ref()
            .map(|c| crate::check::finish(c, cfg.grid))
            .unwrap_or_default();
        let counters = ctx.counting.then(|| {
            let mut c = Counters::default();
            for (_, l) in &totals.lines {
                c += l;
            }
            c
        });
        Ok(LaunchReport {
            name: cfg.name.clone(),
            grid: cfg.grid,
            block: cfg.block,
            shared_bytes: totals.shared_bytes.max(u64::from(cfg.dynamic_shared)) as u32,
            counters,
            divergent_by_warp: totals.divergent_by_warp,
            lines: if ctx.lines {
                LineCounters::from_sites(totals.lines, &ctx.sites)
            } else {
                Vec::new()
            },
            samples: if ctx.counting {
                samples(totals.samples, totals.wave, cfg, &ctx)
            } else {
                Samples::default()
            },
            findings,
            elapsed,
            profile: self.profile.clone(),
            footprint: footprint.unwrap_or_else(|| self.live_bytes()),
        })
    }
}

/// The samples of a launch, resolved: sites to source positions, the sparse per-block
/// divergence map to a dense one.
fn samples(raw: RawSamples, wave: WaveChunks, cfg: &LaunchConfig, ctx: &LaunchCtx) -> Samples {
    let access = |r: RawAccess| AccessSample {
        space: r.space,
        access: r.kind,
        buffer: r.buffer,
        elem_bytes: r.elem,
        addresses: r.addresses.to_vec(),
        sectors: r.sectors,
        lines: r.lines,
        wavefronts: r.wavefronts,
        block: Dim3::from_linear(r.key.1, cfg.grid),
        warp: r.key.2,
        site: ctx.sites.position(r.site),
    };
    let divergent_by_block = raw
        .by_block
        .map_or_else(Vec::new, |m| m.dense(cfg.grid.count(), ctx.shape.warps));
    Samples {
        worst_global: raw.worst_global.map(access),
        worst_shared: raw.worst_shared.map(access),
        divergent_by_block,
        divergent_by_step: raw.steps,
        step_sites: raw
            .step_sites
            .into_iter()
            .map(|(_, s)| ctx.sites.position(s))
            .collect(),
        wave: { WaveRuns::of(ctx.wave_blocks.min(cfg.grid.count()), &wave.sorted()) },
    }
}

/// The launch-wide context of `cfg` (`lines`: the device attributes every launch to lines).
fn launch_ctx(
    cfg: &LaunchConfig,
    profile: &Profile,
    check: Option<LaunchCheck>,
    sites: SiteTable,
    lines: bool,
    static_shared: u32,
) -> LaunchCtx {
    let threads = u32::try_from(cfg.block.count()).unwrap_or(u32::MAX);
    let per_sm = profile
        .occupancy(
            threads,
            crate::predict::ASSUMED_REGISTERS,
            cfg.dynamic_shared.saturating_add(static_shared),
        )
        .map_or(1, |o| o.blocks_per_sm.max(1));
    LaunchCtx {
        wave_blocks: u64::from(per_sm) * u64::from(profile.sm_count),
        grid_barrier: cfg.cooperative.then(|| GridBarrier::new(cfg.grid.count())),
        name: cfg.name.clone(),
        grid: cfg.grid,
        shape: BlockShape::new(cfg.block),
        profile: profile.clone(),
        counting: cfg.mode != Mode::Fast,
        lines: (cfg.lines || lines) && cfg.mode != Mode::Fast,
        checking: cfg.mode == Mode::Check,
        check,
        warp_order: cfg.warp_order,
        dynamic_shared: cfg.dynamic_shared,
        shared_limit: (cfg.dynamic_shared + profile.smem_per_block)
            .min(profile.smem_per_block_optin.max(profile.smem_per_block))
            as usize,
        sites,
    }
}

thread_local! {
    /// Set while a block runs on this thread: panics there are reported, not printed.
    static IN_BLOCK: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic inside a block happened.
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keep panics inside blocks (which become [`Error`]s) off stderr; others print as before.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_BLOCK.with(Cell::get) {
                PANIC_AT.with(|p| *p.borrow_mut() = info.location().map(ToString::to_string));
            } else {
                previous(info);
            }
        }));
    });
}

/// Run block `idx` to completion, adding its counters to `st`. Never inlined, so that
/// `warpsim bench --instructions` can count what blocks execute (valgrind's
/// `--toggle-collect=*launch::run_block*`).
#[inline(never)]
fn run_block<F>(ctx: &LaunchCtx, st: &mut BlockState, kernel: &F, idx: Dim3) -> Result<(), Error>
where
    F: Fn(&mut Block<'_>),
{
    install_panic_hook();
    st.reset(ctx, idx);
    if let Some(c) = &mut st.count {
        c.begin_block(idx.linear_in(ctx.grid));
    }
    let shape = &ctx.shape;
    let started = frame::with_any(|fr| {
        if fr.running {
            return false;
        }
        fr.begin_block(&shape.exists, shape.warps, ctx.counting, ctx.lines);
        for (k, c) in [&shape.x, &shape.y, &shape.z].into_iter().enumerate() {
            if let Component::Rows(rows) = c {
                fr.set_index_rows(k, rows);
            }
        }
        true
    });
    if !started {
        return Err(Error::InvalidLaunch {
            kernel: ctx.name.clone(),
            reason: "a block started on a CPU thread that is already running a block: kernel \
                     code must not use rayon or launch kernels"
                .to_string(),
        });
    }
    IN_BLOCK.with(|b| b.set(true));
    let outcome = catch_unwind(AssertUnwindSafe(|| kernel(&mut Block::new(ctx, st))));
    IN_BLOCK.with(|b| b.set(false));
    frame::with_any(|fr| {
        if let Some(c) = &mut st.count {
            c.end_block(fr, shape.warps);
        }
        fr.end_block();
    });
    if let (Some(c), Some(l)) = (&mut st.check, &ctx.check) {
        c.end_block(&crate::check::Ctx {
            kernel: &ctx.name,
            block: idx,
            grid: ctx.grid,
            shape,
            interval: st.interval,
            launch: l,
            sites: &ctx.sites,
        });
    }
    match outcome {
        Ok(()) => Ok(()),
        // Stopped at grid.sync() because another block failed: that block's error is the launch's.
        Err(payload) if payload.is::<Aborted>() => Ok(()),
        Err(payload) => Err(match payload.downcast::<Fault>() {
            Ok(fault) => fault.0,
            Err(other) => Error::KernelPanic {
                kernel: ctx.name.clone(),
                block: idx,
                message: other
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| other.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(non-string panic payload)".to_string()),
                location: PANIC_AT.with(|p| p.borrow_mut().take()),
            },
        }),
    }
}

/// What the blocks of one chunk counted.
#[derive(Default)]
struct Totals {
    /// Counters by source location (`None`: not attributed to a line).
    lines: Vec<(Option<Site>, Counters)>,
    divergent_by_warp: Vec<u64>,
    samples: RawSamples,
    /// The first wave's sectors.
    wave: WaveChunks,
    shared_bytes: u64,
}

impl Totals {
    fn of(st: &mut BlockState, shared_bytes: u64) -> Totals {
        let (lines, divergent_by_warp, samples, wave) = match &mut st.count {
            Some(c) => (
                {
                    c.finish();
                    frame::with_any(|fr| c.by_location(fr))
                },
                c.divergent_by_warp.clone(),
                std::mem::take(&mut c.samples),
                std::mem::take(&mut c.wave),
            ),
            None => Default::default(),
        };
        Totals {
            lines,
            divergent_by_warp,
            samples,
            wave,
            shared_bytes,
        }
    }

    fn merge(mut self, other: Totals) -> Totals {
        for (loc, c) in other.lines {
            match self.lines.iter_mut().find(|(l, _)| *l == loc) {
                Some((_, mine)) => *mine += &c,
                None => self.lines.push((loc, c)),
            }
        }
        if self.divergent_by_warp.len() < other.divergent_by_warp.len() {
            self.divergent_by_warp
                .resize(other.divergent_by_warp.len(), 0);
        }
        for (a, b) in self
            .divergent_by_warp
            .iter_mut()
            .zip(&other.divergent_by_warp)
        {
            *a += b;
        }
        self.samples.merge(other.samples);
        self.wave.merge(other.wave);
        self.shared_bytes = self.shared_bytes.max(other.shared_bytes);
        self
    }
}

/// Keep the failure of the lowest block, and skip the blocks after it (`skip_from`). A failure
/// that every block would meet (the time limit, a launch that cannot go on) skips them all.
fn record_failure(skip_from: &AtomicU64, slot: &Mutex<Option<(u64, Error)>>, block: u64, e: Error) {
    let ends_launch = matches!(e, Error::Timeout { .. } | Error::InvalidLaunch { .. });
    skip_from.fetch_min(if ends_launch { 0 } else { block }, Ordering::Relaxed);
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    if slot.as_ref().is_none_or(|(b, _)| block < *b) {
        *slot = Some((block, e));
    }
}
