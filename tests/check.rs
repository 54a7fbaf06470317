//! Check mode: a suite of kernels with planted bugs, each found with the right kind and
//! location, and the whole catalogue clean.

use warpsim::check::{Finding, Kind, Schedule, Severity, explore};
use warpsim::kernels::{self, Params};
use warpsim::*;

fn check<F>(dev: &Device, grid: u32, block: u32, kernel: F) -> Vec<Finding>
where
    F: Fn(&mut Block<'_>) + Sync,
{
    let cfg = LaunchConfig::new(grid, block)
        .name("planted")
        .mode(Mode::Check);
    dev.launch(&cfg, kernel)
        .expect("check mode keeps going")
        .findings
}

/// The findings of `kind`, which must exist.
fn only(findings: &[Finding], kind: Kind) -> Vec<&Finding> {
    let of_kind: Vec<&Finding> = findings.iter().filter(|f| f.kind == kind).collect();
    assert!(!of_kind.is_empty(), "no {kind:?} among {findings:#?}");
    of_kind
}

fn at_this_file(f: &Finding) -> bool {
    f.site
        .location
        .as_deref()
        .is_some_and(|l| l.starts_with("tests/check.rs:"))
}

#[test]
fn reduction_missing_a_barrier_is_a_race() {
    let dev = Device::default();
    let x = dev.alloc_from("x", &vec![1.0f32; 256]);
    let out = dev.alloc_zeroed::<f32>("out", 1);
    let found = check(&dev, 1, 256, |b: &mut Block<'_>| {
        let s = b.shared::<f32>(256);
        let t = b.thread_idx().x;
        let v = b.load(&x, t);
        b.store(&s, t, v);
        b.sync_threads();
        let mut stride = 128;
        while stride > 0 {
            b.if_(t.lt(stride), |b| {
                let sum = b.load(&s, t) + b.load(&s, t + stride);
                b.store(&s, t, sum);
            });
            if stride != 64 {
                // The barrier after the stride-64 step is missing.
                b.sync_threads();
            }
            stride /= 2;
        }
        b.if_(t.eq(0), |b| {
            let v = b.load(&s, t);
            b.store(&out, t, v);
        });
    });
    // Warp 0 reads s[t + 32] in the stride-32 step, and warp 1 writes it in the stride-64
    // step of the same barrier interval: whichever runs first, the pair is a race.
    let f = found
        .iter()
        .find(|f| matches!(f.kind, Kind::RaceReadAfterWrite | Kind::RaceWriteAfterRead))
        .unwrap_or_else(|| panic!("no race among {found:#?}"));
    assert_eq!(f.severity(), Severity::Error);
    assert!(at_this_file(f), "{f}");
    assert_eq!(f.space, Some(Space::Shared));
    assert!(f.index >= 32 && f.index < 64, "{f}");
    let accesses = [f.site.access, f.other.as_ref().unwrap().access];
    assert!(accesses.contains(&AccessKind::Load) && accesses.contains(&AccessKind::Store));
}

/// The last-warp tail of 002, `s[t] += s[t + k]` with or without `__syncwarp()` between steps.
fn warp_tail(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, synced: bool) {
    let s = b.shared::<f32>(64);
    let t = b.thread_idx().x;
    let v = b.load(x, t);
    b.store(&s, t, v);
    b.sync_threads();
    b.if_(t.lt(32), |b| {
        for k in [32, 16, 8, 4, 2, 1] {
            let v = b.load(&s, t) + b.load(&s, t + k);
            if synced {
                b.sync_warp(Mask::FULL);
            }
            b.store(&s, t, v);
            if synced {
                b.sync_warp(Mask::FULL);
            }
        }
    });
    b.if_(t.eq(0), |b| {
        let v = b.load(&s, t);
        b.store(out, t, v);
    });
}

#[test]
fn unrolled_last_warp_without_syncwarp_is_a_warning() {
    let dev = Device::default();
    let x = dev.alloc_from("x", &vec![1.0f32; 64]);
    let out = dev.alloc_zeroed::<f32>("out", 1);
    let found = check(&dev, 1, 64, |b: &mut Block<'_>| {
        warp_tail(b, &x, &out, false)
    });
    let hazards = only(&found, Kind::IntraWarpHazard);
    assert!(hazards.iter().all(|f| f.severity() == Severity::Warning));
    assert!(at_this_file(hazards[0]));
    // Lockstep execution still gives the right sum.
    assert_eq!(out.to_vec(), [64.0]);
    // With __syncwarp() between the steps the tail is clean.
    let found = check(&dev, 1, 64, |b: &mut Block<'_>| {
        warp_tail(b, &x, &out, true)
    });
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn transpose_tile_read_before_the_barrier_is_a_race() {
    let dev = Device::default();
    let n = 64u32;
    let input = dev.alloc_from("idata", &kernels::data::unit_floats((n * n) as usize, 1));
    let output = dev.alloc_zeroed::<f32>("odata", (n * n) as usize);
    let cfg = LaunchConfig::new((2, 2), (32, 8)).mode(Mode::Check);
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let tile = b.shared::<f32>(32 * 33);
            let t = b.thread_idx();
            let bi = b.block_idx();
            for j in (0..32).step_by(8) {
                let v = b.load(&input, (t.y + bi.y * 32 + j) * n + t.x + bi.x * 32);
                b.store(&tile, (t.y + j) * 33 + t.x, v);
            }
            // Missing: b.sync_threads();
            for j in (0..32).step_by(8) {
                let v = b.load(&tile, t.x * 33 + t.y + j);
                b.store(&output, (t.y + bi.x * 32 + j) * n + t.x + bi.y * 32, v);
            }
        })
        .unwrap();
    let races: Vec<_> = report
        .findings
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                Kind::RaceReadAfterWrite | Kind::RaceWriteAfterRead | Kind::UninitializedRead
            )
        })
        .collect();
    assert!(!races.is_empty());
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.kind == Kind::RaceReadAfterWrite)
    );
}

#[test]
fn uninitialised_shared_read() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 32);
    let found = check(&dev, 1, 32, |b: &mut Block<'_>| {
        let s = b.shared::<f32>(64);
        let t = b.thread_idx().x;
        b.store(&s, t, F32s::splat(1.0));
        let v = b.load(&s, t + 32); // never written
        b.store(&out, t, v);
    });
    let f = only(&found, Kind::UninitializedRead)[0];
    assert_eq!((f.space, f.index), (Some(Space::Shared), 32));
    assert!(at_this_file(f));
}

#[test]
fn uninitialised_global_read() {
    let dev = Device::default();
    let x = dev.alloc_uninit::<u32>("scratch", 64);
    let out = dev.alloc_zeroed::<u32>("out", 64);
    let found = check(&dev, 2, 32, |b: &mut Block<'_>| {
        let i = b.global_idx_x();
        b.if_(i.lt(32), |b| b.store(&x, i, i));
        b.sync_threads();
        let v = b.load(&x, i); // block 1 reads elements 32..63, never written
        b.store(&out, i, v);
    });
    let f = only(&found, Kind::UninitializedRead)[0];
    assert_eq!(
        (f.buffer.as_str(), f.index, f.block),
        ("scratch", 32, Dim3::new(1, 0, 0))
    );
}

#[test]
fn off_by_one_at_the_grid_boundary() {
    let dev = Device::default();
    let n = 100u32;
    let a = dev.alloc_from("a", &vec![1.0f32; n as usize]);
    let c = dev.alloc_zeroed::<f32>("c", n as usize);
    let kernel = |b: &mut Block<'_>| {
        let i = b.global_idx_x();
        b.if_(i.le(n), |b| {
            // `<=`: thread 100 reads and writes one past the end
            let v = b.load(&a, i);
            b.store(&c, i, v);
        });
    };
    let found = check(&dev, 1, 128, kernel);
    let oob = only(&found, Kind::OutOfBounds);
    assert_eq!(oob.len(), 2, "the load and the store");
    let f = oob.iter().find(|f| f.buffer == "a").unwrap();
    assert_eq!((f.index, f.site.thread), (100, Dim3::new(100, 0, 0)));
    assert!(
        f.detail
            .contains("0 bytes after the end of the nearest allocation `a`"),
        "{}",
        f.detail
    );
    // Outside check mode the same kernel stops with an error.
    let err = dev.launch(&LaunchConfig::new(1, 128), kernel).unwrap_err();
    assert!(matches!(err, Error::OutOfBounds(ref a) if a.index == 100));
}

#[test]
fn misaligned_eight_byte_access() {
    let dev = Device::default();
    let buf = dev.alloc_zeroed::<f32>("buf", 66);
    let doubles = buf.slice(1..).cast::<f64>();
    let found = check(&dev, 1, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.store(&doubles, t, F64s::splat(1.0));
    });
    let f = only(&found, Kind::Misaligned)[0];
    assert_eq!(f.address % 8, 4);
    assert!(at_this_file(f));
}

/// Threads that returned take no part in a later barrier: no finding (compute-sanitizer's
/// synccheck reports none for `if (t >= n) return; ... __syncthreads();` on an H200).
#[test]
fn threads_returning_before_a_barrier() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    let found = check(&dev, 1, 64, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.exit_if(t.ge(40)); // warp 1 keeps 8 lanes
        b.sync_threads();
        b.store(&out, t, t);
    });
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(out.to_vec()[39], 39);
}

#[test]
fn shuffle_naming_an_inactive_lane() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 32);
    let found = check(&dev, 1, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.if_(t.lt(16), |b| {
            let v = b.shfl_down_sync(Mask::FULL, t, 1, 32); // lanes 16..31 are not here
            b.store(&out, t, v);
        });
    });
    let f = only(&found, Kind::MaskMismatch)[0];
    assert!(
        f.detail.contains("shfl_down_sync") && f.detail.contains("0xffff0000"),
        "{}",
        f.detail
    );
}

/// compute-sanitizer's synccheck: a full mask in the second warp of a 48-thread block names
/// lanes 16..31, which are not threads at all; shuffles, votes and `__syncwarp` alike.
#[test]
fn masks_naming_lanes_that_do_not_exist() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 48);
    let full = dev.alloc_zeroed::<u32>("full", 64);
    type Op = fn(&mut Block<'_>, U32s) -> U32s;
    let ops: [(&str, Op); 4] = [
        ("shfl_down_sync", |b, t| {
            b.shfl_down_sync(Mask::FULL, t, 1, 32)
        }),
        ("ballot_sync", |b, t| b.ballot_sync(Mask::FULL, t.lt(40))),
        ("any_sync", |b, t| {
            let p = b.any_sync(Mask::FULL, t.lt(40));
            U32s::select(p, 1u32, 0u32)
        }),
        ("__syncwarp", |b, t| {
            b.sync_warp(Mask::FULL);
            t
        }),
    ];
    for (name, op) in ops {
        let found = check(&dev, 1, 48, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            let v = op(b, t);
            b.store(&out, t, v);
        });
        let f = only(&found, Kind::MaskMismatch)[0];
        assert_eq!(f.kind.tool(), "synccheck", "{name}");
        assert!(
            f.detail.contains(name)
                && f.detail.contains("0xffff0000")
                && f.detail.contains("warp 1"),
            "{name}: {}",
            f.detail
        );
        // The same in a full warp is clean.
        let clean = check(&dev, 1, 64, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            let v = op(b, t);
            b.store(&full, t, v);
        });
        assert!(
            clean.iter().all(|f| f.kind != Kind::MaskMismatch),
            "{name}: {clean:#?}"
        );
    }
}

#[test]
fn two_blocks_writing_one_element() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 1);
    let found = check(&dev, 2, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let bx = b.block_idx().x;
        b.if_(t.eq(0), |b| b.store(&out, 0u32, U32s::splat(bx)));
    });
    let f = only(&found, Kind::GlobalRace)[0];
    assert_eq!((f.buffer.as_str(), f.index), ("out", 0));
    assert_ne!(f.block, f.other.as_ref().unwrap().block);
}

#[test]
fn a_read_modify_write_race_is_shown_with_its_write() {
    // Every block reads out[0] and writes it back: the report pairs a write with the other
    // block's access, not two reads.
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 1);
    let found = check(&dev, 4, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.if_(t.eq(0), |b| {
            let v = b.load(&out, 0u32);
            b.store(&out, 0u32, v + 1);
        });
    });
    let f = only(&found, Kind::GlobalRace)[0];
    let other = f.other.as_ref().unwrap();
    assert!(
        f.site.access == AccessKind::Store || other.access == AccessKind::Store,
        "{} / {}",
        f,
        f.detail
    );
    assert_ne!(f.block, other.block);
}

#[test]
fn plain_store_racing_an_atomic() {
    let dev = Device::default();
    let counter = dev.alloc_zeroed::<u32>("counter", 1);
    let found = check(&dev, 4, 32, |b: &mut Block<'_>| {
        if b.block_idx().x == 0 {
            b.store(&counter, 0u32, U32s::ZERO); // a reset racing the others' adds
        } else {
            b.atomic_add(&counter, 0u32, U32s::splat(1));
        }
    });
    let f = only(&found, Kind::AtomicRace)[0];
    assert_eq!(f.buffer, "counter");
    // Atomics among themselves are fine.
    let found = check(&dev, 4, 32, |b: &mut Block<'_>| {
        b.atomic_add(&counter, 0u32, U32s::splat(1));
    });
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn write_after_read_across_a_barrier_free_loop_tail() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<f32>("out", 64);
    let found = check(&dev, 1, 64, |b: &mut Block<'_>| {
        let s = b.shared::<f32>(64);
        let t = b.thread_idx().x;
        b.store(&s, t, t.to_f32());
        let mut acc = F32s::ZERO;
        for _ in 0..3 {
            b.sync_threads();
            acc += b.load(&s, (t + 1) % 64); // reads the neighbour's slot
            b.store(&s, t, acc); // tail: overwrites its own slot with no barrier after the read
        }
        b.store(&out, t, acc);
    });
    let f = only(&found, Kind::RaceWriteAfterRead)[0];
    assert!(at_this_file(f));
    assert_eq!(f.other.as_ref().unwrap().access, AccessKind::Load);
}

/// Warps 0 and 2 each set a flag; warp 1 adds the flags up with no barrier between. In lockstep
/// the block runs the three warp-uniform branches in program order: warp 0's store, warp 1's
/// loads, warp 2's store (the order the old round-robin schedule ran the warps in).
fn flags(b: &mut Block<'_>, out: &Global<u32>) {
    let s = b.shared::<u32>(2);
    let t = b.thread_idx().x;
    let w = b.warp_id();
    b.if_(w.eq(0), |b| {
        b.if_(t.eq(0), |b| b.store(&s, 0u32, U32s::splat(1)))
    });
    b.if_(w.eq(1), |b| {
        let sum = b.load(&s, 0u32) + b.load(&s, 1u32);
        b.if_(t.eq(32), |b| b.store(out, 0u32, sum));
    });
    b.if_(w.eq(2), |b| {
        b.if_(t.eq(64), |b| b.store(&s, 1u32, U32s::splat(1)))
    });
}

#[test]
fn schedule_dependent_result_found_only_by_seeded_exploration() {
    // Changed with the lockstep engine: a warp order no longer decides which of the warp-uniform
    // branches runs first (program order does), so the round-robin, reverse and random orders all
    // see exactly warp 0's flag. The schedule dependence that remains (and that exploration must
    // find) is a load scheduled before another warp's store of the same interval: an
    // instruction-granularity (Interleaved) schedule in which warp 1 misses warp 0's flag too.
    let dev = Device::default();
    let run = |s: &Schedule| {
        let out = dev.alloc_zeroed::<u32>("out", 1);
        let cfg = LaunchConfig::new(1, 96).schedule(*s);
        dev.launch(&cfg, |b: &mut Block<'_>| flags(b, &out))?;
        Ok(out.to_vec()[0])
    };
    // Round-robin (0, 1, 2) and reverse (2, 1, 0) orders both see exactly one flag.
    let fixed = warpsim::check::schedules(0);
    assert_eq!(run(&fixed[0]).unwrap(), 1);
    assert_eq!(run(&fixed[1]).unwrap(), 1);
    let found = explore(32, run)
        .unwrap()
        .expect("a seeded schedule sees no flag");
    assert!(matches!(found.schedule.warps, WarpOrder::Interleaved(_)));
    assert_ne!(found.got, 1);
    // The seed reproduces it.
    assert_eq!(run(&found.schedule).unwrap(), found.got);
}

#[test]
fn every_catalogue_kernel_is_clean() {
    let dev = Device::default();
    for e in kernels::catalogue() {
        let p = Params {
            n: if e.family == kernels::Family::Reduction {
                70_001
            } else {
                20_011
            },
            width: 97,
            height: 70,
            ..e.defaults.clone()
        };
        let out = e.run(&dev, &p, Mode::Check).unwrap();
        assert!(out.verified, "{}", e.name);
        for l in &out.launches {
            assert!(l.findings.is_empty(), "{}: {:#?}", e.name, l.findings);
        }
    }
}

#[test]
fn byte_elements_sharing_a_word_are_not_a_race() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u8>("out", 64);
    let found = check(&dev, 1, 64, |b: &mut Block<'_>| {
        // Each thread writes and reads back its own byte; neighbours share words, not bytes.
        let s = b.shared::<u8>(80);
        let t = b.thread_idx().x;
        b.store(&s, t + 2, t);
        let v = b.load(&s, t + 2);
        b.store(&out, t, v);
    });
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(out.to_vec(), (0..64).collect::<Vec<u8>>());
}

/// Every thread adds 1 to a shared counter and reads it back, with or without a barrier between.
fn shared_counter(b: &mut Block<'_>, out: &Global<u32>, synced: bool) {
    let s = b.shared::<u32>(1);
    let t = b.thread_idx().x;
    b.if_(t.eq(0), |b| b.store(&s, 0u32, U32s::ZERO));
    b.sync_threads();
    b.atomic_add(&s, 0u32, U32s::splat(1));
    if synced {
        b.sync_threads();
    }
    let v = b.load(&s, 0u32);
    b.store(out, t, v);
}

#[test]
fn plain_read_racing_a_shared_atomic() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    let found = check(&dev, 1, 64, |b: &mut Block<'_>| {
        shared_counter(b, &out, false)
    });
    let f = only(&found, Kind::AtomicRace)[0];
    assert!(at_this_file(f));
    // Atomics among themselves, and a read after a barrier, are fine.
    let found = check(&dev, 1, 64, |b: &mut Block<'_>| {
        shared_counter(b, &out, true)
    });
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(out.to_vec(), vec![64; 64]);
}

#[test]
fn atomics_initialise_uninitialised_global_memory() {
    let dev = Device::default();
    let buf = dev.alloc_uninit::<u32>("buf", 32);
    let out = dev.alloc_zeroed::<u32>("out", 32);
    let found = check(&dev, 1, 32, |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.atomic_exch(&buf, t, t);
        let v = b.load(&buf, t);
        b.store(&out, t, v);
    });
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn global_findings_do_not_depend_on_cpu_threads() {
    let run = |threads| {
        let dev = Device::default().with_threads(threads).unwrap();
        let x = dev.alloc_zeroed::<u32>("x", 1);
        let out = dev.alloc_zeroed::<u32>("out", 128);
        check(&dev, 128, 32, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            let bx = b.block_idx().x;
            b.if_(t.eq(0), |b| {
                if bx == 127 {
                    b.store(&x, 0u32, U32s::splat(1));
                }
                let v = b.load(&x, 0u32);
                b.store(&out, bx, v);
            });
        })
    };
    let one = run(1);
    assert!(!one.is_empty());
    assert_eq!(one, run(4));
}

#[test]
fn a_huge_shared_declaration_is_an_error() {
    let dev = Device::default();
    let e = dev
        .launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
            let s = b.shared::<u32>(1usize << 62);
            let t = b.thread_idx().x;
            b.store(&s, t, t);
        })
        .unwrap_err();
    assert!(matches!(e, Error::SharedMemory { .. }), "{e}");
}

/// Message passing without a barrier: warp 0 stores `s[0] = 1` then `s[1] = 1`; warp 1 reads
/// `s[1]` then `s[0]` and writes `2*s[1] + s[0]`.
fn message_passing(b: &mut Block<'_>, out: &Global<u32>) {
    let s = b.shared::<u32>(2);
    let t = b.thread_idx().x;
    b.if_else(
        b.warp_id().eq(0),
        |b| {
            b.if_(t.eq(0), |b| {
                b.store(&s, 0u32, U32s::splat(1));
                b.store(&s, 1u32, U32s::splat(1));
            })
        },
        |b| {
            let flag = b.load(&s, 1u32);
            let data = b.load(&s, 0u32);
            b.if_(t.eq(32), |b| b.store(out, 0u32, flag * 2 + data));
        },
    );
}

#[test]
fn instruction_granularity_exploration_finds_interleaved_outcomes() {
    let dev = Device::default();
    let run = |warps: WarpOrder| {
        let out = dev.alloc_zeroed::<u32>("out", 1);
        let cfg = LaunchConfig::new(1, 64).schedule(Schedule {
            warps,
            blocks: BlockOrder::Parallel,
        });
        dev.launch(&cfg, |b: &mut Block<'_>| message_passing(b, &out))
            .unwrap();
        out.to_vec()[0]
    };
    // Orders of whole operations see both stores or neither: 3 or 0. (Changed with the lockstep
    // engine: the stores precede the loads in program order, so every such order sees 3.)
    for seed in 0..16 {
        assert_eq!(run(WarpOrder::Random(seed)), 3, "seed {seed}");
    }
    // Instruction granularity also finds the loads running between the stores (1 or 2), and a
    // seed reproduces its outcome.
    let interleaved: Vec<u32> = (0..16)
        .map(|seed| run(WarpOrder::Interleaved(seed)))
        .collect();
    let seed = interleaved
        .iter()
        .position(|v| [1, 2].contains(v))
        .expect("an interleaved outcome") as u64;
    assert_eq!(
        run(WarpOrder::Interleaved(seed)),
        interleaved[seed as usize]
    );
    // explore() tries instruction-granularity schedules too.
    let schedules = warpsim::check::schedules(2);
    assert!(
        schedules
            .iter()
            .any(|s| matches!(s.warps, WarpOrder::Interleaved(_)))
    );
}
