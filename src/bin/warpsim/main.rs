//! `warpsim`: the documents' kernel suite, single-kernel profiles, occupancy, benchmarks.
//!
//! Exit status: 0 on success, 1 when a kernel's output is wrong or a kernel faults, 2 for a
//! command line that cannot run (unknown kernel, flag or device, impossible value).

/// `println!` that ends the program quietly when stdout is closed (`warpsim list | head`).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::emit(format_args!($($arg)*), true)
    };
}

/// `eprintln!` that never panics: with stderr closed there is no one left to tell.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` with the same care.
macro_rules! note_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

/// `print!` with the same care.
macro_rules! out_raw {
    ($($arg:tt)*) => {
        $crate::emit(format_args!($($arg)*), false)
    };
}

mod args;
mod bench;
mod cu;
mod html;
mod lines;
mod preflight;
mod program;
mod svg;
mod table;

use args::{Cli, Command, Common, OccupancyArgs, RunArgs, SuiteArgs};
use clap::Parser;
use serde_json::{Value, json};
use std::process::ExitCode;
use std::time::Duration;
use warpsim::check::{Finding, Severity};
use warpsim::kernels::{self, Entry, Family, Outcome, Params};
use warpsim::predict::{Limiter, Prediction};
use warpsim::{Device, Error, LaunchReport, MetricValue, Metrics, Mode, Profile};

/// Why a command failed.
enum Failure {
    /// The command line asks for something impossible (exit 2).
    Usage(String),
    /// A kernel produced a wrong result or faulted (exit 1).
    Failed(String),
    /// Exit with this status, everything already said (a whole program's own status).
    Status(u8),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        match e {
            Error::InvalidLaunch { .. } => Failure::Usage(e.to_string()),
            other => Failure::Failed(other.to_string()),
        }
    }
}

fn main() -> ExitCode {
    // First, before any thread starts: stopping warpsim (SIGTERM, SIGINT, SIGHUP) stops the
    // program it runs. (Should the thread not start, the program still ends with warpsim.)
    let _ = warpsim::cuda::host::bridge::forward_signals();
    // nvcc spells these with one dash: `-Xcompiler -fopenmp`, `-fmad=false` (the program's own
    // arguments, after `--`, stay as they are).
    let mut program_args = false;
    let cli = Cli::parse_from(std::env::args_os().map(|a| {
        program_args |= a == "--";
        let one_dash =
            a == "-Xcompiler" || a == "-fmad" || a.to_string_lossy().starts_with("-fmad=");
        if !program_args && one_dash {
            format!("-{}", a.to_string_lossy()).into()
        } else {
            a
        }
    }));
    let command = cli.command.unwrap_or(Command::Suite(SuiteArgs {
        common: Common {
            device: "sm_90".to_string(),
            threads: None,
        },
        report: None,
        check: false,
        json: false,
    }));
    let result = match command {
        Command::Suite(a) => suite(&a),
        Command::List => {
            list();
            Ok(())
        }
        Command::Run(a) => run(&a),
        Command::Devices => {
            devices();
            Ok(())
        }
        Command::Occupancy(a) => occupancy(&a),
        Command::Cu(a) => cu::cu(&a),
        Command::Bench(a) => checked_threads(a.threads)
            .and_then(|_| match a.scaling {
                Some(n) if !(2..=MAX_THREADS).contains(&n) => Err(Failure::Usage(format!(
                    "--scaling N compares one CPU thread with N: N must be between 2 and \
                         {MAX_THREADS}, not {n}"
                ))),
                _ => Ok(()),
            })
            .and_then(|_| bench::bench(&a).map_err(Failure::Failed)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            note!("error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Failed(msg)) => {
            note!("error: {msg}");
            ExitCode::from(1)
        }
        Err(Failure::Status(code)) => ExitCode::from(code),
    }
}

/// Write to stdout; a closed pipe ends the program with success, another error with status 1.
fn emit(args: std::fmt::Arguments<'_>, newline: bool) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        note!("error: cannot write the output: {e}");
        std::process::exit(1);
    }
}

fn profile(name: &str) -> Result<Profile, Failure> {
    Profile::by_name(name).ok_or_else(|| {
        let known: Vec<&str> = Profile::all().iter().map(|p| p.name).collect();
        Failure::Usage(format!(
            "unknown device `{name}`; known profiles: {} (see `warpsim devices`)",
            known.join(", ")
        ))
    })
}

/// More CPU threads than this only adds scheduling overhead (and each costs a stack).
const MAX_THREADS: usize = 1024;

/// `--threads`, if given, within 1 to [`MAX_THREADS`].
fn checked_threads(threads: Option<usize>) -> Result<Option<usize>, Failure> {
    match threads {
        Some(t) if t == 0 || t > MAX_THREADS => Err(Failure::Usage(format!(
            "--threads must be between 1 and {MAX_THREADS}, not {t}"
        ))),
        t => Ok(t),
    }
}

fn device(c: &Common) -> Result<Device, Failure> {
    let dev = Device::new(profile(&c.device)?);
    match checked_threads(c.threads)? {
        Some(t) => Ok(dev.with_threads(t)?),
        None => Ok(dev),
    }
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn find_kernel(name: &str) -> Result<Entry, Failure> {
    kernels::find(name).ok_or_else(|| {
        let best = kernels::catalogue()
            .into_iter()
            .min_by_key(|e| distance(name, e.name));
        let hint = best
            .map(|e| format!("did you mean `{}`? ", e.name))
            .unwrap_or_default();
        Failure::Usage(format!(
            "unknown kernel `{name}`; {hint}(`warpsim list` shows every kernel)"
        ))
    })
}

/// The kernel's parameters: its defaults overridden by the flags, each flag checked.
fn params(entry: &Entry, a: &RunArgs) -> Result<Params, Failure> {
    let mut p = entry.defaults.clone();
    let given: [(&str, bool); 10] = [
        ("n", a.n.is_some()),
        ("block", a.block.is_some()),
        ("offset", a.offset.is_some()),
        ("width", a.width.is_some()),
        ("height", a.height.is_some()),
        ("pattern", a.pattern.is_some()),
        ("c", a.c.is_some()),
        ("elem-bytes", a.elem_bytes.is_some()),
        ("op", a.op.is_some()),
        ("iters", a.iters.is_some()),
    ];
    for (flag, set) in given {
        if set && !entry.params.contains(&flag) {
            let takes: Vec<String> = entry.params.iter().map(|p| format!("--{p}")).collect();
            return Err(Failure::Usage(format!(
                "--{flag} does not apply to {}; it takes {}",
                entry.name,
                if takes.is_empty() {
                    "no parameters".to_string()
                } else {
                    takes.join(", ")
                }
            )));
        }
    }
    if let Some(n) = a.n {
        if n == 0 || n > u32::MAX as usize {
            return Err(Failure::Usage(format!(
                "--n must be between 1 and {}, not {n}",
                u32::MAX
            )));
        }
        p.n = n;
    }
    if let Some(b) = a.block {
        let two_d = entry.params.contains(&"width");
        if b.z != 1 || (!two_d && b.y != 1) {
            let shape = if two_d {
                "2-D block such as --block 16x16"
            } else {
                "1-D block such as --block 256"
            };
            return Err(Failure::Usage(format!(
                "{} takes a {shape}, not {}x{}x{}",
                entry.name, b.x, b.y, b.z
            )));
        }
        p.block = b;
    }
    p.offset = a.offset.unwrap_or(p.offset);
    if p.n as u64 + u64::from(p.offset) > u64::from(u32::MAX) {
        return Err(Failure::Usage(format!(
            "--n + --offset must fit the kernel's 32-bit indices (at most {}), not {} + {}",
            u32::MAX,
            p.n,
            p.offset
        )));
    }
    for (flag, v, slot) in [
        ("width", a.width, &mut p.width),
        ("height", a.height, &mut p.height),
    ] {
        if let Some(v) = v {
            if v == 0 {
                return Err(Failure::Usage(format!("--{flag} must be at least 1")));
            }
            *slot = v;
        }
    }
    if (p.width as u64) * (p.height as u64) * 3 > u32::MAX as u64 {
        return Err(Failure::Usage(
            "--width × --height is too large for 32-bit indices".to_string(),
        ));
    }
    p.pattern = a.pattern.map_or(p.pattern, Into::into);
    p.c = a.c.unwrap_or(p.c);
    if let Some(e) = &a.elem_bytes {
        p.elem_bytes = e
            .parse()
            .map_err(|_| Failure::Usage(format!("--elem-bytes must be 4, 8 or 16, not {e}")))?;
    }
    p.op = a.op.map_or(p.op, Into::into);
    p.iters = a.iters.unwrap_or(p.iters);
    Ok(p)
}

/// The parameters a kernel takes, as JSON.
fn params_json(entry: &Entry, p: &Params) -> Value {
    let mut m = serde_json::Map::new();
    for &name in entry.params {
        let v = match name {
            "n" => json!(p.n),
            "block" => json!([p.block.x, p.block.y, p.block.z]),
            "offset" => json!(p.offset),
            "width" => json!(p.width),
            "height" => json!(p.height),
            "pattern" => json!(format!("{:?}", p.pattern).to_lowercase()),
            "c" => json!(p.c),
            "elem-bytes" => json!(p.elem_bytes),
            "op" => json!(format!("{:?}", p.op).to_lowercase()),
            "iters" => json!(p.iters),
            _ => continue,
        };
        m.insert(name.replace('-', "_"), v);
    }
    Value::Object(m)
}

fn params_text(entry: &Entry, p: &Params) -> String {
    params_json(entry, p)
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn metric_json(v: MetricValue) -> Value {
    match v {
        MetricValue::Count(c) => json!(c),
        MetricValue::Percent(p) => json!((p * 1000.0).round() / 1000.0),
    }
}

fn selected(m: &Metrics, only: Option<&[String]>) -> Vec<(&'static str, MetricValue)> {
    m.entries()
        .into_iter()
        .filter(|(n, _)| only.is_none_or(|o| o.iter().any(|s| s == n)))
        .collect()
}

fn launch_json(l: &LaunchReport, only: Option<&[String]>) -> Value {
    launch_json_with(l, only, None)
}

/// Which tier ran a launch, as JSON: `"compiled"`, or `{"interpreted": why}`.
fn tier_json(t: &warpsim::cuda::Tier) -> Value {
    match t {
        warpsim::cuda::Tier::Compiled { .. } => json!("compiled"),
        warpsim::cuda::Tier::Interpreted { reason } => json!({ "interpreted": reason }),
    }
}

/// A launch as JSON; with `sources`, also its `lines` (counters per source line).
fn launch_json_with(
    l: &LaunchReport,
    only: Option<&[String]>,
    sources: Option<&mut lines::Sources>,
) -> Value {
    let mut v = json!({
        "name": l.name,
        "grid": [l.grid.x, l.grid.y, l.grid.z],
        "block": [l.block.x, l.block.y, l.block.z],
        "shared_bytes": l.shared_bytes,
    });
    if let Some(m) = l.metrics() {
        let metrics: serde_json::Map<String, Value> = selected(&m, only)
            .into_iter()
            .map(|(n, x)| (n.to_string(), metric_json(x)))
            .collect();
        v["metrics"] = Value::Object(metrics);
    }
    if let Some(p) = l.predicted() {
        v["predicted_ms"] = json!(round(p.ms, 6));
        v["predicted"] = prediction_json(&p);
    }
    if let Some(sources) = sources {
        v["lines"] = l
            .lines
            .iter()
            .map(|line| lines::line_json(line, sources))
            .collect();
    }
    v
}

/// `x` rounded to `digits` decimals (JSON stays readable).
fn round(x: f64, digits: i32) -> f64 {
    let k = 10f64.powi(digits);
    (x * k).round() / k
}

/// A launch's predicted GPU time in a line of text (`None` in fast mode).
fn prediction_text(l: &LaunchReport) -> Option<String> {
    let p = l.predicted()?;
    let parts: Vec<String> = p
        .parts
        .iter()
        .filter(|(_, ms)| *ms * 1e3 >= 0.05)
        .map(|(k, ms)| format!("{k} {:.1}", ms * 1e3))
        .collect();
    // How many global loads a warp has in flight together: 1 when each waits alone.
    let batched = l
        .counters
        .as_ref()
        .filter(|_| p.load_batches > 0)
        .map_or(String::new(), |c| {
            format!(
                "; {:.1} global loads per batch",
                c.gld_requests as f64 / p.load_batches as f64
            )
        });
    // What the first wave's sample adds to DRAM, where DRAM is paid for at all.
    let mut runs = String::new();
    if p.part(Limiter::Dram) > 0.0 {
        let over = warpsim::predict::overfetch(&p.wave);
        if over >= 1.05 {
            runs += &format!("; DRAM moves {over:.2}× the sectors' bytes (half-used granules)");
        }
        if p.dram_scatter >= 0.005 {
            runs += &format!(
                "; DRAM +{:.0} % for the first wave's short runs",
                p.dram_scatter * 100.0
            );
        }
    }
    Some(format!(
        "predicted: {:.1} µs on {}, limited by {} (µs: {}; {:.3} waves of {} blocks per SM{}{batched}{runs})",
        p.ms * 1e3,
        l.profile.description,
        p.limiter.describe(),
        parts.join(", "),
        p.waves,
        p.blocks_per_sm,
        if p.l2_resident {
            ", footprint stays in L2"
        } else {
            ""
        }
    ))
}

/// What a prediction says beside its time: the limiter and every part's milliseconds.
fn prediction_json(p: &Prediction) -> Value {
    let mut v = json!({
        "limiter": p.limiter.name(),
        "blocks_per_sm": p.blocks_per_sm,
        "waves": round(p.waves, 3),
        "footprint_bytes": p.footprint,
        "l2_resident": p.l2_resident,
        "load_batches": p.load_batches,
        "dram_scatter": round(p.dram_scatter, 4),
        "wave_blocks": p.wave.blocks,
        "wave_sectors": p.wave.sectors,
        "wave_granules_by_run": p.wave.granules,
        "dram_overfetch": round(warpsim::predict::overfetch(&p.wave), 4),
    });
    for (l, ms) in &p.parts {
        v[format!("{}_ms", l.name())] = json!(round(*ms, 6));
    }
    v
}

fn occupancy_json(o: &warpsim::Occupancy) -> Value {
    json!({
        "blocks_per_sm": o.blocks_per_sm,
        "warps_per_sm": o.warps_per_sm,
        "occupancy_pct": (o.occupancy_pct * 100.0).round() / 100.0,
        "limiter": o.limiter.to_string(),
    })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// `--metrics` names known metrics and `--repeat` is at least 1 (`run` and `cu`).
fn check_output_flags(metrics: Option<&[String]>, repeat: u32) -> Result<(), Failure> {
    if let Some(bad) = metrics
        .into_iter()
        .flatten()
        .find(|n| !Metrics::NAMES.contains(&n.as_str()))
    {
        return Err(Failure::Usage(format!(
            "unknown metric `{bad}`; known metrics: {}",
            Metrics::NAMES.join(", ")
        )));
    }
    if repeat == 0 {
        return Err(Failure::Usage("--repeat must be at least 1".to_string()));
    }
    Ok(())
}

fn run(a: &RunArgs) -> Result<(), Failure> {
    let entry = find_kernel(&a.kernel)?;
    let p = params(&entry, a)?;
    let dev = device(&a.common)?.with_lines(a.lines);
    check_output_flags(a.metrics.as_deref(), a.repeat)?;
    if let Some(path) = &a.report {
        preflight::writable(path, "--report")?;
    }
    let mode = if a.no_counters {
        Mode::Fast
    } else if a.check {
        Mode::Check
    } else {
        Mode::Count
    };
    preflight::memory(&entry, &p, &params_text(&entry, &p), mode, a.force)?;
    let mut times = Vec::new();
    let mut outcome: Option<Outcome> = None;
    for _ in 0..a.repeat {
        let o = entry.run(&dev, &p, mode)?;
        times.push(o.time);
        outcome = Some(o);
    }
    let mut sources = lines::Sources::default();
    let o = outcome.expect("repeat >= 1");
    let time = median(times);
    let threads = p.block.count() as u32;
    let smem = o.launches.first().map_or(0, |l| l.shared_bytes);
    let occ = dev.profile().occupancy(threads, entry.regs, smem).ok();
    let only = a.metrics.as_deref();
    if a.json {
        let out = json!({
            "kernel": entry.name,
            "device": dev.profile().name,
            "params": params_json(&entry, &p),
            "verified": o.verified,
            "time_ms": time.as_secs_f64() * 1e3,
            "launches": o
                .launches
                .iter()
                .map(|l| launch_json_with(l, only, a.lines.then_some(&mut sources)))
                .collect::<Vec<_>>(),
            "occupancy": occ.as_ref().map_or(Value::Null, occupancy_json),
        });
        let mut out = out;
        if mode == Mode::Check {
            let findings: Vec<Value> = o
                .launches
                .iter()
                .flat_map(|l| &l.findings)
                .map(finding_json)
                .collect();
            out["findings"] = Value::Array(findings);
        }
        out!(
            "{}",
            serde_json::to_string_pretty(&out).expect("JSON of plain values")
        );
    } else if a.csv {
        // Rows on stdout stay machine-readable; check-mode findings go to stderr.
        for f in o.launches.iter().flat_map(|l| &l.findings) {
            note!("{f}");
        }
        let names: Vec<&str> = Metrics::NAMES
            .iter()
            .copied()
            .filter(|n| only.is_none_or(|o| o.iter().any(|s| s == n)))
            .collect();
        out!(
            "kernel,launch,name,grid,block,shared_bytes,verified,time_ms{}",
            names.iter().map(|n| format!(",{n}")).collect::<String>()
        );
        for (i, l) in o.launches.iter().enumerate() {
            let values: String = l.metrics().map_or_else(
                || ",".repeat(names.len()),
                |m| {
                    selected(&m, only)
                        .iter()
                        .map(|(_, v)| format!(",{v}"))
                        .collect()
                },
            );
            out!(
                "{},{i},{},{}x{}x{},{}x{}x{},{},{},{:.3}{values}",
                entry.name,
                l.name,
                l.grid.x,
                l.grid.y,
                l.grid.z,
                l.block.x,
                l.block.y,
                l.block.z,
                l.shared_bytes,
                o.verified,
                time.as_secs_f64() * 1e3
            );
        }
    } else {
        out!(
            "{} on {} ({})",
            entry.name,
            dev.profile().name,
            dev.profile().description
        );
        out!("params:   {}", params_text(&entry, &p));
        out!(
            "verified: {} ({})",
            if o.verified { "yes" } else { "NO" },
            o.detail
        );
        out!(
            "time:     {:.3} ms on this CPU (median of {}), {:.2} GB/s effective, {} mode",
            time.as_secs_f64() * 1e3,
            a.repeat,
            o.bytes as f64 / time.as_secs_f64().max(1e-12) / 1e9,
            format!("{mode:?}").to_lowercase()
        );
        if let Some(occ) = &occ {
            out!(
                "occupancy: {:.1} % ({} blocks, {} warps per SM; limited by {}; {} registers per thread assumed)",
                occ.occupancy_pct,
                occ.blocks_per_sm,
                occ.warps_per_sm,
                occ.limiter,
                entry.regs
            );
        }
        for (i, l) in o.launches.iter().enumerate() {
            out!(
                "\nlaunch {i}: {} grid {} block {} shared {} B{}",
                l.name,
                l.grid,
                l.block,
                l.shared_bytes,
                if l.elapsed.is_zero() {
                    String::new()
                } else {
                    format!(", {:.3} ms", l.elapsed.as_secs_f64() * 1e3)
                }
            );
            if let Some(text) = prediction_text(l) {
                out!("  {text}");
            }
            if let Some(m) = l.metrics() {
                for (n, v) in selected(&m, only) {
                    out!("  {n:<28} {v}");
                }
            }
            if a.lines {
                out!("\n  {}", lines::heading(&l.lines));
                out_raw!("{}", lines::table(&l.lines, &mut sources));
            }
            for f in &l.findings {
                out!("{f}");
            }
        }
    }
    if let Some(path) = &a.report {
        let page = html::run_report(&html::RunPage {
            entry: &entry,
            params: &p,
            params_text: params_text(&entry, &p),
            profile: dev.profile(),
            outcome: &o,
        });
        std::fs::write(path, page)
            .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", path.display())))?;
        note!("report written to {}", path.display());
    }
    let errors = o
        .launches
        .iter()
        .flat_map(|l| &l.findings)
        .filter(|f| f.severity() == Severity::Error)
        .count();
    if !o.verified {
        Err(Failure::Failed(format!(
            "{}: output differs from the CPU reference: {}",
            entry.name, o.detail
        )))
    } else if errors > 0 {
        Err(Failure::Failed(format!(
            "{}: check mode found {errors} hazard(s)",
            entry.name
        )))
    } else {
        if mode == Mode::Check && !a.json && !a.csv {
            let warnings: usize = o.launches.iter().map(|l| l.findings.len()).sum();
            out!("\ncheck: no errors, {warnings} warning(s)");
        }
        Ok(())
    }
}

fn finding_json(f: &Finding) -> Value {
    let site = |s: &warpsim::check::Site| {
        json!({
            "access": format!("{:?}", s.access).to_lowercase(),
            "block": [s.block.x, s.block.y, s.block.z],
            "thread": [s.thread.x, s.thread.y, s.thread.z],
            "location": s.location,
        })
    };
    json!({
        "kind": format!("{:?}", f.kind),
        "tool": f.kind.tool(),
        "severity": format!("{:?}", f.severity()).to_lowercase(),
        "buffer": f.buffer,
        "index": f.index,
        "address": f.address,
        "access": site(&f.site),
        "other": f.other.as_ref().map(site),
        "detail": f.detail,
        "count": f.count,
    })
}

fn list() {
    let mut t = table::Table::new(&["kernel", "family", "parameters (defaults)", "what"]);
    for e in kernels::catalogue() {
        let defaults = params_text(&e, &e.defaults);
        t.row(vec![
            e.name.to_string(),
            format!("{:?}", e.family),
            defaults,
            e.summary.to_string(),
        ]);
    }
    out_raw!("{t}");
}

fn devices() {
    let mut t = table::Table::new(&[
        "profile",
        "name",
        "cc",
        "threads/block",
        "threads/SM",
        "blocks/SM",
        "regs/SM",
        "smem/block (opt-in)",
        "banks",
        "SMs",
        "global loads",
    ]);
    for p in Profile::all() {
        t.row(vec![
            p.name.to_string(),
            p.description.to_string(),
            format!("{}.{}", p.compute_capability.0, p.compute_capability.1),
            p.max_threads_per_block.to_string(),
            p.max_threads_per_sm.to_string(),
            p.max_blocks_per_sm.to_string(),
            p.regs_per_sm.to_string(),
            format!("{} ({})", p.smem_per_block, p.smem_per_block_optin),
            if p.shared_request_lanes < 32 {
                format!("{} (half-warp)", p.shared_banks)
            } else {
                p.shared_banks.to_string()
            },
            p.sm_count.to_string(),
            match p.global_loads {
                warpsim::profile::GlobalCaching::L1Lines128 => "128 B L1 lines".to_string(),
                warpsim::profile::GlobalCaching::Sectors32 => "32 B sectors".to_string(),
            },
        ]);
    }
    out_raw!("{t}");
}

fn occupancy(a: &OccupancyArgs) -> Result<(), Failure> {
    let p = profile(&a.device)?;
    let threads = a.block.count();
    let threads = u32::try_from(threads)
        .map_err(|_| Failure::Usage(format!("a block of {threads} threads is too large")))?;
    let o = p
        .occupancy(threads, a.regs, a.smem)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    if a.json {
        out!("{}", occupancy_json(&o));
    } else {
        out!(
            "{} ({}), block of {threads} threads, {} registers, {} B shared memory:",
            p.name,
            p.description,
            a.regs,
            a.smem
        );
        out!(
            "  {} blocks per SM, {} warps per SM, occupancy {:.1} %, limited by {}",
            o.blocks_per_sm,
            o.warps_per_sm,
            o.occupancy_pct,
            o.limiter
        );
        let lim = |v: u32| {
            if v == u32::MAX {
                "-".to_string()
            } else {
                v.to_string()
            }
        };
        out!(
            "  blocks allowed by warps {}, registers {}, shared memory {}, block slots {}",
            lim(o.limit_warps),
            lim(o.limit_registers),
            lim(o.limit_shared),
            lim(o.limit_blocks)
        );
    }
    Ok(())
}

/// One suite row: the kernel, its counting run and its fast-mode time.
pub struct SuiteRow {
    pub entry: Entry,
    pub counted: Outcome,
    pub fast_time: Duration,
}

impl SuiteRow {
    /// The counters of all the kernel's launches together.
    pub fn counters(&self) -> warpsim::Counters {
        let mut c = warpsim::Counters::default();
        for x in self
            .counted
            .launches
            .iter()
            .filter_map(|l| l.counters.as_ref())
        {
            c += x;
        }
        c
    }

    pub fn metrics(&self) -> Metrics {
        Metrics::new(&self.counters(), &self.counted.launches[0].profile)
    }

    /// The predicted GPU time of all the kernel's launches, µs (`None` if none was counted).
    pub fn predicted_us(&self) -> Option<f64> {
        self.counted
            .launches
            .iter()
            .filter_map(|l| l.predicted())
            .map(|p| p.ms * 1e3)
            .reduce(|a, b| a + b)
    }

    pub fn gbps(&self) -> f64 {
        self.counted.bytes as f64 / self.fast_time.as_secs_f64().max(1e-12) / 1e9
    }
}

fn suite(a: &SuiteArgs) -> Result<(), Failure> {
    if let Some(path) = &a.report {
        preflight::writable(path, "--report")?;
    }
    let dev = device(&a.common)?;
    if a.check {
        return suite_check(&dev, a.json);
    }
    let catalogue = kernels::catalogue();
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(catalogue.len() as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    let mut rows = Vec::new();
    let mut wrong = Vec::new();
    for entry in catalogue {
        bar.set_message(entry.name);
        let counted = entry.run(&dev, &entry.defaults, Mode::Count)?;
        let fast = entry.run(&dev, &entry.defaults, Mode::Fast)?;
        if !counted.verified || !fast.verified {
            wrong.push(format!(
                "{}: {}",
                entry.name,
                if counted.verified {
                    &fast.detail
                } else {
                    &counted.detail
                }
            ));
        }
        rows.push(SuiteRow {
            entry,
            fast_time: fast.time,
            counted,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    if a.json {
        let out: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "kernel": r.entry.name,
                    "family": format!("{:?}", r.entry.family),
                    "params": params_json(&r.entry, &r.entry.defaults),
                    "verified": r.counted.verified,
                    "time_ms": r.fast_time.as_secs_f64() * 1e3,
                    "launches": r.counted.launches.iter().map(|l| launch_json(l, None)).collect::<Vec<_>>(),
                })
            })
            .collect();
        out!(
            "{}",
            serde_json::to_string_pretty(&out).expect("JSON of plain values")
        );
    } else {
        out!(
            "warpsim suite on {} ({}), {} CPU threads; times (ms) in fast mode, counters from a counting run, GPU µs predicted on the {} from the counters\n",
            dev.profile().name,
            dev.profile().description,
            dev.threads(),
            dev.profile().description
        );
        for family in Family::ALL {
            let members: Vec<&SuiteRow> =
                rows.iter().filter(|r| r.entry.family == family).collect();
            out!("{}", family.title());
            out_raw!("{}", table::family_table(family, &members));
            out!("");
        }
        out!(
            "{} kernels, {} verified against their CPU references",
            rows.len(),
            rows.len() - wrong.len()
        );
    }
    if let Some(path) = &a.report {
        // 001 draws read-offset at offsets 0 and 11: the suite runs 11, the report adds 0.
        let mut extras = Vec::new();
        if let Some(entry) = kernels::find("read-offset") {
            let p = Params {
                offset: 0,
                ..entry.defaults.clone()
            };
            let o = entry.run(&dev, &p, Mode::Count)?;
            if let Some(launch) = o.launches.into_iter().next() {
                extras.push(html::Extra {
                    after: entry.name,
                    caption: format!(
                        "read-offset at offset 0, for comparison: {}",
                        params_text(&entry, &p)
                    ),
                    launch,
                });
            }
        }
        std::fs::write(path, html::report(dev.profile(), &rows, &extras))
            .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", path.display())))?;
        note!("report written to {}", path.display());
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(Failure::Failed(format!(
            "wrong results: {}",
            wrong.join("; ")
        )))
    }
}

/// One finding in a line: severity, tool, kind, where.
fn finding_line(f: &Finding) -> String {
    let mut s = format!(
        "{} ({}): {:?}",
        format!("{:?}", f.severity()).to_lowercase(),
        f.kind.tool(),
        f.kind
    );
    if f.space.is_some() {
        s.push_str(&format!(" on `{}`[{}]", f.buffer, f.index));
    }
    if let Some(loc) = &f.site.location {
        s.push_str(&format!(" at {loc}"));
    }
    s
}

/// `warpsim suite --check`: every catalogue kernel at its default size in check mode, one line
/// per kernel; exit status 1 on any finding (or wrong result).
fn suite_check(dev: &Device, json: bool) -> Result<(), Failure> {
    let catalogue = kernels::catalogue();
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(catalogue.len() as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    let mut results = Vec::new();
    for entry in catalogue {
        bar.set_message(entry.name);
        let o = entry.run(dev, &entry.defaults, Mode::Check)?;
        bar.inc(1);
        results.push((entry.name, o));
    }
    bar.finish_and_clear();
    if !json {
        out!(
            "warpsim suite --check on {} ({}): every kernel at its default size in check mode\n",
            dev.profile().name,
            dev.profile().description
        );
    }
    report_check(&results, json)
}

/// What check mode made of one kernel's run, in a line: `clean`, or its findings.
fn check_line(o: &Outcome) -> String {
    let findings: Vec<&Finding> = o.launches.iter().flat_map(|l| &l.findings).collect();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let errors = findings
        .iter()
        .filter(|f| f.severity() == Severity::Error)
        .count();
    let mut line = match findings.first() {
        None => "clean".to_string(),
        Some(first) => format!(
            "{} ({}, {}): {}{}",
            plural(findings.len(), "finding"),
            plural(errors, "error"),
            plural(findings.len() - errors, "warning"),
            finding_line(first),
            if findings.len() > 1 {
                format!("; and {} more", findings.len() - 1)
            } else {
                String::new()
            }
        ),
    };
    if !o.verified {
        line.push_str(&format!("; WRONG RESULT: {}", o.detail));
    }
    line
}

/// Print the check results of `suite --check` (text or JSON) and give its exit status: a
/// failure when any kernel has a finding or a wrong result.
fn report_check(results: &[(&str, Outcome)], json: bool) -> Result<(), Failure> {
    let flagged = results
        .iter()
        .filter(|(_, o)| o.launches.iter().any(|l| !l.findings.is_empty()))
        .count();
    let wrong = results.iter().filter(|(_, o)| !o.verified).count();
    if json {
        let rows: Vec<Value> = results
            .iter()
            .map(|(name, o)| {
                json!({
                    "kernel": name,
                    "verified": o.verified,
                    "findings": o
                        .launches
                        .iter()
                        .flat_map(|l| &l.findings)
                        .map(finding_json)
                        .collect::<Vec<_>>(),
                })
            })
            .collect();
        out!(
            "{}",
            serde_json::to_string_pretty(&Value::Array(rows)).expect("JSON of plain values")
        );
    } else {
        let width = results.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        for (name, o) in results {
            out!("  {name:<width$}  {}", check_line(o));
        }
        out!(
            "\n{} kernels checked: {} clean, {flagged} with findings{}",
            results.len(),
            results.len() - flagged,
            if wrong > 0 {
                format!(", {wrong} with wrong results")
            } else {
                String::new()
            }
        );
        if flagged > 0 {
            out!("(`warpsim run KERNEL --check` prints a kernel's findings in full)");
        }
    }
    if flagged > 0 || wrong > 0 {
        Err(Failure::Failed(format!(
            "check mode flagged {flagged} kernel(s){}",
            if wrong > 0 {
                format!(", {wrong} gave wrong results")
            } else {
                String::new()
            }
        )))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsim::check::{Kind, Site};
    use warpsim::{AccessKind, Dim3, Space};

    fn outcome(findings: Vec<Finding>, verified: bool) -> Outcome {
        let dev = Device::default();
        let entry = kernels::find("vector-add").expect("vector-add");
        let p = Params {
            n: 64,
            ..entry.defaults.clone()
        };
        let mut o = entry.run(&dev, &p, Mode::Count).expect("runs");
        o.launches[0].findings = findings;
        o.verified = verified;
        o
    }

    fn race() -> Finding {
        let site = |access| Site {
            access,
            block: Dim3::new(0, 0, 0),
            thread: Dim3::new(3, 0, 0),
            location: Some("kernels/x.rs:10:5".to_string()),
        };
        Finding {
            kind: Kind::RaceReadAfterWrite,
            kernel: "x".to_string(),
            block: Dim3::new(0, 0, 0),
            site: site(AccessKind::Load),
            other: Some(site(AccessKind::Store)),
            space: Some(Space::Shared),
            buffer: "tile".to_string(),
            index: 7,
            address: 28,
            detail: String::new(),
            count: 2,
        }
    }

    #[test]
    fn a_finding_fails_the_suite_check() {
        let clean = outcome(Vec::new(), true);
        assert_eq!(check_line(&clean), "clean");
        assert!(report_check(&[("a", clean.clone())], false).is_ok());

        let racy = outcome(vec![race()], true);
        let line = check_line(&racy);
        assert!(
            line.starts_with("1 finding (1 error, 0 warnings): error (racecheck)"),
            "{line}"
        );
        assert!(line.contains("`tile`[7] at kernels/x.rs:10:5"), "{line}");
        let verdict = report_check(&[("a", clean.clone()), ("b", racy)], true);
        assert!(matches!(verdict, Err(Failure::Failed(m)) if m.contains("1 kernel")));

        let wrong = outcome(Vec::new(), false);
        assert!(check_line(&wrong).contains("WRONG RESULT"));
        assert!(report_check(&[("c", wrong)], false).is_err());
    }
}
