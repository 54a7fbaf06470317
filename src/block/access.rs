//! Memory instructions: a block-wide load, store or atomic is one request per warp with an
//! active lane.
//!
//! An instruction goes warp by warp: the warp's indices are checked against the buffer (a bad
//! lane stops the block, or in check mode is reported and left out), the observers see the
//! warp's access, and its data moves. The common case of a well-written kernel, a full warp
//! reading or writing 32 consecutive 4-byte elements at an index known to be affine, is checked
//! with two comparisons and moves one row of words; any other pattern goes lane by lane.

use super::{Block, fault, prefetch};
use crate::error::{AccessFault, AccessKind, Error, Space};
use crate::lanes::{Mask, U32x32, U64x32};
use crate::memory::global::Allocation;
use crate::memory::{
    AtomicBits, AtomicElement, Atomics, Element, Layout, Memory, Parts, PlaceKind, Target,
    WarpAccess, WarpIdx, Words, WordsMut, read_words, write_words,
};
use crate::site::Site;
use crate::values::frame::{self, Frame, MAX_WARPS, Masks, R32, R64, Slot, Src32, Src64};
use crate::values::{Lanes32, U32s, with32};

/// Where the words are.
#[derive(Clone, Copy)]
enum Store<'m> {
    Global(&'m Allocation),
    Shared,
}

/// An atomic's operands and old values: 4 or 8 bytes per lane.
#[derive(Clone, Copy)]
pub(crate) enum AtomicVal {
    W(R32),
    D(R64),
}

/// Update the element of 4 or 8 bytes (`wide`) at word `i` by `f` on its bits; the old bits.
fn update_bits<W: WordsMut + ?Sized>(
    words: &mut W,
    i: usize,
    wide: bool,
    f: &dyn Fn(u64) -> u64,
) -> u64 {
    if wide {
        words.update64(i, f)
    } else {
        u64::from(words.update(i, |b| f(u64::from(b)) as u32))
    }
}

/// One instruction's buffer: its target, its words and where element 0 lies among them.
#[derive(Clone, Copy)]
struct Buf<'p> {
    t: Target<'p>,
    store: Store<'p>,
    /// Byte offset of element 0 in its storage (an allocation's words, or the arena).
    origin: usize,
    misaligned: bool,
}

impl<'p> Buf<'p> {
    fn new<T: Element>(place: &PlaceKind<'p>) -> Buf<'p> {
        let (t, store, origin) = match *place {
            PlaceKind::Global(alloc, offset, len) => (
                Target {
                    space: Space::Global,
                    constant: alloc.constant,
                    name: &alloc.name,
                    len,
                    base: alloc.address_at(offset),
                    elem: T::SIZE,
                },
                Store::Global(alloc),
                offset,
            ),
            PlaceKind::Shared(offset, len, name) => (
                crate::memory::shared::target(offset, len, name, T::SIZE),
                Store::Shared,
                offset,
            ),
        };
        Buf {
            misaligned: t.base & u64::from(T::SIZE - 1) != 0,
            t,
            store,
            origin,
        }
    }

    /// The byte offset in storage of element `index`.
    #[inline(always)]
    fn byte(&self, index: u32) -> usize {
        self.origin + index as usize * self.t.elem as usize
    }
}

impl<'a> Block<'a> {
    /// Load `mem[idx]` for each active thread (inactive lanes read zero).
    ///
    /// ```
    /// # use warpsim::*;
    /// # let dev = Device::default();
    /// let x = dev.alloc_from("x", &[1.5f32; 64]);
    /// let out = dev.alloc_zeroed::<f32>("out", 64);
    /// dev.launch(&LaunchConfig::new(1, 64), |b: &mut Block<'_>| {
    ///     let i = b.thread_idx().x;
    ///     let v = b.load(&x, i);
    ///     b.store(&out, i, v * 2.0);
    /// })?;
    /// assert_eq!(out.to_vec(), vec![3.0; 64]);
    /// # Ok::<(), warpsim::Error>(())
    /// ```
    #[track_caller]
    #[inline]
    pub fn load<M: Memory>(&mut self, mem: &M, idx: impl Into<U32s>) -> <M::Elem as Element>::Vals {
        self.load_typed::<M::Elem>(Site::here(), &mem.place().0, idx.into().0)
    }

    /// Store `v` to `mem[idx]` for each active thread. Threads storing to one element: the
    /// highest lane of the last warp wins (warps execute in [`crate::WarpOrder`]).
    #[track_caller]
    #[inline]
    pub fn store<M: Memory>(
        &mut self,
        mem: &M,
        idx: impl Into<U32s>,
        v: <M::Elem as Element>::Vals,
    ) {
        let site = Site::here();
        let parts = <M::Elem as Element>::parts(v);
        self.store_typed::<M::Elem>(site, &mem.place().0, idx.into().0, parts);
    }

    #[inline]
    pub(crate) fn load_typed<T: Element>(
        &mut self,
        site: Site,
        place: &PlaceKind<'_>,
        idx: R32,
    ) -> T::Vals {
        frame::with(|fr| {
            if !fr.any_active() {
                return T::vals(Parts::words([R32::uniform(0); 4]));
            }
            // The common case first, before anything is built: 4-byte elements at an affine
            // index, no check mode. Counting sees the warps it moved afterwards.
            let mut slow = u32::MAX;
            let mut out = None;
            if let R32::Aff { a, b, c } = idx
                && T::LAYOUT == Layout::Word
                && self.plain()
                && let Some((origin, len)) = word_aligned(place)
            {
                let slot = fr.alloc(1);
                out = Some(slot);
                slow = match *place {
                    PlaceKind::Global(alloc, ..) => {
                        let words = Atomics(&alloc.words);
                        if let Some(step) = self.st.strides.step(site, a) {
                            prefetch::rows(
                                &fr.active[..fr.warps],
                                &words,
                                origin / 4,
                                (a.wrapping_add(step), b, c),
                            );
                        }
                        rows_fast(fr, &words, origin, len, (a, b, c), slot)
                    }
                    PlaceKind::Shared(..) => {
                        rows_fast(fr, &self.st.arena.words[..], origin, len, (a, b, c), slot)
                    }
                };
                // Every warp slow (all 32 of a 1024-thread block: `u32::MAX`) is counted below,
                // as when the fast path is not tried, and not here too.
                if self.launch.counting && slow != u32::MAX {
                    self.observe_affine::<T>(fr, site, place, AccessKind::Load, (a, b, c), slow);
                }
                if slow == 0 {
                    return T::vals(Parts::words([R32::Slot(slot); 4]));
                }
            }
            let buf = Buf::new::<T>(place);
            if slow == u32::MAX {
                self.begin(fr, site);
            }
            let src = fr.src32(idx);
            let out = match out {
                Some(slot) => Out::word(slot),
                None => Out::alloc(fr, T::LAYOUT),
            };
            // Warps the fast path left (lanes past the buffer's end) go the usual way.
            let saved = fr.active;
            let only: Masks =
                std::array::from_fn(|w| if slow >> w & 1 != 0 { saved[w] } else { 0 });
            fr.active = only;
            self.load_warps::<T>(fr, site, &buf, &src, &out);
            fr.active = saved;
            T::vals(out.parts)
        })
    }

    /// A load for each active warp, the general way.
    fn load_warps<T: Element>(
        &mut self,
        fr: &mut Frame,
        site: Site,
        buf: &Buf<'_>,
        src: &Src32,
        out: &Out,
    ) {
        let buf = *buf;
        let src = *src;
        for w in 0..fr.warps {
            if fr.active[w] == 0 {
                continue;
            }
            let lanes;
            let idx = match src {
                Src32::Aff { a, b, c } => WarpIdx::Affine {
                    start: a.wrapping_add(b.wrapping_mul(w as u32)),
                    step: c,
                },
                Src32::Rows(r) => {
                    lanes = fr.rows[r + w];
                    WarpIdx::Lanes(&lanes)
                }
            };
            let mut a = WarpAccess {
                warp: w as u32,
                mask: fr.active[w],
                idx,
            };
            if !self.warp_access(fr, site, &buf, AccessKind::Load, &mut a) {
                continue;
            }
            match buf.store {
                Store::Global(alloc) => {
                    load_warp(fr, &Atomics(&alloc.words), &buf, &a, T::LAYOUT, out)
                }
                Store::Shared => {
                    let interval = self.st.interval;
                    let arena = &mut self.st.arena;
                    match &mut arena.interleave {
                        Some(il) if T::SIZE >= 4 => {
                            let mut got = gather(&arena.words[..], &buf, &a);
                            il.on_load(interval, &buf.t, &a, &mut got);
                            out.place(fr, w, T::LAYOUT, &got);
                        }
                        _ => load_warp(fr, &arena.words[..], &buf, &a, T::LAYOUT, out),
                    }
                }
            }
        }
    }

    /// Whether an instruction may take the fast paths: no check mode (which validates every
    /// lane first), no interleaving (which may change what a load sees).
    #[inline(always)]
    fn plain(&self) -> bool {
        !self.launch.checking && self.st.arena.interleave.is_none()
    }

    /// Count an instruction a fast path executed: one instruction per active warp, and the
    /// request of each warp it moved (not those in `slow`, which the general path counts).
    #[inline(never)]
    fn observe_affine<T: Element>(
        &mut self,
        fr: &mut Frame,
        site: Site,
        place: &PlaceKind<'_>,
        kind: AccessKind,
        (a, b, c): (u32, u32, u32),
        slow: u32,
    ) {
        let buf = Buf::new::<T>(place);
        self.begin(fr, site);
        for w in 0..fr.warps {
            if fr.active[w] != 0 && slow >> w & 1 == 0 {
                let a = WarpAccess {
                    warp: w as u32,
                    mask: fr.active[w],
                    idx: WarpIdx::Affine {
                        start: a.wrapping_add(b.wrapping_mul(w as u32)),
                        step: c,
                    },
                };
                self.observe(fr, site, &buf, kind, &a);
            }
        }
    }

    #[inline]
    pub(crate) fn store_typed<T: Element>(
        &mut self,
        site: Site,
        place: &PlaceKind<'_>,
        idx: R32,
        v: Parts,
    ) {
        frame::with(|fr| {
            if !fr.any_active() {
                return;
            }
            let mut slow = u32::MAX;
            if let R32::Aff { a, b, c } = idx
                && T::SIZE == 4
                && self.plain()
                && self.launch.warp_order == crate::WarpOrder::RoundRobin
                && let Some((origin, len)) = word_aligned(place)
            {
                let v = fr.src32(v.r32[0]);
                slow = match *place {
                    PlaceKind::Global(alloc, ..) if !alloc.tracks_init() => {
                        store_rows_fast(fr, &mut Atomics(&alloc.words), origin, len, (a, b, c), &v)
                    }
                    PlaceKind::Global(..) => u32::MAX,
                    PlaceKind::Shared(..) => store_rows_fast(
                        fr,
                        &mut self.st.arena.words[..],
                        origin,
                        len,
                        (a, b, c),
                        &v,
                    ),
                };
                if self.launch.counting && slow != u32::MAX {
                    self.observe_affine::<T>(fr, site, place, AccessKind::Store, (a, b, c), slow);
                }
                if slow == 0 {
                    return;
                }
            }
            let buf = Buf::new::<T>(place);
            if slow == u32::MAX {
                self.begin(fr, site);
            }
            let src = fr.src32(idx);
            let vals = ValueSrc::new(fr, T::LAYOUT, v);
            let saved = fr.active;
            fr.active = std::array::from_fn(|w| if slow >> w & 1 != 0 { saved[w] } else { 0 });
            self.store_warps::<T>(fr, site, &buf, &src, &vals);
            fr.active = saved;
        })
    }

    /// A store for each active warp, the general way.
    fn store_warps<T: Element>(
        &mut self,
        fr: &mut Frame,
        site: Site,
        buf: &Buf<'_>,
        src: &Src32,
        vals: &ValueSrc,
    ) {
        let (buf, src) = (*buf, *src);
        let order = self.order(fr.warps);
        for &w in &order[..fr.warps] {
            let w = usize::from(w);
            if fr.active[w] == 0 {
                continue;
            }
            let lanes;
            let idx = match src {
                Src32::Aff { a, b, c } => WarpIdx::Affine {
                    start: a.wrapping_add(b.wrapping_mul(w as u32)),
                    step: c,
                },
                Src32::Rows(r) => {
                    lanes = fr.rows[r + w];
                    WarpIdx::Lanes(&lanes)
                }
            };
            let mut a = WarpAccess {
                warp: w as u32,
                mask: fr.active[w],
                idx,
            };
            if !self.warp_access(fr, site, &buf, AccessKind::Store, &mut a) {
                continue;
            }
            match buf.store {
                Store::Global(alloc) => {
                    store_warp(fr, &mut Atomics(&alloc.words), &buf, &a, vals);
                    if alloc.tracks_init() {
                        for l in a.lanes() {
                            alloc.mark_written(buf.byte(a.idx.lane(l)), T::SIZE as usize);
                        }
                    }
                }
                Store::Shared => {
                    let interval = self.st.interval;
                    let arena = &mut self.st.arena;
                    if let Some(il) = &mut arena.interleave {
                        il.before_store(&arena.words, interval, &buf.t, &a);
                    }
                    store_warp(fr, &mut arena.words[..], &buf, &a, vals);
                }
            }
        }
    }

    /// A read-modify-write per active thread, lane by lane: `op(old, x, y)` with the lane's
    /// operands; returns the old values.
    pub(crate) fn atomic<T: AtomicElement>(
        &mut self,
        site: Site,
        place: &PlaceKind<'_>,
        idx: R32,
        operands: [R32; 2],
        op: impl Fn(T, T, T) -> T,
    ) -> R32 {
        let bits = move |o: u64, x: u64, y: u64| {
            let t = |v: u64| T::from_words([v as u32, 0, 0, 0]);
            u64::from(op(t(o), t(x), t(y)).to_words()[0])
        };
        let [x, y] = operands.map(AtomicVal::W);
        match self.atomic_bits::<T>(site, place, idx, [x, y], bits) {
            AtomicVal::W(r) => r,
            AtomicVal::D(_) => unreachable!("a 4-byte atomic returns 4-byte values"),
        }
    }

    /// A read-modify-write of 4- or 8-byte elements of type `T` (its size alone matters), per
    /// active thread, lane by lane: `op(old, x, y)` on the elements' bits with the lane's
    /// operands; returns the old values. An 8-byte update is indivisible against the other
    /// 8-byte atomics (global memory's words are 4-byte atomics: the pair is updated under a
    /// lock).
    pub(crate) fn atomic_bits<T: Element>(
        &mut self,
        site: Site,
        place: &PlaceKind<'_>,
        idx: R32,
        operands: [AtomicVal; 2],
        op: impl Fn(u64, u64, u64) -> u64,
    ) -> AtomicVal {
        let wide = T::SIZE == 8;
        frame::with(|fr| {
            let out = fr.alloc(if wide { 2 } else { 1 });
            let result = if wide {
                AtomicVal::D(R64::Slot(out))
            } else {
                AtomicVal::W(R32::Slot(out))
            };
            if !fr.any_active() {
                return result;
            }
            let buf = Buf::new::<T>(place);
            self.begin(fr, site);
            let src = fr.src32(idx);
            let lanes_of = |fr: &Frame, v: AtomicVal, w: usize| -> [u64; 32] {
                match v {
                    AtomicVal::W(r) => fr.src32(r).get(&fr.rows, w).to_array().map(u64::from),
                    AtomicVal::D(r) => fr.src64(r).get(&fr.rows, w).to_array(),
                }
            };
            let order = self.order(fr.warps);
            for &w in &order[..fr.warps] {
                let w = usize::from(w);
                if fr.active[w] == 0 {
                    continue;
                }
                let lanes;
                let idx = match src {
                    Src32::Aff { a, b, c } => WarpIdx::Affine {
                        start: a.wrapping_add(b.wrapping_mul(w as u32)),
                        step: c,
                    },
                    Src32::Rows(r) => {
                        lanes = fr.rows[r + w];
                        WarpIdx::Lanes(&lanes)
                    }
                };
                let mut a = WarpAccess {
                    warp: w as u32,
                    mask: fr.active[w],
                    idx,
                };
                if !self.warp_access(fr, site, &buf, AccessKind::Atomic, &mut a) {
                    continue;
                }
                let (v0, v1) = (lanes_of(fr, operands[0], w), lanes_of(fr, operands[1], w));
                let mut old = [0u64; 32];
                let mut each = |update: Update<'_>| {
                    for l in a.lanes() {
                        let l = l as usize;
                        let word = buf.byte(a.idx.lane(l as u32)) / 4;
                        old[l] = update(word, &|bits| op(bits, v0[l], v1[l]));
                    }
                };
                match buf.store {
                    Store::Global(alloc) => {
                        let mut words = Atomics(&alloc.words);
                        each(&mut |i, f| update_bits(&mut words, i, wide, f));
                        if alloc.tracks_init() {
                            for l in a.lanes() {
                                alloc.mark_written(buf.byte(a.idx.lane(l)), T::SIZE as usize);
                            }
                        }
                    }
                    Store::Shared => {
                        let words = &mut self.st.arena.words[..];
                        each(&mut |i, f| update_bits(words, i, wide, f));
                    }
                }
                if wide {
                    fr.put64(out, w, U64x32::from_array(old));
                } else {
                    fr.rows[out.row as usize + w] = U32x32::from_array(old.map(|v| v as u32));
                }
            }
            result
        })
    }

    fn begin(&mut self, fr: &mut Frame, site: Site) {
        self.count_instr(fr, site);
        if let Some(c) = &mut self.st.check {
            c.instruction();
        }
    }

    /// The order in which warps store (who wins when warps store to one element).
    #[inline]
    fn order(&mut self, warps: usize) -> [u8; MAX_WARPS] {
        let mut o = [0u8; MAX_WARPS];
        o[..warps].copy_from_slice(self.st.warp_order(warps));
        o[warps..].fill(u8::MAX);
        o
    }

    /// Validate warp `a.warp`'s part of an instruction (bad lanes leave `a.mask` or stop the
    /// block) and show it to the observers; whether any lane of it accesses.
    #[inline(always)]
    fn warp_access(
        &mut self,
        fr: &mut Frame,
        site: Site,
        buf: &Buf<'_>,
        kind: AccessKind,
        a: &mut WarpAccess<'_>,
    ) -> bool {
        // Fast path: a full warp at an affine run inside the buffer.
        let ok = !buf.misaligned
            && a.mask == u32::MAX
            && matches!(a.idx, WarpIdx::Affine { start, step: 1 } if u64::from(start) + 31 < buf.t.len as u64);
        if !ok {
            let bad = if buf.misaligned {
                a.mask
            } else {
                a.idx.out_of_bounds(a.mask, buf.t.len)
            };
            if bad != 0 {
                self.bad_lanes(site, buf, kind, a.warp, a.idx, bad);
                a.mask &= !bad;
            }
        }
        if self.launch.counting {
            self.observe(fr, site, buf, kind, a);
        }
        a.mask != 0
    }

    /// Show one warp's access to the counting and checking observers.
    #[inline(never)]
    fn observe(
        &mut self,
        fr: &mut Frame,
        site: Site,
        buf: &Buf<'_>,
        kind: AccessKind,
        a: &WarpAccess,
    ) {
        if let Some(c) = &mut self.st.count {
            let s = fr.site_index(site);
            c.access(s, site, kind, &buf.t, a, self.launch.bank_geometry());
            c.wave(kind, &buf.t, a);
            if a.mask != 0 {
                c.batch(s, a.warp, kind, &buf.t);
            }
        }
        if self.st.check.is_some() {
            let uninit = match buf.store {
                Store::Global(alloc) if alloc.tracks_init() && kind == AccessKind::Load => {
                    Some(alloc)
                }
                _ => None,
            };
            let words = self.st.arena.words_len();
            self.with_check(|c, cx| c.access(cx, site, &buf.t, kind, a, uninit, words));
        }
    }

    /// Lanes that access out of bounds or misaligned: the block stops, unless check mode
    /// reports them (and they are left out).
    #[cold]
    #[inline(never)]
    fn bad_lanes(
        &mut self,
        site: Site,
        buf: &Buf<'_>,
        kind: AccessKind,
        w: u32,
        idx: WarpIdx<'_>,
        bad: u32,
    ) {
        if self.st.check.is_some() {
            let misaligned = buf.misaligned;
            let wide = self.st.wide.get(w as usize).copied();
            self.with_check(|c, cx| {
                let lanes = (idx, wide.as_ref());
                c.memcheck(cx, site, &buf.t, kind, w, lanes, bad, misaligned);
            });
            return;
        }
        let lane = bad.trailing_zeros();
        let detail = self.fault_detail(site, &buf.t, kind, w, lane, idx.lane(lane));
        fault(if buf.misaligned {
            Error::Misaligned(Box::new(detail))
        } else {
            Error::OutOfBounds(Box::new(detail))
        });
    }

    /// The fault report for `lane` of warp `warp` accessing element `index` of `t`.
    pub(crate) fn fault_detail(
        &self,
        site: Site,
        t: &Target<'_>,
        access: AccessKind,
        warp: u32,
        lane: u32,
        index: u32,
    ) -> AccessFault {
        AccessFault {
            kernel: self.launch.name.clone(),
            block: self.st.idx,
            thread: self.thread_of(warp, lane),
            space: t.space,
            access,
            buffer: t.name.to_string(),
            index: u64::from(index),
            len: t.len as u64,
            address: t.address(index),
            elem_bytes: t.elem,
            location: self.launch.sites.position(site).map(|p| p.to_string()),
        }
    }
}

/// `atomicAdd` and friends: one public method each.
macro_rules! atomic {
    ($(#[$doc:meta])* $name:ident, $bound:ident, $op:expr) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<M: Memory>(
            &mut self,
            mem: &M,
            idx: impl Into<U32s>,
            v: <M::Elem as Element>::Vals,
        ) -> <M::Elem as Element>::Vals
        where
            M::Elem: $bound,
        {
            let site = Site::here();
            let v = <M::Elem as Element>::parts(v).r32[0];
            let old = self.atomic::<M::Elem>(site, &mem.place().0, idx.into().0, [v, v], $op);
            <M::Elem as Element>::vals(Parts::words([old; 4]))
        }
    };
}

impl<'a> Block<'a> {
    atomic!(
        /// `atomicAdd`: returns the old values. Lanes apply in lane order, warps in warp order.
        atomic_add, AtomicElement, |o, v, _| AtomicElement::add(o, v)
    );
    atomic!(
        /// `atomicSub`: returns the old values.
        atomic_sub, AtomicElement, |o, v, _| AtomicElement::sub(o, v)
    );
    atomic!(
        /// `atomicMin`: returns the old values.
        atomic_min, AtomicElement, |o, v, _| AtomicElement::min(o, v)
    );
    atomic!(
        /// `atomicMax`: returns the old values.
        atomic_max, AtomicElement, |o, v, _| AtomicElement::max(o, v)
    );
    atomic!(
        /// `atomicExch`: stores `v`, returns the old values.
        atomic_exch, AtomicElement, |_, v, _| v
    );
    atomic!(
        /// `atomicAnd`: returns the old values.
        atomic_and, AtomicBits, |o, v, _| AtomicBits::and(o, v)
    );
    atomic!(
        /// `atomicOr`: returns the old values.
        atomic_or, AtomicBits, |o, v, _| AtomicBits::or(o, v)
    );
    atomic!(
        /// `atomicXor`: returns the old values.
        atomic_xor, AtomicBits, |o, v, _| AtomicBits::xor(o, v)
    );

    /// `atomicCAS`: where the element equals `compare`, store `v`; returns the old values.
    #[track_caller]
    pub fn atomic_cas<M: Memory>(
        &mut self,
        mem: &M,
        idx: impl Into<U32s>,
        compare: <M::Elem as Element>::Vals,
        v: <M::Elem as Element>::Vals,
    ) -> <M::Elem as Element>::Vals
    where
        M::Elem: AtomicBits,
    {
        let site = Site::here();
        let c = <M::Elem as Element>::parts(compare).r32[0];
        let v = <M::Elem as Element>::parts(v).r32[0];
        let old = self.atomic::<M::Elem>(site, &mem.place().0, idx.into().0, [c, v], |o, c, v| {
            if o == c { v } else { o }
        });
        <M::Elem as Element>::vals(Parts::words([old; 4]))
    }
}

// ----- loads -------------------------------------------------------------------------------------------

/// The fast path of a 4-byte load at `a + b·warp + c·lane`: every warp whose 32 lanes' elements
/// all lie in the buffer reads them straight into `out` (one row for `c = 1`). Returns the warps
/// left to the general path (lanes past the buffer's end, or indices that wrap).
#[inline(always)]
fn rows_fast<W: Words + ?Sized>(
    fr: &mut Frame,
    words: &W,
    origin: usize,
    len: usize,
    (a, b, c): (u32, u32, u32),
    out: Slot,
) -> u32 {
    let (len, base) = (len as u64, origin / 4);
    let mut slow = 0;
    let dst = out.row as usize;
    for w in 0..fr.warps {
        let m = fr.active[w];
        if m == 0 {
            continue;
        }
        let start = a.wrapping_add(b.wrapping_mul(w as u32));
        if u64::from(start) + 31 * u64::from(c) >= len {
            slow |= 1 << w;
            continue;
        }
        let row = &mut fr.rows[dst + w];
        let first = base + start as usize;
        if c == 1 && m == u32::MAX {
            words.row_into(first, row);
        } else {
            // Inactive lanes read zero (their elements are in bounds, so reading them is
            // harmless; nothing counts in this path). The row is selected in registers and
            // stored once: selecting in place lets LLVM emit masked stores, which are
            // microcoded and slow on AMD processors (reduce-interleaved took 1.4x as long).
            let v = if c == 1 {
                words.row(first)
            } else {
                U32x32::from_fn(|l| words.get(first + l * c as usize))
            };
            *row = U32x32::select(Mask(m), v, U32x32::ZERO);
        }
    }
    slow
}

/// The byte offset of element 0 in its storage and the view's length, when element 0 is
/// 4-byte aligned (the fast paths' condition).
#[inline(always)]
fn word_aligned(place: &PlaceKind<'_>) -> Option<(usize, usize)> {
    let (origin, len) = match *place {
        PlaceKind::Global(_, offset, len) => (offset, len),
        PlaceKind::Shared(offset, len, _) => (offset, len),
    };
    origin.is_multiple_of(4).then_some((origin, len))
}

/// The slots a load writes, by layout, and the value they make.
struct Out {
    parts: Parts,
    slots: [Slot; 4],
}

impl Out {
    /// A 4-byte load's output in `slot`.
    fn word(slot: Slot) -> Out {
        Out {
            parts: Parts::words([R32::Slot(slot); 4]),
            slots: [slot; 4],
        }
    }

    #[inline(always)]
    fn alloc(fr: &mut Frame, layout: Layout) -> Out {
        let mut slots = [Slot {
            row: 0,
            generation: 0,
        }; 4];
        let parts = match layout {
            Layout::Wide => {
                slots[0] = fr.alloc(2);
                Parts::wide(R64::Slot(slots[0]))
            }
            Layout::Narrow | Layout::Word => {
                slots[0] = fr.alloc(1);
                Parts::words([R32::Slot(slots[0]); 4])
            }
            Layout::Pair | Layout::Quad => {
                let n = components(layout);
                for s in slots.iter_mut().take(n) {
                    *s = fr.alloc(1);
                }
                Parts::words(std::array::from_fn(|k| R32::Slot(slots[k.min(n - 1)])))
            }
        };
        Out { parts, slots }
    }

    /// Write each lane's element words into warp `w`'s rows.
    #[inline(always)]
    fn place(&self, fr: &mut Frame, w: usize, layout: Layout, got: &[[u32; 4]; 32]) {
        match layout {
            Layout::Narrow | Layout::Word => {
                fr.rows[self.slots[0].row as usize + w] = U32x32::from_fn(|l| got[l][0]);
            }
            Layout::Wide => {
                let v = U64x32::from_fn(|l| u64::from(got[l][0]) | u64::from(got[l][1]) << 32);
                fr.put64(self.slots[0], w, v);
            }
            Layout::Pair | Layout::Quad => {
                for (k, slot) in self.slots.iter().enumerate().take(components(layout)) {
                    fr.rows[slot.row as usize + w] = U32x32::from_fn(|l| got[l][k]);
                }
            }
        }
    }
}

/// Components of a layout stored as separate 32-bit values.
#[inline(always)]
fn components(layout: Layout) -> usize {
    match layout {
        Layout::Pair => 2,
        Layout::Quad => 4,
        _ => 1,
    }
}

/// Each lane's element words (zero for lanes that do not access).
#[inline(always)]
fn gather<W: Words + ?Sized>(words: &W, buf: &Buf<'_>, a: &WarpAccess) -> [[u32; 4]; 32] {
    let mut got = [[0u32; 4]; 32];
    for l in a.lanes() {
        got[l as usize] = read_words(words, buf.byte(a.idx.lane(l)), buf.t.elem);
    }
    got
}

/// One warp's load into the output slots.
#[inline(always)]
fn load_warp<W: Words + ?Sized>(
    fr: &mut Frame,
    words: &W,
    buf: &Buf<'_>,
    a: &WarpAccess<'_>,
    layout: Layout,
    out: &Out,
) {
    let w = a.warp as usize;
    if layout == Layout::Word {
        // A full warp reading 32 consecutive words, or one word for all.
        if let Some(first) = a.full_run() {
            fr.rows[out.slots[0].row as usize + w] = words.row(buf.byte(first) / 4);
            return;
        }
        if let WarpIdx::Affine { start, step: 0 } = a.idx {
            let v = words.get(buf.byte(start) / 4);
            fr.rows[out.slots[0].row as usize + w] =
                U32x32::select(crate::lanes::Mask(a.mask), U32x32::splat(v), U32x32::ZERO);
            return;
        }
    }
    let got = gather(words, buf, a);
    out.place(fr, w, layout, &got);
}

// ----- stores ------------------------------------------------------------------------------------------

/// The fast path of a 4-byte store at `a + b·warp + c·lane` (see [`rows_fast`]): a full warp at
/// consecutive elements writes a row, otherwise each active lane its element, lowest first.
#[inline(always)]
fn store_rows_fast<W: WordsMut + ?Sized>(
    fr: &Frame,
    words: &mut W,
    origin: usize,
    len: usize,
    (a, b, c): (u32, u32, u32),
    v: &Src32,
) -> u32 {
    let n = fr.warps;
    with32!(fr.rows, n, *v, |vals| store_rows(
        fr,
        words,
        origin,
        len,
        (a, b, c),
        vals
    ))
}

/// [`store_rows_fast`] with the value's lanes resolved.
#[inline(always)]
fn store_rows<W: WordsMut + ?Sized>(
    fr: &Frame,
    words: &mut W,
    origin: usize,
    len: usize,
    (a, b, c): (u32, u32, u32),
    vals: impl Lanes32,
) -> u32 {
    let (len, base) = (len as u64, origin / 4);
    let mut slow = 0;
    for w in 0..fr.warps {
        let m = fr.active[w];
        if m == 0 {
            continue;
        }
        let start = a.wrapping_add(b.wrapping_mul(w as u32));
        if u64::from(start) + 31 * u64::from(c) >= len {
            slow |= 1 << w;
            continue;
        }
        let first = base + start as usize;
        let v = vals.at(w);
        if m == u32::MAX && c == 1 {
            words.set_row(first, v);
        } else {
            for l in Mask(m).lanes() {
                words.set(first + l as usize * c as usize, v.words()[l as usize]);
            }
        }
    }
    slow
}

/// An atomic's update of one element: its word index and the function of its old bits;
/// returns the old bits.
type Update<'f> = &'f mut dyn FnMut(usize, &dyn Fn(u64) -> u64) -> u64;

/// A stored value's lanes, by layout.
#[expect(
    clippy::large_enum_variant,
    reason = "lives on the stack for one store; boxing would cost an allocation per store"
)]
enum ValueSrc {
    Words([Src32; 4], usize),
    Wide(Src64),
}

impl ValueSrc {
    #[inline(always)]
    fn new(fr: &Frame, layout: Layout, v: Parts) -> ValueSrc {
        match layout {
            Layout::Wide => ValueSrc::Wide(fr.src64(v.r64)),
            Layout::Narrow | Layout::Word => {
                let s = fr.src32(v.r32[0]);
                ValueSrc::Words([s; 4], 1)
            }
            _ => ValueSrc::Words(v.r32.map(|r| fr.src32(r)), components(layout)),
        }
    }

    /// Warp `w`'s element words per lane.
    #[inline(always)]
    fn lanes(&self, fr: &Frame, w: usize) -> [[u32; 4]; 32] {
        match self {
            ValueSrc::Words(s, n) => {
                let mut out = [[0u32; 4]; 32];
                for (k, s) in s.iter().enumerate().take(*n) {
                    let row = s.get(&fr.rows, w).to_array();
                    for l in 0..32 {
                        out[l][k] = row[l];
                    }
                }
                out
            }
            ValueSrc::Wide(s) => {
                let v = s.get(&fr.rows, w).to_array();
                std::array::from_fn(|l| [v[l] as u32, (v[l] >> 32) as u32, 0, 0])
            }
        }
    }
}

/// One warp's stores, lowest lane first (a later lane wins on a collision, deterministically).
#[inline(always)]
fn store_warp<W: WordsMut + ?Sized>(
    fr: &Frame,
    words: &mut W,
    buf: &Buf<'_>,
    a: &WarpAccess<'_>,
    src: &ValueSrc,
) {
    let w = a.warp as usize;
    if let ValueSrc::Words(s, 1) = src
        && buf.t.elem == 4
        && let Some(first) = a.full_run()
    {
        words.set_row(buf.byte(first) / 4, s[0].get(&fr.rows, w));
        return;
    }
    let vals = src.lanes(fr, w);
    for l in a.lanes() {
        write_words(words, buf.byte(a.idx.lane(l)), buf.t.elem, vals[l as usize]);
    }
}
