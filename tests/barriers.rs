//! Barriers (SPEC §3): data exchanged between warps through shared memory,
//! `sync_threads_count/_and/_or`, exited warps, and barriers reached while only part of the block
//! executes.
//!
//! The block-lockstep engine runs every warp of a block at the same program point, so a barrier
//! is a program point, not a suspension: the old tests of deadlocks (a warp awaiting a foreign
//! future) and of dropped barrier futures have no premise left and are replaced by the closest
//! tests of the new model (see each test).

use warpsim::check::{Kind, explore};
use warpsim::{
    Block, Device, Dim3, Error, Global, LaunchConfig, Mask, Mode, Pred, Space, U32s, WarpOrder,
};

/// `cfg` with its warps executing each operation in `order`.
fn ordered(mut cfg: LaunchConfig, order: WarpOrder) -> LaunchConfig {
    cfg.warp_order = order;
    cfg
}

const ORDERS: [WarpOrder; 4] = [
    WarpOrder::RoundRobin,
    WarpOrder::Reverse,
    WarpOrder::Random(7),
    WarpOrder::Random(0x5eed),
];

/// `out[b*256 + t] = in[b*256 + 255 - t]` through a 256-element shared array.
fn reverse_block(b: &mut Block<'_>, input: &Global<f32>, out: &Global<f32>, barrier: bool) {
    let s = b.shared::<f32>(256);
    let t = b.thread_idx().x;
    let g = b.global_idx_x();
    let v = b.load(input, g);
    b.store(&s, t, v);
    if barrier {
        b.sync_threads();
    }
    let r = b.load(&s, 255 - t);
    b.store(out, g, r);
}

#[test]
fn block_of_256_reverses_an_array_through_shared_memory() {
    let dev = Device::default().with_threads(2).unwrap();
    let n = 4 * 256;
    let host: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 + 1.0).collect();
    let input = dev.alloc_from("in", &host);
    let want: Vec<f32> = (0..n)
        .map(|i| host[(i / 256) * 256 + 255 - i % 256])
        .collect();
    for order in ORDERS {
        let out = dev.alloc_zeroed::<f32>("out", n);
        let cfg = ordered(LaunchConfig::new(4, 256).name("reverse"), order);
        let report = dev
            .launch(&cfg, |b: &mut Block<'_>| {
                reverse_block(b, &input, &out, true)
            })
            .unwrap();
        assert_eq!(out.to_vec(), want, "{order:?}");
        let c = report.counters.unwrap();
        assert_eq!(c.barriers, 4 * 8, "one barrier per warp");
        assert_eq!(c.shared_st_requests, 4 * 8);
        assert_eq!(c.shared_ld_requests, 4 * 8);
    }
}

#[test]
fn without_the_barrier_the_exchange_reads_unwritten_data() {
    // Changed with the lockstep engine: warps no longer run barrier to barrier, so in the fixed
    // orders every warp stores before any warp loads and the missing barrier goes unseen in the
    // output. What still holds: check mode reports the race, and an instruction-granularity
    // schedule (a load scheduled before another warp's store) reads data not yet written.
    let dev = Device::default();
    let input = dev.alloc_from("in", &vec![1.0f32; 256]);
    for order in [WarpOrder::RoundRobin, WarpOrder::Reverse] {
        let out = dev.alloc_from("out", &vec![-1.0f32; 256]);
        let cfg = ordered(LaunchConfig::new(1, 256), order);
        dev.launch(&cfg, |b: &mut Block<'_>| {
            reverse_block(b, &input, &out, false)
        })
        .unwrap();
        assert_eq!(out.to_vec(), vec![1.0; 256], "{order:?}");
    }
    // Check mode: warp 0 reads s[255 - t], written by warp 7 in the same barrier interval.
    let out = dev.alloc_zeroed::<f32>("out", 256);
    let cfg = LaunchConfig::new(1, 256).mode(Mode::Check);
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            reverse_block(b, &input, &out, false)
        })
        .unwrap();
    let race = report
        .findings
        .iter()
        .find(|f| f.kind == Kind::RaceReadAfterWrite)
        .unwrap_or_else(|| panic!("no race among {:#?}", report.findings));
    assert_eq!(race.space, Some(Space::Shared));
    // With the barrier the same kernel is clean.
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            reverse_block(b, &input, &out, true)
        })
        .unwrap();
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    // Exploration finds a schedule whose loads see the unwritten (zeroed) shared memory.
    let found = explore(8, |s| {
        let out = dev.alloc_from("out", &vec![-1.0f32; 256]);
        let cfg = LaunchConfig::new(1, 256).schedule(*s);
        dev.launch(&cfg, |b: &mut Block<'_>| {
            reverse_block(b, &input, &out, false)
        })?;
        Ok(out.to_vec())
    })
    .unwrap()
    .expect("a schedule that reads unwritten data");
    assert!(matches!(found.schedule.warps, WarpOrder::Interleaved(_)));
    assert!(found.got.contains(&0.0), "{:?}", found.got);
    assert!(found.got.iter().all(|&v| v == 0.0 || v == 1.0));
}

#[test]
fn barriers_in_a_loop_keep_phases_apart() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 2 * 128);
    for order in ORDERS {
        let cfg = ordered(LaunchConfig::new(2, 128), order);
        let report = dev
            .launch(&cfg, |b: &mut Block<'_>| {
                let s = b.shared::<u32>(128);
                let t = b.thread_idx().x;
                b.store(&s, t, t * 3);
                b.sync_threads();
                for _ in 0..10 {
                    let v = b.load(&s, (t + 32) % 128);
                    b.sync_threads();
                    b.store(&s, t, v + 1);
                    b.sync_threads();
                }
                let v = b.load(&s, t);
                b.store(&out, b.global_idx_x(), v);
            })
            .unwrap();
        let want: Vec<u32> = (0..256).map(|g| ((g % 128 + 320) % 128) * 3 + 10).collect();
        assert_eq!(out.to_vec(), want, "{order:?}");
        assert_eq!(report.counters.unwrap().barriers, 2 * 4 * 21);
    }
}

#[test]
fn sync_threads_count_and_or() {
    let dev = Device::default();
    // 100 threads: warps of 32, 32, 32 and 4 lanes; 3 blocks.
    let res = dev.alloc_from("res", &vec![u32::MAX; 3 * 4 * 16]);
    let cfg = LaunchConfig::new(3, 100).name("votes");
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            let bx = b.block_idx().x;
            let base = (b.warp_id() + bx * 4) * 16;
            let mut vals = [0u32; 12];
            vals[0] = b.sync_threads_count((t % 3).eq(0));
            vals[1] = b.sync_threads_and(t.lt(100)) as u32;
            vals[2] = b.sync_threads_and(t.lt(99)) as u32;
            vals[3] = b.sync_threads_or(t.eq(99)) as u32;
            vals[4] = b.sync_threads_or(t.gt(100)) as u32;
            // Lanes past the block's 100 threads do not exist and do not count.
            vals[5] = b.sync_threads_count(Pred::TRUE);
            vals[6] = b.sync_threads_count(t.lt(bx * 10));
            // Exited threads take no part: 50 remain (warps 2 and 3 leave entirely).
            b.exit_if(t.ge(50));
            vals[7] = b.sync_threads_count(Pred::TRUE);
            vals[8] = b.sync_threads_and(t.lt(50)) as u32;
            vals[9] = b.sync_threads_or(t.ge(50)) as u32;
            vals[10] = b.sync_threads_count((t % 2).eq(0));
            vals[11] = b.sync_threads_and((t % 2).eq(0)) as u32;
            for (k, v) in vals.into_iter().enumerate() {
                b.store(&res, base + k as u32, U32s::splat(v));
            }
        })
        .unwrap();
    let res = res.to_vec();
    for b in 0..3u32 {
        for warp in 0..4u32 {
            let got = &res[((b * 4 + warp) * 16) as usize..][..12];
            if warp < 2 {
                assert_eq!(
                    got,
                    [34, 1, 0, 1, 0, 100, b * 10, 50, 1, 0, 25, 0],
                    "block {b} warp {warp}"
                );
            } else {
                // The exited warps store nothing after their exit.
                assert!(
                    got.iter().all(|&v| v == u32::MAX),
                    "block {b} warp {warp}: {got:?}"
                );
            }
        }
    }
    // 4 warps × 7 barriers + 2 warps × 5 barriers per block.
    assert_eq!(report.counters.unwrap().barriers, 3 * (4 * 7 + 2 * 5));
}

#[test]
fn exited_warps_do_not_block_the_barrier() {
    let dev = Device::default();
    for order in ORDERS {
        for how in 0..3 {
            let out = dev.alloc_from("out", &vec![u32::MAX; 128]);
            let counts = dev.alloc_zeroed::<u32>("counts", 4);
            let cfg = ordered(LaunchConfig::new(1, 128), order);
            let report = dev
                .launch(&cfg, |b: &mut Block<'_>| {
                    let s = b.shared::<u32>(128);
                    let t = b.thread_idx().x;
                    match how {
                        // Every lane of warp 2 exits through exit_if before the barrier.
                        0 => b.exit_if((t / 32).eq(2)),
                        // Warp 2 returns (warp-uniform control flow: a branch on the warp id).
                        1 => b.if_(b.warp_id().eq(2), |b| b.exit()),
                        // Warp 2 works for a while, then its lanes exit one by one in a loop;
                        // the other warps take no part in the branch.
                        _ => b.if_(b.warp_id().eq(2), |b| {
                            let _ = b.while_(
                                U32s::ZERO,
                                |_, n| n.lt(64),
                                |b, n| {
                                    b.exit_if(n.eq(t % 32));
                                    *n + 1
                                },
                            );
                        }),
                    }
                    b.store(&s, t, t + 1);
                    let live = b.sync_threads_count(Pred::TRUE);
                    let v = b.load(&s, 127 - t);
                    b.store(&out, t, v);
                    b.store(&counts, b.warp_id(), U32s::splat(live));
                })
                .unwrap();
            let got = out.to_vec();
            for t in 0..128u32 {
                let want = if (64..96).contains(&t) {
                    u32::MAX // exited: no store
                } else if (64..96).contains(&(127 - t)) {
                    0 // read what the exited warp never wrote
                } else {
                    127 - t + 1
                };
                assert_eq!(got[t as usize], want, "{order:?} case {how} thread {t}");
            }
            assert_eq!(counts.to_vec(), [96, 96, 0, 96], "{order:?} case {how}");
            assert_eq!(report.counters.unwrap().barriers, 3);
        }
    }
}

#[test]
fn partially_exited_warps_still_take_part() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    dev.launch(&LaunchConfig::new(1, 64), |b: &mut Block<'_>| {
        let s = b.shared::<u32>(64);
        let t = b.thread_idx().x;
        b.exit_if(t.ge(40) & (t % 2).eq(1));
        b.store(&s, t, t * t);
        let n = b.sync_threads_count(Pred::TRUE);
        let v = b.load(&s, 63 - t) + n * 10_000;
        b.store(&out, t, v);
    })
    .unwrap();
    let got = out.to_vec();
    for t in 0..64u32 {
        let live = |t: u32| !(t >= 40 && t % 2 == 1);
        let want = if !live(t) {
            0
        } else {
            let src = 63 - t;
            (if live(src) { src * src } else { 0 }) + 52 * 10_000
        };
        assert_eq!(got[t as usize], want, "thread {t}");
    }
}

#[track_caller]
fn check_misuse(e: Error, kernel: &str, block: Dim3, warp: u32) -> String {
    match e {
        Error::BarrierMisuse {
            kernel: k,
            block: b,
            warp: w,
            reason,
            location,
        } => {
            let loc = location.expect("a located barrier");
            assert!(loc.contains("tests/barriers.rs:"), "{loc}");
            assert_eq!((k.as_str(), b, w), (kernel, block, warp), "{reason}");
            assert!(!reason.is_empty());
            reason
        }
        other => panic!("expected BarrierMisuse, got {other:?}"),
    }
}

#[test]
fn a_barrier_some_warps_never_reach_is_an_error_not_a_hang() {
    // Replaces the old deadlock test (a warp blocked on a foreign future while the others wait
    // at a barrier): kernels are plain functions now, so no warp can wait on anything, and the
    // closest failure is a barrier that some warps skip. It stops the launch with an error that
    // names the block and the first warp missing from the barrier.
    let dev = Device::default().with_threads(2).unwrap();
    let cfg = LaunchConfig::new(3, 128).name("stuck");
    // Block 1's warp 1 skips the barrier the others reach.
    let e = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            if b.block_idx().x == 1 {
                b.if_(b.warp_id().ne(1), |b| b.sync_threads());
            }
            b.sync_threads();
        })
        .unwrap_err();
    assert_eq!(e.block(), Some(Dim3::new(1, 0, 0)));
    assert_eq!(e.kernel(), "stuck");
    let msg = e.to_string();
    assert!(msg.contains("stuck"), "{msg}");
    check_misuse(e, "stuck", Dim3::new(1, 0, 0), 1);

    // With a warp that already finished: exited threads are not expected at the barrier.
    let e = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let w = b.warp_id();
            b.if_(w.eq(0), |b| b.exit());
            b.if_(w.ge(2), |b| b.sync_threads());
        })
        .unwrap_err();
    check_misuse(e, "stuck", Dim3::new(0, 0, 0), 1);

    // A barrier in a branch no thread takes is never reached; one in a branch every live thread
    // took is an ordinary barrier.
    let r = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            b.if_(t.gt(1000), |b| b.sync_threads());
            b.exit_if(t.ge(100));
            b.if_(t.lt(100), |b| b.sync_threads());
        })
        .unwrap();
    assert_eq!(r.counters.unwrap().barriers, 3 * 4);

    // The device is still usable.
    let out = dev.alloc_zeroed::<u32>("out", 128);
    dev.launch(&LaunchConfig::new(1, 128), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.sync_threads();
        b.store(&out, t, t + 1);
    })
    .unwrap();
    assert_eq!(out.to_vec(), (1..=128).collect::<Vec<u32>>());
}

#[test]
fn a_barrier_inside_a_divergent_branch_body_is_barrier_misuse() {
    let dev = Device::default();
    let cfg = LaunchConfig::new(3, 64).name("divergent-barrier");
    // In an if_ body: in block 2, warp 0 takes the branch entirely, warp 1 only in part.
    let e = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            if b.block_idx().x == 2 {
                b.if_(t.lt(48), |b| b.sync_threads());
            }
            b.sync_threads();
        })
        .unwrap_err();
    check_misuse(e, "divergent-barrier", Dim3::new(2, 0, 0), 1);
    // In the else side of an if_else.
    let e = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            b.if_else((t % 2).eq(0), |_| {}, |b| b.sync_threads());
            b.sync_threads();
        })
        .unwrap_err();
    check_misuse(e, "divergent-barrier", Dim3::new(0, 0, 0), 0);
    // In a loop body.
    let e = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            if b.block_idx().x == 1 {
                let _ = b.while_(
                    U32s::ZERO,
                    |_, n| n.lt(t % 3),
                    |b, n| {
                        b.sync_threads();
                        *n + 1
                    },
                );
            }
        })
        .unwrap_err();
    check_misuse(e, "divergent-barrier", Dim3::new(1, 0, 0), 0);
    // The device is still usable.
    let input = dev.alloc_from("in", &vec![2.0f32; 256]);
    let out = dev.alloc_zeroed::<f32>("out", 256);
    dev.launch(&LaunchConfig::new(1, 256), |b: &mut Block<'_>| {
        reverse_block(b, &input, &out, true)
    })
    .unwrap();
    assert!(out.to_vec().iter().all(|&v| v == 2.0));
}

#[test]
fn sync_warp_orders_nothing_and_is_counted() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    let report = dev
        .launch(&LaunchConfig::new(1, 64), |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            b.sync_warp(Mask::FULL);
            b.if_(t.lt(16), |b| b.sync_warp(Mask::first_n(16)));
            b.store(&out, t, t);
        })
        .unwrap();
    assert_eq!(out.to_vec(), (0..64).collect::<Vec<u32>>());
    let c = report.counters.unwrap();
    assert_eq!(c.barriers, 0, "__syncwarp is not a block barrier");
    // Per warp: sync_warp, compare, branch, sync_warp (warp 0 only), store.
    assert_eq!(c.warp_instructions, 2 * 4 + 1);
}

#[test]
fn blocks_of_32_warps_synchronise() {
    let dev = Device::default();
    // 1024 threads: warp 31 is bit 31 of every warp mask; 1000 threads: a partial 32nd warp.
    for (threads, exit_last_warp) in [(1024u32, false), (1024, true), (1000, false)] {
        let out = dev.alloc_from("out", &vec![u32::MAX; 2 * threads as usize]);
        let report = dev
            .launch(&LaunchConfig::new(2, threads), |b: &mut Block<'_>| {
                let s = b.shared::<u32>(1024);
                let t = b.thread_idx().x;
                if exit_last_warp {
                    b.exit_if(t.ge(992));
                }
                b.store(&s, t, t + 1);
                let evens = b.sync_threads_count((t % 2).eq(0));
                let v = b.load(&s, threads - 1 - t);
                b.store(&out, b.global_idx_x(), v + evens * 10_000);
            })
            .unwrap();
        let got = out.to_vec();
        let live = if exit_last_warp { 992 } else { threads };
        for g in 0..2 * threads {
            let t = g % threads;
            let src = threads - 1 - t;
            let want = if t >= live {
                u32::MAX
            } else {
                (if src < live { src + 1 } else { 0 }) + live / 2 * 10_000
            };
            assert_eq!(got[g as usize], want, "{threads} threads, thread {t}");
        }
        assert_eq!(
            report.counters.unwrap().barriers,
            2 * u64::from(live.div_ceil(32))
        );
    }
}

#[test]
fn a_barrier_in_a_branch_every_thread_took_counts_each_thread_once() {
    // Replaces the test of a barrier future polled by hand and dropped (its arrival had to be
    // withdrawn): barriers are plain calls now and cannot be abandoned. The closest property of
    // the new model: a barrier inside a branch body that every live thread took is legal, and
    // the next barrier's vote counts each thread exactly once.
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    let cfg = LaunchConfig::new(1, 64);
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            b.if_(t.lt(64), |b| b.sync_threads());
            // Every one of the 64 threads holds the predicate, and only 64 threads arrive.
            let all = b.sync_threads_and(Pred::TRUE);
            let count = b.sync_threads_count(Pred::TRUE);
            b.store(&out, t, U32s::splat(u32::from(all) + count * 10));
        })
        .unwrap();
    assert_eq!(out.to_vec(), vec![641; 64]);
    assert_eq!(report.counters.unwrap().barriers, 2 * 3);
}

/// Each block writes its number, waits for the grid, reads its neighbour's, and again after a
/// second round: `out[b] = 10·(b+1 mod n) + (b+2 mod n)`.
fn pass_along(b: &mut Block<'_>, x: &Global<u32>, out: &Global<u32>, blocks: u32) {
    let me = b.block_idx().x;
    let t = b.thread_idx().x;
    b.if_(t.eq(0), |b| b.store(x, me, U32s::splat(me)));
    b.sync_grid();
    let next = b.load(x, (me + 1) % blocks);
    b.sync_grid();
    b.if_(t.eq(0), |b| b.store(x, me, next));
    b.sync_grid();
    let after = b.load(x, (me + 1) % blocks);
    b.if_(t.eq(0), |b| b.store(out, me, next * 10 + after));
}

#[test]
fn a_cooperative_launch_waits_for_every_block_at_grid_sync() {
    let blocks = 24;
    let want: Vec<u32> = (0..blocks)
        .map(|b| 10 * ((b + 1) % blocks) + (b + 2) % blocks)
        .collect();
    let mut counters = Vec::new();
    for threads in [1, 2, 4] {
        for mode in [Mode::Fast, Mode::Count, Mode::Check] {
            let dev = Device::default().with_threads(threads).unwrap();
            let x = dev.alloc_zeroed::<u32>("x", blocks as usize);
            let out = dev.alloc_zeroed::<u32>("out", blocks as usize);
            let cfg = LaunchConfig::new(blocks, 64).cooperative(true).mode(mode);
            let report = dev
                .launch(&cfg, |b: &mut Block<'_>| pass_along(b, &x, &out, blocks))
                .unwrap();
            assert_eq!(out.to_vec(), want, "{threads} threads, {mode:?}");
            // Accesses on either side of a grid.sync() are ordered: no race between blocks.
            assert_eq!(report.findings, vec![], "{threads} threads, {mode:?}");
            if let Some(c) = report.counters {
                assert_eq!(c.barriers, u64::from(blocks) * 3 * 2);
                counters.push(c);
            }
        }
    }
    assert!(counters.windows(2).all(|w| w[0] == w[1]), "{counters:#?}");
}

#[test]
fn check_mode_finds_the_race_a_missing_grid_sync_leaves() {
    let dev = Device::default();
    let x = dev.alloc_zeroed::<u32>("x", 8);
    let cfg = LaunchConfig::new(8, 32).cooperative(true).mode(Mode::Check);
    let first = format!(":{}:", line!() + 6);
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let me = b.block_idx().x;
            let t = b.thread_idx().x;
            b.if_(t.eq(0), |b| b.store(&x, me, U32s::splat(me)));
            b.sync_grid();
            // Reads the neighbour's word, which the neighbour overwrites with no grid.sync()
            // between.
            let next = b.load(&x, (me + 1) % 8);
            b.if_(t.eq(0), |b| b.store(&x, me, next + 1));
        })
        .unwrap();
    let races: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::GlobalRace)
        .collect();
    // Block b's read and block b-1's write of one word, found from either side; nothing
    // before the grid.sync().
    assert!(!races.is_empty(), "{:#?}", report.findings);
    for f in races {
        let other = f.other.as_ref().unwrap();
        assert_eq!(f.buffer, "x");
        assert_ne!(f.site.access, other.access, "{f}");
        let line = |s: &warpsim::check::Site| s.location.clone().unwrap_or_default();
        assert!(
            !line(&f.site).contains(&first) && !line(other).contains(&first),
            "{f}"
        );
    }
}

#[test]
fn grid_sync_outside_a_cooperative_launch_or_past_a_finished_block_is_an_error() {
    let dev = Device::default();
    let plain = dev.launch(&LaunchConfig::new(2, 32), |b: &mut Block<'_>| b.sync_grid());
    assert!(
        matches!(&plain, Err(Error::BarrierMisuse { reason, .. }) if reason.contains("not cooperative")),
        "{plain:?}"
    );
    // Block 2 finishes without reaching the barrier the other blocks wait at: a GPU would
    // hang; the lowest waiting block reports it.
    let cfg = LaunchConfig::new(4, 32).cooperative(true);
    let early = dev.launch(&cfg, |b: &mut Block<'_>| {
        if b.block_idx().x != 2 {
            b.sync_grid();
        }
    });
    match &early {
        Err(Error::BarrierMisuse { block, reason, .. }) => {
            assert_eq!(*block, Dim3::new(0, 0, 0));
            assert!(reason.contains("waits for block (2, 0, 0)"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // A block that fails stops the waiting ones; the launch reports its error.
    let x = dev.alloc_zeroed::<u32>("x", 4);
    let fault = dev.launch(&cfg, |b: &mut Block<'_>| {
        if b.block_idx().x == 3 {
            b.store(&x, 100u32, U32s::splat(1));
        }
        b.sync_grid();
    });
    assert!(
        matches!(&fault, Err(Error::OutOfBounds(f)) if f.block == Dim3::new(3, 0, 0)),
        "{fault:?}"
    );
    // More blocks than fit on the device at once cannot launch cooperatively.
    let too_many = dev.launch(&LaunchConfig::new(100_000, 1024).cooperative(true), |_| {});
    assert!(
        matches!(
            too_many,
            Err(Error::CooperativeLaunchTooLarge {
                blocks: 100_000,
                resident: 264,
                ..
            })
        ),
        "{too_many:?}"
    );
}
