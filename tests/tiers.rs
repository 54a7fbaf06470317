//! One suite, both tiers: every CUDA C kernel in the repository's `.cu` files runs in fast
//! and in counting mode on the interpreter and on the compiled tier, with the same generated
//! arguments and launch shapes, and must leave the same bytes in every buffer, print the same,
//! count the same (per launch, per line, per warp, the report's samples) and fail with the
//! same error. Kernels the compiled tier does not compile run on the interpreter twice
//! (listed with `--nocapture`); the documents' kernels must compile.

use std::path::{Path, PathBuf};
use warpsim::check::Kind;
use warpsim::cuda::ir::texture::{AddressMode, ChannelKind, Filter, Format, ReadMode, Texture};
use warpsim::cuda::ir::{Kernel, ParamKind, Scalar, TypeName};
use warpsim::cuda::{self, Arg, Engine, Module, Options, Tier};
use warpsim::{Device, Global, LaunchConfig, Mode};

fn cu_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            cu_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "cu") {
            out.push(p);
        }
    }
}

fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("cuda/kernels.cu")];
    for d in ["examples", "tests/data/cuda", "tests/data/programs"] {
        cu_files(&root.join(d), &mut files);
    }
    files
}

/// Elements per buffer argument.
const N: usize = 4096;

/// A buffer's initial bytes: small numbers of its element type (so most indices derived from
/// them stay in bounds), the same for every run.
fn contents(elem: &TypeName, salt: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(N * elem.size() as usize);
    for i in 0..N {
        let k = (i * 7 + salt * 3) % 13;
        match elem {
            TypeName::Scalar(s) | TypeName::Vector(s, _) => {
                let n = if let TypeName::Vector(_, n) = elem {
                    *n
                } else {
                    1
                };
                for c in 0..n as usize {
                    let k = (k + c) % 13;
                    match s {
                        Scalar::F32 => bytes.extend((k as f32 * 0.5).to_le_bytes()),
                        Scalar::F64 => bytes.extend((k as f64 * 0.25).to_le_bytes()),
                        s => bytes.extend(&(k as u64).to_le_bytes()[..s.size() as usize]),
                    }
                }
            }
            other => bytes.extend((0..other.size()).map(|b| ((i + b as usize) % 7) as u8)),
        }
    }
    bytes
}

/// Arguments for `k`: a buffer per pointer, 64 for integers, 1.5 for floats, zeros for
/// structs; and the buffers, to read back.
fn args(dev: &Device, k: &Kernel) -> (Vec<Arg>, Vec<Global<u8>>) {
    let mut args = Vec::new();
    let mut bufs = Vec::new();
    for (i, p) in k.params.iter().enumerate() {
        args.push(match &p.kind {
            ParamKind::Pointer {
                elem: TypeName::Texture,
                ..
            } => {
                // 64 × 64 float texels, linearly filtered, repeating: any fetch reads inside.
                let g = dev.alloc_from(&p.name, &contents(&TypeName::Scalar(Scalar::F32), i));
                Arg::Texture {
                    memory: g.clone(),
                    texture: texture(64, 64, Filter::Linear, AddressMode::Wrap),
                }
            }
            ParamKind::Pointer { elem, .. } => {
                let g = dev.alloc_from(&p.name, &contents(elem, i));
                bufs.push(g.clone());
                Arg::Buffer(g)
            }
            ParamKind::Scalar { ty, .. } if ty.is_float() => Arg::Float(1.5),
            ParamKind::Scalar {
                ty: Scalar::Bool, ..
            } => Arg::Int(1),
            ParamKind::Scalar { .. } => Arg::Int(64),
            ParamKind::Struct { size, .. } => Arg::Bytes(vec![0; *size as usize]),
        });
    }
    (args, bufs)
}

/// A `w` × `h` texture of one `float` channel, its coordinates normalized.
fn texture(w: u64, h: u64, filter: Filter, address: AddressMode) -> Texture {
    Texture {
        format: Format::new([32, 0, 0, 0], ChannelKind::Float).expect("a format"),
        extent: [w, h, 1],
        pitch: 4 * w,
        slice: 4 * w * h,
        address: [address; 3],
        filter,
        read: ReadMode::Element,
        normalized: true,
        linear: false,
    }
}

/// What a launch left: its error, or the buffers' bytes, what it printed and (counting)
/// its counters, per line, per warp and the pictures' samples.
type Outcome = Result<(Vec<Vec<u8>>, String, String), String>;

fn run(k: &Kernel, cfg: &LaunchConfig) -> (Outcome, Option<Tier>) {
    let dev = Device::default();
    let (args, bufs) = args(&dev, k);
    match cuda::launch(&dev, k, cfg, &args) {
        Ok(r) => {
            let bytes = bufs.iter().map(|b| b.to_vec()).collect();
            let l = &r.launch;
            let counts = format!(
                "{:?}\n{:?}\n{:?}\n{:?}",
                l.counters, l.lines, l.divergent_by_warp, l.samples
            );
            (Ok((bytes, r.stdout(), counts)), Some(r.tier))
        }
        Err(e) => (Err(e.to_string()), None),
    }
}

/// Whether check mode finds no race between the warps of a block or between blocks (only
/// then do the tiers promise the same results: CUDA orders nothing between the warps of a
/// block between barriers, and the tiers run them in different orders; a kernel whose blocks
/// write one address usually has its warps race for it too, which check mode, like
/// compute-sanitizer, does not see in global memory).
fn hazard_free(k: &Kernel, cfg: &LaunchConfig) -> bool {
    let dev = Device::default();
    let (args, _) = args(&dev, k);
    let cfg = cfg.clone().mode(Mode::Check).engine(Engine::Interp);
    let races = |f: &warpsim::check::Finding| {
        matches!(
            f.kind,
            Kind::RaceReadAfterWrite
                | Kind::RaceWriteAfterRead
                | Kind::RaceWriteAfterWrite
                | Kind::AtomicRace
                | Kind::GlobalRace
        )
    };
    cuda::launch(&dev, k, &cfg, &args).map_or(true, |r| !r.launch.findings.iter().any(races))
}

/// Where two outcomes first differ.
fn difference(a: &Outcome, b: &Outcome) -> String {
    match (a, b) {
        (Ok((x, p, c)), Ok((y, q, d))) => {
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                if let Some(at) = x.iter().zip(y).position(|(a, b)| a != b) {
                    let w = |v: &[u8]| v[at / 4 * 4..(at / 4 * 4 + 4).min(v.len())].to_vec();
                    return format!(
                        "buffer {i}, byte {at}: interpreter {:?}, compiled {:?}",
                        w(x),
                        w(y)
                    );
                }
            }
            if p != q {
                return format!("printed:\n{p}\nagainst\n{q}");
            }
            let at = c.lines().zip(d.lines()).position(|(a, b)| a != b);
            let line = |s: &str| at.and_then(|i| s.lines().nth(i)).unwrap_or("").to_string();
            format!(
                "counts:\ninterpreter {:.2000}\ncompiled    {:.2000}",
                line(c),
                line(d)
            )
        }
        _ => format!(
            "interpreter: {:.400}\ncompiled: {:.400}",
            format!("{a:?}"),
            format!("{b:?}")
        ),
    }
}

#[test]
fn every_kernel_gives_the_same_results_on_both_tiers() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool");
    let shapes: [((u32, u32), (u32, u32)); 3] =
        [((4, 1), (128, 1)), ((2, 2), (32, 4)), ((3, 1), (100, 1))];
    let (mut compiled, mut interpreted, mut checked, mut racy) = (Vec::new(), Vec::new(), 0, 0);
    for file in sources() {
        let text = std::fs::read_to_string(&file).expect("readable");
        let name = file.display().to_string();
        let Ok(module) = Module::from_source(&name, &text, &Options::default()) else {
            continue;
        };
        for info in module.kernels() {
            let Ok(k) = module.lower(&info.name) else {
                continue;
            };
            // A kernel indexed in one dimension run with 2-D blocks would have its rows of
            // threads race for the same elements: give each kernel the shapes it indexes.
            let text = cuda::print::kernel(&k);
            let two_d = text.contains("threadidx.y") || text.contains("blockidx.y");
            for (grid, block) in shapes {
                if (block.1 > 1 || grid.1 > 1) != two_d && block.1 > 1 {
                    continue;
                }
                let base = LaunchConfig::new(grid, block)
                    .name(k.name.clone())
                    .mode(Mode::Fast)
                    .dynamic_shared(4096);
                if !pool.install(|| hazard_free(&k, &base)) {
                    racy += 1;
                    continue;
                }
                let mut tier = None;
                // Fast, then counting per line: outputs, counters and samples alike.
                for cfg in [base.clone(), base.clone().mode(Mode::Count).lines(true)] {
                    let (want, _) = pool.install(|| run(&k, &cfg.clone().engine(Engine::Interp)));
                    let got;
                    (got, tier) = pool.install(|| run(&k, &cfg.clone().engine(Engine::Auto)));
                    assert!(
                        want == got,
                        "{name}: `{}` with grid {grid:?} block {block:?} ({:?}): the tiers \
                         differ: {}",
                        k.name,
                        cfg.mode,
                        difference(&want, &got)
                    );
                }
                checked += 1;
                match tier {
                    Some(Tier::Compiled { .. }) => compiled.push(format!("{name}: {}", k.name)),
                    Some(Tier::Interpreted { reason }) => {
                        interpreted.push(format!("{name}: {}: {reason}", k.name))
                    }
                    None => {}
                }
            }
        }
    }
    compiled.dedup();
    interpreted.dedup();
    eprintln!(
        "{checked} launches compared ({racy} with races skipped); compiled: {}",
        compiled.len()
    );
    for i in &interpreted {
        eprintln!("  interpreted: {i}");
    }
    assert!(checked > 100, "only {checked} launches found");
    for doc in [
        "reduce_interleaved",
        "reduce_sequential",
        "reduce_multi",
        "transpose_naive",
        "transpose_no_conflicts",
        "transpose_copy_shared",
        "read_offset",
        "test_inner_struct",
        "branch_by_lane",
    ] {
        assert!(
            compiled
                .iter()
                .any(|c| c.ends_with(&format!("kernels.cu: {doc}"))),
            "`{doc}` did not compile"
        );
    }
}

/// Kernels that try to escape their memory: each must be compiled, and must fail on the
/// compiled tier with exactly the interpreter's error (or, for a division by zero, give its
/// defined result).
#[test]
fn escapes_fail_alike_on_both_tiers() {
    let src = r#"
        __global__ void negative(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i == 37) x[i - 1000] = 1.0f;
        }
        __global__ void huge(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            x[i + 100000000] = 1.0f;
        }
        __global__ void huge_unsigned(float *x, int n) {
            unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
            x[i * 4000000000u] = 1.0f;
        }
        __global__ void misaligned(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            float *p = (float *)((char *)x + 2);
            p[i] = 1.0f;
        }
        __global__ void past_the_end(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            float *p = x + n + 5;
            x[i] = p[i];
        }
        __global__ void strided_past_the_end(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            x[i * n] = 2.0f;
        }
        __global__ void shared_past_its_size(float *x, int n) {
            __shared__ float s[32];
            s[threadIdx.x + 40] = 1.0f;
            __syncthreads();
            x[threadIdx.x] = s[threadIdx.x];
        }
        __global__ void shared_row_partly_past_its_size(float *x, int n) {
            __shared__ float s[64];
            if (threadIdx.x < 64) s[threadIdx.x] = x[threadIdx.x];
            __syncthreads();
            // Lanes 0..29 read s[40..69]: the row starts inside, lane 24 is past the array.
            if (threadIdx.x < 30) x[threadIdx.x] = s[threadIdx.x + 40];
        }
        __global__ void row_past_2_63(float *x, int n) {
            // Lane 0 is 8 bytes below 2^63 bytes on, lane 2 past it (a wrap in 64 bits).
            float *p = x + 2305843009213693950LL;
            x[threadIdx.x] = p[threadIdx.x];
        }
        __global__ void shared_row_past_2_63(float *x, int n) {
            __shared__ float s[64];
            float *p = s + 2305843009213693950LL;
            if (threadIdx.x < 30) x[threadIdx.x] = p[threadIdx.x];
        }
        __global__ void grid_stride_past_2_63(float *x, int n) {
            float *p = x + 2305843009213693950LL;
            float s = 0.0f;
            unsigned int step = blockDim.x * gridDim.x;
            for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n; i += step)
                s += p[i];
            x[threadIdx.x] = s;
        }
        __global__ void wide_row_step_wraps(float *x, long long n) {
            // 31 steps of (2^64 + 15) / 31 wrap to 15: lanes 0 and 31 inside, 1..30 anywhere.
            long long k = 595056260442243601LL;
            x[threadIdx.x * k] = 1.0f;
        }
        __global__ void null_pointer(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i > 3) x[i] = 1.0f;
        }
        __global__ void null_constant(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            float *p = 0;
            if (i == 5) p[i] = 1.0f;
            x[i] = 2.0f;
        }
        __global__ void fault_after_atomic(float *x, int n) {
            if (threadIdx.x == 3 && blockIdx.x == 1) {
                float v = atomicAdd(&x[0], 1.0f);
                if (v == 0.5f) x[n + 100000] = 5.0f;
            }
        }
        __global__ void misaligned_after_atomic(float *x, int n) {
            if (threadIdx.x == 3) {
                float v = atomicAdd(&x[1], 1.0f);
                if (v == 0.5f) ((float *)((char *)x + 2))[threadIdx.x] = 5.0f;
            }
        }
        __global__ void trap(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i == 70) __trap();
            x[i] = 1.0f;
        }
        __global__ void local_past_its_size(float *x, int n) {
            float a[4] = {1.0f, 2.0f, 3.0f, 4.0f};
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            for (int k = 0; k < n / 40; k++) a[k] += x[i];
            x[i] = a[0];
        }
        __global__ void local_lane_negative(float *x, int n) {
            float a[4] = {1.0f, 2.0f, 3.0f, 4.0f};
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            x[i] = a[(i % 4) - (i == 77 ? 9 : 0)];
        }
        __global__ void local_index_huge(float *x, int n) {
            float a[4] = {1.0f, 2.0f, 3.0f, 4.0f};
            long long i = blockIdx.x * blockDim.x + threadIdx.x;
            a[(i % 4) + (i == 130 ? 4294967296LL : 0LL)] = 5.0f;
            x[i] = a[i % 4];
        }
        __global__ void wide_row_past_the_end(float *x, int n) {
            size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x + 20;
            x[i] = 1.0f;
        }
        __global__ void wide_row_negative(float *x, int n) {
            long long i = (long long)(blockIdx.x * blockDim.x + threadIdx.x) - 3;
            x[i] = 1.0f;
        }
        __global__ void wide_row_beyond_2_40(float *x, int n) {
            long long i = (long long)threadIdx.x + (blockIdx.x == 1 ? (1LL << 41) : 0LL);
            x[i] = 1.0f;
        }
        __global__ void wide_row_misaligned(float *x, int n) {
            size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
            float *p = (float *)((char *)x + 2);
            p[i % 64] = 1.0f;
        }
        __global__ void grid_stride_past_the_end(float *x, int n) {
            float s = 0.0f;
            unsigned int step = blockDim.x * gridDim.x;
            for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < 1000u * n; i += step)
                s += x[i];
            x[threadIdx.x] = s;
        }
        __global__ void grid_stride_misaligned(float *x, int n) {
            float *p = (float *)((char *)x + 2);
            float s = 0.0f;
            unsigned int step = blockDim.x * gridDim.x;
            for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < 32u; i += step)
                s += p[i];
            x[threadIdx.x] = s;
        }
        __global__ void grid_stride_before_the_start(float *x, int n) {
            float *p = x - 4;
            float s = 0.0f;
            unsigned int step = blockDim.x * gridDim.x;
            for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n; i += step)
                s += p[i];
            x[threadIdx.x] = s;
        }
        __global__ void unsigned_index_before_the_start(float *x, int n) {
            __shared__ float s[128];
            s[threadIdx.x] = x[threadIdx.x];
            __syncthreads();
            x[threadIdx.x] = (s - 4)[threadIdx.x];
        }
        __global__ void unsigned_index_wraps_inside_the_warp(float *x, int n) {
            // Lanes 0..19 read x[0..19]; lane 20's index wraps to 0, 2^32 elements before.
            float *p = x - 4294967276ull;
            x[threadIdx.x] = p[threadIdx.x + 4294967276u];
        }
        __global__ void divide_by_zero(float *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            int z = i - i;
            unsigned int u = (unsigned int)i;
            x[i] = (float)(i / z) + (float)(i % z) + (float)(u / (unsigned int)z) + (float)(-2147483647 - 1) / -1;
        }
    "#;
    let module = Module::from_source("escapes.cu", src, &Options::default()).expect("parses");
    for info in module.kernels() {
        let k = module.lower(&info.name).expect("lowers");
        let outcome = |engine: Engine, tolerate: bool| {
            let dev = Device::default();
            let x = dev.alloc_from("x", &[0.5f32; 256]);
            let ptr = if info.name == "null_pointer" {
                Arg::NoBuffer(0)
            } else {
                Arg::buffer(&x)
            };
            let mut cfg = LaunchConfig::new(2, 128)
                .name(k.name.clone())
                .mode(Mode::Fast)
                .engine(engine)
                .tolerate_out_of_bounds(tolerate);
            // Blocks one after another: in parallel, which block's atomic comes first (and so
            // which one faults, `*_after_atomic`) would depend on the CPU threads' timing.
            cfg.block_order = warpsim::BlockOrder::Sequential;
            cuda::launch(&dev, &k, &cfg, &[ptr, Arg::Int(200)])
                .map(|r| {
                    let outside: Vec<String> = r.outside.iter().map(|o| o.outside_note()).collect();
                    ((x.to_vec(), outside), r.tier)
                })
                .map_err(|e| e.to_string())
        };
        // Tolerating accesses a little outside (within the 1 KiB allocation's 1 KiB of
        // padding), both tiers go on alike and note the same accesses.
        let want = outcome(Engine::Interp, true).map(|(x, _)| x);
        let got = outcome(Engine::Jit, true).map(|(x, _)| x);
        assert_eq!(want, got, "{}, tolerating", info.name);
        let near = [
            "past_the_end",
            "wide_row_past_the_end",
            "wide_row_negative",
            "grid_stride_before_the_start",
        ];
        if near.contains(&info.name.as_str()) {
            let (_, outside) = want.as_ref().expect("goes on");
            assert_eq!(outside.len(), 1, "{}: {outside:?}", info.name);
        } else if info.name.contains("huge") || info.name.contains("misaligned") {
            assert!(want.is_err(), "{} must fail, tolerating", info.name);
        }
        let want = outcome(Engine::Interp, false).map(|((x, _), _)| x);
        let got = outcome(Engine::Jit, false);
        if let Ok((_, tier)) = &got {
            assert!(
                matches!(tier, Tier::Compiled { .. }),
                "{}: {tier:?}",
                info.name
            );
        }
        let got = got.map(|((x, _), _)| x);
        assert_eq!(want, got, "{}", info.name);
        if info.name == "divide_by_zero" {
            assert!(want.is_ok(), "a division by zero is defined");
        } else {
            assert!(want.is_err(), "{} must fail", info.name);
        }
    }
}

/// An index out of the 32-bit range (a pointer before its buffer, a 64-bit index) is reported
/// as written, at the lane the bounds check names first, on both tiers.
#[test]
fn a_64_bit_index_is_reported_as_written() {
    let src = r#"
        __global__ void before(float *x, long long k) {
            float *p = x - 4;
            x[threadIdx.x] = p[threadIdx.x];
        }
        __global__ void far(float *x, long long k) { x[threadIdx.x] = x[threadIdx.x * k]; }
        __global__ void lane_order(float *x, long long k) {
            long long i = threadIdx.x == 3 ? 300 : (threadIdx.x == 5 ? -7 : threadIdx.x);
            x[threadIdx.x] = x[i];
        }
        __global__ void shared_before(float *x, long long k) {
            __shared__ float s[64];
            s[threadIdx.x] = 1.0f;
            __syncthreads();
            x[threadIdx.x] = (s - 2)[threadIdx.x];
        }
    "#;
    let module = Module::from_source("wild.cu", src, &Options::default()).expect("parses");
    for (name, want) in [
        ("before", "thread (0, 0, 0): index -4 but"),
        ("far", "thread (1, 0, 0): index 1000000000000 but"),
        ("lane_order", "thread (3, 0, 0): index 300 but"),
        ("shared_before", "thread (0, 0, 0): index -2 but"),
    ] {
        let k = module.lower(name).expect("lowers");
        for engine in [Engine::Interp, Engine::Auto] {
            let dev = Device::default();
            let x = dev.alloc_zeroed::<f32>("x", 64);
            let cfg = LaunchConfig::new(1, 32).name(name).engine(engine);
            let e = cuda::launch(
                &dev,
                &k,
                &cfg,
                &[Arg::buffer(&x), Arg::Int(1_000_000_000_000)],
            )
            .expect_err("faults")
            .to_string();
            assert!(e.contains(want), "{name}, {engine:?}: {e}");
        }
    }
    // Check mode reports each bad lane and goes on: with its own index and address too.
    let k = module.lower("before").expect("lowers");
    let dev = Device::default();
    let x = dev.alloc_zeroed::<f32>("x", 64);
    let cfg = LaunchConfig::new(1, 32).name("before").mode(Mode::Check);
    let r = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&x), Arg::Int(0)]).expect("runs");
    let f = &r.launch.findings[0];
    assert_eq!(
        (f.kind, f.index as i64, f.count),
        (Kind::OutOfBounds, -4, 4),
        "{f}"
    );
    assert_eq!(f.address, x.address().wrapping_sub(16), "{f}");
    assert!(f.to_string().contains("`x`[-4]"), "{f}");
}

/// A kernel that never finishes stops at the launch's time limit with an error naming the
/// loop, on both tiers (a loop of one warp, and a loop around a barrier).
#[test]
fn the_watchdog_stops_endless_loops_on_both_tiers() {
    let src = "__global__ void spin(int *x) {\n\
               int t = threadIdx.x;\n\
               while (x[t] == 0) { x[t + 64] += 1; }\n\
               }\n\
               __global__ void spin_sync(int *x) {\n\
               int k = 0;\n\
               for (;;) { k++; __syncthreads(); }\n\
               x[threadIdx.x] = k;\n\
               }\n\
               __global__ void idle(int *x) {\n\
               while (true) { }\n\
               }\n";
    let module = Module::from_source("spin.cu", src, &Options::default()).expect("parses");
    // `idle` counts nothing and loads nothing: its compiled counting code has no step record
    // (it segfaulted writing one at the back edge).
    for (name, line, mode) in [
        ("spin", 3, Mode::Fast),
        ("spin_sync", 7, Mode::Fast),
        ("idle", 11, Mode::Count),
    ] {
        let k = module.lower(name).expect("lowers");
        for engine in [Engine::Interp, Engine::Auto] {
            let dev = Device::default();
            let x = dev.alloc_zeroed::<i32>("x", 128);
            let cfg = LaunchConfig::new(2, 64)
                .name(name)
                .mode(mode)
                .engine(engine)
                .timeout(std::time::Duration::from_millis(300));
            let e = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&x)]).expect_err("stopped");
            assert!(
                matches!(e, warpsim::Error::Timeout { .. }),
                "{name} on {engine:?}: {e}"
            );
            let text = e.to_string();
            assert!(
                text.contains(&format!("spin.cu:{line}:")) && text.contains("0.3 s"),
                "{name} on {engine:?}: {text}"
            );
        }
    }
}

/// A grid too large to finish in time stops between blocks, though no block loops (a billion
/// blocks ran on past the limit).
#[test]
fn the_watchdog_stops_a_grid_without_loops() {
    let src = "__global__ void mark(int *x) { x[threadIdx.x] = blockIdx.x; }\n";
    let k = Module::from_source("mark.cu", src, &Options::default())
        .expect("parses")
        .lower("mark")
        .expect("lowers");
    for engine in [Engine::Interp, Engine::Auto] {
        // A pool of its own: the shared one would be busy for the tests beside this one.
        let dev = Device::default().with_threads(2).expect("threads");
        let x = dev.alloc_zeroed::<i32>("x", 32);
        // The largest grid too: the blocks left after the limit are not visited.
        for grid in [(2_000_000_000, 1, 1), HUGE_GRID] {
            let cfg = LaunchConfig::new(grid, 32)
                .mode(Mode::Fast)
                .engine(engine)
                .timeout(std::time::Duration::from_millis(200));
            let e = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&x)]).expect_err("stopped");
            assert!(
                matches!(e, warpsim::Error::Timeout { looping: false, .. }),
                "{grid:?} on {engine:?}: {e}"
            );
            assert!(e.to_string().contains("still had blocks to run"), "{e}");
        }
    }
}

/// CUDA's largest grid: 2^31-1 x 65535 x 65535 blocks (2^63 less a little).
const HUGE_GRID: (u32, u32, u32) = (i32::MAX as u32, 65_535, 65_535);

/// A launch of a huge grid stops at a fault or at the time limit at once, without visiting the
/// blocks left (those past a fault took 20 minutes for 2^40 blocks; the largest grids never
/// returned, and numbering their chunks overflowed). The fault reported is the lowest block's,
/// whatever the CPU threads. The limit is only a bound, should a launch not stop.
#[test]
fn a_huge_grid_stops_at_a_fault_or_the_time_limit() {
    let src = "__global__ void early(int *x) {\n\
               x[threadIdx.x + (blockIdx.x % 1000 == 999 && blockIdx.y == 0 ? 64 : 0)] = 1;\n\
               }\n\
               __global__ void first(int *x) {\n\
               x[threadIdx.x + (blockIdx.x + blockIdx.y + blockIdx.z == 0 ? 64 : 0)] = 1;\n\
               }\n\
               __global__ void endless(int *x) {\n\
               while (x[0] == 0) { }\n\
               }\n";
    let module = Module::from_source("huge.cu", src, &Options::default()).expect("parses");
    let limit = std::time::Duration::from_secs(120);
    for engine in [Engine::Interp, Engine::Auto] {
        for (name, grid, block) in [
            ("first", HUGE_GRID, (0, 0, 0)),
            ("first", (i32::MAX as u32, 65_535, 1), (0, 0, 0)),
            ("early", HUGE_GRID, (999, 0, 0)),
        ] {
            let k = module.lower(name).expect("lowers");
            for threads in [1, 3] {
                let dev = Device::default().with_threads(threads).expect("threads");
                let x = dev.alloc_zeroed::<i32>("x", 32);
                let cfg = LaunchConfig::new(grid, 32)
                    .name(name)
                    .mode(Mode::Fast)
                    .engine(engine)
                    .timeout(limit);
                let e = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&x)]).expect_err("faults");
                assert!(
                    matches!(e, warpsim::Error::OutOfBounds(_)),
                    "{name} {grid:?} on {engine:?}, {threads} threads: {e}"
                );
                assert_eq!(e.block(), Some(block.into()), "{name} on {engine:?}: {e}");
            }
        }
        // Stopped in its loop, every block running then times out, and none starts after.
        let k = module.lower("endless").expect("lowers");
        let dev = Device::default().with_threads(2).expect("threads");
        let x = dev.alloc_zeroed::<i32>("x", 32);
        let cfg = LaunchConfig::new(HUGE_GRID, 32)
            .name("endless")
            .mode(Mode::Fast)
            .engine(engine)
            .timeout(std::time::Duration::from_millis(300));
        let e = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&x)]).expect_err("stopped");
        assert!(
            matches!(e, warpsim::Error::Timeout { looping: true, .. }),
            "{engine:?}: {e}"
        );
        assert!(e.to_string().contains("huge.cu:8:"), "{e}");
    }
}

/// A variable assigned only under a block-level `if` (around a barrier) reads as the
/// interpreter's zero in blocks that skip the `if`, whichever block ran before on the same CPU
/// thread (the compiled tier keeps such values in a frame it reuses between blocks).
#[test]
fn values_do_not_leak_between_blocks() {
    let src = "__global__ void k(int *out, int n) {\n\
               int t = threadIdx.x;\n\
               int v;\n\
               if (blockIdx.x % 2 == 0) { v = t + 100; __syncthreads(); }\n\
               __syncthreads();\n\
               out[blockIdx.x * blockDim.x + t] = v;\n\
               }\n";
    let module = Module::from_source("leak.cu", src, &Options::default()).expect("parses");
    let k = module.lower("k").expect("lowers");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool");
    let outcome = |engine: Engine| {
        let dev = Device::default();
        let out = dev.alloc_zeroed::<i32>("out", 256);
        let cfg = LaunchConfig::new(4, 64).mode(Mode::Fast).engine(engine);
        let r = pool.install(|| cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&out), Arg::Int(0)]));
        (r.map(|r| r.tier).expect("runs"), out.to_vec())
    };
    let (_, want) = outcome(Engine::Interp);
    let (tier, got) = outcome(Engine::Jit);
    assert!(matches!(tier, Tier::Compiled { .. }), "{tier:?}");
    assert_eq!(want[64..128], [0; 64], "an odd block reads zero");
    assert_eq!(want, got);
}

/// Launch `k` on the interpreter, then forced onto the compiled tier, each time after `clear`;
/// the compiled tier must run it and leave the same outputs (what `read` reads) and counters.
/// The outputs.
fn compiled_alike<T: PartialEq + std::fmt::Debug>(
    (dev, k, cfg, args): (&Device, &Kernel, &LaunchConfig, &[Arg]),
    clear: impl Fn(),
    read: impl Fn() -> T,
) -> T {
    let run = |engine: Engine| {
        clear();
        let r = cuda::launch(dev, k, &cfg.clone().engine(engine), args).expect("runs");
        (r.tier, r.launch.counters, read())
    };
    let (_, counts, want) = run(Engine::Interp);
    let (tier, jit_counts, got) = run(Engine::Jit);
    assert!(matches!(tier, Tier::Compiled { .. }), "{tier:?}");
    assert_eq!((&want, counts), (&got, jit_counts));
    want
}

/// Texture fetches under divergence, in a loop and through a device function, of `float`
/// and `uchar4` texels, point-sampled and filtered, sample alike on both tiers; they compile.
/// A texture parameter takes only a texture object, and a texture only a texture parameter.
#[test]
fn texture_fetches_run_alike() {
    let src = r#"
        __device__ float4 blend(cudaTextureObject_t t, float x, float y) {
            return tex2D<float4>(t, x, y);
        }
        __global__ void fetch(cudaTextureObject_t f, cudaTextureObject_t u, float *out, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            float x = (i % 37) * 0.173f - 1.0f, y = (i / 37) * 0.291f - 0.5f;
            float s = 0.0f;
            if (i % 3 == 0) s = tex2D<float>(f, x, y);
            for (int k = 0; k < i % 4; k++) s += tex1Dfetch<float>(f, i - 9 * k);
            float4 c = blend(u, x * 7.0f, y * 5.0f);
            if (i < n) out[i] = s + c.x - 2.0f * c.y + c.z * c.w;
        }
    "#;
    let module = Module::from_source("fetch.cu", src, &Options::default()).expect("parses");
    let k = module.lower("fetch").expect("lowers");
    let dev = Device::default();
    let (threads, blocks) = (96u32, 5u32);
    let n = (threads * blocks) as usize;
    let out = dev.alloc_zeroed::<f32>("out", n);
    let floats = dev.alloc_from(
        "f",
        &(0..64 * 48)
            .map(|i| (i % 29) as f32 * 0.75)
            .collect::<Vec<_>>(),
    );
    let bytes = dev.alloc_from(
        "u",
        &(0..4 * 16 * 8)
            .map(|i| (i * 37 % 256) as u8)
            .collect::<Vec<_>>(),
    );
    for (filter, address) in [
        (Filter::Point, AddressMode::Clamp),
        (Filter::Linear, AddressMode::Border),
        (Filter::Linear, AddressMode::Mirror),
    ] {
        let mut f = texture(64, 48, filter, address);
        f.linear = true;
        let mut u = texture(16, 8, filter, AddressMode::Clamp);
        u.format = Format::new([8; 4], ChannelKind::Unsigned).expect("uchar4");
        (u.pitch, u.slice, u.normalized, u.read) = (64, 512, false, ReadMode::NormalizedFloat);
        let args = [
            Arg::Texture {
                memory: floats.cast(),
                texture: f,
            },
            Arg::Texture {
                memory: bytes.cast(),
                texture: u,
            },
            Arg::buffer(&out),
            Arg::Int(n as i128 - 5),
        ];
        let cfg = LaunchConfig::new(blocks, threads).mode(Mode::Count);
        let got = compiled_alike((&dev, &k, &cfg, &args), || out.fill(0.0), || out.to_vec());
        assert!(got.iter().any(|&v| v != 0.0), "{filter:?} {address:?}");
    }
    // A buffer where a texture belongs, and a texture over too little memory, are refused.
    let small = texture(1024, 1024, Filter::Point, AddressMode::Clamp);
    for (first, why) in [
        (Arg::buffer(&floats), "cudaTextureObject_t"),
        (
            Arg::Texture {
                memory: floats.cast(),
                texture: small,
            },
            "bytes over memory of",
        ),
    ] {
        let args = [first, Arg::buffer(&out), Arg::buffer(&out), Arg::Int(1)];
        let e = cuda::launch(&dev, &k, &LaunchConfig::new(1, 32), &args).expect_err("refused");
        assert!(e.to_string().contains(why), "{e}");
    }
}

/// Pointer comparisons and casts to integers read the launch's addresses on both tiers: a
/// buffer's, a null pointer's, an address no buffer holds, shared memory's window; such a
/// kernel compiles.
#[test]
fn pointer_addresses_run_alike() {
    let src = r#"
        __global__ void addresses(unsigned long long *out, const float *x, const float *none,
                                  int *partial) {
            __shared__ float s[64];
            __shared__ int t[8];
            extern __shared__ char d[];
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            s[threadIdx.x] = x[i];
            __syncthreads();
            unsigned long long k = 0;
            if (none != NULL) k |= 1;
            if (x) k |= 2;
            if (!partial) k |= 4;
            if (partial != nullptr && threadIdx.x == 0) partial[blockIdx.x] = (int)s[5];
            if (x + i > x + 10) k |= 8;
            const float *p = &s[threadIdx.x];
            if ((const void *)p < (const void *)t) k |= 16;
            if ((void *)d != (void *)s) k |= 32;
            out[5 * i] = k;
            out[5 * i + 1] = (unsigned long long)(x + i) - (unsigned long long)x;
            out[5 * i + 2] = (unsigned long long)&s[threadIdx.x % 7];
            out[5 * i + 3] = (unsigned long long)none + (unsigned long long)&t[1];
            out[5 * i + 4] = (unsigned long long)(d + threadIdx.x) ^ (unsigned long long)x;
        }
    "#;
    let module = Module::from_source("addresses.cu", src, &Options::default()).expect("parses");
    let k = module.lower("addresses").expect("lowers");
    let dev = Device::default();
    let (threads, blocks) = (64u32, 3u32);
    let n = (threads * blocks) as usize;
    let out = dev.alloc_zeroed::<u64>("out", 5 * n);
    let x = dev.alloc_from("x", &(0..n).map(|i| i as f32).collect::<Vec<_>>());
    let partial = dev.alloc_zeroed::<i32>("partial", blocks as usize);
    let mut seen = Vec::new();
    for (none, partial_arg) in [
        (Arg::NoBuffer(0), Arg::buffer(&partial)),
        (Arg::NoBuffer(0x1234_5670), Arg::NoBuffer(0)),
    ] {
        let args = [Arg::buffer(&out), Arg::buffer(&x), none, partial_arg];
        let cfg = LaunchConfig::new(blocks, threads)
            .dynamic_shared(64)
            .mode(Mode::Count);
        let (words, _) = compiled_alike(
            (&dev, &k, &cfg, &args),
            || {
                out.fill(0);
                partial.fill(0);
            },
            || (out.to_vec(), partial.to_vec()),
        );
        seen.push(words);
    }
    // What the kernel saw: a null `none` then an address, `partial` a buffer then null.
    let flags = |w: &[u64], i: usize| w[5 * i];
    assert_eq!(flags(&seen[0], 11) & 0b1111, 0b1010);
    assert_eq!(flags(&seen[1], 11) & 0b1111, 0b1111);
    assert_eq!(flags(&seen[0], 3) & 8, 0, "x + 3 > x + 10 is false");
    assert_eq!(seen[0][5 * 7 + 1], 28, "x + 7 lies 28 bytes past x");
    assert_eq!(seen[1][5 * 2 + 3] - seen[0][5 * 2 + 3], 0x1234_5670);
}

/// The sm_80 warp reductions combine the lanes their mask names among those executing, with
/// signed or unsigned order as the value's type says, alike on both tiers; they compile.
#[test]
fn warp_reductions_run_alike() {
    let src = r#"
        __global__ void reduce(int *out, unsigned *u, const int *x) {
            int t = threadIdx.x + blockIdx.x * blockDim.x;
            int v = x[t] - 6;
            int a = 0, b = 0, c = 0;
            unsigned d = 0, e = 0, f = 0;
            if (t % 3 != 0) {
                a = __reduce_add_sync(0xffffffff, v);
                b = __reduce_min_sync(0xfffffff0, v);
                c = __reduce_max_sync(0x0f0f0f0f, v);
            } else {
                d = __reduce_min_sync(0xffffffff, (unsigned)v);
                e = __reduce_max_sync(0xffffffff, (unsigned)v);
                f = __reduce_and_sync(0xffffffff, (unsigned)v | 0x100u);
            }
            out[4 * t] = a; out[4 * t + 1] = b; out[4 * t + 2] = c;
            // A mask that names no executing lane: 0.
            int g = -1;
            if (threadIdx.x < 8) g = __reduce_add_sync(0xffffff00u, 1);
            out[4 * t + 3] = g;
            u[4 * t] = d; u[4 * t + 1] = e; u[4 * t + 2] = f;
            u[4 * t + 3] = __reduce_or_sync(0xffffffff, 1u << (threadIdx.x % 32))
                         ^ __reduce_xor_sync(0x55555555, (unsigned)t);
        }
    "#;
    let module = Module::from_source("reduce.cu", src, &Options::default()).expect("parses");
    let k = module.lower("reduce").expect("lowers");
    let dev = Device::default();
    let n = 96;
    let out = dev.alloc_zeroed::<i32>("out", 4 * n);
    let u = dev.alloc_zeroed::<u32>("u", 4 * n);
    let x = dev.alloc_from(
        "x",
        &(0..n as i32).map(|i| (i * 7) % 13).collect::<Vec<_>>(),
    );
    let args = [Arg::buffer(&out), Arg::buffer(&u), Arg::buffer(&x)];
    let cfg = LaunchConfig::new(2, 48).mode(Mode::Count);
    let (ints, words) = compiled_alike(
        (&dev, &k, &cfg, &args),
        || {
            out.fill(0);
            u.fill(0);
        },
        || (out.to_vec(), u.to_vec()),
    );
    // Thread 1: the lanes 1..31 of warp 0 not divisible by 3 add their x - 6.
    let v = |t: i32| (t * 7) % 13 - 6;
    let executing = |m: u32| (0..32).filter(move |&l| m >> l & 1 == 1 && l % 3 != 0);
    assert_eq!(ints[4], executing(!0).map(v).sum::<i32>());
    assert_eq!(ints[5], executing(0xffff_fff0).map(v).min().unwrap());
    assert_eq!(ints[4 * 3 + 3], 0, "thread 3 names no executing lane");
    // Thread 0 compares unsigned: -6 is the largest.
    assert_eq!(
        words[1],
        (0..32)
            .filter(|l| l % 3 == 0)
            .map(|l| v(l) as u32)
            .max()
            .unwrap()
    );
}

/// `__match_any_sync` names, per lane, the lanes of its mask among those executing whose value
/// equals its own, alike on both tiers; it compiles.
#[test]
fn match_any_runs_alike() {
    let src = r#"
        __global__ void groups(unsigned *out, const int *x) {
            int t = threadIdx.x + blockIdx.x * blockDim.x;
            unsigned m = 0;
            if (x[t] % 4 != 0) m = __match_any_sync(0xfffffffeu, x[t] % 5);
            out[t] = m;
        }
    "#;
    let module = Module::from_source("match.cu", src, &Options::default()).expect("parses");
    let k = module.lower("groups").expect("lowers");
    let dev = Device::default();
    let n = 96;
    let values: Vec<i32> = (0..n as i32).map(|i| (i * 7) % 13).collect();
    let out = dev.alloc_zeroed::<u32>("out", n);
    let x = dev.alloc_from("x", &values);
    let cfg = LaunchConfig::new(2, 48).mode(Mode::Count);
    let got = compiled_alike(
        (&dev, &k, &cfg, &[Arg::buffer(&out), Arg::buffer(&x)]),
        || out.fill(0),
        || out.to_vec(),
    );
    // Warp 0 of block 0 against a reference: lane 0 is outside the mask.
    let executing = |l: usize| l != 0 && values[l] % 4 != 0;
    for l in 0..32 {
        let want = if executing(l) {
            (0..32)
                .filter(|&k| executing(k) && values[k] % 5 == values[l] % 5)
                .fold(0u32, |m, k| m | 1 << k)
        } else {
            0
        };
        assert_eq!(got[l], want, "lane {l}");
    }
}

/// Member masks that differ between lanes or warps compile: a `__ballot_sync` result as a
/// later shuffle's mask (the same within each warp), and groups of lanes each passing its own
/// mask (`__match_any_sync`'s, as `labeled_partition` makes them) to votes, reductions,
/// matches, shuffles and `__syncwarp`. Both tiers agree, and with a reference.
#[test]
fn lane_masks_run_alike() {
    let src = r#"
        __global__ void groups(int *out, const int *key, const int *x) {
            int t = threadIdx.x + blockIdx.x * blockDim.x;
            int v = x[t];
            unsigned half = __ballot_sync(0xffffffffu, threadIdx.x % 32 < 16);
            int s = v;
            if (threadIdx.x % 32 < 16) s += __shfl_down_sync(half, s, 1);
            if (x[t] % 7 != 0) {
                unsigned g = __match_any_sync(__activemask(), key[t]);
                __syncwarp(g);
                out[8 * t] = g;
                out[8 * t + 1] = __reduce_max_sync(g, v);
                out[8 * t + 2] = __ballot_sync(g, v % 3 == 0);
                out[8 * t + 3] = __any_sync(g, v > 40);
                out[8 * t + 4] = __all_sync(g, v % 2 == 0);
                out[8 * t + 5] = __match_any_sync(g, v % 4);
                out[8 * t + 6] = __shfl_sync(g, v, __ffs(g) - 1);
            }
            out[8 * t + 7] = s;
        }
    "#;
    let module = Module::from_source("groups.cu", src, &Options::default()).expect("parses");
    let k = module.lower("groups").expect("lowers");
    let dev = Device::default();
    let n = 96;
    let keys: Vec<i32> = (0..n as i32).map(|i| (i * 5) % 3 + i / 32).collect();
    let values: Vec<i32> = (0..n as i32).map(|i| (i * 11) % 47).collect();
    let out = dev.alloc_zeroed::<i32>("out", 8 * n);
    let key = dev.alloc_from("key", &keys);
    let x = dev.alloc_from("x", &values);
    let cfg = LaunchConfig::new(2, 48).mode(Mode::Count);
    let args = [Arg::buffer(&out), Arg::buffer(&key), Arg::buffer(&x)];
    let got = compiled_alike((&dev, &k, &cfg, &args), || out.fill(0), || out.to_vec());
    // Warp 0 of block 0 against a reference.
    let executing = |l: usize| values[l] % 7 != 0;
    let lanes = |f: &dyn Fn(usize) -> bool| (0..32).filter(|&l| f(l)).fold(0u32, |m, l| m | 1 << l);
    for l in (0..32).filter(|&l| executing(l)) {
        let g = lanes(&|k| executing(k) && keys[k] == keys[l]);
        let members: Vec<usize> = (0..32).filter(|&k| g >> k & 1 == 1).collect();
        let want = [
            g as i32,
            members.iter().map(|&k| values[k]).max().expect("a member"),
            lanes(&|k| g >> k & 1 == 1 && values[k] % 3 == 0) as i32,
            i32::from(members.iter().any(|&k| values[k] > 40)),
            i32::from(members.iter().all(|&k| values[k] % 2 == 0)),
            lanes(&|k| g >> k & 1 == 1 && values[k] % 4 == values[l] % 4) as i32,
            values[members[0]],
        ];
        assert_eq!(got[8 * l..8 * l + 7], want, "lane {l}");
    }
    // Lane 15 reads lane 16, which is outside `half` and inactive: 0, as on the GPU.
    for l in 0..32 {
        let s = values[l] + if l < 15 { values[l + 1] } else { 0 };
        assert_eq!(got[8 * l + 7], s, "lane {l}'s sum");
    }
    // Thread 47 (lane 15 of the block's partial last warp) reads lane 16, past the block's
    // last thread: 0 on both tiers (whatever memory the compiled tier's row load read there).
    assert_eq!(got[8 * 47 + 7], values[47], "thread 47's sum");
}

/// Cooperative groups of the lanes that run together compile: a coalesced group's shuffle
/// by rank (the lane of the mask's n-th set bit, 32 past its last), its rank and size, and
/// `labeled_partition` with `cg::reduce`, as warpAggregatedAtomicsCG uses them.
#[test]
fn coalesced_groups_run_alike() {
    let src = r#"
        #include <cooperative_groups.h>
        namespace cg = cooperative_groups;
        __global__ void groups(int *out, const int *x) {
            int t = threadIdx.x + blockIdx.x * blockDim.x;
            int v = x[t];
            if (v % 5 != 0) {
                cg::coalesced_group g = cg::coalesced_threads();
                out[4 * t] = g.shfl(v, 0) * 1000 + g.shfl(v, g.size() - 1);
                out[4 * t + 1] = g.shfl(v, (unsigned)v % 40);
                out[4 * t + 2] = g.thread_rank() * 100 + g.size();
                auto same = cg::labeled_partition(g, v % 3);
                out[4 * t + 3] = cg::reduce(same, v, cg::plus<int>());
            }
        }
    "#;
    let module = Module::from_source("coalesced.cu", src, &Options::default()).expect("parses");
    let k = module.lower("groups").expect("lowers");
    let dev = Device::default();
    let n = 128;
    let values: Vec<i32> = (0..n as i32).map(|i| (i * 13) % 61).collect();
    let out = dev.alloc_zeroed::<i32>("out", 4 * n);
    let x = dev.alloc_from("x", &values);
    let cfg = LaunchConfig::new(2, 64).mode(Mode::Count);
    let args = [Arg::buffer(&out), Arg::buffer(&x)];
    let got = compiled_alike((&dev, &k, &cfg, &args), || out.fill(0), || out.to_vec());
    // Warp 0 of block 0 against a reference.
    let members: Vec<usize> = (0..32).filter(|&l| values[l] % 5 != 0).collect();
    for (rank, &l) in members.iter().enumerate() {
        let first = values[members[0]];
        let last = values[*members.last().expect("a member")];
        let nth = members
            .get(values[l] as usize % 40)
            .map_or(values[0], |&k| values[k]);
        let same: i32 = members
            .iter()
            .filter(|&&k| values[k] % 3 == values[l] % 3)
            .map(|&k| values[k])
            .sum();
        let want = [
            first * 1000 + last,
            nth,
            rank as i32 * 100 + members.len() as i32,
            same,
        ];
        assert_eq!(got[4 * l..4 * l + 4], want, "lane {l}");
    }
}

/// A barrier under an `if` whose condition depends on the thread compiles when every thread
/// of the block takes the same side: the last block to finish (`amLast`, read from shared
/// memory, as threadFenceReduction decides it) sums the blocks' sums. Taken by part of the
/// block, it is the interpreter's error on both tiers.
#[test]
fn a_barrier_under_a_branch_the_block_takes_together_runs_alike() {
    let src = r#"
        __device__ unsigned retired = 0;
        __device__ void tree(float *s, unsigned t) {
            __syncthreads();
            for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
                if (t < k) s[t] += s[t + k];
                __syncthreads();
            }
        }
        __global__ void last_block(float *out, const float *x, int *marks) {
            __shared__ float s[64];
            __shared__ bool am_last;
            unsigned t = threadIdx.x;
            s[t] = x[blockIdx.x * blockDim.x + t];
            tree(s, t);
            if (t == 0) out[blockIdx.x] = s[0];
            __threadfence();
            if (t == 0) {
                unsigned ticket = atomicInc(&retired, gridDim.x);
                am_last = ticket == gridDim.x - 1;
            }
            __syncthreads();
            if (am_last) {
                float sum = 0;
                for (unsigned i = t; i < gridDim.x; i += blockDim.x) sum += out[i];
                s[t] = sum;
                tree(s, t);
                if (t == 0) out[gridDim.x] = s[0];
            } else if (t % 2 == 0) {
                atomicAdd(marks, 1);
            }
        }
        __global__ void mixed(int *out) {
            __shared__ int s[64];
            int v = out[threadIdx.x];
            if (v > 3) {
                s[threadIdx.x] = v;
                __syncthreads();
                out[threadIdx.x] = s[63 - threadIdx.x];
            }
        }
        __global__ void deeper(int *out) {
            if (out[threadIdx.x] > 3) {
                if (blockDim.x > 16) __syncthreads();
                out[threadIdx.x] = 1;
            }
        }
    "#;
    let module = Module::from_source("last.cu", src, &Options::default()).expect("parses");
    let k = module.lower("last_block").expect("lowers");
    let dev = Device::default();
    let (threads, blocks) = (64u32, 100u32);
    let n = (threads * blocks) as usize;
    let values: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let out = dev.alloc_zeroed::<f32>("out", blocks as usize + 1);
    let x = dev.alloc_from("x", &values);
    let marks = dev.alloc_zeroed::<i32>("marks", 1);
    let cfg = LaunchConfig::new(blocks, threads).mode(Mode::Count);
    let args = [Arg::buffer(&out), Arg::buffer(&x), Arg::buffer(&marks)];
    let got = compiled_alike(
        (&dev, &k, &cfg, &args),
        || {
            out.fill(0.0);
            marks.fill(0);
        },
        || (out.to_vec(), marks.to_vec()),
    );
    let total: f32 = values.iter().sum();
    assert_eq!(got.0[blocks as usize], total);
    // The even threads of every block but the last marked.
    assert_eq!(got.1[0], (blocks as i32 - 1) * threads as i32 / 2);

    let k = module.lower("mixed").expect("lowers");
    let out = dev.alloc_from("out", &(0..64).collect::<Vec<i32>>());
    fails_alike(
        (&dev, &k, &[Arg::buffer(&out)]),
        "reached while only part of the block executes",
    );
    // Taken by every thread, it runs.
    let out = dev.alloc_from("out", &(0..64).map(|i| i + 4).collect::<Vec<i32>>());
    let cfg = LaunchConfig::new(1, 64).mode(Mode::Count);
    let got = compiled_alike(
        (&dev, &k, &cfg, &[Arg::buffer(&out)]),
        || out.copy_from_slice(&(0..64).map(|i| i + 4).collect::<Vec<i32>>()),
        || out.to_vec(),
    );
    assert_eq!(got, (0..64).map(|i| 67 - i).collect::<Vec<i32>>());
    // A barrier only under a further branch there: part of the block might pass it by, where
    // the interpreter runs on. Not compiled, and said why.
    let k = module.lower("deeper").expect("lowers");
    let r = cuda::launch(&dev, &k, &LaunchConfig::new(1, 64), &[Arg::buffer(&out)]).expect("runs");
    match r.tier {
        Tier::Interpreted { reason } => assert!(reason.contains("further branch"), "{reason}"),
        t => panic!("deeper: {t:?}"),
    }
}

/// A function with a barrier compiles when the functions it calls return early (mergeSort's
/// `merge` and its binary searches): those returns are the callees'.
#[test]
fn a_barrier_beside_calls_that_return_early_runs_alike() {
    let src = r#"
        __device__ int clamp_up(int v, int lim) {
            if (v > lim) return lim;
            return v;
        }
        __device__ void swap_ends(int *s, unsigned t) {
            int v = clamp_up(s[t], 40);
            __syncthreads();
            s[63 - t] = v;
        }
        __global__ void ends(int *out) {
            __shared__ int s[64];
            s[threadIdx.x] = out[threadIdx.x];
            __syncthreads();
            swap_ends(s, threadIdx.x);
            __syncthreads();
            out[threadIdx.x] = s[threadIdx.x];
        }
    "#;
    let module = Module::from_source("ends.cu", src, &Options::default()).expect("parses");
    let k = module.lower("ends").expect("lowers");
    let dev = Device::default();
    let start: Vec<i32> = (0..64).map(|i| (i * 7) % 64).collect();
    let out = dev.alloc_from("out", &start);
    let cfg = LaunchConfig::new(1, 64).mode(Mode::Count);
    let got = compiled_alike(
        (&dev, &k, &cfg, &[Arg::buffer(&out)]),
        || out.copy_from_slice(&start),
        || out.to_vec(),
    );
    assert_eq!(
        got,
        (0..64).map(|i| start[63 - i].min(40)).collect::<Vec<i32>>()
    );
}

/// A function whose `return`s come after its last barrier compiles (simpleCooperativeGroups'
/// `sumReduction`, called with the block and with a tile of 16): the returns leave the call.
#[test]
fn a_call_returning_after_its_barriers_runs_alike() {
    let src = r#"
        #include <cooperative_groups.h>
        namespace cg = cooperative_groups;
        template <typename G> __device__ int sum(G g, int *x, int val) {
            int lane = g.thread_rank();
            for (int i = g.size() / 2; i > 0; i /= 2) {
                x[lane] = val;
                g.sync();
                if (lane < i) val += x[lane + i];
                g.sync();
            }
            if (g.thread_rank() == 0) return val;
            else return -1;
        }
        __global__ void sums(int *out, int n) {
            __shared__ int w[64];
            // A return from the kernel too: then the block tracks the threads it has left.
            if (threadIdx.x >= n) return;
            cg::thread_block b = cg::this_thread_block();
            int all = sum(b, w, threadIdx.x);
            cg::thread_block_tile<16> t = cg::tiled_partition<16>(b);
            int part = sum(t, w + b.thread_rank() - t.thread_rank(), t.thread_rank());
            out[threadIdx.x] = all * 1000 + part;
        }
    "#;
    let module = Module::from_source("sums.cu", src, &Options::default()).expect("parses");
    let k = module.lower("sums").expect("lowers");
    let dev = Device::default();
    let out = dev.alloc_zeroed::<i32>("out", 64);
    let cfg = LaunchConfig::new(1, 64).mode(Mode::Count);
    let got = compiled_alike(
        (&dev, &k, &cfg, &[Arg::buffer(&out), Arg::Int(64)]),
        || out.fill(0),
        || out.to_vec(),
    );
    let want: Vec<i32> = (0..64)
        .map(|t| {
            let all = if t == 0 { 63 * 64 / 2 } else { -1 };
            let part = if t % 16 == 0 { 15 * 16 / 2 } else { -1 };
            all * 1000 + part
        })
        .collect();
    assert_eq!(got, want);
}

/// A member mask that names a lane passing another mask is an error, the interpreter's, on
/// both tiers.
#[test]
fn a_mask_that_disagrees_between_its_lanes_fails_alike() {
    let src = r#"
        __global__ void odd(unsigned *out) {
            unsigned m = threadIdx.x % 2 == 1 ? 0xffffffffu : 1u << threadIdx.x % 32;
            out[threadIdx.x] = __ballot_sync(m, 1);
        }
    "#;
    let module = Module::from_source("odd.cu", src, &Options::default()).expect("parses");
    let k = module.lower("odd").expect("lowers");
    let dev = Device::default();
    let out = dev.alloc_zeroed::<u32>("out", 64);
    fails_alike(
        (&dev, &k, &[Arg::buffer(&out)]),
        "the threads a mask names must pass the same mask",
    );
}

/// Launch `k` as one block of 64 threads on the interpreter, then forced onto the compiled
/// tier: both must fail with the same error, one that says `what`.
fn fails_alike((dev, k, args): (&Device, &Kernel, &[Arg]), what: &str) {
    let err = |engine: Engine| {
        let cfg = LaunchConfig::new(1, 64).mode(Mode::Fast).engine(engine);
        let e = cuda::launch(dev, k, &cfg, args).expect_err("faults");
        e.to_string()
    };
    let want = err(Engine::Interp);
    assert!(want.contains(what), "{want}");
    assert_eq!(err(Engine::Jit), want);
}

/// A block shape the device refuses is an invalid launch on every engine, before anything is
/// compiled for it (a compiled tier sized by the block would otherwise allocate for 2^32
/// threads).
#[test]
fn an_impossible_block_is_refused_before_compiling() {
    let module = Module::from_source(
        "big.cu",
        "__global__ void k(int *x) { x[threadIdx.x] = 1; }",
        &Options::default(),
    )
    .expect("parses");
    let k = module.lower("k").expect("lowers");
    let dev = Device::default();
    let x = dev.alloc_zeroed::<i32>("x", 64);
    for engine in [Engine::Auto, Engine::Jit] {
        let cfg = LaunchConfig::new(1, (65536, 65536, 1))
            .mode(Mode::Fast)
            .engine(engine);
        let e = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&x)]).expect_err("refused");
        assert!(matches!(e, warpsim::Error::InvalidLaunch { .. }), "{e}");
    }
}

/// A block of 32 warps whose every warp leaves the interpreter's fast row path at once (the
/// lanes that do not execute index past the buffer): the load counts one instruction a warp
/// on both tiers (the interpreter counted a second one when all 32 warps were slow, the
/// warp mask then equal to its "not tried" value).
#[test]
fn a_block_of_32_warps_counts_alike() {
    let src = "__global__ void mmul(const float *a, float *c, int ds) {\n\
               int x = threadIdx.x + blockDim.x * blockIdx.x;\n\
               int y = threadIdx.y;\n\
               if (x < ds) {\n\
               float t = 0;\n\
               for (int i = 0; i < ds; i++) t += a[i * ds + x];\n\
               c[y * ds + x] = t;\n\
               }\n\
               }\n";
    let module = Module::from_source("w32.cu", src, &Options::default()).expect("parses");
    let k = module.lower("mmul").expect("lowers");
    let counts = |engine: Engine| {
        let dev = Device::default();
        let a = dev.alloc_from("a", &[1.0f32; 1600]);
        let c = dev.alloc_zeroed::<f32>("c", 1600);
        let cfg = LaunchConfig::new(2, (32, 32)).engine(engine);
        let r = cuda::launch(
            &dev,
            &k,
            &cfg,
            &[Arg::buffer(&a), Arg::buffer(&c), Arg::Int(40)],
        )
        .expect("runs");
        (r.launch.counters, c.to_vec())
    };
    let (want, got) = (counts(Engine::Interp), counts(Engine::Jit));
    assert_eq!(want, got);
    let c = want.0.expect("counted");
    // Per warp: the loop's 40 loads.
    assert_eq!(c.gld_requests, 64 * 40);
}

/// What the compiled tier does not compile runs on the interpreter, and the reason says what
/// it is, wherever the kernel reads it (`clock()` stored directly, or compared at block level).
#[test]
fn what_is_not_compiled_is_named() {
    let module = Module::from_source(
        "clock.cu",
        "__global__ void stored(long long *t) { if (threadIdx.x == 0) t[blockIdx.x] = clock64(); }\n\
         __global__ void waits(int *x) { clock_t s = clock(); while (clock() - s < 100) \
         __syncthreads(); x[threadIdx.x] = 1; }",
        &Options::default(),
    )
    .expect("parses");
    let dev = Device::default();
    let x = dev.alloc_zeroed::<u64>("x", 64);
    for name in ["stored", "waits"] {
        let k = module.lower(name).expect("lowers");
        let cfg = LaunchConfig::new(2, 32).mode(Mode::Fast);
        let r = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&x)]).expect("runs");
        match r.tier {
            Tier::Interpreted { reason } => assert!(reason.contains("clock()"), "{reason}"),
            t => panic!("{name}: {t:?}"),
        }
    }
    // A switch of 300 cases: Cranelift's time grows steeply with so many branches (1,000 took
    // minutes), the interpreter's does not.
    let cases: String = (0..300)
        .map(|c| format!("case {c}: x[threadIdx.x] = {c}; break;\n"))
        .collect();
    let src = format!(
        "__global__ void big(unsigned long long *x) {{ switch (threadIdx.x % 300) {{ {cases} }} }}"
    );
    let module = Module::from_source("big.cu", &src, &Options::default()).expect("parses");
    let k = module.lower("big").expect("lowers");
    let r = cuda::launch(
        &dev,
        &k,
        &LaunchConfig::new(1, 32).mode(Mode::Fast),
        &[Arg::buffer(&x)],
    )
    .expect("runs");
    match r.tier {
        Tier::Interpreted { reason } => {
            assert!(
                reason.contains("larger than the compiled tier takes"),
                "{reason}"
            )
        }
        t => panic!("big: {t:?}"),
    }
    assert_eq!(x.to_vec()[..32], (0..32).collect::<Vec<u64>>()[..]);
}

/// A variable assigned in one place, under a branch that whole warps skip, and read after the
/// block's code is split (at a barrier, around a loop that stores to global memory) by the
/// threads that assigned it: the block keeps the value its warps assigned, not the value a
/// skipping warp held from before (found by a helper's fuzzing: the compiled tier wrote 0).
/// Nor that of a warp whose threads left before a later assignment (`left`).
#[test]
fn a_value_assigned_by_some_warps_outlives_a_barrier() {
    let src = "__global__ void barrier(float *x, int *y, int n) {\n\
               int t = threadIdx.x;\n\
               float v;\n\
               if (t < 32) v = n * 2.5f;\n\
               __syncthreads();\n\
               if (t < 32) x[t] = v;\n\
               }\n\
               __global__ void stores(float *x, int *y, int n) {\n\
               int t = threadIdx.x;\n\
               float v;\n\
               if (t < 32) v = n * 2.5f;\n\
               for (int i = 0; i < 2; i++) y[i * blockDim.x + t] = i;\n\
               if (t < 32) x[t] = v;\n\
               }\n\
               __global__ void left(float *x, int *y, int n) {\n\
               int t = threadIdx.x;\n\
               float acc = 0.0f;\n\
               if (t >= 3) return;\n\
               if (n > 2) acc -= 2.5f;\n\
               __syncthreads();\n\
               x[t] = acc + 10.0f;\n\
               }\n\
               __global__ void carried(float *x, int *y, int n) {\n\
               int t = threadIdx.x;\n\
               float v;\n\
               for (int i = 0; i < 4; i++) {\n\
                   if (t < 32) { if (i > 0) x[i * 64 + t] = v; v = n + i; }\n\
                   __syncthreads();\n\
               }\n\
               }\n";
    let module = Module::from_source("carry.cu", src, &Options::default()).expect("parses");
    for (kernel, block) in [
        ("barrier", 64),
        ("barrier", 40),
        ("stores", 64),
        ("carried", 96),
        ("left", 64),
    ] {
        let k = module.lower(kernel).expect("lowers");
        let run = |engine: Engine| {
            let dev = Device::default();
            let x = dev.alloc_zeroed::<f32>("x", 256);
            let y = dev.alloc_zeroed::<i32>("y", 256);
            let cfg = LaunchConfig::new(1, block).engine(engine);
            let args = [Arg::buffer(&x), Arg::buffer(&y), Arg::Int(3)];
            let r = cuda::launch(&dev, &k, &cfg, &args).expect("runs");
            (r.tier, x.to_vec(), y.to_vec())
        };
        let (tier, x, y) = run(Engine::Jit);
        assert!(matches!(tier, Tier::Compiled { .. }), "{kernel}: {tier:?}");
        let (_, xi, yi) = run(Engine::Interp);
        assert_eq!((&x, &y), (&xi, &yi), "{kernel}, block {block}");
        if kernel == "carried" {
            for i in 1..4 {
                assert_eq!(x[i * 64..i * 64 + 32], [(2 + i) as f32; 32], "{kernel}");
            }
        } else if kernel == "left" {
            assert_eq!(x[..4], [7.5, 7.5, 7.5, 0.0], "{kernel}");
        } else {
            assert_eq!(x[..32], [7.5; 32], "{kernel}, block {block}");
        }
    }
}

/// A per-thread array that every running thread writes alike, read at an index the same for
/// all, is a value the same for all: compiled, read from a lane that ran the writes (lane 0
/// returned before them here), of each element type.
#[test]
fn a_local_array_written_alike_is_compiled() {
    let src = "__global__ void after_return(float *x, double *y, int *z, int n) {\n\
               int t = threadIdx.x;\n\
               if (t == 0) return;\n\
               float a[4] = {1.5f, 2.5f, 3.5f, 4.5f};\n\
               double d[3];\n\
               for (int i = 0; i < 3; i++) d[i] = i * 0.25 + n;\n\
               bool b[3] = {true, false, true};\n\
               char c[3] = {-3, 5, 100};\n\
               float v = a[n];\n\
               x[t] = v + t;\n\
               y[t] = d[n] * t;\n\
               z[t] = (b[n] ? 10 : 20) + c[n];\n\
               }\n";
    let module = Module::from_source("local.cu", src, &Options::default()).expect("parses");
    let k = module.lower("after_return").expect("lowers");
    // 40 threads: a second warp of 8.
    let run = |engine: Engine| {
        let dev = Device::default();
        let x = dev.alloc_zeroed::<f32>("x", 40);
        let y = dev.alloc_zeroed::<f64>("y", 40);
        let z = dev.alloc_zeroed::<i32>("z", 40);
        let cfg = LaunchConfig::new(1, 40).engine(engine);
        let args = [
            Arg::buffer(&x),
            Arg::buffer(&y),
            Arg::buffer(&z),
            Arg::Int(1),
        ];
        let r = cuda::launch(&dev, &k, &cfg, &args).expect("runs");
        (r.tier, x.to_vec(), y.to_vec(), z.to_vec())
    };
    let (tier, x, y, z) = run(Engine::Jit);
    assert!(matches!(tier, Tier::Compiled { .. }), "{tier:?}");
    let (_, xi, yi, zi) = run(Engine::Interp);
    assert_eq!((&x, &y, &z), (&xi, &yi, &zi));
    let t = 1..40;
    assert_eq!(x[0], 0.0);
    assert_eq!(
        x[1..],
        t.clone().map(|t| 2.5 + t as f32).collect::<Vec<_>>()[..]
    );
    assert_eq!(
        y[1..],
        t.clone().map(|t| 1.25 * t as f64).collect::<Vec<_>>()[..]
    );
    assert_eq!(z[1..], vec![25; 39][..]);
}

/// Counting on the compiled tier (its memo of what a row of lanes costs included) gives the
/// interpreter's counters, per-line counters and samples whatever order the blocks run in, on
/// any number of CPU threads, with lines asked for by the launch or by the device.
#[test]
fn counting_agrees_in_any_block_order_and_thread_count() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda/kernels.cu");
    let text = std::fs::read_to_string(&path).expect("readable");
    let module = Module::from_source("kernels.cu", &text, &Options::default()).expect("parses");
    // Blocks that reach their branch steps at lines of their own: the first warp to reach a
    // step names its line, whichever block ran first. Samples as costly as the one kept.
    let steps = Module::from_source(
        "steps.cu",
        "__global__ void steps_by_block(float *x) {\n\
           unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n\
           if (blockIdx.x % 3 == 1) { if (t % 2) x[i] += 1.0f; }\n\
           else if (t % 4 == 1) { x[i] += 2.0f; }\n\
           for (int j = 0; j < (int)(blockIdx.x % 4); j++) { if (t < 8 * j) x[i] += 1.0f; }\n\
           if (blockIdx.x == 5 && t % 3 == 0) x[i] -= 1.0f;\n\
         }\n\
         __global__ void sample_ties(float *x) {\n\
           unsigned w = threadIdx.x / 32, lane = threadIdx.x % 32;\n\
           if (blockIdx.x + 1 < gridDim.x && w == 7) x[lane * 64] += 1.0f;\n\
           __syncthreads();\n\
           if (w == 0) x[lane * 64 + 1] += 2.0f;\n\
         }\n",
        &Options::default(),
    )
    .expect("parses");
    // (module, kernel, grid, block)
    type Case<'m> = (&'m Module, &'static str, (u32, u32), (u32, u32));
    let cases: [Case; 7] = [
        (&module, "reduce_interleaved", (8, 1), (256, 1)),
        (&module, "reduce_sequential", (8, 1), (256, 1)),
        (&module, "reduce_multi", (3, 1), (128, 1)),
        (&module, "transpose_naive", (2, 8), (32, 8)),
        (&module, "transpose_no_conflicts", (2, 8), (32, 8)),
        (&steps, "steps_by_block", (8, 1), (64, 1)),
        // In reverse, block 1's warp 7 takes the sample from block 2's warp 0, then its own
        // warp 0 takes it back with an access as costly that the memo already knows.
        (&steps, "sample_ties", (3, 1), (256, 1)),
    ];
    let setups = [
        (1, warpsim::BlockOrder::Parallel, false, false),
        (2, warpsim::BlockOrder::Reverse, true, false),
        (3, warpsim::BlockOrder::Random(7), false, true),
    ];
    for (module, name, grid, block) in cases {
        let k = module.lower(name).expect("lowers");
        for (threads, order, cfg_lines, dev_lines) in setups {
            let count = |engine: Engine| {
                let dev = Device::default()
                    .with_threads(threads)
                    .expect("a pool")
                    .with_lines(dev_lines);
                let (args, _) = args(&dev, &k);
                let cfg = LaunchConfig::new(grid, block)
                    .name(name)
                    .mode(Mode::Count)
                    .lines(cfg_lines)
                    .dynamic_shared(4096)
                    .engine(engine);
                let cfg = LaunchConfig {
                    block_order: order,
                    ..cfg
                };
                let r = cuda::launch(&dev, &k, &cfg, &args).expect("runs");
                let l = &r.launch;
                let counts = format!(
                    "{:?}\n{:?}\n{:?}\n{:?}",
                    l.counters, l.lines, l.divergent_by_warp, l.samples
                );
                (counts, r.tier)
            };
            let (want, _) = count(Engine::Interp);
            let (got, tier) = count(Engine::Jit);
            assert!(matches!(tier, Tier::Compiled { .. }), "{name}: {tier:?}");
            let at = want.lines().zip(got.lines()).position(|(a, b)| a != b);
            assert!(
                at.is_none(),
                "{name} ({threads} threads, {order:?}, lines {cfg_lines}/{dev_lines}): the \
                 tiers count differently:\ninterpreter {:.1500}\ncompiled    {:.1500}",
                want.lines().nth(at.unwrap_or(0)).unwrap_or(""),
                got.lines().nth(at.unwrap_or(0)).unwrap_or("")
            );
            assert!(
                want.contains("gld_requests") && !want.starts_with("None"),
                "{name}: no counters"
            );
        }
    }
}

/// Strided stores wait in a queue on the compiled tier only where nothing can tell: a buffer
/// passed twice (written through one pointer, read through the other) is written in the
/// interpreter's order, and a loop stopped by the watchdog leaves the stores before it
/// written, as the interpreter does.
#[test]
fn queued_stores_keep_the_interpreters_order() {
    let src = "__global__ void chain(float *out, const float *in, int n) {\n\
               int t = blockIdx.x * blockDim.x + threadIdx.x;\n\
               out[t * 8] = (float)t;\n\
               for (int j = 1; j < 6; j++) out[t * 8 + j] = in[t * 8 + j - 1] + 1.0f;\n\
               }\n\
               __global__ void stores_then_spin(float *out, const int *flag) {\n\
               int t = threadIdx.x;\n\
               for (int j = 0; j < 4; j++) out[t * 8 + j] = (float)(t + j);\n\
               while (flag[0] == 0) { }\n\
               }\n";
    let module = Module::from_source("queue.cu", src, &Options::default()).expect("parses");
    let chain = module.lower("chain").expect("lowers");
    let spin = module.lower("stores_then_spin").expect("lowers");
    let outcome = |engine: Engine, twice: bool| {
        let dev = Device::default();
        let out = dev.alloc_zeroed::<f32>("out", 1024);
        let other = dev.alloc_zeroed::<f32>("in", 1024);
        let input = if twice { &out } else { &other };
        let cfg = LaunchConfig::new(2, 64).mode(Mode::Fast).engine(engine);
        let args = [Arg::buffer(&out), Arg::buffer(input), Arg::Int(0)];
        let tier = cuda::launch(&dev, &chain, &cfg, &args).expect("runs").tier;
        (tier, out.to_vec())
    };
    for twice in [true, false] {
        let (_, want) = outcome(Engine::Interp, twice);
        let (tier, got) = outcome(Engine::Jit, twice);
        assert!(matches!(tier, Tier::Compiled { .. }), "{tier:?}");
        assert_eq!(want, got, "the same buffer twice: {twice}");
        // Through one buffer each store reads the one before: t, t + 1, …, t + 5.
        let last = if twice { 5.0 + 70.0 } else { 1.0 };
        assert_eq!(want[70 * 8 + 5], last, "twice: {twice}");
    }
    for engine in [Engine::Interp, Engine::Auto] {
        let dev = Device::default();
        let out = dev.alloc_zeroed::<f32>("out", 1024);
        let flag = dev.alloc_zeroed::<i32>("flag", 1);
        let cfg = LaunchConfig::new(1, 64)
            .mode(Mode::Fast)
            .engine(engine)
            .timeout(std::time::Duration::from_millis(200));
        let e = cuda::launch(&dev, &spin, &cfg, &[Arg::buffer(&out), Arg::buffer(&flag)])
            .expect_err("stopped");
        assert!(
            matches!(e, warpsim::Error::Timeout { .. }),
            "{engine:?}: {e}"
        );
        // The first warp was stopped in its loop; its stores before the loop are written.
        let want: Vec<f32> = (0..32).map(|t| (t + 3) as f32).collect();
        let got: Vec<f32> = (0..32).map(|t| out.to_vec()[t * 8 + 3]).collect();
        assert_eq!(got, want, "{engine:?}");
    }
}

/// The first wave's sample ([`warpsim::WaveRuns`]) on the compiled tier: a warp of the first
/// wave shows the helper its first 32 global loads and stores even where the memo knows their
/// cost, and no others; a grid of two waves (264 blocks of 1024 threads each on an H100),
/// warps of 40 loads and a store (some rows skipped, some read twice), on 1 and 2 threads.
#[test]
fn the_first_wave_is_sampled_alike() {
    let src = "__global__ void rows(const float *in, float *out) {\n\
               int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;\n\
               float sum = 0;\n\
               for (int j = 0; j < 40; j++) sum += in[(warp * 40 + (j * 3) % 40) * 32 + lane];\n\
               out[blockIdx.x * blockDim.x + threadIdx.x] = sum;\n\
               }\n\
               __global__ void columns(const float *in, float *out) {\n\
               int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;\n\
               float sum = 0;\n\
               for (int j = 0; j < 40; j++) sum += in[lane * 675840 + warp * 40 + j];\n\
               out[blockIdx.x * blockDim.x + threadIdx.x] = sum;\n\
               }\n\
               __global__ void split_columns(const float *in, float *out) {\n\
               int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;\n\
               float sum = 0;\n\
               for (int j = 0; j < 40; j++) {\n\
                   int at = (31 - lane) * 675840 + warp * 40 + j;\n\
                   if (lane & 1) sum += in[at]; else sum -= in[at];\n\
               }\n\
               out[blockIdx.x * blockDim.x + threadIdx.x] = sum;\n\
               }\n";
    let module = Module::from_source("wave.cu", src, &Options::default()).expect("parses");
    let blocks = 528;
    for (kernel, threads) in [
        ("rows", 1),
        ("rows", 2),
        ("columns", 2),
        ("split_columns", 1),
    ] {
        let k = module.lower(kernel).expect("lowers");
        let counts = |engine: Engine| {
            let dev = Device::default().with_threads(threads).expect("a pool");
            let input = dev.alloc_from("in", &vec![1.0f32; blocks * 32 * 40 * 32]);
            let out = dev.alloc_zeroed::<f32>("out", blocks * 1024);
            let cfg = LaunchConfig::new(blocks as u32, 1024).engine(engine);
            let r = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&input), Arg::buffer(&out)])
                .expect("runs");
            assert!(matches!(r.tier, Tier::Compiled { .. }) == (engine == Engine::Jit));
            (r.launch.counters, r.launch.samples)
        };
        let (want, got) = (counts(Engine::Interp), counts(Engine::Jit));
        assert_eq!(want, got, "{kernel}, {threads} threads");
        // 3j mod 40 visits a warp's 40 rows in a scrambled order (3 and 40 are coprime): its
        // first 32 loads are 32 distinct rows of 4 sectors. A column's lanes each read 4
        // sectors of their own part (2.6 MiB apart), 160 bytes after the previous warp's.
        let w = want.1.wave;
        if kernel == "split_columns" {
            // A column in reverse (a negative step on the compiled tier, lane by lane on the
            // interpreter), its odd lanes then its even ones: a warp's first 32 accesses are
            // 16 loads of each lane's own part, 2 sectors.
            assert_eq!((w.blocks, w.sectors), (264, 264 * 32 * 32 * 2));
            continue;
        }
        assert_eq!((w.blocks, w.sectors), (264, 264 * 32 * 32 * 4));
        if kernel == "columns" {
            // Per lane one run of the wave's warps × 160 bytes: 21,120 granules (a gap of
            // one sector leaves no granule out).
            let mut runs = [0; warpsim::WaveRuns::BUCKETS];
            runs[14] = 32 * 264 * 32 * 160 / 64;
            assert_eq!(w.granules, runs);
        }
    }
}

/// Branches whose lanes the block's shape decides (thread indices and constants only) run as
/// one value per warp on the compiled tier where every warp's lanes agree: outputs, branch and
/// divergence counts must be the interpreter's, in 1-D and 2-D blocks and a partial last warp,
/// for conditions that split a warp too.
#[test]
fn restarted_indices_run_alike() {
    // Variables assigned again, whole, in the list of their first definition: at the same step
    // (`x`, kept as its lane 0 alone), at another step (`y`), after threads left (`return`),
    // and in a loop's body (`k`); `w` is assigned again under a branch and `z` by a load, so
    // neither is restarted.
    let src = "__global__ void restarted(float *out, const float *in, int n, const int *idx) {\n\
               __shared__ float tile[64];\n\
               int t = threadIdx.x;\n\
               int x = blockIdx.x * 64 + t;\n\
               int y = t * 2;\n\
               int w = t;\n\
               tile[t] = in[x];\n\
               __syncthreads();\n\
               x = blockIdx.x * 64 + (63 - t);\n\
               y = t * 3 + 1;\n\
               if (t % 3 == 0) w = t + 5;\n\
               out[x] = tile[t] + y;\n\
               if (t >= n) return;\n\
               x = 128 + blockIdx.x * 64 + t;\n\
               out[x] = tile[(y + w) % 64];\n\
               int z = t + 1;\n\
               out[x] += z;\n\
               z = idx[t];\n\
               out[x + 256] = tile[z];\n\
               for (int i = 0; i < 3; i++) {\n\
               int k = t + i;\n\
               if (k % 4 == 1) continue;\n\
               k = 256 + blockIdx.x * 64 + t;\n\
               out[k] += i;\n\
               }\n\
               }\n";
    let module = Module::from_source("restarted.cu", src, &Options::default()).expect("parses");
    let k = module.lower("restarted").expect("lowers");
    let input: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    let index: Vec<i32> = (0..64).map(|i| (i * 7) % 64).collect();
    for n in [64, 40] {
        let run = |engine: Engine| {
            let dev = Device::default();
            let out = dev.alloc_zeroed::<f32>("out", 512);
            let inp = dev.alloc_from("in", &input);
            let idx = dev.alloc_from("idx", &index);
            let cfg = LaunchConfig::new(2, 64)
                .engine(engine)
                .mode(Mode::Count)
                .lines(true);
            let args = [
                Arg::buffer(&out),
                Arg::buffer(&inp),
                Arg::Int(n),
                Arg::buffer(&idx),
            ];
            let r = cuda::launch(&dev, &k, &cfg, &args).expect("runs");
            assert_eq!(
                matches!(r.tier, Tier::Compiled { .. }),
                engine == Engine::Jit
            );
            let l = r.launch;
            (out.to_vec(), format!("{:?}\n{:?}", l.counters, l.lines))
        };
        let (want, got) = (run(Engine::Interp), run(Engine::Jit));
        assert_eq!(want.0, got.0, "n = {n}: the outputs differ");
        assert!(want.1 == got.1, "n = {n}: the counts differ");
    }
}

#[test]
fn branches_the_block_shape_decides_run_alike() {
    let src = "__global__ void shaped(float *out, int n) {\n\
               unsigned t = threadIdx.x + threadIdx.y * blockDim.x;\n\
               int lane = t % 32, warp = t / warpSize;\n\
               float v = t;\n\
               if (t < 64) v += 1;\n\
               if (warp == 1 || t >= 96) v *= 2; else v -= 1;\n\
               if (!(threadIdx.y < 2)) v -= 3;\n\
               if (lane < 16) v += 5;\n\
               bool odd = (t / 32) & 1;\n\
               if (odd) v += 7; else v -= 7;\n\
               bool late = (warp > 0 ? t - 32 : t + 1000) >= 40;\n\
               if (late && t < 5u * blockDim.x) v *= 3;\n\
               if (t < n) v += 11;\n\
               if (late && t < n) v -= 13;\n\
               out[blockIdx.x * blockDim.x * blockDim.y + t] = v;\n\
               }\n";
    let module = Module::from_source("shaped.cu", src, &Options::default()).expect("parses");
    let k = module.lower("shaped").expect("lowers");
    for block in [(128, 1), (100, 1), (16, 6), (48, 1), (8, 8)] {
        let run = |engine: Engine| {
            let dev = Device::default();
            let out = dev.alloc_zeroed::<f32>("out", 2 * 128);
            let cfg = LaunchConfig::new(2, block)
                .engine(engine)
                .mode(Mode::Count)
                .lines(true);
            let r = cuda::launch(&dev, &k, &cfg, &[Arg::buffer(&out), Arg::Int(70)]).expect("runs");
            assert_eq!(
                matches!(r.tier, Tier::Compiled { .. }),
                engine == Engine::Jit
            );
            let l = r.launch;
            let counts = format!("{:?}\n{:?}\n{:?}", l.counters, l.lines, l.divergent_by_warp);
            (out.to_vec(), counts)
        };
        let (want, got) = (run(Engine::Interp), run(Engine::Jit));
        assert_eq!(want.0, got.0, "block {block:?}: the outputs differ");
        assert!(want.1 == got.1, "block {block:?}: the counts differ");
    }
}

/// A kernel whose innermost store sits `levels` levels deep, cycling through `if`, `for`,
/// `while`, `do`, `switch` (two levels: the switch and its `case`) and a bare block, each on a
/// line of its own; every thread passes each level and adds `levels` to its element. With the
/// line where level 129 opens.
fn nested_kernel(levels: usize) -> (String, usize) {
    let (mut open, mut close) = (String::new(), String::new());
    let (mut level, mut line_129) = (0, 0);
    while level < levels {
        let d = level;
        let (o, c, n) = match d % 6 {
            1 => (format!("for (int i{d} = 0; i{d} < 1; i{d}++) {{"), "}", 1),
            2 => (format!("int w{d} = 1; while (w{d}--) {{"), "}", 1),
            3 => ("do {".to_string(), "} while (0);", 1),
            4 if level + 2 <= levels => ("switch (t & 0) { case 0:".to_string(), "}", 2),
            5 => ("{".to_string(), "}", 1),
            _ => (format!("if (t >= -{d}) {{"), "}", 1),
        };
        if level < 129 && level + n >= 129 {
            line_129 = 3 + open.lines().count();
        }
        level += n;
        open.push_str(&o);
        open.push('\n');
        close.insert_str(0, &format!("{c}\n"));
    }
    let src = format!(
        "__global__ void deep(int *a) {{\nint t = blockIdx.x * blockDim.x + threadIdx.x;\n\
         {open}a[t] += {levels};\n{close}}}\n"
    );
    (src, line_129)
}

/// Statements nested up to warpsim's limit (128 levels) lower, print and run alike on both
/// tiers (the compiled one takes 64 levels and leaves deeper kernels to the interpreter), on
/// a test thread's 2 MiB stack and rayon's threads, in every mode; one level more, and a
/// generated 2,000, are refused at the line that passes the limit, as is code that passes it
/// only once a device function is inlined.
#[test]
fn statements_nest_up_to_the_limit_and_are_refused_past_it() {
    let dev = Device::default();
    let a = dev.alloc_zeroed::<i32>("a", 256);
    for depth in [60, 127, 128] {
        let (src, _) = nested_kernel(depth);
        let k = Module::from_source("deep.cu", &src, &Options::default())
            .and_then(|m| m.lower("deep"))
            .unwrap_or_else(|e| panic!("{depth}: {e}"));
        // The listing indents the store a level per statement around it.
        let listing = cuda::print::kernel(&k);
        let store = listing
            .lines()
            .find(|l| l.contains("*store"))
            .expect("a store");
        let indent = store.len() - store.trim_start().len();
        assert!(indent > 2 * depth, "{depth}: {store}");
        for mode in [Mode::Fast, Mode::Count, Mode::Check] {
            let cfg = LaunchConfig::new(8, 32).mode(mode);
            let mut tiers = Vec::new();
            for engine in [Engine::Interp, Engine::Auto] {
                a.copy_from_slice(&[0; 256]);
                let r = cuda::launch(&dev, &k, &cfg.clone().engine(engine), &[Arg::buffer(&a)])
                    .unwrap_or_else(|e| panic!("{depth} {mode:?} {engine:?}: {e}"));
                assert_eq!(a.to_vec(), vec![depth as i32; 256], "{depth} {engine:?}");
                tiers.push((r.tier, r.launch.counters));
            }
            assert_eq!(tiers[0].1, tiers[1].1, "{depth} {mode:?}");
            match (&tiers[1].0, depth, mode) {
                (Tier::Compiled { .. }, 60, Mode::Fast | Mode::Count) => {}
                (Tier::Interpreted { reason }, 127 | 128, Mode::Fast | Mode::Count) => {
                    assert!(reason.contains("nested"), "{reason}")
                }
                (Tier::Interpreted { .. }, _, Mode::Check) => {}
                (t, _, _) => panic!("{depth} {mode:?}: {t:?}"),
            }
        }
    }
    for depth in [129, 2000] {
        let (src, line) = nested_kernel(depth);
        let e = Module::from_source("deep.cu", &src, &Options::default())
            .and_then(|m| m.lower("deep"))
            .expect_err("too deep");
        let text = e.to_string();
        assert!(
            text.contains(&format!("deep.cu:{line}:"))
                && text.contains(&format!(
                    "nesting statements {depth} deep (warpsim allows 128)"
                )),
            "{text}"
        );
    }
    // 100 levels in a device function called 50 levels deep.
    let inner = nested_kernel(100)
        .0
        .replace(
            "__global__ void deep(int *a)",
            "__device__ void inner(int *a, int t)",
        )
        .replace("int t = blockIdx.x * blockDim.x + threadIdx.x;", "");
    let outer = nested_kernel(50).0.replace("a[t] += 50;", "inner(a, t);");
    let e = Module::from_source("deep.cu", &format!("{inner}{outer}"), &Options::default())
        .and_then(|m| m.lower("deep"))
        .expect_err("too deep once inlined");
    assert!(
        e.to_string()
            .contains("statements nested more than 128 deep once device functions are inlined"),
        "{e}"
    );
}
