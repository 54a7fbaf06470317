//! Sum reductions (document 002): block partial sums in shared memory, then the final sum.
//!
//! Every variant computes one partial sum per block into `out[blockIdx.x]`; [`run`] launches it
//! again on the partial sums until one value is left, so a reduction is one to three launches
//! and needs no host-side arithmetic. Any `n` works: loads past the end read 0. The variants go
//! from 002's Fig 5.13 (interleaved addressing, divergent in every step) through Fig 5.15
//! (sequential addressing, divergent only below warp size) to warp-synchronous and shuffle
//! versions; their counters show why each is cheaper than the one before.

use crate::kernels::{Outcome, data};
use crate::{Device, Error, F32x32, Global, LaunchConfig, LaunchReport, Mask, Mode, U32x32, Warp};

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
fn load_or_zero(w: &mut Warp<'_>, x: &Global<f32>, i: U32x32, n: u32) -> F32x32 {
    w.if_else(i.lt(n), |w| w.load(x, i), |_| F32x32::ZERO)
}

/// `s[a] += s[b]` for the active lanes.
fn add_into(w: &mut Warp<'_>, s: &crate::Shared<'_, f32>, a: U32x32, b: U32x32) {
    let sum = w.load(s, a) + w.load(s, b);
    w.store(s, a, sum);
}

/// Thread 0 writes `s[0]` to `out[blockIdx.x]`.
fn write_block_sum(w: &mut Warp<'_>, s: &crate::Shared<'_, f32>, out: &Global<f32>) {
    let t = w.thread_idx().x;
    w.if_(t.eq(0), |w| {
        let v = w.load(s, t);
        w.store(out, U32x32::splat(w.block_idx().x), v);
    });
}

/// Fig 5.13: `for (stride = 1; stride < blockDim.x; stride *= 2) if (t % (2*stride) == 0) ...`
pub async fn interleaved(w: &mut Warp<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let bd = w.block_dim().x;
    let s = w.shared::<f32>(bd as usize);
    let t = w.thread_idx().x;
    let v = load_or_zero(w, x, w.global_idx_x(), n);
    w.store(&s, t, v);
    w.sync_threads().await;
    let mut stride = 1;
    while stride < bd {
        w.if_((t % (2 * stride)).eq(0), |w| add_into(w, &s, t, t + stride));
        w.sync_threads().await;
        stride *= 2;
    }
    write_block_sum(w, &s, out);
}

/// Interleaved addressing without the modulo: `index = 2*stride*t; if (index < blockDim.x)`.
pub async fn interleaved_strided(w: &mut Warp<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let bd = w.block_dim().x;
    let s = w.shared::<f32>(bd as usize);
    let t = w.thread_idx().x;
    let v = load_or_zero(w, x, w.global_idx_x(), n);
    w.store(&s, t, v);
    w.sync_threads().await;
    let mut stride = 1;
    while stride < bd {
        let index = t * (2 * stride);
        w.if_(index.lt(bd), |w| add_into(w, &s, index, index + stride));
        w.sync_threads().await;
        stride *= 2;
    }
    write_block_sum(w, &s, out);
}

/// The stride-halving tree over `s`, from `blockDim.x / 2` down to `stop` (exclusive).
async fn sequential_tree(w: &mut Warp<'_>, s: &crate::Shared<'_, f32>, stop: u32) {
    let t = w.thread_idx().x;
    let mut stride = w.block_dim().x / 2;
    while stride > stop {
        w.if_(t.lt(stride), |w| add_into(w, s, t, t + stride));
        w.sync_threads().await;
        stride /= 2;
    }
}

/// Fig 5.15 / `reduceSum`: `for (stride = blockDim.x/2; stride > 0; stride >>= 1) if (t < stride) ...`
pub async fn sequential(w: &mut Warp<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = w.shared::<f32>(w.block_dim().x as usize);
    let t = w.thread_idx().x;
    let v = load_or_zero(w, x, w.global_idx_x(), n);
    w.store(&s, t, v);
    w.sync_threads().await;
    sequential_tree(w, &s, 0).await;
    write_block_sum(w, &s, out);
}

/// Each thread loads `x[i] + x[i + blockDim.x]` for `i = blockIdx.x * 2 * blockDim.x + t`.
fn first_add(w: &mut Warp<'_>, x: &Global<f32>, n: u32) -> F32x32 {
    let bd = w.block_dim().x;
    let i = w.thread_idx().x + w.block_idx().x * 2 * bd;
    load_or_zero(w, x, i, n) + load_or_zero(w, x, i + bd, n)
}

/// Sequential addressing with the first add during the load.
pub async fn first_add_kernel(w: &mut Warp<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = w.shared::<f32>(w.block_dim().x as usize);
    let t = w.thread_idx().x;
    let v = first_add(w, x, n);
    w.store(&s, t, v);
    w.sync_threads().await;
    sequential_tree(w, &s, 0).await;
    write_block_sum(w, &s, out);
}

/// The last 64 partial sums reduced by the first warp without block barriers. Each step is
/// `v = s[t] + s[t + k]; __syncwarp(); s[t] = v; __syncwarp();`: correct under independent
/// thread scheduling, unlike the classic `volatile` version, with the same accesses.
fn warp_tail(w: &mut Warp<'_>, s: &crate::Shared<'_, f32>) {
    let t = w.thread_idx().x;
    w.if_(t.lt(32), |w| {
        for offset in [32, 16, 8, 4, 2, 1] {
            let v = w.load(s, t) + w.load(s, t + offset);
            w.sync_warp(Mask::FULL);
            w.store(s, t, v);
            w.sync_warp(Mask::FULL);
        }
    });
}

/// First add, the tree down to 64, then the last warp reduces 64 sums without block barriers.
pub async fn unroll_warp(w: &mut Warp<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = w.shared::<f32>(w.block_dim().x as usize);
    let t = w.thread_idx().x;
    let v = first_add(w, x, n);
    w.store(&s, t, v);
    w.sync_threads().await;
    sequential_tree(w, &s, 32).await;
    warp_tail(w, &s);
    write_block_sum(w, &s, out);
}

/// Completely unrolled for `BLOCK` threads (a power of two, 64 to 1024): every step's stride
/// is a compile-time constant and steps larger than the block vanish.
pub async fn unrolled<const BLOCK: u32>(
    w: &mut Warp<'_>,
    x: &Global<f32>,
    out: &Global<f32>,
    n: u32,
) {
    let s = w.shared::<f32>(BLOCK as usize);
    let t = w.thread_idx().x;
    let v = first_add(w, x, n);
    w.store(&s, t, v);
    w.sync_threads().await;
    if BLOCK >= 1024 {
        w.if_(t.lt(512), |w| add_into(w, &s, t, t + 512));
        w.sync_threads().await;
    }
    if BLOCK >= 512 {
        w.if_(t.lt(256), |w| add_into(w, &s, t, t + 256));
        w.sync_threads().await;
    }
    if BLOCK >= 256 {
        w.if_(t.lt(128), |w| add_into(w, &s, t, t + 128));
        w.sync_threads().await;
    }
    if BLOCK >= 128 {
        w.if_(t.lt(64), |w| add_into(w, &s, t, t + 64));
        w.sync_threads().await;
    }
    warp_tail(w, &s);
    write_block_sum(w, &s, out);
}

/// `for (i = blockIdx.x*blockDim.x + t; i < n; i += blockDim.x*gridDim.x) sum += x[i];`
fn grid_stride_sum(w: &mut Warp<'_>, x: &Global<f32>, n: u32) -> F32x32 {
    let step = w.block_dim().x * w.grid_dim().x;
    let (_, sum) = w.while_(
        (w.global_idx_x(), F32x32::ZERO),
        |_, (i, _)| i.lt(n),
        |w, (i, sum)| (*i + step, *sum + w.load(x, *i)),
    );
    sum
}

/// Grid-stride accumulation, then the sequential tree.
pub async fn multi(w: &mut Warp<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let s = w.shared::<f32>(w.block_dim().x as usize);
    let t = w.thread_idx().x;
    let v = grid_stride_sum(w, x, n);
    w.store(&s, t, v);
    w.sync_threads().await;
    sequential_tree(w, &s, 0).await;
    write_block_sum(w, &s, out);
}

/// The sum of `v` over the warp, in lane 0: `for (o = 16; o > 0; o /= 2) v += __shfl_down_sync(FULL, v, o);`
fn warp_sum(w: &mut Warp<'_>, mut v: F32x32) -> F32x32 {
    for offset in [16, 8, 4, 2, 1] {
        v += w.shfl_down_sync(Mask::FULL, v, offset, 32);
    }
    v
}

/// Grid-stride accumulation, warp sums by shuffle, warp 0 adds the warp sums.
pub async fn shuffle(w: &mut Warp<'_>, x: &Global<f32>, out: &Global<f32>, n: u32) {
    let warps = w.block_dim().x / 32;
    let sums = w.shared::<f32>(32);
    let lane = w.lane_id();
    let v = grid_stride_sum(w, x, n);
    let v = warp_sum(w, v);
    let warp = U32x32::splat(w.warp_id());
    w.if_(lane.eq(0), |w| w.store(&sums, warp, v));
    w.sync_threads().await;
    if w.warp_id() == 0 {
        let v = w.if_else(lane.lt(warps), |w| w.load(&sums, lane), |_| F32x32::ZERO);
        let total = warp_sum(w, v);
        w.if_(lane.eq(0), |w| {
            w.store(out, U32x32::splat(w.block_idx().x), total)
        });
    }
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
            Variant::Interleaved => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                interleaved(w, inp, o, n32).await
            }),
            Variant::InterleavedStrided => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                interleaved_strided(w, inp, o, n32).await
            }),
            Variant::Sequential => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                sequential(w, inp, o, n32).await
            }),
            Variant::FirstAdd => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                first_add_kernel(w, inp, o, n32).await
            }),
            Variant::UnrollWarp => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                unroll_warp(w, inp, o, n32).await
            }),
            Variant::Unrolled => match block {
                64 => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                    unrolled::<64>(w, inp, o, n32).await
                }),
                128 => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                    unrolled::<128>(w, inp, o, n32).await
                }),
                256 => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                    unrolled::<256>(w, inp, o, n32).await
                }),
                512 => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                    unrolled::<512>(w, inp, o, n32).await
                }),
                _ => dev.launch(&cfg, async |w: &mut Warp<'_>| {
                    unrolled::<1024>(w, inp, o, n32).await
                }),
            },
            Variant::Multi => {
                dev.launch(&cfg, async |w: &mut Warp<'_>| multi(w, inp, o, n32).await)
            }
            Variant::Shuffle => {
                dev.launch(&cfg, async |w: &mut Warp<'_>| shuffle(w, inp, o, n32).await)
            }
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
