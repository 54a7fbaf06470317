//! `warpsim bench`: each kernel in fast mode, in counting mode and as native Rust, interleaved
//! in one process, median of several runs; optionally the x86 instructions one warp instruction
//! costs (counted by valgrind) and the time of the same kernel under PoCL.

use crate::args::BenchArgs;
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use warpsim::cuda::{self, Arg, Module, Options};
use warpsim::kernels::{data, native, reduction, transpose};
use warpsim::{Block, Device, Error, Global, LaunchConfig, Mode};

/// One benchmark: a warpsim job and the native job it is compared with.
struct Case {
    kernel: &'static str,
    size: String,
    /// The `warpsim run` flags of this size (for the instruction count's child run).
    run_args: Vec<String>,
    /// The PoCL peer's name of the same kernel at the same size, if it has one.
    pocl: Option<(&'static str, String)>,
    native: &'static str,
    elements: usize,
    /// Run the kernel once in `mode`; the warp instructions it issued (counting mode).
    warpsim: Box<dyn Fn(Mode) -> Result<u64, Error>>,
    /// Clear the output before the verified run.
    reset: Box<dyn Fn()>,
    /// Whether the last run's output is right.
    verify: Box<dyn Fn() -> bool>,
    native_run: Box<dyn Fn()>,
}

/// Warp instructions of a report list.
fn warp_instructions(reports: &[warpsim::LaunchReport]) -> u64 {
    reports
        .iter()
        .filter_map(|r| r.counters.as_ref())
        .map(|c| c.warp_instructions)
        .sum()
}

fn reduction_case(dev: &std::sync::Arc<Device>, variant: reduction::Variant, n: usize) -> Case {
    let host = data::unit_floats(n, 5);
    let expected = reduction::reference(&host);
    let x = dev.alloc_from("x", &host);
    let d = std::sync::Arc::clone(dev);
    let host2 = host.clone();
    let last = std::rc::Rc::new(std::cell::Cell::new(f32::NAN));
    let seen = std::rc::Rc::clone(&last);
    let pocl = match variant {
        reduction::Variant::Interleaved => Some("R0"),
        reduction::Variant::Sequential => Some("R2"),
        reduction::Variant::Multi => Some("R6"),
        _ => None,
    };
    let log2 = n.trailing_zeros();
    Case {
        kernel: variant.name(),
        size: format!("2^{log2}"),
        run_args: vec!["--n".into(), n.to_string(), "--block".into(), "256".into()],
        pocl: pocl.map(|p| (p, format!("N=2^{log2}"))),
        native: "rayon par_iter().sum()",
        elements: n,
        warpsim: Box::new(move |mode| {
            let (sum, reports) = reduction::reduce(&d, variant, &x, 256, mode)?;
            last.set(sum);
            Ok(warp_instructions(&reports))
        }),
        reset: Box::new(|| {}),
        verify: Box::new(move || reduction::close_enough(seen.get(), expected, &host2)),
        native_run: Box::new(move || {
            std::hint::black_box(native::sum(std::hint::black_box(&host)));
        }),
    }
}

fn transpose_case(dev: &std::sync::Arc<Device>, variant: transpose::Variant, n: u32) -> Case {
    let len = (n * n) as usize;
    let host = data::unit_floats(len, 6);
    let input = dev.alloc_from("idata", &host);
    let output = dev.alloc_zeroed::<f32>("odata", len);
    let want = if variant.transposes() {
        transpose::reference(&host, n as usize, n as usize)
    } else {
        host.clone()
    };
    let d = std::sync::Arc::clone(dev);
    let copy = !variant.transposes();
    let out = std::cell::RefCell::new(vec![0.0f32; len]);
    let result = output.clone();
    let pocl = match variant {
        transpose::Variant::Naive => Some("T0"),
        transpose::Variant::NoConflicts => Some("T2"),
        transpose::Variant::CopyShared => Some("C"),
        _ => None,
    };
    Case {
        kernel: variant.name(),
        size: format!("{n}x{n}"),
        run_args: vec![
            "--width".into(),
            n.to_string(),
            "--height".into(),
            n.to_string(),
        ],
        pocl: pocl.map(|p| (p, format!("{n}x{n}"))),
        native: if copy {
            "rayon parallel copy"
        } else {
            "rayon blocked transpose"
        },
        elements: len,
        reset: {
            let output = output.clone();
            Box::new(move || output.fill(0.0))
        },
        warpsim: Box::new(move |mode| {
            let r = transpose::launch(&d, variant, &input, &output, n, n, mode)?;
            Ok(warp_instructions(std::slice::from_ref(&r)))
        }),
        verify: Box::new(move || result.to_vec() == want),
        native_run: Box::new(move || {
            let mut o = out.borrow_mut();
            if copy {
                native::copy(&host, &mut o);
            } else {
                native::transpose(&host, &mut o, n as usize, n as usize);
            }
            std::hint::black_box(&*o);
        }),
    }
}

fn time(f: &dyn Fn() -> Result<u64, Error>) -> Result<Duration, String> {
    let t = Instant::now();
    f().map_err(|e| e.to_string())?;
    Ok(t.elapsed())
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

pub fn bench(a: &BenchArgs) -> Result<(), String> {
    if a.programs {
        return programs(a);
    }
    if let Some(n) = a.scaling {
        return scaling(a, n);
    }
    match a.threads {
        // warpsim and the native baselines run on the same CPU threads: the whole benchmark
        // runs inside one pool, whose threads both use.
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| format!("cannot start {t} CPU threads: {e}"))?
            .install(|| run_cases(a)),
        None => run_cases(a),
    }
}

/// The cases: the targets (the reductions at 2^24, the transposes at 4096²) and the
/// rows the PoCL peer measures; `--quick` takes 2^20 and 1024².
fn cases(dev: &std::sync::Arc<Device>, quick: bool) -> Vec<Case> {
    use reduction::Variant as R;
    use transpose::Variant as T;
    let (n, small, large) = if quick {
        (1 << 20, 512, 1024)
    } else {
        (1 << 24, 2048, 4096)
    };
    let mut v = Vec::new();
    for r in [R::Interleaved, R::Sequential, R::Multi, R::Shuffle] {
        v.push(reduction_case(dev, r, n));
    }
    v.push(transpose_case(dev, T::Copy, large));
    for t in [T::CopyShared, T::Naive, T::NoConflicts] {
        v.push(transpose_case(dev, t, small));
        v.push(transpose_case(dev, t, large));
    }
    v.push(transpose_case(dev, T::Coalesced, large));
    v
}

fn run_cases(a: &BenchArgs) -> Result<(), String> {
    let dev = Device::default();
    let threads = dev.threads();
    let dev = std::sync::Arc::new(dev);
    let cases = cases(&dev, a.quick);
    let pocl = match &a.pocl {
        Some(script) => Some(pocl_times(script, a.runs)?),
        None => None,
    };
    let runs = a.runs.max(1);
    let mut results = Vec::new();
    if !a.json {
        out!("warpsim bench: {threads} CPU threads, median of {runs} runs, modes interleaved\n");
        let mut head = format!(
            "  {:<24} {:>10} {:>10} {:>10} {:>12} {:>12} {:>11}",
            "kernel", "size", "native ms", "fast ms", "counting ms", "fast/native", "count/fast"
        );
        if pocl.is_some() {
            head += &format!(" {:>9} {:>10}", "PoCL ms", "fast/PoCL");
        }
        if a.instructions {
            head += &format!(" {:>12}", "x86/warp-in");
        }
        out!("{head}");
    }
    for c in &cases {
        // One untimed round warms caches and checks every mode's output.
        let mut counted = 0;
        for mode in [Mode::Fast, Mode::Count] {
            (c.reset)();
            counted = (c.warpsim)(mode).map_err(|e| e.to_string())?;
            if !(c.verify)() {
                return Err(format!(
                    "{} {}: wrong result in {mode:?} mode",
                    c.kernel, c.size
                ));
            }
        }
        (c.native_run)();
        let (mut fast, mut counting, mut nat) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            fast.push(time(&|| (c.warpsim)(Mode::Fast))?);
            counting.push(time(&|| (c.warpsim)(Mode::Count))?);
            nat.push(time(&|| {
                (c.native_run)();
                Ok(0)
            })?);
        }
        let (f, k, n) = (median(fast), median(counting), median(nat));
        let p = pocl
            .as_ref()
            .and_then(|t| c.pocl.as_ref().and_then(|key| t.get(key)))
            .copied();
        let per_instr = if a.instructions {
            x86_instructions(c).map(|x| x as f64 / counted as f64)
        } else {
            None
        };
        if !a.json {
            let mut line = format!(
                "  {:<24} {:>10} {:>10.2} {:>10.2} {:>12.2} {:>12.2} {:>11.2}",
                c.kernel,
                c.size,
                n,
                f,
                k,
                f / n,
                k / f
            );
            if pocl.is_some() {
                line += &match p {
                    Some(p) => format!(" {:>9.2} {:>10.2}", p, f / p),
                    None => format!(" {:>9} {:>10}", "-", "-"),
                };
            }
            if a.instructions {
                line += &match per_instr {
                    Some(x) => format!(" {x:>12.1}"),
                    None => format!(" {:>12}", "-"),
                };
            }
            out!("{line}");
        }
        let mut r = json!({
            "kernel": c.kernel, "size": c.size, "native": c.native, "elements": c.elements,
            "native_ms": n, "fast_ms": f, "counting_ms": k,
            "fast_over_native": f / n, "counting_over_fast": k / f,
            "warp_instructions": counted,
        });
        if let Some(p) = p {
            r["pocl_ms"] = json!(p);
            r["fast_over_pocl"] = json!(f / p);
        }
        if let Some(x) = per_instr {
            r["x86_per_warp_instruction"] = json!(x);
        }
        results.push(r);
    }
    let twins = compare_twins(&dev, a.quick, runs, a.instructions)?;
    let pocl_of = |t: &TwinTimes| {
        pocl.as_ref()
            .and_then(|p| t.pocl.as_ref().and_then(|key| p.get(key)))
            .copied()
    };
    let compiled = |t: &TwinTimes| match &t.tier {
        cuda::Tier::Compiled { compile_ms, .. } => Some(*compile_ms),
        cuda::Tier::Interpreted { .. } => None,
    };
    if a.json {
        let cuda: Vec<_> = twins
            .iter()
            .map(|t| {
                let mut r = json!({
                    "kernel": t.kernel, "size": t.size, "rust_ms": t.rust_ms,
                    "cuda_ms": t.cuda_ms, "cuda_over_rust": t.cuda_ms / t.rust_ms,
                    "cuda_counting_ms": t.cuda_count_ms,
                    "cuda_counting_over_fast": t.cuda_count_ms / t.cuda_ms,
                    "compiled": compiled(t).is_some(),
                });
                if let Some(ms) = compiled(t) {
                    r["compile_ms"] = json!(ms);
                }
                if let Some(p) = pocl_of(t) {
                    r["pocl_ms"] = json!(p);
                    r["cuda_over_pocl"] = json!(t.cuda_ms / p);
                }
                if let Some((i, j)) = t.per_instr {
                    r["x86_per_warp_instruction_interp"] = json!(i);
                    r["x86_per_warp_instruction_jit"] = json!(j);
                }
                r
            })
            .collect();
        out!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"threads": threads, "results": results, "cuda_c": cuda})
            )
            .expect("plain JSON")
        );
    } else {
        out!(
            "\nCUDA C (`warpsim cu`, cuda/kernels.cu) against the same launch with the Rust API, fast mode, and counting:"
        );
        let mut head = format!(
            "  {:<24} {:>10} {:>10} {:>10} {:>10} {:>11} {:>10} {:>10}",
            "kernel",
            "size",
            "Rust ms",
            "CUDA ms",
            "CUDA/Rust",
            "compile ms",
            "count ms",
            "count/fast"
        );
        if pocl.is_some() {
            head += &format!(" {:>9} {:>10}", "PoCL ms", "CUDA/PoCL");
        }
        if a.instructions {
            head += &format!(" {:>14} {:>14}", "x86/w-in interp", "x86/w-in jit");
        }
        out!("{head}");
        for t in &twins {
            let mut line = format!(
                "  {:<24} {:>10} {:>10.2} {:>10.2} {:>10.2} {:>11} {:>10.2} {:>10.2}",
                t.kernel,
                t.size,
                t.rust_ms,
                t.cuda_ms,
                t.cuda_ms / t.rust_ms,
                compiled(t).map_or("interp".to_string(), |ms| format!("{ms:.1}")),
                t.cuda_count_ms,
                t.cuda_count_ms / t.cuda_ms
            );
            if pocl.is_some() {
                line += &match pocl_of(t) {
                    Some(p) => format!(" {:>9.2} {:>10.2}", p, t.cuda_ms / p),
                    None => format!(" {:>9} {:>10}", "-", "-"),
                };
            }
            if a.instructions {
                line += &match t.per_instr {
                    Some((i, j)) => format!(" {i:>15.1} {j:>14.1}"),
                    None => format!(" {:>15} {:>14}", "-", "-"),
                };
            }
            out!("{line}");
        }
        out!(
            "\n(each case's output is verified in both modes before timing, each CUDA C kernel's against its Rust twin; times are the launches alone; compile ms: the compiled tier's compilation at the first launch, `interp` where the kernel runs on the interpreter; count ms: the same launch counting (compiled too){}{})",
            if pocl.is_some() {
                "; PoCL: kernel time from OpenCL profiling events, same machine, this run"
            } else {
                ""
            },
            if a.instructions {
                "; x86/warp-in: instructions executed inside blocks in fast mode on one thread (valgrind), per warp instruction counted"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// `--programs`: what running a whole program costs beside its kernels, measured by a program
/// of our own (`benches/bridge.cu`): a rebuild from the cache, `cudaMemcpy` each way against a
/// plain `memcpy` of the same size in the same process, and a launch's round trip.
fn programs(a: &BenchArgs) -> Result<(), String> {
    use warpsim::cuda::host::{BuildOptions, Exit, Program};
    let (bytes, launches) = if a.quick {
        (16usize << 20, 1000)
    } else {
        (256 << 20, 10_000)
    };
    let dir = std::env::temp_dir().join(format!("warpsim-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let source = dir.join("bridge.cu");
    std::fs::write(&source, include_str!("../../../benches/bridge.cu"))
        .map_err(|e| format!("{}: {e}", source.display()))?;
    let opts = BuildOptions {
        files: vec![source],
        ..BuildOptions::default()
    };
    let build = || Program::build(&opts, 900, true, &mut |what| note!("==warpsim== {what}"));
    let program = build().map_err(|e| e.to_string())?;
    let runs = a.runs.max(1);
    let mut rebuilds = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        build().map_err(|e| e.to_string())?;
        rebuilds.push(t.elapsed());
    }
    let dev = match a.threads {
        Some(t) => Device::default()
            .with_threads(t)
            .map_err(|e| e.to_string())?,
        None => Device::default(),
    };
    let out = dir.join("bridge.txt");
    let args = [
        out.display().to_string(),
        bytes.to_string(),
        launches.to_string(),
        runs.to_string(),
    ];
    let outcome = program
        .run(
            &dev,
            &args,
            cuda::host::Settings {
                mode: Mode::Count,
                ..Default::default()
            },
            &mut |_| {},
        )
        .map_err(|e| e.to_string())?;
    if !matches!(outcome.exit, Exit::Code(0)) {
        return Err(format!("the bridge benchmark failed: {:?}", outcome.exit));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let _ = std::fs::remove_dir_all(&dir);
    let value = |name: &str| -> Result<f64, String> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .ok_or_else(|| format!("the bridge benchmark wrote no `{name}`"))
    };
    let (plain, h2d, d2h, launch_us) = (
        value("memcpy_ms")?,
        value("h2d_ms")?,
        value("d2h_ms")?,
        value("launch_us")?,
    );
    let rebuild_ms = median(rebuilds);
    let copies = outcome.copies.map_or("none", |c| c.name());
    if a.json {
        out!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "threads": dev.threads(), "bytes": bytes, "launches": launches,
                "memcpy_ms": plain, "h2d_ms": h2d, "d2h_ms": d2h,
                "h2d_over_memcpy": h2d / plain, "d2h_over_memcpy": d2h / plain,
                "launch_us": launch_us, "cached_rebuild_ms": rebuild_ms, "copies": copies,
            }))
            .expect("plain JSON")
        );
    } else {
        out!(
            "warpsim bench --programs: {} CPU threads, median of {runs} runs",
            dev.threads()
        );
        out!("  cached rebuild           {rebuild_ms:>9.1} ms");
        out!(
            "  cudaMemcpy {} MiB H2D   {h2d:>9.1} ms   {:.2}x memcpy ({plain:.1} ms, same process; \
             {copies} copies)",
            bytes >> 20,
            h2d / plain
        );
        out!(
            "  cudaMemcpy {} MiB D2H   {d2h:>9.1} ms   {:.2}x memcpy",
            bytes >> 20,
            d2h / plain
        );
        out!("  empty launch            {launch_us:>9.1} µs   ({launches} launches, count mode)");
    }
    Ok(())
}

/// `--scaling`: the CUDA C reductions, the native sum and a loop of arithmetic on one CPU
/// thread and on `threads`, in turn, `--runs` times; per row the medians of the times and of
/// the pairs' ratios (one thread's time over the others', the arithmetic's per thread).
fn scaling(a: &BenchArgs, threads: usize) -> Result<(), String> {
    let device = |t| {
        Device::default()
            .with_threads(t)
            .map(std::sync::Arc::new)
            .map_err(|e| e.to_string())
    };
    let (one, many) = (device(1)?, device(threads)?);
    let pool = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| format!("cannot start {t} CPU threads: {e}"))
    };
    let (pool_one, pool_many) = (pool(1)?, pool(threads)?);
    let module = kernels_cu()?;
    let n = if a.quick { 1u32 << 20 } else { 1 << 24 };
    let runs = a.runs.max(1);
    let size = format!("2^{}", n.trailing_zeros());
    let mut rows = Vec::new();
    let (on_one, on_many) = (
        reduction_twins(&one, &module, n)?,
        reduction_twins(&many, &module, n)?,
    );
    for (t1, tn) in on_one.iter().zip(&on_many) {
        rows.push(Scaled::measure(t1.kernel, &size, runs, 1, &|all| {
            let t = if all { tn } else { t1 };
            (t.cu)(Mode::Fast).map(drop).map_err(|e| e.to_string())
        })?);
        // The same input on any number of threads: the same block sums, bit for bit.
        if t1.output.to_vec().iter().map(|x| x.to_bits()).ne(tn
            .output
            .to_vec()
            .iter()
            .map(|x| x.to_bits()))
        {
            return Err(format!(
                "{}: one thread and {threads} wrote different sums",
                t1.kernel
            ));
        }
    }
    let host = data::unit_floats(n as usize, 7);
    rows.push(Scaled::measure("native sum", &size, runs, 1, &|all| {
        let p = if all { &pool_many } else { &pool_one };
        std::hint::black_box(p.install(|| native::sum(std::hint::black_box(&host))));
        Ok(())
    })?);
    let steps: u64 = if a.quick { 1 << 22 } else { 1 << 25 };
    let label = format!("2^{} steps", steps.trailing_zeros());
    rows.push(Scaled::measure(
        "arithmetic alone",
        &label,
        runs,
        threads,
        &|all| {
            let run = || std::hint::black_box(arithmetic(std::hint::black_box(steps)));
            if all {
                pool_many.broadcast(|_| run());
            } else {
                run();
            }
            Ok(())
        },
    )?);
    if a.json {
        let rows: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({"kernel": r.kernel, "size": r.size, "one_thread_ms": r.one_ms,
                       "threads_ms": r.many_ms, "scaling": r.median(),
                       "scaling_min": r.ratios[0], "scaling_max": r.ratios[r.ratios.len() - 1]})
            })
            .collect();
        let v = json!({"threads": threads, "pairs": runs, "results": rows});
        out!("{}", serde_json::to_string_pretty(&v).expect("plain JSON"));
        return Ok(());
    }
    out!(
        "warpsim bench --scaling {threads}: one CPU thread against {threads}, a launch on each in \
         turn, {runs} pairs (warpsim cu, fast mode)\n"
    );
    out!(
        "  {:<24} {:>12} {:>12} {:>12} {:>9} {:>13}",
        "kernel",
        "size",
        "1 thread ms",
        format!("{threads} threads ms"),
        "scaling",
        "min-max"
    );
    for r in &rows {
        out!(
            "  {:<24} {:>12} {:>12.2} {:>12.2} {:>8.1}x {:>6.1}-{:<6.1}",
            r.kernel,
            r.size,
            r.one_ms,
            r.many_ms,
            r.median(),
            r.ratios[0],
            r.ratios[r.ratios.len() - 1]
        );
    }
    out!(
        "\n(scaling: the median over the pairs of one thread's time over {threads} threads' for \
         the same work; arithmetic alone runs a loop of multiplies on every thread, no memory: \
         what this host's cores give any code at this moment)"
    );
    Ok(())
}

/// One row of `--scaling`: the median times on one thread and on all, and the pairs' ratios,
/// sorted.
struct Scaled {
    kernel: &'static str,
    size: String,
    one_ms: f64,
    many_ms: f64,
    ratios: Vec<f64>,
}

impl Scaled {
    /// `run(false)` on one thread and `run(true)` on all, in turn, after one of each to warm
    /// up; the work on all is `work` times the work on one.
    fn measure(
        kernel: &'static str,
        size: &str,
        runs: usize,
        work: usize,
        run: &dyn Fn(bool) -> Result<(), String>,
    ) -> Result<Scaled, String> {
        run(false)?;
        run(true)?;
        let clock = |all| -> Result<Duration, String> {
            let t = Instant::now();
            run(all)?;
            Ok(t.elapsed())
        };
        let (mut one, mut many, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let (x, y) = (clock(false)?, clock(true)?);
            ratios.push(work as f64 * x.as_secs_f64() / y.as_secs_f64());
            one.push(x);
            many.push(y);
        }
        ratios.sort_by(f64::total_cmp);
        Ok(Scaled {
            kernel,
            size: size.to_string(),
            one_ms: median(one),
            many_ms: median(many),
            ratios,
        })
    }

    fn median(&self) -> f64 {
        self.ratios[self.ratios.len() / 2]
    }
}

/// A loop of integer multiplies and adds, four independent chains: no memory at all.
fn arithmetic(steps: u64) -> u64 {
    let mut x = [1u64, 2, 3, 4];
    for _ in 0..steps {
        for v in &mut x {
            *v = v
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
        }
    }
    x.iter().fold(0, |a, b| a ^ b)
}

/// Run the PoCL peer script and read its `RESULT` lines: (kernel, size) → median ms.
fn pocl_times(script: &Path, runs: usize) -> Result<HashMap<(&'static str, String), f64>, String> {
    let out = Command::new("python3")
        .arg(script)
        .args(["--reps", &runs.max(1).to_string()])
        .output()
        .map_err(|e| format!("cannot run the PoCL peer {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "the PoCL peer {} failed (is PoCL installed? see its README):\n{}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut times = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() >= 5 && f[0] == "RESULT" {
            let name = ["R0", "R2", "R6", "T0", "T2", "C"]
                .into_iter()
                .find(|k| *k == f[2]);
            if let (Some(name), Ok(ms)) = (name, f[4].parse::<f64>()) {
                times.insert((name, f[3].to_string()), ms);
            }
        }
    }
    Ok(times)
}

/// The x86 instructions a CUDA C kernel (`warpsim cu` arguments `args`) executes inside its
/// blocks in fast mode on one CPU thread on tier `engine`, counted by valgrind in a child run
/// (`None` without valgrind).
fn cu_x86_instructions(args: &[String], engine: &str) -> Option<u64> {
    let dir = std::env::temp_dir().join(format!("warpsim-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join("kernels.cu");
    std::fs::write(&file, KERNELS_CU).ok()?;
    callgrind(|c| {
        c.arg("cu").arg(&file).args(args).args([
            "--no-counters",
            "--threads",
            "1",
            "--engine",
            engine,
        ]);
    })
}

/// Instructions inside blocks (`run_block`) of a child `warpsim` run, counted by valgrind.
fn callgrind(args: impl FnOnce(&mut Command)) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        // Compiled kernels are code written at run time.
        "--smc-check=all-non-file",
        "--toggle-collect=*launch::run_block*",
    ])
    .arg(exe);
    args(&mut cmd);
    let out = cmd.output().ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        // Valgrind stops at an instruction it cannot decode (GFNI, AVX-512): no count, not 0.
        let why = text
            .lines()
            .find(|l| l.contains("unhandled instruction") || l.contains("Illegal opcode"))
            .unwrap_or("the child run failed");
        eprintln!(
            "warpsim bench: valgrind: {}",
            why.trim_start_matches(|c| c == '=' || char::is_numeric(c))
                .trim()
        );
        return None;
    }
    let line = text.lines().find(|l| l.contains("Collected :"))?;
    line.rsplit(':')
        .next()?
        .trim()
        .replace(',', "")
        .parse()
        .ok()
}

/// The x86 instructions the case's kernel executes inside its blocks in fast mode on one CPU
/// thread, counted by valgrind in a child `warpsim run` (`None` without valgrind).
fn x86_instructions(c: &Case) -> Option<u64> {
    callgrind(|cmd| {
        cmd.args(["run", c.kernel, "--no-counters", "--threads", "1"])
            .args(&c.run_args);
    })
}

/// `cuda/kernels.cu`, built in: the CUDA twins of the catalogue.
const KERNELS_CU: &str = include_str!("../../../cuda/kernels.cu");

/// One launch written twice: with the Rust API and in CUDA C (`cuda/kernels.cu`).
struct Twin {
    kernel: &'static str,
    size: String,
    /// The PoCL peer's name of the same kernel at the same size, if it has one.
    pocl: Option<(&'static str, String)>,
    /// The buffer both forms write (compared before timing).
    output: Global<f32>,
    rust: Box<dyn Fn() -> Result<(), Error>>,
    /// The CUDA C launch in a mode; its report.
    cu: Box<dyn Fn(Mode) -> Result<cuda::CudaReport, Error>>,
    /// The same launch as `warpsim cu` arguments (for the instruction counts' child runs).
    cu_args: Vec<String>,
}

/// The reductions' block-partials launch and the transposes, each in both forms, on the same
/// buffers (fast mode), at the sizes of the cases (and PoCL's).
fn twins(dev: &std::sync::Arc<Device>, quick: bool) -> Result<Vec<Twin>, String> {
    let module = kernels_cu()?;
    let (n, sides) = if quick {
        (1u32 << 20, [512u32, 1024])
    } else {
        (1 << 24, [2048, 4096])
    };
    let mut v = reduction_twins(dev, &module, n)?;
    v.extend(transpose_twins(dev, &module, sides)?);
    Ok(v)
}

fn kernels_cu() -> Result<Module, String> {
    // The Rust API rounds every product and sum apart: the twins compare at nvcc's --fmad=false.
    let options = Options {
        fmad: false,
        ..Options::default()
    };
    Module::from_source("cuda/kernels.cu", KERNELS_CU, &options).map_err(|e| e.to_string())
}

/// The four reductions of `n` floats in both forms.
fn reduction_twins(
    dev: &std::sync::Arc<Device>,
    module: &Module,
    n: u32,
) -> Result<Vec<Twin>, String> {
    let x = dev.alloc_from("x", &data::unit_floats(n as usize, 7));
    type Rust = fn(&mut Block<'_>, &Global<f32>, &Global<f32>, u32);
    let mut v = Vec::new();
    let grid_stride = n.div_ceil(256).min(256);
    let reductions: [(&'static str, &str, Rust, u32, Option<&'static str>); 4] = [
        (
            "reduce-interleaved",
            "reduce_interleaved",
            reduction::interleaved,
            n.div_ceil(256),
            Some("R0"),
        ),
        (
            "reduce-sequential",
            "reduce_sequential",
            reduction::sequential,
            n.div_ceil(256),
            Some("R2"),
        ),
        (
            "reduce-unrolled",
            "reduce_unrolled<256>",
            reduction::unrolled::<256>,
            n.div_ceil(512),
            None,
        ),
        (
            "reduce-multi",
            "reduce_multi",
            reduction::multi,
            grid_stride,
            Some("R6"),
        ),
    ];
    for (kernel, name, rust, grid, pocl) in reductions {
        let k = module.lower(name).map_err(|e| e.to_string())?;
        let out = dev.alloc_zeroed::<f32>("out", grid as usize);
        let cfg = LaunchConfig::new(grid, 256).mode(Mode::Fast);
        let cu_cfg = cfg.clone().dynamic_shared(256 * 4);
        let cu_args = [
            "--kernel",
            name,
            "--grid",
            &grid.to_string(),
            "--block",
            "256",
            "--smem",
            "1024",
            "--arg",
            &format!("float[{n}]:rand"),
            "--arg",
            &format!("float[{grid}]:zeros"),
            "--arg",
            &n.to_string(),
        ]
        .map(String::from)
        .to_vec();
        let (d, d2, x2, out2) = (dev.clone(), dev.clone(), x.clone(), out.clone());
        let x = x.clone();
        let size = format!("2^{}", n.trailing_zeros());
        v.push(Twin {
            kernel,
            pocl: pocl.map(|p| (p, format!("N={size}"))),
            size,
            output: out.clone(),
            rust: Box::new(move || {
                d.launch(&cfg, |b: &mut Block<'_>| rust(b, &x, &out, n))
                    .map(drop)
            }),
            cu: Box::new(move |mode| {
                let args = [Arg::buffer(&x2), Arg::buffer(&out2), Arg::Int(n.into())];
                cuda::launch(&d2, &k, &cu_cfg.clone().mode(mode), &args)
            }),
            cu_args,
        });
    }
    Ok(v)
}

/// The three PoCL-measured transposes of each side, in both forms.
fn transpose_twins(
    dev: &std::sync::Arc<Device>,
    module: &Module,
    sides: [u32; 2],
) -> Result<Vec<Twin>, String> {
    let mut v = Vec::new();
    for side in sides {
        let input = dev.alloc_from("idata", &data::unit_floats((side * side) as usize, 8));
        for (kernel, name, variant, pocl) in [
            (
                "transpose-naive",
                "transpose_naive",
                transpose::Variant::Naive,
                "T0",
            ),
            (
                "transpose-no-conflicts",
                "transpose_no_conflicts",
                transpose::Variant::NoConflicts,
                "T2",
            ),
            (
                "transpose-copy-shared",
                "transpose_copy_shared",
                transpose::Variant::CopyShared,
                "C",
            ),
        ] {
            let k = module.lower(name).map_err(|e| e.to_string())?;
            let output = dev.alloc_zeroed::<f32>("odata", (side * side) as usize);
            let cfg = LaunchConfig::new((side / 32, side / 32), (32, 8)).mode(Mode::Fast);
            let (d, d2, i, o, i2, o2) = (
                dev.clone(),
                dev.clone(),
                input.clone(),
                output.clone(),
                input.clone(),
                output.clone(),
            );
            let size = format!("{side}x{side}");
            let elems = side * side;
            let cu_args = [
                "--kernel",
                name,
                "--grid",
                &format!("{}x{}", side / 32, side / 32),
                "--block",
                "32x8",
                "--arg",
                &format!("float[{elems}]:zeros"),
                "--arg",
                &format!("float[{elems}]:rand"),
                "--arg",
                &side.to_string(),
                "--arg",
                &side.to_string(),
            ]
            .map(String::from)
            .to_vec();
            v.push(Twin {
                kernel,
                pocl: Some((pocl, size.clone())),
                size,
                output,
                rust: Box::new(move || {
                    transpose::launch(&d, variant, &i, &o, side, side, Mode::Fast).map(drop)
                }),
                cu: Box::new(move |mode| {
                    let args = [
                        Arg::buffer(&o2),
                        Arg::buffer(&i2),
                        Arg::Int(side.into()),
                        Arg::Int(side.into()),
                    ];
                    cuda::launch(&d2, &k, &cfg.clone().mode(mode), &args)
                }),
                cu_args,
            });
        }
    }
    Ok(v)
}

/// One CUDA C twin's measurement.
struct TwinTimes {
    kernel: &'static str,
    size: String,
    pocl: Option<(&'static str, String)>,
    rust_ms: f64,
    cuda_ms: f64,
    /// The CUDA C launch in counting mode.
    cuda_count_ms: f64,
    /// The tier of the first launch, with its compile time.
    tier: cuda::Tier,
    /// x86 instructions per warp instruction in fast mode: on the interpreter, compiled.
    per_instr: Option<(f64, f64)>,
}

/// The CUDA C twins against the Rust API, interleaved, median of `runs`.
fn compare_twins(
    dev: &std::sync::Arc<Device>,
    quick: bool,
    runs: usize,
    instructions: bool,
) -> Result<Vec<TwinTimes>, String> {
    let mut rows = Vec::new();
    for t in twins(dev, quick)? {
        // Both forms must write the same values before their times mean anything.
        t.output.fill(f32::NAN);
        (t.rust)().map_err(|e| e.to_string())?;
        let want = t.output.to_vec();
        t.output.fill(f32::NAN);
        let tier = (t.cu)(Mode::Fast).map_err(|e| e.to_string())?.tier;
        let same = want
            .iter()
            .zip(&t.output.to_vec())
            .all(|(a, b)| a.to_bits() == b.to_bits());
        if !same {
            return Err(format!(
                "{}: the CUDA C and Rust kernels wrote different outputs",
                t.kernel
            ));
        }
        let (mut r, mut c, mut k) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            r.push(time(&|| (t.rust)().map(|()| 0))?);
            c.push(time(&|| (t.cu)(Mode::Fast).map(|_| 0))?);
            k.push(time(&|| (t.cu)(Mode::Count).map(|_| 0))?);
        }
        let per_instr = if instructions {
            let counted = (t.cu)(Mode::Count)
                .map_err(|e| e.to_string())?
                .launch
                .counters
                .map_or(0, |c| c.warp_instructions)
                .max(1) as f64;
            let x86 = |engine| cu_x86_instructions(&t.cu_args, engine);
            x86("interp")
                .zip(x86("jit"))
                .map(|(i, j)| (i as f64 / counted, j as f64 / counted))
        } else {
            None
        };
        rows.push(TwinTimes {
            kernel: t.kernel,
            size: t.size,
            pocl: t.pocl,
            rust_ms: median(r),
            cuda_ms: median(c),
            cuda_count_ms: median(k),
            tier,
            per_instr,
        });
    }
    Ok(rows)
}
