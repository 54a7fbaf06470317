//! Every catalogue kernel's output equals its CPU reference, over sizes that include 1, primes,
//! non-multiples of the block and tile, and a large one.

use warpsim::kernels::{self, Family, Params, Pattern, SmemOp, reduction, transpose};
use warpsim::{Device, Dim3, Mode};

#[test]
fn reductions_match_the_reference_at_edge_sizes() {
    let dev = Device::default();
    for v in reduction::Variant::ALL {
        for block in [64, 256] {
            let results = reduction::verify(&dev, &reduction::EDGE_SIZES, |dev, x| {
                reduction::reduce(dev, v, x, block, Mode::Fast)
            })
            .unwrap();
            for r in results {
                assert!(
                    r.ok,
                    "{} block {block} n {}: got {} expected {}",
                    v.name(),
                    r.n,
                    r.got,
                    r.expected
                );
            }
        }
    }
}

#[test]
fn reductions_reject_unsupported_blocks() {
    let dev = Device::default();
    let x = dev.alloc_from("x", &[1.0f32; 10]);
    for (v, block) in [
        (reduction::Variant::Sequential, 100),
        (reduction::Variant::UnrollWarp, 32),
        (reduction::Variant::Unrolled, 2048),
    ] {
        let e = reduction::reduce(&dev, v, &x, block, Mode::Fast).unwrap_err();
        assert!(matches!(e, warpsim::Error::InvalidLaunch { .. }), "{e}");
    }
}

#[test]
fn transposes_match_the_reference_at_edge_sizes() {
    let dev = Device::default();
    for v in transpose::Variant::ALL {
        for &(w, h) in &transpose::EDGE_SIZES {
            let out = transpose::run(&dev, v, w, h, Mode::Fast).unwrap();
            assert!(out.verified, "{} {w}x{h}: {}", v.name(), out.detail);
        }
    }
}

fn run(name: &str, p: Params) {
    let dev = Device::default();
    let out = kernels::find(name)
        .unwrap()
        .run(&dev, &p, Mode::Fast)
        .unwrap();
    assert!(out.verified, "{name} {p:?}: {}", out.detail);
}

#[test]
fn memory_access_kernels_match_the_reference() {
    for name in [
        "read-offset",
        "write-offset",
        "read-offset-unroll4",
        "aos",
        "soa",
    ] {
        for n in [1, 31, 1009, 4096 + 7, 1 << 20] {
            for offset in [0, 1, 11, 128] {
                for block in [64, 512] {
                    run(
                        name,
                        Params {
                            n,
                            block: Dim3::new(block, 1, 1),
                            offset,
                            ..Params::default()
                        },
                    );
                }
            }
        }
    }
}

#[test]
fn divergence_kernels_match_the_reference() {
    for n in [1, 97, 1003, 65537] {
        for name in ["vector-add", "branch-by-lane", "branch-by-warp"] {
            run(
                name,
                Params {
                    n,
                    block: Dim3::new(64, 1, 1),
                    ..Params::default()
                },
            );
        }
    }
    for (width, height) in [(1, 1), (76, 62), (17, 1), (1, 33), (200, 150), (1920, 1080)] {
        run(
            "rgb-to-gray",
            Params {
                width,
                height,
                block: Dim3::new(16, 16, 1),
                ..Params::default()
            },
        );
    }
}

#[test]
fn smem_patterns_match_the_reference() {
    for pattern in [Pattern::Offset, Pattern::Stride, Pattern::Modulo] {
        for c in [1, 2, 7, 32, 33] {
            for elem_bytes in [4, 8, 16] {
                for op in [SmemOp::Load, SmemOp::Store] {
                    let p = Params {
                        block: Dim3::new(128, 1, 1),
                        pattern,
                        c,
                        elem_bytes,
                        op,
                        iters: 20,
                        ..Params::default()
                    };
                    if kernels::smem::check_params(&p).is_ok() {
                        run("smem-pattern", p);
                    }
                }
            }
        }
    }
}

#[test]
fn every_default_configuration_is_verified_in_both_modes() {
    let dev = Device::default();
    for e in kernels::catalogue() {
        let mut p = e.defaults.clone();
        if e.family == Family::Reduction {
            p.n = 100_003; // keep the test quick; the suite runs the full defaults
        }
        for mode in [Mode::Fast, Mode::Count] {
            let out = e.run(&dev, &p, mode).unwrap();
            assert!(out.verified, "{} {mode:?}: {}", e.name, out.detail);
            assert_eq!(out.launches[0].counters.is_some(), mode == Mode::Count);
        }
    }
}

#[test]
fn native_baselines_do_the_same_job() {
    let x = kernels::data::unit_floats(1 << 16, 3);
    let sum = kernels::native::sum(&x);
    assert!(reduction::close_enough(sum, reduction::reference(&x), &x));
    let (w, h) = (300, 77);
    let m = kernels::data::unit_floats(w * h, 4);
    let mut t = vec![0.0; w * h];
    kernels::native::transpose(&m, &mut t, w, h);
    assert_eq!(t, transpose::reference(&m, w, h));
}
