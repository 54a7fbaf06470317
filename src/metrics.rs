//! Counters and the metrics derived from them.
//!
//! A counting launch ([`crate::Mode::Count`]) adds up, over every warp of every block, the events
//! nvprof and Nsight Compute count on a GPU ([`Counters`]); [`Metrics`] derives the familiar
//! percentages from them under a device profile. Counting happens at the level of the kernel's
//! source: every warp-level operation with an active lane is one warp instruction (arithmetic,
//! comparison, select, conversion, memory access, shuffle, vote, branch, barrier; splatting a
//! uniform value and reading an index are free), every lane-varying `if`, loop condition and
//! early exit is one branch. All counts are integers summed per block and then over blocks, so
//! they are identical for any number of CPU threads.
//!
//! | metric | definition |
//! |---|---|
//! | `warp_execution_efficiency` | 100 × thread instructions / (32 × warp instructions) |
//! | `branch_efficiency` | 100 × (branches − divergent) / branches (100 with no branch) |
//! | `gld_transactions` | lines on profiles that cache loads in a 128-byte L1, sectors otherwise |
//! | `gld_efficiency` | 100 × requested bytes / (transactions × transaction size) |
//! | `gst_efficiency` | 100 × requested bytes / (sectors × 32) |
//! | `shared_*_bank_conflicts` | wavefronts − ideal wavefronts (see [`crate::memory::shared`]) |

use crate::profile::{GlobalCaching, Profile};
use std::ops::AddAssign;

/// Raw event counts of a launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Warp-level operations issued with at least one active lane.
    pub warp_instructions: u64,
    /// The same, weighted by active lanes.
    pub thread_instructions: u64,
    /// Lane-varying branches evaluated (each loop-condition evaluation counts).
    pub branches: u64,
    /// Branches where both outcomes had lanes.
    pub divergent_branches: u64,
    /// Global load requests (warp instructions).
    pub gld_requests: u64,
    /// Distinct 32-byte sectors of global loads.
    pub gld_sectors: u64,
    /// Distinct 128-byte lines of global loads.
    pub gld_lines: u64,
    /// Bytes requested by active lanes of global loads.
    pub gld_bytes: u64,
    /// Global load batches: runs of one warp's global loads with no global store, global
    /// atomic or barrier of that warp between them, at most [`Counters::LOAD_BATCH`] loads
    /// each. These are the loads a compiler can keep in flight together (a load cannot move
    /// above a store that might write its address, nor past a barrier). Not a GPU counter: the
    /// timing model's measure of memory-level parallelism ([`crate::predict`]).
    pub gld_batches: u64,
    /// Global store requests.
    pub gst_requests: u64,
    /// Distinct 32-byte sectors of global stores.
    pub gst_sectors: u64,
    /// Distinct 128-byte lines of global stores.
    pub gst_lines: u64,
    /// Bytes requested by active lanes of global stores.
    pub gst_bytes: u64,
    /// Shared load requests.
    pub shared_ld_requests: u64,
    /// Shared load wavefronts.
    pub shared_ld_wavefronts: u64,
    /// Conflict-free wavefronts the shared loads would have needed.
    pub shared_ld_ideal: u64,
    /// Shared store requests.
    pub shared_st_requests: u64,
    /// Shared store wavefronts.
    pub shared_st_wavefronts: u64,
    /// Conflict-free wavefronts the shared stores would have needed.
    pub shared_st_ideal: u64,
    /// Shared requests by conflict degree: entry `n - 1` counts n-way requests (entry 0: no
    /// conflict).
    pub shared_conflict_ways: [u64; 32],
    /// Atomic requests (global and shared).
    pub atomic_requests: u64,
    /// Sectors of global atomic requests.
    pub atomic_sectors: u64,
    /// Barrier instructions (`sync_threads` and its variants) executed by warps.
    pub barriers: u64,
    /// Warps launched.
    pub warps_launched: u64,
}

impl Counters {
    /// The most global loads one batch holds ([`Counters::gld_batches`]): the four row loads
    /// of the documents' tiled transposes, which the H100 keeps in flight together. A modelling
    /// choice (a warp's loads in flight are bounded by its registers), not measured beyond them.
    pub const LOAD_BATCH: u32 = 4;
}

impl AddAssign<&Counters> for Counters {
    fn add_assign(&mut self, o: &Counters) {
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        self.branches += o.branches;
        self.divergent_branches += o.divergent_branches;
        self.gld_requests += o.gld_requests;
        self.gld_sectors += o.gld_sectors;
        self.gld_lines += o.gld_lines;
        self.gld_bytes += o.gld_bytes;
        self.gld_batches += o.gld_batches;
        self.gst_requests += o.gst_requests;
        self.gst_sectors += o.gst_sectors;
        self.gst_lines += o.gst_lines;
        self.gst_bytes += o.gst_bytes;
        self.shared_ld_requests += o.shared_ld_requests;
        self.shared_ld_wavefronts += o.shared_ld_wavefronts;
        self.shared_ld_ideal += o.shared_ld_ideal;
        self.shared_st_requests += o.shared_st_requests;
        self.shared_st_wavefronts += o.shared_st_wavefronts;
        self.shared_st_ideal += o.shared_st_ideal;
        for (a, b) in self
            .shared_conflict_ways
            .iter_mut()
            .zip(&o.shared_conflict_ways)
        {
            *a += b;
        }
        self.atomic_requests += o.atomic_requests;
        self.atomic_sectors += o.atomic_sectors;
        self.barriers += o.barriers;
        self.warps_launched += o.warps_launched;
    }
}

/// The counters of one kernel source line ([`crate::LaunchReport::lines`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineCounters {
    /// The source file, as the compiler names it (empty for counts no line issued, such as
    /// the warps launched).
    pub file: String,
    /// The line, from 1 (0 with an empty `file`).
    pub line: u32,
    /// What the line's operations counted.
    pub counters: Counters,
}

impl LineCounters {
    /// Group counters by source location into lines, sorted by file and line.
    pub(crate) fn from_sites(
        sites: Vec<(Option<crate::site::Site>, Counters)>,
        table: &crate::site::SiteTable,
    ) -> Vec<LineCounters> {
        let mut lines: Vec<LineCounters> = Vec::new();
        for (site, c) in sites {
            let (file, line) = site
                .and_then(|s| table.position(s))
                .map_or((String::new(), 0), |p| (p.file, p.line));
            match lines.iter_mut().find(|l| l.file == file && l.line == line) {
                Some(l) => l.counters += &c,
                None => lines.push(LineCounters {
                    file,
                    line,
                    counters: c,
                }),
            }
        }
        lines.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        lines
    }
}

/// One warp's memory instruction, as the report's pictures draw it: where each lane went and
/// what the warp cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessSample {
    /// Global or shared memory.
    pub space: crate::error::Space,
    /// Load, store or atomic.
    pub access: crate::error::AccessKind,
    /// The buffer's name.
    pub buffer: String,
    /// Bytes per lane.
    pub elem_bytes: u32,
    /// Per lane, the byte address it accessed (device address for global memory, offset in the
    /// block's shared memory for shared); `None` for lanes that did not access.
    pub addresses: Vec<Option<u64>>,
    /// 32-byte sectors the warp touched (global).
    pub sectors: u64,
    /// 128-byte lines the warp touched (global).
    pub lines: u64,
    /// Shared-memory wavefronts the warp took, and the conflict-free number (shared).
    pub wavefronts: (u64, u64),
    /// The block and warp (within the block) that made the access.
    pub block: crate::Dim3,
    /// The warp within the block.
    pub warp: u32,
    /// The source line of the instruction, when known.
    pub site: Option<crate::site::SourcePos>,
}

/// What the report's pictures are drawn from, collected by counting launches: the costliest
/// warp access of each memory space and where branches diverged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Samples {
    /// The global access of one warp with the most sectors (the lowest block and warp among
    /// equals, so the choice does not depend on the number of CPU threads).
    pub worst_global: Option<AccessSample>,
    /// The shared access of one warp with the most wavefronts (likewise).
    pub worst_shared: Option<AccessSample>,
    /// Divergent branches of each warp of each block, `[block × warps_per_block + warp]` with
    /// blocks in linear order; empty for grids of more than [`Samples::MAX_MAP_WARPS`] warps.
    pub divergent_by_block: Vec<u32>,
    /// Divergent branches by step and warp index, summed over blocks: step `k` of a warp is
    /// the `k`-th lane-varying branch the warp evaluates with a lane executing (the `k`-th
    /// iteration of a loop holding one branch), for the first [`Samples::MAX_STEPS`] steps.
    /// Steps are counted per warp, as a GPU's warps issue their instructions: a warp whose
    /// lanes have all left a loop takes no more steps in it.
    pub divergent_by_step: Vec<Vec<u64>>,
    /// The source line of each step's branch, in the first warp that reached it (the lowest
    /// block, then warp).
    pub step_sites: Vec<Option<crate::site::SourcePos>>,
    /// How the global memory that the first wave of blocks touches lies in DRAM.
    pub wave: WaveRuns,
}

/// How the global memory that the blocks resident at once touch lies: the distinct 32-byte
/// sectors of the first wave's global loads and stores (the first [`WaveRuns::ACCESSES`] of
/// each warp), and the 64-byte granules that hold them grouped into runs of consecutive
/// granules.
///
/// The first wave is the grid's first blocks, as many as the profile's SMs hold at once (32
/// registers per thread assumed; the launch's shared memory as declared). DRAM moves whole
/// granules, so a wave whose lanes each read a sector of their own, 64 bytes or more apart,
/// moves twice its sectors' bytes; a wave whose blocks read whole rows touches long runs, one
/// whose blocks each take a tile from another row of tiles (the diagonal transpose) short ones,
/// and DRAM serves those more slowly ([`crate::predict`]). Which blocks and accesses are sampled
/// does not depend on the CPU threads or the tier, so neither does this.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaveRuns {
    /// Blocks in the first wave.
    pub blocks: u64,
    /// Distinct sectors sampled.
    pub sectors: u64,
    /// `granules[k]`: the 64-byte granules lying in runs of 2^k to 2^(k+1) − 1 consecutive
    /// granules (the last entry also holds longer runs).
    pub granules: [u64; WaveRuns::BUCKETS],
}

impl WaveRuns {
    /// Global loads and stores per warp sampled, from its first.
    pub const ACCESSES: u32 = 32;
    /// Run lengths told apart: up to 2^23 granules (512 MiB).
    pub const BUCKETS: usize = 24;

    /// The runs of the sectors in `chunks`: per 64 sectors (2 KiB), in increasing order, the
    /// chunk's number and which of its sectors were touched (bit `k`: sector `64 × chunk + k`);
    /// from a wave of `blocks` blocks.
    ///
    /// ```
    /// use warpsim::WaveRuns;
    ///
    /// // Sectors 61 to 65 (granules 30 to 32, across two chunks), then sector 200 alone.
    /// let w = WaveRuns::of(1, &[(0, 0b111 << 61), (1, 0b11), (3, 1 << 8)]);
    /// assert_eq!(w.sectors, 6);
    /// assert_eq!(w.granules[1], 3); // one run of 3 granules: 2^1 to 2^2 - 1
    /// assert_eq!(w.granules[0], 1); // one run of 1
    /// assert_eq!(w.granule_total(), 4);
    /// ```
    #[must_use]
    pub fn of(blocks: u64, chunks: &[(u64, u64)]) -> WaveRuns {
        let mut w = WaveRuns {
            blocks,
            ..WaveRuns::default()
        };
        let mut add = |len: u64| {
            if len > 0 {
                let k = (len.ilog2() as usize).min(Self::BUCKETS - 1);
                w.granules[k] += len;
            }
        };
        let (mut len, mut next) = (0, None);
        for &(chunk, bits) in chunks {
            w.sectors += u64::from(bits.count_ones());
            // Granule g of the chunk holds sectors 2g and 2g + 1: one bit each, at 2g.
            let mut granules = (bits | bits >> 1) & 0x5555_5555_5555_5555;
            while granules != 0 {
                let g = chunk * 32 + u64::from(granules.trailing_zeros() / 2);
                granules &= granules - 1;
                if next != Some(g) {
                    add(len);
                    len = 0;
                }
                len += 1;
                next = Some(g + 1);
            }
        }
        add(len);
        w
    }

    /// Distinct granules sampled.
    #[must_use]
    pub fn granule_total(&self) -> u64 {
        self.granules.iter().sum()
    }
}

impl Samples {
    /// The largest grid (in warps) whose per-block divergence map is kept.
    pub const MAX_MAP_WARPS: u64 = 1 << 20;
    /// Branch steps kept per block.
    pub const MAX_STEPS: usize = 256;
}

fn pct(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        100.0 * num as f64 / den as f64
    }
}

/// The metrics of one launch, named as in warpsim's JSON output (and, where one exists, as the
/// nvprof metric of the same meaning).
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    /// See [`Counters::warp_instructions`].
    pub warp_instructions: u64,
    /// See [`Counters::thread_instructions`].
    pub thread_instructions: u64,
    /// 100 × thread instructions / (32 × warp instructions).
    pub warp_execution_efficiency: f64,
    /// Lane-varying branches.
    pub branches: u64,
    /// Divergent branches.
    pub divergent_branches: u64,
    /// 100 × non-divergent / all branches (100 without branches).
    pub branch_efficiency: f64,
    /// Global load requests.
    pub gld_requests: u64,
    /// Global load sectors.
    pub gld_sectors: u64,
    /// Global load 128-byte lines.
    pub gld_lines: u64,
    /// Global load transactions (lines or sectors, by profile).
    pub gld_transactions: u64,
    /// Global load bytes requested.
    pub gld_bytes: u64,
    /// Global load efficiency, percent.
    pub gld_efficiency: f64,
    /// Global store requests.
    pub gst_requests: u64,
    /// Global store sectors.
    pub gst_sectors: u64,
    /// Global store 128-byte lines.
    pub gst_lines: u64,
    /// Global store transactions (sectors).
    pub gst_transactions: u64,
    /// Global store bytes requested.
    pub gst_bytes: u64,
    /// Global store efficiency, percent.
    pub gst_efficiency: f64,
    /// Shared load requests.
    pub shared_ld_requests: u64,
    /// Shared load wavefronts.
    pub shared_ld_wavefronts: u64,
    /// Shared load bank conflicts (wavefronts − ideal).
    pub shared_ld_bank_conflicts: u64,
    /// Shared store requests.
    pub shared_st_requests: u64,
    /// Shared store wavefronts.
    pub shared_st_wavefronts: u64,
    /// Shared store bank conflicts.
    pub shared_st_bank_conflicts: u64,
    /// Atomic requests.
    pub atomic_requests: u64,
    /// Barrier instructions.
    pub barriers: u64,
}

/// One metric value: a count or a percentage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MetricValue {
    /// An integer count.
    Count(u64),
    /// A percentage (0–100).
    Percent(f64),
}

impl std::fmt::Display for MetricValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MetricValue::Count(c) => write!(f, "{c}"),
            MetricValue::Percent(p) => write!(f, "{p:.2}"),
        }
    }
}

impl Metrics {
    /// The metric names, in output order.
    pub const NAMES: [&'static str; 26] = [
        "warp_instructions",
        "thread_instructions",
        "warp_execution_efficiency",
        "branches",
        "divergent_branches",
        "branch_efficiency",
        "gld_requests",
        "gld_sectors",
        "gld_lines",
        "gld_transactions",
        "gld_bytes",
        "gld_efficiency",
        "gst_requests",
        "gst_sectors",
        "gst_lines",
        "gst_transactions",
        "gst_bytes",
        "gst_efficiency",
        "shared_ld_requests",
        "shared_ld_wavefronts",
        "shared_ld_bank_conflicts",
        "shared_st_requests",
        "shared_st_wavefronts",
        "shared_st_bank_conflicts",
        "atomic_requests",
        "barriers",
    ];

    /// Derive the metrics of `c` under `profile`.
    pub fn new(c: &Counters, profile: &Profile) -> Metrics {
        let (gld_transactions, gld_unit) = match profile.global_loads {
            GlobalCaching::L1Lines128 => (c.gld_lines, 128),
            GlobalCaching::Sectors32 => (c.gld_sectors, 32),
        };
        Metrics {
            warp_instructions: c.warp_instructions,
            thread_instructions: c.thread_instructions,
            warp_execution_efficiency: pct(c.thread_instructions, 32 * c.warp_instructions),
            branches: c.branches,
            divergent_branches: c.divergent_branches,
            branch_efficiency: if c.branches == 0 {
                100.0
            } else {
                pct(c.branches - c.divergent_branches, c.branches)
            },
            gld_requests: c.gld_requests,
            gld_sectors: c.gld_sectors,
            gld_lines: c.gld_lines,
            gld_transactions,
            gld_bytes: c.gld_bytes,
            gld_efficiency: pct(c.gld_bytes, gld_transactions * gld_unit),
            gst_requests: c.gst_requests,
            gst_sectors: c.gst_sectors,
            gst_lines: c.gst_lines,
            gst_transactions: c.gst_sectors,
            gst_bytes: c.gst_bytes,
            gst_efficiency: pct(c.gst_bytes, c.gst_sectors * 32),
            shared_ld_requests: c.shared_ld_requests,
            shared_ld_wavefronts: c.shared_ld_wavefronts,
            shared_ld_bank_conflicts: c.shared_ld_wavefronts - c.shared_ld_ideal,
            shared_st_requests: c.shared_st_requests,
            shared_st_wavefronts: c.shared_st_wavefronts,
            shared_st_bank_conflicts: c.shared_st_wavefronts - c.shared_st_ideal,
            atomic_requests: c.atomic_requests,
            barriers: c.barriers,
        }
    }

    /// Every metric with its name, in [`Metrics::NAMES`] order.
    pub fn entries(&self) -> [(&'static str, MetricValue); 26] {
        use MetricValue::{Count as C, Percent as P};
        let values = [
            C(self.warp_instructions),
            C(self.thread_instructions),
            P(self.warp_execution_efficiency),
            C(self.branches),
            C(self.divergent_branches),
            P(self.branch_efficiency),
            C(self.gld_requests),
            C(self.gld_sectors),
            C(self.gld_lines),
            C(self.gld_transactions),
            C(self.gld_bytes),
            P(self.gld_efficiency),
            C(self.gst_requests),
            C(self.gst_sectors),
            C(self.gst_lines),
            C(self.gst_transactions),
            C(self.gst_bytes),
            P(self.gst_efficiency),
            C(self.shared_ld_requests),
            C(self.shared_ld_wavefronts),
            C(self.shared_ld_bank_conflicts),
            C(self.shared_st_requests),
            C(self.shared_st_wavefronts),
            C(self.shared_st_bank_conflicts),
            C(self.atomic_requests),
            C(self.barriers),
        ];
        let mut i = 0;
        values.map(|v| {
            i += 1;
            (Self::NAMES[i - 1], v)
        })
    }

    /// The metric called `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<MetricValue> {
        self.entries()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efficiencies_follow_the_profile() {
        let c = Counters {
            gld_requests: 1,
            gld_sectors: 5,
            gld_lines: 2,
            gld_bytes: 128,
            warp_instructions: 2,
            thread_instructions: 48,
            branches: 4,
            divergent_branches: 1,
            ..Counters::default()
        };
        let m90 = Metrics::new(&c, &Profile::sm_90());
        assert_eq!(m90.gld_transactions, 5);
        assert_eq!(m90.gld_efficiency, 80.0);
        assert_eq!(m90.warp_execution_efficiency, 75.0);
        assert_eq!(m90.branch_efficiency, 75.0);
        let m20 = Metrics::new(&c, &Profile::sm_20());
        assert_eq!(m20.gld_transactions, 2);
        assert_eq!(m20.gld_efficiency, 50.0);
        assert_eq!(m20.get("gld_efficiency"), Some(MetricValue::Percent(50.0)));
        assert_eq!(m20.get("nope"), None);
    }
}
