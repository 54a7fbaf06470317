//! The counter rules of SPEC §4–§6 on small hand-written kernels: global coalescing (requests,
//! sectors, lines, bytes) for every element size, offset, stride and mask; shared-memory
//! wavefronts and bank conflicts; instructions, warp execution efficiency, branches; inactive
//! instructions cost nothing; `Mode::Fast` counts nothing and computes the same.

use rand::{RngExt, SeedableRng, rngs::SmallRng};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU32, Ordering};
use warpsim::{
    Block, Counters, Device, Element, Global, LaunchConfig, Mask, Metrics, Mode, Pred, Profile,
    U32s, WaveRuns,
};

fn lanes_of(mask: Mask) -> impl Iterator<Item = usize> {
    mask.lanes().map(|l| l as usize)
}

/// A per-thread value whose lane `l` (in every warp) is `lanes[l]`. The old API took per-lane
/// constants (`U32x32::from_array`); block-wide values are computed, here from the lane index
/// with one compare and select per distinct lane (instructions these tests do not count).
fn per_lane(b: &mut Block<'_>, lanes: [u32; 32]) -> U32s {
    let lane = b.lane_id();
    let mut v = U32s::splat(lanes[0]);
    for (l, &x) in lanes.iter().enumerate().skip(1) {
        if x != lanes[0] {
            v = U32s::select(lane.eq(l as u32), x, v);
        }
    }
    v
}

/// The lanes of `mask` (in every warp) as a predicate: the old API branched on a `Mask`.
fn lanes_in(b: &mut Block<'_>, mask: Mask) -> Pred {
    ((U32s::splat(mask.bits()) >> b.lane_id()) & 1u32).ne(0u32)
}

/// One warp performs one load (or store) of `view[idx[l]]` for the lanes of `mask`.
fn global_access<T: Element>(
    dev: &Device,
    view: &Global<T>,
    idx: [u32; 32],
    mask: Mask,
    store: bool,
) -> Counters {
    let report = dev
        .launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
            let i = per_lane(b, idx);
            let go = |b: &mut Block<'_>| {
                if store {
                    b.store(view, i, Default::default());
                } else {
                    let _ = b.load(view, i);
                }
            };
            if mask.is_full() {
                go(b)
            } else {
                let p = lanes_in(b, mask);
                b.if_(p, go)
            }
        })
        .unwrap();
    report.counters.unwrap()
}

/// (sectors, lines) the bytes of the active lanes touch: SPEC §4, from first principles.
fn coalesce_ref(base: u64, size: u64, idx: &[u32; 32], mask: Mask) -> (u64, u64) {
    let (mut sectors, mut lines) = (BTreeSet::new(), BTreeSet::new());
    for l in lanes_of(mask) {
        let a = base + u64::from(idx[l]) * size;
        for byte in a..a + size {
            sectors.insert(byte / 32);
            lines.insert(byte / 128);
        }
    }
    (sectors.len() as u64, lines.len() as u64)
}

fn patterns(rng: &mut SmallRng) -> Vec<(String, [u32; 32])> {
    let mut p: Vec<(String, [u32; 32])> = vec![];
    for stride in [0u32, 1, 2, 3, 4, 8, 9, 32, 33] {
        p.push((
            format!("stride {stride}"),
            std::array::from_fn(|l| l as u32 * stride),
        ));
    }
    p.push(("reversed".into(), std::array::from_fn(|l| 31 - l as u32)));
    p.push(("pairs".into(), std::array::from_fn(|l| l as u32 / 2)));
    p.push(("start 5".into(), std::array::from_fn(|l| l as u32 + 5)));
    for k in 0..4 {
        p.push((
            format!("random {k}"),
            std::array::from_fn(|_| rng.random_range(0..1100)),
        ));
    }
    p
}

fn masks(rng: &mut SmallRng) -> Vec<Mask> {
    vec![
        Mask::FULL,
        Mask::first_n(16),
        Mask(0xffff_0000),
        Mask(0x0000_ff00),
        Mask(0x8000_0001),
        Mask(0xaaaa_aaaa),
        Mask::lane(7),
        Mask(rng.random()),
    ]
}

fn sweep<T: Element>(dev: &Device, rng: &mut SmallRng) {
    let buf = dev.alloc_zeroed::<T>("buf", 1200 + 64);
    let size = u64::from(T::SIZE);
    for offset in [0usize, 1, 2, 3, 4, 8, 11, 16, 31, 32] {
        let view = buf.slice(offset..);
        for (name, idx) in patterns(rng) {
            for mask in masks(rng) {
                let (sectors, lines) = coalesce_ref(view.address(), size, &idx, mask);
                let bytes = u64::from(mask.count()) * size;
                let what = format!("{size}-byte elements, offset {offset}, {name}, {mask:?}");
                let c = global_access(dev, &view, idx, mask, false);
                assert_eq!(
                    (c.gld_requests, c.gld_sectors, c.gld_lines, c.gld_bytes),
                    (1, sectors, lines, bytes),
                    "load: {what}"
                );
                assert_eq!(
                    (c.gst_requests, c.shared_ld_requests, c.atomic_requests),
                    (0, 0, 0)
                );
                let c = global_access(dev, &view, idx, mask, true);
                assert_eq!(
                    (c.gst_requests, c.gst_sectors, c.gst_lines, c.gst_bytes),
                    (1, sectors, lines, bytes),
                    "store: {what}"
                );
                assert_eq!(c.gld_requests, 0);
            }
        }
    }
}

#[test]
fn coalescing_matches_the_byte_level_reference() {
    let dev = Device::default();
    let mut rng = SmallRng::seed_from_u64(42);
    sweep::<u8>(&dev, &mut rng);
    sweep::<u16>(&dev, &mut rng);
    sweep::<f32>(&dev, &mut rng);
    sweep::<f64>(&dev, &mut rng);
    sweep::<[f32; 4]>(&dev, &mut rng);
}

fn contiguous(n: u32) -> [u32; 32] {
    std::array::from_fn(|l| l as u32 * n)
}

#[test]
fn coalescing_spec_examples() {
    let dev = Device::default();
    let f = dev.alloc_zeroed::<f32>("f", 2048);
    let m = |c: &Counters| Metrics::new(c, &Profile::sm_90());
    // (offset, sectors) of a full warp of floats: SPEC §4's H100 measurements.
    for (offset, sectors, lines) in [
        (0, 4, 1),
        (1, 5, 2),
        (2, 5, 2),
        (4, 5, 2),
        (8, 4, 2),
        (11, 5, 2),
        (16, 4, 2),
        (32, 4, 1),
    ] {
        let c = global_access(&dev, &f.slice(offset..), contiguous(1), Mask::FULL, false);
        assert_eq!(
            (c.gld_requests, c.gld_sectors, c.gld_lines),
            (1, sectors, lines),
            "offset {offset}"
        );
        let eff = m(&c).gld_efficiency;
        assert_eq!(
            eff,
            100.0 * 128.0 / (sectors as f64 * 32.0),
            "offset {offset}"
        );
    }
    // Broadcast: one sector. Column walk: one sector per lane.
    let c = global_access(&dev, &f, [17; 32], Mask::FULL, false);
    assert_eq!((c.gld_sectors, c.gld_lines, c.gld_bytes), (1, 1, 128));
    let c = global_access(&dev, &f, contiguous(32), Mask::FULL, false);
    assert_eq!((c.gld_sectors, c.gld_lines), (32, 32));
    // One request also when the access crosses a 128-byte line.
    let c = global_access(&dev, &f.slice(20..), contiguous(1), Mask::FULL, true);
    assert_eq!((c.gst_requests, c.gst_lines), (1, 2));
    assert_eq!(m(&c).gst_efficiency, 80.0);
    // Element sizes: full warps of consecutive elements.
    let c = global_access(
        &dev,
        &dev.alloc_zeroed::<u8>("b", 64),
        contiguous(1),
        Mask::FULL,
        false,
    );
    assert_eq!((c.gld_sectors, c.gld_lines, c.gld_bytes), (1, 1, 32));
    let c = global_access(
        &dev,
        &dev.alloc_zeroed::<u16>("h", 64),
        contiguous(1),
        Mask::FULL,
        false,
    );
    assert_eq!((c.gld_sectors, c.gld_lines, c.gld_bytes), (2, 1, 64));
    let c = global_access(
        &dev,
        &dev.alloc_zeroed::<f64>("d", 64),
        contiguous(1),
        Mask::FULL,
        false,
    );
    assert_eq!((c.gld_sectors, c.gld_lines, c.gld_bytes), (8, 2, 256));
    let c = global_access(
        &dev,
        &dev.alloc_zeroed::<[f32; 4]>("v", 64),
        contiguous(1),
        Mask::FULL,
        false,
    );
    assert_eq!((c.gld_sectors, c.gld_lines, c.gld_bytes), (16, 4, 512));
    assert_eq!(m(&c).gld_efficiency, 100.0);
    // AoS {x, y}: reading x touches twice the sectors it uses.
    let c = global_access(&dev, &f, contiguous(2), Mask::FULL, false);
    assert_eq!(m(&c).gld_efficiency, 50.0);
    // Half a warp, aligned: 2 sectors, 100 %.
    let c = global_access(&dev, &f, contiguous(1), Mask::first_n(16), false);
    assert_eq!((c.gld_sectors, m(&c).gld_efficiency), (2, 100.0));
}

#[test]
fn cached_profiles_count_load_transactions_in_lines() {
    let dev = Device::new(Profile::sm_20());
    let f = dev.alloc_zeroed::<f32>("f", 256);
    let c = global_access(&dev, &f.slice(11..), contiguous(1), Mask::FULL, false);
    let m = Metrics::new(&c, dev.profile());
    assert_eq!((m.gld_sectors, m.gld_lines, m.gld_transactions), (5, 2, 2));
    assert_eq!(m.gld_efficiency, 50.0);
    let c = global_access(&dev, &f.slice(11..), contiguous(1), Mask::FULL, true);
    let m = Metrics::new(&c, dev.profile());
    assert_eq!(
        (m.gst_transactions, m.gst_efficiency),
        (5, 80.0),
        "stores are counted in sectors"
    );
}

// ----- shared memory banks ---------------------------------------------------------------------

/// Elements of the test's shared array: room for `s[tid * 33]` where the profile allows.
fn shared_len<T: Element>(dev: &Device) -> u32 {
    1100.min((dev.profile().smem_per_block - 64) / T::SIZE)
}

/// One warp accesses `s[idx[l]]` of a static shared array placed after `dynamic` bytes of
/// dynamic shared memory. Returns the counters and the array's byte offset.
fn shared_access<T: Element>(
    dev: &Device,
    dynamic: u32,
    idx: [u32; 32],
    mask: Mask,
    store: bool,
) -> (Counters, u64) {
    let offset = AtomicU32::new(u32::MAX);
    let cfg = LaunchConfig::new(1, 32).dynamic_shared(dynamic);
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let s = b.shared::<T>(shared_len::<T>(dev) as usize);
            offset.store(s.offset() as u32, Ordering::Relaxed);
            let i = per_lane(b, idx);
            let go = |b: &mut Block<'_>| {
                if store {
                    b.store(&s, i, Default::default());
                } else {
                    let _ = b.load(&s, i);
                }
            };
            if mask.is_full() {
                go(b)
            } else {
                let p = lanes_in(b, mask);
                b.if_(p, go)
            }
        })
        .unwrap();
    (
        report.counters.unwrap(),
        u64::from(offset.load(Ordering::Relaxed)),
    )
}

/// (wavefronts, ideal) per SPEC §5: per request (a group of `group` lanes), the largest number
/// of distinct 4-byte words in one bank; ideal = ceil(distinct words / banks).
fn banks_ref(
    offset: u64,
    size: u64,
    idx: &[u32; 32],
    mask: Mask,
    banks: u64,
    group: usize,
) -> (u64, u64, Vec<u64>) {
    let (mut wf, mut ideal, mut ways) = (0, 0, vec![]);
    for g in 0..32 / group {
        let mut words = BTreeSet::new();
        for l in lanes_of(mask).filter(|l| l / group == g) {
            let first = (offset + u64::from(idx[l]) * size) / 4;
            for k in 0..size.div_ceil(4) {
                words.insert(first + k);
            }
        }
        if words.is_empty() {
            continue;
        }
        let mut per_bank: BTreeMap<u64, u64> = BTreeMap::new();
        for w in &words {
            *per_bank.entry(w % banks).or_default() += 1;
        }
        let w = *per_bank.values().max().unwrap();
        let i = (words.len() as u64).div_ceil(banks);
        wf += w;
        ideal += i;
        ways.push(w.div_ceil(i));
    }
    (wf, ideal, ways)
}

fn shared_sweep<T: Element>(dev: &Device, rng: &mut SmallRng, banks: u64, group: usize) {
    let size = u64::from(T::SIZE);
    for dynamic in [0, 4, 20] {
        for (name, idx) in patterns(rng) {
            let idx = idx.map(|i| i % shared_len::<T>(dev));
            for mask in masks(rng) {
                for store in [false, true] {
                    let (c, offset) = shared_access::<T>(dev, dynamic, idx, mask, store);
                    let (wf, ideal, ways) = banks_ref(offset, size, &idx, mask, banks, group);
                    let what =
                        format!("{size}-byte, dynamic {dynamic}, {name}, {mask:?}, store {store}");
                    let got = if store {
                        (
                            c.shared_st_requests,
                            c.shared_st_wavefronts,
                            c.shared_st_ideal,
                            c.shared_ld_requests,
                        )
                    } else {
                        (
                            c.shared_ld_requests,
                            c.shared_ld_wavefronts,
                            c.shared_ld_ideal,
                            c.shared_st_requests,
                        )
                    };
                    assert_eq!(got, (1, wf, ideal, 0), "{what}");
                    let mut want_ways = [0u64; 32];
                    for w in ways {
                        want_ways[w as usize - 1] += 1;
                    }
                    assert_eq!(c.shared_conflict_ways, want_ways, "{what}");
                    assert_eq!(c.gld_requests + c.gst_requests, 0);
                }
            }
        }
    }
}

#[test]
fn bank_conflicts_match_the_word_level_reference() {
    let dev = Device::default();
    let mut rng = SmallRng::seed_from_u64(7);
    sweep_all(&dev, &mut rng, 32, 32);
    // GT200: 16 banks, one request per half-warp.
    let dev = Device::new(Profile::sm_13());
    sweep_all(&dev, &mut rng, 16, 16);
}

/// Affine indices (`tid * step + start`, the executor's fast path) against the reference, for
/// loads and stores of every element size, on both bank geometries.
#[test]
fn bank_conflicts_of_affine_indices_match_the_word_level_reference() {
    for (dev, banks, group) in [
        (Device::default(), 32, 32),
        (Device::new(Profile::sm_13()), 16, 16),
    ] {
        affine_sweep::<u8>(&dev, banks, group);
        affine_sweep::<u16>(&dev, banks, group);
        affine_sweep::<f32>(&dev, banks, group);
        affine_sweep::<f64>(&dev, banks, group);
        affine_sweep::<[f32; 4]>(&dev, banks, group);
    }
}

fn affine_sweep<T: Element>(dev: &Device, banks: u64, group: usize) {
    let len = shared_len::<T>(dev);
    for step in [0u32, 1, 2, 3, 4, 8, 16, 32, 33] {
        for start in [0u32, 1, 5] {
            let idx: [u32; 32] = std::array::from_fn(|l| l as u32 * step + start);
            if idx[31] >= len {
                continue;
            }
            for mask in [
                Mask::FULL,
                Mask(0x0000_ffff),
                Mask(0x5555_5555),
                Mask(0x8000_0001),
            ] {
                for store in [false, true] {
                    let offset = AtomicU32::new(0);
                    let cfg = LaunchConfig::new(1, 32);
                    let report = dev
                        .launch(&cfg, |b: &mut Block<'_>| {
                            let s = b.shared::<T>(len as usize);
                            offset.store(s.offset() as u32, Ordering::Relaxed);
                            let i = b.thread_idx().x * step + start;
                            let p = lanes_in(b, mask);
                            b.if_(p, |b| {
                                if store {
                                    b.store(&s, i, Default::default());
                                } else {
                                    let _ = b.load(&s, i);
                                }
                            });
                        })
                        .unwrap();
                    let c = report.counters.unwrap();
                    let off = u64::from(offset.load(Ordering::Relaxed));
                    let (wf, ideal, _) =
                        banks_ref(off, u64::from(T::SIZE), &idx, mask, banks, group);
                    let got = if store {
                        (c.shared_st_wavefronts, c.shared_st_ideal)
                    } else {
                        (c.shared_ld_wavefronts, c.shared_ld_ideal)
                    };
                    assert_eq!(
                        got,
                        (wf, ideal),
                        "{}-byte, s[tid * {step} + {start}], {mask:?}, store {store}",
                        T::SIZE
                    );
                }
            }
        }
    }
}

fn sweep_all(dev: &Device, rng: &mut SmallRng, banks: u64, group: usize) {
    shared_sweep::<u8>(dev, rng, banks, group);
    shared_sweep::<u16>(dev, rng, banks, group);
    shared_sweep::<f32>(dev, rng, banks, group);
    shared_sweep::<f64>(dev, rng, banks, group);
    shared_sweep::<[f32; 4]>(dev, rng, banks, group);
}

#[test]
fn bank_conflict_spec_examples() {
    let dev = Device::default();
    let conflicts = |c: &Counters| Metrics::new(c, &Profile::sm_90()).shared_ld_bank_conflicts;
    let tid = |k: u32| -> [u32; 32] { std::array::from_fn(|l| l as u32 * k) };
    // 4-byte words: s[tid*k] costs gcd(k, 32) wavefronts.
    for (k, wf) in [
        (1, 1),
        (2, 2),
        (4, 4),
        (32, 32),
        (33, 1),
        (0, 1),
        (3, 1),
        (16, 16),
    ] {
        let (c, _) = shared_access::<f32>(&dev, 0, tid(k), Mask::FULL, false);
        assert_eq!(
            (c.shared_ld_wavefronts, conflicts(&c)),
            (wf, wf - 1),
            "s[tid*{k}]"
        );
        assert_eq!(
            c.shared_conflict_ways[wf as usize - 1],
            1,
            "s[tid*{k}] is {wf}-way"
        );
        let (c, _) = shared_access::<f32>(&dev, 0, tid(k), Mask::FULL, true);
        let m = Metrics::new(&c, dev.profile());
        assert_eq!(
            (c.shared_st_wavefronts, m.shared_st_bank_conflicts),
            (wf, wf - 1),
            "store s[tid*{k}]"
        );
    }
    // s[tid % c]: broadcasts within banks, conflict-free.
    for c_ in [1, 3, 7, 32] {
        let (c, _) = shared_access::<f32>(
            &dev,
            0,
            std::array::from_fn(|l| l as u32 % c_),
            Mask::FULL,
            false,
        );
        assert_eq!(conflicts(&c), 0, "s[tid % {c_}]");
    }
    // 8- and 16-byte elements (SPEC §5, measured on an H100).
    for (k, wf, cf) in [(1, 2, 0), (2, 4, 2), (4, 8, 6)] {
        let (c, _) = shared_access::<f64>(&dev, 0, tid(k), Mask::FULL, false);
        assert_eq!(
            (c.shared_ld_wavefronts, conflicts(&c)),
            (wf, cf),
            "double stride {k}"
        );
    }
    for (k, wf, cf) in [(1, 4, 0), (2, 8, 4)] {
        let (c, _) = shared_access::<[f32; 4]>(&dev, 0, tid(k), Mask::FULL, false);
        assert_eq!(
            (c.shared_ld_wavefronts, conflicts(&c)),
            (wf, cf),
            "float4 stride {k}"
        );
    }
    // Partial masks: 16 lanes at stride 32 are a 16-way conflict.
    let (c, _) = shared_access::<f32>(&dev, 0, tid(32), Mask(0x0f0f_0f0f), false);
    assert_eq!((c.shared_ld_wavefronts, conflicts(&c)), (16, 15));
}

// ----- instructions, branches, efficiency ---------------------------------------------------

fn counters_of(dev: &Device, block: u32, kernel: impl Fn(&mut Block<'_>) + Sync) -> Counters {
    dev.launch(&LaunchConfig::new(1, block), kernel)
        .unwrap()
        .counters
        .unwrap()
}

#[test]
fn empty_kernel_costs_nothing() {
    let dev = Device::default();
    let c = counters_of(&dev, 100, |_: &mut Block<'_>| {});
    assert_eq!(
        c,
        Counters {
            warps_launched: 4,
            ..Counters::default()
        }
    );
}

#[test]
fn half_active_branch_instructions_and_efficiency() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 32);
    let c = counters_of(&dev, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        // compare (32 lanes), branch (32), multiply (16), store (16)
        b.if_(t.lt(16), |b| {
            let v = t * 2;
            b.store(&out, t, v);
        });
    });
    assert_eq!((c.warp_instructions, c.thread_instructions), (4, 96));
    let m = Metrics::new(&c, dev.profile());
    assert_eq!(m.warp_execution_efficiency, 75.0);
    assert_eq!((c.branches, c.divergent_branches), (1, 1));
    assert_eq!(m.branch_efficiency, 0.0);
    assert_eq!((c.gst_requests, c.gst_bytes), (1, 64));
}

#[test]
fn loop_instructions_follow_the_shrinking_mask() {
    let dev = Device::default();
    let c = counters_of(&dev, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let trips = t % 4; // 1 instruction, 32 lanes
        // Iteration k: compare and branch under the lanes still looping (32, 24, 16, 8), the body
        // under the lanes that go on (24, 16, 8).
        let _ = b.while_(U32s::ZERO, |_, n| n.lt(trips), |_, n| *n + 1);
    });
    assert_eq!((c.warp_instructions, c.thread_instructions), (12, 240));
    assert_eq!((c.branches, c.divergent_branches), (4, 3));
}

#[test]
fn branch_counts_of_each_construct() {
    let dev = Device::default();
    type K = fn(&mut Block<'_>, U32s);
    let cases: [(&str, K, (u64, u64)); 12] = [
        ("if_ divergent", |b, t| b.if_(t.lt(16), |_| {}), (1, 1)),
        ("if_ all taken", |b, t| b.if_(t.lt(32), |_| {}), (1, 0)),
        ("if_ none taken", |b, t| b.if_(t.gt(32), |_| {}), (1, 0)),
        (
            "if_else divergent",
            |b, t| b.if_else((t % 2).eq(0), |_| (), |_| ()),
            (1, 1),
        ),
        (
            "if_else uniform",
            |b, t| b.if_else(t.ge(0), |_| (), |_| ()),
            (1, 0),
        ),
        (
            "nested: outer divergent, inner uniform on each side",
            |b, t| {
                b.if_else(
                    t.lt(8),
                    |b| b.if_(t.lt(8), |_| {}),
                    |b| b.if_(t.lt(8), |_| {}),
                )
            },
            (3, 1),
        ),
        (
            "while_ per-lane trips",
            |b, t| {
                let _ = b.while_(U32s::ZERO, |_, n| n.lt(t % 4), |_, n| *n + 1);
            },
            (4, 3),
        ),
        (
            "while_ uniform trips",
            |b, _| {
                let _ = b.while_(U32s::ZERO, |_, n| n.lt(3), |_, n| *n + 1);
            },
            (4, 0),
        ),
        (
            "while_ no trip",
            |b, _| {
                let _ = b.while_(U32s::ZERO, |_, n| n.lt(0), |_, n| *n + 1);
            },
            (1, 0),
        ),
        ("exit_if some", |b, t| b.exit_if((t % 2).eq(0)), (1, 1)),
        ("exit_if none", |b, t| b.exit_if(t.gt(99)), (1, 0)),
        ("exit_if all", |b, t| b.exit_if(t.lt(99)), (1, 0)),
    ];
    for (name, k, want) in cases {
        let c = counters_of(&dev, 32, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            k(b, t);
        });
        assert_eq!((c.branches, c.divergent_branches), want, "{name}");
    }
    // Two warps: only the one straddling t = 40 diverges.
    let r = dev
        .launch(&LaunchConfig::new(3, 64), |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            b.if_(t.lt(40), |_| {});
        })
        .unwrap();
    let c = r.counters.unwrap();
    assert_eq!((c.branches, c.divergent_branches), (6, 3));
    assert_eq!(r.divergent_by_warp, [0, 3]);
    assert_eq!(Metrics::new(&c, dev.profile()).branch_efficiency, 50.0);
}

#[test]
fn instructions_without_active_lanes_cost_nothing() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 32);
    let c = counters_of(&dev, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.exit_if(t.lt(32)); // compare + branch, 32 lanes each: every lane leaves
        // Nothing below has an active lane: no instruction, access, fault or branch.
        let x = t * 3 + 1_000_000;
        b.store(&out, x, x);
        let y = b.load(&out, x);
        b.atomic_add(&out, x, y);
        let s = b.shared::<u32>(4);
        b.store(&s, x, x);
        b.if_(x.lt(5), |b| b.store(&out, t, t));
        let _ = b.if_else(x.lt(5), |_| t, |_| t);
        let _ = b.while_(x, |_, v| v.lt(2_000_000), |_, v| *v + 1);
        let _ = b.shfl_sync(Mask::FULL, x, t, 32);
        let _ = b.ballot_sync(Mask::FULL, x.gt(0));
        let _ = b.activemask();
        b.sync_warp(Mask::FULL);
        b.sync_threads();
        b.exit_if(Pred::TRUE);
    });
    assert_eq!(
        c,
        Counters {
            warp_instructions: 2,
            thread_instructions: 64,
            branches: 1,
            warps_launched: 1,
            ..Counters::default()
        }
    );
    assert!(out.to_vec().iter().all(|&v| v == 0));
}

#[test]
fn barriers_and_intrinsics_are_one_instruction_each() {
    let dev = Device::default();
    let c = counters_of(&dev, 64, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        // The old API took the constant `Mask(0xff)` as a predicate; a per-thread predicate is
        // computed now: one compare per warp, outside the instructions under test.
        let p = b.lane_id().lt(8);
        b.sync_threads();
        let _ = b.sync_threads_count(Pred::TRUE);
        let _ = b.shfl_xor_sync(Mask::FULL, t, 1, 32);
        let _ = b.ballot_sync(Mask::FULL, p);
        let _ = b.any_sync(Mask::FULL, p);
        let _ = b.all_sync(Mask::FULL, p);
        let _ = b.match_any_sync(Mask::FULL, t);
        let _ = b.activemask();
    });
    assert_eq!(c.barriers, 4);
    // 8 instructions per warp, plus the predicate's compare.
    assert_eq!(
        (c.warp_instructions, c.thread_instructions),
        (16 + 2, (16 + 2) * 32)
    );
}

#[test]
fn atomics_are_counted_apart_from_loads_and_stores() {
    let dev = Device::default();
    let buf = dev.alloc_zeroed::<u32>("buf", 64);
    let c = counters_of(&dev, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.atomic_add(&buf, t, t); // 4 sectors
        b.atomic_add(&buf, U32s::ZERO, t); // 1 sector
        b.atomic_max(&buf, t * 2, t); // 8 sectors
        let s = b.shared::<u32>(32);
        b.atomic_add(&s, t, t); // shared: a request, no sectors
    });
    assert_eq!((c.atomic_requests, c.atomic_sectors), (4, 13));
    assert_eq!(
        c.gld_requests + c.gst_requests + c.shared_ld_requests + c.shared_st_requests,
        0
    );
}

#[test]
fn fast_mode_counts_nothing_and_computes_the_same() {
    let dev = Device::default();
    let n = 5000usize;
    let input = dev.alloc_from("in", &(0..n as u32).collect::<Vec<_>>());
    let outs = [
        dev.alloc_zeroed::<u32>("a", n),
        dev.alloc_zeroed::<u32>("b", n),
    ];
    let hist = [
        dev.alloc_zeroed::<u32>("h0", 8),
        dev.alloc_zeroed::<u32>("h1", 8),
    ];
    let mut reports = vec![];
    for (k, mode) in [Mode::Count, Mode::Fast].into_iter().enumerate() {
        let (out, h) = (&outs[k], &hist[k]);
        let cfg = LaunchConfig::new((n as u32).div_ceil(128), 128).mode(mode);
        let r = dev
            .launch(&cfg, |b: &mut Block<'_>| {
                let s = b.shared::<u32>(128);
                let t = b.thread_idx().x;
                let i = b.global_idx_x();
                let v = b.if_else(i.lt(n as u32), |b| b.load(&input, i), |_| U32s::ZERO);
                b.store(&s, t, v * v + 1);
                b.sync_threads();
                let r = b.load(&s, 127 - t);
                let r = b.while_(r, |_, r| r.gt(1000), |_, r| *r / 3);
                b.if_(i.lt(n as u32), |b| {
                    b.store(out, i, r);
                    b.atomic_add(h, r % 8, U32s::splat(1));
                });
            })
            .unwrap();
        reports.push(r);
    }
    assert_eq!(outs[0].to_vec(), outs[1].to_vec());
    assert_eq!(hist[0].to_vec(), hist[1].to_vec());
    assert!(reports[0].counters.is_some() && reports[0].metrics().is_some());
    assert!(reports[1].counters.is_none() && reports[1].metrics().is_none());
    assert!(reports[1].divergent_by_warp.is_empty());
    // The catalogue's kernels agree too.
    for name in ["reduce-sequential", "transpose-coalesced", "rgb-to-gray"] {
        let e = warpsim::kernels::find(name).unwrap();
        let p = warpsim::kernels::Params {
            n: 1 << 14,
            width: 128,
            height: 96,
            ..e.defaults.clone()
        };
        let fast = e.run(&dev, &p, Mode::Fast).unwrap();
        let count = e.run(&dev, &p, Mode::Count).unwrap();
        assert!(fast.verified && count.verified, "{name}");
        assert_eq!(fast.detail, count.detail, "{name}");
        assert!(fast.launches.iter().all(|l| l.counters.is_none()), "{name}");
    }
}

#[test]
fn counters_sum_over_blocks_and_warps() {
    let dev = Device::default().with_threads(2).unwrap();
    let out = dev.alloc_zeroed::<f32>("out", 10 * 96);
    let r = dev
        .launch(&LaunchConfig::new(10, 96), |b: &mut Block<'_>| {
            let i = b.thread_idx().x + b.block_idx().x * 96; // 1 instruction
            let v = i.to_f32() + 1.0; // 2 instructions
            b.store(&out, i, v); // 1 request, 4 sectors
        })
        .unwrap();
    let c = r.counters.unwrap();
    assert_eq!(c.warps_launched, 30);
    assert_eq!(
        (c.warp_instructions, c.thread_instructions),
        (120, 120 * 32)
    );
    assert_eq!(
        (c.gst_requests, c.gst_sectors, c.gst_bytes),
        (30, 120, 3840)
    );
    assert_eq!(r.shared_bytes, 0);
}

/// The first wave's sample ([`warpsim::WaveRuns`]): the grid's first blocks, as many as the
/// SMs hold at once (264 blocks of 1024 threads on an H100: two per SM), and each warp's first
/// [`WaveRuns::ACCESSES`] global loads and stores: their sectors, and the 64-byte granules
/// holding them as runs of consecutive granules. Here every warp reads 40 rows of its own
/// 5 KiB, then stores: its first 32 rows make a run of 4 KiB (64 granules, 128 sectors); the 8
/// rows after them, the store and the second wave are not sampled.
#[test]
fn the_first_wave_samples_each_warps_first_accesses() {
    let dev = Device::default();
    let (blocks, rows) = (528u32, 40u32);
    let input = dev.alloc_zeroed::<f32>("in", (blocks * 32 * rows * 32) as usize);
    let out = dev.alloc_zeroed::<f32>("out", (blocks * 1024) as usize);
    let cfg = LaunchConfig::new(blocks, 1024).mode(Mode::Count);
    // 0: the rows in order; 1: every other row; 2: only the second sector of every row; 3: the
    // rows in order, lanes reversed (not a row of a positive step: sampled lane by lane); 4: a
    // column, each lane in its own part of the input (2.6 MiB after the lane before).
    let run = |pattern: u32| {
        dev.launch(&cfg, |b| {
            let warp = b.global_idx_x() >> 5;
            let lane = b.lane_id();
            let mut sum = warpsim::F32s::splat(0.0);
            for j in 0..rows {
                let row = match pattern {
                    1 => warp * rows + (j * 2) % rows,
                    _ => warp * rows + j,
                };
                let at = match pattern {
                    2 => row * 32 + 8,
                    3 => row * 32 + 31 - lane,
                    4 => lane * blocks * 32 * rows + row,
                    _ => row * 32 + lane,
                };
                sum += b.load(&input, at);
            }
            let i = b.global_idx_x();
            b.store(&out, i, sum);
        })
        .expect("runs")
        .samples
        .wave
    };
    let warps = 264 * 32;
    let w = run(0);
    assert_eq!(run(3), w, "lanes in any order touch the same");
    assert_eq!(w.blocks, 264);
    assert_eq!(w.sectors, warps * 32 * 4, "{w:?}");
    let mut want = [0; WaveRuns::BUCKETS];
    want[6] = warps * 64;
    assert_eq!(w.granules, want, "{w:?}");
    // Every other row: 20 distinct rows of 2 granules, none touching the next.
    let w = run(1);
    assert_eq!(w.sectors, warps * 20 * 4, "{w:?}");
    let mut want = [0; WaveRuns::BUCKETS];
    want[1] = warps * 20 * 2;
    assert_eq!(w.granules, want, "{w:?}");
    // The second sector of each row: one sector per granule, the granules 128 bytes apart.
    let w = run(2);
    assert_eq!(w.sectors, warps * 32, "{w:?}");
    let mut want = [0; WaveRuns::BUCKETS];
    want[0] = warps * 32;
    assert_eq!(w.granules, want, "{w:?}");
    // A column: each lane's 32 loads are 4 sectors of its part, 160 bytes after the previous
    // warp's (a gap of one sector, too short to leave a granule out): per lane one run of the
    // wave's warps × 160 bytes, 21,120 granules (from 2^14 to 2^15 − 1).
    let w = run(4);
    assert_eq!(w.sectors, warps * 32 * 4, "{w:?}");
    let mut want = [0; WaveRuns::BUCKETS];
    want[14] = 32 * warps * 160 / 64;
    assert_eq!(w.granules, want, "{w:?}");
}
