//! `warpsim cu FILE... [-- ARGS]`: a whole CUDA program, `main` and all.
//!
//! The program's host code is built by the system C++ compiler against warpsim's runtime and
//! runs as a child process with the program's own stdin, stdout, stderr and exit status; its
//! kernels run here. What warpsim has to say goes to stderr, marked `==warpsim==`: a kernel
//! fault or a refused kernel as it happens, the profile summary (one row per kernel) after the
//! program exits. `--json-out` writes every launch with its counters, `--report` the pictures.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::args::CuArgs;
use crate::html;
use crate::table::Table;
use crate::{Failure, device, finding_json, launch_json_with, lines, preflight, tier_json};
use serde_json::json;
use warpsim::check::Severity;
use warpsim::cuda::Options;
use warpsim::cuda::host::{BuildOptions, Event, Exit, Launch, Program};
use warpsim::{Counters, Metrics, Mode};

/// The mark on every line warpsim writes among the program's output.
const MARK: &str = "==warpsim==";

/// Flags of `--kernel` mode, which a whole program has no use for.
fn kernel_only_flags(a: &CuArgs) -> Option<&'static str> {
    if !a.args.is_empty() {
        Some("--arg")
    } else if !a.outs.is_empty() {
        Some("--out")
    } else if a.grid.is_some() {
        Some("--grid")
    } else if a.block.is_some() {
        Some("--block")
    } else if a.smem != 0 {
        Some("--smem")
    } else if a.repeat != 1 {
        Some("--repeat")
    } else if a.json {
        Some("--json")
    } else if a.csv {
        Some("--csv")
    } else {
        None
    }
}

pub fn program(a: &CuArgs, options: &Options) -> Result<(), Failure> {
    if let Some(flag) = kernel_only_flags(a) {
        return Err(Failure::Usage(format!(
            "{flag} belongs to --kernel mode (one kernel with its arguments given here); a whole \
             program makes its own launches (name a kernel with --kernel to run it alone)"
        )));
    }
    if let Some(path) = &a.report {
        preflight::writable(path, "--report")?;
    }
    if let Some(path) = &a.json_out {
        preflight::writable(path, "--json-out")?;
    }
    let dev = device(&a.common)?;
    let opts = BuildOptions {
        files: a.files.clone(),
        include_dirs: a.include.clone(),
        defines: options.defines.clone(),
        cxx: a.cxx.clone(),
        host_flags: a
            .xcompiler
            .iter()
            .flat_map(|x| x.split(','))
            .filter(|f| !f.is_empty())
            .map(str::to_string)
            .collect(),
        link_flags: a
            .lib_dirs
            .iter()
            .map(|d| format!("-L{d}"))
            .chain(a.libs.iter().map(|l| format!("-l{l}")))
            .collect(),
        cache: None,
    };
    let program = Program::build(&opts, options.arch, options.fmad, &mut |what| {
        note!("{MARK} {what}");
    })
    .map_err(|e| Failure::Usage(e.to_string()))?;
    let code = program.device_code();
    for w in code
        .units()
        .iter()
        .flat_map(|m| m.warnings())
        .chain(code.undeclared())
    {
        note!("{w}");
    }
    let mode = if a.no_counters {
        Mode::Fast
    } else if a.check {
        Mode::Check
    } else {
        Mode::Count
    };
    let (mut refused, mut faults) = (0, 0);
    let outcome = program
        .run(
            &dev,
            &a.program_args,
            warpsim::cuda::host::Settings {
                mode,
                lines: a.lines,
                engine: a.engine.into(),
                timeout: a.timeout.map(std::time::Duration::from_secs_f64),
                progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
                event_clock: a.event_time.into(),
            },
            &mut |e| match e {
                Event::Fault { error, code } => {
                    // A fault in a kernel stops the device; a launch the device refuses (its
                    // configuration) is the program's to handle.
                    let sticky = matches!(code, 700 | 702 | 710 | 716 | 719);
                    faults += usize::from(sticky);
                    note!("{MARK} error: {error}");
                    note!(
                        "{MARK} the program gets {} from this launch{}",
                        error_name(code),
                        if sticky {
                            " and every CUDA call after it (sticky, as on a GPU), until \
                         cudaDeviceReset"
                        } else {
                            ""
                        }
                    );
                }
                Event::Refused(d) => {
                    refused += 1;
                    note!("{d}");
                    note!("{MARK} the program gets cudaErrorInvalidDeviceFunction for this kernel");
                }
                Event::Note(n) => note!("{MARK} {n}"),
                Event::Outside(o) => note!("{MARK} warning: {}", o.outside_note()),
            },
        )
        .map_err(|e| Failure::Failed(e.to_string()))?;
    let findings: Vec<(&str, &warpsim::check::Finding)> = outcome
        .launches
        .iter()
        .flat_map(|l| {
            l.report
                .findings
                .iter()
                .map(move |f| (l.kernel.as_str(), f))
        })
        .collect();
    for (k, f) in &findings {
        note!("{MARK} {k}: {f}");
    }
    if a.verbose {
        // Each kernel's launches per tier and reason, in the order first seen.
        let mut told: Vec<(&str, String, usize)> = Vec::new();
        let mut at: BTreeMap<(&str, String), usize> = BTreeMap::new();
        for l in &outcome.launches {
            let ran = match &l.tier {
                warpsim::cuda::Tier::Compiled { .. } => "ran compiled".to_string(),
                warpsim::cuda::Tier::Interpreted { reason } => {
                    format!("ran on the interpreter: {reason}")
                }
            };
            let i = *at.entry((&l.kernel, ran.clone())).or_insert_with(|| {
                told.push((&l.kernel, ran, 0));
                told.len() - 1
            });
            told[i].2 += 1;
        }
        for (kernel, ran, n) in told {
            let s = if n == 1 { "" } else { "es" };
            note!("{MARK} `{kernel}` ({n} launch{s}) {ran}");
        }
    }
    note_raw!("{}", summary(&outcome.launches, &dev, mode));
    if let Some(path) = &a.json_out {
        let mut sources = lines::Sources::default();
        let v = json!({
            "files": a.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "args": a.program_args,
            "device": dev.profile().name,
            "mode": format!("{mode:?}").to_lowercase(),
            "copies": outcome.copies.map(|c| c.name()),
            "exit": match outcome.exit {
                Exit::Code(c) => json!({"code": c}),
                Exit::Signal(s) => json!({"signal": s}),
            },
            "launches": outcome.launches.iter().map(|l| {
                let mut j = launch_json_with(&l.report, a.metrics.as_deref(), a.lines.then_some(&mut sources));
                j["unit"] = json!(l.unit);
                j["tier"] = tier_json(&l.tier);
                j["time_ms"] = json!(l.report.elapsed.as_secs_f64() * 1e3);
                if mode == Mode::Check {
                    j["findings"] = l.report.findings.iter().map(finding_json).collect();
                }
                j
            }).collect::<Vec<_>>(),
        });
        std::fs::write(
            path,
            serde_json::to_string_pretty(&v).expect("JSON of plain values"),
        )
        .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", path.display())))?;
    }
    if let Some(path) = &a.report {
        let title = a
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(" ");
        let page = html::program_report(&title, dev.profile(), &outcome.launches);
        std::fs::write(path, page)
            .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", path.display())))?;
    }
    // In check mode a kernel that faulted (a barrier in divergent code) is a finding too; a
    // launch refused for its configuration is not.
    let errors = findings
        .iter()
        .filter(|(_, f)| f.severity() == Severity::Error)
        .count()
        + if mode == Mode::Check { faults } else { 0 };
    match outcome.exit {
        Exit::Code(0) if errors > 0 => {
            note!("{MARK} check mode found {errors} hazard(s)");
            Err(Failure::Status(1))
        }
        Exit::Code(0) => {
            if refused > 0 {
                note!(
                    "{MARK} {refused} kernel(s) could not run on warpsim (see above); the \
                     program's results do not include them"
                );
            }
            Ok(())
        }
        Exit::Code(c) => Err(Failure::Status(u8::try_from(c & 0xff).unwrap_or(1).max(1))),
        Exit::Signal(s) => {
            note!(
                "{MARK} the program was killed by signal {s} ({})",
                signal_name(s)
            );
            Err(Failure::Status(u8::try_from(128 + s).unwrap_or(255)))
        }
    }
}

/// The profile summary: one row per kernel, as nvprof's summary has them.
fn summary(launches: &[Launch], dev: &warpsim::Device, mode: Mode) -> String {
    let mut out = String::new();
    let p = dev.profile();
    if launches.is_empty() {
        let _ = writeln!(
            out,
            "{MARK} no kernel launch completed (the program launched none, or each launch failed)"
        );
        return out;
    }
    type PerKernel = (usize, std::time::Duration, Option<Counters>, Option<f64>);
    let mut by_kernel: BTreeMap<&str, PerKernel> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for l in launches {
        let e = by_kernel.entry(l.kernel.as_str()).or_insert_with(|| {
            order.push(l.kernel.as_str());
            (0, std::time::Duration::ZERO, None, None)
        });
        e.0 += 1;
        e.1 += l.report.elapsed;
        if let Some(c) = &l.report.counters {
            *e.2.get_or_insert_with(Counters::default) += c;
        }
        if let Some(p) = l.report.predicted() {
            *e.3.get_or_insert(0.0) += p.ms * 1e3;
        }
    }
    let total: std::time::Duration = launches.iter().map(|l| l.report.elapsed).sum();
    let _ = writeln!(
        out,
        "{MARK} profile: {} launch{} of {} kernel{} on {} ({}), {} mode, {:.3} ms of CPU time",
        launches.len(),
        if launches.len() == 1 { "" } else { "es" },
        order.len(),
        if order.len() == 1 { "" } else { "s" },
        p.name,
        p.description,
        format!("{mode:?}").to_lowercase(),
        total.as_secs_f64() * 1e3
    );
    if mode != Mode::Fast {
        let predicted: f64 = by_kernel.values().filter_map(|k| k.3).sum();
        let _ = writeln!(
            out,
            "{MARK} predicted on {}: {predicted:.1} µs of kernel time (--event-time cpu: events measure CPU time)",
            p.description,
        );
    }
    let gpu_column = format!("{} µs", p.name);
    let mut t = Table::new(&[
        "kernel",
        "launches",
        "CPU ms",
        &gpu_column,
        "gld_eff %",
        "gst_eff %",
        "sectors/req",
        "bank_conflicts",
        "branch_eff %",
        "warp_exec_eff %",
    ]);
    for k in order {
        let (n, time, counters, predicted) = &by_kernel[k];
        let mut row = vec![
            k.to_string(),
            n.to_string(),
            format!("{:.3}", time.as_secs_f64() * 1e3),
            predicted.map_or_else(|| "-".into(), |us| format!("{us:.1}")),
        ];
        match counters {
            Some(c) => {
                let m = Metrics::new(c, p);
                let req = m.gld_requests + m.gst_requests;
                let sectors = m.gld_sectors + m.gst_sectors;
                row.extend([
                    pct_or_dash(m.gld_requests, m.gld_efficiency),
                    pct_or_dash(m.gst_requests, m.gst_efficiency),
                    if req == 0 {
                        "-".into()
                    } else {
                        format!("{:.2}", sectors as f64 / req as f64)
                    },
                    (m.shared_ld_bank_conflicts + m.shared_st_bank_conflicts).to_string(),
                    format!("{:.2}", m.branch_efficiency),
                    pct_or_dash(m.warp_instructions, m.warp_execution_efficiency),
                ]);
            }
            None => row.extend(std::iter::repeat_n("-".to_string(), 6)),
        }
        t.row(row);
    }
    for line in t.to_string().lines() {
        let _ = writeln!(out, "{MARK} {line}");
    }
    out
}

/// A percentage of `count` things, or `-` when there were none.
fn pct_or_dash(count: u64, pct: f64) -> String {
    if count == 0 {
        "-".into()
    } else {
        format!("{pct:.2}")
    }
}

/// The `cudaError_t` name of a status warpsim returns.
fn error_name(code: i32) -> String {
    let name = match code {
        1 => "cudaErrorInvalidValue",
        9 => "cudaErrorInvalidConfiguration",
        98 => "cudaErrorInvalidDeviceFunction",
        700 => "cudaErrorIllegalAddress",
        701 => "cudaErrorLaunchOutOfResources",
        702 => "cudaErrorLaunchTimeout",
        710 => "cudaErrorAssert",
        716 => "cudaErrorMisalignedAddress",
        719 => "cudaErrorLaunchFailure",
        720 => "cudaErrorCooperativeLaunchTooLarge",
        801 => "cudaErrorNotSupported",
        _ => "an error",
    };
    format!("{name} ({code})")
}

fn signal_name(s: i32) -> &'static str {
    match s {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => "a signal",
    }
}
