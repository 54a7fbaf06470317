//! Per-source-line counters (`LaunchConfig::lines`, `LaunchReport::lines`): for every catalogue
//! kernel the lines add up exactly to the launch's counters, attribution changes no count, and
//! every operation is attributed to a line of the kernel's own source.

use warpsim::kernels::{self, Entry, Family, Params};
use warpsim::{Block, Counters, Device, LaunchConfig, Mode};

/// Small sizes for a catalogue kernel (milliseconds per run).
fn small(e: &Entry) -> Params {
    let mut p = e.defaults.clone();
    if e.params.contains(&"n") {
        p.n = 4099; // not a multiple of a warp: the tail diverges
    }
    if e.family == Family::Transpose {
        (p.width, p.height) = (70, 45);
    }
    if e.params.contains(&"iters") {
        p.iters = 16;
    }
    p
}

fn sum(lines: &[warpsim::LineCounters]) -> Counters {
    let mut c = Counters::default();
    for l in lines {
        c += &l.counters;
    }
    c
}

#[test]
fn lines_add_up_to_the_launch_for_every_catalogue_kernel() {
    let dev = Device::default().with_threads(2).unwrap();
    let by_line = Device::default().with_threads(2).unwrap().with_lines(true);
    for e in kernels::catalogue() {
        let p = small(&e);
        for mode in [Mode::Count, Mode::Check] {
            let with = e.run(&by_line, &p, mode).unwrap();
            let without = e.run(&dev, &p, mode).unwrap();
            assert!(with.verified, "{}: {}", e.name, with.detail);
            assert_eq!(with.launches.len(), without.launches.len(), "{}", e.name);
            for (i, (l, plain)) in with.launches.iter().zip(&without.launches).enumerate() {
                let what = format!("{} launch {i} ({mode:?})", e.name);
                let total = l.counters.expect("a counting launch has counters");
                assert!(!l.lines.is_empty(), "{what}: no lines");
                assert_eq!(sum(&l.lines), total, "{what}: lines do not add up");
                assert_eq!(
                    Some(total),
                    plain.counters,
                    "{what}: attribution changed the counts"
                );
                assert!(plain.lines.is_empty(), "{what}: lines kept without asking");
                for pair in l.lines.windows(2) {
                    assert!(
                        (&pair[0].file, pair[0].line) < (&pair[1].file, pair[1].line),
                        "{what}: lines not in file and line order, or repeated: {:?} {:?}",
                        (&pair[0].file, pair[0].line),
                        (&pair[1].file, pair[1].line)
                    );
                }
                for line in &l.lines {
                    if line.file.is_empty() {
                        assert_eq!(line.line, 0, "{what}");
                        assert_eq!(
                            line.counters.warp_instructions, 0,
                            "{what}: instructions issued by no line"
                        );
                    } else {
                        assert!(line.line > 0, "{what}: {}:0", line.file);
                        assert!(
                            line.file.ends_with(".rs") && line.file.contains("kernels/"),
                            "{what}: an operation attributed outside the kernels: {}:{}",
                            line.file,
                            line.line
                        );
                    }
                }
                let attributed: u64 = l
                    .lines
                    .iter()
                    .filter(|x| !x.file.is_empty())
                    .map(|x| x.counters.warp_instructions)
                    .sum();
                assert_eq!(attributed, total.warp_instructions, "{what}");
            }
        }
    }
}

#[test]
fn each_operation_counts_on_its_own_line() {
    let dev = Device::default();
    let n = 200u32; // 8 warps launched, 7 with active lanes, the 7th divergent
    let x = dev.alloc_from("x", &vec![1.5f32; 256]);
    let y = dev.alloc_zeroed::<f32>("y", 256);
    let cfg = LaunchConfig::new(4, 64).name("scale").lines(true);
    let base = line!();
    let report = dev
        .launch(&cfg, |b: &mut Block<'_>| {
            let i = b.global_idx_x();
            b.if_(i.lt(n), |b| {
                let v = b.load(&x, i);
                b.store(&y, i, v * 2.0);
            });
        })
        .unwrap();
    assert_eq!(y.to_vec()[..200], vec![3.0f32; 200][..]);
    let at = |line: u32| {
        report
            .lines
            .iter()
            .find(|l| l.line == line && l.file.ends_with("lines.rs"))
            .map(|l| l.counters)
            .unwrap_or_else(|| panic!("no counters for line {line}: {:?}", report.lines))
    };
    let branch = at(base + 4);
    assert_eq!((branch.branches, branch.divergent_branches), (8, 1));
    let load = at(base + 5);
    assert_eq!(
        (load.gld_requests, load.gld_sectors, load.gld_bytes),
        (7, 25, 800)
    );
    assert_eq!(load.branches, 0);
    let store = at(base + 6);
    assert_eq!((store.gst_requests, store.gst_sectors), (7, 25));
    assert_eq!(store.gld_requests, 0);
    assert_eq!(sum(&report.lines), report.counters.unwrap());
    let launched = report
        .lines
        .iter()
        .find(|l| l.file.is_empty())
        .expect("the warps launched, on no line");
    assert_eq!(launched.counters.warps_launched, 8);

    // Off unless asked for, and never in fast mode.
    let plain = dev
        .launch(&LaunchConfig::new(4, 64), |b: &mut Block<'_>| {
            let i = b.global_idx_x();
            b.if_(i.lt(n), |b| {
                let v = b.load(&x, i);
                b.store(&y, i, v);
            });
        })
        .unwrap();
    assert!(plain.lines.is_empty());
    let fast = dev
        .launch(
            &LaunchConfig::new(4, 64).mode(Mode::Fast).lines(true),
            |b: &mut Block<'_>| {
                let i = b.global_idx_x();
                b.if_(i.lt(n), |b| {
                    let v = b.load(&x, i);
                    b.store(&y, i, v);
                });
            },
        )
        .unwrap();
    assert!(fast.lines.is_empty() && fast.counters.is_none());
}
