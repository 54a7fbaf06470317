//! The documents' figures, reproduced as exact counter tests under the stated profiles.

use warpsim::kernels::{self, Params, Pattern, SmemOp, reduction, transpose};
use warpsim::{Device, Dim3, Metrics, Mode, Profile};

fn run(dev: &Device, name: &str, p: Params) -> kernels::Outcome {
    let entry = kernels::find(name).unwrap();
    let out = entry.run(dev, &p, Mode::Count).unwrap();
    assert!(out.verified, "{name}: {}", out.detail);
    out
}

fn metrics(out: &kernels::Outcome) -> Metrics {
    out.launches[0].metrics().unwrap()
}

fn access(n: usize, block: u32, offset: u32) -> Params {
    Params {
        n,
        block: Dim3::new(block, 1, 1),
        offset,
        ..Params::default()
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn read_offset_efficiency_001() {
    let h100 = Device::new(Profile::sm_90());
    let fermi = Device::new(Profile::sm_20());
    for offset in [0, 128] {
        let m = metrics(&run(&h100, "read-offset", access(1 << 20, 512, offset)));
        assert_eq!(m.gld_efficiency, 100.0, "offset {offset}");
        assert_eq!(
            m.gld_requests,
            2 * (1 << 20) / 32 - 2 * (offset as u64 / 32)
        );
    }
    let m = metrics(&run(&h100, "read-offset", access(1 << 20, 512, 11)));
    assert!(close(m.gld_efficiency, 80.0, 0.01), "{}", m.gld_efficiency);
    // A full warp at offset 11 touches five sectors: the H100 measured exactly these counts
    // (cuda/results/h100.csv).
    assert_eq!((m.gld_requests, m.gld_sectors), (65536, 327676));
    let m = metrics(&run(&fermi, "read-offset", access(1 << 20, 512, 11)));
    assert!(close(m.gld_efficiency, 50.0, 0.1), "{}", m.gld_efficiency);
    assert_eq!(m.gld_transactions, m.gld_lines);
    for offset in [1, 2, 4] {
        let m = metrics(&run(&h100, "read-offset", access(1 << 16, 512, offset)));
        assert!(
            close(m.gld_efficiency, 80.0, 0.05),
            "offset {offset}: {}",
            m.gld_efficiency
        );
    }
    for offset in [8, 16] {
        let m = metrics(&run(&h100, "read-offset", access(1 << 16, 512, offset)));
        assert!(
            close(m.gld_efficiency, 100.0, 0.05),
            "offset {offset}: {}",
            m.gld_efficiency
        );
    }
}

#[test]
fn write_offset_and_layouts_001() {
    let dev = Device::default();
    let m = metrics(&run(&dev, "write-offset", access(1 << 20, 512, 11)));
    assert!(close(m.gst_efficiency, 80.0, 0.01), "{}", m.gst_efficiency);
    // As on the H100: 32768 store requests in 163838 sectors.
    assert_eq!((m.gst_requests, m.gst_sectors), (32768, 163838));
    assert!(close(m.gld_efficiency, 100.0, 0.01), "{}", m.gld_efficiency);
    let m = metrics(&run(&dev, "read-offset-unroll4", access(1 << 20, 512, 11)));
    assert!(close(m.gld_efficiency, 80.0, 0.01), "{}", m.gld_efficiency);
    let aos = metrics(&run(&dev, "aos", access(1 << 20, 512, 0)));
    assert_eq!((aos.gld_efficiency, aos.gst_efficiency), (50.0, 50.0));
    let soa = metrics(&run(&dev, "soa", access(1 << 20, 512, 0)));
    assert_eq!((soa.gld_efficiency, soa.gst_efficiency), (100.0, 100.0));
    assert_eq!(aos.gld_requests, soa.gld_requests);
    assert_eq!(aos.gld_sectors, 2 * soa.gld_sectors);
}

#[test]
fn vector_add_divergence_002() {
    let dev = Device::default();
    let out = run(&dev, "vector-add", access(1003, 64, 0));
    let c = out.launches[0].counters.unwrap();
    assert_eq!(c.warps_launched, 32);
    assert_eq!(c.divergent_branches, 1);
    assert_eq!(c.branches, 32);
    let out = run(&dev, "vector-add", access(100, 64, 0));
    let c = out.launches[0].counters.unwrap();
    assert_eq!((c.warps_launched, c.divergent_branches), (4, 1));
    assert_eq!(out.launches[0].divergent_by_warp, [0, 1]);
}

#[test]
fn rgb_to_gray_divergence_002() {
    let dev = Device::default();
    let p = Params {
        width: 76,
        height: 62,
        block: Dim3::new(16, 16, 1),
        ..Params::default()
    };
    let out = run(&dev, "rgb-to-gray", p.clone());
    let c = out.launches[0].counters.unwrap();
    assert_eq!(c.warps_launched, 160);
    assert_eq!(c.divergent_branches, 31);
    // 002 estimates "80 of 1040" for 200×150, counting all 8 warps of the corner block; only
    // the 3 of them that hold rows 144..149 straddle the right edge: 72 + 3.
    let out = run(
        &dev,
        "rgb-to-gray",
        Params {
            width: 200,
            height: 150,
            ..p
        },
    );
    let c = out.launches[0].counters.unwrap();
    assert_eq!((c.warps_launched, c.divergent_branches), (1040, 75));
}

#[test]
fn reduction_divergence_002() {
    let dev = Device::default();
    let x = dev.alloc_from("x", &vec![1.0f32; 512]);
    // Fig 5.15, 512 threads: the loop's `if (t < stride)` diverges only in its last five
    // iterations (strides 16..1), in warp 0; the final `if (t == 0)` diverges there too.
    let (sum, launches) =
        reduction::reduce(&dev, reduction::Variant::Sequential, &x, 512, Mode::Count).unwrap();
    assert_eq!(sum, 512.0);
    let l = &launches[0];
    let mut want = vec![0; 16];
    want[0] = 5 + 1;
    assert_eq!(l.divergent_by_warp, want);
    // 16 warps × (load guard + 9 loop iterations + final write).
    assert_eq!(l.counters.unwrap().branches, 16 * 11);
    // Fig 5.13: warp 0 diverges in every one of the 9 iterations.
    let (sum, launches) =
        reduction::reduce(&dev, reduction::Variant::Interleaved, &x, 512, Mode::Count).unwrap();
    assert_eq!(sum, 512.0);
    let l = &launches[0];
    assert_eq!(l.divergent_by_warp[0], 9 + 1);
    // Strides 1..16 split every warp, 32 splits even warps, 64 every fourth, …
    assert_eq!(
        l.counters.unwrap().divergent_branches,
        16 * 5 + 8 + 4 + 2 + 1 + 1
    );
}

#[test]
fn transpose_bank_conflicts_004() {
    for (profile, ways, conflicts_per_request) in
        [(Profile::sm_90(), 32, 31), (Profile::sm_13(), 16, 30)]
    {
        let dev = Device::new(profile);
        let out =
            transpose::run(&dev, transpose::Variant::Coalesced, 256, 256, Mode::Count).unwrap();
        assert!(out.verified);
        let c = out.launches[0].counters.unwrap();
        let m = metrics(&out);
        // The only shared loads are the tile's column reads: 64 blocks × 8 warps × 4 rows.
        assert_eq!(m.shared_ld_requests, 64 * 8 * 4);
        assert_eq!(
            m.shared_ld_bank_conflicts,
            conflicts_per_request * m.shared_ld_requests
        );
        let requests_per_instruction = 32 / dev.profile().shared_request_lanes as u64;
        assert_eq!(
            c.shared_conflict_ways[ways - 1],
            requests_per_instruction * m.shared_ld_requests
        );
        assert_eq!(m.shared_st_bank_conflicts, 0);
        for v in [
            transpose::Variant::NoConflicts,
            transpose::Variant::Diagonal,
        ] {
            let out = transpose::run(&dev, v, 256, 256, Mode::Count).unwrap();
            assert!(out.verified);
            let m = metrics(&out);
            assert_eq!(
                (m.shared_ld_bank_conflicts, m.shared_st_bank_conflicts),
                (0, 0),
                "{v:?}"
            );
        }
    }
}

fn pattern(pattern: Pattern, c: u32, elem_bytes: u32) -> Params {
    Params {
        block: Dim3::new(256, 1, 1),
        pattern,
        c,
        elem_bytes,
        op: SmemOp::Load,
        iters: 10,
        ..Params::default()
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[test]
fn smem_stride_conflicts_are_gcd_004() {
    let dev = Device::default();
    for c in 1..=33 {
        let m = metrics(&run(&dev, "smem-pattern", pattern(Pattern::Stride, c, 4)));
        // 8 warps × 10 pattern loads, each gcd(c, 32) wavefronts.
        assert_eq!(m.shared_ld_requests, 80, "c = {c}");
        assert_eq!(
            m.shared_ld_wavefronts,
            80 * u64::from(gcd(c, 32)),
            "c = {c}"
        );
    }
    for c in [1, 3, 7, 32] {
        let m = metrics(&run(&dev, "smem-pattern", pattern(Pattern::Modulo, c, 4)));
        assert_eq!(m.shared_ld_bank_conflicts, 0, "broadcast s[tid % {c}]");
    }
    let m = metrics(&run(&dev, "smem-pattern", pattern(Pattern::Offset, 5, 4)));
    assert_eq!(m.shared_ld_bank_conflicts, 0);
}

#[test]
fn smem_wide_elements_follow_spec_5() {
    let dev = Device::default();
    // (elem bytes, stride, wavefronts per request, conflicts per request), measured on the H100.
    for (bytes, c, wf, conflicts) in [
        (8, 1, 2, 0),
        (8, 2, 4, 2),
        (8, 4, 8, 6),
        (16, 1, 4, 0),
        (16, 2, 8, 4),
    ] {
        let m = metrics(&run(
            &dev,
            "smem-pattern",
            pattern(Pattern::Stride, c, bytes),
        ));
        assert_eq!(m.shared_ld_wavefronts, 80 * wf, "{bytes} bytes, stride {c}");
        assert_eq!(
            m.shared_ld_bank_conflicts,
            80 * conflicts,
            "{bytes} bytes, stride {c}"
        );
    }
}

#[test]
fn reductions_get_cheaper_down_the_list() {
    let dev = Device::default();
    let n = 1 << 20;
    let x = dev.alloc_from("x", &kernels::data::unit_floats(n, 9));
    let cost: Vec<(u64, u64, f64)> = reduction::Variant::ALL
        .iter()
        .map(|&v| {
            let (_, launches) = reduction::reduce(&dev, v, &x, 256, Mode::Count).unwrap();
            let c = launches
                .iter()
                .fold(warpsim::Counters::default(), |mut a, l| {
                    a += &l.counters.unwrap();
                    a
                });
            let m = Metrics::new(&c, dev.profile());
            (
                c.divergent_branches,
                m.shared_ld_bank_conflicts + m.shared_st_bank_conflicts,
                c.warp_instructions as f64 / n as f64,
            )
        })
        .collect();
    let [inter, strided, seq, first, warp, unrolled, multi, shuffle] = cost.try_into().unwrap();
    // Interleaved → strided: fewer divergent branches, but bank conflicts appear.
    assert!(strided.0 < inter.0 && strided.1 > inter.1);
    // Strided → sequential: conflict-free.
    assert!(seq.1 == 0 && seq.0 <= strided.0);
    // Then fewer instructions per element at each step.
    assert!(first.2 < seq.2, "{first:?} {seq:?}");
    assert!(warp.2 < first.2, "{warp:?} {first:?}");
    assert!(unrolled.2 <= warp.2, "{unrolled:?} {warp:?}");
    assert!(multi.2 < unrolled.2, "{multi:?} {unrolled:?}");
    assert!(shuffle.2 < multi.2, "{shuffle:?} {multi:?}");
    // The warp-synchronous tail removes the five divergent steps below warp size.
    assert!(warp.0 < first.0, "{warp:?} {first:?}");
}
