//! Barriers and the block scheduler (SPEC §3): data exchanged between warps through shared
//! memory, `sync_threads_count/_and/_or`, exited warps, deadlocks and barriers reached from
//! divergent code.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};
use warpsim::{Device, Dim3, Error, Global, LaunchConfig, Mask, U32x32, Warp, WarpOrder};

/// `cfg` with its warps polled in `order`.
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
async fn reverse_block(w: &mut Warp<'_>, input: &Global<f32>, out: &Global<f32>, barrier: bool) {
    let s = w.shared::<f32>(256);
    let t = w.thread_idx().x;
    let g = w.global_idx_x();
    let v = w.load(input, g);
    w.store(&s, t, v);
    if barrier {
        w.sync_threads().await;
    }
    let r = w.load(&s, 255 - t);
    w.store(out, g, r);
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
            .launch(&cfg, async |w: &mut Warp<'_>| {
                reverse_block(w, &input, &out, true).await
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
    // Warps run one at a time until they wait: without the barrier, the first warp to run
    // reads the part of the array no other warp has written yet, whatever the order.
    let dev = Device::default();
    let input = dev.alloc_from("in", &vec![1.0f32; 256]);
    for (order, first_warp) in [(WarpOrder::RoundRobin, 0usize), (WarpOrder::Reverse, 7)] {
        let out = dev.alloc_from("out", &vec![-1.0f32; 256]);
        let cfg = ordered(LaunchConfig::new(1, 256), order);
        dev.launch(&cfg, async |w: &mut Warp<'_>| {
            reverse_block(w, &input, &out, false).await
        })
        .unwrap();
        let got = out.to_vec();
        let first = &got[first_warp * 32..first_warp * 32 + 32];
        assert!(first.iter().all(|&v| v == 0.0), "{order:?}: {first:?}");
    }
}

#[test]
fn barriers_in_a_loop_keep_phases_apart() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 2 * 128);
    for order in ORDERS {
        let cfg = ordered(LaunchConfig::new(2, 128), order);
        let report = dev
            .launch(&cfg, async |w: &mut Warp<'_>| {
                let s = w.shared::<u32>(128);
                let t = w.thread_idx().x;
                w.store(&s, t, t * 3);
                w.sync_threads().await;
                for _ in 0..10 {
                    let v = w.load(&s, (t + 32) % 128);
                    w.sync_threads().await;
                    w.store(&s, t, v + 1);
                    w.sync_threads().await;
                }
                let v = w.load(&s, t);
                w.store(&out, w.global_idx_x(), v);
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
        .launch(&cfg, async |w: &mut Warp<'_>| {
            let t = w.thread_idx().x;
            let b = w.block_idx().x;
            let base = (b * 4 + w.warp_id()) * 16;
            let mut vals = [0u32; 12];
            vals[0] = w.sync_threads_count((t % 3).eq(0)).await;
            vals[1] = w.sync_threads_and(t.lt(100)).await as u32;
            vals[2] = w.sync_threads_and(t.lt(99)).await as u32;
            vals[3] = w.sync_threads_or(t.eq(99)).await as u32;
            vals[4] = w.sync_threads_or(t.gt(100)).await as u32;
            // Lanes past the block's 100 threads do not exist and do not count.
            vals[5] = w.sync_threads_count(Mask::FULL).await;
            vals[6] = w.sync_threads_count(t.lt(b * 10)).await;
            // Exited threads take no part: 50 remain (warps 2 and 3 leave entirely).
            w.exit_if(t.ge(50));
            vals[7] = w.sync_threads_count(Mask::FULL).await;
            vals[8] = w.sync_threads_and(t.lt(50)).await as u32;
            vals[9] = w.sync_threads_or(t.ge(50)).await as u32;
            vals[10] = w.sync_threads_count((t % 2).eq(0)).await;
            vals[11] = w.sync_threads_and((t % 2).eq(0)).await as u32;
            for (k, v) in vals.into_iter().enumerate() {
                w.store(&res, U32x32::splat(base + k as u32), U32x32::splat(v));
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
                .launch(&cfg, async |w: &mut Warp<'_>| {
                    let s = w.shared::<u32>(128);
                    let t = w.thread_idx().x;
                    match how {
                        // Every lane of warp 2 exits through exit_if before the barrier.
                        0 => w.exit_if((t / 32).eq(2)),
                        // Warp 2 returns (warp-uniform control flow).
                        1 => {
                            if w.warp_id() == 2 {
                                return;
                            }
                        }
                        // Warp 2 works for a while, then its lanes exit one by one in a loop,
                        // while the others already wait at the barrier.
                        _ => {
                            if w.warp_id() == 2 {
                                w.while_(
                                    U32x32::ZERO,
                                    |_, n| n.lt(64),
                                    |w, n| {
                                        w.exit_if((*n).eq(t % 32));
                                        *n + 1
                                    },
                                );
                            }
                        }
                    }
                    w.store(&s, t, t + 1);
                    let live = w.sync_threads_count(Mask::FULL).await;
                    let v = w.load(&s, 127 - t);
                    w.store(&out, t, v);
                    w.store(&counts, U32x32::splat(w.warp_id()), U32x32::splat(live));
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
    dev.launch(&LaunchConfig::new(1, 64), async |w: &mut Warp<'_>| {
        let s = w.shared::<u32>(64);
        let t = w.thread_idx().x;
        w.exit_if(t.ge(40) & (t % 2).eq(1));
        w.store(&s, t, t * t);
        let n = w.sync_threads_count(Mask::FULL).await;
        let v = w.load(&s, 63 - t) + n * 10_000;
        w.store(&out, t, v);
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

fn check_deadlock(e: Error, block: Dim3, waiting: &[u32], blocked: &[u32], exited: &[u32]) {
    match e {
        Error::Deadlock {
            kernel,
            block: b,
            waiting: wa,
            blocked: bl,
            exited: ex,
        } => {
            assert_eq!(kernel, "stuck");
            assert_eq!(b, block);
            assert_eq!(
                (wa.as_slice(), bl.as_slice(), ex.as_slice()),
                (waiting, blocked, exited)
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[test]
fn a_warp_blocked_on_a_foreign_future_is_a_deadlock_not_a_hang() {
    let dev = Device::default().with_threads(2).unwrap();
    let cfg = LaunchConfig::new(3, 128).name("stuck");
    // Block 1's warp 1 awaits a future that never completes; the others wait at the barrier.
    let e = dev
        .launch(&cfg, async |w: &mut Warp<'_>| {
            if w.block_idx().x == 1 && w.warp_id() == 1 {
                std::future::pending::<()>().await;
            }
            w.sync_threads().await;
        })
        .unwrap_err();
    check_deadlock(e.clone(), Dim3::new(1, 0, 0), &[0, 2, 3], &[1], &[]);
    assert_eq!(e.block(), Some(Dim3::new(1, 0, 0)));
    assert_eq!(e.kernel(), "stuck");
    let msg = e.to_string();
    assert!(msg.contains("deadlock") && msg.contains("stuck"), "{msg}");

    // With a warp that already finished.
    let e = dev
        .launch(&cfg, async |w: &mut Warp<'_>| match w.warp_id() {
            0 => {}
            1 => std::future::pending::<()>().await,
            _ => w.sync_threads().await,
        })
        .unwrap_err();
    check_deadlock(e, Dim3::new(0, 0, 0), &[2, 3], &[1], &[0]);

    // Every warp blocked, no barrier involved.
    let e = dev
        .launch(
            &LaunchConfig::new(1, 64).name("stuck"),
            async |_: &mut Warp<'_>| {
                std::future::pending::<()>().await;
            },
        )
        .unwrap_err();
    check_deadlock(e, Dim3::new(0, 0, 0), &[], &[0, 1], &[]);

    // The device is still usable.
    let out = dev.alloc_zeroed::<u32>("out", 128);
    dev.launch(&LaunchConfig::new(1, 128), async |w: &mut Warp<'_>| {
        let t = w.thread_idx().x;
        w.sync_threads().await;
        w.store(&out, t, t + 1);
    })
    .unwrap();
    assert_eq!(out.to_vec(), (1..=128).collect::<Vec<u32>>());
}

/// Poll `w.sync_threads()` once by hand, the only way to reach it from a (non-async) body.
fn poll_barrier_by_hand(w: &mut Warp<'_>) {
    let mut fut = pin!(w.sync_threads());
    let mut cx = Context::from_waker(Waker::noop());
    let _ = fut.as_mut().poll(&mut cx);
}

#[test]
fn a_barrier_polled_inside_a_branch_body_is_barrier_misuse() {
    let dev = Device::default();
    let cfg = LaunchConfig::new(3, 64).name("divergent-barrier");
    let check = |e: Error, block: u32, warp: u32| match e {
        Error::BarrierMisuse {
            kernel,
            block: b,
            warp: wp,
            reason,
        } => {
            assert_eq!(kernel, "divergent-barrier");
            assert_eq!(b, Dim3::new(block, 0, 0));
            assert_eq!(wp, warp);
            assert!(!reason.is_empty());
        }
        other => panic!("expected BarrierMisuse, got {other:?}"),
    };
    // In an if_ body.
    let e = dev
        .launch(&cfg, async |w: &mut Warp<'_>| {
            let t = w.thread_idx().x;
            if w.block_idx().x == 2 && w.warp_id() == 1 {
                w.if_(t.lt(48), poll_barrier_by_hand);
            }
            w.sync_threads().await;
        })
        .unwrap_err();
    check(e, 2, 1);
    // In the else side of an if_else.
    let e = dev
        .launch(&cfg, async |w: &mut Warp<'_>| {
            let t = w.thread_idx().x;
            w.if_else((t % 2).eq(0), |_| {}, poll_barrier_by_hand);
            w.sync_threads().await;
        })
        .unwrap_err();
    check(e, 0, 0);
    // In a loop body.
    let e = dev
        .launch(&cfg, async |w: &mut Warp<'_>| {
            let t = w.thread_idx().x;
            if w.block_idx().x == 1 {
                w.while_(
                    U32x32::ZERO,
                    |_, n| n.lt(t % 3),
                    |w, n| {
                        poll_barrier_by_hand(w);
                        *n + 1
                    },
                );
            }
        })
        .unwrap_err();
    check(e, 1, 0);
    // The device is still usable.
    let input = dev.alloc_from("in", &vec![2.0f32; 256]);
    let out = dev.alloc_zeroed::<f32>("out", 256);
    dev.launch(&LaunchConfig::new(1, 256), async |w: &mut Warp<'_>| {
        reverse_block(w, &input, &out, true).await
    })
    .unwrap();
    assert!(out.to_vec().iter().all(|&v| v == 2.0));
}

#[test]
fn sync_warp_orders_nothing_and_is_counted() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    let report = dev
        .launch(&LaunchConfig::new(1, 64), async |w: &mut Warp<'_>| {
            let t = w.thread_idx().x;
            w.sync_warp(Mask::FULL);
            w.if_(t.lt(16), |w| w.sync_warp(Mask::first_n(16)));
            w.store(&out, t, t);
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
            .launch(&LaunchConfig::new(2, threads), async |w: &mut Warp<'_>| {
                let s = w.shared::<u32>(1024);
                let t = w.thread_idx().x;
                if exit_last_warp {
                    w.exit_if(t.ge(992));
                }
                w.store(&s, t, t + 1);
                let evens = w.sync_threads_count((t % 2).eq(0)).await;
                let v = w.load(&s, threads - 1 - t);
                w.store(&out, w.global_idx_x(), v + evens * 10_000);
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
fn a_barrier_future_dropped_before_completing_withdraws_its_arrival() {
    use std::future::Future;
    use std::task::{Context, Waker};
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    let cfg = LaunchConfig::new(1, 64);
    dev.launch(&cfg, async |w: &mut Warp<'_>| {
        let t = w.thread_idx().x;
        if w.warp_id() == 0 {
            // Poll a barrier once by hand (warp 1 has not arrived yet) and drop it.
            let mut cx = Context::from_waker(Waker::noop());
            let fut = std::pin::pin!(w.sync_threads());
            assert!(fut.poll(&mut cx).is_pending());
        }
        // Only the real arrivals count: every one of the 64 threads holds the predicate (the
        // dropped arrival would add 32 threads without it).
        let all = w.sync_threads_and(Mask::FULL).await;
        w.store(&out, t, U32x32::splat(u32::from(all)));
    })
    .unwrap();
    assert_eq!(out.to_vec(), vec![1; 64]);
}
