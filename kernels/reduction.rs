//! Sum reductions (document 002): block partial sums in shared memory, then the final sum.
//!
//! Every variant computes one partial sum per block into `out[blockIdx.x]`; [`run`] launches it
//! again on the partial sums until one value is left, so a reduction is one to three launches
//! and needs no host-side arithmetic. Any `n` works: loads past the end read 0. The variants go
//! from 002's Fig 5.13 (interleaved addressing, divergent in every step) through Fig 5.15
//! (sequential addressing, divergent only below warp size) to warp-synchronous and shuffle
//! versions; their counters show why each is cheaper than the one before.

use crate::kernels::{Outcome, data};
use crate::{Block, Device, Error, F32s, Global, LaunchConfig, LaunchReport, Mask, Mode, U32s};

/// The reduction variants, in the documents' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Fig 5.13: stride doubling, `if (t % (2*stride) == 0)`.
    Interleaved,
    /// Stride doubling without the modulo: `index = 2*stride*t` (bank conflicts).
    InterleavedStrided,
    /// Fig 5.15: stride halving, `if (t < stride)`.
    Sequential,
    /// Sequential, each thread adding two elements while loading (half the blocks).
    FirstAdd,
    /// First add, and the last warp reduced without block barriers (`sync_warp` between steps).
    UnrollWarp,
    /// Completely unrolled for a compile-time block size.
    Unrolled,
    /// Grid-stride loop (many elements per thread), then the sequential tree.
    Multi,
    /// Grid-stride loop, warp sums by `shfl_down_sync`, one warp finishes.
    Shuffle,
}

impl Variant {
    /// Every variant, in the documents' order.
    pub const ALL: [Variant; 8] = [
        Variant::Interleaved,
        Variant::InterleavedStrided,
        Variant::Sequential,
        Variant::FirstAdd,
        Variant::UnrollWarp,
        Variant::Unrolled,
        Variant::Multi,
        Variant::Shuffle,
    ];

    /// The catalogue name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Interleaved => "reduce-interleaved",
            Variant::InterleavedStrided => "reduce-interleaved-strided",
            Variant::Sequential => "reduce-sequential",
            Variant::FirstAdd => "reduce-first-add",
            Variant::UnrollWarp => "reduce-unroll-warp",
            Variant::Unrolled => "reduce-unrolled",
            Variant::Multi => "reduce-multi",
            Variant::Shuffle => "reduce-shuffle",
        }
    }

    /// Elements one block consumes per pass (before grid-stride repetition).
    fn per_block(self, block: u32) -> u32 {
        match self {
            Variant::FirstAdd | Variant::UnrollWarp | Variant::Unrolled => 2 * block,
            _ => block,
        }
    }

    /// Blocks for `n` elements.
    pub fn grid(self, n: usize, block: u32) -> u32 {
        let blocks = n.div_ceil(self.per_block(block) as usize).max(1);
        match self {
            Variant::Multi | Variant::Shuffle => blocks.min(GRID_STRIDE_BLOCKS as usize) as u32,
            _ => blocks as u32,
        }
    }

    /// Check the block size this variant supports: a power of two (the trees halve it), at
    /// least 64 for the warp-unrolled tails, one of 64..=1024 for the unrolled version.
    pub fn check_block(self, block: u32) -> Result<(), String> {
        let min = match self {
            Variant::UnrollWarp | Variant::Unrolled | Variant::Shuffle => 64,
            _ => 2,
        };
        if !block.is_power_of_two() || block < min || block > 1024 {
            return Err(format!(
                "{} needs a power-of-two block of {min} to 1024 threads, not {block}",
                self.name()
            ));
        }
        Ok(())
    }
}

/// Most blocks of the grid-stride variants: about two per SM of a 132-SM H100, so each thread
/// of a large reduction loops over many elements.
pub const GRID_STRIDE_BLOCKS: u32 = 256;

/// `(i < n) ? x[i] : 0` per lane.
fn load_or_zero(b: &mut Block<'_>, x: &Global<f32>, i: U32s, n: u32) -> F32s {
    b.if_else(i.lt(n), |b| b.load(x, i), |_| F32s::ZERO)
}

/// `s[a] += s[b]` for the active lanes.
fn add_into(b: &mut Block<'_>, s: &crate::Shared<f32>, to: U32s, from: U32s) {
    let sum = b.load(s, to) + b.load(s, from);
    b.store(s, to, sum);
}

/// Thread 0 writes `s[0]` to `out[blockIdx.x]`.
fn write_block_sum(b: &mut Block<'_>, s: &crate::Shared<f32>, out: &Global<f32>) {
    let t = b.thread_idx().x;
    b.if_(t.eq(0), |b| {
        let v = b.load(s, t);
        b.store(out, b.block_idx().x, v);
    });
}

/// Fig 5.13: `for (stride = 1; stride < blockDim.x; stride *= 2) if (t % (2*stride) == 0) ...`
pub fn interleaved(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let bd = b.block_dim().x;
    let s = b.shared::<f32>(bd as usize);
    let t = b.thread_idx().x;
    let v = load_or_zero(b, x, b.global_idx_x(), n);
    b.store(&s, t, v);
    b.sync_threads();
    let mut stride = 1;
    while stride < bd {
        b.if_((t % (2 * stride)).eq(0), |b| add_into(b, &s, t, t + stride));
        b.sync_threads();
        stride *= 2;
    }
    write_block_sum(b, &s, out);
}

/// Interleaved addressing without the modulo: `index = 2*stride*t; if (index < blockDim.x)`.
pub fn interleaved_strided(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let bd = b.block_dim().x;
    let s = b.shared::<f32>(bd as usize);
    let t = b.thread_idx().x;
    let v = load_or_zero(b, x, b.global_idx_x(), n);
    b.store(&s, t, v);
    b.sync_threads();
    let mut stride = 1;
    while stride < bd {
        let index = t * (2 * stride);
        b.if_(index.lt(bd), |b| add_into(b, &s, index, index + stride));
        b.sync_threads();
        stride *= 2;
    }
    write_block_sum(b, &s, out);
}

/// The stride-halving tree over `s`, from `blockDim.x / 2` down to `stop` (exclusive).
fn sequential_tree(b: &mut Block<'_>, s: &crate::Shared<f32>, stop: u32) {
    let t = b.thread_idx().x;
    let mut stride = b.block_dim().x / 2;
    while stride > stop {
        b.if_(t.lt(stride), |b| add_into(b, s, t, t + stride));
        b.sync_threads();
        stride /= 2;
    }
}

/// Fig 5.15 / `reduceSum`: `for (stride = blockDim.x/2; stride > 0; stride >>= 1) if (t < stride) ...`
pub fn sequential(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = b.shared::<f32>(b.block_dim().x as usize);
    let t = b.thread_idx().x;
    let v = load_or_zero(b, x, b.global_idx_x(), n);
    b.store(&s, t, v);
    b.sync_threads();
    sequential_tree(b, &s, 0);
    write_block_sum(b, &s, out);
}

/// Each thread loads `x[i] + x[i + blockDim.x]` for `i = blockIdx.x * 2 * blockDim.x + t`.
fn first_add(b: &mut Block<'_>, x: &Global<f32>, n: u32) -> F32s {
    let bd = b.block_dim().x;
    let i = b.thread_idx().x + b.block_idx().x * 2 * bd;
    load_or_zero(b, x, i, n) + load_or_zero(b, x, i + bd, n)
}

/// Sequential addressing with the first add during the load.
pub fn first_add_kernel(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = b.shared::<f32>(b.block_dim().x as usize);
    let t = b.thread_idx().x;
    let v = first_add(b, x, n);
    b.store(&s, t, v);
    b.sync_threads();
    sequential_tree(b, &s, 0);
    write_block_sum(b, &s, out);
}

/// The last 64 partial sums reduced by the first warp without block barriers. Each step is
/// `v = s[t] + s[t + k]; __syncwarp(); s[t] = v; __syncwarp();`: correct under independent
/// thread scheduling, unlike the classic `volatile` version, with the same accesses.
fn warp_tail(b: &mut Block<'_>, s: &crate::Shared<f32>) {
    let t = b.thread_idx().x;
    b.if_(t.lt(32), |b| {
        for offset in [32, 16, 8, 4, 2, 1] {
            let v = b.load(s, t) + b.load(s, t + offset);
            b.sync_warp(Mask::FULL);
            b.store(s, t, v);
            b.sync_warp(Mask::FULL);
        }
    });
}

/// First add, the tree down to 64, then the last warp reduces 64 sums without block barriers.
pub fn unroll_warp(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = b.shared::<f32>(b.block_dim().x as usize);
    let t = b.thread_idx().x;
    let v = first_add(b, x, n);
    b.store(&s, t, v);
    b.sync_threads();
    sequential_tree(b, &s, 32);
    warp_tail(b, &s);
    write_block_sum(b, &s, out);
}

/// Completely unrolled for `BLOCK` threads (a power of two, 64 to 1024): every step's stride
/// is a compile-time constant and steps larger than the block vanish.
pub fn unrolled<const BLOCK: u32>(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = b.shared::<f32>(BLOCK as usize);
    let t = b.thread_idx().x;
    let v = first_add(b, x, n);
    b.store(&s, t, v);
    b.sync_threads();
    if BLOCK >= 1024 {
        b.if_(t.lt(512), |b| add_into(b, &s, t, t + 512));
        b.sync_threads();
    }
    if BLOCK >= 512 {
        b.if_(t.lt(256), |b| add_into(b, &s, t, t + 256));
        b.sync_threads();
    }
    if BLOCK >= 256 {
        b.if_(t.lt(128), |b| add_into(b, &s, t, t + 128));
        b.sync_threads();
    }
    if BLOCK >= 128 {
        b.if_(t.lt(64), |b| add_into(b, &s, t, t + 64));
        b.sync_threads();
    }
    warp_tail(b, &s);
    write_block_sum(b, &s, out);
}

/// `for (i = blockIdx.x*blockDim.x + t; i < n; i += blockDim.x*gridDim.x) sum += x[i];`
fn grid_stride_sum(b: &mut Block<'_>, x: &Global<f32>, n: u32) -> F32s {
    let step = b.block_dim().x * b.grid_dim().x;
    let (_, sum) = b.while_(
        (b.global_idx_x(), F32s::ZERO),
        |_, (i, _)| i.lt(n),
        |b, (i, sum)| (*i + step, *sum + b.load(x, *i)),
    );
    sum
}

/// Grid-stride accumulation, then the sequential tree.
pub fn multi(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = b.shared::<f32>(b.block_dim().x as usize);
    let t = b.thread_idx().x;
    let v = grid_stride_sum(b, x, n);
    b.store(&s, t, v);
    b.sync_threads();
    sequential_tree(b, &s, 0);
    write_block_sum(b, &s, out);
}

/// The sum of `v` over the warp, in lane 0: `for (o = 16; o > 0; o /= 2) v += __shfl_down_sync(FULL, v, o);`
fn warp_sum(b: &mut Block<'_>, mut v: F32s) -> F32s {
    for offset in [16, 8, 4, 2, 1] {
        v += b.shfl_down_sync(Mask::FULL, v, offset, 32);
    }
    v
}

/// Grid-stride accumulation, warp sums by shuffle, warp 0 adds the warp sums.
pub fn shuffle(b: &mut Block<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let warps = b.block_dim().x / 32;
    let sums = b.shared::<f32>(32);
    let lane = b.lane_id();
    let v = grid_stride_sum(b, x, n);
    let v = warp_sum(b, v);
    let warp = b.warp_id();
    b.if_(lane.eq(0), |b| b.store(&sums, warp, v));
    b.sync_threads();
    // `if (warp == 0)`: uniform within each warp, so never divergent.
    b.if_(warp.eq(0), |b| {
        let v = b.if_else(lane.lt(warps), |b| b.load(&sums, lane), |_| F32s::ZERO);
        let total = warp_sum(b, v);
        b.if_(lane.eq(0), |b| b.store(out, b.block_idx().x, total));
    });
}

/// The CPU reference: the sum in `f64`.
pub fn reference(x: &[f32]) -> f64 {
    x.iter().map(|&v| f64::from(v)).sum()
}

/// Whether `got` is `expected` within float32 rounding: 1e-5 of the sum of magnitudes.
pub fn close_enough(got: f32, expected: f64, x: &[f32]) -> bool {
    let scale: f64 = x.iter().map(|v| f64::from(v.abs())).sum();
    (f64::from(got) - expected).abs() <= 1e-5 * scale + 1e-6
}

/// Launch `variant` on `x[..n]` and again on the partial sums until one is left; returns the sum
/// and every launch in order.
pub fn reduce(
    dev: &Device,
    variant: Variant,
    x: &Global<f32>,
    block: u32,
    mode: Mode,
) -> Result<(f32, Vec<LaunchReport>), Error> {
    variant
        .check_block(block)
        .map_err(|reason| Error::InvalidLaunch {
            kernel: variant.name().to_string(),
            reason,
        })?;
    let mut input = x.clone();
    let mut launches = Vec::new();
    loop {
        let n = input.len();
        let grid = variant.grid(n, block);
        let out = dev.alloc_zeroed::<f32>("partial_sums", grid as usize);
        let cfg = LaunchConfig::new(grid, block)
            .name(variant.name())
            .mode(mode);
        let n32 = u32::try_from(n).map_err(|_| Error::InvalidLaunch {
            kernel: variant.name().to_string(),
            reason: format!("n = {n} does not fit the kernel's 32-bit indices"),
        })?;
        let (inp, o) = (&input, &out);
        let report = match variant {
            Variant::Interleaved => {
                dev.launch(&cfg, |b: &mut Block<'_>| interleaved(b, inp, o, n32))
            }
            Variant::InterleavedStrided => dev.launch(&cfg, |b: &mut Block<'_>| {
                interleaved_strided(b, inp, o, n32)
            }),
            Variant::Sequential => dev.launch(&cfg, |b: &mut Block<'_>| sequential(b, inp, o, n32)),
            Variant::FirstAdd => {
                dev.launch(&cfg, |b: &mut Block<'_>| first_add_kernel(b, inp, o, n32))
            }
            Variant::UnrollWarp => {
                dev.launch(&cfg, |b: &mut Block<'_>| unroll_warp(b, inp, o, n32))
            }
            Variant::Unrolled => match block {
                64 => dev.launch(&cfg, |b: &mut Block<'_>| unrolled::<64>(b, inp, o, n32)),
                128 => dev.launch(&cfg, |b: &mut Block<'_>| unrolled::<128>(b, inp, o, n32)),
                256 => dev.launch(&cfg, |b: &mut Block<'_>| unrolled::<256>(b, inp, o, n32)),
                512 => dev.launch(&cfg, |b: &mut Block<'_>| unrolled::<512>(b, inp, o, n32)),
                _ => dev.launch(&cfg, |b: &mut Block<'_>| unrolled::<1024>(b, inp, o, n32)),
            },
            Variant::Multi => dev.launch(&cfg, |b: &mut Block<'_>| multi(b, inp, o, n32)),
            Variant::Shuffle => dev.launch(&cfg, |b: &mut Block<'_>| shuffle(b, inp, o, n32)),
        }?;
        launches.push(report);
        if grid == 1 {
            return Ok((out.to_vec()[0], launches));
        }
        input = out;
    }
}

/// One verified reduction of a user's kernel: see [`verify`].
#[derive(Clone, Debug)]
pub struct Verified {
    /// Elements reduced.
    pub n: usize,
    /// The CPU reference sum.
    pub expected: f64,
    /// The kernel's sum.
    pub got: f32,
    /// Whether they agree within float32 rounding ([`close_enough`]).
    pub ok: bool,
    /// The kernel's launches, with their counters.
    pub launches: Vec<LaunchReport>,
}

/// Sizes every reduction is verified at: 1, around a warp and a block, a prime, a large one.
pub const EDGE_SIZES: [usize; 10] = [1, 31, 33, 255, 257, 1000, 1009, 4096, 65537, 1 << 20];

/// Verify a reduction at each size: `reduce(dev, x)` must return the sum of `x` (seeded values
/// in `[-1, 1)`) and the launches it made.
///
/// This is how to test your own reduction kernel against the catalogue's reference over the
/// same edge cases, with the same counters:
///
/// ```
/// use warpsim::kernels::reduction::{self, Variant};
/// use warpsim::{Device, Mode};
///
/// let dev = Device::default();
/// let results = reduction::verify(&dev, &[1, 257, 1009], |dev, x| {
///     // Your kernel here; this one is the catalogue's `reduce-sequential`.
///     reduction::reduce(dev, Variant::Sequential, x, 256, Mode::Count)
/// })?;
/// for r in &results {
///     assert!(r.ok, "n = {}: got {}, expected {}", r.n, r.got, r.expected);
///     let m = r.launches[0].metrics().unwrap();
///     assert_eq!(m.shared_ld_bank_conflicts, 0);
/// }
/// # Ok::<(), warpsim::Error>(())
/// ```
pub fn verify<F>(dev: &Device, sizes: &[usize], mut reduce: F) -> Result<Vec<Verified>, Error>
where
    F: FnMut(&Device, &Global<f32>) -> Result<(f32, Vec<LaunchReport>), Error>,
{
    sizes
        .iter()
        .map(|&n| {
            let host = data::signed_floats(n, n as u64);
            let x = dev.alloc_from("x", &host);
            let (got, launches) = reduce(dev, &x)?;
            let expected = reference(&host);
            Ok(Verified {
                n,
                expected,
                got,
                ok: close_enough(got, expected, &host),
                launches,
            })
        })
        .collect()
}

/// Run `variant` on `n` seeded floats (the catalogue entry).
pub fn run(
    dev: &Device,
    variant: Variant,
    n: usize,
    block: u32,
    mode: Mode,
) -> Result<Outcome, Error> {
    let host = data::unit_floats(n, 2002);
    let x = dev.alloc_from("x", &host);
    let start = std::time::Instant::now();
    let (got, launches) = reduce(dev, variant, &x, block, mode)?;
    let time = start.elapsed();
    let expected = reference(&host);
    Ok(Outcome {
        verified: close_enough(got, expected, &host),
        detail: format!("sum {got} (reference {expected:.3})"),
        launches,
        time,
        elements: n as u64,
        bytes: 4 * n as u64,
    })
}
