//! Criterion benchmarks of the catalogue's main kernels, per family, each in fast mode
//! (`Mode::Fast`, no counters) and counting mode (`Mode::Count`), next to the native Rust
//! baseline of the same job (`warpsim::kernels::native`, rayon) in the same group:
//!
//! * `reduction`: reduce-sequential, reduce-multi, reduce-shuffle on 2^20 and 2^24 floats
//!   (block 256; every launch of the reduction, down to one value) vs `native::sum`;
//! * `transpose`: transpose-copy, transpose-coalesced, transpose-no-conflicts on 1024² and 4096²
//!   vs `native::copy` / `native::transpose`;
//! * `memory-access`: read-offset with offset 0 and 11 on 2^22 floats (block 512) vs a rayon
//!   loop `c[i] = a[i + off] + b[i + off]`;
//! * `divergence`: branch-by-lane and branch-by-warp on 2^16 threads (block 256) vs the same
//!   job as a rayon loop over 32-element blocks (which LLVM vectorizes; see `native_branch`);
//! * `lines`: what per-source-line attribution costs: reduce-sequential on 2^20 floats and
//!   transpose-no-conflicts on 1024² in fast mode, counting mode, and counting mode with
//!   `Device::with_lines`, next to the native baselines;
//! * `access-order`: no warpsim at all: the native sum and copy next to the same jobs walked in
//!   the order warpsim runs the grid-stride reduction and the tiled copy (see `native`), and the
//!   reduction's walk again with warpsim's kind of load (32 relaxed atomic loads per warp).
//!
//! Inputs are allocated once per size, outside the timed closure, and every warpsim case's output
//! is checked against the reference once before it is timed. Throughput is in elements.
//!
//! ```sh
//! cargo bench --bench kernels                 # everything: about 5 minutes on 2 cores
//! cargo bench --bench kernels -- reduce       # only ids matching a regex
//! cargo bench --bench kernels -- --quick      # a shorter, rougher pass
//! ```
//!
//! These are for profiling and tracking regressions. The fast/native and counting/fast ratios
//! quoted in the README come from `warpsim bench`, which runs the three interleaved in one
//! process (medians of several runs), so machine noise hits them alike.

use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use criterion::{criterion_group, criterion_main, measurement::WallTime};
use rayon::prelude::*;
use std::cell::{Cell, OnceCell};
use std::hint::black_box;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::time::Duration;
use warpsim::kernels::{access, data, divergence, native, reduction, transpose};
use warpsim::{Block, Device, Global, LaunchConfig, Mode};

/// The two modes every kernel runs in, with the names the ids use.
const MODES: [(Mode, &str); 2] = [(Mode::Fast, "fast"), (Mode::Count, "count")];

/// Sample settings: 10 samples, and for sizes whose single run takes a large fraction of a
/// second, flat sampling with a longer measurement window.
fn configure(g: &mut BenchmarkGroup<'_, WallTime>, elements: usize, big: bool) {
    g.throughput(Throughput::Elements(elements as u64))
        .sample_size(10);
    if big {
        g.sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(5));
    } else {
        g.sampling_mode(SamplingMode::Auto)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
    }
}

/// Runs `check` the first time it is called (the first call of a benchmark's closure, untimed).
fn once(done: &Cell<bool>, check: impl FnOnce()) {
    if !done.replace(true) {
        check();
    }
}

fn reductions(c: &mut Criterion) {
    let dev = Device::default();
    let mut g = c.benchmark_group("reduction");
    for (log2, big) in [(20, false), (24, true)] {
        let n = 1usize << log2;
        let size = format!("2^{log2}");
        configure(&mut g, n, big);
        // Made on first use, so a filtered-out size costs nothing.
        let cell: OnceCell<(Vec<f32>, Global<f32>)> = OnceCell::new();
        let input = || {
            cell.get_or_init(|| {
                let host = data::unit_floats(n, 5);
                let x = dev.alloc_from("x", &host);
                (host, x)
            })
        };
        for v in [
            reduction::Variant::Sequential,
            reduction::Variant::Multi,
            reduction::Variant::Shuffle,
        ] {
            for (mode, mode_name) in MODES {
                let id = BenchmarkId::new(format!("{}/{mode_name}", v.name()), &size);
                let checked = Cell::new(false);
                g.bench_with_input(id, &mode, |b, &mode| {
                    let (host, x) = input();
                    once(&checked, || {
                        let (sum, _) = reduction::reduce(&dev, v, x, 256, mode).expect("launch");
                        let want = reduction::reference(host);
                        assert!(
                            reduction::close_enough(sum, want, host),
                            "{} {size} {mode:?}: {sum} vs {want}",
                            v.name()
                        );
                    });
                    b.iter(|| reduction::reduce(&dev, v, x, 256, mode).expect("launch"));
                });
            }
        }
        g.bench_function(BenchmarkId::new("native-sum", &size), |b| {
            let (host, _) = input();
            b.iter(|| native::sum(black_box(host)));
        });
    }
    g.finish();
}

fn transposes(c: &mut Criterion) {
    let dev = Device::default();
    let mut g = c.benchmark_group("transpose");
    for (edge, big) in [(1024u32, false), (4096, true)] {
        let len = (edge * edge) as usize;
        let size = format!("{edge}x{edge}");
        configure(&mut g, len, big);
        let cell: OnceCell<(Vec<f32>, Global<f32>, Global<f32>)> = OnceCell::new();
        let input = || {
            cell.get_or_init(|| {
                let host = data::unit_floats(len, 6);
                let i = dev.alloc_from("idata", &host);
                let o = dev.alloc_zeroed::<f32>("odata", len);
                (host, i, o)
            })
        };
        for v in [
            transpose::Variant::Copy,
            transpose::Variant::Coalesced,
            transpose::Variant::NoConflicts,
        ] {
            for (mode, mode_name) in MODES {
                let id = BenchmarkId::new(format!("{}/{mode_name}", v.name()), &size);
                let checked = Cell::new(false);
                g.bench_with_input(id, &mode, |b, &mode| {
                    let (host, i, o) = input();
                    once(&checked, || {
                        o.fill(f32::NAN);
                        transpose::launch(&dev, v, i, o, edge, edge, mode).expect("launch");
                        let ok = if v.transposes() {
                            o.to_vec() == transpose::reference(host, edge as usize, edge as usize)
                        } else {
                            o.to_vec() == *host
                        };
                        assert!(ok, "{} {size} {mode:?}: wrong output", v.name());
                    });
                    b.iter(|| transpose::launch(&dev, v, i, o, edge, edge, mode).expect("launch"));
                });
            }
        }
        let out = std::cell::RefCell::new(Vec::new());
        g.bench_function(BenchmarkId::new("native-copy", &size), |b| {
            let (host, _, _) = input();
            let mut o = out.borrow_mut();
            o.resize(len, 0.0);
            b.iter(|| native::copy(black_box(host), black_box(&mut o[..])));
        });
        g.bench_function(BenchmarkId::new("native-transpose", &size), |b| {
            let (host, _, _) = input();
            let mut o = out.borrow_mut();
            o.resize(len, 0.0);
            b.iter(|| {
                native::transpose(
                    black_box(host),
                    black_box(&mut o[..]),
                    edge as usize,
                    edge as usize,
                )
            });
        });
    }
    g.finish();
}

/// read-offset's inputs: `A` and `B` on the host and the device, and the output `C`.
struct OffsetInput {
    ha: Vec<f32>,
    hb: Vec<f32>,
    a: Global<f32>,
    b: Global<f32>,
    c: Global<f32>,
}

fn memory_access(c: &mut Criterion) {
    let dev = Device::default();
    let mut g = c.benchmark_group("memory-access");
    let n = 1usize << 22;
    let block = 512u32;
    configure(&mut g, n, false);
    let cell: OnceCell<OffsetInput> = OnceCell::new();
    let input = || {
        cell.get_or_init(|| {
            let (ha, hb) = (data::unit_floats(n, 1), data::unit_floats(n, 2));
            OffsetInput {
                a: dev.alloc_from("A", &ha),
                b: dev.alloc_from("B", &hb),
                c: dev.alloc_zeroed::<f32>("C", n),
                ha,
                hb,
            }
        })
    };
    let grid = n.div_ceil(block as usize) as u32;
    let n32 = n as u32;
    for offset in [0u32, 11] {
        let size = format!("2^22/offset-{offset}");
        for (mode, mode_name) in MODES {
            let id = BenchmarkId::new(format!("read-offset/{mode_name}"), &size);
            let cfg = LaunchConfig::new(grid, block)
                .name("read-offset")
                .mode(mode);
            let checked = Cell::new(false);
            g.bench_with_input(id, &cfg, |bench, cfg| {
                let OffsetInput { ha, hb, a, b, c } = input();
                let run = || {
                    dev.launch(cfg, |blk: &mut Block<'_>| {
                        access::read_offset(blk, a, b, c, n32, offset)
                    })
                    .expect("launch")
                };
                once(&checked, || {
                    c.fill(0.0);
                    run();
                    let want = access::offset_reference(
                        access::OffsetKind::Read,
                        ha,
                        hb,
                        offset as usize,
                        block as usize,
                    );
                    assert!(
                        c.to_vec() == want,
                        "read-offset {size} {mode:?}: wrong output"
                    );
                });
                bench.iter(run);
            });
        }
        let out = std::cell::RefCell::new(Vec::new());
        g.bench_function(BenchmarkId::new("native-read-offset", &size), |bench| {
            let OffsetInput { ha, hb, .. } = input();
            let mut c = out.borrow_mut();
            c.resize(n, 0.0);
            let off = offset as usize;
            bench.iter(|| {
                c[..n - off]
                    .par_iter_mut()
                    .zip(&black_box(ha)[off..])
                    .zip(&black_box(hb)[off..])
                    .for_each(|((c, a), b)| *c = a + b);
            });
        });
    }
    g.finish();
}

/// The divergence kernels' job in plain Rust: `c[i] = heavy(i, k)` with `k` 1 or 2 by `split`,
/// `heavy(x, k)` being 64 steps of `x = x * 0.999 + k` (`divergence::branch_reference`).
///
/// Written over blocks of 32 elements, step by step across the block, so that LLVM vectorizes
/// it as warpsim's 32-lane vectors are: element by element, each element's 64 dependent steps
/// make the loop latency-bound and several times slower than warpsim itself.
fn native_branch(out: &mut [f32], split: divergence::Split) {
    const LANES: usize = 32;
    out.par_chunks_mut(1024)
        .enumerate()
        .for_each(|(chunk, out)| {
            for (group, out) in out.chunks_mut(LANES).enumerate() {
                let base = chunk * 1024 + group * LANES;
                let mut v = [0.0f32; LANES];
                let mut k = [0.0f32; LANES];
                for (l, (v, k)) in v.iter_mut().zip(&mut k).enumerate() {
                    let i = base + l;
                    let first = match split {
                        divergence::Split::ByLane => i.is_multiple_of(2),
                        divergence::Split::ByWarp => (i / 32).is_multiple_of(2),
                    };
                    *v = i as f32;
                    *k = if first { 1.0 } else { 2.0 };
                }
                for _ in 0..64 {
                    for (v, k) in v.iter_mut().zip(&k) {
                        *v = *v * 0.999 + k;
                    }
                }
                out.copy_from_slice(&v[..out.len()]);
            }
        });
}

fn divergence(c: &mut Criterion) {
    use divergence::Split;
    let dev = Device::default();
    let mut g = c.benchmark_group("divergence");
    let n = 1usize << 16;
    let block = 256u32;
    configure(&mut g, n, false);
    let out = dev.alloc_zeroed::<f32>("c", n);
    let grid = n.div_ceil(block as usize) as u32;
    for (split, name) in [
        (Split::ByLane, "branch-by-lane"),
        (Split::ByWarp, "branch-by-warp"),
    ] {
        for (mode, mode_name) in MODES {
            let id = BenchmarkId::new(format!("{name}/{mode_name}"), "2^16");
            let cfg = LaunchConfig::new(grid, block).name(name).mode(mode);
            let checked = Cell::new(false);
            g.bench_with_input(id, &cfg, |b, cfg| {
                let run = || {
                    dev.launch(cfg, |blk: &mut Block<'_>| {
                        divergence::branch(blk, &out, n as u32, split)
                    })
                    .expect("launch")
                };
                once(&checked, || {
                    out.fill(f32::NAN);
                    run();
                    let want = divergence::branch_reference(n, split);
                    assert!(out.to_vec() == want, "{name} {mode:?}: wrong output");
                });
                b.iter(run);
            });
        }
        let host = std::cell::RefCell::new(vec![0.0f32; n]);
        let checked = Cell::new(false);
        g.bench_function(BenchmarkId::new(format!("native-{name}"), "2^16"), |b| {
            let mut host = host.borrow_mut();
            once(&checked, || {
                native_branch(&mut host, split);
                let want = divergence::branch_reference(n, split);
                assert!(*host == want, "native-{name}: wrong output");
            });
            b.iter(|| native_branch(black_box(&mut host[..]), split));
        });
    }
    g.finish();
}

/// Per-line attribution (`--lines`, `Device::with_lines`) against plain counting and fast mode.
fn lines(c: &mut Criterion) {
    let plain = Device::default();
    let by_line = Device::default().with_lines(true);
    let cases = [
        (&plain, Mode::Fast, "fast"),
        (&plain, Mode::Count, "count"),
        (&by_line, Mode::Count, "count-lines"),
    ];
    let mut g = c.benchmark_group("lines");
    let n = 1usize << 20;
    configure(&mut g, n, false);
    let host = data::unit_floats(n, 5);
    let v = reduction::Variant::Sequential;
    for (dev, mode, name) in cases {
        let x = dev.alloc_from("x", &host);
        let (sum, _) = reduction::reduce(dev, v, &x, 256, mode).expect("launch");
        assert!(reduction::close_enough(
            sum,
            reduction::reference(&host),
            &host
        ));
        g.bench_function(
            BenchmarkId::new(format!("{}/{name}", v.name()), "2^20"),
            |b| b.iter(|| reduction::reduce(dev, v, &x, 256, mode).expect("launch")),
        );
    }
    g.bench_function(BenchmarkId::new("native-sum", "2^20"), |b| {
        b.iter(|| native::sum(black_box(&host)))
    });
    let edge = 1024u32;
    let len = (edge * edge) as usize;
    let host = data::unit_floats(len, 6);
    let want = transpose::reference(&host, edge as usize, edge as usize);
    let v = transpose::Variant::NoConflicts;
    for (dev, mode, name) in cases {
        let (i, o) = (
            dev.alloc_from("idata", &host),
            dev.alloc_zeroed::<f32>("odata", len),
        );
        transpose::launch(dev, v, &i, &o, edge, edge, mode).expect("launch");
        assert!(o.to_vec() == want, "{} {mode:?}: wrong output", v.name());
        g.bench_function(
            BenchmarkId::new(format!("{}/{name}", v.name()), "1024x1024"),
            |b| b.iter(|| transpose::launch(dev, v, &i, &o, edge, edge, mode).expect("launch")),
        );
    }
    let mut out = vec![0.0f32; len];
    g.bench_function(BenchmarkId::new("native-transpose", "1024x1024"), |b| {
        b.iter(|| native::transpose(black_box(&host), &mut out, edge as usize, edge as usize))
    });
    g.finish();
}

/// The kernels' access orders without simulation: the native jobs next to the same jobs walked
/// in the order warpsim runs the kernels (`native::sum_in_warp_order`,
/// `native::copy_in_tile_order`). The gap between the two is what the order costs on a CPU,
/// before any instruction is simulated.
fn access_order(c: &mut Criterion) {
    let mut g = c.benchmark_group("access-order");
    let n = 1usize << 24;
    configure(&mut g, n, true);
    let x = data::unit_floats(n, 5);
    g.bench_function(BenchmarkId::new("native-sum", "2^24"), |b| {
        b.iter(|| native::sum(black_box(&x)))
    });
    let grid = reduction::GRID_STRIDE_BLOCKS as usize;
    g.bench_function(BenchmarkId::new("sum-in-warp-order", "2^24"), |b| {
        b.iter(|| native::sum_in_warp_order(black_box(&x), grid, 256))
    });
    // The same walk with the loads warpsim makes: global memory is shared between CPU threads,
    // so a warp's 32 loads are relaxed atomic loads, one per lane.
    let words: Vec<AtomicU32> = x.iter().map(|v| AtomicU32::new(v.to_bits())).collect();
    g.bench_function(BenchmarkId::new("sum-in-warp-order-atomic", "2^24"), |b| {
        b.iter(|| {
            native::sum_in_warp_order_by(black_box(&words), grid, 256, |w| {
                f32::from_bits(w.load(Relaxed))
            })
        })
    });
    drop((x, words));
    let edge = 4096;
    let input = data::unit_floats(edge * edge, 6);
    let mut out = vec![0.0f32; edge * edge];
    g.bench_function(BenchmarkId::new("native-copy", "4096x4096"), |b| {
        b.iter(|| native::copy(black_box(&input), &mut out))
    });
    g.bench_function(BenchmarkId::new("copy-in-tile-order", "4096x4096"), |b| {
        b.iter(|| native::copy_in_tile_order(black_box(&input), &mut out, edge, edge))
    });
    g.finish();
}

criterion_group!(
    benches,
    reductions,
    transposes,
    memory_access,
    divergence,
    lines,
    access_order
);
criterion_main!(benches);
