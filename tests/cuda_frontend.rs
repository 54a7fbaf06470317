//! Tests of the CUDA C front-end: the preprocessor, the parser and the lowering to the IR
//! (`warpsim::cuda`), on the seed documents' kernels, the project's `cuda/kernels.cu`, CUDA
//! files written in the style of NVIDIA's samples, and small programs for each rule.

use std::path::{Path, PathBuf};

use warpsim::cuda::ir::{Base, Kernel, Op, Operand, ParamKind, Scalar, Stmt};
use warpsim::cuda::{Diagnostic, Module, Options};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cuda")
        .join(rel)
}

fn defines(list: &[(&str, &str)]) -> Options {
    Options::with_defines(
        &list
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Vec<_>>(),
    )
}

fn module(src: &str) -> Module {
    Module::from_source("test.cu", src, &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn lower(src: &str, name: &str) -> Kernel {
    module(src).lower(name).unwrap_or_else(|e| panic!("{e}"))
}

fn lower_err(src: &str, name: &str) -> Diagnostic {
    match Module::from_source("test.cu", src, &Options::default()) {
        Err(e) => e,
        Ok(m) => match m.lower(name) {
            Ok(k) => panic!(
                "expected an error, got\n{}",
                warpsim::cuda::print::kernel(&k)
            ),
            Err(e) => e,
        },
    }
}

/// Every statement, depth first.
fn walk<'k>(stmts: &'k [Stmt], out: &mut Vec<&'k Stmt>) {
    for s in stmts {
        out.push(s);
        match s {
            Stmt::If { then, els, .. } => {
                walk(then, out);
                walk(els, out);
            }
            Stmt::Loop { body, step, .. } => {
                walk(body, out);
                walk(step, out);
            }
            Stmt::Inline { body } => walk(body, out),
            _ => {}
        }
    }
}

fn all(k: &Kernel) -> Vec<&Stmt> {
    let mut v = Vec::new();
    walk(&k.body, &mut v);
    v
}

/// The counted arithmetic operations (the executor does not count copies, same-width
/// reinterpretations and address formation).
fn counted_ops(k: &Kernel) -> Vec<&Op> {
    all(k)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Assign(a)
                if a.varying
                    && !matches!(
                        a.op,
                        Op::Copy { .. } | Op::Bitcast { .. } | Op::Offset { .. }
                    ) =>
            {
                Some(&a.op)
            }
            _ => None,
        })
        .collect()
}

fn count<F: Fn(&Stmt) -> bool>(k: &Kernel, f: F) -> usize {
    all(k).into_iter().filter(|s| f(s)).count()
}

fn loads(k: &Kernel) -> usize {
    count(k, |s| matches!(s, Stmt::Load { .. }))
}

fn stores(k: &Kernel) -> usize {
    count(k, |s| matches!(s, Stmt::Store { .. }))
}

// ------------------------------------------------------------------------------ seeds

/// A seed file, its kernel and the `-D` definitions it needs.
type SeedCase<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

#[test]
fn complete_seed_kernels_lower() {
    let cases: &[SeedCase] = &[
        ("000_MyKernel_mul.cu", "MyKernel", &[]),
        ("000_MyKernel_square.cu", "MyKernel", &[]),
        ("003_MyKernel_mul.cu", "MyKernel", &[]),
        ("003_MyKernel_square.cu", "MyKernel", &[]),
        ("001_readOffset.cu", "readOffset", &[]),
        ("001_copyKernel_1.cu", "copyKernel", &[]),
        ("001_copyKernel_ldg.cu", "copyKernel", &[]),
        ("001_copyKernel_restrict.cu", "copyKernel", &[]),
        ("001_writeOffset.cu", "writeOffset", &[]),
        ("001_testInnerStruct.cu", "testInnerStruct", &[]),
        (
            "001_testInnerArray.cu",
            "testInnerArray",
            &[("N", "1048576"), ("InnerArray", "innerArray")],
        ),
        ("002_reduceSum.cu", "reduceSum", &[]),
    ];
    for (file, kernel, defs) in cases {
        let m = Module::from_file(&data(&format!("seeds/{file}")), &defines(defs))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.kernels().len(), 1, "{file}");
        let k = m.lower(kernel).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(loads(&k) + stores(&k) > 0, "{file}");
    }
}

#[test]
fn seed_struct_kernels_access_fields_one_by_one() {
    let m = Module::from_file(&data("seeds/001_testInnerStruct.cu"), &Options::default()).unwrap();
    let k = m.lower("testInnerStruct").unwrap();
    // `innerStruct tmp = data[i]; ... result[i] = tmp;`: two 4-byte loads, two stores.
    assert_eq!((loads(&k), stores(&k)), (2, 2));
    // The two field adds are the only arithmetic besides the index and the bounds check.
    let adds = counted_ops(&k)
        .iter()
        .filter(|o| {
            matches!(
                o,
                Op::Binary {
                    op: warpsim::cuda::ir::BinOp::Add,
                    ..
                }
            )
        })
        .count();
    assert_eq!(adds, 3); // blockIdx.x*blockDim.x + threadIdx.x, tmp.x += 10, tmp.y += 20
    let m = Module::from_file(
        &data("seeds/001_testInnerArray.cu"),
        &defines(&[("N", "1048576"), ("InnerArray", "innerArray")]),
    )
    .unwrap();
    let k = m.lower("testInnerArray").unwrap();
    assert_eq!((loads(&k), stores(&k)), (2, 2));
    // `data->y[i]` is at byte 4 * 2^20 + 4 i.
    let ys: Vec<_> = all(&k)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Load { addr, .. } => Some(addr.clone()),
            _ => None,
        })
        .collect();
    assert!(
        ys[1]
            .index
            .iter()
            .any(|(o, s)| *s == 1 && matches!(o, Operand::Const(c) if c.bits == 4 << 20)),
        "{ys:?}"
    );
}

#[test]
fn incomplete_seed_kernels_fail_clearly() {
    // (file, kernel, defines, line of the diagnostic or 0)
    let cases: &[(SeedCase, u32)] = &[
        (("001_readOffsetUnroll4.cu", "readOffsetUnroll4", &[]), 9),
        (("004_mtran.cu", "mtran", &[]), 4),
        (
            (
                "004_mtran_coalesced.cu",
                "mtran_coalesced",
                &[("TILE_DIM", "32"), ("BLOCK_ROWS", "8")],
            ),
            4,
        ),
        (("003_MyKernel_launch_bounds.cu", "MyKernel", &[]), 0),
    ];
    for ((file, kernel, defs), line) in cases {
        // A broken kernel is an error of the file (its declaration may not parse) or of lowering.
        let e = Module::from_file(&data(&format!("seeds/{file}")), &defines(defs))
            .and_then(|m| m.lower(kernel))
            .expect_err(file);
        let text = e.to_string();
        assert!(e.file.ends_with(file), "{text}");
        assert!(e.line > 0, "{text}");
        if *line > 0 {
            assert_eq!(e.line, *line, "{text}");
        }
        assert!(text.contains("error:"), "{text}");
        assert!(!e.source_line.is_empty(), "{text}");
    }
}

// ------------------------------------------------------------------------------ kernels.cu

#[test]
fn every_kernel_of_kernels_cu_lowers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda/kernels.cu");
    let m = Module::from_file(&path, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let kernels = m.kernels();
    assert_eq!(kernels.len(), 25);
    let mut lowered = 0;
    for info in &kernels {
        let names: Vec<String> = match info.name.as_str() {
            "reduce_unrolled" => [64, 128, 256, 512, 1024]
                .iter()
                .map(|b| format!("reduce_unrolled<{b}>"))
                .collect(),
            // Its pattern accesses are inline PTX (`asm volatile("ld.volatile.shared...")`) on
            // raw shared-memory addresses: rejected, with the position and the reason.
            "smem_pattern" => {
                for v in [1, 2, 4] {
                    let e = m
                        .lower(&format!("smem_pattern<{v}>"))
                        .expect_err("asm is rejected");
                    assert!(
                        e.message.contains("__cvta_generic_to_shared") || e.message.contains("asm"),
                        "{e}"
                    );
                    assert_eq!(e.line, 482, "{e}");
                }
                continue;
            }
            _ => vec![info.name.clone()],
        };
        for n in names {
            let k = m.lower(&n).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert!(!k.body.is_empty());
            lowered += 1;
        }
    }
    assert_eq!(lowered, 28);
    // Host code (lambdas, std::string, printf, <<<>>>) is skipped without complaint.
    assert!(
        m.warnings()
            .iter()
            .all(|w| !w.message.contains("not found")),
        "{:?}",
        m.warnings()
    );
}

#[test]
fn kernels_cu_reduce_unrolled_folds_the_block_size() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda/kernels.cu");
    let m = Module::from_file(&path, &Options::default()).unwrap();
    let syncs = |n: &str| count(&m.lower(n).unwrap(), |s| matches!(s, Stmt::Sync { .. }));
    // One barrier after the first add, then one per tree step above the warp.
    assert_eq!(syncs("reduce_unrolled<64>"), 1);
    assert_eq!(syncs("reduce_unrolled<256>"), 3);
    assert_eq!(syncs("reduce_unrolled<1024>"), 5);
    let k = m.lower("reduce_unrolled<256>").unwrap();
    assert_eq!(k.name, "reduce_unrolled<256>");
    // No uniform `if (BS >= ...)` survives.
    assert!(all(&k).iter().all(|s| !matches!(
        s,
        Stmt::If {
            cond: Operand::Const(_),
            ..
        }
    )));
}

#[test]
fn kernels_cu_transpose_tiles_are_row_major() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda/kernels.cu");
    let m = Module::from_file(&path, &Options::default()).unwrap();
    let k = m.lower("transpose_no_conflicts").unwrap();
    assert_eq!(k.shared.len(), 1);
    assert_eq!(k.shared[0].bytes, 32 * 33 * 4);
    // tile[threadIdx.x][threadIdx.y + j]: row stride 33 floats, column 4 bytes.
    let read = all(&k)
        .into_iter()
        .find_map(|s| match s {
            Stmt::Load { addr, .. } if addr.base == Base::Shared(0) => Some(addr.clone()),
            _ => None,
        })
        .unwrap();
    let scales: Vec<i64> = read.index.iter().map(|t| t.1).collect();
    assert_eq!(scales, vec![132, 4]);
}

// ------------------------------------------------------------------------------ other files

#[test]
fn files_written_elsewhere_lower() {
    let cases: &[(&str, &[&str])] = &[
        (
            "reduction_samples.cu",
            &[
                "reduce0<float>",
                "reduce1<float>",
                "reduce2<int>",
                "reduce3<float>",
                "reduce4<float, 256>",
                "reduce5<float, 512>",
                "reduce5<double, 64>",
                "reduce6<float, 256, true>",
                "reduce6<float, 128, false>",
            ],
        ),
        (
            "histogram_shared.cu",
            &["histogram_smem", "histogram_global"],
        ),
        ("matmul_tiled.cu", &["matmul_tiled", "matmul_naive"]),
        ("stencil_scan.cu", &["stencil_1d", "block_scan"]),
        ("soa_host.cu", &["sim::step_soa", "sim::step_aos"]),
    ];
    for (file, kernels) in cases {
        let m = Module::from_file(&data(&format!("others/{file}")), &Options::default())
            .unwrap_or_else(|e| panic!("{e}"));
        for k in *kernels {
            m.lower(k).unwrap_or_else(|e| panic!("{file} {k}: {e}"));
        }
    }
}

#[test]
fn reduction_sample_tiles_shuffle_with_the_tile_width() {
    let m = Module::from_file(&data("others/reduction_samples.cu"), &Options::default()).unwrap();
    let k = m.lower("reduce4<float, 256>").unwrap();
    let shfl: Vec<_> = all(&k)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Shfl { width, kind, .. } => Some((*width, *kind)),
            _ => None,
        })
        .collect();
    assert_eq!(shfl.len(), 1);
    assert!(matches!(shfl[0].0, Operand::Const(c) if c.bits == 32));
    // `cta.thread_rank()` is the linear thread index.
    let text = warpsim::cuda::print::kernel(&k);
    assert!(text.contains("LinearTid"), "{text}");
}

#[test]
fn aos_float4_fields_are_vector_accesses() {
    let m = Module::from_file(&data("others/soa_host.cu"), &Options::default()).unwrap();
    let k = m.lower("sim::step_aos").unwrap();
    // `Particle q = ps[i]` is two 16-byte loads; `ps[i] = q` two 16-byte stores.
    let l: Vec<usize> = all(&k)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Load { dst, .. } => Some(dst.len()),
            Stmt::Store { values, .. } => Some(values.len()),
            _ => None,
        })
        .collect();
    assert_eq!(l, vec![4, 4, 4, 4]);
    assert!(matches!(
        k.params[1].kind,
        warpsim::cuda::ir::ParamKind::Struct { size: 12, .. }
    ));
}

// ------------------------------------------------------------------------------ diagnostics

#[test]
fn syntax_error_is_located() {
    // The missing `;` at the end of line 2, as clang reports it.
    let e = lower_err(
        "__global__ void k(int *a) {\n    a[0] = 1\n    a[1] = 2;\n}\n",
        "k",
    );
    assert_eq!((e.file.as_str(), e.line), ("test.cu", 2), "{e}");
    assert!(e.to_string().contains("test.cu:2:"), "{e}");
    assert!(e.message.contains("syntax error"), "{e}");
}

#[test]
fn unsupported_constructs_are_rejected_with_help() {
    let cases = [
        (
            "__global__ void k(float *a) { float x; asm(\"mov.f32 %0, 1.0;\" : \"=f\"(x)); a[0] = x; }",
            "asm",
            1,
        ),
        (
            "texture<float, 2> tex;\n__global__ void k(float *a) {\n  a[0] = tex1D(tex, 0.5f);\n}",
            "`tex1D` fetches from a 2-dimensional texture reference",
            3,
        ),
        (
            "texture<int, cudaTextureType3D> vol;\n__global__ void k(int *a) {\n  a[0] = 1;\n  a[1] = tex1Dfetch(vol, 0);\n}",
            "`tex1Dfetch` fetches from a 3-dimensional texture reference",
            4,
        ),
        (
            "texture<float, 1> tex;\n__global__ void k(float *a) {\n  a[0] = tex1Dfetch<float>(tex, 0);\n}",
            "through a texture reference takes no template argument",
            3,
        ),
        (
            "texture<float, 1> tex;\n__global__ void k(float *a) {\n  a[0] = 1;\n  a[1] = tex;\n}",
            "a texture reference is read only by tex1Dfetch, tex1D, tex2D and tex3D",
            4,
        ),
        (
            "texture<float, cudaTextureType1D, cudaReadModeNormalizedFloat> tex;\n__global__ void k(float *a) {\n  a[0] = tex1Dfetch(tex, 0);\n}",
            "reads `float` as normalized floats",
            1,
        ),
        (
            "surface<void, 2> surf;\n__global__ void k(float *a) {\n  a[0] = 1;\n  a[1] = surf;\n}",
            "surfaces",
            4,
        ),
        (
            "__global__ void child(int *a) { a[0] = 1; }\n__global__ void k(int *a) {\n  child<<<1, 1>>>(a);\n}",
            "dynamic parallelism",
            3,
        ),
        (
            "__global__ void child(int *a) { a[0] = 1; }\n__global__ void k(int *a) {\n  cudaStream_t s;\n  cudaStreamCreate(&s);\n}",
            "`cudaStream_t` in device code (dynamic parallelism)",
            3,
        ),
        (
            "__global__ void k(int *a) {\n  goto out;\n  out: a[0] = 1;\n}",
            "goto",
            2,
        ),
        (
            "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *a) {\n  cg::grid_group g = cg::this_grid();\n  g.sync();\n  g.barrier_arrive();\n}",
            "grid group method `barrier_arrive`",
            6,
        ),
        (
            "__device__ int f(int x) { return x; }\n__global__ void k(int *a) {\n  int (*fp)(int) = f;\n  a[0] = fp(1);\n}",
            "function",
            3,
        ),
        (
            "__global__ void k(cudaTextureObject_t t, float *a) {\n  a[0] = 1;\n  a[1] = *(const float *)t;\n}",
            "a texture object is read with tex1Dfetch, tex1D, tex2D or tex3D",
            3,
        ),
        (
            "__global__ void k(cudaTextureObject_t t, float3 *a) {\n  a[0] = tex2D<float3>(t, 0.5f, 0.5f);\n}",
            "returns `float3`, which no texture holds",
            2,
        ),
        (
            "struct S { cudaTextureObject_t t; int n; };\n__global__ void k(S s, float *a) {\n  a[0] = tex1D<float>(s.t, 0.5f);\n}",
            "a texture object that is not one of the kernel's parameters",
            3,
        ),
        (
            "__global__ void k(cudaTextureObject_t t, float *a) {\n  a[0] = tex2DLayered<float>(t, 0.5f, 0.5f, 1);\n}",
            "`tex2DLayered`",
            2,
        ),
        (
            // A local struct variable (a kernel parameter's bytes are read instead).
            "struct P { int v[300]; };\n__global__ void k(P p, int *a) {\n  P q = p;\n  a[0] = q.v[threadIdx.x];\n}",
            "an array of 300 elements inside a struct variable, indexed at run time",
            4,
        ),
    ];
    for (src, what, line) in cases {
        let e = lower_err(src, "k");
        let text = e.to_string();
        assert!(text.contains(what), "{what}: {text}");
        assert_eq!(e.line, line, "{text}");
        assert!(e.col > 0);
    }
}

#[test]
fn recursion_is_detected() {
    let src = "__device__ int fact(int n) {\n  return n <= 1 ? 1 : n * fact(n - 1);\n}\n__global__ void k(int *a) { a[0] = fact(a[1]); }\n";
    let e = lower_err(src, "k");
    assert!(e.message.contains("recursive"), "{e}");
    assert_eq!(e.line, 2);
    assert!(e.help.as_deref().unwrap_or("").contains("loop"));
}

#[test]
fn unknown_identifier_and_missing_header() {
    let e = lower_err(
        "__global__ void k(int *a) {\n  a[0] = undefined_thing + 1;\n}\n",
        "k",
    );
    assert!(
        e.message.contains("unknown identifier `undefined_thing`"),
        "{e}"
    );
    assert_eq!((e.line, e.col), (2, 10));

    // A missing header is a warning until the kernel needs a name from it.
    let m = Module::from_source(
        "test.cu",
        "#include \"params.h\"\n__global__ void ok(int *a) { a[0] = 1; }\n__global__ void k(int *a) {\n  a[0] = SCALE * 2;\n}\n",
        &Options::default(),
    )
    .unwrap();
    assert!(m.warnings().iter().any(|w| w.message.contains("params.h")));
    m.lower("ok").unwrap();
    let e = m.lower("k").unwrap_err();
    assert!(
        e.message.contains("SCALE") && e.message.contains("params.h"),
        "{e}"
    );
    assert_eq!(e.line, 4);
}

#[test]
fn diagnostics_render_like_rustc() {
    let e = lower_err("__global__ void k(int *a) {\n    a[0] = nope;\n}\n", "k");
    let text = e.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "test.cu:2:12: error: unknown identifier `nope`");
    assert_eq!(lines[1], "  |      a[0] = nope;");
    assert_eq!(lines[2], "  |             ^");
}

#[test]
fn kernel_not_found_lists_kernels() {
    let m = module(
        "__global__ void a(int *x) { x[0] = 1; }\n__global__ void b(int *x) { x[0] = 2; }\n",
    );
    let e = m.lower("c").unwrap_err();
    assert!(e.help.unwrap().contains("a, b"));
    let e = m.lower("a<4>").unwrap_err();
    assert!(e.message.contains("template"), "{e}");
}

/// A small deterministic generator (no dependency on the crate's RNG version).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
}

#[test]
fn mutations_of_kernels_cu_never_panic() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda/kernels.cu");
    let src = std::fs::read_to_string(path).unwrap();
    // Only the device part, so every mutation exercises the lowering.
    let device = &src[..src.find("// Host side.").unwrap_or(src.len())];
    let names = [
        "reduce_sequential",
        "reduce_unrolled<128>",
        "transpose_diagonal",
        "rgb_to_gray",
        "branch_by_warp",
        "test_inner_struct",
    ];
    let tokens = [
        "",
        ";",
        "{",
        "}",
        "(",
        ")",
        "*",
        "[",
        "]",
        "x",
        "0",
        "<",
        ">>",
        "&&",
        "?",
        ":",
        "__syncthreads();",
        "return;",
        "\"",
        "'",
        "#if 0\n",
        "#define A(",
        "->",
        ".",
        "-",
        "float4",
    ];
    let mut rng = Lcg(42);
    for round in 0..300 {
        let mut s = device.to_string();
        match round % 3 {
            0 => s.truncate(rng.next() % s.len()),
            _ => {
                for _ in 0..1 + rng.next() % 4 {
                    let mut at = rng.next() % s.len();
                    while !s.is_char_boundary(at) {
                        at -= 1;
                    }
                    let len = (rng.next() % 8).min(s.len() - at);
                    let mut end = at + len;
                    while !s.is_char_boundary(end) {
                        end -= 1;
                    }
                    s.replace_range(at..end, tokens[rng.next() % tokens.len()]);
                }
            }
        }
        if let Ok(m) = Module::from_source("fuzz.cu", &s, &Options::default()) {
            let _ = m.kernels();
            for n in names {
                let _ = m.lower(n).map_err(|e| e.to_string());
            }
        }
    }
}

// ------------------------------------------------------------------------------ preprocessor

#[test]
fn preprocessor_function_like_macros() {
    let src = "#define SQ(x) ((x) * (x))\n#define CAT(a, b) a##b\n#define STR(s) #s\n#define IDX(r, c, w) ((r) * (w) + (c))\n\
               __global__ void k(float *out, int w) {\n  int CAT(my, Var) = SQ(threadIdx.x + 1);\n  out[IDX(blockIdx.x, myVar, w)] = 1.0f;\n  printf(STR(hello %d\\n), myVar);\n}\n";
    let k = lower(src, "k");
    let text = warpsim::cuda::print::kernel(&k);
    assert!(text.contains("myVar"), "{text}");
    let fmt = all(&k).into_iter().find_map(|s| match s {
        Stmt::Printf { format, .. } => Some(format.clone()),
        _ => None,
    });
    assert_eq!(fmt.as_deref(), Some("hello %d\n"));
}

#[test]
fn preprocessor_conditionals_and_defines() {
    let src = "#define A 3\n#if A > 2 && defined(A) && !defined(B)\n#define WIDTH 64\n#elif A == 2\n#define WIDTH 32\n#else\n#error nope\n#endif\n\
               #ifdef __CUDACC__\n#if __CUDA_ARCH__ >= 700\n#define HAVE_SYNC 1\n#endif\n#endif\n#ifndef HAVE_SYNC\n#error no sync\n#endif\n#undef A\n#ifdef A\n#error A\n#endif\n\
               __global__ void k(int *out) { out[threadIdx.x] = WIDTH * SCALE; }\n";
    let m = Module::from_source("t.cu", src, &defines(&[("SCALE", "5")]))
        .unwrap_or_else(|e| panic!("{e}"));
    let k = m.lower("k").unwrap();
    let stored = all(&k).into_iter().find_map(|s| match s {
        Stmt::Store { values, .. } => Some(values[0]),
        _ => None,
    });
    assert!(
        matches!(stored, Some(Operand::Const(c)) if c.bits == 320),
        "{stored:?}"
    );
    // #error in an active group is fatal and located.
    let e = Module::from_source(
        "t.cu",
        "#if 1\n#error stop here\n#endif\n",
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("stop here"));
    let e = Module::from_source("t.cu", "#if 1\nint x;\n", &Options::default()).unwrap_err();
    assert!(e.message.contains("#endif"));
}

#[test]
fn preprocessor_includes_keep_original_positions() {
    let dir = std::env::temp_dir().join(format!("warpsim_pp_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/common.h"), "#pragma once\n#include \"more.h\"\n#define BLOCK 128\n__device__ float twice(float v) {\n  return v * undefined_in_header;\n}\n").unwrap();
    std::fs::write(
        dir.join("inc/more.h"),
        "#ifndef MORE_H\n#define MORE_H\nstruct Pair { float a, b; };\n#endif\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.cu"),
        "#include <cstdio>\n#include \"inc/common.h\"\n#include \"inc/common.h\"\n#include \"inc/more.h\"\n__global__ void ok(Pair *p) { p[threadIdx.x].a = BLOCK; }\n__global__ void bad(float *x) {\n  x[0] = twice(x[1]);\n}\n",
    )
    .unwrap();
    let m = Module::from_file(&dir.join("main.cu"), &Options::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    m.lower("ok").unwrap();
    let e = m.lower("bad").unwrap_err();
    assert!(e.file.ends_with("common.h"), "{e}");
    assert_eq!((e.line, e.col), (5, 14), "{e}");
    assert_eq!(e.source_line, "  return v * undefined_in_header;");
    let info = &m.kernels()[1];
    assert_eq!(m.line(info.site), Some("__global__ void bad(float *x) {"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn macro_expansion_maps_to_the_use() {
    let src = "#define LOAD(p, i) (p)[i]\n__global__ void k(float *a) {\n  float v = LOAD(a, threadIdx.x) + nothing;\n}\n";
    let e = lower_err(src, "k");
    assert_eq!(e.line, 3);
    assert_eq!(e.col, 36, "{e}");
}

// ------------------------------------------------------------------------------ lowering rules

#[test]
fn indexing_costs_only_the_source_arithmetic() {
    let src = "__global__ void k(float *A, float *B, float *C, int n, int offset) {\n\
               int i = blockIdx.x * blockDim.x + threadIdx.x;\n int k = i + offset;\n\
               if (k < n) C[i] = A[k] + B[k];\n}\n";
    let k = lower(src, "k");
    // i: one add (the multiply is uniform), k: one add, the compare, the float add.
    let ops = counted_ops(&k);
    assert_eq!(ops.len(), 4, "{}", warpsim::cuda::print::kernel(&k));
    assert_eq!((loads(&k), stores(&k)), (2, 1));
    // `A[k]`: A's offset plus k scaled by 4, no operation.
    let addr = all(&k)
        .into_iter()
        .find_map(|s| match s {
            Stmt::Load { addr, .. } => Some(addr.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(addr.base, Base::Param(0));
    assert_eq!(addr.index.len(), 1);
    assert_eq!(addr.index[0].1, 4);
    // Source arithmetic inside an index is counted, once per operator.
    let src2 = "__global__ void k(float *o, const float *in, int n) {\n int x = threadIdx.x, y = threadIdx.y;\n o[y * n + x] = in[x * n + y];\n}\n";
    assert_eq!(counted_ops(&lower(src2, "k")).len(), 4);
}

#[test]
fn pointer_arithmetic_is_free_and_fixed_to_its_buffer() {
    let src = "__global__ void k(int *g_idata, int *g_odata) {\n unsigned int tid = threadIdx.x;\n\
               int *idata = g_idata + blockIdx.x * blockDim.x;\n int *p = &idata[tid];\n *p += 1;\n p++;\n\
               g_odata[blockIdx.x] = idata[0] + p[-1];\n}\n";
    let k = lower(src, "k");
    let ops = counted_ops(&k);
    // `*p += 1` and `idata[0] + p[-1]`: the two additions in the source; no address math.
    assert_eq!(ops.len(), 2, "{}", warpsim::cuda::print::kernel(&k));
    assert!(all(&k).into_iter().all(|s| match s {
        Stmt::Load { addr, .. } | Stmt::Store { addr, .. } =>
            addr.base == Base::Param(0) || addr.base == Base::Param(1),
        _ => true,
    }));
}

#[test]
fn uniform_loop_of_the_reduction_tree() {
    let src = "__global__ void k(float *x) {\n extern __shared__ float s[];\n unsigned int t = threadIdx.x;\n\
               for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {\n if (t < stride) s[t] += s[t + stride];\n __syncthreads();\n }\n}\n";
    let k = lower(src, "k");
    let stride = k.vars.iter().find(|v| v.name == "stride").unwrap();
    assert!(stride.uniform);
    let lp = all(&k)
        .into_iter()
        .find(|s| matches!(s, Stmt::Loop { .. }))
        .unwrap();
    let Stmt::Loop {
        varying,
        body,
        step,
        ..
    } = lp
    else {
        unreachable!()
    };
    assert!(!varying);
    // The condition check is `If { cond, [], [Break] }` with no negation, uniform.
    assert!(
        matches!(&body[1], Stmt::If { then, els, varying: false, .. } if then.is_empty() && els == &vec![Stmt::Break])
    );
    assert!(matches!(&step[0], Stmt::Assign(a) if !a.varying));
    // Inside: `t < stride` (1 op) and `t + stride`, the float add: 3 counted ops.
    assert_eq!(counted_ops(&k).len(), 3);
    let inner = all(&k)
        .into_iter()
        .filter(|s| matches!(s, Stmt::If { varying: true, .. }))
        .count();
    assert_eq!(inner, 1);
}

#[test]
fn grid_stride_loop_is_varying() {
    let src = "__global__ void k(const float *x, float *out, unsigned n) {\n float sum = 0;\n\
               for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += x[i];\n\
               out[threadIdx.x] = sum;\n}\n";
    let k = lower(src, "k");
    assert!(
        all(&k)
            .into_iter()
            .any(|s| matches!(s, Stmt::Loop { varying: true, .. }))
    );
    assert!(!k.vars.iter().find(|v| v.name == "sum").unwrap().uniform);
}

#[test]
fn logical_and_is_one_operation_when_pure() {
    let src = "__global__ void k(float *o, int w, int h) {\n int x = threadIdx.x, y = threadIdx.y;\n if (x < w && y < h) o[y * w + x] = 1.0f;\n}\n";
    let k = lower(src, "k");
    let ands = counted_ops(&k)
        .iter()
        .filter(|o| matches!(o, Op::And { .. }))
        .count();
    assert_eq!(ands, 1);
    assert_eq!(count(&k, |s| matches!(s, Stmt::If { .. })), 1);
    // With a load on the right it short-circuits: a branch.
    let src = "__global__ void k(float *o, const int *m, int w) {\n int x = threadIdx.x;\n if (x < w && m[x] > 0) o[x] = 1.0f;\n}\n";
    let k = lower(src, "k");
    assert_eq!(
        counted_ops(&k)
            .iter()
            .filter(|o| matches!(o, Op::And { .. }))
            .count(),
        0
    );
    assert_eq!(count(&k, |s| matches!(s, Stmt::If { .. })), 2);
}

#[test]
fn conditional_with_a_load_is_a_branch() {
    let src = "__global__ void k(const float *g, float *o, unsigned n) {\n unsigned i = threadIdx.x;\n float v = (i < n) ? g[i] : 0;\n o[i] = v;\n float w = (i < n) ? 1.0f : 2.0f;\n o[i + 1] = w;\n}\n";
    let k = lower(src, "k");
    let ifs: Vec<_> = all(&k)
        .into_iter()
        .filter(|s| matches!(s, Stmt::If { .. }))
        .collect();
    assert_eq!(ifs.len(), 1);
    // The else arm's `0` is a copy (free); the pure ?: is one Select.
    let Stmt::If { els, .. } = ifs[0] else {
        unreachable!()
    };
    assert!(matches!(&els[..], [Stmt::Assign(a)] if matches!(a.op, Op::Copy { .. })));
    assert_eq!(
        counted_ops(&k)
            .iter()
            .filter(|o| matches!(o, Op::Select { .. }))
            .count(),
        1
    );
}

#[test]
fn conversions_and_promotions_follow_c() {
    let src = "__global__ void k(unsigned char *p, float *f, int *o) {\n unsigned char r = p[threadIdx.x];\n\
               f[0] = 0.21f * r;\n int a = threadIdx.x;\n unsigned int u = a;\n o[0] = u;\n short s = (short)a;\n o[1] = s + s;\n\
               o[2] = -1 < 1u;\n o[3] = (int)(f[1] * 2.0);\n}\n";
    let k = lower(src, "k");
    let text = warpsim::cuda::print::kernel(&k);
    // unsigned char -> float directly (one Convert), not via int.
    let converts: Vec<_> = all(&k)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Assign(a) => match a.op {
                Op::Convert { from, .. } => Some((from, a.ty)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    use warpsim::cuda::ir::Scalar::*;
    assert!(converts.contains(&(U8, F32)), "{text}");
    // int <-> unsigned is a free bitcast.
    assert!(
        !converts.contains(&(I32, U32)) && !converts.contains(&(U32, I32)),
        "{text}"
    );
    // short promotes to int for the add.
    assert!(converts.contains(&(I16, I32)), "{text}");
    // `-1 < 1u` is false: -1 converts to unsigned.
    let st: Vec<_> = all(&k)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Store { values, .. } => Some(values[0]),
            _ => None,
        })
        .collect();
    assert!(matches!(st[3], Operand::Const(c) if c.bits == 0), "{text}");
    // float * double: the float converts to double, the product to int.
    assert!(
        converts.contains(&(F32, F64)) && converts.contains(&(F64, I32)),
        "{text}"
    );
}

#[test]
fn if_on_an_integer_compares_with_zero() {
    let k = lower(
        "__global__ void k(int *a) {\n int x = a[threadIdx.x];\n if (x) a[0] = 1;\n bool b = x > 2;\n if (b) a[1] = 2;\n}\n",
        "k",
    );
    let cmps: Vec<_> = counted_ops(&k)
        .into_iter()
        .filter(|o| matches!(o, Op::Cmp { .. }))
        .collect();
    assert_eq!(cmps.len(), 2);
}

#[test]
fn switch_with_fallthrough_and_default() {
    let src = "__global__ void k(int *a) {\n int t = threadIdx.x;\n int r = 0;\n for (int j = 0; j < 4; ++j) {\n switch (t % 4) {\n\
               case 0: r += 1;\n case 1: r += 10; break;\n default: r += 100;\n case 3: if (j == 2) continue; r += 1000;\n }\n }\n a[t] = r;\n}\n";
    let k = lower(src, "k");
    // The switch is a loop inside the for loop; `continue` goes through a flag.
    assert_eq!(count(&k, |s| matches!(s, Stmt::Loop { .. })), 2);
    assert_eq!(count(&k, |s| matches!(s, Stmt::Continue)), 1);
    assert!(count(&k, |s| matches!(s, Stmt::Break)) >= 2);
}

#[test]
fn do_while_checks_at_the_end() {
    let k = lower(
        "__global__ void k(int *a) {\n int i = threadIdx.x;\n do { a[i] = 0; i += 32; } while (i < 100);\n}\n",
        "k",
    );
    let Some(Stmt::Loop { step, varying, .. }) =
        all(&k).into_iter().find(|s| matches!(s, Stmt::Loop { .. }))
    else {
        panic!()
    };
    assert!(varying);
    assert!(matches!(step.last(), Some(Stmt::If { els, .. }) if els == &vec![Stmt::Break]));
}

#[test]
fn early_return_and_inlining() {
    let src = "__device__ float clampf(float v) {\n if (v < 0.0f) return 0.0f;\n return v > 1.0f ? 1.0f : v;\n}\n\
               __device__ void put(float *p, int i, float v) { p[i] = clampf(v); }\n\
               __global__ void k(float *p, int n) {\n int i = threadIdx.x;\n if (i >= n) return;\n put(p, i, p[i] * 2.0f);\n}\n";
    let k = lower(src, "k");
    assert_eq!(count(&k, |s| matches!(s, Stmt::Inline { .. })), 2);
    // The kernel's early return and clampf's early return.
    assert_eq!(count(&k, |s| matches!(s, Stmt::Return)), 2);
}

#[test]
fn templates_with_type_and_value_parameters() {
    let src = "template <typename T, int N>\n__global__ void fill(T *out) {\n T v = (T)N;\n if (N > 4) v = v * 2;\n out[threadIdx.x] = v;\n}\n";
    let m = module(src);
    assert_eq!(m.kernels()[0].template_params, vec!["T", "N"]);
    let k = m.lower("fill<double, 8>").unwrap();
    assert_eq!(k.name, "fill<double, 8>");
    let Some(Stmt::Store { ty, values, .. }) = all(&k)
        .into_iter()
        .find(|s| matches!(s, Stmt::Store { .. }))
    else {
        panic!()
    };
    assert_eq!(*ty, warpsim::cuda::ir::Scalar::F64);
    assert!(matches!(values[0], Operand::Var(_)));
    // `if (N > 4)` is folded: the multiply is there without a branch.
    assert_eq!(count(&k, |s| matches!(s, Stmt::If { .. })), 0);
    assert_eq!(
        count(
            &k,
            |s| matches!(s, Stmt::Assign(a) if matches!(a.op, Op::Binary { .. }))
        ),
        1
    );
    let k = m.lower("fill<int, 2>").unwrap();
    assert_eq!(count(&k, |s| matches!(s, Stmt::Store { .. })), 1);
    assert!(
        m.lower("fill")
            .unwrap_err()
            .message
            .contains("template parameter")
    );
}

#[test]
fn shuffles_votes_atomics_and_printf() {
    let src = "#include <cstdio>\n#include <cassert>\n__global__ void k(int *c, float *f) {\n float v = f[threadIdx.x];\n\
               v += __shfl_down_sync(0xffffffff, v, 16);\n v += __shfl_xor_sync(0xffffffff, v, 1, 16);\n\
               unsigned b = __ballot_sync(0xffffffff, v > 0.0f);\n int any = __any_sync(__activemask(), v < 0.0f);\n\
               int old = atomicAdd(&c[0], 1);\n atomicMax(c + 1, old);\n atomicCAS(&c[2], 0, 1);\n\
               __shared__ unsigned s;\n atomicInc(&s, 7u);\n int cnt = __syncthreads_count(v > 1.0f);\n\
               printf(\"%s: v=%f b=%u any=%d cnt=%d 100%%\\n\", \"tag%\", v, b, any, cnt);\n assert(cnt >= 0);\n}\n";
    let k = lower(src, "k");
    let shfl: Vec<_> = all(&k)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Shfl { width, .. } => Some(*width),
            _ => None,
        })
        .collect();
    assert!(matches!(shfl[0], Operand::Const(c) if c.bits == 32));
    assert!(matches!(shfl[1], Operand::Const(c) if c.bits == 16));
    let atomics: Vec<bool> = all(&k)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Atomic { dst, .. } => Some(dst.is_some()),
            _ => None,
        })
        .collect();
    assert_eq!(atomics, vec![true, false, false, false]);
    let Some(Stmt::Printf { format, args, .. }) = all(&k)
        .into_iter()
        .find(|s| matches!(s, Stmt::Printf { .. }))
    else {
        panic!()
    };
    assert_eq!(format, "tag%%: v=%f b=%u any=%d cnt=%d 100%%\n");
    assert_eq!(args[0].1, warpsim::cuda::ir::Scalar::F64);
    // `cnt` comes from a barrier: uniform.
    assert!(k.vars.iter().find(|v| v.name == "cnt").unwrap().uniform);
    assert_eq!(count(&k, |s| matches!(s, Stmt::Trap { .. })), 1);
}

#[test]
fn local_arrays_and_math() {
    let src = "__global__ void k(float *o) {\n float buf[4];\n float m[2][3] = {{1, 2, 3}, {4, 5, 6}};\n\
               for (int j = 0; j < 4; ++j) buf[j] = sqrtf((float)j) + m[1][j % 3];\n int t = threadIdx.x;\n\
               o[t] = fmaxf(buf[t & 3], __expf(buf[0])) + min(t, 3) + abs(-t) + powf(2.0f, buf[1]);\n\
               o[t + 1] = __int_as_float(__popc(t)) + rsqrtf(4.0f) + __fdividef(1.0f, buf[2]);\n}\n";
    let k = lower(src, "k");
    assert_eq!(k.locals.len(), 2);
    assert_eq!(k.locals[1].len, 6);
    assert!(count(&k, |s| matches!(s, Stmt::LocalStore { .. })) >= 7);
}

#[test]
fn kernel_info_lists_parameters_as_written() {
    let m = module(
        "template <unsigned int blockSize>\n__global__ void reduce(const float * __restrict__ in, float *out, unsigned int n) {}\nint main() { reduce<256><<<1, 256>>>(0, 0, 0); }\n",
    );
    let ks = m.kernels();
    assert_eq!(ks.len(), 1);
    assert_eq!(ks[0].template_params, vec!["blockSize"]);
    assert_eq!(
        ks[0].params[0],
        ("in".to_string(), "const float * __restrict__".to_string())
    );
    assert_eq!(
        ks[0].params[2],
        ("n".to_string(), "unsigned int".to_string())
    );
    assert_eq!(ks[0].site.line, 2);
}

#[test]
fn a_syntax_error_in_a_kernel_is_an_error_of_the_file() {
    let e = Module::from_source(
        "t.cu",
        "__global__ void ke}rn(float *x) {\n  x[0] = 1;\n}\n",
        &Options::default(),
    )
    .expect_err("a broken kernel");
    assert_eq!((e.line, e.col), (1, 17), "{e}");
    assert!(e.to_string().contains("syntax error"), "{e}");
}

#[test]
fn host_code_parses_as_written_and_its_syntax_errors_are_kept_apart() {
    // `operator()` of a specialised functor must survive preprocessing with its tokens
    // adjacent (the grammar does not read `operator ( )`).
    let m = module(
        "template <class T> struct Conv;\ntemplate <> struct Conv<float> {\n  float operator()(const unsigned char &v) { return v / 255.0f; }\n};\n__global__ void k(float *x) { x[0] = 1; }\n",
    );
    assert!(
        m.host_syntax_errors().is_empty(),
        "{:?}",
        m.host_syntax_errors()
    );
    m.lower("k").unwrap();
    let m = module("int host() { return 1 + ; }\n__global__ void k(float *x) { x[0] = 1; }\n");
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    let e = &m.host_syntax_errors()[0];
    assert_eq!(e.line, 1, "{e}");
    m.lower("k").unwrap();
}

#[test]
fn an_address_passed_to_a_function_is_computed_once() {
    // Whether `&x` names a variable or memory is decided without emitting its index twice.
    let called = "__device__ void one(float *p) { p[0] = 1.0f; }\n\
                  __global__ void k(float *g) { one(&g[threadIdx.x * 2]); }\n";
    let inline = "__global__ void k(float *g) { g[threadIdx.x * 2] = 1.0f; }\n";
    assert_eq!(
        counted_ops(&lower(called, "k")).len(),
        counted_ops(&lower(inline, "k")).len()
    );
    assert_eq!(stores(&lower(called, "k")), 1);
}

#[test]
fn an_enum_with_an_underlying_type_has_its_size() {
    let k = lower(
        "enum Small : unsigned char { A, B };\n\
         __global__ void k(Small s, int *o) { o[0] = s == B; }\n",
        "k",
    );
    assert!(
        matches!(k.params[0].kind, ParamKind::Scalar { ty: Scalar::U8, .. }),
        "{:?}",
        k.params[0].kind
    );
}

#[test]
fn expressions_nested_too_deep_are_refused_not_a_stack_overflow() {
    for body in [
        vec!["1"; 5000].join("+"),
        format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000)),
        format!("{}1", "- ".repeat(10_000)),
    ] {
        let src = format!("__global__ void k(int *a) {{ a[0] = {body}; }}");
        let e = lower_err(&src, "k");
        assert!(
            e.to_string().contains("nested more than 500 levels deep"),
            "{e}"
        );
    }
    // Just below the limit lowers on a test thread's 2 MiB stack.
    lower(
        &format!(
            "__global__ void k(int *a) {{ a[0] = {}; }}",
            vec!["a[1]"; 490].join("+")
        ),
        "k",
    );
}

#[test]
fn statements_and_expressions_nested_to_their_limits_lower_together() {
    // 127 levels of `if` around a 490-deep `&&` chain, on a test thread's 2 MiB stack.
    let src = |chain: &str| {
        format!(
            "__global__ void k(int *a) {{\n{}\na[2] = {chain};\n{} }}",
            "if (a[1] > 0) {".repeat(127),
            "}".repeat(127)
        )
    };
    // Nested to the left, no branch of the chain nests in another: the chain's are the 128th
    // level.
    lower(&src(&vec!["a[1]"; 490].join(" && ")), "k");
    // Nested to the right (each operand a load: nested branches), it passes the limit.
    let e = lower_err(
        &src(&format!(
            "{}a[0]{}",
            "a[1] && (".repeat(490),
            ")".repeat(490)
        )),
        "k",
    );
    assert!(
        e.to_string().contains("test.cu:3:")
            && e.to_string()
                .contains("nested more than 128 deep once device functions are inlined"),
        "{e}"
    );
}

#[test]
fn a_macro_that_doubles_forty_times_is_an_error_not_memory_exhaustion() {
    // `A{i}` is two copies of `A{i-1}`, joined by `op`; the kernel stores `A{levels}`.
    let doubling = |levels: usize, op: &str| {
        let mut src = String::from("#define A0 x\n");
        for i in 1..=levels {
            src.push_str(&format!("#define A{i} A{} {op} A{}\n", i - 1, i - 1));
        }
        src + &format!("__global__ void k(int *a) {{\n int x = 1; a[0] = A{levels}; }}\n")
    };
    let e = lower_err(&doubling(40, ""), "k");
    assert!(
        e.to_string().contains("test.cu:43:")
            && e.to_string()
                .contains("the macros expanded here grow past 1048576 tokens"),
        "{e}"
    );
    // Eight levels expand: 256 terms.
    let k = lower(&doubling(8, "+"), "k");
    assert!(format!("{:?}", k.body).contains("256"), "{:?}", k.body);
}

#[test]
fn wmma_is_refused_at_its_first_use_and_other_kernels_lower() {
    let src = "#include <mma.h>\n\
               using namespace nvcuda;\n\
               __global__ void plain(half *a, float *c) { c[0] = __half2float(a[0]); }\n\
               __global__ void typed(float *c) {\n c[0] = 1;\n wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;\n}\n\
               __global__ void called(float *c) {\n c[0] = 1;\n nvcuda::wmma::fill_fragment(c, 0.0f);\n}\n";
    lower(src, "plain");
    for (name, line) in [("typed", 6), ("called", 10)] {
        let e = lower_err(src, name).to_string();
        assert!(
            e.contains(&format!("test.cu:{line}:"))
                && e.contains("WMMA / tensor cores are not supported by warpsim"),
            "{name}: {e}"
        );
    }
    // Its names bare, after `using namespace nvcuda::wmma`.
    let bare = "#include <mma.h>\nusing namespace nvcuda::wmma;\n\
                __global__ void k(float *c) {\n mma_sync(c, c, c, c);\n}\n";
    let e = lower_err(bare, "k").to_string();
    assert!(e.contains("test.cu:4:") && e.contains("WMMA"), "{e}");
    // Without mma.h, a name like WMMA's is an unknown name.
    let e = lower_err(
        &bare.replace("#include <mma.h>\nusing namespace nvcuda::wmma;\n", ""),
        "k",
    );
    assert!(!e.to_string().contains("WMMA"), "{e}");
}

#[test]
fn gcc_restrict_after_const_declares_the_parameter() {
    // HeCBench bh: `T *const __restrict p`, where the grammar takes `__restrict` only right
    // after the `*` (it was a syntax error near `p`).
    let k = lower(
        "__global__ void k(const float *const __restrict r, int *const __restrict p) \
         { p[0] = r[0]; }",
        "k",
    );
    let names: Vec<&str> = k.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["r", "p"]);
    assert_eq!((loads(&k), stores(&k)), (1, 1));
}
