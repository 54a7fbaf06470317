//! `warpsim bench`: each kernel in fast mode, in counting mode and as native Rust, interleaved
//! in one process, median of several runs.

use crate::args::BenchArgs;
use serde_json::json;
use std::time::{Duration, Instant};
use warpsim::kernels::{data, native, reduction, transpose};
use warpsim::{Device, Error, Mode};

/// One benchmark: a warpsim job and the native job it is compared with.
struct Case {
    kernel: &'static str,
    size: String,
    native: &'static str,
    elements: usize,
    /// Run the kernel once in `mode`.
    warpsim: Box<dyn Fn(Mode) -> Result<(), Error>>,
    /// Clear the output before the verified run.
    reset: Box<dyn Fn()>,
    /// Whether the last run's output is right.
    verify: Box<dyn Fn() -> bool>,
    native_run: Box<dyn Fn()>,
}

fn reduction_case(dev: &std::sync::Arc<Device>, variant: reduction::Variant, n: usize) -> Case {
    let host = data::unit_floats(n, 5);
    let expected = reduction::reference(&host);
    let x = dev.alloc_from("x", &host);
    let d = std::sync::Arc::clone(dev);
    let host2 = host.clone();
    let last = std::rc::Rc::new(std::cell::Cell::new(f32::NAN));
    let seen = std::rc::Rc::clone(&last);
    Case {
        kernel: variant.name(),
        size: format!("2^{}", n.trailing_zeros()),
        native: "rayon par_iter().sum()",
        elements: n,
        warpsim: Box::new(move |mode| {
            last.set(reduction::reduce(&d, variant, &x, 256, mode)?.0);
            Ok(())
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
    Case {
        kernel: variant.name(),
        size: format!("{n}x{n}"),
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
            transpose::launch(&d, variant, &input, &output, n, n, mode).map(drop)
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

fn time(f: &dyn Fn() -> Result<(), Error>) -> Result<Duration, String> {
    let t = Instant::now();
    f().map_err(|e| e.to_string())?;
    Ok(t.elapsed())
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

pub fn bench(a: &BenchArgs) -> Result<(), String> {
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

fn run_cases(a: &BenchArgs) -> Result<(), String> {
    let dev = Device::default();
    let threads = dev.threads();
    let dev = std::sync::Arc::new(dev);
    let (small, large, tsmall, tlarge) = if a.quick {
        (1 << 16, 1 << 20, 256, 1024)
    } else {
        (1 << 20, 1 << 24, 1024, 4096)
    };
    let mut cases = Vec::new();
    for v in [
        reduction::Variant::Sequential,
        reduction::Variant::Multi,
        reduction::Variant::Shuffle,
    ] {
        for n in [small, large] {
            cases.push(reduction_case(&dev, v, n));
        }
    }
    for v in [
        transpose::Variant::Copy,
        transpose::Variant::Coalesced,
        transpose::Variant::NoConflicts,
    ] {
        for n in [tsmall, tlarge] {
            cases.push(transpose_case(&dev, v, n));
        }
    }
    let runs = a.runs.max(1);
    let mut results = Vec::new();
    if !a.json {
        out!("warpsim bench: {threads} CPU threads, median of {runs} runs, modes interleaved\n");
        out!(
            "  {:<24} {:>10} {:>11} {:>11} {:>13} {:>10} {:>12} {:>13}",
            "kernel",
            "size",
            "native ms",
            "fast ms",
            "counting ms",
            "Melem/s",
            "fast/native",
            "count/fast"
        );
    }
    for c in &cases {
        // One untimed round warms caches and checks every mode's output.
        for mode in [Mode::Fast, Mode::Count] {
            (c.reset)();
            (c.warpsim)(mode).map_err(|e| e.to_string())?;
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
                Ok(())
            })?);
        }
        let (f, k, n) = (median(fast), median(counting), median(nat));
        if !a.json {
            out!(
                "  {:<24} {:>10} {:>11.2} {:>11.2} {:>13.2} {:>10.0} {:>12.2} {:>13.2}",
                c.kernel,
                c.size,
                n,
                f,
                k,
                c.elements as f64 / f / 1e3,
                f / n,
                k / f
            );
        }
        results.push(json!({
            "kernel": c.kernel, "size": c.size, "native": c.native,
            "native_ms": n, "fast_ms": f, "counting_ms": k,
            "fast_over_native": f / n, "counting_over_fast": k / f,
        }));
    }
    if a.json {
        out!(
            "{}",
            serde_json::to_string_pretty(&json!({"threads": threads, "results": results}))
                .expect("plain JSON")
        );
    } else {
        out!(
            "\n(each case's output is verified in both modes before timing; times are the launches alone)"
        );
    }
    Ok(())
}
