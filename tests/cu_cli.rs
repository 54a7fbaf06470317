//! `warpsim cu` end to end: the binary on real files, as a user runs it (the library side is in
//! cuda_exec.rs, cuda_seeds.rs and cuda_twins.rs).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn warpsim(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("warpsim starts");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[track_caller]
fn expect(args: &[&str], code: i32, needles: &[&str]) -> Run {
    let r = warpsim(args);
    assert_eq!(
        r.code,
        Some(code),
        "`warpsim {}`\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        r.stdout,
        r.stderr
    );
    for n in needles {
        assert!(
            r.stdout.contains(n) || r.stderr.contains(n),
            "`warpsim {}` should mention {n:?}\nstdout:\n{}\nstderr:\n{}",
            args.join(" "),
            r.stdout,
            r.stderr
        );
    }
    r
}

/// A scratch directory for this test binary's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpsim-cu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

fn write(name: &str, text: &str) -> String {
    let p = scratch(name);
    std::fs::write(&p, text).expect("write scratch file");
    p.to_string_lossy().into_owned()
}

fn floats(path: &Path) -> Vec<f32> {
    std::fs::read(path)
        .expect("output file")
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/vector_add.cu");

/// The README's `--kernel` example (vector_add of 1000 elements), then `more` flags.
fn readme_example<'a>(more: &[&'a str]) -> Vec<&'a str> {
    let args = [
        "float[1000]:fill=1.5",
        "float[1000]:iota",
        "float[1000]:zeros",
        "1000",
    ];
    vector_add(args, more)
}

/// `warpsim cu` on the example's `vector_add` alone (`--kernel`), with these four arguments,
/// then `more` flags.
fn vector_add<'a>(args: [&'a str; 4], more: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["cu", EXAMPLE, "--kernel", "vector_add", "--block", "256"];
    for a in args {
        v.extend(["--arg", a]);
    }
    v.extend(more);
    v
}

#[test]
fn the_readme_example_runs_and_writes_its_output() {
    let out = scratch("c.bin");
    let c_arg = format!("C={}", out.display());
    let r = expect(&readme_example(&["--out", &c_arg, "--json"]), 0, &[]);
    let c = floats(&out);
    assert_eq!(c.len(), 1000);
    for (i, v) in c.iter().enumerate() {
        assert_eq!(*v, 1.5 + i as f32, "C[{i}]");
    }
    let j: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(j["kernel"], "vector_add");
    let launch = &j["launches"][0];
    // The grid comes from the largest buffer: ceil(1000 / 256) blocks.
    assert_eq!(launch["grid"][0], 4);
    // A[i] and B[i] in each of the 32 warps (4000 bytes each, whole sectors), and thread 0's
    // C[0] for its printf (4 bytes of one 32-byte sector).
    let m = &launch["metrics"];
    assert_eq!(m["gld_requests"], 2 * 32 + 1);
    assert_eq!(m["gld_sectors"], 2 * 125 + 1);
    let eff = m["gld_efficiency"].as_f64().expect("a number");
    assert!((eff - 100.0 * 8004.0 / 8032.0).abs() < 0.01, "{eff}");
    let printf = j["printf"].as_array().expect("printf array");
    assert_eq!(printf.len(), 1);
    assert_eq!(
        printf[0]["text"],
        "vector_add: 1000 elements, C[0] = 1.500000\n"
    );
    // --json-out and --report work with --kernel too (they were ignored).
    let (json, page) = (scratch("k.json"), scratch("k.html"));
    let _ = std::fs::remove_file(&json);
    let _ = std::fs::remove_file(&page);
    let (json_arg, page_arg) = (json.display().to_string(), page.display().to_string());
    expect(
        &readme_example(&["--json-out", &json_arg, "--report", &page_arg]),
        0,
        &["gld_requests"],
    );
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("--json-out")).expect("JSON");
    assert_eq!(written["launches"][0]["metrics"], *m);
    let html = std::fs::read_to_string(&page).expect("--report");
    assert!(html.contains("<h2>vector_add (1 launch") && html.contains("<svg"));
}

#[test]
fn outputs_never_overwrite_a_source_file() {
    let source = std::fs::read_to_string(EXAMPLE).expect("the example");
    let cu = write("own.cu", &source);
    let cpp = write("own_host.cpp", "int helper() { return 1; }\n");
    // The same files under other names: a symbolic and a hard link, and a detour.
    let link = scratch("link.cu");
    let hard = scratch("hard.cpp");
    let _ = std::fs::remove_file(&link);
    let _ = std::fs::remove_file(&hard);
    std::os::unix::fs::symlink(&cu, &link).expect("symlink");
    std::fs::hard_link(&cpp, &hard).expect("hard link");
    let dir = scratch("");
    let detour = dir
        .join("..")
        .join(dir.file_name().expect("a name"))
        .join("own.cu");
    let (link, hard, detour) = (
        link.to_string_lossy().into_owned(),
        hard.to_string_lossy().into_owned(),
        detour.to_string_lossy().into_owned(),
    );
    let out_c = format!("C={cu}");
    let cases: [(Vec<&str>, &str, &str); 5] = [
        (vec!["cu", &cu, "--json-out", &cu], "--json-out", &cu),
        (vec!["cu", &cu, &cpp, "--report", &hard], "--report", &cpp),
        (vec!["cu", &cu, "--report", &link], "--report", &cu),
        (vec!["cu", &cu, "--json-out", &detour], "--json-out", &cu),
        (
            vec![
                "cu",
                &cu,
                "--kernel",
                "vector_add",
                "--block",
                "256",
                "--arg",
                "float[1000]:iota",
                "--arg",
                "float[1000]:iota",
                "--arg",
                "float[1000]:zeros",
                "--arg",
                "1000",
                "--out",
                &out_c,
            ],
            "--out",
            &cu,
        ),
    ];
    for (args, flag, input) in cases {
        let r = expect(
            &args,
            2,
            &[&format!(
                "that is the input file {input}, which writing the output would overwrite"
            )],
        );
        assert!(r.stderr.contains(flag), "{}", r.stderr);
        assert!(!r.stderr.contains("compiling"), "{}", r.stderr);
        assert_eq!(std::fs::read_to_string(&cu).expect("own.cu"), source);
        assert_eq!(
            std::fs::read_to_string(&cpp).expect("own_host.cpp"),
            "int helper() { return 1; }\n"
        );
    }
}

#[test]
fn list_shows_kernels_and_parameters() {
    expect(
        &["cu", EXAMPLE, "--list"],
        0,
        &["vector_add", "const float * A", "int n", "line 25"],
    );
}

#[test]
fn printf_is_ordered_by_block_warp_lane_and_names_the_thread() {
    let f = write(
        "hello.cu",
        r#"#include <cstdio>
__global__ void hello() {
    if (threadIdx.x % 32 == 1) printf("b%d t%d\n", blockIdx.x, threadIdx.x);
}"#,
    );
    let r = expect(
        &[
            "cu", &f, "--kernel", "hello", "--grid", "2", "--block", "64", "--json",
        ],
        0,
        &[],
    );
    let j: Value = serde_json::from_str(&r.stdout).expect("JSON");
    let texts: Vec<&str> = j["printf"]
        .as_array()
        .expect("printf")
        .iter()
        .map(|p| p["text"].as_str().expect("text"))
        .collect();
    assert_eq!(texts, ["b0 t1\n", "b0 t33\n", "b1 t1\n", "b1 t33\n"]);
    assert_eq!(j["printf"][1]["thread"][0], 33);
}

#[test]
fn defines_and_templates_from_the_command_line() {
    let f = write(
        "scale.cu",
        r#"template <int K>
__global__ void scale(float *x) { x[threadIdx.x] *= K * FACTOR; }"#,
    );
    let out = scratch("x.bin");
    let x_arg = format!("x={}", out.display());
    expect(
        &[
            "cu",
            &f,
            "--kernel",
            "scale<3>",
            "-D",
            "FACTOR=2",
            "--block",
            "32",
            "--arg",
            "float[32]:fill=1",
            "--out",
            &x_arg,
            "--no-counters",
        ],
        0,
        &[],
    );
    assert_eq!(floats(&out), vec![6.0; 32]);
}

#[test]
fn check_mode_reports_a_race_with_its_line() {
    let f = write(
        "race.cu",
        r#"__global__ void race(float *out) {
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = s[63 - threadIdx.x];
}"#,
    );
    expect(
        &[
            "cu",
            &f,
            "--kernel",
            "race",
            "--block",
            "64",
            "--arg",
            "float[64]:zeros",
            "--check",
        ],
        1,
        &["race.cu:4"],
    );
}

#[test]
fn mistakes_are_explained() {
    // A buffer larger than the memory there is is refused before it is allocated (it aborted
    // the process); a file that never ends is read no further than needed.
    for (spec, needle) in [
        ("float[1<<40]:iota", "but "),
        ("float[5]:file=/dev/zero", "holds more than 20 bytes"),
    ] {
        expect(
            &vector_add([spec, "float[5]:zeros", "float[5]:zeros", "5"], &[]),
            2,
            &[needle],
        );
    }
    // An overloaded kernel's overloads are named; the one whose parameter count fits runs.
    let overloads = "tests/data/programs/real/overloads.cu";
    expect(
        &[
            "cu", overloads, "--kernel", "fill", "--block", "4", "--arg", "int[4]",
        ],
        2,
        &[
            "`fill` is overloaded: fill(int *, int), fill(float *, float)",
            "--kernel 'fill(int *, int)'",
        ],
    );
    expect(
        &[
            "cu",
            overloads,
            "--kernel",
            "fill(float *, float)",
            "--block",
            "4",
            "--arg",
            "float[4]",
            "--arg",
            "2.5",
        ],
        0,
        &["fill(float *, float)"],
    );
    let twice = write(
        "twice.cu",
        "__global__ void twice(int *p) { p[threadIdx.x] *= 2; }\n\
         __global__ void twice(int *p, int n) { if (threadIdx.x < n) p[threadIdx.x] *= 2; }\n",
    );
    expect(
        &[
            "cu",
            &twice,
            "--kernel",
            "twice",
            "--block",
            "4",
            "--arg",
            "int[4]:iota",
        ],
        0,
        &["twice(int *)"],
    );
    // A time limit no `Duration` holds is refused, not a panic.
    expect(
        &["cu", EXAMPLE, "--list", "--timeout", "1e300"],
        2,
        &["at most a year"],
    );
    // An unknown kernel names the ones there are.
    expect(
        &["cu", EXAMPLE, "--kernel", "vectorAdd", "--block", "256"],
        2,
        &["vectorAdd", "vector_add"],
    );
    // Too few arguments for the parameters.
    expect(
        &[
            "cu",
            EXAMPLE,
            "--kernel",
            "vector_add",
            "--block",
            "256",
            "--arg",
            "float[10]:zeros",
        ],
        2,
        &["--arg"],
    );
    // A file that does not parse: located.
    let bad = write("bad.cu", "__global__ void k(float *x) {\n  x[0] = ;\n}\n");
    let r = warpsim(&[
        "cu",
        &bad,
        "--kernel",
        "k",
        "--block",
        "32",
        "--arg",
        "float[1]:zeros",
    ]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("bad.cu:2"), "{}", r.stderr);
    // An extern shared array without --smem says what to pass.
    let ext = write(
        "ext.cu",
        "__global__ void k(float *x) {\n  extern __shared__ float s[];\n  s[threadIdx.x] = 1;\n  x[threadIdx.x] = s[threadIdx.x];\n}\n",
    );
    expect(
        &[
            "cu",
            &ext,
            "--kernel",
            "k",
            "--block",
            "32",
            "--arg",
            "float[32]:zeros",
        ],
        1,
        &["--smem"],
    );
    // Faults name the source line, the thread and the index; an off-by-one (a little
    // outside, where a GPU does not fault) is a warning that names them too.
    let oob = write(
        "oob.cu",
        "__global__ void k(const float *in, float *out, int n) {\n  int i = threadIdx.x;\n  if (i <= n) out[i] = in[i * 1024];\n}\n",
    );
    let off_by_one = write(
        "off_by_one.cu",
        "__global__ void k(const float *in, float *out, int n) {\n  int i = threadIdx.x;\n  if (i <= n) out[i] = in[i];\n}\n",
    );
    expect(
        &[
            "cu",
            &off_by_one,
            "--kernel",
            "k",
            "--block",
            "32",
            "--arg",
            "float[16]:zeros",
            "--arg",
            "float[32]:zeros",
            "--arg",
            "16",
        ],
        0,
        &[
            "off_by_one.cu:3:",
            "warning: load of global buffer `in` outside its 16 elements",
            "thread (16, 0, 0)",
            "index 16",
        ],
    );
    expect(
        &[
            "cu",
            &oob,
            "--kernel",
            "k",
            "--block",
            "32",
            "--arg",
            "float[16]:zeros",
            "--arg",
            "float[32]:zeros",
            "--arg",
            "16",
        ],
        1,
        &[
            "oob.cu:3:",
            "out-of-bounds load",
            "`in`",
            "thread (1, 0, 0)",
            "index 1024",
        ],
    );
    let bar = write(
        "bar.cu",
        "__global__ void k(float *out) {\n  if (threadIdx.x < 40) {\n    __syncthreads();\n  }\n  out[threadIdx.x] = 1;\n}\n",
    );
    let r = expect(
        &[
            "cu",
            &bar,
            "--kernel",
            "k",
            "--block",
            "64",
            "--arg",
            "float[64]:zeros",
        ],
        1,
        &["barrier misuse", "bar.cu:3:", "lanes 0xffffff00 of warp 1"],
    );
    assert!(!r.stderr.contains("Mask("), "{}", r.stderr);
    // What the engine does not implement is refused before running, located.
    let a64 = write(
        "a64.cu",
        "__global__ void k(double *p) { atomicAnd((unsigned long long *)p, 1ull); atomicOr((double *)p, 0.5); }\n",
    );
    expect(
        &[
            "cu",
            &a64,
            "--kernel",
            "k",
            "--block",
            "32",
            "--arg",
            "double[1]:zeros",
        ],
        2,
        &["a64.cu:1:", "`atomicOr` on `double` is not supported"],
    );
    // A per-thread array indexed past its end: the line and the thread.
    let local = write(
        "local.cu",
        "__global__ void k(float *out) {\n  float r[4];\n  for (int j = 0; j < 4; j++) r[j] = j;\n  out[threadIdx.x] = r[threadIdx.x];\n}\n",
    );
    expect(
        &[
            "cu",
            &local,
            "--kernel",
            "k",
            "--block",
            "8",
            "--arg",
            "float[8]:zeros",
        ],
        1,
        &[
            "local.cu:4:",
            "index 4 out of bounds of the per-thread array `r`",
            "thread (4, 0, 0)",
        ],
    );
    // A missing file.
    let r = warpsim(&["cu", "/nonexistent/k.cu", "--list"]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("/nonexistent/k.cu"), "{}", r.stderr);
}

#[test]
fn lines_attribute_the_counters_to_the_cuda_source() {
    let r = expect(&readme_example(&["--lines", "--json"]), 0, &[]);
    let j: Value = serde_json::from_str(&r.stdout).expect("JSON");
    let launch = &j["launches"][0];
    let lines = launch["lines"].as_array().expect("a lines array");
    let at = |n: u64| {
        lines
            .iter()
            .find(|l| l["line"] == n && l["file"].as_str().unwrap().ends_with("vector_add.cu"))
            .unwrap_or_else(|| panic!("no entry for line {n}: {lines:?}"))
    };
    // Line 27: `if (i < n) C[i] = A[i] + B[i];` (32 warps, the last one divergent).
    let l27 = at(27);
    assert_eq!(l27["source"], "if (i < n) C[i] = A[i] + B[i];");
    assert_eq!(l27["gld_requests"], 64);
    assert_eq!(l27["gst_requests"], 32);
    assert_eq!(l27["branches"], 32);
    assert_eq!(l27["divergent_branches"], 1);
    // Line 28: thread 0 reads C[0] for its printf.
    assert_eq!(at(28)["gld_requests"], 1);
    for key in [
        "warp_instructions",
        "gld_requests",
        "gst_requests",
        "branches",
        "divergent_branches",
    ] {
        let sum: u64 = lines.iter().map(|l| l[key].as_u64().unwrap()).sum();
        assert_eq!(sum, launch["metrics"][key].as_u64().unwrap(), "{key}");
    }
}

#[test]
fn struct_arguments_by_value_with_nested_braces() {
    let f = write(
        "q.cu",
        "struct Q { int id; float w; float p[3]; };\n__global__ void k(Q q, float *out) { out[threadIdx.x] = q.id + q.w + q.p[2]; }\n",
    );
    let out = scratch("q.bin");
    let o = format!("out={}", out.display());
    for spec in ["{1, 2.5, {0, 0, 4}}", "{1,2.5,0,0,4}"] {
        expect(
            &[
                "cu",
                &f,
                "--kernel",
                "k",
                "--block",
                "2",
                "--arg",
                spec,
                "--arg",
                "float[2]:zeros",
                "--out",
                &o,
                "--no-counters",
            ],
            0,
            &[],
        );
        assert_eq!(floats(&out), [7.5, 7.5], "{spec}");
    }
    expect(
        &[
            "cu",
            &f,
            "--kernel",
            "k",
            "--block",
            "2",
            "--arg",
            "{1, 2.5, {0, 4}}",
            "--arg",
            "float[2]:zeros",
        ],
        2,
        &["5 scalar fields, 4 given"],
    );
    for unpaired in [
        "{1, 2.5, {0, 0, 4}",
        "{1}{2.5, 0, 0, 4}",
        "{1, 2.5}, 0, 0, {4}",
    ] {
        expect(
            &[
                "cu",
                &f,
                "--kernel",
                "k",
                "--block",
                "2",
                "--arg",
                unpaired,
                "--arg",
                "float[2]:zeros",
            ],
            2,
            &["braces do not pair up"],
        );
    }
}
