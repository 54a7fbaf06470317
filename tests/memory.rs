//! Global and shared memory: element types and views, store collisions, shared arrays, and
//! atomics under contention across blocks, warps and CPU threads.

use warpsim::{Block, Device, F32s, LaunchConfig, U32s, U64s};

fn dev4() -> Device {
    Device::default().with_threads(4).unwrap()
}

// ----- loads and stores ---------------------------------------------------------------------

#[test]
fn every_element_type_round_trips_through_global_and_shared() {
    let dev = Device::default();
    let n = 96;
    let b8: Vec<u8> = (0..n).map(|i| (i * 37 + 5) as u8).collect();
    let b16: Vec<u16> = (0..n).map(|i| (i * 4099 + 3) as u16).collect();
    let f: Vec<f32> = (0..n).map(|i| i as f32 - 40.5).collect();
    let i: Vec<i32> = (0..n).map(|i| i as i32 * -1_000_003).collect();
    let d: Vec<f64> = (0..n).map(|i| 1e-300 * i as f64 + 0.1).collect();
    let q: Vec<u64> = (0..n).map(|i| (i as u64) << 37 | 0xabc).collect();
    let v2: Vec<[f32; 2]> = (0..n).map(|i| [i as f32, -(i as f32)]).collect();
    let v4: Vec<[f32; 4]> = (0..n).map(|i| [i as f32, 1.0, 2.0, -(i as f32)]).collect();
    let (g8, g16, gf, gi, gd, gq, g2, g4) = (
        dev.alloc_from("b8", &b8),
        dev.alloc_from("b16", &b16),
        dev.alloc_from("f", &f),
        dev.alloc_from("i", &i),
        dev.alloc_from("d", &d),
        dev.alloc_from("q", &q),
        dev.alloc_from("v2", &v2),
        dev.alloc_from("v4", &v4),
    );
    let (o8, o16, of, oi, od, oq, o2, o4) = (
        dev.alloc_zeroed::<u8>("o8", n),
        dev.alloc_zeroed::<u16>("o16", n),
        dev.alloc_zeroed::<f32>("of", n),
        dev.alloc_zeroed::<i32>("oi", n),
        dev.alloc_zeroed::<f64>("od", n),
        dev.alloc_zeroed::<u64>("oq", n),
        dev.alloc_zeroed::<[f32; 2]>("o2", n),
        dev.alloc_zeroed::<[f32; 4]>("o4", n),
    );
    // Each thread stores its element to the reversed position through a shared array of the
    // same type: neighbouring bytes written by different lanes must not clobber each other.
    dev.launch(&LaunchConfig::new(1, n as u32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let r = (n as u32 - 1) - t;
        macro_rules! via_shared {
            ($g:expr, $o:expr, $ty:ty) => {{
                let s = b.shared::<$ty>(n);
                let v = b.load(&$g, t);
                b.store(&s, r, v);
                b.sync_threads();
                let v = b.load(&s, t);
                b.store(&$o, t, v);
            }};
        }
        via_shared!(g8, o8, u8);
        via_shared!(g16, o16, u16);
        via_shared!(gf, of, f32);
        via_shared!(gi, oi, i32);
        via_shared!(gd, od, f64);
        via_shared!(gq, oq, u64);
        via_shared!(g2, o2, [f32; 2]);
        via_shared!(g4, o4, [f32; 4]);
    })
    .unwrap();
    fn rev<T: Clone>(v: &[T]) -> Vec<T> {
        v.iter().rev().cloned().collect()
    }
    assert_eq!(o8.to_vec(), rev(&b8));
    assert_eq!(o16.to_vec(), rev(&b16));
    assert_eq!(of.to_vec(), rev(&f));
    assert_eq!(oi.to_vec(), rev(&i));
    assert_eq!(od.to_vec(), rev(&d));
    assert_eq!(oq.to_vec(), rev(&q));
    assert_eq!(o2.to_vec(), rev(&v2));
    assert_eq!(o4.to_vec(), rev(&v4));
}

#[test]
fn sub_word_stores_touch_only_their_bytes() {
    let dev = Device::default();
    let bytes = dev.alloc_from("bytes", &[0xffu8; 64]);
    let halves = dev.alloc_from("halves", &[0xffffu16; 64]);
    dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        // Every other byte / half-word, from different lanes of one instruction.
        b.store(&bytes, t * 2, t);
        b.store(&halves, t * 2 + 1, t * 1000);
        // Values wider than the element are truncated, as a C cast does.
        b.if_(t.eq(0), |b| {
            b.store(&bytes, U32s::splat(63), U32s::splat(0x1234))
        });
    })
    .unwrap();
    let b = bytes.to_vec();
    let h = halves.to_vec();
    for k in 0..64 {
        let want = if k == 63 {
            0x34
        } else if k % 2 == 0 {
            (k / 2) as u8
        } else {
            0xff
        };
        assert_eq!(b[k], want, "byte {k}");
        let want = if k % 2 == 1 {
            ((k / 2) * 1000) as u16
        } else {
            0xffff
        };
        assert_eq!(h[k], want, "half {k}");
    }
}

#[test]
fn colliding_stores_highest_lane_wins() {
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 4);
    dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        b.store(&out, t % 4, t);
        let s = b.shared::<u32>(2);
        b.if_(t.lt(21), |b| b.store(&s, U32s::ZERO, t + 100));
        let v = b.load(&s, U32s::ZERO);
        b.if_(t.eq(0), |b| b.store(&out, U32s::splat(3), v));
    })
    .unwrap();
    assert_eq!(out.to_vec(), [28, 29, 30, 120]);
}

#[test]
fn views_keep_device_addresses_and_read_the_same_bytes() {
    let dev = Device::default();
    let a = dev.alloc_from("a", &(0..64u32).collect::<Vec<_>>());
    let b = dev.alloc_zeroed::<u8>("b", 3);
    assert_eq!(a.address() % 256, 0);
    assert_eq!(b.address() % 256, 0);
    assert!(
        b.address() >= a.address() + 256,
        "allocations do not overlap"
    );
    let tail = a.slice(10..20);
    assert_eq!(
        (tail.address(), tail.len(), tail.name()),
        (a.address() + 40, 10, "a")
    );
    assert_eq!(tail.to_vec(), (10..20).collect::<Vec<u32>>());
    let as_u64 = a.slice(2..).cast::<u64>();
    assert_eq!((as_u64.address(), as_u64.len()), (a.address() + 8, 31));
    assert_eq!(as_u64.to_vec()[0], 2 | 3 << 32);
    let as_bytes = a.cast::<u8>();
    assert_eq!(as_bytes.len(), 256);
    assert_eq!(&as_bytes.to_vec()[4..8], [1, 0, 0, 0]);
    // A kernel writing through a view writes the underlying buffer.
    dev.launch(&LaunchConfig::new(1, 10), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let v = b.load(&tail, t);
        b.store(&tail, t, v * 2);
        b.if_(t.eq(0), |b| {
            b.store(&as_u64, U32s::splat(20), U64s::splat(u64::MAX))
        });
    })
    .unwrap();
    let got = a.to_vec();
    for (k, &v) in got.iter().enumerate() {
        let want = match k {
            10..20 => 2 * k as u32,
            42 | 43 => u32::MAX,
            _ => k as u32,
        };
        assert_eq!(v, want, "a[{k}]");
    }
    // Host copies and fills.
    tail.fill(7);
    assert_eq!(a.to_vec()[9..21], [9, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 20]);
    tail.copy_from_slice(&[1; 10]);
    assert_eq!(a.to_vec()[10], 1);
}

#[test]
fn shared_arrays_are_zeroed_per_block_and_dynamic_shared_comes_first() {
    let dev = Device::default().with_threads(1).unwrap();
    let out = dev.alloc_zeroed::<u32>("out", 8 * 64);
    let offs = dev.alloc_zeroed::<u32>("offs", 4);
    let cfg = LaunchConfig::new(8, 64).dynamic_shared(100);
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let t = b.thread_idx().x;
            let bx = b.block_idx().x;
            let dynamic = b.dynamic_shared::<u32>();
            let a = b.shared::<u32>(64);
            let c = b.shared::<f64>(3);
            // Each block sees zeroed memory although the blocks ran one after another on one
            // CPU thread and every block dirties it.
            let before = b.load(&a, t) + b.load(&dynamic, t % 25);
            b.sync_threads();
            b.store(&a, t, t + bx);
            b.store(&dynamic, t % 25, t + 1);
            b.store(&out, t + bx * 64, before);
            b.if_(t.eq(0), |b| {
                for (k, v) in [dynamic.len(), dynamic.offset(), a.offset(), c.offset()]
                    .into_iter()
                    .enumerate()
                {
                    b.store(&offs, U32s::splat(k as u32), U32s::splat(v as u32));
                }
            });
        })
        .unwrap();
    assert!(out.to_vec().iter().all(|&v| v == 0));
    // 100 dynamic bytes hold 25 words at offset 0; static arrays follow, 16-byte aligned.
    assert_eq!(offs.to_vec(), [25, 0, 112, 368]);
    // Dynamic plus static: up to the end of the f64 array.
    assert_eq!(report.shared_bytes, 368 + 3 * 8);
}

#[test]
fn host_copies_through_misaligned_views_use_the_views_bytes() {
    // cudaMemcpy is byte-granular: a host copy through any view reads and writes exactly the
    // view's bytes. (Kernel accesses through such a view fault with Misaligned; host copies
    // must either copy the right bytes or refuse, never touch bytes outside the view.)
    let dev = Device::default();
    let bytes = dev.alloc_from("bytes", &(100u8..116).collect::<Vec<_>>());
    let floats = bytes.slice(1..).cast::<f32>();
    assert_eq!((floats.address(), floats.len()), (bytes.address() + 1, 3));
    let want: Vec<u32> = (0..3u8)
        .map(|k| u32::from_le_bytes([101 + 4 * k, 102 + 4 * k, 103 + 4 * k, 104 + 4 * k]))
        .collect();
    let got: Vec<u32> = floats.to_vec().iter().map(|f| f.to_bits()).collect();
    assert_eq!(got, want, "to_vec of a view at byte offset 1");
    let halves = bytes.slice(3..).cast::<u16>();
    assert_eq!(
        halves.to_vec()[0],
        u16::from_le_bytes([103, 104]),
        "u16 straddling two words"
    );
    floats.fill(0.0);
    let mut want = vec![100u8];
    want.extend([0; 12]);
    want.extend([113, 114, 115]);
    assert_eq!(bytes.to_vec(), want, "fill wrote outside the view");
    floats.copy_from_slice(&[f32::from_bits(0x0403_0201); 3]);
    assert_eq!(&bytes.to_vec()[..6], [100, 1, 2, 3, 4, 1]);
    // Bytes and halves through views that start and end inside words, longer than one of the
    // host copy's chunks.
    let n = 40_000;
    let big = dev.alloc_zeroed::<u8>("big", 2 * n + 8);
    let src: Vec<u8> = (0..n).map(|k| (k * 7 % 251) as u8).collect();
    big.slice(3..3 + n).copy_from_slice(&src);
    let got = big.to_vec();
    assert_eq!(
        (got[..3].to_vec(), &got[3..3 + n], got[3 + n]),
        (vec![0; 3], &src[..], 0)
    );
    let halves: Vec<u16> = (0..n).map(|k| (k * 40_503 % 65_521) as u16).collect();
    let view = big.slice(6..6 + 2 * n).cast::<u16>();
    view.copy_from_slice(&halves);
    assert_eq!(view.to_vec(), halves);
    let got = big.to_vec();
    assert_eq!(
        (&got[3..6], got[6 + 2 * n]),
        (&src[..3], 0),
        "bytes outside the view"
    );
}

// ----- atomics ---------------------------------------------------------------------------------

#[test]
fn global_atomic_add_counter_returns_a_permutation() {
    let dev = dev4();
    let blocks = 64u32;
    let n = (blocks * 256) as usize;
    let counter = dev.alloc_zeroed::<u32>("counter", 1);
    let tickets = dev.alloc_zeroed::<u32>("tickets", n);
    let signed = dev.alloc_zeroed::<i32>("signed", 1);
    let report = dev
        .launch(&LaunchConfig::new(blocks, 256), |b: &mut Block<'_>| {
            let g = b.global_idx_x();
            let old = b.atomic_add(&counter, U32s::ZERO, U32s::splat(1));
            b.store(&tickets, g, old);
            let delta = (g % 7).as_i32() - 3;
            b.atomic_add(&signed, U32s::ZERO, delta);
        })
        .unwrap();
    assert_eq!(counter.to_vec()[0], n as u32);
    let mut t = tickets.to_vec();
    t.sort_unstable();
    assert_eq!(
        t,
        (0..n as u32).collect::<Vec<_>>(),
        "every old value exactly once"
    );
    let want: i32 = (0..n as i32).map(|g| g % 7 - 3).sum();
    assert_eq!(signed.to_vec()[0], want);
    let c = report.counters.unwrap();
    assert_eq!(c.atomic_requests, 2 * n as u64 / 32);
}

#[test]
fn lanes_of_one_atomic_apply_in_lane_order() {
    let dev = Device::default();
    let cell = dev.alloc_from("cell", &[1000u32]);
    let old = dev.alloc_zeroed::<u32>("old", 32);
    dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let o = b.atomic_exch(&cell, U32s::ZERO, t);
        b.store(&old, t, o);
    })
    .unwrap();
    assert_eq!(cell.to_vec()[0], 31);
    let o = old.to_vec();
    assert_eq!(o[0], 1000);
    for (l, &v) in o.iter().enumerate().skip(1) {
        assert_eq!(v, l as u32 - 1, "lane {l} sees lane {}'s value", l - 1);
    }
}

#[test]
fn float_atomic_add_of_integer_values_is_exact() {
    let dev = dev4();
    let sums = dev.alloc_zeroed::<f32>("sums", 4);
    dev.launch(&LaunchConfig::new(128, 128), |b: &mut Block<'_>| {
        let g = b.global_idx_x();
        let v = (g % 5).to_f32();
        b.atomic_add(&sums, g % 4, v);
        b.atomic_sub(&sums, U32s::splat(3), F32s::splat(1.0));
    })
    .unwrap();
    let n = 128 * 128;
    let mut want = [0.0f32; 4];
    for g in 0..n {
        want[g % 4] += (g % 5) as f32;
    }
    want[3] -= n as f32;
    assert_eq!(sums.to_vec(), want);
}

#[test]
fn atomic_min_max_exch_cas_and_bits() {
    let dev = dev4();
    let blocks = 32u32;
    let n = blocks * 128;
    let val = |g: u32| (g.wrapping_mul(2_654_435_761) >> 7) as i32 - (1 << 23);
    let umin = dev.alloc_from("umin", &[u32::MAX]);
    let umax = dev.alloc_zeroed::<u32>("umax", 1);
    let imin = dev.alloc_from("imin", &[i32::MAX]);
    let imax = dev.alloc_from("imax", &[i32::MIN]);
    let fmin = dev.alloc_from("fmin", &[f32::INFINITY]);
    let fmax = dev.alloc_from("fmax", &[f32::NEG_INFINITY]);
    let bits_or = dev.alloc_zeroed::<u32>("or", 8);
    let bits_and = dev.alloc_from("and", &[u32::MAX; 8]);
    let bits_xor = dev.alloc_zeroed::<u32>("xor", 1);
    let slot = dev.alloc_from("slot", &[u32::MAX]);
    let exch_old = dev.alloc_zeroed::<u32>("exch_old", n as usize);
    dev.launch(&LaunchConfig::new(blocks, 128), |b: &mut Block<'_>| {
        let g = b.global_idx_x();
        // `val(g)` per thread (the old API built it lane by lane on the host).
        let v = ((g * 2_654_435_761u32) >> 7).as_i32() - (1 << 23);
        let z = U32s::ZERO;
        b.atomic_min(&umin, z, v.as_u32());
        b.atomic_max(&umax, z, v.as_u32());
        b.atomic_min(&imin, z, v);
        b.atomic_max(&imax, z, v);
        b.atomic_min(&fmin, z, v.to_f32());
        b.atomic_max(&fmax, z, v.to_f32());
        b.atomic_or(&bits_or, g / 32 % 8, U32s::splat(1) << (g % 32));
        b.atomic_and(&bits_and, g / 32 % 8, !(U32s::splat(1) << (g % 32)));
        b.atomic_xor(&bits_xor, z, v.as_u32());
        let old = b.atomic_exch(&slot, z, g);
        b.store(&exch_old, g, old);
    })
    .unwrap();
    let vals: Vec<i32> = (0..n).map(val).collect();
    assert_eq!(
        umin.to_vec()[0],
        vals.iter().map(|&v| v as u32).min().unwrap()
    );
    assert_eq!(
        umax.to_vec()[0],
        vals.iter().map(|&v| v as u32).max().unwrap()
    );
    assert_eq!(imin.to_vec()[0], *vals.iter().min().unwrap());
    assert_eq!(imax.to_vec()[0], *vals.iter().max().unwrap());
    assert!(*vals.iter().min().unwrap() < 0 && (*vals.iter().max().unwrap() as u32) < (1 << 31));
    assert_eq!(fmin.to_vec()[0], *vals.iter().min().unwrap() as f32);
    assert_eq!(fmax.to_vec()[0], *vals.iter().max().unwrap() as f32);
    assert_eq!(bits_or.to_vec(), [u32::MAX; 8]);
    assert_eq!(bits_and.to_vec(), [0; 8]);
    assert_eq!(
        bits_xor.to_vec()[0],
        vals.iter().fold(0u32, |x, &v| x ^ v as u32)
    );
    // Exchange: the old values and the final value are the initial value and every id, once.
    let mut seen = exch_old.to_vec();
    seen.push(slot.to_vec()[0]);
    seen.sort_unstable();
    let mut want: Vec<u32> = (0..n).collect();
    want.push(u32::MAX);
    assert_eq!(seen, want);
}

#[test]
fn cas_loop_increments_exactly_once_per_thread() {
    let dev = dev4();
    let counter = dev.alloc_zeroed::<u32>("counter", 1);
    let seen = dev.alloc_zeroed::<u32>("seen", 16 * 64);
    dev.launch(&LaunchConfig::new(16, 64), |b: &mut Block<'_>| {
        let g = b.global_idx_x();
        // do { old = *c; } while (atomicCAS(c, old, old + 1) != old);
        let (_, mine) = b.while_(
            (U32s::ZERO, U32s::ZERO),
            |_, (done, _)| (*done).eq(0),
            |b, _| {
                let old = b.load(&counter, U32s::ZERO);
                let prev = b.atomic_cas(&counter, U32s::ZERO, old, old + 1);
                let won = prev.eq(old);
                (U32s::select(won, U32s::splat(1), U32s::ZERO), old)
            },
        );
        b.store(&seen, g, mine);
    })
    .unwrap();
    assert_eq!(counter.to_vec()[0], 16 * 64);
    let mut s = seen.to_vec();
    s.sort_unstable();
    assert_eq!(s, (0..16 * 64).collect::<Vec<u32>>());
    // A CAS that does not match leaves the value alone and returns it.
    let cell = dev.alloc_from("cell", &[5u32, 6]);
    let old = dev.alloc_zeroed::<u32>("old", 2);
    dev.launch(&LaunchConfig::new(1, 2), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let o = b.atomic_cas(&cell, t, U32s::splat(5), U32s::splat(9));
        b.store(&old, t, o);
    })
    .unwrap();
    assert_eq!((cell.to_vec(), old.to_vec()), (vec![9, 6], vec![5, 6]));
}

#[test]
fn shared_atomics_build_a_histogram_per_block() {
    let dev = dev4();
    let blocks = 24u32;
    let n = (blocks * 256) as usize;
    let data: Vec<u32> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2_246_822_519) >> 5) % 1000)
        .collect();
    let input = dev.alloc_from("in", &data);
    let hist = dev.alloc_zeroed::<u32>("hist", 16);
    let per_block = dev.alloc_zeroed::<u32>("per_block", blocks as usize * 16);
    let tickets = dev.alloc_zeroed::<u32>("tickets", n);
    let extremes = dev.alloc_zeroed::<u32>("extremes", blocks as usize * 2);
    let report = dev
        .launch(&LaunchConfig::new(blocks, 256), |b: &mut Block<'_>| {
            let s = b.shared::<u32>(16);
            let ticket = b.shared::<u32>(1);
            let ext = b.shared::<u32>(2);
            let t = b.thread_idx().x;
            let g = b.global_idx_x();
            let bx = b.block_idx().x;
            b.if_(t.lt(2), |b| {
                b.store(
                    &ext,
                    t,
                    U32s::select(t.eq(0), U32s::splat(u32::MAX), U32s::ZERO),
                )
            });
            b.sync_threads();
            let v = b.load(&input, g);
            b.atomic_add(&s, v % 16, U32s::splat(1));
            let old = b.atomic_add(&ticket, U32s::ZERO, U32s::splat(1));
            b.store(&tickets, g, old);
            b.atomic_min(&ext, U32s::ZERO, v);
            b.atomic_max(&ext, U32s::splat(1), v);
            b.sync_threads();
            b.if_(t.lt(16), |b| {
                let c = b.load(&s, t);
                b.store(&per_block, t + bx * 16, c);
                b.atomic_add(&hist, t, c);
            });
            b.if_(t.lt(2), |b| {
                let e = b.load(&ext, t);
                b.store(&extremes, t + bx * 2, e);
            });
        })
        .unwrap();
    let mut want = [0u32; 16];
    for &v in &data {
        want[(v % 16) as usize] += 1;
    }
    assert_eq!(hist.to_vec(), want);
    let pb = per_block.to_vec();
    let ext = extremes.to_vec();
    let tk = tickets.to_vec();
    for b in 0..blocks as usize {
        let chunk = &data[b * 256..(b + 1) * 256];
        let mut want = [0u32; 16];
        for &v in chunk {
            want[(v % 16) as usize] += 1;
        }
        assert_eq!(pb[b * 16..(b + 1) * 16], want, "block {b}");
        assert_eq!(
            ext[b * 2..b * 2 + 2],
            [*chunk.iter().min().unwrap(), *chunk.iter().max().unwrap()]
        );
        // The shared counter starts at zero in every block and its old values are a
        // permutation; within a warp the lanes apply in lane order.
        let mine = &tk[b * 256..(b + 1) * 256];
        let mut sorted = mine.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..256).collect::<Vec<u32>>(), "block {b}");
        for warp in mine.chunks(32) {
            assert!(
                warp.iter()
                    .enumerate()
                    .all(|(l, &v)| v == warp[0] + l as u32),
                "block {b}: {warp:?}"
            );
        }
    }
    let c = report.counters.unwrap();
    // Per warp: 4 shared atomics; plus the 16-lane global atomic of warp 0 per block.
    assert_eq!(c.atomic_requests, blocks as u64 * (8 * 4 + 1));
}

#[test]
fn inactive_lanes_get_zero_from_atomics_and_do_not_apply() {
    let dev = Device::default();
    let cell = dev.alloc_from("cell", &[10u32]);
    let old = dev.alloc_from("old", &[7u32; 32]);
    dev.launch(&LaunchConfig::new(1, 32), |b: &mut Block<'_>| {
        let t = b.thread_idx().x;
        let o = b.if_else(
            (t % 4).eq(0),
            |b| b.atomic_add(&cell, U32s::ZERO, U32s::splat(1)),
            |_| U32s::splat(99),
        );
        b.store(&old, t, o);
    })
    .unwrap();
    assert_eq!(cell.to_vec()[0], 18);
    let o = old.to_vec();
    for t in 0..32u32 {
        let want = if t % 4 == 0 { 10 + t / 4 } else { 99 };
        assert_eq!(o[t as usize], want);
    }
}
