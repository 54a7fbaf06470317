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
use crate::{Block, Device, Element, Error, F32s, Global, LaunchConfig, Mode, U32s};

/// Element types of the pattern kernel: `float`, `float2`, `float4` (1, 2 or 4 words).
pub trait PatternElem: Element {
    /// Words per element.
    const WORDS: u32;
    /// The element whose word `j` holds `f(j)`, for each lane's word-index base `k * WORDS`.
    fn from_words_fn(base: U32s, f: impl Fn(U32s) -> F32s) -> Self::Vals;
    /// The sum of the element's words (`x + y`, `(x + y) + (z + w)`).
    fn sum(v: Self::Vals) -> F32s;
}

impl PatternElem for f32 {
    const WORDS: u32 = 1;
    fn from_words_fn(base: U32s, f: impl Fn(U32s) -> F32s) -> F32s {
        f(base)
    }
    fn sum(v: F32s) -> F32s {
        v
    }
}

impl PatternElem for [f32; 2] {
    const WORDS: u32 = 2;
    fn from_words_fn(base: U32s, f: impl Fn(U32s) -> F32s) -> [F32s; 2] {
        [f(base), f(base + 1)]
    }
    fn sum(v: [F32s; 2]) -> F32s {
        v[0] + v[1]
    }
}

impl PatternElem for [f32; 4] {
    const WORDS: u32 = 4;
    fn from_words_fn(base: U32s, f: impl Fn(U32s) -> F32s) -> [F32s; 4] {
        [f(base), f(base + 1), f(base + 2), f(base + 3)]
    }
    fn sum(v: [F32s; 4]) -> F32s {
        (v[0] + v[1]) + (v[2] + v[3])
    }
}

/// The value the fill stores in word `w`: `(float)(w & 1023)`.
fn word_value(w: U32s) -> F32s {
    (w & 1023).to_f32()
}

/// Elements the pattern needs for `block` threads.
pub fn array_len(pattern: Pattern, c: u32, block: u32) -> usize {
    let (c, block) = (c as usize, block as usize);
    match pattern {
        Pattern::Offset => block + c,
        Pattern::Stride => block.saturating_sub(1) * c + 1,
        Pattern::Modulo => c.max(1),
    }
}

fn pattern_index(p: &Params, t: u32) -> u32 {
    match p.pattern {
        Pattern::Offset => t + p.c,
        Pattern::Stride => t * p.c,
        Pattern::Modulo => t % p.c,
    }
}

/// Fill, barrier, `iters` pattern accesses, one global store per thread: loads accumulate the
/// element's word sum into a register, stores write `(float)it` to every word and leave
/// `(float)iters` in the register.
pub fn pattern_kernel<T: PatternElem>(b: &mut Block<'_>, out: &Global<f32>, p: &Params) {
    let block = b.block_dim().x;
    let len = array_len(p.pattern, p.c, block);
    let s = b.shared::<T>(len);
    let t = b.thread_idx().x;
    for base in (0..len as u32).step_by(block as usize) {
        let k = t + base;
        b.if_(k.lt(len as u32), |b| {
            b.store(&s, k, T::from_words_fn(k * T::WORDS, word_value))
        });
    }
    b.sync_threads();
    let addr = match p.pattern {
        Pattern::Offset => t + p.c,
        Pattern::Stride => t * p.c,
        Pattern::Modulo => t % p.c,
    };
    let acc = match p.op {
        SmemOp::Load => (0..p.iters).fold(F32s::ZERO, |acc, _| acc + T::sum(b.load(&s, addr))),
        SmemOp::Store => {
            for it in 0..p.iters {
                let v = F32s::splat(it as f32);
                b.store(&s, addr, T::from_words_fn(addr, |_| v));
            }
            F32s::splat(p.iters as f32)
        }
    };
    b.store(out, b.global_idx_x(), acc);
}

/// The CPU reference: what each thread writes.
pub fn reference(p: &Params, words: u32, block: u32) -> Vec<f32> {
    let value = |w: u32| (w & 1023) as f32;
    (0..block)
        .map(|t| match p.op {
            SmemOp::Store => p.iters as f32,
            SmemOp::Load => {
                let k = pattern_index(p, t) * words;
                let e = match words {
                    1 => value(k),
                    2 => value(k) + value(k + 1),
                    _ => (value(k) + value(k + 1)) + (value(k + 2) + value(k + 3)),
                };
                (0..p.iters).fold(0.0f32, |acc, _| acc + e)
            }
        })
        .collect()
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
    let out = dev.alloc_zeroed::<f32>("out", block as usize);
    let cfg = LaunchConfig::new(1, block).name("smem-pattern").mode(mode);
    let start = std::time::Instant::now();
    let report = dev.launch(&cfg, |b: &mut Block<'_>| pattern_kernel::<T>(b, &out, p))?;
    let time = start.elapsed();
    let accesses = u64::from(block) * u64::from(p.iters);
    Ok(exact_outcome(
        &out.to_vec(),
        &reference(p, T::WORDS, block),
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
        8 => run_typed::<[f32; 2]>(dev, p, mode),
        _ => run_typed::<[f32; 4]>(dev, p, mode),
    }
}
