//! Shared-memory bank patterns (document 004).
//!
//! One block fills a shared array with contiguous stores, waits at a barrier, then every thread
//! makes `iters` accesses at its pattern address: `s[tid + c]` (offset), `s[tid * c]` (stride)
//! or `s[tid % c]` (modulo), with 4-, 8- or 16-byte elements, loading (into a register written to
//! global memory once) or storing. The pattern instruction's wavefronts per request are then read
//! straight off the counters: `s[tid*c]` with 4-byte words is a `gcd(c, 32)`-way conflict,
//! `s[tid*33]` and the broadcasts of `s[tid % c]` are conflict-free, consecutive doubles need 2
//! wavefronts and consecutive 16-byte vectors 4 without any conflict.

use crate::kernels::{Outcome, Params, Pattern, SmemOp, exact_outcome};
use crate::{Device, Element, Error, F32x32, F64x32, Global, LaunchConfig, Mode, U32x32, Warp};

/// Element types of the pattern kernel: `float`, `double`, `float4`.
pub trait PatternElem: Element {
    /// `a + b` lane-wise.
    fn add(a: Self::Lanes, b: Self::Lanes) -> Self::Lanes;
    /// The value stored for index `k` (`k` in every component).
    fn value(k: U32x32) -> Self::Lanes;
    /// The host value for index `k`.
    fn host(k: u32) -> Self;
    /// `a + b` on the host.
    fn host_add(a: Self, b: Self) -> Self;
}

impl PatternElem for f32 {
    fn add(a: F32x32, b: F32x32) -> F32x32 {
        a + b
    }
    fn value(k: U32x32) -> F32x32 {
        k.to_f32()
    }
    fn host(k: u32) -> f32 {
        k as f32
    }
    fn host_add(a: f32, b: f32) -> f32 {
        a + b
    }
}

impl PatternElem for f64 {
    fn add(a: F64x32, b: F64x32) -> F64x32 {
        a + b
    }
    fn value(k: U32x32) -> F64x32 {
        k.to_f32().to_f64()
    }
    fn host(k: u32) -> f64 {
        f64::from(k as f32)
    }
    fn host_add(a: f64, b: f64) -> f64 {
        a + b
    }
}

impl PatternElem for [f32; 4] {
    fn add(a: [F32x32; 4], b: [F32x32; 4]) -> [F32x32; 4] {
        std::array::from_fn(|i| a[i] + b[i])
    }
    fn value(k: U32x32) -> [F32x32; 4] {
        [k.to_f32(); 4]
    }
    fn host(k: u32) -> [f32; 4] {
        [k as f32; 4]
    }
    fn host_add(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
        std::array::from_fn(|i| a[i] + b[i])
    }
}

/// Elements the pattern needs for `block` threads.
pub fn array_len(pattern: Pattern, c: u32, block: u32) -> usize {
    match pattern {
        Pattern::Offset => (block + c) as usize,
        Pattern::Stride => (block.saturating_sub(1) as usize) * c as usize + 1,
        Pattern::Modulo => c.max(1) as usize,
    }
}

/// Fill, barrier, `iters` pattern accesses, one global store per thread.
pub async fn pattern_kernel<T: PatternElem>(w: &mut Warp<'_>, out: &Global<T>, p: &Params) {
    let block = w.block_dim().x;
    let len = array_len(p.pattern, p.c, block);
    let s = w.shared::<T>(len);
    let t = w.thread_idx().x;
    for base in (0..len as u32).step_by(block as usize) {
        let k = t + base;
        w.if_(k.lt(len as u32), |w| w.store(&s, k, T::value(k)));
    }
    w.sync_threads().await;
    let addr = match p.pattern {
        Pattern::Offset => t + p.c,
        Pattern::Stride => t * p.c,
        Pattern::Modulo => t % p.c,
    };
    let acc = match p.op {
        SmemOp::Load => {
            (0..p.iters).fold(T::Lanes::default(), |acc, _| T::add(acc, w.load(&s, addr)))
        }
        SmemOp::Store => {
            for it in 0..p.iters {
                w.store(&s, addr, T::value(addr + it));
            }
            w.sync_threads().await;
            w.load(&s, t)
        }
    };
    w.store(out, w.global_idx_x(), acc);
}

/// The CPU reference: what each thread writes.
pub fn reference<T: PatternElem>(p: &Params, block: u32) -> Vec<T> {
    let len = array_len(p.pattern, p.c, block);
    let mut s: Vec<T> = (0..len as u32).map(T::host).collect();
    let addr = |t: u32| match p.pattern {
        Pattern::Offset => t + p.c,
        Pattern::Stride => t * p.c,
        Pattern::Modulo => t % p.c,
    } as usize;
    match p.op {
        SmemOp::Load => (0..block)
            .map(|t| (0..p.iters).fold(T::default(), |acc, _| T::host_add(acc, s[addr(t)])))
            .collect(),
        SmemOp::Store => {
            for t in 0..block {
                if p.iters > 0 {
                    s[addr(t)] = T::host(addr(t) as u32 + p.iters - 1);
                }
            }
            (0..block as usize).map(|t| s[t]).collect()
        }
    }
}

/// Check the parameters: element size, `c`, and that the array fits 48 KiB.
pub fn check_params(p: &Params) -> Result<(), String> {
    if ![4, 8, 16].contains(&p.elem_bytes) {
        return Err(format!(
            "--elem-bytes must be 4, 8 or 16, not {}",
            p.elem_bytes
        ));
    }
    if p.pattern == Pattern::Modulo && p.c == 0 {
        return Err("--pattern modulo needs --c of at least 1".to_string());
    }
    if p.block.y != 1 || p.block.z != 1 {
        return Err("smem-pattern takes a 1-D block".to_string());
    }
    let bytes = array_len(p.pattern, p.c, p.block.x) as u64 * u64::from(p.elem_bytes);
    if bytes > 48 * 1024 {
        return Err(format!(
            "the pattern needs {bytes} bytes of shared memory, over the 48 KiB a block may declare; use a smaller --c or --block"
        ));
    }
    Ok(())
}

fn run_typed<T: PatternElem>(dev: &Device, p: &Params, mode: Mode) -> Result<Outcome, Error> {
    let block = p.block.x;
    let out = dev.alloc_zeroed::<T>("out", block as usize);
    let cfg = LaunchConfig::new(1, block).name("smem-pattern").mode(mode);
    let start = std::time::Instant::now();
    let report = dev.launch(&cfg, async |w: &mut Warp<'_>| {
        pattern_kernel::<T>(w, &out, p).await
    })?;
    let time = start.elapsed();
    let accesses = u64::from(block) * u64::from(p.iters);
    Ok(exact_outcome(
        &out.to_vec(),
        &reference::<T>(p, block),
        vec![report],
        time,
        accesses,
        accesses * u64::from(p.elem_bytes),
    ))
}

/// Run `smem-pattern` with `p` (one block).
pub fn run(dev: &Device, p: &Params, mode: Mode) -> Result<Outcome, Error> {
    check_params(p).map_err(|reason| Error::InvalidLaunch {
        kernel: "smem-pattern".to_string(),
        reason,
    })?;
    match p.elem_bytes {
        4 => run_typed::<f32>(dev, p, mode),
        8 => run_typed::<f64>(dev, p, mode),
        _ => run_typed::<[f32; 4]>(dev, p, mode),
    }
}
