//! Every error path returns the documented `Err` with the right fields, the lowest failing block
//! is reported whatever the number of CPU threads, and the device stays usable afterwards.

use warpsim::{
    AccessFault, AccessKind, Block, Device, Dim3, Error, Global, LaunchConfig, Mode, Profile,
    Space, U32s, U64s,
};

/// Launch a small kernel that must succeed and compute the right thing.
#[track_caller]
fn still_usable(dev: &Device) {
    let out = dev.alloc_zeroed::<u32>("check", 300);
    dev.launch(&LaunchConfig::new(3, 100), |b: &mut Block<'_>| {
        let s = b.shared::<u32>(100);
        let t = b.thread_idx().x;
        b.store(&s, t, t);
        b.sync_threads();
        let v = b.load(&s, 99 - t);
        b.store(&out, t + b.block_idx().x * 100, v);
    })
    .unwrap();
    let want: Vec<u32> = (0..300).map(|i| 99 - i % 100).collect();
    assert_eq!(out.to_vec(), want, "the device no longer works");
}

#[track_caller]
fn invalid_launch(dev: &Device, cfg: &LaunchConfig, needle: &str) {
    let touched = dev.alloc_zeroed::<u32>("touched", 1);
    let e = dev
        .launch(cfg, |b: &mut Block<'_>| {
            b.atomic_add(&touched, U32s::ZERO, U32s::splat(1));
        })
        .unwrap_err();
    match &e {
        Error::InvalidLaunch { kernel, reason } => {
            assert_eq!(kernel, &cfg.name);
            assert!(
                reason.contains(needle),
                "reason {reason:?} should mention {needle:?}"
            );
        }
        other => panic!("{cfg:?}: expected InvalidLaunch, got {other:?}"),
    }
    assert_eq!(e.block(), None);
    assert_eq!(e.kernel(), cfg.name);
    assert!(e.to_string().contains(&cfg.name));
    assert_eq!(touched.to_vec()[0], 0, "nothing ran");
}

#[test]
fn invalid_launch_configurations() {
    let dev = Device::default();
    let cfg = |grid: (u32, u32, u32), block: (u32, u32, u32)| {
        LaunchConfig::new(grid, block).name("bad-config")
    };
    invalid_launch(&dev, &cfg((0, 1, 1), (32, 1, 1)), "0");
    invalid_launch(&dev, &cfg((4, 1, 0), (32, 1, 1)), "0");
    invalid_launch(&dev, &cfg((1, 1, 1), (0, 1, 1)), "0");
    invalid_launch(&dev, &cfg((1, 1, 1), (32, 0, 4)), "0");
    invalid_launch(&dev, &cfg((1, 1, 1), (1025, 1, 1)), "1025");
    invalid_launch(&dev, &cfg((1, 1, 1), (32, 33, 1)), "1056");
    invalid_launch(&dev, &cfg((1, 1, 1), (1, 1, 65)), "65");
    invalid_launch(&dev, &cfg((1, 65536, 1), (32, 1, 1)), "65536");
    invalid_launch(&dev, &cfg((1 << 31, 1, 1), (32, 1, 1)), "2147483648");
    invalid_launch(&dev, &cfg((1, 1, 65536), (32, 1, 1)), "65536");
    let big = LaunchConfig::new(1, 32)
        .name("bad-config")
        .dynamic_shared(227 * 1024 + 1);
    invalid_launch(&dev, &big, "232449");
    still_usable(&dev);
    // A custom profile the bank counter cannot model.
    for (banks, lanes) in [(24, 32), (32, 12), (64, 32)] {
        let odd = Device::new(Profile {
            shared_banks: banks,
            shared_request_lanes: lanes,
            ..Profile::sm_90()
        });
        invalid_launch(&odd, &cfg((1, 1, 1), (32, 1, 1)), "powers of two");
    }
    // The limits themselves are fine.
    let ok = dev.alloc_zeroed::<u32>("ok", 1);
    for cfg in [
        LaunchConfig::new(1, 1024),
        LaunchConfig::new(1, (1, 1, 64)),
        LaunchConfig::new(1, (16, 64, 1)),
        LaunchConfig::new(1, 32).dynamic_shared(227 * 1024),
        LaunchConfig::new((1, 2, 3), (2, 2, 2)),
    ] {
        let blocks = cfg.grid.count() as u32;
        ok.fill(0);
        dev.launch(&cfg, |b: &mut Block<'_>| {
            b.if_(b.linear_tid().eq(0), |b| {
                b.atomic_add(&ok, U32s::ZERO, U32s::splat(1));
            });
        })
        .unwrap();
        assert_eq!(ok.to_vec()[0], blocks, "{cfg:?}");
    }
}

#[test]
fn profile_limits_decide_what_is_invalid() {
    // Fermi: grid.x ≤ 65535, 48 KiB of shared memory per block.
    let fermi = Device::new(Profile::sm_20());
    invalid_launch(&fermi, &LaunchConfig::new(65536, 1).name("fermi"), "65536");
    invalid_launch(
        &fermi,
        &LaunchConfig::new(1, 32)
            .name("fermi")
            .dynamic_shared(48 * 1024 + 1),
        "49153",
    );
    invalid_launch(&fermi, &LaunchConfig::new(1, 1025).name("fermi"), "1025");
    // GT200: 512 threads per block, 16 KiB of shared memory.
    let gt200 = Device::new(Profile::sm_13());
    invalid_launch(&gt200, &LaunchConfig::new(1, 513).name("gt200"), "513");
    invalid_launch(
        &gt200,
        &LaunchConfig::new(1, 32)
            .name("gt200")
            .dynamic_shared(16 * 1024 + 1),
        "16385",
    );
    still_usable(&fermi);
    still_usable(&gt200);
    // 65535 blocks are fine on Fermi, 65536 on an H100.
    for (dev, grid) in [(&fermi, 65535u32), (&Device::default(), 65536)] {
        let count = dev.alloc_zeroed::<u32>("count", 1);
        let cfg = LaunchConfig::new(grid, 1).mode(Mode::Fast);
        dev.launch(&cfg, |b: &mut Block<'_>| {
            b.atomic_add(&count, U32s::ZERO, U32s::splat(1));
        })
        .unwrap();
        assert_eq!(count.to_vec()[0], grid);
    }
}

/// `location` is `tests/errors.rs:LINE:COL` and that line makes the call `call`; returns it.
#[track_caller]
fn located(location: &Option<String>, call: &str) -> Option<String> {
    let loc = location.as_ref().expect("a located fault");
    let mut parts = loc.rsplitn(3, ':');
    let (_col, line, file) = (parts.next(), parts.next().unwrap(), parts.next().unwrap());
    assert!(file.ends_with("tests/errors.rs"), "{loc}");
    let text = include_str!("errors.rs");
    let line: usize = line.parse().unwrap();
    let src = text.lines().nth(line - 1).unwrap();
    assert!(src.contains(call), "{loc} is `{src}`, not a {call} call");
    Some(loc.clone())
}

#[track_caller]
fn fault(e: Error) -> (bool, AccessFault) {
    match e {
        Error::OutOfBounds(f) => (true, *f),
        Error::Misaligned(f) => (false, *f),
        other => panic!("expected an access fault, got {other:?}"),
    }
}

#[test]
fn out_of_bounds_global_accesses_name_everything() {
    let dev = Device::default().with_threads(4).unwrap();
    let x = dev.alloc_zeroed::<f32>("x", 200);
    // Load: block 3 holds threads 192..255, thread 8 is the first past the end.
    let e = dev
        .launch(
            &LaunchConfig::new(4, 64).name("oob"),
            |b: &mut Block<'_>| {
                let i = b.global_idx_x();
                let _ = b.load(&x, i);
            },
        )
        .unwrap_err();
    assert_eq!(e.kernel(), "oob");
    assert_eq!(e.block(), Some(Dim3::new(3, 0, 0)));
    let msg = e.to_string();
    assert!(
        msg.contains("oob") && msg.contains("`x`") && msg.contains("200"),
        "{msg}"
    );
    let (oob, f) = fault(e);
    assert!(oob);
    assert_eq!(
        f,
        AccessFault {
            kernel: "oob".into(),
            block: Dim3::new(3, 0, 0),
            thread: Dim3::new(8, 0, 0),
            space: Space::Global,
            access: AccessKind::Load,
            buffer: "x".into(),
            index: 200,
            len: 200,
            address: x.address() + 800,
            elem_bytes: 4,
            location: located(&f.location, "b.load("),
        }
    );
    still_usable(&dev);

    // Store through a view, in a 2-D launch: block (1, 2), thread (3, 2) writes past the view.
    let view = x.slice(50..60);
    let e = dev
        .launch(
            &LaunchConfig::new((2, 3), (8, 4)).name("oob-2d"),
            |b: &mut Block<'_>| {
                let t = b.thread_idx();
                let bi = b.block_idx();
                let bad = t.x.eq(3) & t.y.eq(2);
                let i = if (bi.x, bi.y) == (1, 2) {
                    U32s::select(bad, U32s::splat(13), t.x)
                } else {
                    t.x
                };
                b.store(&view, i, t.y.to_f32());
            },
        )
        .unwrap_err();
    let (oob, f) = fault(e);
    assert!(oob);
    assert_eq!(
        (f.kernel.as_str(), f.block, f.thread),
        ("oob-2d", Dim3::new(1, 2, 0), Dim3::new(3, 2, 0))
    );
    assert_eq!(
        (f.space, f.access, f.buffer.as_str()),
        (Space::Global, AccessKind::Store, "x")
    );
    assert_eq!(
        (f.index, f.len, f.address, f.elem_bytes),
        (13, 10, x.address() + 63 * 4, 4)
    );
    still_usable(&dev);

    // Atomic on a u64-sized element view; several lanes fail, the lowest is reported.
    let counters = dev.alloc_zeroed::<u32>("counters", 4);
    let e = dev
        .launch(
            &LaunchConfig::new(1, 32).name("oob-atomic"),
            |b: &mut Block<'_>| {
                let t = b.thread_idx().x;
                let i = U32s::select(t.eq(5) | t.eq(9) | t.eq(20), t, t % 4);
                b.atomic_add(&counters, i, U32s::splat(1));
            },
        )
        .unwrap_err();
    let (_, f) = fault(e);
    assert_eq!(
        (f.thread, f.access, f.index, f.len),
        (Dim3::new(5, 0, 0), AccessKind::Atomic, 5, 4)
    );
    assert_eq!(f.address, counters.address() + 20);
    still_usable(&dev);

    // An index below zero (`t - 4` as a C `int`) reads as 32-bit unsigned; the message also
    // gives it signed.
    let e = dev
        .launch(
            &LaunchConfig::new(1, 32).name("below"),
            |b: &mut Block<'_>| {
                let t = b.thread_idx().x;
                let _ = b.load(&x, t - U32s::splat(4));
            },
        )
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("index 4294967292 (-4 as a signed 32-bit index)"),
        "{msg}"
    );
    still_usable(&dev);
}

#[test]
fn out_of_bounds_shared_accesses() {
    let dev = Device::default();
    let e = dev
        .launch(
            &LaunchConfig::new(2, 64).name("oob-shared"),
            |b: &mut Block<'_>| {
                let s = b.shared::<u32>(64);
                let t = b.thread_idx().x;
                b.store(&s, t, t);
                b.sync_threads();
                let _ = b.load(&s, t + 1);
            },
        )
        .unwrap_err();
    let (oob, f) = fault(e);
    assert!(oob);
    assert_eq!(
        f,
        AccessFault {
            kernel: "oob-shared".into(),
            block: Dim3::new(0, 0, 0),
            thread: Dim3::new(63, 0, 0),
            space: Space::Shared,
            access: AccessKind::Load,
            buffer: "__shared__".into(),
            index: 64,
            len: 64,
            address: 256,
            elem_bytes: 4,
            location: located(&f.location, "b.load("),
        }
    );
    still_usable(&dev);
    // Dynamic shared memory: 40 bytes hold 10 floats.
    let e = dev
        .launch(
            &LaunchConfig::new(1, 32).name("oob-dyn").dynamic_shared(40),
            |b: &mut Block<'_>| {
                let s = b.dynamic_shared::<f32>();
                let t = b.thread_idx().x;
                b.store(&s, t, t.to_f32());
            },
        )
        .unwrap_err();
    let (oob, f) = fault(e);
    assert!(oob);
    assert_eq!(
        (f.space, f.access, f.buffer.as_str()),
        (Space::Shared, AccessKind::Store, "extern __shared__")
    );
    assert_eq!(
        (f.thread, f.index, f.len, f.address),
        (Dim3::new(10, 0, 0), 10, 10, 40)
    );
    still_usable(&dev);
}

#[test]
fn the_lowest_failing_block_is_reported_for_any_thread_count() {
    for threads in [1, 2, 4] {
        let dev = Device::default().with_threads(threads).unwrap();
        let x = dev.alloc_zeroed::<u32>("x", 64 * 128);
        let small = dev.alloc_zeroed::<u32>("small", 4);
        for round in 0..5 {
            // Blocks 9, 17, 40 and 63 fail in different ways; the early blocks work longer so
            // that later blocks tend to fail first in time.
            let e = dev
                .launch(
                    &LaunchConfig::new(64, 128).name("many-failures"),
                    |b: &mut Block<'_>| {
                        let bx = b.block_idx().x;
                        let i = b.global_idx_x();
                        let work = if bx < 9 { 200 } else { 1 };
                        let mut acc = i;
                        for _ in 0..work {
                            acc = acc * 3 + 1;
                        }
                        b.store(&x, i, acc);
                        match bx {
                            9 => {
                                let _ = b.load(&small, b.thread_idx().x + 100);
                            }
                            17 => panic!("block 17"),
                            40 => {
                                let _ = b.load(&x.slice(1..).cast::<u64>(), U32s::ZERO);
                            }
                            63 => {
                                let _ = b.shfl_sync(warpsim::Mask::FULL, i, i, 3);
                            }
                            _ => {}
                        }
                    },
                )
                .unwrap_err();
            let (oob, f) = fault(e);
            assert!(oob, "{threads} threads, round {round}");
            assert_eq!(
                (f.block, f.thread, f.index),
                (Dim3::new(9, 0, 0), Dim3::new(0, 0, 0), 100)
            );
        }
        still_usable(&dev);
    }
}

#[test]
fn misaligned_views_fault() {
    let dev = Device::default();
    let f32s = dev.alloc_zeroed::<f32>("floats", 64);
    let as_f64 = f32s.slice(1..).cast::<f64>();
    assert_eq!((as_f64.address(), as_f64.len()), (f32s.address() + 4, 31));
    let e = dev
        .launch(
            &LaunchConfig::new(1, 32).name("misaligned"),
            |b: &mut Block<'_>| {
                let t = b.thread_idx().x;
                let _ = b.load(&as_f64, t % 8);
            },
        )
        .unwrap_err();
    let (oob, f) = fault(e.clone());
    assert!(!oob);
    assert_eq!(
        f,
        AccessFault {
            kernel: "misaligned".into(),
            block: Dim3::new(0, 0, 0),
            thread: Dim3::new(0, 0, 0),
            space: Space::Global,
            access: AccessKind::Load,
            buffer: "floats".into(),
            index: 0,
            len: 31,
            address: f32s.address() + 4,
            elem_bytes: 8,
            location: located(&f.location, "b.load("),
        }
    );
    assert!(e.to_string().contains("misaligned"), "{e}");
    assert!(
        e.to_string().contains(" at "),
        "the message names the location: {e}"
    );
    still_usable(&dev);

    // A u64 store at an odd word offset, by the lanes of a branch.
    let words = dev.alloc_zeroed::<u32>("words", 64);
    let odd = words.slice(3..).cast::<u64>();
    let e = dev
        .launch(
            &LaunchConfig::new(2, 64).name("misaligned-u64"),
            |b: &mut Block<'_>| {
                let t = b.thread_idx().x;
                b.if_(t.ge(40), |b| b.store(&odd, t - 38, U64s::splat(1)));
            },
        )
        .unwrap_err();
    let (oob, f) = fault(e);
    assert!(!oob);
    assert_eq!(
        (f.block, f.thread, f.access, f.index),
        (
            Dim3::new(0, 0, 0),
            Dim3::new(40, 0, 0),
            AccessKind::Store,
            2
        )
    );
    assert_eq!((f.address, f.elem_bytes), (words.address() + 12 + 16, 8));
    assert!(
        words.to_vec().iter().all(|&v| v == 0),
        "the faulting store wrote nothing"
    );
    still_usable(&dev);

    // 2-byte elements at an odd byte, and an atomic.
    let bytes = dev.alloc_zeroed::<u8>("bytes", 64);
    let halves: Global<u16> = bytes.slice(1..).cast::<u16>();
    let e = dev
        .launch(
            &LaunchConfig::new(1, 8).name("misaligned-u16"),
            |b: &mut Block<'_>| {
                let t = b.thread_idx().x;
                let _ = b.load(&halves, t);
            },
        )
        .unwrap_err();
    let (oob, f) = fault(e);
    assert!(!oob);
    assert_eq!(
        (f.address, f.elem_bytes, f.buffer.as_str()),
        (bytes.address() + 1, 2, "bytes")
    );
    let ints = dev.alloc_zeroed::<u16>("ints", 64).slice(1..).cast::<u32>();
    let e = dev
        .launch(
            &LaunchConfig::new(1, 16).name("misaligned-atomic"),
            |b: &mut Block<'_>| {
                let t = b.thread_idx().x;
                b.atomic_add(&ints, t, t);
            },
        )
        .unwrap_err();
    let (oob, f) = fault(e);
    assert!(!oob);
    assert_eq!((f.access, f.elem_bytes), (AccessKind::Atomic, 4));
    // Without an active lane a misaligned view is never touched.
    dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.if_(t.gt(100), |b| {
            let _ = b.load(&as_f64, t);
        });
    })
    .unwrap();
    still_usable(&dev);
}

#[track_caller]
fn shared_memory_error(e: Error, kernel: &str, block: Dim3) -> String {
    match e {
        Error::SharedMemory {
            kernel: k,
            block: b,
            reason,
        } => {
            assert_eq!((k.as_str(), b), (kernel, block));
            assert!(!reason.is_empty());
            reason
        }
        other => panic!("expected SharedMemory, got {other:?}"),
    }
}

#[test]
fn shared_memory_declarations_that_do_not_fit_or_disagree() {
    let dev = Device::default();
    // 48 KiB of static shared memory is the limit without dynamic memory.
    let ok = dev.launch(&LaunchConfig::new(1, 64), |b: &mut Block<'_>| {
        let s = b.shared::<u32>(12 * 1024);
        let t = b.thread_idx().x;
        b.store(&s, t + 12 * 1024 - 64, t);
    });
    assert_eq!(ok.unwrap().shared_bytes, 48 * 1024);
    let e = dev
        .launch(
            &LaunchConfig::new(2, 64).name("too-big"),
            |b: &mut Block<'_>| {
                let _ = b.shared::<u32>(12 * 1024 + 1);
            },
        )
        .unwrap_err();
    shared_memory_error(e, "too-big", Dim3::new(0, 0, 0));
    // Two arrays that fit alone but not together.
    let e = dev
        .launch(
            &LaunchConfig::new(2, 64).name("too-big-2"),
            |b: &mut Block<'_>| {
                let _ = b.shared::<f64>(1024);
                let _ = b.shared::<[f32; 4]>(2600);
            },
        )
        .unwrap_err();
    shared_memory_error(e, "too-big-2", Dim3::new(0, 0, 0));
    still_usable(&dev);
    // With 200 KiB of dynamic shared memory, static arrays get what remains of the 227 KiB
    // opt-in limit.
    let cfg = LaunchConfig::new(1, 32)
        .name("dyn-plus-static")
        .dynamic_shared(200 * 1024);
    let r = dev.launch(&cfg, |b: &mut Block<'_>| {
        let _ = b.shared::<u8>(27 * 1024);
    });
    assert_eq!(r.unwrap().shared_bytes, 227 * 1024);
    let e = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let _ = b.shared::<u8>(27 * 1024 + 1);
        })
        .unwrap_err();
    shared_memory_error(e, "dyn-plus-static", Dim3::new(0, 0, 0));
    // Fermi's 48 KiB, in bytes.
    let fermi = Device::new(Profile::sm_20());
    let e = fermi
        .launch(
            &LaunchConfig::new(1, 32).name("fermi-smem"),
            |b: &mut Block<'_>| {
                let _ = b.shared::<u8>(48 * 1024 + 1);
            },
        )
        .unwrap_err();
    shared_memory_error(e, "fermi-smem", Dim3::new(0, 0, 0));
    // Changed with the lockstep engine: warps of one block can no longer declare different
    // arrays (the block declares each array once, even inside a branch only warp 2 takes), so
    // the old "declarations disagree between warps" error has no premise. The closest failure
    // left: one block (1) declaring a different second array (#1), too large by element size
    // or by length, is reported for that block and that array.
    for (k, differ) in [(0, "element size"), (1, "length")] {
        let e = dev
            .launch(
                &LaunchConfig::new(3, 96).name("disagree"),
                |b: &mut Block<'_>| {
                    let _ = b.shared::<u32>(16);
                    if b.block_idx().x == 1 {
                        b.if_(b.warp_id().eq(2), |b| {
                            if k == 0 {
                                let _ = b.shared::<f64>(6 * 1024);
                            } else {
                                let _ = b.shared::<f32>(12 * 1024);
                            }
                        });
                    } else {
                        let _ = b.shared::<f32>(64);
                    }
                },
            )
            .unwrap_err();
        let reason = shared_memory_error(e, "disagree", Dim3::new(1, 0, 0));
        assert!(reason.contains("#1"), "{differ}: {reason}");
    }
    still_usable(&dev);
}

#[test]
fn invalid_shuffle_widths() {
    let dev = Device::default();
    for width in [0u32, 3, 6, 33, 64] {
        for op in 0..4 {
            let e = dev
                .launch(
                    &LaunchConfig::new(3, 64).name("bad-width"),
                    |b: &mut Block<'_>| {
                        let t = b.thread_idx().x;
                        let shuffle = |b: &mut Block<'_>, wd: u32| {
                            let _ = match op {
                                0 => b.shfl_sync(warpsim::Mask::FULL, t, t, wd),
                                1 => b.shfl_up_sync(warpsim::Mask::FULL, t, 1, wd),
                                2 => b.shfl_down_sync(warpsim::Mask::FULL, t, 1, wd),
                                _ => b.shfl_xor_sync(warpsim::Mask::FULL, t, 1, wd),
                            };
                        };
                        // Only warp 1 of block 2 passes the bad width (a branch on the warp id).
                        if b.block_idx().x == 2 {
                            b.if_else(b.warp_id().eq(1), |b| shuffle(b, width), |b| shuffle(b, 32));
                        } else {
                            shuffle(b, 32);
                        }
                    },
                )
                .unwrap_err();
            match e {
                Error::InvalidArgument {
                    kernel,
                    block,
                    warp,
                    reason,
                } => {
                    assert_eq!(
                        (kernel.as_str(), block, warp),
                        ("bad-width", Dim3::new(2, 0, 0), 1)
                    );
                    assert!(reason.contains(&width.to_string()), "{reason}");
                }
                other => panic!("width {width}: expected InvalidArgument, got {other:?}"),
            }
        }
    }
    still_usable(&dev);
}

#[test]
fn panics_inside_kernels_become_kernel_panic() {
    let dev = Device::default().with_threads(4).unwrap();
    let e = dev
        .launch(
            &LaunchConfig::new(8, 64).name("panicky"),
            |b: &mut Block<'_>| {
                if b.block_idx().x >= 2 {
                    b.if_(b.warp_id().eq(1), |_| panic!("boom at line {}", line!()));
                }
            },
        )
        .unwrap_err();
    match &e {
        Error::KernelPanic {
            kernel,
            block,
            message,
            location,
        } => {
            assert_eq!((kernel.as_str(), *block), ("panicky", Dim3::new(2, 0, 0)));
            let line: u32 = message
                .strip_prefix("boom at line ")
                .unwrap()
                .parse()
                .unwrap();
            let loc = location.as_deref().unwrap();
            assert!(
                loc.starts_with(&format!("tests/errors.rs:{line}:")),
                "{loc}"
            );
        }
        other => panic!("expected KernelPanic, got {other:?}"),
    }
    assert!(e.to_string().contains("boom at line"));
    still_usable(&dev);

    // unwrap() on None, with a String payload from a formatted expect, and an index panic.
    type Case = (&'static str, fn(u32) -> u32);
    let cases: [Case; 3] = [
        ("called `Option::unwrap()` on a `None` value", |b| {
            None::<u32>.map(|x| x + b).unwrap()
        }),
        ("block 0 had no value", |b| {
            None::<u32>
                .ok_or(format!("block {b} had no value"))
                .unwrap()
        }),
        ("index out of bounds", |b| [1u32, 2, 3][(b + 3) as usize]),
    ];
    for (needle, f) in cases {
        let out = dev.alloc_zeroed::<u32>("out", 32);
        let e = dev
            .launch(
                &LaunchConfig::new(2, 32).name("unwrap"),
                |b: &mut Block<'_>| {
                    let v = f(b.block_idx().x);
                    b.store(&out, b.thread_idx().x, U32s::splat(v));
                },
            )
            .unwrap_err();
        match e {
            Error::KernelPanic {
                kernel,
                block,
                message,
                location,
            } => {
                assert_eq!((kernel.as_str(), block), ("unwrap", Dim3::new(0, 0, 0)));
                assert!(message.contains(needle), "{message}");
                assert!(location.unwrap().starts_with("tests/errors.rs:"));
            }
            other => panic!("expected KernelPanic, got {other:?}"),
        }
        still_usable(&dev);
    }
}
