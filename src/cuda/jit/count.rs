//! Counting on the compiled tier: what compiled code adds up itself, what it hands to the
//! helpers here, and how both reach the launch's counter ([`crate::count::Count`]), so that a
//! compiled launch counts exactly what the interpreter counts.
//!
//! Compiled code keeps, per block, two arrays (layouts below): per counting site the
//! instructions, branches, divergent branches and barriers of its warps (added inline, per
//! warp, from the warp's mask), and per warp its divergent branches and branch steps with, for
//! the first [`MAX_STEPS`] steps, the step's site and whether it diverged. A memory
//! instruction's cost depends on the lanes' addresses (sectors, lines, bank conflicts): per
//! warp, the compiled code calls [`access`] with the lanes' byte offsets, which builds the
//! interpreter's view of the access and counts it with the interpreter's own code. When the
//! block ends, [`Sink::fold`] adds the arrays to the counter.
//!
//! The helpers are called from compiled code (`extern "C"`): they must not panic (a panic
//! cannot unwind through compiled frames and would abort), so they look everything up with
//! `get` and ignore what they cannot find.

use crate::count::Count;
use crate::error::{AccessKind, Space};
use crate::lanes::U32x32;
use crate::memory::shared::BankGeometry;
use crate::memory::{Target, WarpAccess, WarpIdx};
use crate::site::Site;

/// Branch steps per warp whose site and divergence the compiled code records.
pub(crate) const MAX_STEPS: usize = crate::metrics::Samples::MAX_STEPS;

/// The `u64` counters per counting site, in this order: warp instructions, thread
/// instructions, branches, divergent branches, barriers.
pub(crate) const SITE_FIELDS: usize = 5;

/// `u32`s of a block's step record for `warps` warps: per warp its divergent branches, per
/// warp its steps taken, then per step and warp (`k × warps + w`) the divergent branches and
/// the counting site plus one.
pub(crate) fn step_words(warps: usize) -> usize {
    2 * warps + 2 * MAX_STEPS * warps
}

/// A memory instruction of the compiled code, as [`access`] is told about it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CountedAccess {
    /// Its counting site.
    pub site: u32,
    /// Its buffer slot.
    pub slot: u32,
    pub kind: AccessKind,
    /// Bytes per lane.
    pub size: u32,
}

/// What the interpreter knows of a buffer slot ([`Target`] without the element size).
#[derive(Clone, Copy)]
pub(crate) struct SlotTarget<'a> {
    pub space: Space,
    pub constant: bool,
    pub name: &'a str,
    /// The address of its first byte (a device address, or the offset in shared memory).
    pub base: u64,
    pub bytes: u64,
}

/// Where a compiled block's counts go.
pub(crate) struct Sink<'a> {
    pub count: &'a mut Count,
    /// Per counting site of the compiled code: the counter's site index and the site.
    pub sites: &'a [(usize, Site)],
    /// The compiled code's memory instructions ([`super::Compiled::accesses`]).
    pub accesses: &'a [CountedAccess],
    /// Per buffer slot.
    pub slots: &'a [SlotTarget<'a>],
    pub banks: BankGeometry,
}

/// Count warp `warp`'s part of memory instruction `access` (an index into
/// [`Sink::accesses`]): the lanes of `mask`, at `lanes[l]` bytes into the buffer.
pub(crate) extern "C" fn access(
    sink: &mut Sink<'_>,
    lanes: &[i64; 32],
    access: u32,
    warp: u32,
    mask: u32,
) {
    let Some(a) = sink.accesses.get(access as usize) else {
        return;
    };
    let (Some(t), Some(&(index, site))) = (
        sink.slots.get(a.slot as usize),
        sink.sites.get(a.site as usize),
    ) else {
        return;
    };
    let elem = a.size.max(1);
    let target = Target {
        space: t.space,
        constant: t.constant,
        name: t.name,
        len: (t.bytes / u64::from(elem)) as usize,
        base: t.base,
        elem,
    };
    // The compiled code checked every executing lane: inside the buffer and aligned (element
    // sizes are powers of two).
    let shift = elem.trailing_zeros();
    let idx: [u32; 32] = std::array::from_fn(|l| (lanes[l] as u64 >> shift) as u32);
    // Lanes at a fixed step take the counter's fast paths, as the interpreter's do.
    let step = idx[1].wrapping_sub(idx[0]);
    let affine = (0..32u32).all(|l| idx[l as usize] == idx[0].wrapping_add(l.wrapping_mul(step)));
    let lanes = U32x32::from_array(idx);
    let w = WarpAccess {
        warp,
        mask,
        idx: if affine {
            WarpIdx::Affine {
                start: idx[0],
                step,
            }
        } else {
            WarpIdx::Lanes(&lanes)
        },
    };
    sink.count
        .access(index, site, a.kind, &target, &w, sink.banks);
}

impl Sink<'_> {
    /// Add a finished block's inline counts to the counter, and clear them (all of the arrays
    /// are zero again) for the next block, of this kernel or another.
    pub fn fold(&mut self, tally: &mut [u64], steps: &mut [u32], warps: usize) {
        for (s, c) in tally.chunks_exact_mut(SITE_FIELDS).enumerate() {
            if c.iter().all(|&x| x == 0) {
                continue;
            }
            if let Some(&(index, _)) = self.sites.get(s) {
                let to = self.count.at(index);
                to.warp_instructions += c[0];
                to.thread_instructions += c[1];
                to.branches += c[2];
                to.divergent_branches += c[3];
                to.barriers += c[4];
            }
            c.fill(0);
        }
        let (divergent, rest) = steps.split_at_mut(warps);
        let (taken, rest) = rest.split_at_mut(warps);
        let (step_div, step_site) = rest.split_at_mut(MAX_STEPS * warps);
        for w in 0..warps {
            if divergent[w] != 0 {
                self.count.diverged(w, divergent[w]);
            }
            for k in 0..(taken[w] as usize).min(MAX_STEPS) {
                let i = k * warps + w;
                let site = (step_site[i] as usize)
                    .checked_sub(1)
                    .and_then(|s| self.sites.get(s));
                if let Some(&(_, at)) = site {
                    self.count.step(k, w, at, u64::from(step_div[i]));
                }
                // Both cleared: a kernel with another number of warps lays them out anew.
                step_div[i] = 0;
                step_site[i] = 0;
            }
            divergent[w] = 0;
            taken[w] = 0;
        }
    }
}
