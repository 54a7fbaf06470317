//! Whole CUDA programs run with `warpsim cu FILE... [-- ARGS]`: the examples end to end (exit
//! status, output, profile JSON, counters equal to `--kernel` runs of the same kernels), the
//! runtime API, faults, misuse and protocol violations, and the build's messages.
//!
//! Every test builds its programs with the system C++ compiler into a cache under the test
//! target directory, shared by the tests of one build.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("warpsim-cache")
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn show(&self) -> String {
        format!(
            "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// `warpsim ARGS` in the repository root, with `stdin` as its input.
fn warpsim_with(args: &[&str], stdin: &str) -> Run {
    warpsim_env(args, stdin, &[])
}

/// `warpsim ARGS` with `stdin` as its input and `env` added to its environment.
fn warpsim_env(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .current_dir(root())
        .env("WARPSIM_CACHE_DIR", cache())
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpsim starts");
    child
        .stdin
        .take()
        .expect("a pipe")
        .write_all(stdin.as_bytes())
        .expect("stdin written");
    let out = child.wait_with_output().expect("warpsim runs");
    let r = Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).to_string(),
    };
    assert!(
        !r.stderr.contains("panicked"),
        "warpsim panicked:\n{}",
        r.show()
    );
    r
}

fn warpsim(args: &[&str]) -> Run {
    warpsim_with(args, "")
}

fn program(file: &str) -> String {
    format!("tests/data/programs/{file}")
}

/// A program run with its profile written as JSON.
fn with_json(files: &[&str], program_args: &[&str]) -> (Run, Value) {
    let json = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "profile-{}-{}.json",
        files[0].replace('/', "_"),
        program_args.join("_")
    ));
    let mut args = vec!["cu"];
    args.extend(files);
    let j = json.display().to_string();
    args.extend(["--json-out", &j, "--"]);
    args.extend(program_args);
    let r = warpsim(&args);
    let v = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| panic!("no profile JSON\n{}", r.show()));
    (r, v)
}

fn kernels(profile: &Value) -> Vec<String> {
    profile["launches"]
        .as_array()
        .expect("launches")
        .iter()
        .map(|l| l["name"].as_str().expect("a name").to_string())
        .collect()
}

fn passes(r: &Run) {
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.stdout.contains("PASSED"), "{}", r.show());
    assert!(r.stderr.contains("==warpsim== profile:"), "{}", r.show());
}

#[test]
fn vector_add_runs_as_written() {
    let (r, p) = with_json(&["examples/vector_add.cu"], &["5000"]);
    passes(&r);
    assert!(r.stdout.contains("PASSED: 5000 elements"));
    assert_eq!(kernels(&p), ["vector_add"]);
    assert_eq!(p["launches"][0]["grid"], serde_json::json!([20, 1, 1]));
    assert_eq!(p["exit"]["code"], 0);
    assert_eq!(p["launches"][0]["metrics"]["gst_efficiency"], 100.0);
}

#[test]
fn reductions_chain_launches() {
    let (r, p) = with_json(&["examples/reduce_two_pass.cu"], &["100000"]);
    passes(&r);
    // 100000 elements: 196 blocks, then 1 block.
    assert_eq!(kernels(&p), ["reduce_pass", "reduce_pass"]);
    assert_eq!(p["launches"][0]["grid"][0], 196);
    assert_eq!(p["launches"][1]["grid"][0], 1);
    let (r, p) = with_json(&["examples/reduce_template.cu"], &["20000", "128"]);
    passes(&r);
    assert_eq!(
        kernels(&p),
        [
            "reduce<float, 128>",
            "reduce<float, 128>",
            "reduce<int, 128>",
            "reduce<int, 128>"
        ]
    );
}

#[test]
fn verbose_says_which_tier_ran_each_kernel() {
    let r = warpsim(&[
        "cu",
        "examples/reduce_two_pass.cu",
        "--verbose",
        "--",
        "100000",
    ]);
    passes(&r);
    assert!(
        r.stderr
            .contains("==warpsim== `reduce_pass` (2 launches) ran compiled"),
        "{}",
        r.show()
    );
    let r = warpsim(&[
        "cu",
        "examples/reduce_two_pass.cu",
        "--verbose",
        "--engine",
        "interp",
        "--",
        "100000",
    ]);
    passes(&r);
    assert!(
        r.stderr.contains(
            "`reduce_pass` (2 launches) ran on the interpreter: the interpreter was asked for"
        ),
        "{}",
        r.show()
    );
    // The profile says it per launch.
    let (r, p) = with_json(&["examples/reduce_two_pass.cu"], &["100000"]);
    passes(&r);
    assert_eq!(p["launches"][1]["tier"], "compiled", "{p}");
}

#[test]
fn transpose_benchmark_times_with_events() {
    let (r, p) = with_json(&["examples/transpose_bench.cu"], &["96", "64"]);
    passes(&r);
    assert_eq!(
        kernels(&p),
        ["transpose_naive", "transpose_tiled", "transpose_padded"]
    );
    let m = |k: usize, name: &str| p["launches"][k]["metrics"][name].as_u64().unwrap();
    // The tile has bank conflicts that the padded tile does not.
    assert!(m(1, "shared_ld_bank_conflicts") > 0);
    assert_eq!(m(2, "shared_ld_bank_conflicts"), 0);
    for line in ["naive", "tiled", "padded"] {
        assert!(
            r.stdout
                .lines()
                .any(|l| l.starts_with(line) && l.ends_with(" ms, ok")),
            "{}",
            r.show()
        );
    }
}

/// The `name ... ms` line a program printed, as milliseconds.
fn printed_ms(r: &Run, name: &str) -> f64 {
    r.stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix(name)?
                .strip_suffix(" ms")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no `{name}` line\n{}", r.show()))
}

#[test]
fn events_measure_the_predicted_gpu_time() {
    let n = 1 << 16;
    let (r, p) = with_json(&[&program("events.cu")], &[&n.to_string()]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    let predicted = |k: usize| {
        p["launches"][k]["predicted_ms"]
            .as_f64()
            .expect("predicted")
    };
    let copy_ms =
        warpsim::predict::Timing::of(&warpsim::Profile::sm_90()).device_copy_s(4 * n) * 1e3;
    // The clock ticks in nanoseconds and the program reads f32 milliseconds.
    let close = |a: f64, b: f64| (a - b).abs() <= 2e-6 + 1e-6 * b;
    let first = printed_ms(&r, "first");
    let rest = printed_ms(&r, "rest");
    assert!(close(first, predicted(0)), "{first} vs {}", predicted(0));
    let want = predicted(1) + copy_ms + predicted(2);
    assert!(close(rest, want), "{rest} vs {want}");
    assert!(
        r.stderr.contains("predicted on Hopper (H100 SXM)"),
        "{}",
        r.show()
    );

    // --event-time cpu: the same events read warpsim's CPU time instead.
    let cpu = warpsim(&["cu", &program("events.cu"), "--event-time", "cpu"]);
    assert_eq!(cpu.code, Some(0), "{}", cpu.show());
    let first_cpu = printed_ms(&cpu, "first");
    assert!(
        first_cpu > 0.0 && !close(first_cpu, predicted(0)),
        "{}",
        cpu.show()
    );
}

#[test]
fn managed_memory_convolution_and_several_files() {
    let (r, p) = with_json(&["examples/managed.cu"], &["5000"]);
    passes(&r);
    assert_eq!(kernels(&p), ["saxpy", "saxpy"]);
    let (r, p) = with_json(&["examples/convolution.cu"], &["40", "30"]);
    passes(&r);
    assert_eq!(kernels(&p), ["convolve"]);
    let (r, p) = with_json(
        &[
            "examples/multifile/main.cpp",
            "examples/multifile/kernels.cu",
        ],
        &["3000"],
    );
    passes(&r);
    assert_eq!(kernels(&p), ["histogram256", "scale"]);
}

/// The metrics of the first launch of `kernel --kernel ARGS`.
fn kernel_metrics(args: &[&str]) -> Value {
    let mut a = vec!["cu"];
    a.extend(args);
    a.push("--json");
    let r = warpsim(&a);
    assert_eq!(r.code, Some(0), "{}", r.show());
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
    v["launches"][0]["metrics"].clone()
}

#[test]
fn program_counters_equal_those_of_the_kernel_alone() {
    let (_, p) = with_json(&["examples/vector_add.cu"], &["5000"]);
    let alone = kernel_metrics(&[
        "examples/vector_add.cu",
        "--kernel",
        "vector_add",
        "--block",
        "256",
        "--grid",
        "20",
        "--arg",
        "float[5000]:rand",
        "--arg",
        "float[5000]:iota",
        "--arg",
        "float[5000]:zeros",
        "--arg",
        "5000",
    ]);
    assert_eq!(p["launches"][0]["metrics"], alone);
    let (_, p) = with_json(&["examples/transpose_bench.cu"], &["96", "64"]);
    for (k, name) in ["transpose_naive", "transpose_tiled", "transpose_padded"]
        .iter()
        .enumerate()
    {
        let alone = kernel_metrics(&[
            "examples/transpose_bench.cu",
            "--kernel",
            name,
            "--block",
            "32x8",
            "--grid",
            "3x2",
            "--arg",
            "float[6144]:zeros",
            "--arg",
            "float[6144]:iota",
            "--arg",
            "96",
            "--arg",
            "64",
        ]);
        assert_eq!(p["launches"][k]["metrics"], alone, "{name}");
    }
    let (_, p) = with_json(&["examples/convolution.cu"], &["40", "30"]);
    let alone = kernel_metrics(&[
        "examples/convolution.cu",
        "--kernel",
        "convolve",
        "--block",
        "16x16",
        "--grid",
        "3x2",
        "--arg",
        "float[1200]:rand",
        "--arg",
        "float[1200]:zeros",
        "--arg",
        "40",
        "--arg",
        "30",
    ]);
    assert_eq!(p["launches"][0]["metrics"], alone);
}

/// The lines of the program's stdout as `call -> cudaError` pairs, in order.
fn transcript(r: &Run) -> Vec<(String, String)> {
    r.stdout
        .lines()
        .filter_map(|l| l.split_once(" -> "))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn status_of(r: &Run, call: &str) -> String {
    transcript(r)
        .into_iter()
        .find(|(c, _)| c.starts_with(call))
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no `{call}` in the transcript\n{}", r.show()))
}

/// Both ways bulk copies move: the default (straight between the program's memory and
/// warpsim's where the system allows) and through the staging file.
const COPIES: [&[(&str, &str)]; 2] = [&[], &[("WARPSIM_COPIES", "staged")]];

#[test]
fn the_runtime_api_as_programs_use_it() {
    for env in COPIES {
        the_runtime_api_with(env);
    }
    // The device profile decides what the program sees.
    let r = warpsim(&["cu", &program("api.cu"), "--device", "sm_61"]);
    assert!(r.stdout.contains("cc 6.1, 20 SMs"), "{}", r.show());
}

fn the_runtime_api_with(env: &[(&str, &str)]) {
    let r = warpsim_env(&["cu", &program("api.cu")], "", env);
    assert_eq!(r.code, Some(0), "{env:?}: {}", r.show());
    for line in [
        "devices 1, current 0",
        "cc 9.0, 132 SMs, warp 32, 49152 shared/block, max threads 1024",
        "major attribute 9",
        // Cooperative launches run (grid_sync.cu).
        "cooperative launch 1 1",
        "runtime 12040",
        "scaled 0 2 6 12 3996",
        "after memset 1996 0",
        "peer copy 1996 0, device 1: cudaErrorInvalidDevice",
        "scaled by the new symbol 0 20 60 120",
        "counter after two launches 300",
        "table 100 107",
        "table size 32",
        "shared_user: 1024 static shared bytes, max 1024 threads",
        "occupancy: 8 blocks of 256 per SM",
        "elapsed is non-negative",
        "reversed 255 0",
        "pinned 240",
        "pinned by a kernel 103 115 0, copied 100",
        "pool threshold 1048576",
        "big copy round trip 20971523 bytes intact",
    ] {
        assert!(
            r.stdout.lines().any(|l| l == line),
            "{env:?}: missing `{line}`\n{}",
            r.show()
        );
    }
    for (call, status) in transcript(&r) {
        let expected = if call.starts_with("cudaMemcpyToSymbol(d_table, h, 9") {
            "cudaErrorInvalidValue"
        } else {
            "cudaSuccess"
        };
        assert_eq!(status, expected, "{env:?}: {call}\n{}", r.show());
    }
    assert!(
        r.stderr
            .contains("36 bytes at offset 0 do not fit the 32-byte symbol")
    );
}

#[test]
fn struct_arguments_carry_their_pointers() {
    for mode in [None, Some("--check")] {
        let mut args = vec!["cu".to_string(), program("struct_pointers.cu")];
        args.extend(mode.map(str::to_string));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = warpsim(&args);
        assert_eq!(r.code, Some(0), "{mode:?}: {}", r.show());
        assert!(r.stdout.contains("PASSED (0 wrong)"), "{}", r.show());
    }
}

#[test]
fn a_host_pointer_that_is_no_memory_is_the_programs_error() {
    let (r, profile) = with_json(&[&program("host_pointer.cu")], &[]);
    match profile["copies"].as_str() {
        // warpsim copies itself, and the kernel tells it the range is not there.
        Some("direct") => {
            assert_eq!(r.code, Some(0), "{}", r.show());
            let t = transcript(&r);
            let statuses: Vec<&str> = t.iter().map(|(_, s)| s.as_str()).collect();
            assert_eq!(
                statuses,
                [
                    "cudaErrorInvalidValue",
                    "cudaErrorInvalidValue",
                    "cudaSuccess"
                ],
                "{}",
                r.show()
            );
            assert!(
                r.stderr.contains("is not readable memory of the program"),
                "{}",
                r.show()
            );
            assert!(
                r.stderr.contains("is not writable memory of the program"),
                "{}",
                r.show()
            );
        }
        // The program's own memcpy into the staging file crashes, as it would with CUDA.
        Some("staged") => {
            assert_eq!(r.code, Some(128 + 11), "{}", r.show());
            assert!(r.stderr.contains("killed by signal 11 (SIGSEGV)"));
        }
        other => panic!("copies {other:?}\n{}", r.show()),
    }
    let r = warpsim_env(
        &["cu", &program("host_pointer.cu")],
        "",
        &[("WARPSIM_COPIES", "staged")],
    );
    assert_eq!(r.code, Some(128 + 11), "{}", r.show());
}

#[test]
fn a_fault_is_located_once_and_sticky() {
    let r = warpsim(&["cu", &program("fault.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(
        r.stderr.matches("==warpsim== error:").count(),
        1,
        "{}",
        r.show()
    );
    assert!(
        r.stderr.contains(
            "out-of-bounds store of global buffer `cudaMalloc#1` in kernel `write_past` at \
         tests/data/programs/fault.cu:11:5: block (0, 0, 0), thread (1, 0, 0): index 1024 but \
         the buffer has 100 elements"
        ),
        "{}",
        r.show()
    );
    assert_eq!(status_of(&r, "cudaGetLastError"), "cudaErrorIllegalAddress");
    assert_eq!(
        status_of(&r, "cudaDeviceSynchronize"),
        "cudaErrorIllegalAddress"
    );
    assert_eq!(
        transcript(&r)[3],
        (
            "cudaMalloc(&e, 16)".to_string(),
            "cudaErrorIllegalAddress".to_string()
        )
    );
    assert_eq!(status_of(&r, "cudaDeviceReset"), "cudaSuccess");
    // After the reset the device works again.
    let last = transcript(&r).pop().expect("a transcript");
    assert_eq!(last.1, "cudaSuccess", "{}", r.show());

    let r = warpsim(&["cu", &program("fault.cu"), "--", "config"]);
    let t = transcript(&r);
    assert_eq!(t[1].1, "cudaErrorInvalidConfiguration", "{}", r.show());
    assert_eq!(t[2].1, "cudaSuccess");
    assert_eq!(t[3].1, "cudaSuccess");

    let r = warpsim(&["cu", &program("fault.cu"), "--", "null"]);
    assert!(
        r.stderr
            .contains("address 0x0 (through `p`, a null pointer) is in no device allocation"),
        "{}",
        r.show()
    );
    assert_eq!(
        status_of(&r, "cudaDeviceSynchronize"),
        "cudaErrorIllegalAddress"
    );
    let r = warpsim(&["cu", &program("fault.cu"), "--", "host"]);
    assert!(
        r.stderr.contains("(through `p`, which points at 0x"),
        "{}",
        r.show()
    );
}

#[test]
fn misuse_is_an_error_for_the_program_not_for_warpsim() {
    let r = warpsim(&["cu", &program("misuse.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    let t = transcript(&r);
    let expected = [
        "cudaSuccess",
        "cudaErrorInvalidValue",
        "cudaErrorInvalidValue",
        "cudaErrorInvalidValue",
        "cudaErrorInvalidValue",
        // cudaFree of what is no live allocation: CUDA 10.1 and later say cudaErrorInvalidValue.
        "cudaErrorInvalidValue",
        "cudaErrorInvalidValue",
        "cudaErrorInvalidDeviceFunction",
        "cudaSuccess",
        "cudaSuccess",
        "cudaSuccess",
        "cudaErrorInvalidValue",
        // Attributes 99999, cudaDevAttrMax and 0 are none; the warp size is one.
        "cudaErrorInvalidValue",
        "cudaErrorInvalidValue",
        "cudaErrorInvalidValue",
        "cudaSuccess",
        "cudaSuccess",
        "cudaErrorIllegalState",
        "cudaSuccess",
        // __trap(): an unspecified launch failure, sticky.
        "cudaErrorLaunchFailure",
        "cudaErrorLaunchFailure",
        "cudaErrorLaunchFailure",
    ];
    assert_eq!(
        t.iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>(),
        expected,
        "{}",
        r.show()
    );
    assert!(r.stdout.contains("warp size 32\n"), "{}", r.show());
    assert!(
        r.stderr
            .contains("256 bytes at 0x7f0000000000 run past the end of `cudaMalloc#1` (128 bytes")
    );
    assert!(r.stderr.contains("0x10 is not device memory"));
    assert!(r.stderr.contains("not a __global__ kernel of this program"));
    assert_eq!(
        r.stderr
            .matches("cudaFree: 0x7f0000000000 is not the start of a live allocation")
            .count(),
        1,
        "{}",
        r.show()
    );
    assert!(
        r.stderr.contains("__trap() called (thread (3, 0, 0))")
            && r.stderr
                .contains("cudaErrorLaunchFailure (719) from this launch"),
        "{}",
        r.show()
    );
    // A failed assert() is cudaErrorAssert, sticky too.
    let r = warpsim(&["cu", &program("misuse.cu"), "--", "assert"]);
    assert_eq!(
        transcript(&r)
            .iter()
            .map(|(_, s)| s.as_str())
            .collect::<Vec<_>>(),
        ["cudaSuccess", "cudaErrorAssert", "cudaErrorAssert"],
        "{}",
        r.show()
    );
}

#[test]
fn destroyed_and_forged_handles_are_invalid_resource_handles() {
    let r = warpsim(&["cu", &program("handles.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    // Creating, the first destruction, the default streams and the one good graph launch
    // succeed; every use of a destroyed, twice destroyed or forged handle is refused.
    let good = [
        "cudaStreamCreate(&s)",
        "cudaStreamDestroy(s)",
        "cudaStreamSynchronize(0)",
        "cudaStreamSynchronize(cudaStreamPerThread)",
        "cudaEventCreate(&e0)",
        "cudaEventCreate(&e1)",
        "cudaEventRecord(e0, 0)",
        "cudaEventDestroy(e1)",
        "cudaEventDestroy(e0)",
        "cudaGraphCreate(&g, 0)",
        "cudaGraphAddKernelNode(&n, g, nullptr, 0, &p)",
        "cudaGraphInstantiate(&x, g, 0)",
        "cudaGraphLaunch(x, 0)",
        "cudaGraphExecDestroy(x)",
        "cudaGraphDestroy(g)",
        "cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)",
    ];
    let t = transcript(&r);
    assert_eq!(t.len(), 45, "{}", r.show());
    let mut first = std::collections::HashSet::new();
    for (call, status) in &t {
        // A call that succeeded once is refused when repeated (the second destruction).
        let expected = if good.contains(&call.as_str()) && first.insert(call.clone()) {
            "cudaSuccess"
        } else {
            "cudaErrorInvalidResourceHandle"
        };
        assert_eq!(status, expected, "{call}\n{}", r.show());
    }
    assert_eq!(first.len(), good.len(), "{}", r.show());
    assert!(
        r.stdout.contains("elements at 2: 32, junk untouched: yes"),
        "{}",
        r.show()
    );
}

#[test]
fn dynamic_shared_memory_above_48_kib_needs_the_opt_in() {
    let r = warpsim(&["cu", &program("dynamic_shared.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    let expected = [
        // An H100's sharedMemPerBlockOptin (227 KiB).
        "optin 232448",
        "fill_sum limit 49152",
        "launch 48 KiB -> cudaSuccess, sum right",
        "launch 48 KiB + 4 -> cudaErrorInvalidValue, nothing ran",
        "launch 64 KiB -> cudaErrorInvalidValue, nothing ran",
        "cudaFuncSetAttribute(fill_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024) -> cudaSuccess",
        "fill_sum limit 65536",
        "launch 64 KiB raised -> cudaSuccess, sum right",
        "launch 64 KiB + 4 raised -> cudaErrorInvalidValue, nothing ran",
        "cudaFuncSetAttribute(fill_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 4) -> cudaErrorInvalidValue",
        "cudaFuncSetAttribute(fill_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, -1) -> cudaErrorInvalidValue",
        "cudaFuncSetAttribute(fill_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) -> cudaSuccess",
        "launch optin -> cudaSuccess, sum right",
        // 1 KiB of static shared memory lowers both limits by as much.
        "with_static limit 48128",
        "cudaLaunchKernel((const void *)with_static, dim3(1), dim3(256), args, 48 * 1024, 0) -> cudaErrorInvalidValue",
        "cudaFuncSetAttribute(with_static, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) -> cudaErrorInvalidValue",
        "cudaFuncSetAttribute(with_static, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - 1024) -> cudaSuccess",
        "cudaLaunchKernel((const void *)with_static, dim3(1), dim3(256), args, optin - 1024, 0) -> cudaSuccess",
        "cudaFuncSetAttribute(fill_sum, cudaFuncAttributePreferredSharedMemoryCarveout, 101) -> cudaErrorInvalidValue",
        "cudaFuncSetAttribute(fill_sum, cudaFuncAttributePreferredSharedMemoryCarveout, 50) -> cudaSuccess",
        "cudaDeviceSynchronize() -> cudaSuccess",
    ];
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        expected,
        "{}",
        r.show()
    );
    // Said once per kernel, with the way out.
    assert_eq!(
        r.stderr
            .matches("a launch of `fill_sum` asks for 49156 bytes of dynamic shared memory, above its limit of 49152")
            .count(),
        1,
        "{}",
        r.show()
    );
    assert!(
        r.stderr.contains(
            "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) raises the limit, up to 232448"
        ),
        "{}",
        r.show()
    );
}

#[test]
fn protocol_violations_stop_the_program() {
    for how in [
        "unknown-op",
        "short-frame",
        "huge-frame",
        "chunk-too-big",
        "bad-string",
    ] {
        let r = warpsim_env(
            &["cu", &program("rogue.cu"), "--", how],
            "",
            &[("WARPSIM_COPIES", "staged")],
        );
        assert_eq!(r.code, Some(1), "{how}: {}", r.show());
        assert!(
            r.stderr
                .contains("the program's runtime broke the protocol"),
            "{how}: {}",
            r.show()
        );
    }
    // A program that leaves in the middle of a copy ends the run, it does not hang it.
    let r = warpsim(&["cu", &program("rogue.cu"), "--", "close-mid-copy"]);
    assert_ne!(r.code, None, "{}", r.show());
}

#[test]
fn the_program_owns_stdin_stdout_and_its_exit_status() {
    let r = warpsim(&["cu", &program("behaviour.cu")]);
    assert_eq!(
        r.stdout,
        "host before\nhost after the launch\nkernel 7 says hello from thread 0\n\
         kernel 7 says hello from thread 1\nhost after the sync\n"
    );
    let r = warpsim_with(
        &["cu", &program("behaviour.cu"), "--", "stdin", "a b", "-x"],
        "a line\n",
    );
    assert_eq!(
        r.stdout,
        // argv[0] names the program as nvcc would have built it, beside its source.
        "read: a line\narg 2: a b\narg 3: -x\nname: tests/data/programs/behaviour\n",
        "{}",
        r.show()
    );
    let r = warpsim(&["cu", &program("behaviour.cu"), "--", "no-sync"]);
    assert!(
        r.stdout.contains("kernel 3 says hello from thread 1"),
        "{}",
        r.show()
    );
    let r = warpsim(&["cu", &program("behaviour.cu"), "--", "exit", "3"]);
    assert_eq!(r.code, Some(3), "{}", r.show());
    let r = warpsim(&["cu", &program("behaviour.cu"), "--", "crash"]);
    assert_eq!(r.code, Some(128 + 11), "{}", r.show());
    assert!(r.stderr.contains("killed by signal 11 (SIGSEGV)"));
    // A forked child that leaves does not end the parent's session; one that uses the
    // parent's runtime gets an error (processes.cu has more).
    let r = warpsim(&["cu", &program("behaviour.cu"), "--", "fork"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(
        r.stdout,
        "child leaving: exit 0\nchild using CUDA: exit 0\nparent: cudaSuccess\n",
        "{}",
        r.show()
    );
    assert!(r.stderr.contains("was forked from process"), "{}", r.show());
}

/// The transcript's statuses, in order.
fn statuses(r: &Run) -> Vec<String> {
    transcript(r).into_iter().map(|(_, s)| s).collect()
}

#[test]
fn forked_processes_use_cuda_one_at_a_time_and_never_hold_warpsim() {
    let p = program("processes.cu");
    // Built first, so that the time below is the run's.
    let r = warpsim(&["cu", &p]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    // Children that outlive the program, one forked before its first CUDA call (it holds the
    // channel), one executing `sleep`: warpsim ends with the program, not 20 s later.
    let start = std::time::Instant::now();
    let r = warpsim(&["cu", &p, "--", "linger"]);
    let took = start.elapsed();
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.stdout.starts_with("sum 496\n"), "{}", r.show());
    let children: Vec<i32> = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("children "))
        .expect("the children's pids")
        .split(' ')
        .map(|n| n.parse().expect("a pid"))
        .collect();
    for pid in children {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL);
    }
    assert!(
        took < std::time::Duration::from_secs(10),
        "warpsim waited {took:?} for the program's children\n{}",
        r.show()
    );
    // A child forked before any CUDA call may use CUDA, as with CUDA.
    let r = warpsim(&["cu", &p, "--", "child-cuda"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(
        r.stdout,
        "child: sum 496\nparent: child exit 0\n",
        "{}",
        r.show()
    );
    // While it does, its parent cannot: warpsim serves one process.
    let r = warpsim(&["cu", &p, "--", "both"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(
        statuses(&r),
        ["cudaErrorDevicesUnavailable", "cudaErrorDevicesUnavailable"],
        "{}",
        r.show()
    );
    assert!(r.stdout.contains("child: sum 496\n"), "{}", r.show());
    assert_eq!(
        r.stderr.matches("already uses CUDA on warpsim").count(),
        1,
        "{}",
        r.show()
    );
    // A child forked after its parent's first CUDA call gets CUDA's error, said once; the
    // parent goes on.
    let r = warpsim(&["cu", &p, "--", "after"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(
        statuses(&r),
        [
            "cudaSuccess",
            "cudaErrorInitializationError",
            "cudaErrorInitializationError",
            "cudaSuccess"
        ],
        "{}",
        r.show()
    );
    assert!(r.stdout.contains("parent: sum 496\n"), "{}", r.show());
    assert_eq!(
        r.stderr.matches("was forked from process").count(),
        1,
        "{}",
        r.show()
    );
}

#[test]
fn the_programs_descriptors_are_its_own() {
    let p = program("processes.cu");
    // A descriptor the harness opens (`3>log`) reaches the program as it is.
    let log = std::env::temp_dir().join(format!("warpsim-fd3-{}", std::process::id()));
    let file = std::fs::File::create(&log).expect("a log file");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpsim"));
    cmd.args(["cu", &p, "--", "fd3"])
        .current_dir(root())
        .env("WARPSIM_CACHE_DIR", cache());
    command_fds::CommandFdExt::fd_mappings(
        &mut cmd,
        vec![command_fds::FdMapping {
            parent_fd: file.into(),
            child_fd: 3,
        }],
    )
    .expect("descriptor 3 mapped");
    let out = cmd.output().expect("warpsim runs");
    let written = std::fs::read_to_string(&log).expect("the log");
    let _ = std::fs::remove_file(&log);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout, "sum 496\nwrite to 3: yes\nsum 496\n");
    assert_eq!(written, "the program's own descriptor 3\n");
    // A program that closes every descriptor above 2 closes warpsim's channel: its CUDA calls
    // fail, it is told once, and it goes on.
    for (how, first) in [("close-all", true), ("close-first", false)] {
        let r = warpsim(&["cu", &p, "--", how]);
        assert_eq!(r.code, Some(0), "{how}: {}", r.show());
        let mut expected = vec!["cudaErrorDevicesUnavailable"; 4];
        if first {
            expected.insert(0, "cudaSuccess");
        }
        assert_eq!(statuses(&r), expected, "{how}: {}", r.show());
        assert_eq!(
            r.stderr
                .matches("the program closed warpsim's channel")
                .count(),
            1,
            "{how}: {}",
            r.show()
        );
    }
}

/// Whether process `pid` has ended (gone, or a zombie its new parent has not reaped yet) within
/// `limit`.
fn ends_within(pid: i32, limit: std::time::Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with('Z')) =>
            {
                return true;
            }
            Ok(_) => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
    false
}

#[test]
fn stopping_warpsim_stops_the_program() {
    use nix::sys::signal::{Signal, kill};
    use std::io::BufRead;
    use std::time::Duration;
    let p = program("processes.cu");
    // Built once first, so that each run below starts its program at once.
    let r = warpsim(&["cu", &p]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    // SIGTERM and SIGHUP are passed on (SIGINT too, unless ignored, as in a background job);
    // after SIGKILL the program ends with warpsim.
    for sig in [Signal::SIGTERM, Signal::SIGHUP, Signal::SIGKILL] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warpsim"))
            .args(["cu", &p, "--", "sleep"])
            .current_dir(root())
            .env("WARPSIM_CACHE_DIR", cache())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("warpsim starts");
        let stdout = child.stdout.take().expect("a pipe");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                let _ = child.kill();
                panic!("the program did not start");
            });
        let pid: i32 = line
            .trim()
            .strip_prefix("pid ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no pid in {line:?}"));
        kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).expect("warpsim signalled");
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().expect("waits") {
                break s;
            }
            if start.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                let _ = kill(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL);
                panic!("warpsim still runs 10 s after {sig}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let ended = ends_within(pid, Duration::from_secs(5));
        if !ended {
            let _ = kill(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL);
        }
        assert!(ended, "the program outlived warpsim after {sig}");
        let mut stderr = String::new();
        let _ =
            std::io::Read::read_to_string(&mut child.stderr.take().expect("a pipe"), &mut stderr);
        if sig == Signal::SIGKILL {
            assert_eq!(
                std::os::unix::process::ExitStatusExt::signal(&status),
                Some(9)
            );
        } else {
            // warpsim reports how the program ended and exits as a shell would.
            assert_eq!(status.code(), Some(128 + sig as i32), "{sig}: {stderr}");
            assert!(
                stderr.contains(&format!("killed by signal {}", sig as i32)),
                "{sig}: {stderr}"
            );
        }
    }
}

#[test]
fn check_mode_runs_every_launch_and_fails_on_hazards() {
    let r = warpsim(&["cu", &program("race.cu"), "--check"]);
    assert_eq!(r.code, Some(1), "{}", r.show());
    assert!(r.stdout.contains("done"));
    assert!(
        r.stderr.contains("RaceReadAfterWrite in kernel `racy`"),
        "{}",
        r.show()
    );
    assert!(r.stderr.contains("check mode found 2 hazard(s)"));
    let r = warpsim(&["cu", "examples/vector_add.cu", "--check", "--", "3000"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.stderr.contains("check mode"));
    // An access outside memory fails the launch, as under memcheck; a barrier misuse is a
    // hazard for the exit status although it stopped the kernel.
    for (how, error) in [
        ("oob", "OutOfBounds in kernel `past_the_end`"),
        ("negative", "[4294967232] (-64 as a signed 32-bit index)"),
        ("barrier", "barrier misuse in kernel `half_barrier`"),
    ] {
        let r = warpsim(&["cu", &program("check_faults.cu"), "--check", "--", how]);
        assert_eq!(r.code, Some(1), "{how}: {}", r.show());
        assert!(
            r.stdout.contains("sync: cudaErrorLaunchFailure"),
            "{how}: {}",
            r.show()
        );
        assert!(r.stderr.contains(error), "{how}: {}", r.show());
        assert!(r.stderr.contains("check mode found"), "{how}: {}", r.show());
    }
}

#[test]
fn a_refused_kernel_is_named_and_its_launch_fails() {
    let r = warpsim(&["cu", &program("refused.cu")]);
    assert!(
        r.stderr
            .contains("refused.cu:9:5: error: inline PTX assembly (`asm`) is not supported"),
        "{}",
        r.show()
    );
    assert!(
        r.stderr.contains(
            "a lambda written in host code as a kernel's argument (`--extended-lambda`) is not supported"
        ),
        "{}",
        r.show()
    );
    assert_eq!(status_of(&r, "launch"), "cudaErrorInvalidDeviceFunction");
    assert_eq!(status_of(&r, "lambda"), "cudaErrorInvalidDeviceFunction");
    assert!(r.stderr.contains("2 kernel(s) could not run on warpsim"));
}

#[test]
fn a_kernel_naming_what_is_declared_nowhere_is_warned_of_and_fails_its_launch() {
    let warning = "undeclared.cu:8:51: warning: unknown identifier `scale_factor`";
    // Never launched: the program runs, told at the name what nvcc would refuse.
    let r = warpsim(&["cu", &program("undeclared.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.stdout.contains("whole: cudaSuccess 31\n"), "{}", r.show());
    assert!(r.stderr.contains(warning), "{}", r.show());
    assert!(r.stderr.contains("nvcc fails this build"), "{}", r.show());
    // Launched: that launch fails, the rest runs.
    let r = warpsim(&["cu", &program("undeclared.cu"), "--", "launch"]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.stderr.contains(warning), "{}", r.show());
    assert_eq!(status_of(&r, "broken"), "cudaErrorInvalidDeviceFunction");
}

#[test]
fn accesses_a_little_outside_an_allocation_go_on_as_on_a_gpu() {
    for engine in ["auto", "interp"] {
        let r = warpsim(&[
            "cu",
            &program("outside.cu"),
            "--engine",
            engine,
            "--",
            "far",
        ]);
        // Before the allocation and past its end read 0; a store past the end is read back.
        assert!(
            r.stdout
                .contains("neighbours -> cudaSuccess 3 1025 1027 1534\n"),
            "{}",
            r.show()
        );
        assert!(
            r.stdout.contains("spill -> cudaSuccess 10 320\n"),
            "{}",
            r.show()
        );
        // Far outside still faults.
        assert_eq!(
            status_of(&r, "far"),
            "cudaErrorIllegalAddress",
            "{}",
            r.show()
        );
        // One warning per source line, though `neighbours` ran three times.
        for (line, what) in [
            ("outside.cu:10:16", "index -512"),
            ("outside.cu:11:19", "index 1024"),
            ("outside.cu:17:5", "index 32"),
            ("outside.cu:19:12", "index 32"),
        ] {
            let notes: Vec<&str> = r
                .stderr
                .lines()
                .filter(|l| l.contains("warning:") && l.contains(line))
                .collect();
            assert_eq!(notes.len(), 1, "{line}\n{}", r.show());
            assert!(notes[0].contains(what), "{}", notes[0]);
        }
    }
    // --check is memcheck: the first such access fails its launch.
    let r = warpsim(&["cu", &program("outside.cu"), "--check"]);
    assert_eq!(r.code, Some(1), "{}", r.show());
    assert!(r.stderr.contains("outside.cu:10:"), "{}", r.show());
}

#[test]
fn cucomplex_works_on_both_sides_and_gl_interop_is_only_included() {
    let r = warpsim(&["cu", &program("complex.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(
        r.stdout,
        "f0 11 -2\nf1 3 4\nf2 5 3\nf3 12 6\nd0 -50 0\nd1 4 3\nd2 10 2\nhost 4 -3\n",
        "{}",
        r.show()
    );
}

#[test]
fn a_kernel_whose_parameter_has_its_name_is_launched() {
    let r = warpsim(&["cu", &program("kernel_named_like_parameter.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(r.stdout, "no error 3.5 93.5\n", "{}", r.show());
}

/// `file` runs every kernel on each tier (none refused) and prints `want`: programs whose
/// kernels compare each thread with the host's run of the same `__host__ __device__` code.
fn agrees_with_the_host_on_both_tiers(file: &str, want: &str) {
    for engine in ["auto", "interp"] {
        let r = warpsim(&["cu", &program(file), "--engine", engine]);
        assert_eq!(r.code, Some(0), "{}", r.show());
        assert_eq!(r.stdout, want, "{engine}: {}", r.show());
        assert!(!r.stderr.contains("could not run"), "{}", r.show());
    }
}

#[test]
fn pointers_into_a_threads_variables_and_postfix_steps_compute_what_the_host_computes() {
    agrees_with_the_host_on_both_tiers(
        "pointers.cu",
        "scalars 256 of 256, last 76815\narrays 256 of 256, last 113.500\n\
         matrix 256 of 256, last 109.000\nparticles 256 of 256, last 111006.750\n\
         two_buffers 256 of 256, first 99\nreverse 64 of 64, row 8: 63 62 56\n",
    );
}

#[test]
fn kernels_and_device_functions_that_macros_define_get_their_host_stubs() {
    // Families of kernels from macros with parameters, through other macros, as templates,
    // from a header's macro and in a namespace: the host compiler sees stubs, not bodies.
    agrees_with_the_host_on_both_tiers(
        "macro_kernels.cu",
        "twice 126 4032\nsquare 3969 85344\nlane 63 2016\nscale 297 49.75\n\
         negate -7 -441\nattributes 1\n",
    );
}

#[test]
fn unions_share_their_bytes_as_on_the_gpu_on_both_tiers() {
    // Float/int punning in a local anonymous union (aobench's generator), an array overlaying
    // named fields through anonymous members (d3q19-bgk's `outer_wall`, and in templates),
    // 8- and 16-byte unions, unions in structs and arrays indexed at run time, copied,
    // initialized, passed and returned by value, kernel parameters, global, shared,
    // `__device__` and `__constant__` unions and their layouts: each device result is the
    // host's.
    agrees_with_the_host_on_both_tiers(
        "unions.cu",
        "punning 256 of 256, last 109076445\noverlay 256 of 256, last 1142031\n\
         wide 256 of 256, last 1064344663\nnested 256 of 256, last 1124139008\n\
         copies 256 of 256, last -338667218\nvectors 256 of 256, last -8258538\n\
         places 256 of 256, last -785120764\ntemplates 256 of 256, last 510373616\n\
         parameters 256 of 256, last 1087373325\n\
         memory 256 of 256, globals 1\nlayouts 1653044 1644844, host 1653044 1644844\n",
    );
}

#[test]
fn statement_expressions_and_typeof_compute_what_the_host_computes() {
    agrees_with_the_host_on_both_tiers(
        "statement_expressions.cu",
        "macros 256 of 256, last 2406\nscoping 256 of 256, last 1788385\n\
         conditions 256 of 256, last 1131891\nreferences 256 of 256, last 287973\n\
         values 256 of 256, last 2996.00\ntypeof 256 of 256\n",
    );
}

#[test]
fn variadic_templates_and_kernels_compute_what_the_host_computes() {
    agrees_with_the_host_on_both_tiers(
        "variadic.cu",
        "functions 256 of 256, last 3565533.0\npack 256 of 256, last 715.0\n\
         empty 256 of 256, last 510\nforwarded 256 of 256, last 524.5\n\
         functor 256 of 256, last 378\ntemplate functor 256 of 256, last 362\n\
         pointers 256 of 256, last 88.0\n",
    );
}

#[test]
fn c_rules_found_broken_by_differential_testing_hold() {
    agrees_with_the_host_on_both_tiers(
        "semantics.cu",
        "same_width 256 of 256, last 127163371.0\nliterals 256 of 256, last 762852516615.0\n\
         defaults 256 of 256, last 10075.0\nlimits 256 of 256, last -2147451120.0\n\
         macros 256 of 256, last 766.5\ncomparisons 256 of 256, last 471.0\n",
    );
}

#[test]
fn cxx_rules_found_broken_by_differential_testing_hold() {
    agrees_with_the_host_on_both_tiers(
        "cxx_semantics.cu",
        "references 256 of 256, last 258260704994\ncopies 256 of 256, last 2570258595858572030\n\
         more_copies 256 of 256, last 9065330950640966579\n\
         lookup 256 of 256, last 1785767806275256\ndecltypes 256 of 256, last 84815311657259260\n\
         sequencing 256 of 256, last 272\nlambdas 256 of 256, last -6380508242419552195\n\
         odds 256 of 256, last 8355\nview 256 of 256\n",
    );
}

#[test]
fn hex_float_literals_numeric_limits_type_traits_and_deduced_declarations_agree_with_the_host() {
    agrees_with_the_host_on_both_tiers(
        "standard_library.cu",
        "hex_literals 256 of 256, last 1.6778e+07\nlimits 256 of 256, last 1002\n\
         traits 256 of 256, last 23205.5\ndeclarations 256 of 256, last 376690\n",
    );
}

#[test]
fn build_errors_point_at_the_users_source() {
    let r = warpsim(&["cu", &program("host_error.cu")]);
    assert_eq!(r.code, Some(2), "{}", r.show());
    assert!(r.stderr.contains("host_error.cu:7:"), "{}", r.show());
    assert!(r.stderr.contains("undefined_variable"));
    let r = warpsim(&["cu", &program("unsupported_api.cu")]);
    assert_eq!(r.code, Some(2), "{}", r.show());
    assert!(r.stderr.contains("unsupported_api.cu:8:"), "{}", r.show());
    assert!(
        r.stderr.contains(
            "`cudaGraphAddMemAllocNode` is not part of the CUDA runtime warpsim provides"
        ),
        "{}",
        r.show()
    );
    let r = warpsim(&["cu", "examples/vector_add.cu", "--cxx", "/no/such/g++"]);
    assert_eq!(r.code, Some(2), "{}", r.show());
    assert!(
        r.stderr
            .contains("the C++ compiler `/no/such/g++` was not found"),
        "{}",
        r.show()
    );
    let r = warpsim(&["cu", "examples/vector_add.cu", "--arg", "1"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--arg belongs to --kernel mode"));
}

/// Copy the directory `from` into `to`, recursively.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for e in std::fs::read_dir(from).expect("readable").flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copied");
        }
    }
}

/// Cut the file at `path` to `keep` of its bytes.
fn truncate(path: &Path, keep: fn(u64) -> u64) {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("the cached file");
    let len = f.metadata().expect("its size").len();
    f.set_len(keep(len)).expect("truncated");
}

#[test]
fn a_damaged_cache_is_rebuilt_not_run() {
    // A cache of its own (with the shared cache's runtimes, when there are any, to spare a
    // compile), as this test damages it.
    let own = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("warpsim-cache-damaged");
    let _ = std::fs::remove_dir_all(&own);
    if cache().join("runtime").is_dir() {
        copy_tree(&cache().join("runtime"), &own.join("runtime"));
    }
    let dir = own.to_string_lossy().into_owned();
    let env = [("WARPSIM_CACHE_DIR", dir.as_str())];
    let run = || {
        let r = warpsim_env(&["cu", "examples/managed.cu", "--", "100"], "", &env);
        passes(&r);
        r
    };
    run();
    assert!(!run().stderr.contains("compiling"), "cached");
    let programs: Vec<PathBuf> = std::fs::read_dir(own.join("programs"))
        .expect("programs")
        .flatten()
        .map(|e| e.path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    let [program] = &programs[..] else {
        panic!("one cached program: {programs:?}");
    };
    let exe = program.join("program");
    let size = std::fs::metadata(&exe).expect("the executable").len();
    // What a killed build leaves: a temporary directory of a process that is gone (no pid is
    // this large).
    let stale = own.join("programs").join(".0123.4000000000.5");
    std::fs::create_dir_all(stale.join("tree")).expect("stale");
    for keep in [|_| 0, |n| n / 2, |n| n - 1] {
        truncate(&exe, keep);
        let r = run();
        assert!(r.stderr.contains("compiling the host code"), "{}", r.show());
        assert_eq!(std::fs::metadata(&exe).expect("rebuilt").len(), size);
        assert!(!stale.exists(), "the killed build's directory is removed");
    }
    // The runtime's object, cut short, is compiled again (and the program still runs).
    for rt in std::fs::read_dir(own.join("runtime"))
        .expect("runtimes")
        .flatten()
    {
        if !rt.file_name().to_string_lossy().starts_with('.') {
            truncate(&rt.path().join("warpsim_runtime.o"), |n| n / 3);
        }
    }
    let r = run();
    assert!(
        r.stderr.contains("compiling warpsim's CUDA runtime"),
        "{}",
        r.show()
    );
    assert!(!run().stderr.contains("compiling"), "cached again");
}

#[test]
fn a_second_run_reuses_the_build() {
    let r = warpsim(&["cu", "examples/managed.cu", "--", "100"]);
    passes(&r);
    let r = warpsim(&["cu", "examples/managed.cu", "--", "100"]);
    passes(&r);
    assert!(!r.stderr.contains("compiling"), "{}", r.show());
}

#[test]
fn a_program_may_name_its_globals_as_it_likes() {
    let r = warpsim(&["cu", &program("names.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(
        r.stdout.trim(),
        "cudaSuccess: 14 24 34 44 54 64 74 84 94 104 114 124",
        "{}",
        r.show()
    );
    // Every runtime object built from this source exports only CUDA's names and the entry
    // points the generated host code calls; vague-linkage copies of the standard library's
    // templates (and of CUDA types' members) merge with the program's own and cannot collide.
    let source = std::fs::read(root().join("runtime/src/warpsim_runtime.cpp")).expect("source");
    let mut checked = 0;
    for dir in std::fs::read_dir(cache().join("runtime")).expect("a runtime was built") {
        let dir = dir.expect("an entry").path();
        // Not the temporary directories of builds under way.
        let temporary = dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if temporary
            || std::fs::read(dir.join("src/warpsim_runtime.cpp")).ok() != Some(source.clone())
        {
            continue;
        }
        let object = dir.join("warpsim_runtime.o");
        let out = Command::new("nm")
            .args(["--defined-only", "--extern-only"])
            .arg(&object)
            .output()
            .expect("nm runs");
        assert!(out.status.success(), "nm {}", object.display());
        let listing = String::from_utf8_lossy(&out.stdout);
        let mut strong = 0;
        for line in listing.lines() {
            let mut fields = line.split_whitespace().rev();
            let (Some(name), Some(kind)) = (fields.next(), fields.next()) else {
                continue;
            };
            let allowed = if matches!(kind, "W" | "V" | "u") {
                let inner = name.trim_start_matches("_ZZ").trim_start_matches("_Z");
                let inner = inner.trim_start_matches('N').trim_start_matches('K');
                name.starts_with("DW.ref.__gxx_personality")
                    || (name.starts_with("_Z")
                        && (inner.starts_with("St")
                            || inner.starts_with("Sa")
                            || inner.starts_with("9__gnu_cxx")
                            || inner
                                .trim_start_matches(|c: char| c.is_ascii_digit())
                                .starts_with("CU")
                            || inner
                                .trim_start_matches(|c: char| c.is_ascii_digit())
                                .starts_with("cuda")))
            } else {
                strong += 1;
                name.starts_with("cuda")
                    || name.starts_with("__cuda")
                    || name.starts_with("__warpsim_")
            };
            assert!(allowed, "the runtime exports `{name}` ({kind}):\n{listing}");
        }
        assert!(strong > 100, "the API is exported:\n{listing}");
        checked += 1;
    }
    assert!(checked > 0, "no runtime object of this source in the cache");
}

#[test]
fn the_report_draws_each_kernel() {
    let page = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("transpose.html");
    let r = warpsim(&[
        "cu",
        "examples/transpose_bench.cu",
        "--report",
        &page.display().to_string(),
        "--",
        "64",
    ]);
    passes(&r);
    let html = std::fs::read_to_string(&page).expect("a report");
    for k in ["transpose_naive", "transpose_tiled", "transpose_padded"] {
        assert!(html.contains(&format!("<h2>{k} (1 launch")), "{k}");
    }
    assert!(html.contains("<svg"));
    let _ = Path::new(&page);
}

#[test]
fn habits_of_real_programs() {
    let r = warpsim(&[
        "cu",
        &program("real/habits.cu"),
        "-D",
        "EMPTY=",
        "-I",
        &program("real"),
        "-I",
        &program("real/once"),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.stdout.contains("managed: 132 5\n"), "{}", r.show());
    assert!(
        r.stdout.contains("interior: cudaSuccess 0 31\n"),
        "{}",
        r.show()
    );
    // 3 * 32 + 2 + 1, then 3 + 8 + 0 + 1.
    assert!(r.stdout.contains("enum: 99 12\n"), "{}", r.show());
    assert!(
        r.stdout
            .contains("callback: 1, EMPTY=\"\", latin1: 1, bom: 1\n"),
        "{}",
        r.show()
    );
    assert!(r.stdout.contains("once: 42\n"), "{}", r.show());
    assert!(r.stdout.contains("typedefs: 3 31\n"), "{}", r.show());
    // The same header from a C++ source (compiled apart from the .cu files).
    let r = warpsim(&[
        "cu",
        &program("real/once_main.cpp"),
        "-I",
        &program("real"),
        "-I",
        &program("real/once"),
    ]);
    assert!(r.stdout.contains("once from C++: 42\n"), "{}", r.show());
}

#[test]
fn overloaded_kernels_run_the_overload_their_arguments_pick() {
    let (r, profile) = with_json(&[&program("real/overloads.cu")], &[]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    // 7 · 2; (1 + 0.5) · 3 in the first 16 lanes only; 1.5 · 100 as bytes.
    assert!(
        r.stdout
            .contains("overloads: 14 4.5 1.5 150 255 cudaSuccess\n"),
        "{}",
        r.show()
    );
    let names = kernels(&profile);
    for k in [
        "fill(int *, int)",
        "fill(float *, float)",
        "twice<int>(T *)",
        "twice<float>(T *, int)",
        "to_byte(uchar4 *, const float *)",
    ] {
        assert!(names.iter().any(|n| n == k), "{k} in {names:?}");
    }
}

/// Run `tests/data/programs/real/NAME.cu` and pair its output's lines with the GPU's
/// (`NAME.h200.txt`, the program built with nvcc and run on an H200), which must be as many.
fn against_gpu(name: &str) -> Vec<(String, String)> {
    against_gpu_as(name, &[], "h200")
}

/// [`against_gpu`] with warpsim's `flags`, against `real/{name}.{reference}.txt`.
fn against_gpu_as(name: &str, flags: &[&str], reference: &str) -> Vec<(String, String)> {
    let file = program(&format!("real/{name}.cu"));
    let args: Vec<&str> = ["cu"]
        .into_iter()
        .chain(flags.iter().copied())
        .chain([file.as_str()])
        .collect();
    let r = warpsim(&args);
    assert_eq!(r.code, Some(0), "{}", r.show());
    let gpu = std::fs::read_to_string(
        root().join(format!("tests/data/programs/real/{name}.{reference}.txt")),
    )
    .expect("the GPU's output");
    let pairs: Vec<(String, String)> = r
        .stdout
        .lines()
        .zip(gpu.lines())
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(
        (r.stdout.lines().count(), gpu.lines().count()),
        (pairs.len(), pairs.len()),
        "{}",
        r.show()
    );
    pairs
}

#[test]
fn curand_draws_what_the_gpu_draws() {
    for (a, b) in &against_gpu("curand") {
        let (x, y): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
        assert_eq!(x.len(), y.len(), "{a}\n{b}");
        // Normals (from 0, XORWOW: fields 6 and 8; Philox: 11 and 12) come from warpsim's log and
        // sin/cos: close, not equal. Every other field is a raw draw or a uniform: equal.
        let normal = |i: usize| match x[0] {
            "x" => i == 6 || i == 8,
            "p" => i >= 11,
            _ => false,
        };
        for (i, (u, v)) in x.iter().zip(&y).enumerate() {
            if normal(i) {
                let (u, v): (f64, f64) =
                    (u.parse().expect("a number"), v.parse().expect("a number"));
                assert!((u - v).abs() <= 1e-5 * v.abs().max(1.0), "{a}\n{b}");
            } else {
                assert_eq!(u, v, "field {i}\n{a}\n{b}");
            }
        }
    }
}

#[test]
fn products_fuse_into_sums_as_nvcc_fuses_them() {
    // Every pattern's results hash as the H200's, built with nvcc's default --fmad=true and
    // with --fmad=false, on both tiers: products fused into the sums that use them (one
    // rounding), across variables, branches, loops and inlined calls; not where the product
    // has another use or more than four, nor for __fmul_rn; of two products, the one nvcc
    // picks. fma_shared.cu writes one product in many patterns (nvcc computes it once).
    for name in ["fma", "fma_shared"] {
        for engine in ["interp", "jit"] {
            for (flags, reference) in [(vec![], "h200"), (vec!["--fmad=false"], "nofmad.h200")] {
                let flags: Vec<&str> = flags.into_iter().chain(["--engine", engine]).collect();
                for (a, b) in &against_gpu_as(name, &flags, reference) {
                    assert_eq!(a, b, "{name} {flags:?}");
                }
            }
        }
    }
    // nvcc's one-dash spelling.
    let r = warpsim(&["cu", "-fmad=false", &program("real/fma.cu")]);
    let gpu = std::fs::read_to_string(root().join("tests/data/programs/real/fma.nofmad.h200.txt"))
        .expect("the GPU's output");
    assert_eq!(r.stdout, gpu, "{}", r.show());
}

#[test]
fn a_shuffle_from_a_lane_not_taking_part_reads_zero_as_on_the_gpu() {
    // Sources inactive, outside the member mask, or shuffling on the other side of a branch
    // give 0 on an H200; past the segment, the lane's own value; reduce7's 8-lane second
    // reduction sums correctly. Both tiers.
    for engine in ["interp", "jit"] {
        for (a, b) in &against_gpu_as("shfl", &["--engine", engine], "h200") {
            assert_eq!(a, b, "--engine {engine}");
        }
    }
}

#[test]
fn half_precision_computes_the_gpus_bits() {
    // Every conversion, operation, comparison and operator of `cuda_fp16.h` over 65,536
    // operands: the device column must be the H200's hash; warpsim's host functions are the
    // device's (NVIDIA's host emulation differs in NaN payloads: not compared).
    // fp16.h200.txt was built with --fmad=false (nvcc contracts half arithmetic too, which
    // warpsim's cuda_fp16.h does not).
    for (a, b) in &against_gpu_as("fp16", &["--fmad=false"], "h200") {
        let (x, y): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
        let device = |v: &[&str]| {
            v.iter()
                .take_while(|w| **w != "host")
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(device(&x), device(&y), "{a}\n{b}");
        if let (Some(d), Some(h)) = (
            x.iter().position(|w| *w == "device"),
            x.iter().position(|w| *w == "host"),
        ) {
            let name = x[0];
            if name != "hfma" && name != "half2-ops" {
                assert_eq!(x.get(d + 1), x.get(h + 1), "host and device differ: {a}");
            }
        }
    }
}

#[test]
fn integer_intrinsics_compute_the_gpus_bits_on_both_tiers() {
    // `__byte_perm`, the funnel shifts, `__sad`, the halving adds, `__mul24` and `lrintf` & co
    // over 256 threads' operands: every hash and sample as the H200 printed them.
    for engine in ["auto", "interp"] {
        for (a, b) in &against_gpu_as("integer_intrinsics", &["--engine", engine], "h200") {
            assert_eq!(a, b, "{engine}");
        }
    }
}

#[test]
fn halves_convert_to_and_from_every_integer_type() {
    // `__half(short)` … `__half(unsigned long long)` (`__half2float(s.x)` of a `short` chooses
    // the function through the constructor), `__short2half_rn` & co, and the 24 half-to-integer
    // conversions, saturating, NaN as 0: each device hash is the host's.
    agrees_with_the_host_on_both_tiers(
        "half_conversions.cu",
        "half to integers 65536 of 65536\nintegers to half 65536 of 65536\n",
    );
}

#[test]
fn file_scope_constants_of_the_host_are_values_in_device_code() {
    // HeCBench axpby's `constexpr int depth_to_max_tensors[6]` sizing arrays in a struct
    // template: constexpr arrays, arrays of structs, a 2-D array and scalars as array bounds,
    // template arguments, case labels, `if constexpr` conditions and values at constant
    // indices, static constexpr arrays and structs of struct templates, and `__device__
    // constexpr` ones as bounds and as memory at run time (was "an initializer list needs a
    // declared type here").
    agrees_with_the_host_on_both_tiers(
        "file_constants.cu",
        "bounds 256 of 256, last 2327349\nselections 256 of 256, last 12547\n\
         device 256 of 256, last 3129\nmembers 256 of 256, last 3825795\n\
         meta 256 of 256, last 1204\n\
         values 256 of 256, last 331.75\n",
    );
}

#[test]
fn pointers_to_struct_parameters_reach_their_pointer_fields() {
    // HeCBench btree's `memAlloc->getAddressPtr(next)` with `memAlloc` = `&allocator`, a
    // by-value kernel parameter whose fields are pointers (was "this use of a pointer to a
    // local variable is not supported"), a pointer to a local copy, and two structs whose
    // fields are all pointers: each method saw the last one's (`a.get(t)` read `b.d`).
    agrees_with_the_host_on_both_tiers(
        "struct_pointer_aliases.cu",
        "through a pointer 64 of 64, stored 64 of 64, allocations 2, last 6689\n\
         local copy 64 of 64, last 481\ntwo views 32 of 32, last 404682\n",
    );
}

#[test]
fn reference_members_refer_to_what_their_constructor_bound() {
    // CUB's `_TempStorage &temp_storage` (HeCBench blockAccess was refused at the member), a
    // reference to global memory, to a thread's own variable, parameter and array element and
    // to a `__device__` variable: reads and writes reach the referent on both tiers, copies
    // share it, and `sizeof` counts 8 bytes for each, as the host's g++ does.
    for engine in ["interp", "jit"] {
        let r = warpsim(&["cu", &program("reference_members.cu"), "--engine", engine]);
        assert_eq!(r.code, Some(0), "{}", r.show());
        assert_eq!(
            r.stdout,
            "shared 384 of 384, last 2361\nglobal 128 of 128, sums 4 of 4, last 131.375\n\
             local 64 of 64, last 661176504, device variable 48 of 48\n\
             sizes 8 16 24, as the host's: 1\n",
            "{engine}: {}",
            r.show()
        );
        assert!(!r.stderr.contains("could not run"), "{}", r.show());
    }
}

#[test]
fn a_struct_parameters_large_arrays_are_read_from_its_bytes_at_run_time_offsets() {
    // HeCBench axpby's `TensorListMetadata` (arrays of 320 elements indexed by `blockIdx.x`)
    // was refused beyond the 256 elements warpsim picks among.
    agrees_with_the_host_on_both_tiers(
        "parameter_arrays.cu",
        "parameter arrays 10240 of 10240 (4920 bytes), last 16210511\n",
    );
    let r = warpsim(&[
        "cu",
        &program("parameter_arrays.cu"),
        "--engine",
        "jit",
        "--verbose",
    ]);
    assert!(
        r.stderr.contains("`read_meta` (1 launch) ran compiled"),
        "{}",
        r.show()
    );
}

#[test]
fn arrays_of_pointers_in_a_struct_parameter_and_aligned_storage() {
    // HeCBench axpby's `tl.addresses[d][tensor]` was "an array of empty structs", then its
    // `std::aligned_storage<16, 16>::type` copies "not supported". A pointer picked at run time
    // picks its buffer per thread, which the compiled tier refuses: `auto` runs that kernel on
    // the interpreter, the copies compiled.
    let want = "pointer arrays 384 of 384, last 418.00\n\
                aligned storage 128 of 128, size 16 align 16\n";
    for engine in ["auto", "interp"] {
        let r = warpsim(&[
            "cu",
            &program("parameter_pointer_arrays.cu"),
            "--engine",
            engine,
            "--verbose",
        ]);
        assert_eq!(r.code, Some(0), "{}", r.show());
        assert_eq!(r.stdout, want, "{engine}: {}", r.show());
        if engine == "auto" {
            assert!(
                r.stderr.contains("`copy_quads` (1 launch) ran compiled"),
                "{}",
                r.show()
            );
        }
    }
}

#[test]
fn half_math_functions_give_the_gpus_bits_for_every_half() {
    // hexp … hrint over all 65,536 halves, hashed per function: the H100's hashes (its results
    // are correctly rounded; computed in float, 1 to 5 operands per function rounded otherwise).
    for engine in ["auto", "interp"] {
        for (a, b) in &against_gpu_as("half_math", &["--engine", engine], "h100") {
            assert_eq!(a, b, "{engine}");
        }
    }
}

#[test]
fn bfloat16_and_fp8_compute_on_the_device_what_the_host_computes_with_the_known_bits() {
    // Every conversion, operation, comparison and operator of `cuda_bf16.h` and `cuda_fp8.h`
    // over 65,536 operands: each tier's device hash is the host's (the same header compiled by
    // g++); then bit patterns known from the formats' definitions: bfloat16 ties to even, NaN,
    // overflow to infinity, directed rounding, a double whose float would round wrongly, a fused
    // multiply-add a double sum would round wrongly; fp8 saturation, ties, NaN and subnormals.
    let known = "3f80 3f80 3f82 7f80 7fff 8000 7f7f bf81 bf80 3f81 43e5 2 4b80 3eab 7e 7e ff fe \
                 7b 7c 0 fe 1800 3f800000";
    for engine in ["auto", "interp"] {
        let r = warpsim(&["cu", &program("real/bf16.cu"), "--engine", engine]);
        assert_eq!(r.code, Some(0), "{}", r.show());
        assert!(!r.stderr.contains("could not run"), "{}", r.show());
        let lines: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(lines.len(), 22 + 3, "{}", r.show());
        for line in &lines[..22] {
            let w: Vec<&str> = line.split_whitespace().collect();
            assert_eq!((w[1], w[3]), ("device", "host"), "{line}");
            assert_eq!(w[2], w[4], "{engine}: device and host differ: {line}");
        }
        assert_eq!(
            lines[22],
            format!("patterns     device {known}"),
            "{engine}"
        );
        assert_eq!(lines[23], format!("patterns     host   {known}"));
        assert_eq!(lines[24], "cudaSuccess");
    }
}

#[test]
fn a_threads_variables_read_through_pointers_of_other_types_give_their_bytes() {
    agrees_with_the_host_on_both_tiers(
        "local_bytes.cu",
        "endianness 256 of 256, last 255\nbytes_of_int 256 of 256, last 5945\n\
         float_bits 256 of 256, last 4386357693137\nhalf2_bits 256 of 256, last 1409434626\n",
    );
}

#[test]
fn pointers_to_elements_of_arrays_in_struct_variables_step_through_them() {
    // `&p.rows[i][0]` and `p.rows[i]` handed to a function, `const Term *ts = &p.terms[i][0]`
    // kept in a variable: `q[k]`, `q->f` and `*q` read and write the elements; `state + 6` and
    // `out + k` of a member array, with `next(unsigned *)` and `next(unsigned char *)`
    // overloads calling each other.
    agrees_with_the_host_on_both_tiers(
        "element_pointers.cu",
        "row_ops 256 of 256, last 747.906\nterm_ops 256 of 256, last 5.000\n\
         block_ops 256 of 256, last 299758.000\n",
    );
}

#[test]
fn a_threads_arrays_read_and_written_through_pointers_of_other_types_at_run_time_indices() {
    // `reinterpret_cast<float *>(pack)[i]` of a `uint4 pack[2]`, halves of a `uint4`, bytes and
    // shorts of `unsigned w[3]` read and written, a `float *` moved along a `float4`.
    agrees_with_the_host_on_both_tiers(
        "local_reinterpret.cu",
        "floats_of_pack 256 of 256, last 7976263257\nhalves_of_pack 256 of 256, last 33286127619\n\
         bytes_of_words 256 of 256, last 17577251122\nfloat_pointer_along_float4 256 of 256, last 14795\n",
    );
}

#[test]
fn string_literals_used_as_data_hold_their_characters() {
    // `(const uint8_t *)"expand 32-byte k"` read as words, `const char *hex = "0..f"` indexed,
    // `"xyz"[i]` and a literal passed to a `const char *` parameter.
    agrees_with_the_host_on_both_tiers(
        "string_data.cu",
        "magic_words 256 of 256, last 16648855308\ndigits 256 of 256, last 852186\n",
    );
}

#[test]
fn half_math_functions_round_the_double_result_once_as_the_host_does() {
    agrees_with_the_host_on_both_tiers(
        "half_math.cu",
        "hexp 65536\nhalf2 65536\nhexp2 65536\nhexp10 65536\nhlog 65536\nhlog2 65536\n\
         hlog10 65536\nhsqrt 65536\nhrsqrt 65536\nhrcp 65536\nhsin 65536\nhcos 65536\n\
         htanh 65536\nhceil 65536\nhfloor 65536\nhtrunc 65536\nhrint 65536\n",
    );
}

#[test]
fn a_barrier_in_a_loop_threads_leave_for_their_exit_waits_for_those_still_looping() {
    // The misuse error before: the threads that left were "in another loop iteration".
    agrees_with_the_host_on_both_tiers(
        "barrier_exits.cu",
        "leave_then_exit: no error, 0 wrong\nleave_then_work: no error, 0 wrong\n",
    );
}

#[test]
fn loops_with_barriers_that_threads_may_leave_apart_compile_and_agree_with_the_host() {
    // Their exit tests read memory (lavaMD's bound, a queue in shared memory): the compiled
    // tier decides each exit for the block at run time, or ends the threads that leave a loop
    // nothing follows. Before, each ran on the interpreter ("a barrier under control flow that
    // depends on the thread is not compiled").
    let want = "bound_from_memory: no error, 0 wrong\nuneven_then_nothing: no error, 0 wrong\n\
                queue: no error, 0 wrong\nbound_then_work: no error, 0 wrong\n\
                uneven_then_work: unspecified launch failure\n";
    for engine in ["auto", "interp"] {
        let r = warpsim(&[
            "cu",
            &program("barrier_loops.cu"),
            "--engine",
            engine,
            "--verbose",
        ]);
        assert_eq!(r.stdout, want, "{engine}: {}", r.show());
        // Threads that left the loop wait after it for a barrier the others never pass.
        assert!(
            r.stderr
                .contains("barrier misuse in kernel `bound_then_work`"),
            "{}",
            r.show()
        );
        if engine == "auto" {
            for k in [
                "bound_from_memory",
                "uneven_then_nothing",
                "queue",
                "bound_then_work",
            ] {
                assert!(
                    r.stderr.contains(&format!("`{k}` (1 launch) ran compiled")),
                    "{k}: {}",
                    r.show()
                );
            }
        }
    }
}

#[test]
fn reciprocal_norm_and_nextafter_functions_agree_with_the_host() {
    agrees_with_the_host_on_both_tiers(
        "float_intrinsics.cu",
        "256 of 256 threads' results as the host's\n",
    );
}

#[test]
fn texture_objects_sample_as_the_gpu_samples() {
    for (a, b) in &against_gpu("textures") {
        // Linear filtering of normalized integers and in 3-D blends at a precision warpsim does
        // not reproduce bit for bit (README): their sums agree closely; every other case,
        // point sampling and 1-D and 2-D float filtering in every address mode, is the GPU's
        // bits (the hash of all 512 results).
        let approximate = ["normalized-linear", "3d-float-clamp-linear"]
            .iter()
            .any(|k| a.contains(k));
        if approximate {
            let sum = |l: &str| -> f64 {
                l.rsplit(' ')
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("a sum")
            };
            let (x, y) = (sum(a), sum(b));
            assert!((x - y).abs() <= 1e-3 * y.abs(), "{a}\n{b}");
            assert_eq!(a.split(' ').next(), b.split(' ').next());
        } else {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn texture_references_fetch_what_texture_objects_fetch() {
    let file = program("texture_references.cu");
    let mut outputs = Vec::new();
    for (engine, tier) in [
        ("interp", "ran on the interpreter"),
        ("auto", "ran compiled"),
    ] {
        let r = warpsim(&["cu", &file, "--engine", engine, "--verbose"]);
        passes(&r);
        let lines = transcript(&r);
        let case_of = |case: &str| -> &str {
            lines
                .iter()
                .find(|(c, _)| c == case)
                .map(|(_, s)| s.as_str())
                .unwrap_or_else(|| panic!("no `{case}` in the output\n{}", r.show()))
        };
        assert!(
            r.stderr
                .contains(&format!("`fetch_2d` (2 launches) {tier}")),
            "{}",
            r.show()
        );
        // Every case fetches through the reference what the texture object fetches.
        let cases = [
            "linear",
            "linear-offset",
            "rebound",
            "array-1d-linear-normalized",
            "array-2d-point",
            "array-2d-linear-normalized",
            "array-2d-normalized-float",
            "pitch-2d-linear",
            "array-3d-point",
            "bound-again",
        ];
        for case in cases {
            assert!(case_of(case).starts_with("same "), "{case}: {}", r.show());
        }
        // Bound 3 floats into an allocation: 12 bytes to add, as cudaBindTexture said.
        assert_eq!(status_of(&r, "offset"), "12 12");
        assert_eq!(
            status_of(&r, "unaligned-without-offset"),
            "cudaErrorInvalidValue"
        );
        // The rebound launch read the negated copy; the filtered cases are not all zeros.
        let sum = |case: &str| -> f64 {
            case_of(case)
                .rsplit(' ')
                .next()
                .and_then(|v| v.parse().ok())
                .expect("a sum")
        };
        assert_eq!(sum("linear"), 25813.0);
        assert_eq!(sum("rebound"), -25813.0);
        assert_eq!(sum("bound-again"), 25813.0);
        for case in [
            "array-2d-linear-normalized",
            "pitch-2d-linear",
            "array-3d-point",
        ] {
            assert!(sum(case).abs() > 1.0, "{case}: {}", r.show());
        }
        assert_eq!(case_of("after-reset"), "cudaSuccess -6453.2500");
        assert_eq!(status_of(&r, "channel-desc"), "8 8 8 8 1");
        assert_eq!(status_of(&r, "reference"), "plane 1");
        // A launch through an unbound reference fails, naming it and the fetch's line.
        assert_eq!(
            status_of(&r, "unbound-launch"),
            "cudaErrorInvalidConfiguration"
        );
        assert!(
            r.stderr.contains(&format!(
                "texture reference `lin` (declared at {file}:22, fetched at {file}:36) is bound \
                 to nothing"
            )),
            "{}",
            r.show()
        );
        outputs.push(r.stdout);
    }
    // Both tiers fetch the same bits.
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn host_compiler_options_reach_the_host_build() {
    let file = program("host_flags.cu");
    let r = warpsim(&[
        "cu",
        &file,
        "-Xcompiler",
        "-DHOST_ONLY=7,-O1",
        "-l",
        "m",
        "-L",
        "/usr/lib",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(
        r.stdout.contains("host flag 7: cudaSuccess"),
        "{}",
        r.show()
    );
    // Without it the host pass stops at the program's #error, at its line.
    let r = warpsim(&["cu", &file]);
    assert_eq!(r.code, Some(2), "{}", r.show());
    assert!(r.stderr.contains("host_flags.cu:5"), "{}", r.show());
}

#[test]
fn graphs_captured_or_built_run_when_launched() {
    let r = warpsim(&["cu", &program("graphs.cu")]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    // (0 + 3) · 2, then (6 + 3) · 2, (18 + 3) · 2: the captured `v`, each launch once; then
    // 5 + 1 by nodes (a 2 × 2 corner copied out of rows of 4), and 5 + 10 with new parameters.
    assert_eq!(
        r.stdout,
        "captured: active 1, after 0, 4 nodes, ran 0 (h[0] 0)\n\
         launch 0: 6 6, host calls 1\n\
         launch 1: 18 18, host calls 2\n\
         launch 2: 42 42, host calls 3\n\
         manual: 6 6 6 0, host calls 4\n\
         new parameters: 15\n\
         cudaSuccess\n\
         destroyed while capturing: 0 before the graph, 7 after\n",
        "{}",
        r.show()
    );
}

#[test]
fn faults_name_the_file_among_many() {
    // A fault in the twentieth file of a translation unit is reported in that file.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("many-files");
    std::fs::create_dir_all(&dir).unwrap();
    let mut main = String::from("#include <cstdio>\n");
    for k in 0..19 {
        std::fs::write(
            dir.join(format!("h{k}.h")),
            format!("#pragma once\n#define H{k} {k}\n"),
        )
        .unwrap();
        main += &format!("#include \"h{k}.h\"\n");
    }
    std::fs::write(
        dir.join("last.cuh"),
        "#pragma once\n\n__global__ void k(int *p) {\n  p[threadIdx.x + 100] = 1;\n}\n",
    )
    .unwrap();
    main += "#include \"last.cuh\"\nint main() {\n  int *d;\n  cudaMalloc(&d, 4);\n  k<<<1, 1>>>(d);\n  return cudaDeviceSynchronize() == cudaErrorIllegalAddress ? 0 : 1;\n}\n";
    std::fs::write(dir.join("main.cu"), main).unwrap();
    let r = warpsim(&["cu", &dir.join("main.cu").display().to_string()]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.stderr.contains("last.cuh:4:"), "{}", r.show());
}

#[test]
fn a_closed_stderr_does_not_crash_warpsim() {
    // `warpsim cu prog.cu 2>&1 | head -1`: warpsim's messages meet a closed pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(["cu", "examples/vector_add.cu", "--", "1000"])
        .current_dir(root())
        .env("WARPSIM_CACHE_DIR", cache())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpsim starts");
    drop(child.stderr.take());
    let status = child.wait().expect("warpsim runs");
    assert_eq!(status.code(), Some(0), "{status:?}");
}

#[test]
fn cooperative_launches_wait_for_every_block_at_grid_sync() {
    let r = warpsim(&["cu", &program("grid_sync.cu"), "--verbose"]);
    passes(&r);
    for line in [
        "cooperative launch: 1, 8 blocks of 256 per SM",
        "too large: cudaErrorCooperativeLaunchTooLarge",
        "normalised: sum 1.0000, 0 wrong",
        "smoothed: 0 differ",
    ] {
        assert!(r.stdout.contains(line), "{line}: {}", r.show());
    }
    assert!(
        r.stderr
            .contains("ran on the interpreter: grid.sync() is not compiled yet"),
        "{}",
        r.show()
    );
    // Race-free across its grid.sync()s: check mode finds nothing (the refused launch is the
    // program's to handle, no hazard).
    let r = warpsim(&["cu", &program("grid_sync.cu"), "--check"]);
    passes(&r);
    assert!(!r.stderr.contains("hazard"), "{}", r.show());
    // Without them the stencil's blocks read what their neighbours write.
    let r = warpsim(&["cu", &program("grid_sync.cu"), "--check", "--", "racy"]);
    assert_eq!(r.code, Some(1), "{}", r.show());
    assert!(
        r.stderr.contains("GlobalRace in kernel `smooth`"),
        "{}",
        r.show()
    );
    for (mode, status, error) in [
        (
            "plain",
            "plain: cudaErrorLaunchFailure",
            "grid_sync.cu:28:5, block (0, 0, 0), warp 0: grid.sync() in a launch that is not \
             cooperative",
        ),
        (
            "early",
            "early: cudaErrorLaunchFailure",
            "grid.sync() waits for block (1, 0, 0), which finished without reaching it",
        ),
    ] {
        let r = warpsim(&["cu", &program("grid_sync.cu"), "--", mode]);
        assert_eq!(r.code, Some(0), "{mode}: {}", r.show());
        assert!(r.stdout.contains(status), "{mode}: {}", r.show());
        assert!(r.stderr.contains(error), "{mode}: {}", r.show());
    }
}

#[test]
fn class_templates_as_block_primitives_write_them_compute_what_the_host_computes() {
    // Member typedefs, nested structs, enumerators and statics of each instance, partial
    // specialisations, member and alias templates, template base classes, member function
    // templates and a storage wrapper reinterpreted in shared memory.
    agrees_with_the_host_on_both_tiers(
        "class_templates.cu",
        "members 256 of 256, last 45909643418512\n\
         specialisations 256 of 256, last 10202594322777553\n\
         member_templates 256 of 256, last 255840025654254\n\
         bases 256 of 256, last 807687514794\n\
         member_functions 256 of 256, last 127511127255\n\
         storage 256 of 256, last 1080208255\nshared_storage 256 of 256, last 70765\n",
    );
}

#[test]
fn explicit_specialisations_overloads_and_default_arguments_of_templates_are_as_cpp_has_them() {
    agrees_with_the_host_on_both_tiers(
        "templates.cu",
        "specialisations 256 of 256, last 2211845.0\noverloads 256 of 256, last 151301026.0\n\
         defaults 256 of 256, last 70063932393369.0\nfill<float, float> 256 of 256, 6.0\nfill<double, double> 256 of 256, 4.0\n",
    );
}
