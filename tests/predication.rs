//! Predication (SPEC §1–§2): the thread hierarchy, nested `if`/`else`, loops with per-lane trip
//! counts, early exits, reconvergence, per-lane merging of results, and inactive lanes that never
//! store, count or fault.

use warpsim::{Block, Device, Dim3, F32s, Global, I32s, LaunchConfig, Mask, U32s};

const SENTINEL: u32 = 0xdead_beef;

/// Record each warp's active mask in `log[warp * 16 + slot]`.
fn log(b: &mut Block<'_>, log: &Global<u32>, slot: u32) {
    let idx = b.warp_id() * 16 + slot;
    let m = b.activemask();
    b.store(log, idx, m);
}

fn log_buffer(dev: &Device, warps: usize) -> Global<u32> {
    dev.alloc_from("log", &vec![SENTINEL; warps * 16])
}

/// The mask of `lanes` in `0..32` where `f` holds.
fn mask_where(lanes: std::ops::Range<u32>, f: impl Fn(u32) -> bool) -> u32 {
    lanes.filter(|&l| f(l)).fold(0, |m, l| m | 1 << l)
}

#[test]
fn thread_hierarchy_linearises_x_fastest() {
    let dev = Device::default();
    let block = Dim3::new(8, 4, 3); // 96 threads, 3 warps
    let grid = Dim3::new(2, 3, 2);
    let n = (block.count() * grid.count()) as usize;
    let out = dev.alloc_from("out", &vec![[0.0f32; 4]; n]);
    let geo = dev.alloc_zeroed::<u32>("geo", 8);
    let cfg = LaunchConfig::new(grid, block);
    dev.launch(&cfg, |b: &mut Block<'_>| {
        let t = b.thread_idx();
        let bi = b.block_idx();
        let lin = b.linear_tid();
        let block_linear = bi.x + bi.y * 2 + bi.z * 6;
        let slot = lin + block_linear * 96;
        let enc = |v: U32s| v.to_f32();
        let rec = [
            enc(t.x),
            enc(t.y),
            enc(t.z),
            enc(b.lane_id() + b.warp_id() * 100),
        ];
        b.store(&out, slot, rec);
        if block_linear == 0 {
            // Thread 9's global indices (lane 9 of warp 0).
            let (gx, gy) = (b.global_idx_x().to_vec()[9], b.global_idx_y().to_vec()[9]);
            // Warp-uniform control flow is a branch on the warp id now.
            b.if_(b.warp_id().eq(0), |b| {
                let (bd, gd) = (b.block_dim(), b.grid_dim());
                let vals = [bd.x, bd.y, bd.z, gd.x, gd.y, gd.z, gx, gy];
                for (k, v) in vals.into_iter().enumerate() {
                    b.if_(b.lane_id().eq(0), |b| {
                        b.store(&geo, k as u32, U32s::splat(v))
                    });
                }
            });
        }
    })
    .unwrap();
    let got = out.to_vec();
    for (i, rec) in got.iter().enumerate() {
        let lin = (i % 96) as u32;
        let want = [
            lin % 8,
            (lin / 8) % 4,
            lin / 32,
            (lin % 32) + (lin / 32) * 100,
        ]
        .map(|v| v as f32);
        assert_eq!(*rec, want, "slot {i}");
    }
    // Lane 9 of warp 0 is thread (1, 1, 0) of block (0, 0, 0).
    assert_eq!(geo.to_vec(), [8, 4, 3, 2, 3, 2, 1, 1]);
}

#[test]
fn partial_last_warp_has_lanes_that_never_exist() {
    let dev = Device::default();
    let out = dev.alloc_from("out", &[SENTINEL; 64]);
    let lg = log_buffer(&dev, 2);
    let report = dev
        .launch(&LaunchConfig::new(1, 48), |b: &mut Block<'_>| {
            log(b, &lg, 0);
            let t = b.thread_idx().x;
            b.store(&out, t, t);
        })
        .unwrap();
    let got = out.to_vec();
    assert_eq!(&got[..48], (0..48).collect::<Vec<u32>>());
    assert!(got[48..].iter().all(|&v| v == SENTINEL));
    assert_eq!(lg.to_vec()[0], u32::MAX);
    assert_eq!(lg.to_vec()[16], 0xffff);
    let c = report.counters.unwrap();
    assert_eq!(c.warps_launched, 2);
    // 48 threads × (one log store + one data store) × 4 bytes: the 16 missing lanes store
    // nothing.
    assert_eq!(c.gst_bytes, 2 * 48 * 4);
}

#[test]
fn nested_if_else_runs_each_side_under_its_mask_and_merges() {
    let dev = Device::default();
    let out = dev.alloc_from("out", &[SENTINEL; 64]);
    let lg = log_buffer(&dev, 2);
    dev.launch(&LaunchConfig::new(1, 48), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let lg = &lg;
        let v = b.if_else(
            t.lt(20),
            |b| {
                log(b, lg, 1);
                b.if_else(
                    (t % 2).eq(0),
                    |b| {
                        log(b, lg, 2);
                        t * 10
                    },
                    |b| {
                        log(b, lg, 3);
                        t * 10 + 1
                    },
                )
            },
            |b| {
                log(b, lg, 4);
                let r = b.if_else(
                    (t % 3).eq(0),
                    |b| {
                        log(b, lg, 5);
                        t + 1000
                    },
                    |b| {
                        log(b, lg, 6);
                        // Three levels deep.
                        b.if_else(
                            t.gt(40),
                            |b| {
                                log(b, lg, 7);
                                U32s::splat(7)
                            },
                            |b| {
                                log(b, lg, 8);
                                U32s::splat(8)
                            },
                        )
                    },
                );
                log(b, lg, 9); // reconverged to the else side's mask
                r
            },
        );
        log(b, lg, 10); // reconverged to the whole warp
        b.store(&out, t, v);
    })
    .unwrap();
    let got = out.to_vec();
    for t in 0..48u32 {
        let want = if t < 20 {
            if t % 2 == 0 { t * 10 } else { t * 10 + 1 }
        } else if t % 3 == 0 {
            t + 1000
        } else if t > 40 {
            7
        } else {
            8
        };
        assert_eq!(got[t as usize], want, "thread {t}");
    }
    assert!(got[48..].iter().all(|&v| v == SENTINEL));
    let lg = lg.to_vec();
    // Warp 0: lanes are threads 0..31.
    let w0 = |f: &dyn Fn(u32) -> bool| mask_where(0..32, f);
    let want0 = [
        w0(&|t| t < 20),
        w0(&|t| t < 20 && t % 2 == 0),
        w0(&|t| t < 20 && t % 2 == 1),
        w0(&|t| t >= 20),
        w0(&|t| t >= 20 && t % 3 == 0),
        w0(&|t| t >= 20 && t % 3 != 0),
        SENTINEL, // no lane of warp 0 has t > 40: that side is skipped
        w0(&|t| t >= 20 && t % 3 != 0),
        w0(&|t| t >= 20),
        u32::MAX,
    ];
    assert_eq!(lg[1..11], want0, "warp 0 masks");
    // Warp 1: threads 32..47 in lanes 0..15; no lane takes `t < 20`.
    let w1 = |f: &dyn Fn(u32) -> bool| mask_where(0..16, |l| f(l + 32));
    let want1 = [
        SENTINEL,
        SENTINEL,
        SENTINEL,
        0xffff,
        w1(&|t| t % 3 == 0),
        w1(&|t| t % 3 != 0),
        w1(&|t| t % 3 != 0 && t > 40),
        w1(&|t| t % 3 != 0 && t <= 40),
        0xffff,
        0xffff,
    ];
    assert_eq!(lg[17..27], want1, "warp 1 masks");
}

#[test]
fn results_of_several_types_merge_per_lane() {
    let dev = Device::default();
    let out_u = dev.alloc_zeroed::<u32>("u", 32);
    let out_f = dev.alloc_zeroed::<[f32; 2]>("f", 32);
    let out_m = dev.alloc_zeroed::<u32>("m", 32);
    dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        // Predicates merge like values (the old API merged a `Mask`): the halves are computed
        // before the branch, each side returns one.
        let (high, low) = (t.ge(16), t.lt(16));
        let (u, f, m) = b.if_else(
            (t & 4).ne(0),
            |_| (t + 100, [t.to_f32(), F32s::splat(1.0)], high),
            |_| (t * 2, [F32s::splat(-1.0), t.to_f32() * 0.5], low),
        );
        b.store(&out_u, t, u);
        b.store(&out_f, t, f);
        // The merged predicate: bit l from the side lane l took.
        let bits = b.ballot_sync(Mask::FULL, m);
        b.store(&out_m, t, bits);
    })
    .unwrap();
    let (u, f) = (out_u.to_vec(), out_f.to_vec());
    let mut want_mask = 0u32;
    for t in 0..32u32 {
        let taken = t & 4 != 0;
        if taken {
            assert_eq!((u[t as usize], f[t as usize]), (t + 100, [t as f32, 1.0]));
            want_mask |= (1 << t) & 0xffff_0000;
        } else {
            assert_eq!(
                (u[t as usize], f[t as usize]),
                (t * 2, [-1.0, t as f32 * 0.5])
            );
            want_mask |= (1 << t) & 0x0000_ffff;
        }
    }
    assert_eq!(out_m.to_vec()[0], want_mask);
}

#[test]
fn while_loop_runs_each_lane_its_own_trip_count() {
    let dev = Device::default();
    let counts = dev.alloc_from("counts", &[SENTINEL; 64]);
    let sums = dev.alloc_zeroed::<f32>("sums", 64);
    let lg = log_buffer(&dev, 2);
    dev.launch(&LaunchConfig::new(1, 64), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let trips = (t * 7) % 13;
        let lg = &lg;
        let (n, s) = b.while_(
            (U32s::ZERO, F32s::ZERO),
            |_, (n, _)| n.lt(trips),
            |b, (n, s)| {
                // Every looping lane has the same count in iteration k: log the mask there.
                let slot = *n + b.warp_id() * 16;
                let m = b.activemask();
                b.store(lg, slot, m);
                (*n + 1, *s + t.to_f32())
            },
        );
        log(b, lg, 15); // reconverged
        b.store(&counts, t, n);
        b.store(&sums, t, s);
    })
    .unwrap();
    let (c, s, lg) = (counts.to_vec(), sums.to_vec(), lg.to_vec());
    for t in 0..64u32 {
        let trips = (t * 7) % 13;
        assert_eq!(c[t as usize], trips, "thread {t}");
        assert_eq!(s[t as usize], (trips * t) as f32, "thread {t}");
    }
    for warp in 0..2u32 {
        for k in 0..15u32 {
            let want = mask_where(0..32, |l| ((l + 32 * warp) * 7) % 13 > k);
            let want = if want == 0 { SENTINEL } else { want };
            assert_eq!(
                lg[(warp * 16 + k) as usize],
                want,
                "warp {warp} iteration {k}"
            );
        }
        assert_eq!(lg[(warp * 16 + 15) as usize], u32::MAX);
    }
}

#[test]
fn nested_loops_and_branches_inside_loops() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 32);
    dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        // sum over i < t of (i odd ? sum over j < i of j : 1)
        let (_, acc) = b.while_(
            (U32s::ZERO, U32s::ZERO),
            |_, (i, _)| i.lt(t),
            |b, (i, acc)| {
                let i = *i;
                let add = b.if_else(
                    (i % 2).eq(1),
                    |b| {
                        b.while_(
                            (U32s::ZERO, U32s::ZERO),
                            |_, (j, _)| j.lt(i),
                            |_, (j, s)| (*j + 1, *s + *j),
                        )
                        .1
                    },
                    |_| U32s::splat(1),
                );
                (i + 1, *acc + add)
            },
        );
        b.store(&out, t, acc);
    })
    .unwrap();
    let want: Vec<u32> = (0..32u32)
        .map(|t| {
            (0..t)
                .map(|i| if i % 2 == 1 { (0..i).sum() } else { 1 })
                .sum()
        })
        .collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn exit_if_removes_lanes_for_good() {
    let dev = Device::default();
    let out = dev.alloc_from("out", &[SENTINEL; 64]);
    let lg = log_buffer(&dev, 2);
    dev.launch(&LaunchConfig::new(1, 64), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.exit_if((t % 3).eq(0));
        log(b, &lg, 0);
        // A later branch and loop do not bring exited lanes back.
        let v = b.if_else(t.lt(40), |_| t + 1, |_| t + 2);
        let v = b.while_(v, |_, v| v.lt(t + 5), |_, v| *v + 1);
        log(b, &lg, 1);
        b.store(&out, t, v);
    })
    .unwrap();
    let got = out.to_vec();
    for t in 0..64u32 {
        let want = if t % 3 == 0 { SENTINEL } else { t + 5 };
        assert_eq!(got[t as usize], want, "thread {t}");
    }
    let lg = lg.to_vec();
    for warp in 0..2u32 {
        let live = mask_where(0..32, |l| (l + 32 * warp) % 3 != 0);
        assert_eq!(lg[(warp * 16) as usize], live);
        assert_eq!(lg[(warp * 16 + 1) as usize], live);
    }
}

#[test]
fn exit_inside_branches_and_loops() {
    let dev = Device::default();
    let out = dev.alloc_from("out", &[SENTINEL; 32]);
    let after = dev.alloc_from("after", &[SENTINEL; 32]);
    let lg = log_buffer(&dev, 1);
    dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let lg = &lg;
        // `return` for lanes 0..7 inside an if.
        b.if_(t.lt(8), |b| {
            b.exit();
            // Nothing after `exit` in the body runs for those lanes.
            log(b, lg, 0);
            b.store(&out, t, U32s::splat(1));
        });
        log(b, lg, 1);
        // `if (t >= 24) return;` inside the else side of an if/else with a result.
        let v = b.if_else(
            t.lt(16),
            |_| t * 2,
            |b| {
                b.exit_if(t.ge(24));
                log(b, lg, 2);
                t * 3
            },
        );
        log(b, lg, 3);
        // Lanes leave a loop by exiting at iteration t % 4 when t is even.
        let n = b.while_(
            U32s::ZERO,
            |_, n| n.lt(6),
            |b, n| {
                b.exit_if((*n).eq(t % 4) & (t % 2).eq(0));
                *n + 1
            },
        );
        log(b, lg, 4);
        b.store(&out, t, v);
        b.store(&after, t, n);
    })
    .unwrap();
    let (got, n, lg) = (out.to_vec(), after.to_vec(), lg.to_vec());
    for t in 0..32u32 {
        let alive = (8..24).contains(&t) && t % 2 == 1;
        let want = if alive {
            if t < 16 { t * 2 } else { t * 3 }
        } else {
            SENTINEL
        };
        assert_eq!(got[t as usize], want, "thread {t}");
        assert_eq!(
            n[t as usize],
            if alive { 6 } else { SENTINEL },
            "thread {t}"
        );
    }
    assert_eq!(lg[0], SENTINEL, "the exited lanes ran nothing after exit()");
    assert_eq!(lg[1], mask_where(0..32, |t| t >= 8));
    assert_eq!(lg[2], mask_where(0..32, |t| (16..24).contains(&t)));
    assert_eq!(lg[3], mask_where(0..32, |t| (8..24).contains(&t)));
    assert_eq!(
        lg[4],
        mask_where(0..32, |t| (8..24).contains(&t) && t % 2 == 1)
    );
}

#[test]
fn inactive_lanes_never_access_memory() {
    let dev = Device::default();
    let n = 40u32;
    let x = dev.alloc_from("x", &(0..n).map(|i| i as f32).collect::<Vec<_>>());
    let y = dev.alloc_from("y", &vec![-1.0f32; n as usize]);
    let hits = dev.alloc_zeroed::<u32>("hits", 1);
    let report = dev
        .launch(&LaunchConfig::new(1, 64), |b: &mut Block<'_>| {
            let i = b.global_idx_x();
            // The usual guard: lanes 40..63 would be out of bounds.
            b.if_(i.lt(n), |b| {
                let v = b.load(&x, i);
                b.store(&y, i, v * 2.0);
            });
            // Inactive lanes carry absurd indices: no fault, no access.
            let wild = U32s::select(i.lt(4), i, U32s::splat(u32::MAX));
            b.if_(i.lt(4), |b| {
                let v = b.load(&x, wild);
                b.store(&y, wild, v + 100.0);
                b.atomic_add(&hits, U32s::ZERO, U32s::splat(1));
                let s = b.shared::<u32>(4);
                b.store(&s, wild, wild);
                let back = b.load(&s, wild);
                // back == wild on the active lanes: index 0, value 1.
                b.atomic_add(&hits, back - wild, back + 1 - wild);
            });
            // Arithmetic on inactive lanes never traps, whatever their values.
            let d = I32s::select(i.lt(8), I32s::splat(0), I32s::splat(-1));
            let a = I32s::splat(i32::MIN);
            b.if_(i.ge(8) & i.lt(n), |b| {
                let q = a / d + (a % d) + (i.as_i32() / d);
                b.store(&y, i, q.to_f32());
            });
        })
        .unwrap();
    let got = y.to_vec();
    for (i, &g) in got.iter().enumerate() {
        let want = match i {
            0..4 => i as f32 + 100.0,
            4..8 => 2.0 * i as f32,
            // i32::MIN / -1 wraps to i32::MIN, i32::MIN % -1 = 0, then -i.
            _ => (i32::MIN.wrapping_sub(i as i32)) as f32,
        };
        assert_eq!(g, want, "y[{i}]");
    }
    assert_eq!(
        hits.to_vec()[0],
        8,
        "4 lanes × 2 atomics, none from inactive lanes"
    );
    let c = report.counters.unwrap();
    // Warp 1 (threads 32..63) has no lane below 4: its guarded accesses do not exist.
    assert_eq!(c.atomic_requests, 2);
}

#[test]
fn empty_sides_are_skipped_and_uniform_branches_reconverge() {
    let dev = Device::default();
    let out = dev.alloc_from("out", &[SENTINEL; 64]);
    let ran = dev.alloc_zeroed::<u32>("ran", 4);
    dev.launch(&LaunchConfig::new(1, 64), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        // Lane-uniform within each warp: warp 0 takes `then`, warp 1 `otherwise`.
        let v = b.if_else(
            t.lt(32),
            |b| {
                b.atomic_add(&ran, U32s::ZERO, U32s::splat(1));
                t
            },
            |b| {
                b.atomic_add(&ran, U32s::splat(1), U32s::splat(1));
                t + 1
            },
        );
        // Never true: the body never runs.
        b.if_(t.gt(1000), |b| {
            b.atomic_add(&ran, U32s::splat(2), U32s::splat(1));
        });
        // Warp-uniform control flow: a branch on the warp id (plain Rust in the old API), which
        // runs its body for warp 1 only and never diverges.
        b.if_(b.warp_id().eq(1), |b| {
            b.atomic_add(&ran, U32s::splat(3), U32s::splat(1));
        });
        b.store(&out, t, v);
    })
    .unwrap();
    let got = out.to_vec();
    assert_eq!(&got[..32], (0..32).collect::<Vec<u32>>());
    assert_eq!(&got[32..], (33..65).collect::<Vec<u32>>());
    assert_eq!(ran.to_vec(), [32, 32, 0, 32]);
}
