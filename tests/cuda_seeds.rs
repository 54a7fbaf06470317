//! Every `__global__` kernel that the seed documents print complete, run as written (the source
//! copied verbatim into `tests/data/cuda/seeds/`, missing `#define`s given as `-D`), its output
//! checked against a CPU reference.

use std::path::Path;
use warpsim::cuda::{self, Arg, CudaReport, Module, Options};
use warpsim::{Device, Dim3, LaunchConfig, Mode};

fn seed(file: &str, defines: &[(&str, &str)], kernel: &str) -> warpsim::cuda::ir::Kernel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cuda/seeds")
        .join(file);
    let defines: Vec<(String, String)> = defines
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Module::from_file(&path, &Options::with_defines(&defines))
        .and_then(|m| m.lower(kernel))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn launch(
    dev: &Device,
    k: &warpsim::cuda::ir::Kernel,
    grid: impl Into<Dim3>,
    block: impl Into<Dim3>,
    smem: u32,
    args: &[Arg],
) -> CudaReport {
    let mut cfg = LaunchConfig::new(grid, block).mode(Mode::Count);
    cfg.dynamic_shared = smem;
    cuda::launch(dev, k, &cfg, args).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn doc000_and_003_multiply_and_square() {
    let dev = Device::default();
    for file in ["000_MyKernel_mul.cu", "003_MyKernel_mul.cu"] {
        let k = seed(file, &[], "MyKernel");
        let a: Vec<i32> = (0..1024).map(|i| i - 500).collect();
        let b: Vec<i32> = (0..1024).map(|i| 3 * i + 1).collect();
        let (ga, gb) = (dev.alloc_from("a", &a), dev.alloc_from("b", &b));
        let d = dev.alloc_zeroed::<i32>("d", 1024);
        launch(
            &dev,
            &k,
            4,
            256,
            0,
            &[Arg::buffer(&d), Arg::buffer(&ga), Arg::buffer(&gb)],
        );
        let want: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
        assert_eq!(d.to_vec(), want, "{file}");
    }
    for file in ["000_MyKernel_square.cu", "003_MyKernel_square.cu"] {
        let k = seed(file, &[], "MyKernel");
        let init: Vec<i32> = (0..1000).map(|i| i - 300).collect();
        let arr = dev.alloc_from("array", &init);
        launch(&dev, &k, 4, 256, 0, &[Arg::buffer(&arr), Arg::Int(1000)]);
        let want: Vec<i32> = init.iter().map(|x| x * x).collect();
        assert_eq!(arr.to_vec(), want, "{file}");
    }
}

#[test]
fn doc001_copies() {
    let dev = Device::default();
    let input: Vec<i32> = (0..2048).map(|i| i * 7 - 3).collect();
    for file in [
        "001_copyKernel_1.cu",
        "001_copyKernel_ldg.cu",
        "001_copyKernel_restrict.cu",
    ] {
        let k = seed(file, &[], "copyKernel");
        let (inp, out) = (
            dev.alloc_from("in", &input),
            dev.alloc_zeroed::<i32>("out", 2048),
        );
        let r = launch(&dev, &k, 8, 256, 0, &[Arg::buffer(&out), Arg::buffer(&inp)]);
        assert_eq!(out.to_vec(), input, "{file}");
        let c = r.launch.counters.unwrap();
        // 64 warps, each one fully coalesced 128-byte request per access.
        assert_eq!((c.gld_requests, c.gld_sectors), (64, 256), "{file}");
    }
}

#[test]
fn doc001_read_and_write_offset() {
    let dev = Device::default();
    let n = 1 << 14;
    let a: Vec<f32> = (0..n).map(|i| (i % 1024) as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| ((i * 7) % 1024) as f32).collect();
    let (ga, gb) = (dev.alloc_from("A", &a), dev.alloc_from("B", &b));
    for offset in [0usize, 11] {
        for (file, name) in [
            ("001_readOffset.cu", "readOffset"),
            ("001_writeOffset.cu", "writeOffset"),
        ] {
            let k = seed(file, &[], name);
            let c = dev.alloc_zeroed::<f32>("C", n);
            let r = launch(
                &dev,
                &k,
                (n / 512) as u32,
                512,
                0,
                &[
                    Arg::buffer(&ga),
                    Arg::buffer(&gb),
                    Arg::buffer(&c),
                    Arg::Int(n as i128),
                    Arg::Int(offset as i128),
                ],
            );
            let mut want = vec![0.0f32; n];
            for i in 0..n {
                let k = i + offset;
                if k < n {
                    if name == "readOffset" {
                        want[i] = a[k] + b[k];
                    } else {
                        want[k] = a[i] + b[i];
                    }
                }
            }
            assert_eq!(c.to_vec(), want, "{name} offset {offset}");
            // 001's figure: offset 11 makes each warp's 128 bytes straddle 5 sectors.
            let m = r.launch.metrics().unwrap();
            let eff = if name == "readOffset" {
                m.gld_efficiency
            } else {
                m.gst_efficiency
            };
            let want_eff = if offset == 0 { 100.0 } else { 80.0 };
            assert!(
                (eff - want_eff).abs() < 0.5,
                "{name} offset {offset}: {eff}"
            );
        }
    }
}

#[test]
fn doc001_array_of_structs_and_struct_of_arrays() {
    let dev = Device::default();
    let n = 4096usize;
    let x: Vec<f32> = (0..n).map(|i| (i % 256) as f32 / 100.0).collect();
    let y: Vec<f32> = (0..n).map(|i| ((i * 3) % 256) as f32 / 100.0).collect();

    let k = seed("001_testInnerStruct.cu", &[], "testInnerStruct");
    let aos: Vec<f32> = x.iter().zip(&y).flat_map(|(a, b)| [*a, *b]).collect();
    let (data, result) = (
        dev.alloc_from("data", &aos),
        dev.alloc_zeroed::<f32>("result", 2 * n),
    );
    let r = launch(
        &dev,
        &k,
        (n / 128) as u32,
        128,
        0,
        &[
            Arg::buffer(&data),
            Arg::buffer(&result),
            Arg::Int(n as i128),
        ],
    );
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .flat_map(|(a, b)| [a + 10.0, b + 20.0])
        .collect();
    assert_eq!(result.to_vec(), want);
    // The document's point: each 4-byte field access of the AoS uses half of what it fetches.
    let m = r.launch.metrics().unwrap();
    assert!(
        (m.gld_efficiency - 50.0).abs() < 0.5,
        "{}",
        m.gld_efficiency
    );

    // testInnerArray: one struct of two arrays of N floats, through `data->x[i]`.
    let k = seed(
        "001_testInnerArray.cu",
        &[("N", "4096"), ("InnerArray", "innerArray")],
        "testInnerArray",
    );
    let soa: Vec<f32> = x.iter().chain(&y).copied().collect();
    let (data, result) = (
        dev.alloc_from("data", &soa),
        dev.alloc_zeroed::<f32>("result", 2 * n),
    );
    let r = launch(
        &dev,
        &k,
        (n / 128) as u32,
        128,
        0,
        &[
            Arg::buffer(&data),
            Arg::buffer(&result),
            Arg::Int(n as i128),
        ],
    );
    let want: Vec<f32> = x
        .iter()
        .map(|a| a + 10.0)
        .chain(y.iter().map(|b| b + 20.0))
        .collect();
    assert_eq!(result.to_vec(), want);
    let m = r.launch.metrics().unwrap();
    assert!(
        (m.gld_efficiency - 100.0).abs() < 0.5,
        "{}",
        m.gld_efficiency
    );
}

#[test]
fn doc002_reduce_sum() {
    let dev = Device::default();
    let k = seed("002_reduceSum.cu", &[], "reduceSum");
    let n = 10_000usize;
    let input: Vec<f32> = (0..n).map(|i| ((i * 37) % 11) as f32 - 5.0).collect();
    let g = dev.alloc_from("input", &input);
    let blocks = n.div_ceil(256);
    let out = dev.alloc_zeroed::<f32>("output", blocks);
    launch(
        &dev,
        &k,
        blocks as u32,
        256,
        256 * 4,
        &[Arg::buffer(&g), Arg::buffer(&out), Arg::Int(n as i128)],
    );
    let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(out.to_vec(), want);
}

#[test]
fn incomplete_seed_copies_fail_with_a_located_error() {
    // As printed, these have OCR damage or `...` placeholders: the error names the spot.
    for (file, kernel) in [
        ("001_readOffsetUnroll4.cu", "readOffsetUnroll4"),
        ("004_mtran.cu", "mtran"),
        ("004_mtran_coalesced.cu", "mtran_coalesced"),
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/cuda/seeds")
            .join(file);
        let e = Module::from_file(&path, &Options::default())
            .and_then(|m| m.lower(kernel))
            .expect_err(file);
        assert!(e.to_string().contains(file), "{file}: {e}");
    }
}
