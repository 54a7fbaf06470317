//! The counting observer: what a counting launch ([`crate::Mode::Count`]) adds up.
//!
//! The executor reports every instruction it executes; this observer turns the reports into the
//! [`Counters`] of [`crate::metrics`], per warp exactly as a GPU's counters do: an instruction is
//! one warp instruction for each warp with an active lane, a branch is evaluated (and may
//! diverge) per warp, a memory instruction is one request per warp whose lanes access, costing
//! the sectors, lines or wavefronts of that warp's addresses. Arithmetic is tallied by the
//! values themselves ([`crate::values`]) and added when the block ends.
//!
//! Counts are kept per source site when the launch attributes them to lines (see
//! [`crate::LaunchConfig::lines`]), in one bucket otherwise; they are integers summed per block
//! and then over blocks, so they do not depend on the number of CPU threads.

use crate::error::{AccessKind, Space};
use crate::memory::global::coalesce;
use crate::memory::shared::{BankGeometry, wavefronts};
use crate::memory::{Target, WarpAccess};
use crate::metrics::Counters;
use crate::values::frame::{Frame, Masks};
use crate::site::Site;

/// Counters of the blocks one worker ran, by site index of the worker's frame.
pub(crate) struct Count {
    pub sites: Vec<Counters>,
    /// Divergent branches by warp index within the block, summed over blocks.
    pub divergent_by_warp: Vec<u64>,
}

impl Count {
    pub fn new(warps: usize) -> Count {
        Count {
            sites: vec![Counters::default()],
            divergent_by_warp: vec![0; warps],
        }
    }

    #[inline]
    fn at(&mut self, site: usize) -> &mut Counters {
        if site >= self.sites.len() {
            self.sites.resize(site + 1, Counters::default());
        }
        &mut self.sites[site]
    }

    /// One instruction of every warp with an active lane.
    #[inline]
    pub fn instr(&mut self, site: usize, active: &Masks, warps: usize) {
        let c = self.at(site);
        for &m in &active[..warps] {
            if m != 0 {
                c.warp_instructions += 1;
                c.thread_instructions += u64::from(m.count_ones());
            }
        }
    }

    /// A branch: per warp with an active lane, one instruction and one branch, divergent when
    /// both sides have lanes.
    #[inline]
    pub fn branch(&mut self, site: usize, active: &Masks, taken: &Masks, warps: usize) {
        self.instr(site, active, warps);
        for w in 0..warps {
            if active[w] == 0 {
                continue;
            }
            let divergent = taken[w] != 0 && taken[w] != active[w];
            let c = self.at(site);
            c.branches += 1;
            if divergent {
                c.divergent_branches += 1;
                self.divergent_by_warp[w] += 1;
            }
        }
    }

    /// A barrier: one instruction and one barrier per arriving warp.
    pub fn barrier(&mut self, site: usize, active: &Masks, warps: usize) {
        self.instr(site, active, warps);
        let n = active[..warps].iter().filter(|&&m| m != 0).count() as u64;
        self.at(site).barriers += n;
    }

    /// One warp's request of a memory instruction (none if no lane of it accesses).
    #[inline]
    pub fn access(
        &mut self,
        site: usize,
        kind: AccessKind,
        t: &Target<'_>,
        a: &WarpAccess<'_>,
        banks: BankGeometry,
    ) {
        let c = self.at(site);
        if a.mask != 0 {
            let bytes = u64::from(a.mask.count_ones() * t.elem);
            match (t.space, kind) {
                (Space::Global, AccessKind::Load) => {
                    let (sectors, lines) = coalesce(t, a);
                    c.gld_requests += 1;
                    c.gld_sectors += sectors;
                    c.gld_lines += lines;
                    c.gld_bytes += bytes;
                }
                (Space::Global, AccessKind::Store) => {
                    let (sectors, lines) = coalesce(t, a);
                    c.gst_requests += 1;
                    c.gst_sectors += sectors;
                    c.gst_lines += lines;
                    c.gst_bytes += bytes;
                }
                (Space::Global, AccessKind::Atomic) => {
                    c.atomic_requests += 1;
                    c.atomic_sectors += coalesce(t, a).0;
                }
                (Space::Shared, AccessKind::Atomic) => c.atomic_requests += 1,
                (Space::Shared, load_or_store) => {
                    let load = load_or_store == AccessKind::Load;
                    wavefronts(banks, t, a, |wf, ideal| {
                        if load {
                            c.shared_ld_wavefronts += wf;
                            c.shared_ld_ideal += ideal;
                        } else {
                            c.shared_st_wavefronts += wf;
                            c.shared_st_ideal += ideal;
                        }
                        c.shared_conflict_ways[wf.div_ceil(ideal).clamp(1, 32) as usize - 1] += 1;
                    });
                    if load {
                        c.shared_ld_requests += 1;
                    } else {
                        c.shared_st_requests += 1;
                    }
                }
            }
        }
    }

    /// The block ended: add its warps and the arithmetic its values tallied.
    pub fn end_block(&mut self, fr: &mut Frame, warps: usize) {
        self.sites[0].warps_launched += warps as u64;
        for (i, t) in fr.tallies.iter_mut().enumerate() {
            if t.ops != 0 {
                let t = std::mem::take(t);
                let c = self.at(i);
                c.warp_instructions += t.ops;
                c.thread_instructions += t.lane_ops;
            }
        }
    }

    /// The counters by source location (`None`: not attributed), dropping empty sites.
    pub fn by_location(&self, fr: &Frame) -> Vec<(Option<Site>, Counters)> {
        self.sites
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != Counters::default())
            .map(|(i, c)| (fr.location(i), *c))
            .collect()
    }
}
