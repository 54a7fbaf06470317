//! What a launch would cost on the profile's GPU: a time predicted from its counters.
//!
//! # The model
//!
//! A counted launch says how much work each part of the GPU does: sectors for DRAM and L2,
//! store transactions, shared-memory wavefronts, atomics, warp instructions, barriers. Each part
//! has a throughput, so each gives a time; the slowest of these bandwidth parts bounds the
//! launch (a roofline). The warps' latency is the other bound, and the two overlap only in
//! part: a launch near both takes longer than either. So, with the launch overhead that a CUDA
//! event pair around one launch measures:
//!
//! ```text
//! bandwidth = max(dram, l2, l1, shared, atomics, issue)
//! predicted = launch overhead + √(bandwidth² + latency²)
//! ```
//!
//! * **dram**: the bytes that must come from DRAM, `min(global sector bytes, footprint)`, at the
//!   sustained DRAM bandwidth. The footprint is the global memory the launch can reach
//!   ([`LaunchReport::footprint`]); when it fits in ¾ of L2 it is taken to stay there from the
//!   launch before (a timing loop, a program launching kernels on the same buffers) and DRAM
//!   costs nothing.
//!   DRAM moves 64-byte granules: sectors whose granule-mates are not wanted cost their
//!   granule ([`overfetch`], from the first wave's sample, [`WaveRuns`]). And short runs cost
//!   more: DRAM serves a wave of blocks that touches memory in runs of a kilobyte (the diagonal
//!   transpose's block order) 7–10 % more slowly than one reading whole rows; each granule of
//!   the sample adds [`Timing::dram_run_cost`] per halving of its run below
//!   [`Timing::dram_run_bytes`] ([`Timing::scatter`]).
//! * **l2**: load bytes (at most the footprint: loads that hit L1 do not reach L2) plus store
//!   sector bytes at L2 bandwidth, or, when slower, every store request's lines as separate L2
//!   write transactions (uncoalesced stores are bound by these, not by bytes).
//! * **l1**: one global load request per SM and clock, and [`Timing::l1_line_clocks`] more for
//!   each line a load or store request touches beyond its first (uncoalesced requests).
//! * **shared**: one shared-memory wavefront per SM and clock (a bank conflict of degree k is k
//!   wavefronts). These two and issue count only the SMs that get a block.
//! * **atomics**: one global atomic sector per clock for the device (the cost of many atomics
//!   on few addresses, which serialize in L2).
//! * **issue**: warp instructions at the schedulers' rate.
//! * **latency**: what the warps wait for when there are too few of them to hide it. Each warp's
//!   dependency chain is its share of instructions, barriers, shared requests, divergent branches,
//!   the lines global requests touch beyond their first, and global load batches
//!   ([`Counters::gld_batches`]: loads with no store, barrier or
//!   iteration of a loop between them are in flight together, so a batch waits once), each at
//!   its latency (at L1's latency for the share of requests that re-read data — a line of
//!   fresh data per request at most — else at L2's or DRAM's);
//!   the blocks run in waves of as many as fit on the SMs at once ([`Profile::occupancy`], 32
//!   registers per thread assumed), and each wave takes one chain.
//!
//! The limiter is the part that takes longest, or the launch overhead when it exceeds them all.
//! The batches are what set the transposes apart on an H100: a plain copy loads, stores, loads
//! again (each load waits for the store before it, which may alias it), where the copies
//! through shared memory issue their four loads at once.
//!
//! # Where the numbers come from
//!
//! SM count, clock, DRAM bus and L2 size are the profile's. The rest are per architecture in
//! [`Timing::of`]: sm_90's were measured on an H100 SXM with `cuda/timing/timing.cu` (CUDA
//! events, median of 20 launches, `cuda/timing/results/`), each from the microbenchmark that
//! isolates it (the DRAM efficiency from vector-add over 768 MiB, the store-transaction rate from
//! the naive transpose, the launch overhead from a 1000-element vector-add, the granule from
//! reads at growing strides, `cuda/timing/stride_read.cu`, the cost of short runs from one
//! tiled copy in 19 block orders, `cuda/timing/page_order.cu` fitted by
//! `scripts/dram_runs_fit.py`), and the latency
//! weights and the overlap (the square root's exponent 2; max and exponents up to 6 tried)
//! chosen once for the first 86 configurations of that set by `scripts/timing_fit.py` (the
//! line weight later, alone, on all 95)
//! (`docs/timing.md` reports the error, a split-half check and the worst cases). No constant is
//! chosen per kernel. The other profiles reuse sm_90's latencies and rates per SM and clock,
//! scaled by their own SM count, clock and DRAM bus: their predictions are unvalidated.

use crate::launch::LaunchReport;
use crate::metrics::{Counters, WaveRuns};
use crate::profile::Profile;

/// Registers per thread assumed for occupancy (warpsim does not allocate registers; the
/// documents' kernels use 16–32 under nvcc).
pub(crate) const ASSUMED_REGISTERS: u32 = 32;

/// The part of the GPU that bounds a launch's predicted time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    /// DRAM bandwidth.
    Dram,
    /// L2 bandwidth or L2 write transactions.
    L2,
    /// L1's global load requests.
    L1,
    /// Shared-memory wavefronts.
    Shared,
    /// Global atomics.
    Atomics,
    /// Instruction issue.
    Issue,
    /// Latency the warps cannot hide.
    Latency,
    /// The launch overhead (the kernel's own work is smaller).
    Launch,
}

impl Limiter {
    /// The short name used in JSON and tables (`"dram"`, `"l2"`, …, `"launch"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Limiter::Dram => "dram",
            Limiter::L2 => "l2",
            Limiter::L1 => "l1",
            Limiter::Shared => "shared",
            Limiter::Atomics => "atomics",
            Limiter::Issue => "issue",
            Limiter::Latency => "latency",
            Limiter::Launch => "launch",
        }
    }

    /// What it means, for a report's caption.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Limiter::Dram => "DRAM bandwidth",
            Limiter::L2 => "L2 bandwidth / write transactions",
            Limiter::L1 => "L1 load requests",
            Limiter::Shared => "shared-memory wavefronts",
            Limiter::Atomics => "atomics serialized in L2",
            Limiter::Issue => "instruction issue",
            Limiter::Latency => "latency (dependent instructions, barriers and loads)",
            Limiter::Launch => "launch overhead",
        }
    }
}

impl std::fmt::Display for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The timing parameters of one architecture (see the [module documentation](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// SMs.
    pub sms: u32,
    /// SM clock in Hz.
    pub clock_hz: f64,
    /// Sustained DRAM bandwidth, bytes per second.
    pub dram_bytes_per_s: f64,
    /// L2 bandwidth, bytes per second.
    pub l2_bytes_per_s: f64,
    /// L2 write transactions (lines of store requests) per second.
    pub l2_store_lines_per_s: f64,
    /// L2 capacity in bytes.
    pub l2_bytes: u64,
    /// Host-to-device and device-to-host copy bandwidth, bytes per second.
    pub host_bytes_per_s: f64,
    /// Counted warp instructions issued per SM and clock.
    pub issue_per_clock: f64,
    /// Global atomic sectors per clock, for the whole device.
    pub atomics_per_clock: f64,
    /// The overhead of one launch as a CUDA event pair around it measures, seconds.
    pub launch_overhead_s: f64,
    /// Clocks a warp's chain spends per counted instruction.
    pub instruction_clocks: f64,
    /// Clocks per barrier.
    pub barrier_clocks: f64,
    /// Clocks per shared-memory request.
    pub shared_clocks: f64,
    /// Clocks per divergent branch (the reconvergence).
    pub divergence_clocks: f64,
    /// Load latency in clocks when it hits L1, L2 and DRAM.
    pub load_clocks: [f64; 3],
    /// SM clocks L1 spends per 128-byte line a global request touches beyond its first.
    pub l1_line_clocks: f64,
    /// Clocks a warp's chain spends per line a global request touches beyond its first (an
    /// uncoalesced request waits for all its lines).
    pub line_clocks: f64,
    /// DRAM time added per halving of a run below [`Timing::dram_run_bytes`], as a share
    /// ([`Timing::scatter`]).
    pub dram_run_cost: f64,
    /// The run of consecutive bytes from which DRAM serves a wave at its full rate.
    pub dram_run_bytes: f64,
}

impl Timing {
    /// The parameters for `p`: measured for sm_90, derived from sm_90's per SM and clock for
    /// the others.
    #[must_use]
    pub fn of(p: &Profile) -> Timing {
        let clock_hz = f64::from(p.clock_khz) * 1e3;
        // Double data rate: two transfers per memory clock over the bus.
        let dram_peak = f64::from(p.mem_clock_khz) * 1e3 * 2.0 * f64::from(p.mem_bus_bits) / 8.0;
        let sm_clocks = f64::from(p.sm_count) * clock_hz;
        Timing {
            sms: p.sm_count,
            clock_hz,
            // vector-add over 3 × 256 MiB sustains 2.78 TB/s of the H100's 3.35 TB/s.
            dram_bytes_per_s: 0.83 * dram_peak,
            // ~5.5 TB/s on an H100 (published microbenchmarks): 21 bytes per SM and clock.
            l2_bytes_per_s: 21.0 * sm_clocks,
            // The naive transpose 4096² (16.7 M store lines) takes 316 µs: 53 G lines/s.
            l2_store_lines_per_s: 0.2 * sm_clocks,
            l2_bytes: u64::from(p.l2_bytes),
            // Pageable cudaMemcpy over PCIe: a nominal 25 GB/s (not measured here).
            host_bytes_per_s: 25e9,
            // Four schedulers per SM; ~1.33 SASS instructions per counted statement.
            issue_per_clock: 3.0,
            // Atomic counters on one address: ~1.4 G/s; a 256-bin histogram: ~2.8 G sectors/s.
            atomics_per_clock: 1.0,
            // vector-add of 1000 elements: 5.8 µs median, 5.1 µs the fastest.
            launch_overhead_s: 5.5e-6,
            instruction_clocks: 4.0,
            barrier_clocks: 200.0,
            shared_clocks: 1.0,
            divergence_clocks: 300.0,
            load_clocks: [35.0, 320.0, 700.0],
            // Eight warps read-modify-writing 32 lines per request in L1 (`strided-rmw
            // start=32 threads=256`): 1.02 M lines in 820 µs, 1.6 clocks a line.
            l1_line_clocks: 1.6,
            line_clocks: 1.0,
            // The panel sweep (`cuda/timing/page_order.cu`, fitted by
            // `scripts/dram_runs_fit.py`): the same tiled copy, its wave's runs from 512 bytes to
            // whole rows; 1.5 % per halving below 64 KiB gives its 19 launches' times relative
            // to row order within 0.8 % on average (6.2 % with no cost).
            dram_run_cost: 0.015,
            dram_run_bytes: 65536.0,
        }
    }

    /// What the first wave's short runs add to DRAM time, as a share: each granule pays
    /// [`Timing::dram_run_cost`] per halving of its run below [`Timing::dram_run_bytes`] (a run
    /// of 2^k to 2^(k+1) − 1 granules taken at its geometric middle).
    #[must_use]
    pub fn scatter(&self, wave: &WaveRuns) -> f64 {
        let total = wave.granule_total();
        if total == 0 {
            return 0.0;
        }
        let paid: f64 = wave
            .granules
            .iter()
            .enumerate()
            .map(|(k, &n)| {
                let run = 64.0 * 2f64.powf(k as f64 + 0.5);
                n as f64 * (self.dram_run_bytes / run).log2().max(0.0)
            })
            .sum();
        self.dram_run_cost * paid / total as f64
    }
}

/// The bytes DRAM moves per sector byte, from the first wave's sample: DRAM moves 64-byte
/// granules, so a sector whose neighbour in its granule is not wanted costs two (1 with no
/// sample).
#[must_use]
pub fn overfetch(wave: &WaveRuns) -> f64 {
    if wave.sectors == 0 {
        1.0
    } else {
        2.0 * wave.granule_total() as f64 / wave.sectors as f64
    }
}

impl Timing {
    /// Predicted seconds of a `cudaMemset` of `bytes`: written at DRAM bandwidth.
    #[must_use]
    pub fn memset_s(&self, bytes: u64) -> f64 {
        bytes as f64 / self.dram_bytes_per_s
    }

    /// Predicted seconds of a device-to-device `cudaMemcpy` of `bytes`: read and written at
    /// DRAM bandwidth.
    #[must_use]
    pub fn device_copy_s(&self, bytes: u64) -> f64 {
        2.0 * bytes as f64 / self.dram_bytes_per_s
    }

    /// Predicted seconds of a host-to-device or device-to-host `cudaMemcpy` of `bytes`.
    #[must_use]
    pub fn host_copy_s(&self, bytes: u64) -> f64 {
        bytes as f64 / self.host_bytes_per_s
    }
}

/// One launch's predicted time and what bounds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// Predicted time of the launch, milliseconds, launch overhead included.
    pub ms: f64,
    /// What bounds it.
    pub limiter: Limiter,
    /// Each part's time in milliseconds, overhead excluded, in [`Limiter`] order (the launch
    /// overhead last).
    pub parts: Vec<(Limiter, f64)>,
    /// Blocks resident per SM at once.
    pub blocks_per_sm: u32,
    /// Waves of blocks (the last may be partial).
    pub waves: f64,
    /// Global memory the launch can reach, bytes.
    pub footprint: u64,
    /// Whether the footprint is taken to stay in L2 (no DRAM traffic).
    pub l2_resident: bool,
    /// The global load batches the latency part waits for ([`Counters::gld_batches`]).
    pub load_batches: u64,
    /// The first wave's runs ([`WaveRuns`]).
    pub wave: WaveRuns,
    /// What the first wave's short runs add to DRAM time, as a share ([`Timing::scatter`]).
    pub dram_scatter: f64,
}

impl Prediction {
    /// The time of part `l` in milliseconds.
    #[must_use]
    pub fn part(&self, l: Limiter) -> f64 {
        self.parts
            .iter()
            .find(|(k, _)| *k == l)
            .map_or(0.0, |(_, ms)| *ms)
    }
}

/// What the model needs to know about a launch.
#[derive(Clone, Debug)]
pub struct Work<'a> {
    /// The launch's counters.
    pub counters: &'a Counters,
    /// Blocks in the grid.
    pub blocks: u64,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Shared memory per block, bytes.
    pub shared_bytes: u32,
    /// Global memory the launch can reach, bytes.
    pub footprint: u64,
    /// How the first wave's global sectors lie in memory.
    pub wave: WaveRuns,
}

impl Work<'_> {
    /// The work of a counted launch (`None` in fast mode, which counts nothing).
    #[must_use]
    pub fn of(r: &LaunchReport) -> Option<Work<'_>> {
        Some(Work {
            counters: r.counters.as_ref()?,
            blocks: r.grid.count(),
            threads_per_block: u32::try_from(r.block.count()).unwrap_or(u32::MAX),
            shared_bytes: r.shared_bytes,
            footprint: r.footprint,
            wave: r.samples.wave,
        })
    }
}

/// Predict the time of `w` on `p`.
///
/// ```
/// use warpsim::predict::{predict, Work};
/// use warpsim::{Counters, Profile};
///
/// // 2^24 floats read and 2^23 written, perfectly coalesced: DRAM-bound on an H100.
/// let c = Counters {
///     warp_instructions: 1 << 20,
///     gld_requests: 1 << 19,
///     gld_sectors: 1 << 21,
///     gst_requests: 1 << 18,
///     gst_sectors: 1 << 20,
///     gst_lines: 1 << 18,
///     warps_launched: 1 << 18,
///     ..Counters::default()
/// };
/// let w = Work { counters: &c, blocks: 1 << 15, threads_per_block: 256, shared_bytes: 0,
///                footprint: 96 << 20, wave: Default::default() };
/// let p = predict(&w, &Profile::sm_90());
/// assert_eq!(p.limiter.name(), "dram");
/// assert!(p.ms > 0.03 && p.ms < 0.05);
/// ```
#[must_use]
pub fn predict(w: &Work<'_>, p: &Profile) -> Prediction {
    let t = Timing::of(p);
    let c = w.counters;
    // Per-SM resources work only on the SMs that have a block.
    let busy_sms = (w.blocks as f64).clamp(1.0, f64::from(t.sms));
    let sm_clocks = busy_sms * t.clock_hz;
    let f = |x: u64| x as f64;
    let load_bytes = f(c.gld_sectors) * 32.0;
    let store_bytes = f(c.gst_sectors + c.atomic_sectors) * 32.0;
    // 32 MiB footprints run at L2 speed on an H100 (50 MiB of L2), 48 MiB at DRAM speed.
    let l2_resident = w.footprint <= t.l2_bytes / 4 * 3;
    let scatter = t.scatter(&w.wave);
    let dram = if l2_resident {
        0.0
    } else {
        ((load_bytes + store_bytes) * overfetch(&w.wave)).min(f(w.footprint)) / t.dram_bytes_per_s
            * (1.0 + scatter)
    };
    let l2 = ((load_bytes.min(f(w.footprint)) + store_bytes) / t.l2_bytes_per_s)
        .max(f(c.gst_lines) / t.l2_store_lines_per_s);
    // Lines global requests touch beyond their first (uncoalesced requests).
    let extra_lines =
        f((c.gld_lines + c.gst_lines).saturating_sub(c.gld_requests + c.gst_requests));
    let l1 = (f(c.gld_requests) + extra_lines * t.l1_line_clocks) / sm_clocks;
    let shared = f(c.shared_ld_wavefronts + c.shared_st_wavefronts) / sm_clocks;
    let atomics = f(c.atomic_sectors) / (t.atomics_per_clock * t.clock_hz);
    let issue = f(c.warp_instructions) / (t.issue_per_clock * sm_clocks);

    // Latency: one dependency chain per warp, one chain per wave of blocks.
    let warps = f(c.warps_launched.max(1));
    let occupancy = p
        .occupancy(
            w.threads_per_block.max(1),
            ASSUMED_REGISTERS,
            w.shared_bytes,
        )
        .map_or(1, |o| o.blocks_per_sm.max(1));
    let waves = w.blocks as f64 / (f64::from(t.sms) * f64::from(occupancy));
    // Loads re-reading their data mostly hit L1: the share of requests that fetch new data is
    // the footprint over a line per request (by requests, not sectors, so that more sectors
    // never shorten the wait).
    let fresh = (f(w.footprint) / (f(c.gld_requests) * 128.0).max(1.0)).min(1.0);
    let [l1_clocks, l2_clocks, dram_clocks] = t.load_clocks;
    let far = if l2_resident { l2_clocks } else { dram_clocks };
    let load_clocks = l1_clocks + fresh * (far - l1_clocks);
    let chain = (f(c.warp_instructions) * t.instruction_clocks
        + f(c.barriers) * t.barrier_clocks
        + f(c.shared_ld_requests + c.shared_st_requests) * t.shared_clocks
        + f(c.divergent_branches) * t.divergence_clocks
        + f(c.gld_batches) * load_clocks
        + extra_lines * t.line_clocks)
        / warps;
    let latency = waves.ceil().max(1.0) * chain / t.clock_hz;

    let parts = vec![
        (Limiter::Dram, dram),
        (Limiter::L2, l2),
        (Limiter::L1, l1),
        (Limiter::Shared, shared),
        (Limiter::Atomics, atomics),
        (Limiter::Issue, issue),
        (Limiter::Latency, latency),
        (Limiter::Launch, t.launch_overhead_s),
    ];
    let (slowest_part, slowest) =
        parts[..parts.len() - 1]
            .iter()
            .copied()
            .fold((Limiter::Launch, 0.0), |best, part| {
                if part.1 > best.1 { part } else { best }
            });
    let limiter = if slowest >= t.launch_overhead_s {
        slowest_part
    } else {
        Limiter::Launch
    };
    let bandwidth = parts
        .iter()
        .filter(|(l, _)| !matches!(l, Limiter::Latency | Limiter::Launch))
        .fold(0.0f64, |m, &(_, s)| m.max(s));
    Prediction {
        ms: (t.launch_overhead_s + overlap(bandwidth, latency)) * 1e3,
        limiter,
        parts: parts.into_iter().map(|(l, s)| (l, s * 1e3)).collect(),
        blocks_per_sm: occupancy,
        waves,
        footprint: w.footprint,
        l2_resident,
        load_batches: c.gld_batches,
        wave: w.wave,
        dram_scatter: scatter,
    }
}

/// The time of a launch whose bandwidth parts take `bandwidth` at most and whose warps wait
/// `latency`: at least either, and more when they are close (they overlap only in part).
#[must_use]
fn overlap(bandwidth: f64, latency: f64) -> f64 {
    bandwidth.hypot(latency)
}

impl LaunchReport {
    /// The launch's predicted time on its profile's GPU (`None` in fast mode, which counts
    /// nothing to predict from). See [`crate::predict`].
    #[must_use]
    pub fn predicted(&self) -> Option<Prediction> {
        Work::of(self).map(|w| predict(&w, &self.profile))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coalesced(scale: u64) -> Counters {
        Counters {
            warp_instructions: 40 * scale,
            gld_requests: 2 * scale,
            gld_sectors: 8 * scale,
            gld_batches: scale,
            gst_requests: scale,
            gst_sectors: 4 * scale,
            gst_lines: scale,
            shared_ld_requests: scale,
            shared_ld_wavefronts: scale,
            barriers: scale,
            warps_launched: scale,
            ..Counters::default()
        }
    }

    fn work(c: &Counters, blocks: u64, footprint: u64) -> Work<'_> {
        Work {
            counters: c,
            blocks,
            threads_per_block: 256,
            shared_bytes: 1024,
            footprint,
            wave: WaveRuns::default(),
        }
    }

    #[test]
    fn shorter_runs_never_predict_less_time() {
        let p = Profile::sm_90();
        let c = coalesced(1 << 20);
        let at = |footprint: u64, k: usize| {
            let mut w = work(&c, 1 << 17, footprint);
            w.wave.granules[k] = 1 << 16;
            w.wave.sectors = 2 << 16;
            predict(&w, &p)
        };
        // DRAM-bound: each halving of the runs costs more, down to runs of one sector.
        let mut last = at(1 << 30, WaveRuns::BUCKETS - 1);
        assert_eq!(last.limiter, Limiter::Dram);
        assert_eq!(last.dram_scatter, 0.0, "runs of 512 MiB cost nothing more");
        for k in (0..WaveRuns::BUCKETS - 1).rev() {
            let now = at(1 << 30, k);
            assert!(
                now.ms >= last.ms,
                "runs of 2^{k} granules: {} < {}",
                now.ms,
                last.ms
            );
            last = now;
        }
        assert!(last.dram_scatter > 0.1, "{}", last.dram_scatter);
        // A footprint that stays in L2 pays no DRAM, however its runs lie.
        assert_eq!(at(1 << 20, 0).ms, at(1 << 20, WaveRuns::BUCKETS - 1).ms);
    }

    #[test]
    fn more_sectors_never_predict_less_time() {
        let p = Profile::sm_90();
        for footprint in [1 << 20, 1 << 30] {
            for scale in [1u64, 1 << 10, 1 << 16, 1 << 20] {
                let base = coalesced(scale);
                let before = predict(&work(&base, scale / 8 + 1, footprint), &p).ms;
                for extra in [1u64, 7, 1000, 1 << 20] {
                    let mut more = base;
                    more.gld_sectors += extra;
                    more.gst_sectors += extra;
                    more.atomic_sectors += extra;
                    let after = predict(&work(&more, scale / 8 + 1, footprint), &p).ms;
                    assert!(after >= before, "{scale} +{extra}: {after} < {before}");
                }
            }
        }
    }

    #[test]
    fn more_lines_per_request_never_predict_less_time() {
        let p = Profile::sm_90();
        for blocks in [1u64, 1 << 12] {
            let mut c = coalesced(1 << 12);
            c.gld_lines = c.gld_requests;
            let one = predict(&work(&c, blocks, 1 << 20), &p).ms;
            let mut last = one;
            for lines in [2u64, 8, 32] {
                let mut more = c;
                more.gld_lines = c.gld_requests * lines;
                more.gst_lines = c.gst_requests * lines;
                let t = predict(&work(&more, blocks, 1 << 20), &p).ms;
                assert!(t >= last, "{blocks} blocks, {lines} lines: {t} < {last}");
                last = t;
            }
            // An uncoalesced request waits for its lines: one block's warps take longer.
            assert!(blocks > 1 || last > 1.5 * one, "{last} against {one}");
        }
    }

    #[test]
    fn never_less_than_the_launch_overhead() {
        for p in Profile::all() {
            let overhead = Timing::of(&p).launch_overhead_s * 1e3;
            let empty = Counters::default();
            let pr = predict(&work(&empty, 1, 0), &p);
            assert_eq!(pr.limiter, Limiter::Launch, "{}", p.name);
            assert!(pr.ms >= overhead);
            for scale in [1u64, 100, 1 << 16] {
                let c = coalesced(scale);
                assert!(predict(&work(&c, scale, 1 << 28), &p).ms >= overhead);
            }
        }
    }

    #[test]
    fn a_second_wave_costs_time() {
        let p = Profile::sm_90();
        // Latency-bound blocks: 8 warps, each 100 instructions and 200 barriers.
        let per_block = |blocks: u64| Counters {
            warp_instructions: 100 * 8 * blocks,
            barriers: 200 * 8 * blocks,
            warps_launched: 8 * blocks,
            ..Counters::default()
        };
        let wave = u64::from(p.sm_count) * 8; // 256 threads, 32 registers: 8 blocks per SM
        let one = per_block(wave);
        let two = per_block(wave + 1);
        let a = predict(&work(&one, wave, 1 << 20), &p);
        let b = predict(&work(&two, wave + 1, 1 << 20), &p);
        assert_eq!(a.blocks_per_sm, 8);
        assert!(a.waves <= 1.0 && b.waves > 1.0);
        assert_eq!(b.limiter, Limiter::Latency);
        // The extra block runs alone in a second wave: nearly twice the kernel's time.
        let kernel = |x: &Prediction| x.ms - x.part(Limiter::Launch);
        assert!(kernel(&b) > 1.9 * kernel(&a), "{b:?} vs {a:?}");
    }

    #[test]
    fn the_limiter_is_named_and_is_the_largest_part() {
        let p = Profile::sm_90();
        let cases = [
            (coalesced(1 << 20), 1u64 << 17, 1u64 << 30, Limiter::Dram),
            (
                Counters {
                    shared_ld_requests: 1 << 20,
                    shared_ld_wavefronts: 32 << 20,
                    warps_launched: 1 << 12,
                    ..Counters::default()
                },
                1 << 9,
                1 << 20,
                Limiter::Shared,
            ),
            (
                Counters {
                    atomic_requests: 1 << 20,
                    atomic_sectors: 20 << 20,
                    warps_launched: 1 << 15,
                    ..Counters::default()
                },
                1 << 12,
                1 << 10,
                Limiter::Atomics,
            ),
        ];
        for (c, blocks, footprint, want) in cases {
            let pr = predict(&work(&c, blocks, footprint), &p);
            assert_eq!(pr.limiter, want, "{pr:?}");
            let top = pr.parts[..pr.parts.len() - 1]
                .iter()
                .map(|(_, ms)| *ms)
                .fold(0.0, f64::max);
            assert_eq!(pr.part(want), top);
            assert!(!want.name().is_empty() && !want.describe().is_empty());
        }
    }

    #[test]
    fn loads_in_flight_together_wait_once() {
        let p = Profile::sm_90();
        // The plain transpose copy of 4096² (a load, then a store that uses it, four times per
        // warp) against the same accesses with the four loads issued together.
        let blocks = 1u64 << 14;
        let serial = Counters {
            warp_instructions: 24 << 17,
            gld_requests: 4 << 17,
            gld_sectors: 16 << 17,
            gld_batches: 4 << 17,
            gst_requests: 4 << 17,
            gst_sectors: 16 << 17,
            gst_lines: 4 << 17,
            warps_launched: 1 << 17,
            ..Counters::default()
        };
        let together = Counters {
            gld_batches: 1 << 17,
            ..serial
        };
        let w = |c| predict(&work(c, blocks, 128 << 20), &p);
        let (a, b) = (w(&serial), w(&together));
        assert!(a.part(Limiter::Latency) > b.part(Limiter::Latency));
        // Both are DRAM-bound, yet waiting four times costs time on top.
        assert_eq!((a.limiter, b.limiter), (Limiter::Dram, Limiter::Dram));
        assert!(
            a.ms > b.ms && b.ms > b.part(Limiter::Dram),
            "{a:?} vs {b:?}"
        );
        // And never less than either bound.
        for x in [&a, &b] {
            let kernel = x.ms - x.part(Limiter::Launch);
            assert!(kernel >= x.part(Limiter::Dram) && kernel >= x.part(Limiter::Latency));
        }
    }

    #[test]
    fn a_footprint_that_fits_in_l2_costs_no_dram() {
        let p = Profile::sm_90();
        let c = coalesced(1 << 16);
        assert!(predict(&work(&c, 1 << 13, 8 << 20), &p).l2_resident);
        assert_eq!(
            predict(&work(&c, 1 << 13, 8 << 20), &p).part(Limiter::Dram),
            0.0
        );
        assert!(predict(&work(&c, 1 << 13, 1 << 30), &p).part(Limiter::Dram) > 0.0);
    }
}
