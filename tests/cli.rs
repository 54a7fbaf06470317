//! The `warpsim` command line, run as a separate process: the JSON contract of `run` for every
//! catalogue kernel, CSV and metric filtering, exit status 2 with a helpful message for command
//! lines that cannot run, the occupancy calculator, `devices`, `list`, check mode and the suite
//! with its HTML report; per-line counters (`--lines`), the checks made before anything runs
//! (a writable `--report` path, the run's memory against the machine's) and `suite --check`.

use serde_json::Value;
use std::collections::BTreeSet;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use warpsim::Metrics;
use warpsim::kernels::{self, Entry, Family};

/// What one `warpsim` process gave.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    args: String,
}

impl Run {
    fn from_output(args: &[&str], out: Output) -> Run {
        Run {
            code: out.status.code(),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
            args: args.join(" "),
        }
    }

    /// Exit status 0, or a panic that shows what the process printed.
    #[track_caller]
    fn success(self) -> Run {
        assert_eq!(
            self.code,
            Some(0),
            "`warpsim {}` failed\nstdout:\n{}\nstderr:\n{}",
            self.args,
            self.stdout,
            self.stderr
        );
        self
    }

    /// Stdout as JSON.
    #[track_caller]
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "`warpsim {}` printed no JSON ({e}):\n{}",
                self.args, self.stdout
            )
        })
    }
}

fn warpsim(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("warpsim starts");
    Run::from_output(args, out)
}

/// `warpsim args` with a deadline: a run still going after `limit` is killed and reported.
fn warpsim_within(args: &[&str], limit: Duration) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpsim starts");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait on warpsim").is_some() {
            let out = child.wait_with_output().expect("warpsim output");
            return Run::from_output(args, out);
        }
        if start.elapsed() > limit {
            child.kill().expect("kill the warpsim child");
            let out = child.wait_with_output().expect("warpsim output");
            panic!(
                "`warpsim {}` still running after {limit:?}; stderr so far:\n{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `warpsim args`, which must succeed and print JSON.
#[track_caller]
fn json_of(args: &[&str]) -> Value {
    warpsim(args).success().json()
}

/// `warpsim args` must exit with 2, print nothing on stdout, and say `error` and each of
/// `needles` on stderr. Returns stderr.
#[track_caller]
fn usage_error(args: &[&str], needles: &[&str]) -> String {
    let r = warpsim(args);
    assert_eq!(
        r.code,
        Some(2),
        "`warpsim {}` should exit with 2\nstdout:\n{}\nstderr:\n{}",
        r.args,
        r.stdout,
        r.stderr
    );
    assert!(
        r.stdout.trim().is_empty(),
        "`warpsim {}` printed a result despite the error:\n{}",
        r.args,
        r.stdout
    );
    assert!(
        r.stderr.contains("error"),
        "`warpsim {}`: stderr does not say error:\n{}",
        r.args,
        r.stderr
    );
    for needle in needles {
        assert!(
            r.stderr.contains(needle),
            "`warpsim {}`: stderr should mention {needle:?}:\n{}",
            r.args,
            r.stderr
        );
    }
    r.stderr
}

/// Small sizes for a catalogue kernel, so that every run takes milliseconds.
fn small_args(e: &Entry) -> Vec<&'static str> {
    let mut a = Vec::new();
    if e.params.contains(&"n") {
        a.extend(["--n", "4096"]);
    }
    if e.params.contains(&"width") && e.family == Family::Transpose {
        a.extend(["--width", "64", "--height", "64"]);
    }
    if e.params.contains(&"iters") {
        a.extend(["--iters", "16"]);
    }
    a
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn set<'a>(names: &[&'a str]) -> BTreeSet<&'a str> {
    names.iter().copied().collect()
}

fn dim3(v: &Value) -> [u64; 3] {
    let a = v.as_array().unwrap_or_else(|| panic!("not an array: {v}"));
    assert_eq!(a.len(), 3, "not [x, y, z]: {v}");
    let d = |i: usize| {
        let x = a[i]
            .as_u64()
            .unwrap_or_else(|| panic!("not an integer: {v}"));
        assert!(x >= 1, "a zero dimension: {v}");
        x
    };
    [d(0), d(1), d(2)]
}

fn metric(launch: &Value, name: &str) -> f64 {
    launch["metrics"][name]
        .as_f64()
        .unwrap_or_else(|| panic!("metric {name} missing or not a number in {launch}"))
}

/// A launch of the JSON contract: name, grid, block, shared_bytes and the 26 metrics, counts as
/// integers and efficiencies as finite floats.
#[track_caller]
fn check_launch(kernel: &str, l: &Value) {
    assert_eq!(
        keys(l),
        set(&[
            "name",
            "grid",
            "block",
            "shared_bytes",
            "metrics",
            "predicted_ms",
            "predicted"
        ]),
        "{kernel}: launch keys"
    );
    // The predicted GPU time: at least the launch overhead, its parts named, one the limiter.
    let p = &l["predicted"];
    let ms = l["predicted_ms"]
        .as_f64()
        .expect("predicted_ms is a number");
    let launch = p["launch_ms"].as_f64().expect("launch_ms");
    assert!(ms >= launch && launch > 0.0, "{kernel}: {l}");
    let limiter = p["limiter"].as_str().expect("limiter");
    // predicted = overhead + √(slowest bandwidth part² + latency²) (see warpsim::predict).
    let (mut bandwidth, mut latency, mut top) = (0.0f64, 0.0, 0.0f64);
    let mut limiter_ms = launch;
    for part in ["dram", "l2", "l1", "shared", "atomics", "issue", "latency"] {
        let t = p[format!("{part}_ms")].as_f64().expect("every part's time");
        assert!(t >= 0.0 && t <= ms, "{kernel}: {part} {t} of {ms}");
        if part == "latency" {
            latency = t;
        } else {
            bandwidth = bandwidth.max(t);
        }
        top = top.max(t);
        if part == limiter {
            limiter_ms = t;
        }
    }
    assert_eq!(
        limiter_ms,
        top.max(launch),
        "{kernel}: the limiter is the largest part: {l}"
    );
    let kernel_ms = bandwidth.hypot(latency);
    assert!((launch + kernel_ms - ms).abs() < 1e-5, "{kernel}: {l}");
    assert!(p["blocks_per_sm"].as_u64().is_some_and(|b| b >= 1));
    assert!(p["footprint_bytes"].is_u64() && p["l2_resident"].is_boolean());
    // At most one batch per global load, at least one per four.
    let (batches, loads) = (
        p["load_batches"].as_u64().expect("load_batches"),
        l["metrics"]["gld_requests"].as_u64().expect("gld_requests"),
    );
    assert!(
        batches <= loads && batches >= loads.div_ceil(4),
        "{kernel}: {l}"
    );
    assert!(
        l["name"].as_str().is_some_and(|s| !s.is_empty()),
        "{kernel}: launch name {l}"
    );
    dim3(&l["grid"]);
    dim3(&l["block"]);
    assert!(l["shared_bytes"].is_u64(), "{kernel}: shared_bytes {l}");
    let m = &l["metrics"];
    assert_eq!(keys(m), set(&Metrics::NAMES), "{kernel}: metric names");
    for name in Metrics::NAMES {
        let v = &m[name];
        if name.ends_with("_efficiency") {
            let x = v
                .as_f64()
                .filter(|_| v.is_f64())
                .unwrap_or_else(|| panic!("{kernel}: {name} = {v} is not a float"));
            assert!(
                x.is_finite() && x >= 0.0,
                "{kernel}: {name} = {x} out of range"
            );
        } else {
            assert!(v.is_u64(), "{kernel}: {name} = {v} is not an integer");
        }
    }
    // Internal consistency a correct counter must have.
    let count = |n: &str| m[n].as_u64().unwrap();
    assert!(count("thread_instructions") <= 32 * count("warp_instructions"));
    assert!(count("divergent_branches") <= count("branches"));
    assert!(count("gld_lines") <= count("gld_sectors"));
    assert!(count("gld_sectors") <= 4 * count("gld_lines"));
    assert!(count("gst_sectors") <= 4 * count("gst_lines"));
    for s in ["shared_ld", "shared_st"] {
        assert_eq!(
            count(&format!("{s}_bank_conflicts")),
            count(&format!("{s}_wavefronts")) - count(&format!("{s}_requests")),
            "{kernel}: {s} conflicts are wavefronts beyond one per request"
        );
    }
}

#[test]
fn run_json_contract_for_every_catalogue_kernel() {
    let catalogue = kernels::catalogue();
    assert!(catalogue.len() >= 20, "the catalogue shrank");
    for e in &catalogue {
        let mut args = vec!["run", e.name];
        args.extend(small_args(e));
        args.push("--json");
        let v = json_of(&args);
        assert_eq!(
            keys(&v),
            set(&[
                "kernel",
                "device",
                "params",
                "verified",
                "time_ms",
                "launches",
                "occupancy"
            ]),
            "{}: top-level keys",
            e.name
        );
        assert_eq!(v["kernel"], e.name);
        assert_eq!(v["device"], "sm_90", "{}: the default device", e.name);
        assert_eq!(v["verified"], true, "{}: not verified", e.name);
        let t = v["time_ms"].as_f64().expect("time_ms is a number");
        assert!(v["time_ms"].is_f64() && t.is_finite() && t >= 0.0);
        let params: Vec<String> = e.params.iter().map(|p| p.replace('-', "_")).collect();
        let params: Vec<&str> = params.iter().map(String::as_str).collect();
        assert_eq!(keys(&v["params"]), set(&params), "{}: params", e.name);
        if e.params.contains(&"n") {
            assert_eq!(v["params"]["n"], 4096, "{}: --n is reported", e.name);
        }
        let occ = &v["occupancy"];
        assert_eq!(
            keys(occ),
            set(&["blocks_per_sm", "warps_per_sm", "occupancy_pct", "limiter"]),
            "{}: occupancy",
            e.name
        );
        assert!(occ["blocks_per_sm"].as_u64().is_some_and(|b| b >= 1));
        assert!(
            occ["occupancy_pct"]
                .as_f64()
                .is_some_and(|p| p > 0.0 && p <= 100.0)
        );

        let launches = v["launches"].as_array().expect("launches is an array");
        assert!(!launches.is_empty(), "{}: no launches", e.name);
        for l in launches {
            check_launch(e.name, l);
        }
        if e.family == Family::Reduction {
            // Execution order: the block-partials kernel over 4096 elements first (many
            // blocks), then ever smaller passes down to one block.
            let grids: Vec<u64> = launches.iter().map(|l| dim3(&l["grid"])[0]).collect();
            assert!(launches.len() >= 2, "{}: grids {grids:?}", e.name);
            assert!(grids[0] > 1, "{}: grids {grids:?}", e.name);
            assert!(
                grids.windows(2).all(|w| w[0] > w[1]),
                "{}: launches out of execution order: grids {grids:?}",
                e.name
            );
            assert_eq!(*grids.last().unwrap(), 1, "{}: grids {grids:?}", e.name);
            let first = &launches[0];
            assert_eq!(
                metric(first, "gld_bytes"),
                4.0 * 4096.0,
                "{}: the first launch reads the whole input",
                e.name
            );
        }
    }
}

#[test]
fn run_text_output() {
    let r = warpsim(&["run", "reduce-sequential", "--n", "4096"]).success();
    for needle in [
        "reduce-sequential on sm_90",
        "verified: yes",
        "launch 0",
        "launch 1",
        "gld_efficiency",
        "occupancy",
    ] {
        assert!(r.stdout.contains(needle), "no {needle:?} in:\n{}", r.stdout);
    }
}

#[test]
fn no_counters_drops_metrics() {
    let v = json_of(&[
        "run",
        "reduce-shuffle",
        "--n",
        "4096",
        "--no-counters",
        "--json",
    ]);
    assert_eq!(v["verified"], true);
    let launches = v["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 2);
    for l in launches {
        assert_eq!(
            keys(l),
            set(&["name", "grid", "block", "shared_bytes"]),
            "{l}"
        );
    }
}

fn csv_rows(text: &str) -> Vec<Vec<&str>> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').collect())
        .collect()
}

#[test]
fn csv_has_metric_columns_and_one_row_per_launch() {
    let args = ["run", "reduce-sequential", "--n", "4096"];
    let csv = warpsim(&[&args[..], &["--csv"]].concat()).success();
    let json = json_of(&[&args[..], &["--json"]].concat());
    let rows = csv_rows(&csv.stdout);
    let header = &rows[0];
    let launches = json["launches"].as_array().unwrap();
    assert_eq!(rows.len(), 1 + launches.len(), "{}", csv.stdout);
    assert_eq!(header.len(), 8 + Metrics::NAMES.len(), "{header:?}");
    assert_eq!(&header[header.len() - 26..], &Metrics::NAMES[..]);
    for (i, (row, l)) in rows[1..].iter().zip(launches).enumerate() {
        assert_eq!(row.len(), header.len(), "row {i}: {row:?}");
        let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
        assert_eq!(col("kernel"), "reduce-sequential");
        assert_eq!(col("launch"), i.to_string());
        assert_eq!(col("verified"), "true");
        let g = dim3(&l["grid"]);
        assert_eq!(col("grid"), format!("{}x{}x{}", g[0], g[1], g[2]));
        // Counts agree with the JSON of the same (deterministic) run.
        for name in Metrics::NAMES
            .iter()
            .filter(|n| !n.ends_with("_efficiency"))
        {
            assert_eq!(
                col(name).parse::<u64>().ok(),
                l["metrics"][*name].as_u64(),
                "row {i}: {name}"
            );
        }
        for name in Metrics::NAMES.iter().filter(|n| n.ends_with("_efficiency")) {
            let x: f64 = col(name).parse().unwrap();
            assert!((x - metric(l, name)).abs() < 0.01, "row {i}: {name}");
        }
    }

    // Without counters the metric columns are there but empty.
    let fast = warpsim(&[&args[..], &["--csv", "--no-counters"]].concat()).success();
    let rows = csv_rows(&fast.stdout);
    assert_eq!(rows[0], *header);
    assert_eq!(rows.len(), 1 + launches.len());
    for row in &rows[1..] {
        assert_eq!(row.len(), header.len(), "{row:?}");
        assert!(row[8..].iter().all(|c| c.is_empty()), "{row:?}");
    }
}

#[test]
fn metrics_flag_filters() {
    let only = "gld_efficiency,branches";
    let v = json_of(&[
        "run",
        "vector-add",
        "--n",
        "4096",
        "--metrics",
        only,
        "--json",
    ]);
    let m = &v["launches"][0]["metrics"];
    assert_eq!(keys(m), set(&["gld_efficiency", "branches"]));
    assert!(m["gld_efficiency"].is_f64() && m["branches"].is_u64());

    let csv = warpsim(&[
        "run",
        "reduce-sequential",
        "--n",
        "4096",
        "--metrics",
        only,
        "--csv",
    ])
    .success();
    let rows = csv_rows(&csv.stdout);
    assert_eq!(&rows[0][8..], ["branches", "gld_efficiency"]);
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r.len() == 10), "{rows:?}");

    let err = usage_error(
        &["run", "vector-add", "--metrics", "gld_eff", "--json"],
        &["gld_eff"],
    );
    for name in Metrics::NAMES {
        assert!(err.contains(name), "the error should list {name}:\n{err}");
    }
}

#[test]
fn usage_errors_exit_2_with_a_hint() {
    usage_error(
        &["run", "reduce-sequentail"],
        &["reduce-sequentail", "`reduce-sequential`"],
    );
    usage_error(&["run", "transpose-diagnal"], &["`transpose-diagonal`"]);
    usage_error(&["run", "vector-add", "--frobnicate"], &["--frobnicate"]);
    usage_error(&["frobnicate"], &["frobnicate"]);
    usage_error(&["run"], &["KERNEL"]);
    usage_error(
        &["run", "reduce-sequential", "--offset", "3"],
        &["--offset", "reduce-sequential", "--n", "--block"],
    );
    usage_error(
        &["run", "transpose-naive", "--n", "4096"],
        &["--n", "--width", "--height"],
    );
    usage_error(&["run", "vector-add", "--n", "0"], &["--n"]);
    usage_error(&["run", "vector-add", "--n=-5"], &["--n"]);
    usage_error(&["run", "vector-add", "--block", "0"], &["--block"]);
    usage_error(&["run", "vector-add", "--block", "abc"], &["--block"]);
    usage_error(&["run", "vector-add", "--block", "2000"], &["2000", "1024"]);
    usage_error(
        &["run", "reduce-sequential", "--block", "100"],
        &["power-of-two", "100"],
    );
    usage_error(
        &["run", "reduce-shuffle", "--block", "32"],
        &["reduce-shuffle", "32"],
    );
    usage_error(
        &["run", "smem-pattern", "--elem-bytes", "3"],
        &["--elem-bytes", "3", "4, 8, 16"],
    );
    usage_error(
        &["run", "smem-pattern", "--pattern", "modulo", "--c", "0"],
        &["--c"],
    );
    usage_error(
        &["run", "smem-pattern", "--pattern", "diagonal"],
        &["diagonal", "stride"],
    );
    usage_error(&["run", "vector-add", "--threads", "0"], &["--threads"]);
    usage_error(
        &["run", "vector-add", "--device", "sm_99"],
        &["sm_99", "sm_90", "sm_13"],
    );
    usage_error(&["run", "vector-add", "--repeat", "0"], &["--repeat"]);
    usage_error(
        &["run", "vector-add", "--json", "--csv"],
        &["--json", "--csv"],
    );
    usage_error(&["run", "rgb-to-gray", "--width", "0"], &["--width"]);
    usage_error(&["suite", "--device", "sm_99"], &["sm_99"]);
    usage_error(
        &["occupancy", "--device", "sm_99", "--block", "256"],
        &["sm_99"],
    );
    usage_error(&["occupancy", "--block", "2048"], &["2048", "1024"]);
    usage_error(&["occupancy", "--block", "256", "--regs", "300"], &["300"]);
}

#[test]
fn two_d_blocks() {
    let v = json_of(&["run", "rgb-to-gray", "--block", "32x8", "--json"]);
    assert_eq!(v["verified"], true);
    assert_eq!(v["params"]["block"], serde_json::json!([32, 8, 1]));
    let l = &v["launches"][0];
    assert_eq!(dim3(&l["block"]), [32, 8, 1]);
    // The default image is 76 x 62 pixels.
    assert_eq!(dim3(&l["grid"]), [76u64.div_ceil(32), 62u64.div_ceil(8), 1]);

    let v = json_of(&["run", "rgb-to-gray", "--block", "16X4", "--json"]);
    assert_eq!(dim3(&v["launches"][0]["block"]), [16, 4, 1]);

    usage_error(
        &["run", "vector-add", "--block", "32x8"],
        &["vector-add", "1-D"],
    );
    usage_error(&["run", "reduce-sequential", "--block", "128x2"], &["1-D"]);
    usage_error(&["run", "branch-by-lane", "--block", "64x1x2"], &["1-D"]);
    // A 1-D shape written with explicit unit dimensions is still 1-D.
    let v = json_of(&["run", "vector-add", "--block", "128x1x1", "--json"]);
    assert_eq!(dim3(&v["launches"][0]["block"]), [128, 1, 1]);
}

#[test]
fn occupancy_calculator() {
    let occ = |args: &[&str]| -> Value {
        let v = json_of(&[&["occupancy"][..], args, &["--json"]].concat());
        assert_eq!(
            keys(&v),
            set(&["blocks_per_sm", "warps_per_sm", "occupancy_pct", "limiter"])
        );
        v
    };
    let v = occ(&["--device", "sm_61", "--block", "512", "--regs", "64"]);
    assert_eq!(v["blocks_per_sm"], 2);
    assert_eq!(v["warps_per_sm"], 32);
    assert_eq!(v["occupancy_pct"].as_f64(), Some(50.0));
    assert_eq!(v["limiter"], "registers");

    let v = occ(&["--device", "sm_61", "--block", "512", "--regs", "65"]);
    assert_eq!(v["blocks_per_sm"], 1);
    assert_eq!(v["warps_per_sm"], 16);
    assert_eq!(v["limiter"], "registers");

    let v = occ(&["--device", "sm_61", "--block", "32", "--regs", "16"]);
    assert_eq!(v["blocks_per_sm"], 32);
    assert_eq!(v["occupancy_pct"].as_f64(), Some(50.0));
    assert_eq!(v["limiter"], "blocks");

    // A 2-D block counts its threads: 32x8 = 256 threads, 8 blocks fill sm_90's 64 warps.
    let v = occ(&["--block", "32x8"]);
    assert_eq!(v["blocks_per_sm"], 8);
    assert_eq!(v["occupancy_pct"].as_f64(), Some(100.0));

    let text = warpsim(&[
        "occupancy",
        "--device",
        "sm_61",
        "--block",
        "512",
        "--regs",
        "64",
    ])
    .success();
    assert!(text.stdout.contains("registers"), "{}", text.stdout);
    assert!(text.stdout.contains("2 blocks per SM"), "{}", text.stdout);
    assert!(text.stdout.contains("sm_61"), "{}", text.stdout);
}

#[test]
fn devices_and_list() {
    let d = warpsim(&["devices"]).success();
    for p in ["sm_13", "sm_20", "sm_61", "sm_70", "sm_80", "sm_90"] {
        assert!(d.stdout.contains(p), "`devices` lacks {p}:\n{}", d.stdout);
    }
    let l = warpsim(&["list"]).success();
    let names: BTreeSet<&str> = l
        .stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    for e in kernels::catalogue() {
        assert!(
            names.contains(e.name),
            "`list` lacks {}:\n{}",
            e.name,
            l.stdout
        );
    }
}

#[test]
fn counters_through_the_cli() {
    let eff = |device: &str| {
        let v = json_of(&[
            "run",
            "read-offset",
            "--offset",
            "11",
            "--n",
            "65536",
            "--device",
            device,
            "--json",
        ]);
        assert_eq!(v["device"], device);
        assert_eq!(v["params"]["offset"], 11);
        metric(&v["launches"][0], "gld_efficiency")
    };
    // Fermi: a misaligned warp touches two 128-byte lines; sectors: five 32-byte sectors.
    let fermi = eff("sm_20");
    assert!((fermi - 50.0).abs() < 0.5, "sm_20 gld_efficiency {fermi}");
    let hopper = eff("sm_90");
    assert!((hopper - 80.0).abs() < 0.5, "sm_90 gld_efficiency {hopper}");

    // Defaults: n = 1003, 64-thread blocks: 32 warps, only the last one diverges.
    let v = json_of(&["run", "vector-add", "--json"]);
    assert_eq!(v["params"]["n"], 1003);
    assert_eq!(v["params"]["block"], serde_json::json!([64, 1, 1]));
    let l = &v["launches"][0];
    assert_eq!(dim3(&l["grid"]), [16, 1, 1]);
    assert_eq!(l["metrics"]["divergent_branches"], 1);
    assert_eq!(l["metrics"]["branches"], 32);
}

#[test]
fn repeat_reports_a_time() {
    let v = json_of(&[
        "run",
        "transpose-coalesced",
        "--width",
        "64",
        "--height",
        "64",
        "--repeat",
        "3",
        "--json",
    ]);
    assert_eq!(v["verified"], true);
    let t = v["time_ms"].as_f64().unwrap();
    assert!(t > 0.0 && t.is_finite(), "time_ms {t}");
    let text = warpsim(&["run", "vector-add", "--repeat", "3"]).success();
    assert!(text.stdout.contains("median of 3"), "{}", text.stdout);
}

#[test]
fn thread_count_does_not_change_counters() {
    let cases: [&[&str]; 4] = [
        &["run", "reduce-shuffle", "--n", "100000"],
        &[
            "run",
            "transpose-diagonal",
            "--width",
            "96",
            "--height",
            "64",
        ],
        &["run", "branch-by-lane", "--n", "8192"],
        &[
            "run",
            "smem-pattern",
            "--pattern",
            "stride",
            "--c",
            "3",
            "--iters",
            "8",
        ],
    ];
    for args in cases {
        let one = json_of(&[args, &["--threads", "1", "--json"]].concat());
        let two = json_of(&[args, &["--threads", "2", "--json"]].concat());
        assert_eq!(one["verified"], true, "{args:?}");
        assert_eq!(two["verified"], true, "{args:?}");
        assert!(one["launches"][0]["metrics"].is_object());
        assert_eq!(
            one["launches"], two["launches"],
            "{args:?}: counters differ between 1 and 2 threads"
        );
        assert_eq!(one["occupancy"], two["occupancy"]);
    }
}

#[test]
fn check_mode_on_clean_kernels() {
    for args in [
        &["run", "reduce-sequential", "--n", "4096"][..],
        &["run", "reduce-unroll-warp", "--n", "4096"][..],
        &[
            "run",
            "transpose-no-conflicts",
            "--width",
            "64",
            "--height",
            "64",
        ][..],
    ] {
        let v = json_of(&[args, &["--check", "--json"]].concat());
        assert_eq!(v["verified"], true, "{args:?}");
        let findings = v["findings"]
            .as_array()
            .unwrap_or_else(|| panic!("{args:?}: no findings array in {v}"));
        assert!(findings.is_empty(), "{args:?}: {findings:?}");
    }
    let text = warpsim(&["run", "reduce-sequential", "--n", "4096", "--check"]).success();
    assert!(text.stdout.contains("check: no errors"), "{}", text.stdout);
    usage_error(
        &["run", "vector-add", "--check", "--no-counters"],
        &["--check", "--no-counters"],
    );
}

#[test]
fn suite_json_and_html_report() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-suite-report-{}.html", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let r = warpsim(&["suite", "--report", path.to_str().unwrap(), "--json"]).success();
    let catalogue = kernels::catalogue();

    let v = r.json();
    let rows = v.as_array().expect("the suite's JSON is an array");
    assert_eq!(rows.len(), catalogue.len());
    for (row, e) in rows.iter().zip(&catalogue) {
        assert_eq!(row["kernel"], e.name, "catalogue order");
        assert_eq!(row["family"], format!("{:?}", e.family));
        assert_eq!(row["verified"], true, "{}", e.name);
        assert!(row["time_ms"].is_f64(), "{}", e.name);
        let launches = row["launches"].as_array().unwrap();
        assert!(!launches.is_empty());
        for l in launches {
            check_launch(e.name, l);
        }
    }

    let html = std::fs::read_to_string(&path).expect("the report was written");
    let _ = std::fs::remove_file(&path);
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..100.min(html.len())]
    );
    assert!(html.trim_end().ends_with("</html>"));
    let count = |s: &str| html.matches(s).count();
    assert_eq!(count("<svg"), count("</svg>"), "unbalanced <svg>");
    assert_eq!(count("<table"), count("</table>"), "unbalanced <table>");
    assert_eq!(
        count("<section"),
        count("</section>"),
        "unbalanced <section>"
    );
    assert!(!html.contains("NaN"), "NaN in the report");
    assert!(!html.contains(">inf"), "infinity in the report");
    for e in &catalogue {
        assert!(html.contains(e.name), "the report lacks {}", e.name);
    }
    // One section per family, each with its title, charts and a table.
    let sections: Vec<&str> = html.split("<section").skip(1).collect();
    assert_eq!(sections.len(), Family::ALL.len());
    for (s, family) in sections.iter().zip(Family::ALL) {
        assert!(s.contains(family.title()), "section for {family:?}");
        assert!(s.matches("<svg").count() >= 1, "{family:?} has no chart");
        assert!(s.contains("<table"), "{family:?} has no table");
        for e in catalogue.iter().filter(|e| e.family == family) {
            assert!(s.contains(e.name), "{family:?} lacks {}", e.name);
        }
        // Each kernel's predicted time, drawn by part with the limiter marked.
        let members = catalogue.iter().filter(|e| e.family == family).count();
        assert_eq!(
            s.matches("aria-label=\"Predicted on Hopper (H100 SXM)")
                .count(),
            members,
            "{family:?}: one predicted-time chart per kernel"
        );
        assert!(s.contains("Predicted GPU time on Hopper (H100 SXM)"));
        assert!(s.matches("▶ ").count() >= members, "{family:?}: limiters");
    }
    assert!(r.stderr.contains("report written"), "{}", r.stderr);
}

#[test]
fn no_arguments_runs_the_suite() {
    let r = warpsim(&[]).success();
    let n = kernels::catalogue().len();
    let mut at = 0;
    for family in Family::ALL {
        let i = r.stdout[at..]
            .find(family.title())
            .unwrap_or_else(|| panic!("no {:?} table (in order):\n{}", family, r.stdout));
        at += i;
    }
    for e in kernels::catalogue() {
        assert!(r.stdout.contains(e.name), "no row for {}", e.name);
    }
    let last = r.stdout.trim_end().lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!("{n} kernels, {n} verified against their CPU references"),
        "last line"
    );
}

// ---- Command lines the CLI should refuse with exit 2 but does not (see the report). ----

#[test]
fn offset_overflowing_u32_is_a_usage_error() {
    usage_error(
        &[
            "run",
            "read-offset",
            "--n",
            "4096",
            "--offset",
            "4294967295",
        ],
        &["--offset"],
    );
}

#[test]
fn smem_offset_overflowing_u32_is_a_usage_error() {
    usage_error(
        &[
            "run",
            "smem-pattern",
            "--pattern",
            "offset",
            "--c",
            "4294967295",
        ],
        &["--c"],
    );
}

#[test]
fn absurd_thread_count_is_refused_quickly() {
    for args in [
        &["run", "vector-add", "--threads", "100000"][..],
        &["bench", "--quick", "--threads", "100000"],
        &["bench", "--quick", "--threads", "0"],
    ] {
        let r = warpsim_within(args, Duration::from_secs(20));
        assert_eq!(r.code, Some(2), "{args:?} stderr:\n{}", r.stderr);
        assert!(r.stderr.contains("--threads"), "{}", r.stderr);
    }
}

#[test]
fn bench_scaling_compares_one_thread_with_more() {
    let r = warpsim(&[
        "bench",
        "--scaling",
        "2",
        "--quick",
        "--runs",
        "3",
        "--json",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let v = r.json();
    assert_eq!(
        (v["threads"].as_u64(), v["pairs"].as_u64()),
        (Some(2), Some(3))
    );
    let rows = v["results"].as_array().unwrap();
    let names: Vec<_> = rows.iter().filter_map(|r| r["kernel"].as_str()).collect();
    assert_eq!(
        names,
        [
            "reduce-interleaved",
            "reduce-sequential",
            "reduce-unrolled",
            "reduce-multi",
            "native sum",
            "arithmetic alone"
        ]
    );
    for row in rows {
        let x = |k: &str| row[k].as_f64().unwrap_or(f64::NAN);
        let (lo, s, hi) = (x("scaling_min"), x("scaling"), x("scaling_max"));
        assert!(0.0 < lo && lo <= s && s <= hi && hi.is_finite(), "{row}");
        assert!(x("one_thread_ms") > 0.0 && x("threads_ms") > 0.0, "{row}");
    }
    for n in ["1", "100000"] {
        let r = warpsim_within(
            &["bench", "--scaling", n, "--quick"],
            Duration::from_secs(20),
        );
        assert_eq!(r.code, Some(2), "{}", r.stderr);
        assert!(r.stderr.contains("between 2 and"), "{}", r.stderr);
    }
    let r = warpsim(&["bench", "--scaling", "2", "--threads", "2"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
}

#[test]
fn a_closed_stdout_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // `warpsim bench | head -1`: the pipe closes after the header, while the benchmark still
    // has rows to print; warpsim must end quietly instead of panicking on the write.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(["bench", "--quick", "--runs", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("warpsim bench"), "{first}");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{:?} {stderr}", out.status);
}

// ---- Per-line counters, reports and the checks made before running (issue 12). ----

/// `warpsim args` with extra environment variables.
fn warpsim_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("warpsim starts");
    Run::from_output(args, out)
}

fn int(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not an integer in {v}"))
}

#[test]
fn lines_json_adds_up_to_each_launch() {
    let line_keys = set(&[
        "file",
        "line",
        "source",
        "warp_instructions",
        "thread_instructions",
        "branches",
        "divergent_branches",
        "global_requests",
        "global_sectors",
        "sectors_per_request",
        "gld_requests",
        "gld_sectors",
        "gst_requests",
        "gst_sectors",
        "shared_requests",
        "shared_wavefronts",
        "bank_conflicts",
        "atomic_requests",
        "barriers",
        "warps_launched",
    ]);
    for e in kernels::catalogue() {
        let mut args = vec!["run", e.name, "--lines", "--json"];
        args.extend(small_args(&e));
        let v = json_of(&args);
        for (i, l) in v["launches"].as_array().unwrap().iter().enumerate() {
            let what = format!("{} launch {i}", e.name);
            let lines = l["lines"]
                .as_array()
                .unwrap_or_else(|| panic!("{what}: no lines array"));
            assert!(!lines.is_empty(), "{what}");
            let total = |key: &str| lines.iter().map(|x| int(x, key)).sum::<u64>();
            let m = |name: &str| metric(l, name) as u64;
            for line in lines {
                assert_eq!(keys(line), line_keys, "{what}: line keys");
                let file = line["file"].as_str().unwrap();
                if file.is_empty() {
                    assert_eq!(int(line, "line"), 0, "{what}");
                    assert!(line["source"].is_null(), "{what}");
                } else {
                    assert!(file.starts_with("kernels/"), "{what}: file {file}");
                    let source = line["source"].as_str().unwrap_or_else(|| {
                        panic!("{what}: no source text for {file}:{}", line["line"])
                    });
                    assert!(!source.is_empty(), "{what}: {file}:{}", line["line"]);
                }
            }
            for (key, metric_names) in [
                ("warp_instructions", &["warp_instructions"][..]),
                ("thread_instructions", &["thread_instructions"]),
                ("branches", &["branches"]),
                ("divergent_branches", &["divergent_branches"]),
                ("gld_requests", &["gld_requests"]),
                ("gld_sectors", &["gld_sectors"]),
                ("gst_requests", &["gst_requests"]),
                ("gst_sectors", &["gst_sectors"]),
                ("global_requests", &["gld_requests", "gst_requests"]),
                ("global_sectors", &["gld_sectors", "gst_sectors"]),
                (
                    "shared_requests",
                    &["shared_ld_requests", "shared_st_requests"],
                ),
                (
                    "shared_wavefronts",
                    &["shared_ld_wavefronts", "shared_st_wavefronts"],
                ),
                (
                    "bank_conflicts",
                    &["shared_ld_bank_conflicts", "shared_st_bank_conflicts"],
                ),
                ("atomic_requests", &["atomic_requests"]),
                ("barriers", &["barriers"]),
            ] {
                let want: u64 = metric_names.iter().map(|n| m(n)).sum();
                assert_eq!(total(key), want, "{what}: the lines' {key}");
            }
            let warps: u64 = dim3(&l["grid"]).iter().product::<u64>()
                * dim3(&l["block"]).iter().product::<u64>().div_ceil(32);
            assert_eq!(total("warps_launched"), warps, "{what}: warps launched");
        }
    }
    // Without --lines the JSON contract is unchanged.
    let v = json_of(&["run", "vector-add", "--json"]);
    assert!(v["launches"][0].get("lines").is_none());
}

#[test]
fn lines_table_in_text() {
    let r = warpsim(&["run", "reduce-sequential", "--n", "4096", "--lines"]).success();
    assert!(
        r.stdout
            .contains("per source line of kernels/reduction.rs:"),
        "{}",
        r.stdout
    );
    for column in [
        "warp inst",
        "div / branches",
        "global req",
        "sectors/req",
        "smem wavefronts",
        "bank conflicts",
    ] {
        assert!(
            r.stdout.contains(column),
            "no column {column}:\n{}",
            r.stdout
        );
    }
    // The tree's branch: 5 of its 8 steps diverge in one warp of each of the 16 blocks.
    let tree = r
        .stdout
        .lines()
        .find(|l| l.contains("b.if_(t.lt(stride)"))
        .unwrap_or_else(|| panic!("no line of the tree's branch:\n{}", r.stdout));
    assert!(tree.contains("80 / 1024"), "{tree}");
    usage_error(
        &["run", "vector-add", "--lines", "--csv"],
        &["--lines", "--csv"],
    );
    usage_error(
        &["run", "vector-add", "--lines", "--no-counters"],
        &["--lines", "--no-counters"],
    );
}

#[test]
fn an_unwritable_report_fails_before_running() {
    for args in [
        &["suite", "--report", "/nonexistent/dir/r.html"][..],
        &["run", "vector-add", "--report", "/nonexistent/dir/r.html"],
    ] {
        let start = Instant::now();
        let err = usage_error(
            args,
            &["/nonexistent/dir", "does not exist", "nothing was run"],
        );
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{args:?} took {:?}: did it run first?",
            start.elapsed()
        );
        assert!(!err.contains("report written"), "{err}");
    }
    let dir = env!("CARGO_TARGET_TMPDIR");
    usage_error(&["run", "vector-add", "--report", dir], &["is a directory"]);
    usage_error(&["suite", "--check", "--report", "r.html"], &["--check"]);
    usage_error(
        &["run", "vector-add", "--no-counters", "--report", "r.html"],
        &["--report"],
    );
    // A writable path is left alone when the run is refused for another reason.
    let path = std::path::Path::new(dir).join(format!("cli-refused-{}.html", std::process::id()));
    let _ = std::fs::remove_file(&path);
    usage_error(
        &[
            "run",
            "vector-add",
            "--block",
            "100000",
            "--report",
            path.to_str().unwrap(),
        ],
        &["block"],
    );
    assert!(!path.exists(), "a refused run left {}", path.display());
}

#[test]
fn a_run_too_large_for_memory_is_refused() {
    // The command: about 32 GiB of buffers and host copies.
    let start = Instant::now();
    let r = warpsim_env(
        &["run", "reduce-sequential", "--n", "4294967295"],
        &[("WARPSIM_MEMORY_AVAILABLE", "24000000000")],
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    for needle in ["32.2 GiB", "22.4 GiB", "n=4294967295", "--force", "smaller"] {
        assert!(r.stderr.contains(needle), "no {needle:?} in: {}", r.stderr);
    }
    // Check mode's shadow of global memory counts too.
    let env = [("WARPSIM_MEMORY_AVAILABLE", "1073741824")];
    let args = ["run", "rgb-to-gray", "--width", "2048", "--height", "2048"];
    let r = warpsim_env(&[&args[..], &["--check"]].concat(), &env);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("check mode"), "{}", r.stderr);
    assert!(r.stderr.contains("--check"), "{}", r.stderr);
    warpsim_env(&args, &env).success();
    // --force runs anyway.
    let tiny = [("WARPSIM_MEMORY_AVAILABLE", "1000")];
    let r = warpsim_env(&["run", "vector-add", "--n", "4096"], &tiny);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    warpsim_env(&["run", "vector-add", "--n", "4096", "--force"], &tiny).success();
}

#[test]
fn memory_estimates_cover_what_runs_allocate() {
    // At least the bytes the kernel's buffers hold (what a perfect implementation moves), and
    // not wildly more; check mode adds its shadow; the estimate scales with the sizes.
    let dev = warpsim::Device::default();
    for e in kernels::catalogue()
        .into_iter()
        .filter(|e| e.family != Family::SharedMemory)
    {
        let mut p = e.defaults.clone();
        if e.params.contains(&"n") {
            p.n = 1 << 16;
        }
        (p.width, p.height) = (256, 256);
        let moved = e.run(&dev, &p, warpsim::Mode::Fast).unwrap().bytes;
        let est = e.memory_estimate(&p, warpsim::Mode::Count);
        assert_eq!((est.check, est.total), (0, est.data), "{}", e.name);
        assert!(
            est.data >= moved && est.data <= 8 * moved,
            "{}: estimate {} for {moved} bytes moved",
            e.name,
            est.data
        );
        let checked = e.memory_estimate(&p, warpsim::Mode::Check);
        assert!(checked.check > est.data, "{}: check mode's shadow", e.name);
        let mut big = p.clone();
        big.n *= 4;
        (big.width, big.height) = (512, 512);
        let bigger = e.memory_estimate(&big, warpsim::Mode::Count).total;
        assert!(
            bigger >= 3 * est.total,
            "{}: {bigger} vs {}",
            e.name,
            est.total
        );
    }
}

#[test]
fn suite_check_prints_one_line_per_kernel() {
    let r = warpsim(&["suite", "--check"]).success();
    let catalogue = kernels::catalogue();
    for e in &catalogue {
        let line = r
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(e.name))
            .unwrap_or_else(|| panic!("no line for {}:\n{}", e.name, r.stdout));
        assert!(line.trim_end().ends_with("clean"), "{line}");
    }
    let n = catalogue.len();
    assert!(
        r.stdout
            .contains(&format!("{n} kernels checked: {n} clean, 0 with findings")),
        "{}",
        r.stdout
    );
}

#[test]
fn the_prediction_says_how_many_loads_wait_together() {
    // The plain copy stores each row before it loads the next (the store may alias the next
    // load), the copy through shared memory issues its four row loads at once.
    for (kernel, batched) in [
        ("transpose-copy", "1.0 global loads per batch"),
        ("transpose-copy-shared", "4.0 global loads per batch"),
    ] {
        let out = warpsim(&["run", kernel, "--width", "256", "--height", "256"]).success();
        let line = out
            .stdout
            .lines()
            .find(|l| l.contains("predicted: "))
            .unwrap_or_else(|| panic!("{kernel}: no prediction in {}", out.stdout));
        assert!(line.contains(batched), "{kernel}: {line}");
    }
}
