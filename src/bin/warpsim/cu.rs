//! `warpsim cu FILE.cu`: run one kernel of a CUDA C file as written.
//!
//! The file is preprocessed, parsed and lowered by [`warpsim::cuda`]; each `--arg` becomes the
//! launch argument of one parameter, in order: a number for a scalar, `TYPE[N]:INIT` for a
//! pointer (a fresh device buffer, made again for every `--repeat` so that in-place kernels
//! see the same input each time), `{A,B,...}` for a struct passed by value. The report follows
//! `warpsim run`'s, plus what the threads printed.

use crate::args::CuArgs;
use crate::{
    Failure, check_output_flags, device, finding_json, html, launch_json_with, lines, median,
    occupancy_json, prediction_text, preflight, selected, tier_json,
};
use rand::{RngExt, SeedableRng, rngs::SmallRng};
use serde_json::{Value, json};
use std::path::Path;
use warpsim::check::Severity;
use warpsim::cuda::ir::{Kernel, Param, ParamKind, Scalar, TypeName};
use warpsim::cuda::{self, Arg, Module};
use warpsim::{Device, Dim3, Global, LaunchConfig, Metrics, Mode};

/// A number as the command line gave it.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i128),
    Float(f64),
}

/// How a buffer starts.
#[derive(Clone, Debug)]
enum Init {
    Zeros,
    Iota,
    Fill(Num),
    Rand,
    File(std::path::PathBuf),
}

/// One `--arg`, parsed against its parameter.
#[derive(Clone, Debug)]
enum Spec {
    Scalar(Arg),
    /// A buffer: its element count and contents (bytes, made once).
    Buffer {
        n: usize,
        bytes: Vec<u8>,
    },
}

pub fn cu(a: &CuArgs) -> Result<(), Failure> {
    let defines = a
        .define
        .iter()
        .map(|d| match d.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), v.to_string()),
            None => (d.trim().to_string(), "1".to_string()),
        })
        .collect::<Vec<_>>();
    if let Some((bad, _)) = defines.iter().find(|(k, _)| !is_identifier(k)) {
        return Err(Failure::Usage(format!(
            "-D {bad}: a macro name is a C identifier (write -D NAME or -D NAME=VALUE)"
        )));
    }
    let options = cuda::Options {
        defines,
        include_dirs: a.include.clone(),
        arch: arch(&crate::profile(&a.common.device)?),
        fmad: a.fmad,
    };
    if a.list {
        for f in &a.files {
            let module =
                Module::from_file(f, &options).map_err(|d| Failure::Usage(d.to_string()))?;
            if a.files.len() > 1 {
                out!("{}:", f.display());
            }
            list(&module);
        }
        return Ok(());
    }
    // Every file this run writes, checked before anything is built or run.
    let outputs = a
        .json_out
        .iter()
        .map(|p| (p.clone(), "--json-out"))
        .chain(a.report.iter().map(|p| (p.clone(), "--report")))
        .chain(
            a.outs
                .iter()
                .filter_map(|o| o.split_once('='))
                .map(|(_, f)| (f.into(), "--out")),
        );
    for (path, flag) in outputs {
        crate::preflight::not_an_input(&path, flag, &a.files)?;
    }
    match &a.kernel {
        Some(name) => kernel(a, name, &options),
        None => crate::program::program(a, &options),
    }
}

/// `__CUDA_ARCH__` of a profile: 900 for sm_90.
pub fn arch(p: &warpsim::Profile) -> u32 {
    p.compute_capability.0 * 100 + p.compute_capability.1 * 10
}

/// `--kernel`: one kernel of one file, with its arguments from the command line.
fn kernel(a: &CuArgs, name: &str, options: &cuda::Options) -> Result<(), Failure> {
    let [file] = &a.files[..] else {
        return Err(Failure::Usage(format!(
            "--kernel runs a kernel of one .cu file; {} files were given",
            a.files.len()
        )));
    };
    if !a.program_args.is_empty() {
        return Err(Failure::Usage(
            "arguments after `--` go to a whole program; --kernel takes its arguments with --arg"
                .into(),
        ));
    }
    let Some(block) = a.block else {
        return Err(Failure::Usage(
            "--kernel needs --block (threads per block, e.g. --block 256)".into(),
        ));
    };
    let module = Module::from_file(file, options).map_err(|d| Failure::Usage(d.to_string()))?;
    for w in module.warnings().iter().chain(module.host_syntax_errors()) {
        note!("{w}");
    }
    let name = overload(&module, name, a.args.len())?;
    let kernel = module
        .lower(&name)
        .map_err(|d| Failure::Usage(d.to_string()))?;
    if a.args.len() != kernel.params.len() {
        return Err(Failure::Usage(format!(
            "`{}` takes {} argument{} ({}); give one --arg per parameter, in order ({} given)",
            kernel.name,
            kernel.params.len(),
            if kernel.params.len() == 1 { "" } else { "s" },
            kernel
                .params
                .iter()
                .map(describe)
                .collect::<Vec<_>>()
                .join(", "),
            a.args.len()
        )));
    }
    let mut rng = SmallRng::seed_from_u64(a.seed);
    let specs = kernel
        .params
        .iter()
        .zip(&a.args)
        .map(|(p, s)| {
            parse_arg(s, p, &mut rng)
                .map_err(|e| Failure::Usage(format!("--arg `{s}` for {}: {e}", describe(p))))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let outs = outputs(&a.outs, &kernel)?;
    check_output_flags(a.metrics.as_deref(), a.repeat)?;
    let largest = specs
        .iter()
        .filter_map(|s| match s {
            Spec::Buffer { n, .. } => Some(*n as u64),
            Spec::Scalar(_) => None,
        })
        .max();
    let grid = match a.grid {
        Some(g) => g,
        None => {
            let blocks = largest.unwrap_or(1).div_ceil(block.count()).max(1);
            Dim3::new(
                u32::try_from(blocks).map_err(|_| {
                    Failure::Usage(format!("{blocks} blocks do not fit a grid; give --grid"))
                })?,
                1,
                1,
            )
        }
    };
    let bytes: u64 = specs
        .iter()
        .map(|s| match s {
            Spec::Buffer { bytes, .. } => 2 * bytes.len() as u64,
            Spec::Scalar(_) => 0,
        })
        .sum();
    if !a.force
        && let Some((avail, source)) = preflight::available_memory()
        && bytes > avail
    {
        return Err(Failure::Usage(format!(
            "the buffers would need about {} of memory (a host copy and a device copy each), \
             but only {} is available ({source}); use smaller buffers, or add --force to run \
             anyway",
            preflight::human(bytes),
            preflight::human(avail)
        )));
    }
    let dev = device(&a.common)?.with_lines(a.lines);
    let mode = if a.no_counters {
        Mode::Fast
    } else if a.check {
        Mode::Check
    } else {
        Mode::Count
    };
    let mut cfg = LaunchConfig::new(grid, block)
        .mode(mode)
        .name(&kernel.name)
        .engine(a.engine.into())
        .tolerate_out_of_bounds(true);
    cfg.timeout = a.timeout.map(std::time::Duration::from_secs_f64);
    cfg.progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    cfg.dynamic_shared = a.smem;
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..a.repeat {
        let (args, buffers) = materialize(&dev, &kernel, &specs);
        let r = cuda::launch(&dev, &kernel, &cfg, &args)?;
        times.push(r.launch.elapsed);
        last = Some((r, buffers));
    }
    let (r, buffers) = last.expect("repeat >= 1");
    for o in &r.outside {
        note!("warpsim: warning: {}", o.outside_note());
    }
    if a.verbose {
        match &r.tier {
            cuda::Tier::Compiled { .. } => note!("warpsim: `{}` ran compiled", kernel.name),
            cuda::Tier::Interpreted { reason } => {
                note!(
                    "warpsim: `{}` ran on the interpreter: {reason}",
                    kernel.name
                )
            }
        }
    }
    for (param, path) in &outs {
        let g = buffers[*param]
            .as_ref()
            .expect("--out names a pointer parameter");
        std::fs::write(path, g.to_vec())
            .map_err(|e| Failure::Failed(format!("cannot write --out {}: {e}", path.display())))?;
    }
    let time = median(times);
    let l = &r.launch;
    let occ = dev
        .profile()
        .occupancy(block.count() as u32, a.regs, l.shared_bytes)
        .ok();
    let only = a.metrics.as_deref();
    let mut sources = lines::Sources::default();
    if a.json || a.json_out.is_some() {
        let mut out = json!({
            "kernel": kernel.name,
            "file": file.display().to_string(),
            "device": dev.profile().name,
            "params": {
                "grid": [grid.x, grid.y, grid.z],
                "block": [block.x, block.y, block.z],
                "smem": a.smem,
                "args": a.args,
            },
            "time_ms": time.as_secs_f64() * 1e3,
            "tier": tier_json(&r.tier),
            "launches": [launch_json_with(l, only, a.lines.then_some(&mut sources))],
            "occupancy": occ.as_ref().map_or(Value::Null, occupancy_json),
            "printf": r.printed.iter().map(|p| json!({
                "block": [p.block.x, p.block.y, p.block.z],
                "thread": [p.thread.x, p.thread.y, p.thread.z],
                "text": p.text,
            })).collect::<Vec<_>>(),
        });
        if mode == Mode::Check {
            out["findings"] = l.findings.iter().map(finding_json).collect();
        }
        let text = serde_json::to_string_pretty(&out).expect("JSON of plain values");
        if let Some(path) = &a.json_out {
            std::fs::write(path, &text)
                .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", path.display())))?;
        }
        if a.json {
            out!("{text}");
        }
    }
    if let Some(path) = &a.report {
        let launch = cuda::host::Launch {
            kernel: kernel.name.clone(),
            unit: 0,
            report: l.clone(),
            tier: r.tier.clone(),
        };
        let page = html::program_report(&file.display().to_string(), dev.profile(), &[launch]);
        std::fs::write(path, page)
            .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", path.display())))?;
    }
    if a.json {
        // Printed above.
    } else if a.csv {
        for f in &l.findings {
            note!("{f}");
        }
        let names: Vec<&str> = Metrics::NAMES
            .iter()
            .copied()
            .filter(|n| only.is_none_or(|o| o.iter().any(|s| s == n)))
            .collect();
        out!(
            "kernel,grid,block,shared_bytes,time_ms{}",
            names.iter().map(|n| format!(",{n}")).collect::<String>()
        );
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
            "{},{}x{}x{},{}x{}x{},{},{:.3}{values}",
            csv_field(&kernel.name),
            grid.x,
            grid.y,
            grid.z,
            block.x,
            block.y,
            block.z,
            l.shared_bytes,
            time.as_secs_f64() * 1e3
        );
        for p in &r.printed {
            note_raw!("{}", p.text);
        }
    } else {
        out!(
            "{} ({}) on {} ({})",
            kernel.name,
            file.display(),
            dev.profile().name,
            dev.profile().description
        );
        out!(
            "launch:   grid {grid} block {block}{}, shared {} B",
            if a.grid.is_none() {
                " (grid from the largest buffer)"
            } else {
                ""
            },
            l.shared_bytes
        );
        out!(
            "time:     {:.3} ms on this CPU (median of {}), {} mode",
            time.as_secs_f64() * 1e3,
            a.repeat,
            format!("{mode:?}").to_lowercase()
        );
        if let Some(occ) = &occ {
            out!(
                "occupancy: {:.1} % ({} blocks, {} warps per SM; limited by {}; {} registers per thread assumed)",
                occ.occupancy_pct,
                occ.blocks_per_sm,
                occ.warps_per_sm,
                occ.limiter,
                a.regs
            );
        }
        if let Some(text) = prediction_text(l) {
            out!("{text}");
        }
        if let Some(m) = l.metrics() {
            out!("");
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
        if !r.printed.is_empty() {
            out!(
                "\nprintf ({} line{}):",
                r.printed.len(),
                if r.printed.len() == 1 { "" } else { "s" }
            );
            for p in &r.printed {
                let who = format!("block {} thread {}", p.block, p.thread);
                for line in p.text.strip_suffix('\n').unwrap_or(&p.text).split('\n') {
                    out!("  [{who}] {line}");
                }
            }
        }
    }
    let errors = l
        .findings
        .iter()
        .filter(|f| f.severity() == Severity::Error)
        .count();
    if errors > 0 {
        return Err(Failure::Failed(format!(
            "{}: check mode found {errors} hazard(s)",
            kernel.name
        )));
    }
    if mode == Mode::Check && !a.json && !a.csv {
        out!("\ncheck: no errors, {} warning(s)", l.findings.len());
    }
    Ok(())
}

/// `warpsim cu FILE --list`.
fn list(module: &Module) {
    let kernels = module.kernels();
    if kernels.is_empty() {
        out!("no __global__ kernels");
    }
    for k in kernels {
        let template = if k.template_params.is_empty() {
            String::new()
        } else {
            format!("<{}>", k.template_params.join(", "))
        };
        let params: Vec<String> = k.params.iter().map(|(n, t)| format!("{t} {n}")).collect();
        out!(
            "{}{template}({})    line {}",
            k.name,
            params.join(", "),
            k.site.line
        );
    }
}

/// The kernel `--kernel NAME` means: an overloaded kernel's overload that takes as many
/// arguments as were given (named by its parameter types, `fill(float *, float)`, as Nsight
/// names it), or an error that lists them.
fn overload(module: &Module, name: &str, args: usize) -> Result<String, Failure> {
    let all: Vec<_> = module
        .kernels()
        .into_iter()
        .filter(|k| k.name == name && k.template_params.is_empty())
        .collect();
    if all.len() < 2 {
        return Ok(name.to_string());
    }
    let signature = |k: &cuda::module::KernelInfo| {
        let types: Vec<&str> = k.params.iter().map(|(_, t)| t.as_str()).collect();
        format!("{name}({})", types.join(", "))
    };
    let fits: Vec<_> = all.iter().filter(|k| k.params.len() == args).collect();
    match fits[..] {
        [k] => Ok(signature(k)),
        _ => Err(Failure::Usage(format!(
            "`{name}` is overloaded: {}; name one with its parameter types, e.g. --kernel '{}'",
            all.iter().map(signature).collect::<Vec<_>>().join(", "),
            signature(fits.first().copied().unwrap_or(&all[0]))
        ))),
    }
}

/// A parameter as a message names it.
fn describe(p: &Param) -> String {
    match &p.kind {
        ParamKind::Scalar { ty, .. } => format!("`{ty} {}`", p.name),
        ParamKind::Pointer { elem, is_const, .. } => {
            format!(
                "`{}{elem} *{}`",
                if *is_const { "const " } else { "" },
                p.name
            )
        }
        ParamKind::Struct { name, .. } => format!("`{name} {}`", p.name),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A number: decimal or `0x` hex integer, or a float (`2.5`, `1e-3`, `2.5f`).
fn number(s: &str) -> Option<Num> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let int = body.trim_end_matches(['u', 'U', 'l', 'L']);
    let parsed = match int.strip_prefix("0x").or_else(|| int.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok(),
        None => int.parse::<i128>().ok(),
    };
    if let Some(v) = parsed {
        return Some(Num::Int(if neg { -v } else { v }));
    }
    let f = t.strip_suffix(['f', 'F']).unwrap_or(t);
    f.parse::<f64>().ok().map(Num::Float)
}

/// An element count: `1024`, `1<<20`, `4*1024`.
fn count(s: &str) -> Option<usize> {
    s.split('*').try_fold(1usize, |acc, term| {
        let v = match term.split_once("<<") {
            Some((a, b)) => {
                let (a, b): (usize, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                a.checked_shl(b).filter(|v| v >> b == a)?
            }
            None => term.trim().parse().ok()?,
        };
        acc.checked_mul(v)
    })
}

fn parse_arg(s: &str, p: &Param, rng: &mut SmallRng) -> Result<Spec, String> {
    match &p.kind {
        ParamKind::Scalar { ty, .. } => {
            let n = if *ty == Scalar::Bool {
                match s.trim() {
                    "true" => Some(Num::Int(1)),
                    "false" => Some(Num::Int(0)),
                    other => number(other),
                }
            } else {
                number(s)
            };
            match n {
                Some(Num::Int(i)) => Ok(Spec::Scalar(Arg::Int(i))),
                Some(Num::Float(x)) if ty.is_float() => Ok(Spec::Scalar(Arg::Float(x))),
                Some(Num::Float(_)) => Err(format!("`{ty}` takes an integer")),
                None => Err(format!("write a number for `{ty}`")),
            }
        }
        ParamKind::Struct { size, fields, .. } => {
            let inner = s
                .trim()
                .strip_prefix('{')
                .and_then(|x| x.strip_suffix('}'))
                .ok_or("write the struct's fields in braces: {A,B,...}")?;
            // Nested braces group the fields of an array or inner struct, as in C's
            // initialisers: `{1, 2.0, {0, 0, 0}}`; the leaves are what count, so the braces
            // only have to pair up.
            let mut depth = 0i32;
            for c in inner.chars() {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                if depth < 0 {
                    break;
                }
            }
            if depth != 0 {
                return Err(
                    "the braces do not pair up: write {A,B,...}, inner braces around \
                            an array's or an inner struct's fields"
                        .to_string(),
                );
            }
            let values: Vec<&str> = inner
                .split([',', '{', '}'])
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .collect();
            if values.len() != fields.len() {
                return Err(format!(
                    "the struct has {} scalar fields, {} given",
                    fields.len(),
                    values.len()
                ));
            }
            let mut bytes = vec![0u8; *size as usize];
            for (v, &(offset, ty, _)) in values.iter().zip(fields) {
                let n = number(v).ok_or_else(|| format!("`{v}` is not a number"))?;
                put(&mut bytes, offset as usize, ty, n);
            }
            Ok(Spec::Scalar(Arg::Bytes(bytes)))
        }
        ParamKind::Pointer {
            elem: TypeName::Texture,
            ..
        } => Err(
            "a texture object comes from cudaCreateTextureObject: run the kernel from a program \
             (a .cu file with main)"
                .into(),
        ),
        ParamKind::Pointer { elem, .. } => {
            let (ty, rest) = s
                .split_once('[')
                .ok_or_else(|| format!("write a buffer as {}[N]:INIT", spelling(elem)))?;
            let (n, init) = rest
                .split_once("]:")
                .or_else(|| rest.strip_suffix(']').map(|n| (n, "zeros")))
                .ok_or_else(|| format!("write a buffer as {}[N]:INIT", spelling(elem)))?;
            let ty = ty.trim();
            let named = match (elem, cuda::type_by_name(ty)) {
                (TypeName::Struct { name, .. }, _) if name == ty => elem.clone(),
                (TypeName::Void, Some(t)) => t,
                (_, Some(t)) if t == *elem => t,
                _ => {
                    return Err(format!(
                        "the buffer's type is `{ty}`, the parameter points to `{elem}`: write {}[N]:INIT",
                        spelling(elem)
                    ));
                }
            };
            let n =
                count(n).ok_or_else(|| format!("`{n}` is not an element count (1024, 1<<20)"))?;
            let init = match init.trim() {
                "zeros" | "zero" => Init::Zeros,
                "iota" => Init::Iota,
                "rand" => Init::Rand,
                other => match other.split_once('=') {
                    Some(("fill", v)) => {
                        Init::Fill(number(v).ok_or_else(|| format!("fill={v}: not a number"))?)
                    }
                    Some(("file", path)) => Init::File(path.into()),
                    _ => {
                        return Err(format!(
                            "unknown INIT `{other}`; use zeros, iota, fill=V, rand or file=PATH"
                        ));
                    }
                },
            };
            let bytes = contents(&named, n, &init, rng)?;
            Ok(Spec::Buffer { n, bytes })
        }
    }
}

/// How to write a pointee type in an `--arg` (`void` takes any element type).
fn spelling(t: &TypeName) -> String {
    match t {
        TypeName::Void => "TYPE".to_string(),
        other => other.to_string(),
    }
}

/// The scalar components of one element, in memory order: (byte offset, type).
fn components(t: &TypeName) -> Vec<(usize, Scalar)> {
    match t {
        TypeName::Scalar(s) => vec![(0, *s)],
        TypeName::Vector(s, n) => (0..*n as usize)
            .map(|k| (k * s.size() as usize, *s))
            .collect(),
        TypeName::Struct { fields, .. } => fields
            .iter()
            .flat_map(|(_, off, s, count)| {
                (0..(*count).max(1) as usize)
                    .map(move |k| (*off as usize + k * s.size() as usize, *s))
            })
            .collect(),
        TypeName::Void | TypeName::Texture => vec![(0, Scalar::U8)],
    }
}

/// A buffer's initial bytes.
fn contents(t: &TypeName, n: usize, init: &Init, rng: &mut SmallRng) -> Result<Vec<u8>, String> {
    let size = t.size() as usize;
    let total = n
        .checked_mul(size)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| format!("{n} elements of {size} bytes do not fit in memory"))?;
    // Refused before it is allocated (an allocation that fails aborts the process).
    if let Some((free, source)) = crate::preflight::available_memory()
        && total as u64 > free
    {
        return Err(format!(
            "{n} elements of `{t}` are {} but {} is available ({source})",
            crate::preflight::human(total as u64),
            crate::preflight::human(free)
        ));
    }
    if let Init::File(path) = init {
        // At most one byte more than needed (a device file or pipe never ends).
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| {
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(f, total as u64 + 1),
                    &mut bytes,
                )
            })
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if bytes.len() != total {
            let holds = if bytes.len() > total {
                format!("more than {total} bytes")
            } else {
                format!("{} bytes", bytes.len())
            };
            return Err(format!(
                "{} holds {holds}; {n} elements of `{t}` are {total} bytes",
                path.display()
            ));
        }
        return Ok(bytes);
    }
    let mut bytes = vec![0u8; total];
    if matches!(init, Init::Zeros) {
        return Ok(bytes);
    }
    let comps = components(t);
    let mut k = 0i128;
    for e in 0..n {
        for &(off, s) in &comps {
            let v = match init {
                Init::Iota => Num::Int(k),
                Init::Fill(v) => *v,
                Init::Rand if s.is_float() => Num::Float(f64::from(rng.random::<f32>())),
                Init::Rand => Num::Int(rng.random_range(0..100)),
                Init::Zeros | Init::File(_) => unreachable!("handled above"),
            };
            put(&mut bytes, e * size + off, s, v);
            k += 1;
        }
    }
    Ok(bytes)
}

/// Write `v` as a `ty` at `at` (integers wrap to the type, as a C cast would).
fn put(bytes: &mut [u8], at: usize, ty: Scalar, v: Num) {
    let (i, f) = match v {
        Num::Int(i) => (i, i as f64),
        Num::Float(x) => (x as i128, x),
    };
    let raw: Vec<u8> = match ty {
        Scalar::F32 => (f as f32).to_le_bytes().to_vec(),
        Scalar::F64 => f.to_le_bytes().to_vec(),
        Scalar::Bool => vec![u8::from(i != 0)],
        s => (i as u64).to_le_bytes()[..s.size() as usize].to_vec(),
    };
    bytes[at..at + raw.len()].copy_from_slice(&raw);
}

/// `--out PARAM=FILE`: the pointer parameter's index and the file.
fn outputs(outs: &[String], k: &Kernel) -> Result<Vec<(usize, std::path::PathBuf)>, Failure> {
    outs.iter()
        .map(|o| {
            let (name, path) = o
                .split_once('=')
                .ok_or_else(|| Failure::Usage(format!("--out {o}: write --out PARAM=FILE")))?;
            let i = k
                .params
                .iter()
                .position(|p| p.name == name.trim() && matches!(p.kind, ParamKind::Pointer { .. }))
                .ok_or_else(|| {
                    let pointers: Vec<&str> = k
                        .params
                        .iter()
                        .filter(|p| matches!(p.kind, ParamKind::Pointer { .. }))
                        .map(|p| p.name.as_str())
                        .collect();
                    Failure::Usage(format!(
                        "--out {o}: `{name}` is not a pointer parameter of `{}` (those are: {})",
                        k.name,
                        pointers.join(", ")
                    ))
                })?;
            let path = Path::new(path).to_path_buf();
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
                && !dir.is_dir()
            {
                return Err(Failure::Usage(format!(
                    "--out {o}: the directory {} does not exist",
                    dir.display()
                )));
            }
            Ok((i, path))
        })
        .collect()
}

/// The launch's arguments, with fresh buffers, and the buffers by parameter.
fn materialize(dev: &Device, k: &Kernel, specs: &[Spec]) -> (Vec<Arg>, Vec<Option<Global<u8>>>) {
    let mut args = Vec::new();
    let mut buffers = Vec::new();
    for (p, s) in k.params.iter().zip(specs) {
        match s {
            Spec::Scalar(a) => {
                args.push(a.clone());
                buffers.push(None);
            }
            Spec::Buffer { bytes, .. } => {
                let g = dev.alloc_from(&p.name, bytes);
                args.push(Arg::Buffer(g.clone()));
                buffers.push(Some(g));
            }
        }
    }
    (args, buffers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_counts() {
        assert!(matches!(number("-12"), Some(Num::Int(-12))));
        assert!(matches!(number("0x10"), Some(Num::Int(16))));
        assert!(matches!(number("10u"), Some(Num::Int(10))));
        assert!(matches!(number("2.5f"), Some(Num::Float(x)) if x == 2.5));
        assert!(number("abc").is_none());
        assert_eq!(count("1<<20"), Some(1 << 20));
        assert_eq!(count("4*1024"), Some(4096));
        assert_eq!(count("1<<70"), None);
        assert_eq!(count("x"), None);
    }

    #[test]
    fn buffer_contents_follow_the_type() {
        let mut rng = SmallRng::seed_from_u64(1);
        let b = contents(&TypeName::Vector(Scalar::F32, 2), 2, &Init::Iota, &mut rng).unwrap();
        let f: Vec<f32> = b
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(f, [0.0, 1.0, 2.0, 3.0]);
        let b = contents(
            &TypeName::Scalar(Scalar::U8),
            3,
            &Init::Fill(Num::Int(257)),
            &mut rng,
        )
        .unwrap();
        assert_eq!(b, [1, 1, 1]);
    }
}
