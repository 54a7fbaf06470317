//! Devices and launches.
//!
//! A [`Device`] is a simulated GPU: a [`Profile`] (limits, banks, caching), a device address space
//! for [`Global`] buffers, and the CPU threads blocks run on (rayon's global pool, or a pool of
//! its own from [`Device::with_threads`]). [`Device::launch`] checks the [`LaunchConfig`] against
//! the profile, then runs every block of the grid, blocks in parallel across CPU threads, each
//! block's warps on one thread (see [`crate::scheduler`]). It returns a [`LaunchReport`] with the
//! counters when the launch counts ([`Mode::Count`]), or the first [`Error`] (lowest block).

use crate::check::{LaunchCheck, Schedule};
use crate::error::Error;
use crate::lanes::{Mask, U32x32, WARP_SIZE};
use crate::memory::{Element, Global};
use crate::metrics::{Counters, Metrics};
use crate::profile::Profile;
use crate::scheduler::{BlockOrder, BlockState, Totals, WarpOrder, run_block};
use crate::warp::Warp;
use rayon::prelude::*;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A 3-D extent or index (`dim3`/`uint3`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// x, the fastest-varying dimension.
    pub x: u32,
    /// y.
    pub y: u32,
    /// z.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// `x * y * z`.
    pub fn count(&self) -> u64 {
        u64::from(self.x) * u64::from(self.y) * u64::from(self.z)
    }

    pub(crate) fn from_linear(i: u64, extent: Dim3) -> Dim3 {
        let (x, y) = (u64::from(extent.x), u64::from(extent.y));
        Dim3::new((i % x) as u32, ((i / x) % y) as u32, (i / (x * y)) as u32)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::new(x, 1, 1)
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3::new(x, y, 1)
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3::new(x, y, z)
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

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
    /// The order in which each block's warps are polled.
    pub warp_order: WarpOrder,
    /// The order in which blocks run.
    pub block_order: BlockOrder,
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
    /// What [`Mode::Check`] found, errors first (empty in the other modes).
    pub findings: Vec<crate::check::Finding>,
    /// Wall-clock time of the launch on the CPU.
    pub elapsed: Duration,
    /// The profile the launch ran under.
    pub profile: Profile,
}

impl LaunchReport {
    /// The derived metrics, unless the launch ran in [`Mode::Fast`].
    pub fn metrics(&self) -> Option<Metrics> {
        self.counters
            .as_ref()
            .map(|c| Metrics::new(c, &self.profile))
    }
}

/// Per-warp lane geometry, the same for every block of a launch.
pub(crate) struct WarpLanes {
    pub x: U32x32,
    pub y: U32x32,
    pub z: U32x32,
    pub linear: U32x32,
    /// Lanes that are threads of the block (a partial last warp has fewer).
    pub exists: Mask,
}

/// Everything about a launch that blocks read.
pub(crate) struct LaunchCtx {
    pub name: String,
    pub grid: Dim3,
    pub block: Dim3,
    pub profile: Profile,
    pub counting: bool,
    pub check: bool,
    pub check_state: Option<LaunchCheck>,
    pub warp_order: WarpOrder,
    pub dynamic_shared: u32,
    pub shared_limit: usize,
    pub warps_per_block: u32,
    pub warp_lanes: Vec<WarpLanes>,
}

impl LaunchCtx {
    /// The thread index of `lane` of warp `warp`.
    pub fn warp_thread(&self, warp: u32, lane: u32) -> Dim3 {
        let l = &self.warp_lanes[warp as usize];
        let i = lane as usize & 31;
        Dim3::new(l.x.lane(i), l.y.lane(i), l.z.lane(i))
    }

    fn new(
        cfg: &LaunchConfig,
        profile: &Profile,
        allocations: Vec<(u64, u64, String)>,
    ) -> LaunchCtx {
        let b = cfg.block;
        let threads = b.count() as u32;
        let warps = threads.div_ceil(WARP_SIZE as u32);
        let warp_lanes = (0..warps)
            .map(|w| {
                let linear = U32x32::from_fn(|l| w * 32 + l as u32);
                let t = linear.to_array();
                WarpLanes {
                    x: U32x32::from_fn(|l| t[l] % b.x),
                    y: U32x32::from_fn(|l| (t[l] / b.x) % b.y),
                    z: U32x32::from_fn(|l| t[l] / (b.x * b.y)),
                    linear,
                    exists: Mask::first_n(threads - w * 32),
                }
            })
            .collect();
        LaunchCtx {
            name: cfg.name.clone(),
            grid: cfg.grid,
            block: b,
            profile: profile.clone(),
            counting: cfg.mode != Mode::Fast,
            check: cfg.mode == Mode::Check,
            check_state: (cfg.mode == Mode::Check).then(|| LaunchCheck::new(allocations)),
            warp_order: cfg.warp_order,
            dynamic_shared: cfg.dynamic_shared,
            shared_limit: (cfg.dynamic_shared + profile.smem_per_block)
                .min(profile.smem_per_block_optin.max(profile.smem_per_block))
                as usize,
            warps_per_block: warps,
            warp_lanes,
        }
    }
}

/// A simulated GPU: a profile, an address space and CPU threads to run blocks on.
///
/// ```
/// use warpsim::*;
///
/// // out[i] = a[i] + b[i] for i < n, as a CUDA programmer writes it.
/// async fn vector_add(w: &mut Warp<'_>, a: &Global<f32>, b: &Global<f32>, out: &Global<f32>, n: u32) {
///     let i = w.global_idx_x();
///     w.if_(i.lt(n), |w| {
///         let s = w.load(a, i) + w.load(b, i);
///         w.store(out, i, s);
///     });
/// }
///
/// let dev = Device::default(); // sm_90
/// let n = 1000;
/// let a = dev.alloc_from("a", &vec![1.0f32; n]);
/// let b = dev.alloc_from("b", &vec![2.0f32; n]);
/// let out = dev.alloc_zeroed::<f32>("out", n);
/// let cfg = LaunchConfig::new((n as u32).div_ceil(256), 256).name("vector_add");
/// let report = dev.launch(&cfg, async |w: &mut Warp<'_>| vector_add(w, &a, &b, &out, n as u32).await)?;
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
    /// Every allocation, for check mode's "nearest allocation".
    allocations: Mutex<Vec<std::sync::Weak<crate::memory::global::Allocation>>>,
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
            allocations: Mutex::new(Vec::new()),
        }
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
        let g = Global::new(name, self.reserve(len * T::SIZE as usize), len, track_init);
        let mut all = self.allocations.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|a| a.strong_count() > 0);
        all.push(g.allocation());
        g
    }

    /// A buffer holding a copy of `data` (`cudaMalloc` + `cudaMemcpy`).
    pub fn alloc_from<T: Element>(&self, name: &str, data: &[T]) -> Global<T> {
        let g = self.alloc_zeroed(name, data.len());
        g.copy_from_slice(data);
        g
    }

    fn validate(&self, cfg: &LaunchConfig) -> Result<(), Error> {
        let p = &self.profile;
        let (g, b) = (cfg.grid, cfg.block);
        let fail = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: cfg.name.clone(),
                reason,
            })
        };
        if b.count() == 0 || g.count() == 0 {
            return fail(format!(
                "grid {g} and block {b} must have no zero dimension"
            ));
        }
        for (axis, (v, max)) in ["x", "y", "z"]
            .iter()
            .zip([b.x, b.y, b.z].into_iter().zip(p.max_block_dim))
        {
            if v > max {
                return fail(format!(
                    "block.{axis} = {v} exceeds {} 's limit of {max}",
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
        let max_shared = p.smem_per_block_optin.max(p.smem_per_block);
        if cfg.dynamic_shared > max_shared {
            return fail(format!(
                "{} bytes of dynamic shared memory exceed {}'s limit of {max_shared} per block",
                cfg.dynamic_shared, p.name
            ));
        }
        Ok(())
    }

    /// Run `kernel` once per warp of every block of `cfg`.
    ///
    /// The kernel is an async closure (usually calling an `async fn` that takes the
    /// [`Warp`] and the buffers). Blocks run in parallel; the launch returns when all have
    /// finished, or the lowest failing block's [`Error`]. See [`Device`] for an example.
    pub fn launch<F>(&self, cfg: &LaunchConfig, kernel: F) -> Result<LaunchReport, Error>
    where
        F: AsyncFn(&mut Warp<'_>) + Sync,
    {
        self.validate(cfg)?;
        let allocations = if cfg.mode == Mode::Check {
            let all = self.allocations.lock().unwrap_or_else(|p| p.into_inner());
            all.iter()
                .filter_map(|a| a.upgrade())
                .map(|a| (a.base, a.bytes() as u64, a.name.clone()))
                .collect()
        } else {
            Vec::new()
        };
        let ctx = LaunchCtx::new(cfg, &self.profile, allocations);
        let blocks = cfg.grid.count();
        let first_failure = AtomicU64::new(u64::MAX);
        let failure: Mutex<Option<(u64, Error)>> = Mutex::new(None);
        let shared_bytes = AtomicU64::new(u64::from(cfg.dynamic_shared));
        let start = Instant::now();
        let run_range = |blocks: &mut dyn Iterator<Item = u64>| {
            let st = BlockState::new(&ctx);
            let mut warps = Vec::with_capacity(ctx.warps_per_block as usize);
            let mut totals = Totals::default();
            let mut most_shared = 0;
            for b in blocks {
                if b >= first_failure.load(Ordering::Relaxed) {
                    continue;
                }
                let idx = Dim3::from_linear(b, cfg.grid);
                if let Err(e) = run_block(&ctx, &st, &kernel, idx, &mut warps, &mut totals) {
                    record_failure(&first_failure, &failure, b, e);
                }
                most_shared = most_shared.max(st.arena.bytes_used() as u64);
            }
            // Once per chunk: a shared atomic written per block bounces between the CPU threads.
            shared_bytes.fetch_max(most_shared, Ordering::Relaxed);
            totals
        };
        // Check mode's findings about global memory depend on the order blocks finish in, so
        // it runs blocks one after another unless a schedule is given.
        let block_order = match cfg.block_order {
            BlockOrder::Parallel if ctx.check => BlockOrder::Sequential,
            order => order,
        };
        let run = || match block_order {
            BlockOrder::Parallel => {
                // Contiguous chunks of blocks, a few per CPU thread for balance; each chunk
                // reuses one block state (shared memory, barrier, warp scratch) for its blocks.
                let chunks = (rayon::current_num_threads() as u64 * 8).min(blocks).max(1);
                (0..chunks)
                    .into_par_iter()
                    .map(|c| run_range(&mut (blocks * c / chunks..blocks * (c + 1) / chunks)))
                    .reduce(Totals::default, Totals::merge)
            }
            BlockOrder::Sequential => run_range(&mut (0..blocks)),
            BlockOrder::Reverse => run_range(&mut (0..blocks).rev()),
            BlockOrder::Random(seed) => {
                use rand::{SeedableRng, seq::SliceRandom};
                let mut order: Vec<u64> = (0..blocks).collect();
                order.shuffle(&mut rand::rngs::SmallRng::seed_from_u64(seed));
                run_range(&mut order.into_iter())
            }
        };
        let totals = match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        };
        let elapsed = start.elapsed();
        if let Some((_, e)) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        let findings = crate::check::finish(&ctx);
        Ok(LaunchReport {
            name: cfg.name.clone(),
            grid: cfg.grid,
            block: cfg.block,
            shared_bytes: shared_bytes.load(Ordering::Relaxed) as u32,
            counters: ctx.counting.then_some(totals.counters),
            divergent_by_warp: totals.divergent_by_warp,
            findings,
            elapsed,
            profile: self.profile.clone(),
        })
    }
}

/// Keep the failure of the lowest block.
fn record_failure(first: &AtomicU64, slot: &Mutex<Option<(u64, Error)>>, block: u64, e: Error) {
    first.fetch_min(block, Ordering::Relaxed);
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    if slot.as_ref().is_none_or(|(b, _)| block < *b) {
        *slot = Some((block, e));
    }
}
