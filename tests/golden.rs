//! Every catalogue kernel's counters, compared with those of the engine this one replaced.
//!
//! `tests/data/golden_counters.json` was recorded with the warp-future engine of commit d1d17a0
//! (455 configurations: every kernel at its defaults on four profiles, the reductions and
//! transposes at their edge sizes, the offset kernels at many offsets, the divergence kernels
//! at odd sizes, the shared-memory patterns at every `c` up to 33). The block-lockstep engine
//! must reproduce every counter of every launch exactly, and fail the same configurations.
//!
//! One kernel differs on purpose, by an amount the test computes rather than records:
//! `reduce-shuffle` now branches on `warp_id == 0` as a block-wide value (the CUDA source's
//! `if (warp == 0)`), where the old engine ran each warp separately and took that branch in
//! plain Rust. That adds, per block and per warp, one comparison and one non-divergent branch.
//! Load batches (`gld_batches`) are newer than the data: checked for their bounds only.

use serde_json::Value;
use warpsim::kernels::{self, Params, Pattern, SmemOp};
use warpsim::{Counters, Device, Dim3, Mode, Profile};

fn load() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/golden_counters.json"
    ))
    .expect("golden data");
    serde_json::from_str(&text).expect("golden JSON")
}

fn u(v: &Value) -> u64 {
    v.as_u64().expect("an unsigned integer")
}

fn dim(v: &Value) -> Dim3 {
    Dim3::new(u(&v[0]) as u32, u(&v[1]) as u32, u(&v[2]) as u32)
}

fn params(p: &Value) -> Params {
    Params {
        n: u(&p["n"]) as usize,
        block: dim(&p["block"]),
        offset: u(&p["offset"]) as u32,
        width: u(&p["width"]) as u32,
        height: u(&p["height"]) as u32,
        pattern: match p["pattern"].as_str() {
            Some("offset") => Pattern::Offset,
            Some("stride") => Pattern::Stride,
            _ => Pattern::Modulo,
        },
        c: u(&p["c"]) as u32,
        elem_bytes: u(&p["elem_bytes"]) as u32,
        op: if p["op"] == "load" {
            SmemOp::Load
        } else {
            SmemOp::Store
        },
        iters: u(&p["iters"]) as u32,
    }
}

fn counters(c: &Value) -> Counters {
    let f = |k: &str| u(&c[k]);
    let mut ways = [0u64; 32];
    for (w, v) in ways
        .iter_mut()
        .zip(c["shared_conflict_ways"].as_array().unwrap())
    {
        *w = u(v);
    }
    Counters {
        warp_instructions: f("warp_instructions"),
        thread_instructions: f("thread_instructions"),
        branches: f("branches"),
        divergent_branches: f("divergent_branches"),
        gld_requests: f("gld_requests"),
        gld_sectors: f("gld_sectors"),
        gld_lines: f("gld_lines"),
        gld_bytes: f("gld_bytes"),
        // The old engine did not batch loads: compared apart (below).
        gld_batches: 0,
        gst_requests: f("gst_requests"),
        gst_sectors: f("gst_sectors"),
        gst_lines: f("gst_lines"),
        gst_bytes: f("gst_bytes"),
        shared_ld_requests: f("shared_ld_requests"),
        shared_ld_wavefronts: f("shared_ld_wavefronts"),
        shared_ld_ideal: f("shared_ld_ideal"),
        shared_st_requests: f("shared_st_requests"),
        shared_st_wavefronts: f("shared_st_wavefronts"),
        shared_st_ideal: f("shared_st_ideal"),
        shared_conflict_ways: ways,
        atomic_requests: f("atomic_requests"),
        atomic_sectors: f("atomic_sectors"),
        barriers: f("barriers"),
        warps_launched: f("warps_launched"),
    }
}

/// The deliberate difference of `reduce-shuffle` (see the module documentation): per block,
/// every warp evaluates `warp == 0` (an instruction) and branches on it (an instruction and a
/// branch, never divergent).
fn expected(kernel: &str, mut c: Counters, grid: Dim3, block: Dim3) -> Counters {
    if kernel == "reduce-shuffle" {
        let warps = grid.count() * block.count().div_ceil(32);
        let threads = grid.count() * block.count();
        c.warp_instructions += 2 * warps;
        c.thread_instructions += 2 * threads;
        c.branches += warps;
    }
    c
}

#[test]
fn every_catalogue_kernel_counts_as_the_old_engine_did() {
    let golden = load();
    let records = golden["records"].as_array().expect("records");
    assert!(records.len() > 400, "{} records", records.len());
    let mut mismatches = Vec::new();
    for r in records {
        let kernel = r["kernel"].as_str().unwrap();
        let device = r["device"].as_str().unwrap();
        let p = params(&r["params"]);
        let entry = kernels::find(kernel).unwrap_or_else(|| panic!("kernel {kernel}"));
        let dev = Device::new(Profile::by_name(device).unwrap());
        let out = entry
            .run(&dev, &p, Mode::Count)
            .unwrap_or_else(|e| panic!("{kernel} on {device} {p:?}: {e}"));
        assert!(out.verified, "{kernel} {device} {p:?}: {}", out.detail);
        let want = r["launches"].as_array().unwrap();
        assert_eq!(out.launches.len(), want.len(), "{kernel} {p:?}: launches");
        for (i, (got, want)) in out.launches.iter().zip(want).enumerate() {
            let (grid, block) = (dim(&want["grid"]), dim(&want["block"]));
            let mut c = expected(kernel, counters(&want["counters"]), grid, block);
            // Batches are newer than the golden data: at most one per load, at least one per
            // `LOAD_BATCH` loads.
            if let Some(g) = &got.counters {
                let loads = g.gld_requests;
                let most = u64::from(Counters::LOAD_BATCH);
                assert!(
                    g.gld_batches <= loads && g.gld_batches >= loads.div_ceil(most),
                    "{kernel} {p:?}: {} batches for {loads} loads",
                    g.gld_batches
                );
                c.gld_batches = g.gld_batches;
            }
            let by_warp: Vec<u64> = want["divergent_by_warp"]
                .as_array()
                .unwrap()
                .iter()
                .map(u)
                .collect();
            let same = got.grid == grid
                && got.block == block
                && u64::from(got.shared_bytes) == u(&want["shared_bytes"])
                && got.counters.as_ref() == Some(&c)
                && got.divergent_by_warp == by_warp;
            if !same {
                mismatches.push(format!(
                    "{kernel} on {device}, launch {i}, {p:?}:\n  got  {:?} {:?} {} {:?}\n  want {:?} {:?} {} {:?}\n  divergent by warp got {:?} want {:?}",
                    got.grid, got.block, got.shared_bytes, got.counters, grid, block,
                    want["shared_bytes"], c, got.divergent_by_warp, by_warp
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} configurations differ:\n{}",
        mismatches.len(),
        records.len(),
        mismatches[..mismatches.len().min(5)].join("\n")
    );
}

#[test]
fn configurations_that_failed_still_fail() {
    let golden = load();
    for e in golden["expected_errors"]
        .as_array()
        .expect("expected_errors")
    {
        let kernel = e["kernel"].as_str().unwrap();
        let dev = Device::new(Profile::by_name(e["device"].as_str().unwrap()).unwrap());
        let p = params(&e["params"]);
        let got = kernels::find(kernel).unwrap().run(&dev, &p, Mode::Count);
        let want = e["error"].as_str().unwrap();
        match got {
            Err(err) => assert_eq!(err.to_string(), want, "{kernel} {p:?}"),
            Ok(_) => panic!("{kernel} {p:?} ran; it failed with {want}"),
        }
    }
}
