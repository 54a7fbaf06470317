//! Check mode: the bugs a GPU would hide.
//!
//! A launch in [`crate::Mode::Check`] counts like [`crate::Mode::Count`] and also watches every
//! access and barrier, reporting what NVIDIA's compute-sanitizer reports (and more) as
//! [`Finding`]s in [`crate::LaunchReport::findings`]:
//!
//! * **racecheck**: a shared-memory word written by one warp and read or written by another in
//!   the same barrier interval (no `sync_threads` between them) is a race, whichever order the
//!   warps happened to run in; between lanes of one warp with no `sync_warp` between the two
//!   accesses it is a warning: correct only under lockstep execution, broken under independent
//!   thread scheduling. Each word keeps a shadow of its last write and the readers of the current
//!   interval, so detection does not depend on the schedule.
//! * **initcheck**: reads of shared words never written in the block, and of global memory
//!   allocated with [`crate::Device::alloc_uninit`] and never written.
//! * **synccheck**: a `sync_warp`, shuffle or vote whose member mask names lanes that are not
//!   executing it (diverged, or not threads of the block at all) or leaves out lanes that are. A
//!   barrier that threads which returned never reach is no finding (they take no part, and
//!   compute-sanitizer reports none); one inside a divergent branch stops the block in every
//!   mode (barrier misuse).
//! * **memcheck**: out-of-bounds and misaligned accesses, with the nearest allocation and the
//!   distance to it; instead of stopping the launch the bad lanes are skipped and checking goes
//!   on, up to [`MAX_FINDINGS`].
//! * **global races**: plain accesses to one global address by different blocks of a launch
//!   where one writes, and plain accesses racing atomics, unless the blocks ordered them: a
//!   block that fences (`__threadfence`, [`crate::Block::thread_fence`]) and then makes an
//!   atomic on some address publishes its earlier accesses to any block whose atomic on that
//!   address comes later (the single-pass reduction's ticket); and what a block does to an
//!   address after its own atomic on it follows the earlier blocks' atomics there.
//!
//! [`explore`]'s instruction-granularity schedules ([`WarpOrder::Interleaved`]) let a shared load
//! see a word as it was before another warp's store in the same interval.
//!
//! The checker is an observer: the executor reports each memory instruction, barrier and
//! member mask to it (with the block and source site), and it never changes what executes,
//! except that memcheck's bad lanes are left out of their access.
//!
//! Findings are grouped: one per (kind, buffer, source site pair), with the first occurrence's
//! threads and address and a count. A checked launch runs its blocks one after another in linear
//! order (unless a [`Schedule`] says otherwise), so the findings are the same for any number of
//! CPU threads. [`explore`] runs a launch under many schedules (warp orders
//! inside blocks, block orders) and reports a schedule whose outputs differ, with the seed that
//! reproduces it.

use crate::block::{BlockOrder, WarpOrder};
use crate::error::{AccessKind, Space};
use crate::geometry::{BlockShape, Dim3};
use crate::lanes::{Mask, WARP_SIZE};
use crate::memory::global::Allocation;
use crate::memory::{Target, WarpAccess, WarpIdx};
use crate::site::{Site as Src, SiteTable};
use crate::values::frame::{MAX_WARPS, Masks};
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// Findings kept per launch; later ones are counted in the first finding of their group only.
pub const MAX_FINDINGS: usize = 64;

/// What a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Shared memory read after a write by another warp with no barrier between.
    RaceReadAfterWrite,
    /// Shared memory written after a read by another warp with no barrier between.
    RaceWriteAfterRead,
    /// Shared memory written by two warps with no barrier between.
    RaceWriteAfterWrite,
    /// Two lanes of one warp communicate through shared memory with no `sync_warp` between.
    IntraWarpHazard,
    /// Read of memory never written.
    UninitializedRead,
    /// A `sync_warp`, shuffle or vote whose mask does not match the lanes executing it.
    MaskMismatch,
    /// An access outside its buffer.
    OutOfBounds,
    /// An access not aligned to its element size.
    Misaligned,
    /// Plain accesses to one global address from different blocks, one a write.
    GlobalRace,
    /// A plain access and an atomic to one address from different blocks (global memory) or
    /// different warps with no barrier between (shared memory).
    AtomicRace,
}

impl Kind {
    /// The sanitizer tool that reports it.
    pub fn tool(self) -> &'static str {
        match self {
            Kind::RaceReadAfterWrite
            | Kind::RaceWriteAfterRead
            | Kind::RaceWriteAfterWrite
            | Kind::IntraWarpHazard => "racecheck",
            Kind::UninitializedRead => "initcheck",
            Kind::MaskMismatch => "synccheck",
            Kind::OutOfBounds | Kind::Misaligned => "memcheck",
            Kind::GlobalRace => "racecheck (global)",
            Kind::AtomicRace => "racecheck",
        }
    }

    /// Errors break under any GPU schedule; warnings only under independent thread scheduling.
    pub fn severity(self) -> Severity {
        match self {
            Kind::IntraWarpHazard => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Safe only while a warp executes in lockstep.
    Warning,
    /// A bug.
    Error,
}

/// One side of a hazard: who accessed what, and where in the kernel's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Load, store or atomic.
    pub access: AccessKind,
    /// Block of the thread.
    pub block: Dim3,
    /// Thread index within the block.
    pub thread: Dim3,
    /// Source location of the access (`file:line:column`), when known.
    pub location: Option<String>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let access = match self.access {
            AccessKind::Load => "Read",
            AccessKind::Store => "Write",
            AccessKind::Atomic => "Atomic",
        };
        write!(f, "{access} access by {}", self.who())
    }
}

impl Site {
    /// `thread T in block B[ at FILE:LINE:COL]`.
    fn who(&self) -> String {
        let at = self
            .location
            .as_ref()
            .map_or(String::new(), |l| format!(" at {l}"));
        format!("thread {} in block {}{at}", self.thread, self.block)
    }
}

/// One hazard found by check mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What it is.
    pub kind: Kind,
    /// The kernel.
    pub kernel: String,
    /// The block of the (second) access.
    pub block: Dim3,
    /// The (second) access.
    pub site: Site,
    /// The earlier, conflicting access, for races.
    pub other: Option<Site>,
    /// Global or shared memory, for memory findings.
    pub space: Option<Space>,
    /// The buffer.
    pub buffer: String,
    /// Element index in the buffer.
    pub index: u64,
    /// Byte address (device address, or offset in shared memory).
    pub address: u64,
    /// What else there is to say (nearest allocation, lanes of a mask, …).
    pub detail: String,
    /// How many times this hazard (same kind, buffer and sites) occurred.
    pub count: u64,
}

impl Finding {
    /// Whether `other` is the same hazard (kind, buffer and source sites): findings are grouped
    /// by it and counted.
    fn same_hazard(&self, other: &Finding) -> bool {
        self.kind == other.kind
            && self.buffer == other.buffer
            && self.site.location == other.site.location
            && self.other.as_ref().map(|o| &o.location) == other.other.as_ref().map(|o| &o.location)
    }

    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity() {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
        };
        write!(
            f,
            "========= {sev} ({}): {:?} in kernel `{}`",
            self.kind.tool(),
            self.kind,
            self.kernel
        )?;
        if let Some(space) = self.space {
            let space = if space == Space::Global {
                "global"
            } else {
                "shared"
            };
            write!(
                f,
                " on {space} `{}`[{}]{} (address {:#x})",
                self.buffer,
                crate::error::index_text(self.index),
                crate::error::as_signed(self.index),
                self.address
            )?;
        }
        if self.kind == Kind::MaskMismatch {
            // Not a memory access: the barrier or intrinsic, and who executed it.
            write!(f, "\n=========     Executed by {}", self.site.who())?;
        } else {
            write!(f, "\n=========     {}", self.site)?;
        }
        if let Some(other) = &self.other {
            write!(f, "\n=========     and {other}")?;
        }
        if !self.detail.is_empty() {
            write!(f, "\n=========     {}", self.detail)?;
        }
        if self.count > 1 {
            write!(
                f,
                "\n=========     ({} hazards of this kind between these sites)",
                self.count
            )?;
        }
        Ok(())
    }
}

/// One access to a shared word, as the shadow remembers it.
#[derive(Clone, Copy, Default)]
struct Event {
    /// Barrier interval, numbered from 1 (0: no such access yet).
    interval: u64,
    warp: u8,
    lane: u8,
    /// The warp's `sync_warp` epoch and memory-instruction number at the access.
    sync: u32,
    inst: u32,
    site: Option<Src>,
}

impl Event {
    /// Whether `self` (earlier, same interval) and `now` conflict across warps: a race.
    fn races(&self, now: &Event) -> bool {
        self.interval == now.interval && self.warp != now.warp
    }

    /// Whether they are different lanes of one warp with no `sync_warp` between and not one
    /// instruction: safe only in lockstep.
    fn lockstep_only(&self, now: &Event) -> bool {
        self.interval == now.interval
            && self.warp == now.warp
            && self.lane != now.lane
            && self.sync == now.sync
            && self.inst != now.inst
    }
}

/// The shadow of one shared word.
#[derive(Clone, Copy, Default)]
struct Shadow {
    /// Accessed since the block started (listed in `BlockCheck::dirty`).
    touched: bool,
    reported_uninit: bool,
    /// The last write (interval 0 if never written), and whether it was an atomic.
    write: Event,
    write_atomic: bool,
    /// The last read, and every warp that read in its interval.
    read: Event,
    readers: u32,
}

/// Check state of the running block, reused from block to block.
#[derive(Default)]
pub(crate) struct BlockCheck {
    /// Per shared word, for elements of 4 bytes and more.
    shadow: Vec<Shadow>,
    /// Per shared byte address, for 1- and 2-byte elements (which share words).
    shadow_bytes: AddrMap<Shadow>,
    dirty: Vec<u32>,
    /// Global memory since the block started (or, in a cooperative launch, since its last
    /// `grid.sync()`).
    global: GlobalRecord,
    findings: Vec<Finding>,
    /// Per warp, `sync_warp` calls so far: two accesses of one warp are ordered if this changed
    /// between them.
    sync_epoch: [u32; MAX_WARPS],
    /// Memory instructions so far (lanes of one instruction never race with each other).
    inst: u32,
    /// `__threadfence()`s so far.
    fences: u32,
}

/// How a block used global memory, to be compared with the other blocks'.
#[derive(Default)]
struct GlobalRecord {
    /// The words it touched: address → how.
    words: AddrMap<GlobalUse>,
    /// Global addresses of its atomics, in order.
    atomics: Vec<u64>,
    /// The atomics that followed a fence: (fences before it, address). Each publishes the
    /// block's global accesses made before that fence to the blocks whose atomics on the same
    /// address come later (the single-pass reduction's `__threadfence(); atomicInc(&count)`).
    releases: Vec<(u32, u64)>,
}

/// A map keyed by device address (no need for SipHash's protection against chosen keys).
type AddrMap<V> = HashMap<u64, V, BuildHasherDefault<AddrHasher>>;

/// Multiplicative hashing of an address.
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
}

/// One access, compactly: who made it and where in the source (a [`Site`] once reported).
#[derive(Clone, Copy)]
struct Who {
    /// Linear block index.
    block: u32,
    /// Linear thread index within the block.
    thread: u16,
    access: AccessKind,
    loc: Option<Src>,
    /// Global memory: the block's fences before its last access to the address.
    fences: u32,
}

impl Who {
    fn site(&self, cx: &Ctx<'_>) -> Site {
        let t = u32::from(self.thread);
        Site {
            access: self.access,
            block: Dim3::from_linear(u64::from(self.block), cx.grid),
            thread: cx.shape.thread(t / 32, t % 32),
            location: self.loc.and_then(|l| cx.location(l)),
        }
    }
}

/// How a block used one global word.
#[derive(Clone, Copy)]
struct GlobalUse {
    read: bool,
    write: bool,
    atomic: bool,
    /// The first access, and the first of each kind (a race is reported with the access
    /// that makes it one: a write against another block's read).
    who: Who,
    first_write: Option<Who>,
    first_atomic: Option<Who>,
    index: u32,
    /// Element size: 1- and 2-byte elements share words, so they are tracked by byte.
    elem: u8,
    /// The block's fences before the last access.
    fences: u32,
    /// The block's atomics before the first access, and before the first plain access.
    atomics_before: u32,
    atomics_before_plain: Option<u32>,
}

/// What the checker needs to know about the running block.
pub(crate) struct Ctx<'a> {
    pub kernel: &'a str,
    pub block: Dim3,
    pub grid: Dim3,
    pub shape: &'a BlockShape,
    /// The current barrier interval, from 1.
    pub interval: u64,
    pub launch: &'a LaunchCheck,
    /// Source positions of the kernel's table sites.
    pub sites: &'a SiteTable,
}

impl Ctx<'_> {
    fn site(&self, warp: u32, lane: u32, access: AccessKind, loc: Src) -> Site {
        Site {
            access,
            block: self.block,
            thread: self.shape.thread(warp, lane),
            location: self.location(loc),
        }
    }

    /// `file:line:col` of an engine site.
    fn location(&self, loc: Src) -> Option<String> {
        self.sites.position(loc).map(|p| p.to_string())
    }

    fn finding(
        &self,
        kind: Kind,
        site: Site,
        other: Option<Site>,
        t: Option<(&Target<'_>, u64)>,
        detail: String,
    ) -> Finding {
        let (space, buffer, index, address) = match t {
            Some((t, index)) => (
                Some(t.space),
                t.name.to_string(),
                index,
                element_address(t, index),
            ),
            None => (None, String::new(), 0, 0),
        };
        Finding {
            kind,
            kernel: self.kernel.to_string(),
            block: self.block,
            site,
            other,
            space,
            buffer,
            index,
            address,
            detail,
            count: 1,
        }
    }
}

impl BlockCheck {
    pub fn reset(&mut self) {
        for &i in &self.dirty {
            self.shadow[i as usize] = Shadow::default();
        }
        self.dirty.clear();
        self.shadow_bytes.clear();
        self.global = GlobalRecord::default();
        self.findings.clear();
        self.sync_epoch = [0; MAX_WARPS];
        self.inst = 0;
        self.fences = 0;
    }

    /// `__threadfence()`: the block's global accesses so far are published by its next atomic.
    pub fn on_fence(&mut self) {
        self.fences += 1;
    }

    /// Add `f` to the block's findings, merging it into an equal one.
    fn record(&mut self, f: Finding) {
        if let Some(same) = self.findings.iter_mut().find(|g| g.same_hazard(&f)) {
            same.count += 1;
        } else if self.findings.len() < MAX_FINDINGS {
            self.findings.push(f);
        }
    }

    /// memcheck: the lanes `bad` of warp `warp` access out of bounds or misaligned; each is
    /// recorded (the executor leaves them out of the access). `idx`: the lanes' element
    /// indices, and where some do not fit 32 bits, all of them as they are.
    #[allow(clippy::too_many_arguments)]
    pub fn memcheck(
        &mut self,
        cx: &Ctx<'_>,
        loc: Src,
        t: &Target<'_>,
        kind: AccessKind,
        warp: u32,
        (idx, wide): (WarpIdx<'_>, Option<&[i64; WARP_SIZE]>),
        bad: u32,
        misaligned: bool,
    ) {
        for l in Mask(bad).lanes() {
            let index = wide.map_or(u64::from(idx.lane(l)), |x| x[l as usize] as u64);
            let address = element_address(t, index);
            let detail = if misaligned {
                format!(
                    "address {address:#x} is not a multiple of the {}-byte element size",
                    t.elem
                )
            } else {
                nearest(cx, t, address)
            };
            let kind_found = if misaligned {
                Kind::Misaligned
            } else {
                Kind::OutOfBounds
            };
            let f = cx.finding(
                kind_found,
                cx.site(warp, l, kind, loc),
                None,
                Some((t, index)),
                detail,
            );
            self.record(f);
        }
    }

    /// A memory instruction starts (its lanes never race with each other).
    pub fn instruction(&mut self) {
        self.inst += 1;
    }

    /// Shadow bookkeeping of one warp's validated access; `uninit` is the allocation of a
    /// global load whose writes are tracked (initcheck).
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        cx: &Ctx<'_>,
        loc: Src,
        t: &Target<'_>,
        kind: AccessKind,
        a: &WarpAccess<'_>,
        uninit: Option<&Allocation>,
        arena_words: usize,
    ) {
        if a.mask != 0 {
            match t.space {
                Space::Shared => self.shared_access(cx, loc, t, kind, a, arena_words),
                Space::Global => {
                    self.global_access(cx, loc, t, kind, a);
                    if let Some(alloc) = uninit {
                        self.uninitialized_global(cx, loc, t, a, alloc);
                    }
                }
            }
        }
    }

    fn shared_access(
        &mut self,
        cx: &Ctx<'_>,
        loc: Src,
        t: &Target<'_>,
        kind: AccessKind,
        a: &WarpAccess<'_>,
        arena_words: usize,
    ) {
        if self.shadow.len() < arena_words {
            self.shadow.resize(arena_words, Shadow::default());
        }
        let warp = a.warp as u8;
        let sync = self.sync_epoch[a.warp as usize];
        // Shadow keys of one element: its words, or its first byte for sub-word elements.
        let sub_word = t.elem < 4;
        let keys_per = if sub_word { 1 } else { t.elem as usize / 4 };
        for l in a.lanes() {
            let index = a.idx.lane(l);
            let now = Event {
                interval: cx.interval,
                warp,
                lane: l as u8,
                sync,
                inst: self.inst,
                site: Some(loc),
            };
            let byte = t.address(index) as usize;
            let first = if sub_word { byte } else { byte / 4 };
            for key in first..first + keys_per {
                // A byte written through a word access (or a word through byte accesses)
                // has been written: each view starts from what the other knows.
                let s = if sub_word {
                    self.shadow_bytes
                        .get(&(key as u64))
                        .copied()
                        .unwrap_or_else(|| self.shadow.get(key / 4).copied().unwrap_or_default())
                } else if !self.shadow[key].touched {
                    (0..4)
                        .find_map(|b| self.shadow_bytes.get(&(key as u64 * 4 + b)).copied())
                        .unwrap_or_default()
                } else {
                    self.shadow[key]
                };
                let (new, hazard) = shadow_step(s, now, kind);
                if sub_word {
                    self.shadow_bytes.insert(key as u64, new);
                } else {
                    if !self.shadow[key].touched {
                        self.dirty.push(key as u32);
                    }
                    self.shadow[key] = new;
                }
                if let Some((hk, them, their_access)) = hazard {
                    if hk == Kind::IntraWarpHazard && !cx.launch.independent_threads {
                        continue; // a lockstep warp: the warp-synchronous idiom is correct
                    }
                    let me = cx.site(a.warp, l, kind, loc);
                    let other = (hk != Kind::UninitializedRead).then(|| Site {
                        access: their_access,
                        block: cx.block,
                        thread: cx.shape.thread(u32::from(them.warp), u32::from(them.lane)),
                        location: them.site.and_then(|l| cx.location(l)),
                    });
                    let detail = match hk {
                        Kind::IntraWarpHazard => "lanes of one warp exchange data without __syncwarp(): correct only under lockstep execution, broken under independent thread scheduling (sm_70+)".to_string(),
                        Kind::UninitializedRead => "the word was never written in this block".to_string(),
                        Kind::AtomicRace => format!("an atomic and a plain access by warps {} and {warp} with no __syncthreads() between", them.warp),
                        _ => format!("warps {} and {warp} access the word with no __syncthreads() between", them.warp),
                    };
                    let f = cx.finding(hk, me, other, Some((t, u64::from(index))), detail);
                    self.record(f);
                }
            }
        }
    }

    fn global_access(
        &mut self,
        cx: &Ctx<'_>,
        loc: Src,
        t: &Target<'_>,
        kind: AccessKind,
        a: &WarpAccess<'_>,
    ) {
        let block = cx.block.linear_in(cx.grid) as u32;
        for l in a.lanes() {
            let index = a.idx.lane(l);
            let address = t.address(index);
            let who = Who {
                block,
                thread: (a.warp * 32 + l) as u16,
                access: kind,
                loc: Some(loc),
                fences: self.fences,
            };
            let atomics = self.global.atomics.len() as u32;
            let entry = self.global.words.entry(address).or_insert(GlobalUse {
                read: false,
                write: false,
                atomic: false,
                who,
                first_write: None,
                first_atomic: None,
                index,
                elem: t.elem as u8,
                fences: 0,
                atomics_before: atomics,
                atomics_before_plain: None,
            });
            entry.fences = self.fences;
            match kind {
                AccessKind::Load => entry.read = true,
                AccessKind::Store => {
                    entry.write = true;
                    entry.first_write.get_or_insert(who);
                }
                AccessKind::Atomic => {
                    entry.atomic = true;
                    entry.first_atomic.get_or_insert(who);
                }
            }
            if kind != AccessKind::Atomic {
                entry.atomics_before_plain.get_or_insert(atomics);
            }
        }
        if kind == AccessKind::Atomic {
            for l in a.lanes() {
                let address = t.address(a.idx.lane(l));
                let g = &mut self.global;
                g.atomics.push(address);
                if self.fences > 0 && !g.releases.contains(&(self.fences, address)) {
                    g.releases.push((self.fences, address));
                }
            }
        }
    }

    /// initcheck of a global load from an allocation made with `alloc_uninit`: lanes whose
    /// words were never written.
    fn uninitialized_global(
        &mut self,
        cx: &Ctx<'_>,
        loc: Src,
        t: &Target<'_>,
        a: &WarpAccess<'_>,
        alloc: &Allocation,
    ) {
        for l in a.lanes() {
            let index = a.idx.lane(l);
            let byte = (t.address(index) - alloc.address_at(0)) as usize;
            if alloc.is_written(byte, t.elem as usize) {
                continue;
            }
            let f = cx.finding(
                Kind::UninitializedRead,
                cx.site(a.warp, l, AccessKind::Load, loc),
                None,
                Some((t, u64::from(index))),
                "this element of an allocation that starts uninitialised (`cudaMalloc`, \
                 `Device::alloc_uninit`) was never written"
                    .to_string(),
            );
            self.record(f);
        }
    }

    /// A shuffle whose lanes (`readers`, per warp, with the lanes they read, `sources`) read a
    /// lane that does not take part in it: inactive or outside the member mask `masks[w]`.
    /// An sm_90 GPU returns 0 there (PTX: undefined); compute-sanitizer says nothing.
    pub fn shuffle_source(
        &mut self,
        cx: &Ctx<'_>,
        loc: Src,
        masks: &Masks,
        readers: &[(usize, u32, u32)],
        name: &'static str,
    ) {
        for &(w, r, src) in readers {
            let m = masks[w];
            let detail = format!(
                "{name}: lanes {r:#010x} of warp {w} read lanes {src:#010x}, which do not take part in it (inactive, or outside its mask {m:#010x}); they read 0 (an sm_90 GPU's value, undefined in CUDA): shuffle only from lanes in the mask that execute it"
            );
            let f = cx.finding(
                Kind::MaskMismatch,
                cx.site(w as u32, r.trailing_zeros(), AccessKind::Load, loc),
                None,
                None,
                detail,
            );
            self.record(f);
        }
    }

    /// synccheck of an intrinsic's member mask, per executing warp: the mask may not name lanes
    /// that are not executing it (lanes that diverged, or that are not threads of the block),
    /// nor leave out lanes that are. Lanes that exited may be named.
    #[allow(clippy::too_many_arguments)]
    pub fn member_mask(
        &mut self,
        cx: &Ctx<'_>,
        loc: Src,
        masks: &Masks,
        active: &Masks,
        live: &Masks,
        name: &'static str,
    ) {
        let shape = cx.shape;
        for w in 0..shape.warps {
            let a = active[w];
            if a == 0 {
                continue;
            }
            let m = masks[w];
            let exists = shape.exists[w];
            let absent = m & !exists;
            let diverged = m & live[w] & !a;
            let outside = a & !m;
            let detail = if absent != 0 {
                format!(
                    "{name}: mask {m:#010x} names lanes {absent:#010x} of warp {w}, which are not threads of the block (it has {} threads); name only lanes that exist, e.g. __activemask()",
                    shape.block.count()
                )
            } else if diverged != 0 {
                format!(
                    "{name}: mask {m:#010x} names lanes {diverged:#010x} of warp {w}, which are not executing it (they diverged)"
                )
            } else if outside != 0 {
                format!(
                    "{name}: lanes {outside:#010x} of warp {w} execute it but are not in its mask {m:#010x}"
                )
            } else {
                continue;
            };
            let f = cx.finding(
                Kind::MaskMismatch,
                cx.site(w as u32, a.trailing_zeros(), AccessKind::Load, loc),
                None,
                None,
                detail,
            );
            self.record(f);
        }
    }

    /// `sync_warp`: orders each executing warp's later accesses after its earlier ones.
    pub fn on_sync_warp(&mut self, active: &Masks) {
        for (e, &a) in self.sync_epoch.iter_mut().zip(active) {
            if a != 0 {
                *e += 1;
            }
        }
    }

    /// The block has finished: compare its global accesses with the other blocks' (in a
    /// cooperative launch later, all blocks in order: [`LaunchCheck::merge_phase`]) and add its
    /// findings to the launch's.
    pub fn end_block(&mut self, cx: &Ctx<'_>) {
        let record = std::mem::take(&mut self.global);
        if cx.launch.cooperative {
            cx.launch
                .deposit(cx.block.linear_in(cx.grid) as u32, record);
        } else {
            for f in record.merge(cx) {
                self.record(f);
            }
        }
        publish(cx.launch, self.findings.drain(..), cx.grid);
    }

    /// `grid.sync()` in a cooperative launch: what the block did to global memory so far is
    /// ordered before anything any block does after it.
    pub fn on_grid_sync(&mut self, launch: &LaunchCheck, block: u64) {
        launch.deposit(block as u32, std::mem::take(&mut self.global));
    }
}

/// Add a block's `findings` to the launch's, merging each into an equal one (which then names
/// the lowest block).
fn publish(launch: &LaunchCheck, findings: impl Iterator<Item = Finding>, grid: Dim3) {
    let mut all = launch.findings.lock().unwrap_or_else(|p| p.into_inner());
    for f in findings {
        if let Some(same) = all.iter_mut().find(|g| g.same_hazard(&f)) {
            same.count += f.count;
            if f.block.linear_in(grid) < same.block.linear_in(grid) {
                let count = same.count;
                *same = f;
                same.count = count;
            }
        } else if all.len() < MAX_FINDINGS {
            all.push(f);
        }
    }
}

impl GlobalRecord {
    /// Compare block `cx.block`'s accesses with those of the blocks before it (in check mode
    /// blocks run one after another; a cooperative launch's are compared in this order when
    /// they all reach a `grid.sync()`), return the races, and add them to the launch's record.
    fn merge(self, cx: &Ctx<'_>) -> Vec<Finding> {
        let launch = cx.launch;
        let me = cx.block.linear_in(cx.grid) as u32;
        let mut found = Vec::new();
        {
            let mut global = launch.global.lock().unwrap_or_else(|p| p.into_inner());
            let mut global_bytes = launch
                .global_bytes
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let releases = launch.releases.lock().unwrap_or_else(|p| p.into_inner());
            for (&address, u) in &self.words {
                // The word's owner record; an address in no live allocation cannot be shared.
                let Some(a) = launch
                    .allocations
                    .partition_point(|(base, _, _)| *base <= address)
                    .checked_sub(1)
                else {
                    continue;
                };
                let (base, size, _) = &launch.allocations[a];
                if address >= base + size {
                    continue;
                }
                let owner = if u.elem < 4 {
                    global_bytes.entry(address).or_default()
                } else {
                    if global.len() < launch.allocations.len() {
                        global.resize_with(launch.allocations.len(), Vec::new);
                    }
                    if global[a].is_empty() {
                        global[a].resize_with(size.div_ceil(4) as usize, GlobalOwner::default);
                    }
                    &mut global[a][((address - base) / 4) as usize]
                };
                // Blocks run one after another in check mode: the other block's access came
                // first. It is ordered before this block's when that block published it (a
                // fence after it, then an atomic on some address) and this block's atomic on
                // that address came before its own access; an atomic on this very address is
                // ordered before what follows this block's atomic on it.
                let ordered = |them: &Who, atomics_before: u32| {
                    let acquired = &self.atomics[..atomics_before as usize];
                    them.block != me
                        && (them.access == AccessKind::Atomic && acquired.contains(&address)
                            || releases.get(&them.block).is_some_and(|r| {
                                r.iter()
                                    .any(|(f, at)| them.fences < *f && acquired.contains(at))
                            }))
                };
                let before = u.atomics_before_plain.unwrap_or(u.atomics_before);
                let other = |o: &Option<Who>| o.filter(|w| w.block != me && !ordered(w, before));
                let wrote = u.first_write.unwrap_or(u.who);
                // (kind, this block's access, the other block's).
                let conflict = if u.write || u.read {
                    other(&owner.atomic)
                        .map(|w| (Kind::AtomicRace, u.who, w))
                        .or_else(|| other(&owner.writer).map(|w| (Kind::GlobalRace, u.who, w)))
                        .or_else(|| {
                            let readers = if owner.many_readers {
                                owner.reader
                            } else {
                                other(&owner.reader)
                            };
                            readers
                                .filter(|_| u.write)
                                .map(|w| (Kind::GlobalRace, wrote, w))
                        })
                } else {
                    other(&owner.writer)
                        .or_else(|| other(&owner.reader))
                        .map(|w| (Kind::AtomicRace, u.who, w))
                };
                if let Some((kind, us, them)) = conflict {
                    let buffer = launch.allocations[a].2.clone();
                    found.push(Finding {
                        kind,
                        kernel: cx.kernel.to_string(),
                        block: cx.block,
                        site: us.site(cx),
                        other: Some(them.site(cx)),
                        space: Some(Space::Global),
                        buffer,
                        index: u64::from(u.index),
                        address,
                        detail: "different blocks of one launch access this address, at least one of them writing, with no ordering between blocks".to_string(),
                        count: 1,
                    });
                }
                // As later blocks see them: with the fences before the last access.
                let last = |w: Who| Who {
                    fences: u.fences,
                    ..w
                };
                if u.read {
                    match owner.reader {
                        Some(w) if w.block != me => owner.many_readers = true,
                        None => owner.reader = Some(last(u.who)),
                        _ => {}
                    }
                }
                if u.write && owner.writer.is_none() {
                    owner.writer = Some(last(wrote));
                }
                if u.atomic && owner.atomic.is_none() {
                    owner.atomic = u.first_atomic;
                }
            }
        }
        if !self.releases.is_empty() {
            launch
                .releases
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(me, self.releases);
        }
        found
    }
}

/// "Address is N bytes after the nearest allocation `x` at 0x… of size S".
fn nearest(cx: &Ctx<'_>, t: &Target<'_>, address: u64) -> String {
    if t.space == Space::Shared {
        return format!("the array holds {} elements of {} bytes", t.len, t.elem);
    }
    let best = cx.launch.allocations.iter().min_by_key(|(base, size, _)| {
        if address < *base {
            base - address
        } else {
            address.saturating_sub(base + size - 1)
        }
    });
    match best {
        Some((base, size, name)) if address >= base + size => {
            format!(
                "address is {} bytes after the end of the nearest allocation `{name}` at {base:#x} of size {size} bytes",
                address - (base + size)
            )
        }
        Some((base, size, name)) if address < *base => {
            format!(
                "address is {} bytes before the nearest allocation `{name}` at {base:#x} of size {size} bytes",
                base - address
            )
        }
        Some((base, size, name)) => format!(
            "address lies in allocation `{name}` at {base:#x} of size {size} bytes, beyond this view"
        ),
        None => String::new(),
    }
}

/// Launch-wide check state: findings and the global-memory shadow.
pub(crate) struct LaunchCheck {
    findings: Mutex<Vec<Finding>>,
    /// Per allocation (in `allocations` order), per 4-byte word: which blocks used it.
    global: Mutex<Vec<Vec<GlobalOwner>>>,
    /// The same for 1- and 2-byte elements, by byte address.
    global_bytes: Mutex<AddrMap<GlobalOwner>>,
    /// Per finished block that published accesses: its [`GlobalRecord::releases`].
    releases: Mutex<HashMap<u32, Vec<(u32, u64)>>>,
    /// Allocations for memcheck's "nearest allocation": (base, bytes, name).
    pub allocations: Vec<(u64, u64, String)>,
    /// Whether the profile schedules the threads of a warp independently (sm_70 and later):
    /// before it, a warp runs in lockstep and warp-synchronous code needs no `__syncwarp`.
    pub independent_threads: bool,
    /// A cooperative launch: its blocks run at once, so their global accesses are compared
    /// when all have reached a `grid.sync()` (or the end), in block order.
    cooperative: bool,
    /// A cooperative launch: each block's global accesses since its last `grid.sync()`.
    deposits: Mutex<Vec<(u32, GlobalRecord)>>,
}

impl LaunchCheck {
    pub fn new(
        mut allocations: Vec<(u64, u64, String)>,
        independent_threads: bool,
        cooperative: bool,
    ) -> LaunchCheck {
        allocations.sort_by_key(|a| a.0);
        LaunchCheck {
            findings: Mutex::new(Vec::new()),
            global: Mutex::new(Vec::new()),
            global_bytes: Mutex::new(AddrMap::default()),
            releases: Mutex::new(HashMap::new()),
            allocations,
            independent_threads,
            cooperative,
            deposits: Mutex::new(Vec::new()),
        }
    }

    fn deposit(&self, block: u32, record: GlobalRecord) {
        let mut deposits = self.deposits.lock().unwrap_or_else(|p| p.into_inner());
        deposits.push((block, record));
    }

    /// Every block of a cooperative launch has reached a `grid.sync()` (or its end): compare
    /// their global accesses since the last one, in block order, as if the blocks had run one
    /// after another (so the findings do not depend on which thread came first); then start
    /// afresh, since what follows the barrier is ordered after everything before it. `cx`
    /// gives the checker's context for a block.
    pub fn merge_phase<'a>(&'a self, cx: impl Fn(u32) -> Ctx<'a>) {
        let mut deposits =
            std::mem::take(&mut *self.deposits.lock().unwrap_or_else(|p| p.into_inner()));
        deposits.sort_by_key(|d| d.0);
        for (block, record) in deposits {
            let cx = cx(block);
            publish(self, record.merge(&cx).into_iter(), cx.grid);
        }
        self.global
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        self.global_bytes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        self.releases
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}

/// Which blocks touched a global word, and how.
#[derive(Default)]
struct GlobalOwner {
    reader: Option<Who>,
    many_readers: bool,
    writer: Option<Who>,
    atomic: Option<Who>,
}

/// The launch's findings, errors first, then by block.
pub(crate) fn finish(launch: &LaunchCheck, grid: Dim3) -> Vec<Finding> {
    let mut all = std::mem::take(&mut *launch.findings.lock().unwrap_or_else(|p| p.into_inner()));
    all.sort_by_key(|f| {
        (
            std::cmp::Reverse(f.severity()),
            f.block.linear_in(grid),
            f.site.thread.z,
            f.site.thread.y,
            f.site.thread.x,
        )
    });
    all
}

/// One access `now` of kind `kind` to a shared location whose shadow is `s`: the new shadow,
/// and the hazard with the earlier access it conflicts with (and that access's kind).
fn shadow_step(
    s: Shadow,
    now: Event,
    kind: AccessKind,
) -> (Shadow, Option<(Kind, Event, AccessKind)>) {
    let mut new = s;
    new.touched = true;
    let last_write = if s.write_atomic {
        AccessKind::Atomic
    } else {
        AccessKind::Store
    };
    let write_race = if s.write_atomic {
        Kind::AtomicRace
    } else {
        Kind::RaceWriteAfterWrite
    };
    let other_readers = if s.read.interval == now.interval {
        s.readers & !(1 << now.warp)
    } else {
        0
    };
    let uninitialized = s.write.interval == 0 && !s.reported_uninit;
    let hazard = match kind {
        AccessKind::Load => {
            new.readers = if s.read.interval == now.interval {
                s.readers | 1 << now.warp
            } else {
                1 << now.warp
            };
            new.read = now;
            if uninitialized {
                new.reported_uninit = true;
                Some((Kind::UninitializedRead, now, AccessKind::Load))
            } else if s.write.races(&now) {
                let k = if s.write_atomic {
                    Kind::AtomicRace
                } else {
                    Kind::RaceReadAfterWrite
                };
                Some((k, s.write, last_write))
            } else if s.write.lockstep_only(&now) {
                Some((Kind::IntraWarpHazard, s.write, last_write))
            } else {
                None
            }
        }
        AccessKind::Store => {
            (new.write, new.write_atomic) = (now, false);
            if other_readers != 0 {
                Some((Kind::RaceWriteAfterRead, s.read, AccessKind::Load))
            } else if s.write.races(&now) {
                Some((write_race, s.write, last_write))
            } else if s.read.lockstep_only(&now) {
                Some((Kind::IntraWarpHazard, s.read, AccessKind::Load))
            } else if s.write.lockstep_only(&now) {
                Some((Kind::IntraWarpHazard, s.write, last_write))
            } else {
                None
            }
        }
        AccessKind::Atomic => {
            // An atomic reads and writes, but atomics never race with each other.
            (new.write, new.write_atomic) = (now, true);
            if uninitialized {
                new.reported_uninit = true;
                Some((Kind::UninitializedRead, now, AccessKind::Atomic))
            } else if other_readers != 0 {
                Some((Kind::AtomicRace, s.read, AccessKind::Load))
            } else if s.write.races(&now) && !s.write_atomic {
                Some((Kind::AtomicRace, s.write, AccessKind::Store))
            } else {
                None
            }
        }
    };
    (new, hazard)
}

/// A schedule: the order of warps inside each block and of blocks in the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Warp order inside blocks.
    pub warps: WarpOrder,
    /// Block order.
    pub blocks: BlockOrder,
}

/// A schedule under which a launch's outputs differed from the default schedule's.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence<O> {
    /// The schedule that reproduces it (its seeds included).
    pub schedule: Schedule,
    /// The default schedule's outputs.
    pub expected: O,
    /// This schedule's outputs.
    pub got: O,
}

/// The schedules [`explore`] tries: round-robin and parallel blocks (the reference), reversed
/// warps and blocks, then for each of `seeds` seeds a random warp and block order at barrier
/// granularity and one at instruction granularity ([`WarpOrder::Interleaved`]).
pub fn schedules(seeds: u64) -> Vec<Schedule> {
    let mut v = vec![
        Schedule {
            warps: WarpOrder::RoundRobin,
            blocks: BlockOrder::Parallel,
        },
        Schedule {
            warps: WarpOrder::Reverse,
            blocks: BlockOrder::Reverse,
        },
    ];
    for s in 0..seeds {
        for warps in [WarpOrder::Random(s), WarpOrder::Interleaved(s)] {
            v.push(Schedule {
                warps,
                blocks: BlockOrder::Random(s),
            });
        }
    }
    v
}

/// Run a launch under many schedules and return the first whose outputs differ from the
/// reference schedule's (or `None` if all agree).
///
/// `run` sets up fresh inputs, launches with the given schedule (see
/// [`crate::LaunchConfig::schedule`]) and returns the outputs.
///
/// ```
/// use warpsim::check::{explore, Schedule};
/// use warpsim::*;
///
/// let dev = Device::default();
/// let found = explore(8, |s: &Schedule| {
///     let out = dev.alloc_zeroed::<u32>("out", 64);
///     let cfg = LaunchConfig::new(1, 64).schedule(*s);
///     dev.launch(&cfg, |b: &mut Block<'_>| {
///         let t = b.thread_idx().x;
///         b.store(&out, t, t * 2);
///     })?;
///     Ok(out.to_vec())
/// })?;
/// assert!(found.is_none()); // no schedule changes this kernel's output
/// # Ok::<(), warpsim::Error>(())
/// ```
pub fn explore<O, F>(seeds: u64, mut run: F) -> Result<Option<Divergence<O>>, crate::Error>
where
    O: PartialEq,
    F: FnMut(&Schedule) -> Result<O, crate::Error>,
{
    let all = schedules(seeds);
    let expected = run(&all[0])?;
    for s in &all[1..] {
        let got = run(s)?;
        if got != expected {
            return Ok(Some(Divergence {
                schedule: *s,
                expected,
                got,
            }));
        }
    }
    Ok(None)
}

/// The address of element `index` of `t` (an index from 64-bit arithmetic may lie anywhere).
fn element_address(t: &Target<'_>, index: u64) -> u64 {
    t.base.wrapping_add(index.wrapping_mul(u64::from(t.elem)))
}
