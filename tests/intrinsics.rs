//! Warp intrinsics against CUDA's documented results (CUDA C Programming Guide, "Warp Shuffle
//! Functions" and "Warp Vote Functions"; PTX ISA `shfl.sync`): shuffles with every width and
//! delta, out-of-segment and inactive sources, ballot/any/all under partial masks, activemask in
//! branches, match_any_sync.

use rand::{RngExt, SeedableRng, rngs::SmallRng};
use warpsim::{Block, Device, LaunchConfig, Mask, Pred, U32s};

const WIDTHS: [u32; 6] = [1, 2, 4, 8, 16, 32];

#[derive(Clone, Copy, Debug)]
enum Mode {
    Up,
    Down,
    Xor,
}

/// The source lane of `lane` per PTX `shfl.sync` (with `c` built the way CUDA's
/// `__shfl_*_sync(mask, var, b, width)` builds it): a source outside the allowed range gives
/// the lane its own value.
fn ptx_source(mode: Mode, lane: u32, b: u32, width: u32) -> u32 {
    let segmask = (32 - width) & 0x1f;
    let cval = match mode {
        Mode::Up => 0,
        Mode::Down | Mode::Xor => 0x1f,
    };
    let max_lane = (lane & segmask) | (cval & !segmask);
    let b = b & 0x1f;
    let (j, ok) = match mode {
        Mode::Up => {
            let j = lane as i32 - b as i32;
            (j, j >= max_lane as i32)
        }
        Mode::Down => {
            let j = (lane + b) as i32;
            (j, j <= max_lane as i32)
        }
        Mode::Xor => {
            let j = (lane ^ b) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if ok { j as u32 } else { lane }
}

/// `__shfl_sync`: lane `src % width` of the lane's own segment.
fn ptx_idx_source(lane: u32, src: u32, width: u32) -> u32 {
    let segmask = (32 - width) & 0x1f;
    (lane & segmask) | (src & 0x1f & !segmask)
}

/// The lanes of the (only) warp executing now, as a member mask.
fn active(b: &Block<'_>) -> Mask {
    b.active().warp(0)
}

/// 1 in the threads where `p` holds, else 0.
fn as_u32(p: Pred) -> U32s {
    U32s::select(p, 1u32, 0u32)
}

fn one_warp(dev: &Device, kernel: impl Fn(&mut Block<'_>) + Sync) {
    dev.launch(&LaunchConfig::new(1, 32).name("intrinsics"), kernel)
        .unwrap();
}

#[test]
fn shfl_up_down_xor_every_width_and_delta() {
    let dev = Device::default();
    let values: [u32; 32] = std::array::from_fn(|l| 1000 + 7 * l as u32);
    let per_mode = WIDTHS.len() * 32 * 32;
    let out = dev.alloc_zeroed::<u32>("out", 3 * per_mode);
    let outf = dev.alloc_zeroed::<f64>("outf", 3 * per_mode);
    one_warp(&dev, |b: &mut Block<'_>| {
        let lane = b.lane_id();
        // `values` and `-0.5 * lane`, computed per thread (the old API took per-lane constants).
        let v = lane * 7 + 1000;
        let vf = lane.to_f64() * -0.5;
        let mut slot = 0;
        for m in 0..3 {
            for width in WIDTHS {
                for d in 0..32 {
                    let (r, rf) = match m {
                        0 => (
                            b.shfl_up_sync(Mask::FULL, v, d, width),
                            b.shfl_up_sync(Mask::FULL, vf, d, width),
                        ),
                        1 => (
                            b.shfl_down_sync(Mask::FULL, v, d, width),
                            b.shfl_down_sync(Mask::FULL, vf, d, width),
                        ),
                        _ => (
                            b.shfl_xor_sync(Mask::FULL, v, d, width),
                            b.shfl_xor_sync(Mask::FULL, vf, d, width),
                        ),
                    };
                    b.store(&out, lane + slot * 32, r);
                    b.store(&outf, lane + slot * 32, rf);
                    slot += 1;
                }
            }
        }
    });
    let (got, gotf) = (out.to_vec(), outf.to_vec());
    let mut slot = 0;
    for mode in [Mode::Up, Mode::Down, Mode::Xor] {
        for width in WIDTHS {
            for d in 0..32u32 {
                for lane in 0..32u32 {
                    let src = ptx_source(mode, lane, d, width);
                    let k = slot * 32 + lane as usize;
                    assert_eq!(
                        got[k], values[src as usize],
                        "{mode:?} width {width} delta {d} lane {lane}"
                    );
                    assert_eq!(
                        gotf[k],
                        -0.5 * src as f64,
                        "{mode:?} f64 width {width} delta {d} lane {lane}"
                    );
                }
                slot += 1;
            }
        }
    }
}

#[test]
fn shfl_idx_reads_within_the_segment() {
    let dev = Device::default();
    let mut rng = SmallRng::seed_from_u64(1);
    let srcs: Vec<[u32; 32]> = (0..40)
        .map(|k| {
            std::array::from_fn(|l| match k {
                0 => 0,             // broadcast lane 0 of each segment
                1 => 31 - l as u32, // reversal
                2 => l as u32 + 32, // beyond the warp: taken modulo width
                _ => rng.random_range(0..100),
            })
        })
        .collect();
    let out = dev.alloc_zeroed::<i32>("out", WIDTHS.len() * srcs.len() * 32);
    // Per-lane source lanes come from memory (the old API took per-lane constants).
    let src_lanes = dev.alloc_from("srcs", &srcs.concat());
    one_warp(&dev, |b: &mut Block<'_>| {
        let lane = b.lane_id();
        let v = lane.as_i32() * -3 - 1;
        let mut slot = 0;
        for width in WIDTHS {
            for k in 0..srcs.len() as u32 {
                let src = b.load(&src_lanes, lane + k * 32);
                let r = b.shfl_sync(Mask::FULL, v, src, width);
                b.store(&out, lane + slot * 32, r);
                slot += 1;
            }
        }
    });
    let got = out.to_vec();
    let mut slot = 0;
    for width in WIDTHS {
        for s in &srcs {
            for lane in 0..32u32 {
                let src = ptx_idx_source(lane, s[lane as usize], width);
                // The CUDA guide's rule, spelled differently: lane srcLane % width of the segment.
                assert_eq!(src, (lane / width) * width + s[lane as usize] % width);
                assert_eq!(
                    got[slot * 32 + lane as usize],
                    -(src as i32) * 3 - 1,
                    "width {width} lane {lane}"
                );
            }
            slot += 1;
        }
    }
}

#[test]
fn shuffles_from_lanes_not_taking_part_read_zero() {
    // CUDA leaves a read from an inactive lane undefined; an sm_90 GPU returns 0
    // (tests/data/programs/real/shfl.cu on an H200), and so does warpsim, whatever the lane's
    // register holds (every lane computes); a source past the segment is the lane's own value.
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 3 * 32);
    let ones = dev.alloc_from("ones", &[1u32; 32]);
    one_warp(&dev, |b: &mut Block<'_>| {
        let lane = b.lane_id();
        let v = lane * 10 + 5;
        let a = b.if_else(
            (lane % 2).eq(0),
            |b| b.shfl_xor_sync(active(b), v, 1, 32),
            |_| U32s::splat(u32::MAX),
        );
        let bv = b.if_else(
            lane.lt(20),
            |b| b.shfl_down_sync(active(b), v, 16, 32),
            |_| U32s::splat(u32::MAX),
        );
        // A value loaded inside the branch is zero on the lanes that did not load it.
        let c = b.if_else(
            lane.lt(8),
            |b| {
                let x = b.load(&ones, lane);
                b.shfl_sync(active(b), x, lane + 8, 32)
            },
            |_| U32s::splat(u32::MAX),
        );
        b.store(&out, lane, a);
        b.store(&out, lane + 32, bv);
        b.store(&out, lane + 64, c);
    });
    let got = out.to_vec();
    for l in 0..32u32 {
        // Even lanes read odd ones, which are inactive.
        let want_a = if l % 2 == 0 { 0 } else { u32::MAX };
        let want_b = match l {
            0..4 => (l + 16) * 10 + 5,
            4..16 => 0,
            16..20 => l * 10 + 5,
            _ => u32::MAX,
        };
        let want_c = if l < 8 { 0 } else { u32::MAX };
        assert_eq!(got[l as usize], want_a, "xor lane {l}");
        assert_eq!(got[l as usize + 32], want_b, "down lane {l}");
        assert_eq!(got[l as usize + 64], want_c, "idx lane {l}");
    }
}

#[test]
fn warp_sum_by_shfl_down_and_butterfly() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 64);
    one_warp(&dev, |b: &mut Block<'_>| {
        let lane = b.lane_id();
        let x = (lane + 1).to_f32();
        let mut s = x;
        for d in [16, 8, 4, 2, 1] {
            s += b.shfl_down_sync(Mask::FULL, s, d, 32);
        }
        let mut bf = x;
        for d in [1, 2, 4, 8] {
            bf += b.shfl_xor_sync(Mask::FULL, bf, d, 16);
        }
        b.store(&out, lane, s);
        b.store(&out, lane + 32, bf);
    });
    let got = out.to_vec();
    assert_eq!(got[0], 528.0, "lane 0 holds the warp's sum");
    // Butterfly within 16-lane segments: every lane holds its segment's sum.
    for l in 0..32 {
        let want = if l < 16 { 136.0 } else { 392.0 };
        assert_eq!(got[32 + l], want, "lane {l}");
    }
}

#[test]
fn ballot_any_all_under_partial_masks() {
    let dev = Device::default();
    let out = dev.alloc_from("out", &[0xdead_beefu32; 16]);
    one_warp(&dev, |b: &mut Block<'_>| {
        let lane = b.lane_id();
        // Votes are per-thread values now (uniform within the warp): every active thread
        // stores its copy to out[k].
        let put = |b: &mut Block<'_>, k: u32, v: U32s| b.store(&out, k, v);
        let b0 = b.ballot_sync(Mask::FULL, (lane % 3).eq(0));
        put(b, 0, b0);
        b.if_(lane.lt(20), |b| {
            let pred = (lane % 3).eq(0);
            let v = [
                b.ballot_sync(Mask::FULL, pred),
                b.ballot_sync(Mask(0x0000_ffff), pred),
                as_u32(b.any_sync(Mask::FULL, lane.eq(25))),
                as_u32(b.any_sync(Mask::FULL, lane.eq(19))),
                as_u32(b.any_sync(Mask(0xff), lane.eq(19))),
                as_u32(b.all_sync(Mask::FULL, lane.lt(20))),
                as_u32(b.all_sync(Mask::FULL, lane.lt(19))),
                as_u32(b.all_sync(Mask(0xff00), lane.ge(8))),
                as_u32(b.all_sync(Mask(0x000f_ffff), lane.ne(3))),
            ];
            for (k, x) in v.into_iter().enumerate() {
                put(b, k as u32 + 1, x);
            }
        });
        let all = as_u32(b.all_sync(Mask::FULL, lane.lt(32)));
        put(b, 10, all);
        let any = as_u32(b.any_sync(Mask::FULL, Pred::FALSE));
        put(b, 11, any);
    });
    let every3 = |lim: u32| {
        (0..lim)
            .filter(|l| l % 3 == 0)
            .fold(0u32, |m, l| m | 1 << l)
    };
    assert_eq!(
        &out.to_vec()[..12],
        [
            every3(32),
            every3(20),
            every3(16),
            0,
            1,
            0,
            1,
            0,
            1,
            0,
            1,
            0
        ]
    );
}

#[test]
fn activemask_follows_branches_and_exits() {
    let dev = Device::default();
    let out = dev.alloc_from("out", &[0u32; 8]);
    let report = dev
        .launch(&LaunchConfig::new(1, 40), |b: &mut Block<'_>| {
            let lane = b.lane_id();
            let base = b.warp_id() * 4;
            // The active mask is a per-thread value now (uniform within each warp).
            let put = |b: &mut Block<'_>, k: u32, v: U32s| b.store(&out, base + k, v);
            let m = b.activemask();
            put(b, 0, m);
            b.if_(lane.lt(24), |b| {
                b.if_((lane % 2).eq(1), |b| {
                    let m = b.activemask();
                    put(b, 1, m);
                });
            });
            b.exit_if(lane.lt(4));
            let m = b.activemask();
            put(b, 2, m);
        })
        .unwrap();
    let odd_below_24 = (0..24).filter(|l| l % 2 == 1).fold(0u32, |m, l| m | 1 << l);
    assert_eq!(
        out.to_vec(),
        [u32::MAX, odd_below_24, !0xf, 0, 0xff, 0xff & 0xaa, 0xf0, 0]
    );
    // Warp 1 has only 8 threads: every instruction it issues weighs 8 lanes or fewer.
    let c = report.counters.unwrap();
    assert!(c.thread_instructions < 32 * c.warp_instructions);
}

#[test]
fn match_any_groups_equal_values_among_active_lanes() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    one_warp(&dev, |b: &mut Block<'_>| {
        let lane = b.lane_id();
        let full = b.match_any_sync(Mask::FULL, lane % 5);
        let part = b.if_else(
            lane.lt(20),
            |b| b.match_any_sync(Mask::FULL, (lane / 3) * 0x1000_0001),
            |_| U32s::ZERO,
        );
        b.store(&out, lane, full);
        b.store(&out, lane + 32, part);
    });
    let got = out.to_vec();
    for l in 0..32u32 {
        let want = (0..32)
            .filter(|k| k % 5 == l % 5)
            .fold(0u32, |m, k| m | 1 << k);
        assert_eq!(got[l as usize], want, "full lane {l}");
        let want = if l < 20 {
            (0..20)
                .filter(|k| k / 3 == l / 3)
                .fold(0u32, |m, k| m | 1 << k)
        } else {
            0
        };
        assert_eq!(got[l as usize + 32], want, "partial lane {l}");
    }
}

#[test]
fn shuffles_of_every_lane_type_move_whole_values() {
    let dev = Device::default();
    let out32 = dev.alloc_zeroed::<f32>("f", 32);
    let out64 = dev.alloc_zeroed::<f64>("d", 32);
    let outu = dev.alloc_zeroed::<u64>("u", 32);
    let f: Vec<f32> = (0..32)
        .map(|l| if l == 3 { f32::NAN } else { l as f32 + 0.25 })
        .collect();
    let in32 = dev.alloc_from("f_in", &f);
    let in64 = dev.alloc_from(
        "d_in",
        &(0..32).map(|l| 1e300 * l as f64).collect::<Vec<_>>(),
    );
    let inu = dev.alloc_from(
        "u_in",
        &(0..32)
            .map(|l| (l as u64) << 40 | 0xffff)
            .collect::<Vec<_>>(),
    );
    let report = dev
        .launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
            let lane = b.lane_id();
            // The per-lane inputs come from memory (the old API took per-lane constants).
            let f = b.load(&in32, lane);
            let d = b.load(&in64, lane);
            let u = b.load(&inu, lane);
            let rev = 31 - lane;
            let f = b.shfl_sync(Mask::FULL, f, rev, 32);
            let d = b.shfl_sync(Mask::FULL, d, rev, 32);
            let u = b.shfl_sync(Mask::FULL, u, rev, 32);
            b.store(&out32, lane, f);
            b.store(&out64, lane, d);
            b.store(&outu, lane, u);
        })
        .unwrap();
    let (f, d, u) = (out32.to_vec(), out64.to_vec(), outu.to_vec());
    for l in 0..32usize {
        let s = 31 - l;
        if s == 3 {
            assert!(f[l].is_nan());
        } else {
            assert_eq!(f[l], s as f32 + 0.25);
        }
        assert_eq!(d[l], 1e300 * s as f64);
        assert_eq!(u[l], (s as u64) << 40 | 0xffff);
    }
    // 3 shuffles + 3 stores + the subtraction: shuffles are one warp instruction each. (Plus
    // the 3 loads of the inputs, which the old API built as per-lane constants for free.)
    assert_eq!(report.counters.unwrap().warp_instructions, 7 + 3);
}
